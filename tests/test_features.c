// SPDX-License-Identifier: BSD-2-Clause
/* Energies at features (MfadEnergyInfo .features/.feature): the built-in neohookean_tet (F = Ds
   Dm^-1, 9 features of 12 unknowns) and mass_spring (the edge vector, 3 of 6), compiled here as
   plain C, define E(x, p) = psi(fmap(x, p), p) (mfad_energy_eval). The kernels, which run AD at
   the features and pull back through B, must give that value in every mode, a gradient matching
   central differences of it, an HVP equal to H v, a symmetric Hessian with the rigid translations
   in its null space, and, PSD-projected in feature space (B^T |H_F| B), a PSD matrix that equals
   the exact Hessian where that is PSD already.
   Tolerances: O(1) elements, central differences with h = 6e-6 (truncation ~ h^2/6 |f'''| ~ 1e-11,
   rounding eps |E| / h ~ 4e-11): 1e-7 relative; values: the same operations up to the map's
   regrouped sums, 1e-13 relative; exact against exact (HVP vs H v, symmetry, H 1 = 0 for
   translations): 1e-12 relative to |H|; eigenvalues >= -1e-12 |H| (the eigensolver's round-off). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests the machinery's PSD projection of feature Hessians */
#include <mfad/impl/psd.h>
#include "../energies/neohookean_tet.c"
#include "../energies/mass_spring.c"

MFAD_KERNEL_DECLARE(neohookean_tet);
MFAD_KERNEL_DECLARE(mass_spring);

#define NMAX   12
#define NTRIAL 8
#define FD_H   6.0e-6

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

typedef struct {
  MfadKernel            k;
  const MfadEnergyInfo *info;
} Case;

/* trial t of energy c: a valid element (perturbed unit simplex at rest, the current shape scaled
   by `stretch` and perturbed), its parameters and a direction */
static int Point(const Case *c, int t, double stretch, double *x, double *v, double *p)
{
  static const double S[4][3] = {
      {0,   0,                   0                },
      {1,   0,                   0                },
      {0.5, 0.8660254037844386,  0                },
      {0.5, 0.28867513459481287, 0.816496580927726}
  };
  const int n = c->k->nvert * c->k->dof;
  double    r[12], m[2] = {1.0, 2.0};
  Rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(t + 1) * 0xBF58476D1CE4E5B9ULL;
  for (int a = 0; a < c->k->nvert; a++)
    for (int d = 0; d < 3; d++) r[3 * a + d] = S[a][d] + Uniform(-0.05, 0.05);
  m[0] = Uniform(0.5, 2.0), m[1] = Uniform(0.5, 2.0);
  if (c->k->rest(r, m, p)) return 1;
  for (int i = 0; i < n; i++) x[i] = stretch * r[i] + Uniform(-0.05, 0.05), v[i] = Uniform(-1, 1);
  return 0;
}

static double Eval(const Case *c, MfadMode m, const double *x, const double *v, const double *p, double *out)
{
  double E;
  c->k->element(m, x, v, p, &E, out);
  return E;
}

static double MaxAbs(const double *a, int n)
{
  double s = 0.0;
  for (int i = 0; i < n; i++) s = fmax(s, fabs(a[i]));
  return s;
}

static void AssertClose(const char *name, int t, const char *what, const double *a, const double *b, int n, double rtol)
{
  double err = 0.0, scale = MaxAbs(b, n);
  int    at = 0;
  for (int i = 0; i < n; i++)
    if (fabs(a[i] - b[i]) > err) err = fabs(a[i] - b[i]), at = i;
  ck_assert_msg(err <= rtol * fmax(scale, 1e-300), "%s trial %d: %s: entry %d %.17g vs %.17g, error %.3g > bound %.3g", name, t, what, at, a[at],
                b[at], err, rtol * scale);
}

static Case Cases[2];
static void InitCases(void)
{
  Cases[0].k = MFAD_KERNEL(neohookean_tet), Cases[0].info = &neohookean_tet_info;
  Cases[1].k = MFAD_KERNEL(mass_spring), Cases[1].info = &mass_spring_info;
}

START_TEST(kernels_declare_their_features)
{
  InitCases();
  for (int q = 0; q < 2; q++)
    ck_assert_msg(Cases[q].k->nfeat == Cases[q].info->features, "%s: kernel nfeat %d, energy .features %d", Cases[q].k->name, Cases[q].k->nfeat,
                  Cases[q].info->features);
}
END_TEST

START_TEST(value_gradient_hvp_hessian_match_the_plain_c_energy)
{
  InitCases();
  for (int q = 0; q < 2; q++) {
    const Case *c = &Cases[q];
    const int   n = c->k->nvert * c->k->dof;
    for (int t = 0; t < NTRIAL; t++) {
      double x[NMAX], v[NMAX], p[16], g[NMAX], fd[NMAX], H[NMAX * NMAX], HT[NMAX * NMAX], hv[NMAX], Hv[NMAX] = {0}, ref, E;
      ck_assert(!Point(c, t, 1.0 + 0.1 * t, x, v, p));
      ref = mfad_energy_eval(c->info, x, p);
      for (MfadMode m = MFAD_MODE_VALUE; m <= MFAD_MODE_HESSIAN; m++) {
        E = Eval(c, m, x, v, p, H);
        AssertClose(c->k->name, t, "value vs psi(fmap(x))", &E, &ref, 1, 1e-13);
      }
      Eval(c, MFAD_MODE_GRADIENT, x, v, p, g);
      for (int i = 0; i < n; i++) {
        double xp[NMAX], xm[NMAX];
        memcpy(xp, x, sizeof(xp)), memcpy(xm, x, sizeof(xm));
        xp[i] += FD_H, xm[i] -= FD_H;
        fd[i] = (mfad_energy_eval(c->info, xp, p) - mfad_energy_eval(c->info, xm, p)) / (2 * FD_H);
      }
      AssertClose(c->k->name, t, "gradient vs FD of psi(fmap(x))", g, fd, n, 1e-7);
      Eval(c, MFAD_MODE_HESSIAN, x, v, p, H);
      Eval(c, MFAD_MODE_HVP, x, v, p, hv);
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) Hv[i] += H[i * n + j] * v[j], HT[j * n + i] = H[i * n + j];
      AssertClose(c->k->name, t, "HVP vs H v", hv, Hv, n, 1e-12);
      AssertClose(c->k->name, t, "H vs H^T", H, HT, n * n, 1e-12);
      for (int d = 0; d < 3; d++) { /* a rigid translation along d: in the null space of B, so of H */
        double Hu[NMAX] = {0};
        for (int i = 0; i < n; i++)
          for (int a = 0; a < c->k->nvert; a++) Hu[i] += H[i * n + 3 * a + d];
        ck_assert_msg(MaxAbs(Hu, n) <= 1e-12 * MaxAbs(H, n * n), "%s trial %d: |H u| = %.3e for the translation along %d, |H| = %.3e", c->k->name, t,
                      MaxAbs(Hu, n), d, MaxAbs(H, n * n));
      }
    }
  }
}
END_TEST

/* The projected element Hessian as src/hessian.c computes it for an energy at features: the
   kernel's Hessian loop with MfadLoop psd set, on one element */
static void ProjectedHessian(const Case *c, const double *x, const double *p, int mode, double *H)
{
  int      conn[4] = {0, 1, 2, 3}, bs[2] = {0, 1}, cs[2] = {0, 1}, cb[1] = {0};
  double   bv;
  MfadLoop L;
  memset(&L, 0, sizeof(L));
  L.nelem = 1, L.conn = conn, L.params = p, L.weight = 1.0, L.x = x, L.y = H, L.block_value = &bv;
  L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1;
  L.psd = mode, L.psd_eps = 0.0;
  c->k->cpu_hessian(&L);
}

START_TEST(feature_space_projection_is_psd_and_keeps_a_psd_hessian)
{
  InitCases();
  for (int q = 0; q < 2; q++) {
    const Case *c = &Cases[q];
    const int   n = c->k->nvert * c->k->dof;
    for (int t = 0; t < NTRIAL; t++) {
      double x[NMAX], v[NMAX], p[16], H[NMAX * NMAX], Hp[NMAX * NMAX], A[NMAX * NMAX], d[NMAX], e[NMAX];
      /* compressed (t even: indefinite for Neo-Hookean, a spring shorter than its rest length) and
         stretched (t odd) elements */
      ck_assert(!Point(c, t, t % 2 ? 1.2 : 0.6, x, v, p));
      Eval(c, MFAD_MODE_HESSIAN, x, v, p, H);
      for (int mode = MFAD_PSD_MODE_CLAMP; mode <= MFAD_PSD_MODE_ABS; mode++) {
        const double scale = MaxAbs(H, n * n);
        ProjectedHessian(c, x, p, mode, Hp);
        memcpy(A, Hp, sizeof(double) * n * n);
        ck_assert(mfad_sym_eig_tridiag(n, A, d, e) == 0);
        for (int i = 0; i < n; i++)
          ck_assert_msg(d[i] >= -1e-12 * scale, "%s trial %d mode %d: eigenvalue %d of the projected Hessian %.3e < -1e-12 |H| = %.3e", c->k->name, t,
                        mode, i, d[i], -1e-12 * scale);
        /* where the exact Hessian is PSD, so is H_F (B is onto: y^T H_F y = v^T H v for B v = y),
           and the projection leaves it: round-off eigenvalues (|lambda| <= 1e-13 |H|) move by at
           most twice that through B's conditioning (well-shaped elements, cond(B)^2 < 50): 1e-11 */
        memcpy(A, H, sizeof(double) * n * n);
        (void)mfad_sym_eig_tridiag(n, A, d, e);
        double lmin = d[0];
        for (int i = 1; i < n; i++) lmin = fmin(lmin, d[i]);
        if (lmin >= -1e-13 * scale) AssertClose(c->k->name, t, "projected PSD Hessian vs exact", Hp, H, n * n, 1e-11);
      }
    }
  }
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("features");
  TCase   *tc = tcase_create("features");
  SRunner *sr;
  int      nfail;
  tcase_add_test(tc, kernels_declare_their_features);
  tcase_add_test(tc, value_gradient_hvp_hessian_match_the_plain_c_energy);
  tcase_add_test(tc, feature_space_projection_is_psd_and_keeps_a_psd_hessian);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? EXIT_FAILURE : EXIT_SUCCESS;
}
