// SPDX-License-Identifier: BSD-2-Clause
/* Forward-over-reverse (mfad-energy's adjoint sweep, mfad/impl/ad_reverse.h), at the features or, for
   an energy without, at the unknowns, against forward-over-forward. Each built-in energy whose body
   mfad-energy reverses (and two energies a user writes: tests/features.cmake) is compiled here a
   second time with -DMFAD_NO_REVERSE (the kernel <name>_fof); the library's kernel and it must
   give the same value, gradient and HVP on valid elements (rest shapes perturbed, the current
   shape stretched 0.5-1.5 and perturbed) and on elements that cross an energy's wall (value
   +inf, derivatives zero in both). Tolerance 1e-12 relative to the largest entry: the two modes
   apply the same chain rules in another order (bending_dihedral's gradient differs by up to
   3.7e-13 where theta - theta0 is small: against the exact gradient (50 digits) reverse was 2.3e-13
   off, forward 4.2e-13; every other energy is within 5e-14). Run through the host element entry point and
   through the CPU loop (MatMult's path), so the loop's copy of the element body is covered too. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* tests the reverse bodies element by element and in the CPU loops: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>

#define MFAD_REVERSE_ENERGY(name) \
  MFAD_KERNEL_DECLARE(name); \
  MFAD_KERNEL_DECLARE(name##_fof);
#include "mfad_reverse_energies.h"
#undef MFAD_REVERSE_ENERGY

typedef struct {
  const char *name;
  MfadKernel  k, fof;
} Case;
static const Case Cases[] = {
#define MFAD_REVERSE_ENERGY(n) {#n, MFAD_KERNEL(n), MFAD_KERNEL(n##_fof)},
#include "mfad_reverse_energies.h"
#undef MFAD_REVERSE_ENERGY
};
#define NCASE  ((int)(sizeof(Cases) / sizeof(Cases[0])))
#define NTRIAL 200
#define NMAX   18 /* unknowns per element: arap_surface's 6 vertices (3 corners, 3 rotation nodes) */
#define NVMAX  6

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

/* trial t: a rest simplex (rest_dim 3 for every built-in that has a rest shape), material, the current shape and v;
   trials t % 4 == 3 are squashed (stretch 0.05 along one axis and reflected in half of them),
   so energies with a wall meet it. The current shape is moved off the origin (the sphere energies
   read the directions of their vertices); vertices beyond the cell's (arap_surface's rotation
   nodes) get random Gibbs vectors. */
static int Point(MfadKernel k, int t, double *x, double *v, double *p)
{
  static const double S[4][3] = {
      {0,   0,                   0                },
      {1,   0,                   0                },
      {0.5, 0.8660254037844386,  0                },
      {0.5, 0.28867513459481287, 0.816496580927726}
  };
  double r[4 * 3], m[4];
  Rng = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)(t + 1) * 0xBF58476D1CE4E5B9ULL;
  for (int a = 0; a < k->ncellvert; a++)
    for (int d = 0; d < 3; d++) r[3 * a + d] = S[a][d] + Uniform(-0.05, 0.05);
  for (int i = 0; i < k->nmaterial; i++) m[i] = Uniform(0.5, 2.0);
  if (!k->rest) /* a vertex energy (gravity, a pin, a penalty): parameters positive, of order one */
    for (int i = 0; i < k->nparam; i++) p[i] = Uniform(0.5, 1.5);
  else if (k->rest(r, m, p)) return 1;
  const double s = Uniform(0.5, 1.5), squash = t % 4 == 3 ? (t % 8 == 3 ? 0.05 : -0.3) : 1.0;
  for (int a = 0; a < k->nvert; a++)
    for (int d = 0; d < k->dof; d++) {
      const int i = a * k->dof + d;
      x[i] = a < k->ncellvert ? s * r[3 * a + d] * (d == 0 ? squash : 1.0) + (d == 2 ? 1.5 : 0.0) + Uniform(-0.05, 0.05) : Uniform(-0.5, 0.5);
      v[i] = Uniform(-1.0, 1.0);
    }
  return 0;
}

static double MaxAbs(int n, const double *a)
{
  double m = 0.0;
  for (int i = 0; i < n; i++) m = fmax(m, fabs(a[i]));
  return m;
}

START_TEST(builtin_energies_are_reversed)
{
  for (int c = 0; c < NCASE; c++) {
    MfadKernel k = Cases[c].k;
    ck_assert_msg(k->reverse == 1, "%s: mfad-energy wrote no reverse body (run it with MFAD_ENERGY_VERBOSE=1 for why)", Cases[c].name);
    ck_assert_int_eq(Cases[c].fof->reverse, 0);
  }
}
END_TEST

START_TEST(reverse_matches_forward_over_forward)
{
  int walls = 0;
  for (int c = 0; c < NCASE; c++) {
    MfadKernel k = Cases[c].k, f = Cases[c].fof;
    const int n = k->nvert * k->dof;
    for (int t = 0; t < NTRIAL; t++) {
      double x[NMAX], v[NMAX], p[32], out[2][2][NMAX], val[2][2];
      ck_assert_int_eq(Point(k, t, x, v, p), 0);
      for (int w = 0; w < 2; w++) {
        MfadKernel kk = w ? f : k;
        kk->element(MFAD_MODE_GRADIENT, x, v, p, &val[w][0], out[w][0]);
        kk->element(MFAD_MODE_HVP, x, v, p, &val[w][1], out[w][1]);
      }
      if (isinf(val[1][0])) {
        walls++;
        ck_assert_msg(isinf(val[0][0]) && isinf(val[0][1]), "%s trial %d: value %.3e where forward-over-forward has +inf", Cases[c].name, t, val[0][0]);
        ck_assert_msg(MaxAbs(n, out[0][0]) == 0.0 && MaxAbs(n, out[0][1]) == 0.0, "%s trial %d: derivatives at the wall are not zero", Cases[c].name, t);
        continue;
      }
      /* a value that cancels (ARAP near rest) differs by the rounding of its terms, whose size
         |g| |x| gives */
      const double vscale = fabs(val[1][0]) + MaxAbs(n, out[1][0]) * MaxAbs(n, x);
      ck_assert_msg(fabs(val[0][0] - val[1][0]) <= 1e-13 * vscale, "%s trial %d: value %.17e vs %.17e", Cases[c].name, t, val[0][0], val[1][0]);
      for (int m = 0; m < 2; m++) {
        const double scale = MaxAbs(n, out[1][m]);
        for (int i = 0; i < n; i++)
          ck_assert_msg(fabs(out[0][m][i] - out[1][m][i]) <= 1e-12 * scale, "%s trial %d %s[%d]: %.17e (reverse) vs %.17e (forward), scale %.3e", Cases[c].name, t,
                        m ? "hvp" : "gradient", i, out[0][m][i], out[1][m][i], scale);
      }
    }
  }
  ck_assert_msg(walls > 0, "no trial met an energy's wall: the +inf path is untested");
}
END_TEST

/* the CPU loops (MatMult's path) over many separate elements */
START_TEST(reverse_loops_match)
{
  enum { NE = 64 };
  for (int c = 0; c < NCASE; c++) {
    MfadKernel k = Cases[c].k, f = Cases[c].fof;
    const int n = k->nvert * k->dof, np = k->nparam;
    int       conn[NE * NVMAX], bs[2] = {0, NE}, cs[2] = {0, 1}, cb[1] = {0}, ne = 0;
    double    x[NE * NMAX], v[NE * NMAX], p[NE * 32], y[2][2][NE * NMAX], bv;
    for (int t = 0; ne < NE; t++) {
      if (t % 4 == 3) continue; /* valid elements only: a loop sums +inf */
      ck_assert_int_eq(Point(k, t, x + ne * n, v + ne * n, p + ne * np), 0);
      ne++;
    }
    for (int i = 0; i < NE * k->nvert; i++) conn[i] = i;
    for (int w = 0; w < 2; w++) {
      MfadKernel kk = w ? f : k;
      MfadLoop   L  = {0};
      L.nelem = NE, L.conn = conn, L.params = p, L.weight = 1.0, L.x = x, L.v = v, L.block_value = &bv;
      L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1;
      memset(y[w], 0, sizeof(y[w]));
      L.y = y[w][0];
      kk->cpu_gradient(&L);
      L.y = y[w][1];
      kk->cpu_hvp(&L);
    }
    for (int m = 0; m < 2; m++) {
      const double scale = MaxAbs(NE * n, y[1][m]);
      for (int i = 0; i < NE * n; i++)
        ck_assert_msg(fabs(y[0][m][i] - y[1][m][i]) <= 1e-12 * scale, "%s loop %s[%d]: %.17e vs %.17e", Cases[c].name, m ? "hvp" : "gradient", i, y[0][m][i], y[1][m][i]);
    }
  }
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("reverse");
  TCase   *tc = tcase_create("reverse");
  SRunner *sr;
  int      nf;
  tcase_add_test(tc, builtin_energies_are_reversed);
  tcase_add_test(tc, reverse_matches_forward_over_forward);
  tcase_add_test(tc, reverse_loops_match);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  nf = srunner_ntests_failed(sr);
  srunner_free(sr);
  return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
