// SPDX-License-Identifier: BSD-2-Clause
/* The AD numbers (mfad/impl/ad.h, mfad/impl/ad_generic.h) in every mode: each elementary operation and
   matrix helper, alone and all composed, run through the test energy tests/energies/ad_ops.h at
   N = 1, 12 and 16 unknowns (one lane with three padded, three full lanes, four full lanes), and
   compared with plain-double references, analytic derivatives and central finite differences.

   Tolerances (eps = 2.2e-16; S the scale of the compared quantity, max(1, largest entry)):
   - against plain-double references and analytic derivatives: the AD result passes through at
     most ~50 roundings, each <= eps relative to an intermediate at most ~100 S at the operating
     points used here (inputs O(1), matrices with condition < 10, elementary functions where their
     first three derivatives are below 10: acos and asin at |u| <= 0.6, cbrt at -0.4, tan at 0.5,
     pow2 and powd with bases in [0.6, 3]), so <= 50 * 100 * eps S ~ 1e-12 S;
     values pass through fewer operations: 1e-13 S.
   - central differences with step h = eps^(1/3) ~ 6e-6: truncation h^2/6 |f'''| ~ 6e-12 |f'''|
     plus rounding eps |f| / h ~ 4e-11 |f|; with |f'''|, |f| <= 100 S here, <= 4e-9 S: bound 1e-7 S.
   - the fused HVP against the element Hessian times v: both exact to round-off, 1e-12 relative to
     max_i sum_j |H_ij v_j| (DESIGN.md's claim); Hessian symmetry: 1e-13 relative to max |H_ij|. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests the machinery: kernels' element entry points in every mode */
#include <mfad/impl/kernel.h>
#include "energies/ad_ops_common.h"

MFAD_KERNEL_DECLARE(ad_ops_n1);
MFAD_KERNEL_DECLARE(ad_ops_n12);
MFAD_KERNEL_DECLARE(ad_ops_n16);

#define NMAX  16
#define NKERN 3
#define NOPS  (AD_OP_ALL + 1) /* the single operations and their sum; the fmin/fmax special cases after */

static const struct _n_MfadKernel *const Kernels[NKERN] = {MFAD_KERNEL(ad_ops_n1), MFAD_KERNEL(ad_ops_n12), MFAD_KERNEL(ad_ops_n16)};

static const char *const OpNames[AD_OP_COUNT] = {"mul", "div", "inv", "sqr", "sqrt", "log", "exp", "pow", "sin", "cos", "atan2", "fma",
                                                 "tanh", "fabs", "acos", "asin", "tan", "atan", "cbrt", "fmin", "fmax", "hypot", "pow2",
                                                 "powd", "linear (set copy add sub neg adds muls)", "dot3", "norm3", "frob2", "det2",
                                                 "cross3", "sub3", "det3", "inv2", "inv3", "matmul n=2", "matmul n=3", "tmatmul n=2",
                                                 "tmatmul n=3", "matmuld n=2", "matmuld n=3", "in-place ops", "out-of-place ops",
                                                 "all composed", "fmin/fmax at a tie", "fmin/fmax with a NaN operand"};

/* the operating point: offsets c (matrices u[0..3] and u[0..8] well conditioned, u0 > 0 for
   sqrt, log and pow, u1 and u6 away from 0 for division, |u2|, |u7| < 1 for asin and acos, u0 and
   u7 > 0 for the bases of pow2, u2 u3 and u0 u1 away from 0 for fabs, u0 u1 and u4 u8 apart for
   fmin and fmax) and the matmuld constant */
static const double Offsets[9] = {2.0, 0.3, -0.4, 0.5, 1.7, 0.2, -0.3, 0.6, 1.5};
static const double ConstB[9]  = {0.9, -0.2, 0.4, 0.1, 1.2, -0.3, 0.5, 0.3, 0.8};

#define EPS       2.220446049250313e-16
#define FD_H      6.0e-6  /* eps^(1/3) */
#define TOL_FD    1e-7    /* see the header comment */
#define TOL_EXACT 1e-12
#define TOL_VALUE 1e-13
#define TOL_HVP   1e-12
#define TOL_SYM   1e-13

/* ---------------------------------------------------------------- test data */
typedef struct {
  MfadKernel k;
  int        n, op;
  double     p[AD_OPS_NPARAM], x[NMAX], v[NMAX];
} Case;

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13; /* xorshift64 */
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

/* loop index -> kernel and operation; x within 0.02 of 0 keeps u within 0.07 of the offsets */
static void CaseSetUp(int idx, Case *c)
{
  memset(c, 0, sizeof(*c));
  c->k  = Kernels[idx / NOPS];
  c->op = idx % NOPS;
  c->n  = c->k->nvert * c->k->dof;
  Rng   = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(idx + 1) * 0xBF58476D1CE4E5B9ULL;
  c->p[0] = c->op;
  for (int k = 0; k < 9; k++) c->p[1 + k] = Offsets[k];
  c->p[10] = (idx / NOPS) % 2 ? -1.5 : 2.5; /* pow: negative and non-integer exponents */
  for (int k = 0; k < 9; k++) c->p[11 + k] = ConstB[k];
  c->p[20] = (idx / NOPS) % 2 ? 0.7 : 3.0; /* powd: bases below and above 1 */
  for (int i = 0; i < c->n; i++) {
    c->x[i] = Uniform(-0.02, 0.02);
    c->v[i] = Uniform(-1.0, 1.0);
  }
}

static void Inputs(const Case *c, const double *x, double u[9])
{
  for (int k = 0; k < 9; k++) {
    u[k] = c->p[1 + k];
    for (int i = 0; i < c->n; i++) u[k] += AD_OPS_MIX(k, i, c->n) * x[i];
  }
}

/* ---------------------------------------------------------------- plain-double references */
static double Reduce(const double *r, int n)
{
  double E = 0.0;
  for (int j = 0; j < n; j++) E += AD_OPS_W(j) * r[j];
  return E;
}

static double Det3(const double *A) /* rule of Sarrus */
{
  return A[0] * A[4] * A[8] + A[1] * A[5] * A[6] + A[2] * A[3] * A[7] - A[2] * A[4] * A[6] - A[0] * A[5] * A[7] - A[1] * A[3] * A[8];
}

static double RefOne(int op, const double *u, const double *p)
{
  double r[9], B[9], d, s;
  switch (op) {
  case AD_OP_MUL:
    return u[0] * u[1];
  case AD_OP_DIV:
    return u[0] / u[1];
  case AD_OP_INV:
    return 1.0 / u[0];
  case AD_OP_SQR:
    return u[0] * u[0];
  case AD_OP_SQRT:
    return sqrt(u[0]);
  case AD_OP_LOG:
    return log(u[0]);
  case AD_OP_EXP:
    return exp(u[0]);
  case AD_OP_POW:
    return pow(u[0], p[10]);
  case AD_OP_SIN:
    return sin(u[0]);
  case AD_OP_COS:
    return cos(u[0]);
  case AD_OP_ATAN2:
    return atan2(u[0], u[1]);
  case AD_OP_FMA:
    return u[0] * u[1] + u[2];
  case AD_OP_TANH:
    return tanh(u[3]);
  case AD_OP_FABS:
    return fabs(u[2] * u[3]) + 0.5 * fabs(u[0] * u[1]);
  case AD_OP_ACOS:
    return acos(u[7]);
  case AD_OP_ASIN:
    return asin(u[2]);
  case AD_OP_TAN:
    return tan(u[3]);
  case AD_OP_ATAN:
    return atan(u[0]);
  case AD_OP_CBRT:
    return cbrt(u[2]);
  case AD_OP_FMIN:
    return fmin(u[0] * u[1], u[4] * u[8]) + 0.5 * fmin(u[4] * u[8], u[0] * u[1]);
  case AD_OP_FMAX:
    return fmax(u[0] * u[1], u[4] * u[8]) + 0.5 * fmax(u[4] * u[8], u[0] * u[1]);
  case AD_OP_HYPOT:
    return hypot(u[0], u[1]) + 0.5 * hypot(u[2], u[3]);
  case AD_OP_POW2:
    return pow(u[0], u[1]) + 0.5 * pow(u[7], u[2]);
  case AD_OP_POWD:
    return pow(p[20], u[3]);
  case AD_OP_FMINMAX_TIE:
  case AD_OP_FMINMAX_NAN:
    return 15.0 * u[0] * u[1];
  case AD_OP_LINEAR:
    return 3.0 * (u[0] + u[1]) - u[2] - u[3] + 0.75;
  case AD_OP_DOT3:
    return u[0] * u[3] + u[1] * u[4] + u[2] * u[5];
  case AD_OP_NORM3:
    return sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
  case AD_OP_FROB2:
    s = 0.0;
    for (int k = 0; k < 9; k++) s += u[k] * u[k];
    return s;
  case AD_OP_DET2:
    return u[0] * u[3] - u[1] * u[2];
  case AD_OP_CROSS3:
    r[0] = u[1] * u[5] - u[2] * u[4];
    r[1] = u[2] * u[3] - u[0] * u[5];
    r[2] = u[0] * u[4] - u[1] * u[3];
    return Reduce(r, 3);
  case AD_OP_SUB3:
    return (u[0] - u[3]) * (u[0] - u[3]) + (u[1] - u[4]) * (u[1] - u[4]) + (u[2] - u[5]) * (u[2] - u[5]);
  case AD_OP_DET3:
    return Det3(u);
  case AD_OP_INV2:
    d    = u[0] * u[3] - u[1] * u[2];
    r[0] = u[3] / d;
    r[1] = -u[1] / d;
    r[2] = -u[2] / d;
    r[3] = u[0] / d;
    return Reduce(r, 4) + d;
  case AD_OP_INV3: /* A^{-1} = adj(A) / det(A), entries written out */
    d    = Det3(u);
    r[0] = (u[4] * u[8] - u[5] * u[7]) / d;
    r[1] = (u[2] * u[7] - u[1] * u[8]) / d;
    r[2] = (u[1] * u[5] - u[2] * u[4]) / d;
    r[3] = (u[5] * u[6] - u[3] * u[8]) / d;
    r[4] = (u[0] * u[8] - u[2] * u[6]) / d;
    r[5] = (u[2] * u[3] - u[0] * u[5]) / d;
    r[6] = (u[3] * u[7] - u[4] * u[6]) / d;
    r[7] = (u[1] * u[6] - u[0] * u[7]) / d;
    r[8] = (u[0] * u[4] - u[1] * u[3]) / d;
    return Reduce(r, 9) + d;
  case AD_OP_MATMUL2:
  case AD_OP_TMATMUL2:
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) {
        r[2 * i + j] = 0.0;
        for (int k = 0; k < 2; k++) r[2 * i + j] += (op == AD_OP_MATMUL2 ? u[2 * i + k] : u[2 * k + i]) * u[4 + 2 * k + j];
      }
    return Reduce(r, 4);
  case AD_OP_MATMUL3:
  case AD_OP_TMATMUL3:
    for (int k = 0; k < 9; k++) B[k] = u[(k + 4) % 9];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        r[3 * i + j] = 0.0;
        for (int k = 0; k < 3; k++) r[3 * i + j] += (op == AD_OP_MATMUL3 ? u[3 * i + k] : u[3 * k + i]) * B[3 * k + j];
      }
    return Reduce(r, 9);
  case AD_OP_MATMULD2:
  case AD_OP_MATMULD3: {
    const int n = op == AD_OP_MATMULD2 ? 2 : 3;
    s           = 0.0;
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++) {
        double c = 0.0;
        for (int k = 0; k < n; k++) c += u[n * i + k] * p[11 + n * k + j];
        s += c * c;
      }
    return s;
  }
  case AD_OP_INPLACE:
  case AD_OP_OUTPLACE:
    s = sin(0.3 - 0.7 * (2.0 * u[2] * u[0] * u[1] - u[3]));
    s = u[5] / atan2(s, u[4]) / u[6];
    return s * s;
  }
  return NAN;
}

static double RefValue(const Case *c, const double *x)
{
  double u[9], E = 0.0;
  Inputs(c, x, u);
  if (c->op != AD_OP_ALL) return RefOne(c->op, u, c->p);
  for (int o = 0; o < AD_OP_SINGLE_COUNT; o++) E += RefOne(o, u, c->p);
  return E;
}

/* adds the analytic derivatives of w f(u_i) (f' = d1, f'' = d2) into g and H (9 x 9) */
static void AddDeriv1(double *g, double *H, int i, double w, double d1, double d2)
{
  g[i] += w * d1;
  H[10 * i] += w * d2;
}

/* the same for w f(u_i, u_j), i != j, given f's first and second partial derivatives */
static void AddDeriv2(double *g, double *H, int i, int j, double w, double fa, double fb, double faa, double fab, double fbb)
{
  g[i] += w * fa;
  g[j] += w * fb;
  H[10 * i] += w * faa;
  H[9 * i + j] += w * fab;
  H[9 * j + i] += w * fab;
  H[10 * j] += w * fbb;
}

/* w u_i u_j */
static void AddProduct(double *g, double *H, const double *u, int i, int j, double w) { AddDeriv2(g, H, i, j, w, u[j], u[i], 0.0, 1.0, 0.0); }

/* w hypot(u_i, u_j): (a, b) / h and (b^2, -a b, a^2) / h^3 */
static void AddHypot(double *g, double *H, const double *u, int i, int j, double w)
{
  const double a = u[i], b = u[j], h2 = a * a + b * b, h = sqrt(h2), h3 = h2 * h;
  AddDeriv2(g, H, i, j, w, a / h, b / h, b * b / h3, -a * b / h3, a * a / h3);
}

/* w pow(u_i, u_j) */
static void AddPow2(double *g, double *H, const double *u, int i, int j, double w)
{
  const double a = u[i], b = u[j], L = log(a);
  AddDeriv2(g, H, i, j, w, b * pow(a, b - 1.0), pow(a, b) * L, b * (b - 1.0) * pow(a, b - 2.0), pow(a, b - 1.0) * (1.0 + b * L), pow(a, b) * L * L);
}

/* Analytic gradient and Hessian with respect to u (g, H zeroed on entry), where written; returns 0 elsewhere. */
static int RefDerivOne(int op, const double *u, const double *p, double *g, double *H)
{
  const double a = u[0], b = u[1];
  switch (op) {
  case AD_OP_MUL:
    g[0] = b, g[1] = a;
    H[1] = H[9] = 1.0;
    return 1;
  case AD_OP_DIV:
    g[0] = 1.0 / b, g[1] = -a / (b * b);
    H[1] = H[9] = -1.0 / (b * b);
    H[10]       = 2.0 * a / (b * b * b);
    return 1;
  case AD_OP_INV:
    g[0] = -1.0 / (a * a), H[0] = 2.0 / (a * a * a);
    return 1;
  case AD_OP_SQR:
    g[0] = 2.0 * a, H[0] = 2.0;
    return 1;
  case AD_OP_SQRT:
    g[0] = 0.5 / sqrt(a), H[0] = -0.25 / (a * sqrt(a));
    return 1;
  case AD_OP_LOG:
    g[0] = 1.0 / a, H[0] = -1.0 / (a * a);
    return 1;
  case AD_OP_EXP:
    g[0] = H[0] = exp(a);
    return 1;
  case AD_OP_POW:
    g[0] = p[10] * pow(a, p[10] - 1.0), H[0] = p[10] * (p[10] - 1.0) * pow(a, p[10] - 2.0);
    return 1;
  case AD_OP_SIN:
    g[0] = cos(a), H[0] = -sin(a);
    return 1;
  case AD_OP_COS:
    g[0] = -sin(a), H[0] = -cos(a);
    return 1;
  case AD_OP_ATAN2: { /* d atan(y/x): (x, -y) / r^2 */
    const double r2 = a * a + b * b;
    g[0] = b / r2, g[1] = -a / r2;
    H[0] = -2.0 * a * b / (r2 * r2), H[1] = H[9] = (a * a - b * b) / (r2 * r2), H[10] = 2.0 * a * b / (r2 * r2);
    return 1;
  }
  case AD_OP_FMA:
    g[0] = b, g[1] = a, g[2] = 1.0;
    H[1] = H[9] = 1.0;
    return 1;
  case AD_OP_TANH: { /* sech^2, -2 tanh sech^2 */
    const double ch = cosh(u[3]);
    AddDeriv1(g, H, 3, 1.0, 1.0 / (ch * ch), -2.0 * sinh(u[3]) / (ch * ch * ch));
    return 1;
  }
  case AD_OP_FABS: /* |s| = sign(s) s away from s = 0 */
    AddProduct(g, H, u, 2, 3, copysign(1.0, u[2] * u[3]));
    AddProduct(g, H, u, 0, 1, 0.5 * copysign(1.0, u[0] * u[1]));
    return 1;
  case AD_OP_ACOS:
    AddDeriv1(g, H, 7, 1.0, -1.0 / sqrt(1.0 - u[7] * u[7]), -u[7] * pow(1.0 - u[7] * u[7], -1.5));
    return 1;
  case AD_OP_ASIN:
    AddDeriv1(g, H, 2, 1.0, 1.0 / sqrt(1.0 - u[2] * u[2]), u[2] * pow(1.0 - u[2] * u[2], -1.5));
    return 1;
  case AD_OP_TAN: /* sec^2, 2 sin / cos^3 */
    AddDeriv1(g, H, 3, 1.0, 1.0 / (cos(u[3]) * cos(u[3])), 2.0 * sin(u[3]) / pow(cos(u[3]), 3.0));
    return 1;
  case AD_OP_ATAN:
    AddDeriv1(g, H, 0, 1.0, 1.0 / (1.0 + a * a), -2.0 * a / ((1.0 + a * a) * (1.0 + a * a)));
    return 1;
  case AD_OP_CBRT: /* |x|^(-2/3) / 3, -2/9 sign(x) |x|^(-5/3) */
    AddDeriv1(g, H, 2, 1.0, pow(fabs(u[2]), -2.0 / 3.0) / 3.0, -2.0 / 9.0 * copysign(pow(fabs(u[2]), -5.0 / 3.0), u[2]));
    return 1;
  case AD_OP_FMIN:
  case AD_OP_FMAX: { /* fm(s, t) + fm(t, s) / 2: s takes weight 1 as the first operand, 1/2 as the second */
    const double s = u[0] * u[1], t = u[4] * u[8];
    const double ws = op == AD_OP_FMIN ? (s <= t) + 0.5 * (s < t) : (s >= t) + 0.5 * (s > t);
    AddProduct(g, H, u, 0, 1, ws);
    AddProduct(g, H, u, 4, 8, 1.5 - ws);
    return 1;
  }
  case AD_OP_HYPOT:
    AddHypot(g, H, u, 0, 1, 1.0);
    AddHypot(g, H, u, 2, 3, 0.5);
    return 1;
  case AD_OP_POW2:
    AddPow2(g, H, u, 0, 1, 1.0);
    AddPow2(g, H, u, 7, 2, 0.5);
    return 1;
  case AD_OP_POWD: { /* s^x log s, s^x log^2 s */
    const double L = log(p[20]);
    AddDeriv1(g, H, 3, 1.0, pow(p[20], u[3]) * L, pow(p[20], u[3]) * L * L);
    return 1;
  }
  case AD_OP_FMINMAX_TIE: /* the documented choices: fmin(a, c) and fmax(a, c) give a, the others c */
    AddProduct(g, H, u, 0, 1, 5.0);
    return 1;
  case AD_OP_FMINMAX_NAN: /* every one gives a */
    AddProduct(g, H, u, 0, 1, 15.0);
    return 1;
  case AD_OP_LINEAR:
    g[0] = g[1] = 3.0, g[2] = g[3] = -1.0;
    return 1;
  case AD_OP_DOT3:
    for (int i = 0; i < 3; i++) {
      g[i] = u[3 + i], g[3 + i] = u[i];
      H[9 * i + 3 + i] = H[9 * (3 + i) + i] = 1.0;
    }
    return 1;
  case AD_OP_NORM3: { /* g = u / n, H = (I - g g^T) / n */
    const double n = sqrt(u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    for (int i = 0; i < 3; i++) g[i] = u[i] / n;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) H[9 * i + j] = ((i == j) - g[i] * g[j]) / n;
    return 1;
  }
  case AD_OP_FROB2:
    for (int k = 0; k < 9; k++) g[k] = 2.0 * u[k], H[10 * k] = 2.0;
    return 1;
  case AD_OP_DET2:
    g[0] = u[3], g[1] = -u[2], g[2] = -u[1], g[3] = u[0];
    H[3] = H[27] = 1.0, H[11] = H[19] = -1.0;
    return 1;
  case AD_OP_SUB3:
    for (int i = 0; i < 3; i++) {
      g[i] = 2.0 * (u[i] - u[3 + i]), g[3 + i] = -g[i];
      H[10 * i] = H[10 * (3 + i)] = 2.0;
      H[9 * i + 3 + i] = H[9 * (3 + i) + i] = -2.0;
    }
    return 1;
  }
  return 0;
}

/* analytic gradient and Hessian in x: g_x = M^T g_u, H_x = M^T H_u M */
static int RefDeriv(const Case *c, double *g, double *H)
{
  double u[9], gu[9] = {0}, Hu[81] = {0};
  Inputs(c, c->x, u);
  if (c->op == AD_OP_ALL || !RefDerivOne(c->op, u, c->p, gu, Hu)) return 0;
  for (int i = 0; i < c->n; i++) {
    g[i] = 0.0;
    for (int k = 0; k < 9; k++) g[i] += AD_OPS_MIX(k, i, c->n) * gu[k];
    for (int j = 0; j < c->n; j++) {
      H[i * c->n + j] = 0.0;
      for (int k = 0; k < 9; k++)
        for (int l = 0; l < 9; l++) H[i * c->n + j] += AD_OPS_MIX(k, i, c->n) * Hu[9 * k + l] * AD_OPS_MIX(l, j, c->n);
    }
  }
  return 1;
}

/* ---------------------------------------------------------------- helpers */
static double MaxAbs(const double *a, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* asserts max_i |got_i - want_i| <= bound, naming the case and the worst entry */
static void AssertClose(const Case *c, const char *what, const double *got, const double *want, int n, double bound)
{
  int    worst = 0;
  double err   = 0.0;
  for (int i = 0; i < n; i++) {
    const double e = fabs(got[i] - want[i]);
    if (!(e <= err)) err = e, worst = i; /* NaN counts as worst */
  }
  ck_assert_msg(err <= bound, "%s, op %s: %s entry %d is %.17g, expected %.17g: error %.3g > bound %.3g", c->k->name, OpNames[c->op], what,
                worst, got[worst], want[worst], err, bound);
}

static double Value(const Case *c, const double *x)
{
  double E;
  c->k->element(MFAD_MODE_VALUE, x, c->v, c->p, &E, NULL);
  return E;
}

static void Gradient(const Case *c, const double *x, double *g)
{
  double E;
  c->k->element(MFAD_MODE_GRADIENT, x, c->v, c->p, &E, g);
}

static void Hessian(const Case *c, double *H)
{
  double E;
  c->k->element(MFAD_MODE_HESSIAN, c->x, c->v, c->p, &E, H);
}

/* ---------------------------------------------------------------- tests */
START_TEST(value_matches_plain_double_reference)
{
  Case   c;
  double E, ref;
  CaseSetUp(_i, &c);
  E   = Value(&c, c.x);
  ref = RefValue(&c, c.x);
  AssertClose(&c, "value", &E, &ref, 1, TOL_VALUE * fmax(1.0, fabs(ref)));
}
END_TEST

START_TEST(every_mode_returns_the_same_value)
{
  /* the value part of each number runs the same double operations: equal up to FMA contraction */
  Case   c;
  double E[3], out[NMAX * NMAX];
  CaseSetUp(_i, &c);
  c.k->element(MFAD_MODE_VALUE, c.x, c.v, c.p, &E[0], NULL);
  c.k->element(MFAD_MODE_GRADIENT, c.x, c.v, c.p, &E[1], out);
  c.k->element(MFAD_MODE_HESSIAN, c.x, c.v, c.p, &E[2], out);
  AssertClose(&c, "gradient-mode value", &E[1], &E[0], 1, TOL_VALUE * fmax(1.0, fabs(E[0])));
  AssertClose(&c, "Hessian-mode value", &E[2], &E[0], 1, TOL_VALUE * fmax(1.0, fabs(E[0])));
}
END_TEST

START_TEST(derivatives_match_analytic_ones)
{
  Case   c;
  double g[NMAX], H[NMAX * NMAX], gref[NMAX], Href[NMAX * NMAX];
  CaseSetUp(_i, &c);
  if (!RefDeriv(&c, gref, Href)) return; /* matrix helpers: checked by finite differences */
  Gradient(&c, c.x, g);
  Hessian(&c, H);
  AssertClose(&c, "gradient", g, gref, c.n, TOL_EXACT * fmax(1.0, MaxAbs(gref, c.n)));
  AssertClose(&c, "Hessian", H, Href, c.n * c.n, TOL_EXACT * fmax(1.0, MaxAbs(Href, c.n * c.n)));
}
END_TEST

START_TEST(gradient_matches_central_fd_of_reference_value)
{
  Case   c;
  double g[NMAX], fd[NMAX], xp[NMAX], xm[NMAX], f;
  CaseSetUp(_i, &c);
  Gradient(&c, c.x, g);
  f = RefValue(&c, c.x);
  for (int i = 0; i < c.n; i++) {
    memcpy(xp, c.x, sizeof(xp));
    memcpy(xm, c.x, sizeof(xm));
    xp[i] += FD_H;
    xm[i] -= FD_H;
    fd[i] = (RefValue(&c, xp) - RefValue(&c, xm)) / (2.0 * FD_H);
  }
  AssertClose(&c, "gradient vs FD", g, fd, c.n, TOL_FD * fmax(1.0, fmax(fabs(f), MaxAbs(g, c.n))));
}
END_TEST

START_TEST(hessian_matches_central_fd_of_gradient)
{
  Case   c;
  double H[NMAX * NMAX], fd[NMAX * NMAX], g[NMAX], gp[NMAX], gm[NMAX], xp[NMAX], xm[NMAX];
  CaseSetUp(_i, &c);
  Hessian(&c, H);
  Gradient(&c, c.x, g);
  for (int j = 0; j < c.n; j++) {
    memcpy(xp, c.x, sizeof(xp));
    memcpy(xm, c.x, sizeof(xm));
    xp[j] += FD_H;
    xm[j] -= FD_H;
    Gradient(&c, xp, gp);
    Gradient(&c, xm, gm);
    for (int i = 0; i < c.n; i++) fd[i * c.n + j] = (gp[i] - gm[i]) / (2.0 * FD_H);
  }
  AssertClose(&c, "Hessian vs FD", H, fd, c.n * c.n, TOL_FD * fmax(1.0, fmax(MaxAbs(g, c.n), MaxAbs(H, c.n * c.n))));
}
END_TEST

START_TEST(hvp_matches_hessian_times_v)
{
  Case   c;
  double H[NMAX * NMAX], hv[NMAX], Hv[NMAX], scale = 0.0, E;
  CaseSetUp(_i, &c);
  Hessian(&c, H);
  c.k->element(MFAD_MODE_HVP, c.x, c.v, c.p, &E, hv);
  for (int i = 0; i < c.n; i++) {
    double s = 0.0;
    Hv[i]    = 0.0;
    for (int j = 0; j < c.n; j++) Hv[i] += H[i * c.n + j] * c.v[j], s += fabs(H[i * c.n + j] * c.v[j]);
    scale = fmax(scale, s);
  }
  AssertClose(&c, "HVP vs H v", hv, Hv, c.n, TOL_HVP * scale);
}
END_TEST

START_TEST(hessian_is_symmetric)
{
  Case   c;
  double H[NMAX * NMAX], Ht[NMAX * NMAX];
  CaseSetUp(_i, &c);
  Hessian(&c, H);
  for (int i = 0; i < c.n; i++)
    for (int j = 0; j < c.n; j++) Ht[i * c.n + j] = H[j * c.n + i];
  AssertClose(&c, "H vs H^T", H, Ht, c.n * c.n, TOL_SYM * MaxAbs(H, c.n * c.n));
}
END_TEST

START_TEST(fmin_fmax_take_the_first_operand_on_a_tie_and_ignore_a_nan)
{
  /* E = fmin(a, c) + 2 fmin(c, a) + 4 fmax(a, c) + 8 fmax(c, a) = 15 a with a = u0 u1 and c constant
     (tests/energies/ad_ops.h): c = a's value, a tie, gives 5 a's derivatives (the first operand's
     are taken); c = NaN gives 15 a's (the other operand is taken, as by C's fmin/fmax). No finite differences
     here (a tie is a kink): every mode against the analytic derivatives, tolerances as above */
  Case   c;
  double E[4], g[NMAX], hv[NMAX], H[NMAX * NMAX], ref, gref[NMAX], Href[NMAX * NMAX], Hv[NMAX], scale = 0.0;
  CaseSetUp((_i / 2) * NOPS, &c);
  c.op   = _i % 2 ? AD_OP_FMINMAX_NAN : AD_OP_FMINMAX_TIE;
  c.p[0] = c.op;
  ref    = RefValue(&c, c.x);
  ck_assert(RefDeriv(&c, gref, Href));
  c.k->element(MFAD_MODE_VALUE, c.x, c.v, c.p, &E[0], NULL);
  c.k->element(MFAD_MODE_GRADIENT, c.x, c.v, c.p, &E[1], g);
  c.k->element(MFAD_MODE_HESSIAN, c.x, c.v, c.p, &E[2], H);
  c.k->element(MFAD_MODE_HVP, c.x, c.v, c.p, &E[3], hv);
  for (int m = 0; m < 4; m++) AssertClose(&c, "value", &E[m], &ref, 1, TOL_VALUE * fmax(1.0, fabs(ref)));
  AssertClose(&c, "gradient", g, gref, c.n, TOL_EXACT * fmax(1.0, MaxAbs(gref, c.n)));
  AssertClose(&c, "Hessian", H, Href, c.n * c.n, TOL_EXACT * fmax(1.0, MaxAbs(Href, c.n * c.n)));
  for (int i = 0; i < c.n; i++) {
    double s = 0.0;
    Hv[i]    = 0.0;
    for (int j = 0; j < c.n; j++) Hv[i] += Href[i * c.n + j] * c.v[j], s += fabs(Href[i * c.n + j] * c.v[j]);
    scale = fmax(scale, s);
  }
  AssertClose(&c, "HVP", hv, Hv, c.n, TOL_HVP * fmax(1.0, scale));
}
END_TEST

START_TEST(flops_are_counted_in_every_mode)
{
  Case   c;
  double f[MFAD_MODE_COUNT];
  CaseSetUp(_i, &c);
  c.k->flops(c.x, c.p, f);
  for (int m = 0; m < MFAD_MODE_COUNT; m++) ck_assert_msg(f[m] > 0.0, "%s, op %s: mode %d counts %g flops, expected > 0", c.k->name, OpNames[c.op], m, f[m]);
  ck_assert_msg(f[0] <= f[1] && f[1] <= f[2] && f[1] <= f[3], "%s, op %s: flops value %g, gradient %g, HVP %g, Hessian %g: expected value <= gradient <= HVP, Hessian",
                c.k->name, OpNames[c.op], f[0], f[1], f[2], f[3]);
}
END_TEST

START_TEST(in_place_ops_match_out_of_place)
{
  /* the same arithmetic with and without aliased outputs: equal up to FMA contraction, a few
     ulps per operation over ~13 operations (1e-14 relative) */
  Case   a, b;
  double ga[NMAX], gb[NMAX], ha[NMAX], hb[NMAX], Ha[NMAX * NMAX], Hb[NMAX * NMAX], Ea, Eb;
  CaseSetUp(_i * NOPS + AD_OP_INPLACE, &a);
  CaseSetUp(_i * NOPS + AD_OP_INPLACE, &b);
  b.p[0] = AD_OP_OUTPLACE;
  a.k->element(MFAD_MODE_GRADIENT, a.x, a.v, a.p, &Ea, ga);
  b.k->element(MFAD_MODE_GRADIENT, b.x, b.v, b.p, &Eb, gb);
  AssertClose(&a, "value", &Ea, &Eb, 1, 1e-14 * fmax(1.0, fabs(Eb)));
  AssertClose(&a, "gradient", ga, gb, a.n, 1e-14 * fmax(1.0, MaxAbs(gb, a.n)));
  a.k->element(MFAD_MODE_HVP, a.x, a.v, a.p, &Ea, ha);
  b.k->element(MFAD_MODE_HVP, b.x, b.v, b.p, &Eb, hb);
  AssertClose(&a, "HVP", ha, hb, a.n, 1e-14 * fmax(1.0, MaxAbs(hb, a.n)));
  Hessian(&a, Ha);
  Hessian(&b, Hb);
  AssertClose(&a, "Hessian", Ha, Hb, a.n * a.n, 1e-14 * fmax(1.0, MaxAbs(Hb, a.n * a.n)));
}
END_TEST

static Suite *AdSuite(void)
{
  Suite *s  = suite_create("ad");
  TCase *tc = tcase_create("ops");
  tcase_add_loop_test(tc, value_matches_plain_double_reference, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, every_mode_returns_the_same_value, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, derivatives_match_analytic_ones, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, gradient_matches_central_fd_of_reference_value, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, hessian_matches_central_fd_of_gradient, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, hvp_matches_hessian_times_v, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, hessian_is_symmetric, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, flops_are_counted_in_every_mode, 0, NKERN * NOPS);
  tcase_add_loop_test(tc, in_place_ops_match_out_of_place, 0, NKERN);
  tcase_add_loop_test(tc, fmin_fmax_take_the_first_operand_on_a_tie_and_ignore_a_nan, 0, 2 * NKERN);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(AdSuite());
  int      nfail;
  srunner_run_all(sr, CK_SILENT); /* nothing on success; failures below */
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
