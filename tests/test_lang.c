// SPDX-License-Identifier: BSD-2-Clause
/* Energies written with the constructs mfad-energy lowers or differentiates by table (issue 48,
   item 5; tests/energies/lang_*.c): while and do-while loops with MFAD_MAX_ITERATIONS, switch on an
   integer parameter, the comma operator, file-scope static const tables, a loop bound read from p,
   erf/erfc/expm1/log1p/sinh/cosh/lgamma and a user's MFAD_DERIVATIVES rule of differentiated values.
   Each kernel's gradient against central differences of its value and its HVP against central
   differences of its gradient (and its element Hessian and diagonal against the HVP, to rounding) (step 1e-5, tolerance 1e-6 of the largest entry
   plus 1e-6: the differences' error is O(h^2) ~ 1e-10 times third derivatives of order one), at points of every switch case and table row; the
   energies with features in forward over reverse (k->reverse) and, compiled again with -DMFAD_NO_REVERSE (<name>_fof), forward over forward, the two
   within 1e-12. The values against the energies compiled as plain C (mfad_energy_eval(), within 1e-12): the lowering keeps what the user's C
   computes. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* element by element through the kernel's host entry point */
#include <mfad/impl/kernel.h>
#include <mfad/energy.h>

extern const MfadEnergyInfo lang_math_info, lang_control_info, lang_loop_p_info;

MFAD_KERNEL_DECLARE(lang_math);
MFAD_KERNEL_DECLARE(lang_math_fof);
MFAD_KERNEL_DECLARE(lang_control);
MFAD_KERNEL_DECLARE(lang_control_fof);
MFAD_KERNEL_DECLARE(lang_loop_p);

#define NMAX 4

static unsigned long long Rng = 0x9E3779B97F4A7C15ULL;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

static double MaxAbs(int n, const double *a)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

static double Value(MfadKernel k, const double *x, const double *p)
{
  double v[NMAX] = {0}, e, g[NMAX];
  k->element(MFAD_MODE_VALUE, x, v, p, &e, g);
  return e;
}

/* the kernel's value against the plain-C energy's; its gradient and HVP against central
   differences; returns the gradient and HVP in g, hv */
static void CheckFD(const char *name, MfadKernel k, const MfadEnergyInfo *info, const double *x, const double *p, double *g, double *hv)
{
  const int    n = k->nvert * k->dof;
  const double h = 1e-5;
  double       v[NMAX], e, xp[NMAX], xm[NMAX], gp[NMAX], gm[NMAX], fd[NMAX];
  for (int i = 0; i < n; i++) v[i] = Uniform(-1.0, 1.0);
  k->element(MFAD_MODE_GRADIENT, x, v, p, &e, g);
  ck_assert_msg(isfinite(e), "%s: value %g", name, e);
  ck_assert_msg(fabs(e - Value(k, x, p)) <= 1e-14 * (1.0 + fabs(e)), "%s: gradient mode's value %.17g vs value mode's", name, e);
  const double plain = mfad_energy_eval(info, x, p);
  ck_assert_msg(fabs(e - plain) <= 1e-12 * (1.0 + fabs(plain)), "%s: value %.17g vs the plain C energy's %.17g", name, e, plain);
  for (int i = 0; i < n; i++) {
    for (int j = 0; j < n; j++) xp[j] = xm[j] = x[j];
    xp[i] += h, xm[i] -= h;
    fd[i] = (Value(k, xp, p) - Value(k, xm, p)) / (2.0 * h);
  }
  const double gs = MaxAbs(n, fd) + 1.0;
  for (int i = 0; i < n; i++) ck_assert_msg(fabs(g[i] - fd[i]) <= 1e-6 * gs, "%s gradient[%d]: %.12e vs differences %.12e", name, i, g[i], fd[i]);
  k->element(MFAD_MODE_HVP, x, v, p, &e, hv);
  for (int j = 0; j < n; j++) xp[j] = x[j] + h * v[j], xm[j] = x[j] - h * v[j];
  k->element(MFAD_MODE_GRADIENT, xp, v, p, &e, gp);
  k->element(MFAD_MODE_GRADIENT, xm, v, p, &e, gm);
  for (int i = 0; i < n; i++) fd[i] = (gp[i] - gm[i]) / (2.0 * h);
  const double hs = MaxAbs(n, fd) + 1.0;
  for (int i = 0; i < n; i++) ck_assert_msg(fabs(hv[i] - fd[i]) <= 1e-6 * hs, "%s hvp[%d]: %.12e vs differences %.12e", name, i, hv[i], fd[i]);
  /* the element Hessian against the HVP (H v) and the diagonal mode, to rounding */
  double H[NMAX * NMAX], dg[NMAX];
  k->element(MFAD_MODE_HESSIAN, x, v, p, &e, H);
  k->element(MFAD_MODE_DIAGONAL, x, v, p, &e, dg);
  const double Hs = MaxAbs(n * n, H) + MaxAbs(n, hv);
  for (int i = 0; i < n; i++) {
    double Hv = 0.0;
    for (int j = 0; j < n; j++) Hv += H[i * n + j] * v[j];
    ck_assert_msg(fabs(Hv - hv[i]) <= 1e-12 * n * Hs, "%s (H v)[%d]: %.17e vs hvp %.17e", name, i, Hv, hv[i]);
    ck_assert_msg(fabs(dg[i] - H[i * n + i]) <= 1e-12 * Hs, "%s diagonal[%d]: %.17e vs H %.17e", name, i, dg[i], H[i * n + i]);
  }
}

/* the kernel with features against its forward-over-forward copy */
static void CheckPair(const char *name, MfadKernel k, MfadKernel fof, const MfadEnergyInfo *info, const double *x, const double *p)
{
  const int n = k->nvert * k->dof;
  double    g[2][NMAX], hv[2][NMAX];
  ck_assert_msg(k->reverse == 1, "%s: mfad-energy wrote no reverse body (run it with MFAD_ENERGY_VERBOSE=1 for why)", name);
  ck_assert_int_eq(fof->reverse, 0);
  const unsigned long long seed = Rng;
  CheckFD(name, k, info, x, p, g[0], hv[0]);
  Rng = seed; /* the same direction v */
  CheckFD(name, fof, info, x, p, g[1], hv[1]);
  const double gs = MaxAbs(n, g[1]), hs = MaxAbs(n, hv[1]);
  for (int i = 0; i < n; i++) {
    ck_assert_msg(fabs(g[0][i] - g[1][i]) <= 1e-12 * gs, "%s gradient[%d]: %.17e (reverse) vs %.17e (forward)", name, i, g[0][i], g[1][i]);
    ck_assert_msg(fabs(hv[0][i] - hv[1][i]) <= 1e-12 * hs, "%s hvp[%d]: %.17e (reverse) vs %.17e (forward)", name, i, hv[0][i], hv[1][i]);
  }
}

START_TEST(math_and_user_rules)
{
  for (int t = 0; t < 20; t++) {
    double x[4], p[3];
    for (int i = 0; i < 4; i++) x[i] = Uniform(-1.5, 1.5);
    for (int i = 0; i < 3; i++) p[i] = Uniform(0.5, 1.5);
    CheckPair("lang_math", MFAD_KERNEL(lang_math), MFAD_KERNEL(lang_math_fof), &lang_math_info, x, p);
  }
}
END_TEST

START_TEST(loops_switch_comma_tables)
{
  for (int t = 0; t < 24; t++) {
    double x[4], p[2] = {t % 4, (t / 4) % 3};
    for (int i = 0; i < 4; i++) x[i] = Uniform(-1.5, 1.5);
    CheckPair("lang_control", MFAD_KERNEL(lang_control), MFAD_KERNEL(lang_control_fof), &lang_control_info, x, p);
  }
}
END_TEST

START_TEST(loop_bound_from_p)
{
  for (int t = 0; t < 16; t++) {
    double x[3], p[2] = {t % 8, Uniform(0.5, 1.5)}, g[NMAX], hv[NMAX];
    for (int i = 0; i < 3; i++) x[i] = Uniform(-1.5, 1.5);
    CheckFD("lang_loop_p", MFAD_KERNEL(lang_loop_p), &lang_loop_p_info, x, p, g, hv);
  }
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("lang");
  TCase   *tc = tcase_create("lang");
  SRunner *sr;
  int      nf;
  tcase_add_test(tc, math_and_user_rules);
  tcase_add_test(tc, loops_switch_comma_tables);
  tcase_add_test(tc, loop_bound_from_p);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
