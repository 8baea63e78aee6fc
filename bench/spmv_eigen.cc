// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "The assembled Hessian's product y = A x: PETSc's MatMult on mfad's aij and baij (block size 3)\n"
    "against Eigen's sparse product on the same matrix (row-major, as a CSR, and column-major,\n"
    "Eigen's default and TinyAD's), one thread each, taken in turn (the same load for each),\n"
    "medians of -reps. The Neo-Hookean box's Hessian is assembled once by mfad into aij and into\n"
    "baij; Eigen's copies are made from aij's CSR arrays. The last row is the operator a SNES gets\n"
    "from MfadEnergySetSNES() with -mfad_hessian aij -mfad_pmat shell (only a Krylov method applies it):\n"
    "its format is mfad's default for such an operator, and it must be at least as fast as Eigen.\n"
    "  -n <20> -m <42>: an n x n x m box of cubes, 6 tets each (default ~100k tets; -n 40 -m 105: 1M)\n"
    "  -reps <31>: products timed per format\n";
/* Built only where CMake finds Eigen 3 (bench/CMakeLists.txt); run by hand, never by CI:
     build/bench/bench_spmv_eigen [-n 40 -m 105]
   Exit status 1 if a product differs from aij's beyond round-off. */
#include "benchbox.h"
#include <petsctime.h>
#include <Eigen/Sparse>
#include <algorithm>
#include <cstdio>
#include <vector>

namespace {
typedef Eigen::SparseMatrix<double, Eigen::RowMajor, PetscInt> RowMat;
typedef Eigen::SparseMatrix<double, Eigen::ColMajor, PetscInt> ColMat;
enum { AIJ, BAIJ, EIGEN_ROW, EIGEN_COL, OP, NF };
const char *const names[NF] = {"PETSc aij", "PETSc baij(3)", "Eigen row-major", "Eigen col-major", "default operator"};
}  // namespace

int main(int argc, char **argv)
{
  PetscInt           n = 20, m = 42, reps = 31, ntet = 0, nvert = 0, nrow, nnz;
  MfadEnergy         E;
  Vec                X, V, Y[3];
  Mat                A[3], P;
  SNES               snes;
  MatType            optype;
  const PetscInt    *ia, *ja;
  const PetscScalar *a, *v, *y0;
  PetscBool          done;
  double             worst = 0.0, la = 0.0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mfad SpMV against Eigen", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "products timed per format", NULL, reps, &reps, NULL));
  PetscOptionsEnd();
  reps = std::max<PetscInt>(1, reps);
  PetscCall(BenchBoxCreate(n, m, &E, &X, &ntet, &nvert));
  PetscCall(MfadEnergySetFromOptions(E));
  for (int f = 0; f < 2; f++) { /* mfad assembles each format itself (-mat_type) */
    PetscCall(PetscOptionsSetValue(NULL, "-mat_type", f == AIJ ? "aij" : "baij"));
    PetscCall(MfadEnergyCreateMatrix(E, &A[f]));
    PetscCall(MfadEnergyComputeHessian(E, X, A[f]));
    PetscCall(VecDuplicate(X, &Y[f]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  /* the operator mfad gives a SNES where only the Krylov method applies it, in its default format */
  PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_AIJ, MFAD_HESSIAN_SHELL));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESGetJacobian(snes, &A[2], &P, NULL, NULL));
  PetscCall(PetscObjectReference((PetscObject)A[2]));
  PetscCall(SNESDestroy(&snes));
  PetscCall(MfadEnergyComputeHessian(E, X, A[2]));
  PetscCall(MatGetType(A[2], &optype));
  PetscCall(VecDuplicate(X, &Y[2]));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecSetRandom(V, NULL));

  /* Eigen's copies of aij's CSR */
  PetscCall(MatGetRowIJ(A[AIJ], 0, PETSC_FALSE, PETSC_FALSE, &nrow, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ gave no CSR for aij");
  nnz = ia[nrow];
  PetscCall(MatSeqAIJGetArrayRead(A[AIJ], &a));
  Eigen::Map<const RowMat> map(nrow, nrow, nnz, ia, ja, a);
  RowMat                   R(map);
  ColMat                   C(map);
  PetscCall(MatSeqAIJRestoreArrayRead(A[AIJ], &a));
  {
    PetscInt nr; /* MatRestoreRowIJ() may clear what it is given */
    PetscCall(MatRestoreRowIJ(A[AIJ], 0, PETSC_FALSE, PETSC_FALSE, &nr, &ia, &ja, &done));
  }
  R.makeCompressed();
  C.makeCompressed();
  Eigen::VectorXd x(nrow), yr(nrow), yc(nrow);
  PetscCall(VecGetArrayRead(V, &v));
  for (PetscInt i = 0; i < nrow; i++) x[i] = PetscRealPart(v[i]);
  PetscCall(VecRestoreArrayRead(V, &v));

  std::vector<double> t[NF];
  for (PetscInt r = -2; r < reps; r++) /* r < 0: warm-up; formats in turn, the start rotating */
    for (int k = 0; k < NF; k++) {
      const int f = (int)((k + std::max<PetscInt>(r, 0)) % NF);
      double    t0, t1;
      PetscCall(PetscTime(&t0));
      if (f == AIJ || f == BAIJ) PetscCall(MatMult(A[f], V, Y[f]));
      else if (f == OP) PetscCall(MatMult(A[2], V, Y[2]));
      else if (f == EIGEN_ROW) yr.noalias() = R * x;
      else yc.noalias() = C * x;
      PetscCall(PetscTime(&t1));
      if (r >= 0) t[f].push_back(t1 - t0);
    }
  {
    FILE *fp = fopen("/proc/loadavg", "r");
    if (fp) {
      if (fscanf(fp, "%lf", &la) != 1) la = 0.0;
      fclose(fp);
    }
  }

  /* the same operator: round-off apart */
  PetscCall(VecGetArrayRead(Y[AIJ], &y0));
  {
    const PetscScalar *y1;
    const PetscScalar *y2;
    double             d[4] = {0, 0, 0, 0}, ny = 0;
    PetscCall(VecGetArrayRead(Y[BAIJ], &y1));
    PetscCall(VecGetArrayRead(Y[2], &y2));
    for (PetscInt i = 0; i < nrow; i++) {
      const double r0 = PetscRealPart(y0[i]);
      ny += r0 * r0;
      d[0] += (PetscRealPart(y1[i]) - r0) * (PetscRealPart(y1[i]) - r0);
      d[1] += (yr[i] - r0) * (yr[i] - r0);
      d[2] += (yc[i] - r0) * (yc[i] - r0);
      d[3] += (PetscRealPart(y2[i]) - r0) * (PetscRealPart(y2[i]) - r0);
    }
    PetscCall(VecRestoreArrayRead(Y[BAIJ], &y1));
    PetscCall(VecRestoreArrayRead(Y[2], &y2));
    for (int i = 0; i < 4; i++) worst = std::max(worst, std::sqrt(d[i] / ny));
  }
  PetscCall(VecRestoreArrayRead(Y[AIJ], &y0));

  double med[NF];
  for (int f = 0; f < NF; f++) {
    std::sort(t[f].begin(), t[f].end());
    med[f] = t[f][t[f].size() / 2];
  }
  const double eigen = std::min(med[EIGEN_ROW], med[EIGEN_COL]);
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Neo-Hookean tets: %" PetscInt_FMT " elements, %" PetscInt_FMT " rows, %" PetscInt_FMT
                        " stored nonzeros; median of %" PetscInt_FMT " products each, taken in turn; load %.2f; Eigen %d.%d.%d\n",
                        ntet, nrow, nnz, reps, la, EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10s %12s %16s\n", "format", "ms", "ns/nonzero", "faster Eigen / it"));
  for (int f = 0; f < NF; f++)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-16s %10.3f %12.3f %16.2f\n", names[f], 1e3 * med[f], 1e9 * med[f] / (double)nnz, eigen / med[f]));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "default operator: %s, %.2fx the faster Eigen's speed (%s)\n", optype, eigen / med[OP],
                        eigen / med[OP] >= 1.0 ? "at least Eigen's" : "SLOWER than Eigen"));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "largest |y - y_aij| / |y_aij|: %.1e\n", worst));
  for (int f = 0; f < 3; f++) {
    PetscCall(MatDestroy(&A[f]));
    PetscCall(VecDestroy(&Y[f]));
  }
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  if (!(worst <= 1e-12)) std::fprintf(stderr, "bench_spmv_eigen: a product differs from aij's by %.1e relative\n", worst);
  return worst <= 1e-12 ? 0 : 1;
}
