// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/ad_reverse.h
  @brief The adjoint rules of the operations, generic over the number type T: included once per
         reverse pass with T, OP(f) and ADJ(f) defined (mfad/impl/instantiate.h).

  mfad-energy writes an energy's reverse body (MFAD_ENERGY_REV_BODY) as its forward operations
  on T followed by ADJ(op) for each of them in the opposite order. ADJ(op) receives the
  adjoints of the op's number inputs (accumulated: += ), the adjoint g of its result, and copies
  of the inputs it reads, as they were when it ran. Over T = double the sweep is the gradient; over
  T = mfad_dual, numbers (value, tangent along v), the adjoints are dual numbers too and the
  tangent of the input's adjoint is the Hessian-vector product H v (forward-over-reverse).
  Every rule is written with T's own operations, so the dual products carry the tangents.
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/ad_reverse.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_S
#define MFAD_S double
#endif
#ifndef MFAD_SIGN /* sign(a) as -1, 0, 1 (mfad/impl/ad_generic.h defines it per pass) */
#define MFAD_SIGN(av) ((double)((av) > 0.0) - (double)((av) < 0.0))
#endif
#ifndef MFAD_SC /* a constant as a passive number (a broadcast on lanes) */
#define MFAD_SC(c) (c)
#endif
/* a += g s, s a number */
MFAD_GEN_MODIFIERS void ADJ(acc)(T *a, const T *g, const T *s)
{
  T t;
  OP(mul)(&t, g, s);
  OP(add)(a, a, &t);
}
/* The linear rules read no input: they take the adjoints alone (and muls its factor). */
MFAD_GEN_MODIFIERS void ADJ(copy)(T *aa, const T *g) { OP(add)(aa, aa, g); }
MFAD_GEN_MODIFIERS void ADJ(neg)(T *aa, const T *g) { OP(sub)(aa, aa, g); }
MFAD_GEN_MODIFIERS void ADJ(add)(T *aa, T *ab, const T *g)
{
  OP(add)(aa, aa, g);
  OP(add)(ab, ab, g);
}
MFAD_GEN_MODIFIERS void ADJ(sub)(T *aa, T *ab, const T *g)
{
  OP(add)(aa, aa, g);
  OP(sub)(ab, ab, g);
}
MFAD_GEN_MODIFIERS void ADJ(adds)(T *aa, const T *g) { OP(add)(aa, aa, g); }
MFAD_GEN_MODIFIERS void ADJ(muls)(T *aa, const T *g, MFAD_S s)
{
  T t;
  OP(muls)(&t, g, s);
  OP(add)(aa, aa, &t);
}
MFAD_GEN_MODIFIERS void ADJ(mul)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  ADJ(acc)(aa, g, b);
  ADJ(acc)(ab, g, a);
}
MFAD_GEN_MODIFIERS void ADJ(sqr)(T *aa, const T *g, const T *a)
{
  T t;
  OP(muls)(&t, a, 2.0);
  ADJ(acc)(aa, g, &t);
}
/* r = a / b: a += g / b, b -= g r / b */
MFAD_GEN_MODIFIERS void ADJ(div)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  T q, r, t;
  OP(div)(&q, g, b);
  OP(add)(aa, aa, &q);
  OP(div)(&r, a, b);
  OP(mul)(&t, &q, &r);
  OP(sub)(ab, ab, &t);
}
/* r = f(a): a += g f'(a); over dual numbers f'(a) is the number (f'(a), f''(a) a') */
MFAD_GEN_MODIFIERS void ADJ(chain1)(T *aa, const T *g, const T *a, MFAD_S f, MFAD_S df, MFAD_S d2f)
{
  T d;
  (void)f;
  OP(chain1)(&d, a, df, d2f, 0.0);
  ADJ(acc)(aa, g, &d);
}
MFAD_GEN_MODIFIERS void ADJ(dot3)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(mul)(&aa[i], &ab[i], g, &a[i], &b[i]);
}
MFAD_GEN_MODIFIERS void ADJ(frob2)(T *aA, const T *g, const T *A, int n)
{
  T g2;
  OP(muls)(&g2, g, 2.0);
  MFAD_UNROLL for (int i = 0; i < n; i++) ADJ(acc)(&aA[i], &g2, &A[i]);
}
MFAD_GEN_MODIFIERS void ADJ(det2)(T *aA, const T *g, const T *A)
{
  T m;
  ADJ(acc)(&aA[0], g, &A[3]);
  ADJ(acc)(&aA[3], g, &A[0]);
  OP(neg)(&m, g);
  ADJ(acc)(&aA[1], &m, &A[2]);
  ADJ(acc)(&aA[2], &m, &A[1]);
}
/* d det(A) / dA is the cofactor matrix */
MFAD_GEN_MODIFIERS void ADJ(det3)(T *aA, const T *g, const T *A)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++)
  {
    T c;
    OP(cof3)(&c, A, i, j);
    ADJ(acc)(&aA[3 * i + j], g, &c);
  }
}
/* C = A^T B (n x n): A[k i] += g[i j] B[k j], B[k j] += g[i j] A[k i] */
MFAD_GEN_MODIFIERS void ADJ(tmatmul)(T *aA, T *aB, const T *g, const T *A, const T *B, int n)
{
  MFAD_UNROLL for (int i = 0; i < n; i++) MFAD_UNROLL for (int j = 0; j < n; j++) MFAD_UNROLL for (int k = 0; k < n; k++)
  {
    ADJ(acc)(&aA[n * k + i], &g[n * i + j], &B[n * k + j]);
    ADJ(acc)(&aB[n * k + j], &g[n * i + j], &A[n * k + i]);
  }
}
/* Ai = A^-1 and d = det A (n x n, n = 2 or 3), with g the adjoint of Ai and *ad that of d (taken
   and cleared): A += -Ai^T g Ai^T + (*ad) d Ai^T, since dAi = -Ai dA Ai and dd = d tr(Ai dA) */
MFAD_GEN_MODIFIERS void ADJ(invn)(T *aA, const T *g, T *ad, const T *Ai, const T *d, int n)
{
  T w[9], s, t;
  MFAD_UNROLL for (int i = 0; i < n; i++) MFAD_UNROLL for (int l = 0; l < n; l++)
  { /* w = g Ai^T */
    OP(mul)(&w[n * i + l], &g[n * i], &Ai[n * l]);
    MFAD_UNROLL for (int j = 1; j < n; j++) ADJ(acc)(&w[n * i + l], &g[n * i + j], &Ai[n * l + j]);
  }
  OP(mul)(&s, ad, d);
  OP(zero)(ad);
  MFAD_UNROLL for (int k = 0; k < n; k++) MFAD_UNROLL for (int l = 0; l < n; l++)
  {
    OP(mul)(&t, &s, &Ai[n * l + k]);
    MFAD_UNROLL for (int i = 0; i < n; i++) /* t -= (Ai^T w)[k l] */
    {
      T u;
      OP(mul)(&u, &Ai[n * i + k], &w[n * i + l]);
      OP(sub)(&t, &t, &u);
    }
    OP(add)(&aA[n * k + l], &aA[n * k + l], &t);
  }
}
MFAD_GEN_MODIFIERS void ADJ(inv2)(T *aA, const T *g, T *ad, const T *A)
{
  T Ai[4], d;
  OP(inv2)(Ai, &d, A);
  ADJ(invn)(aA, g, ad, Ai, &d, 2);
}
MFAD_GEN_MODIFIERS void ADJ(inv3)(T *aA, const T *g, T *ad, const T *A)
{
  T Ai[9], d;
  OP(inv3)(Ai, &d, A);
  ADJ(invn)(aA, g, ad, Ai, &d, 3);
}
/* C = A B with B constant (n x n): A[i k] += g[i j] B[k j] (on lanes B is the parameters' lane vectors) */
MFAD_GEN_MODIFIERS void ADJ(matmuld)(T *aA, const T *g, const MFAD_S *B, int n)
{
  MFAD_UNROLL for (int i = 0; i < n; i++) MFAD_UNROLL for (int k = 0; k < n; k++)
  {
    T s, t;
    OP(muls)(&s, &g[n * i], B[n * k]);
    MFAD_UNROLL for (int j = 1; j < n; j++)
    {
      OP(muls)(&t, &g[n * i + j], B[n * k + j]);
      OP(add)(&s, &s, &t);
    }
    OP(add)(&aA[n * i + k], &aA[n * i + k], &s);
  }
}

/* r = sqrt(a): a += g / (2 r) */
MFAD_GEN_MODIFIERS void ADJ(sqrt)(T *aa, const T *g, const T *a)
{
  T r, q;
  OP(sqrt)(&r, a);
  OP(div)(&q, g, &r);
  ADJ(muls)(aa, &q, MFAD_SC(0.5));
}
/* r = a x b: a += b x g, b += g x a (d(a x b) . g = da . (b x g) + db . (g x a)) */
MFAD_GEN_MODIFIERS void ADJ(cross3)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  T ta[3], tb[3];
  OP(cross3)(ta, b, g);
  OP(cross3)(tb, g, a);
  MFAD_UNROLL for (int i = 0; i < 3; i++)
  {
    OP(add)(&aa[i], &aa[i], &ta[i]);
    OP(add)(&ab[i], &ab[i], &tb[i]);
  }
}
/* r = |a|: a += (g / r) a */
MFAD_GEN_MODIFIERS void ADJ(norm3)(T *aa, const T *g, const T *a)
{
  T r, q;
  OP(norm3)(&r, a);
  OP(div)(&q, g, &r);
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(acc)(&aa[i], &q, &a[i]);
}
/* r = atan2(y, x): y += g x / (x^2 + y^2), x -= g y / (x^2 + y^2) */
MFAD_GEN_MODIFIERS void ADJ(atan2)(T *ay, T *ax, const T *g, const T *y, const T *x)
{
  T x2, y2, d, q, t;
  OP(sqr)(&x2, x);
  OP(sqr)(&y2, y);
  OP(add)(&d, &x2, &y2);
  OP(div)(&q, g, &d);
  ADJ(acc)(ay, &q, x);
  OP(mul)(&t, &q, y);
  OP(sub)(ax, ax, &t);
}

/* The rules for a result adjoint g whose tangent is zero (reached from the energy's seed through
   linear operations only; mfad-energy finds them): g passed as its value, so that no product with
   the zero tangent is formed. Over MFAD_S they are the rules above. */
/* a += g s, g a MFAD_S */
MFAD_GEN_MODIFIERS void ADJ(accs)(T *a, MFAD_S g, const T *s)
{
  T t;
  OP(muls)(&t, s, g);
  OP(add)(a, a, &t);
}
MFAD_GEN_MODIFIERS void ADJ(mul_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  ADJ(accs)(aa, g, b);
  ADJ(accs)(ab, g, a);
}
MFAD_GEN_MODIFIERS void ADJ(sqr_s)(T *aa, MFAD_S g, const T *a) { ADJ(accs)(aa, 2.0 * g, a); }
MFAD_GEN_MODIFIERS void ADJ(div_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  T q, r, t;
  const MFAD_S ib = 1.0 / OP(val)(b);
  OP(chain1)(&q, b, g * ib, -g * ib * ib, 0.0); /* g / b */
  OP(add)(aa, aa, &q);
  OP(div)(&r, a, b);
  OP(mul)(&t, &q, &r);
  OP(sub)(ab, ab, &t);
}
MFAD_GEN_MODIFIERS void ADJ(chain1_s)(T *aa, MFAD_S g, const T *a, MFAD_S f, MFAD_S df, MFAD_S d2f)
{
  T d;
  (void)f;
  OP(chain1)(&d, a, g * df, g * d2f, 0.0);
  OP(add)(aa, aa, &d);
}
MFAD_GEN_MODIFIERS void ADJ(dot3_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(mul_s)(&aa[i], &ab[i], g, &a[i], &b[i]);
}
MFAD_GEN_MODIFIERS void ADJ(frob2_s)(T *aA, MFAD_S g, const T *A, int n)
{
  MFAD_UNROLL for (int i = 0; i < n; i++) ADJ(accs)(&aA[i], 2.0 * g, &A[i]);
}
MFAD_GEN_MODIFIERS void ADJ(det2_s)(T *aA, MFAD_S g, const T *A)
{
  ADJ(accs)(&aA[0], g, &A[3]);
  ADJ(accs)(&aA[3], g, &A[0]);
  ADJ(accs)(&aA[1], -g, &A[2]);
  ADJ(accs)(&aA[2], -g, &A[1]);
}
MFAD_GEN_MODIFIERS void ADJ(det3_s)(T *aA, MFAD_S g, const T *A)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++)
  {
    T c;
    OP(cof3)(&c, A, i, j);
    ADJ(accs)(&aA[3 * i + j], g, &c);
  }
}
MFAD_GEN_MODIFIERS void ADJ(norm3_s)(T *aa, MFAD_S g, const T *a)
{
  T r, q;
  OP(norm3)(&r, a);
  const MFAD_S ir = 1.0 / OP(val)(&r);
  OP(chain1)(&q, &r, g * ir, -g * ir * ir, 0.0); /* g / r */
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(acc)(&aa[i], &q, &a[i]);
}
MFAD_GEN_MODIFIERS void ADJ(atan2_s)(T *ay, T *ax, MFAD_S g, const T *y, const T *x)
{
  T x2, y2, d, q, t;
  OP(sqr)(&x2, x);
  OP(sqr)(&y2, y);
  OP(add)(&d, &x2, &y2);
  const MFAD_S id = 1.0 / OP(val)(&d);
  OP(chain1)(&q, &d, g * id, -g * id * id, 0.0); /* g / (x^2 + y^2) */
  ADJ(acc)(ay, &q, x);
  OP(mul)(&t, &q, y);
  OP(sub)(ax, ax, &t);
}
MFAD_GEN_MODIFIERS void ADJ(sqrt_s)(T *aa, MFAD_S g, const T *a)
{
  T r, q;
  OP(sqrt)(&r, a);
  const MFAD_S ir = 1.0 / OP(val)(&r);
  OP(chain1)(&q, &r, 0.5 * g * ir, -0.5 * g * ir * ir, 0.0); /* g / (2 r) */
  OP(add)(aa, aa, &q);
}

/* Two-argument ops defined by OP(chain2) from their jet (f, fa, fb, faa, fab, fbb): a += g fa(a, b),
   b += g fb(a, b), each partial a number whose own derivatives are the second partials */
MFAD_GEN_MODIFIERS void ADJ(chain2)(T *aa, T *ab, const T *g, const T *a, const T *b, MFAD_S f, MFAD_S fa, MFAD_S fb, MFAD_S faa, MFAD_S fab,
                                    MFAD_S fbb)
{
  T d;
  (void)f;
  OP(chain2)(&d, a, b, fa, faa, fab, 0.0, 0.0, 0.0);
  ADJ(acc)(aa, g, &d);
  OP(chain2)(&d, a, b, fb, fab, fbb, 0.0, 0.0, 0.0);
  ADJ(acc)(ab, g, &d);
}
MFAD_GEN_MODIFIERS void ADJ(chain2_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b, MFAD_S f, MFAD_S fa, MFAD_S fb, MFAD_S faa, MFAD_S fab,
                                      MFAD_S fbb)
{
  T d;
  (void)f;
  OP(chain2)(&d, a, b, g * fa, g * faa, g * fab, 0.0, 0.0, 0.0);
  OP(add)(aa, aa, &d);
  OP(chain2)(&d, a, b, g * fb, g * fab, g * fbb, 0.0, 0.0, 0.0);
  OP(add)(ab, ab, &d);
}
/* The univariate ops of mfad/impl/ad_generic.h, each r = f(a) by OP(chain1) with f' and f'' at a's
   value av: their rules are chain1's at that jet, over g a number and (the _s form) over g a MFAD_S */
#ifndef MFAD_ADJ_UNIVARIATE
#define MFAD_ADJ_UNIVARIATE(name, jet) \
  MFAD_GEN_MODIFIERS void ADJ(name)(T * aa, const T *g, const T *a) \
  { \
    const MFAD_S av = OP(val)(a); \
    MFAD_S       d1, d2; \
    jet; \
    ADJ(chain1)(aa, g, a, av, d1, d2); \
  } \
  MFAD_GEN_MODIFIERS void ADJ(name##_s)(T * aa, MFAD_S g, const T *a) \
  { \
    const MFAD_S av = OP(val)(a); \
    MFAD_S       d1, d2; \
    jet; \
    ADJ(chain1_s)(aa, g, a, av, d1, d2); \
  }
#endif
MFAD_ADJ_UNIVARIATE(exp, d1 = exp(av); d2 = d1)
MFAD_ADJ_UNIVARIATE(log, d1 = 1.0 / av; d2 = -d1 * d1)
MFAD_ADJ_UNIVARIATE(sin, d1 = cos(av); d2 = -sin(av))
MFAD_ADJ_UNIVARIATE(cos, d1 = -sin(av); d2 = -cos(av))
MFAD_ADJ_UNIVARIATE(tan, const MFAD_S t = tan(av); d1 = 1.0 + t * t; d2 = 2.0 * t * d1)
MFAD_ADJ_UNIVARIATE(asin, const MFAD_S q = 1.0 / sqrt(1.0 - av * av); d1 = q; d2 = av * q * q * q)
MFAD_ADJ_UNIVARIATE(acos, const MFAD_S q = 1.0 / sqrt(1.0 - av * av); d1 = -q; d2 = -av * q * q * q)
MFAD_ADJ_UNIVARIATE(atan, const MFAD_S q = 1.0 / (1.0 + av * av); d1 = q; d2 = -2.0 * av * q * q)
MFAD_ADJ_UNIVARIATE(tanh, const MFAD_S t = tanh(av); d1 = 1.0 - t * t; d2 = -2.0 * t * d1)
MFAD_ADJ_UNIVARIATE(cbrt, const MFAD_S f = cbrt(av); d1 = 1.0 / (3.0 * f * f); d2 = -2.0 * d1 / (3.0 * av))
MFAD_ADJ_UNIVARIATE(fabs, d1 = MFAD_SIGN(av); d2 = MFAD_SC(0.0))
MFAD_ADJ_UNIVARIATE(inv, const MFAD_S ia = 1.0 / av; d1 = -ia * ia; d2 = -2.0 * d1 * ia)
/* r = a^p, p a MFAD_S */
MFAD_GEN_MODIFIERS void ADJ(pow)(T *aa, const T *g, const T *a, MFAD_S p)
{
  const MFAD_S av = OP(val)(a);
  ADJ(chain1)(aa, g, a, av, p * pow(av, p - 1.0), p * (p - 1.0) * pow(av, p - 2.0));
}
MFAD_GEN_MODIFIERS void ADJ(pow_s)(T *aa, MFAD_S g, const T *a, MFAD_S p)
{
  const MFAD_S av = OP(val)(a);
  ADJ(chain1_s)(aa, g, a, av, p * pow(av, p - 1.0), p * (p - 1.0) * pow(av, p - 2.0));
}
/* r = s^b, s a MFAD_S */
MFAD_GEN_MODIFIERS void ADJ(powd)(T *ab, const T *g, MFAD_S s, const T *b)
{
  const MFAD_S ls = log(s), f = pow(s, OP(val)(b));
  ADJ(chain1)(ab, g, b, f, f * ls, f * ls * ls);
}
MFAD_GEN_MODIFIERS void ADJ(powd_s)(T *ab, MFAD_S g, MFAD_S s, const T *b)
{
  const MFAD_S ls = log(s), f = pow(s, OP(val)(b));
  ADJ(chain1_s)(ab, g, b, f, f * ls, f * ls * ls);
}
/* the jets of OP(pow2) and OP(hypot) (mfad/impl/ad_generic.h), then chain2's rules */
#ifndef MFAD_ADJ_POW2_JET
#define MFAD_ADJ_POW2_JET \
  const MFAD_S av = OP(val)(a), bv = OP(val)(b), ia = 1.0 / av, la = log(av), f = pow(av, bv), fa = bv * f * ia, fb = f * la; \
  const MFAD_S faa = (bv - 1.0) * fa * ia, fab = f * ia * (1.0 + bv * la), fbb = fb * la
#define MFAD_ADJ_HYPOT_JET \
  const MFAD_S av = OP(val)(a), bv = OP(val)(b), h = hypot(av, bv), ih = 1.0 / h, fa = av * ih, fb = bv * ih; \
  const MFAD_S faa = fb * fb * ih, fab = -fa * fb * ih, fbb = fa * fa * ih
#endif
MFAD_GEN_MODIFIERS void ADJ(pow2)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  MFAD_ADJ_POW2_JET;
  ADJ(chain2)(aa, ab, g, a, b, f, fa, fb, faa, fab, fbb);
}
MFAD_GEN_MODIFIERS void ADJ(pow2_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  MFAD_ADJ_POW2_JET;
  ADJ(chain2_s)(aa, ab, g, a, b, f, fa, fb, faa, fab, fbb);
}
MFAD_GEN_MODIFIERS void ADJ(hypot)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  MFAD_ADJ_HYPOT_JET;
  ADJ(chain2)(aa, ab, g, a, b, h, fa, fb, faa, fab, fbb);
}
MFAD_GEN_MODIFIERS void ADJ(hypot_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  MFAD_ADJ_HYPOT_JET;
  ADJ(chain2_s)(aa, ab, g, a, b, h, fa, fb, faa, fab, fbb);
}
/* r = the operand OP(fmin)/OP(fmax) copied (the same choice, ties and NaN included): g goes to it; on
   lanes, to each lane's (a select of the adjoint with g added and the adjoint as it was; aa may be ab) */
#if !defined(MFAD_LANES_PASS)
MFAD_GEN_MODIFIERS void ADJ(fmin)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  T           *r = (bv < av || av != av) ? ab : aa;
  OP(add)(r, r, g);
}
MFAD_GEN_MODIFIERS void ADJ(fmin_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  T           *r = (bv < av || av != av) ? ab : aa;
  OP(adds)(r, r, g);
}
MFAD_GEN_MODIFIERS void ADJ(fmax)(T *aa, T *ab, const T *g, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  T           *r = (bv > av || av != av) ? ab : aa;
  OP(add)(r, r, g);
}
MFAD_GEN_MODIFIERS void ADJ(fmax_s)(T *aa, T *ab, MFAD_S g, const T *a, const T *b)
{
  const MFAD_S av = OP(val)(a), bv = OP(val)(b);
  T           *r = (bv > av || av != av) ? ab : aa;
  OP(adds)(r, r, g);
}
#else
#define MFAD_ADJ_SELECT(name, cmp, add, G) \
  MFAD_GEN_MODIFIERS void ADJ(name)(T * aa, T * ab, G g, const T *a, const T *b) \
  { \
    const MFAD_S  av = OP(val)(a), bv = OP(val)(b); \
    const mfad_vm m = MFAD_VM(bv cmp av) | MFAD_VM(av != av); /* the lanes where g goes to b */ \
    T             s; \
    OP(add)(&s, ab, g); \
    OP(select)(ab, m, &s, ab); \
    OP(add)(&s, aa, g); \
    OP(select)(aa, m, aa, &s); \
  }
MFAD_ADJ_SELECT(fmin, <, add, const T *)
MFAD_ADJ_SELECT(fmin_s, <, adds, MFAD_S)
MFAD_ADJ_SELECT(fmax, >, add, const T *)
MFAD_ADJ_SELECT(fmax_s, >, adds, MFAD_S)
#undef MFAD_ADJ_SELECT
#endif
