// SPDX-License-Identifier: BSD-2-Clause
/* The system sum of a residual (tests/energies/res_sys.c: P1 advection-diffusion-reaction on a
   triangle grid of the unit square, boundary dofs fixed): F(x) and its Jacobian in every form.
   - the shell's operator (MatMult, one dual-number JVP per element) equals the assembled aij and
     baij Jacobians, and its transpose operator (MatMultTranspose) their transpose, to 1e-12;
   - the assembled Jacobian equals central differences of F to 1e-6 (h = 1e-6 on O(1) entries:
     truncation ~1e-12 |F'''|, rounding ~1e-16 |F| / h = 1e-10, relative to |J|: 1e-6 is loose);
   - the Jacobian is not symmetric (the advection term), and the matrices do not claim to be;
   - distributed (elements round-robin over the ranks) equals the same system on one rank;
   - -mfad_damping lambda adds lambda I on the free dofs to the shell, its diagonal and aij alike;
   - refused with an error naming the term: the objective, the element-Hessian cache, PSD
     projection, sbaij.
   Run under mpiexec with any number of ranks; prints one line per failure, nothing otherwise. */
#include <mfadpetsc.h>

MFAD_KERNEL_DECLARE(res_sys);

#define NCELL 6 /* cells per side: (NCELL + 1)^2 vertices, 2 NCELL^2 triangles */

static int failures;

static void Fail(const char *what, double got, double bound)
{
  PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %.3e (bound %.1e)\n", what, got, bound);
  failures++;
}

/* The grid's system on `comm`: element e goes to rank e % size; vertices in contiguous blocks */
static PetscErrorCode CreateSystem(MPI_Comm comm, MfadEnergy *E)
{
  const PetscInt nv = (NCELL + 1) * (NCELL + 1), nt = 2 * NCELL * NCELL;
  PetscMPIInt    rank, size;
  PetscInt       n, ne = 0, *conn, nfix = 0, *fix, rstart, rend;
  PetscReal     *params, *val;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  n = nv / size + (rank < nv % size);
  PetscCall(MfadEnergyCreate(comm, 1, n, nv, E));
  PetscCall(PetscMalloc2(3 * nt, &conn, 8 * nt, &params));
  for (PetscInt t = rank; t < nt; t += size, ne++) {
    const PetscInt c = t / 2, i = c % NCELL, j = c / NCELL, v00 = i + (NCELL + 1) * j, v10 = v00 + 1, v01 = v00 + NCELL + 1, v11 = v01 + 1;
    const PetscInt tri[2][3] = {
        {v00, v10, v11},
        {v00, v11, v01}
    };
    for (int a = 0; a < 3; a++) {
      const PetscInt v           = tri[t % 2][a];
      conn[3 * ne + a]           = v;
      params[8 * ne + 2 * a]     = (PetscReal)(v % (NCELL + 1)) / NCELL + 0.01 * PetscSinReal((PetscReal)v); /* a perturbed grid */
      params[8 * ne + 2 * a + 1] = (PetscReal)(v / (NCELL + 1)) / NCELL + 0.01 * PetscCosReal((PetscReal)v);
    }
    params[8 * ne + 6] = 3.0; /* velocity */
    params[8 * ne + 7] = -2.0;
  }
  PetscCall(MfadEnergyAddTerm(*E, MFAD_KERNEL(res_sys), ne, conn, params, 1.0, NULL));
  PetscCall(PetscFree2(conn, params));
  /* the boundary's owned vertices, at u = 0.5 */
  rstart = 0;
  PetscCallMPI(MPI_Exscan(&n, &rstart, 1, MPIU_INT, MPI_SUM, comm));
  if (rank == 0) rstart = 0;
  rend = rstart + n;
  PetscCall(PetscMalloc2(n, &fix, n, &val));
  for (PetscInt v = rstart; v < rend; v++) {
    const PetscInt i = v % (NCELL + 1), j = v / (NCELL + 1);
    if (i == 0 || j == 0 || i == NCELL || j == NCELL) fix[nfix] = v, val[nfix++] = 0.5;
  }
  PetscCall(MfadEnergySetFixedDofs(*E, nfix, fix, val));
  PetscCall(PetscFree2(fix, val));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x_v = smooth function of the global index: the same point on any communicator */
static PetscErrorCode Point(Vec X)
{
  PetscInt     lo, hi;
  PetscScalar *x;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = lo; i < hi; i++) x[i - lo] = 0.5 + 0.4 * PetscSinReal(0.7 * i) * PetscCosReal(0.3 * i);
  PetscCall(VecRestoreArray(X, &x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* |A - B|_F / |B|_F of two matrices */
static PetscErrorCode MatRelDiff(Mat A, Mat B, PetscReal *d)
{
  Mat       D;
  PetscReal nd, nb;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &D));
  PetscCall(MatAXPY(D, -1.0, B, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  PetscCall(MatNorm(B, NORM_FROBENIUS, &nb));
  *d = nd / nb;
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Dense(Mat A, Mat *D)
{
  PetscFunctionBeginUser;
  PetscCall(MatConvert(A, MATDENSE, MAT_INITIAL_MATRIX, D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckForms(MfadEnergy E, Vec X)
{
  Mat       S, A, B, Sd, STd, Ad, Bd, At, Fd;
  PetscReal d;
  PetscBool sym;
  Vec       F0, F1, Xp;
  PetscInt  N, lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateHessianShell(E, &S));
  PetscCall(MfadHessianShellSetPoint(S, X));
  PetscCall(MatComputeOperator(S, MATDENSE, &Sd));
  PetscCall(MatComputeOperatorTranspose(S, MATDENSE, &STd));
  PetscCall(MfadEnergyCreateMatrix(E, &A));
  PetscCall(MfadEnergyComputeHessian(E, X, A));
  PetscCall(Dense(A, &Ad));
  PetscCall(MatRelDiff(Sd, Ad, &d));
  if (!(d <= 1e-12)) Fail("shell product against assembled aij", d, 1e-12);
  PetscCall(MatTranspose(Ad, MAT_INITIAL_MATRIX, &At));
  PetscCall(MatRelDiff(STd, At, &d));
  if (!(d <= 1e-12)) Fail("shell transpose product against assembled aij's transpose", d, 1e-12);
  PetscCall(MatRelDiff(Ad, At, &d));
  if (!(d >= 0.1)) Fail("the advection Jacobian is not symmetric: |A - A^T| / |A|", d, 0.1);
  PetscCall(MatIsSymmetricKnown(A, &sym, &sym));
  if (sym) Fail("the assembled Jacobian claims symmetry", 1, 0);
  PetscCall(MatIsSymmetricKnown(S, &sym, &sym));
  if (sym) Fail("the shell Jacobian claims symmetry", 1, 0);
  /* baij (block size 1 here) through the same COO values */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "baij"));
  PetscCall(MfadEnergyCreateMatrix(E, &B));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  PetscCall(MfadEnergyComputeHessian(E, X, B));
  PetscCall(Dense(B, &Bd));
  PetscCall(MatRelDiff(Bd, Ad, &d));
  if (!(d <= 1e-14)) Fail("baij against aij", d, 1e-14);
  /* central differences of F, column by column (fixed columns: identity rows, zero elsewhere) */
  PetscCall(VecGetSize(X, &N));
  PetscCall(VecDuplicate(X, &F0));
  PetscCall(VecDuplicate(X, &F1));
  PetscCall(VecDuplicate(X, &Xp));
  PetscCall(MatDuplicate(Ad, MAT_DO_NOT_COPY_VALUES, &Fd));
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  for (PetscInt j = 0; j < N; j++) {
    const PetscReal    h = 1e-6;
    const PetscScalar *f0, *f1;
    PetscCall(VecCopy(X, Xp));
    if (j >= lo && j < hi) PetscCall(VecSetValue(Xp, j, h, ADD_VALUES)); /* once, by its owner */
    PetscCall(VecAssemblyBegin(Xp));
    PetscCall(VecAssemblyEnd(Xp));
    PetscCall(MfadEnergyComputeGradient(E, Xp, F1));
    PetscCall(VecCopy(X, Xp));
    if (j >= lo && j < hi) PetscCall(VecSetValue(Xp, j, -h, ADD_VALUES));
    PetscCall(VecAssemblyBegin(Xp));
    PetscCall(VecAssemblyEnd(Xp));
    PetscCall(MfadEnergyComputeGradient(E, Xp, F0));
    PetscCall(VecGetArrayRead(F0, &f0));
    PetscCall(VecGetArrayRead(F1, &f1));
    for (PetscInt i = lo; i < hi; i++) PetscCall(MatSetValue(Fd, i, j, (f1[i - lo] - f0[i - lo]) / (2 * h), INSERT_VALUES));
    PetscCall(VecRestoreArrayRead(F0, &f0));
    PetscCall(VecRestoreArrayRead(F1, &f1));
  }
  PetscCall(MatAssemblyBegin(Fd, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(Fd, MAT_FINAL_ASSEMBLY));
  PetscCall(MatRelDiff(Fd, Ad, &d));
  if (!(d <= 1e-6)) Fail("assembled Jacobian against central differences of F", d, 1e-6);
  PetscCall(VecDestroy(&F0));
  PetscCall(VecDestroy(&F1));
  PetscCall(VecDestroy(&Xp));
  PetscCall(MatDestroy(&Fd));
  PetscCall(MatDestroy(&At));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&Bd));
  PetscCall(MatDestroy(&Sd));
  PetscCall(MatDestroy(&STd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Levenberg-Marquardt damping: the same lambda I on the free dofs in every form */
static PetscErrorCode CheckDamping(MfadEnergy E, Vec X)
{
  const PetscReal lambda = 0.75;
  Mat             S, A, Sd, Ad, A0, A0d;
  Vec             dS, dA;
  PetscReal       d, nfree;
  PetscInt        nfix = 0, N, lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateMatrix(E, &A0));
  PetscCall(MfadEnergyComputeHessian(E, X, A0));
  PetscCall(Dense(A0, &A0d));
  PetscCall(MfadEnergySetDamping(E, lambda));
  PetscCall(MfadEnergyCreateHessianShell(E, &S));
  PetscCall(MfadHessianShellSetPoint(S, X));
  PetscCall(MatComputeOperator(S, MATDENSE, &Sd));
  PetscCall(MfadEnergyCreateMatrix(E, &A));
  PetscCall(MfadEnergyComputeHessian(E, X, A));
  PetscCall(Dense(A, &Ad));
  PetscCall(MatRelDiff(Sd, Ad, &d));
  if (!(d <= 1e-12)) Fail("damped shell against damped aij", d, 1e-12);
  PetscCall(MatCreateVecs(A, &dS, &dA));
  PetscCall(MatGetDiagonal(S, dS));
  PetscCall(MatGetDiagonal(A, dA));
  PetscCall(VecAXPY(dS, -1.0, dA));
  PetscCall(VecNorm(dS, NORM_INFINITY, &d));
  if (!(d <= 1e-12)) Fail("damped shell diagonal against damped aij's", d, 1e-12);
  /* A - A0 = lambda on the free diagonal: |A - A0|_F = lambda sqrt(free dofs) */
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetSize(X, &N));
  for (PetscInt v = 0; v < N; v++) nfix += v % (NCELL + 1) == 0 || v / (NCELL + 1) == 0 || v % (NCELL + 1) == NCELL || v / (NCELL + 1) == NCELL;
  nfree = (PetscReal)(N - nfix);
  PetscCall(MatAXPY(Ad, -1.0, A0d, SAME_NONZERO_PATTERN));
  PetscCall(MatNorm(Ad, NORM_FROBENIUS, &d));
  if (!(PetscAbsReal(d - lambda * PetscSqrtReal(nfree)) <= 1e-12 * lambda * PetscSqrtReal(nfree)))
    Fail("|damped - undamped| against lambda sqrt(free dofs)", PetscAbsReal(d - lambda * PetscSqrtReal(nfree)), 1e-12);
  PetscCall(MfadEnergySetDamping(E, 0.0));
  PetscCall(VecDestroy(&dS));
  PetscCall(VecDestroy(&dA));
  PetscCall(MatDestroy(&S));
  PetscCall(MatDestroy(&Sd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&Ad));
  PetscCall(MatDestroy(&A0));
  PetscCall(MatDestroy(&A0d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Distributed F and J v against the same system on one rank (every rank builds it) */
static PetscErrorCode CheckAgainstSerial(MfadEnergy E, Vec X)
{
  MfadEnergy         S;
  Vec                Xs, Fs, JVs, F, JV, V, Vs, all;
  VecScatter         toall;
  const PetscScalar *a, *b;
  PetscInt           N;
  PetscReal          d = 0.0, nb = 0.0;

  PetscFunctionBeginUser;
  PetscCall(CreateSystem(PETSC_COMM_SELF, &S));
  PetscCall(MfadEnergyCreateVecs(S, &Xs, &Fs));
  PetscCall(VecDuplicate(Xs, &JVs));
  PetscCall(VecDuplicate(Xs, &Vs));
  PetscCall(Point(Xs));
  PetscCall(VecCopy(Xs, Vs));
  PetscCall(VecScale(Vs, -0.3));
  PetscCall(VecShift(Vs, 0.2));
  PetscCall(MfadEnergyComputeGradient(S, Xs, Fs));
  PetscCall(MfadEnergyComputeHessianProduct(S, Xs, Vs, JVs));
  PetscCall(VecDuplicate(X, &F));
  PetscCall(VecDuplicate(X, &JV));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecCopy(X, V));
  PetscCall(VecScale(V, -0.3));
  PetscCall(VecShift(V, 0.2));
  PetscCall(MfadEnergyComputeGradient(E, X, F));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, JV));
  PetscCall(VecGetSize(X, &N));
  for (int k = 0; k < 2; k++) {
    PetscCall(VecScatterCreateToAll(k ? JV : F, &toall, &all));
    PetscCall(VecScatterBegin(toall, k ? JV : F, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(toall, k ? JV : F, all, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecGetArrayRead(all, &a));
    PetscCall(VecGetArrayRead(k ? JVs : Fs, &b));
    d = nb = 0.0;
    for (PetscInt i = 0; i < N; i++) d += PetscSqr(PetscRealPart(a[i] - b[i])), nb += PetscSqr(PetscRealPart(b[i]));
    PetscCall(VecRestoreArrayRead(all, &a));
    PetscCall(VecRestoreArrayRead(k ? JVs : Fs, &b));
    if (!(PetscSqrtReal(d / nb) <= 1e-12))
      Fail(k ? "J v: distributed against one rank" : "F: distributed against one rank", PetscSqrtReal(d / nb), 1e-12);
    PetscCall(VecScatterDestroy(&toall));
    PetscCall(VecDestroy(&all));
  }
  PetscCall(VecDestroy(&F));
  PetscCall(VecDestroy(&JV));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Fs));
  PetscCall(VecDestroy(&JVs));
  PetscCall(VecDestroy(&Vs));
  PetscCall(MfadEnergyDestroy(&S));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Expect(PetscErrorCode err, const char *what)
{
  PetscFunctionBeginUser;
  if (!err) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s was accepted\n", what));
    failures++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckRefusals(MfadEnergy E, Vec X)
{
  PetscReal f;
  Vec       Y;
  Mat       A = NULL;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(Expect(MfadEnergyComputeObjective(E, X, &f), "an objective of a system"));
  PetscCall(Expect(MfadEnergyComputeObjectiveGradient(E, X, &f, Y), "an objective with the function of a system"));
  PetscCall(Expect(MfadEnergyComputeHessianCache(E, X), "the symmetric element-Hessian cache of a system"));
  PetscCall(Expect(MfadEnergyCreateResidualVec(E, &Y), "a least-squares residual Vec of a system"));
  PetscCall(PetscPopErrorHandler());
  PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0.0));
  PetscCall(MfadEnergyCreateMatrix(E, &A));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(Expect(MfadEnergyComputeHessian(E, X, A), "PSD projection of a system's Jacobian"));
  PetscCall(PetscPopErrorHandler());
  PetscCall(MatDestroy(&A));
  PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_NONE, 0.0));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "sbaij"));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(Expect(MfadEnergyCreateMatrix(E, &A), "sbaij (upper triangle) for a system's Jacobian"));
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MfadEnergy E;
  Vec        X;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(CreateSystem(PETSC_COMM_WORLD, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(Point(X));
  PetscCall(CheckForms(E, X));
  PetscCall(CheckDamping(E, X));
  PetscCall(CheckAgainstSerial(E, X));
  PetscCall(CheckRefusals(E, X));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
