// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/instantiate.h
  @brief Turns one energy header into a kernel: the energy body in every AD mode, the element
         bodies, the CPU element loops and the MfadKernel object MfadKernel_<name>.

  A translation unit (CMake's mfad_add_energy() writes it) contains only:
      #define MFAD_ENERGY_NAME   my_energy
      #define MFAD_ENERGY_HEADER "my_energy.h"
      #include <mfad/impl/instantiate.h>

  The energy header has two parts: under MFAD_ENERGY_META its sizes (MFAD_ENERGY_VERTICES,
  MFAD_ENERGY_DOF, MFAD_ENERGY_PARAMS, optional MFAD_ENERGY_REST_DIM, MFAD_ENERGY_MATERIAL,
  MFAD_ENERGY_DESCRIPTION, MFAD_ENERGY_CELL_VERTICES) and host-only helpers (mfad_energy_rest); otherwise its body,
  MFAD_ENERGY_BODY(x, p, E) { ... }, written against T and OP(name).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/instantiate.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_INSTANTIATE_H
#define MFAD_INSTANTIATE_H

#if !defined(MFAD_ENERGY_NAME) || !defined(MFAD_ENERGY_HEADER)
#error "mfad/impl/instantiate.h: define MFAD_ENERGY_NAME and MFAD_ENERGY_HEADER first"
#endif

#include <math.h>
#include <mfad/impl/kernel.h>

#define MFAD_CAT_(a, b) a##b
#define MFAD_CAT(a, b)  MFAD_CAT_(a, b)
#define MFAD_STR_(a)    #a
#define MFAD_STR(a)     MFAD_STR_(a)

#define MFAD_ENERGY_META
#include MFAD_ENERGY_HEADER
#undef MFAD_ENERGY_META
#if defined(MFAD_NO_REVERSE) /* forward-over-forward only: the reference of tests/test_reverse.c */
#undef MFAD_ENERGY_REVERSE
#endif

#if !defined(MFAD_ENERGY_VERTICES) || !defined(MFAD_ENERGY_DOF) || !defined(MFAD_ENERGY_PARAMS)
#error "energy header: define MFAD_ENERGY_VERTICES, MFAD_ENERGY_DOF and MFAD_ENERGY_PARAMS under MFAD_ENERGY_META"
#endif
#ifndef MFAD_ENERGY_REST_DIM
#define MFAD_ENERGY_REST_DIM 0
#endif
#ifndef MFAD_ENERGY_MATERIAL
#define MFAD_ENERGY_MATERIAL 0
#endif
#ifndef MFAD_ENERGY_DESCRIPTION
#define MFAD_ENERGY_DESCRIPTION ""
#endif
#ifndef MFAD_ENERGY_OUTPUTS
#define MFAD_ENERGY_OUTPUTS 0 /* a scalar energy; m > 0: a residual of m outputs (mfad/impl/element_residual.h) */
#endif
#ifndef MFAD_ENERGY_SUM
#define MFAD_ENERGY_SUM (MFAD_ENERGY_OUTPUTS > 0 ? 1 : 0) /* MfadSum */
#endif
#ifndef MFAD_ENERGY_CELL_VERTICES
#define MFAD_ENERGY_CELL_VERTICES MFAD_ENERGY_VERTICES
#endif

#ifndef MFAD_ENERGY_FEATURES
#define MFAD_ENERGY_FEATURES 0
#endif

#define MFAD_N (MFAD_ENERGY_VERTICES * MFAD_ENERGY_DOF)
#if MFAD_ENERGY_FEATURES > 0
/* AD at the features: the energy body is psi(f, p) over the M features f = B(p) x, and its
   derivatives are pulled back through B once per element (mfad/impl/element.h). The generated file
   defines mfad_feature_map (f = B x) and mfad_feature_pull (g_x = B^T g) */
#define MFAD_NA MFAD_ENERGY_FEATURES
#endif
#include <mfad/impl/ad.h>

/* The energy's signature in every mode; helpers in an energy header use MFAD_ENERGY_HELPER. */
#define MFAD_ENERGY_BODY(x, p, E) \
  MFAD_GEN_MODIFIERS void MFAD_FN(mfad_energy)(const T *MFAD_RESTRICT x, const double *MFAD_RESTRICT p, T *MFAD_RESTRICT E)
#define MFAD_ENERGY_HELPER MFAD_GEN_MODIFIERS

#define MFAD_GEN_MODIFIERS MFAD_HD static MFAD_INLINE
#define T                  double
#define OP(f)              mfad_val_##f
#define MFAD_FN(f)         f##_val
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#if MFAD_ENERGY_OUTPUTS > 0
/* a residual: Jacobian-vector products (dual numbers) and element Jacobians (gradient numbers) */
#define T          mfad_dual
#define OP(f)      mfad_dual_##f
#define MFAD_FN(f) f##_dual
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#define T          mfad_grad
#define OP(f)      mfad_grad_##f
#define MFAD_FN(f) f##_grad
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN
#else
#define T          mfad_grad
#define OP(f)      mfad_grad_##f
#define MFAD_FN(f) f##_grad
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#define T          mfad_hvp
#define OP(f)      mfad_hvp_##f
#define MFAD_FN(f) f##_hvp
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#define T          mfad_hess
#define OP(f)      mfad_hess_##f
#define MFAD_FN(f) f##_hess
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#define T          mfad_diag
#define OP(f)      mfad_diag_##f
#define MFAD_FN(f) f##_diag
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN

#if defined(MFAD_ENERGY_REVERSE)
/* forward-over-reverse at the features (mfad-energy writes the body where it covers the energy):
   over double the gradient, over dual numbers the gradient and H_F w in one sweep */
#define MFAD_ENERGY_REV_BODY(x, p, E, ax) \
  MFAD_GEN_MODIFIERS void MFAD_FN(mfad_energy_rev)(const T *MFAD_RESTRICT x, const double *MFAD_RESTRICT p, T *MFAD_RESTRICT E, T *MFAD_RESTRICT ax)
#define MFAD_ENERGY_REVERSE_PASS
#define T          double
#define OP(f)      mfad_val_##f
#define ADJ(f)     mfad_adj_val_##f
#define MFAD_FN(f) f##_val
#include <mfad/impl/ad_reverse.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef ADJ
#undef MFAD_FN

#define T          mfad_dual
#define OP(f)      mfad_dual_##f
#define ADJ(f)     mfad_adj_dual_##f
#define MFAD_FN(f) f##_dual
#include <mfad/impl/ad_generic.h>
#include <mfad/impl/ad_reverse.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef ADJ
#undef MFAD_FN
#undef MFAD_ENERGY_REVERSE_PASS
#endif
#endif
#undef MFAD_GEN_MODIFIERS

#include <mfad/impl/element.h>

#if defined(__CUDACC__) || defined(MFAD_CUDA_EMULATION)
#include <mfad/impl/loop_cuda.h>
#endif

#if !defined(__CUDACC__) && !defined(MFAD_CUDA_EMULATION)
/* ---------------------------------------------------------------- host: counting mode, CPU loops */
#define MFAD_GEN_MODIFIERS static inline
#define T                  mfad_cnt
#define OP(f)              mfad_cnt_##f
#define MFAD_FN(f)         f##_cnt
#include <mfad/impl/ad_generic.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef MFAD_FN
#undef MFAD_GEN_MODIFIERS

/* one out-of-line element Hessian for the Hessian loop, the block-diagonal loop and the host element */
static __attribute__((noinline, unused)) double mfad_cpu_elem_hessian(const MfadLoop *L, int e, double *MFAD_RESTRICT H)
{
  return mfad_elem_hessian(L, e, H);
}
#define MFAD_CPU_ELEM_HESSIAN mfad_cpu_elem_hessian

/* a user's energy (mfad_add_energy's default for a SOURCE energy, pkg-config's energy_cflags:
   MFAD_LANES_USER): its gradient and HVP on lanes, and its element Hessians there too where it declares
   no features: N sweeps of one tangent on the lanes (MFAD_VMD_K below; the README's tutorial energy 770
   -> 280 ns an element Hessian over the scalar sweeps, 2.1 us with Hessian numbers before: bench/README.md) */
#if defined(MFAD_LANES_USER) && !defined(MFAD_LANES_MODES)
#if MFAD_ENERGY_FEATURES == 0
#define MFAD_LANES_MODES 11 /* gradient, HVP, element Hessians */
#else
#define MFAD_LANES_MODES 3 /* gradient, HVP */
#endif
#endif
/* the parts whose units take the lanes' body: the gradient's and the HVP's; the element Hessian's
   where it is on lanes (mfad_add_energy's LANES_MODES hessian: bit 8), the diagonal's where it is (bit
   16: mfad_add_energy then compiles the diagonal in the Hessian's unit, beside the same dual numbers) */
#if defined(MFAD_LANES_MODES)
#define MFAD_LANES_UNITS (12 | (((MFAD_LANES_MODES)&8) ? 32 : 0) | (((MFAD_LANES_MODES)&16) ? 16 : 0))
#else
#define MFAD_LANES_UNITS 12
#endif
#if defined(MFAD_ENERGY_LANES) && MFAD_ENERGY_FEATURES == 0 && defined(MFAD_LANES_MODES) && ((MFAD_LANES_MODES)&16)
#error \
    "mfad_add_energy LANES_MODES diagonal: the Hessian diagonal goes on lanes at an energy's features; this energy declares none (its gradient, HVP, value and element Hessians do)"
#endif
#if defined(MFAD_ENERGY_LANES) && defined(MFAD_ENERGY_REVERSE) && !defined(MFAD_NO_LANES) && defined(__AVX__) && \
    (!defined(MFAD_INSTANTIATE_MODES) || ((MFAD_INSTANTIATE_MODES)&MFAD_LANES_UNITS))
/* the reverse body once more over SIMD lanes, one element a lane (mfad/impl/ad_lanes.h): lanes of
   values (the gradient), of dual numbers (the HVP); passive numbers and math.h lane vectors too.
   Only in the unit of the gradient and HVP loops (MFAD_PART_GRADIENT | MFAD_PART_HVP), the Hessian's
   too where the element Hessian or the diagonal is on lanes (then over dual numbers of one tangent per feature), and where
   the target has 256-bit registers (AVX: MFAD_NATIVE's -march=native; without, 4 lanes are pairs
   of SSE halves, no faster than the scalar loop) */
/* the element Hessian's tangents a sweep (mfad/impl/loop_cpu_lanes.h) */
#ifndef MFAD_VMD_K
/* one per feature; at the unknowns of an energy without features one, N sweeps: 12 tangents a number
   (13 vectors) spill, the README's tutorial energy's element Hessians 630 ns on lanes against 280 with one */
#define MFAD_VMD_K (MFAD_ENERGY_FEATURES > 0 ? MFAD_ENERGY_FEATURES : 1)
#endif
#include <mfad/impl/ad_lanes.h>
#define MFAD_ENERGY_LANES_DEFINED
#define MFAD_LANES_PASS
#define MFAD_ENERGY_LANES_PASS
#undef MFAD_S
#define MFAD_S mfad_vd
#undef MFAD_SC
#define MFAD_SC(c)         MFAD_VS(c)
#define MFAD_GEN_MODIFIERS static inline __attribute__((always_inline, unused))
#define MFAD_ENERGY_LANES_BODY(x, p, E, ax) \
  MFAD_GEN_MODIFIERS void MFAD_FN(mfad_energy_lanes)(const T *MFAD_RESTRICT x, const mfad_vd *MFAD_RESTRICT p, T *MFAD_RESTRICT E, \
                                                     T *MFAD_RESTRICT ax, int *_mfad_div)
#define sqrt(a)     mfad_v_sqrt(MFAD_VS(a))
#define log(a)      mfad_v_log(MFAD_VS(a))
#define exp(a)      mfad_v_exp(MFAD_VS(a))
#define sin(a)      mfad_v_sin(MFAD_VS(a))
#define cos(a)      mfad_v_cos(MFAD_VS(a))
#define tan(a)      mfad_v_tan(MFAD_VS(a))
#define tanh(a)     mfad_v_tanh(MFAD_VS(a))
#define sinh(a)     mfad_v_sinh(MFAD_VS(a))
#define cosh(a)     mfad_v_cosh(MFAD_VS(a))
#define asin(a)     mfad_v_asin(MFAD_VS(a))
#define acos(a)     mfad_v_acos(MFAD_VS(a))
#define atan(a)     mfad_v_atan(MFAD_VS(a))
#define cbrt(a)     mfad_v_cbrt(MFAD_VS(a))
#define log1p(a)    mfad_v_log1p(MFAD_VS(a))
#define expm1(a)    mfad_v_expm1(MFAD_VS(a))
#define erf(a)      mfad_v_erf(MFAD_VS(a))
#define erfc(a)     mfad_v_erfc(MFAD_VS(a))
#define pow(a, b)   mfad_v_pow(MFAD_VS(a), MFAD_VS(b))
#define atan2(a, b) mfad_v_atan2(MFAD_VS(a), MFAD_VS(b))
#define hypot(a, b) mfad_v_hypot(MFAD_VS(a), MFAD_VS(b))
#define fabs(a)     mfad_v_fabs(MFAD_VS(a))
#define fmin(a, b)  mfad_v_fmin(MFAD_VS(a), MFAD_VS(b))
#define fmax(a, b)  mfad_v_fmax(MFAD_VS(a), MFAD_VS(b))
#define T           mfad_vd
#define OP(f)       mfad_vval_##f
#define ADJ(f)      mfad_adj_vval_##f
#define MFAD_FN(f)  f##_vval
#include <mfad/impl/ad_generic.h>
#include <mfad/impl/ad_reverse.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef ADJ
#undef MFAD_FN
#define T          mfad_vdual
#define OP(f)      mfad_vdual_##f
#define ADJ(f)     mfad_adj_vdual_##f
#define MFAD_FN(f) f##_vdual
#include <mfad/impl/ad_generic.h>
#include <mfad/impl/ad_reverse.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef ADJ
#undef MFAD_FN
#if (MFAD_LANES_UNITS) & 48
/* the element Hessian's and the diagonal's: dual numbers of one tangent per feature (mfad/impl/ad_lanes.h) */
#define T          mfad_vmdual
#define OP(f)      mfad_vmd_##f
#define ADJ(f)     mfad_adj_vmd_##f
#define MFAD_FN(f) f##_vmd
#include <mfad/impl/ad_generic.h>
#include <mfad/impl/ad_reverse.h>
#include MFAD_ENERGY_HEADER
#undef T
#undef OP
#undef ADJ
#undef MFAD_FN
#endif
#undef sqrt
#undef log
#undef exp
#undef sin
#undef cos
#undef tan
#undef tanh
#undef sinh
#undef cosh
#undef asin
#undef acos
#undef atan
#undef cbrt
#undef log1p
#undef expm1
#undef erf
#undef erfc
#undef pow
#undef atan2
#undef hypot
#undef fabs
#undef fmin
#undef fmax
#undef MFAD_GEN_MODIFIERS
#undef MFAD_S
#define MFAD_S double
#undef MFAD_SC
#define MFAD_SC(c) (c)
#undef MFAD_ENERGY_LANES_PASS
#undef MFAD_LANES_PASS
#endif
#include <mfad/impl/loop_cpu.h>
#if MFAD_ENERGY_OUTPUTS > 0 && (!defined(MFAD_INSTANTIATE_MODES) || ((MFAD_INSTANTIATE_MODES)&1))
#include <mfad/impl/loop_cpu_residual.h>
#define MFAD_RESIDUAL_KERNEL (&mfad_residual_kernel)
#define MFAD_NOUT            MFAD_ENERGY_OUTPUTS
#else
#define MFAD_RESIDUAL_KERNEL 0
#define MFAD_NOUT            1
#endif

/* The modes in translation units of their own (MFAD_INSTANTIATE_MODES): at 12 unknowns with no
   features, one unit of every mode took 20-22 s at -O3, most of it the Hessian mode's N^2 lanes;
   mfad_add_energy compiles the energy's unit several times, each instantiating a part of the modes,
   so that the parts build in parallel (tests/buildtime.cmake's yardstick). Each mode's CPU loop and
   host element function are compiled in the unit of its part, with its element bodies inlined as
   before (the loops' speed does not change), and reached from the kernel's part by a hidden
   extern name carrying the energy's. A residual compiles whole in the kernel's part. */
#define MFAD_PART_KERNEL   1  /* the MfadKernel, its counting mode (flops) and rest set-up */
#define MFAD_PART_VALUE    2  /* cpu_value */
#define MFAD_PART_GRADIENT 4  /* cpu_gradient */
#define MFAD_PART_HVP      8  /* cpu_hvp */
#define MFAD_PART_DIAGONAL 16 /* cpu_diagonal */
#define MFAD_PART_HESSIAN  32 /* cpu_hessian, cpu_blockdiag (both of the element Hessian) */
#define MFAD_PART_ALL      63
#ifndef MFAD_INSTANTIATE_MODES
#define MFAD_INSTANTIATE_MODES MFAD_PART_ALL
#endif
#if MFAD_ENERGY_OUTPUTS > 0
#define MFAD_PART(m) ((MFAD_INSTANTIATE_MODES)&MFAD_PART_KERNEL)
#else
#define MFAD_PART(m) ((MFAD_INSTANTIATE_MODES) & (m))
#endif
/* a mode's functions: static in a unit of every mode, hidden externs between parts */
#if (MFAD_INSTANTIATE_MODES) == MFAD_PART_ALL || MFAD_ENERGY_OUTPUTS > 0
#define MFAD_PART_LINKAGE static
#else
#define MFAD_PART_LINKAGE __attribute__((visibility("hidden")))
#endif
#define MFAD_PART_FN(f) MFAD_CAT(MFAD_CAT(mfad_part_, f), MFAD_CAT(_, MFAD_ENERGY_NAME))
#define MFAD_PART_DECLARE(mode) \
  MFAD_PART_LINKAGE void MFAD_PART_FN(MFAD_CAT(cpu_, mode))(const MfadLoop *L); \
  MFAD_PART_LINKAGE void MFAD_PART_FN(MFAD_CAT(element_, mode))(const double *x, const double *v, const double *params, double *value, double *out)
/* one element of a mode on the host (MfadKernel.element): value receives E, out the mode's output */
#define MFAD_PART_DEFINE(mode, STMT) \
  MFAD_PART_LINKAGE void MFAD_PART_FN(MFAD_CAT(cpu_, mode))(const MfadLoop *L) { MFAD_CAT(mfad_cpu_, mode)(L); } \
  MFAD_PART_LINKAGE void MFAD_PART_FN(MFAD_CAT(element_, mode))(const double *x, const double *v, const double *params, double *value, double *out) \
  { \
    int      conn[MFAD_NV]; \
    MfadLoop L; \
    mfad_elem_loop_one(&L, conn, x, v, params); \
    STMT; \
  }
#if MFAD_PART(MFAD_PART_VALUE) || MFAD_PART(MFAD_PART_KERNEL)
MFAD_PART_DECLARE(value);
#endif
#if MFAD_PART(MFAD_PART_VALUE)
MFAD_PART_DEFINE(value, (void)out; *value = mfad_elem_value(&L, 0))
#endif
#if MFAD_PART(MFAD_PART_GRADIENT) || MFAD_PART(MFAD_PART_KERNEL)
MFAD_PART_DECLARE(gradient);
#endif
#if MFAD_PART(MFAD_PART_GRADIENT)
MFAD_PART_DEFINE(gradient, *value = mfad_elem_gradient(&L, 0, out))
#endif
#if MFAD_PART(MFAD_PART_HVP) || MFAD_PART(MFAD_PART_KERNEL)
MFAD_PART_DECLARE(hvp);
#endif
#if MFAD_PART(MFAD_PART_HVP)
MFAD_PART_DEFINE(hvp, mfad_elem_hvp(&L, 0, out); *value = mfad_elem_value(&L, 0))
#endif
#if MFAD_PART(MFAD_PART_DIAGONAL) || MFAD_PART(MFAD_PART_KERNEL)
MFAD_PART_DECLARE(diagonal);
#endif
#if MFAD_PART(MFAD_PART_DIAGONAL)
MFAD_PART_DEFINE(diagonal, mfad_elem_diagonal(&L, 0, out); *value = mfad_elem_value(&L, 0))
#endif
#if MFAD_PART(MFAD_PART_HESSIAN) || MFAD_PART(MFAD_PART_KERNEL)
MFAD_PART_DECLARE(hessian);
MFAD_PART_LINKAGE void MFAD_PART_FN(cpu_blockdiag)(const MfadLoop *L);
#endif
#if MFAD_PART(MFAD_PART_HESSIAN)
MFAD_PART_DEFINE(hessian, double H[MFAD_N * MFAD_N]; *value = mfad_cpu_elem_hessian(&L, 0, H);
                 for (int i = 0; i < MFAD_N * MFAD_N; i++) out[i] = H[i])
MFAD_PART_LINKAGE void MFAD_PART_FN(cpu_blockdiag)(const MfadLoop *L) { mfad_cpu_blockdiag(L); }
#endif

#if MFAD_ENERGY_REST_DIM > 0
#define MFAD_REST_FN mfad_energy_rest
#else
#define MFAD_REST_FN 0
#endif

#ifndef MFAD_ENERGY_PROJECTION
#define MFAD_ENERGY_PROJECTION 0
#endif

#if defined(MFAD_ENERGY_STEP)
#define MFAD_STEP_FN mfad_energy_step
#else
#define MFAD_STEP_FN 0
#endif

#if MFAD_PART(MFAD_PART_KERNEL)
static void mfad_element_host(MfadMode mode, const double *x, const double *v, const double *params, double *value, double *out)
{
  switch (mode) {
  case MFAD_MODE_VALUE:
    MFAD_PART_FN(element_value)(x, v, params, value, out);
    break;
  case MFAD_MODE_GRADIENT:
    MFAD_PART_FN(element_gradient)(x, v, params, value, out);
    break;
  case MFAD_MODE_HVP:
    MFAD_PART_FN(element_hvp)(x, v, params, value, out);
    break;
  case MFAD_MODE_HESSIAN:
    MFAD_PART_FN(element_hessian)(x, v, params, value, out);
    break;
  case MFAD_MODE_DIAGONAL:
    MFAD_PART_FN(element_diagonal)(x, v, params, value, out);
    break;
  default:
    break;
  }
}

static void mfad_flops_host(const double *x, const double *params, double flops[MFAD_MODE_COUNT])
{
  mfad_cnt xs[MFAD_N], E[MFAD_NOUT];
  for (int m = 0; m < MFAD_CNT_MODES; m++) mfad_cnt_flops[m] = 0.0;
#if MFAD_ENERGY_FEATURES > 0
  double f[MFAD_ENERGY_FEATURES];
  mfad_feature_map(x, params, f);
  for (int i = 0; i < MFAD_ENERGY_FEATURES; i++) mfad_cnt_seed(&xs[i], f[i], i);
#else
  for (int i = 0; i < MFAD_N; i++) mfad_cnt_seed(&xs[i], x[i], i);
#endif
  mfad_energy_cnt(xs, params, E);
  (void)E;
#if MFAD_ENERGY_OUTPUTS > 0
  {
    /* every operation's gradient-mode count is its value count plus a multiple of N: a dual number
       (one lane) costs the value count plus that multiple once */
    const double val = mfad_cnt_flops[MFAD_CNT_VAL], grad = mfad_cnt_flops[MFAD_CNT_GRAD], N = MFAD_N;
#if MFAD_ENERGY_SUM == 2
    const double dual = val + (grad - val) / MFAD_N;
    flops[0] = 0;
    flops[1] = val + 2 * N;
    flops[2] = dual + 2 * N;
    flops[3] = grad + N * N;
    flops[4] = grad + N;
#else
    const double M = MFAD_ENERGY_OUTPUTS;
    flops[0] = val + 2 * M;
    flops[1] = grad + 2 * M * N + 2 * N;
    flops[2] = grad + 4 * M * N + 2 * N;
    flops[3] = grad + M * N * (N + 1) + N * N;
    flops[4] = grad + 2 * M * N + 2 * N;
#endif
  }
#else
  /* gather/seed and the weighted scatter of each mode's outputs */
  flops[0] = mfad_cnt_flops[MFAD_CNT_VAL] + 1;
  flops[1] = mfad_cnt_flops[MFAD_CNT_GRAD] + 2 * MFAD_N;
  flops[2] = mfad_cnt_flops[MFAD_CNT_HVP] + 2 * MFAD_N;
  flops[3] = mfad_cnt_flops[MFAD_CNT_HESS] + MFAD_N * MFAD_N;
  flops[4] = mfad_cnt_flops[MFAD_CNT_DIAG] + 2 * MFAD_N;
#if MFAD_ENERGY_FEATURES > 0
  {
    /* the map and its pull-back, each at most 2 N M flops (fewer: B is sparse): value f = B x,
       gradient + B^T g, HVP + B v + 2 B^T, Hessian B^T (H_F B): M + N pull-backs; the diagonal
       seeds its features with the M rows of B: M pull-backs */
    const double bm = 2.0 * MFAD_N * MFAD_ENERGY_FEATURES;
    flops[0] += bm;
    flops[1] += 2 * bm;
    flops[2] += 4 * bm;
    flops[3] += bm * (1 + MFAD_N + MFAD_ENERGY_FEATURES);
    flops[4] += bm * (1 + MFAD_ENERGY_FEATURES);
  }
#endif
#endif
}

#define MFAD_KERNEL_SYMBOL MFAD_CAT(MfadKernel_, MFAD_ENERGY_NAME)
#ifdef __cplusplus
extern "C" {
#endif
/* The CUDA half (mfad/impl/loop_cuda.h, compiled by nvcc from the same translation unit text) is
   linked in only where CUDA was compiled: a weak reference reads as NULL when it is absent, so
   this file compiles the same way with and without CUDA. */
extern const struct _n_MfadCudaKernel MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME) __attribute__((weak));
extern const struct _n_MfadKernel MFAD_KERNEL_SYMBOL;
const struct _n_MfadKernel            MFAD_KERNEL_SYMBOL = {
               MFAD_STR(MFAD_ENERGY_NAME), MFAD_ENERGY_DESCRIPTION, MFAD_ENERGY_VERTICES, MFAD_ENERGY_DOF, MFAD_ENERGY_PARAMS, MFAD_ENERGY_REST_DIM,
                        MFAD_ENERGY_MATERIAL, MFAD_REST_FN, mfad_element_host, mfad_flops_host, MFAD_PART_FN(cpu_value), MFAD_PART_FN(cpu_gradient),
                        MFAD_PART_FN(cpu_hvp), MFAD_PART_FN(cpu_diagonal), MFAD_PART_FN(cpu_blockdiag), MFAD_PART_FN(cpu_hessian),
                        &MFAD_CAT(MfadCudaKernel_, MFAD_ENERGY_NAME), MFAD_ENERGY_CELL_VERTICES, MFAD_ENERGY_OUTPUTS, (MfadSum)MFAD_ENERGY_SUM,
                        MFAD_RESIDUAL_KERNEL, MFAD_ENERGY_FEATURES,
#if defined(MFAD_ENERGY_REVERSE)
             1,
#else
             0,
#endif
             MFAD_STEP_FN, MFAD_ENERGY_PROJECTION,
#if defined(MFAD_ENERGY_LANES_DEFINED)
             MFAD_LANES_MODES,
#else
             0,
#endif
};
#ifdef __cplusplus
}
#endif
#else
/* a part without the kernel: the energy's host helpers are the kernel part's (no unused warnings) */
static void (*const mfad_part_host_[])(void) __attribute__((unused)) = {(void (*)(void))MFAD_REST_FN, (void (*)(void))MFAD_STEP_FN};
#endif /* MFAD_PART_KERNEL */
#endif /* !__CUDACC__ && !MFAD_CUDA_EMULATION */

#endif /* MFAD_INSTANTIATE_H */
