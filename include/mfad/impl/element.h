// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/element.h
  @brief The element bodies, one per mode: gather the element's unknowns, seed the numbers,
         evaluate the energy, return the element's results. Shared by every backend (CPU loop,
         CUDA kernel); the launcher scatters. Included by mfad/impl/instantiate.h after the energy.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/element.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_ELEMENT_H
#define MFAD_ELEMENT_H

#define MFAD_NV MFAD_ENERGY_VERTICES
#define MFAD_ND MFAD_ENERGY_DOF
#define MFAD_NP MFAD_ENERGY_PARAMS

MFAD_HD static MFAD_INLINE const double *mfad_elem_params(const MfadLoop *L, int e)
{
  return MFAD_NP ? L->params + (long)e * MFAD_NP : (const double *)0;
}

/* y += v; `atomic` (a constant at every CPU call site, so it costs nothing there) selects the
   GPU's atomicAdd for the atomic-scatter comparison; the CPU loops use OpenMP's atomics instead. */
#if defined(__CUDA_ARCH__) || defined(MFAD_CUDA_EMULATION) /* device code (nvcc's device pass) */
#define MFAD_ATOMIC_ADD(p, v) atomicAdd((p), (v))
#else
#define MFAD_ATOMIC_ADD(p, v) (*(p) += (v))
#endif
MFAD_HD static MFAD_INLINE void mfad_elem_add(double *y, double v, int atomic)
{
  if (atomic) (void)MFAD_ATOMIC_ADD(y, v);
  else *y += v;
}

/* Scatter-add an element vector of N entries; `w` is the term weight. */
MFAD_HD static MFAD_INLINE void mfad_elem_scatter_to(double *MFAD_RESTRICT y, const int *MFAD_RESTRICT c, const double *MFAD_RESTRICT out, double w, int atomic)
{
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) mfad_elem_add(&y[(long)c[a] * MFAD_ND + d], w * out[a * MFAD_ND + d], atomic);
}
MFAD_HD static MFAD_INLINE void mfad_elem_scatter(double *MFAD_RESTRICT y, const int *MFAD_RESTRICT c, const double *MFAD_RESTRICT out, double w) { mfad_elem_scatter_to(y, c, out, w, 0); }

/* A loop over one element whose unknowns are x (and direction v): the host entry points of tests */
static inline void mfad_elem_loop_one(MfadLoop *L, int *conn, const double *x, const double *v, const double *params)
{
  static MfadLoop zero; /* zero-initialised, in C and C++ (the CUDA emulation) alike */
  *L = zero;
  for (int a = 0; a < MFAD_NV; a++) conn[a] = a;
  L->nelem  = 1;
  L->conn   = conn;
  L->params = params;
  L->weight = 1.0;
  L->x      = x;
  L->v      = v;
}

#if MFAD_ENERGY_OUTPUTS > 0
#include <mfad/impl/element_residual.h>
#elif MFAD_ENERGY_FEATURES > 0
/* AD at the features: the energy is psi(f, p) with f = B(p) x linear in x (M = MFAD_NA features,
   e.g. F = Ds Dm^-1: 9 where x has 12). The numbers carry M lanes and start as unit vectors of
   the feature space, so the first operations on f see constant seeds; the element's derivatives
   are pulled back once: grad E = B^T g_F, H v = B^T (H_F (B v)), H = B^T H_F B. B is never
   stored: mfad_feature_map (B v) and mfad_feature_pull (B^T g) are generated from the energy's
   feature map by mfad-energy, with coefficients computed from p in registers. */
#define MFAD_NF MFAD_ENERGY_FEATURES
#include <mfad/impl/psd.h>

MFAD_HD static MFAD_INLINE void mfad_elem_gather_to(const MfadLoop *L, const double *MFAD_RESTRICT a, int e, double *MFAD_RESTRICT out)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  MFAD_UNROLL for (int i = 0; i < MFAD_NV; i++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) out[i * MFAD_ND + d] = a[(long)c[i] * MFAD_ND + d];
}

MFAD_HD static MFAD_INLINE double mfad_elem_value(const MfadLoop *L, int e)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  mfad_energy_val(f, p, &E);
  return E;
}

MFAD_HD static MFAD_INLINE double mfad_elem_gradient_fof(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], gf[MFAD_NF];
  mfad_grad     fs[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) mfad_grad_seed(&fs[m], f[m], m);
  mfad_energy_grad(fs, p, &E);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) gf[m] = MFAD_LANE(E.g, m);
  mfad_feature_pull(gf, p, g);
  return E.v;
}

/* hv = B^T H_F (B v) for the element direction v (gathered), or the unit direction e_k (k >= 0) */
MFAD_HD static MFAD_INLINE void mfad_elem_hvp_dir_fof(const MfadLoop *L, int e, const double *MFAD_RESTRICT vs, double *MFAD_RESTRICT hv)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], fv[MFAD_NF], hf[MFAD_NF];
  mfad_hvp      fs[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  mfad_feature_map(vs, p, fv); /* B v: the map is linear */
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) mfad_hvp_seed(&fs[m], f[m], fv[m], m);
  mfad_energy_hvp(fs, p, &E);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) hf[m] = MFAD_LANE(E.tg, m);
  mfad_feature_pull(hf, p, hv);
}

#if defined(MFAD_ENERGY_REVERSE)
/* forward-over-reverse (mfad/impl/ad_reverse.h): the adjoint of the features is B^T's input, over
   double the gradient, over dual numbers seeded (f, B v) the tangent is H_F B v: one tangent
   where forward-over-forward carries M lanes */
MFAD_HD static MFAD_INLINE double mfad_elem_gradient_rev(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], gf[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  mfad_energy_rev_val(f, p, &E, gf);
  mfad_feature_pull(gf, p, g);
  return E;
}
/* hf = H_F fv at the features f: one dual sweep, seeded (f, fv) */
MFAD_HD static MFAD_INLINE void mfad_feature_hvp_rev(const double *MFAD_RESTRICT f, const double *MFAD_RESTRICT fv, const double *MFAD_RESTRICT p, double *MFAD_RESTRICT hf)
{
  mfad_dual fs[MFAD_NF], af[MFAD_NF], E;
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++)
  {
    fs[m].v = f[m];
    fs[m].t = fv[m];
  }
  mfad_energy_rev_dual(fs, p, &E, af);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) hf[m] = af[m].t;
}
MFAD_HD static MFAD_INLINE void mfad_elem_hvp_dir_rev(const MfadLoop *L, int e, const double *MFAD_RESTRICT vs, double *MFAD_RESTRICT hv)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], fv[MFAD_NF], hf[MFAD_NF];
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  mfad_feature_map(vs, p, fv);
  mfad_feature_hvp_rev(f, fv, p, hf);
  mfad_feature_pull(hf, p, hv);
}
#define mfad_elem_gradient mfad_elem_gradient_rev
#define mfad_elem_hvp_dir  mfad_elem_hvp_dir_rev
#else
#define mfad_elem_gradient mfad_elem_gradient_fof
#define mfad_elem_hvp_dir  mfad_elem_hvp_dir_fof
#endif
MFAD_HD static MFAD_INLINE void mfad_elem_hvp(const MfadLoop *L, int e, double *MFAD_RESTRICT hv)
{
  double vs[MFAD_N];
  mfad_elem_gather_to(L, L->v, e, vs);
  mfad_elem_hvp_dir(L, e, vs, hv);
}

MFAD_HD static MFAD_INLINE void mfad_elem_hessian_column(const MfadLoop *L, int e, int k, double *MFAD_RESTRICT col)
{
  double vs[MFAD_N];
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) vs[i] = i == k ? 1.0 : 0.0;
  mfad_elem_hvp_dir(L, e, vs, col);
}

/* H = B^T HF B (HF: M x M, row-major, overwritten), as M + N pull-backs: W = B^T HF by columns of
   HF, then the rows of H = B^T W^T; HF symmetric, so row m of HF serves as its column m */
MFAD_HD static MFAD_INLINE void mfad_elem_feature_pullback(const double *MFAD_RESTRICT p, const double *MFAD_RESTRICT HF, double *MFAD_RESTRICT H)
{
  double W[MFAD_NF][MFAD_N], w[MFAD_NF];
  MFAD_UNROLL_HESS for (int m = 0; m < MFAD_NF; m++) mfad_feature_pull(&HF[m * MFAD_NF], p, W[m]);
  MFAD_UNROLL_HESS for (int n = 0; n < MFAD_N; n++)
  {
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) w[m] = W[m][n];
    mfad_feature_pull(w, p, &H[n * MFAD_N]);
  }
}

/* The feature Hessian HF (M x M, row-major) by one feature-space HVP per column (the GPU's way:
   2M + 2 doubles per number forward-over-forward, 2 forward-over-reverse) */
MFAD_HD static MFAD_INLINE void mfad_elem_feature_hessian_columns(const MfadLoop *L, int e, double *MFAD_RESTRICT HF)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF];
#if defined(MFAD_ENERGY_REVERSE)
  double ek[MFAD_NF], hf[MFAD_NF];
#else
  mfad_hvp fs[MFAD_NF], E;
#endif
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  MFAD_NO_UNROLL
  for (int k = 0; k < MFAD_NF; k++) {
#if defined(MFAD_ENERGY_REVERSE)
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) ek[m] = m == k ? 1.0 : 0.0;
    mfad_feature_hvp_rev(f, ek, p, hf);
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) HF[m * MFAD_NF + k] = hf[m];
#else
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) mfad_hvp_seed(&fs[m], f[m], m == k ? 1.0 : 0.0, m);
    mfad_energy_hvp(fs, p, &E);
    MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) HF[m * MFAD_NF + k] = MFAD_LANE(E.tg, m);
#endif
  }
}
/* dg receives the diagonal of H_e = B^T H_F B in one diagonal-mode pass: the AD lanes are the
   element's unknowns, feature m starts at f_m with gradient row m of B (B^T e_m), and the body
   runs on the features; no Hessian, no pull-back */
MFAD_HD static MFAD_INLINE void mfad_elem_diagonal(const MfadLoop *L, int e, double *MFAD_RESTRICT dg)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], u[MFAD_NF], row[MFAD_N];
  mfad_diag     fs[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++)
  {
    MFAD_UNROLL for (int k = 0; k < MFAD_NF; k++) u[k] = k == m ? 1.0 : 0.0;
    mfad_feature_pull(u, p, row);
    mfad_diag_seed_row(&fs[m], f[m], row);
  }
  mfad_energy_diag(fs, p, &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) dg[i] = MFAD_LANE(E.d, i);
}

/* returns E_e; H receives B^T HF B, HF PSD-projected first when L->psd is set (a PSD HF gives a
   PSD B^T HF B: the 9 x 9 eigenproblem of a tet instead of 12 x 12) */
MFAD_HD static MFAD_INLINE double mfad_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  const double *p = mfad_elem_params(L, e);
  double        xs[MFAD_N], f[MFAD_NF], HF[MFAD_NF * MFAD_NF];
  mfad_hess     fs[MFAD_NF], E;
  mfad_elem_gather_to(L, L->x, e, xs);
  mfad_feature_map(xs, p, f);
  MFAD_UNROLL for (int m = 0; m < MFAD_NF; m++) mfad_hess_seed(&fs[m], f[m], m);
  mfad_energy_hess(fs, p, &E);
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NF; i++) MFAD_UNROLL for (int j = 0; j < MFAD_NF; j++) HF[i * MFAD_NF + j] = MFAD_LANE(E.h[i], j);
  if (L->psd) (void)mfad_psd_project(MFAD_NF, HF, L->psd, L->psd_eps);
  mfad_elem_feature_pullback(p, HF, H);
  return E.v;
}
#else
MFAD_HD static MFAD_INLINE double mfad_elem_value(const MfadLoop *L, int e)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  double     xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) xs[a * MFAD_ND + d] = L->x[(long)c[a] * MFAD_ND + d];
  mfad_energy_val(xs, mfad_elem_params(L, e), &E);
  return E;
}

#if defined(MFAD_ENERGY_REVERSE)
/* forward-over-reverse at the unknowns (an energy without features whose adjoint sweep mfad-energy
   wrote; mfad/impl/ad_reverse.h): over double the gradient, over dual numbers seeded (x, v) the
   adjoint's tangent is H v: numbers of 2 doubles where forward-over-forward carries N lanes */
MFAD_HD static MFAD_INLINE void mfad_elem_gather_xv(const MfadLoop *L, int e, const double *MFAD_RESTRICT v, int k, mfad_dual *MFAD_RESTRICT xs)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
    const int  i = a * MFAD_ND + d;
    const long j = (long)c[a] * MFAD_ND + d;
    xs[i].v      = L->x[j];
    xs[i].t      = v ? v[j] : (i == k ? 1.0 : 0.0);
  }
}

/* returns E_e; g receives grad E_e */
MFAD_HD static MFAD_INLINE double mfad_elem_gradient(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  double     xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) xs[a * MFAD_ND + d] = L->x[(long)c[a] * MFAD_ND + d];
  mfad_energy_rev_val(xs, mfad_elem_params(L, e), &E, g);
  return E;
}

/* hv receives H_e v_e: one dual sweep */
MFAD_HD static MFAD_INLINE void mfad_elem_hvp(const MfadLoop *L, int e, double *MFAD_RESTRICT hv)
{
  mfad_dual xs[MFAD_N], ax[MFAD_N], E;
  mfad_elem_gather_xv(L, e, L->v, -1, xs);
  mfad_energy_rev_dual(xs, mfad_elem_params(L, e), &E, ax);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) hv[i] = ax[i].t;
}

/* col receives H_e e_k, column k of the element Hessian: one dual sweep along a unit direction
   (the GPU builds element Hessians, diagonals and vertex blocks column by column from it) */
MFAD_HD static MFAD_INLINE void mfad_elem_hessian_column(const MfadLoop *L, int e, int k, double *MFAD_RESTRICT col)
{
  mfad_dual xs[MFAD_N], ax[MFAD_N], E;
  mfad_elem_gather_xv(L, e, NULL, k, xs);
  mfad_energy_rev_dual(xs, mfad_elem_params(L, e), &E, ax);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) col[i] = ax[i].t;
}
#else
/* returns E_e; g receives grad E_e */
MFAD_HD static MFAD_INLINE double mfad_elem_gradient(const MfadLoop *L, int e, double *MFAD_RESTRICT g)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_grad  xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) mfad_grad_seed(&xs[a * MFAD_ND + d], L->x[(long)c[a] * MFAD_ND + d], a * MFAD_ND + d);
  mfad_energy_grad(xs, mfad_elem_params(L, e), &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) g[i] = MFAD_LANE(E.g, i);
  return E.v;
}

/* hv receives H_e v_e */
MFAD_HD static MFAD_INLINE void mfad_elem_hvp(const MfadLoop *L, int e, double *MFAD_RESTRICT hv)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_hvp   xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
    const long k = (long)c[a] * MFAD_ND + d;
    mfad_hvp_seed(&xs[a * MFAD_ND + d], L->x[k], L->v[k], a * MFAD_ND + d);
  }
  mfad_energy_hvp(xs, mfad_elem_params(L, e), &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) hv[i] = MFAD_LANE(E.tg, i);
}

/* col receives H_e e_k, column k of the element Hessian: one HVP along a unit direction. Its
   numbers hold 2N + 2 doubles where the Hessian mode's hold 1 + N + N^2: the GPU builds element
   Hessians, diagonals and vertex blocks column by column from it, in a thread's registers */
MFAD_HD static MFAD_INLINE void mfad_elem_hessian_column(const MfadLoop *L, int e, int k, double *MFAD_RESTRICT col)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_hvp   xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++)
  {
    const int i = a * MFAD_ND + d;
    mfad_hvp_seed(&xs[i], L->x[(long)c[a] * MFAD_ND + d], i == k ? 1.0 : 0.0, i);
  }
  mfad_energy_hvp(xs, mfad_elem_params(L, e), &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) col[i] = MFAD_LANE(E.tg, i);
}

#endif

/* dg receives the diagonal of H_e in one diagonal-mode pass (2N + 1 doubles per number) */
MFAD_HD static MFAD_INLINE void mfad_elem_diagonal(const MfadLoop *L, int e, double *MFAD_RESTRICT dg)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_diag  xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) mfad_diag_seed(&xs[a * MFAD_ND + d], L->x[(long)c[a] * MFAD_ND + d], a * MFAD_ND + d);
  mfad_energy_diag(xs, mfad_elem_params(L, e), &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) dg[i] = MFAD_LANE(E.d, i);
}

#if defined(MFAD_ENERGY_REVERSE) && !defined(MFAD_ELEM_HESSIAN_NUMBERS)
/* returns E_e; H receives the N x N element Hessian, row-major: N forward-over-reverse sweeps of dual
   numbers along the unit directions (column k is H e_k, as the GPU builds it), symmetrised. A
   Hessian number holds 1 + N + N^2 doubles where a dual sweep's hold 2 (and their adjoints 2): the
   README's tutorial tet (12 unknowns, no features) took 2.1 us an element Hessian with Hessian
   numbers, 12 sweeps take a third of that (bench/README.md; -DMFAD_ELEM_HESSIAN_NUMBERS: those) */
MFAD_HD static MFAD_INLINE double mfad_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  const double *p = mfad_elem_params(L, e);
  mfad_dual     xs[MFAD_N], ax[MFAD_N], E;
  mfad_elem_gather_xv(L, e, NULL, 0, xs);
  for (int k = 0; k < MFAD_N; k++) {
    MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) xs[i].t = i == k ? 1.0 : 0.0;
    mfad_energy_rev_dual(xs, p, &E, ax);
    MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) H[i * MFAD_N + k] = ax[i].t;
  }
  /* H_ij and H_ji come from two sweeps: equal to round-off, made equal */
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) MFAD_UNROLL for (int j = i + 1; j < MFAD_N; j++)
  {
    const double h    = 0.5 * (H[i * MFAD_N + j] + H[j * MFAD_N + i]);
    H[i * MFAD_N + j] = h;
    H[j * MFAD_N + i] = h;
  }
  return E.v;
}
#else
/* returns E_e; H receives the N x N element Hessian, row-major */
MFAD_HD static MFAD_INLINE double mfad_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  const int *c = L->conn + (long)e * MFAD_NV;
  mfad_hess  xs[MFAD_N], E;
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) mfad_hess_seed(&xs[a * MFAD_ND + d], L->x[(long)c[a] * MFAD_ND + d], a * MFAD_ND + d);
  mfad_energy_hess(xs, mfad_elem_params(L, e), &E);
  MFAD_UNROLL for (int i = 0; i < MFAD_N; i++) MFAD_UNROLL for (int j = 0; j < MFAD_N; j++) H[i * MFAD_N + j] = MFAD_LANE(E.h[i], j);
  return E.v;
}
#endif

#endif

/* Scatter-add the vertex (dof x dof) blocks of a weighted element Hessian into per-vertex blocks
   (the CPU loops; the GPU writes them column by column, mfad/impl/loop_cuda.h). */
MFAD_HD static MFAD_INLINE void mfad_elem_scatter_blocks(double *MFAD_RESTRICT y, const int *MFAD_RESTRICT c, const double *MFAD_RESTRICT H, double w)
{
  MFAD_UNROLL for (int a = 0; a < MFAD_NV; a++) MFAD_UNROLL for (int d = 0; d < MFAD_ND; d++) MFAD_UNROLL for (int f = 0; f < MFAD_ND; f++)
    y[((long)c[a] * MFAD_ND + d) * MFAD_ND + f] += w * H[(a * MFAD_ND + d) * MFAD_N + a * MFAD_ND + f];
}

/* Packed upper triangle by rows of a symmetric N x N matrix, symmetrised (AD gives H_ij and H_ji
   by different operation orders: equal to round-off, not bitwise): the element-Hessian cache. */
MFAD_HD static MFAD_INLINE void mfad_elem_pack(const double *MFAD_RESTRICT H, double *MFAD_RESTRICT P)
{
  int k = 0;
  for (int i = 0; i < MFAD_N; i++) {
    P[k++] = H[i * MFAD_N + i];
    for (int j = i + 1; j < MFAD_N; j++) P[k++] = 0.5 * (H[i * MFAD_N + j] + H[j * MFAD_N + i]);
  }
}

#endif /* MFAD_ELEMENT_H */
