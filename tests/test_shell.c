// SPDX-License-Identifier: BSD-2-Clause
/* The PETSc glue: the Hessian shell's operations, and SNES/TAO solvers chosen by options
   minimising the spring grid. The grid's springs are at rest length in the rest shape, and the
   fixed vertices sit at their rest positions, so the exact minimiser is the rest shape (E = 0,
   E >= 0 everywhere): every solver must return it. */
#include "testutil.h"
#include <stdlib.h>
#include <string.h>

static TestGrid grid;

START_TEST(shell_operations_match_the_energy)
{
  MfadEnergy         E;
  Mat                H;
  Vec                X, V, Y1, Y2, D;
  PetscReal          err, nrm;
  const PetscScalar *inv, *y;
  PetscInt           n;
  PetscBool          sym, set;

  TestCall(TestGridCreate(4, 3, 3, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(X, &Y1));
  TestCall(VecDuplicate(X, &Y2));
  TestCall(VecDuplicate(X, &D));
  TestCall(TestGridPoint(&grid, 0.05, 1, X));
  TestCall(TestGridPoint(&grid, 1.0, 2, V));
  TestCall(MfadEnergyCreateHessianShell(E, &H));
  TestCall(MfadHessianShellSetPoint(H, X));
  TestCall(MatIsSymmetricKnown(H, &set, &sym));
  ck_assert_msg(set && sym, "the shell must be marked symmetric");
  /* MatMult and MatMultTranspose are the energy's HVP, bit for bit */
  TestCall(MatMult(H, V, Y1));
  TestCall(MfadEnergyComputeHessianProduct(E, X, V, Y2));
  TestCall(VecAXPY(Y2, -1.0, Y1));
  TestCall(VecNorm(Y2, NORM_INFINITY, &err));
  ck_assert_msg(err == 0.0, "MatMult differs from ComputeHessianProduct by %g", err);
  TestCall(MatMultTranspose(H, V, Y2));
  TestCall(VecAXPY(Y2, -1.0, Y1));
  TestCall(VecNorm(Y2, NORM_INFINITY, &err));
  ck_assert_msg(err == 0.0, "MatMultTranspose differs from MatMult by %g", err);
  /* the diagonal, and the inverted vertex blocks: B_i (B_i^-1 r_i) = r_i, B_i from H e_j */
  TestCall(MatGetDiagonal(H, D));
  TestCall(MfadEnergyComputeHessianDiagonal(E, X, Y2));
  TestCall(VecAXPY(Y2, -1.0, D));
  TestCall(VecNorm(Y2, NORM_INFINITY, &err));
  ck_assert_msg(err == 0.0, "MatGetDiagonal differs from ComputeHessianDiagonal by %g", err);
  TestCall(MatInvertBlockDiagonal(H, &inv));
  TestCall(VecGetSize(X, &n));
  for (PetscInt vtx = 0; vtx < n / 3; vtx++) {
    double B[9];
    for (int j = 0; j < 3; j++) { /* column j of vertex block vtx */
      TestCall(VecZeroEntries(V));
      TestCall(VecSetValue(V, 3 * vtx + j, 1.0, INSERT_VALUES));
      TestCall(VecAssemblyBegin(V));
      TestCall(VecAssemblyEnd(V));
      TestCall(MatMult(H, V, Y1));
      TestCall(VecGetArrayRead(Y1, &y));
      for (int i = 0; i < 3; i++) B[3 * i + j] = y[3 * vtx + i];
      TestCall(VecRestoreArrayRead(Y1, &y));
    }
    nrm = 0;
    for (int i = 0; i < 9; i++) nrm = PetscMax(nrm, fabs(B[i]));
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        double s = 0;
        for (int k = 0; k < 3; k++) s += B[3 * i + k] * inv[9 * vtx + 3 * k + j];
        /* a 3x3 inverse: residual ~ cond * eps */
        ck_assert_msg(fabs(s - (i == j)) < 1e-10, "vertex %d: (B B^-1)_%d%d = %.3e", (int)vtx, i, j, s);
      }
  }
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Y1));
  TestCall(VecDestroy(&Y2));
  TestCall(VecDestroy(&D));
  TestCall(MatDestroy(&H));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
}
END_TEST

/* One Neo-Hookean tet, inverted by moving a vertex through the opposite face: the energy is
   +inf (not NaN, not PETSc's finite PETSC_INFINITY), the energy reports a domain error, and the
   SNES function callback turns it into a SNES domain error. */
START_TEST(inverted_element_is_inf_and_a_domain_error)
{
  MfadEnergy     E;
  MfadKernel     nh;
  SNES           snes;
  Vec            X, F;
  PetscInt       conn[4] = {0, 1, 2, 3};
  double         rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 10.0};
  PetscScalar   *x;
  PetscReal      f;
  PetscBool      bad;

  TestCall(MfadKernelFind("neohookean_tet", &nh));
  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, 4, 4, &E));
  TestCall(MfadEnergyAddTermFromRest(E, nh, 1, conn, rest, mat, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, &F));
  TestCall(VecGetArray(X, &x));
  for (int i = 0; i < 12; i++) x[i] = rest[i];
  TestCall(VecRestoreArray(X, &x));
  TestCall(MfadEnergyComputeObjective(E, X, &f));
  TestCall(MfadEnergyGetDomainError(E, &bad));
  ck_assert_msg(fabs(f) < 1e-15 && !bad, "rest shape: energy %g (expected 0 to round-off), domain error %d", f, (int)bad);
  TestCall(VecSetValue(X, 11, -0.5, INSERT_VALUES)); /* vertex 3 below the face (0, 1, 2): J = -0.5 */
  TestCall(VecAssemblyBegin(X));
  TestCall(VecAssemblyEnd(X));
  TestCall(MfadEnergyComputeObjective(E, X, &f));
  TestCall(MfadEnergyGetDomainError(E, &bad));
  ck_assert_msg(isinf(f) && f > 0 && bad, "inverted: energy %g (expected +inf), domain error %d", f, (int)bad);
  TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
  TestCall(MfadEnergySetSNES(E, snes));
  TestCall(SNESComputeFunction(snes, X, F));
  TestCall(TestSNESGetFunctionDomainError(snes, &bad));
  ck_assert_msg(bad, "the SNES function callback must flag the domain error");
  TestCall(SNESDestroy(&snes));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&F));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

/* options (space separated) for one run of SNES or TAO */
static const char *configs[] = {
  "-snes_type newtonls -ksp_type cg -pc_type jacobi",
  "-snes_type newtonls -ksp_type minres -pc_type none",
  "-snes_type newtonls -ksp_type gmres -pc_type pbjacobi",
  "-snes_type newtonls -snes_linesearch_type cp -ksp_type cg",
  "-snes_type newtonls -snes_linesearch_type l2 -ksp_type cg",
  "-snes_type newtontr -ksp_type cg",
  "-snes_type qn -snes_max_it 2000",
  "-snes_type ngmres -snes_linesearch_type bt -snes_max_it 2000",
  "-snes_type ncg -snes_ncg_type dy -snes_linesearch_type bt -snes_max_it 20000", /* prp, fr and hs stop with DIVERGED_LINE_SEARCH on PETSc 3.26; dy converges on 3.18 and 3.26 */
  "-tao_type nls",
  "-tao_type ntr",
  "-tao_type lmvm -tao_gatol 1e-6 -tao_max_it 2000", /* L-BFGS stalls near 1e-6 here (TAO 3.18 line search) */
  "-tao_type bncg -tao_max_it 5000",
};

static PetscErrorCode SolveWith(const char *opts, PetscReal *xerr, PetscBool *converged)
{
  MfadEnergy E;
  Vec        X, R;
  PetscBool  tao;
  PetscReal  nr;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  if (getenv("TEST_SHELL_OPTIONS")) PetscCall(PetscOptionsInsertString(NULL, getenv("TEST_SHELL_OPTIONS"))); /* e.g. monitors, when debugging */
  tao = strstr(opts, "-tao_") ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(TestGridCreate(5, 3, 3, &grid));
  PetscCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, &R));
  PetscCall(TestGridPoint(&grid, 0.05, 42, X));
  if (tao) {
    Tao                tao_;
    TaoConvergedReason reason;
    PetscCall(TaoCreate(PETSC_COMM_SELF, &tao_));
    PetscCall(MfadEnergySetTao(E, tao_));
    PetscCall(TaoSetSolution(tao_, X));
    PetscCall(TaoSetTolerances(tao_, 1e-9, 0, 0));
    PetscCall(TaoSetFromOptions(tao_));
    PetscCall(TaoSolve(tao_));
    PetscCall(TaoGetConvergedReason(tao_, &reason));
    *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(TaoDestroy(&tao_));
  } else {
    SNES                snes;
    SNESConvergedReason reason;
    PetscCall(SNESCreate(PETSC_COMM_SELF, &snes));
    PetscCall(MfadEnergySetSNES(E, snes));
    PetscCall(SNESSetTolerances(snes, 1e-9, 1e-12, 0, 100, 100000));
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(SNESSolve(snes, NULL, X));
    PetscCall(SNESGetConvergedReason(snes, &reason));
    *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(SNESDestroy(&snes));
  }
  /* distance to the exact minimiser, the rest shape */
  {
    PetscScalar *r;
    PetscCall(VecGetArray(R, &r));
    for (PetscInt i = 0; i < 3 * grid.nvert; i++) r[i] = grid.rest[i];
    PetscCall(VecRestoreArray(R, &r));
  }
  PetscCall(VecAXPY(R, -1.0, X));
  PetscCall(VecNorm(R, NORM_INFINITY, &nr));
  *xerr = nr;
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&R));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(TestGridDestroy(&grid));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(solvers_from_options_reach_the_rest_shape)
{
  PetscReal xerr;
  PetscBool conv;
  TestCall(SolveWith(configs[_i], &xerr, &conv));
  ck_assert_msg(conv, "'%s' did not converge", configs[_i]);
  /* |g| <= 1e-9 and lambda_min(H) ~ 0.1 at the rest shape: |x - x*| <~ 1e-8 */
  {
    const double bound = strstr(configs[_i], "gatol 1e-6") ? 1e-4 : 1e-6; /* |g| / lambda_min */
    ck_assert_msg(xerr < bound, "'%s': |x - rest|_inf = %.3e, bound %.0e", configs[_i], xerr, bound);
  }
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("shell");
  TCase   *tc = tcase_create("solvers");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, shell_operations_match_the_energy);
  tcase_add_test(tc, inverted_element_is_inf_and_a_domain_error);
  tcase_add_loop_test(tc, solvers_from_options_reach_the_rest_shape, 0, (int)(sizeof(configs) / sizeof(configs[0])));
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
