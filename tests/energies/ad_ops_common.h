// SPDX-License-Identifier: BSD-2-Clause
/* Shared by the test energy ad_ops.h and tests/test_ad.c: which operation the energy evaluates
   (parameter 0) and how its nine inputs u are made from the element's unknowns x. */
#ifndef AD_OPS_COMMON_H
#define AD_OPS_COMMON_H

enum {
  AD_OP_MUL, AD_OP_DIV, AD_OP_INV, AD_OP_SQR, AD_OP_SQRT, AD_OP_LOG, AD_OP_EXP, AD_OP_POW, AD_OP_SIN, AD_OP_COS,
  AD_OP_ATAN2, AD_OP_FMA, AD_OP_TANH, AD_OP_FABS, AD_OP_ACOS, AD_OP_ASIN, AD_OP_TAN, AD_OP_ATAN, AD_OP_CBRT, AD_OP_FMIN,
  AD_OP_FMAX, AD_OP_HYPOT, AD_OP_POW2, AD_OP_POWD, AD_OP_LINEAR, AD_OP_DOT3, AD_OP_NORM3, AD_OP_FROB2, AD_OP_DET2,
  AD_OP_CROSS3, AD_OP_SUB3, AD_OP_DET3, AD_OP_INV2, AD_OP_INV3, AD_OP_MATMUL2, AD_OP_MATMUL3, AD_OP_TMATMUL2,
  AD_OP_TMATMUL3, AD_OP_MATMULD2, AD_OP_MATMULD3, AD_OP_INPLACE, AD_OP_OUTPLACE,
  AD_OP_SINGLE_COUNT, /* the operations above, one at a time */
  AD_OP_ALL = AD_OP_SINGLE_COUNT, /* their sum: every operation composed in one energy */
  /* fmin and fmax where they have no derivative, checked against their documented choice only
     (not against finite differences): a tie with a constant, and a NaN constant operand */
  AD_OP_FMINMAX_TIE, AD_OP_FMINMAX_NAN,
  AD_OP_COUNT
};

/* Parameters: p[0] the operation, p[1..9] the offsets c of u, p[10] the exponent of pow,
   p[11..19] the constant matrix of matmuld (row-major), p[20] the constant base (> 0) of powd. */
#define AD_OPS_NPARAM 21

/* u_k = c_k + sum_i AD_OPS_MIX(k, i, N) x_i: input k takes unknowns i = k, k + 9 (N > 9: every
   unknown is used, so every derivative lane, padding included, carries data), and with N < 9
   also unknown k mod N (every input moves). Weights differ per input so that no two move alike. */
#define AD_OPS_MIX(k, i, n) ((((i) % 9 == (k)) || ((n) < 9 && (k) % (n) == (i))) ? 1.0 + 0.125 * (k) : 0.0)

/* The test energy's functions are kept out of line (MFAD_HD static, never inlined): mfad forces
   every operation and the energy body inline into each element loop, and all the operations
   inlined into one body took gcc minutes to compile in the Hessian mode. Speed is no concern here. */
#if defined(__CUDACC__)
#define AD_OPS_OUTLINE MFAD_HD static __noinline__
#elif defined(__GNUC__)
#define AD_OPS_OUTLINE MFAD_HD static __attribute__((noinline))
#else
#define AD_OPS_OUTLINE MFAD_HD static
#endif

/* vector and matrix results are reduced to a scalar with weights w_j */
#define AD_OPS_W(j) (1.0 / (1.0 + (j)))

#endif
