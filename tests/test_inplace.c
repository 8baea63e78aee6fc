// SPDX-License-Identifier: BSD-2-Clause
/* Operations that lend the caller's arrays to the energy's local vectors (src/compute.c,
   MfadEnergyLocalBegin_Private): where no rank has ghosts (one rank), the gradient, the HVP, the
   Hessian diagonal and the cached products write Y in place and read V in place, with no copy in and
   no reverse add out. Each output must overwrite whatever the caller's vector held (NaN here), equal
   the assembled Hessian's product and diagonal (and the gradient the objective's difference
   quotients), leave V as it was (the fixed entries are zeroed in a copy, not in V), and stay right
   where V is X, Y is X, or V and Y are two vectors on one array. Run on 1 rank (arrays lent) and 2
   (ghosts: the owned entries copied, the ghosts' added through their own scatter), springs with and
   without fixed dofs (tests/core.cmake). */
#include "testutil.h"
#include <math.h>

static PetscMPIInt rank, size;

/* the spring grid of testutil.h; `fixed`: its vertices at i = 0 fixed (TestGridEnergy), else none */
static PetscErrorCode Energy(const TestGrid *g, PetscBool fixed, MfadEnergy *E)
{
  PetscFunctionBeginUser;
  PetscCall(TestGridEnergy(PETSC_COMM_WORLD, g, E));
  if (!fixed) PetscCall(MfadEnergySetFixedDofs(*E, 0, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A - B| / |B| */
static PetscErrorCode RelDiff(Vec A, Vec B, PetscReal *d)
{
  Vec       T;
  PetscReal nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(A, &T));
  PetscCall(VecWAXPY(T, -1.0, B, A));
  PetscCall(VecNorm(T, NORM_2, d));
  PetscCall(VecNorm(B, NORM_2, &nb));
  *d = nb > 0 ? *d / nb : *d;
  PetscCall(VecDestroy(&T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* bitwise equal, every entry */
static PetscErrorCode Same(Vec A, Vec B, PetscBool *same)
{
  const PetscScalar *a, *b;
  PetscInt           n;

  PetscFunctionBeginUser;
  PetscCall(VecGetLocalSize(A, &n));
  PetscCall(VecGetArrayRead(A, &a));
  PetscCall(VecGetArrayRead(B, &b));
  *same = PETSC_TRUE;
  for (PetscInt i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof(a[i]))) *same = PETSC_FALSE;
  PetscCall(VecRestoreArrayRead(A, &a));
  PetscCall(VecRestoreArrayRead(B, &b));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, same, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void CheckOutputs(PetscBool fixed)
{
  TestGrid    g;
  MfadEnergy  E;
  Mat         A;
  Vec         X, V, V0, Y, Yref, D, Dref, G, Xp;
  PetscReal   d, fp, fm, gv;
  PetscBool   same;
  const char *which = fixed ? "with fixed dofs" : "without fixed dofs";

  TestCall(TestGridCreate(5, 4, 3, &g));
  TestCall(Energy(&g, fixed, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(TestGridPoint(&g, 0.1, 7, X));
  TestCall(TestGridPoint(&g, 1.0, 11, V)); /* nonzero at the fixed dofs too */
  TestCall(VecDuplicate(V, &V0));
  TestCall(VecCopy(V, V0));
  TestCall(VecDuplicate(V, &Y));
  TestCall(VecDuplicate(V, &Yref));
  TestCall(VecDuplicate(V, &D));
  TestCall(VecDuplicate(V, &Dref));
  TestCall(VecDuplicate(V, &G));
  TestCall(VecDuplicate(V, &Xp));
  TestCall(MfadEnergyCreateMatrix(E, &A));
  TestCall(MfadEnergyComputeHessian(E, X, A));
  TestCall(MatMult(A, V, Yref));
  TestCall(MatGetDiagonal(A, Dref));

  /* the fused HVP over NaN, twice (the second over the first's result): the assembled product */
  for (int k = 0; k < 2; k++) {
    if (!k) TestCall(VecSet(Y, NAN));
    TestCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    TestCall(RelDiff(Y, Yref, &d));
    ck_assert_msg(d < 1e-12, "%s: HVP (call %d, Y held %s) differs from the assembled product by %g", which, k + 1, k ? "the first result" : "NaN",
                  (double)d);
  }
  TestCall(Same(V, V0, &same));
  ck_assert_msg(same, "%s: the HVP changed V", which);
  /* the cached product and the diagonals */
  TestCall(VecSet(Y, NAN));
  TestCall(MfadEnergyCachedHessianProduct(E, X, V, Y));
  TestCall(RelDiff(Y, Yref, &d));
  ck_assert_msg(d < 1e-12, "%s: cached HVP over NaN differs from the assembled product by %g", which, (double)d);
  TestCall(Same(V, V0, &same));
  ck_assert_msg(same, "%s: the cached HVP changed V", which);
  TestCall(VecSet(D, NAN));
  TestCall(MfadEnergyComputeHessianDiagonal(E, X, D));
  TestCall(RelDiff(D, Dref, &d));
  ck_assert_msg(d < 1e-12, "%s: Hessian diagonal over NaN differs from the assembled one by %g", which, (double)d);
  TestCall(VecSet(D, NAN));
  TestCall(MfadEnergyCachedHessianDiagonal(E, X, D));
  TestCall(RelDiff(D, Dref, &d));
  ck_assert_msg(d < 1e-12, "%s: cached Hessian diagonal over NaN differs from the assembled one by %g", which, (double)d);

  /* the gradient over NaN: G . V against the objective's central difference along V */
  TestCall(VecSet(G, NAN));
  TestCall(MfadEnergyComputeGradient(E, X, G));
  TestCall(VecDot(G, V, &gv));
  TestCall(VecWAXPY(Xp, 1e-6, V, X));
  TestCall(MfadEnergyComputeObjective(E, Xp, &fp));
  TestCall(VecWAXPY(Xp, -1e-6, V, X));
  TestCall(MfadEnergyComputeObjective(E, Xp, &fm));
  d = PetscAbsReal((fp - fm) / 2e-6 - gv) / PetscMax(PetscAbsReal(gv), 1.0);
  ck_assert_msg(PetscIsNormalReal(gv) && d < 1e-6, "%s: gradient over NaN: G.V = %g, difference quotient %g", which, (double)gv,
                (double)((fp - fm) / 2e-6));

  /* aliases: V = X (H x); Y = X (the product of the point's Hessian, X overwritten) */
  TestCall(MatMult(A, X, Yref));
  TestCall(VecSet(Y, NAN));
  TestCall(MfadEnergyComputeHessianProduct(E, X, X, Y));
  TestCall(RelDiff(Y, Yref, &d));
  ck_assert_msg(d < 1e-12, "%s: HVP with V = X differs from the assembled product by %g", which, (double)d);
  TestCall(MatMult(A, V, Yref));
  TestCall(VecCopy(X, Xp));
  TestCall(MfadEnergyComputeHessianProduct(E, Xp, V, Xp));
  TestCall(RelDiff(Xp, Yref, &d));
  ck_assert_msg(d < 1e-12, "%s: HVP with Y = X differs from the assembled product by %g", which, (double)d);

  TestCall(MatDestroy(&A));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&V0));
  TestCall(VecDestroy(&Y));
  TestCall(VecDestroy(&Yref));
  TestCall(VecDestroy(&D));
  TestCall(VecDestroy(&Dref));
  TestCall(VecDestroy(&G));
  TestCall(VecDestroy(&Xp));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}

START_TEST(outputs_overwrite_the_caller_and_equal_the_assembled_hessian) { CheckOutputs(PETSC_FALSE); }
END_TEST

START_TEST(outputs_with_fixed_dofs_leave_v_as_it_was) { CheckOutputs(PETSC_TRUE); }
END_TEST

/* V and Y: two vectors on one array (VecPlaceArray). The product is H V as V was: V is read before
   Y is zeroed, so it is copied rather than lent */
START_TEST(v_and_y_on_one_array)
{
  TestGrid     g;
  MfadEnergy   E;
  Mat          A;
  Vec          X, V, Yref;
  PetscScalar *v;
  PetscReal    d;

  TestCall(TestGridCreate(5, 4, 3, &g));
  TestCall(Energy(&g, PETSC_FALSE, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(V, &Yref));
  TestCall(TestGridPoint(&g, 0.1, 7, X));
  TestCall(TestGridPoint(&g, 1.0, 11, V));
  TestCall(MfadEnergyCreateMatrix(E, &A));
  TestCall(MfadEnergyComputeHessian(E, X, A));
  TestCall(MatMult(A, V, Yref));
  {
    Vec Y;
    TestCall(VecDuplicate(V, &Y));
    TestCall(VecGetArray(V, &v));
    TestCall(VecPlaceArray(Y, v));
    TestCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    TestCall(VecResetArray(Y));
    TestCall(VecRestoreArray(V, &v));
    TestCall(VecDestroy(&Y));
  }
  TestCall(RelDiff(V, Yref, &d)); /* V's array holds the product now */
  ck_assert_msg(d < 1e-12, "HVP into Y on V's array differs from the assembled product by %g", (double)d);
  TestCall(MatDestroy(&A));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Yref));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("inplace");
  TCase   *tc = tcase_create("outputs written in place");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  tcase_add_test(tc, outputs_overwrite_the_caller_and_equal_the_assembled_hessian);
  tcase_add_test(tc, outputs_with_fixed_dofs_leave_v_as_it_was);
  tcase_add_test(tc, v_and_y_on_one_array);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
