// SPDX-License-Identifier: BSD-2-Clause
/* ipc_point_sphere (the cloth example's obstacle): its closed form, 0 beyond dhat, +inf inside the
   sphere, and its gradient, Hessian-vector product and Hessian against central finite differences
   on points inside the barrier's range. */
#include <check.h>
#include <math.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests the contact kernel element by element: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

/* the barrier of energies/ipc_point_sphere.c, written out */
static double ClosedForm(const double x[3], const double p[6])
{
  const double r = sqrt((x[0] - p[0]) * (x[0] - p[0]) + (x[1] - p[1]) * (x[1] - p[1]) + (x[2] - p[2]) * (x[2] - p[2])), d = (r - p[3]) * (r - p[3]);
  if (r <= p[3]) return INFINITY;
  return d < p[4] ? -p[5] * (d - p[4]) * (d - p[4]) * log(d / p[4]) : 0.0;
}

START_TEST(sphere_barrier_matches_closed_form_and_finite_differences)
{
  MfadKernel   k;
  const double p[6] = {0.1, -0.2, 0.3, 0.5, 0.04 * 0.04, 7.0}; /* centre, R, dhat^2, kappa */
  ck_assert(MfadKernelFind("ipc_point_sphere", &k) == 0 && k);
  ck_assert_int_eq(k->nvert, 1);
  for (int t = 0; t < 16; t++) { /* points at gaps 0.002-0.038 from the sphere in various directions */
    const double th = 0.7 + 0.3 * t, ph = 0.2 * t, gap = 0.002 + 0.036 * t / 15.0, u[3] = {sin(th) * cos(ph), sin(th) * sin(ph), cos(th)};
    double       x[3], v[3] = {0.3, -0.7, 0.5}, E, g[3], Hv[3], H[9], Hvfd[3];
    for (int i = 0; i < 3; i++) x[i] = p[i] + (p[3] + gap) * u[i];
    k->element(MFAD_MODE_GRADIENT, x, v, p, &E, g);
    ck_assert_msg(fabs(E - ClosedForm(x, p)) <= 1e-13 * fabs(E), "point %d: E %.17g, closed form %.17g", t, E, ClosedForm(x, p));
    ck_assert_msg(E > 0, "point %d inside dhat: E %g, expected > 0", t, E);
    k->element(MFAD_MODE_HESSIAN, x, v, p, &E, H);
    k->element(MFAD_MODE_HVP, x, v, p, &E, Hv);
    for (int i = 0; i < 3; i++) { /* central differences: error ~ h^2 E''' ~ 1e-12 relative to |g| here */
      const double h     = 1e-6;
      double       xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, gp[3], gm[3], Ep, Em;
      xp[i] += h, xm[i] -= h;
      k->element(MFAD_MODE_GRADIENT, xp, v, p, &Ep, gp);
      k->element(MFAD_MODE_GRADIENT, xm, v, p, &Em, gm);
      ck_assert_msg(fabs((Ep - Em) / (2 * h) - g[i]) <= 1e-6 * (fabs(g[i]) + 1e-3 * fabs(E) / gap), "point %d: dE/dx%d %.12g, differences %.12g", t,
                    i, g[i], (Ep - Em) / (2 * h));
      for (int j = 0; j < 3; j++)
        ck_assert_msg(fabs((gp[j] - gm[j]) / (2 * h) - H[3 * i + j]) <= 1e-5 * (fabs(H[3 * i + j]) + 1e-3 * fabs(H[3 * i + i])),
                      "point %d: H[%d][%d] %.12g, differences %.12g", t, i, j, H[3 * i + j], (gp[j] - gm[j]) / (2 * h));
    }
    for (int i = 0; i < 3; i++) {
      Hvfd[i] = H[3 * i] * v[0] + H[3 * i + 1] * v[1] + H[3 * i + 2] * v[2];
      ck_assert_msg(fabs(Hv[i] - Hvfd[i]) <= 1e-12 * (fabs(H[3 * i]) + fabs(H[3 * i + 1]) + fabs(H[3 * i + 2])), "point %d: HVP %.17g, H v %.17g", t,
                    Hv[i], Hvfd[i]);
    }
  }
  { /* beyond dhat: 0 with zero gradient; inside: +inf */
    double x[3] = {p[0], p[1], p[2] + p[3] + 0.05}, v[3] = {0, 0, 1}, E, g[3];
    k->element(MFAD_MODE_GRADIENT, x, v, p, &E, g);
    ck_assert_msg(E == 0 && g[0] == 0 && g[1] == 0 && g[2] == 0, "beyond dhat: E %g, g (%g, %g, %g), expected 0", E, g[0], g[1], g[2]);
    x[2] = p[2] + 0.9 * p[3];
    k->element(MFAD_MODE_VALUE, x, v, p, &E, NULL);
    ck_assert_msg(isinf(E) && E > 0, "inside the sphere: E %g, expected +inf", E);
  }
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("ipc_sphere");
  TCase   *tc = tcase_create("sphere");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_add_test(tc, sphere_barrier_matches_closed_form_and_finite_differences);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
