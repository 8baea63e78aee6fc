// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/ad_lanes.h
  @brief SIMD lanes across elements (host only, GNU C vector types): one element per lane of
         mfad_vd, MFAD_VW lanes (4, or -DMFAD_LANES_WIDTH=8 for AVX-512's registers). The
         reverse body of an energy translated with lanes (mfad-energy --lanes) runs once for
         MFAD_VW elements: over T = mfad_vd its adjoint is the gradient, over T = mfad_vdual the
         tangent of the adjoint is H_F B v, as the scalar passes of mfad/impl/ad_reverse.h.

  Every operation below is its scalar twin of mfad/impl/ad.h lane by lane, in the same order, so
  a lane's result is the scalar path's (to the compiler's contraction into FMA, which may differ
  between the two). Passive numbers (MFAD_S) are mfad_vd; the scalar arguments the generated code
  and the rules pass as literals are broadcast by MFAD_VS. Math functions: log in registers, within
  an ulp of the C library's (mfad_v_log below says why); the others from glibc's vector math, within
  4 ulps, where the build has it, else the C library's lane by lane. A branch on values is taken when every lane
  takes it the same way (MFAD_VIF); otherwise the body stops and sets *_mfad_div, and the loop
  (mfad/impl/loop_cpu_lanes.h) runs those elements on the scalar path.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/ad_lanes.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_AD_LANES_H
#define MFAD_AD_LANES_H

/* 4 unless the build chooses (cmake -DMFAD_LANES_WIDTH=8): on the AMD EPYC (AVX-512) of
   bench/lanes.c, 8 lanes are slower than 4 (Neo-Hookean HVP 2.12-2.22x against 2.26-2.29x over the
   scalar loop; cloth gradient 1.61-1.74x against 2.12-2.75x; bench/README.md) */
#ifndef MFAD_LANES_WIDTH
#define MFAD_LANES_WIDTH 4
#endif
#define MFAD_VW MFAD_LANES_WIDTH
#if defined(MFAD_LANES_GATHER_INSTR) && (defined(__AVX2__) || defined(__AVX512F__))
#include <immintrin.h>
#endif

typedef double mfad_vd __attribute__((vector_size(8 * MFAD_VW)));
typedef long   mfad_vm __attribute__((vector_size(8 * MFAD_VW))); /* lane masks, -1 or 0: what comparing two mfad_vd gives */
typedef struct {
  mfad_vd v, t;
} mfad_vdual;

#define MFAD_VINLINE static inline __attribute__((always_inline))

MFAD_VINLINE mfad_vd mfad_vsplat(double s)
{
  mfad_vd r = {0};
  for (int i = 0; i < MFAD_VW; i++) r[i] = s;
  return r;
}
MFAD_VINLINE mfad_vm mfad_vmsplat(long s)
{
  mfad_vm r = {0};
  for (int i = 0; i < MFAD_VW; i++) r[i] = s;
  return r;
}
/* what comparing two mfad_vd gives with clang (gcc: mfad_vm) */
typedef long long    mfad_vmll __attribute__((vector_size(8 * MFAD_VW)));
MFAD_VINLINE mfad_vd mfad_vd_same(mfad_vd a) { return a; }
MFAD_VINLINE mfad_vm mfad_vm_same(mfad_vm m) { return m; }
MFAD_VINLINE mfad_vm mfad_vm_ll(mfad_vmll m) { return (mfad_vm)m; }
MFAD_VINLINE mfad_vm mfad_vm_truth(int t) { return mfad_vmsplat(t ? -1L : 0L); }
/* a lane vector from a lane vector or a scalar (a literal, an int); the function is chosen, so
   that no branch of _Generic converts the other kind */
#define MFAD_VS(s) _Generic((s), mfad_vd : mfad_vd_same, default : mfad_vsplat)(s)
/* a lane mask from a vector comparison (mfad_vm) or a scalar truth value */
#define MFAD_VM(m) _Generic((m), mfad_vm : mfad_vm_same, mfad_vmll : mfad_vm_ll, default : mfad_vm_truth)(m)
/* lanes i0 .. i3 of (a, b) (a's 0-3, b's 4-7): gcc's and clang's builtins */
#if defined(__clang__)
#define MFAD_VSHUF4(a, b, i0, i1, i2, i3) __builtin_shufflevector(a, b, i0, i1, i2, i3)
#else
#define MFAD_VSHUF4(a, b, i0, i1, i2, i3) __builtin_shuffle(a, b, (mfad_vm){i0, i1, i2, i3})
#endif

/* lane l of the result: a's where m's lane is set, else b's (m from a comparison: -1 or 0) */
MFAD_VINLINE mfad_vd mfad_vblend(mfad_vm m, mfad_vd a, mfad_vd b) { return (mfad_vd)(((mfad_vm)a & m) | ((mfad_vm)b & ~m)); }

/* 1.0 where m's lane is set, else 0.0: a comparison's truth value (C's int 0 or 1) as a double, exactly
   what the scalar path's conversion gives (mfad-energy writes a comparison outside a branch, as in the
   jet of fabs, (double)(a > 0) - (double)(a < 0), so) */
MFAD_VINLINE mfad_vd mfad_vtruth(mfad_vm m) { return (mfad_vd)(m & (mfad_vm)mfad_vsplat(1.0)); }

/* lane l = the double at byte offset off[l] from base (the lanes' vertex offsets are bytes: MfadLoop.voff):
   element loads (the gather instructions, -DMFAD_LANES_GATHER_INSTR, were slower on the AMD EPYC of
   bench/lanes.c: mass_spring's gradient 0.6x the scalar loop against 1.4x) */
MFAD_VINLINE mfad_vd mfad_vgather(const double *base, const long long *off)
{
#if defined(MFAD_LANES_GATHER_INSTR) && defined(__AVX512F__) && MFAD_VW == 8
  return (mfad_vd)_mm512_i64gather_pd(_mm512_loadu_si512((const void *)off), base, 1);
#elif defined(MFAD_LANES_GATHER_INSTR) && defined(__AVX2__) && MFAD_VW == 4
  return (mfad_vd)_mm256_i64gather_pd(base, _mm256_loadu_si256((const __m256i *)off), 1);
#else
  mfad_vd r = {0};
  for (int l = 0; l < MFAD_VW; l++) r[l] = *(const double *)((const char *)base + off[l]);
  return r;
#endif
}

/* a branch on values: 1 if every lane takes it, 0 if none; lanes that disagree end the body
   (*_mfad_div = 1): the loop runs those elements on the scalar path */
MFAD_VINLINE int mfad_vif_bits(mfad_vm m)
{
  int k = 0;
  for (int i = 0; i < MFAD_VW; i++) k += m[i] != 0;
  return k == MFAD_VW ? 1 : k == 0 ? 0 : -1;
}
/* MFAD_VIF's test: one movmskpd on AVX's 4 lanes, against 4 extractions, counts and compares (cloth's
   gradient 1.88x -> 1.95x, its value 0.73x -> 0.79x over the scalar loop; the Neo-Hookean tet's equal:
   bench_lanes -workload cloth|neohookean, 3 runs in turn, AMD EPYC znver1). mfad_v_log's test below
   keeps the count: there, on the Neo-Hookean HVP, the mask measured 1.47x against 1.55x (registers). */
#if defined(__AVX__) && MFAD_VW == 4 && !defined(MFAD_LANES_NO_MOVEMASK)
#include <immintrin.h>
MFAD_VINLINE int mfad_vif_mask(mfad_vm m)
{
  const int k = _mm256_movemask_pd((__m256d)m);
  return k == 0xf ? 1 : k == 0 ? 0 : -1;
}
#else
#define mfad_vif_mask mfad_vif_bits
#endif
#define MFAD_VIF(m) \
  __extension__({ \
    const int k_ = mfad_vif_mask(MFAD_VM(m)); \
    if (k_ < 0) { \
      *_mfad_div = 1; \
      return; \
    } \
    k_; \
  })

/* math.h lane by lane: the C library's scalar values (const: calls on equal lanes are shared) */
#define MFAD_VMATH1(f) \
  __attribute__((const, unused)) static mfad_vd mfad_v_##f(mfad_vd a) \
  { \
    mfad_vd r = a; \
    for (int i = 0; i < MFAD_VW; i++) r[i] = f(a[i]); \
    return r; \
  }
#define MFAD_VMATH2(f) \
  __attribute__((const, unused)) static mfad_vd mfad_v_##f(mfad_vd a, mfad_vd b) \
  { \
    mfad_vd r = a; \
    for (int i = 0; i < MFAD_VW; i++) r[i] = f(a[i], b[i]); \
    return r; \
  }
MFAD_VMATH1(sqrt)
#if defined(MFAD_LANES_EXACT_MATH)
MFAD_VMATH1(log)
#else
__attribute__((const, unused)) static mfad_vd mfad_v_log_libm(mfad_vd a)
{
  mfad_vd r = a;
  for (int i = 0; i < MFAD_VW; i++) r[i] = log(a[i]);
  return r;
}
/* log on the lanes in registers: fdlibm's __ieee754_log (e_log.c, the algorithm of glibc's before
   2.28: x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2)), log(1 + f) = f - s (f - R(s^2)), s = f / (2 + f),
   error < 1 ulp). Not bitwise the C library's log (both within an ulp of log x), so the lanes'
   results are the scalar path's to round-off; -DMFAD_LANES_EXACT_MATH takes the C library's lane by
   lane (bitwise, and ~15 cycles an element slower on the Neo-Hookean HVP: a call amid the body
   spills its live registers). Lanes that are not normal positive finite numbers (0, negative,
   subnormal, inf, NaN) take the C library's value. */
MFAD_VINLINE mfad_vd mfad_v_log(mfad_vd x)
{
  const double Lg1 = 6.666666666666735130e-01, Lg2 = 3.999999999940941908e-01, Lg3 = 2.857142874366239149e-01, Lg4 = 2.222219843214978396e-01;
  const double Lg5 = 1.818357216161805012e-01, Lg6 = 1.531383769920937332e-01, Lg7 = 1.479819860511658591e-01;
  const double ln2_hi = 6.93147180369123816490e-01, ln2_lo = 1.90821492927058770002e-10;
  const mfad_vm ix = (mfad_vm)x;
  const mfad_vm ok = MFAD_VM(x >= 2.2250738585072014e-308) & MFAD_VM(x <= 1.7976931348623157e308); /* normal, positive, finite */
  mfad_vm k = (ix >> 52) - 1023;
  mfad_vd m = (mfad_vd)((ix & 0x000fffffffffffffL) | 0x3ff0000000000000L); /* [1, 2) */
  const mfad_vm hi = MFAD_VM(m > 1.4142135623730951);
  m = mfad_vblend(hi, m * 0.5, m);                               /* [sqrt(2)/2, sqrt(2)) */
  k = k - hi;                                                    /* hi is -1 where taken */
  const mfad_vd f = m - 1.0, dk = __builtin_convertvector(k, mfad_vd);
  const mfad_vd hfsq = 0.5 * f * f, s = f / (2.0 + f), z = s * s, w = z * z;
  const mfad_vd t1 = w * (Lg2 + w * (Lg4 + w * Lg6)), t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7))), R = t2 + t1;
  const mfad_vd r = dk * ln2_hi - ((hfsq - (s * (hfsq + R) + dk * ln2_lo)) - f);
  if (mfad_vif_bits(ok) == 1) return r;
  const mfad_vd c = mfad_v_log_libm(x);
  return mfad_vblend(ok, r, c);
}
#endif
/* The other math functions: glibc's vector math library where it has them (libmvec, 2.35 on, which
   libm's link script names, so nothing to link: the variants GCC itself calls when it vectorises a
   loop of exp under -ffast-math), within 1-4 ulps of the C library's (tests/test_lanes_math.c), one
   call for the lanes instead of one a lane; elsewhere, or with -DMFAD_LANES_EXACT_MATH or
   -DMFAD_LANES_NO_LIBMVEC, the C library's lane by lane (bitwise the scalar path's) */
#include <math.h> /* __GLIBC__ */
#if !defined(MFAD_LANES_EXACT_MATH) && !defined(MFAD_LANES_NO_LIBMVEC) && defined(__x86_64__) && defined(__GLIBC__) && \
    (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 35)) && ((MFAD_VW == 4 && defined(__AVX2__)) || (MFAD_VW == 8 && defined(__AVX512F__)))
#define MFAD_LANES_LIBMVEC 1
#if MFAD_VW == 4
#define MFAD_MVEC_NAME1(f) _ZGVdN4v_##f
#define MFAD_MVEC_NAME2(f) _ZGVdN4vv_##f
#else
#define MFAD_MVEC_NAME1(f) _ZGVeN8v_##f
#define MFAD_MVEC_NAME2(f) _ZGVeN8vv_##f
#endif
/* const (no errno, as -fno-math-errno): calls on equal lanes are shared, as the C library's above
   (a user's softplus and its derivative rules take exp of the same value three times) */
#define MFAD_VMVEC1(f) \
  __attribute__((const)) mfad_vd MFAD_MVEC_NAME1(f)(mfad_vd); \
  MFAD_VINLINE mfad_vd           mfad_v_##f(mfad_vd a) { return MFAD_MVEC_NAME1(f)(a); }
#define MFAD_VMVEC2(f) \
  __attribute__((const)) mfad_vd MFAD_MVEC_NAME2(f)(mfad_vd, mfad_vd); \
  MFAD_VINLINE mfad_vd           mfad_v_##f(mfad_vd a, mfad_vd b) { return MFAD_MVEC_NAME2(f)(a, b); }
#else
#define MFAD_VMVEC1 MFAD_VMATH1
#define MFAD_VMVEC2 MFAD_VMATH2
#endif
MFAD_VMVEC1(exp)
MFAD_VMVEC1(sin)
MFAD_VMVEC1(cos)
MFAD_VMVEC1(tan)
MFAD_VMVEC1(tanh)
MFAD_VMVEC1(sinh)
MFAD_VMVEC1(cosh)
MFAD_VMVEC1(asin)
MFAD_VMVEC1(acos)
MFAD_VMVEC1(atan)
MFAD_VMVEC1(cbrt)
MFAD_VMVEC1(log1p)
MFAD_VMVEC1(expm1)
MFAD_VMVEC1(erf)
MFAD_VMVEC1(erfc)
MFAD_VMVEC2(pow)
MFAD_VMVEC2(atan2)
MFAD_VMVEC2(hypot)
/* fabs, fmin and fmax of passive values (the energy's own, as fmin(mfad_value(J), 1.0)): the C library's
   lane by lane; on numbers they are selects (OP(fabs), OP(fmin), OP(fmax) of mfad/impl/ad_generic.h) */
MFAD_VMATH1(fabs)
MFAD_VMATH2(fmin)
MFAD_VMATH2(fmax)

/* ---------------------------------------------------------------- lanes of values (the gradient) */
MFAD_VINLINE mfad_vd mfad_vval_val(const mfad_vd *a) { return *a; }
MFAD_VINLINE void    mfad_vval_set_(mfad_vd *r, mfad_vd c) { *r = c; }
MFAD_VINLINE void    mfad_vval_zero(mfad_vd *r) { *r = mfad_vsplat(-0.0); }
MFAD_VINLINE void    mfad_vval_copy(mfad_vd *r, const mfad_vd *a) { *r = *a; }
MFAD_VINLINE void    mfad_vval_add(mfad_vd *r, const mfad_vd *a, const mfad_vd *b) { *r = *a + *b; }
MFAD_VINLINE void    mfad_vval_sub(mfad_vd *r, const mfad_vd *a, const mfad_vd *b) { *r = *a - *b; }
MFAD_VINLINE void    mfad_vval_neg(mfad_vd *r, const mfad_vd *a) { *r = -*a; }
MFAD_VINLINE void    mfad_vval_adds_(mfad_vd *r, const mfad_vd *a, mfad_vd s) { *r = *a + s; }
MFAD_VINLINE void    mfad_vval_muls_(mfad_vd *r, const mfad_vd *a, mfad_vd s) { *r = *a * s; }
MFAD_VINLINE void    mfad_vval_mul(mfad_vd *r, const mfad_vd *a, const mfad_vd *b) { *r = *a * *b; }
MFAD_VINLINE void    mfad_vval_div(mfad_vd *r, const mfad_vd *a, const mfad_vd *b) { *r = *a / *b; }
/* r = a where m's lane is set, else b (fmin's and fmax's choice, lane by lane; r may be a or b) */
MFAD_VINLINE void    mfad_vval_select(mfad_vd *r, mfad_vm m, const mfad_vd *a, const mfad_vd *b) { *r = mfad_vblend(m, *a, *b); }
MFAD_VINLINE void    mfad_vval_chain1_(mfad_vd *r, const mfad_vd *a, mfad_vd f, mfad_vd df, mfad_vd d2f)
{
  (void)a;
  (void)df;
  (void)d2f;
  *r = f;
}
MFAD_VINLINE void mfad_vval_chain2_(mfad_vd *r, const mfad_vd *a, const mfad_vd *b, mfad_vd f, mfad_vd fa, mfad_vd fb, mfad_vd faa, mfad_vd fab,
                                    mfad_vd fbb)
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

/* ---------------------------------------------------------------- lanes of dual numbers (the HVP) */
MFAD_VINLINE mfad_vd mfad_vdual_val(const mfad_vdual *a) { return a->v; }
MFAD_VINLINE void    mfad_vdual_set_(mfad_vdual *r, mfad_vd c)
{
  r->v = c;
  r->t = mfad_vsplat(0.0);
}
MFAD_VINLINE void mfad_vdual_zero(mfad_vdual *r)
{
  r->v = mfad_vsplat(-0.0);
  r->t = mfad_vsplat(-0.0);
}
MFAD_VINLINE void mfad_vdual_copy(mfad_vdual *r, const mfad_vdual *a) { *r = *a; }
MFAD_VINLINE void mfad_vdual_add(mfad_vdual *r, const mfad_vdual *a, const mfad_vdual *b)
{
  r->t = a->t + b->t;
  r->v = a->v + b->v;
}
MFAD_VINLINE void mfad_vdual_sub(mfad_vdual *r, const mfad_vdual *a, const mfad_vdual *b)
{
  r->t = a->t - b->t;
  r->v = a->v - b->v;
}
MFAD_VINLINE void mfad_vdual_neg(mfad_vdual *r, const mfad_vdual *a)
{
  r->t = -a->t;
  r->v = -a->v;
}
MFAD_VINLINE void mfad_vdual_adds_(mfad_vdual *r, const mfad_vdual *a, mfad_vd s)
{
  r->t = a->t;
  r->v = a->v + s;
}
MFAD_VINLINE void mfad_vdual_muls_(mfad_vdual *r, const mfad_vdual *a, mfad_vd s)
{
  r->t = a->t * s;
  r->v = a->v * s;
}
MFAD_VINLINE void mfad_vdual_mul(mfad_vdual *r, const mfad_vdual *a, const mfad_vdual *b)
{
  const mfad_vd av = a->v, bv = b->v;
  r->t = a->t * bv + b->t * av;
  r->v = av * bv;
}
MFAD_VINLINE void mfad_vdual_select(mfad_vdual *r, mfad_vm m, const mfad_vdual *a, const mfad_vdual *b)
{
  const mfad_vdual x = *a, y = *b;
  r->t = mfad_vblend(m, x.t, y.t);
  r->v = mfad_vblend(m, x.v, y.v);
}
MFAD_VINLINE void mfad_vdual_chain1_(mfad_vdual *r, const mfad_vdual *a, mfad_vd f, mfad_vd df, mfad_vd d2f)
{
  (void)d2f;
  r->t = a->t * df;
  r->v = f;
}
MFAD_VINLINE void mfad_vdual_chain2_(mfad_vdual *r, const mfad_vdual *a, const mfad_vdual *b, mfad_vd f, mfad_vd fa, mfad_vd fb, mfad_vd faa,
                                     mfad_vd fab, mfad_vd fbb)
{
  (void)faa;
  (void)fab;
  (void)fbb;
  r->t = a->t * fa + b->t * fb;
  r->v = f;
}
MFAD_VINLINE void mfad_vdual_div(mfad_vdual *r, const mfad_vdual *a, const mfad_vdual *b)
{
  const mfad_vd ib = 1.0 / b->v, f = a->v * ib;
  mfad_vdual_chain2_(r, a, b, f, ib, -f * ib, mfad_vsplat(0.0), mfad_vsplat(0.0), mfad_vsplat(0.0));
}

/* ------------------------------------------ lanes of K-direction dual numbers (the element Hessian) */
/* MFAD_VMD_K tangents at once, one per feature (the instantiation sets it to the energy's features):
   seeded with the unit directions, the adjoints' tangents are the feature Hessian's columns, one
   sweep where the HVP's dual numbers take K (the primal and its adjoint once, not K times) */
#if defined(MFAD_VMD_K)
typedef struct {
  mfad_vd v, t[MFAD_VMD_K];
} mfad_vmdual;
MFAD_VINLINE mfad_vd mfad_vmd_val(const mfad_vmdual *a) { return a->v; }
MFAD_VINLINE void    mfad_vmd_set_(mfad_vmdual *r, mfad_vd c)
{
  r->v = c;
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = mfad_vsplat(0.0);
}
MFAD_VINLINE void mfad_vmd_zero(mfad_vmdual *r)
{
  r->v = mfad_vsplat(-0.0);
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = mfad_vsplat(-0.0);
}
MFAD_VINLINE void mfad_vmd_copy(mfad_vmdual *r, const mfad_vmdual *a) { *r = *a; }
MFAD_VINLINE void mfad_vmd_add(mfad_vmdual *r, const mfad_vmdual *a, const mfad_vmdual *b)
{
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] + b->t[k];
  r->v = a->v + b->v;
}
MFAD_VINLINE void mfad_vmd_sub(mfad_vmdual *r, const mfad_vmdual *a, const mfad_vmdual *b)
{
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] - b->t[k];
  r->v = a->v - b->v;
}
MFAD_VINLINE void mfad_vmd_neg(mfad_vmdual *r, const mfad_vmdual *a)
{
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = -a->t[k];
  r->v = -a->v;
}
MFAD_VINLINE void mfad_vmd_adds_(mfad_vmdual *r, const mfad_vmdual *a, mfad_vd s)
{
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k];
  r->v = a->v + s;
}
MFAD_VINLINE void mfad_vmd_muls_(mfad_vmdual *r, const mfad_vmdual *a, mfad_vd s)
{
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] * s;
  r->v = a->v * s;
}
MFAD_VINLINE void mfad_vmd_mul(mfad_vmdual *r, const mfad_vmdual *a, const mfad_vmdual *b)
{
  const mfad_vd av = a->v, bv = b->v;
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] * bv + b->t[k] * av;
  r->v = av * bv;
}
MFAD_VINLINE void mfad_vmd_select(mfad_vmdual *r, mfad_vm m, const mfad_vmdual *a, const mfad_vmdual *b)
{
  const mfad_vmdual x = *a, y = *b;
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = mfad_vblend(m, x.t[k], y.t[k]);
  r->v = mfad_vblend(m, x.v, y.v);
}
MFAD_VINLINE void mfad_vmd_chain1_(mfad_vmdual *r, const mfad_vmdual *a, mfad_vd f, mfad_vd df, mfad_vd d2f)
{
  (void)d2f;
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] * df;
  r->v = f;
}
MFAD_VINLINE void mfad_vmd_chain2_(mfad_vmdual *r, const mfad_vmdual *a, const mfad_vmdual *b, mfad_vd f, mfad_vd fa, mfad_vd fb, mfad_vd faa,
                                   mfad_vd fab, mfad_vd fbb)
{
  (void)faa;
  (void)fab;
  (void)fbb;
  for (int k = 0; k < MFAD_VMD_K; k++) r->t[k] = a->t[k] * fa + b->t[k] * fb;
  r->v = f;
}
MFAD_VINLINE void mfad_vmd_div(mfad_vmdual *r, const mfad_vmdual *a, const mfad_vmdual *b)
{
  const mfad_vd ib = 1.0 / b->v, f = a->v * ib;
  mfad_vmd_chain2_(r, a, b, f, ib, -f * ib, mfad_vsplat(0.0), mfad_vsplat(0.0), mfad_vsplat(0.0));
}
#define mfad_vmd_set(r, c)                mfad_vmd_set_(r, MFAD_VS(c))
#define mfad_vmd_adds(r, a, s)            mfad_vmd_adds_(r, a, MFAD_VS(s))
#define mfad_vmd_muls(r, a, s)            mfad_vmd_muls_(r, a, MFAD_VS(s))
#define mfad_vmd_chain1(r, a, f, df, d2f) mfad_vmd_chain1_(r, a, MFAD_VS(f), MFAD_VS(df), MFAD_VS(d2f))
#define mfad_vmd_chain2(r, a, b, f, fa, fb, faa, fab, fbb) \
  mfad_vmd_chain2_(r, a, b, MFAD_VS(f), MFAD_VS(fa), MFAD_VS(fb), MFAD_VS(faa), MFAD_VS(fab), MFAD_VS(fbb))
#endif

/* the operations that take passive numbers, their scalars broadcast (the rules and the generated
   code pass literals: 2.0, INFINITY) */
#define mfad_vval_set(r, c)                mfad_vval_set_(r, MFAD_VS(c))
#define mfad_vval_adds(r, a, s)            mfad_vval_adds_(r, a, MFAD_VS(s))
#define mfad_vval_muls(r, a, s)            mfad_vval_muls_(r, a, MFAD_VS(s))
#define mfad_vval_chain1(r, a, f, df, d2f) mfad_vval_chain1_(r, a, MFAD_VS(f), MFAD_VS(df), MFAD_VS(d2f))
#define mfad_vval_chain2(r, a, b, f, fa, fb, faa, fab, fbb) \
  mfad_vval_chain2_(r, a, b, MFAD_VS(f), MFAD_VS(fa), MFAD_VS(fb), MFAD_VS(faa), MFAD_VS(fab), MFAD_VS(fbb))
#define mfad_vdual_set(r, c)                mfad_vdual_set_(r, MFAD_VS(c))
#define mfad_vdual_adds(r, a, s)            mfad_vdual_adds_(r, a, MFAD_VS(s))
#define mfad_vdual_muls(r, a, s)            mfad_vdual_muls_(r, a, MFAD_VS(s))
#define mfad_vdual_chain1(r, a, f, df, d2f) mfad_vdual_chain1_(r, a, MFAD_VS(f), MFAD_VS(df), MFAD_VS(d2f))
#define mfad_vdual_chain2(r, a, b, f, fa, fb, faa, fab, fbb) \
  mfad_vdual_chain2_(r, a, b, MFAD_VS(f), MFAD_VS(fa), MFAD_VS(fb), MFAD_VS(faa), MFAD_VS(fab), MFAD_VS(fbb))

#endif /* MFAD_AD_LANES_H */
