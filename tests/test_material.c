// SPDX-License-Identifier: BSD-2-Clause
/* Material constants with their count (issue 46, item 4). MfadEnergyAddTermFromRest() and its mesh
   and DMPlex relatives read exactly the kernel's count of constants whatever the caller's array
   holds: 2 constants given to a kernel that reads 3 converged to a wrong energy. The ...WithMaterial
   calls take the count and refuse a mismatch, naming the function, the term, the kernel and both
   counts; on a right array they give the term the uncounted call gives; -mfad_view shows each term's
   constants. Run on 1 and 2 ranks (tests/core.cmake): the mesh and DMPlex calls are collective. */
#include "testutil.h"
#include <mfadmesh.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static PetscMPIInt rank, size;

/* neohookean_tet's material is (mu, lambda): .material = 2 and "material mu, lambda" in
   energies/neohookean_tet.c; mass_spring's is its stiffness (energies/mass_spring.c) */
static const PetscReal lame[2] = {3.0, 20.0}, stiffness = 7.0;

/* the box 2 x 2 x 2 (48 tets), every rank holding it whole */
static PetscErrorCode Box(MfadMesh *m)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  PetscCall(MfadMeshCreateBox(2, 2, 2, lo, hi, m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* E at its rest shape stretched by 10 % (a neo-Hookean energy > 0) */
static PetscErrorCode StretchedEnergy(MfadEnergy E, Vec X, PetscReal *f)
{
  PetscFunctionBeginUser;
  PetscCall(VecScale(X, 1.1));
  PetscCall(MfadEnergyComputeObjective(E, X, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(kernel_tells_its_material_count)
{
  MfadKernel k;
  PetscInt   n = -1;

  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(MfadKernelGetMaterialCount(k, &n));
  ck_assert_msg(n == 2, "neohookean_tet: %d material constants, its declaration says 2 (mu, lambda)", (int)n);
  TestCall(MfadKernelFind("mass_spring", &k));
  TestCall(MfadKernelGetMaterialCount(k, &n));
  ck_assert_msg(n == 1, "mass_spring: %d material constants, its declaration says 1 (the stiffness)", (int)n);
}
END_TEST

/* A short array (1 constant where the kernel reads 2), a long one, a NaN: refused by the three
   counted calls, with the function, the term, the kernel and both counts; no term is added. */
START_TEST(counted_calls_refuse_a_wrong_count)
{
  const PetscReal rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, three[3] = {3, 20, 1}, nan[2] = {3, NAN};
  const PetscInt  tet[4] = {0, 1, 2, 3};
  MfadEnergy      E;
  MfadKernel      k;
  MfadMesh        m;
  DM              dm;
  PetscErrorCode  ierr;
  PetscInt        n, nterms;

  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(MfadKernelGetMaterialCount(k, &n));
  TestCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 4, &E));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromRestWithMaterial(E, k, 1, tet, rest, n - 1, lame, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "FromRestWithMaterial, 1 of 2 constants",
                  "MfadEnergyAddTermFromRestWithMaterial: term 0 (kernel 'neohookean_tet') reads 2 material constants, 1 given", NULL);
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromRestWithMaterial(E, k, 1, tet, rest, 3, three, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "FromRestWithMaterial, 3 of 2 constants", "reads 2 material constants, 3 given", NULL);
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromRestWithMaterial(E, k, 1, tet, rest, n, nan, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "FromRestWithMaterial, a NaN constant", "term 0 (kernel 'neohookean_tet'): material constant 1 is nan", NULL);
  /* none of them added a term: the next is term 0 */
  TestCall(MfadEnergyAddTermFromRestWithMaterial(E, k, rank == 0 ? 1 : 0, tet, rest, n, lame, 1.0, &nterms));
  ck_assert_msg(nterms == 0, "the refused calls added %d terms", (int)nterms);
  TestCall(MfadEnergyDestroy(&E));

  TestCall(Box(&m));
  TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromMeshWithMaterial(E, m, k, n - 1, lame, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "FromMeshWithMaterial, 1 of 2 constants",
                  "MfadEnergyAddTermFromMeshWithMaterial: term 0 (kernel 'neohookean_tet') reads 2 material constants, 1 given", NULL);
  TestCall(MfadEnergyDestroy(&E));

  TestCall(MfadDMPlexCreateFromMesh(PETSC_COMM_WORLD, rank == 0 ? m : NULL, &dm));
  TestCall(MfadDMPlexDistribute(&dm, 0));
  TestCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromDMPlexWithMaterial(E, dm, k, MFAD_DMPLEX_CELLS, n - 1, lame, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "FromDMPlexWithMaterial, 1 of 2 constants",
                  "MfadEnergyAddTermFromDMPlexWithMaterial: term 0 (kernel 'neohookean_tet') reads 2 material constants, 1 given", NULL);
  TestCall(MfadEnergyDestroy(&E));
  TestCall(DMDestroy(&dm));
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* On a right array the counted calls add the term the uncounted ones add: the same energy, to the
   bit (the same elements through the same code), for the rest, mesh and DMPlex ways in. */
START_TEST(counted_calls_agree_with_the_uncounted_ones)
{
  MfadKernel k;
  MfadMesh   m;
  PetscReal  f[2];

  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(Box(&m));
  for (int counted = 0; counted < 2; counted++) { /* the mesh way in */
    MfadEnergy E;
    Vec        X;
    TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
    if (counted) TestCall(MfadEnergyAddTermFromMeshWithMaterial(E, m, k, 2, lame, 1.0, NULL));
    else TestCall(MfadEnergyAddTermFromMesh(E, m, k, lame, 1.0, NULL));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X));
    TestCall(StretchedEnergy(E, X, &f[counted]));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
  }
  ck_assert_msg(f[0] > 0 && f[1] == f[0], "mesh: counted call's energy %.17g, the uncounted one's %.17g (> 0 expected)", (double)f[1], (double)f[0]);
  for (int counted = 0; counted < 2; counted++) { /* the rest-shape way in: rank 0 adds every cell */
    MfadEnergy E;
    Vec        X;
    PetscInt   nc = rank == 0 ? m->ncell : 0;
    PetscReal *rest;
    TestCall(PetscMalloc1(12 * m->ncell, &rest));
    for (PetscInt i = 0; i < 4 * m->ncell; i++)
      for (int d = 0; d < 3; d++) rest[3 * i + d] = m->coords[3 * m->cells[i] + d];
    TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
    if (counted) TestCall(MfadEnergyAddTermFromRestWithMaterial(E, k, nc, m->cells, rest, 2, lame, 1.0, NULL));
    else TestCall(MfadEnergyAddTermFromRest(E, k, nc, m->cells, rest, lame, 1.0, NULL));
    TestCall(PetscFree(rest));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X));
    TestCall(StretchedEnergy(E, X, &f[counted]));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
  }
  ck_assert_msg(f[0] > 0 && f[1] == f[0], "rest: counted call's energy %.17g, the uncounted one's %.17g (> 0 expected)", (double)f[1], (double)f[0]);
  for (int counted = 0; counted < 2; counted++) { /* the DMPlex way in */
    MfadEnergy E;
    DM         dm;
    Vec        X;
    TestCall(MfadDMPlexCreateFromMesh(PETSC_COMM_WORLD, rank == 0 ? m : NULL, &dm));
    TestCall(MfadDMPlexDistribute(&dm, 0));
    TestCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
    if (counted) TestCall(MfadEnergyAddTermFromDMPlexWithMaterial(E, dm, k, MFAD_DMPLEX_CELLS, 2, lame, 1.0, NULL));
    else TestCall(MfadEnergyAddTermFromDMPlex(E, dm, k, MFAD_DMPLEX_CELLS, lame, 1.0, NULL));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(MfadEnergyCopyCoordinatesFromDMPlex(E, dm, X));
    TestCall(StretchedEnergy(E, X, &f[counted]));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(DMDestroy(&dm));
  }
  ck_assert_msg(f[0] > 0 && f[1] == f[0], "DMPlex: counted call's energy %.17g, the uncounted one's %.17g (> 0 expected)", (double)f[1],
                (double)f[0]);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* -mfad_view (viewed at the first evaluation) shows each term's material constants: the Lame
   constants of the tets, the stiffness of springs on the box's first edge */
START_TEST(mfad_view_shows_the_material)
{
  const PetscInt  edge[2] = {0, 1};
  const PetscReal rest[6] = {0, 0, 0, 0.5, 0, 0};
  char            path[64], opt[80], want[2][64], *log;
  MfadKernel      k, ks;
  MfadMesh        m;
  MfadEnergy      E;
  Vec             X;
  PetscReal       f;
  FILE           *fp;
  long            n;

  TestCall(PetscSNPrintf(path, sizeof path, "test_material_view_%d.txt", size)); /* 1 and 2 ranks may run at once */
  TestCall(PetscSNPrintf(opt, sizeof opt, "ascii:%s", path));
  snprintf(want[0], sizeof want[0], "material: %.15g %.15g\n", (double)lame[0], (double)lame[1]); /* "material: 3 20" */
  snprintf(want[1], sizeof want[1], "material: %.15g\n", (double)stiffness);
  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(MfadKernelFind("mass_spring", &ks));
  TestCall(Box(&m));
  TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
  TestCall(MfadEnergyAddTermFromMeshWithMaterial(E, m, k, 2, lame, 1.0, NULL));
  TestCall(MfadEnergyAddTermFromRestWithMaterial(E, ks, rank == 0 ? 1 : 0, edge, rest, 1, &stiffness, 1.0, NULL));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_view", opt));
  TestCall(MfadEnergySetFromOptions(E));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X));
  TestCall(MfadEnergyComputeObjective(E, X, &f));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_view"));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E)); /* closes the viewer's file */
  TestCall(MfadMeshDestroy(&m));
  TestCall(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) {
    fp = fopen(path, "r");
    ck_assert_msg(fp != NULL, "-mfad_view wrote no %s", path);
    fseek(fp, 0, SEEK_END);
    n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    log = malloc((size_t)n + 1);
    ck_assert_msg(fread(log, 1, (size_t)n, fp) == (size_t)n, "cannot read %s", path);
    log[n] = 0;
    fclose(fp);
    remove(path);
    /* each after its own term's line */
    ck_assert_msg(strstr(log, "term 0 'neohookean_tet'") && strstr(strstr(log, "term 0 'neohookean_tet'"), want[0]),
                  "-mfad_view lacks '%s' after term 0:\n%s", want[0], log);
    ck_assert_msg(strstr(log, "term 1 'mass_spring'") && strstr(strstr(log, "term 1 'mass_spring'"), want[1]),
                  "-mfad_view lacks '%s' after term 1:\n%s", want[1], log);
    free(log);
  }
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("material");
  TCase   *tc = tcase_create("material constants with their count");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  tcase_add_test(tc, kernel_tells_its_material_count);
  tcase_add_test(tc, counted_calls_refuse_a_wrong_count);
  tcase_add_test(tc, counted_calls_agree_with_the_uncounted_ones);
  tcase_add_test(tc, mfad_view_shows_the_material);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
