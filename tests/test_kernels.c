// SPDX-License-Identifier: BSD-2-Clause
/* Every built-in kernel, found by name, on random valid elements (parameters from k->rest on a
   randomly perturbed simplex where the kernel has a rest set-up): its value against an
   independent closed form, its derivatives in every mode against each other and against
   central finite differences, its flop counts, its barrier (inverted elements give +inf, never
   NaN) and its rest set-up (degenerate rest shapes are rejected, small good ones are not).
   A least-squares kernel (k->nout > 0: arap_tri_lsq) has 1/2 |r|^2 as its value and J^T r as its
   gradient, checked as above, but Gauss-Newton's J^T J as its "Hessian": that is checked against
   J_fd^T J_fd, J_fd the central-difference Jacobian of the residual.

   Geometry is O(1) (edges ~ 1, coordinates within ~1.2 of 0), so derivative scales are those of
   the values. Tolerances (eps = 2.2e-16, S the scale of the compared quantity):
   - central differences, step h = eps^(1/3) ~ 6e-6: truncation h^2/6 |f'''| + rounding eps |f| / h
     ~ 4e-11 S when third derivatives are O(S) (deformations within 20% of rest): bound 1e-7 S,
     the margin covering third derivatives up to ~1000 S (log J and det^-2 barriers);
   - HVP against the element Hessian times v: both exact to round-off: 1e-12 relative to
     max_i sum_j |H_ij v_j|; Hessian symmetry: 1e-13 relative to max |H_ij| (~450 eps);
   - closed forms: the same formula in a different operation order, ~100 roundings on
     intermediates of at most ~10 S: 1e-12 S. */
#include <check.h>
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests every kernel element by element and its CPU loops: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

#define NMAX   18 /* unknowns per element */
#define PMAX   32 /* parameters per element */
#define NTRIAL 4  /* random elements per kernel and test */

#define FD_H      6.0e-6 /* eps^(1/3) */
#define TOL_FD    1e-7
#define TOL_HVP   1e-12
#define TOL_SYM   1e-13
#define TOL_CLOSE 1e-12

/* What each built-in kernel is expected to be. */
typedef struct {
  const char *name;
  int         nvert, dof, nparam, rest_dim, nmaterial;
  int         barrier;     /* inverted elements: E = +inf */
  int         stress_free; /* the rest shape is a stationary point */
} Expect;

static const Expect Builtins[] = {
    {"mass_spring",                2, 3, 2,  3, 1, 0, 1},
    {"neohookean_tet",             4, 3, 12, 3, 2, 1, 1},
    {"symmetric_dirichlet",        3, 2, 5,  3, 0, 1, 1},
    {"gravity",                    1, 3, 3,  0, 0, 0, 0},
    {"inertia",                    1, 3, 4,  0, 0, 0, 0},
    {"stable_neohookean_tet",      4, 3, 12, 3, 2, 0, 1},
    {"stvk_tet",                   4, 3, 12, 3, 2, 0, 1},
    {"corotated_tet",              4, 3, 12, 3, 2, 0, 1},
    {"volume_barrier_tet",         4, 3, 11, 3, 1, 1, 1},
    {"membrane_tri",               3, 3, 7,  3, 2, 0, 1},
    {"bending_dihedral",           4, 3, 3,  3, 1, 0, 1},
    {"pin_spring",                 1, 3, 4,  0, 0, 0, 0},
    {"dirichlet_tri",              3, 3, 5,  3, 0, 0, 0},
    {"flip_barrier_tri",           3, 2, 5,  3, 0, 1, 0},
    {"arap_tri",                   3, 2, 5,  3, 0, 0, 1},
    {"arap_tri_lsq",               3, 2, 5,  3, 0, 0, 1},
    {"sphere_penalty",             1, 3, 2,  0, 0, 0, 0},
    {"frame_field",                2, 2, 3,  0, 0, 0, 0},
    {"arap_surface",               6, 3, 21, 3, 0, 0, 1},
    {"sphere_symmetric_dirichlet", 3, 3, 5,  3, 0, 1, 0},
    {"sphere_flip_barrier",        3, 3, 1,  3, 0, 1, 0},
};
#define NKERN ((int)(sizeof(Builtins) / sizeof(Builtins[0])))

/* ---------------------------------------------------------------- element data */
typedef struct {
  const Expect *ex;
  MfadKernel    k;
  int           n;
  double        rest[6 * 3], mat[4], p[PMAX], x[NMAX], v[NMAX];
} Elem;

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13; /* xorshift64 */
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

/* a unit-edge simplex, positively oriented: vertices 0, 1, 2 counter-clockwise in the xy plane,
   vertex 3 above it */
static const double Simplex[4][3] = {
    {0,   0,                   0                },
    {1,   0,                   0                },
    {0.5, 0.8660254037844386,  0                },
    {0.5, 0.28867513459481287, 0.816496580927726}
};

static MfadKernel Find(const char *name)
{
  MfadKernel     k    = NULL;
  PetscErrorCode ierr = MfadKernelFind(name, &k);
  ck_assert_msg(!ierr && k, "MfadKernelFind(\"%s\") returned error %d, kernel %p: expected a built-in kernel", name, (int)ierr, (const void *)k);
  return k;
}

/* Random valid element `trial` of built-in kernel `kidx`: the rest simplex perturbed by up to
   0.05 per coordinate (edge-vector matrix perturbed by < 0.3 in norm, below its smallest singular
   value 0.7: orientation kept), the current shape the rest one scaled by 0.8-1.2 and perturbed by
   up to 0.05 (deformation gradient within ~0.3 of a scaling: J > 0). */
static void ElemSetUp(int kidx, int trial, Elem *e)
{
  memset(e, 0, sizeof(*e));
  e->ex = &Builtins[kidx];
  e->k  = Find(e->ex->name);
  e->n  = e->k->nvert * e->k->dof;
  ck_assert_msg(e->n <= NMAX && e->k->nparam <= PMAX && e->k->nvert <= 6 && e->k->ncellvert <= 4 && e->k->rest_dim <= 3,
                "%s: sizes beyond this test's arrays", e->ex->name);
  Rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(100 * kidx + trial + 1) * 0xBF58476D1CE4E5B9ULL;
  /* auxiliary vertices (beyond the cell: rotation nodes) rest at 0 */
  for (int a = 0; a < e->k->ncellvert; a++)
    for (int d = 0; d < 3; d++) e->rest[3 * a + d] = Simplex[a][d] + Uniform(-0.05, 0.05);
  if (e->k->rest) {
    const double s    = Uniform(0.8, 1.2);
    /* energies of y / |y|: away from the origin; on odd trials vertex 0 above the plane z = 0 and
       the others below it, a wide triangle whose chord plane lies at h ~ 0.4 from
       the centre (sphere_symmetric_dirichlet's great-circle factor acts below 1/2) */
    const int    sphere = !strncmp(e->ex->name, "sphere_", 7), wide = sphere && trial % 2;
    const double lift = sphere ? 2.0 : 0.0;
    int          ierr;
    for (int m = 0; m < e->k->nmaterial; m++) e->mat[m] = Uniform(0.5, 2.0);
    ierr = e->k->rest(e->rest, e->mat, e->p); /* rest_dim is 3 for every built-in with a rest set-up */
    ck_assert_msg(ierr == 0, "%s: rest set-up of a valid element returned %d, expected 0", e->ex->name, ierr);
    for (int a = 0; a < e->k->nvert; a++) /* auxiliary unknowns anywhere in [-1, 1] (rotations up to ~120 degrees) */
      for (int d = 0; d < e->k->dof; d++)
        e->x[a * e->k->dof + d] = a < e->k->ncellvert ? s * e->rest[3 * a + d] + Uniform(-0.05, 0.05) + (d == 2 ? (wide ? (a ? -0.8 : 1.0) : lift) : 0.0)
                                                      : Uniform(-1.0, 1.0);
  } else {
    for (int j = 0; j < e->k->nparam; j++) e->p[j] = Uniform(0.5, 1.5);
    for (int i = 0; i < e->n; i++) e->x[i] = Uniform(-1.0, 1.0);
  }
  for (int i = 0; i < e->n; i++) e->v[i] = Uniform(-1.0, 1.0);
}

static double Value(const Elem *e, const double *x)
{
  double E;
  e->k->element(MFAD_MODE_VALUE, x, e->v, e->p, &E, NULL);
  return E;
}

static double Gradient(const Elem *e, const double *x, double *g)
{
  double E;
  e->k->element(MFAD_MODE_GRADIENT, x, e->v, e->p, &E, g);
  return E;
}

static double Hessian(const Elem *e, const double *x, double *H)
{
  double E;
  e->k->element(MFAD_MODE_HESSIAN, x, e->v, e->p, &E, H);
  return E;
}

static double MaxAbs(const double *a, int n)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

/* asserts max_i |got_i - want_i| <= bound, naming the kernel, trial and the worst entry */
static void AssertClose(const Elem *e, int trial, const char *what, const double *got, const double *want, int n, double bound)
{
  int    worst = 0;
  double err   = 0.0;
  for (int i = 0; i < n; i++) {
    const double d = fabs(got[i] - want[i]);
    if (!(d <= err)) err = d, worst = i; /* NaN counts as worst */
  }
  ck_assert_msg(err <= bound, "%s, element %d: %s entry %d is %.17g, expected %.17g: error %.3g > bound %.3g", e->ex->name, trial, what, worst,
                got[worst], want[worst], err, bound);
}

/* ---------------------------------------------------------------- independent closed forms */
static double Det3(const double *A) /* rule of Sarrus */
{
  return A[0] * A[4] * A[8] + A[1] * A[5] * A[6] + A[2] * A[3] * A[7] - A[2] * A[4] * A[6] - A[0] * A[5] * A[7] - A[1] * A[3] * A[8];
}

/* X = B A^{-1} (3 x 3, row-major) by Gauss-Jordan elimination with partial pivoting on A^T X^T = B^T */
static void RightDivide3(const double *B, const double *A, double *X)
{
  double M[3][6];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) M[i][j] = A[3 * j + i], M[i][3 + j] = B[3 * j + i];
  for (int c = 0; c < 3; c++) {
    int piv = c;
    for (int r = c + 1; r < 3; r++)
      if (fabs(M[r][c]) > fabs(M[piv][c])) piv = r;
    for (int j = 0; j < 6; j++) {
      const double t = M[c][j];
      M[c][j]        = M[piv][j];
      M[piv][j]      = t;
    }
    for (int r = 0; r < 3; r++) {
      const double f = M[r][c] / M[c][c];
      if (r == c) continue;
      for (int j = 0; j < 6; j++) M[r][j] -= f * M[c][j];
    }
  }
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) X[3 * j + i] = M[i][3 + j] / M[i][i];
}

/* the rest triangle (3-D) laid flat: x0 = (0, 0), x1 = (a, 0), x2 = (b, d), d > 0 */
static void Fold2D(const double *r, double *x)
{
  double e1[3], e2[3], l1 = 0.0, l2 = 0.0, dot = 0.0;
  for (int i = 0; i < 3; i++) e1[i] = r[3 + i] - r[i], e2[i] = r[6 + i] - r[i];
  for (int i = 0; i < 3; i++) l1 += e1[i] * e1[i], l2 += e2[i] * e2[i], dot += e1[i] * e2[i];
  x[0] = x[1] = x[3] = 0.0;
  x[2]               = sqrt(l1);
  x[4]               = dot / x[2];
  x[5]               = sqrt(l2 - x[4] * x[4]);
}

/* the eigenvalues of a symmetric 3 x 3 matrix by cyclic Jacobi rotations (converged to round-off
   in < 10 sweeps for any input) */
static void SymEig3(const double *A, double *w)
{
  double a[3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) a[i][j] = A[3 * i + j];
  for (int sweep = 0; sweep < 50; sweep++) {
    const double off = a[0][1] * a[0][1] + a[0][2] * a[0][2] + a[1][2] * a[1][2];
    if (!(off > 1e-34 * (a[0][0] * a[0][0] + a[1][1] * a[1][1] + a[2][2] * a[2][2]))) break;
    for (int p = 0; p < 2; p++)
      for (int q = p + 1; q < 3; q++) {
        double th, t, c, s;
        if (a[p][q] == 0.0) continue;
        th = (a[q][q] - a[p][p]) / (2.0 * a[p][q]);
        t  = (th >= 0 ? 1.0 : -1.0) / (fabs(th) + sqrt(th * th + 1.0));
        c = 1.0 / sqrt(t * t + 1.0), s = t * c;
        for (int k = 0; k < 3; k++) { /* A <- A J, then J^T A */
          const double akp = a[k][p], akq = a[k][q];
          a[k][p] = c * akp - s * akq, a[k][q] = s * akp + c * akq;
        }
        for (int k = 0; k < 3; k++) {
          const double apk = a[p][k], aqk = a[q][k];
          a[p][k] = c * apk - s * aqk, a[q][k] = s * apk + c * aqk;
        }
      }
  }
  for (int i = 0; i < 3; i++) w[i] = a[i][i];
}

/* the energies of the vertices y / |y| on the unit sphere: symmetric Dirichlet from the Gram matrix
   G = J^T J (|J|^2 = tr G, |J^+|^2 = tr G^{-1} = tr G / det G) instead of the header's cross product,
   det G times phi(h) = 1 - (1 - 4 h^2)^3 where h = det[u0, u1, u2] (Sarrus) / |(u1 - u0) x (u2 - u0)|
   < 1/2; the flip barrier from the rule of Sarrus on the normalised vertices */
static double ClosedFormSphere(const Elem *e, const double *x, double *mag)
{
  double f[6], u[9], A, Dmi[4], dm;
  Fold2D(e->rest, f);
  A      = 0.5 * f[2] * f[5];
  dm     = f[2] * f[5]; /* Dm = [a b; 0 d] */
  Dmi[0] = f[5] / dm, Dmi[1] = -f[4] / dm, Dmi[2] = 0.0, Dmi[3] = f[2] / dm;
  for (int a = 0; a < 3; a++) {
    const double l = sqrt(x[3 * a] * x[3 * a] + x[3 * a + 1] * x[3 * a + 1] + x[3 * a + 2] * x[3 * a + 2]);
    for (int d = 0; d < 3; d++) u[3 * a + d] = x[3 * a + d] / l;
  }
  if (!strcmp(e->ex->name, "sphere_flip_barrier")) {
    const double U[9] = {u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8]}, r = Det3(U) / (2.0 * A);
    *mag = A * (fabs(log(r)) + 1.0);
    return -A * log(r);
  } else {
    double J[3][2], G[3] = {0, 0, 0}, tr, det;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 2; j++) J[i][j] = (u[3 + i] - u[i]) * Dmi[j] + (u[6 + i] - u[i]) * Dmi[2 + j];
    for (int i = 0; i < 3; i++) G[0] += J[i][0] * J[i][0], G[1] += J[i][0] * J[i][1], G[2] += J[i][1] * J[i][1];
    tr   = G[0] + G[2];
    det  = G[0] * G[2] - G[1] * G[1];
    {
      const double U[9] = {u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8]};
      double       e1[3], e2[3], n[3], h;
      for (int i = 0; i < 3; i++) e1[i] = u[3 + i] - u[i], e2[i] = u[6 + i] - u[i];
      n[0] = e1[1] * e2[2] - e1[2] * e2[1], n[1] = e1[2] * e2[0] - e1[0] * e2[2], n[2] = e1[0] * e2[1] - e1[1] * e2[0];
      h    = Det3(U) / sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (h < 0.5) det *= 1.0 - pow(1.0 - 4.0 * h * h, 3);
    }
    *mag = A * (tr + tr / det);
    return A * (tr + tr / det);
  }
}

/* the solids on tets, from F = Ds Dm^{-1} (Gauss-Jordan) and the material (mu, lambda) or kappa */
static double ClosedFormTet(const Elem *e, const double *x, double *mag)
{
  const char   *name = e->ex->name;
  const double *r = e->rest, mu = e->mat[0], lambda = e->mat[1];
  double        Dm[9], Ds[9], F[9], C[9], I1 = 0.0, J, V;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) Dm[3 * i + j] = r[3 * (j + 1) + i] - r[i], Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
  RightDivide3(Ds, Dm, F);
  V = Det3(Dm) / 6.0;
  J = Det3(F);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      C[3 * i + j] = 0.0;
      for (int k = 0; k < 3; k++) C[3 * i + j] += F[3 * k + i] * F[3 * k + j];
    }
  for (int k = 0; k < 9; k++) I1 += F[k] * F[k];
  if (!strcmp(name, "stable_neohookean_tet")) { /* Smith et al. 2018, eqs. 14 and 16 */
    const double m = 4.0 / 3.0 * mu, l = lambda + 5.0 / 6.0 * mu, alpha = 1.0 + m / l - m / (4.0 * l);
    *mag = V * (0.5 * m * (I1 + 3.0) + 0.5 * l * (fabs(J) + alpha) * (fabs(J) + alpha) + 0.5 * m * fabs(log(I1 + 1.0)));
    /* less Psi(F = I): I_C = 3, J = 1 */
    return V * (0.5 * m * (I1 - 3.0) + 0.5 * l * (J - alpha) * (J - alpha) - 0.5 * m * log(I1 + 1.0) - 0.5 * l * (1.0 - alpha) * (1.0 - alpha) +
                0.5 * m * log(4.0));
  }
  if (!strcmp(name, "stvk_tet")) {
    double G2 = 0.0, trG = 0.0, c2 = 0.0;
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        const double G = 0.5 * (C[3 * i + j] - (i == j));
        G2 += G * G, c2 += (fabs(C[3 * i + j]) + 1.0) * (fabs(C[3 * i + j]) + 1.0);
      }
    for (int i = 0; i < 3; i++) trG += 0.5 * (C[4 * i] - 1.0);
    *mag = V * (mu * c2 + 0.5 * lambda * (I1 + 3.0) * (I1 + 3.0));
    return V * (mu * G2 + 0.5 * lambda * trG * trG);
  }
  if (!strcmp(name, "corotated_tet")) { /* |F - R|^2 = sum (s_i - 1)^2, tr(R^T F) = sum s_i (J > 0 here) */
    double w[3], s = 0.0, d2 = 0.0;
    SymEig3(C, w);
    for (int i = 0; i < 3; i++) s += sqrt(w[i]), d2 += (sqrt(w[i]) - 1.0) * (sqrt(w[i]) - 1.0);
    *mag = V * (mu * (I1 + 2.0 * s + 3.0) + 0.5 * lambda * (s + 3.0) * (s + 3.0));
    return V * (mu * d2 + 0.5 * lambda * (s - 3.0) * (s - 3.0));
  }
  if (!strcmp(name, "volume_barrier_tet")) {
    *mag = V * mu * (fabs(J) + 1.0 + fabs(log(J)));
    return V * mu * (J - 1.0 - log(J));
  }
  *mag = NAN;
  return NAN;
}

/* StVK membrane, frame-free: with the rest and current edge Gram matrices M = Dm^T Dm and
   S = Ds^T Ds (from 3-D edge vectors), G = 1/2 Dm^{-T} (S - M) Dm^{-1}, so
   |G|^2 = 1/4 tr(M^{-1} D M^{-1} D), tr G = 1/2 tr(M^{-1} D), D = S - M, A = sqrt(det M) / 2 */
static double ClosedFormMembrane(const Elem *e, const double *x, double *mag)
{
  const double *r = e->rest, mu = e->mat[0], lambda = e->mat[1];
  double        M[4] = {0}, S[4] = {0}, D[4], Mi[4], P[4], detM, A, G2, trG;
  for (int a = 0; a < 2; a++)
    for (int b = 0; b < 2; b++)
      for (int i = 0; i < 3; i++) {
        M[2 * a + b] += (r[3 * (a + 1) + i] - r[i]) * (r[3 * (b + 1) + i] - r[i]);
        S[2 * a + b] += (x[3 * (a + 1) + i] - x[i]) * (x[3 * (b + 1) + i] - x[i]);
      }
  detM  = M[0] * M[3] - M[1] * M[2];
  Mi[0] = M[3] / detM, Mi[1] = -M[1] / detM, Mi[2] = -M[2] / detM, Mi[3] = M[0] / detM;
  for (int k = 0; k < 4; k++) D[k] = S[k] - M[k];
  for (int i = 0; i < 2; i++) /* P = M^{-1} D */
    for (int j = 0; j < 2; j++) P[2 * i + j] = Mi[2 * i] * D[j] + Mi[2 * i + 1] * D[2 + j];
  A    = 0.5 * sqrt(detM);
  G2   = 0.25 * (P[0] * P[0] + 2.0 * P[1] * P[2] + P[3] * P[3]);
  trG  = 0.5 * (P[0] + P[3]);
  *mag = A * (mu * 0.25 * (fabs(S[0]) + fabs(S[3]) + M[0] + M[3]) * (fabs(S[0]) + fabs(S[3]) + M[0] + M[3]) * (Mi[0] + Mi[3]) * (Mi[0] + Mi[3]) +
              0.5 * lambda * (fabs(trG) + 1.0) * (fabs(trG) + 1.0));
  return A * (mu * G2 + 0.5 * lambda * trG * trG);
}

/* discrete shells: theta = +-arccos of the normals' cosine, the sign from (nA x nB) . e; the
   difference wrapped into (-pi, pi] */
static double DihedralAngle(const double *v, double *le2, double *area2)
{
  double e[3], a[3], b[3], nA[3], nB[3], la = 0.0, lb = 0.0, c = 0.0, sg = 0.0;
  for (int i = 0; i < 3; i++) e[i] = v[3 + i] - v[i], a[i] = v[6 + i] - v[i], b[i] = v[9 + i] - v[i];
  for (int i = 0; i < 3; i++) { /* nA = e x a; nB = (o1 - e0) x e (the same as (o1 - e1) x e) */
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    nA[i] = e[j] * a[k] - e[k] * a[j];
    nB[i] = b[j] * e[k] - b[k] * e[j];
  }
  for (int i = 0; i < 3; i++) la += nA[i] * nA[i], lb += nB[i] * nB[i], c += nA[i] * nB[i];
  for (int i = 0; i < 3; i++) {
    const int j = (i + 1) % 3, k = (i + 2) % 3;
    sg += (nA[j] * nB[k] - nA[k] * nB[j]) * e[i];
  }
  *le2   = e[0] * e[0] + e[1] * e[1] + e[2] * e[2];
  *area2 = sqrt(la) + sqrt(lb); /* 2 (A0 + A1) */
  return (sg >= 0 ? 1.0 : -1.0) * acos(fmax(-1.0, fmin(1.0, c / sqrt(la * lb))));
}

static double ClosedFormBending(const Elem *e, const double *x, double *mag)
{
  double le2, a2, le2x, a2x, th0, th, d, w;
  th0 = DihedralAngle(e->rest, &le2, &a2);
  th  = DihedralAngle(x, &le2x, &a2x);
  d   = th - th0;
  if (d > M_PI) d -= 2.0 * M_PI;
  if (d <= -M_PI) d += 2.0 * M_PI;
  w    = 3.0 * le2 / (0.5 * a2);
  *mag = e->mat[0] * w * (fabs(th) + fabs(th0)) * (fabs(th) + fabs(th0));
  return e->mat[0] * w * d * d;
}

/* Sorkine & Alexa's cells on one triangle: sum over corners a and edges (a, b) of
   cot(opposite rest angle)/2 |(x_b - x_a) - Q_a (r_b - r_a)|^2, Q_a the rotation of the unit
   quaternion (1, u_a)/|(1, u_a)| (the Gibbs vector's rotation), the angle by acos */
static double ClosedFormArapSurface(const Elem *e, const double *x, double *mag)
{
  double E = 0.0, Q[3][3][3];
  *mag     = 0.0;
  for (int a = 0; a < 3; a++) {
    const double *u = &x[9 + 3 * a], n = sqrt(1.0 + u[0] * u[0] + u[1] * u[1] + u[2] * u[2]);
    const double  w = 1.0 / n, i = u[0] / n, j = u[1] / n, k = u[2] / n;
    const double  q[3][3] = {
         {1 - 2 * (j * j + k * k), 2 * (i * j - k * w),     2 * (i * k + j * w)    },
         {2 * (i * j + k * w),     1 - 2 * (i * i + k * k), 2 * (j * k - i * w)    },
         {2 * (i * k - j * w),     2 * (j * k + i * w),     1 - 2 * (i * i + j * j)}
    };
    memcpy(Q[a], q, sizeof(q));
  }
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 3; b++) {
      const int o = 3 - a - b; /* the corner opposite edge (a, b) */
      double    p[3], q[3], pq = 0, pp = 0, qq = 0, c, r[3], d[3], s = 0;
      if (a == b) continue;
      for (int m = 0; m < 3; m++) p[m] = e->rest[3 * a + m] - e->rest[3 * o + m], q[m] = e->rest[3 * b + m] - e->rest[3 * o + m];
      for (int m = 0; m < 3; m++) pq += p[m] * q[m], pp += p[m] * p[m], qq += q[m] * q[m];
      c = cos(acos(pq / sqrt(pp * qq))) / sin(acos(pq / sqrt(pp * qq))); /* cot of the angle at o */
      c = c > 0 ? c : 0.0;                                               /* clamped at an obtuse angle (energies/arap_surface.c: E >= 0) */
      for (int m = 0; m < 3; m++) r[m] = e->rest[3 * b + m] - e->rest[3 * a + m], d[m] = x[3 * b + m] - x[3 * a + m];
      for (int m = 0; m < 3; m++) s += pow(d[m] - (Q[a][m][0] * r[0] + Q[a][m][1] * r[1] + Q[a][m][2] * r[2]), 2);
      E += 0.5 * c * s;
      for (int m = 0; m < 3; m++) *mag += 0.5 * fabs(c) * (fabs(d[m]) + fabs(r[m]) * 2) * (fabs(d[m]) + fabs(r[m]) * 2);
    }
  return E;
}

/* E from the kernel's formula, written independently of its header: from the rest shape and
   material (not the parameters) for kernels with a rest set-up. `mag` receives the sum of the
   magnitudes of its terms, the scale of its round-off (near rest, Neo-Hookean's terms cancel to
   O(strain^2) of themselves). */
static double ClosedForm(const Elem *e, const double *x, double *mag)
{
  const char   *name = e->ex->name;
  const double *r = e->rest, *p = e->p;
  if (!strcmp(name, "mass_spring")) {
    double l = 0.0, L = 0.0;
    for (int i = 0; i < 3; i++) l += (x[3 + i] - x[i]) * (x[3 + i] - x[i]), L += (r[3 + i] - r[i]) * (r[3 + i] - r[i]);
    *mag = 0.5 * e->mat[0] * (sqrt(l) + sqrt(L)) * (sqrt(l) + sqrt(L));
    return 0.5 * e->mat[0] * (sqrt(l) - sqrt(L)) * (sqrt(l) - sqrt(L));
  }
  if (!strcmp(name, "neohookean_tet")) {
    double       Dm[9], Ds[9], F[9], I1 = 0.0, J, lJ;
    const double mu = e->mat[0], lambda = e->mat[1];
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) Dm[3 * i + j] = r[3 * (j + 1) + i] - r[i], Ds[3 * i + j] = x[3 * (j + 1) + i] - x[i];
    RightDivide3(Ds, Dm, F);
    for (int k = 0; k < 9; k++) I1 += F[k] * F[k];
    J    = Det3(F);
    lJ   = log(J);
    *mag = fabs(Det3(Dm)) / 6.0 * (0.5 * mu * (I1 + 3.0) + mu * fabs(lJ) + 0.5 * lambda * lJ * lJ);
    return Det3(Dm) / 6.0 * (0.5 * mu * (I1 - 3.0) - mu * lJ + 0.5 * lambda * lJ * lJ);
  }
  if (!strcmp(name, "symmetric_dirichlet")) {
    double f[6], Dm[4], Ds[4], iDm[4], J[4], dJ, dm, n2 = 0.0, ni2 = 0.0;
    Fold2D(r, f);
    Dm[0] = f[2], Dm[1] = f[4], Dm[2] = f[3], Dm[3] = f[5];
    Ds[0] = x[2] - x[0], Ds[1] = x[4] - x[0], Ds[2] = x[3] - x[1], Ds[3] = x[5] - x[1];
    dm     = Dm[0] * Dm[3] - Dm[1] * Dm[2];
    iDm[0] = Dm[3] / dm, iDm[1] = -Dm[1] / dm, iDm[2] = -Dm[2] / dm, iDm[3] = Dm[0] / dm;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) J[2 * i + j] = Ds[2 * i] * iDm[j] + Ds[2 * i + 1] * iDm[2 + j];
    dJ = J[0] * J[3] - J[1] * J[2];
    for (int k = 0; k < 4; k++) n2 += J[k] * J[k];
    ni2  = (J[3] * J[3] + J[1] * J[1] + J[2] * J[2] + J[0] * J[0]) / (dJ * dJ); /* |J^{-1}|^2 = |adj J|^2 / det^2 */
    *mag = fabs(0.5 * dm * (n2 + ni2));
    return 0.5 * dm * (n2 + ni2);
  }
  if (!strcmp(name, "gravity")) {
    *mag = fabs(p[0] * x[0]) + fabs(p[1] * x[1]) + fabs(p[2] * x[2]);
    return -(p[0] * x[0] + p[1] * x[1] + p[2] * x[2]);
  }
  if (!strcmp(name, "inertia")) {
    double s = 0.0;
    *mag     = 0.0;
    for (int i = 0; i < 3; i++) s += (x[i] - p[1 + i]) * (x[i] - p[1 + i]), *mag += (fabs(x[i]) + fabs(p[1 + i])) * (fabs(x[i]) + fabs(p[1 + i]));
    *mag *= 0.5 * fabs(p[0]);
    return 0.5 * p[0] * s;
  }
  if (strstr(name, "_tet")) return ClosedFormTet(e, x, mag);
  if (!strcmp(name, "membrane_tri")) return ClosedFormMembrane(e, x, mag);
  if (!strcmp(name, "bending_dihedral")) return ClosedFormBending(e, x, mag);
  if (!strcmp(name, "pin_spring")) {
    double s = 0.0;
    *mag     = 0.0;
    for (int i = 0; i < 3; i++) s += (x[i] - p[i]) * (x[i] - p[i]), *mag += (fabs(x[i]) + fabs(p[i])) * (fabs(x[i]) + fabs(p[i]));
    *mag *= 0.5 * fabs(p[3]);
    return 0.5 * p[3] * s;
  }
  if (!strcmp(name, "dirichlet_tri")) { /* cotangent formula: 1/4 sum_i cot(rest angle at i) |opposite edge|^2 */
    double E = 0.0;
    *mag     = 0.0;
    for (int i = 0; i < 3; i++) {
      const int j = (i + 1) % 3, k = (i + 2) % 3;
      double    u[3], w[3], c[3], uw = 0.0, cc = 0.0, l = 0.0, cot;
      for (int d = 0; d < 3; d++)
        u[d] = r[3 * j + d] - r[3 * i + d], w[d] = r[3 * k + d] - r[3 * i + d], l += (x[3 * k + d] - x[3 * j + d]) * (x[3 * k + d] - x[3 * j + d]);
      for (int d = 0; d < 3; d++) c[d] = u[(d + 1) % 3] * w[(d + 2) % 3] - u[(d + 2) % 3] * w[(d + 1) % 3], uw += u[d] * w[d], cc += c[d] * c[d];
      cot = uw / sqrt(cc);
      E += 0.25 * cot * l;
      *mag += 0.25 * fabs(cot) * l;
    }
    return E;
  }
  if (!strcmp(name, "flip_barrier_tri")) { /* -A log(mapped signed area / rest area) */
    double f[6], A, a;
    Fold2D(r, f);
    A    = 0.5 * f[2] * f[5];
    a    = 0.5 * ((x[2] - x[0]) * (x[5] - x[1]) - (x[4] - x[0]) * (x[3] - x[1]));
    *mag = A * (fabs(log(a / A)) + 1.0);
    return -A * log(a / A);
  }
  /* A ((s1 - 1)^2 + (s2 - 1)^2) from J's singular values (det J > 0 here); arap_tri_lsq is half of it (1/2 |r|^2) */
  if (!strcmp(name, "arap_tri") || !strcmp(name, "arap_tri_lsq")) {
    const double half = strcmp(name, "arap_tri") ? 0.5 : 1.0;
    double f[6], Dm[4], Ds[4], iDm[4], J[4], dm, q, w, s1, s2, A;
    Fold2D(r, f);
    Dm[0] = f[2], Dm[1] = f[4], Dm[2] = f[3], Dm[3] = f[5];
    Ds[0] = x[2] - x[0], Ds[1] = x[4] - x[0], Ds[2] = x[3] - x[1], Ds[3] = x[5] - x[1];
    dm     = Dm[0] * Dm[3] - Dm[1] * Dm[2];
    iDm[0] = Dm[3] / dm, iDm[1] = -Dm[1] / dm, iDm[2] = -Dm[2] / dm, iDm[3] = Dm[0] / dm;
    for (int i = 0; i < 2; i++)
      for (int j = 0; j < 2; j++) J[2 * i + j] = Ds[2 * i] * iDm[j] + Ds[2 * i + 1] * iDm[2 + j];
    q    = hypot(J[0] + J[3], J[2] - J[1]); /* s1 + s2 */
    w    = hypot(J[0] - J[3], J[2] + J[1]); /* s1 - s2 */
    s1   = 0.5 * (q + w);
    s2   = 0.5 * (q - w);
    A    = 0.5 * dm;
    *mag = half * A * (s1 * s1 + s2 * s2 + 2.0);
    return half * A * ((s1 - 1.0) * (s1 - 1.0) + (s2 - 1.0) * (s2 - 1.0));
  }
  if (!strcmp(name, "sphere_penalty")) { /* k (|x|^4 - 2 R^2 |x|^2 + R^4) */
    const double x2 = x[0] * x[0] + x[1] * x[1] + x[2] * x[2], R2 = p[0] * p[0];
    *mag = p[1] * (x2 * x2 + 2.0 * R2 * x2 + R2 * R2);
    return p[1] * (x2 * x2 - 2.0 * R2 * x2 + R2 * R2);
  }
  if (!strcmp(name, "frame_field")) { /* w |u_g - r u_f|^2 in C99 complex arithmetic */
    const double complex uf = x[0] + I * x[1], ug = x[2] + I * x[3], rot = p[0] + I * p[1];
    *mag = p[2] * (cabs(ug) + cabs(rot * uf)) * (cabs(ug) + cabs(rot * uf));
    return p[2] * cabs(ug - rot * uf) * cabs(ug - rot * uf);
  }
  if (!strcmp(name, "arap_surface")) return ClosedFormArapSurface(e, x, mag);
  if (!strncmp(name, "sphere_", 7) && strcmp(name, "sphere_penalty")) return ClosedFormSphere(e, x, mag);
  *mag = NAN;
  return NAN;
}

/* ---------------------------------------------------------------- residual kernels (k->nout > 0) */
#define MMAX 24 /* residual outputs per element */

/* the residual's Jacobian (m x n, row-major) by central differences of r_e */
static void ResidualJacobianFD(const Elem *e, double *Jfd)
{
  const int m = e->k->nout;
  double    xp[NMAX], xm[NMAX], rp[MMAX], rm[MMAX], out[MMAX * NMAX];
  for (int j = 0; j < e->n; j++) {
    memcpy(xp, e->x, sizeof(xp));
    memcpy(xm, e->x, sizeof(xm));
    xp[j] += FD_H;
    xm[j] -= FD_H;
    e->k->residual->element(MFAD_RESIDUAL_VALUE, xp, e->v, e->p, rp, out);
    e->k->residual->element(MFAD_RESIDUAL_VALUE, xm, e->v, e->p, rm, out);
    for (int i = 0; i < m; i++) Jfd[i * e->n + j] = (rp[i] - rm[i]) / (2.0 * FD_H);
  }
}

/* A least-squares kernel's "Hessian" is Gauss-Newton's J^T J, not the Hessian of 1/2 |r|^2: it is
   checked against J_fd^T J_fd, J_fd the central-difference Jacobian of r_e (error ~1e-10 |J|
   relative, so ~1e-10 |J|^2 in the product: bound TOL_FD x max |J^T J|). Writes H_fd (n x n). */
static void GaussNewtonFD(const Elem *e, double *Hfd)
{
  const int m = e->k->nout;
  double    Jfd[MMAX * NMAX];
  ck_assert_msg(m <= MMAX && e->k->residual && e->k->sum == MFAD_SUM_LEAST_SQUARES, "%s: %d outputs, sum %d: not a least-squares kernel this test knows", e->ex->name, m, (int)e->k->sum);
  ResidualJacobianFD(e, Jfd);
  for (int i = 0; i < e->n; i++)
    for (int j = 0; j < e->n; j++) {
      Hfd[i * e->n + j] = 0.0;
      for (int k = 0; k < m; k++) Hfd[i * e->n + j] += Jfd[k * e->n + i] * Jfd[k * e->n + j];
    }
}

/* ---------------------------------------------------------------- tests */
START_TEST(builtin_kernel_is_found_with_its_sizes)
{
  const Expect *x = &Builtins[_i];
  MfadKernel    k = Find(x->name);
  ck_assert_msg(!strcmp(k->name, x->name), "kernel found for \"%s\" is named \"%s\"", x->name, k->name);
  ck_assert_msg(k->nvert == x->nvert && k->dof == x->dof && k->nparam == x->nparam && k->rest_dim == x->rest_dim && k->nmaterial == x->nmaterial,
                "%s: sizes nvert %d dof %d nparam %d rest_dim %d nmaterial %d, expected %d %d %d %d %d", x->name, k->nvert, k->dof, k->nparam,
                k->rest_dim, k->nmaterial, x->nvert, x->dof, x->nparam, x->rest_dim, x->nmaterial);
  ck_assert_msg(!k->rest_dim == !k->rest, "%s: rest_dim %d but rest set-up %s", x->name, k->rest_dim, k->rest ? "present" : "absent");
  ck_assert_msg(k->element && k->flops && k->cpu_value && k->cpu_gradient && k->cpu_hvp && k->cpu_diagonal && k->cpu_blockdiag && k->cpu_hessian,
                "%s: an entry point is NULL", x->name);
}
END_TEST

START_TEST(value_matches_closed_form)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double E, ref, mag;
    ElemSetUp(_i, t, &e);
    E   = Value(&e, e.x);
    ref = ClosedForm(&e, e.x, &mag);
    AssertClose(&e, t, "value vs closed form", &E, &ref, 1, TOL_CLOSE * mag);
  }
}
END_TEST

START_TEST(every_mode_returns_the_same_value)
{
  /* the same double operations in every mode, up to FMA contraction: a few ulps per operation */
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double E[3], g[NMAX], H[NMAX * NMAX], mag;
    ElemSetUp(_i, t, &e);
    (void)ClosedForm(&e, e.x, &mag);
    E[0] = Value(&e, e.x);
    E[1] = Gradient(&e, e.x, g);
    E[2] = Hessian(&e, e.x, H);
    AssertClose(&e, t, "gradient-mode value", &E[1], &E[0], 1, TOL_CLOSE * mag);
    AssertClose(&e, t, "Hessian-mode value", &E[2], &E[0], 1, TOL_CLOSE * mag);
  }
}
END_TEST

START_TEST(gradient_matches_central_fd_of_value)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double g[NMAX], fd[NMAX], xp[NMAX], xm[NMAX], E;
    ElemSetUp(_i, t, &e);
    E = Gradient(&e, e.x, g);
    for (int i = 0; i < e.n; i++) {
      memcpy(xp, e.x, sizeof(xp));
      memcpy(xm, e.x, sizeof(xm));
      xp[i] += FD_H;
      xm[i] -= FD_H;
      fd[i] = (Value(&e, xp) - Value(&e, xm)) / (2.0 * FD_H);
    }
    AssertClose(&e, t, "gradient vs FD of value", g, fd, e.n, TOL_FD * fmax(fabs(E), MaxAbs(g, e.n)));
  }
}
END_TEST

START_TEST(hvp_matches_central_fd_of_gradient)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double hv[NMAX], fd[NMAX], g[NMAX], gp[NMAX], gm[NMAX], xp[NMAX], xm[NMAX], E;
    ElemSetUp(_i, t, &e);
    e.k->element(MFAD_MODE_HVP, e.x, e.v, e.p, &E, hv);
    Gradient(&e, e.x, g);
    if (e.k->nout > 0) { /* Gauss-Newton: J^T J v against J_fd^T J_fd v */
      double Hfd[NMAX * NMAX];
      GaussNewtonFD(&e, Hfd);
      for (int i = 0; i < e.n; i++) {
        fd[i] = 0.0;
        for (int j = 0; j < e.n; j++) fd[i] += Hfd[i * e.n + j] * e.v[j];
      }
      AssertClose(&e, t, "Gauss-Newton product vs J_fd^T J_fd v", hv, fd, e.n, TOL_FD * fmax(MaxAbs(Hfd, e.n * e.n), MaxAbs(hv, e.n)));
      continue;
    }
    for (int i = 0; i < e.n; i++) xp[i] = e.x[i] + FD_H * e.v[i], xm[i] = e.x[i] - FD_H * e.v[i];
    Gradient(&e, xp, gp);
    Gradient(&e, xm, gm);
    for (int i = 0; i < e.n; i++) fd[i] = (gp[i] - gm[i]) / (2.0 * FD_H);
    AssertClose(&e, t, "HVP vs FD of gradient", hv, fd, e.n, TOL_FD * fmax(MaxAbs(g, e.n), MaxAbs(hv, e.n)));
  }
}
END_TEST

START_TEST(hessian_matches_central_fd_of_gradient)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double H[NMAX * NMAX], fd[NMAX * NMAX], g[NMAX], gp[NMAX], gm[NMAX], xp[NMAX], xm[NMAX];
    ElemSetUp(_i, t, &e);
    Hessian(&e, e.x, H);
    Gradient(&e, e.x, g);
    if (e.k->nout > 0) { /* Gauss-Newton: J^T J against J_fd^T J_fd */
      GaussNewtonFD(&e, fd);
      AssertClose(&e, t, "Gauss-Newton matrix vs J_fd^T J_fd", H, fd, e.n * e.n, TOL_FD * MaxAbs(fd, e.n * e.n));
      continue;
    }
    for (int j = 0; j < e.n; j++) {
      memcpy(xp, e.x, sizeof(xp));
      memcpy(xm, e.x, sizeof(xm));
      xp[j] += FD_H;
      xm[j] -= FD_H;
      Gradient(&e, xp, gp);
      Gradient(&e, xm, gm);
      for (int i = 0; i < e.n; i++) fd[i * e.n + j] = (gp[i] - gm[i]) / (2.0 * FD_H);
    }
    AssertClose(&e, t, "Hessian vs FD of gradient", H, fd, e.n * e.n, TOL_FD * fmax(MaxAbs(g, e.n), MaxAbs(H, e.n * e.n)));
  }
}
END_TEST

START_TEST(hvp_matches_hessian_times_v)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double H[NMAX * NMAX], hv[NMAX], Hv[NMAX], scale = 0.0, E;
    ElemSetUp(_i, t, &e);
    Hessian(&e, e.x, H);
    e.k->element(MFAD_MODE_HVP, e.x, e.v, e.p, &E, hv);
    for (int i = 0; i < e.n; i++) {
      double s = 0.0;
      Hv[i]    = 0.0;
      for (int j = 0; j < e.n; j++) Hv[i] += H[i * e.n + j] * e.v[j], s += fabs(H[i * e.n + j] * e.v[j]);
      scale = fmax(scale, s);
    }
    AssertClose(&e, t, "HVP vs H v", hv, Hv, e.n, TOL_HVP * scale);
  }
}
END_TEST

/* The CPU diagonal loop, which runs its own AD mode (mfad/impl/ad.h: second derivatives along the
   axes only, 2N + 1 doubles per number), against the diagonal of the element Hessian: both exact
   to round-off, TOL_HVP relative to max |H_ij| */
START_TEST(diagonal_loop_matches_hessian_diagonal)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem     e;
    double   H[NMAX * NMAX], d[NMAX], dg[NMAX], bv;
    int      conn[NMAX], bs[2] = {0, 1}, cs[2] = {0, 1}, cb[1] = {0};
    MfadLoop L;
    ElemSetUp(_i, t, &e);
    Hessian(&e, e.x, H);
    for (int i = 0; i < e.n; i++) d[i] = H[i * e.n + i], dg[i] = 0.0;
    for (int a = 0; a < e.k->nvert; a++) conn[a] = a;
    memset(&L, 0, sizeof(L));
    L.nelem = 1, L.conn = conn, L.params = e.p, L.weight = 1.0, L.x = e.x, L.v = e.v, L.y = dg, L.block_value = &bv;
    L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1;
    e.k->cpu_diagonal(&L);
    AssertClose(&e, t, "diagonal loop vs Hessian diagonal", dg, d, e.n, TOL_HVP * MaxAbs(H, e.n * e.n));
    e.k->element(MFAD_MODE_DIAGONAL, e.x, e.v, e.p, &bv, dg);
    AssertClose(&e, t, "diagonal mode vs Hessian diagonal", dg, d, e.n, TOL_HVP * MaxAbs(H, e.n * e.n));
  }
}
END_TEST

START_TEST(hessian_is_symmetric)
{
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double H[NMAX * NMAX], Ht[NMAX * NMAX];
    ElemSetUp(_i, t, &e);
    Hessian(&e, e.x, H);
    for (int i = 0; i < e.n; i++)
      for (int j = 0; j < e.n; j++) Ht[i * e.n + j] = H[j * e.n + i];
    AssertClose(&e, t, "H vs H^T", H, Ht, e.n * e.n, TOL_SYM * MaxAbs(H, e.n * e.n));
  }
}
END_TEST

START_TEST(flops_are_positive_in_every_mode)
{
  static const char *const modes[MFAD_MODE_COUNT] = {"value", "gradient", "HVP", "Hessian", "diagonal"};
  Elem                     e;
  double                   f[MFAD_MODE_COUNT];
  ElemSetUp(_i, 0, &e);
  e.k->flops(e.x, e.p, f);
  for (int m = 0; m < MFAD_MODE_COUNT; m++) ck_assert_msg(f[m] > 0.0, "%s: %s mode counts %g flops, expected > 0", e.ex->name, modes[m], f[m]);
}
END_TEST

START_TEST(rest_shape_is_stress_free)
{
  /* at x = rest (laid flat for 2-D kernels) F = I up to round-off ~10 eps: gradient ~ 10 eps |H| L;
     bound 1e-12 |H|_max with L ~ 1 */
  Elem   e;
  double x[NMAX], g[NMAX], H[NMAX * NMAX], zero[NMAX] = {0};
  ElemSetUp(_i, 0, &e);
  if (!e.ex->stress_free) return;
  if (e.k->dof == 3) memcpy(x, e.rest, sizeof(double) * e.n);
  else Fold2D(e.rest, x);
  Gradient(&e, x, g);
  Hessian(&e, x, H);
  AssertClose(&e, 0, "gradient at rest", g, zero, e.n, TOL_CLOSE * MaxAbs(H, e.n * e.n));
}
END_TEST

/* inverted (vertices 1 and 2 swapped) and collapsed (all vertices at one point) elements */
START_TEST(invalid_element_has_infinite_energy_and_finite_derivatives)
{
  Elem   e;
  double x[2][NMAX], out[NMAX * NMAX], E;
  ElemSetUp(_i, 0, &e);
  if (!e.ex->barrier) return;
  memcpy(x[0], e.x, sizeof(x[0]));
  for (int d = 0; d < e.k->dof; d++) x[0][e.k->dof + d] = e.x[2 * e.k->dof + d], x[0][2 * e.k->dof + d] = e.x[e.k->dof + d];
  for (int i = 0; i < e.n; i++) x[1][i] = e.x[i % e.k->dof];
  for (int c = 0; c < 2; c++) {
    const char *what = c ? "collapsed" : "inverted";
    E                = Value(&e, x[c]);
    ck_assert_msg(isinf(E) && E > 0, "%s: %s element has value %g, expected +inf", e.ex->name, what, E);
    for (int m = MFAD_MODE_GRADIENT; m <= MFAD_MODE_HESSIAN; m++) {
      const int nout = m == MFAD_MODE_HESSIAN ? e.n * e.n : e.n;
      e.k->element((MfadMode)m, x[c], e.v, e.p, &E, out);
      ck_assert_msg(isinf(E) && E > 0, "%s: %s element has value %g in mode %d, expected +inf", e.ex->name, what, E, m);
      for (int i = 0; i < nout; i++)
        ck_assert_msg(isfinite(out[i]), "%s: %s element, mode %d: output %d is %g, expected finite", e.ex->name, what, m, i, out[i]);
    }
  }
}
END_TEST

START_TEST(degenerate_rest_shape_is_rejected)
{
  Elem   e;
  double r[18], p[PMAX];
  int    ierr;
  ElemSetUp(_i, 0, &e);
  if (!e.k->rest) return;
  /* all vertices at one point */
  for (int i = 0; i < 3 * e.k->nvert; i++) r[i] = e.rest[i % 3];
  ierr = e.k->rest(r, e.mat, p);
  ck_assert_msg(ierr > 0, "%s: rest set-up of a collapsed element returned %d, expected > 0", e.ex->name, ierr);
  if (e.k->nvert < 3) return;
  /* the last vertex on the line / in the plane of the others, then off it by 1e-12 (tiny against
     edges ~ 1, far below the 1e-10 relative threshold of a degenerate element) */
  for (int h = 0; h < 2; h++) {
    const int last = e.k->ncellvert - 1;
    memcpy(r, e.rest, sizeof(r));
    for (int d = 0; d < 3; d++) {
      r[3 * last + d] = 0.0;
      for (int a = 0; a < last; a++) r[3 * last + d] += e.rest[3 * a + d] / last;
    }
    r[3 * last + 2] += h ? 1e-12 : 0.0; /* the simplex's last direction is z */
    ierr = e.k->rest(r, e.mat, p);
    ck_assert_msg(ierr > 0, "%s: rest set-up of a %s element returned %d, expected > 0", e.ex->name, h ? "nearly flat (height 1e-12)" : "flat", ierr);
  }
}
END_TEST

START_TEST(inverted_rest_simplex_is_rejected)
{
  /* a full-dimensional simplex (tet in 3-D) has an orientation: the mirrored one is rejected */
  Elem   e;
  double r[18], p[PMAX];
  int    ierr;
  ElemSetUp(_i, 0, &e);
  /* the bending hinge has 4 points but is no simplex: swapping two of them is another valid hinge */
  if (!e.k->rest || e.k->nvert != e.k->rest_dim + 1 || !strcmp(e.ex->name, "bending_dihedral")) return;
  memcpy(r, e.rest, sizeof(r));
  for (int d = 0; d < 3; d++) r[3 + d] = e.rest[6 + d], r[6 + d] = e.rest[3 + d];
  ierr = e.k->rest(r, e.mat, p);
  ck_assert_msg(ierr > 0, "%s: rest set-up of an inverted element returned %d, expected > 0", e.ex->name, ierr);
}
END_TEST

START_TEST(rest_setup_is_scale_invariant)
{
  /* the degeneracy test is relative to the element's size: a good element scaled by 1e-6 or 1e6
     is accepted, and its energy under the same relative deformation scales as size^dim (neither
     checked here beyond acceptance and finiteness) */
  Elem   e;
  double r[18], p[PMAX];
  int    ierr;
  ElemSetUp(_i, 0, &e);
  if (!e.k->rest) return;
  for (int s = 0; s < 2; s++) {
    const double scale = s ? 1e6 : 1e-6;
    for (int i = 0; i < 3 * e.k->nvert; i++) r[i] = scale * e.rest[i];
    ierr = e.k->rest(r, e.mat, p);
    ck_assert_msg(ierr == 0, "%s: rest set-up of a good element scaled by %g returned %d, expected 0", e.ex->name, scale, ierr);
    for (int j = 0; j < e.k->nparam; j++) ck_assert_msg(isfinite(p[j]), "%s: scaled by %g, parameter %d is %g", e.ex->name, scale, j, p[j]);
  }
}
END_TEST

/* The built-in energies as they were written before the plain-C port (tests/oracle/), compiled as
   kernels <name>_oracle: the translated energies must give the same results in every mode. The
   same arithmetic in another operation order (sums regrouped, one-variable subtrees applied as one
   chain rule): a few ulps of the largest entry, bound 1e-14 relative to it (~45 eps). */
#define TOL_PORT          1e-14
#define MFAD_ORACLE(name) MFAD_KERNEL_DECLARE(name##_oracle);
#include "mfad_oracles.h"
#undef MFAD_ORACLE
static MfadKernel Oracle(const char *name)
{
#define MFAD_ORACLE(n) \
  if (!strcmp(name, #n)) return MFAD_KERNEL(n##_oracle);
#include "mfad_oracles.h"
#undef MFAD_ORACLE
  return NULL;
}

static void AssertPort(const Elem *e, int t, const char *what, const double *a, const double *b, int n)
{
  double scale = 0.0, err = 0.0;
  int    at = 0;
  for (int i = 0; i < n; i++) scale = fmax(scale, fabs(b[i]));
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > err) err = fabs(a[i] - b[i]), at = i;
  ck_assert_msg(err <= TOL_PORT * scale,
                "%s trial %d: %s differs from the pre-port body: entry %d %.17g vs %.17g, error %.3g > bound %.3g (1e-14 x max %.3g)", e->ex->name, t,
                what, at, a[at], b[at], err, TOL_PORT * scale, scale);
}

START_TEST(ported_energy_matches_its_oracle)
{
  MfadKernel o = Oracle(Builtins[_i].name);
  if (!o) return; /* not ported yet */
  for (int t = 0; t < NTRIAL; t++) {
    Elem   e;
    double p[PMAX], E, Eo, out[NMAX * NMAX], outo[NMAX * NMAX];
    ElemSetUp(_i, t, &e);
    if (e.k->rest) {
      ck_assert_msg(o->rest(e.rest, e.mat, p) == 0, "%s: the oracle's rest set-up failed", e.ex->name);
      AssertPort(&e, t, "rest set-up", e.p, p, e.k->nparam);
    }
    for (MfadMode m = MFAD_MODE_VALUE; m <= MFAD_MODE_HESSIAN; m++) {
      static const char *names[] = {"value", "gradient", "HVP", "Hessian"};
      const int          n       = m == MFAD_MODE_VALUE ? 0 : m == MFAD_MODE_HESSIAN ? e.n * e.n : e.n;
      e.k->element(m, e.x, e.v, e.p, &E, out);
      o->element(m, e.x, e.v, e.p, &Eo, outo);
      AssertPort(&e, t, names[m], &E, &Eo, 1);
      AssertPort(&e, t, names[m], out, outo, n);
    }
  }
}
END_TEST

/* arap_tri_lsq's 1/2 |r|^2 is 1/2 arap_tri at any point, not only near rest: elements of every
   shape (coordinates uniform in [-1, 1]: flipped and degenerate-ish maps included), the two bodies
   differing in operation order only (|J - R|^2 expanded against |J|^2 + 2 - 2 sqrt(...)): cancellation
   in arap_tri's form leaves ~10 eps of A (|J|^2 + 2), bound 1e-12 of it */
START_TEST(arap_tri_lsq_is_half_arap_tri)
{
  int        kidx = -1;
  MfadKernel a    = Find("arap_tri");
  for (int i = 0; i < NKERN; i++)
    if (!strcmp(Builtins[i].name, "arap_tri_lsq")) kidx = i;
  for (int t = 0; t < 32; t++) {
    Elem   e;
    double El, Ea, J2 = 0.0;
    ElemSetUp(kidx, t, &e);
    if (t >= NTRIAL)
      for (int i = 0; i < e.n; i++) e.x[i] = Uniform(-1.0, 1.0);
    El = Value(&e, e.x);
    a->element(MFAD_MODE_VALUE, e.x, e.v, e.p, &Ea, NULL);
    for (int i = 0; i < e.n; i++) J2 += e.x[i] * e.x[i];
    /* |J|^2 <= |Dm^{-1}|^2 |Ds|^2 <= |Dm^{-1}|^2 4 |x|^2 */
    J2 *= 4.0 * (e.p[0] * e.p[0] + e.p[1] * e.p[1] + e.p[2] * e.p[2] + e.p[3] * e.p[3]);
    Ea *= 0.5;
    AssertClose(&e, t, "1/2 |r|^2 vs 1/2 arap_tri", &El, &Ea, 1, 1e-12 * e.p[4] * (J2 + 2.0));
  }
}
END_TEST

static Suite *KernelSuite(void)
{
  Suite *s  = suite_create("kernels");
  TCase *tc = tcase_create("builtin");
  tcase_add_loop_test(tc, builtin_kernel_is_found_with_its_sizes, 0, NKERN);
  tcase_add_loop_test(tc, value_matches_closed_form, 0, NKERN);
  tcase_add_loop_test(tc, every_mode_returns_the_same_value, 0, NKERN);
  tcase_add_loop_test(tc, gradient_matches_central_fd_of_value, 0, NKERN);
  tcase_add_loop_test(tc, hvp_matches_central_fd_of_gradient, 0, NKERN);
  tcase_add_loop_test(tc, hessian_matches_central_fd_of_gradient, 0, NKERN);
  tcase_add_loop_test(tc, hvp_matches_hessian_times_v, 0, NKERN);
  tcase_add_loop_test(tc, diagonal_loop_matches_hessian_diagonal, 0, NKERN);
  tcase_add_loop_test(tc, hessian_is_symmetric, 0, NKERN);
  tcase_add_loop_test(tc, flops_are_positive_in_every_mode, 0, NKERN);
  tcase_add_loop_test(tc, rest_shape_is_stress_free, 0, NKERN);
  tcase_add_loop_test(tc, invalid_element_has_infinite_energy_and_finite_derivatives, 0, NKERN);
  tcase_add_loop_test(tc, degenerate_rest_shape_is_rejected, 0, NKERN);
  tcase_add_loop_test(tc, inverted_rest_simplex_is_rejected, 0, NKERN);
  tcase_add_loop_test(tc, rest_setup_is_scale_invariant, 0, NKERN);
  tcase_add_loop_test(tc, ported_energy_matches_its_oracle, 0, NKERN);
  tcase_add_test(tc, arap_tri_lsq_is_half_arap_tri);
  suite_add_tcase(s, tc);
  return s;
}

int main(void)
{
  SRunner *sr = srunner_create(KernelSuite());
  int      nfail;
  srunner_run_all(sr, CK_SILENT); /* nothing on success; failures below */
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
