// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "As-rigid-as-possible deformation of a 3-D surface with handles (Sorkine & Alexa 2007, \"As-\n"
    "rigid-as-possible surface modeling\", SGP): the vertices near the surface's two ends in x are\n"
    "fixed dofs moved to prescribed places, every vertex's cell has a rotation, and Newton's method\n"
    "minimises the arap_surface energy over positions and rotations together (each rotation a Gibbs\n"
    "vector u times a base rotation R0: 3 more unknowns per vertex; after every SNES line search\n"
    "R(u) is folded into R0 and u reset to 0, since the Cayley map R(u) is singular at pi, where a\n"
    "bend's rotations may go: energies/arap_surface.c's base rotations). The rotations shared by a\n"
    "vertex's triangles are what makes the surface resist bending; a per-triangle rotation (the planar\n"
    "`arap` example) would let it fold freely along every edge.\n"
    "The default surface is an open tube of radius 0.5 along x, an nx x nt grid wrapped around it.\n"
    "Options:\n"
    "  -nx <24> -nt <16> -L <4>  tube grid (along, around) and length\n"
    "  -mesh <file>              a triangle surface (.obj, .off, Gmsh .msh, .ply) instead of the tube\n"
    "                            (vertices in no triangle are dropped, with a line saying how many)\n"
    "  -band <h/2>               handles: the vertices within band of the smallest and the largest x\n"
    "                            (default: half the tube's grid spacing, or 5% of a mesh's x extent)\n"
    "  -handles <bend>           bend: left handle fixed, right one turned by -angle about the z\n"
    "                            axis through its centre and moved by (-dx, -dy, 0); twist: the right\n"
    "                            one turned by -angle about the x axis; rigid: both moved by one rigid\n"
    "                            motion (turn by -angle about -axis through the origin, move by\n"
    "                            (-dx, -dy, -dz))\n"
    "  -angle <90> -dx <2L/pi - L> -dy <2L/pi> -dz <0> -axis <0,0,1>  the handles' motion (degrees,\n"
    "                            lengths); the default bends the axis into a quarter circle of its length\n"
    "  -weights <cotan_clamped>  edge weights w_ij of the energy sum_i sum_j w_ij |x_j - x_i - R_i (xbar_j - xbar_i)|^2:\n"
    "                            cotan_clamped: each triangle's share max(cot theta, 0)/2 of its rest angle theta\n"
    "                            opposite the edge (Sorkine & Alexa's (cot a + cot b)/2 wherever no angle is\n"
    "                            obtuse; never negative, so E >= 0 on any mesh and, with rigidly moved handles,\n"
    "                            the rigid motion is the minimum, E = 0); uniform: w = 1; cotan: (cot a + cot b)/2\n"
    "                            unclamped, refused (an error naming the edge) where negative, i.e. across a\n"
    "                            non-Delaunay edge, where E could go below 0 and the answer be wrong.\n"
    "                            A vertex whose positive-weight edges all lie on one line would have its\n"
    "                            rotation free about it (a singular Hessian): its zero-weight edges get\n"
    "                            0.01 x the mean edge weight, said on a line before the summary\n"
    "  -load_steps <auto>        move the handles in this many equal steps, solving after each (default:\n"
    "                            the fewest that turn a handle by at most 45 degrees a step, ceil(|angle|/45):\n"
    "                            from the rest shape, one 90-degree step of the sliver disk spot_jitter ends\n"
    "                            at a non-rigid local minimum, two reach the rigid motion)\n"
    "  -local_global <0>         also run this many iterations of Sorkine & Alexa's local-global\n"
    "                            algorithm (closed-form local step, sparse LU global step; 1 rank) from the\n"
    "                            same start (same weights) and report how far its result is from Newton's\n"
    "  -use_tao                  minimise with TAO (default -tao_type nls) instead of SNES (one chart, R0 = I)\n"
    "  -rechart <true>           SNES: fold the rotations into their base rotations after every line search\n"
    "  -o <file.vtu>             write the deformed surface with its displacement\n"
    "  -check_minimum            also min_eigenvalue in the summary: the smallest eigenvalue of the exact\n"
    "                            Hessian at the result (dense, KSPComputeEigenvaluesExplicitly; 1 rank, up\n"
    "                            to 500 vertices), > 0 at a strict local minimum, < 0 at a saddle\n"
    "Defaults (SNES): mfad's Newton-CG (MfadEnergySetNewtonCG(), -mfad_newton_cg; each of its parts\n"
    "unless chosen): CG on the exact Hessian preconditioned by the Cholesky factor of the PSD-projected\n"
    "one. ARAP is not convex: the first CG step, a projected Newton step, is a descent direction far\n"
    "from the minimum, while near it CG reaches the exact Newton step; where CG fails or meets negative\n"
    "curvature the projected step is taken if its model is lower, and at a saddle Steihaug's CG steps\n"
    "along the negative curvature. Spot's default bend: 16 steps and 8 s, against 26 and 55 s for the\n"
    "cached Hessian with CG + Jacobi. TAO: the cached Hessian, projected in the first 10 Newton steps\n"
    "(MfadEnergySetPSDProjectionSteps()), at most 200 steps. SNES: at most 200 steps, |g| <= 1e-12 |g0|\n"
    "(Newton's last steps are quadratic: an answer to round-off for about 2 steps more; with several\n"
    "load steps g0 is the whole motion's starting gradient, so that every step meets one test; any\n"
    "-snes_rtol given replaces 1e-12), -ksp_rtol 1e-10, or mfad's stop at the energy's round-off\n"
    "(CONVERGED_SNORM_RELATIVE); every SNES/KSP/PC/TAO and mfad option applies.\n"
    "The last line is a summary: vertices, triangles, weights and negative_cotan (the edges whose\n"
    "cotangent weight (cot a + cot b)/2 is negative: non-Delaunay edges), energy, rigid_deviation and\n"
    "rotation_deviation (the largest distance of a vertex from the left handle's rigid motion of its\n"
    "rest place, and of a cell's rotation from that motion's, |R - Q|_F: both 0 when the handles\n"
    "move rigidly together), length_ratio (deformed over rest edge length, summed), residual,\n"
    "iterations (Newton, all load steps), reason; with -local_global also lg_iterations, lg_energy\n"
    "and lg_deviation (largest distance between the two results' vertices).\n"
    "Exits non-zero, the reason on stderr, when a solve did not converge.\n\n";

#include <mfadpetsc.h>
#include <petscblaslapack.h>
#include "geommesh.h"

MFAD_KERNEL_DECLARE(arap_surface);

typedef enum { HANDLES_BEND, HANDLES_TWIST, HANDLES_RIGID } Handles;
static const char *const HandlesTypes[] = {"bend", "twist", "rigid", "Handles", "HANDLES_", NULL};
typedef enum { WEIGHTS_COTAN_CLAMPED, WEIGHTS_UNIFORM, WEIGHTS_COTAN } Weights;
static const char *const WeightsTypes[] = {"cotan_clamped", "uniform", "cotan", "Weights", "WEIGHTS_", NULL};

/* a rigid motion x = Q (X - c) + c + t */
typedef struct {
  PetscReal Q[9], c[3], t[3];
} Motion;

/* Q: the turn by angle a about the unit axis n (Rodrigues' formula) */
static void MotionSet(const PetscReal n[3], PetscReal a, const PetscReal c[3], const PetscReal t[3], Motion *M)
{
  const PetscReal co = PetscCosReal(a), si = PetscSinReal(a);
  for (int i = 0; i < 3; i++) {
    for (int j = 0; j < 3; j++) M->Q[3 * i + j] = (1 - co) * n[i] * n[j] + (i == j ? co : 0);
    M->c[i] = c[i], M->t[i] = t[i];
  }
  M->Q[1] -= si * n[2], M->Q[2] += si * n[1], M->Q[3] += si * n[2], M->Q[5] -= si * n[0], M->Q[6] -= si * n[1], M->Q[7] += si * n[0];
}

static void MotionApply(const Motion *M, const PetscReal X[3], PetscReal x[3])
{
  for (int i = 0; i < 3; i++) {
    x[i] = M->c[i] + M->t[i];
    for (int j = 0; j < 3; j++) x[i] += M->Q[3 * i + j] * (X[j] - M->c[j]);
  }
}

/* R(u), the Cayley map of a Gibbs vector, as in energies/arap_surface.c */
static void GibbsRotation(const PetscReal u[3], PetscReal R[9])
{
  const PetscReal s = 2 / (1 + u[0] * u[0] + u[1] * u[1] + u[2] * u[2]), K[9] = {0, -u[2], u[1], u[2], 0, -u[0], -u[1], u[0], 0};
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      PetscReal k2 = 0;
      for (int l = 0; l < 3; l++) k2 += K[3 * i + l] * K[3 * l + j];
      R[3 * i + j] = (i == j) + s * (K[3 * i + j] + k2);
    }
}

/* C = A B, or A B^T (3 x 3, row-major) */
static void RotationCompose(const PetscReal A[9], const PetscReal B[9], PetscBool bt, PetscReal C[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C[3 * i + j] = 0;
      for (int l = 0; l < 3; l++) C[3 * i + j] += A[3 * i + l] * (bt ? B[3 * j + l] : B[3 * l + j]);
    }
}

/* the Gibbs vector of a rotation by less than pi: the quaternion's vector part over its scalar
   part, (R21 - R12, R02 - R20, R10 - R01) / (1 + tr R) */
static PetscErrorCode RotationGibbs(const PetscReal R[9], PetscReal u[3])
{
  const PetscReal d = 1 + R[0] + R[4] + R[8];
  PetscFunctionBeginUser;
  PetscCheck(d > 1e-8, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "arap_surface: a rotation by (nearly) pi has no Gibbs vector (1 + trace %g)",
             (double)d);
  u[0] = (R[7] - R[5]) / d, u[1] = (R[2] - R[6]) / d, u[2] = (R[3] - R[1]) / d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An open tube of radius r along x: vertex (i, j), i = 0..nx along, j = 0..nt-1 around, id i nt + j;
   two triangles per square (alternating diagonals), normals outward. */
static PetscErrorCode TubeMesh(PetscInt nx, PetscInt nt, PetscReal L, PetscReal r, MfadMesh *mesh)
{
  MfadMesh m;

  PetscFunctionBeginUser;
  PetscCheck(nx >= 1 && nt >= 3, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "tube %" PetscInt_FMT " x %" PetscInt_FMT ": need nx >= 1 and nt >= 3",
             nx, nt);
  PetscCall(MfadMeshCreate(3, (nx + 1) * nt, 3, 2 * nx * nt, mesh));
  m = *mesh;
  for (PetscInt i = 0; i <= nx; i++)
    for (PetscInt j = 0; j < nt; j++) {
      PetscReal *c = &m->coords[3 * (i * nt + j)];
      c[0] = L * i / nx, c[1] = r * PetscCosReal(2 * PETSC_PI * j / nt), c[2] = r * PetscSinReal(2 * PETSC_PI * j / nt);
    }
  for (PetscInt i = 0; i < nx; i++)
    for (PetscInt j = 0; j < nt; j++) {
      const PetscInt v00 = i * nt + j, v01 = i * nt + (j + 1) % nt, v10 = v00 + nt, v11 = v01 + nt;
      PetscInt      *t = &m->cells[6 * (i * nt + j)];
      if ((i + j) % 2 == 0) t[0] = v00, t[1] = v01, t[2] = v11, t[3] = v00, t[4] = v11, t[5] = v10;
      else t[0] = v00, t[1] = v01, t[2] = v10, t[3] = v10, t[4] = v01, t[5] = v11;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Drops the vertices that no triangle uses (the Stanford bunny's OBJ has 1,113 of 35,947): their
   positions and rotations have no energy, so the Hessian would be singular there (a Cholesky
   factor fails) and the deviations would measure points that never moved. *ndrop: how many. */
static PetscErrorCode DropUnusedVertices(MfadMesh *mesh, PetscInt *ndrop)
{
  MfadMesh  m = *mesh, c;
  PetscInt *id, nused = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->nvert, &id));
  for (PetscInt v = 0; v < m->nvert; v++) id[v] = -1;
  for (PetscInt k = 0; k < 3 * m->ncell; k++) id[m->cells[k]] = 0;
  for (PetscInt v = 0; v < m->nvert; v++)
    if (id[v] == 0) id[v] = nused++;
  *ndrop = m->nvert - nused;
  if (*ndrop > 0) {
    PetscCall(MfadMeshCreate(3, nused, 3, m->ncell, &c));
    for (PetscInt v = 0; v < m->nvert; v++)
      if (id[v] >= 0)
        for (int d = 0; d < 3; d++) c->coords[3 * id[v] + d] = m->coords[3 * v + d];
    for (PetscInt k = 0; k < 3 * m->ncell; k++) c->cells[k] = id[m->cells[k]];
    PetscCall(MfadMeshDestroy(mesh));
    *mesh = c;
  }
  PetscCall(PetscFree(id));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The handle motion at load fraction f (angles and moves scaled by f) and the fixed dofs it
   gives: positions of this rank's owned handle vertices, vertex v's first dof at stride v (6 v in
   the ARAP unknowns, where v's rotation follows its position) */
typedef struct {
  Handles   type;
  PetscReal angle, move[3], axis[3], lo, hi, band, centre[2][3];
  PetscInt *side; /* per mesh vertex: -1 free, 0 left handle, 1 right handle */
} HandleSet;

static void HandleMotion(const HandleSet *h, PetscInt side, PetscReal f, Motion *M)
{
  const PetscReal zero[3] = {0, 0, 0}, ez[3] = {0, 0, 1}, ex[3] = {1, 0, 0}, t[3] = {f * h->move[0], f * h->move[1], f * h->move[2]};
  switch (h->type) {
  case HANDLES_RIGID:
    MotionSet(h->axis, f * h->angle, zero, t, M);
    break;
  case HANDLES_BEND:
    MotionSet(ez, side ? f * h->angle : 0, h->centre[side], side ? t : zero, M);
    break;
  case HANDLES_TWIST:
    MotionSet(ex, side ? f * h->angle : 0, h->centre[side], zero, M);
    break;
  }
}

static PetscErrorCode HandlesFix(MfadEnergy E, MfadMesh m, const HandleSet *h, PetscInt vstart, PetscInt vend, PetscReal f, PetscInt stride)
{
  PetscInt  *fix, nfix = 0;
  PetscReal *val;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(3 * (vend - vstart), &fix, 3 * (vend - vstart), &val));
  for (PetscInt v = vstart; v < vend; v++) {
    Motion    M;
    PetscReal x[3];
    if (h->side[v] < 0) continue;
    HandleMotion(h, h->side[v], f, &M);
    MotionApply(&M, &m->coords[3 * v], x);
    for (int d = 0; d < 3; d++) fix[nfix] = stride * v + d, val[nfix++] = x[d];
  }
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fix, val));
  PetscCall(PetscFree2(fix, val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The rotation maximising sum w d . R e over a cell's edges (rest e, current d), from
   S_pq = sum w e_p d_q: the quaternion of the largest eigenvalue of Horn's symmetric 4 x 4 matrix
   (Horn 1987, "Closed-form solution of absolute orientation using unit quaternions", JOSA A 4(4));
   always a rotation, never a reflection. LAPACK's dsyev: eigenvalues ascending, eigenvectors as
   the columns of the column-major result (N is symmetric, so row or column order in is the same) */
static PetscErrorCode BestRotation(const PetscReal T[9], PetscReal R[9])
{
  PetscScalar        N[16] = {T[0] + T[4] + T[8], T[5] - T[7], T[6] - T[2], T[1] - T[3],        T[5] - T[7],         T[0] - T[4] - T[8],
                              T[1] + T[3],        T[6] + T[2], T[6] - T[2], T[1] + T[3],        -T[0] + T[4] - T[8], T[5] + T[7],
                              T[1] - T[3],        T[6] + T[2], T[5] + T[7], -T[0] - T[4] + T[8]};
  PetscScalar        work[64];
  PetscReal          lambda[4], w, a, b, c;
  const PetscBLASInt n = 4, lwork = 64;
  PetscBLASInt       info;

  PetscFunctionBegin;
  PetscCallBLAS("LAPACKsyev", LAPACKsyev_("V", "U", &n, N, &n, lambda, work, &lwork, &info));
  PetscCheck(info == 0, PETSC_COMM_SELF, PETSC_ERR_LIB, "LAPACK dsyev on Horn's 4 x 4 matrix failed: info %d", (int)info);
  /* the last column: the eigenvector of the largest eigenvalue */
  w = N[12], a = N[13], b = N[14], c = N[15];
  R[0] = w * w + a * a - b * b - c * c, R[1] = 2 * (a * b - w * c), R[2] = 2 * (a * c + w * b);
  R[3] = 2 * (a * b + w * c), R[4] = w * w - a * a + b * b - c * c, R[5] = 2 * (b * c - w * a);
  R[6] = 2 * (a * c - w * b), R[7] = 2 * (b * c + w * a), R[8] = w * w - a * a - b * b + c * c;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* S (9 per vertex, vertices [vs, ve) only) += sum over the cells' edges of w e d^T, both directions
   (cell i: e = xbar_j - xbar_i, d = x_j - x_i), w the triangle's share of the edge weight; x and xbar
   3 per mesh vertex, x with stride `stride` */
static void CellCovariances(MfadMesh m, const PetscReal *w, const PetscScalar *x, PetscInt stride, PetscInt vs, PetscInt ve, PetscReal *S)
{
  for (PetscInt c = 0; c < m->ncell; c++)
    for (int k = 0; k < 3; k++) {
      const PetscInt i = m->cells[3 * c + k], j = m->cells[3 * c + (k + 1) % 3];
      for (int s = 0; s < 2; s++) {
        const PetscInt a = s ? j : i, bq = s ? i : j;
        if (a < vs || a >= ve) continue;
        for (int p = 0; p < 3; p++)
          for (int q = 0; q < 3; q++)
            S[9 * (a - vs) + 3 * p + q] +=
                w[3 * c + k] * (m->coords[3 * bq + p] - m->coords[3 * a + p]) * PetscRealPart(x[stride * bq + q] - x[stride * a + q]);
      }
    }
}

/* a triangle side (k, k + 1) of triangle c, by its vertices lo < hi, for matching the two sides of an edge */
typedef struct {
  PetscInt lo, hi, side;
} Side;

static int SideCompare(const void *a, const void *b)
{
  const Side *p = (const Side *)a, *q = (const Side *)b;
  if (p->lo != q->lo) return p->lo < q->lo ? -1 : 1;
  if (p->hi != q->hi) return p->hi < q->hi ? -1 : 1;
  return 0;
}

/* w[3 c + k]: triangle c's share of the weight of its side (k, k + 1), the edge weight split evenly
   between the edge's triangles (1 or 2; only the sum enters the energy, and an even split keeps
   every triangle's share >= 0). Edge weights, from the rest angles theta opposite the edge in its
   triangles: cotan_clamped sum max(cot theta, 0)/2, uniform 1, cotan sum cot theta/2 (an error if
   negative beyond round-off). *nneg: edges whose sum cot theta/2 is negative.
   A vertex whose positive-weight edges all lie on one line (every other edge with both opposite
   angles >= 90 degrees: spike_strip.obj, 2 vertices of the 35,947-vertex Stanford bunny) leaves
   its rotation free about that line: the energy's Hessian is singular at every point, projected or
   not (PETSc's own Cholesky then stalls: a shifted zero pivot's huge step along the free axis;
   local-global's covariance is rank 1 there). Its zero-weight edges get FREE_AXIS_WEIGHT times the
   mean positive edge weight (*nfloor: such vertices): E >= 0 and E = 0 at rigid motions still
   hold, and the rotation is determined. Weights below 1e-12 of the largest count as 0 (a right
   angle's cotangent is round-off). */
#define FREE_AXIS_WEIGHT 1e-2

/* the vertices whose positive-weight sides (w > wzero) all lie on one line: line[v] = 1 */
static PetscErrorCode FreeAxisVertices(MfadMesh m, const PetscReal *w, PetscReal wzero, PetscInt *line)
{
  PetscReal *dir;

  PetscFunctionBeginUser;
  PetscCall(PetscCalloc1(3 * m->nvert, &dir));
  for (PetscInt v = 0; v < m->nvert; v++) line[v] = 0; /* then 1: one line so far, 2: more */
  for (PetscInt c = 0; c < m->ncell; c++)
    for (int k = 0; k < 3; k++) {
      const PetscInt i = m->cells[3 * c + k], j = m->cells[3 * c + (k + 1) % 3];
      PetscReal      e[3], len = 0;
      if (w[3 * c + k] <= wzero) continue;
      for (int d = 0; d < 3; d++) e[d] = m->coords[3 * j + d] - m->coords[3 * i + d], len += e[d] * e[d];
      for (int d = 0; d < 3; d++) e[d] /= PetscSqrtReal(len);
      for (int end = 0; end < 2; end++) {
        const PetscInt v = end ? j : i;
        PetscReal     *a = &dir[3 * v], cr = 0;
        if (line[v] == 0) {
          for (int d = 0; d < 3; d++) a[d] = e[d];
          line[v] = 1;
        } else if (line[v] == 1) {
          for (int d = 0; d < 3; d++) cr += PetscSqr(a[(d + 1) % 3] * e[(d + 2) % 3] - a[(d + 2) % 3] * e[(d + 1) % 3]);
          if (cr > 1e-20) line[v] = 2;
        }
      }
    }
  for (PetscInt v = 0; v < m->nvert; v++) line[v] = line[v] == 1;
  PetscCall(PetscFree(dir));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode EdgeWeights(MfadMesh m, Weights type, PetscReal *w, PetscInt *nneg, PetscInt *nfloor)
{
  const PetscInt ns = 3 * m->ncell;
  Side          *side;
  PetscReal     *h;
  PetscReal      wmax = 0, wsum = 0; /* the largest and the sum of the positive edge weights */
  PetscInt       npos = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(ns, &side, ns, &h));
  for (PetscInt c = 0; c < m->ncell; c++)
    for (int k = 0; k < 3; k++) {
      const PetscInt   i = m->cells[3 * c + k], j = m->cells[3 * c + (k + 1) % 3];
      const PetscReal *p = &m->coords[3 * i], *q = &m->coords[3 * j], *o = &m->coords[3 * m->cells[3 * c + (k + 2) % 3]];
      PetscReal        a[3], bb[3], dot = 0, cr = 0, la = 0, lb = 0, R = 0;
      for (int d = 0; d < 3; d++) a[d] = p[d] - o[d], bb[d] = q[d] - o[d], dot += a[d] * bb[d];
      for (int d = 0; d < 3; d++) cr += PetscSqr(a[(d + 1) % 3] * bb[(d + 2) % 3] - a[(d + 2) % 3] * bb[(d + 1) % 3]);
      for (int d = 0; d < 3; d++)
        la += a[d] * a[d], lb += bb[d] * bb[d], R = PetscMax(R, PetscMax(PetscAbsReal(o[d]), PetscMax(PetscAbsReal(p[d]), PetscAbsReal(q[d]))));
      /* no area to round-off: each coordinate difference carries an error up to eps R (R the largest
         coordinate magnitude of the triangle), so |a x b| is known to sqrt(3) eps R (|a| + |b|); at or
         below 4 eps R (|a| + |b|) the angle is 0 or pi and its cotangent weight would be infinite
         (a T-junction closed by a flat triangle, common in exported meshes: the solve diverges or
         ends at an energy of 1e13) */
      PetscCheck(PetscSqrtReal(cr) > 4 * PETSC_MACHINE_EPSILON * R * (PetscSqrtReal(la) + PetscSqrtReal(lb)), PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "arap_surface: triangle %" PetscInt_FMT " (vertices %" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT
                 ", ids from 0) has no area (its angle at vertex %" PetscInt_FMT
                 " is %g degrees, 0 or 180 to round-off): its cotangent weights "
                 "would be infinite; remove it from the mesh",
                 c, m->cells[3 * c], m->cells[3 * c + 1], m->cells[3 * c + 2], m->cells[3 * c + (k + 2) % 3],
                 (double)(PetscAtan2Real(PetscSqrtReal(cr), dot) * 180 / PETSC_PI));
      h[3 * c + k]       = 0.5 * dot / PetscSqrtReal(cr); /* cot theta / 2 */
      side[3 * c + k].lo = PetscMin(i, j), side[3 * c + k].hi = PetscMax(i, j), side[3 * c + k].side = 3 * c + k;
    }
  qsort(side, (size_t)ns, sizeof(Side), SideCompare);
  *nneg = 0;
  for (PetscInt s = 0, t; s < ns; s = t) { /* an edge's sides side[s .. t) */
    PetscReal cot = 0, clamped = 0, we = 1;
    for (t = s; t < ns && side[t].lo == side[s].lo && side[t].hi == side[s].hi; t++) cot += h[side[t].side], clamped += PetscMax(h[side[t].side], 0);
    if (cot < 0) (*nneg)++;
    if (type == WEIGHTS_COTAN) {
      /* 1e-12: round-off of a cotangent of a right angle (0 exactly in exact arithmetic) */
      PetscCheck(cot > -1e-12, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
                 "arap_surface: -weights cotan: the edge %" PetscInt_FMT "-%" PetscInt_FMT
                 " (vertex ids from 0) has cotangent weight %g < 0 (its opposite angles sum to more than pi: not Delaunay), which lets the energy go "
                 "below 0; use -weights cotan_clamped or uniform",
                 side[s].lo, side[s].hi, (double)cot);
      we = PetscMax(cot, 0);
    } else if (type == WEIGHTS_COTAN_CLAMPED) we = clamped;
    for (PetscInt r = s; r < t; r++) w[side[r].side] = we / (PetscReal)(t - s);
    wmax = PetscMax(wmax, we);
    if (we > 0) wsum += we, npos++;
  }
  {
    PetscInt *line;
    PetscCall(PetscMalloc1(m->nvert, &line));
    PetscCall(FreeAxisVertices(m, w, 1e-12 * wmax, line));
    *nfloor = 0;
    for (PetscInt v = 0; v < m->nvert; v++) *nfloor += line[v];
    for (PetscInt s = 0, t; s < ns && *nfloor; s = t) {
      PetscReal we = 0;
      for (t = s; t < ns && side[t].lo == side[s].lo && side[t].hi == side[s].hi; t++) we += w[side[t].side];
      if (we > 1e-12 * wmax || !(line[side[s].lo] || line[side[s].hi])) continue;
      for (PetscInt r = s; r < t; r++) w[side[r].side] = FREE_AXIS_WEIGHT * wsum / npos / (PetscReal)(t - s);
    }
    PetscCall(PetscFree(line));
  }
  PetscCall(PetscFree2(side, h));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Sorkine & Alexa's local-global iterations, written from their paper and independent of mfad's
   derivatives (1 rank): local step R_i the best rotation of the rest edges e_ij onto the current
   d_ij, weights w_ij (Horn's quaternion method); global step the sparse solve of sum_j 2 w_ij (x_i - x_j) =
   sum_j w_ij (R_i + R_j)(xbar_i - xbar_j) over the free vertices, the handles at x's values; w the
   triangles' shares of the edge weights (EdgeWeights()), as in the energy.
   x (3 per vertex) holds the start and receives the result, u the Gibbs vectors of the rotations
   in the chart of the base rotations R0 (9 per vertex): R = R(u) R0. */
static PetscErrorCode LocalGlobal(MfadMesh m, const HandleSet *h, const PetscReal *w, const PetscReal *R0, PetscInt maxits, PetscReal *x,
                                  PetscReal *u, PetscInt *its)
{
  const PetscInt nv = m->nvert;
  Mat            A, A0;
  KSP            ksp;
  Vec            b, y, xf, r;
  PetscInt      *rows, nrow = 0;
  PetscReal     *R, *S, change = PETSC_MAX_REAL;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc3(9 * nv, &R, 9 * nv, &S, nv, &rows));
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, nv, nv, 8, NULL, &A0));
  PetscCall(MatSetOption(A0, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt c = 0; c < m->ncell; c++)
    for (int k = 0; k < 3; k++) {
      const PetscInt    ij[2] = {m->cells[3 * c + k], m->cells[3 * c + (k + 1) % 3]};
      const PetscScalar v[4]  = {2 * w[3 * c + k], -2 * w[3 * c + k], -2 * w[3 * c + k], 2 * w[3 * c + k]};
      PetscCall(MatSetValues(A0, 2, ij, 2, ij, v, ADD_VALUES));
    }
  PetscCall(MatAssemblyBegin(A0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A0, MAT_FINAL_ASSEMBLY));
  for (PetscInt v = 0; v < nv; v++)
    if (h->side[v] >= 0) rows[nrow++] = v;
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &A));
  PetscCall(MatZeroRowsColumns(A, nrow, rows, 1.0, NULL, NULL));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "lg_"));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCLU));
  }
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatCreateVecs(A, &y, &b));
  PetscCall(VecDuplicate(b, &xf));
  PetscCall(VecDuplicate(b, &r));

  for (*its = 0; *its < maxits && change > 1e-13; (*its)++) {
    /* local step */
    PetscCall(PetscArrayzero(S, 9 * nv));
    CellCovariances(m, w, x, 3, 0, nv, S);
    for (PetscInt v = 0; v < nv; v++) PetscCall(BestRotation(&S[9 * v], &R[9 * v]));
    /* global step, one solve per coordinate */
    change = 0;
    for (int d = 0; d < 3; d++) {
      PetscScalar *bb, *xx;
      PetscCall(VecSet(b, 0));
      PetscCall(VecSet(xf, 0));
      PetscCall(VecGetArray(b, &bb));
      for (PetscInt c = 0; c < m->ncell; c++)
        for (int k = 0; k < 3; k++) {
          const PetscInt i = m->cells[3 * c + k], j = m->cells[3 * c + (k + 1) % 3];
          for (int q = 0; q < 3; q++) {
            const PetscReal t = w[3 * c + k] * (R[9 * i + 3 * d + q] + R[9 * j + 3 * d + q]) * (m->coords[3 * i + q] - m->coords[3 * j + q]);
            bb[i] += t, bb[j] -= t;
          }
        }
      PetscCall(VecRestoreArray(b, &bb));
      for (PetscInt l = 0; l < nrow; l++) PetscCall(VecSetValue(xf, rows[l], x[3 * rows[l] + d], INSERT_VALUES));
      PetscCall(VecAssemblyBegin(xf));
      PetscCall(VecAssemblyEnd(xf));
      PetscCall(MatMult(A0, xf, r)); /* move the known handle values to the right-hand side */
      PetscCall(VecAXPY(b, -1, r));
      for (PetscInt l = 0; l < nrow; l++) PetscCall(VecSetValue(b, rows[l], x[3 * rows[l] + d], INSERT_VALUES));
      PetscCall(VecAssemblyBegin(b));
      PetscCall(VecAssemblyEnd(b));
      PetscCall(KSPSolve(ksp, b, y));
      PetscCall(VecGetArray(y, &xx));
      for (PetscInt v = 0; v < nv; v++)
        change = PetscMax(change, PetscAbsReal(PetscRealPart(xx[v]) - x[3 * v + d])), x[3 * v + d] = PetscRealPart(xx[v]);
      PetscCall(VecRestoreArray(y, &xx));
    }
  }
  for (PetscInt v = 0; v < nv; v++) { /* in the Newton solve's chart: R = R(u) R0 */
    PetscReal T[9];
    RotationCompose(&R[9 * v], &R0[9 * v], PETSC_TRUE, T);
    PetscCall(RotationGibbs(T, &u[3 * v]));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&A0));
  PetscCall(VecDestroy(&b));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&xf));
  PetscCall(VecDestroy(&r));
  PetscCall(PetscFree3(R, S, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The moving rotation chart (energies/arap_surface.c's base rotations): each vertex's rotation is
   R(u) R0, R0 a base rotation held in the element parameters; after every line search R(u) is
   folded into R0 and u reset to 0 (the same rotations and energy). The Cayley map R(u) is singular
   at pi, and a bend's rotations go there: on spot_patch's default bend, in the fixed chart (R0 = I),
   the vertices of the far end reached |u| = 7e9 (180 degrees to 1e-8), the Hessian's entries there
   fall like |u|^-4 and Newton crawled, linearly, for 177 steps (234 s) to a point of higher energy;
   re-charted it takes 35 steps (19 s), quadratic at the end. */
typedef struct {
  MfadEnergy       E;
  MfadMesh         m;
  PetscInt         cstart, cend, vstart, vend, term;
  const PetscReal *e; /* 12 per local cell: rest edges, weights */
  PetscReal       *R0; /* 9 per mesh vertex */
  PetscReal       *p;  /* 21 per local cell */
  PetscBool        rechart; /* fold after every line search (else R0 stays I) */
  PetscReal        atol, rtol; /* SNES's test */
} ReChart;

static PetscErrorCode ReChartParams(ReChart *rc, PetscBool set)
{
  PetscFunctionBeginUser;
  for (PetscInt c = rc->cstart; c < rc->cend; c++)
    for (int k = 0; k < 3; k++) {
      const PetscReal *e = &rc->e[12 * (c - rc->cstart) + 3 * k];
      for (int end = 0; end < 2; end++) {
        const PetscReal *R = &rc->R0[9 * rc->m->cells[3 * c + (k + end) % 3]];
        for (int i = 0; i < 3; i++) rc->p[21 * (c - rc->cstart) + 6 * k + 3 * end + i] = R[3 * i] * e[0] + R[3 * i + 1] * e[1] + R[3 * i + 2] * e[2];
      }
      rc->p[21 * (c - rc->cstart) + 18 + k] = rc->e[12 * (c - rc->cstart) + 9 + k];
    }
  if (set) PetscCall(MfadEnergySetTermParams(rc->E, rc->term, rc->p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* after every line search: R0 <- R(u) R0 and u <- 0 (the same rotations, the same energy) */
static PetscErrorCode ReChartPostCheck(SNESLineSearch ls, Vec X, Vec Y, Vec W, PetscBool *changed_Y, PetscBool *changed_W, void *ctx)
{
  ReChart           *rc = (ReChart *)ctx;
  Vec                Wall;
  const PetscScalar *w;
  PetscScalar       *wl;

  PetscFunctionBeginUser;
  (void)ls, (void)X, (void)Y;
  *changed_Y = PETSC_FALSE;
  PetscCall(GeomGetAll(W, &Wall, &w));
  for (PetscInt v = 0; v < rc->m->nvert; v++) {
    PetscReal u[3], R[9], T[9];
    for (int d = 0; d < 3; d++) u[d] = PetscRealPart(w[6 * v + 3 + d]);
    GibbsRotation(u, R);
    RotationCompose(R, &rc->R0[9 * v], PETSC_FALSE, T);
    for (int k = 0; k < 9; k++) rc->R0[9 * v + k] = T[k];
  }
  PetscCall(GeomRestoreAll(&Wall, &w));
  PetscCall(VecGetArray(W, &wl));
  for (PetscInt v = rc->vstart; v < rc->vend; v++)
    for (int d = 0; d < 3; d++) wl[6 * (v - rc->vstart) + 3 + d] = 0;
  PetscCall(VecRestoreArray(W, &wl));
  PetscCall(ReChartParams(rc, PETSC_TRUE));
  *changed_W = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One load step's SNES solve (the defaults: see help) */
static PetscErrorCode ReChartSolve(ReChart *rc, Vec X, PetscInt *its, PetscInt *reason, const char **reason_name)
{
  SNES                snes;
  KSP                 ksp;
  SNESConvergedReason r;

  PetscFunctionBeginUser;
  PetscCall(SNESCreate(PetscObjectComm((PetscObject)X), &snes));
  PetscCall(MfadEnergySetSNES(rc->E, snes));
  PetscCall(SNESSetTolerances(snes, rc->atol, rc->rtol, PETSC_DEFAULT, 200, PETSC_DEFAULT));
  /* the last step must be a Newton step: with CG's default 1e-5, |g| stalls at ~4e-11 on
     spot_patch's bend (PETSc 3.18 then stops on the step test, 3.26 runs to the step limit) */
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  if (rc->rechart) {
    SNESLineSearch ls;
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchSetPostCheck(ls, ReChartPostCheck, rc));
  }
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetIterationNumber(snes, its));
  PetscCall(SNESGetConvergedReason(snes, &r));
  *reason      = r;
  *reason_name = SNESConvergedReasons[r];
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The smallest eigenvalue of E's exact Hessian at X (no PSD projection; fixed dofs are identity
   rows, eigenvalue 1), dense (PETSc's KSPComputeEigenvaluesExplicitly(), LAPACK inside): whether
   Newton's stationary point is a local minimum or a saddle (Newton converges to both). Invariant to
   the rotation chart at a stationary point (the Hessian transforms as J^T H J there). */
static PetscErrorCode SmallestEigenvalue(MfadEnergy E, Vec X, PetscReal *mineig)
{
  MfadPSDProjection psd;
  PetscReal         eps, *re, *im;
  Mat               A;
  KSP               ksp;
  PC                pc;
  PetscInt          n;

  PetscFunctionBeginUser;
  PetscCall(VecGetSize(X, &n));
  PetscCheck(n <= 3000, PETSC_COMM_SELF, PETSC_ERR_SUP, "-check_minimum: %" PetscInt_FMT " unknowns, more than the 3000 (500 vertices) of a dense eigensolver", n);
  PetscCall(MfadEnergyGetPSDProjection(E, &psd, &eps));
  PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_NONE, 0));
  PetscCall(MfadEnergyCreateMatrix(E, &A));
  PetscCall(MfadEnergyComputeHessian(E, X, A));
  PetscCall(MfadEnergySetPSDProjection(E, psd, eps));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscMalloc2(n, &re, n, &im));
  PetscCall(KSPComputeEigenvaluesExplicitly(ksp, n, re, im));
  *mineig = PETSC_MAX_REAL;
  for (PetscInt i = 0; i < n; i++) *mineig = PetscMin(*mineig, re[i]);
  PetscCall(PetscFree2(re, im));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm   comm;
  MfadMesh   m;
  MfadEnergy E;
  Vec        X, X0, G;
  PetscInt   nx = 24, nt = 16, steps = 1, lgmax = 0, lgits = 0, cstart = 0, cend = 0, vstart = 0, vend = 0, *conn, its = 0, reason = 0, term, n = 3,
           nneg = 0, ndrop = 0, nfloor = 0;
  PetscReal  *params, *w, L = 4, mineig = 0, energy, gnorm, gnorm0, loc[4] = {0, 0, 0, 0}, sum[2], dev[2], lgenergy = 0, lgdev = 0;
  HandleSet   h;
  Weights     weights = WEIGHTS_COTAN_CLAMPED;
  ReChart     rc      = {0};
  PetscBool   rechart = PETSC_TRUE;
  PetscBool   use_tao = PETSC_FALSE, write = PETSC_FALSE, file = PETSC_FALSE, checkmin = PETSC_FALSE, bandset, stepset;
  char        out[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char *reason_name = "";
  PetscMPIInt size;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscMemzero(&h, sizeof h));
  h.type = HANDLES_BEND, h.angle = 90, h.axis[2] = 1;
  PetscOptionsBegin(comm, NULL, "ARAP surface deformation options", NULL);
  PetscCall(PetscOptionsInt("-nx", "tube grid squares along x", NULL, nx, &nx, NULL));
  PetscCall(PetscOptionsInt("-nt", "tube grid squares around", NULL, nt, &nt, NULL));
  PetscCall(PetscOptionsReal("-L", "tube length (radius 0.5)", NULL, L, &L, NULL));
  PetscCall(PetscOptionsString("-mesh", "a triangle surface (.obj, .off, .msh, .ply)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsReal("-band", "handle band width in x", NULL, h.band, &h.band, &bandset));
  PetscCall(PetscOptionsEnum("-handles", "how the handles move", NULL, HandlesTypes, (PetscEnum)h.type, (PetscEnum *)&h.type, NULL));
  PetscCall(PetscOptionsReal("-angle", "turn of the handles [degrees]", NULL, h.angle, &h.angle, NULL));
  PetscCall(PetscOptionsRealArray("-axis", "turn axis of -handles rigid", NULL, h.axis, &n, NULL));
  PetscCall(PetscOptionsEnum("-weights", "edge weights", NULL, WeightsTypes, (PetscEnum)weights, (PetscEnum *)&weights, NULL));
  PetscCall(PetscOptionsInt("-load_steps", "handle motion in this many steps", NULL, steps, &steps, &stepset));
  PetscCall(PetscOptionsInt("-local_global", "local-global iterations to compare with (1 rank)", NULL, lgmax, &lgmax, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsBool("-rechart", "fold each rotation into its base rotation after every line search (SNES)", NULL, rechart, &rechart, NULL));
  PetscCall(PetscOptionsString("-o", "write the deformed surface (.vtu)", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsBool("-check_minimum", "the smallest eigenvalue of the exact Hessian at the result", NULL, checkmin, &checkmin, NULL));
  PetscOptionsEnd();
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(steps >= 1 && lgmax >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-load_steps %" PetscInt_FMT " must be >= 1, -local_global %" PetscInt_FMT " >= 0", steps, lgmax);
  PetscCheck(!checkmin || size == 1, comm, PETSC_ERR_SUP, "-check_minimum runs on 1 rank (a dense eigensolver), not %d", size);
  PetscCheck(!lgmax || size == 1, comm, PETSC_ERR_SUP, "-local_global runs on 1 rank (it is a serial reference), not %d", size);
  {
    const PetscReal a = PetscSqrtReal(PetscSqr(h.axis[0]) + PetscSqr(h.axis[1]) + PetscSqr(h.axis[2]));
    PetscCheck(a > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-axis must not be zero");
    for (int d = 0; d < 3; d++) h.axis[d] /= a;
  }
  if (file) {
    PetscCall(GeomMeshRead(path, &m)); /* a manifold triangle surface in 3-D, or an error naming the file */
    PetscCall(DropUnusedVertices(&m, &ndrop));
    if (ndrop) PetscCall(PetscPrintf(comm, "arap_surface: %s: dropped %" PetscInt_FMT " vertices in no triangle\n", path, ndrop));
  } else PetscCall(TubeMesh(nx, nt, L, 0.5, &m));
  /* the handles: the two bands at the ends in x, and their centres */
  h.lo = PETSC_MAX_REAL, h.hi = PETSC_MIN_REAL;
  for (PetscInt v = 0; v < m->nvert; v++) h.lo = PetscMin(h.lo, m->coords[3 * v]), h.hi = PetscMax(h.hi, m->coords[3 * v]);
  PetscCheck(h.hi > h.lo, comm, PETSC_ERR_ARG_WRONG, "arap_surface: the surface has no extent in x");
  if (!bandset) h.band = file ? 0.05 * (h.hi - h.lo) : 0.5 * L / nx;
  {
    const PetscReal len = h.hi - h.lo;
    h.move[0]           = h.type == HANDLES_BEND ? 2 * len / PETSC_PI - len : 0; /* a quarter circle of the axis' length */
    h.move[1]           = h.type == HANDLES_BEND ? 2 * len / PETSC_PI : 0;
    PetscOptionsBegin(comm, NULL, "ARAP surface deformation options", NULL);
    PetscCall(PetscOptionsReal("-dx", "move of the handles along x", NULL, h.move[0], &h.move[0], NULL));
    PetscCall(PetscOptionsReal("-dy", "move of the handles along y", NULL, h.move[1], &h.move[1], NULL));
    PetscCall(PetscOptionsReal("-dz", "move of the handles along z", NULL, h.move[2], &h.move[2], NULL));
    PetscOptionsEnd();
  }
  /* ARAP is not convex: from the rest shape (every rotation I) a large turn of the handles can end
     at a local minimum that is not the rigid motion (spot_jitter, 90 degrees in one step: E = 4.6e-3,
     one cell turned 93 degrees from the handles; PSD-projected Newton throughout, with a Cholesky
     factor, ends there too). Each load step starts from the last solution, so the cells' rotations
     follow the handles in turns of at most 45 degrees (2 steps there reach E ~ 1e-28). */
  if (!stepset) steps = PetscMax(1, (PetscInt)PetscCeilReal(PetscAbsReal(h.angle) / 45));
  h.angle *= PETSC_PI / 180;
  PetscCall(PetscCalloc1(m->nvert, &h.side));
  {
    PetscReal cnt[2] = {0, 0};
    for (PetscInt v = 0; v < m->nvert; v++) {
      const PetscReal x = m->coords[3 * v];
      h.side[v]         = x <= h.lo + h.band ? 0 : x >= h.hi - h.band ? 1 : -1;
      if (h.side[v] < 0) continue;
      cnt[h.side[v]] += 1;
      for (int d = 0; d < 3; d++) h.centre[h.side[v]][d] += m->coords[3 * v + d];
    }
    PetscCheck(cnt[0] > 0 && cnt[1] > 0, comm, PETSC_ERR_ARG_WRONG, "arap_surface: -band %g leaves a handle empty (%g left, %g right vertices)",
               (double)h.band, (double)cnt[0], (double)cnt[1]);
    for (int s = 0; s < 2; s++)
      for (int d = 0; d < 3; d++) h.centre[s][d] /= cnt[s];
  }

  /* unknowns: vertex v's position is energy vertex 2 v, its cell's rotation 2 v + 1 (a rank owns
     both, so each rotation lives with its vertex) */
  PetscCall(GeomMeshRanges(comm, m, &cstart, &cend, &vstart, &vend));
  PetscCall(MfadEnergyCreate(comm, 3, 2 * (vend - vstart), 2 * m->nvert, &E));
  /* the weights from the whole mesh (every rank holds it; an edge's two triangles may live on two
     ranks), then each owned triangle's parameters: rest edges e_k = xbar_{k+1} - xbar_k and weights */
  PetscCall(PetscMalloc3(6 * (cend - cstart), &conn, 12 * (cend - cstart), &params, 3 * m->ncell, &w));
  PetscCall(EdgeWeights(m, weights, w, &nneg, &nfloor));
  if (nfloor)
    PetscCall(PetscPrintf(comm, "arap_surface: %" PetscInt_FMT " vertices with all positive-weight edges on one line (a free rotation): their other edges weighted %g x the mean\n",
                          nfloor, (double)FREE_AXIS_WEIGHT));
  for (PetscInt c = cstart; c < cend; c++)
    for (int a = 0; a < 3; a++) {
      const PetscInt v = m->cells[3 * c + a], vn = m->cells[3 * c + (a + 1) % 3];
      conn[6 * (c - cstart) + a]     = 2 * v;
      conn[6 * (c - cstart) + 3 + a] = 2 * v + 1;
      for (int d = 0; d < 3; d++) params[12 * (c - cstart) + 3 * a + d] = m->coords[3 * vn + d] - m->coords[3 * v + d];
      params[12 * (c - cstart) + 9 + a] = w[3 * c + a];
    }
  /* base rotations I: the energy of energies/arap_surface.c */
  rc.E = E, rc.m = m, rc.rechart = rechart, rc.cstart = cstart, rc.cend = cend, rc.vstart = vstart, rc.vend = vend, rc.e = params;
  PetscCall(PetscMalloc2(9 * m->nvert, &rc.R0, 21 * (cend - cstart), &rc.p));
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int k = 0; k < 9; k++) rc.R0[9 * v + k] = (k % 4 == 0);
  PetscCall(ReChartParams(&rc, PETSC_FALSE));
  PetscCall(MfadEnergyAddTerm(E, MFAD_KERNEL(arap_surface), cend - cstart, conn, rc.p, 1.0, &term));
  rc.term = term;
  if (use_tao) { /* SNES: Newton-CG (help); the options override either */
    PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_CACHED, MFAD_HESSIAN_CACHED));
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0));
    PetscCall(MfadEnergySetPSDProjectionSteps(E, 10));
  } else PetscCall(MfadEnergySetNewtonCG(E, PETSC_TRUE));
  PetscCall(MfadEnergySetFromOptions(E));

  /* start: the rest shape, rotations 0 (R = I) */
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt v = vstart; v < vend; v++)
      for (int d = 0; d < 3; d++) x[6 * (v - vstart) + d] = m->coords[3 * v + d], x[6 * (v - vstart) + 3 + d] = 0;
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(VecDuplicate(X, &X0));
  PetscCall(VecCopy(X, X0));
  PetscCall(HandlesFix(E, m, &h, vstart, vend, 1.0, 6));
  PetscCall(MfadEnergyApplyFixedValues(E, X));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  /* one test for every load step, |grad E| <= rtol |g0| with g0 the whole motion's starting
     gradient: SNES's rtol is relative to each step's own start, smaller with every step added,
     which left the default bend of spot_patch in 2 steps at |g| 1e-11 after 200 iterations */
  rc.rtol = 1e-12;
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-snes_rtol", &rc.rtol, NULL));
  if (steps > 1) rc.atol = rc.rtol * gnorm0, rc.rtol = 0;

  for (PetscInt s = 1; s <= steps; s++) {
    PetscInt sits;
    PetscCall(HandlesFix(E, m, &h, vstart, vend, (PetscReal)s / steps, 6));
    PetscCall(MfadEnergyApplyFixedValues(E, X));
    if (!use_tao) PetscCall(ReChartSolve(&rc, X, &sits, &reason, &reason_name));
    else PetscCall(GeomMinimize(comm, E, X, PETSC_TRUE, 0, 200, &sits, &reason, &reason_name));
    its += sits;
    if (reason <= 0) break;
  }

  PetscCall(MfadEnergyComputeObjective(E, X, &energy));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm));
  {
    /* owned vertices: distance from the left handle's motion of the rest place, rotation's
       distance from that motion's; cells: edge lengths */
    const PetscScalar *x, *xa;
    Vec                Xall;
    Motion             M;
    HandleMotion(&h, 0, 1.0, &M);
    PetscCall(VecGetArrayRead(X, &x));
    for (PetscInt v = vstart; v < vend; v++) {
      PetscReal y[3], R[9], T[9], u[3], dx = 0, dr = 0;
      MotionApply(&M, &m->coords[3 * v], y);
      for (int d = 0; d < 3; d++) dx += PetscSqr(PetscRealPart(x[6 * (v - vstart) + d]) - y[d]), u[d] = PetscRealPart(x[6 * (v - vstart) + 3 + d]);
      GibbsRotation(u, R);
      RotationCompose(R, &rc.R0[9 * v], PETSC_FALSE, T); /* the rotation R(u) R0 */
      for (int p = 0; p < 9; p++) dr += PetscSqr(T[p] - M.Q[p]);
      loc[0] = PetscMax(loc[0], PetscSqrtReal(dx));
      loc[1] = PetscMax(loc[1], PetscSqrtReal(dr));
    }
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscCall(GeomGetAll(X, &Xall, &xa));
    for (PetscInt c = cstart; c < cend; c++)
      for (int k = 0; k < 3; k++) {
        const PetscInt a = m->cells[3 * c + k], b = m->cells[3 * c + (k + 1) % 3];
        PetscReal      l = 0, l0 = 0;
        for (int d = 0; d < 3; d++)
          l += PetscSqr(PetscRealPart(xa[6 * b + d] - xa[6 * a + d])), l0 += PetscSqr(m->coords[3 * b + d] - m->coords[3 * a + d]);
        loc[2] += PetscSqrtReal(l), loc[3] += PetscSqrtReal(l0);
      }
    PetscCall(GeomRestoreAll(&Xall, &xa));
    PetscCall(MPIU_Allreduce(loc, dev, 2, MPIU_REAL, MPIU_MAX, comm));
    PetscCall(MPIU_Allreduce(&loc[2], sum, 2, MPIU_REAL, MPIU_SUM, comm));
  }

  if (lgmax) {
    /* the reference: local-global from the same start (rest shape, handles placed), its result
       put into the unknowns' layout and measured by the same energy */
    PetscReal   *xl, *ul;
    PetscScalar *x, *y;
    Vec          Y;
    PetscCall(PetscMalloc2(3 * m->nvert, &xl, 3 * m->nvert, &ul));
    PetscCall(PetscArraycpy(xl, m->coords, 3 * m->nvert));
    for (PetscInt v = 0; v < m->nvert; v++) {
      Motion M;
      if (h.side[v] < 0) continue;
      HandleMotion(&h, h.side[v], 1.0, &M);
      MotionApply(&M, &m->coords[3 * v], &xl[3 * v]);
    }
    PetscCall(LocalGlobal(m, &h, w, rc.R0, lgmax, xl, ul, &lgits));
    PetscCall(VecDuplicate(X, &Y));
    PetscCall(VecGetArray(Y, &y));
    PetscCall(VecGetArray(X, &x));
    for (PetscInt v = 0; v < m->nvert; v++) {
      PetscReal d2 = 0;
      for (int d = 0; d < 3; d++)
        y[6 * v + d] = xl[3 * v + d], y[6 * v + 3 + d] = ul[3 * v + d], d2 += PetscSqr(PetscRealPart(x[6 * v + d]) - xl[3 * v + d]);
      lgdev = PetscMax(lgdev, PetscSqrtReal(d2));
    }
    PetscCall(VecRestoreArray(X, &x));
    PetscCall(VecRestoreArray(Y, &y));
    PetscCall(MfadEnergyComputeObjective(E, Y, &lgenergy));
    PetscCall(VecDestroy(&Y));
    PetscCall(PetscFree2(xl, ul));
  }

  if (checkmin) PetscCall(SmallestEigenvalue(E, X, &mineig));
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, X, X0, out));
  PetscCall(PetscPrintf(comm,
                        "arap_surface: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT " weights %s negative_cotan %" PetscInt_FMT
                        " energy %.12e rigid_deviation %.3e rotation_deviation %.3e length_ratio %.12e"
                        " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s",
                        m->nvert, m->ncell, WeightsTypes[weights], nneg, (double)energy, (double)dev[0], (double)dev[1], (double)(sum[0] / sum[1]),
                        (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), its, reason, reason_name));
  if (checkmin) PetscCall(PetscPrintf(comm, " min_eigenvalue %.3e", (double)mineig));
  if (lgmax)
    PetscCall(PetscPrintf(comm, " lg_iterations %" PetscInt_FMT " lg_energy %.12e lg_deviation %.3e", lgits, (double)lgenergy, (double)lgdev));
  PetscCall(PetscPrintf(comm, "\n"));
  if (reason < 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "arap_surface: %s did not converge: %s\n", use_tao ? "TAO" : "SNES", reason_name));

  PetscCall(PetscFree(h.side));
  PetscCall(PetscFree3(conn, params, w));
  PetscCall(PetscFree2(rc.R0, rc.p));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  PetscCall(PetscFinalize());
  return reason < 0 ? 1 : 0; /* a solve that did not converge is a failure */
}
