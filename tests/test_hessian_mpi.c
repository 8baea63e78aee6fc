// SPDX-License-Identifier: BSD-2-Clause
/* Explicit Hessians on any number of ranks: for every built-in energy with fixed dofs, elements
   dealt round-robin (ghosts everywhere), the products of the cached Hessian and of the assembled
   matrices (aij, baij, sbaij) equal the fused product to 1e-12 relative, and the same matrices
   made with one COO entry per element entry (-mfad_coo_merge 0) equal those made from merged
   entries, through COO and through mfad's CSR (-mfad_assemble_csr), to 1e-14, the fused product equals
   that of a serial replica, and the assembled aij matrix is symmetric; on a larger box, aij and baij
   assembled on 2 threads a rank equal those on 1 bitwise. Prints one line per failure. */
#include "hessian_fixtures.h"

static int failures;

static PetscErrorCode Expect(PetscBool ok, const char *energy, const char *what, PetscReal value, PetscReal bound)
{
  PetscFunctionBeginUser;
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s = %.3e, bound %.1e\n", energy, what, (double)value, (double)bound));
    failures++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distributed Y against the serial Ys (every entry on every rank) */
static PetscErrorCode RelDiffSerial(Vec Y, Vec Ys, PetscReal *rel)
{
  const PetscScalar *y, *ys;
  PetscInt           lo, hi;
  PetscReal          loc[2] = {0, 0}, glob[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(Y, &lo, &hi));
  PetscCall(VecGetArrayRead(Y, &y));
  PetscCall(VecGetArrayRead(Ys, &ys));
  for (PetscInt i = lo; i < hi; i++) {
    loc[0] += PetscSqr(PetscRealPart(y[i - lo] - ys[i]));
    loc[1] += PetscSqr(PetscRealPart(ys[i]));
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(VecRestoreArrayRead(Ys, &ys));
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  *rel = PetscSqrtReal(glob[0] / PetscMax(glob[1], 1e-300));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckEnergy(const char *name)
{
  static const char *const types[] = {"aij", "baij", "sbaij"};
  HFix                     f;
  MfadEnergy               E, Es;
  Mat                      S, C, A, Ss;
  Vec                      X, V, Y, Yf, Xs, Vs, Ys;
  PetscReal                rel = 0, nrm = 0;
  PetscBool                sym;

  PetscFunctionBeginUser;
  PetscCall(HFixCreate(name, &f));
  PetscCall(HFixEnergy(PETSC_COMM_WORLD, &f, &E));
  PetscCall(HFixEnergy(PETSC_COMM_SELF, &f, &Es));
  PetscCall(MfadEnergyCreateVecs(E, &X, &V));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(VecDuplicate(X, &Yf));
  PetscCall(MfadEnergyCreateVecs(Es, &Xs, &Vs));
  PetscCall(VecDuplicate(Xs, &Ys));
  PetscCall(HFixPoint(&f, 0.03, 11, X));
  PetscCall(HFixPoint(&f, 1.0, 12, V));
  PetscCall(HFixPoint(&f, 0.03, 11, Xs));
  PetscCall(HFixPoint(&f, 1.0, 12, Vs));

  PetscCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_SHELL, &S));
  PetscCall(MfadHessianSetPoint(S, X));
  PetscCall(MatMult(S, V, Yf));
  PetscCall(MfadEnergyCreateHessianMat(Es, MFAD_HESSIAN_SHELL, &Ss));
  PetscCall(MfadHessianSetPoint(Ss, Xs));
  PetscCall(MatMult(Ss, Vs, Ys));
  PetscCall(RelDiffSerial(Yf, Ys, &rel));
  PetscCall(Expect(rel <= 1e-12 ? PETSC_TRUE : PETSC_FALSE, name, "|fused product - serial| / |serial|", rel, 1e-12));

  PetscCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_CACHED, &C));
  PetscCall(MfadHessianSetPoint(C, X));
  PetscCall(MatMult(C, V, Y));
  PetscCall(HFixRelDiff(Y, Yf, &rel));
  PetscCall(Expect(rel <= 1e-12 ? PETSC_TRUE : PETSC_FALSE, name, "|cached - fused| / |fused|", rel, 1e-12));
  for (int t = 0; t < 3; t++) {
    char what[64];
    PetscCall(PetscOptionsSetValue(NULL, "-mat_type", types[t]));
    PetscCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AIJ, &A));
    PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
    PetscCall(MfadHessianSetPoint(A, X));
    PetscCall(MatMult(A, V, Y));
    PetscCall(HFixRelDiff(Y, Yf, &rel));
    PetscCall(PetscSNPrintf(what, sizeof(what), "|assembled %s - fused| / |fused|", types[t]));
    PetscCall(Expect(rel <= 1e-12 ? PETSC_TRUE : PETSC_FALSE, name, what, rel, 1e-12));
    for (int csr = 0; csr < 2; csr++) { /* the merged entries through COO (csr 0) and through mfad's CSR
                                            (the CPU's default) against one COO entry per element entry:
                                            the same nonzeros, the same values up to the order of summation */
      Mat       A0, Am;
      MatInfo   i0, im;
      PetscReal rd = 0;
      Vec       Yf0;
      PetscCall(VecDuplicate(Y, &Yf0));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_type", types[t]));
      PetscCall(MfadEnergySetCOOMerge(E, PETSC_FALSE)); /* -mfad_coo_merge 0 */
      PetscCall(MfadEnergyCreateMatrix(E, &A0));
      PetscCall(MfadEnergySetCOOMerge(E, PETSC_TRUE));
      PetscCall(MfadEnergySetAssembleCSR(E, csr ? PETSC_TRUE : PETSC_FALSE)); /* -mfad_assemble_csr */
      PetscCall(MfadEnergyCreateMatrix(E, &Am));
      PetscCall(MfadEnergySetAssembleCSR(E, PETSC_TRUE));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
      PetscCall(MfadEnergyComputeHessian(E, X, A0));
      PetscCall(MfadEnergyComputeHessian(E, X, Am));
      PetscCall(MfadEnergyComputeHessian(E, X, Am)); /* a refill writes the same */
      PetscCall(MatGetInfo(A0, MAT_GLOBAL_SUM, &i0));
      PetscCall(MatGetInfo(Am, MAT_GLOBAL_SUM, &im));
      PetscCall(PetscSNPrintf(what, sizeof(what), "%s nonzeros, merged %s - element COO", types[t], csr ? "CSR" : "COO"));
      PetscCall(Expect(i0.nz_used == im.nz_used ? PETSC_TRUE : PETSC_FALSE, name, what, im.nz_used - i0.nz_used, 0));
      /* compared through their products (MatAXPY's structure shortcuts differ between types) */
      PetscCall(MatMult(A0, V, Y));
      PetscCall(MatMult(Am, V, Yf0));
      PetscCall(HFixRelDiff(Yf0, Y, &rd));
      PetscCall(PetscSNPrintf(what, sizeof(what), "|%s merged %s - element COO| V / |A V|", types[t], csr ? "CSR" : "COO"));
      PetscCall(Expect(rd <= 1e-14 ? PETSC_TRUE : PETSC_FALSE, name, what, rd, 1e-14));
      PetscCall(MatDestroy(&A0));
      PetscCall(MatDestroy(&Am));
      PetscCall(VecDestroy(&Yf0));
    }
    if (t == 0) {
      PetscCall(MatNorm(A, NORM_FROBENIUS, &nrm));
      PetscCall(MatIsSymmetric(A, 1e-14 * nrm, &sym));
      PetscCall(Expect(sym, name, "assembled aij symmetric (tolerance 1e-14 |A|_F); |A|_F", nrm, 0));
    }
    PetscCall(MatDestroy(&A));
  }
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&Ss));
  PetscCall(MatDestroy(&C));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&Yf));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Vs));
  PetscCall(VecDestroy(&Ys));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadEnergyDestroy(&Es));
  PetscCall(HFixDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The assembled aij and baij matrices are bitwise the same on 1 and 2 threads per rank (the copy
   into the matrix runs on threads above 16,384 merged blocks a rank: 16 x 16 x 16 cubes of tets,
   elements round-robin, so that every rank has ghost rows whose blocks other ranks add) */
static PetscErrorCode CheckThreadedFill(void)
{
  static const char *const types[] = {"aij", "baij"};
  HFix                     f;
  MfadEnergy               E;
  Vec                      X, G;

  PetscFunctionBeginUser;
  PetscCall(HFixCreateBox("neohookean_tet", 16, 16, 16, &f));
  PetscCall(HFixEnergy(PETSC_COMM_WORLD, &f, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(HFixPoint(&f, 0.002, 11, X));
  for (int t = 0; t < 2; t++) {
    Mat       A[2];
    PetscReal d, a;
    char      what[64];
    for (int nt = 0; nt < 2; nt++) {
      PetscCall(MfadEnergySetNumThreads(E, nt + 1));
      PetscCall(PetscOptionsSetValue(NULL, "-mat_type", types[t]));
      PetscCall(MfadEnergyCreateMatrix(E, &A[nt]));
      PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
      PetscCall(MfadEnergyComputeHessian(E, X, A[nt]));
    }
    PetscCall(MatNorm(A[0], NORM_FROBENIUS, &a));
    PetscCall(MatAXPY(A[1], -1.0, A[0], SAME_NONZERO_PATTERN));
    PetscCall(MatNorm(A[1], NORM_FROBENIUS, &d));
    PetscCall(PetscSNPrintf(what, sizeof(what), "|%s on 2 threads - on 1| (of |A| > 0)", types[t]));
    PetscCall(Expect(d == 0.0 && a > 0.0 ? PETSC_TRUE : PETSC_FALSE, "neohookean_tet 16^3", what, d, 0));
    PetscCall(MatDestroy(&A[0]));
    PetscCall(MatDestroy(&A[1]));
  }
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(HFixDestroy(&f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  for (int i = 0; i < HFIX_COUNT; i++) PetscCall(CheckEnergy(HFixNames[i]));
  PetscCall(CheckThreadedFill());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_hessian_mpi: %d failed\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
