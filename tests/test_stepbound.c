// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyComputeStepBound (src/stepbound.c) and the energies' .step against the energy itself:
   along X + s D, every element is valid (E finite) just short of the bound and some element is not
   just past it; an energy that declares no wall bounds nothing. Random directions large enough to
   invert elements, on the fixtures' tet box (volume_barrier_tet) and triangle grid (symmetric_dirichlet, flip_barrier_tri),
   on any number of ranks (the bound is reduced over them); the sphere energies' wall element by
   element. */
#include "testutil.h"
#include "hessian_fixtures.h"

static const char *const Walled[] = {"volume_barrier_tet", "symmetric_dirichlet", "flip_barrier_tri"};

START_TEST(bound_is_where_the_energy_turns_infinite)
{
  HFix       f;
  MfadEnergy E;
  Vec        X, D, W;
  PetscInt   bounded = 0;

  TestCall(HFixCreate(Walled[_i], &f));
  TestCall(HFixEnergy(PETSC_COMM_WORLD, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &D));
  TestCall(VecDuplicate(X, &W));
  for (int trial = 0; trial < 20; trial++) {
    PetscReal t, fin, fout;
    TestCall(HFixPoint(&f, 0.03, 11 + trial, X));
    TestCall(HFixPoint(&f, 0.5 + trial, 101 + trial, D));
    TestCall(VecAXPY(D, -1.0, X)); /* a random direction, some elements invert along it */
    TestCall(VecScale(D, 0.2 * (trial + 1)));
    TestCall(MfadEnergyComputeStepBound(E, X, D, &t));
    ck_assert_msg(t > 0, "%s trial %d: bound %g, expected > 0 (X is valid)", Walled[_i], trial, (double)t);
    TestCall(MfadEnergyApplyFixedValues(E, X));
    TestCall(VecWAXPY(W, 0.999 * PetscMin(t, 1e3), D, X));
    TestCall(MfadEnergyComputeObjective(E, W, &fin));
    ck_assert_msg(!PetscIsInfOrNanReal(fin), "%s trial %d: E = %g at 0.999 of the bound %g", Walled[_i], trial, (double)fin, (double)t);
    if (t < 1e3) {
      bounded++;
      TestCall(VecWAXPY(W, 1.001 * t, D, X));
      TestCall(MfadEnergyComputeObjective(E, W, &fout));
      ck_assert_msg(PetscIsInfReal(fout), "%s trial %d: E = %g at 1.001 of the bound %g, expected +inf", Walled[_i], trial, (double)fout, (double)t);
    }
  }
  ck_assert_msg(bounded >= 10, "%s: only %" PetscInt_FMT " of 20 directions met a wall: the test tests little", Walled[_i], bounded);
  TestCall(VecDestroy(&W));
  TestCall(VecDestroy(&D));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* The sphere energies' great-circle wall (energies/sphere_chord.h), element by element: a random
   small spherical triangle turned counter-clockwise (rest shape itself), a random motion of its
   three unknowns; the energy is finite just short of the element's step and +inf just past it */
static const char *const SphereWalled[] = {"sphere_symmetric_dirichlet", "sphere_flip_barrier"};

START_TEST(sphere_wall_is_where_the_energy_turns_infinite)
{
  MfadKernel         k;
  unsigned long long seed    = 5;
  PetscInt           bounded = 0;

  TestCall(MfadKernelFind(SphereWalled[_i], &k));
  ck_assert_msg(k->step != NULL, "%s declares no wall", SphereWalled[_i]);
  for (int trial = 0; trial < 200; trial++) {
    double y[9], d[9], w[9], p[8], c[3], a[3], b[3], det, t, fin, fout, g[9];
    for (int e = 0; e < 3; e++) c[e] = TestRand(&seed) - 0.5;
    for (int v = 0; v < 3; v++) { /* c plus a small offset, on the unit sphere */
      double n = 0;
      for (int e = 0; e < 3; e++) y[3 * v + e] = c[e] + (v ? 0.3 * (TestRand(&seed) - 0.5) : 0), n += y[3 * v + e] * y[3 * v + e];
      for (int e = 0; e < 3; e++) y[3 * v + e] /= sqrt(n);
    }
    for (int e = 0; e < 3; e++) a[e] = y[3 + e], b[e] = y[6 + e];
    det = y[0] * (a[1] * b[2] - a[2] * b[1]) - y[1] * (a[0] * b[2] - a[2] * b[0]) + y[2] * (a[0] * b[1] - a[1] * b[0]);
    if (det < 0)
      for (int e = 0; e < 3; e++) { /* counter-clockwise seen from outside */
        const double tmp = y[3 + e];
        y[3 + e]         = y[6 + e];
        y[6 + e]         = tmp;
      }
    if (k->rest(y, NULL, p)) continue;
    for (int i = 0; i < 9; i++) d[i] = (TestRand(&seed) - 0.5) * (1 + trial % 5);
    t = k->step(y, d, p);
    ck_assert_msg(t > 0, "%s trial %d: step %g, expected > 0", SphereWalled[_i], trial, t);
    for (int i = 0; i < 9; i++) w[i] = y[i] + 0.999 * PetscMin(t, 1e3) * d[i];
    k->element(MFAD_MODE_VALUE, w, NULL, p, &fin, g);
    ck_assert_msg(isfinite(fin), "%s trial %d: E = %g at 0.999 of the step %g", SphereWalled[_i], trial, fin, t);
    if (t < 1e3) {
      bounded++;
      for (int i = 0; i < 9; i++) w[i] = y[i] + 1.001 * t * d[i];
      k->element(MFAD_MODE_VALUE, w, NULL, p, &fout, g);
      ck_assert_msg(isinf(fout), "%s trial %d: E = %g at 1.001 of the step %g, expected +inf", SphereWalled[_i], trial, fout, t);
    }
  }
  ck_assert_msg(bounded >= 50, "%s: only %" PetscInt_FMT " of 200 motions met the wall", SphereWalled[_i], bounded);
  /* a triangle collapsed to two points (y_b = y_a bitwise) is behind the wall too: E = +inf in the
     value and gradient modes, as the plain C gives (u_b - u_a = 0); not a huge finite energy from the
     ~1e-17 that the compiler's contraction of y_b / |y_b| - u_a into FMA leaves of that edge */
  for (int pair = 0; pair < 3; pair++) {
    const int a = pair == 2 ? 1 : 0, b = pair == 0 ? 1 : 2;
    double    y[9] = {0.3, 0.1, 0.7, 0.1, 0.4, 0.75, 0.05, 0.02, 0.9}, p[8], E[2], g[9]; /* counter-clockwise, not unit */
    ck_assert_int_eq(k->rest(y, NULL, p), 0);
    for (int e = 0; e < 3; e++) y[3 * b + e] = y[3 * a + e];
    k->element(MFAD_MODE_VALUE, y, NULL, p, &E[0], g);
    k->element(MFAD_MODE_GRADIENT, y, NULL, p, &E[1], g);
    ck_assert_msg(isinf(E[0]) && E[0] > 0 && isinf(E[1]) && E[1] > 0, "%s: vertex %d on vertex %d: E = %g (value), %g (gradient), expected +inf",
                  SphereWalled[_i], b, a, E[0], E[1]);
  }
}
END_TEST

START_TEST(no_wall_bounds_nothing)
{
  HFix       f;
  MfadEnergy E;
  Vec        X, D;
  PetscReal  t;

  TestCall(HFixCreate("mass_spring", &f));
  TestCall(HFixEnergy(PETSC_COMM_WORLD, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &D));
  TestCall(HFixPoint(&f, 0.03, 3, X));
  TestCall(HFixPoint(&f, 5.0, 4, D));
  TestCall(MfadEnergyComputeStepBound(E, X, D, &t));
  ck_assert_msg(t >= PETSC_INFINITY, "mass_spring: bound %g, expected PETSC_INFINITY", (double)t);
  TestCall(VecDestroy(&D));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("stepbound");
  TCase   *tc = tcase_create("walls");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_add_loop_test(tc, bound_is_where_the_energy_turns_infinite, 0, 3);
  tcase_add_loop_test(tc, sphere_wall_is_where_the_energy_turns_infinite, 0, 2);
  tcase_add_test(tc, no_wall_bounds_nothing);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
