// SPDX-License-Identifier: BSD-2-Clause
/* The plain-C energies (energies/<name>.c, translated by mfad-energy) against the pointer-dialect
   bodies they replaced (tests/oracle/<name>.h), through the same CPU element loops, compiled into
   this program with the same flags: gradient, fused HVP and element Hessian, one thread, medians
   of interleaved repetitions (the machine is shared: ratios within one run are what count).
     build/bench/bench_port [-elements 20000] [-reps 9] [-energy name]
   Prints one row per energy: microseconds per element and the ratio new/old (< 1: faster).
   The last column, element Hessians PSD-projected (-mfad_psd_project abs, epsilon 0) as
   src/hessian.c does it: an energy at features projects its feature Hessian inside the loop
   (9 x 9 for a tet), the others (and every oracle) project the N x N element Hessian after it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* runs kernels' loops and the PSD projection directly: the machinery itself */
#include <mfad/impl/kernel.h>
#include <mfad/impl/psd.h>

#define MFAD_PORT(name) \
  MFAD_KERNEL_DECLARE(name##_new); \
  MFAD_KERNEL_DECLARE(name##_oracle);
#include "mfad_port_bench.h"
#undef MFAD_PORT

typedef struct {
  const char *name;
  MfadKernel  k[2]; /* new, old */
} Pair;
static const Pair Pairs[] = {
/* clang-format off */
#define MFAD_PORT(n) {#n, {MFAD_KERNEL(n##_new), MFAD_KERNEL(n##_oracle)}},
/* clang-format on */
#include "mfad_port_bench.h"
#undef MFAD_PORT
};

static unsigned long long Rng = 0x9E3779B97F4A7C15ULL;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

static double Now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int CompareDouble(const void *a, const void *b)
{
  return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b);
}

/* Valid elements as in tests/test_kernels.c: a perturbed unit simplex at rest, the current shape
   scaled by 0.8-1.2 and perturbed; kernels without a rest set-up get parameters in [0.5, 1.5]. */
static const double Simplex[4][3] = {
    {0,   0,                   0                },
    {1,   0,                   0                },
    {0.5, 0.8660254037844386,  0                },
    {0.5, 0.28867513459481287, 0.816496580927726}
};
static int MakeElements(MfadKernel k, const char *name, int nelem, double *x, double *v, double *p)
{
  const int n = k->nvert * k->dof;
  for (int e = 0; e < nelem; e++) {
    double rest[6 * 3] = {0}, mat[4];
    if (k->rest) {
      const double s = Uniform(0.8, 1.2), lift = strncmp(name, "sphere_", 7) ? 0.0 : 2.0;
      for (int a = 0; a < k->ncellvert; a++)
        for (int d = 0; d < 3; d++) rest[3 * a + d] = Simplex[a][d] + Uniform(-0.05, 0.05);
      for (int m = 0; m < k->nmaterial; m++) mat[m] = Uniform(0.5, 2.0);
      if (k->rest(rest, mat, p + (long)e * k->nparam)) return 1;
      for (int a = 0; a < k->nvert; a++)
        for (int d = 0; d < k->dof; d++)
          x[(long)e * n + a * k->dof + d] =
              a < k->ncellvert ? s * rest[3 * a + d] + Uniform(-0.05, 0.05) + (d == 2 ? lift : 0.0) : Uniform(-1.0, 1.0);
    } else {
      for (int j = 0; j < k->nparam; j++) p[(long)e * k->nparam + j] = Uniform(0.5, 1.5);
      for (int i = 0; i < n; i++) x[(long)e * n + i] = Uniform(-1.0, 1.0);
    }
    for (int i = 0; i < n; i++) v[(long)e * n + i] = Uniform(-1.0, 1.0);
  }
  return 0;
}

int main(int argc, char **argv)
{
  int         nelem = 20000, reps = 9;
  const char *only = NULL;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-elements")) nelem = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-reps")) reps = atoi(argv[i + 1]);
    else if (!strcmp(argv[i], "-energy")) only = argv[i + 1];
    else {
      fprintf(stderr, "usage: %s [-elements 20000] [-reps 9] [-energy name]\n", argv[0]);
      return 1;
    }
  }
  if (nelem < 1 || reps < 1 || reps > 99) return 1;
  printf("%-28s %9s %9s %7s %9s %9s %7s %9s %9s %7s %9s %9s %7s\n", "energy (us/element, 1 thread)", "grad new", "old", "ratio", "hvp new", "old", "ratio",
         "hess new", "old", "ratio", "psd new", "old", "ratio");
  for (size_t q = 0; q < sizeof(Pairs) / sizeof(Pairs[0]); q++) {
    const Pair *P = &Pairs[q];
    MfadKernel  k = P->k[0];
    const int   n = k->nvert * k->dof;
    if (only && strcmp(only, P->name)) continue;
    int    *conn = malloc(sizeof(int) * (size_t)nelem * k->nvert);
    double *x = malloc(sizeof(double) * (size_t)nelem * n), *v = malloc(sizeof(double) * (size_t)nelem * n);
    double *p = malloc(sizeof(double) * ((size_t)nelem * k->nparam + 1)), *y = malloc(sizeof(double) * (size_t)nelem * n * n);
    double  bv, t[4][2][99];
    int     bs[2] = {0, nelem}, cs[2] = {0, 1}, cb[1] = {0};
    for (int i = 0; i < nelem * k->nvert; i++) conn[i] = i; /* separate elements: the element arithmetic, not the scatter */
    Rng = 0x9E3779B97F4A7C15ULL;
    if (MakeElements(k, P->name, nelem, x, v, p)) {
      fprintf(stderr, "%s: rest set-up failed\n", P->name);
      return 1;
    }
    MfadLoop L = {0};
    L.nelem = nelem, L.conn = conn, L.params = k->nparam ? p : NULL, L.weight = 1.0, L.x = x, L.v = v, L.y = y, L.block_value = &bv;
    L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1, L.parallel = 0;
    for (int r = -1; r < reps; r++) /* r = -1: warm-up; old and new interleaved */
      for (int which = 0; which < 2; which++) {
        MfadKernel kk    = P->k[which];
        MfadLoopFn fn[3] = {kk->cpu_gradient, kk->cpu_hvp, kk->cpu_hessian};
        for (int op = 0; op < 4; op++) {
          const double t0 = Now();
          if (op < 2) memset(y, 0, sizeof(double) * (size_t)nelem * n);
          if (op < 3) fn[op](&L);
          else if (kk->nfeat > 0) { /* projected in feature space, inside the loop */
            L.psd = MFAD_PSD_MODE_ABS;
            kk->cpu_hessian(&L);
            L.psd = 0;
          } else {
            kk->cpu_hessian(&L);
            for (int e = 0; e < nelem; e++) (void)mfad_psd_project(n, y + (size_t)e * n * n, MFAD_PSD_MODE_ABS, 0.0);
          }
          if (r >= 0) t[op][which][r] = Now() - t0;
        }
      }
    printf("%-28s", P->name);
    for (int op = 0; op < 4; op++) {
      double med[2];
      for (int w = 0; w < 2; w++) {
        qsort(t[op][w], (size_t)reps, sizeof(double), CompareDouble);
        med[w] = t[op][w][reps / 2];
      }
      printf(" %9.3f %9.3f %7.3f", 1e6 * med[0] / nelem, 1e6 * med[1] / nelem, med[0] / med[1]);
    }
    printf("\n");
    free(conn), free(x), free(v), free(p), free(y);
  }
  return 0;
}
