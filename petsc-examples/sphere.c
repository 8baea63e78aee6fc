// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Spherical parameterisation of a closed genus-0 triangle surface (manifold optimisation on the\n"
    "sphere, as in TinyAD-Examples' manifold_optimization; Gu et al. 2004 for conformal maps): every\n"
    "vertex gets a point on the unit sphere so that the spherical triangles are as little distorted as\n"
    "possible and none is flipped. Start: the radial projection about the vertex centroid, a bijection\n"
    "exactly when the surface is star-shaped about it (checked: no triangle of the projection may be\n"
    "flipped). Then Newton on\n"
    "  sum_t A_t (|J|^2 + |J^+|^2)  +  barrier sum_t -A_t log(det[u0,u1,u2] / 2 A_t)  +  penalty sum_v (|y_v|^2 - 1)^2\n"
    "(energies/sphere_symmetric_dirichlet.h, sphere_flip_barrier.h, sphere_penalty.h) over unknowns\n"
    "y_v in R^3 whose points are u_v = y_v / |y_v|. The constraint is a projection, not a penalty:\n"
    "the first two terms see only y / |y| (a retraction inside the energy: their gradient has no radial\n"
    "part, their Hessian at |y| = 1 is the Riemannian one), the penalty term only fixes the radial\n"
    "directions (its minimum |y| = 1 is not moved by the others, unlike a penalty on a distortion that\n"
    "sees |y|, which needs k -> infinity), and after every line search each y_v is retracted to\n"
    "y_v / |y_v| (SNESLineSearchSetPostCheck), so every iterate lies on the sphere to round-off.\n"
    "Flipped spherical triangles have energy +inf, so line searches back off before one flips.\n"
    "Rotations of the sphere leave the energy unchanged (this energy is not Moebius invariant): the\n"
    "start is rotated so that vertex 0 is the north pole and the vertex most nearly orthogonal to it\n"
    "lies on the meridian y = 0, x > 0; vertex 0 (3 dofs) and that vertex's y (1 dof) stay fixed.\n"
    "The rest surface is scaled to the area of the start's chord triangles (a round sphere mesh is then\n"
    "its own isometric image). Options:\n"
    "  -mesh <file>            a closed genus-0 triangle surface (.obj or .off), e.g. tests/meshes/cube.obj;\n"
    "                          default: a generated cube-sphere\n"
    "  -n <8>                  the generated mesh: squares per cube edge (6 n^2 + 2 vertices)\n"
    "  -shape <ellipsoid>      sphere | ellipsoid | bumpy (the generated mesh's shape)\n"
    "  -axes <1.5,1,0.6>       the ellipsoid's semi-axes (also scale the bumpy shape)\n"
    "  -barrier <0.01>         weight of the sphere_flip_barrier term (0: the +inf wall only)\n"
    "  -penalty <1>            k of the radial sphere_penalty term (per vertex, times its rest area share)\n"
    "  -retract <true>         retract to the sphere after every SNES step\n"
    "  -use_tao                minimise with TAO (default -tao_type ntr; no retraction) instead of SNES\n"
    "  -o <file.vtu>           write the spherical mesh, with the displacement from the start\n"
    "  -o_input <file.vtu>     write the input surface (centred, scaled and rotated like the start)\n"
    "Defaults: Newton with the exact Hessian (-mfad_hessian cached; with -mfad_hessian given, that\n"
    "form), -ksp_type stcg (CG stopped at negative curvature, so the step is a descent direction where\n"
    "the Hessian is indefinite, away from the minimiser) -pc_type jacobi, the backtracking line search\n"
    "on the energy, -snes_max_it 200; -use_tao: -tao_type ntr. Projected Newton (-mfad_psd_project\n"
    "abs, param's default) converges only linearly here: the projection of the elements' Hessians\n"
    "changes the Hessian at the minimiser too. Every SNES/KSP/PC/TAO and mfad option applies\n"
    "(-snes_type newtontr retracts too, but PETSc 3.18's trust region stops at the first trial step\n"
    "that flips a triangle, DIVERGED_FUNCTION_DOMAIN, where the line search backs off).\n"
    "The last line is a summary: vertices, triangles, area (of the scaled rest surface), energy (the\n"
    "symmetric Dirichlet term alone), energy_per_area (4 for an isometry, larger with distortion),\n"
    "max_norm_error (max | |y_v| - 1 | of the solution itself), flipped (triangles with\n"
    "det[y0, y1, y2] <= 0), covered_area (the signed solid angles of all triangles, Van Oosterom &\n"
    "Strackee 1983, over 4 pi: 1 for a map of degree one), max_move (the largest distance a vertex moved\n"
    "from the start), iterations and the converged reason.\n\n";

#include <mfadpetsc.h>
#include <string.h>
#include "geommesh.h"

MFAD_KERNEL_DECLARE(sphere_symmetric_dirichlet);
MFAD_KERNEL_DECLARE(sphere_flip_barrier);
MFAD_KERNEL_DECLARE(sphere_penalty);

typedef enum { SPHERE_SHAPE_SPHERE, SPHERE_SHAPE_ELLIPSOID, SPHERE_SHAPE_BUMPY } SphereShape;
static const char *const SphereShapes[] = {"sphere", "ellipsoid", "bumpy", "SphereShape", "SPHERE_SHAPE_", NULL};

/* A cube-sphere: the surface of [0, n]^3's unit grid, two triangles per square (counter-clockwise
   seen from outside), each cube point p (in [-1, 1]^3) sent along the direction of tan(pi/4 p)
   (equal angles: nearly uniform triangles) to the shape's surface. */
static PetscErrorCode SphereMeshCubeSphere(PetscInt n, SphereShape shape, const PetscReal axes[3], MfadMesh *mesh)
{
  const PetscInt n1 = n + 1;
  PetscInt      *id, nv = 0, nc = 0;
  MfadMesh       m;

  PetscFunctionBeginUser;
  PetscCheck(n >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "sphere: -n %" PetscInt_FMT " must be >= 1", n);
  PetscCall(MfadMeshCreate(3, 6 * n * n + 2, 3, 12 * n * n, mesh));
  m = *mesh;
  PetscCall(PetscMalloc1(n1 * n1 * n1, &id));
  for (PetscInt k = 0; k < n1 * n1 * n1; k++) id[k] = -1;
  for (int d = 0; d < 3; d++)
    for (int side = 0; side < 2; side++)
      for (PetscInt j = 0; j < n; j++)
        for (PetscInt i = 0; i < n; i++) {
          const int d1 = (d + 1) % 3, d2 = (d + 2) % 3; /* e_d1 x e_d2 = e_d */
          PetscInt  q[4];
          for (int c = 0; c < 4; c++) { /* the square's corners, counter-clockwise about +e_d */
            PetscInt g[3], key;
            g[d]  = side ? n : 0;
            g[d1] = i + (c == 1 || c == 2);
            g[d2] = j + (c >= 2);
            key   = (g[0] * n1 + g[1]) * n1 + g[2];
            if (id[key] < 0) {
              PetscReal w[3], l = 0, r = 1;
              for (int e = 0; e < 3; e++) w[e] = PetscTanReal(0.25 * PETSC_PI * (2.0 * g[e] / n - 1.0)), l += w[e] * w[e];
              for (int e = 0; e < 3; e++) w[e] /= PetscSqrtReal(l);
              if (shape == SPHERE_SHAPE_BUMPY) r = 1 + 0.3 * PetscSinReal(3 * w[0]) * PetscSinReal(3 * w[1]) * PetscSinReal(3 * w[2]);
              for (int e = 0; e < 3; e++) m->coords[3 * nv + e] = r * w[e] * (shape == SPHERE_SHAPE_SPHERE ? 1 : axes[e]);
              id[key] = nv++;
            }
            q[c] = id[key];
          }
          if (!side) { /* outward is -e_d: reverse */
            const PetscInt t = q[1];
            q[1] = q[3], q[3] = t;
          }
          for (int k = 0; k < 6; k++) { /* alternate the diagonal, as GeomMeshGrid does */
            static const int split[2][6] = {
                {0, 1, 2, 0, 2, 3},
                {0, 1, 3, 1, 2, 3}
            };
            m->cells[3 * nc + k] = q[split[(i + j) % 2][k]];
          }
          nc += 2;
        }
  PetscCheck(nv == m->nvert && nc == m->ncell, PETSC_COMM_SELF, PETSC_ERR_PLIB,
             "sphere: cube-sphere with %" PetscInt_FMT " vertices, %" PetscInt_FMT " triangles", nv, nc);
  PetscCall(PetscFree(id));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A closed genus-0 surface: no boundary edge (every edge in two triangles, MfadMeshCheckManifold
   having excluded more) and Euler characteristic V - E + F = V - F / 2 = 2 */
static PetscErrorCode SphereMeshCheckGenusZero(MPI_Comm comm, MfadMesh m, const char *what)
{
  PetscInt *next, nb = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(m->nvert, &next));
  PetscCall(GeomMeshBoundary(m, next));
  for (PetscInt v = 0; v < m->nvert; v++) nb += next[v] >= 0;
  PetscCall(PetscFree(next));
  PetscCheck(nb == 0, comm, PETSC_ERR_ARG_WRONG, "sphere: %s has %" PetscInt_FMT " boundary vertices: a closed surface is needed", what, nb);
  PetscCheck(m->nvert - m->ncell / 2 == 2, comm, PETSC_ERR_ARG_WRONG,
             "sphere: %s has Euler characteristic %" PetscInt_FMT " (V %" PetscInt_FMT ", F %" PetscInt_FMT "): genus 0 (2) is needed", what,
             m->nvert - m->ncell / 2, m->nvert, m->ncell);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static inline PetscReal SphereDet(const PetscReal a[3], const PetscReal b[3], const PetscReal c[3])
{
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
}

static inline PetscReal SphereTriangleArea(const PetscReal a[3], const PetscReal b[3], const PetscReal c[3])
{
  PetscReal u[3], w[3], n2 = 0;
  for (int e = 0; e < 3; e++) u[e] = b[e] - a[e], w[e] = c[e] - a[e];
  for (int e = 0; e < 3; e++) n2 += PetscSqr(u[(e + 1) % 3] * w[(e + 2) % 3] - u[(e + 2) % 3] * w[(e + 1) % 3]);
  return 0.5 * PetscSqrtReal(n2);
}

/* The start: the surface centred on its vertex centroid c (m's coordinates moved), its triangles
   turned outward if they face inward, u = the radial projection, then the gauge: the rotation onto
   the frame (e1, e2, e3 = u_0) takes vertex 0 to the north pole and vertex `pinb` (the one most
   nearly orthogonal to it) to the meridian y = 0, x > 0 (orientation kept); the surface is rotated
   alike (for -o_input) and scaled to the start's chord area, `area`: the isometric size. */
static PetscErrorCode SphereStart(MPI_Comm comm, MfadMesh m, PetscReal (*u)[3], PetscReal c[3], PetscInt *pinb, PetscReal *area)
{
  PetscReal volume = 0, rest = 0, chord = 0, scale, e1[3], e2[3], e3[3], best = -1;

  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int e = 0; e < 3; e++) c[e] += m->coords[3 * v + e] / m->nvert;
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int e = 0; e < 3; e++) m->coords[3 * v + e] -= c[e];
  for (PetscInt t = 0; t < m->ncell; t++)
    volume += SphereDet(&m->coords[3 * m->cells[3 * t]], &m->coords[3 * m->cells[3 * t + 1]], &m->coords[3 * m->cells[3 * t + 2]]) / 6;
  if (volume < 0) /* inward-facing triangles: turn them */
    for (PetscInt t = 0; t < m->ncell; t++) {
      const PetscInt s    = m->cells[3 * t + 1];
      m->cells[3 * t + 1] = m->cells[3 * t + 2], m->cells[3 * t + 2] = s;
    }
  for (PetscInt v = 0; v < m->nvert; v++) {
    const PetscReal *p = &m->coords[3 * v];
    const PetscReal  l = PetscSqrtReal(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    PetscCheck(l > 0, comm, PETSC_ERR_ARG_WRONG, "sphere: vertex %" PetscInt_FMT " is at the centroid: no radial projection", v);
    for (int e = 0; e < 3; e++) u[v][e] = p[e] / l;
  }
  for (int e = 0; e < 3; e++) e3[e] = u[0][e];
  for (PetscInt v = 1; v < m->nvert; v++) {
    const PetscReal d = PetscAbsReal(u[v][0] * e3[0] + u[v][1] * e3[1] + u[v][2] * e3[2]);
    if (1 - d > best) best = 1 - d, *pinb = v;
  }
  {
    const PetscReal d = u[*pinb][0] * e3[0] + u[*pinb][1] * e3[1] + u[*pinb][2] * e3[2];
    PetscReal       l = 0;
    for (int e = 0; e < 3; e++) e1[e] = u[*pinb][e] - d * e3[e], l += e1[e] * e1[e];
    for (int e = 0; e < 3; e++) e1[e] /= PetscSqrtReal(l);
  }
  for (int e = 0; e < 3; e++) e2[e] = e3[(e + 1) % 3] * e1[(e + 2) % 3] - e3[(e + 2) % 3] * e1[(e + 1) % 3];
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int k = 0; k < 2; k++) {
      PetscReal      *p    = k ? &m->coords[3 * v] : u[v];
      const PetscReal w[3] = {p[0], p[1], p[2]};
      p[0]                 = w[0] * e1[0] + w[1] * e1[1] + w[2] * e1[2];
      p[1]                 = w[0] * e2[0] + w[1] * e2[1] + w[2] * e2[2];
      p[2]                 = w[0] * e3[0] + w[1] * e3[1] + w[2] * e3[2];
    }
  u[0][0] = u[0][1] = 0, u[0][2] = 1, u[*pinb][1] = 0; /* the fixed values exactly, not to round-off */
  for (PetscInt t = 0; t < m->ncell; t++) {
    const PetscInt *q = &m->cells[3 * t];
    rest += SphereTriangleArea(&m->coords[3 * q[0]], &m->coords[3 * q[1]], &m->coords[3 * q[2]]);
    chord += SphereTriangleArea(u[q[0]], u[q[1]], u[q[2]]);
  }
  scale = PetscSqrtReal(chord / rest);
  for (PetscInt k = 0; k < 3 * m->nvert; k++) m->coords[k] *= scale;
  *area = chord;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per-triangle and per-vertex measures of the map X (owned vertices [vstart, vend)), summed over the
   ranks: flipped triangles (det[y0, y1, y2] <= 0), covered area (sum of the signed solid angles over
   4 pi: tan(Omega / 2) = det / (|a||b||c| + (a.b)|c| + (a.c)|b| + (b.c)|a|), Van Oosterom &
   Strackee 1983), max | |y| - 1 |, and max |y - y0| against X0 (may be NULL) */
static PetscErrorCode SphereMeasure(MPI_Comm comm, MfadMesh m, PetscInt cstart, PetscInt cend, Vec X, Vec X0, PetscInt *flipped, PetscReal *covered,
                                    PetscReal *norm_error, PetscReal *move)
{
  Vec                Xall;
  const PetscScalar *x, *xo = NULL;
  PetscReal          omega = 0, loc[2] = {0, 0}, glob[2];
  PetscInt           nf = 0, n;

  PetscFunctionBeginUser;
  PetscCall(GeomGetAll(X, &Xall, &x));
  for (PetscInt c = cstart; c < cend; c++) {
    PetscReal y[3][3], l[3], d, den;
    for (int a = 0; a < 3; a++) {
      const PetscInt v = m->cells[3 * c + a];
      for (int e = 0; e < 3; e++) y[a][e] = PetscRealPart(x[3 * v + e]);
      l[a] = PetscSqrtReal(y[a][0] * y[a][0] + y[a][1] * y[a][1] + y[a][2] * y[a][2]);
    }
    d   = SphereDet(y[0], y[1], y[2]);
    den = l[0] * l[1] * l[2];
    for (int a = 0; a < 3; a++) {
      const int b = (a + 1) % 3, o = (a + 2) % 3;
      den += (y[a][0] * y[b][0] + y[a][1] * y[b][1] + y[a][2] * y[b][2]) * l[o];
    }
    if (!(d > 0)) nf++;
    omega += 2 * PetscAtan2Real(d, den);
  }
  PetscCall(GeomRestoreAll(&Xall, &x));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  if (X0) PetscCall(VecGetArrayRead(X0, &xo));
  for (PetscInt i = 0; i < n; i += 3) {
    PetscReal l = 0, dd = 0;
    for (int e = 0; e < 3; e++) l += PetscSqr(PetscRealPart(x[i + e]));
    loc[0] = PetscMax(loc[0], PetscAbsReal(PetscSqrtReal(l) - 1));
    if (xo)
      for (int e = 0; e < 3; e++) dd += PetscSqr(PetscRealPart(x[i + e] - xo[i + e]));
    loc[1] = PetscMax(loc[1], PetscSqrtReal(dd));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  if (X0) PetscCall(VecRestoreArrayRead(X0, &xo));
  PetscCall(MPIU_Allreduce(&omega, covered, 1, MPIU_REAL, MPIU_SUM, comm));
  *covered /= 4 * PETSC_PI;
  PetscCall(MPIU_Allreduce(&nf, flipped, 1, MPIU_INT, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_MAX, comm));
  if (norm_error) *norm_error = glob[0];
  if (move) *move = glob[1];
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The retraction onto the sphere after a step (line search or trust region): each vertex's y (3 consecutive entries of the
   owned part) becomes y / |y|. Fixed dofs stay: they lie on the sphere already. */
static PetscErrorCode SphereRetract(SNESLineSearch ls, Vec X, Vec Y, Vec W, PetscBool *changed_Y, PetscBool *changed_W, void *ctx)
{
  PetscScalar *w;
  PetscInt     n;

  PetscFunctionBeginUser;
  (void)ls, (void)X, (void)Y, (void)ctx;
  PetscCall(VecGetLocalSize(W, &n));
  PetscCall(VecGetArray(W, &w));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal l = PetscSqrtReal(PetscSqr(PetscRealPart(w[i])) + PetscSqr(PetscRealPart(w[i + 1])) + PetscSqr(PetscRealPart(w[i + 2])));
    if (l > 0)
      for (int e = 0; e < 3; e++) w[i + e] /= l;
  }
  PetscCall(VecRestoreArray(W, &w));
  *changed_Y = PETSC_FALSE;
  *changed_W = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SphereRetractTR(SNES snes, Vec X, Vec Y, Vec W, PetscBool *changed_Y, PetscBool *changed_W, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(SphereRetract(NULL, X, Y, W, changed_Y, changed_W, ctx));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm   comm;
  MfadMesh   m;
  MfadEnergy E, Ed;
  Vec        X, X0;
  PetscInt   n = 8, cstart = 0, cend = 0, vstart = 0, vend = 0, *conn, *pconn, its = 0, reason = 0, flipped, flipped0, term, naxes = 3, pinb = -1;
  PetscReal *rest, *pparam, barrier = 0.01, penalty = 1, axes[3] = {1.5, 1, 0.6}, area = 0, energy, covered, covered0, norm_error, move,
                            c[3] = {0, 0, 0};
  SphereShape shape              = SPHERE_SHAPE_ELLIPSOID;
  PetscBool   use_tao = PETSC_FALSE, retract = PETSC_TRUE, write = PETSC_FALSE, write_input = PETSC_FALSE, set, file;
  char        out[PETSC_MAX_PATH_LEN] = "", out_input[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char *reason_name = "";
  PetscReal(*u)[3];
  PetscMPIInt rank;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "Spherical parameterisation options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a closed genus-0 triangle surface (.obj, .off)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsInt("-n", "squares per cube edge of the generated mesh", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-shape", "shape of the generated mesh", NULL, SphereShapes, (PetscEnum)shape, (PetscEnum *)&shape, NULL));
  PetscCall(PetscOptionsRealArray("-axes", "semi-axes of the ellipsoid", NULL, axes, &naxes, &set));
  PetscCall(PetscOptionsReal("-barrier", "weight of the sphere_flip_barrier term", NULL, barrier, &barrier, NULL));
  PetscCall(PetscOptionsReal("-penalty", "k of the radial sphere_penalty term", NULL, penalty, &penalty, NULL));
  PetscCall(PetscOptionsBool("-retract", "retract to the sphere after every line search", NULL, retract, &retract, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the spherical mesh (.vtu)", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsString("-o_input", "write the input surface (.vtu)", NULL, out_input, out_input, sizeof out_input, &write_input));
  PetscOptionsEnd();
  PetscCheck(!set || naxes == 3, comm, PETSC_ERR_ARG_WRONG, "-axes needs 3 values, got %" PetscInt_FMT, naxes);
  PetscCheck(axes[0] > 0 && axes[1] > 0 && axes[2] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-axes %g,%g,%g must be > 0", (double)axes[0],
             (double)axes[1], (double)axes[2]);
  PetscCheck(barrier >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-barrier %g must be >= 0", (double)barrier);
  PetscCheck(penalty > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-penalty %g must be > 0 (it fixes the radial directions)", (double)penalty);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!write_input || out_input[0], comm, PETSC_ERR_ARG_WRONG, "-o_input needs a file name");
  /* the exact Hessian, element Hessians cached per Newton step (see the help for why not projected) */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mfad_hessian", &set));
  if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "cached"));

  if (file) { /* every rank reads the (small) file; the triangles are then split in ranges */
    const size_t len = strlen(path);
    if (len > 4 && !strcmp(path + len - 4, ".off")) PetscCall(MfadMeshReadOFF(path, &m));
    else PetscCall(MfadMeshReadOBJ(path, &m));
    PetscCheck(m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG,
               "sphere: %s: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", path, m->ncorner, m->dim);
    PetscCall(MfadMeshCheckManifold(m, path));
  } else PetscCall(SphereMeshCubeSphere(n, shape, axes, &m));
  PetscCall(SphereMeshCheckGenusZero(comm, m, file ? path : "the generated mesh"));

  PetscCall(PetscMalloc1(m->nvert, &u));
  PetscCall(SphereStart(comm, m, u, c, &pinb, &area));

  PetscCall(GeomMeshRanges(comm, m, &cstart, &cend, &vstart, &vend));
  PetscCall(GeomMeshElements(m, cstart, cend, &conn, &rest));
  PetscCall(MfadEnergyCreate(comm, 3, vend - vstart, m->nvert, &E));
  PetscCall(MfadEnergyAddTermFromRest(E, MFAD_KERNEL(sphere_symmetric_dirichlet), cend - cstart, conn, rest, NULL, 1.0, &term));
  if (barrier > 0) PetscCall(MfadEnergyAddTermFromRest(E, MFAD_KERNEL(sphere_flip_barrier), cend - cstart, conn, rest, NULL, barrier, NULL));
  /* the radial penalty k (|y|^2 - 1)^2 on each owned vertex, k = penalty x its share of the area
     (a third of its triangles'): its radial stiffness 8 k then scales like the distortion's */
  PetscCall(PetscMalloc2(vend - vstart, &pconn, 2 * (vend - vstart), &pparam));
  for (PetscInt v = vstart; v < vend; v++) pconn[v - vstart] = v, pparam[2 * (v - vstart)] = 1, pparam[2 * (v - vstart) + 1] = 0;
  for (PetscInt t = 0; t < m->ncell; t++) {
    const PetscInt *q  = &m->cells[3 * t];
    const PetscReal ar = SphereTriangleArea(&m->coords[3 * q[0]], &m->coords[3 * q[1]], &m->coords[3 * q[2]]);
    for (int k = 0; k < 3; k++)
      if (q[k] >= vstart && q[k] < vend) pparam[2 * (q[k] - vstart) + 1] += penalty * ar / 3;
  }
  PetscCall(MfadEnergyAddTerm(E, MFAD_KERNEL(sphere_penalty), vend - vstart, pconn, pparam, 1.0, NULL));
  {
    const PetscInt  dofs[4] = {0, 1, 2, 3 * pinb + 1};
    const PetscReal vals[4] = {0, 0, 1, 0};
    PetscCall(MfadEnergySetFixedDofs(E, rank == 0 ? 4 : 0, dofs, vals));
  }
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt v = vstart; v < vend; v++)
      for (int e = 0; e < 3; e++) x[3 * (v - vstart) + e] = u[v][e];
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(VecDuplicate(X, &X0));
  if (write_input) { /* X0 holds the input for a moment */
    PetscCall(GeomSetCoordinates(m, vstart, vend, 3, X0));
    PetscCall(MfadEnergyWriteVTU(E, term, X0, NULL, out_input));
  }
  PetscCall(VecCopy(X, X0));
  PetscCall(SphereMeasure(comm, m, cstart, cend, X, NULL, &flipped0, &covered0, NULL, NULL));
  PetscCheck(flipped0 == 0, comm, PETSC_ERR_ARG_WRONG,
             "sphere: %s is not star-shaped about its vertex centroid (%g, %g, %g): %" PetscInt_FMT
             " triangles flip under the radial projection (covered area %g); this example needs a star-shaped input",
             file ? path : "the generated mesh", (double)c[0], (double)c[1], (double)c[2], flipped0, (double)covered0);
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  if (use_tao) { /* a trust region by default: the exact Hessian is indefinite away from the minimiser */
    PetscCall(PetscOptionsHasName(NULL, NULL, "-tao_type", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-tao_type", "ntr"));
    PetscCall(GeomMinimize(comm, E, X, PETSC_TRUE, 0, &its, &reason, &reason_name));
  } else {
    SNES                snes;
    SNESConvergedReason r;
    KSP                 ksp;
    PC                  pc;
    PetscBool           tr;
    PetscCall(SNESCreate(comm, &snes));
    PetscCall(MfadEnergySetSNES(E, snes));
    /* finer meshes need more Newton-CG steps (34, 49, 50 at -n 12, 16, 24): more than SNES's 50 */
    PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 200, PETSC_DEFAULT));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPSTCG)); /* no radius: CG stopped at negative curvature (Newton-CG) */
#if PETSC_VERSION_GE(3, 19, 0)
    PetscCall(KSPSetConvergedNegativeCurvature(ksp, PETSC_TRUE)); /* a stop there is a step, not a failure */
#endif
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(PetscObjectTypeCompare((PetscObject)snes, SNESNEWTONTR, &tr));
    if (retract && tr) PetscCall(SNESNewtonTRSetPostCheck(snes, SphereRetractTR, NULL));
    else if (retract) {
      SNESLineSearch ls;
      PetscCall(SNESGetLineSearch(snes, &ls));
      PetscCall(SNESLineSearchSetPostCheck(ls, SphereRetract, NULL));
    }
    PetscCall(SNESSolve(snes, NULL, X));
    PetscCall(SNESGetIterationNumber(snes, &its));
    PetscCall(SNESGetConvergedReason(snes, &r));
    reason      = r;
    reason_name = SNESConvergedReasons[r];
    PetscCall(SNESDestroy(&snes));
  }

  /* the distortion alone: the barrier's and the penalty's shares are not distortion */
  PetscCall(MfadEnergyCreate(comm, 3, vend - vstart, m->nvert, &Ed));
  PetscCall(MfadEnergyAddTermFromRest(Ed, MFAD_KERNEL(sphere_symmetric_dirichlet), cend - cstart, conn, rest, NULL, 1.0, NULL));
  PetscCall(MfadEnergyComputeObjective(Ed, X, &energy));
  PetscCall(MfadEnergyDestroy(&Ed));
  PetscCall(SphereMeasure(comm, m, cstart, cend, X, X0, &flipped, &covered, &norm_error, &move));
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, X, X0, out));
  PetscCall(PetscPrintf(comm,
                        "sphere: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT
                        " area %.12e energy %.12e energy_per_area %.12e max_norm_error %.3e flipped %" PetscInt_FMT
                        " covered_area %.15f max_move %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                        m->nvert, m->ncell, (double)area, (double)energy, (double)(energy / area), (double)norm_error, flipped, (double)covered,
                        (double)move, its, reason, reason_name));

  PetscCall(PetscFree2(conn, rest));
  PetscCall(PetscFree2(pconn, pparam));
  PetscCall(PetscFree(u));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  PetscCall(PetscFinalize());
  return 0;
}
