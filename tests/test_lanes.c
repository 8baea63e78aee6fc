// SPDX-License-Identifier: BSD-2-Clause
/* SIMD lanes (mfad/impl/loop_cpu_lanes.h) against the scalar element loop, on every built-in energy
   built with lanes (energies/CMakeLists.txt: LANES, LANES_MODES): the gradient, the blocks' energies,
   the HVP, the value mode's blocks' energies, the Hessian diagonal (LANES_MODES diagonal) and the
   element Hessians (Hessian mode: LANES_MODES hessian; also with their feature Hessians PSD-projected,
   clamp and abs: mfad/impl/psd_lanes.h against mfad/impl/psd.h, to 5e-14) of the same kernel with MfadLoop.scalar = 1 and = 0, on elements that share
   vertices, in blocks whose sizes leave tails (13, 4, 27 and the rest, none a multiple of 4 or 8), with branches on values taken differently in the
   lanes of one group and alike in whole groups: an inverted tet (E = inf for neohookean_tet and volume_barrier_tet) among valid ones, a spring of
   zero length (derivatives 0) among stretched ones, a flipped triangle (E = inf for the 2-D
   barriers) or, in 3-D, a degenerate one of zero area (arap's and the membrane's square roots and
   divisions at 0; stvk_tet and arap_surface have no branch on values: their loops of operations, unrolled on
   the lanes, are what they add). A mode an energy keeps on the scalar loop (LANES_MODES) compares equal bitwise.
   The lanes run the scalar path's operations in its order, and the scatter adds each element in
   element order: equal to 1e-14 of the largest entry, bitwise where the compiler contracts the
   same products into FMA in both and no math.h function but sqrt is taken (ad_lanes.h's log is
   within an ulp of the C library's, glibc's vector math within 4 ulps: tests/test_lanes_math.c;
   -DMFAD_LANES_EXACT_MATH takes the C library's); the test prints which. The lanes' element
   Hessians and diagonals take the feature Hessian by forward-over-reverse where the scalar path
   takes Hessian numbers (diagonal numbers): to 1e-14 of the largest entry as well, not bitwise. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* runs the kernels' CPU loops directly */
#include <mfad/impl/kernel.h>
#include <mfad/impl/psd.h> /* MFAD_PSD_MODE_* */

/* the energies declared LANES in energies/CMakeLists.txt (every one the translator takes on lanes) */
static const char *const LanesEnergies[] = {"neohookean_tet",
                                            "mass_spring",
                                            "stable_neohookean_tet",
                                            "volume_barrier_tet",
                                            "bending_dihedral",
                                            "symmetric_dirichlet",
                                            "arap_tri",
                                            "membrane_tri",
                                            "dirichlet_tri",
                                            "flip_barrier_tri",
                                            "stvk_tet",
                                            "arap_surface",
                                            "sphere_symmetric_dirichlet",
                                            "sphere_flip_barrier"};
#if !defined(MFAD_TEST_LANES8)
/* users' energies without features (tests/features.cmake): on the lanes at their unknowns */
MFAD_KERNEL_DECLARE(mooney_rivlin_tet_lanes);
MFAD_KERNEL_DECLARE(sym_dirichlet_lanes);
MFAD_KERNEL_DECLARE(kinked_tet_lanes);
MFAD_KERNEL_DECLARE(spring_helpers_lanes);
MFAD_KERNEL_DECLARE(lame_tet_lanes);
#endif
#if defined(MFAD_TEST_LANES8)
/* test_lanes8: the library's energies on lanes compiled into the test again at MFAD_LANES_WIDTH=8 with
   the library's modes (tests/features.cmake writes their list), <name>_l8: what a build with
   -DMFAD_LANES_WIDTH=8 runs */
#include "test_lanes8_energies.h"
#define LANES_DECLARE(name) MFAD_KERNEL_DECLARE(name##_l8);
LANES8_ENERGIES(LANES_DECLARE)
#define LANES_ENTRY(name) {#name, MFAD_KERNEL(name##_l8)},
static const struct {
  const char *name;
  MfadKernel  k;
} Lanes8Kernels[] = {LANES8_ENERGIES(LANES_ENTRY)};
#endif

#define NELEM  93               /* blocks of 13, 4, 27 and 49 */
#define NV_MAX 6                /* arap_surface: 3 corners and 3 rotation nodes */
#define N_MAX  18               /* unknowns of an element */
#define NP_MAX 21               /* parameters of an element */
#define POOL   10               /* pool vertices a vertex position a of the valid elements takes */
#define NVERT  (NV_MAX * POOL)  /* shared by the valid elements */
#define NTOTAL (NVERT + 18 * NV_MAX) /* and the branched elements' own */

static unsigned long long Rng;
static double             Uniform(double a, double b)
{
  Rng ^= Rng << 13;
  Rng ^= Rng >> 7;
  Rng ^= Rng << 17;
  return a + (b - a) * (double)(Rng >> 11) / 9007199254740992.0;
}

/* a perturbed unit simplex (the first nv of its corners); arap_surface's rotation nodes (its vertices
   3-5, Gibbs vectors, not rest positions) take the last two rows too */
static const double Simplex[NV_MAX][3] = {
    {0,    0,                   0                },
    {1,    0,                   0                },
    {0.5,  0.8660254037844386,  0                },
    {0.5,  0.28867513459481287, 0.816496580927726},
    {0.3,  -0.2,                0.1              },
    {-0.1, 0.4,                 0.25             }
};

/* elements 2, 20..35 and 49: branched (an inverted tet, a spring of zero length, a flipped or
   degenerate triangle); the rest valid. Element 2 shares its group with valid ones at both widths
   (the first group of the HVP's first pair of groups in block 0); 20..35 cover whole groups of
   block 2 ([17, 44): groups from 17 by 4 or 8); 49 is in the second group of the first pair of
   block 3 ([44, 52)). A branched element has vertices of its own; the valid ones
   share vertices (the scatter adds several elements to each). */
static int Branched(int e) { return e == 2 || (e >= 20 && e < 36) || e == 49; }

static void CompareTo(const char *what, const char *name, const double *a, const double *b, int n, double tol)
{
  double d = 0, s = 0;
  int    bitwise = 1;
  for (int i = 0; i < n; i++) {
    if (!isfinite(a[i]) || !isfinite(b[i])) { /* inf alike, or NaN in both */
      ck_assert_msg(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])), "%s %s entry %d: lanes %g, scalar %g", name, what, i, a[i], b[i]);
      continue;
    }
    d = fmax(d, fabs(a[i] - b[i]));
    s = fmax(s, fabs(b[i]));
    bitwise &= memcmp(&a[i], &b[i], sizeof(double)) == 0;
  }
  printf("%-15s %-9s lanes vs scalar: %.2e of the largest entry%s\n", name, what, s > 0 ? d / s : d, bitwise ? " (bitwise)" : "");
  ck_assert_msg(s > 0, "%s %s: all zero", name, what);
  ck_assert_msg(d <= tol * s, "%s %s: lanes differ from the scalar loop by %.3e of %.3e", name, what, d, s);
}
static void Compare(const char *what, const char *name, const double *a, const double *b, int n) { CompareTo(what, name, a, b, n, 1e-14); }

/* kinked_tet (tests/energies/kinked_tet.c): the groups of 4 lanes (from each block's start) in which
   its kinks are taken both ways, J < 1 (the ternary and fabs), I1 - 3 < c (fmin), I1 - 3 - c > 0 (fmax):
   with selects such a group stays on the lanes; a branch would send it to the scalar path */
static void KinkedSides(const double xe[][N_MAX], const double *p, const int *bs, int nblocks)
{
  int mixed[3] = {0, 0, 0};
  for (int b = 0; b < nblocks; b++)
    for (int g = bs[b]; g < bs[b + 1]; g += 4) {
      int side[3][2] = {
          {0, 0},
          {0, 0},
          {0, 0}
      };
      for (int e = g; e < g + 4 && e < bs[b + 1]; e++) {
        const double *pe = p + 13 * e;
        double        Ds[9], F[9];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) Ds[3 * i + j] = xe[e][3 * (j + 1) + i] - xe[e][i];
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < 3; j++) F[3 * i + j] = Ds[3 * i] * pe[j] + Ds[3 * i + 1] * pe[3 + j] + Ds[3 * i + 2] * pe[6 + j];
        const double J  = F[0] * (F[4] * F[8] - F[5] * F[7]) - F[1] * (F[3] * F[8] - F[5] * F[6]) + F[2] * (F[3] * F[7] - F[4] * F[6]);
        double       I1 = 0;
        for (int i = 0; i < 9; i++) I1 += F[i] * F[i];
        side[0][J < 1.0]++;
        side[1][I1 - 3.0 < pe[12]]++;
        side[2][I1 - 3.0 - pe[12] > 0.0]++;
      }
      for (int t = 0; t < 3; t++) mixed[t] += side[t][0] && side[t][1];
    }
  printf("kinked_tet: groups of 4 lanes with both sides of J < 1: %d, of fmin's: %d, of fmax's: %d\n", mixed[0], mixed[1], mixed[2]);
  ck_assert_msg(mixed[0] > 0 && mixed[1] > 0 && mixed[2] > 0,
                "kinked_tet: a kink taken one way in every group (%d %d %d): the test does not exercise the selects", mixed[0], mixed[1], mixed[2]);
}

static void CheckKernel(MfadKernel k, const char *name)
{
  const int nv = k->nvert, nd      = k->dof;
  int           conn[NELEM * NV_MAX], voff[NELEM * NV_MAX], bs[5] = {0, 13, 17, 44, NELEM}, cs[2] = {0, 4}, cb[4] = {0, 1, 2, 3};
  double        x[NTOTAL * 3], v[NTOTAL * 3], p[NELEM * NP_MAX], y[3][3][NTOTAL * 3], bv[3][4], bvv[3][4];
  double        xe[NELEM][N_MAX], rest[N_MAX], mat[3] = {1.0, 2.0, 3.0}, bvh[3][4];
  static double H[3][NELEM * N_MAX * N_MAX], HP[2][NELEM * N_MAX * N_MAX]; /* the element Hessians (Hessian mode); projected */

  ck_assert_int_le(k->nvert, NV_MAX);
  ck_assert_int_le(k->nvert * k->dof, N_MAX);
  ck_assert_int_le(k->nparam, NP_MAX);
  Rng = 0x9E3779B97F4A7C15ULL;
  /* the sphere energies' triangles lifted to z = 1: their points y / |y| then make a spherical
     triangle about the north pole, counter-clockwise seen from outside (not flipped) */
  const double lift = !strncmp(name, "sphere_", 7) ? 1.0 : 0.0;
  if (!strcmp(name, "lame_tet_lanes")) mat[1] = 0.3; /* Young's modulus 1 and a Poisson's ratio in (-1, 1/2) */
  /* elements' current shapes and rest parameters */
  for (int e = 0; e < NELEM; e++) {
    for (int a = 0; a < nv; a++)
      for (int d = 0; d < 3; d++) rest[3 * a + d] = Simplex[a][d] + (d == 2 ? lift : 0.0) + Uniform(-0.05, 0.05);
    ck_assert_int_eq(k->rest(rest, mat, p + e * k->nparam), 0);
    const double s = Uniform(0.8, 1.2);
    for (int a = 0; a < nv; a++)
      for (int d = 0; d < nd; d++) xe[e][nd * a + d] = s * rest[3 * a + d] + Uniform(-0.05, 0.05);
    if (Branched(e)) {
      /* a spherical triangle flipped (a collapsed one's +inf: tests/test_stepbound.c) */
      if (nv == 4 || (nv == 3 && nd == 2) || lift > 0.0)
        for (int d = 0; d < nd; d++) { /* vertices 1 and 2 swapped: inverted, flipped */
          const double t    = xe[e][nd + d];
          xe[e][nd + d]     = xe[e][2 * nd + d];
          xe[e][2 * nd + d] = t;
        }
      else
        for (int d = 0; d < nd; d++) xe[e][nd * (nv - 1) + d] = xe[e][d]; /* zero length, zero area */
    }
  }
  /* the vertex pool: valid element e's vertex a is pool vertex a POOL + e mod POOL (always its
     vertex a: shared by several elements in the scatter, at the position of the first to name it);
     a branched element's vertices are its own, after the pool */
  int seen[NTOTAL], own = NVERT;
  for (int i = 0; i < NTOTAL; i++) seen[i] = 0;
  for (int e = 0; e < NELEM; e++)
    for (int a = 0; a < nv; a++) {
      const int c      = Branched(e) ? own++ : a * POOL + e % POOL;
      conn[e * nv + a] = c;
      if (!seen[c])
        for (int d = 0; d < nd; d++) x[nd * c + d] = xe[e][nd * a + d];
      seen[c] = 1;
    }
  for (int i = 0; i < NTOTAL * nd; i++) v[i] = Uniform(-1.0, 1.0);
  if (!strcmp(name, "kinked_tet_lanes")) KinkedSides((const double(*)[N_MAX])xe, p, bs, 4);
  /* a helper's branch on a parameter (spring_helpers' ternary on the rest length p[1] < 1, lame_tet's
     if on the rest volume p[9] > sqrt(2) / 12) taken both ways within some group of 4 lanes */
  if (!strcmp(name, "spring_helpers_lanes") || !strcmp(name, "lame_tet_lanes")) {
    const int lame  = !strcmp(name, "lame_tet_lanes");
    int       mixed = 0;
    for (int b = 0; b < 4; b++)
      for (int g = bs[b]; g < bs[b + 1]; g += 4) {
        int side[2] = {0, 0};
        for (int e = g; e < g + 4 && e < bs[b + 1]; e++) side[lame ? p[12 * e + 9] > 0.11785113019775792 : p[2 * e + 1] < 1.0]++;
        mixed += side[0] && side[1];
      }
    printf("%s: groups of 4 lanes with the helper's branch both ways: %d\n", name, mixed);
    ck_assert_msg(mixed > 0, "%s: the helper's branch taken one way in every group", name);
  }

  /* the vertices' byte offsets, as the core keeps them for a term with lanes (src/setup.c) */
  for (int i = 0; i < NELEM * nv; i++) voff[i] = conn[i] * nd * (int)sizeof(double);
  MfadLoop L = {0};
  L.nelem = NELEM, L.conn = conn, L.params = p, L.weight = 0.75, L.x = x, L.v = v;
  L.nblocks = 4, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1, L.parallel = 0;
  /* 0: the scalar loop; 1: the lanes, their addresses from conn; 2: from the offsets */
  for (int lanes = 0; lanes < 3; lanes++) {
    L.scalar = !lanes;
    L.voff   = lanes == 2 ? voff : NULL;
    memset(y[lanes], 0, sizeof(y[lanes]));
    L.y           = y[lanes][0];
    L.block_value = bv[lanes];
    k->cpu_gradient(&L);
    L.y = y[lanes][1];
    k->cpu_hvp(&L);
    L.block_value = bvv[lanes];
    k->cpu_value(&L);
    L.y = y[lanes][2];
    k->cpu_diagonal(&L);
    L.y           = H[lanes];
    L.block_value = bvh[lanes];
    k->cpu_hessian(&L);
  }
  /* the branches were taken: an inverted tet has E = inf, block 1 (none) is finite */
  if (!strcmp(name, "neohookean_tet") || !strcmp(name, "volume_barrier_tet") || !strcmp(name, "mooney_rivlin_tet_lanes") ||
      !strcmp(name, "sym_dirichlet_lanes") || !strcmp(name, "lame_tet_lanes"))
    ck_assert_msg(isinf(bv[0][0]) && isinf(bv[0][2]) && isfinite(bv[0][1]) && isinf(bv[0][3]), "%s: block energies %g %g %g %g", name, bv[0][0],
                  bv[0][1], bv[0][2], bv[0][3]);
  Compare("gradient", name, y[1][0], y[0][0], NTOTAL * nd);
  Compare("energies", name, bv[1], bv[0], 4);
  Compare("HVP", name, y[1][1], y[0][1], NTOTAL * nd);
  Compare("value", name, bvv[1], bvv[0], 4);
  Compare("diagonal", name, y[1][2], y[0][2], NTOTAL * nd);
  Compare("Hessians", name, H[1], H[0], NELEM * nv * nd * nv * nd);
  Compare("H energies", name, bvh[1], bvh[0], 4);
  /* the offsets address the same entries as conn: bitwise the same results */
  ck_assert_msg(!memcmp(y[2], y[1], sizeof(y[1])) && !memcmp(bv[2], bv[1], sizeof(bv[1])) && !memcmp(bvv[2], bvv[1], sizeof(bvv[1])) &&
                    !memcmp(H[2], H[1], sizeof(double) * NELEM * nv * nd * nv * nd) && !memcmp(bvh[2], bvh[1], sizeof(bvh[1])),
                "%s: the lanes with MfadLoop.voff differ from the lanes with conn alone", name);
  L.voff = voff;
  /* the projected element Hessians: H_F projected where the energy has features (mfad_psd_project
     on the scalar path, mfad_psd_project_lanes on the lanes: QL against Jacobi, each eigenvalue to
     ~n eps_mach |H_F|: 5e-14 of the largest entry), as src/hessian.c asks for clamp; abs the same
     way here. Some element's projection must change it; dirichlet_tri's H_F is PSD (a quadratic):
     it must stay bitwise the exact one */
  for (int psd = MFAD_PSD_MODE_CLAMP; psd <= MFAD_PSD_MODE_ABS; psd++) {
    int changed = 0;
    L.psd       = k->nfeat > 0 ? psd : 0;
    for (int lanes = 0; lanes < 2; lanes++) {
      L.scalar      = !lanes;
      L.y           = HP[lanes];
      L.block_value = bvh[lanes];
      k->cpu_hessian(&L);
    }
    for (int i = 0; i < NELEM * nv * nd * nv * nd; i++) changed |= isfinite(H[0][i]) && HP[0][i] != H[0][i];
    if (!strcmp(name, "dirichlet_tri"))
      ck_assert_msg(!changed && !memcmp(HP[1], H[1], sizeof(double) * NELEM * nv * nd * nv * nd), "%s: a PSD H_F projected", name);
    else if (k->nfeat > 0) ck_assert_msg(changed, "%s: no element Hessian changed by the projection %d: the test does not exercise it", name, psd);
    CompareTo(psd == MFAD_PSD_MODE_CLAMP ? "H clamp" : "H abs", name, HP[1], HP[0], NELEM * nv * nd * nv * nd, 5e-14);
  }
  L.psd = 0;
}

START_TEST(lanes_equal_the_scalar_loop)
{
#if defined(MFAD_TEST_LANES8)
  ck_assert_int_eq(sizeof(Lanes8Kernels) / sizeof(Lanes8Kernels[0]), sizeof(LanesEnergies) / sizeof(LanesEnergies[0]));
  for (size_t i = 0; i < sizeof(Lanes8Kernels) / sizeof(Lanes8Kernels[0]); i++) CheckKernel(Lanes8Kernels[i].k, Lanes8Kernels[i].name);
  return;
#endif
  /* every energy declared on lanes has its gradient and HVP there, as compiled (MfadKernel.lanes),
     wherever the build has lanes at all (256-bit registers: neohookean_tet's say) */
  MfadKernel nh;
  ck_assert_int_eq(MfadKernelFind("neohookean_tet", &nh), 0);
  const int compiled = nh->lanes != 0;
  for (size_t i = 0; i < sizeof(LanesEnergies) / sizeof(LanesEnergies[0]); i++) {
    MfadKernel k;
    ck_assert_int_eq(MfadKernelFind(LanesEnergies[i], &k), 0);
    ck_assert_msg(!compiled || (k->lanes & 3) == 3, "%s: declared LANES, yet its gradient and HVP are not on lanes (MfadKernel.lanes %d)",
                  LanesEnergies[i], k->lanes);
    CheckKernel(k, LanesEnergies[i]);
  }
#if !defined(MFAD_TEST_LANES8)
  ck_assert_msg(MFAD_KERNEL(mooney_rivlin_tet_lanes)->lanes == (compiled ? 7 : 0), "mooney_rivlin_tet: lanes %d, expected %d",
                MFAD_KERNEL(mooney_rivlin_tet_lanes)->lanes, compiled ? 7 : 0);
  CheckKernel(MFAD_KERNEL(mooney_rivlin_tet_lanes), "mooney_rivlin_tet_lanes");
  /* the tutorial's energy with mfad_add_energy's defaults for a user's: gradient, HVP and (no features)
     element Hessians on lanes, the last by N sweeps of one tangent */
  ck_assert_msg(MFAD_KERNEL(sym_dirichlet_lanes)->lanes == (compiled ? 11 : 0), "sym_dirichlet: lanes %d, expected %d",
                MFAD_KERNEL(sym_dirichlet_lanes)->lanes, compiled ? 11 : 0);
  CheckKernel(MFAD_KERNEL(sym_dirichlet_lanes), "sym_dirichlet_lanes");
  /* a user's energy with kinks (fabs, fmin, fmax, a ternary on J): selects on the lanes, each taken
     both ways within groups of these elements (KinkedSides) */
  ck_assert_msg(MFAD_KERNEL(kinked_tet_lanes)->lanes == (compiled ? 7 : 0), "kinked_tet: lanes %d, expected %d", MFAD_KERNEL(kinked_tet_lanes)->lanes,
                compiled ? 7 : 0);
  CheckKernel(MFAD_KERNEL(kinked_tet_lanes), "kinked_tet_lanes");
  /* a user's spring whose stiffness is a helper over doubles (calling another, with a ternary on the
     rest length): their lanes versions, with mfad_add_energy's defaults for an energy with features
     (gradient and HVP) */
  ck_assert_msg(MFAD_KERNEL(spring_helpers_lanes)->lanes == (compiled ? 3 : 0), "spring_helpers: lanes %d, expected %d",
                MFAD_KERNEL(spring_helpers_lanes)->lanes, compiled ? 3 : 0);
  CheckKernel(MFAD_KERNEL(spring_helpers_lanes), "spring_helpers_lanes");
  /* a user's tet with arrays of doubles it sets (the Lamé parameters from a helper, an initialiser
     list) and a helper over doubles with an if on the rest volume: gradient, HVP and element
     Hessians on lanes (no features) */
  ck_assert_msg(MFAD_KERNEL(lame_tet_lanes)->lanes == (compiled ? 11 : 0), "lame_tet: lanes %d, expected %d", MFAD_KERNEL(lame_tet_lanes)->lanes,
                compiled ? 11 : 0);
  CheckKernel(MFAD_KERNEL(lame_tet_lanes), "lame_tet_lanes");
#endif
}
END_TEST

int main(void)
{
  Suite   *s  = suite_create("lanes");
  TCase   *tc = tcase_create("core");
  SRunner *sr;
  int      nfail;

#if defined(MFAD_TEST_LANES8)
  /* without AVX-512, 8 lanes are two 256-bit halves: correct, but not what a build of 8 lanes is
     for (ctest's SKIP_RETURN_CODE) */
  if (!__builtin_cpu_supports("avx512f")) {
    printf("test_lanes8: this CPU has no AVX-512F: skipped\n");
    return 77;
  }
#endif
  tcase_add_test(tc, lanes_equal_the_scalar_loop);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK);
  srunner_run_all(sr, CK_SILENT);
  nfail = srunner_ntests_failed(sr);
  if (nfail) srunner_print(sr, CK_NORMAL);
  srunner_free(sr);
  return nfail ? 1 : 0;
}
