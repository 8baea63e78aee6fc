// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyAddContact (src/contactterms.c) through a user's SNES with no solver option: a point
   pulled by a spring towards a target beyond a fixed triangle. Its first Newton step would pass
   through the triangle (the barrier is zero beyond dhat on both sides); the contact's collision
   bound caps it, the barrier then holds the point above the triangle, where its force balances the
   spring's. Without the bound (-mfad_step_bound 0) the point tunnels to the target: the test of the
   test. 1 and 2 ranks (rank 0 gives the whole surface). */
#include "testutil.h"
#include <string.h>

typedef struct {
  PetscReal z;                /* the point's height at the end */
  PetscInt  detections, cuts; /* the contact's detections, the steps cut */
  PetscBool converged;
} Outcome;

static PetscErrorCode Solve(const char *opts, Outcome *o)
{
  const PetscReal xyz[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0.25, 0.25, 0.5}, target[4] = {0.25, 0.25, -1, 1};
  const PetscInt  tri[3] = {0, 1, 2}, edge[6] = {0, 1, 1, 2, 2, 0}, point[1] = {3}, gid[4] = {0, 1, 2, 3}, fix[9] = {0, 1, 2, 3, 4, 5, 6, 7, 8},
                 pin[1]    = {3};
  MPI_Comm            comm = PETSC_COMM_WORLD;
  PetscMPIInt         rank;
  MfadEnergy          E;
  MfadContact         C;
  MfadKernel          spring;
  Vec                 X;
  SNES                snes;
  SNESConvergedReason reason;
  PetscInt            lo, hi;
  PetscScalar        *x;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof(*o)));
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(MfadEnergyCreate(comm, 3, PETSC_DECIDE, 4, &E));
  PetscCall(MfadKernelFind("pin_spring", &spring));
  PetscCall(MfadEnergyAddTerm(E, spring, rank ? 0 : 1, rank ? NULL : pin, rank ? NULL : target, 1.0, NULL));
  PetscCall(MfadEnergySetFixedDofs(E, rank ? 0 : 9, rank ? NULL : fix, rank ? NULL : xyz));
  PetscCall(MfadContactCreate(comm, &C));
  if (rank) PetscCall(MfadContactSetSurface(C, 0, NULL, 0, NULL, 0, NULL, 0, NULL)); /* rank 0 gives the whole surface */
  else PetscCall(MfadContactSetSurface(C, 4, gid, 1, tri, 3, edge, 1, point));
  PetscCall(MfadContactSetBarrier(C, 0.1, 1.0));
  PetscCall(MfadEnergyAddContact(E, C, NULL, NULL));
  PetscCall(MfadContactDestroy(&C)); /* E holds it */
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = lo; i < hi; i++) x[i - lo] = xyz[i];
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(SNESCreate(comm, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  o->converged = (PetscBool)(reason > 0);
  { /* the point's z, dof 11, on whichever rank owns it */
    PetscReal z = PETSC_MIN_REAL;
    PetscCall(VecGetArray(X, &x));
    if (11 >= lo && 11 < hi) z = PetscRealPart(x[11 - lo]);
    PetscCall(VecRestoreArray(X, &x));
    PetscCall(MPIU_Allreduce(&z, &o->z, 1, MPIU_REAL, MPIU_MAX, comm));
  }
  PetscCall(MfadEnergyGetContactDetections(E, &o->detections));
  PetscCall(MfadEnergyGetStepCuts(E, &o->cuts));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(the_bound_keeps_the_point_above)
{
  Outcome o;

  TestCall(Solve("", &o));
  ck_assert_msg(o.converged, "did not converge");
  ck_assert_msg(o.z > 0 && o.z < 0.1, "the point ends at z = %g, expected above the triangle within dhat 0.1", (double)o.z);
  ck_assert_msg(o.detections >= 1 && o.cuts >= 1, "%" PetscInt_FMT " detections, %" PetscInt_FMT " steps cut", o.detections, o.cuts);
  TestCall(Solve("-mfad_step_bound 0", &o)); /* the test of the test */
  ck_assert_msg(o.z < 0, "without the bound the point ends at z = %g: expected it to tunnel below the triangle", (double)o.z);
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("contactterms");
  TCase   *tc = tcase_create("contact");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_add_test(tc, the_bound_keeps_the_point_above);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
