// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/ad.h
  @brief The AD numbers of mfad: value, gradient, fused Hessian-vector product (HVP) and Hessian
         modes for one element with MFAD_N <= 24 unknowns, plus a flop-counting mode (host only).

  Define MFAD_N before including this header; a translation unit instantiates one element size
  (one energy). Every operation writes its result through the first pointer and is safe when
  that pointer aliases an input (each output component is written after the reads it needs).
  Derivative lanes are GNU vectors of 4 doubles on the host and plain doubles under nvcc, so
  one source compiles as C11 (gcc) and as CUDA (nvcc).

  Per number, each mode carries:
  - val:  the value;
  - grad: value + N first derivatives;
  - hvp:  value, N first derivatives, 1 directional derivative t = g.v, N directional second
          derivatives tg = H v (forward over forward, O(N) per operation);
  - hess: value, N first derivatives, the N x N second derivatives (full rows, for vector lanes);
  - diag: value, N first derivatives, the N second derivatives along the coordinate axes (the
          Hessian's diagonal in one pass, O(N) per operation);
  - dual: value and 1 directional derivative (residuals' Jacobian-vector products).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/ad.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_AD_H
#define MFAD_AD_H

#include <math.h>
#include <string.h>

#ifndef MFAD_N
#error "mfad/impl/ad.h: define MFAD_N (unknowns per element) before including it"
#endif
/* MFAD_NA: the derivative lanes, the element's unknowns unless the energy declares features
   (mfad/impl/instantiate.h: AD then runs over its MFAD_ENERGY_FEATURES features) */
#ifndef MFAD_NA
#define MFAD_NA MFAD_N
#endif
#if (MFAD_NA) < 1 || (MFAD_NA) > 24
#error "mfad/impl/ad.h: MFAD_N (or MFAD_NA) must be between 1 and 24"
#endif

/* Every operation is forced inline: an energy is only fast when the whole element body is one
   function whose numbers live in registers (a non-inlined energy call cost 2x, measured). */
#if defined(__CUDACC__)
#define MFAD_INLINE __forceinline__
#elif defined(__GNUC__)
#define MFAD_INLINE inline __attribute__((always_inline))
#else
#define MFAD_INLINE inline
#endif

#if defined(__CUDACC__)
#define MFAD_HD       __host__ __device__
#define MFAD_RESTRICT __restrict__
#define MFAD_UNROLL   _Pragma("unroll")
/* Hessian mode's rows: N x N lanes never fit in a GPU thread's registers, and unrolling every row
   of every operation made ptxas take 8+ minutes per energy and architecture; loop over rows */
#define MFAD_UNROLL_HESS _Pragma("unroll 1")
#define MFAD_NO_UNROLL   _Pragma("unroll 1")
#else
#define MFAD_HD
#define MFAD_RESTRICT __restrict
#define MFAD_UNROLL   _Pragma("GCC unroll 16")
#define MFAD_NO_UNROLL _Pragma("GCC unroll 1")
/* MFAD_ROLL_HESSIAN_ROWS (mfad_add_energy(... ROLL_HESSIAN_ROWS)): Hessian
   mode's rows as loops, for energies of many unknowns. arap_surface (18): gcc -O3 took 140 s with
   unrolled rows and 24 s rolled, and its element Hessians ran no slower rolled (0.59 s against
   0.61 s of MfadElemHessian in the arap_surface example) */
#if defined(MFAD_ROLL_HESSIAN_ROWS)
#define MFAD_UNROLL_HESS _Pragma("GCC unroll 1")
#else
#define MFAD_UNROLL_HESS MFAD_UNROLL
#endif
#endif
#include <mfad/impl/special.h> /* digamma, trigamma: lgamma's derivative rules */

/* Derivative lanes: 4-wide GNU vectors on the host (1.6x over scalar loops, measured), 256 bits
   because 512-bit lanes spilled registers; plain doubles where vector types do not exist. */
#if defined(__CUDACC__) || !defined(__GNUC__) || defined(MFAD_AD_SCALAR_LANES)
#define MFAD_W 1
typedef double mfad_lane;
#define MFAD_LANE(g, i) ((g)[i])
#else
#define MFAD_W 4
typedef double mfad_lane __attribute__((vector_size(4 * sizeof(double))));
#define MFAD_LANE(g, i) ((g)[(i) / MFAD_W][(i) % MFAD_W])
#endif
#define MFAD_NL (((MFAD_NA) + MFAD_W - 1) / MFAD_W)

/* a zero lane, as an initialiser (no vector is ever returned by value: that changes the ABI) */
#define MFAD_LANE_ZERO {0}

typedef struct {
  double    v;
  mfad_lane g[MFAD_NL];
} mfad_grad;

typedef struct {
  double    v, t;
  mfad_lane g[MFAD_NL], tg[MFAD_NL];
} mfad_hvp;

/* Jacobian-vector products of residuals: value and one directional derivative (a dual number). */
typedef struct {
  double v, t;
} mfad_dual;

/* ~1.2 KB at N = 12: always passed by pointer (by value cost 6x, measured). */
typedef struct {
  double    v;
  mfad_lane g[MFAD_NL];
  mfad_lane h[MFAD_NA][MFAD_NL];
} mfad_hess;

/* ---------------------------------------------------------------- value mode */
MFAD_HD static MFAD_INLINE double mfad_val_val(const double *a) { return *a; }
MFAD_HD static MFAD_INLINE void   mfad_val_set(double *r, double c) { *r = c; }
/* the adjoint sweep's start, -0.0: -0.0 + x is x for every x (+0.0 + x is not, for x = -0.0), so
   the compiler folds an adjoint's first accumulation away (mfad/impl/ad_reverse.h) */
MFAD_HD static MFAD_INLINE void mfad_val_zero(double *r) { *r = -0.0; }
MFAD_HD static MFAD_INLINE void   mfad_val_copy(double *r, const double *a) { *r = *a; }
MFAD_HD static MFAD_INLINE void   mfad_val_add(double *r, const double *a, const double *b) { *r = *a + *b; }
MFAD_HD static MFAD_INLINE void   mfad_val_sub(double *r, const double *a, const double *b) { *r = *a - *b; }
MFAD_HD static MFAD_INLINE void   mfad_val_neg(double *r, const double *a) { *r = -*a; }
MFAD_HD static MFAD_INLINE void   mfad_val_adds(double *r, const double *a, double s) { *r = *a + s; }
MFAD_HD static MFAD_INLINE void   mfad_val_muls(double *r, const double *a, double s) { *r = *a * s; }
MFAD_HD static MFAD_INLINE void   mfad_val_mul(double *r, const double *a, const double *b) { *r = *a * *b; }
MFAD_HD static MFAD_INLINE void   mfad_val_div(double *r, const double *a, const double *b) { *r = *a / *b; }
/* r = f(a) given f(a), f'(a), f''(a) */
MFAD_HD static MFAD_INLINE void mfad_val_chain1(double *r, const double *a, double f, double df, double d2f)
{
  (void)a;
  (void)df;
  (void)d2f;
  *r = f;
}
/* r = f(a, b) given f and its first and second partial derivatives */
MFAD_HD static MFAD_INLINE void mfad_val_chain2(double *r, const double *a, const double *b, double f, double fa, double fb, double faa, double fab,
                                           double fbb)
{
  (void)a;
  (void)b;
  (void)fa;
  (void)fb;
  (void)faa;
  (void)fab;
  (void)fbb;
  *r = f;
}

/* ---------------------------------------------------------------- gradient mode */
MFAD_HD static MFAD_INLINE double mfad_grad_val(const mfad_grad *a) { return a->v; }
MFAD_HD static MFAD_INLINE void   mfad_grad_set(mfad_grad *r, double c)
{
  const mfad_lane z = MFAD_LANE_ZERO;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = z;
  r->v = c;
}
MFAD_HD static MFAD_INLINE void mfad_grad_copy(mfad_grad *r, const mfad_grad *a) { *r = *a; }
MFAD_HD static MFAD_INLINE void mfad_grad_add(mfad_grad *r, const mfad_grad *a, const mfad_grad *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] + b->g[l];
  r->v = a->v + b->v;
}
MFAD_HD static MFAD_INLINE void mfad_grad_sub(mfad_grad *r, const mfad_grad *a, const mfad_grad *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] - b->g[l];
  r->v = a->v - b->v;
}
MFAD_HD static MFAD_INLINE void mfad_grad_neg(mfad_grad *r, const mfad_grad *a)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = -a->g[l];
  r->v = -a->v;
}
MFAD_HD static MFAD_INLINE void mfad_grad_adds(mfad_grad *r, const mfad_grad *a, double s)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l];
  r->v = a->v + s;
}
MFAD_HD static MFAD_INLINE void mfad_grad_muls(mfad_grad *r, const mfad_grad *a, double s)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * s;
  r->v = a->v * s;
}
MFAD_HD static MFAD_INLINE void mfad_grad_mul(mfad_grad *r, const mfad_grad *a, const mfad_grad *b)
{
  const double av = a->v, bv = b->v;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * bv + b->g[l] * av;
  r->v = av * bv;
}
MFAD_HD static MFAD_INLINE void mfad_grad_chain1(mfad_grad *r, const mfad_grad *a, double f, double df, double d2f)
{
  (void)d2f;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * df;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_grad_chain2(mfad_grad *r, const mfad_grad *a, const mfad_grad *b, double f, double fa, double fb, double faa,
                                            double fab, double fbb)
{
  (void)faa;
  (void)fab;
  (void)fbb;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * fa + b->g[l] * fb;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_grad_div(mfad_grad *r, const mfad_grad *a, const mfad_grad *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_grad_chain2(r, a, b, f, ib, -f * ib, 0.0, 0.0, 0.0);
}

/* ---------------------------------------------------------------- HVP mode */
MFAD_HD static MFAD_INLINE double mfad_hvp_val(const mfad_hvp *a) { return a->v; }
MFAD_HD static MFAD_INLINE void   mfad_hvp_set(mfad_hvp *r, double c)
{
  const mfad_lane z = MFAD_LANE_ZERO;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = r->tg[l] = z;
  r->v = c;
  r->t = 0.0;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_copy(mfad_hvp *r, const mfad_hvp *a) { *r = *a; }
MFAD_HD static MFAD_INLINE void mfad_hvp_add(mfad_hvp *r, const mfad_hvp *a, const mfad_hvp *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] + b->tg[l];
    r->g[l]  = a->g[l] + b->g[l];
  }
  r->t = a->t + b->t;
  r->v = a->v + b->v;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_sub(mfad_hvp *r, const mfad_hvp *a, const mfad_hvp *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] - b->tg[l];
    r->g[l]  = a->g[l] - b->g[l];
  }
  r->t = a->t - b->t;
  r->v = a->v - b->v;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_neg(mfad_hvp *r, const mfad_hvp *a)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = -a->tg[l];
    r->g[l]  = -a->g[l];
  }
  r->t = -a->t;
  r->v = -a->v;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_adds(mfad_hvp *r, const mfad_hvp *a, double s)
{
  if (r != a) *r = *a;
  r->v += s;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_muls(mfad_hvp *r, const mfad_hvp *a, double s)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] * s;
    r->g[l]  = a->g[l] * s;
  }
  r->t = a->t * s;
  r->v = a->v * s;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_mul(mfad_hvp *r, const mfad_hvp *a, const mfad_hvp *b)
{
  const double av = a->v, bv = b->v, at = a->t, bt = b->t;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] * bv + b->tg[l] * av + a->g[l] * bt + b->g[l] * at;
    r->g[l]  = a->g[l] * bv + b->g[l] * av;
  }
  r->t = at * bv + av * bt;
  r->v = av * bv;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_chain1(mfad_hvp *r, const mfad_hvp *a, double f, double df, double d2f)
{
  const double ct = d2f * a->t;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] * df + a->g[l] * ct;
    r->g[l]  = a->g[l] * df;
  }
  r->t = a->t * df;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_chain2(mfad_hvp *r, const mfad_hvp *a, const mfad_hvp *b, double f, double fa, double fb, double faa,
                                           double fab, double fbb)
{
  const double ca = faa * a->t + fab * b->t, cb = fab * a->t + fbb * b->t;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++)
  {
    r->tg[l] = a->tg[l] * fa + b->tg[l] * fb + a->g[l] * ca + b->g[l] * cb;
    r->g[l]  = a->g[l] * fa + b->g[l] * fb;
  }
  r->t = a->t * fa + b->t * fb;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_div(mfad_hvp *r, const mfad_hvp *a, const mfad_hvp *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_hvp_chain2(r, a, b, f, ib, -f * ib, 0.0, -ib * ib, 2.0 * f * ib * ib);
}

/* ---------------------------------------------------------------- diagonal mode
   The Hessian's diagonal in one pass: d_i = d2/dx_i^2 follows the product rule
   (ab)_ii = a_ii b + 2 a_i b_i + a b_ii and the chain rule f(a)_ii = f' a_ii + f'' a_i^2, so a
   number holds 2N + 1 doubles where the Hessian mode's hold 1 + N + N^2 (and where the GPU took
   N HVPs). Its lanes are the element's unknowns (MFAD_N), also for an energy with features: the
   features are seeded with the rows of B (mfad/impl/element.h). */
#define MFAD_NLX (((MFAD_N) + MFAD_W - 1) / MFAD_W)
typedef struct {
  double    v;
  mfad_lane g[MFAD_NLX], d[MFAD_NLX];
} mfad_diag;

MFAD_HD static MFAD_INLINE double mfad_diag_val(const mfad_diag *a) { return a->v; }
MFAD_HD static MFAD_INLINE void   mfad_diag_set(mfad_diag *r, double c)
{
  const mfad_lane z = MFAD_LANE_ZERO;
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++) r->g[l] = r->d[l] = z;
  r->v = c;
}
MFAD_HD static MFAD_INLINE void mfad_diag_copy(mfad_diag *r, const mfad_diag *a) { *r = *a; }
MFAD_HD static MFAD_INLINE void mfad_diag_add(mfad_diag *r, const mfad_diag *a, const mfad_diag *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] + b->d[l];
    r->g[l] = a->g[l] + b->g[l];
  }
  r->v = a->v + b->v;
}
MFAD_HD static MFAD_INLINE void mfad_diag_sub(mfad_diag *r, const mfad_diag *a, const mfad_diag *b)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] - b->d[l];
    r->g[l] = a->g[l] - b->g[l];
  }
  r->v = a->v - b->v;
}
MFAD_HD static MFAD_INLINE void mfad_diag_neg(mfad_diag *r, const mfad_diag *a)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = -a->d[l];
    r->g[l] = -a->g[l];
  }
  r->v = -a->v;
}
MFAD_HD static MFAD_INLINE void mfad_diag_adds(mfad_diag *r, const mfad_diag *a, double s)
{
  if (r != a) *r = *a;
  r->v += s;
}
MFAD_HD static MFAD_INLINE void mfad_diag_muls(mfad_diag *r, const mfad_diag *a, double s)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] * s;
    r->g[l] = a->g[l] * s;
  }
  r->v = a->v * s;
}
MFAD_HD static MFAD_INLINE void mfad_diag_mul(mfad_diag *r, const mfad_diag *a, const mfad_diag *b)
{
  const double av = a->v, bv = b->v;
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] * bv + b->d[l] * av + 2.0 * a->g[l] * b->g[l];
    r->g[l] = a->g[l] * bv + b->g[l] * av;
  }
  r->v = av * bv;
}
MFAD_HD static MFAD_INLINE void mfad_diag_chain1(mfad_diag *r, const mfad_diag *a, double f, double df, double d2f)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] * df + a->g[l] * a->g[l] * d2f;
    r->g[l] = a->g[l] * df;
  }
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_diag_chain2(mfad_diag *r, const mfad_diag *a, const mfad_diag *b, double f, double fa, double fb, double faa,
                                            double fab, double fbb)
{
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++)
  {
    r->d[l] = a->d[l] * fa + b->d[l] * fb + a->g[l] * (a->g[l] * faa + 2.0 * fab * b->g[l]) + b->g[l] * b->g[l] * fbb;
    r->g[l] = a->g[l] * fa + b->g[l] * fb;
  }
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_diag_div(mfad_diag *r, const mfad_diag *a, const mfad_diag *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_diag_chain2(r, a, b, f, ib, -f * ib, 0.0, -ib * ib, 2.0 * f * ib * ib);
}

/* ---------------------------------------------------------------- dual mode (residual JVPs) */
MFAD_HD static MFAD_INLINE double mfad_dual_val(const mfad_dual *a) { return a->v; }
MFAD_HD static MFAD_INLINE void   mfad_dual_set(mfad_dual *r, double c)
{
  r->v = c;
  r->t = 0.0;
}
MFAD_HD static MFAD_INLINE void mfad_dual_zero(mfad_dual *r)
{
  r->v = -0.0;
  r->t = -0.0;
}
MFAD_HD static MFAD_INLINE void mfad_dual_copy(mfad_dual *r, const mfad_dual *a) { *r = *a; }
MFAD_HD static MFAD_INLINE void mfad_dual_add(mfad_dual *r, const mfad_dual *a, const mfad_dual *b)
{
  r->t = a->t + b->t;
  r->v = a->v + b->v;
}
MFAD_HD static MFAD_INLINE void mfad_dual_sub(mfad_dual *r, const mfad_dual *a, const mfad_dual *b)
{
  r->t = a->t - b->t;
  r->v = a->v - b->v;
}
MFAD_HD static MFAD_INLINE void mfad_dual_neg(mfad_dual *r, const mfad_dual *a)
{
  r->t = -a->t;
  r->v = -a->v;
}
MFAD_HD static MFAD_INLINE void mfad_dual_adds(mfad_dual *r, const mfad_dual *a, double s)
{
  r->t = a->t;
  r->v = a->v + s;
}
MFAD_HD static MFAD_INLINE void mfad_dual_muls(mfad_dual *r, const mfad_dual *a, double s)
{
  r->t = a->t * s;
  r->v = a->v * s;
}
MFAD_HD static MFAD_INLINE void mfad_dual_mul(mfad_dual *r, const mfad_dual *a, const mfad_dual *b)
{
  const double av = a->v, bv = b->v;
  r->t = a->t * bv + b->t * av;
  r->v = av * bv;
}
MFAD_HD static MFAD_INLINE void mfad_dual_chain1(mfad_dual *r, const mfad_dual *a, double f, double df, double d2f)
{
  (void)d2f;
  r->t = a->t * df;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_dual_chain2(mfad_dual *r, const mfad_dual *a, const mfad_dual *b, double f, double fa, double fb, double faa,
                                            double fab, double fbb)
{
  (void)faa;
  (void)fab;
  (void)fbb;
  r->t = a->t * fa + b->t * fb;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_dual_div(mfad_dual *r, const mfad_dual *a, const mfad_dual *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_dual_chain2(r, a, b, f, ib, -f * ib, 0.0, 0.0, 0.0);
}

/* ---------------------------------------------------------------- Hessian mode */
MFAD_HD static MFAD_INLINE double mfad_hess_val(const mfad_hess *a) { return a->v; }
MFAD_HD static MFAD_INLINE void   mfad_hess_set(mfad_hess *r, double c)
{
  const mfad_lane z = MFAD_LANE_ZERO;
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++) MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = z;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = z;
  r->v = c;
}
MFAD_HD static MFAD_INLINE void mfad_hess_copy(mfad_hess *r, const mfad_hess *a)
{
  if (r != a) *r = *a;
}
MFAD_HD static MFAD_INLINE void mfad_hess_add(mfad_hess *r, const mfad_hess *a, const mfad_hess *b)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++) MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] + b->h[i][l];
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] + b->g[l];
  r->v = a->v + b->v;
}
MFAD_HD static MFAD_INLINE void mfad_hess_sub(mfad_hess *r, const mfad_hess *a, const mfad_hess *b)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++) MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] - b->h[i][l];
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] - b->g[l];
  r->v = a->v - b->v;
}
MFAD_HD static MFAD_INLINE void mfad_hess_neg(mfad_hess *r, const mfad_hess *a)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++) MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = -a->h[i][l];
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = -a->g[l];
  r->v = -a->v;
}
MFAD_HD static MFAD_INLINE void mfad_hess_adds(mfad_hess *r, const mfad_hess *a, double s)
{
  if (r != a) *r = *a;
  r->v += s;
}
MFAD_HD static MFAD_INLINE void mfad_hess_muls(mfad_hess *r, const mfad_hess *a, double s)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++) MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] * s;
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * s;
  r->v = a->v * s;
}
MFAD_HD static MFAD_INLINE void mfad_hess_mul(mfad_hess *r, const mfad_hess *a, const mfad_hess *b)
{
  const double av = a->v, bv = b->v;
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++)
  {
    const double agi = MFAD_LANE(a->g, i), bgi = MFAD_LANE(b->g, i);
    MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] * bv + b->h[i][l] * av + b->g[l] * agi + a->g[l] * bgi;
  }
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * bv + b->g[l] * av;
  r->v = av * bv;
}
MFAD_HD static MFAD_INLINE void mfad_hess_chain1(mfad_hess *r, const mfad_hess *a, double f, double df, double d2f)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++)
  {
    const double c = d2f * MFAD_LANE(a->g, i);
    MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] * df + a->g[l] * c;
  }
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * df;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_hess_chain2(mfad_hess *r, const mfad_hess *a, const mfad_hess *b, double f, double fa, double fb, double faa,
                                            double fab, double fbb)
{
  MFAD_UNROLL_HESS for (int i = 0; i < MFAD_NA; i++)
  {
    const double agi = MFAD_LANE(a->g, i), bgi = MFAD_LANE(b->g, i);
    const double ca = faa * agi + fab * bgi, cb = fab * agi + fbb * bgi;
    MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->h[i][l] = a->h[i][l] * fa + b->h[i][l] * fb + a->g[l] * ca + b->g[l] * cb;
  }
  MFAD_UNROLL for (int l = 0; l < MFAD_NL; l++) r->g[l] = a->g[l] * fa + b->g[l] * fb;
  r->v = f;
}
MFAD_HD static MFAD_INLINE void mfad_hess_div(mfad_hess *r, const mfad_hess *a, const mfad_hess *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_hess_chain2(r, a, b, f, ib, -f * ib, 0.0, -ib * ib, 2.0 * f * ib * ib);
}

/* ---------------------------------------------------------------- seeding and extraction */
/* Unknown i of the element at value x (and, for the HVP, direction component dx). */
MFAD_HD static MFAD_INLINE void mfad_val_seed(double *r, double x, int i)
{
  (void)i;
  *r = x;
}
MFAD_HD static MFAD_INLINE void mfad_grad_seed(mfad_grad *r, double x, int i)
{
  mfad_grad_set(r, x);
  MFAD_LANE(r->g, i) = 1.0;
}
MFAD_HD static MFAD_INLINE void mfad_hvp_seed(mfad_hvp *r, double x, double dx, int i)
{
  mfad_hvp_set(r, x);
  MFAD_LANE(r->g, i) = 1.0;
  r->t               = dx;
}
MFAD_HD static MFAD_INLINE void mfad_dual_seed(mfad_dual *r, double x, double dx)
{
  r->v = x;
  r->t = dx;
}
/* unknown i at x; or a linear combination of the unknowns (a feature) at x with gradient row[] */
MFAD_HD static MFAD_INLINE void mfad_diag_seed(mfad_diag *r, double x, int i)
{
  mfad_diag_set(r, x);
  MFAD_LANE(r->g, i) = 1.0;
}
MFAD_HD static MFAD_INLINE void mfad_diag_seed_row(mfad_diag *r, double x, const double *MFAD_RESTRICT row)
{
  const mfad_lane z = MFAD_LANE_ZERO;
  double          gs[MFAD_NLX * MFAD_W];
  MFAD_UNROLL for (int i = 0; i < MFAD_NLX * MFAD_W; i++) gs[i] = i < MFAD_N ? row[i] : 0.0;
  memcpy(r->g, gs, sizeof(r->g)); /* whole lanes: component writes into GNU vectors read them first (gcc: "may be used uninitialized") */
  MFAD_UNROLL for (int l = 0; l < MFAD_NLX; l++) r->d[l] = z;
  r->v = x;
}
MFAD_HD static MFAD_INLINE void mfad_hess_seed(mfad_hess *r, double x, int i)
{
  mfad_hess_set(r, x);
  MFAD_LANE(r->g, i) = 1.0;
}

#if !defined(__CUDACC__)
/* ---------------------------------------------------------------- flop-counting mode (host only)
   Runs an energy once on real data and adds, per executed operation, the flops that operation
   costs in each mode (a multiply-add counts 2), so PETSc's -log_view reports honest rates. */
typedef struct {
  double v;
} mfad_cnt;
enum { MFAD_CNT_VAL, MFAD_CNT_GRAD, MFAD_CNT_HVP, MFAD_CNT_HESS, MFAD_CNT_DIAG, MFAD_CNT_MODES };
static double mfad_cnt_flops[MFAD_CNT_MODES];
static inline void mfad_cnt_count(double val, double grad, double hvp, double hess, double diag)
{
  mfad_cnt_flops[MFAD_CNT_VAL] += val;
  mfad_cnt_flops[MFAD_CNT_GRAD] += grad;
  mfad_cnt_flops[MFAD_CNT_HVP] += hvp;
  mfad_cnt_flops[MFAD_CNT_HESS] += hess;
  mfad_cnt_flops[MFAD_CNT_DIAG] += diag;
}
#define MFAD_NN ((double)(MFAD_NA))
#define MFAD_NX ((double)(MFAD_N)) /* the diagonal mode's lanes: the element's unknowns */
static inline double mfad_cnt_val(const mfad_cnt *a) { return a->v; }
static inline void   mfad_cnt_set(mfad_cnt *r, double c) { r->v = c; }
static inline void   mfad_cnt_copy(mfad_cnt *r, const mfad_cnt *a) { *r = *a; }
static inline void   mfad_cnt_linear_(void) { mfad_cnt_count(1, 1 + MFAD_NN, 2 + 2 * MFAD_NN, 1 + MFAD_NN + MFAD_NN * MFAD_NN, 1 + 2 * MFAD_NX); }
static inline void   mfad_cnt_add(mfad_cnt *r, const mfad_cnt *a, const mfad_cnt *b)
{
  mfad_cnt_linear_();
  r->v = a->v + b->v;
}
static inline void   mfad_cnt_sub(mfad_cnt *r, const mfad_cnt *a, const mfad_cnt *b)
{
  mfad_cnt_linear_();
  r->v = a->v - b->v;
}
static inline void mfad_cnt_neg(mfad_cnt *r, const mfad_cnt *a)
{
  mfad_cnt_linear_();
  r->v = -a->v;
}
static inline void mfad_cnt_adds(mfad_cnt *r, const mfad_cnt *a, double s)
{
  mfad_cnt_count(1, 1, 1, 1, 1);
  r->v = a->v + s;
}
static inline void mfad_cnt_muls(mfad_cnt *r, const mfad_cnt *a, double s)
{
  mfad_cnt_linear_();
  r->v = a->v * s;
}
static inline void mfad_cnt_mul(mfad_cnt *r, const mfad_cnt *a, const mfad_cnt *b)
{
  mfad_cnt_count(1, 1 + 3 * MFAD_NN, 4 + 10 * MFAD_NN, 1 + 3 * MFAD_NN + 7 * MFAD_NN * MFAD_NN, 1 + 9 * MFAD_NX);
  r->v = a->v * b->v;
}
/* transcendental f, f', f'' counted as 3 flops: a convention, as in PETSc's own counts */
static inline void mfad_cnt_chain1(mfad_cnt *r, const mfad_cnt *a, double f, double df, double d2f)
{
  (void)a;
  (void)df;
  (void)d2f;
  mfad_cnt_count(3, 3 + MFAD_NN, 5 + 5 * MFAD_NN, 3 + MFAD_NN + 4 * MFAD_NN * MFAD_NN, 3 + 5 * MFAD_NX);
  r->v = f;
}
static inline void mfad_cnt_chain2(mfad_cnt *r, const mfad_cnt *a, const mfad_cnt *b, double f, double fa, double fb, double faa, double fab,
                                   double fbb)
{
  (void)a;
  (void)b;
  (void)fa;
  (void)fb;
  (void)faa;
  (void)fab;
  (void)fbb;
  mfad_cnt_count(6, 6 + 3 * MFAD_NN, 12 + 11 * MFAD_NN, 6 + 3 * MFAD_NN + 11 * MFAD_NN * MFAD_NN, 6 + 15 * MFAD_NX);
  r->v = f;
}
static inline void mfad_cnt_div(mfad_cnt *r, const mfad_cnt *a, const mfad_cnt *b)
{
  const double ib = 1.0 / b->v, f = a->v * ib;
  mfad_cnt_chain2(r, a, b, f, ib, -f * ib, 0.0, -ib * ib, 2.0 * f * ib * ib);
}
static inline void mfad_cnt_seed(mfad_cnt *r, double x, int i)
{
  (void)i;
  r->v = x;
}
#endif

#endif /* MFAD_AD_H */
