// SPDX-License-Identifier: BSD-2-Clause
/* A plain-C energy through mfad-energy (tests/energies/plain_ops.c: every supported construct and
   math.h function, on both of the translator's paths): the value in every mode equals the same C
   function compiled as it is; gradient, HVP and Hessian match central differences and each other.
   Tolerances as in test_kernels.c: O(1) inputs, central differences with h = 6e-6 (truncation
   ~ h^2/6 |f'''| ~ 1e-11, rounding eps |f| / h ~ 4e-11): 1e-7 relative to the compared vector;
   HVP against H v: both exact, 1e-12; value in every mode against plain C: the same operations up
   to regrouped sums and fused chain rules, 1e-13 relative. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <mfad.h>
#include "energies/plain_ops.c" /* plain_ops(): the energy as the C compiler sees it */

MFAD_KERNEL_DECLARE(plain_ops);

#define N      8
#define NTRIAL 8
#define FD_H   6.0e-6

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

static const double P[3] = {0.7, 0.3, 1.7};

static void Point(int trial, double x[N], double v[N])
{
  Rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(trial + 1) * 0xBF58476D1CE4E5B9ULL;
  for (int i = 0; i < N; i++) x[i] = Uniform(-0.5, 0.5), v[i] = Uniform(-1, 1);
}

static double Eval(MfadMode m, const double *x, const double *v, double *out)
{
  double E;
  MFAD_KERNEL(plain_ops)->element(m, x, v, P, &E, out);
  return E;
}

static void AssertClose(int t, const char *what, const double *a, const double *b, int n, double rtol)
{
  double scale = 0.0, err = 0.0;
  int    at    = 0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > err) err = fabs(a[i] - b[i]), at = i;
  ck_assert_msg(err <= rtol * fmax(scale, 1e-300), "trial %d: %s: entry %d %.17g vs %.17g, error %.3g > bound %.3g", t, what, at, a[at], b[at], err, rtol * scale);
}

START_TEST(value_in_every_mode_equals_the_plain_c_function)
{
  for (int t = 0; t < NTRIAL; t++) {
    double x[N], v[N], out[N * N], ref;
    Point(t, x, v);
    ref = plain_ops(x, P);
    for (MfadMode m = MFAD_MODE_VALUE; m <= MFAD_MODE_HESSIAN; m++) {
      const double E = Eval(m, x, v, out);
      AssertClose(t, "value", &E, &ref, 1, 1e-13);
    }
  }
}
END_TEST

START_TEST(gradient_matches_central_fd)
{
  for (int t = 0; t < NTRIAL; t++) {
    double x[N], v[N], g[N], fd[N];
    Point(t, x, v);
    Eval(MFAD_MODE_GRADIENT, x, v, g);
    for (int i = 0; i < N; i++) {
      double xp[N], xm[N];
      for (int j = 0; j < N; j++) xp[j] = xm[j] = x[j];
      xp[i] += FD_H, xm[i] -= FD_H;
      fd[i] = (plain_ops(xp, P) - plain_ops(xm, P)) / (2 * FD_H);
    }
    AssertClose(t, "gradient vs FD", g, fd, N, 1e-7);
  }
}
END_TEST

START_TEST(hessian_and_hvp_match_central_fd_of_gradient_and_each_other)
{
  for (int t = 0; t < NTRIAL; t++) {
    double x[N], v[N], H[N * N], fd[N * N], hv[N], Hv[N] = {0};
    Point(t, x, v);
    Eval(MFAD_MODE_HESSIAN, x, v, H);
    for (int i = 0; i < N; i++) {
      double xp[N], xm[N], gp[N], gm[N];
      for (int j = 0; j < N; j++) xp[j] = xm[j] = x[j];
      xp[i] += FD_H, xm[i] -= FD_H;
      Eval(MFAD_MODE_GRADIENT, xp, v, gp);
      Eval(MFAD_MODE_GRADIENT, xm, v, gm);
      for (int j = 0; j < N; j++) fd[j * N + i] = (gp[j] - gm[j]) / (2 * FD_H);
    }
    AssertClose(t, "Hessian vs FD of the gradient", H, fd, N * N, 1e-7);
    Eval(MFAD_MODE_HVP, x, v, hv);
    for (int i = 0; i < N; i++)
      for (int j = 0; j < N; j++) Hv[i] += H[i * N + j] * v[j];
    AssertClose(t, "HVP vs H v", hv, Hv, N, 1e-12);
  }
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("plain");
  TCase   *tc = tcase_create("plain_ops");
  SRunner *sr;
  int      nfail;
  tcase_add_test(tc, value_in_every_mode_equals_the_plain_c_function);
  tcase_add_test(tc, gradient_matches_central_fd);
  tcase_add_test(tc, hessian_and_hvp_match_central_fd_of_gradient_and_each_other);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
