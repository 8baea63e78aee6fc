// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend against the CPU backend: every entry point (objective, gradient, fused HVP,
   diagonal, block diagonal, the element-Hessian cache and its product, diagonal and block
   diagonal, the assembled Hessian), on the same inputs, with coloured, atomic and gather scatter and with
   and without PSD projection, on springs with fixed dofs and a linear load (1 or 2 ranks),
   Neo-Hookean tets and 2-D symmetric Dirichlet triangles.

   Built twice (tests/cuda.cmake): test_cuda links the real library and runs on a GPU (exit 77,
   ctest's "Skipped", where CUDA was not compiled or no device answers); test_cuda_emu links
   mfad_cudaemu, whose the .cu files of src/cuda/ and energy kernels are compiled by the host C++ compiler under
   include/mfad/impl/cuda_emulate.h, and runs everywhere.

   Tolerance 1e-12 relative to the largest entry: both backends run the same element bodies; they
   differ only in FMA contraction and in the order in which an output entry receives its (at most
   a few dozen) element contributions (element colours on the GPU, blocks on the CPU), each a few
   roundings of numbers no larger than that entry's scale times the elements' condition (O(10)
   here): ~1e-14, with margin. */
#include "testutil.h"
#include <string.h>

#define TOL 1e-12

static PetscBool Emulated =
#if defined(MFAD_TEST_CUDA_EMULATED)
  PETSC_TRUE;
#else
  PETSC_FALSE;
#endif

typedef enum { SPRINGS, TETS, TRIANGLES, LSQ_TRIANGLES, NPROBLEMS } Problem;
static const char *ProblemName[] = {"springs", "tets", "triangles", "least-squares triangles"};

/* |a - b|_inf <= TOL max(|b|_inf, tiny) */
static void CompareArrays(PetscInt n, const PetscScalar *a, const PetscScalar *b, MPI_Comm comm, const char *what)
{
  PetscReal d = 0, s = 0, gd, gs;
  for (PetscInt i = 0; i < n; i++) {
    d = PetscMax(d, PetscAbsScalar(a[i] - b[i]));
    s = PetscMax(s, PetscAbsScalar(b[i]));
  }
  TestCall(MPI_Allreduce(&d, &gd, 1, MPIU_REAL, MPI_MAX, comm));
  TestCall(MPI_Allreduce(&s, &gs, 1, MPIU_REAL, MPI_MAX, comm));
  ck_assert_msg(gs > 0, "%s: the CPU result is all zero: the comparison would prove nothing", what);
  ck_assert_msg(gd <= TOL * gs, "%s: cuda differs from cpu by %g (max |cpu| %g), bound %g", what, (double)gd, (double)gs, (double)(TOL * gs));
}

static void CompareVecs(Vec a, Vec b, const char *what)
{
  const PetscScalar *x, *y;
  PetscInt           n;
  TestCall(VecGetLocalSize(a, &n));
  TestCall(VecGetArrayRead(a, &x));
  TestCall(VecGetArrayRead(b, &y));
  CompareArrays(n, x, y, PetscObjectComm((PetscObject)a), what);
  TestCall(VecRestoreArrayRead(a, &x));
  TestCall(VecRestoreArrayRead(b, &y));
}

/* Neo-Hookean tets on a 3 x 2 x 2 box, bottom face fixed; or symmetric Dirichlet on a 4 x 3 grid
   of triangles (flat rest shape), one corner fixed; or the same triangles' ARAP residuals
   (arap_tri_lsq: a least-squares term, its Gauss-Newton products through the same kernels) */
static PetscErrorCode BuildSolid(Problem p, MfadEnergy *E)
{
  MfadKernel k;

  PetscFunctionBeginUser;
  if (p == TETS) {
    const PetscInt nx = 3, ny = 2, nz = 2, nt = 6 * nx * ny * nz, nv = (nx + 1) * (ny + 1) * (nz + 1);
    PetscInt       conn[6 * 3 * 2 * 2 * 4], fix[3 * 12], nfix = 0;
    PetscReal      fixval[3 * 12], coords[3 * 4 * 3 * 3], rest[12 * 6 * 3 * 2 * 2], lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1}, mat[2] = {1.0, 2.0};
    PetscCall(MfadMeshBoxTets(nx, ny, nz, 0, nx * ny * nz, conn));
    PetscCall(MfadMeshBoxVertices(nx, ny, nz, lo, hi, 0, nv, coords));
    for (PetscInt e = 0; e < nt; e++)
      for (int a = 0; a < 4; a++)
        for (int d = 0; d < 3; d++) rest[12 * e + 3 * a + d] = coords[3 * conn[4 * e + a] + d];
    PetscCall(MfadKernelFind("neohookean_tet", &k));
    PetscCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, nv, nv, E));
    PetscCall(MfadEnergyAddTermFromRest(*E, k, nt, conn, rest, mat, 1.0, NULL));
    for (PetscInt v = 0; v < nv; v++)
      if (coords[3 * v + 2] == 0.0)
        for (int d = 0; d < 3; d++) {
          fixval[nfix] = coords[3 * v + d]; /* the bottom face held at its rest position */
          fix[nfix++]  = 3 * v + d;
        }
    PetscCall(MfadEnergySetFixedDofs(*E, nfix, fix, fixval));
  } else {
    const PetscInt nx = 5, ny = 4, nv = nx * ny, nt = 2 * (nx - 1) * (ny - 1);
    PetscInt       conn[3 * 2 * 4 * 3], t = 0, fix[2] = {0, 1};
    PetscReal      rest[9 * 2 * 4 * 3];
    for (PetscInt j = 0; j + 1 < ny; j++)
      for (PetscInt i = 0; i + 1 < nx; i++) {
        const PetscInt v00 = j * nx + i, v10 = v00 + 1, v01 = v00 + nx, v11 = v01 + 1;
        const PetscInt tri[2][3] = {{v00, v10, v11}, {v00, v11, v01}};
        for (int h = 0; h < 2; h++, t++)
          for (int a = 0; a < 3; a++) {
            conn[3 * t + a]        = tri[h][a];
            rest[9 * t + 3 * a]     = 0.5 * (tri[h][a] % nx);
            rest[9 * t + 3 * a + 1] = 0.5 * (tri[h][a] / nx);
            rest[9 * t + 3 * a + 2] = 0.0;
          }
      }
    PetscCall(MfadKernelFind(p == LSQ_TRIANGLES ? "arap_tri_lsq" : "symmetric_dirichlet", &k));
    PetscCall(MfadEnergyCreate(PETSC_COMM_SELF, 2, nv, nv, E));
    PetscCall(MfadEnergyAddTermFromRest(*E, k, nt, conn, rest, NULL, 1.0, NULL));
    PetscCall(MfadEnergySetFixedDofs(*E, 2, fix, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Build(Problem p, const TestGrid *g, MfadEnergy *E)
{
  PetscFunctionBeginUser;
  if (p == SPRINGS) PetscCall(TestGridEnergy(PETSC_COMM_WORLD, g, E));
  else PetscCall(BuildSolid(p, E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A point near the rest shape: for the solids, the rest coordinates (read back from the energy's
   layout: x = 1.05 * vertex position) plus noise keeping every element's orientation */
static PetscErrorCode Point(Problem p, const TestGrid *g, unsigned long long seed, Vec X, Vec V)
{
  PetscFunctionBeginUser;
  if (p == SPRINGS) PetscCall(TestGridPoint(g, 0.05, seed, X));
  else {
    PetscScalar *x;
    PetscInt     n;
    PetscCall(VecGetLocalSize(X, &n));
    PetscCall(VecGetArray(X, &x));
    if (p == TETS) { /* the box's vertices stretched by (1.05, 0.97, 1.1), plus noise */
      PetscReal coords[3 * 4 * 3 * 3], lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 1};
      PetscCall(MfadMeshBoxVertices(3, 2, 2, lo, hi, 0, n / 3, coords));
      for (PetscInt i = 0; i < n; i++) x[i] = coords[i] * (i % 3 == 0 ? 1.05 : i % 3 == 1 ? 0.97 : 1.1) + 0.02 * TestRand(&seed);
    } else {
      for (PetscInt i = 0; i < n / 2; i++) {
        x[2 * i]     = 0.5 * (i % 5) * 1.1 + 0.02 * TestRand(&seed);
        x[2 * i + 1] = 0.5 * (i / 5) * 0.95 + 0.02 * TestRand(&seed);
      }
    }
    PetscCall(VecRestoreArray(X, &x));
  }
  {
    PetscScalar *v;
    PetscInt     n;
    PetscCall(VecGetLocalSize(V, &n));
    PetscCall(VecGetArray(V, &v));
    for (PetscInt i = 0; i < n; i++) v[i] = TestRand(&seed);
    PetscCall(VecRestoreArray(V, &v));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs every entry point on the CPU energy C and the CUDA energy G at two points and compares. */
static void CompareAll(Problem p, const TestGrid *g, MfadEnergy C, MfadEnergy G)
{
  Vec          X, V, Yc, Yg;
  Mat          Ac, Ag;
  PetscInt     dof, n;
  PetscScalar *Bc, *Bg;
  char         what[128];

  TestCall(MfadEnergyCreateVecs(C, &X, &V));
  TestCall(VecDuplicate(X, &Yc));
  TestCall(VecDuplicate(X, &Yg));
  TestCall(MfadEnergyGetSizes(C, &dof, &n, NULL));
  TestCall(PetscMalloc2(n * dof * dof, &Bc, n * dof * dof, &Bg));
  TestCall(MfadEnergyCreateMatrix(C, &Ac));
  TestCall(MfadEnergyCreateMatrix(G, &Ag));
  for (int pt = 0; pt < 2; pt++) { /* a second point: buffers reused, caches invalidated */
    PetscReal fc, fg;
    TestCall(Point(p, g, 1234 + 77 * pt, X, V));
#define WHAT(s) (PetscSNPrintf(what, sizeof(what), "%s, point %d: %s", ProblemName[p], pt, s), what)
    TestCall(MfadEnergyComputeObjective(C, X, &fc));
    TestCall(MfadEnergyComputeObjective(G, X, &fg));
    ck_assert_msg(PetscAbsReal(fc - fg) <= TOL * PetscAbsReal(fc) && fc != 0, "%s: cuda %.17g, cpu %.17g", WHAT("objective"), (double)fg, (double)fc);
    TestCall(MfadEnergyComputeObjectiveGradient(C, X, &fc, Yc));
    TestCall(MfadEnergyComputeObjectiveGradient(G, X, &fg, Yg));
    ck_assert_msg(PetscAbsReal(fc - fg) <= TOL * PetscAbsReal(fc), "%s: cuda %.17g, cpu %.17g", WHAT("objective with gradient"), (double)fg, (double)fc);
    CompareVecs(Yg, Yc, WHAT("gradient"));
    TestCall(MfadEnergyComputeHessianProduct(C, X, V, Yc));
    TestCall(MfadEnergyComputeHessianProduct(G, X, V, Yg));
    CompareVecs(Yg, Yc, WHAT("fused HVP"));
    TestCall(MfadEnergyComputeHessianDiagonal(C, X, Yc));
    TestCall(MfadEnergyComputeHessianDiagonal(G, X, Yg));
    CompareVecs(Yg, Yc, WHAT("diagonal"));
    TestCall(MfadEnergyComputeHessianBlockDiagonal(C, X, Bc));
    TestCall(MfadEnergyComputeHessianBlockDiagonal(G, X, Bg));
    CompareArrays(n * dof * dof, Bg, Bc, PetscObjectComm((PetscObject)X), WHAT("block diagonal"));
    TestCall(MfadEnergyCachedHessianProduct(C, X, V, Yc));
    TestCall(MfadEnergyCachedHessianProduct(G, X, V, Yg));
    CompareVecs(Yg, Yc, WHAT("cached HVP"));
    TestCall(MfadEnergyCachedHessianDiagonal(C, X, Yc));
    TestCall(MfadEnergyCachedHessianDiagonal(G, X, Yg));
    CompareVecs(Yg, Yc, WHAT("cached diagonal"));
    TestCall(MfadEnergyCachedHessianBlockDiagonal(C, X, Bc));
    TestCall(MfadEnergyCachedHessianBlockDiagonal(G, X, Bg));
    CompareArrays(n * dof * dof, Bg, Bc, PetscObjectComm((PetscObject)X), WHAT("cached block diagonal"));
    TestCall(MfadEnergyComputeHessian(C, X, Ac));
    TestCall(MfadEnergyComputeHessian(G, X, Ag));
    TestCall(MatMult(Ac, V, Yc));
    TestCall(MatMult(Ag, V, Yg));
    CompareVecs(Yg, Yc, WHAT("assembled Hessian times v"));
    TestCall(MatGetDiagonal(Ac, Yc));
    TestCall(MatGetDiagonal(Ag, Yg));
    CompareVecs(Yg, Yc, WHAT("assembled Hessian's diagonal"));
#undef WHAT
  }
  TestCall(MatDestroy(&Ac));
  TestCall(MatDestroy(&Ag));
  TestCall(PetscFree2(Bc, Bg));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Yc));
  TestCall(VecDestroy(&Yg));
}

/* every problem with -mfad_backend cuda, the given scatter and projection, against the CPU */
static void RunAll(const char *scatter, MfadPSDProjection psd)
{
  TestGrid g;
  TestCall(TestGridCreate(4, 3, 3, &g));
  for (int p = 0; p < NPROBLEMS; p++) {
    MfadEnergy C, G;
    if (p != SPRINGS) {
      PetscMPIInt rank;
      TestCall(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (rank) continue; /* the solids are built on one rank */
    }
    TestCall(Build((Problem)p, &g, &C));
    TestCall(Build((Problem)p, &g, &G));
    TestCall(MfadEnergySetPSDProjection(C, psd, 0.0));
    TestCall(MfadEnergySetPSDProjection(G, psd, 0.0));
    /* by options, as a user selects it; small blocks so that the block energies have many terms */
    TestCall(MfadEnergySetOptionsPrefix(G, "gpu_"));
    TestCall(PetscOptionsSetValue(NULL, "-gpu_mfad_backend", "cuda"));
    TestCall(PetscOptionsSetValue(NULL, "-gpu_mfad_scatter", scatter));
    TestCall(PetscOptionsSetValue(NULL, "-gpu_mfad_block_size", "7"));
    TestCall(MfadEnergySetFromOptions(G));
    TestCall(MfadEnergySetFromOptions(C));
    CompareAll((Problem)p, &g, C, G);
    TestCall(MfadEnergyDestroy(&C));
    TestCall(MfadEnergyDestroy(&G));
  }
  TestCall(TestGridDestroy(&g));
}

START_TEST(cuda_matches_cpu_coloured) { RunAll("colour", MFAD_PSD_NONE); }
END_TEST

START_TEST(cuda_matches_cpu_atomic) { RunAll("atomic", MFAD_PSD_NONE); }
END_TEST

/* clamped at 0: an energy at features projects its feature Hessian (k_feature_hessian, the batched
   eigensolver on M x M, k_feature_pullback); abs: every energy projects its N x N element Hessian */
START_TEST(cuda_matches_cpu_psd_projected) { RunAll("colour", MFAD_PSD_CLAMP); }
END_TEST

START_TEST(cuda_matches_cpu_psd_abs) { RunAll("atomic", MFAD_PSD_ABS); }
END_TEST

/* the deterministic gather: element outputs summed per dof (colours for the block diagonal and the cache) */
START_TEST(cuda_matches_cpu_gather) { RunAll("gather", MFAD_PSD_NONE); }
END_TEST

static PetscErrorCode RecordError(MPI_Comm, int, const char *, const char *, PetscErrorCode, PetscErrorType, const char *, void *);

/* Host<->device copies so far: PETSc's count of array copies (its Vecs' and ours, which the backend
   logs as PETSc logs its own) where PETSc has a device, and the emulation's count of the backend's
   cudaMemcpy calls */
#if defined(MFAD_TEST_CUDA_EMULATED)
extern long long mfad_cuda_emu_copies[5];
#endif
static PetscBool CopiesCounted(void)
{
  PetscMPIInt size;
  TestCall(MPI_Comm_size(PETSC_COMM_WORLD, &size));
#if defined(PETSC_HAVE_DEVICE)
  /* (on several ranks an MPI that is not GPU-aware moves PETSc's ghost exchange through the host) */
  if (size == 1) return PETSC_TRUE;
#endif
  return Emulated;
}

static double Copies(void)
{
  double c = 0;
#if defined(PETSC_HAVE_DEVICE)
  if (!Emulated) c += petsc_ctog_ct + petsc_gtoc_ct;
#endif
#if defined(MFAD_TEST_CUDA_EMULATED)
  c += (double)(mfad_cuda_emu_copies[1] + mfad_cuda_emu_copies[2]);
#endif
  return c;
}

/* Issue 17: after set-up, with Vecs on the device (CUDA Vecs; in the emulation, host memory taken
   as the device's), one fused or cached HVP, diagonal or cached diagonal at the point of the last
   evaluation moves nothing between host and device, though the energy has fixed dofs (springs on
   1 or 2 ranks, with ghosts); a gradient moves one array: its energy (nterms + 1 doubles), which
   the domain check needs; a new point adds one more, the finiteness flag. Results still match the
   CPU's. */
START_TEST(cuda_products_copy_nothing_between_host_and_device)
{
  TestGrid   g;
  MfadEnergy C, G;
  Vec        X, V, Yc, Yg;
  PetscReal  fc, fg;
  double     c0;
  PetscBool  counted = CopiesCounted();

  if (Emulated) ck_assert_int_eq(setenv("MFAD_CUDA_EMU_RESIDENT", "1", 1), 0);
  TestCall(TestGridCreate(5, 4, 3, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &C));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &G));
  TestCall(MfadEnergySetBackend(G, MFAD_BACKEND_CUDA));
  TestCall(MfadEnergyCreateVecs(C, &X, &V));
#if defined(PETSC_HAVE_CUDA) && !defined(MFAD_TEST_CUDA_EMULATED)
  TestCall(VecSetType(X, VECCUDA));
  TestCall(VecSetType(V, VECCUDA));
#endif
  TestCall(VecDuplicate(X, &Yc));
  TestCall(VecDuplicate(X, &Yg));
  TestCall(TestGridPoint(&g, 0.05, 99, X));
  TestCall(TestGridPoint(&g, 1.0, 7, V));
  /* set-up: every entry point once (uploads, buffers, the cache) */
  TestCall(MfadEnergyComputeObjectiveGradient(G, X, &fg, Yg));
  TestCall(MfadEnergyComputeHessianProduct(G, X, V, Yg));
  TestCall(MfadEnergyComputeHessianDiagonal(G, X, Yg));
  TestCall(MfadEnergyCachedHessianProduct(G, X, V, Yg));
  TestCall(MfadEnergyCachedHessianDiagonal(G, X, Yg));
#define STEADY(call, expected, what) \
  do { \
    c0 = Copies(); \
    TestCall(call); \
    if (counted) ck_assert_msg(Copies() - c0 == (expected), "%s: %g host<->device copies, expected %d", what, Copies() - c0, (expected)); \
  } while (0)
  STEADY(MfadEnergyComputeHessianProduct(G, X, V, Yg), 0, "fused HVP");
  TestCall(MfadEnergyComputeHessianProduct(C, X, V, Yc));
  CompareVecs(Yg, Yc, "fused HVP, device-resident");
  STEADY(MfadEnergyComputeHessianDiagonal(G, X, Yg), 0, "diagonal");
  TestCall(MfadEnergyComputeHessianDiagonal(C, X, Yc));
  CompareVecs(Yg, Yc, "diagonal, device-resident");
  STEADY(MfadEnergyCachedHessianProduct(G, X, V, Yg), 0, "cached HVP");
  TestCall(MfadEnergyCachedHessianProduct(C, X, V, Yc));
  CompareVecs(Yg, Yc, "cached HVP, device-resident");
  STEADY(MfadEnergyCachedHessianDiagonal(G, X, Yg), 0, "cached diagonal");
  TestCall(MfadEnergyCachedHessianDiagonal(C, X, Yc));
  CompareVecs(Yg, Yc, "cached diagonal, device-resident");
  STEADY(MfadEnergyComputeObjectiveGradient(G, X, &fg, Yg), 1, "gradient at the same point");
  TestCall(MfadEnergyComputeObjectiveGradient(C, X, &fc, Yc));
  CompareVecs(Yg, Yc, "gradient, device-resident");
  ck_assert_msg(PetscAbsReal(fc - fg) <= TOL * PetscAbsReal(fc) && fc != 0, "energy with fixed dofs: cuda %.17g, cpu %.17g", (double)fg, (double)fc);
  TestCall(VecScale(X, 1.01)); /* a new point: the finiteness check's flag comes back too */
  STEADY(MfadEnergyComputeObjectiveGradient(G, X, &fg, Yg), 2, "gradient at a new point");
  TestCall(MfadEnergyComputeObjectiveGradient(C, X, &fc, Yc));
  CompareVecs(Yg, Yc, "gradient at a new point, device-resident");
  ck_assert_msg(PetscAbsReal(fc - fg) <= TOL * PetscAbsReal(fc), "energy at a new point: cuda %.17g, cpu %.17g", (double)fg, (double)fc);
#undef STEADY
  { /* a NaN on every rank: the device's check finds it and names it */
    PetscScalar   *x;
    PetscInt       n;
    PetscErrorCode ierr;
    char           msg[512] = "";
    TestCall(VecGetLocalSize(X, &n));
    ck_assert_int_gt(n, 0);
    TestCall(VecGetArray(X, &x));
    x[n - 1] = NAN;
    TestCall(VecRestoreArray(X, &x));
    TestCall(PetscPushErrorHandler(RecordError, msg));
    ierr = MfadEnergyComputeHessianProduct(G, X, V, Yg);
    TestCall(PetscPopErrorHandler());
    ck_assert_msg(ierr == PETSC_ERR_FP && strstr(msg, "the point has nan") && strstr(msg, "at vertex"), "a NaN in the point: error %d \"%s\"", (int)ierr, msg);
  }
  if (Emulated) ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_RESIDENT"), 0);
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Yc));
  TestCall(VecDestroy(&Yg));
  TestCall(MfadEnergyDestroy(&C));
  TestCall(MfadEnergyDestroy(&G));
  TestCall(TestGridDestroy(&g));
}
END_TEST

/* records the first message of an error */
static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm, (void)line, (void)func, (void)file;
  if (p == PETSC_ERROR_INITIAL && mess) strncpy((char *)ctx, mess, 511);
  return n;
}

/* Emulation only: a machine whose CUDA driver is missing (cudaGetDeviceCount fails with error 35)
   gives an error that names the code and the reason, and the energy stays usable on the CPU. */
START_TEST(cuda_request_without_device_names_the_cuda_error)
{
  MfadEnergy     E;
  TestGrid       g;
  PetscErrorCode ierr;
  char           msg[512] = "";

  TestCall(TestGridCreate(3, 2, 2, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  ck_assert_int_eq(setenv("MFAD_CUDA_EMU_NO_DEVICE", "1", 1), 0);
  TestCall(PetscPushErrorHandler(RecordError, msg));
  ierr = MfadEnergySetBackend(E, MFAD_BACKEND_CUDA);
  TestCall(PetscPopErrorHandler());
  ck_assert_int_eq(unsetenv("MFAD_CUDA_EMU_NO_DEVICE"), 0);
  ck_assert_msg(ierr == PETSC_ERR_SUP_SYS, "MfadEnergySetBackend(cuda) without a device returned %d, expected PETSC_ERR_SUP_SYS (%d)", (int)ierr, (int)PETSC_ERR_SUP_SYS);
  ck_assert_msg(strstr(msg, "error 35") && strstr(msg, "cudaErrorInsufficientDriver") && strstr(msg, "-mfad_backend cuda"),
                "the message \"%s\" should name the option, the CUDA error code 35 and its name", msg);
  {
    Vec       X;
    PetscReal f;
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(TestGridPoint(&g, 0.01, 5, X));
    TestCall(MfadEnergyComputeObjective(E, X, &f)); /* still the CPU backend */
    ck_assert_msg(f > 0 && PetscIsNormalReal(f), "energy %g after a refused CUDA request", (double)f);
    TestCall(VecDestroy(&X));
  }
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create(Emulated ? "cuda_emulated" : "cuda");
  TCase   *tc = tcase_create("cuda_vs_cpu");
  SRunner *sr;
  int      nfail;

  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  if (PetscLogDefaultBegin()) return 1; /* PETSc counts host<->device copies while it logs */
  if (!Emulated) { /* a real build: skip (77) unless CUDA was compiled and a device answers */
    MfadEnergy     E;
    PetscErrorCode ierr;
    if (MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 1, &E)) return 1;
    if (PetscPushErrorHandler(PetscReturnErrorHandler, NULL)) return 1;
    ierr = MfadEnergySetBackend(E, MFAD_BACKEND_CUDA);
    if (PetscPopErrorHandler() || MfadEnergyDestroy(&E)) return 1;
    if (ierr == PETSC_ERR_SUP || ierr == PETSC_ERR_SUP_SYS) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_cuda: SKIPPED: %s (MfadEnergySetBackend(cuda) returned %d)\n",
                            ierr == PETSC_ERR_SUP ? "mfad was built without CUDA" : "no usable CUDA device", (int)ierr));
      PetscCall(PetscFinalize());
      return 77;
    }
    if (ierr) return 1;
  }
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, cuda_matches_cpu_coloured);
  tcase_add_test(tc, cuda_matches_cpu_atomic);
  tcase_add_test(tc, cuda_matches_cpu_psd_projected);
  tcase_add_test(tc, cuda_matches_cpu_psd_abs);
  tcase_add_test(tc, cuda_matches_cpu_gather);
  tcase_add_test(tc, cuda_products_copy_nothing_between_host_and_device);
  if (Emulated) tcase_add_test(tc, cuda_request_without_device_names_the_cuda_error);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nfail = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
