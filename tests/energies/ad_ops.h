// SPDX-License-Identifier: BSD-2-Clause
/* Test energy ad_ops: E = one operation of mfad/impl/ad.h or mfad/impl/ad_generic.h (or all of them, summed)
   applied to nine inputs u_k = c_k + sum_i M_ki x_i (tests/energies/ad_ops_common.h), vector and
   matrix results reduced to a scalar with fixed weights. Included through ad_ops_n<N>.h, which
   sets the element size; tests/test_ad.c compares its every mode with plain-double references,
   analytic derivatives and finite differences. */
#include "ad_ops_common.h"
#if defined(MFAD_ENERGY_META)
#define MFAD_ENERGY_VERTICES    AD_OPS_NV
#define MFAD_ENERGY_DOF         AD_OPS_DOF
#define MFAD_ENERGY_PARAMS      AD_OPS_NPARAM
#define MFAD_ENERGY_DESCRIPTION "test: one AD operation of nine mixed inputs"
#else
/* one function per operation, out of line (see AD_OPS_OUTLINE) */
#define AD_OPS_FN(name) AD_OPS_OUTLINE void MFAD_FN(ad_ops_##name)(const T *u, const double *p, T *E)

/* E = sum_j w_j r_j */
AD_OPS_OUTLINE void MFAD_FN(ad_ops_reduce)(T *E, const T *r, int n)
{
  T t;
  OP(set)(E, 0.0);
  for (int j = 0; j < n; j++) {
    OP(muls)(&t, &r[j], AD_OPS_W(j));
    OP(add)(E, E, &t);
  }
}

AD_OPS_FN(mul)
{
  (void)p;
  OP(mul)(E, &u[0], &u[1]);
}

AD_OPS_FN(div)
{
  (void)p;
  OP(div)(E, &u[0], &u[1]);
}

AD_OPS_FN(inv)
{
  (void)p;
  OP(inv)(E, &u[0]);
}

AD_OPS_FN(sqr)
{
  (void)p;
  OP(sqr)(E, &u[0]);
}

AD_OPS_FN(sqrt)
{
  (void)p;
  OP(sqrt)(E, &u[0]);
}

AD_OPS_FN(log)
{
  (void)p;
  OP(log)(E, &u[0]);
}

AD_OPS_FN(exp)
{
  (void)p;
  OP(exp)(E, &u[0]);
}

AD_OPS_FN(pow)
{
  OP(pow)(E, &u[0], p[10]);
}

AD_OPS_FN(sin)
{
  (void)p;
  OP(sin)(E, &u[0]);
}

AD_OPS_FN(cos)
{
  (void)p;
  OP(cos)(E, &u[0]);
}

AD_OPS_FN(atan2)
{
  (void)p;
  OP(atan2)(E, &u[0], &u[1]);
}

AD_OPS_FN(fma)
{
  (void)p;
  OP(fma)(E, &u[0], &u[1], &u[2]);
}

AD_OPS_FN(tanh)
{
  (void)p;
  OP(tanh)(E, &u[3]);
}

AD_OPS_FN(fabs) /* both signs, of products so that the Hessian sees them: |u2 u3| + |u0 u1| / 2, u2 u3 ~ -0.2 and u0 u1 ~ 0.6 */
{
  T r[9], s;
  (void)p;
  OP(mul)(&s, &u[2], &u[3]);
  OP(fabs)(&r[0], &s);
  OP(mul)(&s, &u[0], &u[1]);
  OP(fabs)(&r[1], &s);
  MFAD_FN(ad_ops_reduce)(E, r, 2);
}

AD_OPS_FN(acos)
{
  (void)p;
  OP(acos)(E, &u[7]);
}

AD_OPS_FN(asin)
{
  (void)p;
  OP(asin)(E, &u[2]);
}

AD_OPS_FN(tan)
{
  (void)p;
  OP(tan)(E, &u[3]);
}

AD_OPS_FN(atan)
{
  (void)p;
  OP(atan)(E, &u[0]);
}

AD_OPS_FN(cbrt) /* of a negative input */
{
  (void)p;
  OP(cbrt)(E, &u[2]);
}

/* fmin, fmax of s = u0 u1 ~ 0.6 and t = u4 u8 ~ 2.55 in both orders: each returns its first operand
   once and its second once; products so that the Hessian sees the copy */
AD_OPS_OUTLINE void MFAD_FN(ad_ops_minmax)(const T *u, int max, T *E)
{
  T r[9], s, t;
  OP(mul)(&s, &u[0], &u[1]);
  OP(mul)(&t, &u[4], &u[8]);
  if (max) {
    OP(fmax)(&r[0], &s, &t);
    OP(fmax)(&r[1], &t, &s);
  } else {
    OP(fmin)(&r[0], &s, &t);
    OP(fmin)(&r[1], &t, &s);
  }
  MFAD_FN(ad_ops_reduce)(E, r, 2);
}

AD_OPS_FN(fmin)
{
  (void)p;
  MFAD_FN(ad_ops_minmax)(u, 0, E);
}

AD_OPS_FN(fmax)
{
  (void)p;
  MFAD_FN(ad_ops_minmax)(u, 1, E);
}

AD_OPS_FN(hypot) /* |a| > |b| (2.0, 0.3) and |a| < |b| with a < 0 (-0.4, 0.5) */
{
  T r[9];
  (void)p;
  OP(hypot)(&r[0], &u[0], &u[1]);
  OP(hypot)(&r[1], &u[2], &u[3]);
  MFAD_FN(ad_ops_reduce)(E, r, 2);
}

AD_OPS_FN(pow2) /* bases above and below 1 (2.0, 0.6), exponents of both signs (0.3, -0.4) */
{
  T r[9];
  (void)p;
  OP(pow2)(&r[0], &u[0], &u[1]);
  OP(pow2)(&r[1], &u[7], &u[2]);
  MFAD_FN(ad_ops_reduce)(E, r, 2);
}

AD_OPS_FN(powd)
{
  OP(powd)(E, p[20], &u[3]);
}

/* E = fmin(a, c) + 2 fmin(c, a) + 4 fmax(a, c) + 8 fmax(c, a) = 15 a, a = u0 u1, c a constant: of
   a's value (a tie: the first operand's derivatives are taken, 5 a's) or NaN (a's: 15 a's) */
AD_OPS_OUTLINE void MFAD_FN(ad_ops_minmax_special)(const T *u, int nan, T *E)
{
  T a, b, t;
  OP(mul)(&a, &u[0], &u[1]);
  OP(set)(&b, nan ? NAN : OP(val)(&a));
  OP(fmin)(E, &a, &b);
  OP(fmin)(&t, &b, &a);
  OP(muls)(&t, &t, 2.0);
  OP(add)(E, E, &t);
  OP(fmax)(&t, &a, &b);
  OP(muls)(&t, &t, 4.0);
  OP(add)(E, E, &t);
  OP(fmax)(&t, &b, &a);
  OP(muls)(&t, &t, 8.0);
  OP(add)(E, E, &t);
}

AD_OPS_FN(linear) /* E = 3 (u0 + u1) - u2 - u3 + 0.75 through set, copy, add, neg, sub, adds, muls */
{
  T r[9], s, t;
  (void)p;
  OP(set)(&t, 0.25);
  OP(copy)(&s, &u[0]);
  OP(add)(&s, &s, &u[1]);
  OP(muls)(&s, &s, 3.0);
  OP(neg)(&r[0], &u[2]);
  OP(add)(&s, &s, &r[0]);
  OP(sub)(&s, &s, &u[3]);
  OP(adds)(&s, &s, 0.5);
  OP(add)(E, &s, &t);
}

AD_OPS_FN(dot3)
{
  (void)p;
  OP(dot3)(E, &u[0], &u[3]);
}

AD_OPS_FN(norm3)
{
  (void)p;
  OP(norm3)(E, &u[0]);
}

AD_OPS_FN(frob2)
{
  (void)p;
  OP(frob2)(E, u, 9);
}

AD_OPS_FN(det2)
{
  (void)p;
  OP(det2)(E, u);
}

AD_OPS_FN(cross3)
{
  T r[9];
  (void)p;
  OP(cross3)(r, &u[0], &u[3]);
  MFAD_FN(ad_ops_reduce)(E, r, 3);
}

AD_OPS_FN(sub3) /* sub3 is linear: square its result so that the Hessian sees it */
{
  T r[9];
  (void)p;
  OP(sub3)(r, &u[0], &u[3]);
  OP(frob2)(E, r, 3);
}

AD_OPS_FN(det3)
{
  (void)p;
  OP(det3)(E, u);
}

AD_OPS_FN(inv2)
{
  T r[9], s;
  (void)p;
  OP(inv2)(r, &s, u);
  MFAD_FN(ad_ops_reduce)(E, r, 4);
  OP(add)(E, E, &s);
}

AD_OPS_FN(inv3)
{
  T r[9], s;
  (void)p;
  OP(inv3)(r, &s, u);
  MFAD_FN(ad_ops_reduce)(E, r, 9);
  OP(add)(E, E, &s);
}

AD_OPS_FN(matmul2) /* A = u[0..3], B = u[4..7] */
{
  T r[9];
  (void)p;
  OP(matmul)(r, &u[0], &u[4], 2);
  MFAD_FN(ad_ops_reduce)(E, r, 4);
}

AD_OPS_FN(matmul3) /* A = u, B_k = u_{(k + 4) mod 9}: the factors share unknowns */
{
  T r[9], B[9];
  (void)p;
  for (int k = 0; k < 9; k++) OP(copy)(&B[k], &u[(k + 4) % 9]);
  OP(matmul)(r, u, B, 3);
  MFAD_FN(ad_ops_reduce)(E, r, 9);
}

AD_OPS_FN(tmatmul2)
{
  T r[9];
  (void)p;
  OP(tmatmul)(r, &u[0], &u[4], 2);
  MFAD_FN(ad_ops_reduce)(E, r, 4);
}

AD_OPS_FN(tmatmul3)
{
  T r[9], B[9];
  (void)p;
  for (int k = 0; k < 9; k++) OP(copy)(&B[k], &u[(k + 4) % 9]);
  OP(tmatmul)(r, u, B, 3);
  MFAD_FN(ad_ops_reduce)(E, r, 9);
}

AD_OPS_FN(matmuld2) /* constant B = p[11..14]; the result is squared (matmuld is linear) */
{
  T r[9];
  OP(matmuld)(r, u, &p[11], 2);
  OP(frob2)(E, r, 4);
}

AD_OPS_FN(matmuld3)
{
  T r[9];
  OP(matmuld)(r, u, &p[11], 3);
  OP(frob2)(E, r, 9);
}

AD_OPS_FN(inplace) /* every output aliases an input */
{
  T s;
  (void)p;
  OP(copy)(&s, &u[0]);
  OP(mul)(&s, &s, &u[1]);   /* r == a */
  OP(mul)(&s, &u[2], &s);   /* r == b */
  OP(add)(&s, &s, &s);      /* r == a == b */
  OP(sub)(&s, &s, &u[3]);
  OP(neg)(&s, &s);
  OP(muls)(&s, &s, 0.7);
  OP(adds)(&s, &s, 0.3);
  OP(sin)(&s, &s);          /* chain1 */
  OP(atan2)(&s, &s, &u[4]); /* chain2, r == y */
  OP(div)(&s, &u[5], &s);   /* r == b */
  OP(div)(&s, &s, &u[6]);   /* r == a */
  OP(mul)(&s, &s, &s);      /* r == a == b */
  OP(copy)(E, &s);
}

AD_OPS_FN(outplace) /* the same, without aliasing */
{
  T r[9];
  (void)p;
  OP(copy)(&r[0], &u[0]);
  OP(mul)(&r[1], &r[0], &u[1]);
  OP(mul)(&r[2], &u[2], &r[1]);
  OP(add)(&r[3], &r[2], &r[2]);
  OP(sub)(&r[4], &r[3], &u[3]);
  OP(neg)(&r[5], &r[4]);
  OP(muls)(&r[6], &r[5], 0.7);
  OP(adds)(&r[7], &r[6], 0.3);
  OP(sin)(&r[8], &r[7]);
  OP(atan2)(&r[0], &r[8], &u[4]);
  OP(div)(&r[1], &u[5], &r[0]);
  OP(div)(&r[2], &r[1], &u[6]);
  OP(mul)(&r[3], &r[2], &r[2]);
  OP(copy)(E, &r[3]);
}

AD_OPS_OUTLINE void MFAD_FN(ad_ops_one)(int op, const T *u, const double *p, T *E)
{
  switch (op) {
  case AD_OP_MUL:
    MFAD_FN(ad_ops_mul)(u, p, E);
    break;
  case AD_OP_DIV:
    MFAD_FN(ad_ops_div)(u, p, E);
    break;
  case AD_OP_INV:
    MFAD_FN(ad_ops_inv)(u, p, E);
    break;
  case AD_OP_SQR:
    MFAD_FN(ad_ops_sqr)(u, p, E);
    break;
  case AD_OP_SQRT:
    MFAD_FN(ad_ops_sqrt)(u, p, E);
    break;
  case AD_OP_LOG:
    MFAD_FN(ad_ops_log)(u, p, E);
    break;
  case AD_OP_EXP:
    MFAD_FN(ad_ops_exp)(u, p, E);
    break;
  case AD_OP_POW:
    MFAD_FN(ad_ops_pow)(u, p, E);
    break;
  case AD_OP_SIN:
    MFAD_FN(ad_ops_sin)(u, p, E);
    break;
  case AD_OP_COS:
    MFAD_FN(ad_ops_cos)(u, p, E);
    break;
  case AD_OP_ATAN2:
    MFAD_FN(ad_ops_atan2)(u, p, E);
    break;
  case AD_OP_FMA:
    MFAD_FN(ad_ops_fma)(u, p, E);
    break;
  case AD_OP_TANH:
    MFAD_FN(ad_ops_tanh)(u, p, E);
    break;
  case AD_OP_FABS:
    MFAD_FN(ad_ops_fabs)(u, p, E);
    break;
  case AD_OP_ACOS:
    MFAD_FN(ad_ops_acos)(u, p, E);
    break;
  case AD_OP_ASIN:
    MFAD_FN(ad_ops_asin)(u, p, E);
    break;
  case AD_OP_TAN:
    MFAD_FN(ad_ops_tan)(u, p, E);
    break;
  case AD_OP_ATAN:
    MFAD_FN(ad_ops_atan)(u, p, E);
    break;
  case AD_OP_CBRT:
    MFAD_FN(ad_ops_cbrt)(u, p, E);
    break;
  case AD_OP_FMIN:
    MFAD_FN(ad_ops_fmin)(u, p, E);
    break;
  case AD_OP_FMAX:
    MFAD_FN(ad_ops_fmax)(u, p, E);
    break;
  case AD_OP_HYPOT:
    MFAD_FN(ad_ops_hypot)(u, p, E);
    break;
  case AD_OP_POW2:
    MFAD_FN(ad_ops_pow2)(u, p, E);
    break;
  case AD_OP_POWD:
    MFAD_FN(ad_ops_powd)(u, p, E);
    break;
  case AD_OP_FMINMAX_TIE:
    MFAD_FN(ad_ops_minmax_special)(u, 0, E);
    break;
  case AD_OP_FMINMAX_NAN:
    MFAD_FN(ad_ops_minmax_special)(u, 1, E);
    break;
  case AD_OP_LINEAR:
    MFAD_FN(ad_ops_linear)(u, p, E);
    break;
  case AD_OP_DOT3:
    MFAD_FN(ad_ops_dot3)(u, p, E);
    break;
  case AD_OP_NORM3:
    MFAD_FN(ad_ops_norm3)(u, p, E);
    break;
  case AD_OP_FROB2:
    MFAD_FN(ad_ops_frob2)(u, p, E);
    break;
  case AD_OP_DET2:
    MFAD_FN(ad_ops_det2)(u, p, E);
    break;
  case AD_OP_CROSS3:
    MFAD_FN(ad_ops_cross3)(u, p, E);
    break;
  case AD_OP_SUB3:
    MFAD_FN(ad_ops_sub3)(u, p, E);
    break;
  case AD_OP_DET3:
    MFAD_FN(ad_ops_det3)(u, p, E);
    break;
  case AD_OP_INV2:
    MFAD_FN(ad_ops_inv2)(u, p, E);
    break;
  case AD_OP_INV3:
    MFAD_FN(ad_ops_inv3)(u, p, E);
    break;
  case AD_OP_MATMUL2:
    MFAD_FN(ad_ops_matmul2)(u, p, E);
    break;
  case AD_OP_MATMUL3:
    MFAD_FN(ad_ops_matmul3)(u, p, E);
    break;
  case AD_OP_TMATMUL2:
    MFAD_FN(ad_ops_tmatmul2)(u, p, E);
    break;
  case AD_OP_TMATMUL3:
    MFAD_FN(ad_ops_tmatmul3)(u, p, E);
    break;
  case AD_OP_MATMULD2:
    MFAD_FN(ad_ops_matmuld2)(u, p, E);
    break;
  case AD_OP_MATMULD3:
    MFAD_FN(ad_ops_matmuld3)(u, p, E);
    break;
  case AD_OP_INPLACE:
    MFAD_FN(ad_ops_inplace)(u, p, E);
    break;
  case AD_OP_OUTPLACE:
    MFAD_FN(ad_ops_outplace)(u, p, E);
    break;
  default:
    OP(set)(E, NAN);
    break;
  }
}

/* u_k = c_k + sum_i M_ki x_i */
AD_OPS_OUTLINE void MFAD_FN(ad_ops_inputs)(const T *x, const double *p, T *u)
{
  T t;
  for (int k = 0; k < 9; k++) {
    OP(set)(&u[k], p[1 + k]);
    for (int i = 0; i < MFAD_N; i++) {
      const double m = AD_OPS_MIX(k, i, MFAD_N);
      if (m != 0.0) {
        OP(muls)(&t, &x[i], m);
        OP(add)(&u[k], &u[k], &t);
      }
    }
  }
}

MFAD_ENERGY_BODY(x, p, E)
{
  T         u[9], t;
  const int op = (int)p[0];
  MFAD_FN(ad_ops_inputs)(x, p, u);
  if (op != AD_OP_ALL) {
    MFAD_FN(ad_ops_one)(op, u, p, E);
    return;
  }
  OP(set)(E, 0.0);
  for (int o = 0; o < AD_OP_SINGLE_COUNT; o++) {
    MFAD_FN(ad_ops_one)(o, u, p, &t);
    OP(add)(E, E, &t);
  }
}
#endif
