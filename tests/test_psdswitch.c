// SPDX-License-Identifier: BSD-2-Clause
/* -mfad_psd_switch (shell/psdswitch.c) through SNES and TAO on the spring grid pulled far from its
   rest shape (compressed springs: the exact Hessian is indefinite at the start), whose exact
   minimiser is the rest shape: each policy must reach it, and the counts say which Hessians the
   steps used. The factorisation with inertia is PETSc's own Cholesky (1 rank; MUMPS and the
   redundant factor on several ranks are exercised by the param and elastic tests). */
#include "testutil.h"
#include <string.h>

typedef struct {
  PetscInt  its, exact, fallbacks;
  PetscReal xerr;
  PetscBool converged;
} Outcome;

static const char *Factor = "-mfad_hessian aij -mfad_psd_project abs -ksp_type preonly -pc_type cholesky -pc_factor_mat_solver_type petsc";

/* Minimises the grid's energy from rest + amp * noise with the options `opts` (on top of Factor
   unless `plain`); returns PETSc's error code of the solve (0: it ran) */
static PetscErrorCode SolveWith(const char *opts, PetscBool plain, Outcome *o, PetscErrorCode *solve_err)
{
  TestGrid   grid;
  MfadEnergy E;
  Vec        X;
  PetscBool  tao = (PetscBool)(strstr(opts, "-tao_") != NULL);

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof *o));
  PetscCall(PetscOptionsClear(NULL));
  if (!plain) PetscCall(PetscOptionsInsertString(NULL, Factor));
  if (tao && !plain)
    PetscCall(PetscOptionsInsertString(NULL, "-tao_nls_ksp_type preonly -tao_nls_pc_type cholesky -tao_nls_pc_factor_mat_solver_type petsc"));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(TestGridCreate(5, 3, 3, &grid));
  PetscCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(&grid, 0.2, 7, X));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (tao) {
    Tao                t;
    TaoConvergedReason reason;
    PetscCall(TaoCreate(PETSC_COMM_SELF, &t));
    PetscCall(TaoSetType(t, TAONLS));
    PetscCall(MfadEnergySetTao(E, t));
    PetscCall(TaoSetSolution(t, X));
    PetscCall(TaoSetTolerances(t, 1e-10, 0, 0));
    PetscCall(TaoSetFromOptions(t));
    *solve_err = TaoSolve(t);
    PetscCall(TaoGetConvergedReason(t, &reason));
    PetscCall(TaoGetIterationNumber(t, &o->its));
    o->converged = (PetscBool)(!*solve_err && reason > 0);
    PetscCall(TaoDestroy(&t));
  } else {
    SNES                snes;
    SNESConvergedReason reason;
    PetscCall(SNESCreate(PETSC_COMM_SELF, &snes));
    PetscCall(MfadEnergySetSNES(E, snes));
    PetscCall(SNESSetTolerances(snes, 1e-10, 1e-14, 0, 200, 100000));
    PetscCall(SNESSetFromOptions(snes));
    *solve_err = SNESSolve(snes, NULL, X);
    PetscCall(SNESGetConvergedReason(snes, &reason));
    PetscCall(SNESGetIterationNumber(snes, &o->its));
    o->converged = (PetscBool)(!*solve_err && reason > 0);
    PetscCall(SNESDestroy(&snes));
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(MfadEnergyGetPSDSwitchCounts(E, &o->exact, &o->fallbacks));
  {
    PetscScalar *x;
    o->xerr = 0;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt i = 0; i < 3 * grid.nvert; i++) o->xerr = PetscMax(o->xerr, PetscAbsReal(PetscRealPart(x[i]) - grid.rest[i]));
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(TestGridDestroy(&grid));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void AssertReached(const char *opts, const Outcome *o)
{
  ck_assert_msg(o->converged, "'%s' did not converge (%" PetscInt_FMT " steps)", opts, o->its);
  ck_assert_msg(o->xerr < 1e-6, "'%s': |x - rest|_inf = %.3e", opts, (double)o->xerr);
}

/* inertia: exact steps once they pay (the count says so), the minimiser reached; never: none;
   auto with an inertia-reporting factor behaves as inertia, step for step */
START_TEST(inertia_takes_exact_steps_never_none)
{
  Outcome        in, nv, au;
  PetscErrorCode err;

  TestCall(SolveWith("-mfad_psd_switch inertia", PETSC_FALSE, &in, &err));
  ck_assert_int_eq(err, 0);
  AssertReached("inertia", &in);
  ck_assert_msg(in.exact >= 1, "inertia: no exact step in %" PetscInt_FMT " steps (fallbacks %" PetscInt_FMT ")", in.its, in.fallbacks);
  ck_assert_msg(in.exact + in.fallbacks < in.its,
                "inertia: %" PetscInt_FMT " exact + %" PetscInt_FMT " fallbacks in %" PetscInt_FMT " steps: the first is projected", in.exact,
                in.fallbacks, in.its);
  TestCall(SolveWith("-mfad_psd_switch never", PETSC_FALSE, &nv, &err));
  ck_assert_int_eq(err, 0);
  AssertReached("never", &nv);
  ck_assert_msg(nv.exact == 0 && nv.fallbacks == 0, "never: %" PetscInt_FMT " exact steps, %" PetscInt_FMT " fallbacks", nv.exact, nv.fallbacks);
  TestCall(SolveWith("", PETSC_FALSE, &au, &err)); /* the default, auto */
  ck_assert_int_eq(err, 0);
  AssertReached("auto", &au);
  ck_assert_msg(au.its == in.its && au.exact == in.exact && au.fallbacks == in.fallbacks,
                "auto (%" PetscInt_FMT " steps, %" PetscInt_FMT " exact) differs from inertia (%" PetscInt_FMT ", %" PetscInt_FMT ")", au.its,
                au.exact, in.its, in.exact);
}
END_TEST

/* TAO's Newton (nls) under the same policy */
START_TEST(tao_nls_takes_exact_steps)
{
  Outcome        o;
  PetscErrorCode err;

  TestCall(SolveWith("-tao_type nls -mfad_psd_switch inertia", PETSC_FALSE, &o, &err));
  ck_assert_int_eq(err, 0);
  AssertReached("tao nls inertia", &o);
  ck_assert_msg(o.exact >= 1, "tao nls: no exact step in %" PetscInt_FMT " steps", o.its);
}
END_TEST

/* A solver that factors nothing: auto projects in every step; inertia is an error that says what it needs */
START_TEST(without_inertia_auto_projects_inertia_is_an_error)
{
  Outcome        o;
  PetscErrorCode err;

  TestCall(SolveWith("-mfad_hessian aij -mfad_psd_project abs -ksp_type cg -pc_type jacobi", PETSC_TRUE, &o, &err));
  ck_assert_int_eq(err, 0);
  AssertReached("auto with CG", &o);
  ck_assert_msg(o.exact == 0 && o.fallbacks == 0, "auto with CG: %" PetscInt_FMT " exact steps", o.exact);
  TestCall(SolveWith("-mfad_hessian aij -mfad_psd_project abs -ksp_type cg -pc_type jacobi -mfad_psd_switch inertia", PETSC_TRUE, &o, &err));
  ck_assert_msg(err == PETSC_ERR_ARG_INCOMP, "inertia with CG: error %d, expected %d", (int)err, (int)PETSC_ERR_ARG_INCOMP);
  ck_assert_msg(!o.converged, "inertia with CG converged");
}
END_TEST

/* -mfad_psd_project_steps n is the switch steps with that count (n = -1: never); steps needs a count */
START_TEST(project_steps_is_an_alias)
{
  MfadEnergy     E;
  TestGrid       grid;
  MfadPSDSwitch  sw;
  PetscInt       steps;
  PetscErrorCode err;

  TestCall(TestGridCreate(2, 2, 2, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
  TestCall(MfadEnergyGetPSDSwitch(E, &sw));
  ck_assert_int_eq(sw, MFAD_PSD_SWITCH_AUTO);
  TestCall(MfadEnergySetPSDProjectionSteps(E, 3));
  TestCall(MfadEnergyGetPSDSwitch(E, &sw));
  ck_assert_int_eq(sw, MFAD_PSD_SWITCH_STEPS);
  TestCall(MfadEnergySetPSDProjectionSteps(E, -1));
  TestCall(MfadEnergyGetPSDSwitch(E, &sw));
  ck_assert_int_eq(sw, MFAD_PSD_SWITCH_NEVER);
  TestCall(PetscOptionsInsertString(NULL, "-mfad_psd_project_steps 4 -mfad_psd_switch inertia"));
  TestCall(MfadEnergySetFromOptions(E));
  TestCall(MfadEnergyGetPSDSwitch(E, &sw));
  TestCall(MfadEnergyGetPSDProjectionSteps(E, &steps));
  ck_assert_msg(sw == MFAD_PSD_SWITCH_INERTIA && steps == 4, "both given: switch %d, steps %d", (int)sw, (int)steps);
  TestCall(PetscOptionsClear(NULL));
  TestCall(MfadEnergySetPSDProjectionSteps(E, -1));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  err = MfadEnergySetPSDSwitch(E, MFAD_PSD_SWITCH_STEPS);
  TestCall(PetscPopErrorHandler());
  ck_assert_msg(err == PETSC_ERR_ARG_WRONG, "steps without a count: error %d", (int)err);
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("psdswitch");
  TCase   *tc = tcase_create("policies");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, inertia_takes_exact_steps_never_none);
  tcase_add_test(tc, tao_nls_takes_exact_steps);
  tcase_add_test(tc, without_inertia_auto_projects_inertia_is_an_error);
  tcase_add_test(tc, project_steps_is_an_alias);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
