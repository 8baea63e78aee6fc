// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/loop_cuda.h
  @brief CUDA element loops of one energy: one thread per element around the same element bodies
         the CPU loops run (mfad/impl/element.h), and the launchers the CUDA backend (src/cuda/) calls
         through MfadCudaKernel_<name>. The backend launches once per element colour (no two
         elements of a colour share a vertex: plain adds, deterministic), once over all elements
         with atomicAdd, or once over all elements storing each element's outputs for a gather. Compiled by nvcc for every energy registered with
         mfad_add_energy(), and by the host C++ compiler under mfad/impl/cuda_emulate.h in the tests.
         No warp intrinsics, no shared memory: every line here also runs in the emulation.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/loop_cuda.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_LOOP_CUDA_H
#define MFAD_LOOP_CUDA_H

#include <mfad/impl/cuda_common.h>
#include <mfad/impl/psd.h>

#define MFAD_CUDA_FN(op) MFAD_CAT(MFAD_CAT(mfad_cuda_, op), MFAD_CAT(_, MFAD_ENERGY_NAME))

/* an element's weighted outputs: added into y (colours, atomics) or stored for the backend's gather */
MFAD_HD static MFAD_INLINE void MFAD_CUDA_FN(put)(const MfadCudaLaunch *P, int e, const double *out)
{
  if (P->elem_out) {
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) P->elem_out[(long)e * MFAD_N + j] = P->L.weight * out[j];
  } else mfad_elem_scatter_to(P->L.y, P->L.conn + (long)e * MFAD_NV, out, P->L.weight, P->atomic);
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_value)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  if (i >= P.n) return;
  const int e     = mfad_cuda_element(P.elems, i);
  P.elem_value[e] = P.L.weight * mfad_elem_value(&P.L, e);
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_gradient)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    g[MFAD_N];
  if (i >= P.n) return;
  const int    e = mfad_cuda_element(P.elems, i);
  const double E = mfad_elem_gradient(&P.L, e, g);
  if (P.elem_value) P.elem_value[e] = P.L.weight * E;
  MFAD_CUDA_FN(put)(&P, e, g);
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_hvp)(MfadCudaLaunch P)
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
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_diagonal)(MfadCudaLaunch P)
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
/* the diagonal in one diagonal-mode pass (mfad/impl/ad.h: 2N + 1 doubles per number, as an HVP's; N
   times fewer operations than N HVP columns) */
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_diagonal)(MfadCudaLaunch P)
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
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_blockdiag)(MfadCudaLaunch P)
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
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_hessian)(MfadCudaLaunch P)
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
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_hessian_packed)(MfadCudaLaunch P)
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
   epsilon 0; a positive epsilon asks for the element Hessian's smallest eigenvalue) */
MFAD_HD static inline int mfad_cuda_psd_features(const MfadCudaLaunch *P)
{
  return MFAD_ENERGY_FEATURES > 0 && P->psd == MFAD_PSD_MODE_CLAMP && P->psd_eps == 0.0;
}

#if MFAD_ENERGY_FEATURES > 0
/* The feature Hessians H_F (M x M, by M feature-space HVP columns) into the projection's
   workspace, matrix i at i M^2 */
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_feature_hessian)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  if (i >= P.n) return;
  mfad_elem_feature_hessian_columns(&P.L, mfad_cuda_element(P.elems, i), P.psd_work + (long)i * MFAD_NF * MFAD_NF);
}

/* w B^T H_F B from the projected H_F (after the n matrices of the workspace) into the element
   Hessians, row by row: row r is B^T (H_F (B e_r)) (H_F symmetric), so a thread holds vectors, not
   the N x N matrix or the M x N product */
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_feature_pullback)(MfadCudaLaunch P, int packed)
{
  const int i = MFAD_CUDA_TID();
  double    u[MFAD_N], b[MFAD_NF], hb[MFAD_NF], row[MFAD_N];
  if (i >= P.n) return;
  const int     e  = mfad_cuda_element(P.elems, i);
  const double *p  = mfad_elem_params(&P.L, e);
  const double *HF = P.psd_work + ((long)P.n + i) * MFAD_NF * MFAD_NF;
  MFAD_NO_UNROLL
  for (int r = 0; r < MFAD_N; r++) {
    MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) u[j] = j == r ? 1.0 : 0.0;
    mfad_feature_map(u, p, b);
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++)
    {
      double s = 0.0;
      for (int k = 0; k < MFAD_NF; k++) s += HF[m * MFAD_NF + k] * b[k];
      hb[m] = s;
    }
    mfad_feature_pull(hb, p, row);
    if (packed) {
      double *pk = P.L.y + (long)e * (MFAD_N * (MFAD_N + 1) / 2);
      for (int j = r; j < MFAD_N; j++) pk[MFAD_PACKED_ROW(r) + j - r] = P.L.weight * row[j];
    } else {
      MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) P.L.y[((long)e * MFAD_N + r) * MFAD_N + j] = P.L.weight * row[j];
    }
  }
}
#endif

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

#if MFAD_ENERGY_FEATURES > 0
/* H_F, its projection, the pull-back (the CPU's way, src/hessian.c) */
static int MFAD_CUDA_FN(psd_features)(const MfadCudaLaunch *P, int packed)
{
  int err;
  MFAD_LAUNCH(MFAD_CUDA_FN(k_feature_hessian), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P);
  if ((err = (int)cudaGetLastError()) || (err = P->psd_project(P, MFAD_NF, packed, 0))) return err;
  MFAD_LAUNCH(MFAD_CUDA_FN(k_feature_pullback), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P, packed);
  return (int)cudaGetLastError();
}
#endif

/* element Hessians, then (with -mfad_psd_project) their projection by the backend's batched
   eigensolver, on the same stream; no thread holds a matrix */
#define MFAD_CUDA_LAUNCHER_PSD(op, packed) \
  static int MFAD_CUDA_FN(op)(const MfadCudaLaunch *P) \
  { \
    int err; \
    if (P->n <= 0) return 0; \
    MFAD_CUDA_PSD_FEATURES(packed) \
    MFAD_LAUNCH(MFAD_CUDA_FN(MFAD_CAT(k_, op)), mfad_cuda_grid(P->n), MFAD_CUDA_THREADS, P->stream, *P); \
    if ((err = (int)cudaGetLastError()) || P->psd == MFAD_PSD_MODE_NONE) return err; \
    return P->psd_project(P, MFAD_N, packed, 1); \
  }
#if MFAD_ENERGY_FEATURES > 0
#define MFAD_CUDA_PSD_FEATURES(packed) \
  if (mfad_cuda_psd_features(P)) return MFAD_CUDA_FN(psd_features)(P, packed);
#else
#define MFAD_CUDA_PSD_FEATURES(packed)
#endif
MFAD_CUDA_LAUNCHER_PSD(hessian, 0)
MFAD_CUDA_LAUNCHER_PSD(hessian_packed, 1)

#if MFAD_ENERGY_OUTPUTS > 0
/* ---------------------------------------------------------------- a residual's own operators
   The loops of mfad/impl/loop_cpu_residual.h, one thread per element, around the same bodies
   (mfad/impl/element_residual.h): stacked rows are written by one element each (no scatter);
   the transpose products scatter, by colour or atomically as every other operation. */
MFAD_HD static MFAD_INLINE long MFAD_CUDA_FN(res_row)(const MfadLoop *L, int e) { return (long)(L->row ? L->row[e] : e) * MFAD_M; }

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_res_residual)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    r[MFAD_M];
  if (i >= P.n) return;
  const int    e  = mfad_cuda_element(P.elems, i);
  const double sw = sqrt(P.L.weight);
  double      *y  = P.L.y + MFAD_CUDA_FN(res_row)(&P.L, e);
  mfad_res_value(&P.L, e, r);
  MFAD_UNROLL for (int j = 0; j < MFAD_M; j++) y[j] = sw * r[j];
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_res_jvp)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    r[MFAD_M], jv[MFAD_M];
  if (i >= P.n) return;
  const int    e  = mfad_cuda_element(P.elems, i);
  const double sw = sqrt(P.L.weight);
  double      *y  = P.L.y + MFAD_CUDA_FN(res_row)(&P.L, e);
  mfad_res_jvp(&P.L, e, P.L.v, r, jv);
  MFAD_UNROLL for (int j = 0; j < MFAD_M; j++) y[j] = sw * jv[j];
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_res_vjp)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    r[MFAD_M], J[MFAD_M * MFAD_N], out[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  mfad_res_jacobian(&P.L, e, r, J);
  mfad_res_tmul(J, P.L.w + MFAD_CUDA_FN(res_row)(&P.L, e), out);
  mfad_elem_scatter_to(P.L.y, P.L.conn + (long)e * MFAD_NV, out, sqrt(P.L.weight), P.atomic);
}

__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_res_jacobian)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    r[MFAD_M];
  if (i >= P.n) return;
  const int    e  = mfad_cuda_element(P.elems, i);
  const double sw = sqrt(P.L.weight);
  double      *J  = P.L.y + (long)e * MFAD_M * MFAD_N;
  mfad_res_jacobian(&P.L, e, r, J);
  for (int j = 0; j < MFAD_M * MFAD_N; j++) J[j] *= sw;
}
MFAD_CUDA_LAUNCHER(res_residual)
MFAD_CUDA_LAUNCHER(res_jvp)
MFAD_CUDA_LAUNCHER(res_vjp)
MFAD_CUDA_LAUNCHER(res_jacobian)

#if MFAD_ENERGY_SUM == 2
/* a system: y += w J_e^T v_e, the transpose product */
__global__ void MFAD_CUDA_BOUNDS MFAD_CUDA_FN(k_res_jtv)(MfadCudaLaunch P)
{
  const int i = MFAD_CUDA_TID();
  double    r[MFAD_M], J[MFAD_M * MFAD_N], ve[MFAD_N], out[MFAD_N];
  if (i >= P.n) return;
  const int e = mfad_cuda_element(P.elems, i);
  mfad_res_jacobian(&P.L, e, r, J);
  mfad_res_gather(&P.L, e, P.L.v, ve);
  mfad_res_tmul(J, ve, out);
  mfad_elem_scatter_to(P.L.y, P.L.conn + (long)e * MFAD_NV, out, P.L.weight, P.atomic);
}
MFAD_CUDA_LAUNCHER(res_jtv)
#define MFAD_CUDA_RES_JTV MFAD_CUDA_FN(res_jtv)
#else
#define MFAD_CUDA_RES_JTV 0 /* least squares: products with J^T J are symmetric */
#endif
#define MFAD_CUDA_RESIDUAL_ENTRIES \
  MFAD_CUDA_FN(res_residual), MFAD_CUDA_FN(res_jvp), MFAD_CUDA_FN(res_vjp), MFAD_CUDA_FN(res_jacobian), MFAD_CUDA_RES_JTV
#else
#define MFAD_CUDA_RESIDUAL_ENTRIES 0, 0, 0, 0, 0
#endif

/* the table the host half of this energy (mfad/impl/instantiate.h) points MfadKernel_<name>.cuda at */
extern "C" {
extern const struct _n_MfadCudaKernel MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME);
const struct _n_MfadCudaKernel        MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME) = {
  MFAD_CUDA_FN(value), MFAD_CUDA_FN(gradient), MFAD_CUDA_FN(hvp), MFAD_CUDA_FN(diagonal), MFAD_CUDA_FN(blockdiag),
  MFAD_CUDA_FN(hessian), MFAD_CUDA_FN(hessian_packed), MFAD_CUDA_RESIDUAL_ENTRIES,
};
}

#endif /* MFAD_LOOP_CUDA_H */
