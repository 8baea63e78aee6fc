// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/psd.h
  @brief Projection of one small symmetric element Hessian to positive semi-definite: a cyclic
         Jacobi eigen-decomposition, eigenvalues clamped or made absolute, the matrix rebuilt.

  Plain C (no libc beyond math.h, no allocation, fixed-size arrays), MFAD_HD, so that the CPU
  loops and a CUDA kernel share it. Jacobi rather than tridiagonal QR: N <= 24, and Jacobi is
  short, branch-light and accurate to round-off in every eigenvalue relative to |H|.
**/
#ifndef MFAD_PSD_H
#define MFAD_PSD_H

#include <math.h>

#ifndef MFAD_HD
#if defined(__CUDACC__)
#define MFAD_HD __host__ __device__
#else
#define MFAD_HD
#endif
#endif

#define MFAD_PSD_MAX_N 24
/* projection modes: the values of MfadPSDProjection (mfad.h) */
#define MFAD_PSD_MODE_NONE  0
#define MFAD_PSD_MODE_CLAMP 1
#define MFAD_PSD_MODE_ABS   2

/* Eigen-decomposition of the symmetric n x n row-major A by cyclic Jacobi rotations: on return A
   is diagonal (the eigenvalues) and the columns of V (row-major) are the eigenvectors, so that the
   input equals V diag(A) V^T. Stops when the off-diagonal part is below round-off of |A|_F;
   quadratic convergence makes that ~6-8 sweeps at n = 12. Returns the sweeps done. */
MFAD_HD static inline int mfad_sym_eig_jacobi(int n, double *A, double *V)
{
  double norm2 = 0.0;
  int    sweep;

  for (int i = 0; i < n * n; i++) norm2 += A[i] * A[i];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) V[i * n + j] = i == j ? 1.0 : 0.0;
  for (sweep = 0; sweep < 50; sweep++) {
    double off = 0.0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += A[p * n + q] * A[p * n + q];
    /* 2 off <= (1e-17)^2 |A|^2: every remaining rotation is below round-off */
    if (!(off > 1e-34 * norm2)) break;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) {
        const double apq = A[p * n + q];
        double       theta, t, c, s;
        if (apq == 0.0) continue;
        theta = (A[q * n + q] - A[p * n + p]) / (2.0 * apq);
        /* the smaller rotation angle; t -> 0 when |apq| is negligible against the diagonal gap */
        t = (theta >= 0 ? 1.0 : -1.0) / (fabs(theta) + sqrt(theta * theta + 1.0));
        if (!isfinite(theta * theta)) t = 0.5 / theta;
        c = 1.0 / sqrt(t * t + 1.0);
        s = t * c;
        for (int k = 0; k < n; k++) { /* A <- A J */
          const double akp = A[k * n + p], akq = A[k * n + q];
          A[k * n + p]     = c * akp - s * akq;
          A[k * n + q]     = s * akp + c * akq;
        }
        for (int k = 0; k < n; k++) { /* A <- J^T A */
          const double apk = A[p * n + k], aqk = A[q * n + k];
          A[p * n + k]     = c * apk - s * aqk;
          A[q * n + k]     = s * apk + c * aqk;
        }
        A[p * n + q] = A[q * n + p] = 0.0;
        for (int k = 0; k < n; k++) { /* V <- V J */
          const double vkp = V[k * n + p], vkq = V[k * n + q];
          V[k * n + p]     = c * vkp - s * vkq;
          V[k * n + q]     = s * vkp + c * vkq;
        }
      }
  }
  return sweep;
}

/* Projects the symmetric n x n row-major H in place, with the caller's workspace A and V (n x n
   each) and lam (n): clamp raises eigenvalues below eps to eps, abs replaces each by
   max(|lambda|, eps). An H whose eigenvalues all pass is left bitwise untouched (returns 0);
   otherwise H = V diag(f(lambda)) V^T, exactly symmetric (returns 1). Eigenvalues are those of
   Jacobi: accurate to ~eps_mach |H|, so a PSD H with round-off-negative eigenvalues (rigid modes)
   changes by ~eps_mach |H|. */
MFAD_HD static inline int mfad_psd_project_work(int n, double *H, int mode, double eps, double *A, double *V, double *lam)
{
  int change = 0;

  if (mode == MFAD_PSD_MODE_NONE) return 0;
  for (int i = 0; i < n * n; i++) A[i] = H[i];
  (void)mfad_sym_eig_jacobi(n, A, V);
  for (int i = 0; i < n; i++) {
    const double l = A[i * n + i];
    lam[i]         = mode == MFAD_PSD_MODE_CLAMP ? (l < eps ? eps : l) : (fabs(l) < eps ? eps : fabs(l));
    change |= lam[i] != l;
  }
  if (!change) return 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += V[i * n + k] * lam[k] * V[j * n + k];
      H[i * n + j] = H[j * n + i] = s;
    }
  return 1;
}

/* mfad_psd_project_work() for n <= MFAD_PSD_MAX_N with workspace of the largest size: the CPU
   loops; a GPU kernel sizes its workspace to its element (mfad/loop_cuda.h) */
MFAD_HD static inline int mfad_psd_project(int n, double *H, int mode, double eps)
{
  double A[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], V[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], lam[MFAD_PSD_MAX_N];

  if (mode == MFAD_PSD_MODE_NONE || n > MFAD_PSD_MAX_N) return 0;
  return mfad_psd_project_work(n, H, mode, eps, A, V, lam);
}

#endif /* MFAD_PSD_H */
