// SPDX-License-Identifier: BSD-2-Clause
/* Residual terms on the GPU (issue 49, item 3): every residual mode of -mfad_backend cuda against
   the CPU backend, in the emulation (mfad_cudaemu), on a grid of triangles distributed round-robin
   (1 or 2 ranks), with coloured and atomic scatter:
   - a least-squares residual (tests/energies/res_lsq.c: 5 outputs, 2 dofs): the stacked residual
     r, J v, J^T w, the assembled J, and the scalar operations built on them (1/2 |r|^2, J^T r,
     the Gauss-Newton product and diagonal, the assembled J^T J);
   - a system (tests/energies/res_sys.c: F(u) = 0, 1 dof): F, J v, J^T v, the assembled J and its
     diagonal.
   Tolerance 1e-12 relative to the largest entry, as tests/test_cuda.c: the same element bodies on
   both backends; they differ in FMA contraction and in the order an entry receives its (at most
   six) element contributions. */
#include "cuda_testutil.h"
#include <string.h>

#define NCELL 4 /* cells per side: (NCELL + 1)^2 vertices, 2 NCELL^2 triangles */

typedef enum { LSQ, SYS } Problem;
static const char *ProblemName[] = {"least squares (res_lsq)", "system (res_sys)"};

/* vertex v of the grid, perturbed */
static void Vertex(PetscInt v, PetscReal xy[2])
{
  xy[0] = (PetscReal)(v % (NCELL + 1)) / NCELL + 0.01 * PetscSinReal((PetscReal)v);
  xy[1] = (PetscReal)(v / (NCELL + 1)) / NCELL + 0.01 * PetscCosReal((PetscReal)v);
}

/* the grid's residual term on PETSC_COMM_WORLD (triangle t on rank t % size), vertex 0 fixed */
static PetscErrorCode Build(Problem p, MfadEnergy *E)
{
  const PetscInt nv = (NCELL + 1) * (NCELL + 1), nt = 2 * NCELL * NCELL, dof = p == LSQ ? 2 : 1;
  PetscMPIInt    rank, size;
  PetscInt       ne = 0, conn[3 * 2 * NCELL * NCELL], fix[2] = {0, 1};
  PetscReal      params[8 * 2 * NCELL * NCELL];
  MfadKernel     k;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MfadKernelFind(p == LSQ ? "res_lsq" : "res_sys", &k));
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, dof, PETSC_DECIDE, nv, E));
  for (PetscInt t = rank; t < nt; t += size, ne++) {
    const PetscInt c = t / 2, i = c % NCELL, j = c / NCELL, v00 = i + (NCELL + 1) * j, v10 = v00 + 1, v01 = v00 + NCELL + 1, v11 = v01 + 1;
    const PetscInt tri[2][3] = {
        {v00, v10, v11},
        {v00, v11, v01}
    };
    PetscReal xy[3][2];
    for (int a = 0; a < 3; a++) {
      conn[3 * ne + a] = tri[t % 2][a];
      Vertex(tri[t % 2][a], xy[a]);
    }
    if (p == LSQ) { /* rest edge lengths and the rest area */
      PetscReal *q = params + 4 * ne;
      for (int a = 0; a < 3; a++) q[a] = PetscSqrtReal(PetscSqr(xy[(a + 1) % 3][0] - xy[a][0]) + PetscSqr(xy[(a + 1) % 3][1] - xy[a][1]));
      q[3] = 0.5 * ((xy[1][0] - xy[0][0]) * (xy[2][1] - xy[0][1]) - (xy[2][0] - xy[0][0]) * (xy[1][1] - xy[0][1]));
    } else { /* the triangle's coordinates and a velocity */
      PetscReal *q = params + 8 * ne;
      for (int a = 0; a < 3; a++) q[2 * a] = xy[a][0], q[2 * a + 1] = xy[a][1];
      q[6] = 3.0;
      q[7] = -2.0;
    }
  }
  PetscCall(MfadEnergyAddTerm(*E, k, ne, conn, params, 1.5, NULL));
  PetscCall(MfadEnergySetFixedDofs(*E, rank ? 0 : dof, fix, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a point near the rest shape (LSQ) or a smooth field (SYS), and a random direction, by global index */
static PetscErrorCode Point(Problem p, unsigned long long seed, Vec X, Vec V)
{
  PetscInt     lo, hi, N;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetSize(X, &N));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArray(V, &v));
  for (PetscInt i = 0; i < N; i++) {
    PetscReal xy[2], r = TestRand(&seed), d = TestRand(&seed);
    Vertex(p == LSQ ? i / 2 : i, xy);
    if (i >= lo && i < hi) {
      x[i - lo] = p == LSQ ? 1.1 * xy[i % 2] + 0.03 * r : 0.5 + 0.3 * r;
      v[i - lo] = d;
    }
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(VecRestoreArray(V, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static void RunAll(const char *scatter)
{
  for (int p = 0; p < 2; p++) {
    MfadEnergy C, G;
    Vec        X, V, Yc, Yg;
    Mat        Ac, Ag;
    char       what[160];
    TestCall(Build((Problem)p, &C));
    TestCall(Build((Problem)p, &G));
    TestCall(MfadEnergySetOptionsPrefix(G, "gpu_"));
    TestCall(PetscOptionsSetValue(NULL, "-gpu_mfad_backend", "cuda"));
    TestCall(PetscOptionsSetValue(NULL, "-gpu_mfad_scatter", scatter));
    TestCall(MfadEnergySetFromOptions(G));
    TestCall(MfadEnergyCreateVecs(C, &X, &V));
    TestCall(VecDuplicate(X, &Yc));
    TestCall(VecDuplicate(X, &Yg));
    TestCall(MfadEnergyCreateMatrix(C, &Ac));
    TestCall(MfadEnergyCreateMatrix(G, &Ag));
    for (int pt = 0; pt < 2; pt++) {
#define WHAT(s) (PetscSNPrintf(what, sizeof(what), "%s, %s scatter, point %d: %s", ProblemName[p], scatter, pt, s), what)
      TestCall(Point((Problem)p, 17 + 31 * pt, X, V));
      if (p == LSQ) {
        Vec       Rc, Rg, W;
        Mat       Jc, Jg;
        PetscReal fc, fg;
        TestCall(MfadEnergyCreateResidualVec(C, &Rc));
        TestCall(VecDuplicate(Rc, &Rg));
        TestCall(VecDuplicate(Rc, &W));
        TestCall(MfadEnergyComputeResidual(C, X, Rc));
        TestCall(MfadEnergyComputeResidual(G, X, Rg));
        CudaCompareVecs(Rg, Rc, WHAT("stacked residual"));
        TestCall(VecCopy(Rc, W));
        TestCall(MfadEnergyComputeResidualJacobianProduct(C, X, V, Rc));
        TestCall(MfadEnergyComputeResidualJacobianProduct(G, X, V, Rg));
        CudaCompareVecs(Rg, Rc, WHAT("J v"));
        TestCall(VecAXPY(W, 0.5, Rc)); /* a w that is neither r nor J v */
        TestCall(MfadEnergyComputeResidualJacobianTransposeProduct(C, X, W, Yc));
        TestCall(MfadEnergyComputeResidualJacobianTransposeProduct(G, X, W, Yg));
        CudaCompareVecs(Yg, Yc, WHAT("J^T w"));
        TestCall(MfadEnergyCreateResidualJacobian(C, &Jc));
        TestCall(MfadEnergyCreateResidualJacobian(G, &Jg));
        TestCall(MfadEnergyComputeResidualJacobian(C, X, Jc));
        TestCall(MfadEnergyComputeResidualJacobian(G, X, Jg));
        TestCall(MatMult(Jc, V, Rc));
        TestCall(MatMult(Jg, V, Rg));
        CudaCompareVecs(Rg, Rc, WHAT("assembled J times v"));
        TestCall(MatMultTranspose(Jc, W, Yc));
        TestCall(MatMultTranspose(Jg, W, Yg));
        CudaCompareVecs(Yg, Yc, WHAT("assembled J^T times w"));
        TestCall(MfadEnergyComputeObjectiveGradient(C, X, &fc, Yc));
        TestCall(MfadEnergyComputeObjectiveGradient(G, X, &fg, Yg));
        ck_assert_msg(PetscAbsReal(fc - fg) <= CUDA_TOL * PetscAbsReal(fc) && fc > 0, "%s: cuda %.17g, cpu %.17g", WHAT("1/2 |r|^2"), (double)fg,
                      (double)fc);
        CudaCompareVecs(Yg, Yc, WHAT("J^T r"));
        TestCall(MatDestroy(&Jc));
        TestCall(MatDestroy(&Jg));
        TestCall(VecDestroy(&Rc));
        TestCall(VecDestroy(&Rg));
        TestCall(VecDestroy(&W));
      } else {
        TestCall(MfadEnergyComputeGradient(C, X, Yc));
        TestCall(MfadEnergyComputeGradient(G, X, Yg));
        CudaCompareVecs(Yg, Yc, WHAT("F"));
        TestCall(MfadEnergyComputeHessianTransposeProduct(C, X, V, Yc));
        TestCall(MfadEnergyComputeHessianTransposeProduct(G, X, V, Yg));
        CudaCompareVecs(Yg, Yc, WHAT("J^T v"));
      }
      TestCall(MfadEnergyComputeHessianProduct(C, X, V, Yc));
      TestCall(MfadEnergyComputeHessianProduct(G, X, V, Yg));
      CudaCompareVecs(Yg, Yc, WHAT(p == LSQ ? "J^T J v" : "J v"));
      TestCall(MfadEnergyComputeHessianDiagonal(C, X, Yc));
      TestCall(MfadEnergyComputeHessianDiagonal(G, X, Yg));
      CudaCompareVecs(Yg, Yc, WHAT("diagonal"));
      TestCall(MfadEnergyComputeHessian(C, X, Ac));
      TestCall(MfadEnergyComputeHessian(G, X, Ag));
      TestCall(MatMult(Ac, V, Yc));
      TestCall(MatMult(Ag, V, Yg));
      CudaCompareVecs(Yg, Yc, WHAT("assembled matrix times v"));
#undef WHAT
    }
    TestCall(MatDestroy(&Ac));
    TestCall(MatDestroy(&Ag));
    TestCall(VecDestroy(&X));
    TestCall(VecDestroy(&V));
    TestCall(VecDestroy(&Yc));
    TestCall(VecDestroy(&Yg));
    TestCall(MfadEnergyDestroy(&C));
    TestCall(MfadEnergyDestroy(&G));
    TestCall(PetscOptionsClear(NULL));
  }
}

START_TEST(cuda_residual_modes_match_cpu_coloured) { RunAll("colour"); }
END_TEST

START_TEST(cuda_residual_modes_match_cpu_atomic) { RunAll("atomic"); }
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("cuda_residual");
  TCase   *tc = tcase_create("emulated");
  SRunner *sr;
  int      nfail;

  if (PetscInitialize(&argc, &argv, NULL, NULL)) return 1;
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, cuda_residual_modes_match_cpu_coloured);
  tcase_add_test(tc, cuda_residual_modes_match_cpu_atomic);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_NORMAL);
  nfail = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return nfail ? 1 : 0;
}
