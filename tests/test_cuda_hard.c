// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend's hardening (issue 49, item 2), in the emulation (mfad_cudaemu: the .cu files of src/cuda/ and
   the energy kernels compiled by the host C++ compiler under include/mfad/impl/cuda_emulate.h),
   where the device's failures can be planted:
   - the PSD projection in chunks smaller than a term is bitwise the projection of the whole term,
     with the eigensolver never given more than a chunk;
   - an element Hessian on which the batched Jacobi does not converge takes the CPU's projection
     (the result is the CPU backend's), one with a NaN is an error naming its term and element, and
     a failing cuSOLVER call is reported by its cuSOLVER status;
   - the point is copied to the device once per new point, whatever is computed at it;
   - a new element set of one term uploads that term only, and results follow the CPU's;
   - -mfad_cuda_sync names the kernel that faulted.
   Springs of tests/testutil.h (mass_spring, 6 x 6 element Hessians, indefinite when compressed). */
#include "cuda_testutil.h"
#include <string.h>

extern long long mfad_cuda_emu_copies[5], mfad_cuda_emu_bytes[5], mfad_cuda_emu_syevj_calls, mfad_cuda_emu_syevj_max_batch;
extern void      mfad_cuda_emu_reset(void);

/* the springs on the CPU (C) and on the emulated GPU (G), with the projection asked for */
static void Springs(const TestGrid *g, MfadPSDProjection psd, MfadEnergy *C, MfadEnergy *G)
{
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, g, C));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, g, G));
  TestCall(MfadEnergySetPSDProjection(*C, psd, 0.0));
  TestCall(MfadEnergySetPSDProjection(*G, psd, 0.0));
  TestCall(MfadEnergySetBackend(*G, MFAD_BACKEND_CUDA));
}

/* the vectors of a comparison: the point X (the grid with noise, seed xseed), the direction V
   (seed vseed) and outputs Yc, Yg (CPU, GPU; either may be NULL) */
static void PointVecs(const TestGrid *g, MfadEnergy C, PetscReal noise, int xseed, int vseed, Vec *X, Vec *V, Vec *Yc, Vec *Yg)
{
  TestCall(MfadEnergyCreateVecs(C, X, V));
  if (Yc) TestCall(VecDuplicate(*X, Yc));
  if (Yg) TestCall(VecDuplicate(*X, Yg));
  TestCall(TestGridPoint(g, noise, xseed, *X));
  TestCall(TestGridPoint(g, 1.0, vseed, *V));
}

/* what a test made: its vectors (NULL: none), the two energies, the grid */
static void Teardown(TestGrid *g, MfadEnergy *C, MfadEnergy *G, Vec *X, Vec *V, Vec *Yc, Vec *Yg)
{
  Vec *vecs[] = {X, V, Yc, Yg};
  for (int i = 0; i < 4; i++)
    if (vecs[i]) TestCall(VecDestroy(vecs[i]));
  TestCall(MfadEnergyDestroy(C));
  TestCall(MfadEnergyDestroy(G));
  TestCall(TestGridDestroy(g));
}

/* A - B exactly 0 (the same values bitwise, NaN apart) */
static PetscReal MatDiff(Mat A, Mat B)
{
  Mat       D;
  PetscReal n;
  TestCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  TestCall(MatAXPY(D, -1.0, B, SAME_NONZERO_PATTERN));
  TestCall(MatNorm(D, NORM_FROBENIUS, &n));
  TestCall(MatDestroy(&D));
  return n;
}

/* ------------------------------------------------------------------ the PSD projection */
/* abs projection (every element through the eigensolver) in chunks of 5 elements: the assembled
   Hessian is bitwise the one projected in one batch, the solver never saw more than 5 matrices,
   and it was called once per chunk; both match the CPU */
START_TEST(psd_chunks_are_bitwise_the_whole_term)
{
  TestGrid   g;
  MfadEnergy C, G, G5;
  Vec        X, V, Yc, Yg;
  Mat        A, A5, Ac;
  PetscInt   nelem;
  const int  chunk = 5;

  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_ABS, &C, &G);
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &G5));
  TestCall(MfadEnergySetPSDProjection(G5, MFAD_PSD_ABS, 0.0));
  TestCall(MfadEnergySetBackend(G5, MFAD_BACKEND_CUDA));
  PointVecs(&g, C, 0.2, 31, 5, &X, &V, &Yc, &Yg); /* large noise: compressed springs, indefinite element Hessians */
  TestCall(MfadEnergyCreateMatrix(C, &Ac));
  TestCall(MfadEnergyCreateMatrix(G, &A));
  TestCall(MfadEnergyCreateMatrix(G5, &A5));
  TestCall(MfadEnergyComputeHessian(C, X, Ac));
  TestCall(MfadEnergyComputeHessian(G, X, A));
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_PSD_CHUNK", "5", 1), 0);
  mfad_cuda_emu_syevj_calls = mfad_cuda_emu_syevj_max_batch = 0;
  TestCall(MfadEnergyComputeHessian(G5, X, A5));
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_PSD_CHUNK"), 0);
  nelem = g.nelem; /* one rank: every spring */
  ck_assert_msg(nelem > 3 * chunk, "the term has %d elements: no chunks to prove", (int)nelem);
  ck_assert_msg(mfad_cuda_emu_syevj_max_batch <= chunk, "the eigensolver got %lld matrices at once, chunk %d", mfad_cuda_emu_syevj_max_batch, chunk);
  ck_assert_msg(mfad_cuda_emu_syevj_calls == (nelem + chunk - 1) / chunk, "%lld eigensolver calls for %d elements in chunks of %d",
                mfad_cuda_emu_syevj_calls, (int)nelem, chunk);
  ck_assert_msg(MatDiff(A5, A) == 0.0, "chunked and whole projections differ by %g (Frobenius)", (double)MatDiff(A5, A));
  TestCall(MatMult(Ac, V, Yc));
  TestCall(MatMult(A5, V, Yg));
  CudaCompareVecs(Yg, Yc, "chunked projected Hessian times v");
  /* the cache (packed element Hessians) in chunks too */
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_PSD_CHUNK", "5", 1), 0);
  TestCall(MfadEnergyCachedHessianProduct(G5, X, V, Yg));
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_PSD_CHUNK"), 0);
  TestCall(MfadEnergyCachedHessianProduct(C, X, V, Yc));
  CudaCompareVecs(Yg, Yc, "chunked projected cache times v");
  TestCall(MatDestroy(&A));
  TestCall(MatDestroy(&A5));
  TestCall(MatDestroy(&Ac));
  TestCall(MfadEnergyDestroy(&G5));
  Teardown(&g, &C, &G, &X, &V, &Yc, &Yg);
}
END_TEST

/* The eigensolver stopped after one sweep (info = n + 1 for every matrix): the projection reads
   the info flag and projects those on the host, as the CPU does; one Jacobi sweep alone leaves
   off-diagonal entries of the order of the matrix, far from the CPU's result */
START_TEST(psd_unconverged_elements_take_the_cpu_projection)
{
  TestGrid   g;
  MfadEnergy C, G;
  Vec        X, V, Yc, Yg;
  Mat        Ac, Ag;

  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_ABS, &C, &G);
  PointVecs(&g, C, 0.2, 31, 5, &X, &V, &Yc, &Yg);
  TestCall(MfadEnergyCreateMatrix(C, &Ac));
  TestCall(MfadEnergyCreateMatrix(G, &Ag));
  TestCall(MfadEnergyComputeHessian(C, X, Ac));
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_SYEVJ_MAX_SWEEPS", "1", 1), 0);
  TestCall(MfadEnergyComputeHessian(G, X, Ag));
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_SYEVJ_MAX_SWEEPS"), 0);
  TestCall(MatMult(Ac, V, Yc));
  TestCall(MatMult(Ag, V, Yg));
  CudaCompareVecs(Yg, Yc, "projected Hessian times v, the eigensolver not converged");
  TestCall(MatDestroy(&Ac));
  TestCall(MatDestroy(&Ag));
  Teardown(&g, &C, &G, &X, &V, &Yc, &Yg);
}
END_TEST

/* A NaN at one free vertex (the finiteness check off): its springs' element Hessians are NaN, which
   no projection can fix: an error naming the term and one of those springs (the CPU's caller
   order on one rank: the grid's spring numbers); then a failing cuSOLVER call names its status */
START_TEST(psd_nan_element_and_cusolver_status_are_named)
{
  TestGrid       g;
  MfadEnergy     C, G;
  Vec            X;
  Mat            A;
  PetscErrorCode ierr;
  char           msg[512] = "";
  const PetscInt v        = 1 + 4 * 1; /* i = 1, j = 1, k = 0: not fixed (i > 0) */
  PetscInt       e        = -1;
  const char    *p;

  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_CLAMP, &C, &G);
  TestCall(MfadEnergySetCheckFinite(G, PETSC_FALSE));
  TestCall(MfadEnergyCreateVecs(C, &X, NULL));
  TestCall(MfadEnergyCreateMatrix(G, &A));
  TestCall(TestGridPoint(&g, 0.05, 31, X));
  TestCall(VecSetValue(X, 3 * v + 1, NAN, INSERT_VALUES));
  TestCall(VecAssemblyBegin(X));
  TestCall(VecAssemblyEnd(X));
  TestCall(PetscPushErrorHandler(CudaRecordError, msg));
  ierr = MfadEnergyComputeHessian(G, X, A);
  TestCall(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_FP && strstr(msg, "term '") && strstr(msg, "NaN") && (p = strstr(msg, "element ")),
                "a NaN element Hessian: error %d \"%s\"", (int)ierr, msg);
  e = atoi(p + strlen("element "));
  ck_assert_msg(e >= 0 && e < g.nelem && (g.conn[2 * e] == v || g.conn[2 * e + 1] == v),
                "the message \"%s\" names spring %d, which is not at the NaN vertex %d", msg, (int)e, (int)v);

  TestCall(TestGridPoint(&g, 0.05, 31, X));
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_SYEVJ_STATUS", "7", 1), 0);
  msg[0] = 0;
  TestCall(PetscPushErrorHandler(CudaRecordError, msg));
  ierr = MfadEnergyComputeHessian(G, X, A);
  TestCall(PetscPopErrorHandler());
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_SYEVJ_STATUS"), 0);
  ck_assert_msg(ierr == PETSC_ERR_LIB && strstr(msg, "cuSOLVER status 7") && strstr(msg, "CUSOLVER_STATUS_INTERNAL_ERROR") && strstr(msg, "term '"),
                "a failing cusolverDnDsyevjBatched: error %d \"%s\"", (int)ierr, msg);
  TestCall(MatDestroy(&A));
  Teardown(&g, &C, &G, &X, NULL, NULL, NULL);
}
END_TEST

/* ------------------------------------------------------------------ staging */
/* Host Vecs (PETSc without a device): the point is copied to the device once per new point, then
   reused by every operation at it; each product copies its direction */
START_TEST(the_point_is_uploaded_once_per_point)
{
  TestGrid   g;
  MfadEnergy C, G;
  Vec        X, V, Yc, Yg;
  PetscReal  f;
  long long  c0;

  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_NONE, &C, &G);
  PointVecs(&g, C, 0.05, 3, 4, &X, &V, &Yc, &Yg);
  TestCall(MfadEnergyComputeObjectiveGradient(G, X, &f, Yg)); /* set-up: the connectivity, fixed dofs */
  TestCall(MfadEnergyComputeHessianProduct(G, X, V, Yg));
  for (int pt = 0; pt < 2; pt++) {
#define UPLOADS(call, expected, what) \
  do { \
    c0 = mfad_cuda_emu_copies[1]; \
    TestCall(call); \
    ck_assert_msg(mfad_cuda_emu_copies[1] - c0 == (expected), "point %d, %s: %lld copies to the device, expected %d", pt, what, \
                  mfad_cuda_emu_copies[1] - c0, (expected)); \
  } while (0)
    TestCall(VecScale(X, 1.01)); /* a new point */
    UPLOADS(MfadEnergyComputeObjective(G, X, &f), 1, "objective at a new point (the point)");
    UPLOADS(MfadEnergyComputeObjectiveGradient(G, X, &f, Yg), 0, "gradient at the same point");
    UPLOADS(MfadEnergyComputeHessianProduct(G, X, V, Yg), 1, "Hessian product at the same point (its direction)");
    UPLOADS(MfadEnergyComputeHessianDiagonal(G, X, Yg), 0, "diagonal at the same point");
    UPLOADS(MfadEnergyComputeHessianProduct(G, X, V, Yg), 1, "a second Hessian product (its direction)");
#undef UPLOADS
    TestCall(MfadEnergyComputeHessianProduct(C, X, V, Yc));
    CudaCompareVecs(Yg, Yc, "Hessian product with a reused point");
  }
  Teardown(&g, &C, &G, &X, &V, &Yc, &Yg);
}
END_TEST

/* ------------------------------------------------------------------ dynamic element sets */
/* "contact" springs between grid vertices, a new set per step (rank 0 gives them), pair p of step s */
static PetscErrorCode Pairs(const TestGrid *g, int step, PetscInt *n, PetscInt conn[], PetscReal params[])
{
  PetscMPIInt rank;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  *n = rank ? 0 : 2 + step; /* a count that grows: buffers sized again */
  for (PetscInt p = 0; p < *n; p++) {
    conn[2 * p]       = (7 * p + 3 * step + 1) % g->nvert;
    conn[2 * p + 1]   = (conn[2 * p] + g->nvert / 2 + step) % g->nvert;
    params[2 * p]     = 0.4;           /* rest length */
    params[2 * p + 1] = 1.0 + 0.5 * p; /* stiffness */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A spring term whose pairs change between evaluations: after each change the gradient and the
   product follow the CPU's; on one rank (no ghost exchange to rebuild) a change copies to the
   device less than the unchanged term's connectivity alone (a reset would upload it again) */
START_TEST(element_set_change_uploads_only_that_term)
{
  TestGrid    g;
  MfadEnergy  C, G, Es[2];
  MfadKernel  k;
  Vec         X, V, Yc, Yg;
  PetscInt    dyn = -1, nstatic;
  PetscMPIInt size;

  TestCall(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_NONE, &C, &G);
  Es[0] = C;
  Es[1] = G;
  TestCall(MfadKernelFind("mass_spring", &k));
  for (int i = 0; i < 2; i++) {
    PetscInt  n, conn[64];
    PetscReal params[64];
    TestCall(Pairs(&g, 0, &n, conn, params));
    TestCall(MfadEnergyAddTerm(Es[i], k, n, conn, params, 1.0, &dyn));
  }
  nstatic = g.nelem; /* (its size on one rank, where it is used) */
  PointVecs(&g, C, 0.05, 8, 9, &X, &V, &Yc, &Yg);
  for (int step = 0; step < 4; step++) {
    long long b0;
    if (step) {
      for (int i = 0; i < 2; i++) {
        PetscInt  n, conn[64];
        PetscReal params[64];
        TestCall(Pairs(&g, step, &n, conn, params));
        TestCall(MfadEnergySetTermElements(Es[i], dyn, n, conn, params));
      }
    }
    b0 = mfad_cuda_emu_bytes[1];
    TestCall(MfadEnergyComputeGradient(G, X, Yg));
    if (step && size == 1)
      ck_assert_msg(mfad_cuda_emu_bytes[1] - b0 < (long long)(2 * sizeof(int)) * nstatic,
                    "step %d: %lld bytes copied to the device after a new element set; the unchanged term's connectivity alone is %lld", step,
                    mfad_cuda_emu_bytes[1] - b0, (long long)(2 * sizeof(int)) * nstatic);
    TestCall(MfadEnergyComputeGradient(C, X, Yc));
    CudaCompareVecs(Yg, Yc, "gradient after a new element set");
    TestCall(MfadEnergyComputeHessianProduct(G, X, V, Yg));
    TestCall(MfadEnergyComputeHessianProduct(C, X, V, Yc));
    CudaCompareVecs(Yg, Yc, "Hessian product after a new element set");
    TestCall(MfadEnergyCachedHessianProduct(G, X, V, Yg));
    TestCall(MfadEnergyCachedHessianProduct(C, X, V, Yc));
    CudaCompareVecs(Yg, Yc, "cached product after a new element set");
  }
  Teardown(&g, &C, &G, &X, &V, &Yc, &Yg);
}
END_TEST

/* ------------------------------------------------------------------ -mfad_cuda_sync */
/* The springs' product kernel faults (an illegal address, planted): with -mfad_cuda_sync the
   error names the term's kernel and the operation, not a later copy */
START_TEST(cuda_sync_names_the_faulting_kernel)
{
  TestGrid       g;
  MfadEnergy     C, G;
  Vec            X, V, Y;
  PetscErrorCode ierr;
  char           msg[512] = "";

  TestCall(TestGridCreate(4, 3, 3, &g));
  Springs(&g, MFAD_PSD_NONE, &C, &G);
  TestCall(MfadEnergySetOptionsPrefix(G, "sync_"));
  TestCall(PetscOptionsSetValue(NULL, "-sync_mfad_cuda_sync", "1"));
  TestCall(MfadEnergySetFromOptions(G));
  TestCall(PetscOptionsClearValue(NULL, "-sync_mfad_cuda_sync"));
  PointVecs(&g, C, 0.05, 3, 4, &X, &V, NULL, &Y);
  TestCall(MfadEnergyComputeGradient(G, X, Y));
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_FAULT", "k_hvp", 1), 0);
  TestCall(PetscPushErrorHandler(CudaRecordError, msg));
  ierr = MfadEnergyComputeHessianProduct(G, X, V, Y);
  TestCall(PetscPopErrorHandler());
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_FAULT"), 0);
  mfad_cuda_emu_reset();
  ck_assert_msg(
      ierr == PETSC_ERR_LIB && strstr(msg, "kernel 'mass_spring'") && strstr(msg, "Hessian product") && strstr(msg, "cudaErrorIllegalAddress"),
      "a faulting product kernel with -mfad_cuda_sync: error %d \"%s\"", (int)ierr, msg);
  Teardown(&g, &C, &G, &X, &V, NULL, &Y);
}
END_TEST

int main(int argc, char **argv)
{
  Suite      *s  = suite_create("cuda_hardening");
  TCase      *tc = tcase_create("emulated");
  SRunner    *sr;
  int         nfail;
  PetscMPIInt size;

  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  if (MPI_Comm_size(PETSC_COMM_WORLD, &size)) return 1;
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, element_set_change_uploads_only_that_term); /* on every rank count: the ghost rebuild too */
  if (size == 1) {
    tcase_add_test(tc, psd_chunks_are_bitwise_the_whole_term);
    tcase_add_test(tc, psd_unconverged_elements_take_the_cpu_projection);
    tcase_add_test(tc, psd_nan_element_and_cusolver_status_are_named);
    tcase_add_test(tc, the_point_is_uploaded_once_per_point);
    tcase_add_test(tc, cuda_sync_names_the_faulting_kernel);
  }
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nfail = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
