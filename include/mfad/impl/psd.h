// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/psd.h
  @brief Projection of one small symmetric element Hessian to positive semi-definite: a
         Cholesky attempt that proves most definite blocks need nothing, else a symmetric
         eigen-decomposition, eigenvalues clamped or made absolute, the matrix rebuilt.

  Plain C (no libc beyond math.h, no allocation, caller workspace), MFAD_HD, so that the CPU loops
  and a CUDA kernel share it; a GPU thread cannot call LAPACK, and for N <= 24 a call's set-up costs
  more than the work (bench/psd.c measures both). The eigensolver is Householder tridiagonalisation
  and implicit QL with Wilkinson shifts (tred2/tql2 of EISPACK, as in the public-domain JAMA):
  about 9 N^3 flops, where cyclic Jacobi needs 6-8 sweeps of 3 N^3 (bench/psd.c: 4.5-7.5x faster at
  N = 9-24, and 1.4-1.8x faster than LAPACK dsyev).
  Both are backward stable: every eigenvalue to ~eps_mach |H|. Jacobi stays as the tests' oracle.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/psd.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
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
   quadratic convergence makes that ~6-8 sweeps at n = 12. At most max_sweeps sweeps; stops when
   the off-diagonal norm is at most tol |A|_F. Returns the sweeps done, or -1 where the last allowed
   sweep left more than that (not converged) or A is not finite (NaN or Inf: nothing converges). */
MFAD_HD static inline int mfad_sym_eig_jacobi_sweeps(int n, double *A, double *V, int max_sweeps, double tol)
{
  double norm2 = 0.0;
  int    sweep;

  for (int i = 0; i < n * n; i++) norm2 += A[i] * A[i];
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) V[i * n + j] = i == j ? 1.0 : 0.0;
  if (!isfinite(norm2)) return -1;
  for (sweep = 0;; sweep++) {
    double off = 0.0;
    for (int p = 0; p < n; p++)
      for (int q = p + 1; q < n; q++) off += A[p * n + q] * A[p * n + q];
    /* 2 off <= tol^2 |A|^2: every remaining rotation is below tol */
    if (!(off > 0.5 * tol * tol * norm2)) break;
    if (sweep == max_sweeps) return -1;
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

/* mfad_sym_eig_jacobi_sweeps() to round-off (tol 1.4e-17), at most 50 sweeps; returns the sweeps
   done (50 where that was not enough) */
MFAD_HD static inline int mfad_sym_eig_jacobi(int n, double *A, double *V)
{
  const int s = mfad_sym_eig_jacobi_sweeps(n, A, V, 50, 1.4142135623730951e-17);
  return s < 0 ? 50 : s;
}

/* sqrt(a^2 + b^2) without overflow or underflow, within 3 ulp: libm's hypot is correctly rounded
   and slow (perf, sphere's default run on a scanned armadillo: a third of the projection's time
   was hypot); the QL rotations need it stable, not correctly rounded. */
MFAD_HD static inline double mfad_hypot(double a, double b)
{
  const double m = fmax(fabs(a), fabs(b));

  if (m > 1e-150 && m < 1e150) return sqrt(a * a + b * b); /* no overflow, no underflow */
  if (!(m > 0) || isinf(m)) return fabs(a) + fabs(b);       /* 0, inf, NaN */
  a /= m;
  b /= m;
  return m * sqrt(a * a + b * b);
}

/* Eigen-decomposition of the symmetric n x n row-major matrix in V by Householder reduction to
   tridiagonal form and the implicit QL algorithm (EISPACK tred2 and tql2; Wilkinson 1971): on return
   d holds the eigenvalues (unsorted) and the columns of V (row-major) the eigenvectors, so that the
   input equals V diag(d) V^T. e (n) is workspace. Returns 0, or 1 when an eigenvalue took more than
   60 QL steps (2-3 are typical; NaN input stops at once and leaves NaN). */
MFAD_HD static inline int mfad_sym_eig_tridiag(int n, double *V, double *d, double *e)
{
  const double ulp = 2.220446049250313e-16;
  double       f = 0.0, tst1 = 0.0;
  int          fail = 0;

  /* tred2: V <- Q, (d, e) <- the diagonal and subdiagonal of Q^T A Q */
  for (int j = 0; j < n; j++) d[j] = V[(n - 1) * n + j];
  for (int i = n - 1; i > 0; i--) {
    double scale = 0.0, h = 0.0;
    for (int k = 0; k < i; k++) scale += fabs(d[k]);
    if (scale == 0.0) { /* the row is already reduced */
      e[i] = d[i - 1];
      for (int j = 0; j < i; j++) {
        d[j]         = V[(i - 1) * n + j];
        V[i * n + j] = V[j * n + i] = 0.0;
      }
    } else {
      double g, hh;
      for (int k = 0; k < i; k++) {
        d[k] /= scale;
        h += d[k] * d[k];
      }
      f = d[i - 1];
      g = sqrt(h);
      if (f > 0) g = -g;
      e[i]     = scale * g;
      h        = h - f * g;
      d[i - 1] = f - g;
      for (int j = 0; j < i; j++) e[j] = 0.0;
      for (int j = 0; j < i; j++) { /* e <- A u, the lower triangle of the active block */
        f            = d[j];
        V[j * n + i] = f;
        g            = e[j] + V[j * n + j] * f;
        for (int k = j + 1; k <= i - 1; k++) {
          g += V[k * n + j] * d[k];
          e[k] += V[k * n + j] * f;
        }
        e[j] = g;
      }
      f = 0.0;
      for (int j = 0; j < i; j++) {
        e[j] /= h;
        f += e[j] * d[j];
      }
      hh = f / (h + h);
      for (int j = 0; j < i; j++) e[j] -= hh * d[j];
      for (int j = 0; j < i; j++) { /* the rank-2 update A <- A - u p^T - p u^T */
        f = d[j];
        g = e[j];
        for (int k = j; k <= i - 1; k++) V[k * n + j] -= f * e[k] + g * d[k];
        d[j]         = V[(i - 1) * n + j];
        V[i * n + j] = 0.0;
      }
    }
    d[i] = h;
  }
  for (int i = 0; i < n - 1; i++) { /* accumulate the reflections into V */
    const double h     = d[i + 1];
    V[(n - 1) * n + i] = V[i * n + i];
    V[i * n + i]       = 1.0;
    if (h != 0.0) {
      for (int k = 0; k <= i; k++) d[k] = V[k * n + i + 1] / h;
      for (int j = 0; j <= i; j++) {
        double g = 0.0;
        for (int k = 0; k <= i; k++) g += V[k * n + i + 1] * V[k * n + j];
        for (int k = 0; k <= i; k++) V[k * n + j] -= g * d[k];
      }
    }
    for (int k = 0; k <= i; k++) V[k * n + i + 1] = 0.0;
  }
  for (int j = 0; j < n; j++) {
    d[j]               = V[(n - 1) * n + j];
    V[(n - 1) * n + j] = 0.0;
  }
  V[(n - 1) * n + n - 1] = 1.0;
  e[0]                   = 0.0;

  /* tql2: the tridiagonal matrix diagonalised by implicit QL steps, rotations applied to V */
  for (int i = 1; i < n; i++) e[i - 1] = e[i];
  e[n - 1] = 0.0;
  f        = 0.0;
  for (int l = 0; l < n; l++) {
    int m = l, iter = 0;
    tst1 = fmax(tst1, fabs(d[l]) + fabs(e[l]));
    while (m < n - 1 && !(fabs(e[m]) <= ulp * tst1)) m++; /* e[m] negligible: the block splits */
    if (m > l) {
      do {
        double g = d[l], p = (d[l + 1] - g) / (2.0 * e[l]), r = mfad_hypot(p, 1.0), dl1, h, c = 1.0, c2 = 1.0, c3 = 1.0, el1, s = 0.0, s2 = 0.0;
        if (p < 0) r = -r;
        d[l]     = e[l] / (p + r); /* the Wilkinson shift */
        d[l + 1] = e[l] * (p + r);
        dl1      = d[l + 1];
        h        = g - d[l];
        for (int i = l + 2; i < n; i++) d[i] -= h;
        f   = f + h;
        p   = d[m];
        el1 = e[l + 1];
        for (int i = m - 1; i >= l; i--) {
          c3       = c2;
          c2       = c;
          s2       = s;
          g        = c * e[i];
          h        = c * p;
          r        = mfad_hypot(p, e[i]);
          e[i + 1] = s * r;
          s        = e[i] / r;
          c        = p / r;
          p        = c * d[i] - s * g;
          d[i + 1] = h + s * (c * g + s * d[i]);
          for (int k = 0; k < n; k++) {
            h                = V[k * n + i + 1];
            V[k * n + i + 1] = s * V[k * n + i] + c * h;
            V[k * n + i]     = c * V[k * n + i] - s * h;
          }
        }
        p    = -s * s2 * c3 * el1 * e[l] / dl1;
        e[l] = s * p;
        d[l] = c * p;
        if (++iter > 60) {
          fail = 1;
          break;
        }
      } while (fabs(e[l]) > ulp * tst1);
    }
    d[l] = d[l] + f;
    e[l] = 0.0;
  }
  return fail;
}

/* 1 when a Cholesky factorisation proves every eigenvalue of the symmetric n x n H at least eps:
   it factors H - (eps + tau) I in L (n x n workspace), where tau = (n + 1) n eps_mach |H|_F bounds
   the factorisation's backward error, so a success holds for H itself, not only for a perturbed
   copy. Costs n^3 / 6 flops, a few percent of the eigensolver, and fails fast on an indefinite H. */
MFAD_HD static inline int mfad_psd_is_above(int n, const double *H, double eps, double *L)
{
  double nrm2 = 0.0, shift;

  for (int i = 0; i < n * n; i++) nrm2 += H[i] * H[i];
  shift = eps + (n + 1) * n * 2.220446049250313e-16 * sqrt(nrm2);
  for (int j = 0; j < n; j++) {
    double djj = H[j * n + j] - shift;
    for (int k = 0; k < j; k++) djj -= L[j * n + k] * L[j * n + k];
    if (!(djj > 0)) return 0; /* also NaN */
    djj          = sqrt(djj);
    L[j * n + j] = djj;
    for (int i = j + 1; i < n; i++) {
      double s = H[i * n + j];
      for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / djj;
    }
  }
  return 1;
}

/* Projects the symmetric n x n row-major H in place, with the caller's workspace V (n x n), d and e
   (n each): clamp raises eigenvalues below eps to eps, abs replaces each by max(|lambda|, eps). An
   H whose eigenvalues all pass, proven by Cholesky or seen in the eigenvalues, is left bitwise
   untouched (returns 0); otherwise H = V diag(f(lambda)) V^T, exactly symmetric (returns 1).
   Eigenvalues are accurate to ~eps_mach |H|, so a PSD H with round-off-negative eigenvalues (rigid
   modes) changes by ~eps_mach |H|. */
MFAD_HD static inline int mfad_psd_project_work(int n, double *H, int mode, double eps, double *V, double *d, double *e)
{
  int change = 0;

  if (mode == MFAD_PSD_MODE_NONE || mfad_psd_is_above(n, H, eps, V)) return 0;
  for (int i = 0; i < n * n; i++) V[i] = H[i];
  (void)mfad_sym_eig_tridiag(n, V, d, e);
  for (int i = 0; i < n; i++) {
    const double l = d[i];
    e[i]           = mode == MFAD_PSD_MODE_CLAMP ? (l < eps ? eps : l) : (fabs(l) < eps ? eps : fabs(l));
    change |= e[i] != l;
  }
  if (!change) return 0;
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++) s += V[i * n + k] * e[k] * V[j * n + k];
      H[i * n + j] = H[j * n + i] = s;
    }
  return 1;
}

/* mfad_psd_project_work() for n <= MFAD_PSD_MAX_N with workspace of the largest size: the CPU
   loops; a GPU kernel sizes its workspace to its element (mfad/impl/loop_cuda.h) */
MFAD_HD static inline int mfad_psd_project(int n, double *H, int mode, double eps)
{
  double V[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], d[MFAD_PSD_MAX_N], e[MFAD_PSD_MAX_N];

  if (mode == MFAD_PSD_MODE_NONE || n > MFAD_PSD_MAX_N) return 0;
  return mfad_psd_project_work(n, H, mode, eps, V, d, e);
}

#endif /* MFAD_PSD_H */
