// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Spherical parameterisation of a closed genus-0 triangle surface (manifold optimisation on the\n"
    "sphere, as in TinyAD-Examples' manifold_optimization; Gu et al. 2004 for conformal maps): every\n"
    "vertex gets a point on the unit sphere so that the spherical triangles are as little distorted as\n"
    "possible and none is flipped. The input is checked first: a closed, connected, consistently\n"
    "oriented manifold (one fan of triangles per vertex) with V - E + F = 2; anything else is an error\n"
    "that says which. Start (-start tutte, any shape): vertex 0 goes to the north pole, its star is cut\n"
    "out and the rest, a disk, is embedded in the plane by Floater's mean-value weights (positive, so\n"
    "one-to-one: Tutte 1963, Floater 2003) with the star's link on the unit circle, then mapped onto\n"
    "the sphere by the inverse stereographic projection at a scale that keeps every triangle\n"
    "counter-clockwise (see SphereStartTutte()); a few rounds reweight the edges by the triangles'\n"
    "area ratios (Yoshizawa et al. 2004; positive weights: still one-to-one) and the round of least\n"
    "distortion is kept. The start is checked for flips in floating point. -start radial: the radial\n"
    "projection about the vertex centroid, a bijection only for a surface star-shaped about it\n"
    "(checked). Then Newton on\n"
    "  sum_t A_t (|J|^2 + |J^+|^2)  +  barrier sum_t -A_t log(det[u0,u1,u2] / 2 A_t)  +  penalty sum_v (|y_v|^2 - 1)^2\n"
    "(energies/sphere_symmetric_dirichlet.c, sphere_flip_barrier.c, sphere_penalty.c) over unknowns\n"
    "y_v in R^3 whose points are u_v = y_v / |y_v|, J the Jacobian onto the chord triangle; |J^+| grows\n"
    "without bound also as a triangle's vertices come onto a great circle, where it flips though its\n"
    "chord triangle is not flat (a factor on det(J^T J), 1 for triangles narrower than 60 degrees of\n"
    "arc), so the distortion itself walls off flips. The constraint is a projection, not a penalty:\n"
    "the first two terms see only y / |y| (a retraction inside the energy: their gradient has no radial\n"
    "part, their Hessian at |y| = 1 is the Riemannian one), the penalty term only fixes the radial\n"
    "directions (its minimum |y| = 1 is not moved by the others, unlike a penalty on a distortion that\n"
    "sees |y|, which needs k -> infinity), and after every line search each y_v is retracted to\n"
    "y_v / |y_v| (SNESLineSearchSetPostCheck), so every iterate lies on the sphere to round-off.\n"
    "Flipped spherical triangles have energy +inf, so line searches back off before one flips.\n"
    "Rotations of the sphere leave the energy unchanged (this energy is not Moebius invariant): the\n"
    "start is rotated so that vertex 0 is the north pole and the vertex most nearly orthogonal to it\n"
    "lies on the meridian y = 0, x > 0; vertex 0 (3 dofs) and that vertex's y (1 dof) stay fixed.\n"
    "The rest surface is scaled to the chord area of a map that gives each triangle its share of the\n"
    "sphere (-start tutte) or to the start's chord area (-start radial). Options:\n"
    "  -mesh <file>            a closed genus-0 triangle surface (.obj or .off), e.g. tests/meshes/spot.obj;\n"
    "                          default: a generated cube-sphere\n"
    "  -n <8>                  the generated mesh: squares per cube edge (6 n^2 + 2 vertices)\n"
    "  -shape <ellipsoid>      sphere | ellipsoid | bumpy | fingers (the generated mesh's shape; fingers: a\n"
    "                          unit sphere with three long thin fingers, a hard shape for the start)\n"
    "  -axes <1.5,1,0.6>       the ellipsoid's semi-axes (also scale the bumpy shape)\n"
    "  -fingers <8>            the fingers' length (the sphere's radius is 1)\n"
    "  -start <tutte>          tutte | radial (the initial map; radial needs a star-shaped surface)\n"
    "  -start_reweight <40>    most area reweighting rounds of the Tutte start (0: mean-value weights\n"
    "                          only); they stop 12 rounds after the best so far\n"
    "  -start_reweight_exponent <0.5>  each round multiplies an edge's weight by rho^(exponent / 2)\n"
    "  -start_pole <0>         the vertex the Tutte start puts at the north pole\n"
    "  -barrier <0.01>         weight of the sphere_flip_barrier term (0: the +inf wall only)\n"
    "  -penalty <1>            k of the radial sphere_penalty term (per vertex, times its rest area share)\n"
    "  -retract <true>         retract to the sphere after every SNES step\n"
    "  -gatol <1e-6>           SNES: converged when |grad E| <= gatol sqrt(area) (sets -snes_atol; -snes_rtol 0)\n"
    "  -use_tao                minimise with TAO (default -tao_type ntr; no retraction) instead of SNES\n"
    "  -o <file.vtu>           write the spherical mesh, with the displacement from the start\n"
    "  -o_input <file.vtu>     write the input surface (centred, scaled; rotated like the start with -start radial)\n"
    "The Tutte start's sparse LU takes -start_ksp_* and -start_pc_* options. The solver is mfad's\n"
    "Newton-CG (MfadEnergySetNewtonCG(), -mfad_newton_cg): CG on the exact Hessian preconditioned by\n"
    "the Cholesky factor of the PSD-projected one, the projected step where CG fails or meets negative\n"
    "curvature (counted as projected_steps); each step starts at 0.8 of the first flip (the energies'\n"
    "declared wall, -mfad_step_bound). -snes_atol gatol sqrt(area), -snes_rtol 0, -snes_stol 0 (the\n"
    "gradient norm decides, in the same terms on every mesh, or mfad's stop at the energy's round-off,\n"
    "CONVERGED_SNORM_RELATIVE), -snes_max_it 10000, no divergence test (parts squeezed by the start\n"
    "take tens to hundreds of steps while their barrier gradients grow: -shape fingers 48, Cheburashka\n"
    "146, an armadillo 479); -use_tao: -tao_type ntr.\n"
    "Every SNES/KSP/PC/TAO and mfad option applies\n"
    "(-snes_type newtontr retracts too, but PETSc 3.18's trust region stops at the first trial step\n"
    "that flips a triangle, DIVERGED_FUNCTION_DOMAIN, where the line search backs off).\n"
    "A first line describes the start (flipped triangles, covered_area, its energy_per_area). The last\n"
    "line is a summary: vertices, triangles, area (of the scaled rest surface), energy (the\n"
    "symmetric Dirichlet term alone), energy_per_area (4 for an isometry, larger with distortion),\n"
    "max_norm_error (max | |y_v| - 1 | of the solution itself), flipped (triangles with\n"
    "det[y0, y1, y2] <= 0), covered_area (the signed solid angles of all triangles, Van Oosterom &\n"
    "Strackee 1983, over 4 pi: 1 for a map of degree one), max_move (the largest distance a vertex moved\n"
    "from the start), iterations, projected_steps and the converged reason. A solve that did not\n"
    "converge exits with status 1, the reason on stderr.\n\n";

#include <mfadpetsc.h>
#include <string.h>
#include "geommesh.h"

MFAD_KERNEL_DECLARE(sphere_symmetric_dirichlet);
MFAD_KERNEL_DECLARE(sphere_flip_barrier);
MFAD_KERNEL_DECLARE(sphere_penalty);

typedef enum { SPHERE_SHAPE_SPHERE, SPHERE_SHAPE_ELLIPSOID, SPHERE_SHAPE_BUMPY, SPHERE_SHAPE_FINGERS } SphereShape;
static const char *const SphereShapes[] = {"sphere", "ellipsoid", "bumpy", "fingers", "SphereShape", "SPHERE_SHAPE_", NULL};
typedef enum { SPHERE_START_TUTTE, SPHERE_START_RADIAL } SphereStartType;
static const char *const SphereStartTypes[] = {"tutte", "radial", "SphereStartType", "SPHERE_START_", NULL};

/* A cube-sphere: the surface of [0, n]^3's unit grid, two triangles per square (counter-clockwise
   seen from outside), each cube point p (in [-1, 1]^3) sent along the direction of tan(pi/4 p)
   (equal angles: nearly uniform triangles) to the shape's surface. */
static PetscErrorCode SphereMeshCubeSphere(PetscInt n, SphereShape shape, const PetscReal axes[3], PetscReal fingers, MfadMesh *mesh)
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
              /* three long thin fingers along +x, +y, -z (length `fingers`, angular width ~0.25): the
                 stereographic start squeezes them hard */
              if (shape == SPHERE_SHAPE_FINGERS)
                r = 1 + fingers * (PetscExpReal((w[0] - 1) / 0.03) + PetscExpReal((w[1] - 1) / 0.03) + PetscExpReal((-w[2] - 1) / 0.03));
              for (int e = 0; e < 3; e++)
                m->coords[3 * nv + e] = r * w[e] * (shape == SPHERE_SHAPE_SPHERE || shape == SPHERE_SHAPE_FINGERS ? 1 : axes[e]);
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

/* The directed edges of a triangle surface: the vertices after v in its triangles, nbr[off[v] ..
   off[v + 1]) ascending, and lnext[k] the third vertex of the triangle (v, nbr[k], lnext[k]) */
typedef struct {
  PetscInt *off, *nbr, *lnext;
} SphereAdj;

static PetscErrorCode SphereAdjDestroy(SphereAdj *a)
{
  PetscFunctionBeginUser;
  PetscCall(PetscFree3(a->off, a->nbr, a->lnext));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the position k of w among v's neighbours (nbr[k] = w), -1 if w is not one */
static inline PetscInt SphereAdjFind(const SphereAdj *a, PetscInt v, PetscInt w)
{
  PetscInt lo = a->off[v], hi = a->off[v + 1] - 1;
  while (lo <= hi) {
    const PetscInt mid = lo + (hi - lo) / 2;
    if (a->nbr[mid] == w) return mid;
    if (a->nbr[mid] < w) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

static PetscInt SphereRoot(PetscInt *parent, PetscInt v)
{
  while (parent[v] != v) v = parent[v] = parent[parent[v]];
  return v;
}

/* A closed, connected, consistently oriented 2-manifold of genus 0, checked in the order a user
   fixes it (MfadMeshCheckManifold having excluded edges in more than two triangles): no repeated
   corner, no unused vertex, no directed edge twice (orientation), no boundary edge, one component,
   one fan of triangles around every vertex, and Euler characteristic V - E + F = 2. Returns the
   directed edges (SphereAdj) for the start. */
static PetscErrorCode SphereMeshCheckGenusZero(MPI_Comm comm, MfadMesh m, const char *what, SphereAdj *adj)
{
  const PetscInt nv = m->nvert, nc = m->ncell, *cell = m->cells;
  PetscInt      *cnt, *parent, nb = 0, b0 = -1, b1 = -1, ncomp = 0;

  PetscFunctionBeginUser;
  PetscCheck(nv >= 4 && nc >= 4, comm, PETSC_ERR_ARG_WRONG,
             "sphere: %s has %" PetscInt_FMT " vertices and %" PetscInt_FMT " triangles: a closed surface needs at least 4 of each", what, nv, nc);
  for (PetscInt t = 0; t < nc; t++) {
    const PetscInt *q = &cell[3 * t];
    PetscCheck(q[0] != q[1] && q[1] != q[2] && q[2] != q[0], comm, PETSC_ERR_ARG_WRONG,
               "sphere: %s: triangle %" PetscInt_FMT " has a repeated vertex (%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT ")", what, t, q[0],
               q[1], q[2]);
  }
  PetscCall(PetscCalloc3(nv + 1, &adj->off, 3 * nc, &adj->nbr, 3 * nc, &adj->lnext));
  PetscCall(PetscCalloc1(nv + 1, &cnt));
  for (PetscInt k = 0; k < 3 * nc; k++) adj->off[cell[k] + 1]++;
  for (PetscInt v = 0; v < nv; v++) {
    PetscCheck(adj->off[v + 1] > 0, comm, PETSC_ERR_ARG_WRONG, "sphere: %s: vertex %" PetscInt_FMT " (0-based) is in no triangle", what, v);
    adj->off[v + 1] += adj->off[v];
  }
  for (PetscInt t = 0; t < nc; t++)
    for (int a = 0; a < 3; a++) {
      const PetscInt v = cell[3 * t + a], k = adj->off[v] + cnt[v]++;
      adj->nbr[k]   = cell[3 * t + (a + 1) % 3];
      adj->lnext[k] = cell[3 * t + (a + 2) % 3];
    }
  for (PetscInt v = 0; v < nv; v++) {
    const PetscInt o = adj->off[v], n = adj->off[v + 1] - o;
    PetscCall(PetscSortIntWithArray(n, adj->nbr + o, adj->lnext + o));
    for (PetscInt k = o + 1; k < o + n; k++)
      PetscCheck(adj->nbr[k] != adj->nbr[k - 1], comm, PETSC_ERR_ARG_WRONG,
                 "sphere: %s: the edge %" PetscInt_FMT " -> %" PetscInt_FMT
                 " (0-based) runs the same way in two triangles: the triangles are not consistently oriented (or one is repeated)",
                 what, v, adj->nbr[k]);
  }
  for (PetscInt v = 0; v < nv; v++) /* a directed edge without its reverse is on the boundary */
    for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++)
      if (SphereAdjFind(adj, adj->nbr[k], v) < 0) {
        if (!nb) b0 = v, b1 = adj->nbr[k];
        nb++;
      }
  PetscCheck(nb == 0, comm, PETSC_ERR_ARG_WRONG,
             "sphere: %s has %" PetscInt_FMT " boundary edges (e.g. %" PetscInt_FMT "-%" PetscInt_FMT ", 0-based): a closed surface is needed", what,
             nb, b0, b1);
  parent = cnt; /* union-find over the edges */
  for (PetscInt v = 0; v < nv; v++) parent[v] = v;
  for (PetscInt v = 0; v < nv; v++)
    for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) {
      const PetscInt r = SphereRoot(parent, v), s = SphereRoot(parent, adj->nbr[k]);
      if (r != s) parent[PetscMax(r, s)] = PetscMin(r, s);
    }
  for (PetscInt v = 0; v < nv; v++) ncomp += SphereRoot(parent, v) == v;
  PetscCheck(ncomp == 1, comm, PETSC_ERR_ARG_WRONG, "sphere: %s has %" PetscInt_FMT " connected components: one closed surface is needed", what,
             ncomp);
  PetscCall(PetscFree(cnt));
  for (PetscInt v = 0; v < nv; v++) { /* the link of v, followed from its first neighbour, must come back after all of them */
    const PetscInt n = adj->off[v + 1] - adj->off[v];
    PetscInt       w = adj->nbr[adj->off[v]], len = 0;
    do {
      const PetscInt k = SphereAdjFind(adj, v, w);
      PetscCheck(k >= 0, comm, PETSC_ERR_PLIB, "sphere: %s: vertex %" PetscInt_FMT ": link vertex %" PetscInt_FMT " not a neighbour", what, v, w);
      w = adj->lnext[k];
      len++;
    } while (w != adj->nbr[adj->off[v]] && len <= n);
    PetscCheck(len == n, comm, PETSC_ERR_ARG_WRONG,
               "sphere: %s: the %" PetscInt_FMT " triangles at vertex %" PetscInt_FMT
               " (0-based) form more than one fan (surfaces touching at a vertex): a manifold is needed",
               what, n, v);
  }
  {
    const PetscInt ne = 3 * nc / 2, chi = nv - ne + nc; /* closed: every edge in two triangles */
    PetscCheck(chi == 2, comm, PETSC_ERR_ARG_WRONG,
               "sphere: %s has Euler characteristic V - E + F = %" PetscInt_FMT " - %" PetscInt_FMT " + %" PetscInt_FMT " = %" PetscInt_FMT
               " (genus %" PetscInt_FMT "): a genus-0 surface (V - E + F = 2) is needed",
               what, nv, ne, nc, chi, (2 - chi) / 2);
  }
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

/* The surface centred on its vertex centroid c (m's coordinates moved), its triangles turned outward
   if they face inward (negative enclosed volume); *turned says whether they were */
static PetscErrorCode SphereOrient(MfadMesh m, PetscReal c[3], PetscBool *turned)
{
  PetscReal volume = 0;

  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int e = 0; e < 3; e++) c[e] += m->coords[3 * v + e] / m->nvert;
  for (PetscInt v = 0; v < m->nvert; v++)
    for (int e = 0; e < 3; e++) m->coords[3 * v + e] -= c[e];
  for (PetscInt t = 0; t < m->ncell; t++)
    volume += SphereDet(&m->coords[3 * m->cells[3 * t]], &m->coords[3 * m->cells[3 * t + 1]], &m->coords[3 * m->cells[3 * t + 2]]) / 6;
  *turned = (PetscBool)(volume < 0);
  if (*turned)
    for (PetscInt t = 0; t < m->ncell; t++) {
      const PetscInt s    = m->cells[3 * t + 1];
      m->cells[3 * t + 1] = m->cells[3 * t + 2], m->cells[3 * t + 2] = s;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -start radial: u = x / |x| about the centroid, a bijection exactly when the surface is star-shaped
   about it (main() checks that no triangle flips) */
static PetscErrorCode SphereStartRadial(MPI_Comm comm, MfadMesh m, PetscReal (*u)[3])
{
  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < m->nvert; v++) {
    const PetscReal *p = &m->coords[3 * v];
    const PetscReal  l = PetscSqrtReal(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
    PetscCheck(l > 0, comm, PETSC_ERR_ARG_WRONG, "sphere: vertex %" PetscInt_FMT " is at the centroid: no radial projection", v);
    for (int e = 0; e < 3; e++) u[v][e] = p[e] / l;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the area of triangle t of the surface */
static inline PetscReal SphereRestArea(MfadMesh m, PetscInt t)
{
  const PetscInt *q = &m->cells[3 * t];
  return SphereTriangleArea(&m->coords[3 * q[0]], &m->coords[3 * q[1]], &m->coords[3 * q[2]]);
}

/* The chord area of a map onto the sphere that gives every triangle its share of the sphere (its
   share of the surface's area, a_t = 4 pi A_t / sum A) as an equilateral spherical triangle: angles
   alpha = (a + pi) / 3 (Girard), sides c with cos c = cos alpha / (1 - cos alpha) (the spherical
   law of cosines), chord area sqrt(3) / 4 (2 - 2 cos c) (the regular tetrahedron's 8/3 sqrt(3) / 4
   per face at a = pi). The Tutte start's rest size: its own chord area is far below the sphere's
   when its star covers a large cap (1.3 of 4 pi for a crammed start of the armadillo). */
static PetscReal SphereTargetArea(MfadMesh m)
{
  PetscReal rest = 0, area = 0;

  for (PetscInt t = 0; t < m->ncell; t++) rest += SphereRestArea(m, t);
  for (PetscInt t = 0; t < m->ncell; t++) {
    const PetscReal a = 4 * PETSC_PI * SphereRestArea(m, t) / rest,
                    ca = PetscCosReal((a + PETSC_PI) / 3);
    area += PetscSqrtReal(3.0) / 4 * (2 - 2 * ca / (1 - ca));
  }
  return area;
}

/* The symmetric Dirichlet energy of the chord triangles u against the surface scaled to the area
   `target` (as main() scales it), per unit of that area: per triangle D (1 + (A / A')^2),
   D = A |J|^2 = 1/2 sum_i cot(theta_i) |e'_i|^2 (theta_i the rest angle opposite edge i, e'_i its
   image), A and A' the rest and chord areas; +inf if a chord triangle is degenerate */
static PetscReal SphereStartEnergy(MfadMesh m, PetscReal (*u)[3], PetscReal target)
{
  PetscReal rest = 0, d = 0, e = 0;

  for (PetscInt t = 0; t < m->ncell; t++) rest += SphereRestArea(m, t);
  for (PetscInt t = 0; t < m->ncell; t++) {
    const PetscInt *q = &m->cells[3 * t];
    const PetscReal a = SphereRestArea(m, t) * target / rest,
                    b = SphereTriangleArea(u[q[0]], u[q[1]], u[q[2]]);
    d                 = 0;
    for (int i = 0; i < 3; i++) { /* the angle at corner i is opposite the edge (i + 1, i + 2) */
      const PetscReal *x0 = &m->coords[3 * q[i]], *x1 = &m->coords[3 * q[(i + 1) % 3]], *x2 = &m->coords[3 * q[(i + 2) % 3]];
      PetscReal        e1[3], e2[3], dot = 0, cr = 0, l = 0;
      for (int k = 0; k < 3; k++) e1[k] = x1[k] - x0[k], e2[k] = x2[k] - x0[k], dot += e1[k] * e2[k];
      for (int k = 0; k < 3; k++) cr += PetscSqr(e1[(k + 1) % 3] * e2[(k + 2) % 3] - e1[(k + 2) % 3] * e2[(k + 1) % 3]);
      for (int k = 0; k < 3; k++) l += PetscSqr(u[q[(i + 1) % 3]][k] - u[q[(i + 2) % 3]][k]);
      d += 0.5 * dot / PetscSqrtReal(cr) * l;
    }
    if (!(b > 0)) return PETSC_INFINITY;
    e += d * (1 + PetscSqr(a / b));
  }
  return e / target;
}

/* -start tutte: vertex 0 goes to the north pole, its star is cut out, and the rest -- a disk whose
   boundary is the link l_0 .. l_{k-1} of vertex 0 -- is embedded in the plane by Floater's
   mean-value weights (Floater 2003): the link on the unit circle (at angles proportional to the
   star's angles at vertex 0: a strictly convex polygon around the origin), every other vertex the
   weighted mean of its neighbours, w_ij = (tan(a/2) + tan(b/2)) / |x_i - x_j| with a, b the angles at
   i beside edge ij, positive for any 3-D triangle. Positive weights and a strictly convex boundary
   make the embedding one-to-one with every triangle's orientation the same (Tutte 1963; Floater
   2003, "One-to-one piecewise linear mappings over triangulations": no dividing edge can lie on a
   strictly convex polygon's side). The plane is then mapped onto the sphere by the inverse
   stereographic projection from the north pole with the equator at radius s; a small planar triangle
   stays counter-clockwise seen from outside, and any triangle does exactly when the origin's power
   with respect to its circumcircle exceeds -s^2 (the image of the circumdisk is then the smaller
   cap of the circle through its three points), so s is the larger of the star's own size (the cap
   of its area share: s = sqrt(f / (1 - f))) and twice the largest -power; the star's triangles
   (the pole and two consecutive link points) are counter-clockwise because the link turns by less
   than pi per step. Flips are counted afterwards in floating point (s doubled while any is found).
   The weights are mean-value (near harmonic, so the map is near conformal): far less area distortion
   than uniform weights. The linear solve (sparse LU, options prefix start_) is repeated on every
   rank, identically. */
static PetscErrorCode SphereStartTutte(MPI_Comm comm, MfadMesh m, const SphereAdj *adj, PetscInt v0, PetscInt reweight, PetscReal exponent,
                                       PetscReal target, PetscReal (*u)[3], PetscReal *scale, PetscInt *doublings, PetscInt *rounds, PetscReal *energy)
{
  const PetscInt     nv = m->nvert, nc = m->ncell, k0 = adj->off[v0 + 1] - adj->off[v0];
  const PetscReal   *x = m->coords;
  PetscInt          *link, *id, *nnz, n = 0;
  PetscReal         *w, *rho, *ang, (*p)[2], (*ubest)[3], angsum = 0, star = 0, total = 0, phi = 0, best = PETSC_INFINITY, rsum = 0;
  PetscBool          uniform = PETSC_FALSE;
  Mat                A;
  Vec                b[2], z[2];
  KSP                ksp;
  PC                 pc;
  KSPConvergedReason r;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc5(k0, &link, k0, &ang, nv, &id, 3 * nc, &w, nv, &p));
  link[0] = adj->nbr[adj->off[v0]];
  for (PetscInt i = 1; i < k0; i++) link[i] = adj->lnext[SphereAdjFind(adj, v0, link[i - 1])];
  for (PetscInt i = 0; i < k0; i++) {
    PetscReal e1[3], e2[3], cr = 0, dot = 0;
    for (int e = 0; e < 3; e++) e1[e] = x[3 * link[i] + e] - x[3 * v0 + e], e2[e] = x[3 * link[(i + 1) % k0] + e] - x[3 * v0 + e];
    for (int e = 0; e < 3; e++) cr += PetscSqr(e1[(e + 1) % 3] * e2[(e + 2) % 3] - e1[(e + 2) % 3] * e2[(e + 1) % 3]), dot += e1[e] * e2[e];
    ang[i] = PetscAtan2Real(PetscSqrtReal(cr), dot);
    angsum += ang[i];
  }
  for (PetscInt i = 0; i < k0; i++) uniform = (PetscBool)(uniform || !(ang[i] < 0.45 * angsum)); /* a turn of 0.9 pi or more: too close to pi */
  for (PetscInt v = 0; v < nv; v++) id[v] = 0;
  id[v0] = -1;
  for (PetscInt i = 0; i < k0; i++) { /* counter-clockwise seen from the north pole, as the star turns seen from outside */
    id[link[i]]   = -1;
    p[link[i]][0] = PetscCosReal(phi), p[link[i]][1] = PetscSinReal(phi);
    phi += 2 * PETSC_PI * (uniform ? 1.0 / k0 : ang[i] / angsum);
  }
  for (PetscInt v = 0; v < nv; v++)
    if (!id[v]) id[v] = n++;
    else id[v] = -1;
  /* mean-value weights: corner v of triangle (v, b, c) adds tan(a_v / 2) / |x_b - x_v| to w_vb, and to w_vc alike */
  for (PetscInt k = 0; k < 3 * nc; k++) w[k] = 0;
  for (PetscInt t = 0; t < nc; t++)
    for (int a = 0; a < 3; a++) {
      const PetscInt v = m->cells[3 * t + a], q[2] = {m->cells[3 * t + (a + 1) % 3], m->cells[3 * t + (a + 2) % 3]};
      PetscReal      e[2][3], l[2] = {0, 0}, cr = 0, dot = 0, th;
      for (int j = 0; j < 2; j++)
        for (int d = 0; d < 3; d++) e[j][d] = x[3 * q[j] + d] - x[3 * v + d], l[j] += PetscSqr(e[j][d]);
      for (int d = 0; d < 3; d++)
        cr += PetscSqr(e[0][(d + 1) % 3] * e[1][(d + 2) % 3] - e[0][(d + 2) % 3] * e[1][(d + 1) % 3]), dot += e[0][d] * e[1][d];
      l[0] = PetscSqrtReal(l[0]), l[1] = PetscSqrtReal(l[1]);
      th = PetscSqrtReal(cr) / (l[0] * l[1] + dot); /* tan(a / 2) = sin a / (1 + cos a) */
      for (int j = 0; j < 2; j++) w[SphereAdjFind(adj, v, q[j])] += th / l[j];
      if (v == v0 || q[0] == v0 || q[1] == v0) star += 0.5 * PetscSqrtReal(cr) / 3;
      total += 0.5 * PetscSqrtReal(cr) / 3;
    }
  for (PetscInt v = 0; v < nv; v++) { /* a degenerate triangle (angle 0 or pi) makes a weight 0 or infinite: that row's weights uniform */
    PetscBool ok = PETSC_TRUE;
    for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) ok = (PetscBool)(ok && w[k] > 0 && PetscIsNormalReal(w[k]));
    if (!ok)
      for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) w[k] = 1;
  }
  PetscCall(PetscMalloc3(n, &nnz, nv, &ubest, nc, &rho));
  for (PetscInt v = 0; v < nv; v++)
    if (id[v] >= 0) {
      nnz[id[v]] = 1;
      for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) nnz[id[v]] += id[adj->nbr[k]] >= 0;
    }
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 0, nnz, &A));
  PetscCall(MatCreateVecs(A, &z[0], &b[0]));
  PetscCall(VecDuplicate(z[0], &z[1]));
  PetscCall(VecDuplicate(b[0], &b[1]));
  PetscCall(KSPCreate(PETSC_COMM_SELF, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "start_"));
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCLU));
  PetscCall(KSPSetFromOptions(ksp));
  for (PetscInt t = 0; t < nc; t++) rsum += SphereRestArea(m, t);
  for (PetscInt it = 0; it <= reweight; it++) {
    PetscReal power = 0, csum = 0, s, en;
    PetscInt  nwrong = 0, nflip = 1, dbl;
    PetscCall(MatZeroEntries(A));
    for (int e = 0; e < 2; e++) PetscCall(VecSet(b[e], 0));
    for (PetscInt v = 0; v < nv;
         v++) { /* p_v - sum_j l_vj p_j = 0, l_vj = w_vj / sum_j w_vj (rows of 1: reweighted weights may be tiny), the link's p_j on the right */
      PetscReal d = 0;
      if (id[v] < 0) continue;
      for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) d += w[k];
      for (PetscInt k = adj->off[v]; k < adj->off[v + 1]; k++) {
        const PetscInt j = adj->nbr[k];
        if (id[j] >= 0) PetscCall(MatSetValue(A, id[v], id[j], -w[k] / d, INSERT_VALUES));
        else
          for (int e = 0; e < 2; e++) PetscCall(VecSetValue(b[e], id[v], w[k] / d * p[j][e], ADD_VALUES));
      }
      PetscCall(MatSetValue(A, id[v], id[v], 1.0, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
    for (int e = 0; e < 2; e++) PetscCall(VecAssemblyBegin(b[e]));
    for (int e = 0; e < 2; e++) PetscCall(VecAssemblyEnd(b[e]));
    PetscCall(KSPSetOperators(ksp, A, A));
    for (int e = 0; e < 2; e++) {
      const PetscScalar *zz;
      PetscCall(KSPSolve(ksp, b[e], z[e]));
      PetscCall(KSPGetConvergedReason(ksp, &r));
      PetscCheck(r >= 0, comm, PETSC_ERR_NOT_CONVERGED, "sphere: the Tutte embedding's linear solve failed: %s", KSPConvergedReasons[r]);
      PetscCall(VecGetArrayRead(z[e], &zz));
      for (PetscInt v = 0; v < nv; v++)
        if (id[v] >= 0) p[v][e] = PetscRealPart(zz[id[v]]);
      PetscCall(VecRestoreArrayRead(z[e], &zz));
    }
    /* the planar triangles (all but the star) turn clockwise (the plane is seen from above, the
       sphere's southern part from below); the largest -power of the origin over their
       circumcircles, incircle(p0, p1, p2, 0) / orient(p0, p1, p2) */
    for (PetscInt t = 0; t < nc; t++) {
      const PetscInt *q = &m->cells[3 * t];
      PetscReal       o, ic, l[3];
      if (q[0] == v0 || q[1] == v0 || q[2] == v0) continue;
      o = (p[q[1]][0] - p[q[0]][0]) * (p[q[2]][1] - p[q[0]][1]) - (p[q[1]][1] - p[q[0]][1]) * (p[q[2]][0] - p[q[0]][0]);
      if (!(o < 0)) nwrong++;
      for (int c = 0; c < 3; c++) l[c] = PetscSqr(p[q[c]][0]) + PetscSqr(p[q[c]][1]);
      ic = p[q[0]][0] * (p[q[1]][1] * l[2] - l[1] * p[q[2]][1]) - p[q[0]][1] * (p[q[1]][0] * l[2] - l[1] * p[q[2]][0]) +
           l[0] * (p[q[1]][0] * p[q[2]][1] - p[q[1]][1] * p[q[2]][0]);
      if (o < 0) power = PetscMax(power, ic / o);
    }
    PetscCheck(nwrong == 0 || it > 0, comm, PETSC_ERR_FP,
               "sphere: the Tutte embedding has %" PetscInt_FMT " planar triangles flat or flipped to round-off (of %" PetscInt_FMT
               "): try -start radial for a star-shaped surface",
               nwrong, nc - k0);
    if (nwrong) { /* reweighted to round-off: the rounds end, the best so far stays */
      PetscCall(PetscInfo(NULL, "sphere: reweighting round %" PetscInt_FMT ": %" PetscInt_FMT " planar triangles flat to round-off; rounds end\n", it,
                          nwrong));
      break;
    }
    s = PetscMax(PetscSqrtReal(star / (total - star)), 2 * PetscSqrtReal(power));
    for (dbl = 0; nflip && dbl < 40; s *= 2) {
      nflip = 0;
      for (PetscInt v = 0; v < nv; v++) {
        const PetscReal q0 = v == v0 ? 0 : p[v][0] / s, q1 = v == v0 ? 0 : p[v][1] / s, l = q0 * q0 + q1 * q1;
        u[v][0] = 2 * q0 / (l + 1), u[v][1] = 2 * q1 / (l + 1), u[v][2] = (l - 1) / (l + 1);
      }
      u[v0][0] = u[v0][1] = 0, u[v0][2] = 1;
      for (PetscInt t = 0; t < nc; t++) nflip += !(SphereDet(u[m->cells[3 * t]], u[m->cells[3 * t + 1]], u[m->cells[3 * t + 2]]) > 0);
      if (nflip) dbl++;
    }
    en = SphereStartEnergy(m, u, target);
    PetscCall(PetscInfo(NULL, "sphere: reweighting round %" PetscInt_FMT ": energy_per_area %.6e stereographic_scale %.3e flips %" PetscInt_FMT "\n", it,
                        (double)en, (double)s, nflip));
    if (!nflip && en < best) { /* the best round so far */
      best = en, *scale = s / 2, *rounds = it, *doublings = dbl;
      for (PetscInt v = 0; v < nv; v++)
        for (int e = 0; e < 3; e++) ubest[v][e] = u[v][e];
    }
    if (it == reweight || it - *rounds >= 12) break; /* 12 rounds past the best: the reweighting overshoots (noisily) */
    /* area reweighting (after Yoshizawa, Belyaev & Seidel 2004): rho_t = the triangle's share of the
       sphere over its share of the surface; an edge's weight times the geometric mean of its two
       triangles' rho^(1/2): the Tutte pull is weaker where triangles came out too small, so they
       grow. The weights stay positive: the embedding stays one-to-one. */
    for (PetscInt t = 0; t < nc; t++) {
      const PetscInt *q = &m->cells[3 * t];
      rho[t]            = SphereTriangleArea(u[q[0]], u[q[1]], u[q[2]]);
      csum += rho[t];
    }
    for (PetscInt t = 0; t < nc; t++) rho[t] = (rho[t] / csum) / (SphereRestArea(m, t) / rsum);
    for (PetscInt t = 0; t < nc; t++)
      for (int c = 0; c < 3; c++) { /* the directed edge q[c] -> q[c + 1] and its reverse each get this triangle's factor */
        const PetscInt  i = m->cells[3 * t + c], j = m->cells[3 * t + (c + 1) % 3];
        const PetscReal f = PetscPowReal(rho[t], 0.25 * exponent);
        if (rho[t] > 0 && PetscIsNormalReal(f)) {
          w[SphereAdjFind(adj, i, j)] *= f;
          w[SphereAdjFind(adj, j, i)] *= f;
        }
      }
  }
  if (best < PETSC_INFINITY) /* else the last round, with its flips, for main() to report */
    for (PetscInt v = 0; v < nv; v++)
      for (int e = 0; e < 3; e++) u[v][e] = ubest[v][e];
  *energy = best;
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  for (int e = 0; e < 2; e++) PetscCall(VecDestroy(&b[e]));
  for (int e = 0; e < 2; e++) PetscCall(VecDestroy(&z[e]));
  PetscCall(PetscFree3(nnz, ubest, rho));
  PetscCall(PetscFree5(link, ang, id, w, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The gauge: the rotation onto the frame (e1, e2, e3 = u_0) takes vertex 0 to the north pole and
   vertex `pinb` (the one most nearly orthogonal to it) to the meridian y = 0, x > 0 (orientation
   kept); with rotate_surface the surface is rotated alike (the radial start: -o_input then overlays
   it), and it is scaled to the isometric size `area`: `target` where positive (the Tutte start's,
   SphereTargetArea()), else the chord area of the start (the radial start: every triangle its own
   shape's share, and a round sphere's own size, where the map is a rotation). */
static PetscErrorCode SphereGauge(MfadMesh m, PetscReal (*u)[3], PetscBool rotate_surface, PetscReal target, PetscInt *pinb, PetscReal *area)
{
  PetscReal rest = 0, chord = 0, scale, e1[3], e2[3], e3[3], best = -1;

  PetscFunctionBeginUser;
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
    for (int k = 0; k < (rotate_surface ? 2 : 1); k++) {
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
  if (target > 0) chord = target;
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

/* The retraction onto the sphere after a step (line search or trust region): each vertex's y (3
   consecutive entries of the owned part) becomes y / |y|. Fixed dofs stay: they lie on the sphere
   already. The energies do not change (they take y / |y| themselves) but for rounding, which
   decides at their wall, det <= 1e-14 |e1| |e2| (energies/sphere_chord.h): a triangle can sit there,
   as det -> 0 puts its vertices on a great circle, where the chord triangle is not flat, so only the
   log barrier holds it (the armadillo at step 219: det 9.8e-18 against the wall's 8.7e-18, edges
   0.047 and 0.018). The step was finite, the retracted point +inf, and PETSc's line search stopped
   there (DIVERGED_LINE_SEARCH). Such a step is kept unretracted: the radial penalty holds |y|. */
static PetscErrorCode SphereRetract(SNESLineSearch ls, Vec X, Vec Y, Vec W, PetscBool *changed_Y, PetscBool *changed_W, void *ctx)
{
  MfadEnergy   E = (MfadEnergy)ctx;
  Vec          R;
  PetscScalar *w;
  PetscInt     n;
  PetscReal    e;

  PetscFunctionBeginUser;
  (void)ls, (void)X, (void)Y;
  PetscCall(VecDuplicate(W, &R));
  PetscCall(VecCopy(W, R));
  PetscCall(VecGetLocalSize(R, &n));
  PetscCall(VecGetArray(R, &w));
  for (PetscInt i = 0; i < n; i += 3) {
    const PetscReal l = PetscSqrtReal(PetscSqr(PetscRealPart(w[i])) + PetscSqr(PetscRealPart(w[i + 1])) + PetscSqr(PetscRealPart(w[i + 2])));
    if (l > 0)
      for (int d = 0; d < 3; d++) w[i + d] /= l;
  }
  PetscCall(VecRestoreArray(R, &w));
  PetscCall(MfadEnergyComputeObjective(E, R, &e)); /* +inf where invalid (SNES's objective stands a finite value for it) */
  *changed_Y = PETSC_FALSE;
  *changed_W = (PetscBool)!PetscIsInfOrNanReal(e);
  if (*changed_W) PetscCall(VecCopy(R, W));
  else PetscCall(PetscInfo(ls, "sphere: the retracted step is at the energies' wall; kept unretracted\n"));
  PetscCall(VecDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode SphereRetractTR(SNES snes, Vec X, Vec Y, Vec W, PetscBool *changed_Y, PetscBool *changed_W, void *ctx)
{
  PetscFunctionBeginUser;
  (void)snes;
  PetscCall(SphereRetract(NULL, X, Y, W, changed_Y, changed_W, ctx)); /* ctx: the energy */
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a trust region by default (-tao_type overrides it): the exact Hessian is indefinite away from the minimiser */
static PetscErrorCode SphereSetTao(void *E, Tao tao)
{
  PetscFunctionBeginUser;
  PetscCall(TaoSetType(tao, TAONTR));
  PetscCall(MfadEnergySetTao((MfadEnergy)E, tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm   comm;
  MfadMesh   m;
  MfadEnergy E, Ed;
  Vec        X, X0;
  SphereAdj  adj;
  PetscInt   n = 8, doublings = 0, reweight = 40, pole = 0, rounds = 0, cstart = 0, cend = 0, vstart = 0, vend = 0, *pconn, its = 0, reason = 0,
           nfallback = 0, flipped, flipped0, term, naxes = 3, pinb = -1;
  PetscReal *pparam, barrier = 0.01, penalty = 1, axes[3] = {1.5, 1, 0.6}, area = 0, energy, covered, covered0, norm_error, move, c[3] = {0, 0, 0},
                     s = 0, exponent = 0.5, start_energy = 0, fingers = 8, gatol = 1e-6, target = 0;
  SphereShape     shape   = SPHERE_SHAPE_ELLIPSOID;
  SphereStartType start   = SPHERE_START_TUTTE;
  PetscBool       use_tao = PETSC_FALSE, retract = PETSC_TRUE, write = PETSC_FALSE, write_input = PETSC_FALSE, set, file, turned;
  char            out[PETSC_MAX_PATH_LEN] = "", out_input[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char     *reason_name = "";
  PetscReal(*u)[3];
  PetscMPIInt rank;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscOptionsBegin(comm, NULL, "Spherical parameterisation options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a closed genus-0 triangle surface (.obj, .off)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsInt("-n", "squares per cube edge of the generated mesh", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-shape", "shape of the generated mesh", NULL, SphereShapes, (PetscEnum)shape, (PetscEnum *)&shape, NULL));
  PetscCall(PetscOptionsReal("-fingers", "the length of the fingers of -shape fingers", NULL, fingers, &fingers, NULL));
  PetscCall(PetscOptionsRealArray("-axes", "semi-axes of the ellipsoid", NULL, axes, &naxes, &set));
  PetscCall(PetscOptionsEnum("-start", "the initial map onto the sphere", NULL, SphereStartTypes, (PetscEnum)start, (PetscEnum *)&start, NULL));
  PetscCall(PetscOptionsInt("-start_pole", "the vertex the Tutte start puts at the north pole", NULL, pole, &pole, NULL));
  PetscCall(PetscOptionsInt("-start_reweight", "area reweighting rounds of the Tutte start", NULL, reweight, &reweight, NULL));
  PetscCall(PetscOptionsReal("-start_reweight_exponent", "exponent of the area reweighting", NULL, exponent, &exponent, NULL));
  PetscCall(PetscOptionsReal("-barrier", "weight of the sphere_flip_barrier term", NULL, barrier, &barrier, NULL));
  PetscCall(PetscOptionsReal("-penalty", "k of the radial sphere_penalty term", NULL, penalty, &penalty, NULL));
  PetscCall(PetscOptionsBool("-retract", "retract to the sphere after every line search", NULL, retract, &retract, NULL));
  PetscCall(PetscOptionsReal("-gatol", "SNES: converged when |grad E| <= gatol sqrt(area)", NULL, gatol, &gatol, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the spherical mesh (.vtu)", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsString("-o_input", "write the input surface (.vtu)", NULL, out_input, out_input, sizeof out_input, &write_input));
  PetscOptionsEnd();
  PetscCheck(!set || naxes == 3, comm, PETSC_ERR_ARG_WRONG, "-axes needs 3 values, got %" PetscInt_FMT, naxes);
  PetscCheck(axes[0] > 0 && axes[1] > 0 && axes[2] > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-axes %g,%g,%g must be > 0", (double)axes[0],
             (double)axes[1], (double)axes[2]);
  PetscCheck(pole >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-start_pole %" PetscInt_FMT " must be >= 0", pole);
  PetscCheck(reweight >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-start_reweight %" PetscInt_FMT " must be >= 0", reweight);
  PetscCheck(gatol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gatol %g must be >= 0", (double)gatol);
  PetscCheck(barrier >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-barrier %g must be >= 0", (double)barrier);
  PetscCheck(penalty > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-penalty %g must be > 0 (it fixes the radial directions)", (double)penalty);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!write_input || out_input[0], comm, PETSC_ERR_ARG_WRONG, "-o_input needs a file name");
  if (file) { /* every rank reads the (small) file; the triangles are then split in ranges */
    const size_t len = strlen(path);
    if (len > 4 && !strcmp(path + len - 4, ".off")) PetscCall(MfadMeshReadOFF(path, &m));
    else PetscCall(MfadMeshReadOBJ(path, &m));
    PetscCheck(m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG,
               "sphere: %s: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", path, m->ncorner, m->dim);
    PetscCall(MfadMeshCheckManifold(m, path));
  } else PetscCall(SphereMeshCubeSphere(n, shape, axes, fingers, &m));
  PetscCall(SphereMeshCheckGenusZero(comm, m, file ? path : "the generated mesh", &adj));
  PetscCall(SphereOrient(m, c, &turned));
  if (turned) { /* the directed edges again, of the turned triangles */
    PetscCall(SphereAdjDestroy(&adj));
    PetscCall(SphereMeshCheckGenusZero(comm, m, file ? path : "the generated mesh", &adj));
  }
  PetscCheck(pole < m->nvert, comm, PETSC_ERR_ARG_OUTOFRANGE, "-start_pole %" PetscInt_FMT " must be below the number of vertices, %" PetscInt_FMT,
             pole, m->nvert);
  PetscCall(PetscMalloc1(m->nvert, &u));
  if (start == SPHERE_START_RADIAL) PetscCall(SphereStartRadial(comm, m, u));
  else {
    target = SphereTargetArea(m);
    PetscCall(SphereStartTutte(comm, m, &adj, pole, reweight, exponent, target, u, &s, &doublings, &rounds, &start_energy));
  }
  PetscCall(SphereAdjDestroy(&adj));
  PetscCall(SphereGauge(m, u, (PetscBool)(start == SPHERE_START_RADIAL), target, &pinb, &area));

  PetscCall(MfadEnergyCreateFromMesh(comm, m, 3, &E));
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend));
  PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(sphere_symmetric_dirichlet), NULL, 1.0, &term));
  if (barrier > 0) PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(sphere_flip_barrier), NULL, barrier, NULL));
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
  PetscCall(MfadEnergySetNewtonCG(E, PETSC_TRUE)); /* -mfad_newton_cg 0 turns it off */
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
    PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X0));
    PetscCall(MfadEnergyWriteVTU(E, term, X0, NULL, out_input));
  }
  PetscCall(VecCopy(X, X0));
  PetscCall(SphereMeasure(comm, m, cstart, cend, X, NULL, &flipped0, &covered0, NULL, NULL));
  PetscCheck(start != SPHERE_START_RADIAL || flipped0 == 0, comm, PETSC_ERR_ARG_WRONG,
             "sphere: %s is not star-shaped about its vertex centroid (%g, %g, %g): %" PetscInt_FMT
             " triangles flip under the radial projection (covered area %g); -start tutte (the default) needs no star shape",
             file ? path : "the generated mesh", (double)c[0], (double)c[1], (double)c[2], flipped0, (double)covered0);
  PetscCheck(flipped0 == 0, comm, PETSC_ERR_FP,
             "sphere: the Tutte start of %s has %" PetscInt_FMT " flipped triangles (round-off; stereographic scale %g)",
             file ? path : "the generated mesh", flipped0, (double)s);
  {
    PetscReal mindet = PETSC_MAX_REAL; /* the energies are +inf below det[u0, u1, u2] = 1e-14: a start that thin cannot be improved */
    for (PetscInt t = 0; t < m->ncell; t++) mindet = PetscMin(mindet, SphereDet(u[m->cells[3 * t]], u[m->cells[3 * t + 1]], u[m->cells[3 * t + 2]]));
    if (start == SPHERE_START_TUTTE)
      PetscCall(PetscPrintf(comm,
                            "sphere: start tutte flipped %" PetscInt_FMT
                            " covered_area %.15f min_det %.3e energy_per_area %.6e reweighting_rounds %" PetscInt_FMT
                            " stereographic_scale %.3e doublings %" PetscInt_FMT "\n",
                            flipped0, (double)covered0, (double)mindet, (double)start_energy, rounds, (double)s, doublings));
    else
      PetscCall(PetscPrintf(comm, "sphere: start radial flipped %" PetscInt_FMT " covered_area %.15f min_det %.3e\n", flipped0, (double)covered0,
                            (double)mindet));
  }
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  if (use_tao) PetscCall(GeomMinimizeProblem(comm, E, NULL, SphereSetTao, X, PETSC_TRUE, 0, 0, &its, &reason, &reason_name));
  else {
    SNES                snes;
    SNESConvergedReason r;
    PetscBool           tr;
    PetscCall(SNESCreate(comm, &snes));
    PetscCall(MfadEnergySetSNES(E, snes));
    /* An absolute gradient test, |grad E| <= gatol sqrt(area) (as petsc-examples/param.c), not one
       relative to the start's gradient, which varies by orders of magnitude between meshes (|g0| =
       1e2 on -shape fingers, 9e4 on Cheburashka); no convergence on a short step (stol 0): the step
       bound may shorten a step to nothing where a triangle is about to flip, which is not a
       minimum. Long thin parts squeezed by the start take many steps of steady descent (-shape
       fingers: 48 on 866 vertices; scanned Cheburashka, ears squeezed 1e4-fold: 146; a scanned
       armadillo of 15,002 vertices: 479; thousands before the great-circle wall of
       energies/sphere_symmetric_dirichlet.c), hence 10000. */
    PetscCall(SNESSetTolerances(snes, gatol * PetscSqrtReal(area), 0.0, 0.0, 10000, PETSC_DEFAULT));
    /* no divergence test on the gradient norm: as a squeezed triangle shrinks its barrier gradient
       grows by orders of magnitude while the energy falls (Homer: 4.6e4 to 1e9, DIVERGED_DTOL at
       step 105), so only the energy's line search judges progress */
    PetscCall(SNESSetDivergenceTolerance(snes, PETSC_MAX_REAL));
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(PetscObjectTypeCompare((PetscObject)snes, SNESNEWTONTR, &tr));
    if (retract && tr) PetscCall(SNESNewtonTRSetPostCheck(snes, SphereRetractTR, E));
    else if (retract) {
      SNESLineSearch ls;
      PetscCall(SNESGetLineSearch(snes, &ls));
      PetscCall(SNESLineSearchSetPostCheck(ls, SphereRetract, E));
    }
    PetscCall(SNESSolve(snes, NULL, X));
    PetscCall(SNESGetIterationNumber(snes, &its));
    PetscCall(SNESGetConvergedReason(snes, &r));
    reason      = r;
    reason_name = SNESConvergedReasons[r];
    PetscCall(MfadEnergyGetNewtonCGCounts(E, &nfallback, NULL));
    PetscCall(SNESDestroy(&snes));
  }

  /* the distortion alone: the barrier's and the penalty's shares are not distortion */
  PetscCall(MfadEnergyCreateFromMesh(comm, m, 3, &Ed));
  PetscCall(MfadEnergyAddTermFromMesh(Ed, m, MFAD_KERNEL(sphere_symmetric_dirichlet), NULL, 1.0, NULL));
  PetscCall(MfadEnergyComputeObjective(Ed, X, &energy));
  PetscCall(MfadEnergyDestroy(&Ed));
  PetscCall(SphereMeasure(comm, m, cstart, cend, X, X0, &flipped, &covered, &norm_error, &move));
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, X, X0, out));
  PetscCall(PetscPrintf(comm,
                        "sphere: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT
                        " area %.12e energy %.12e energy_per_area %.12e max_norm_error %.3e flipped %" PetscInt_FMT
                        " covered_area %.15f max_move %.3e iterations %" PetscInt_FMT " projected_steps %" PetscInt_FMT " reason %" PetscInt_FMT
                        " %s\n",
                        m->nvert, m->ncell, (double)area, (double)energy, (double)(energy / area), (double)norm_error, flipped, (double)covered,
                        (double)move, its, nfallback, reason, reason_name));

  PetscCall(PetscFree2(pconn, pparam));
  PetscCall(PetscFree(u));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  /* a solve that did not converge is a failure, whatever its summary says */
  if (reason <= 0)
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "sphere: the %s solve did not converge: %s (reason %" PetscInt_FMT ") after %" PetscInt_FMT " iterations\n",
                           use_tao ? "TAO" : "SNES", reason_name, reason, its));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
