// SPDX-License-Identifier: BSD-2-Clause
/* The lanes' log in registers (mfad/impl/ad_lanes.h: mfad_v_log, fdlibm's algorithm) against the C
   library's log, lane by lane: within 1 ulp of it over the normal range (each is within an ulp of
   the true value, so 2 would be possible; fdlibm's and glibc's agree closer), and exactly the C
   library's value (NaN alike) where a lane falls back to it (0, negative, subnormal, inf or NaN
   arguments). Every energy with a log on lanes (the Neo-Hookean tets, the barriers) takes it; the
   other math functions are the C library's lane by lane (bitwise). Built with the library's host
   tuning, as the energies that call it; skipped (77) without AVX, where the library has no lanes. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#if !defined(__AVX__)
int main(void)
{
  printf("test_lanes_math: no AVX in this build (no lanes): skipped\n");
  return 77;
}
#else
#include "testutil.h" /* TestRand */
#define MFAD_IMPL_ALLOWED 1
#include <mfad/impl/ad_lanes.h>

static unsigned long long Seed = 7;
static double             Uniform(double a, double b) { return a + 0.5 * (b - a) * (TestRand(&Seed) + 1.0); }

/* the distance in ulps of two finite doubles of the same sign; -1 for NaN or inf in one only */
static long long Ulps(double a, double b)
{
  int64_t ia, ib;
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : -1;
  if (isinf(a) || isinf(b)) return a == b ? 0 : -1;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  if ((ia < 0) != (ib < 0)) return a == b ? 0 : -1; /* +0 and -0 */
  return ia > ib ? ia - ib : ib - ia;
}

/* f on the lanes against g lane by lane over n arguments x (a multiple of MFAD_VW): the largest ulp
   distance where the lane is in range (inrange), and the count of fallback lanes not bitwise */
static void Compare(const char *name, mfad_vd (*f)(mfad_vd), double (*g)(double), const double *x, int n, int (*inrange)(double))
{
  long long worst = 0, bitwise = 0, checked = 0;
  for (int i = 0; i < n; i += MFAD_VW) {
    mfad_vd a;
    for (int l = 0; l < MFAD_VW; l++) a[l] = x[i + l];
    const mfad_vd r = f(a);
    for (int l = 0; l < MFAD_VW; l++) {
      const double    want = g(x[i + l]);
      const long long u    = Ulps(r[l], want);
      if (inrange(x[i + l])) {
        ck_assert_msg(u >= 0 && u <= 1, "%s(%.17g): lanes %.17g, C library %.17g (%lld ulps)", name, x[i + l], r[l], want, u);
        worst = u > worst ? u : worst;
        bitwise += u == 0;
        checked++;
      } else
        ck_assert_msg(u == 0 && (r[l] == want || (isnan(r[l]) && isnan(want))), "%s(%.17g): lanes %.17g, the C library's %.17g expected", name,
                      x[i + l], r[l], want);
    }
  }
  printf("%s: %lld arguments in range, at most %lld ulp from the C library, %.1f%% bitwise\n", name, checked, worst, 100.0 * bitwise / checked);
  ck_assert_int_gt(checked, n / 2);
}

static mfad_vd VLog(mfad_vd a) { return mfad_v_log(a); }
static int     LogInRange(double x) { return isnormal(x) && x > 0; }

#define NX (1 << 18)
static double  X[NX];

START_TEST(log_within_an_ulp)
{
  const double special[] = {0.0,
                            -0.0,
                            -1.0,
                            4.9e-324,
                            2.2250738585072009e-308,
                            2.2250738585072014e-308,
                            1.0,
                            INFINITY,
                            -INFINITY,
                            NAN,
                            1.7976931348623157e308,
                            0.70710678118654746,
                            0.70710678118654757,
                            1.4142135623730949,
                            1.4142135623730951,
                            1.0000000000000002};
  const int    ns        = (int)(sizeof(special) / sizeof(special[0]));
  for (int i = 0; i < NX; i++) {
    if (i < ns) X[i] = special[i];
    else if (i % 3 == 0) X[i] = ldexp(Uniform(1.0, 2.0), (int)Uniform(-1022, 1023)); /* every binade */
    else if (i % 3 == 1) X[i] = 1.0 + Uniform(-0.3, 0.4);                            /* about 1: log's cancellation */
    else X[i] = 1.0 + ldexp(Uniform(-1.0, 1.0), -(int)Uniform(1, 52));
  }
  Compare("log", VLog, log, X, NX, LogInRange);
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("lanes_math");
  TCase   *tc = tcase_create("core");
  SRunner *sr;
  int      failed;

  tcase_add_test(tc, log_within_an_ulp);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
#endif
