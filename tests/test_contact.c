// SPDX-License-Identifier: BSD-2-Clause
/* Contact: the IPC barrier energies (ipc_point_triangle, ipc_edge_edge), detection and the step
   bound (src/contact.c), one rank; tests/test_contact_mpi.c does 2 and 3 ranks.
   - the energies equal IPC's closed form on configurations whose distance is known, are 0 beyond
     dhat and +inf at contact, and in every distance type (and with the edge-edge mollifier on)
     their gradient, HVP and Hessian agree with finite differences and with each other;
   - MfadContactDetect() finds exactly the pairs a brute-force O(n^2) search over the same surface
     finds (same vertices, same distance type), each once, on a random triangle soup and on the
     Spot mesh (tests/meshes/spot.obj), and the pairs' energies are the barrier of their distance;
   - detection gives the same pairs in the same order, and the step bound the same value, on 1 and
     3 threads;
   - MfadContactStepBound(): a point moving through a triangle (an edge through an edge) gets a
     bound below the crossing time and within a factor 2 of it (head-on, additive CCD advances by
     0.9 of the gap); a step that meets nothing gets 1; on a random soup no point crosses a
     triangle up to the bound (sampled) and every pair keeps a positive distance;
   - bad input: ids out of range, negative counts, NaN coordinates or steps, calls out of order
     are PETSc errors with a message naming the item. */
#include <mfadmesh.h>
#include <mfad/contact.h>
#define MFAD_IMPL_ALLOWED 1 /* tests the contact kernels element by element: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>
#include <check.h>
#include <omp.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TestCall(call) ck_assert_msg((call) == 0, "PETSc error in %s: %s", #call, err_msg)

static char err_msg[4096];

static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                  void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(err_msg, sizeof(err_msg), "%s", mess ? mess : "");
  return n;
}

static unsigned long long Rng = 12345;
static double             Uniform(double a, double b)
{
  Rng = Rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return a + (b - a) * ((double)(Rng >> 11) / 9007199254740992.0);
}

static MfadKernel Find(const char *name)
{
  MfadKernel k = NULL;
  ck_assert_msg(!MfadKernelFind(name, &k) && k, "kernel %s not found", name);
  return k;
}

static double Value(MfadKernel k, const double *x, const double *p)
{
  double E, v[12] = {0}, g[12];
  k->element(MFAD_MODE_VALUE, x, v, p, &E, g);
  return E;
}

static double Barrier(double d, double dhat2, double kappa) { return d >= dhat2 ? 0.0 : -kappa * (d - dhat2) * (d - dhat2) * log(d / dhat2); }

static void AssertNear(const char *what, double got, double want, double tol)
{
  ck_assert_msg(fabs(got - want) <= tol, "%s: %.17g, expected %.17g (error %.3g > %.3g)", what, got, want, fabs(got - want), tol);
}

/* ---------------------------------------------------------------- energies */
START_TEST(barrier_energies_match_closed_forms)
{
  MfadKernel   pt = Find("ipc_point_triangle"), ee = Find("ipc_edge_edge");
  const double dhat2 = 0.36, kappa = 2.5, h = 0.4;
  /* triangle (0,0,0) (1,0,0) (0,1,0); the point above the face, near t0, near edge t0-t1 */
  double x[12] = {0.2, 0.3, h, 0, 0, 0, 1, 0, 0, 0, 1, 0}, p[4] = {MFAD_PT_P_T, dhat2, kappa, 0};
  ck_assert_int_eq(mfad_ipc_pt_type(x), MFAD_PT_P_T);
  AssertNear("point above the face", Value(pt, x, p), Barrier(h * h, dhat2, kappa), 1e-15); /* ~10 roundings of O(0.1) values */
  x[0] = -0.3, x[1] = -0.4, x[2] = 0.0, p[0] = MFAD_PT_P_T0;
  ck_assert_int_eq(mfad_ipc_pt_type(x), MFAD_PT_P_T0);
  AssertNear("point near vertex t0", Value(pt, x, p), Barrier(0.25, dhat2, kappa), 1e-15);
  x[0] = 0.5, x[1] = -0.2, x[2] = 0.1, p[0] = MFAD_PT_P_E0;
  ck_assert_int_eq(mfad_ipc_pt_type(x), MFAD_PT_P_E0);
  AssertNear("point near edge t0-t1", Value(pt, x, p), Barrier(0.05, dhat2, kappa), 1e-15);
  x[0] = 0.2, x[1] = 0.3, x[2] = 0.0, p[0] = MFAD_PT_P_T;
  ck_assert_msg(isinf(Value(pt, x, p)), "a point on the triangle has a finite barrier");
  x[2] = 0.7; /* d = 0.49 > dhat^2 */
  ck_assert_msg(Value(pt, x, p) == 0.0, "a point beyond dhat has barrier %g", Value(pt, x, p));
  {
    /* skew perpendicular edges at distance h: line-line; |a x b|^2 = 16 */
    double y[12] = {-1, 0, 0, 1, 0, 0, 0, -1, h, 0, 1, h}, q[4] = {MFAD_EE_A_B, dhat2, kappa, 0.0};
    ck_assert_int_eq(mfad_ipc_ee_type(y), MFAD_EE_A_B);
    AssertNear("crossing edges", Value(ee, y, q), Barrier(h * h, dhat2, kappa), 1e-15);
    q[3] = 32.0; /* mollifier at c / eps_x = 1/2: (2 - 1/2) 1/2 = 3/4 */
    AssertNear("crossing edges, mollified", Value(ee, y, q), 0.75 * Barrier(h * h, dhat2, kappa), 1e-15);
    /* endpoint a1 nearest b0: (0.3, 0.4, 0) apart */
    double z[12] = {0, 0, 0, 1, 0, 0, 1.3, 0.4, 0, 2, 1, 0.5}, r[4] = {MFAD_EE_A1_B0, dhat2, kappa, 0.0};
    ck_assert_int_eq(mfad_ipc_ee_type(z), MFAD_EE_A1_B0);
    AssertNear("endpoints", Value(ee, z, r), Barrier(0.25, dhat2, kappa), 1e-15);
    y[8] = y[11] = 0.0;
    ck_assert_msg(isinf(Value(ee, y, q)), "intersecting edges have a finite barrier");
  }
}
END_TEST

/* gradient vs central differences of the value, HVP vs central differences of the gradient,
   Hessian v vs HVP, Hessian symmetric, for one element. FD step h = 1e-6 on O(1) coordinates:
   truncation O(h^2) ~ 1e-12, round-off eps |E| / h ~ 1e-10 |E|; bound 1e-6 (1 + max |.|). */
static void CheckDerivatives(MfadKernel k, const double *x, const double *p, const char *what, int type)
{
  const double h = 1e-6;
  double       E, g[12], gp[12], gm[12], v[12], Hv[12], H[144], y[12], Ep, Em, gmax = 0, hmax = 0, Hmax = 0;
  for (int i = 0; i < 12; i++) v[i] = Uniform(-1, 1);
  k->element(MFAD_MODE_GRADIENT, x, v, p, &E, g);
  ck_assert_msg(isfinite(E) && E > 0, "%s type %d: value %g, expected in (0, inf)", what, type, E);
  k->element(MFAD_MODE_HVP, x, v, p, &E, Hv);
  k->element(MFAD_MODE_HESSIAN, x, v, p, &E, H);
  for (int i = 0; i < 12; i++) gmax = fmax(gmax, fabs(g[i])), hmax = fmax(hmax, fabs(Hv[i]));
  for (int i = 0; i < 144; i++) Hmax = fmax(Hmax, fabs(H[i]));
  for (int i = 0; i < 12; i++) {
    memcpy(y, x, sizeof(y));
    y[i] = x[i] + h;
    k->element(MFAD_MODE_VALUE, y, v, p, &Ep, gp);
    y[i] = x[i] - h;
    k->element(MFAD_MODE_VALUE, y, v, p, &Em, gm);
    ck_assert_msg(fabs((Ep - Em) / (2 * h) - g[i]) <= 1e-6 * (1 + gmax), "%s type %d: gradient %d is %.12g, FD %.12g", what, type, i, g[i],
                  (Ep - Em) / (2 * h));
  }
  for (int i = 0; i < 12; i++) y[i] = x[i] + h * v[i];
  k->element(MFAD_MODE_GRADIENT, y, v, p, &Ep, gp);
  for (int i = 0; i < 12; i++) y[i] = x[i] - h * v[i];
  k->element(MFAD_MODE_GRADIENT, y, v, p, &Em, gm);
  for (int i = 0; i < 12; i++) {
    double hv = 0;
    ck_assert_msg(fabs((gp[i] - gm[i]) / (2 * h) - Hv[i]) <= 1e-6 * (1 + hmax), "%s type %d: HVP %d is %.12g, FD of gradient %.12g", what, type, i,
                  Hv[i], (gp[i] - gm[i]) / (2 * h));
    for (int j = 0; j < 12; j++) {
      hv += H[12 * i + j] * v[j];
      ck_assert_msg(fabs(H[12 * i + j] - H[12 * j + i]) <= 1e-12 * (1 + Hmax), "%s type %d: Hessian (%d, %d) not symmetric", what, type, i, j);
    }
    ck_assert_msg(fabs(hv - Hv[i]) <= 1e-12 * (1 + Hmax) * 12, "%s type %d: (H v)_%d = %.15g, HVP %.15g", what, type, i, hv, Hv[i]);
  }
}

START_TEST(barrier_derivatives_match_finite_differences_in_every_type)
{
  MfadKernel pt = Find("ipc_point_triangle"), ee = Find("ipc_edge_edge");
  for (int trial = 0; trial < 20; trial++) {
    double x[12], p[4], dmax = 0;
    for (int i = 0; i < 12; i++) x[i] = Uniform(-1, 1);
    for (int t = 0; t < MFAD_PT_NTYPES; t++) dmax = fmax(dmax, mfad_ipc_pt_distance2(t, x));
    for (int t = 0; t < MFAD_PT_NTYPES; t++) {
      /* dhat^2 above every type's distance, so that each type is inside the barrier's support */
      p[0] = t, p[1] = 1.5 * dmax, p[2] = 0.7;
      CheckDerivatives(pt, x, p, "ipc_point_triangle", t);
    }
    dmax = 0;
    for (int t = 0; t < MFAD_EE_NTYPES; t++) dmax = fmax(dmax, mfad_ipc_ee_distance2(t, x));
    for (int t = 0; t < MFAD_EE_NTYPES; t++) {
      double u[3], w[3], c = 0;
      for (int d = 0; d < 3; d++) u[d] = x[3 + d] - x[d], w[d] = x[9 + d] - x[6 + d];
      for (int d = 0; d < 3; d++) {
        const double n = u[(d + 1) % 3] * w[(d + 2) % 3] - u[(d + 2) % 3] * w[(d + 1) % 3];
        c += n * n;
      }
      /* the mollifier active (c < eps_x) in odd trials */
      p[0] = t, p[1] = 1.5 * dmax, p[2] = 0.7, p[3] = trial % 2 ? 1.7 * c : 0.0;
      CheckDerivatives(ee, x, p, "ipc_edge_edge", t);
    }
  }
}
END_TEST

/* ---------------------------------------------------------------- detection */
typedef struct {
  PetscInt v[4], type;
} Pair;

static int PairCompare(const void *a, const void *b)
{
  const Pair *x = (const Pair *)a, *y = (const Pair *)b;
  for (int i = 0; i < 4; i++)
    if (x->v[i] != y->v[i]) return x->v[i] < y->v[i] ? -1 : 1;
  return (x->type > y->type) - (x->type < y->type);
}

static void Gather(const double *X, const PetscInt v[4], double x12[12])
{
  for (int a = 0; a < 4; a++)
    for (int d = 0; d < 3; d++) x12[3 * a + d] = X[3 * v[a] + d];
}

/* every pair within dhat, the brute-force way: all points x all triangles, all edges x all edges */
static PetscInt BruteForce(PetscInt npoint, const PetscInt *point, PetscInt ntri, const PetscInt *tri, PetscInt nedge, const PetscInt *edge,
                           const double *X, double dhat, Pair **out)
{
  PetscInt n = 0, cap = 1024;
  Pair    *P = (Pair *)malloc(cap * sizeof(Pair));
  for (PetscInt i = 0; i < npoint; i++)
    for (PetscInt t = 0; t < ntri; t++) {
      const PetscInt v[4] = {point[i], tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]};
      double         x12[12];
      if (v[0] == v[1] || v[0] == v[2] || v[0] == v[3]) continue;
      Gather(X, v, x12);
      const int type = mfad_ipc_pt_type(x12);
      if (!(mfad_ipc_pt_distance2(type, x12) < dhat * dhat)) continue;
      if (n == cap) P = (Pair *)realloc(P, (cap *= 2) * sizeof(Pair));
      memcpy(P[n].v, v, sizeof(v)), P[n].type = type, n++;
    }
  for (PetscInt i = 0; i < nedge; i++)
    for (PetscInt j = i + 1; j < nedge; j++) {
      const PetscInt v[4] = {edge[2 * i], edge[2 * i + 1], edge[2 * j], edge[2 * j + 1]};
      double         x12[12];
      if (v[0] == v[2] || v[0] == v[3] || v[1] == v[2] || v[1] == v[3]) continue;
      Gather(X, v, x12);
      const int type = mfad_ipc_ee_type(x12);
      if (!(mfad_ipc_ee_distance2(type, x12) < dhat * dhat)) continue;
      if (n == cap) P = (Pair *)realloc(P, (cap *= 2) * sizeof(Pair));
      memcpy(P[n].v, v, sizeof(v)), P[n].type = 100 + type, n++;
    }
  qsort(P, n, sizeof(Pair), PairCompare);
  *out = P;
  return n;
}

/* detection = brute force, pair by pair; and each pair's energy is the barrier of its distance */
static void CompareWithBruteForce(const char *what, PetscInt nv, const double *X, PetscInt ntri, const PetscInt *tri, double dhat, PetscInt *npairs)
{
  MfadContact      C;
  PetscInt         npt, nee, n, nedge, npoint, nb;
  const PetscInt  *cpt, *cee;
  const PetscReal *ppt, *pee;
  Pair            *D, *B;
  PetscInt        *edge, *point;
  MfadKernel       kpt = Find("ipc_point_triangle"), kee = Find("ipc_edge_edge");
  const double     kappa = 3.0;

  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, nv, NULL, ntri, tri, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL));
  TestCall(MfadContactSetBarrier(C, dhat, kappa));
  TestCall(MfadContactDetect(C, X));
  TestCall(MfadContactGetPairs(C, MFAD_CONTACT_POINT_TRIANGLE, &npt, &cpt, &ppt));
  TestCall(MfadContactGetPairs(C, MFAD_CONTACT_EDGE_EDGE, &nee, &cee, &pee));
  n = npt + nee;
  D = (Pair *)malloc((n + 1) * sizeof(Pair));
  for (PetscInt i = 0; i < npt; i++) {
    double x12[12];
    memcpy(D[i].v, &cpt[4 * i], 4 * sizeof(PetscInt)), D[i].type = (PetscInt)ppt[3 * i];
    Gather(X, D[i].v, x12);
    AssertNear("point-triangle pair energy", Value(kpt, x12, &ppt[3 * i]),
               Barrier(mfad_ipc_pt_distance2(mfad_ipc_pt_type(x12), x12), dhat * dhat, kappa), 1e-12 * kappa * pow(dhat, 4) * 50);
  }
  for (PetscInt i = 0; i < nee; i++) {
    double x12[12];
    memcpy(D[npt + i].v, &cee[4 * i], 4 * sizeof(PetscInt)), D[npt + i].type = 100 + (PetscInt)pee[4 * i];
    Gather(X, D[npt + i].v, x12);
    ck_assert_msg(pee[4 * i + 3] == 0.0, "%s: eps_x %g without rest coordinates", what, pee[4 * i + 3]);
    AssertNear("edge-edge pair energy", Value(kee, x12, &pee[4 * i]), Barrier(mfad_ipc_ee_distance2(mfad_ipc_ee_type(x12), x12), dhat * dhat, kappa),
               1e-12 * kappa * pow(dhat, 4) * 50);
  }
  qsort(D, n, sizeof(Pair), PairCompare);
  /* the brute force over the same edges and points (the triangles' edges once, their vertices) */
  edge  = (PetscInt *)malloc(6 * ntri * sizeof(PetscInt));
  point = (PetscInt *)calloc(nv, sizeof(PetscInt));
  nedge = 0;
  for (PetscInt t = 0; t < ntri; t++)
    for (int a = 0; a < 3; a++) {
      const PetscInt u = tri[3 * t + a], w = tri[3 * t + (a + 1) % 3], lo = u < w ? u : w, hi = u < w ? w : u;
      PetscBool      seen = PETSC_FALSE;
      point[u]            = 1;
      for (PetscInt f = 0; f < t && !seen; f++) /* an earlier triangle with this edge */
        for (int b = 0; b < 3; b++) {
          const PetscInt u2 = tri[3 * f + b], w2 = tri[3 * f + (b + 1) % 3];
          if ((u2 == lo && w2 == hi) || (u2 == hi && w2 == lo)) seen = PETSC_TRUE;
        }
      if (!seen) edge[2 * nedge] = lo, edge[2 * nedge + 1] = hi, nedge++;
    }
  npoint = 0;
  for (PetscInt v = 0; v < nv; v++)
    if (point[v]) point[npoint++] = v;
  /* edge pairs are (i < j) in edge order: reorder ours to the detector's (sorted) edge order */
  {
    typedef struct {
      PetscInt a, b;
    } E2;
    E2 *es = (E2 *)edge;
    for (PetscInt i = 1; i < nedge; i++)
      for (PetscInt j = i; j > 0 && (es[j - 1].a > es[j].a || (es[j - 1].a == es[j].a && es[j - 1].b > es[j].b)); j--) {
        E2 tmp    = es[j];
        es[j]     = es[j - 1];
        es[j - 1] = tmp;
      }
  }
  nb = BruteForce(npoint, point, ntri, tri, nedge, edge, X, dhat, &B);
  ck_assert_msg(nb == n, "%s: %d pairs detected, brute force finds %d", what, (int)n, (int)nb);
  for (PetscInt i = 0; i < n; i++)
    ck_assert_msg(!PairCompare(&D[i], &B[i]), "%s: pair %d: detected (%d %d %d %d) type %d, brute force (%d %d %d %d) type %d", what, (int)i,
                  (int)D[i].v[0], (int)D[i].v[1], (int)D[i].v[2], (int)D[i].v[3], (int)D[i].type, (int)B[i].v[0], (int)B[i].v[1], (int)B[i].v[2],
                  (int)B[i].v[3], (int)B[i].type);
  *npairs = n;
  free(D), free(B), free(edge), free(point);
  TestCall(MfadContactDestroy(&C));
}

/* ntri small random triangles (size ~ s) in the unit cube, 3 vertices each */
static void Soup(PetscInt ntri, double s, double **X, PetscInt **tri)
{
  *X   = (double *)malloc(9 * ntri * sizeof(double));
  *tri = (PetscInt *)malloc(3 * ntri * sizeof(PetscInt));
  for (PetscInt t = 0; t < ntri; t++) {
    double c[3];
    for (int d = 0; d < 3; d++) c[d] = Uniform(0, 1);
    for (int a = 0; a < 3; a++) {
      (*tri)[3 * t + a] = 3 * t + a;
      for (int d = 0; d < 3; d++) (*X)[9 * t + 3 * a + d] = c[d] + Uniform(-s, s);
    }
  }
}

START_TEST(detection_matches_brute_force_on_a_random_soup)
{
  double   *X;
  PetscInt *tri, n;
  Soup(400, 0.06, &X, &tri);
  CompareWithBruteForce("random soup", 1200, X, 400, tri, 0.04, &n);
  ck_assert_msg(n > 50, "random soup: only %d pairs within dhat: the test is too easy", (int)n);
  free(X), free(tri);
}
END_TEST

START_TEST(detection_matches_brute_force_on_spot)
{
  MfadMesh m;
  PetscInt n;
  double   l = 0.0;
  TestCall(MfadMeshReadOBJ(MFAD_TEST_MESHES "/spot.obj", &m));
  for (PetscInt t = 0; t < m->ncell; t++) l += sqrt(mfad_ipc_pp2(&m->coords[3 * m->cells[3 * t]], &m->coords[3 * m->cells[3 * t + 1]]));
  l /= m->ncell;
  /* dhat = the mean edge length: pairs between 2-ring neighbours and across thin parts (ears, legs) */
  CompareWithBruteForce("spot.obj", m->nvert, m->coords, m->ncell, m->cells, l, &n);
  ck_assert_msg(n > 1000, "spot.obj: only %d pairs within the mean edge length", (int)n);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

START_TEST(detection_is_the_same_on_any_thread_count)
{
  /* threads take contiguous bucket ranges and the pairs are concatenated in bucket order: the
     same pairs in the same order whatever the count (Spot: ~60k grid entries, threaded) */
  MfadMesh    m;
  MfadContact C;
  PetscInt    n[2][2];
  PetscInt   *conn[2][2];
  PetscReal  *par[2][2], a[2];
  const int   nthr[2] = {1, 3};
  double     *dX;
  TestCall(MfadMeshReadOBJ(MFAD_TEST_MESHES "/spot.obj", &m));
  dX = (double *)malloc(3 * m->nvert * sizeof(double));
  for (PetscInt i = 0; i < 3 * m->nvert; i++) dX[i] = Uniform(-0.05, 0.05);
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, m->nvert, NULL, m->ncell, m->cells, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL));
  TestCall(MfadContactSetBarrier(C, 0.05, 1.0));
  for (int r = 0; r < 2; r++) {
    omp_set_num_threads(nthr[r]);
    TestCall(MfadContactDetect(C, m->coords));
    TestCall(MfadContactStepBound(C, m->coords, dX, &a[r]));
    for (int kind = 0; kind < 2; kind++) {
      const PetscInt  *c;
      const PetscReal *p;
      const PetscInt   np = kind ? MFAD_IPC_EE_PARAMS : MFAD_IPC_PT_PARAMS;
      TestCall(MfadContactGetPairs(C, kind ? MFAD_CONTACT_EDGE_EDGE : MFAD_CONTACT_POINT_TRIANGLE, &n[r][kind], &c, &p));
      conn[r][kind] = (PetscInt *)malloc((4 * n[r][kind] + 1) * sizeof(PetscInt));
      par[r][kind]  = (PetscReal *)malloc((np * n[r][kind] + 1) * sizeof(PetscReal));
      memcpy(conn[r][kind], c, 4 * n[r][kind] * sizeof(PetscInt));
      memcpy(par[r][kind], p, np * n[r][kind] * sizeof(PetscReal));
    }
  }
  for (int kind = 0; kind < 2; kind++) {
    const PetscInt np = kind ? MFAD_IPC_EE_PARAMS : MFAD_IPC_PT_PARAMS;
    ck_assert_msg(n[0][kind] == n[1][kind] && n[0][kind] > 100, "kind %d: %d pairs on 1 thread, %d on 3", kind, (int)n[0][kind], (int)n[1][kind]);
    ck_assert_msg(!memcmp(conn[0][kind], conn[1][kind], 4 * n[0][kind] * sizeof(PetscInt)) &&
                      !memcmp(par[0][kind], par[1][kind], np * n[0][kind] * sizeof(PetscReal)),
                  "kind %d: pairs differ between 1 and 3 threads", kind);
    free(conn[0][kind]), free(conn[1][kind]), free(par[0][kind]), free(par[1][kind]);
  }
  ck_assert_msg(a[0] == a[1] && a[0] < 1.0, "step bound %.17g on 1 thread, %.17g on 3", a[0], a[1]);
  TestCall(MfadContactDestroy(&C));
  TestCall(MfadMeshDestroy(&m));
  free(dX);
}
END_TEST

START_TEST(mollifier_threshold_comes_from_rest_lengths)
{
  /* two crossing edges (a triangle each, far apart otherwise): eps_x = 1e-3 |a|^2 |b|^2 at rest */
  const double     X[18]  = {-1, 0, 0, 1, 0, 0, 0, 5, 5, 0, -1, 0.1, 0, 1, 0.1, 5, 5, 5};
  const PetscInt   tri[6] = {0, 1, 2, 3, 4, 5}, edge[4] = {0, 1, 3, 4};
  MfadContact      C;
  PetscInt         n;
  const PetscReal *par;
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, 6, NULL, 2, tri, 2, edge, 0, NULL));
  TestCall(MfadContactSetBarrier(C, 0.2, 1.0));
  TestCall(MfadContactSetRestCoordinates(C, X));
  TestCall(MfadContactDetect(C, X));
  TestCall(MfadContactGetPairs(C, MFAD_CONTACT_EDGE_EDGE, &n, NULL, &par));
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq((int)par[0], MFAD_EE_A_B);
  AssertNear("eps_x", par[3], 1e-3 * 4 * 4, 1e-15);
  AssertNear("dhat^2", par[1], 0.04, 1e-17);
  TestCall(MfadContactDestroy(&C));
}
END_TEST

/* the pairs go into an energy as they are: two terms (MfadEnergyAddTerm with the kernels of their
   kind); its gradient matches central differences of its objective and its fused HVP central
   differences of its gradient, along a random direction. The soup has pairs at any distance (down
   to ~1e-4 here), where the barrier's derivatives grow like powers of 1 / distance: the FD step is
   1e-4 of the smallest distance, so truncation is O(1e-8) relative and round-off
   eps |g| / h ~ eps |Hv| dmin / h = 1e-12 |Hv|; bound 1e-6 (1 + |.|). The mollifier is on: it is
   C1 at c = eps_x (as IPC's), a kink a stencil of this width meets with negligible chance. */
START_TEST(detected_pairs_make_an_energy_with_consistent_derivatives)
{
  double          *X, f0, fp, fm, h, dmin;
  PetscScalar      gv;
  PetscInt        *tri, npt, nee, ntri = 200, nv = 600;
  const PetscInt  *cpt, *cee;
  const PetscReal *ppt, *pee;
  MfadContact      C;
  MfadEnergy       E;
  Vec              Xv, V, G, Gp, Gm, Y, T;
  PetscScalar     *xa;
  PetscReal        gmax, err;
  Soup(ntri, 0.06, &X, &tri);
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, nv, NULL, ntri, tri, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL));
  TestCall(MfadContactSetBarrier(C, 0.05, 1.0));
  TestCall(MfadContactSetRestCoordinates(C, X)); /* the mollifier on */
  TestCall(MfadContactDetect(C, X));
  TestCall(MfadContactGetMinimumDistance(C, &dmin));
  h = 1e-4 * dmin; /* |v_i| <= 1: the step is 1e-4 of the closest pair's gap */
  TestCall(MfadContactGetPairs(C, MFAD_CONTACT_POINT_TRIANGLE, &npt, &cpt, &ppt));
  TestCall(MfadContactGetPairs(C, MFAD_CONTACT_EDGE_EDGE, &nee, &cee, &pee));
  ck_assert_msg(npt > 10 && nee > 10, "random soup: %d point-triangle and %d edge-edge pairs: too few", (int)npt, (int)nee);
  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, nv, nv, &E));
  TestCall(MfadEnergyAddTerm(E, Find("ipc_point_triangle"), npt, cpt, ppt, 1.0, NULL));
  TestCall(MfadEnergyAddTerm(E, Find("ipc_edge_edge"), nee, cee, pee, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &Xv, &G));
  TestCall(VecDuplicate(Xv, &V));
  TestCall(VecDuplicate(Xv, &Gp));
  TestCall(VecDuplicate(Xv, &Gm));
  TestCall(VecDuplicate(Xv, &Y));
  TestCall(VecDuplicate(Xv, &T));
  TestCall(VecGetArray(Xv, &xa));
  for (PetscInt i = 0; i < 3 * nv; i++) xa[i] = X[i];
  TestCall(VecRestoreArray(Xv, &xa));
  TestCall(VecGetArray(V, &xa));
  for (PetscInt i = 0; i < 3 * nv; i++) xa[i] = Uniform(-1, 1);
  TestCall(VecRestoreArray(V, &xa));
  TestCall(MfadEnergyComputeObjectiveGradient(E, Xv, &f0, G));
  ck_assert_msg(isfinite(f0) && f0 > 0, "energy of the detected pairs: %g, expected in (0, inf)", f0);
  TestCall(VecDot(G, V, &gv));
  TestCall(VecWAXPY(T, h, V, Xv));
  TestCall(MfadEnergyComputeObjective(E, T, &fp));
  TestCall(MfadEnergyComputeGradient(E, T, Gp));
  TestCall(VecWAXPY(T, -h, V, Xv));
  TestCall(MfadEnergyComputeObjective(E, T, &fm));
  TestCall(MfadEnergyComputeGradient(E, T, Gm));
  AssertNear("directional derivative vs FD of the objective", gv, (fp - fm) / (2 * h), 1e-6 * (1 + fabs(gv)));
  TestCall(MfadEnergyComputeHessianProduct(E, Xv, V, Y));
  TestCall(VecAXPY(Gp, -1.0, Gm));
  TestCall(VecScale(Gp, 1.0 / (2 * h)));
  TestCall(VecNorm(Y, NORM_INFINITY, &gmax));
  TestCall(VecAXPY(Gp, -1.0, Y));
  TestCall(VecNorm(Gp, NORM_INFINITY, &err));
  ck_assert_msg(err <= 1e-6 * (1 + gmax), "HVP vs FD of the gradient: error %g > %g (max |Hv| %g)", err, 1e-6 * (1 + gmax), gmax);
  TestCall(VecDestroy(&Xv));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&G));
  TestCall(VecDestroy(&Gp));
  TestCall(VecDestroy(&Gm));
  TestCall(VecDestroy(&Y));
  TestCall(VecDestroy(&T));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(MfadContactDestroy(&C));
  free(X), free(tri);
}
END_TEST

/* ---------------------------------------------------------------- step bound */
static double StepBound(PetscInt nv, const double *X, const double *dX, PetscInt ntri, const PetscInt *tri, PetscInt nedge, const PetscInt *edge)
{
  MfadContact C;
  PetscReal   a;
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, nv, NULL, ntri, tri, nedge, edge, PETSC_DETERMINE, NULL));
  TestCall(MfadContactStepBound(C, X, dX, &a));
  TestCall(MfadContactDestroy(&C));
  return a;
}

START_TEST(step_bound_stops_before_crossing_and_is_one_when_free)
{
  /* triangle at z = 0, a lone point (as a degenerate "edge" owner: given as a point only) */
  const double   X[12]  = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 1.0};
  const PetscInt tri[3] = {0, 1, 2};
  double         dX[12] = {0}, a;
  MfadContact    C;
  const PetscInt pts[1] = {3};
  PetscReal      al;
  /* the point alone: give it as a point explicitly */
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(MfadContactSetSurface(C, 4, NULL, 1, tri, 0, NULL, 1, pts));
  dX[11] = -2.0; /* crosses z = 0 at t = 0.5 */
  TestCall(MfadContactStepBound(C, X, dX, &al));
  ck_assert_msg(al > 0.25 && al < 0.5, "point through a triangle at t = 0.5: bound %g, expected in (0.25, 0.5)", al);
  dX[11] = 0.0, dX[9] = 3.0; /* sideways at height 1: never meets */
  TestCall(MfadContactStepBound(C, X, dX, &al));
  ck_assert_msg(al == 1.0, "point moving parallel to the triangle: bound %g, expected 1", al);
  dX[9] = 0.0, dX[11] = 5.0; /* away */
  TestCall(MfadContactStepBound(C, X, dX, &al));
  ck_assert_msg(al == 1.0, "point moving away: bound %g, expected 1", al);
  dX[11] = -2.0, dX[3] = dX[6] = 0.0, dX[2] = dX[5] = dX[8] = -2.0; /* the triangle moves with the point */
  TestCall(MfadContactStepBound(C, X, dX, &al));
  ck_assert_msg(al == 1.0, "point and triangle translating together: bound %g, expected 1", al);
  TestCall(MfadContactDestroy(&C));
  {
    /* edge b (along y at z = 1) falls through edge a (along x at z = 0) at t = 0.25 */
    const double   Y[12]  = {-1, 0, 0, 1, 0, 0, 0, -1, 1, 0, 1, 1};
    const PetscInt e[4]   = {0, 1, 2, 3};
    double         dY[12] = {0};
    dY[8] = dY[11] = -4.0;
    a              = StepBound(4, Y, dY, 0, NULL, 2, e);
    ck_assert_msg(a > 0.125 && a < 0.25, "edge through an edge at t = 0.25: bound %g, expected in (0.125, 0.25)", a);
    dY[8] = dY[11] = 0.0, dY[6] = dY[9] = 5.0; /* slides along x at height 1 */
    a = StepBound(4, Y, dY, 0, NULL, 2, e);
    ck_assert_msg(a == 1.0, "edge sliding above an edge: bound %g, expected 1", a);
  }
}
END_TEST

/* p(t) crosses the triangle's plane inside the triangle between samples t0 < t1 (linear motion) */
static PetscBool Crosses(const double x0[12], const double dx[12], double t0, double t1)
{
  double y0[12], y1[12], s0, s1, q[12];
  for (int i = 0; i < 12; i++) y0[i] = x0[i] + t0 * dx[i], y1[i] = x0[i] + t1 * dx[i];
    /* signed volume of (p - a, b - a, c - a) */
#define VOL(y) \
  ((y[0] - y[3]) * ((y[7] - y[4]) * (y[11] - y[5]) - (y[8] - y[5]) * (y[10] - y[4])) - \
   (y[1] - y[4]) * ((y[6] - y[3]) * (y[11] - y[5]) - (y[8] - y[5]) * (y[9] - y[3])) + \
   (y[2] - y[5]) * ((y[6] - y[3]) * (y[10] - y[4]) - (y[7] - y[4]) * (y[9] - y[3])))
  s0 = VOL(y0), s1 = VOL(y1);
#undef VOL
  if (s0 * s1 > 0) return PETSC_FALSE;
  /* at the crossing (linear interpolation of the samples) the point projects inside */
  const double w = s0 == s1 ? 0.0 : s0 / (s0 - s1);
  for (int i = 0; i < 12; i++) q[i] = y0[i] + w * (y1[i] - y0[i]);
  return (PetscBool)(mfad_ipc_pt_type(q) == MFAD_PT_P_T);
}

START_TEST(step_bound_on_a_random_soup_never_lets_a_point_through)
{
  double   *X, *dX;
  PetscInt *tri, ntri = 150, nv = 450;
  double    a, dmin = INFINITY;
  Soup(ntri, 0.08, &X, &tri);
  dX = (double *)malloc(3 * nv * sizeof(double));
  for (PetscInt i = 0; i < 3 * nv; i++) dX[i] = Uniform(-0.15, 0.15);
  a = StepBound(nv, X, dX, ntri, tri, PETSC_DETERMINE, NULL);
  ck_assert_msg(a > 0.0 && a <= 1.0, "random soup: bound %g", a);
  for (PetscInt i = 0; i < nv; i++)
    for (PetscInt t = 0; t < ntri; t++) {
      const PetscInt v[4] = {i, tri[3 * t], tri[3 * t + 1], tri[3 * t + 2]};
      double         x12[12], d12[12], y[12];
      if (i / 3 == t) continue;
      Gather(X, v, x12), Gather(dX, v, d12);
      /* one assertion per pair, not per sub-interval: check's bookkeeping of 6.75 M assertions took
         2 minutes under the sanitizers */
      int k = 0;
      while (k < 100 && !Crosses(x12, d12, a * k / 100.0, a * (k + 1) / 100.0)) k++;
      ck_assert_msg(k == 100, "random soup: point %d crosses triangle %d before the bound %g (sub-interval %d of 100)", (int)i, (int)t, a, k);
      for (int j = 0; j < 12; j++) y[j] = x12[j] + a * d12[j];
      dmin = fmin(dmin, mfad_ipc_pt_distance2(mfad_ipc_pt_type(y), y));
    }
  ck_assert_msg(dmin > 0.0, "random soup: a point touches a triangle at the bound (distance^2 %g)", dmin);
  free(X), free(dX), free(tri);
}
END_TEST

/* ---------------------------------------------------------------- bad input */
START_TEST(bad_input_is_a_clear_error)
{
  const PetscInt tri[6] = {0, 1, 2, 1, 2, 7}, neg = -1;
  double         X[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.2, 0.2, 0.1}, dX[12] = {0};
  MfadContact    C;
  PetscErrorCode ierr;
  PetscReal      a;
  TestCall(MfadContactCreate(PETSC_COMM_SELF, &C));
  TestCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadContactSetSurface(C, 4, NULL, 2, tri, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL);
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(err_msg, "triangle 1 has vertex 7"), "vertex id out of range: error %d '%s'", (int)ierr,
                err_msg);
  ierr = MfadContactSetSurface(C, 4, NULL, -2, tri, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL);
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(err_msg, "triangle count -2"), "negative count: error %d '%s'", (int)ierr, err_msg);
  ierr = MfadContactSetSurface(C, 4, NULL, 1, tri, 1, tri, 1, &neg);
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(err_msg, "point 0 is vertex -1"), "negative point id: error %d '%s'", (int)ierr, err_msg);
  ierr = MfadContactDetect(C, X);
  ck_assert_msg(ierr == PETSC_ERR_ORDER, "detection without a surface: error %d '%s'", (int)ierr, err_msg);
  TestCall(MfadContactSetSurface(C, 4, NULL, 1, tri, PETSC_DETERMINE, NULL, PETSC_DETERMINE, NULL));
  ierr = MfadContactDetect(C, X);
  ck_assert_msg(ierr == PETSC_ERR_ORDER && strstr(err_msg, "MfadContactSetBarrier"), "detection without dhat: error %d '%s'", (int)ierr, err_msg);
  ierr = MfadContactSetBarrier(C, NAN, 1.0);
  ck_assert_msg(ierr == PETSC_ERR_ARG_OUTOFRANGE && strstr(err_msg, "dhat"), "NaN dhat: error %d '%s'", (int)ierr, err_msg);
  TestCall(MfadContactSetBarrier(C, 0.5, 1.0));
  X[10] = NAN;
  ierr  = MfadContactDetect(C, X);
  ck_assert_msg(ierr == PETSC_ERR_FP && strstr(err_msg, "vertex 3") && strstr(err_msg, "component 1"), "NaN coordinate: error %d '%s'", (int)ierr,
                err_msg);
  X[10] = 0.2;
  dX[2] = INFINITY;
  ierr  = MfadContactStepBound(C, X, dX, &a);
  ck_assert_msg(ierr == PETSC_ERR_FP && strstr(err_msg, "step of vertex 0"), "infinite step: error %d '%s'", (int)ierr, err_msg);
  TestCall(PetscPopErrorHandler());
  TestCall(MfadContactDetect(C, X)); /* still usable */
  TestCall(MfadContactDestroy(&C));
  ck_assert_msg(C == NULL, "MfadContactDestroy did not clear the handle");
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("contact");
  TCase   *tc = tcase_create("contact");
  SRunner *sr;
  int      nfail;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, barrier_energies_match_closed_forms);
  tcase_add_test(tc, barrier_derivatives_match_finite_differences_in_every_type);
  tcase_add_test(tc, detection_matches_brute_force_on_a_random_soup);
  tcase_add_test(tc, detection_matches_brute_force_on_spot);
  tcase_add_test(tc, detection_is_the_same_on_any_thread_count);
  tcase_add_test(tc, mollifier_threshold_comes_from_rest_lengths);
  tcase_add_test(tc, detected_pairs_make_an_energy_with_consistent_derivatives);
  tcase_add_test(tc, step_bound_stops_before_crossing_and_is_one_when_free);
  tcase_add_test(tc, step_bound_on_a_random_soup_never_lets_a_point_through);
  tcase_add_test(tc, bad_input_is_a_clear_error);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
