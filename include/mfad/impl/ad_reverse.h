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
MFAD_GEN_MODIFIERS void ADJ(muls)(T *aa, const T *g, double s)
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
MFAD_GEN_MODIFIERS void ADJ(chain1)(T *aa, const T *g, const T *a, double f, double df, double d2f)
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

/* r = sqrt(a): a += g / (2 r) */
MFAD_GEN_MODIFIERS void ADJ(sqrt)(T *aa, const T *g, const T *a)
{
  T r, q;
  OP(sqrt)(&r, a);
  OP(div)(&q, g, &r);
  ADJ(muls)(aa, &q, 0.5);
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
   the zero tangent is formed. Over double they are the rules above. */
/* a += g s, g a double */
MFAD_GEN_MODIFIERS void ADJ(accs)(T *a, double g, const T *s)
{
  T t;
  OP(muls)(&t, s, g);
  OP(add)(a, a, &t);
}
MFAD_GEN_MODIFIERS void ADJ(mul_s)(T *aa, T *ab, double g, const T *a, const T *b)
{
  ADJ(accs)(aa, g, b);
  ADJ(accs)(ab, g, a);
}
MFAD_GEN_MODIFIERS void ADJ(sqr_s)(T *aa, double g, const T *a) { ADJ(accs)(aa, 2.0 * g, a); }
MFAD_GEN_MODIFIERS void ADJ(div_s)(T *aa, T *ab, double g, const T *a, const T *b)
{
  T q, r, t;
  const double ib = 1.0 / OP(val)(b);
  OP(chain1)(&q, b, g * ib, -g * ib * ib, 0.0); /* g / b */
  OP(add)(aa, aa, &q);
  OP(div)(&r, a, b);
  OP(mul)(&t, &q, &r);
  OP(sub)(ab, ab, &t);
}
MFAD_GEN_MODIFIERS void ADJ(chain1_s)(T *aa, double g, const T *a, double f, double df, double d2f)
{
  T d;
  (void)f;
  OP(chain1)(&d, a, g * df, g * d2f, 0.0);
  OP(add)(aa, aa, &d);
}
MFAD_GEN_MODIFIERS void ADJ(dot3_s)(T *aa, T *ab, double g, const T *a, const T *b)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(mul_s)(&aa[i], &ab[i], g, &a[i], &b[i]);
}
MFAD_GEN_MODIFIERS void ADJ(frob2_s)(T *aA, double g, const T *A, int n)
{
  MFAD_UNROLL for (int i = 0; i < n; i++) ADJ(accs)(&aA[i], 2.0 * g, &A[i]);
}
MFAD_GEN_MODIFIERS void ADJ(det2_s)(T *aA, double g, const T *A)
{
  ADJ(accs)(&aA[0], g, &A[3]);
  ADJ(accs)(&aA[3], g, &A[0]);
  ADJ(accs)(&aA[1], -g, &A[2]);
  ADJ(accs)(&aA[2], -g, &A[1]);
}
MFAD_GEN_MODIFIERS void ADJ(det3_s)(T *aA, double g, const T *A)
{
  MFAD_UNROLL for (int i = 0; i < 3; i++) MFAD_UNROLL for (int j = 0; j < 3; j++)
  {
    T c;
    OP(cof3)(&c, A, i, j);
    ADJ(accs)(&aA[3 * i + j], g, &c);
  }
}
MFAD_GEN_MODIFIERS void ADJ(norm3_s)(T *aa, double g, const T *a)
{
  T r, q;
  OP(norm3)(&r, a);
  const double ir = 1.0 / OP(val)(&r);
  OP(chain1)(&q, &r, g * ir, -g * ir * ir, 0.0); /* g / r */
  MFAD_UNROLL for (int i = 0; i < 3; i++) ADJ(acc)(&aa[i], &q, &a[i]);
}
MFAD_GEN_MODIFIERS void ADJ(atan2_s)(T *ay, T *ax, double g, const T *y, const T *x)
{
  T x2, y2, d, q, t;
  OP(sqr)(&x2, x);
  OP(sqr)(&y2, y);
  OP(add)(&d, &x2, &y2);
  const double id = 1.0 / OP(val)(&d);
  OP(chain1)(&q, &d, g * id, -g * id * id, 0.0); /* g / (x^2 + y^2) */
  ADJ(acc)(ay, &q, x);
  OP(mul)(&t, &q, y);
  OP(sub)(ax, ax, &t);
}
MFAD_GEN_MODIFIERS void ADJ(sqrt_s)(T *aa, double g, const T *a)
{
  T r, q;
  OP(sqrt)(&r, a);
  const double ir = 1.0 / OP(val)(&r);
  OP(chain1)(&q, &r, 0.5 * g * ir, -0.5 * g * ir * ir, 0.0); /* g / (2 r) */
  OP(add)(aa, aa, &q);
}
