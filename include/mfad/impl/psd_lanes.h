// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/psd_lanes.h
  @brief The PSD projection of mfad/impl/psd.h on SIMD lanes (mfad/impl/ad_lanes.h): MFAD_VW small
         symmetric matrices at once, one a lane, by cyclic Jacobi in parallel order.

  The scalar projection's eigensolver (Householder and implicit QL) branches on each matrix's own
  values: its iteration counts differ lane to lane. Jacobi's rotations do not branch, and its stop
  (the off-diagonal part below round-off of |A|) is tested once a sweep for every lane together;
  a converged lane's further rotations are identities to round-off. In parallel (round-robin)
  order the n/2 rotations of a round touch disjoint rows and columns: their angles are computed
  together, so the divisions and square roots of one round overlap instead of waiting on each
  other. The projected element Hessians, whole (bench_lanes -hessian -psd clamp, AMD EPYC Zen 4, 4
  lanes, the scalar path's QL against this): symmetric_dirichlet (4 x 4 H_F) 477 -> 157 ns an
  element, 3.0x; arap_tri 3.2x; neohookean_tet (9 x 9) 2327 -> 1620 ns, 1.44x (1.69x with its
  rounds unrolled too, which took 2.3x as long to compile). Both eigensolvers
  are backward stable: the projections agree to ~n eps_mach |H|, not bitwise (tests/test_lanes.c).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/psd_lanes.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_PSD_LANES_H
#define MFAD_PSD_LANES_H

#include <mfad/impl/psd.h>

/* loops over rows, pairs and rounds unrolled whole: the pairs' indices fold to constants */
#if defined(__clang__)
#define MFAD_PSD_UNROLL   _Pragma("unroll")
#define MFAD_PSD_NOUNROLL _Pragma("nounroll")
#else
#define MFAD_PSD_UNROLL   _Pragma("GCC unroll 32")
#define MFAD_PSD_NOUNROLL _Pragma("GCC unroll 1")
#endif

/* The lanes' Cholesky test of mfad_psd_is_above(): lane set where it proves every eigenvalue of
   the lane's H above eps (the same shift) */
static inline __attribute__((always_inline)) mfad_vm mfad_psd_is_above_lanes(const int n, const mfad_vd *H, double eps, mfad_vd *L)
{
  mfad_vd nrm2 = mfad_vsplat(0.0), shift;
  mfad_vm ok   = mfad_vmsplat(-1L);

  MFAD_PSD_UNROLL for (int i = 0; i < n * n; i++) nrm2 += H[i] * H[i];
  shift = eps + (n + 1) * n * 2.220446049250313e-16 * mfad_v_sqrt(nrm2);
  MFAD_PSD_UNROLL for (int j = 0; j < n; j++)
  {
    mfad_vd djj = H[j * n + j] - shift;
    MFAD_PSD_UNROLL for (int k = 0; k < j; k++) djj -= L[j * n + k] * L[j * n + k];
    ok &= MFAD_VM(djj > 0.0); /* also NaN */
    djj          = mfad_v_sqrt(mfad_vblend(ok, djj, mfad_vsplat(1.0)));
    L[j * n + j] = djj;
    MFAD_PSD_UNROLL for (int i = j + 1; i < n; i++)
    {
      mfad_vd s = H[i * n + j];
      MFAD_PSD_UNROLL for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
      L[i * n + j] = s / djj;
    }
  }
  return ok;
}

/* round r of a sweep of mfad_sym_eig_jacobi_lanes(): its m / 2 disjoint rotations */
static inline __attribute__((always_inline)) void mfad_psd_jacobi_round_lanes(const int n, const int m, const int r, mfad_vd *A, mfad_vd *V)
{
  mfad_vd c[MFAD_PSD_MAX_N / 2], s[MFAD_PSD_MAX_N / 2];
  /* the circle method: player m - 1 fixed, the others turning; pair k of round r */
#define MFAD_PSD_PAIR_(k, p, q) \
  const int a_ = (k) == 0 ? m - 1 : (r + (k)) % (m - 1), b_ = (r + m - 1 - (k)) % (m - 1); \
  const int p = a_ < b_ ? a_ : b_, q = a_ < b_ ? b_ : a_
  MFAD_PSD_UNROLL for (int k = 0; k < m / 2; k++)
  {
    MFAD_PSD_PAIR_(k, p, q);
    if (q >= n) continue;
    /* mfad_sym_eig_jacobi_sweeps()' rotation: the smaller angle, t -> 0 where apq is negligible
       against the diagonal gap, none where apq = 0 */
    const mfad_vd apq = A[p * n + q];
    const mfad_vm nz  = MFAD_VM(apq != 0.0);
    const mfad_vd th  = (A[q * n + q] - A[p * n + p]) / mfad_vblend(nz, 2.0 * apq, mfad_vsplat(1.0));
    const mfad_vd th2 = th * th;
    const mfad_vd sg  = mfad_vblend(MFAD_VM(th >= 0.0), mfad_vsplat(1.0), mfad_vsplat(-1.0));
    mfad_vd       t   = sg / (mfad_vblend(MFAD_VM(th >= 0.0), th, -th) + mfad_v_sqrt(th2 + 1.0));
    t                 = mfad_vblend(MFAD_VM(th2 <= 1.7976931348623157e308), t, 0.5 / th); /* th^2 overflowed */
    t                 = mfad_vblend(nz, t, mfad_vsplat(0.0));
    c[k]              = 1.0 / mfad_v_sqrt(t * t + 1.0);
    s[k]              = t * c[k];
  }
  MFAD_PSD_UNROLL for (int k = 0; k < m / 2; k++)
  {
    MFAD_PSD_PAIR_(k, p, q);
    if (q >= n) continue;
    MFAD_PSD_UNROLL for (int i = 0; i < n; i++)
    { /* A <- A J, V <- V J */
      const mfad_vd aip = A[i * n + p], aiq = A[i * n + q], vip = V[i * n + p], viq = V[i * n + q];
      A[i * n + p] = c[k] * aip - s[k] * aiq;
      A[i * n + q] = s[k] * aip + c[k] * aiq;
      V[i * n + p] = c[k] * vip - s[k] * viq;
      V[i * n + q] = s[k] * vip + c[k] * viq;
    }
  }
  MFAD_PSD_UNROLL for (int k = 0; k < m / 2; k++)
  {
    MFAD_PSD_PAIR_(k, p, q);
    if (q >= n) continue;
    MFAD_PSD_UNROLL for (int i = 0; i < n; i++)
    { /* A <- J^T A */
      const mfad_vd api = A[p * n + i], aqi = A[q * n + i];
      A[p * n + i] = c[k] * api - s[k] * aqi;
      A[q * n + i] = s[k] * api + c[k] * aqi;
    }
    A[p * n + q] = A[q * n + p] = mfad_vsplat(0.0);
  }
#undef MFAD_PSD_PAIR_
}

/* Eigen-decomposition of each lane's symmetric n x n row-major A by cyclic Jacobi rotations in
   round-robin order: on return A is diagonal to round-off (the eigenvalues on it) and V's columns
   the eigenvectors, each lane's input equal to V diag(A) V^T. Stops when no lane's off-diagonal
   norm is above tol |A|_F (mfad_sym_eig_jacobi_sweeps()' test; a lane of NaN or Inf passes it), at
   most max_sweeps sweeps. n <= MFAD_PSD_MAX_N. */
static inline __attribute__((always_inline)) void mfad_sym_eig_jacobi_lanes(const int n, mfad_vd *A, mfad_vd *V, int max_sweeps, double tol)
{
  const int m     = n + (n & 1); /* players of the round robin; with n odd one sits out each round */
  mfad_vd   norm2 = mfad_vsplat(0.0);

  MFAD_PSD_UNROLL for (int i = 0; i < n * n; i++) norm2 += A[i] * A[i];
  MFAD_PSD_UNROLL for (int i = 0; i < n * n; i++) V[i] = mfad_vsplat(i / n == i % n ? 1.0 : 0.0);
  for (int sweep = 0; sweep < max_sweeps; sweep++) {
    mfad_vd off = mfad_vsplat(0.0);
    MFAD_PSD_UNROLL for (int p = 0; p < n; p++) MFAD_PSD_UNROLL for (int q = p + 1; q < n; q++) off += A[p * n + q] * A[p * n + q];
    if (mfad_vif_bits(MFAD_VM(off > 0.5 * tol * tol * norm2)) == 0) break; /* 2 off <= tol^2 |A|^2 in every lane */
    /* the rounds unrolled too (the pairs' indices constants) up to 6 x 6; above, one round's code
       in a loop: for 9 x 9, 5% slower and 2.3x less to compile (every lanes energy's Hessian unit) */
    if (n <= 6) MFAD_PSD_UNROLL for (int r = 0; r < m - 1; r++) mfad_psd_jacobi_round_lanes(n, m, r, A, V);
    else MFAD_PSD_NOUNROLL for (int r = 0; r < m - 1; r++) mfad_psd_jacobi_round_lanes(n, m, r, A, V);
  }
}

/* mfad_psd_project() on each lane of the n x n row-major H (n <= MFAD_PSD_MAX_N): a lane whose
   eigenvalues all pass (proven by Cholesky, or seen in the eigenvalues) is left bitwise untouched;
   the others become V diag(f(lambda)) V^T, exactly symmetric. H need only be symmetric to round-off
   (forward-over-reverse's columns): the eigenproblem is its symmetric part's. */
static inline __attribute__((always_inline)) void mfad_psd_project_lanes(const int n, mfad_vd *H, int mode, double eps)
{
  mfad_vd A[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], V[MFAD_PSD_MAX_N * MFAD_PSD_MAX_N], f[MFAD_PSD_MAX_N];
  mfad_vm keep, change = mfad_vmsplat(0L);

  if (mode == MFAD_PSD_MODE_NONE || n > MFAD_PSD_MAX_N) return; /* mfad_psd_project()'s limit */
  MFAD_PSD_UNROLL for (int i = 0; i < n; i++) MFAD_PSD_UNROLL for (int j = 0; j < n; j++) A[i * n + j] = 0.5 * (H[i * n + j] + H[j * n + i]);
  keep                                                                                                 = mfad_psd_is_above_lanes(n, A, eps, V);
  if (mfad_vif_bits(keep) == 1) return;
  mfad_sym_eig_jacobi_lanes(n, A, V, 50, 1.4142135623730951e-17);
  MFAD_PSD_UNROLL for (int k = 0; k < n; k++)
  {
    const mfad_vd l = A[k * n + k];
    f[k]            = mode == MFAD_PSD_MODE_CLAMP ? l : mfad_vblend(MFAD_VM(l >= 0.0), l, -l);
    f[k]            = mfad_vblend(MFAD_VM(f[k] < eps), mfad_vsplat(eps), f[k]);
    change |= MFAD_VM(f[k] != l); /* NaN too: its lane rebuilt as NaN, as the scalar path does */
  }
  keep |= ~change;
  if (mfad_vif_bits(keep) == 1) return;
  MFAD_PSD_UNROLL for (int i = 0; i < n; i++) MFAD_PSD_UNROLL for (int j = i; j < n; j++)
  {
    mfad_vd s = V[i * n] * f[0] * V[j * n];
    MFAD_PSD_UNROLL for (int k = 1; k < n; k++) s += V[i * n + k] * f[k] * V[j * n + k];
    H[i * n + j] = mfad_vblend(keep, H[i * n + j], s);
    H[j * n + i] = mfad_vblend(keep, H[j * n + i], s);
  }
}

#endif /* MFAD_PSD_LANES_H */
