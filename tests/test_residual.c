// SPDX-License-Identifier: BSD-2-Clause
/* Residual kernels through mfad-energy (tests/energies/res_lsq.c, least squares, m = 5, N = 6;
   tests/energies/res_sys.c, a system, m = N = 3): in every mode the value equals the plain C
   function; the JVP and every column of the element Jacobian match central differences; the JVP,
   VJP and Gauss-Newton product equal the element Jacobian's products; and the kernel's scalar
   entry points are what its sum says (least squares: 1/2 |r|^2, J^T r, J^T J v, J^T J; system: r,
   J v, J). Tolerances: central differences with h = 6e-6 on O(1) inputs, 1e-7 relative; exact
   against exact, 1e-12 relative (the same numbers summed in another order). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <mfad.h>
#include "energies/res_lsq.c" /* res_lsq(), res_sys(): the residuals as the C compiler sees them */
#include "energies/res_sys.c"

MFAD_KERNEL_DECLARE(res_lsq);
MFAD_KERNEL_DECLARE(res_sys);

#define MAXN   6
#define NTRIAL 6
#define FD_H   6.0e-6

typedef struct {
  MfadKernel k;
  void (*plain)(const double *, const double *, double *);
  double p[8];
} Case;

static Case Cases[2];

static void Setup(void)
{
  Cases[0] = (Case){
      MFAD_KERNEL(res_lsq), res_lsq, {1.1, 0.9, 1.3, 0.4}
  };
  Cases[1] = (Case){
      MFAD_KERNEL(res_sys), res_sys, {0.1, -0.2, 1.2, 0.1, 0.3, 0.9, 2.0, -1.5}
  };
}

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

static void Point(int trial, int n, int m, double x[MAXN], double v[MAXN], double w[MAXN])
{
  const double tri[6] = {0, 0, 1, 0, 0.2, 0.9};
  Rng                 = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(trial + 1) * 0xBF58476D1CE4E5B9ULL;
  for (int i = 0; i < n; i++) x[i] = (n == 6 ? tri[i] : 0.0) + Uniform(-0.3, 0.3), v[i] = Uniform(-1, 1);
  for (int i = 0; i < m; i++) w[i] = Uniform(-1, 1);
}

static void AssertClose(int t, const char *k, const char *what, const double *a, const double *b, int n, double rtol)
{
  double scale = 0.0, err = 0.0;
  int    at = 0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > err) err = fabs(a[i] - b[i]), at = i;
  ck_assert_msg(err <= rtol * fmax(scale, 1e-300), "%s trial %d: %s: entry %d %.17g vs %.17g, error %.3g > bound %.3g", k, t, what, at, a[at], b[at],
                err, rtol * scale);
}

/* the element Jacobian by central differences of the plain C residual */
static void FDJacobian(const Case *c, const double *x, int n, int m, double *J)
{
  for (int j = 0; j < n; j++) {
    double xp[MAXN], xm[MAXN], rp[MAXN], rm[MAXN];
    for (int i = 0; i < n; i++) xp[i] = xm[i] = x[i];
    xp[j] += FD_H, xm[j] -= FD_H;
    c->plain(xp, c->p, rp);
    c->plain(xm, c->p, rm);
    for (int i = 0; i < m; i++) J[i * n + j] = (rp[i] - rm[i]) / (2 * FD_H);
  }
}

START_TEST(kernel_describes_its_outputs_and_sum)
{
  ck_assert_int_eq(MFAD_KERNEL(res_lsq)->nout, 5);
  ck_assert_int_eq(MFAD_KERNEL(res_lsq)->sum, MFAD_SUM_LEAST_SQUARES);
  ck_assert_int_eq(MFAD_KERNEL(res_sys)->nout, 3);
  ck_assert_int_eq(MFAD_KERNEL(res_sys)->sum, MFAD_SUM_SYSTEM);
  ck_assert_ptr_nonnull(MFAD_KERNEL(res_lsq)->residual);
  ck_assert_ptr_null(MFAD_KERNEL(res_lsq)->residual == NULL ? MFAD_KERNEL(res_lsq) : NULL);
}
END_TEST

START_TEST(every_mode_matches_fd_and_each_other)
{
  for (int ci = 0; ci < 2; ci++) {
    const Case *c = &Cases[ci];
    const int   n = c->k->nvert * c->k->dof, m = c->k->nout;
    const char *name = c->k->name;
    for (int t = 0; t < NTRIAL; t++) {
      double x[MAXN], v[MAXN], w[MAXN], ref[MAXN], r[MAXN], jv[MAXN], J[MAXN * MAXN], Jfd[MAXN * MAXN], vjp[MAXN], gn[MAXN], prod[MAXN], jtjv[MAXN];
      Point(t, n, m, x, v, w);
      c->plain(x, c->p, ref);
      for (MfadResidualMode mode = MFAD_RESIDUAL_VALUE; mode <= MFAD_RESIDUAL_GAUSSNEWTON; mode++) {
        double out[MAXN * MAXN];
        c->k->residual->element(mode, x, mode == MFAD_RESIDUAL_VJP ? w : v, c->p, r, out);
        AssertClose(t, name, "r_e in every mode against plain C", r, ref, m, 1e-13);
      }
      c->k->residual->element(MFAD_RESIDUAL_JVP, x, v, c->p, r, jv);
      c->k->residual->element(MFAD_RESIDUAL_JACOBIAN, x, v, c->p, r, J);
      c->k->residual->element(MFAD_RESIDUAL_VJP, x, w, c->p, r, vjp);
      c->k->residual->element(MFAD_RESIDUAL_GAUSSNEWTON, x, v, c->p, r, gn);
      FDJacobian(c, x, n, m, Jfd);
      AssertClose(t, name, "Jacobian against central differences", J, Jfd, m * n, 1e-7);
      for (int i = 0; i < m; i++) {
        prod[i] = 0;
        for (int j = 0; j < n; j++) prod[i] += Jfd[i * n + j] * v[j];
      }
      AssertClose(t, name, "JVP against central differences", jv, prod, m, 1e-7);
      for (int i = 0; i < m; i++) {
        prod[i] = 0;
        for (int j = 0; j < n; j++) prod[i] += J[i * n + j] * v[j];
      }
      AssertClose(t, name, "JVP against J v", jv, prod, m, 1e-12);
      for (int j = 0; j < n; j++) {
        prod[j] = jtjv[j] = 0;
        for (int i = 0; i < m; i++) prod[j] += J[i * n + j] * w[i];
      }
      AssertClose(t, name, "VJP against J^T w", vjp, prod, n, 1e-12);
      for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) jtjv[j] += J[i * n + j] * jv[i];
      AssertClose(t, name, "Gauss-Newton product against J^T (J v)", gn, jtjv, n, 1e-12);
    }
  }
}
END_TEST

START_TEST(scalar_entry_points_follow_the_sum)
{
  for (int ci = 0; ci < 2; ci++) {
    const Case *c = &Cases[ci];
    const int   n = c->k->nvert * c->k->dof, m = c->k->nout;
    const char *name = c->k->name;
    for (int t = 0; t < NTRIAL; t++) {
      double x[MAXN], v[MAXN], w[MAXN], r[MAXN], jv[MAXN], J[MAXN * MAXN], E, g[MAXN], hv[MAXN], H[MAXN * MAXN], want[MAXN * MAXN], half = 0.0;
      Point(t, n, m, x, v, w);
      c->k->residual->element(MFAD_RESIDUAL_JACOBIAN, x, v, c->p, r, J);
      c->k->residual->element(MFAD_RESIDUAL_JVP, x, v, c->p, r, jv);
      for (int i = 0; i < m; i++) half += 0.5 * r[i] * r[i];
      c->k->element(MFAD_MODE_VALUE, x, v, c->p, &E, g);
      if (c->k->sum == MFAD_SUM_SYSTEM) {
        const double zero = 0.0;
        AssertClose(t, name, "system: no value", &E, &zero, 1, 0);
        c->k->element(MFAD_MODE_GRADIENT, x, v, c->p, &E, g);
        AssertClose(t, name, "system: function = r", g, r, n, 1e-14);
        c->k->element(MFAD_MODE_HVP, x, v, c->p, &E, hv);
        AssertClose(t, name, "system: product = J v", hv, jv, n, 1e-14);
        c->k->element(MFAD_MODE_HESSIAN, x, v, c->p, &E, H);
        AssertClose(t, name, "system: matrix = J", H, J, n * n, 1e-14);
      } else {
        AssertClose(t, name, "least squares: value = 1/2 |r|^2", &E, &half, 1, 1e-14);
        c->k->element(MFAD_MODE_GRADIENT, x, v, c->p, &E, g);
        for (int j = 0; j < n; j++) {
          want[j] = 0;
          for (int i = 0; i < m; i++) want[j] += J[i * n + j] * r[i];
        }
        AssertClose(t, name, "least squares: gradient = J^T r", g, want, n, 1e-12);
        c->k->element(MFAD_MODE_HVP, x, v, c->p, &E, hv);
        for (int j = 0; j < n; j++) {
          want[j] = 0;
          for (int i = 0; i < m; i++) want[j] += J[i * n + j] * jv[i];
        }
        AssertClose(t, name, "least squares: product = J^T J v", hv, want, n, 1e-12);
        c->k->element(MFAD_MODE_HESSIAN, x, v, c->p, &E, H);
        for (int a = 0; a < n; a++)
          for (int b = 0; b < n; b++) {
            want[a * n + b] = 0;
            for (int i = 0; i < m; i++) want[a * n + b] += J[i * n + a] * J[i * n + b];
          }
        AssertClose(t, name, "least squares: matrix = J^T J", H, want, n * n, 1e-12);
      }
    }
  }
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("residual");
  TCase   *tc = tcase_create("kernels");
  SRunner *sr;
  int      failed;
  Setup();
  tcase_add_test(tc, kernel_describes_its_outputs_and_sum);
  tcase_add_test(tc, every_mode_matches_fd_and_each_other);
  tcase_add_test(tc, scalar_entry_points_follow_the_sum);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
