// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/loop_cuda.h
  @brief CUDA element loops of one energy: one thread per element around the same element bodies
         the CPU loops run (mfad/element.h), and the launchers the CUDA backend (src/cuda/) calls
         through MfadCudaKernel_<name>. The backend launches once per element colour (no two
         elements of a colour share a vertex: plain adds, deterministic), once over all elements
         with atomicAdd, or once over all elements storing each element's outputs for a gather. Compiled by nvcc for every energy registered with
         mfad_add_energy(), and by the host C++ compiler under src/cuda/emulate.h in the tests.
         No warp intrinsics, no shared memory: every line here also runs in the emulation.
**/
#ifndef MFAD_LOOP_CUDA_H
#define MFAD_LOOP_CUDA_H

#include <mfad/cuda_common.h>
#include <mfad/psd.h>

#define MFAD_CUDA_FN(op) MFAD_CAT(MFAD_CAT(mfad_cuda_, op), MFAD_CAT(_, MFAD_ENERGY_NAME))

/* an element's weighted outputs: added into y (colours, atomics) or stored for the backend's gather */
MFAD_HD static MFAD_INLINE void MFAD_CUDA_FN(put)(const MfadCudaLaunch *P, int e, const double *out)
{
  if (P->elem_out) {
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) P->elem_out[(long)e * MFAD_N + j] = P->L.weight * out[j];
  } else mfad_elem_scatter_to(P->L.y, P->L.conn + (long)e * MFAD_NV, out, P->L.weight, P->atomic);
}

__global__ void MFAD_CUDA_FN(k_value)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  if (i >= P.n) return;
  const int e     = mfad_cuda_element(P.elems, i);
  P.elem_value[e] = P.L.weight * mfad_elem_value(&P.L, e);
}

__global__ void MFAD_CUDA_FN(k_gradient)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    g[MFAD_N];
  if (i >= P.n) return;
  const int    e = mfad_cuda_element(P.elems, i);
  const double E = mfad_elem_gradient(&P.L, e, g);
  if (P.elem_value) P.elem_value[e] = P.L.weight * E;
  MFAD_CUDA_FN(put)(&P, e, g);
}

__global__ void MFAD_CUDA_FN(k_hvp)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    hv[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  mfad_elem_hvp(&P.L, e, hv);
  MFAD_CUDA_FN(put)(&P, e, hv);
}

/* Second derivatives by columns: a GPU thread never holds a Hessian-mode number (1 + N + N^2
   doubles each, N of them: a 47 KB stack frame per thread for a tet, reserved for every resident
   thread). Column k of H_e is one HVP along e_k (mfad_elem_hessian_column); the vertex blocks
   and element Hessians are written column by column (the diagonal has its own mode), so a thread
   keeps one column. The column body is compiled once, in a function nvcc must not inline (N
   copies would make compile time and code size N times larger); the loops over k stay rolled for
   the same reason. */
__device__ __noinline__ static void MFAD_CUDA_FN(elem_column)(const MfadLoop *L, int e, int k, double *col)
{
  mfad_elem_hessian_column(L, e, k, col);
}

#if defined(MFAD_CUDA_DIAGONAL_COLUMNS)
/* the diagonal by columns (mfad_add_energy(... CUDA_DIAGONAL_COLUMNS)): for an energy whose
   diagonal-mode body needs more stack than its HVP columns (corotated_tet: 1.8 KB against 496 B) */
__global__ void MFAD_CUDA_FN(k_diagonal)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    dg[MFAD_N] = {0}, col[MFAD_N]; /* zeroed: compilers cannot see that every dg[j] is set */
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  MFAD_NO_UNROLL
  for (int k = 0; k < MFAD_N; k++) {
    MFAD_CUDA_FN(elem_column)(&P.L, e, k, col);
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) if (j == k) dg[j] = col[j]; /* constant indices: dg stays in registers */
  }
  MFAD_CUDA_FN(put)(&P, e, dg);
}
#else
/* the diagonal in one diagonal-mode pass (mfad/ad.h: 2N + 1 doubles per number, as an HVP's; N
   times fewer operations than N HVP columns) */
__global__ void MFAD_CUDA_FN(k_diagonal)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    dg[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  mfad_elem_diagonal(&P.L, e, dg);
  MFAD_CUDA_FN(put)(&P, e, dg);
}
#endif

/* y[(vertex * dof + d) * dof + f] += w H_e[(a, d), (a, f)]: column (a, f) gives row d of vertex a's block */
__global__ void MFAD_CUDA_FN(k_blockdiag)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    col[MFAD_N];
  if (i >= P.n) return;
  const int  e = mfad_cuda_element(P.elems, i);
  const int *c = P.L.conn + (long)e * MFAD_NV;
  MFAD_NO_UNROLL
  for (int k = 0; k < MFAD_N; k++) {
    const int a = k / MFAD_ND, f = k % MFAD_ND;
    MFAD_CUDA_FN(elem_column)(&P.L, e, k, col);
    MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
        mfad_elem_add(&P.L.y[((long)c[a] * MFAD_ND + d) * MFAD_ND + f], P.L.weight * col[a * MFAD_ND + d], P.atomic);
  }
}

/* element Hessians in the COO value layout: element e's N x N block w H_e, row-major, at e * N * N */
__global__ void MFAD_CUDA_FN(k_hessian)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    col[MFAD_N];
  if (i >= P.n) return;
  const int e   = mfad_cuda_element(P.elems, i);
  double   *out = P.L.y + (long)e * MFAD_N * MFAD_N;
  MFAD_NO_UNROLL
  for (int k = 0; k < MFAD_N; k++) {
    MFAD_CUDA_FN(elem_column)(&P.L, e, k, col);
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) out[j * MFAD_N + k] = P.L.weight * col[j];
  }
}

/* Row k's first entry in the packed upper triangle by rows (the cache's layout, mfad_elem_pack) */
#define MFAD_PACKED_ROW(k) ((k)*MFAD_N - (k) * ((k)-1) / 2)

/* element Hessians packed for the cache, symmetrised as mfad_elem_pack does: entry (i, j), i < j,
   is w (H_ij + H_ji) / 2, its halves from columns i and j (column k: H_jk for every j) */
__global__ void MFAD_CUDA_FN(k_hessian_packed)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    col[MFAD_N];
  if (i >= P.n) return;
  const int e  = mfad_cuda_element(P.elems, i);
  double   *pk = P.L.y + (long)e * (MFAD_N * (MFAD_N + 1) / 2);
  MFAD_NO_UNROLL
  for (int k = 0; k < MFAD_N; k++) {
    MFAD_CUDA_FN(elem_column)(&P.L, e, k, col);
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++)
    {
      const double h = P.L.weight * col[j];
      if (j == k) pk[MFAD_PACKED_ROW(k)] = h;
      else if (j > k) pk[MFAD_PACKED_ROW(k) + j - k] = 0.5 * h; /* (k, j): its first half */
      else pk[MFAD_PACKED_ROW(j) + k - j] += 0.5 * h;           /* (j, k): written by column j */
    }
  }
}

/* An energy at features clamps its feature Hessian (as the CPU does, src/hessian.c: clamp with
   epsilon 0; a positive epsilon asks for the element Hessian's smallest eigenvalue): then k_psd
   computes the projected element Hessians itself and the unprojected pass is skipped */
MFAD_HD static inline int mfad_cuda_psd_features(const MfadCudaLaunch *P)
{
  return MFAD_ENERGY_FEATURES > 0 && P->psd == MFAD_PSD_MODE_CLAMP && P->psd_eps == 0.0;
}

/* The PSD projection of the element Hessians the two kernels above wrote (full or packed), as the
   CPU path projects w H_e (src/hessian.c). The one kernel here that holds a whole element matrix
   per thread (the eigenvectors, N x N): its stack is the price of a per-thread eigensolver
   (scripts/cuda-resources.py exempts it by name). */
__global__ void MFAD_CUDA_FN(k_psd)(MfadCudaLaunch P, int packed)
{
  const int i = MFAD_CUDA_TID();
  double    V[MFAD_N * MFAD_N], d[MFAD_N], ew[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
#if MFAD_ENERGY_FEATURES > 0
  if (mfad_cuda_psd_features(&P)) { /* the CPU's way (src/hessian.c): project H_F, pull back B^T H_F B */
    double  HF[MFAD_NF * MFAD_NF];
    double *H = V; /* the eigenvectors' workspace, free again after the projection */
    mfad_elem_feature_hessian_columns(&P.L, e, HF);
    (void)mfad_psd_project_work(MFAD_NF, HF, P.psd, 0.0, V, d, ew);
    mfad_elem_feature_pullback(mfad_elem_params(&P.L, e), HF, H);
    for (int k = 0; k < MFAD_N * MFAD_N; k++) H[k] *= P.L.weight;
    if (packed) mfad_elem_pack(H, P.L.y + (long)e * (MFAD_N * (MFAD_N + 1) / 2));
    else
      for (int k = 0; k < MFAD_N * MFAD_N; k++) P.L.y[(long)e * MFAD_N * MFAD_N + k] = H[k];
    return;
  }
#endif
  if (!packed) { /* in place, in the COO value layout */
    (void)mfad_psd_project_work(MFAD_N, P.L.y + (long)e * MFAD_N * MFAD_N, P.psd, P.psd_eps, V, d, ew);
  } else { /* unpacked, projected, packed back */
    double *pk = P.L.y + (long)e * (MFAD_N * (MFAD_N + 1) / 2);
    double  H[MFAD_N * MFAD_N];
    for (int r = 0; r < MFAD_N; r++)
      for (int j = r; j < MFAD_N; j++) H[r * MFAD_N + j] = H[j * MFAD_N + r] = pk[MFAD_PACKED_ROW(r) + j - r];
    (void)mfad_psd_project_work(MFAD_N, H, P.psd, P.psd_eps, V, d, ew);
    mfad_elem_pack(H, pk);
  }
}

#define MFAD_CUDA_LAUNCHER(op) \
  static int MFAD_CUDA_FN(op)(const MfadCudaLaunch *P) \
  { \
    if (P->n <= 0) return 0; \
    MFAD_LAUNCH(MFAD_CUDA_FN(MFAD_CAT(k_, op)), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P); \
    return (int)cudaGetLastError(); \
  }
MFAD_CUDA_LAUNCHER(value)
MFAD_CUDA_LAUNCHER(gradient)
MFAD_CUDA_LAUNCHER(hvp)
MFAD_CUDA_LAUNCHER(diagonal)
MFAD_CUDA_LAUNCHER(blockdiag)

/* element Hessians, then (with -mfad_psd_project) their projection, on the same stream */
#define MFAD_CUDA_LAUNCHER_PSD(op, packed) \
  static int MFAD_CUDA_FN(op)(const MfadCudaLaunch *P) \
  { \
    if (P->n <= 0) return 0; \
    if (!mfad_cuda_psd_features(P)) MFAD_LAUNCH(MFAD_CUDA_FN(MFAD_CAT(k_, op)), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P); \
    if (P->psd != MFAD_PSD_MODE_NONE) MFAD_LAUNCH(MFAD_CUDA_FN(k_psd), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P, packed); \
    return (int)cudaGetLastError(); \
  }
MFAD_CUDA_LAUNCHER_PSD(hessian, 0)
MFAD_CUDA_LAUNCHER_PSD(hessian_packed, 1)

/* the table the host half of this energy (mfad/instantiate.h) points MfadKernel_<name>.cuda at */
extern "C" {
extern const struct _n_MfadCudaKernel MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME);
const struct _n_MfadCudaKernel        MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME) = {
  MFAD_CUDA_FN(value), MFAD_CUDA_FN(gradient), MFAD_CUDA_FN(hvp), MFAD_CUDA_FN(diagonal), MFAD_CUDA_FN(blockdiag),
  MFAD_CUDA_FN(hessian), MFAD_CUDA_FN(hessian_packed),
};
}

#endif /* MFAD_LOOP_CUDA_H */
