// SPDX-License-Identifier: BSD-2-Clause
/* The lanes' math (mfad/impl/ad_lanes.h) against the C library's, lane by lane. log, in registers
   (mfad_v_log, fdlibm's algorithm): within 1 ulp of it over the normal range (each is within an ulp
   of the true value, so 2 would be possible; fdlibm's and glibc's agree closer), and exactly the C
   library's value (NaN alike) where a lane falls back to it (0, negative, subnormal, inf or NaN
   arguments). The others, from glibc's vector math library where the build has it
   (MFAD_LANES_LIBMVEC): within 4 ulps of the C library's (glibc's bound for libmvec), at the
   special values too; elsewhere the C library's lane by lane, bitwise. Built with the library's host
   tuning, as the energies that call them; skipped (77) without AVX, where the library has no lanes.
   test_lanes_math8: the same at 8 lanes (-DMFAD_LANES_WIDTH=8: AVX-512's variants). */
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

#if defined(MFAD_LANES_LIBMVEC)
#define MATH_ULPS 4 /* glibc's bound for its vector math */
#else
#define MATH_ULPS 0 /* the C library's lane by lane */
#endif

/* f (one or two arguments) on the lanes against g, n arguments from [lo, hi) (and [lo2, hi2)), then
   the special values (0, -0, +-inf, NaN, 1): within MATH_ULPS everywhere */
static void CompareMath(const char *name, mfad_vd (*f1)(mfad_vd), mfad_vd (*f2)(mfad_vd, mfad_vd), double (*g1)(double), double (*g2)(double, double),
                        double lo, double hi, double lo2, double hi2)
{
  const double special[8] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0, 0.5};
  long long    worst = 0, bitwise = 0, n = 0;
  for (int i = 0; i < 40000 + 16; i += MFAD_VW) {
    mfad_vd a, b, r;
    for (int l = 0; l < MFAD_VW; l++) {
      const int k = i + l - 40000;
      a[l]        = k >= 0 ? special[k % 8] : Uniform(lo, hi);
      b[l]        = k >= 0 ? special[(k / 8 + 5) % 8] : Uniform(lo2, hi2);
    }
    r = f1 ? f1(a) : f2(a, b);
    for (int l = 0; l < MFAD_VW; l++) {
      const double    want = g1 ? g1(a[l]) : g2(a[l], b[l]);
      const long long u    = Ulps(r[l], want);
      ck_assert_msg(u >= 0 && u <= MATH_ULPS, "%s(%.17g, %.17g): lanes %.17g, C library %.17g (%lld ulps)", name, a[l], b[l], r[l], want, u);
      worst = u > worst ? u : worst;
      bitwise += u == 0;
      n++;
    }
  }
  printf("%-6s: at most %lld ulp from the C library, %.1f%% bitwise\n", name, worst, 100.0 * bitwise / n);
}
#define MATH1(f, lo, hi)           CompareMath(#f, mfad_v_##f, NULL, f, NULL, lo, hi, 0, 0)
#define MATH2(f, lo, hi, lo2, hi2) CompareMath(#f, NULL, mfad_v_##f, NULL, f, lo, hi, lo2, hi2)
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

START_TEST(math_within_glibcs_bound)
{
  MATH1(exp, -700.0, 700.0);
  MATH1(exp, -2.0, 2.0);
  MATH1(expm1, -5.0, 5.0);
  MATH1(log1p, -0.99, 10.0);
  MATH1(sin, -10.0, 10.0);
  MATH1(cos, -10.0, 10.0);
  MATH1(tan, -1.5, 1.5);
  MATH1(sinh, -5.0, 5.0);
  MATH1(cosh, -5.0, 5.0);
  MATH1(tanh, -5.0, 5.0);
  MATH1(asin, -1.0, 1.0);
  MATH1(acos, -1.0, 1.0);
  MATH1(atan, -10.0, 10.0);
  MATH1(cbrt, -100.0, 100.0);
  MATH1(erf, -4.0, 4.0);
  MATH1(erfc, -4.0, 4.0);
  MATH2(pow, 0.01, 4.0, -3.0, 3.0);
  MATH2(atan2, -1.0, 1.0, -1.0, 1.0);
  MATH2(hypot, -10.0, 10.0, -10.0, 10.0);
}
END_TEST

int main(void)
{
#if MFAD_VW == 8
  if (!__builtin_cpu_supports("avx512f")) {
    printf("test_lanes_math8: no AVX-512F on this CPU: skipped\n");
    return 77;
  }
#endif
  Suite   *s  = suite_create("lanes_math");
  TCase   *tc = tcase_create("core");
  SRunner *sr;
  int      failed;

  tcase_add_test(tc, log_within_an_ulp);
  tcase_add_test(tc, math_within_glibcs_bound);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}
#endif
