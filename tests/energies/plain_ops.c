// SPDX-License-Identifier: BSD-2-Clause
/* Test energy plain_ops: every construct and math.h function mfad-energy differentiates, in plain
   C, on 4 vertices x 2 dofs (N = 8). The translator evaluates a subexpression of one unknown as one
   chain rule in double (jet) and everything else operation by operation: each function appears in
   both forms. tests/test_plain.c checks every mode against finite differences and each other. */
#include <mfad/energy.h>

/* a helper of differentiated scalars, assigned to its own parameter */
static double softabs(double a, double eps)
{
  a = a * a + eps * eps;
  return sqrt(a);
}

/* a helper with an array output, called with whole arrays and sub-arrays */
static void rotate(double r[2], const double v[2], double c, double s)
{
  r[0] = c * v[0] - s * v[1];
  r[1] = s * v[0] + c * v[1];
}

static double plain_ops(const double x[8], const double p[3])
{
  const double a = x[0], b = x[1], c = x[2], d = x[3];
  double       M[2][2] = {{x[4], x[5]}, {x[6], x[7]}};
  double       r[2], v[2] = {a, b}, s = 0.0;
  /* one unknown per subexpression: the jet path */
  s += tanh(a) + fabs(b) + acos(0.5 * c) + asin(0.4 * d) + tan(0.5 * a) + atan(b) + cbrt(c + 3.0);
  s += sqrt(c + 2.0) * log(d + 2.0) / (1.0 + exp(0.3 * d)) + sin(a) * cos(a) + pow(b + 2.0, 1.5) - 2.0 / (c + 3.0);
  /* a term times itself, (k u) u: one product-rule term taken twice */
  s += 0.7 * log(b + 3.0) * log(b + 3.0) + 0.3 * sin(c) * sin(c) / 2.0;
  /* several unknowns: one operation at a time */
  s += tanh(a * b) + fabs(c - d) + acos(0.3 * (a + b)) + asin(0.3 * (c - d)) + tan(0.2 * (a + d)) + atan(a * c) + cbrt(a + b + 4.0);
  s += hypot(a, c) + fmin(a, b) * fmax(c, d) + pow(b * b + 1.0, c) + pow(p[2], a * d) + atan2(c + 2.0, d + 2.0);
  /* control flow on values, loops with constant bounds, a 2-D local array */
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++) s += (i == j ? p[0] : p[1]) * M[i][j] * M[j][i];
  if (a * b > 0.0) s += a * b * c;
  else s -= 0.5 * a * b * d;
  rotate(r, v, cos(c), sin(c));
  s += r[0] * r[1] * p[0] + softabs(a - d, 0.1) * p[1];
  /* sub-arrays (&x[i]) to a helper, and a negated sum */
  rotate(r, &x[6], a, b);
  s += mfad_dot3(&x[1], &x[5]) * p[2] - (r[0] * c + r[1]);
  /* sqrt(2 + a^2) by Newton's method on values (mfad_value), then two steps with derivatives,
     which make the first and second derivatives exact */
  const double q  = 2.0 + a * a;
  double       q0 = 1.5;
  for (int it = 0; it < 60; it++) q0 = 0.5 * (q0 + mfad_value(q) / q0);
  double rq = q0;
  for (int it = 0; it < 2; it++) rq = 0.5 * (rq + q / rq);
  s += rq * p[0];
  s *= 1.0 + 0.1 * d;
  return s > 1e6 ? INFINITY : s;
}

/* forward over forward by choice: its arrays of arrays (a case of this test) have no adjoint sweep */
const MfadEnergyInfo plain_ops_info = {.vertices = 4, .dof = 2, .params = 3, .energy = plain_ops, .reverse = MFAD_REVERSE_NEVER};
