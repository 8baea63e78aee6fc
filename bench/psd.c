// SPDX-License-Identifier: BSD-2-Clause
/* The PSD projection of small element Hessians (mfad/impl/psd.h): the eigensolvers it could use, timed
   on the same matrices in one run -- cyclic Jacobi (mfad_sym_eig_jacobi, the previous default),
   Householder + implicit QL (mfad_sym_eig_tridiag, the default) and LAPACK's dsyev through PETSc
   -- and the whole projection (Cholesky shortcut, eigensolver, rebuild). Matrices: Neo-Hookean
   tet Hessians (N = 12) at random deformations (about half indefinite, all with the 6 rigid null
   modes), and synthetic H = Q diag(lambda) Q^T at N = 6, 9, 12, 18, 24 with the spectrum of an
   element Hessian (a few zero modes, a few negative eigenvalues, positive ones over 4 decades), and
   the same shifted positive definite (the blocks a feature-space projection sees). Every solver's
   reconstruction error |V diag V^T - H| / |H| is printed beside its time.
     build/bench/bench_psd [-samples 4000] [-reps 5] */
#include <mfadpetsc.h>
#define MFAD_IMPL_ALLOWED 1 /* times the machinery's PSD projection against LAPACK */
#include <mfad/impl/kernel.h>
#include <mfad/impl/psd.h>
#include <petscblaslapack.h>
#include <petsctime.h>

MFAD_KERNEL_DECLARE(neohookean_tet);

typedef enum { SOLVER_JACOBI, SOLVER_QL, SOLVER_LAPACK, SOLVER_PROJECT } Solver;
static const char *names[] = {"jacobi", "tridiag-QL", "LAPACK dsyev", "psd_project"};

static double Uniform(unsigned long long *s)
{
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(*s >> 11) / 9007199254740992.0;
}

/* H = Q diag(lam) Q^T with Q from Gram-Schmidt of a random matrix */
static void Synthetic(int n, int nzero, int nneg, double shift, unsigned long long *seed, double *H)
{
  double Q[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], lam[MFAD_PSD_MAX_N];
  for (int i = 0; i < n * n; i++) Q[i] = 2 * Uniform(seed) - 1;
  for (int j = 0; j < n; j++) { /* columns orthonormal */
    for (int k = 0; k < j; k++) {
      double d = 0;
      for (int i = 0; i < n; i++) d += Q[i * n + j] * Q[i * n + k];
      for (int i = 0; i < n; i++) Q[i * n + j] -= d * Q[i * n + k];
    }
    double nrm = 0;
    for (int i = 0; i < n; i++) nrm += Q[i * n + j] * Q[i * n + j];
    for (int i = 0; i < n; i++) Q[i * n + j] /= sqrt(nrm);
  }
  for (int k = 0; k < n; k++) lam[k] = k < nzero ? 0 : k < nzero + nneg ? -pow(10, -2 * Uniform(seed)) : pow(10, 4 * Uniform(seed) - 2);
  for (int k = 0; k < n; k++) lam[k] += shift;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0;
      for (int k = 0; k < n; k++) s += Q[i * n + k] * lam[k] * Q[j * n + k];
      H[i * n + j] = s;
    }
  for (int i = 0; i < n; i++) /* exactly symmetric, as the element Hessians are */
    for (int j = i + 1; j < n; j++) H[j * n + i] = H[i * n + j];
}

/* one decomposition; returns |V diag(d) V^T - H|_max / |H|_max (0 for the projection) */
static double Run(Solver s, int n, const double *H, double *work, PetscBool check)
{
  double      *A = work, *V = work + n * n, *d = work + 2 * n * n, *e = d + n, *lw = e + n, err = 0, hmax = 0;
  PetscBLASInt bn = n, lwork = 4 * n * n, info;

  switch (s) {
  case SOLVER_JACOBI:
    for (int i = 0; i < n * n; i++) A[i] = H[i];
    (void)mfad_sym_eig_jacobi(n, A, V);
    for (int i = 0; i < n; i++) d[i] = A[i * n + i];
    break;
  case SOLVER_QL:
    for (int i = 0; i < n * n; i++) V[i] = H[i];
    (void)mfad_sym_eig_tridiag(n, V, d, e);
    break;
  case SOLVER_LAPACK: /* column-major = row-major for a symmetric matrix; V^T comes back: transposed below */
#if defined(MFAD_BENCH_LAPACK)
    for (int i = 0; i < n * n; i++) A[i] = H[i];
    LAPACKsyev_("V", "U", &bn, A, &bn, d, lw, &lwork, &info);
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) V[i * n + j] = A[j * n + i];
    break;
#else
    (void)bn, (void)lwork, (void)info, (void)lw;
    return 0; /* not linked: shown as 0 */
#endif
  case SOLVER_PROJECT:
    for (int i = 0; i < n * n; i++) A[i] = H[i];
    (void)mfad_psd_project_work(n, A, MFAD_PSD_MODE_ABS, 0.0, V, d, e);
    return 0;
  }
  if (!check) return 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double r = 0;
      for (int k = 0; k < n; k++) r += V[i * n + k] * d[k] * V[j * n + k];
      err  = PetscMax(err, PetscAbsReal(r - H[i * n + j]));
      hmax = PetscMax(hmax, PetscAbsReal(H[i * n + j]));
    }
  return err / hmax;
}

static PetscErrorCode Time(const char *label, int n, int count, const double *H, int reps)
{
  double *work, t[16], err[4];

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(8 * n * n, &work));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-28s N %2d", label, n));
  for (int s = 0; s < 4; s++) {
    err[s] = 0;
    for (int m = 0; m < count; m++) err[s] = PetscMax(err[s], Run((Solver)s, n, H + (size_t)m * n * n, work, PETSC_TRUE));
  }
  for (int s = 0; s < 4; s++) {
    for (int r = 0; r < reps; r++) { /* solvers interleaved within a repetition: the same load for each */
      PetscLogDouble t0, t1;
      PetscCall(PetscTime(&t0));
      for (int m = 0; m < count; m++) (void)Run((Solver)s, n, H + (size_t)m * n * n, work, PETSC_FALSE);
      PetscCall(PetscTime(&t1));
      t[r] = (t1 - t0) / count * 1e6;
    }
    PetscCall(PetscSortReal(reps, t));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, " | %s %7.2f us", names[s], t[reps / 2]));
    if (s < 3) PetscCall(PetscPrintf(PETSC_COMM_SELF, " (err %.0e)", err[s]));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n"));
  PetscCall(PetscFree(work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt           samples = 4000, reps = 5;
  unsigned long long seed = 12345;
  double            *H;
  const int          sizes[5] = {6, 9, 12, 18, 24}, zeros[5] = {3, 3, 6, 6, 6};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-samples", &samples, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-reps", &reps, NULL));
  reps = PetscMax(1, PetscMin(reps, 16));
  PetscCall(PetscMalloc1((size_t)samples * MFAD_PSD_MAX_N * MFAD_PSD_MAX_N, &H));
  { /* Neo-Hookean tets: the unit corner tet deformed by F = I + random entries in [-0.6, 0.6] */
    MfadKernel nh       = &MfadKernel_neohookean_tet;
    double     rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 4.0}, p[16], x[12], value;
    int        indefinite = 0;
    PetscCheck(!nh->rest(rest, mat, p), PETSC_COMM_SELF, PETSC_ERR_PLIB, "neohookean_tet: the rest tet is degenerate");
    for (PetscInt m = 0; m < samples; m++) {
      double F[9], w[8 * 144];
      for (int i = 0; i < 9; i++) F[i] = (i % 4 == 0) + 1.2 * Uniform(&seed) - 0.6;
      for (int v = 0; v < 4; v++)
        for (int i = 0; i < 3; i++) x[3 * v + i] = F[3 * i] * rest[3 * v] + F[3 * i + 1] * rest[3 * v + 1] + F[3 * i + 2] * rest[3 * v + 2];
      nh->element(MFAD_MODE_HESSIAN, x, NULL, p, &value, H + m * 144);
      if (!PetscIsInfOrNanReal(value)) {
        for (int i = 0; i < 144; i++) w[i] = H[m * 144 + i];
        indefinite += !mfad_psd_is_above(12, w, -1e-8, w + 144);
      } else m--; /* an inverted tet: +inf energy, not a Hessian a solver projects */
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "%" PetscInt_FMT " Neo-Hookean tet Hessians, %d of them indefinite beyond round-off; medians of %" PetscInt_FMT
                          " runs per matrix\n",
                          samples, indefinite, reps));
    PetscCall(Time("neohookean_tet", 12, (int)samples, H, (int)reps));
  }
  for (int k = 0; k < 5; k++) {
    const int n = sizes[k];
    for (PetscInt m = 0; m < samples; m++) Synthetic(n, zeros[k], 2, 0.0, &seed, H + m * n * n);
    PetscCall(Time("synthetic, null + negative", n, (int)samples, H, (int)reps));
    for (PetscInt m = 0; m < samples; m++) Synthetic(n, 0, 0, 1e-2, &seed, H + m * n * n);
    PetscCall(Time("synthetic, definite", n, (int)samples, H, (int)reps));
  }
  PetscCall(PetscFree(H));
  PetscCall(PetscFinalize());
  return 0;
}
