// SPDX-License-Identifier: BSD-2-Clause
/* The stacked least-squares residual of a built-in residual kernel (arap_tri_lsq, weight 2) on a
   curved triangulated grid, elements dealt round-robin over the ranks (every rank has ghosts):
   - the residual Jacobian as a shell (one dual-number pass per element) and assembled (AIJ by COO)
     give the same J V and J^T W;
   - J^T (J V) from those products is the energy's Hessian product, the fused per-element
     Gauss-Newton J_e^T (J_e v_e) (MfadEnergyComputeHessianProduct);
   - the energy's objective is 1/2 |r|^2 and its gradient J^T r;
   - a Vec of the wrong size is an error (PETSC_ERR_ARG_SIZ), never a silent read past its end.
   Tolerances: each pair is the same element products summed in another order (per element, then
   over the rows of a sparse matrix; or fused), a few roundings of terms of at most the size of the
   result's largest entry: 1e-12 relative to the largest entry (~4,500 eps). Run under mpiexec with
   any number of ranks; prints one line per failure, nothing otherwise. */
#include <mfadpetsc.h>
#include <math.h>

MFAD_KERNEL_DECLARE(arap_tri_lsq);

#define TOL 1e-12

static int failures;

/* max |A - B| against the bound TOL max |B|, over all ranks */
static PetscErrorCode CompareVec(const char *what, Vec A, Vec B)
{
  Vec       D;
  PetscReal d, b;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(A, &D));
  PetscCall(VecWAXPY(D, -1.0, B, A));
  PetscCall(VecNorm(D, NORM_INFINITY, &d));
  PetscCall(VecNorm(B, NORM_INFINITY, &b));
  if (!(d <= TOL * b) || !(b > 0)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: max difference %.3e > bound %.3e (1e-12 x max %.3e)\n", what, (double)d, (double)(TOL * b),
                          (double)b));
    failures++;
  }
  PetscCall(VecDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a deterministic number in [-1, 1) from an integer (the same on every rank) */
static PetscReal Hash(PetscInt i)
{
  unsigned long long s = 0x9E3779B97F4A7C15ULL * (unsigned long long)(i + 1);
  s ^= s >> 31;
  s *= 0xBF58476D1CE4E5B9ULL;
  s ^= s >> 27;
  return 2.0 * (PetscReal)(s >> 11) / 9007199254740992.0 - 1.0;
}

/* An n x n grid of squares over [0, 1]^2 lifted onto z = 0.3 sin(3x) cos(2y), two triangles per
   square (counter-clockwise seen from +z), triangle t on rank t % size; arap_tri_lsq from the rest
   shape, weight 2 (rows sqrt(2) r_e: the weight's square root is exercised) */
static PetscErrorCode GridEnergy(PetscInt n, MfadEnergy *E)
{
  const PetscInt nv = (n + 1) * (n + 1), ntri = 2 * n * n;
  PetscMPIInt    rank, size;
  PetscInt       nloc = 0, *conn;
  PetscReal     *rest;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscMalloc2(3 * ntri, &conn, 9 * ntri, &rest));
  for (PetscInt t = rank; t < ntri; t += size, nloc++) {
    const PetscInt q = t / 2, i = q % n, j = q / n, v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
    const PetscInt tri[2][3] = {
        {v00, v10, v11},
        {v00, v11, v01}
    };
    for (int a = 0; a < 3; a++) {
      const PetscInt  v = tri[t % 2][a];
      const PetscReal x = (PetscReal)(v % (n + 1)) / n, y = (PetscReal)(v / (n + 1)) / n;
      conn[3 * nloc + a]     = v;
      rest[9 * nloc + 3 * a] = x, rest[9 * nloc + 3 * a + 1] = y, rest[9 * nloc + 3 * a + 2] = 0.3 * PetscSinReal(3 * x) * PetscCosReal(2 * y);
    }
  }
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 2, PETSC_DECIDE, nv, E));
  PetscCall(MfadEnergyAddTermFromRest(*E, MFAD_KERNEL(arap_tri_lsq), nloc, conn, rest, NULL, 2.0, NULL));
  PetscCall(MfadEnergySetFromOptions(*E));
  PetscCall(PetscFree2(conn, rest));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X: the grid's (x, y) stretched by 1.2 along x and perturbed by up to 0.02 (a map far from
   rigid: every r_e != 0); V a random direction */
static PetscErrorCode Point(PetscInt n, Vec X, Vec V)
{
  PetscInt     lo, hi;
  PetscScalar *x, *v;

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(X, &lo, &hi));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArray(V, &v));
  for (PetscInt i = lo; i < hi; i++) {
    const PetscInt  vert = i / 2;
    const PetscReal c    = i % 2 ? (PetscReal)(vert / (n + 1)) / n : 1.2 * (PetscReal)(vert % (n + 1)) / n;
    x[i - lo]            = c + 0.02 * Hash(i);
    v[i - lo]            = Hash(i + 7919);
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(VecRestoreArray(V, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  const PetscInt n = 12;
  MfadEnergy     E;
  Mat            Js, Ja;
  Vec            X, V, G, Y, R, W, JVs, JVa, JTWs, JTWa, JTJV, Bad;
  PetscReal      f, r2;
  PetscInt       m;
  PetscErrorCode ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(GridEnergy(n, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(VecDuplicate(X, &JTWs));
  PetscCall(VecDuplicate(X, &JTWa));
  PetscCall(VecDuplicate(X, &JTJV));
  PetscCall(Point(n, X, V));
  PetscCall(MfadEnergyCreateResidualVec(E, &R));
  PetscCall(VecDuplicate(R, &W));
  PetscCall(VecDuplicate(R, &JVs));
  PetscCall(VecDuplicate(R, &JVa));
  PetscCall(VecSetRandom(W, NULL));

  PetscCall(MfadEnergyCreateResidualJacobianShell(E, &Js));
  PetscCall(MfadEnergyCreateResidualJacobian(E, &Ja));
  PetscCall(MfadResidualJacobianSetPoint(Js, E, X));
  PetscCall(MfadResidualJacobianSetPoint(Ja, E, X));

  /* shell against assembled */
  PetscCall(MatMult(Js, V, JVs));
  PetscCall(MatMult(Ja, V, JVa));
  PetscCall(CompareVec("J V: shell vs AIJ", JVs, JVa));
  PetscCall(MatMultTranspose(Js, W, JTWs));
  PetscCall(MatMultTranspose(Ja, W, JTWa));
  PetscCall(CompareVec("J^T W: shell vs AIJ", JTWs, JTWa));

  /* J^T (J V) against the fused Gauss-Newton product, from both forms of J */
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
  PetscCall(MatMultTranspose(Js, JVs, JTJV));
  PetscCall(CompareVec("J^T (J V) (shell) vs MfadEnergyComputeHessianProduct", JTJV, Y));
  PetscCall(MatMultTranspose(Ja, JVa, JTJV));
  PetscCall(CompareVec("J^T (J V) (AIJ) vs MfadEnergyComputeHessianProduct", JTJV, Y));

  /* objective 1/2 |r|^2 and gradient J^T r */
  PetscCall(MfadEnergyComputeResidual(E, X, R));
  PetscCall(VecNorm(R, NORM_2, &r2));
  PetscCall(MfadEnergyComputeObjective(E, X, &f));
  if (!(PetscAbsReal(f - 0.5 * r2 * r2) <= TOL * f) || !(f > 0)) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL objective %.17g, 1/2 |r|^2 %.17g: bound 1e-12 relative\n", (double)f, (double)(0.5 * r2 * r2)));
    failures++;
  }
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(MatMultTranspose(Ja, R, JTWa));
  PetscCall(CompareVec("gradient vs J^T r", JTWa, G));

  /* wrong sizes: a residual Vec one row longer on every rank, an unknowns Vec as a residual */
  PetscCall(MfadEnergyGetResidualSizes(E, &m, NULL));
  PetscCall(VecCreateMPI(PETSC_COMM_WORLD, m + 1, PETSC_DETERMINE, &Bad));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyComputeResidual(E, X, Bad);
  PetscCall(PetscPopErrorHandler());
  if (ierr != PETSC_ERR_ARG_SIZ) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "FAIL MfadEnergyComputeResidual with a residual Vec of %" PetscInt_FMT
                          " + 1 local rows returned %d, expected PETSC_ERR_ARG_SIZ (%d)\n",
                          m, (int)ierr, (int)PETSC_ERR_ARG_SIZ));
    failures++;
  }
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyComputeResidualJacobianTransposeProduct(E, X, V, Y);
  PetscCall(PetscPopErrorHandler());
  if (ierr != PETSC_ERR_ARG_SIZ) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL J^T W with W an unknowns Vec returned %d, expected PETSC_ERR_ARG_SIZ (%d)\n", (int)ierr,
                          (int)PETSC_ERR_ARG_SIZ));
    failures++;
  }

  PetscCall(VecDestroy(&Bad));
  PetscCall(MatDestroy(&Js));
  PetscCall(MatDestroy(&Ja));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&R));
  PetscCall(VecDestroy(&W));
  PetscCall(VecDestroy(&JVs));
  PetscCall(VecDestroy(&JVa));
  PetscCall(VecDestroy(&JTWs));
  PetscCall(VecDestroy(&JTWa));
  PetscCall(VecDestroy(&JTJV));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
