// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/energy.h
  @brief What a plain-C energy file includes: the MfadEnergyInfo description and a small library
         of 2x2 / 3x3 helpers over doubles.

  An energy is an ordinary C function over doubles, compiled as it is by any C compiler, e.g.

      #include <mfad/energy.h>
      static double spring(const double x[6], const double p[2])
      {
        double d[3];
        for (int i = 0; i < 3; i++) d[i] = x[3 + i] - x[i];
        const double l = sqrt(mfad_dot3(d, d)) - p[0];
        return 0.5 * p[1] * l * l;
      }
      const MfadEnergyInfo spring_info = {.vertices = 2, .dof = 3, .params = 2, .energy = spring};

  The translator `mfad-energy` (run by CMake's mfad_add_energy() or by hand) reads the file with
  a C front end and writes the energy's value, gradient, fused Hessian-vector product and element
  Hessian for the C compiler and for nvcc. A residual, `void r(const double x[N], const double p[P],
  double r[M])` named by .residual with .outputs = M, gets its value, Jacobian-vector and
  vector-Jacobian products, element Jacobian and Gauss-Newton product the same way.
  An energy whose unknowns enter only through a smaller linear feature vector (F = Ds Dm^-1 of a
  tet: 9 features of 12 unknowns; a spring's edge vector: 3 of 6) declares it, and is written over
  the features; AD then runs at the features and its results are pulled back once per element
  (gradient B^T g_F, HVP B^T H_F B v, Hessian B^T H_F B, PSD projection of the smaller H_F):

      static void edge(const double x[6], const double p[2], double d[3]) { mfad_sub3(d, &x[3], &x[0]); }
      static double spring(const double d[3], const double p[2]) { ... }
      const MfadEnergyInfo spring_info = {.vertices = 2, .dof = 3, .params = 2,
                                          .features = 3, .feature = edge, .energy = spring};

  The map must be linear in x with coefficients from p only, with loops of constant bounds and no
  branches on doubles: the translator unrolls it, refuses anything else at its file:line, and
  writes B v (in the map's own operation order) and B^T g (its adjoint) without storing B.
  Where the body over the features is straight-line in its numbers (value branches and early
  returns allowed; loops of constant bounds are unrolled, helpers over numbers inlined, a helper
  returning only at its end), the translator also writes its adjoint sweep: the gradient and the
  HVP then run forward-over-reverse (one tangent along B v, include/mfad/impl/ad_reverse.h) instead of
  carrying a lane per feature; MfadKernel.reverse says which (where not, the translator warns at the construct that prevents it; an error
  with .reverse = MFAD_REVERSE_REQUIRED; MFAD_REVERSE_NEVER: not tried). An energy without features gets the same sweep at its unknowns
  (on a GPU thread its HVP then carries 2 doubles per number, not 2N + 2), and its element Hessian is N such sweeps
  along the unit directions (on the CPU as on the GPU: Hessian numbers would carry 1 + N + N^2): features pay where there
  are fewer of them than unknowns.
  With --lanes (mfad_add_energy's default for a user's energy) that sweep is written once more over
  SIMD lanes, one element a lane: fabs, fmin, fmax and a ternary of values are selects lane by lane;
  an if on values is taken where every lane of a group takes it alike, and runs the group on the
  scalar path otherwise (a const int of a comparison too); a helper over doubles is called as its lanes version (its ifs as
  selects); a loop that tests values, another int of values, a call outside math.h and those helpers keep the whole energy on the scalar path
  (the translator notes the construct). Either way the results are the scalar path's (include/mfad/impl/ad_lanes.h).
  E(x, p) = spring(edge(x, p), p) as plain C: mfad_energy_eval().
  The helpers below are plain C here; the translator replaces them by the AD library's tuned versions where their arguments are differentiated.
  Matrices are flat row-major arrays (A[3 * i + j]); an array is passed by name or from an entry
  on (mfad_dot3(&x[3 * a], &x[3 * a]): vertex a's coordinates); outputs must not alias inputs.
**/
#ifndef MFAD_ENERGY_H
#define MFAD_ENERGY_H

#include <math.h>

/* MfadSum, from the machinery the translator's output instantiates (an energy file is one step
   from it: its translation defines a kernel) */
#define MFAD_IMPL_ALLOWED 1
#include <mfad/impl/kernel.h>

/** @brief What the translator and mfad need to know about an energy besides its body. */
typedef struct {
  int         vertices;      /**< vertices per element */
  int         dof;           /**< unknowns per vertex (x has vertices * dof entries) */
  int         params;        /**< parameters per element (p) */
  int         rest_dim;      /**< coordinates per vertex the rest set-up reads (0: no rest set-up) */
  int         material;      /**< material constants the rest set-up reads */
  int         cell_vertices; /**< vertices of the mesh cell the element is built from (0: vertices) */
  const char *description;   /**< one line: the formula, parameters and material */
  /** E(x, p): x the element's unknowns, p its parameters; +INFINITY for an invalid element */
  double (*energy)(const double *x, const double *p);
  /** rest set-up: rest coordinates r, material m -> parameters p; returns 0, or 1 for a degenerate
      and 2 for an inverted rest element */
  int (*rest)(const double *r, const double *m, double *p);
  /** A vector-valued element function instead of .energy: r(x, p) writes .outputs entries */
  void (*residual)(const double *x, const double *p, double *r);
  int     outputs; /**< entries of r per element (1 to 24) */
  MfadSum sum;     /**< MFAD_SUM_LEAST_SQUARES (default) or MFAD_SUM_SYSTEM (outputs = vertices * dof) */
  /** Features: .energy is psi(f, p) over .features entries f = B(p) x written by .feature, a map
      linear in x (coefficients from p only: F = Ds Dm^-1, an edge vector); E(x, p) = psi(f, p).
      AD then runs at the features and pulls its results back through B (mfad_energy_eval()). */
  int features;
  void (*feature)(const double *x, const double *p, double *f);
  /** The largest valid step (optional; a scalar .energy with a wall): the smallest t > 0 at which
      x + t d leaves the energy's domain (a triangle flips, a tet inverts), +INFINITY if it never
      does; x, d the element's unknowns and a direction, p its parameters. Plain C, run on the host:
      SNES's line search starts short of the first element's wall (MfadEnergySetStepBound()). */
  double (*step)(const double *x, const double *d, const double *p);
  int reverse; /**< MFAD_REVERSE_REQUIRED: refuse to translate an energy without reverse mode (else a warning); MFAD_REVERSE_NEVER: do not try */
  /** The PSD projection a Newton solve's defaults give this energy's element Hessians
      (MfadEnergySetSNES(), MfadEnergySetTao() where no projection was chosen): MFAD_PROJECT_CLAMP
      or MFAD_PROJECT_ABS; 0, the default: abs. Where every term of an energy declares clamp, clamp;
      otherwise abs. Say beside it what was measured. */
  int projection;
} MfadEnergyInfo;

/** E(x, p) of an energy as plain C, through its feature map where it has one (tests, tools) */
static inline double mfad_energy_eval(const MfadEnergyInfo *info, const double *x, const double *p)
{
  double f[24];
  if (!info->features) return info->energy(x, p);
  info->feature(x, p, f);
  return info->energy(f, p);
}

/* ---------------------------------------------------------------- values */
/** x without its derivatives: the translator takes the result as a constant. For an iteration run
    on values only (Newton's method to convergence) whose result a few steps in differentiated
    arithmetic then refine: those steps carry the derivatives (energies/corotated_tet.c). */
static inline double mfad_value(double x) { return x; }

/* ---------------------------------------------------------------- 3-vectors */
static inline double mfad_dot3(const double a[3], const double b[3]) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static inline void   mfad_sub3(double r[3], const double a[3], const double b[3])
{
  for (int i = 0; i < 3; i++) r[i] = a[i] - b[i];
}
static inline void mfad_cross3(double r[3], const double a[3], const double b[3])
{
  for (int i = 0; i < 3; i++) r[i] = a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3];
}
static inline double mfad_norm3(const double a[3]) { return sqrt(mfad_dot3(a, a)); }

/* ---------------------------------------------------------------- small matrices */
/** squared Frobenius norm of the n entries of A */
static inline double mfad_frob2(const double *A, int n)
{
  double s = A[0] * A[0];
  for (int i = 1; i < n; i++) s += A[i] * A[i];
  return s;
}
static inline double mfad_det2(const double A[4]) { return A[0] * A[3] - A[1] * A[2]; }
static inline double mfad_det3(const double A[9])
{
  double c[3];
  for (int j = 0; j < 3; j++) c[j] = A[3 + (j + 1) % 3] * A[6 + (j + 2) % 3] - A[3 + (j + 2) % 3] * A[6 + (j + 1) % 3];
  return mfad_dot3(A, c);
}
/** Ai = A^{-1}; returns det A */
static inline double mfad_inv2(double Ai[4], const double A[4])
{
  const double d = mfad_det2(A), id = 1.0 / d;
  Ai[0] = A[3] * id;
  Ai[3] = A[0] * id;
  Ai[1] = -(A[1] * id);
  Ai[2] = -(A[2] * id);
  return d;
}
/** Ai = A^{-1}; returns det A */
static inline double mfad_inv3(double Ai[9], const double A[9])
{
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      Ai[3 * j + i] = A[3 * ((i + 1) % 3) + (j + 1) % 3] * A[3 * ((i + 2) % 3) + (j + 2) % 3] -
                      A[3 * ((i + 1) % 3) + (j + 2) % 3] * A[3 * ((i + 2) % 3) + (j + 1) % 3];
  const double d = A[0] * Ai[0] + A[1] * Ai[3] + A[2] * Ai[6], id = 1.0 / d;
  for (int k = 0; k < 9; k++) Ai[k] = Ai[k] * id;
  return d;
}
/** C = A B, all n x n (n = 2 or 3) */
static inline void mfad_matmul(double *C, const double *A, const double *B, int n)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[n * i + j] = A[n * i] * B[j];
      for (int k = 1; k < n; k++) C[n * i + j] += A[n * i + k] * B[n * k + j];
    }
}
/** C = A^T B, all n x n (n = 2 or 3) */
static inline void mfad_tmatmul(double *C, const double *A, const double *B, int n)
{
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      C[n * i + j] = A[i] * B[j];
      for (int k = 1; k < n; k++) C[n * i + j] += A[n * k + i] * B[n * k + j];
    }
}

/** MfadEnergyInfo.reverse: the energy needs its adjoint sweep; the translator refuses it without */
#define MFAD_REVERSE_REQUIRED 1
/** MfadEnergyInfo.reverse: forward over forward by the author's choice (say why beside it): the
    translator does not try the adjoint sweep, and says nothing */
#define MFAD_REVERSE_NEVER 2

/** MfadEnergyInfo.projection: negative eigenvalues of an element Hessian raised to 0 (MFAD_PSD_CLAMP) */
#define MFAD_PROJECT_CLAMP 1
/** MfadEnergyInfo.projection: eigenvalues replaced by their absolute values (MFAD_PSD_ABS, the default) */
#define MFAD_PROJECT_ABS 2

/** A while or do-while loop in an energy is translated as at most n rounds (the derivative code
    unrolls loops over differentiated values; a while without it is refused at its file:line):

      MFAD_MAX_ITERATIONS(20);
      while (fabs(r) > 1e-13) { ... }   // Newton: stops when converged, or after 20 rounds

    Plain C runs the loop until its condition fails, as written. */
#if defined(__MFAD_ENERGY_TRANSLATOR__)
void __mfad_max_iterations(int n);
#define MFAD_MAX_ITERATIONS(n) __mfad_max_iterations(n)
#else
#define MFAD_MAX_ITERATIONS(n) ((void)0)
#endif

/** A function of one double with its derivatives written by hand (as JAX's custom_jvp): where f's
    argument carries derivatives the translator calls f, df and d2f at its value (one chain rule)
    instead of differentiating f's body, which may then use anything plain C allows for doubles.
    At file scope, after the three definitions, each 'double g(double)':

      static double softplus(double t) { return t > 0 ? t + log1p(exp(-t)) : log1p(exp(t)); }
      static double softplus_d1(double t) { return 1.0 / (1.0 + exp(-t)); }
      static double softplus_d2(double t) { const double s = softplus_d1(t); return s * (1.0 - s); }
      MFAD_DERIVATIVES(softplus, softplus_d1, softplus_d2);
 */
#if defined(__MFAD_ENERGY_TRANSLATOR__) || !defined(__GNUC__)
#define MFAD_DERIVATIVES(f, df, d2f) static double (*const mfad_derivatives_##f[3])(double) = {f, df, d2f}
#else
#define MFAD_DERIVATIVES(f, df, d2f) static double (*const mfad_derivatives_##f[3])(double) __attribute__((unused)) = {f, df, d2f}
#endif

#endif /* MFAD_ENERGY_H */
