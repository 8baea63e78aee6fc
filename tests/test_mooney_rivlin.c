// SPDX-License-Identifier: BSD-2-Clause
/* The build-time yardstick tests/energies/mooney_rivlin_tet.c (a feature-less 12-unknown tet, built
   by mfad_add_energy as a user's energy is: tests/buildtime.cmake) is still right in every mode,
   whichever translation units its modes are compiled in:
   - element by element on random valid tets: the gradient against central differences of the
     value, the Hessian symmetric, the HVP against H v, the diagonal against diag(H);
   - on a mesh of 3 tets sharing vertices, through the kernel's CPU loops (those a solve calls):
     the gradient loop against central differences of the value loop, the HVP loop against the
     Hessian loop's element Hessians assembled, the diagonal and block-diagonal loops against that
     assembled Hessian's diagonal and vertex blocks.
   Tolerances as in test_kernels.c: O(1) geometry, h = 6e-6 (truncation ~ h^2/6 |f'''|, rounding
   eps |f| / h ~ 4e-11): 1e-7 relative to the compared vector; products of exact derivatives:
   1e-12 relative; symmetry 1e-13 relative to max |H_ij|. */
#include <check.h>
#include <math.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* the kernel's element function and CPU loops (machinery) */
#include <mfad/impl/kernel.h>

MFAD_KERNEL_DECLARE(mooney_rivlin_tet);

#define N      12
#define NP     13
#define NTRIAL 6
#define FD_H   6.0e-6
#define NV     6 /* mesh vertices */
#define NE     3 /* mesh tets */

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

static double MaxAbs(const double *a, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

static void AssertClose(const char *what, int trial, const double *got, const double *want, int n, double tol)
{
  const double s = fmax(MaxAbs(want, n), 1e-300);
  for (int i = 0; i < n; i++)
    ck_assert_msg(fabs(got[i] - want[i]) <= tol * s, "mooney_rivlin_tet trial %d, %s entry %d: %.17g, expected %.17g (tolerance %g relative to %g)",
                  trial, what, i, got[i], want[i], tol, s);
}

/* material c10, c01, kappa and a deformed shape of a rest tet near the unit simplex */
static const double Simplex[4][3] = {
    {0, 0, 0},
    {1, 0, 0},
    {0, 1, 0},
    {0, 0, 1}
};

static double Element(MfadMode m, const double *x, const double *v, const double *p, double *out)
{
  double E;
  MFAD_KERNEL(mooney_rivlin_tet)->element(m, x, v, p, &E, out);
  return E;
}

START_TEST(test_element)
{
  MfadKernel k = MFAD_KERNEL(mooney_rivlin_tet);
  ck_assert_int_eq(k->nvert * k->dof, N);
  ck_assert_int_eq(k->nparam, NP);
  /* feature-less, as a new user writes it: reverse mode at its 12 unknowns */
  ck_assert_msg(k->nfeat == 0 && k->reverse == 1, "the yardstick must stay feature-less and reversed (nfeat %d, reverse %d)", k->nfeat, k->reverse);
  for (int t = 0; t < NTRIAL; t++) {
    double r[12], mat[3], p[NP], x[N], v[N], g[N], gfd[N], H[N * N], Hv[N], hv[N], dg[N], dH[N];
    Rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(t + 1) * 0xBF58476D1CE4E5B9ULL;
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) r[3 * a + d] = Simplex[a][d] + Uniform(-0.05, 0.05);
    for (int i = 0; i < 3; i++) mat[i] = Uniform(0.5, 2.0);
    ck_assert_int_eq(k->rest(r, mat, p), 0);
    const double s = Uniform(0.8, 1.2);
    for (int i = 0; i < N; i++) x[i] = s * r[i] + Uniform(-0.05, 0.05), v[i] = Uniform(-1, 1);
    const double E = Element(MFAD_MODE_VALUE, x, v, p, NULL);
    ck_assert_msg(isfinite(E), "trial %d: value %g of a valid element", t, E);
    ck_assert_double_eq_tol(Element(MFAD_MODE_GRADIENT, x, v, p, g), E, 1e-13 * fabs(E));
    for (int i = 0; i < N; i++) {
      double xp[N], xm[N];
      memcpy(xp, x, sizeof(xp)), memcpy(xm, x, sizeof(xm));
      xp[i] += FD_H, xm[i] -= FD_H;
      gfd[i] = (Element(MFAD_MODE_VALUE, xp, v, p, NULL) - Element(MFAD_MODE_VALUE, xm, v, p, NULL)) / (2 * FD_H);
    }
    AssertClose("gradient against central differences", t, g, gfd, N, 1e-7);
    (void)Element(MFAD_MODE_HESSIAN, x, v, p, H);
    const double hs = MaxAbs(H, N * N);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < i; j++)
        ck_assert_msg(fabs(H[i * N + j] - H[j * N + i]) <= 1e-13 * hs, "trial %d: H[%d][%d] = %.17g but H[%d][%d] = %.17g", t, i, j, H[i * N + j], j,
                      i, H[j * N + i]);
    for (int i = 0; i < N; i++) {
      Hv[i] = 0.0;
      for (int j = 0; j < N; j++) Hv[i] += H[i * N + j] * v[j];
      dH[i] = H[i * N + i];
    }
    (void)Element(MFAD_MODE_HVP, x, v, p, hv);
    AssertClose("HVP against H v", t, hv, Hv, N, 1e-12);
    (void)Element(MFAD_MODE_DIAGONAL, x, v, p, dg);
    AssertClose("diagonal against diag(H)", t, dg, dH, N, 1e-12);
    for (int d = 0; d < 3; d++) { /* vertices 1 and 2 swapped: inverted, J < 0 */
      const double tmp = x[3 + d];
      x[3 + d]         = x[6 + d];
      x[6 + d]         = tmp;
    }
    ck_assert_msg(isinf(Element(MFAD_MODE_VALUE, x, v, p, NULL)), "trial %d: an inverted element must have E = +inf", t);
  }
}
END_TEST

/* 3 tets around the edge 0-1 sharing faces; the kernel's CPU loops, serial (one block, one colour) */
static const int    Conn[NE * 4] = {0, 1, 2, 5, 0, 1, 5, 3, 0, 1, 3, 4};
static const double Rest[NV][3]  = {
     {0,    0,    0  },
     {0,    0,    1  },
     {1,    0,    0.1},
     {-0.5, 0.9,  0  },
     {-0.5, -0.9, 0.1},
     {0.4,  0.8,  0.5}
};

typedef struct {
  double   p[NE * NP], x[NV * 3], v[NV * 3], y[NE * N * N], bv[1];
  int      bs[2], cs[2], cb[1];
  MfadLoop L;
} Mesh;

static void MeshSetUp(Mesh *m)
{
  MfadKernel k = MFAD_KERNEL(mooney_rivlin_tet);
  memset(m, 0, sizeof(*m));
  Rng = 0x2545F4914F6CDD1DULL;
  for (int e = 0; e < NE; e++) {
    double r[12], mat[3] = {0.7, 0.4, 3.0};
    for (int a = 0; a < 4; a++)
      for (int d = 0; d < 3; d++) r[3 * a + d] = Rest[Conn[4 * e + a]][d];
    ck_assert_msg(k->rest(r, mat, &m->p[e * NP]) == 0, "mesh tet %d: rest set-up refused it (orientation?)", e);
  }
  for (int i = 0; i < NV * 3; i++) m->x[i] = 1.1 * Rest[i / 3][i % 3] + Uniform(-0.05, 0.05), m->v[i] = Uniform(-1, 1);
  m->bs[1] = NE, m->cs[1] = 1, m->cb[0] = 0;
  m->L = (MfadLoop){.nelem        = NE,
                    .conn         = Conn,
                    .params       = m->p,
                    .weight       = 1.5,
                    .x            = m->x,
                    .v            = m->v,
                    .y            = m->y,
                    .block_value  = m->bv,
                    .nblocks      = 1,
                    .ncolors      = 1,
                    .block_start  = m->bs,
                    .color_start  = m->cs,
                    .color_blocks = m->cb,
                    .nthreads     = 1};
}

static double LoopValue(Mesh *m, const double *x)
{
  MfadLoop L = m->L;
  L.x        = x;
  MFAD_KERNEL(mooney_rivlin_tet)->cpu_value(&L);
  return m->bv[0];
}

START_TEST(test_mesh_loops)
{
  MfadKernel k = MFAD_KERNEL(mooney_rivlin_tet);
  Mesh       m;
  double     g[NV * 3] = {0}, gfd[NV * 3], hv[NV * 3] = {0}, Hv[NV * 3] = {0}, dg[NV * 3] = {0}, dH[NV * 3], bd[NV * 9] = {0}, bH[NV * 9];
  double     H[NV * 3 * NV * 3] = {0};
  MeshSetUp(&m);
  const double E = LoopValue(&m, m.x);
  m.L.y          = g;
  k->cpu_gradient(&m.L);
  ck_assert_double_eq_tol(m.bv[0], E, 1e-13 * fabs(E));
  for (int i = 0; i < NV * 3; i++) {
    double xp[NV * 3], xm[NV * 3];
    memcpy(xp, m.x, sizeof(xp)), memcpy(xm, m.x, sizeof(xm));
    xp[i] += FD_H, xm[i] -= FD_H;
    gfd[i] = (LoopValue(&m, xp) - LoopValue(&m, xm)) / (2 * FD_H);
  }
  AssertClose("mesh gradient loop against central differences of the value loop", -1, g, gfd, NV * 3, 1e-7);
  m.L.y = m.y;
  k->cpu_hessian(&m.L);
  ck_assert_double_eq_tol(m.bv[0], E, 1e-13 * fabs(E));
  for (int e = 0; e < NE; e++) /* assemble the weighted element Hessians */
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) H[(Conn[4 * e + i / 3] * 3 + i % 3) * NV * 3 + Conn[4 * e + j / 3] * 3 + j % 3] += m.y[(e * N + i) * N + j];
  for (int i = 0; i < NV * 3; i++) {
    for (int j = 0; j < NV * 3; j++) Hv[i] += H[i * NV * 3 + j] * m.v[j];
    dH[i] = H[i * NV * 3 + i];
  }
  for (int a = 0; a < NV; a++)
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) bH[9 * a + 3 * i + j] = H[(3 * a + i) * NV * 3 + 3 * a + j];
  m.L.y = hv;
  k->cpu_hvp(&m.L);
  AssertClose("mesh HVP loop against the assembled Hessian times v", -1, hv, Hv, NV * 3, 1e-12);
  m.L.y = dg;
  k->cpu_diagonal(&m.L);
  AssertClose("mesh diagonal loop against the assembled Hessian's diagonal", -1, dg, dH, NV * 3, 1e-12);
  m.L.y = bd;
  k->cpu_blockdiag(&m.L);
  AssertClose("mesh block-diagonal loop against the assembled Hessian's vertex blocks", -1, bd, bH, NV * 9, 1e-12);
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("mooney_rivlin");
  TCase   *tc = tcase_create("modes");
  SRunner *sr;
  int      nf;
  tcase_add_test(tc, test_element);
  tcase_add_test(tc, test_mesh_loops);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? 1 : 0;
}
