// SPDX-License-Identifier: BSD-2-Clause
/* Test energy every_op: each op of mfad/impl/ad_generic.h that has an adjoint rule, applied to a
   differentiated value of two or more unknowns (so that the translator emits the op itself, not a
   fused chain rule at one unknown), without features: test_reverse compares its reverse mode at
   the unknowns with forward over forward. Each op appears twice: once summed into E (its result's
   adjoint has a zero tangent: the ADJ(op_s) rules) and once inside a square (the ADJ(op) rules).
   Arguments are kept inside each function's domain on test_reverse's trial points (|x| < 2). */
#include <math.h>
#include <mfad/energy.h>

/* the terms at shift k, into r (a macro: written out twice in the body, each op then has its own
   result whose adjoint the translator classifies) */
#define EVERY_OP_TERMS(r, k) \
  { \
    const double a = x[0] * x[1] + k, b = x[2] * x[3] + k, c = x[4] * x[5] + k, d = x[6] * x[7] + k, e = x[8] * x[9] + k; \
    double       A[4], Ai[4], B[9], F[9], Fi[9]; \
    A[0]            = 2.0 + a * b; \
    A[1]            = c * d; \
    A[2]            = d * e; \
    A[3]            = 2.0 + e * a; \
    const double d2 = mfad_inv2(Ai, A); \
    for (int i = 0; i < 9; i++) B[i] = (i % 4 == 0 ? 1.5 : 0.0) + 0.2 * x[i] * x[i + 3]; \
    mfad_matmul(F, B, p, 3); \
    const double d3 = mfad_inv3(Fi, F); \
    r = exp(0.5 * a * b) + log(1.0 + b * c * b) + sin(c * d) + cos(d * e) + tan(0.3 * e * a) + asin(0.4 * tanh(a * b)) + acos(0.3 * sin(c * d)) + \
        atan(d * e) + tanh(e * a) + cbrt(2.0 + a * c) + fabs(b * d - 0.05) + 1.0 / (1.5 + c * d) + pow(2.0 + d * e, 1.7) + pow(p[0], 0.3 * e * b) + \
        pow(1.5 + a * a, 0.5 + b * c) + hypot(c * d, 0.3 + e * e) + fmin(a * b, c * d) + fmax(d * e, a * c) + d2 + Ai[1] * Ai[2] + d3 + \
        mfad_frob2(Fi, 9); \
  }

static double every_op(const double x[12], const double p[9])
{
  double s, t;
  EVERY_OP_TERMS(s, 0.0)
  EVERY_OP_TERMS(t, 0.1)
  return s + 1e-2 * t * t;
}

const MfadEnergyInfo every_op_info = {.vertices = 4, .dof = 3, .params = 9, .energy = every_op, .reverse = MFAD_REVERSE_REQUIRED};
