// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/ad_generic.h
  @brief Operations written once for every AD mode: elementary functions through the chain rule,
         small vector and matrix helpers. Included once per mode by mfad/impl/instantiate.h with
         T (the number type) and OP(name) (the mode's operation prefix) defined.

  Matrices are flat, row-major arrays (A[3 * i + j]); outputs never alias inputs.
  Functions named ...d take a constant (double) operand, which costs a fraction of a T x T op.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/ad_generic.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#if !defined(T) || !defined(OP)
#error "mfad/impl/ad_generic.h: define T and OP(name) first (mfad/impl/instantiate.h does)"
#endif

/* the passive number: double, or a vector of lanes (mfad/impl/ad_lanes.h) */
#ifndef MFAD_S
#define MFAD_S double
#endif
#ifndef MFAD_GEN_MODIFIERS
#if defined(MFAD_MODE_HOST_ONLY)
#define MFAD_GEN_MODIFIERS static inline
#else
#define MFAD_GEN_MODIFIERS MFAD_HD static inline
#endif
#endif

/* ---------------------------------------------------------------- elementary functions */
MFAD_GEN_MODIFIERS void OP(sqr)(T *r, const T *a) { OP(mul)(r, a, a); }
MFAD_GEN_MODIFIERS void OP(inv)(T *r, const T *a)
{
  const MFAD_S ia = 1.0 / OP(val)(a);
  OP(chain1)(r, a, ia, -ia * ia, 2.0 * ia * ia * ia);
}
MFAD_GEN_MODIFIERS void OP(sqrt)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), f = sqrt(av), df = 0.5 / f;
  OP(chain1)(r, a, f, df, -0.5 * df / av);
}
MFAD_GEN_MODIFIERS void OP(log)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), ia = 1.0 / av;
  OP(chain1)(r, a, log(av), ia, -ia * ia);
}
MFAD_GEN_MODIFIERS void OP(exp)(T *r, const T *a)
{
  const MFAD_S f = exp(OP(val)(a));
  OP(chain1)(r, a, f, f, f);
}
/* a^p for a constant exponent p */
MFAD_GEN_MODIFIERS void OP(pow)(T *r, const T *a, MFAD_S p)
{
  const MFAD_S av = OP(val)(a), f = pow(av, p);
  OP(chain1)(r, a, f, p * pow(av, p - 1.0), p * (p - 1.0) * pow(av, p - 2.0));
}
MFAD_GEN_MODIFIERS void OP(sin)(T *r, const T *a)
{
  const MFAD_S s = sin(OP(val)(a)), c = cos(OP(val)(a));
  OP(chain1)(r, a, s, c, -s);
}
MFAD_GEN_MODIFIERS void OP(cos)(T *r, const T *a)
{
  const MFAD_S s = sin(OP(val)(a)), c = cos(OP(val)(a));
  OP(chain1)(r, a, c, -s, -c);
}
/* |a|; at a = 0, where |a| has no derivative, the derivative taken is 0 (so is the second). The sign
   is the comparisons' truth values, on lanes as doubles (mfad/impl/ad_lanes.h: the same -1, 0, 1) */
#undef MFAD_SIGN
#if !defined(MFAD_LANES_PASS)
#define MFAD_SIGN(av) ((double)((av) > 0.0) - (double)((av) < 0.0))
#else
#define MFAD_SIGN(av) (mfad_vtruth(MFAD_VM((av) > 0.0)) - mfad_vtruth(MFAD_VM((av) < 0.0)))
#endif
MFAD_GEN_MODIFIERS void OP(fabs)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a);
  OP(chain1)(r, a, fabs(av), MFAD_SIGN(av), 0.0);
}
MFAD_GEN_MODIFIERS void OP(tanh)(T *r, const T *a)
{
  const MFAD_S f = tanh(OP(val)(a)), df = 1.0 - f * f;
  OP(chain1)(r, a, f, df, -2.0 * f * df);
}
MFAD_GEN_MODIFIERS void OP(tan)(T *r, const T *a)
{
  const MFAD_S f = tan(OP(val)(a)), df = 1.0 + f * f;
  OP(chain1)(r, a, f, df, 2.0 * f * df);
}
/* acos(a) for |a| < 1 (at |a| = 1 the derivatives are infinite) */
MFAD_GEN_MODIFIERS void OP(acos)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), s = 1.0 - av * av, df = -1.0 / sqrt(s);
  OP(chain1)(r, a, acos(av), df, df * av / s);
}
/* asin(a) for |a| < 1 (at |a| = 1 the derivatives are infinite) */
MFAD_GEN_MODIFIERS void OP(asin)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), s = 1.0 - av * av, df = 1.0 / sqrt(s);
  OP(chain1)(r, a, asin(av), df, df * av / s);
}
/* atan(a), one argument (atan2 below for two) */
MFAD_GEN_MODIFIERS void OP(atan)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), df = 1.0 / (1.0 + av * av);
  OP(chain1)(r, a, atan(av), df, -2.0 * av * df * df);
}
/* cube root, any sign of a; at a = 0 the derivatives are infinite, as sqrt's are: derivative
   lanes of a that are 0 become NaN (0 * inf) and the others inf, with no special case */
MFAD_GEN_MODIFIERS void OP(cbrt)(T *r, const T *a)
{
  const MFAD_S av = OP(val)(a), f = cbrt(av), df = 1.0 / (3.0 * f * f);
  OP(chain1)(r, a, f, df, -2.0 * df / (3.0 * av));
}
/* s^b for a constant base s > 0 and an active exponent b */
MFAD_GEN_MODIFIERS void OP(powd)(T *r, MFAD_S s, const T *b)
{
  const MFAD_S ls = log(s), f = pow(s, OP(val)(b));
  OP(chain1)(r, b, f, f * ls, f * ls * ls);
}
/* a^b, base and exponent both active, for a > 0 (the derivative in b is a^b log a) */
MFAD_GEN_MODIFIERS void OP(pow2)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b), ia = 1.0 / av, la = log(av), f = pow(av, bv), fa = bv * f * ia, fb = f * la;
  OP(chain2)(r, a, b, f, fa, fb, (bv - 1.0) * fa * ia, f * ia * (1.0 + bv * la), fb * la);
}
/* sqrt(a^2 + b^2) without overflow or underflow (C's hypot); not differentiable at a = b = 0, where
   its derivatives are NaN */
MFAD_GEN_MODIFIERS void OP(hypot)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b), h = hypot(av, bv), ih = 1.0 / h, fa = av * ih, fb = bv * ih;
  OP(chain2)(r, a, b, h, fa, fb, fb * fb * ih, -fa * fb * ih, fa * fa * ih);
}
/* r = the operand of smaller value, copied with its derivatives. On a tie (a = b, where fmin has
   no derivative) r is a, derivatives included; when one operand is NaN r is the other, as C's
   fmin (av != av: av is NaN). On lanes the same choice, lane by lane: a select of the two */
#if !defined(MFAD_LANES_PASS)
MFAD_GEN_MODIFIERS void OP(fmin)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  OP(copy)(r, (bv < av || av != av) ? b : a);
}
/* r = the operand of larger value, copied with its derivatives; a tie gives a, a NaN the other
   operand, as OP(fmin) */
MFAD_GEN_MODIFIERS void OP(fmax)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  OP(copy)(r, (bv > av || av != av) ? b : a);
}
#else
MFAD_GEN_MODIFIERS void OP(fmin)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  OP(select)(r, MFAD_VM(bv < av) | MFAD_VM(av != av), b, a);
}
MFAD_GEN_MODIFIERS void OP(fmax)(T *r, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  OP(select)(r, MFAD_VM(bv > av) | MFAD_VM(av != av), b, a);
}
#endif
/* atan2(y, x) */
MFAD_GEN_MODIFIERS void OP(atan2)(T *r, const T *y, const T *x)
{
  const MFAD_S yv = OP(val)(y), xv = OP(val)(x), r2 = xv * xv + yv * yv, i2 = 1.0 / r2, i4 = i2 * i2;
  OP(chain2)(r, y, x, atan2(yv, xv), xv * i2, -yv * i2, -2.0 * xv * yv * i4, (yv * yv - xv * xv) * i4, 2.0 * xv * yv * i4);
}
/* r = a * b + c */
MFAD_GEN_MODIFIERS void OP(fma)(T *r, const T *a, const T *b, const T *c)
{
  T t;
  OP(mul)(&t, a, b);
  OP(add)(r, &t, c);
}

/* ---------------------------------------------------------------- 3-vectors */
MFAD_GEN_MODIFIERS void OP(sub3)(T *r, const T *a, const T *b)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) OP(sub)(&r[i], &a[i], &b[i]);
}
MFAD_GEN_MODIFIERS void OP(dot3)(T *r, const T *a, const T *b)
{
  T t;
  OP(mul)(r, &a[0], &b[0]);
  OP(mul)(&t, &a[1], &b[1]);
  OP(add)(r, r, &t);
  OP(mul)(&t, &a[2], &b[2]);
  OP(add)(r, r, &t);
}
MFAD_GEN_MODIFIERS void OP(cross3)(T *r, const T *a, const T *b)
{
  T s, t;
  MFAD_UNROLL for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    OP(mul)(&s, &a[j], &b[k]);
    OP(mul)(&t, &a[k], &b[j]);
    OP(sub)(&r[i], &s, &t);
  }
}
MFAD_GEN_MODIFIERS void OP(norm3)(T *r, const T *a)
{
  T s;
  OP(dot3)(&s, a, a);
  OP(sqrt)(r, &s);
}

/* ---------------------------------------------------------------- small matrices */
/* squared Frobenius norm of an n-entry array */
MFAD_GEN_MODIFIERS void OP(frob2)(T *r, const T *A, int n)
{
  T t;
  OP(mul)(r, &A[0], &A[0]);
  MFAD_UNROLL for (int i = 1; i < n; i++) {
    OP(mul)(&t, &A[i], &A[i]);
    OP(add)(r, r, &t);
  }
}
MFAD_GEN_MODIFIERS void OP(det2)(T *r, const T *A)
{
  T t;
  OP(mul)(r, &A[0], &A[3]);
  OP(mul)(&t, &A[1], &A[2]);
  OP(sub)(r, r, &t);
}
/* c = the cofactor (i, j) of the 3x3 matrix A: d det(A) / d A[i j] */
MFAD_GEN_MODIFIERS void OP(cof3)(T *c, const T *A, int i, int j)
{
  const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
  T         t;
  OP(mul)(c, &A[3 * i1 + j1], &A[3 * i2 + j2]);
  OP(mul)(&t, &A[3 * i1 + j2], &A[3 * i2 + j1]);
  OP(sub)(c, c, &t);
}
MFAD_GEN_MODIFIERS void OP(det3)(T *r, const T *A)
{
  T c[3];
  MFAD_UNROLL for (int j = 0; j < 3; j++) OP(cof3)(&c[j], A, 0, j); /* along row 0 */
  OP(dot3)(r, A, c);
}
/* Ai = A^{-1}; det (may be NULL) receives det(A). */
MFAD_GEN_MODIFIERS void OP(inv2)(T *Ai, T *det, const T *A)
{
  T d, id;
  OP(det2)(&d, A);
  OP(inv)(&id, &d);
  OP(mul)(&Ai[0], &A[3], &id);
  OP(mul)(&Ai[3], &A[0], &id);
  OP(mul)(&Ai[1], &A[1], &id);
  OP(neg)(&Ai[1], &Ai[1]);
  OP(mul)(&Ai[2], &A[2], &id);
  OP(neg)(&Ai[2], &Ai[2]);
  if (det) OP(copy)(det, &d);
}
MFAD_GEN_MODIFIERS void OP(inv3)(T *Ai, T *det, const T *A)
{
  T d, id, s, t;
  MFAD_UNROLL for (int i = 0; i < 3; i++) {
    MFAD_UNROLL for (int j = 0; j < 3; j++) { /* Ai[j][i] = cofactor(i, j) */
      const int i1 = (i + 1) % 3, i2 = (i + 2) % 3, j1 = (j + 1) % 3, j2 = (j + 2) % 3;
      OP(mul)(&s, &A[3 * i1 + j1], &A[3 * i2 + j2]);
      OP(mul)(&t, &A[3 * i1 + j2], &A[3 * i2 + j1]);
      OP(sub)(&Ai[3 * j + i], &s, &t);
    }
  }
  OP(mul)(&d, &A[0], &Ai[0]);
  OP(mul)(&t, &A[1], &Ai[3]);
  OP(add)(&d, &d, &t);
  OP(mul)(&t, &A[2], &Ai[6]);
  OP(add)(&d, &d, &t);
  OP(inv)(&id, &d);
  MFAD_UNROLL for (int k = 0; k < 9; k++) OP(mul)(&Ai[k], &Ai[k], &id);
  if (det) OP(copy)(det, &d);
}
/* C = A B, all n x n (n = 2 or 3) */
MFAD_GEN_MODIFIERS void OP(matmul)(T *C, const T *A, const T *B, int n)
{
  T t;
  MFAD_UNROLL for (int i = 0; i < n; i++)
    MFAD_UNROLL for (int j = 0; j < n; j++)
    {
      OP(mul)(&C[n * i + j], &A[n * i], &B[j]);
      MFAD_UNROLL for (int k = 1; k < n; k++) {
        OP(mul)(&t, &A[n * i + k], &B[n * k + j]);
        OP(add)(&C[n * i + j], &C[n * i + j], &t);
      }
    }
}
/* C = A^T B, all n x n */
MFAD_GEN_MODIFIERS void OP(tmatmul)(T *C, const T *A, const T *B, int n)
{
  T t;
  MFAD_UNROLL for (int i = 0; i < n; i++)
    MFAD_UNROLL for (int j = 0; j < n; j++)
    {
      OP(mul)(&C[n * i + j], &A[i], &B[j]);
      MFAD_UNROLL for (int k = 1; k < n; k++) {
        OP(mul)(&t, &A[n * k + i], &B[n * k + j]);
        OP(add)(&C[n * i + j], &C[n * i + j], &t);
      }
    }
}
/* C = A B with B constant (e.g. F = Ds Dm^{-1}), all n x n. On lanes B is the parameters' lane vectors
   (mfad-energy takes no other table there: tools/mfad_energy/lanes.py) */
#if !defined(MFAD_LANES_PASS)
MFAD_GEN_MODIFIERS void OP(matmuld)(T *C, const T *A, const double *B, int n)
#else
MFAD_GEN_MODIFIERS void OP(matmuld)(T *C, const T *A, const MFAD_S *B, int n)
#endif
{
  T t;
  MFAD_UNROLL for (int i = 0; i < n; i++)
    MFAD_UNROLL for (int j = 0; j < n; j++)
    {
      OP(muls)(&C[n * i + j], &A[n * i], B[j]);
      MFAD_UNROLL for (int k = 1; k < n; k++) {
        OP(muls)(&t, &A[n * i + k], B[n * k + j]);
        OP(add)(&C[n * i + j], &C[n * i + j], &t);
      }
    }
}
