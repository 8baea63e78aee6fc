// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyComputeStepBound (src/stepbound.c) and the energies' .step against the energy itself:
   along X + s D, every element is valid (E finite) just short of the bound and some element is not
   just past it; an energy that declares no wall bounds nothing. Random directions large enough to
   invert elements, on the fixtures' tet box (volume_barrier_tet) and triangle grid (symmetric_dirichlet, flip_barrier_tri),
   on any number of ranks (the bound is reduced over them). */
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
