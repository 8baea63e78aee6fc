// SPDX-License-Identifier: BSD-2-Clause
/* Backends registered by name (src/backend.c): a backend made outside mfad's files, "counting" (the
   CPU's table with every call counted, and no stacked least-squares residual), is chosen by
   MfadEnergySetType() and -mfad_backend and its entries are the ones called; an entry it lacks is
   an error naming the backend and the entry; an unknown name is an error listing the registered
   ones; a create that fails leaves the energy on its backend. Wrapping the CPU, its results are the
   CPU's bit for bit (the same loops in the same order). This test is the backend interface's user:
   it includes the private header a backend is written against, as a backend's files do. */
#define MFAD_IMPL_ALLOWED 1 /* a backend is written against the private header and the complete kernel (machinery) */
#include "testutil.h"
#include "mfadimpl.h"

static PetscErrorCode (*CpuCreate)(MfadEnergy);
static MfadBackendOps CpuOps;
static struct {
  int      create, setup, reset, termchanged, destroy, destroy_data, runterms[MFAD_OP_COUNT];
  PetscInt term; /* the last termchanged's */
} Count;
static const char *CountingData = "counting backend's state"; /* what E->data holds */

static PetscErrorCode CountingSetUp(MfadEnergy E)
{
  PetscFunctionBeginUser;
  Count.setup++;
  if (CpuOps.setup) PetscCall(CpuOps.setup(E));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode CountingReset(MfadEnergy E)
{
  PetscFunctionBeginUser;
  Count.reset++;
  if (CpuOps.reset) PetscCall(CpuOps.reset(E));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode CountingTermChanged(MfadEnergy E, PetscInt term)
{
  PetscFunctionBeginUser;
  Count.termchanged++;
  Count.term = term;
  if (CpuOps.termchanged) PetscCall(CpuOps.termchanged(E, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode CountingDestroy(MfadEnergy E)
{
  PetscFunctionBeginUser;
  Count.destroy++;
  Count.destroy_data += E->data == (void *)CountingData;
  E->data = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode CountingRunTerms(MfadEnergy E, MfadOp op, PetscReal *value)
{
  PetscFunctionBeginUser;
  Count.runterms[op]++;
  PetscCall(CpuOps.runterms(E, op, value));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CountingCreate(MfadEnergy E)
{
  PetscFunctionBeginUser;
  PetscCall(CpuCreate(E)); /* the CPU's table, then ours over it */
  CpuOps              = *E->ops;
  E->ops->setup       = CountingSetUp;
  E->ops->reset       = CountingReset;
  E->ops->termchanged = CountingTermChanged;
  E->ops->destroy     = CountingDestroy;
  E->ops->runterms    = CountingRunTerms;
  E->ops->residual    = NULL; /* lacks the stacked least-squares residual */
  E->data             = (void *)CountingData;
  Count.create++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode BrokenCreate(MfadEnergy E)
{
  PetscFunctionBeginUser;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP_SYS, "broken backend: no device answers");
}

static void ExpectType(MfadEnergy E, const char *want, const char *when)
{
  MfadEnergyType type;
  TestCall(MfadEnergyGetType(E, &type));
  ck_assert_msg(type && !strcmp(type, want), "%s: type '%s', expected '%s'", when, type ? type : "(null)", want);
}

/* objective, gradient and Hessian product at the grid's point */
static PetscErrorCode Evaluate(MfadEnergy E, const TestGrid *g, PetscReal *f, Vec G, Vec Y)
{
  Vec X, V;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(TestGridPoint(g, 0.1, 7, X));
  PetscCall(TestGridPoint(g, 1.0, 8, V));
  PetscCall(MfadEnergyComputeObjective(E, X, f));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(registered_backend_is_chosen_and_its_entries_run)
{
  TestGrid   g;
  MfadEnergy E, C;
  Vec        G0, Y0, G, Y;
  PetscReal  f0, f;
  PetscBool  same;

  TestCall(TestGridCreate(4, 3, 3, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &C));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  ExpectType(E, MFAD_ENERGY_CPU, "a new energy");
  memset(&Count, 0, sizeof(Count));
  TestCall(MfadEnergySetType(E, "counting"));
  ExpectType(E, "counting", "MfadEnergySetType(counting)");
  ck_assert_msg(Count.create == 1, "create called %d times, expected 1", Count.create);
  TestCall(MfadEnergyCreateVecs(C, &G0, &Y0));
  TestCall(MfadEnergyCreateVecs(E, &G, &Y));
  TestCall(Evaluate(C, &g, &f0, G0, Y0));
  TestCall(Evaluate(E, &g, &f, G, Y));
  ck_assert_msg(Count.setup == 1, "set-up entry called %d times, expected 1", Count.setup);
  ck_assert_msg(Count.runterms[MFAD_OP_VALUE] == 1 && Count.runterms[MFAD_OP_GRADIENT] == 1 && Count.runterms[MFAD_OP_HVP] == 1,
                "element loops: value %d, gradient %d, product %d; expected 1 each", Count.runterms[MFAD_OP_VALUE], Count.runterms[MFAD_OP_GRADIENT],
                Count.runterms[MFAD_OP_HVP]);
  /* the CPU's loops in the CPU's order: the same numbers */
  ck_assert_msg(f == f0, "objective %.17g, the CPU's %.17g", (double)f, (double)f0);
  TestCall(VecEqual(G, G0, &same));
  ck_assert_msg(same, "gradient differs from the CPU's");
  TestCall(VecEqual(Y, Y0, &same));
  ck_assert_msg(same, "Hessian product differs from the CPU's");
  { /* an element set given after set-up reaches the backend, naming the term */
    PetscInt   conn[2] = {0, 1};
    PetscReal  params[16];
    PetscInt   nparam;
    MfadKernel k;
    TestCall(MfadKernelFind("mass_spring", &k));
    nparam = k->nparam;
    ck_assert_msg(nparam <= 16, "mass_spring has %d parameters", (int)nparam);
    for (PetscInt i = 0; i < nparam; i++) params[i] = 1.0;
    TestCall(MfadEnergySetTermElements(E, 0, 1, conn, params));
    ck_assert_msg(Count.termchanged == 1 && Count.term == 0, "term-changed entry called %d times (term %d), expected once for term 0",
                  Count.termchanged, (int)Count.term);
  }
  { /* the enum API knows the built-in backends only */
    MfadBackend    b;
    PetscErrorCode ierr;
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergyGetBackend(E, &b);
    TestCall(PetscPopErrorHandler());
    TestExpectError(ierr, "MfadEnergyGetBackend on 'counting'", "'counting'", "MfadEnergyGetType");
  }
  /* back to the CPU: the counting backend lets go of its set-up and its state */
  TestCall(MfadEnergySetBackend(E, MFAD_BACKEND_CPU));
  ExpectType(E, MFAD_ENERGY_CPU, "MfadEnergySetBackend(CPU)");
  ck_assert_msg(Count.reset >= 1 && Count.destroy == 1 && Count.destroy_data == 1,
                "leaving: reset %d, destroy %d (with its state %d); expected >= 1, 1, 1", Count.reset, Count.destroy, Count.destroy_data);
  {
    MfadBackend b;
    TestCall(MfadEnergyGetBackend(E, &b));
    ck_assert_msg(b == MFAD_BACKEND_CPU, "MfadEnergyGetBackend: %d, expected MFAD_BACKEND_CPU", (int)b);
  }
  TestCall(MfadEnergyDestroy(&E));
  /* -mfad_backend takes the registered name; destroying the energy destroys the backend's state */
  memset(&Count, 0, sizeof(Count));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_backend", "counting"));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  TestCall(MfadEnergySetFromOptions(E));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_backend"));
  ExpectType(E, "counting", "-mfad_backend counting");
  TestCall(Evaluate(E, &g, &f, G, Y));
  ck_assert_msg(f == f0 && Count.runterms[MFAD_OP_VALUE] == 1, "-mfad_backend counting: objective %.17g (the CPU's %.17g), %d value loops", (double)f,
                (double)f0, Count.runterms[MFAD_OP_VALUE]);
  TestCall(MfadEnergyDestroy(&E));
  ck_assert_msg(Count.destroy == 1 && Count.destroy_data == 1, "MfadEnergyDestroy: backend destroy %d (with its state %d), expected 1", Count.destroy,
                Count.destroy_data);
  TestCall(VecDestroy(&G0));
  TestCall(VecDestroy(&Y0));
  TestCall(VecDestroy(&G));
  TestCall(VecDestroy(&Y));
  TestCall(MfadEnergyDestroy(&C));
  TestCall(TestGridDestroy(&g));
}
END_TEST

/* a least-squares energy: arap_tri_lsq on the two triangles of a unit square (rest in the plane
   z = 0), vertex 0 fixed, at the square stretched in x and squeezed in y */
static PetscErrorCode LeastSquaresEnergy(MfadEnergy *E, Vec *X)
{
  const PetscInt  conn[6] = {0, 1, 3, 0, 3, 2}, fix[2] = {0, 1};
  const PetscReal corner[4][2] = {
      {0, 0},
      {1, 0},
      {0, 1},
      {1, 1}
  };
  PetscReal    rest[18];
  MfadKernel   k;
  PetscScalar *x;

  PetscFunctionBeginUser;
  for (int c = 0; c < 6; c++) rest[3 * c] = corner[conn[c]][0], rest[3 * c + 1] = corner[conn[c]][1], rest[3 * c + 2] = 0.0;
  PetscCall(MfadKernelFind("arap_tri_lsq", &k));
  PetscCall(MfadEnergyCreate(PETSC_COMM_SELF, 2, 4, 4, E));
  PetscCall(MfadEnergyAddTermFromRest(*E, k, 2, conn, rest, NULL, 1.0, NULL));
  PetscCall(MfadEnergySetFixedDofs(*E, 2, fix, NULL));
  PetscCall(MfadEnergyCreateVecs(*E, X, NULL));
  PetscCall(VecGetArray(*X, &x));
  for (int v = 0; v < 4; v++) x[2 * v] = 1.1 * corner[v][0], x[2 * v + 1] = 0.9 * corner[v][1];
  PetscCall(VecRestoreArray(*X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(missing_entry_is_an_error_naming_backend_and_entry)
{
  MfadEnergy     E;
  Vec            X, R;
  PetscReal      f;
  PetscErrorCode ierr;

  TestCall(LeastSquaresEnergy(&E, &X));
  TestCall(MfadEnergySetType(E, "counting"));
  TestCall(MfadEnergyCreateResidualVec(E, &R));
  TestCall(MfadEnergyComputeObjective(E, X, &f)); /* the entries it has run */
  ck_assert_msg(f > 0, "least-squares objective %g at a stretched point, expected > 0", (double)f);
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyComputeResidual(E, X, R);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergyComputeResidual on a backend without it", "backend 'counting' has no least-squares residual", "(op residual)");
  ck_assert_msg(ierr == PETSC_ERR_SUP, "error %d, expected PETSC_ERR_SUP (%d)", (int)ierr, (int)PETSC_ERR_SUP);
  TestCall(MfadEnergySetType(E, MFAD_ENERGY_CPU)); /* the CPU has every entry */
  TestCall(MfadEnergyComputeResidual(E, X, R));
  {
    PetscReal r2;
    TestCall(VecDot(R, R, &r2));
    /* f = 1/2 |r|^2 (arap_tri_lsq's sum); the same terms summed in two orders: 1e-12 relative */
    ck_assert_msg(PetscAbsReal(0.5 * r2 - f) <= 1e-12 * f, "1/2 |r|^2 = %.17g, objective %.17g", (double)(0.5 * r2), (double)f);
  }
  TestCall(VecDestroy(&R));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

START_TEST(unknown_backend_lists_the_registered_ones)
{
  TestGrid       g;
  MfadEnergy     E;
  PetscErrorCode ierr;

  TestCall(TestGridCreate(3, 2, 2, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_backend", "nosuch"));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetFromOptions(E);
  TestCall(PetscPopErrorHandler());
  TestCall(PetscOptionsClearValue(NULL, "-mfad_backend"));
  TestExpectError(ierr, "-mfad_backend nosuch", "unknown backend 'nosuch'", "the registered ones are cpu, cuda, counting");
  ck_assert_msg(ierr == PETSC_ERR_ARG_UNKNOWN_TYPE, "error %d, expected PETSC_ERR_ARG_UNKNOWN_TYPE (%d)", (int)ierr, (int)PETSC_ERR_ARG_UNKNOWN_TYPE);
  ExpectType(E, MFAD_ENERGY_CPU, "after -mfad_backend nosuch");
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}
END_TEST

START_TEST(failed_create_keeps_the_backend)
{
  TestGrid       g;
  MfadEnergy     E;
  Vec            G, Y;
  PetscReal      f0, f;
  PetscErrorCode ierr;

  TestCall(TestGridCreate(3, 2, 2, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  TestCall(MfadEnergyCreateVecs(E, &G, &Y));
  TestCall(MfadEnergySetType(E, "counting"));
  TestCall(Evaluate(E, &g, &f0, G, Y));
  memset(&Count, 0, sizeof(Count));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetType(E, "broken");
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergySetType(broken)", "no device answers", NULL);
  ExpectType(E, "counting", "after a failed MfadEnergySetType(broken)");
  ck_assert_msg(Count.reset == 0 && Count.destroy == 0, "a failed switch reset (%d) or destroyed (%d) the backend in use", Count.reset,
                Count.destroy);
  TestCall(Evaluate(E, &g, &f, G, Y));
  ck_assert_msg(f == f0 && Count.runterms[MFAD_OP_VALUE] == 1, "after the failed switch: objective %.17g (before %.17g), %d counted value loops",
                (double)f, (double)f0, Count.runterms[MFAD_OP_VALUE]);
  /* the enum API: CUDA where it is not compiled or no device answers is refused the same way */
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetBackend(E, MFAD_BACKEND_CUDA);
  TestCall(PetscPopErrorHandler());
  if (ierr) ExpectType(E, "counting", "after a refused MfadEnergySetBackend(CUDA)");
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetBackend(E, (MfadBackend)7);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergySetBackend(7)", "unknown backend 7", NULL);
  TestCall(VecDestroy(&G));
  TestCall(VecDestroy(&Y));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("backend");
  TCase   *tc = tcase_create("registry");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MfadEnergyRegister("counting", CountingCreate));
  PetscCall(MfadEnergyRegister("broken", BrokenCreate));
  PetscCall(PetscFunctionListFind(MfadEnergyList, MFAD_ENERGY_CPU, &CpuCreate));
  tcase_add_test(tc, registered_backend_is_chosen_and_its_entries_run);
  tcase_add_test(tc, missing_entry_is_an_error_naming_backend_and_entry);
  tcase_add_test(tc, unknown_backend_lists_the_registered_ones);
  tcase_add_test(tc, failed_create_keeps_the_backend);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
