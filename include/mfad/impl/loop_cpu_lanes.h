// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/loop_cpu_lanes.h
  @brief The CPU gradient, HVP, value, element-Hessian and Hessian-diagonal loops over SIMD lanes (mfad/impl/ad_lanes.h): an energy with
         features whose reverse body mfad-energy also wrote on lanes (--lanes, MFAD_ENERGY_LANES).

  The colouring, the blocks and their order are mfad/impl/loop_cpu.h's. Within a block, MFAD_VW
  consecutive elements are gathered into the lanes (their unknowns and parameters, one element a
  lane), the feature map, the body and the pull-back run once on the lanes (mfad-energy writes the
  map's lanes copy too), and each lane's element vector is scattered in element order: every output entry receives the scalar path's contributions in
the scalar path's order. The block's tail (fewer than MFAD_VW elements left), and a group whose lanes take a branch on values differently (the body
reports it), run on the scalar path. L->scalar = 1 keeps the scalar path throughout (the comparison); MFAD_LANES_MODES below, the modes
the energy runs on lanes at all (the choice by measurement).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/loop_cpu_lanes.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_LOOP_CPU_LANES_H
#define MFAD_LOOP_CPU_LANES_H

#define MFAD_NPV (MFAD_NP > 0 ? MFAD_NP : 1)

#if MFAD_ENERGY_FEATURES == 0
/* An energy that declares no features runs on the lanes at its unknowns, as its reverse sweep does
   on the scalar path: the identity map (a new user's energy, written over x: tests/energies/
   mooney_rivlin_tet.c). Its gradient, HVP, value and element Hessians (N sweeps of one tangent:
   MFAD_VMD_K); the diagonal's lanes take features (mfad/impl/instantiate.h says so at build time) */
#define MFAD_NF MFAD_N
static inline __attribute__((always_inline)) void mfad_feature_map_lanes(const mfad_vd *MFAD_RESTRICT v, const mfad_vd *MFAD_RESTRICT p,
                                                                         mfad_vd *MFAD_RESTRICT f)
{
  (void)p;
  for (int i = 0; i < MFAD_N; i++) f[i] = v[i];
}
static inline __attribute__((always_inline)) void mfad_feature_pull_lanes(const mfad_vd *MFAD_RESTRICT g, const mfad_vd *MFAD_RESTRICT p,
                                                                          mfad_vd *MFAD_RESTRICT gx)
{
  (void)p;
  for (int i = 0; i < MFAD_N; i++) gx[i] = g[i];
}
#endif

#include <mfad/impl/psd_lanes.h> /* the element Hessians' projection on the lanes */

/* the lanes' element offsets: the byte offset of vertex a's first unknown in lane l, conn[(e0 + l) nv
   + a] nd sizeof(double), read from the term's L->voff where the core keeps them (src/setup.c): one
   load an address, where each took a load and two integer instructions (x 3, x 8) on the ports the
   lanes' arithmetic and shuffles need. Cloth's HVP 1.68-1.83x -> 1.80-1.91x the scalar loop (medians
   1.78 -> 1.87, 9 runs in turn), Neo-Hookean's 2.03-2.19x -> 2.19-2.27x (6 runs): bench_lanes, an Intel
   Xeon of model 207 (bench/README.md) */
static inline __attribute__((always_inline)) const double *mfad_lanes_at(const double *a, long long off)
{
  return (const double *)((const char *)a + off);
}
static inline __attribute__((always_inline)) double *mfad_lanes_out(double *y, long long off) { return (double *)((char *)y + off); }
static inline __attribute__((always_inline)) void mfad_lanes_index(const MfadLoop *L, int e0, long long idx[MFAD_NV][MFAD_VW])
{
  if (L->voff) {
    const int *o = L->voff + (long)e0 * MFAD_NV;
    for (int l = 0; l < MFAD_VW; l++)
      for (int a = 0; a < MFAD_NV; a++) idx[a][l] = o[l * MFAD_NV + a];
  } else {
    const int *c = L->conn + (long)e0 * MFAD_NV;
    for (int l = 0; l < MFAD_VW; l++)
      for (int a = 0; a < MFAD_NV; a++) idx[a][l] = (long long)c[l * MFAD_NV + a] * (long long)(MFAD_ND * sizeof(double));
  }
}

/* lanes i0 .. of (a, b) into a vector of as many lanes as indices: gcc 12's and clang's builtin */
#if !defined(MFAD_LANES_NO_PAIRED) && (defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)) /* -D..: the older compilers' path */
#define MFAD_LANES_PAIRED 1
#define MFAD_VSV          __builtin_shufflevector
typedef double mfad_v2d __attribute__((vector_size(16)));
#define MFAD_LANES_SHUF4 __builtin_shufflevector
#else
#define MFAD_LANES_PAIRED 0
#define MFAD_LANES_SHUF4  MFAD_VSHUF4
#endif

#if MFAD_LANES_PAIRED && (MFAD_VW == 4 || MFAD_VW == 8)
/* Pairs of lanes' consecutive entries (a vertex's x and y, two parameters) are one 16-byte load
   (store) a lane, transposed in registers: the lanes' pairs (x_l, y_l) -> X, Y and back, two
   unpacks and a few lane moves against 2 VW scalar loads and inserts (extracts and stores) */
static inline __attribute__((always_inline)) mfad_v2d mfad_lanes_load2(const double *a)
{
  mfad_v2d r;
  memcpy(&r, a, sizeof(r));
  return r;
}
#if MFAD_VW == 4
#define MFAD_LANES_XY_IN(P, lo, hi)    const mfad_vd lo = MFAD_VSV(P[0], P[2], 0, 1, 2, 3), hi = MFAD_VSV(P[1], P[3], 0, 1, 2, 3)
#define MFAD_LANES_X(lo, hi)           MFAD_VSV(lo, hi, 0, 4, 2, 6)
#define MFAD_LANES_Y(lo, hi)           MFAD_VSV(lo, hi, 1, 5, 3, 7)
#define MFAD_LANES_XY_OUT(X, Y, P) \
  do { \
    const mfad_vd lo_ = MFAD_VSV(X, Y, 0, 4, 2, 6), hi_ = MFAD_VSV(X, Y, 1, 5, 3, 7); \
    P[0] = MFAD_VSV(lo_, lo_, 0, 1), P[2] = MFAD_VSV(lo_, lo_, 2, 3); \
    P[1] = MFAD_VSV(hi_, hi_, 0, 1), P[3] = MFAD_VSV(hi_, hi_, 2, 3); \
  } while (0)
/* the lanes' 4 x 4 block r (a row a lane) transposed: c[j] lane l = r[l] lane j */
#define MFAD_LANES_T4(r, c) \
  do { \
    const mfad_vd lo01_ = MFAD_VSV(r[0], r[1], 0, 4, 2, 6), hi01_ = MFAD_VSV(r[0], r[1], 1, 5, 3, 7); \
    const mfad_vd lo23_ = MFAD_VSV(r[2], r[3], 0, 4, 2, 6), hi23_ = MFAD_VSV(r[2], r[3], 1, 5, 3, 7); \
    c[0] = MFAD_VSV(lo01_, lo23_, 0, 1, 4, 5); \
    c[1] = MFAD_VSV(hi01_, hi23_, 0, 1, 4, 5); \
    c[2] = MFAD_VSV(lo01_, lo23_, 2, 3, 6, 7); \
    c[3] = MFAD_VSV(hi01_, hi23_, 2, 3, 6, 7); \
  } while (0)
#else
#define MFAD_LANES_XY_IN(P, lo, hi) \
  const mfad_vd lo = MFAD_VSV(MFAD_VSV(P[0], P[2], 0, 1, 2, 3), MFAD_VSV(P[4], P[6], 0, 1, 2, 3), 0, 1, 2, 3, 4, 5, 6, 7), \
                hi = MFAD_VSV(MFAD_VSV(P[1], P[3], 0, 1, 2, 3), MFAD_VSV(P[5], P[7], 0, 1, 2, 3), 0, 1, 2, 3, 4, 5, 6, 7)
#define MFAD_LANES_X(lo, hi) MFAD_VSV(lo, hi, 0, 8, 2, 10, 4, 12, 6, 14)
#define MFAD_LANES_Y(lo, hi) MFAD_VSV(lo, hi, 1, 9, 3, 11, 5, 13, 7, 15)
#define MFAD_LANES_XY_OUT(X, Y, P) \
  do { \
    const mfad_vd lo_ = MFAD_VSV(X, Y, 0, 8, 2, 10, 4, 12, 6, 14), hi_ = MFAD_VSV(X, Y, 1, 9, 3, 11, 5, 13, 7, 15); \
    P[0] = MFAD_VSV(lo_, lo_, 0, 1), P[2] = MFAD_VSV(lo_, lo_, 2, 3), P[4] = MFAD_VSV(lo_, lo_, 4, 5), P[6] = MFAD_VSV(lo_, lo_, 6, 7); \
    P[1] = MFAD_VSV(hi_, hi_, 0, 1), P[3] = MFAD_VSV(hi_, hi_, 2, 3), P[5] = MFAD_VSV(hi_, hi_, 4, 5), P[7] = MFAD_VSV(hi_, hi_, 6, 7); \
  } while (0)
#endif

#endif

#if MFAD_LANES_PAIRED && MFAD_VW == 4 && MFAD_ND == 3 && defined(__AVX512VL__) && !defined(MFAD_LANES_NO_MASKED)
#include <immintrin.h>
/* A vertex's three unknowns as one masked 32-byte load (store) a lane, the fourth entry masked off
   (never read or written: the array's end, a neighbour's entry another thread writes), the lanes'
   4 x 4 block transposed in registers (AVX-512VL's masked moves: as fast as plain ones) */
static inline __attribute__((always_inline)) void mfad_lanes_gather_vec(const double *a, const long long idx[MFAD_NV][MFAD_VW], mfad_vd *xv)
{
  for (int i = 0; i < MFAD_NV; i++) {
    mfad_vd r[4], c[4];
    for (int l = 0; l < 4; l++) r[l] = (mfad_vd)_mm256_maskz_loadu_pd(0x7, mfad_lanes_at(a, idx[i][l]));
    MFAD_LANES_T4(r, c);
    for (int d = 0; d < 3; d++) xv[i * 3 + d] = c[d];
  }
}
#define MFAD_LANES_GATHER_MASKED 1
#if defined(MFAD_FEATURE_MAP_DIFF) && MFAD_NV == 2 && MFAD_NF == 3
/* The feature map f = x_1 - x_0 (mfad-energy's MFAD_FEATURE_MAP_DIFF: a spring's edge) taken on each
   lane's two vertex rows, then one 4 x 4 transposition (two for x_0 and x_1 apart, and the map after);
   the scalar map's subtractions: bitwise the same. Cloth's HVP 5.10-5.34 -> 4.76-5.01 ns a spring
   (bench_lanes -workload cloth -n 200, 3 runs in turn, load 4.2; at load 5.1 a few percent, within the
   noise: bench/README.md) */
#define MFAD_LANES_MAP_DIFF 1
static inline __attribute__((always_inline)) void mfad_lanes_gather_map(const double *a, const long long idx[MFAD_NV][MFAD_VW], const mfad_vd *pv,
                                                                        mfad_vd *f)
{
  mfad_vd r[4], c[4];
  (void)pv;
  for (int l = 0; l < 4; l++)
    r[l] = (mfad_vd)_mm256_maskz_loadu_pd(0x7, mfad_lanes_at(a, idx[1][l])) - (mfad_vd)_mm256_maskz_loadu_pd(0x7, mfad_lanes_at(a, idx[0][l]));
  MFAD_LANES_T4(r, c);
  for (int d = 0; d < 3; d++) f[d] = c[d];
}
#endif
#endif

#if MFAD_LANES_PAIRED && (MFAD_VW == 4 || MFAD_VW == 8) && (MFAD_ND == 2 || MFAD_ND == 3)
#if !defined(MFAD_LANES_GATHER_MASKED)
/* the lanes' element vectors of a (x or v): xv[a nd + d] lane l = entry d at byte offset idx[a][l], by pairs (a
   third unknown: the pairs (y_l, z_l)). Each entry is read as the scalar path reads it, never the
   next vertex's: the array's end stays untouched */
static inline __attribute__((always_inline)) void mfad_lanes_gather_vec(const double *a, const long long idx[MFAD_NV][MFAD_VW], mfad_vd *xv)
{
  for (int i = 0; i < MFAD_NV; i++) {
    mfad_v2d P[MFAD_VW];
    for (int l = 0; l < MFAD_VW; l++) P[l] = mfad_lanes_load2(mfad_lanes_at(a, idx[i][l]));
    MFAD_LANES_XY_IN(P, lo, hi);
    xv[i * MFAD_ND]     = MFAD_LANES_X(lo, hi);
    xv[i * MFAD_ND + 1] = MFAD_LANES_Y(lo, hi);
#if MFAD_ND == 3
    /* the pairs (y_l, z_l): Z the second of each, as Y of the first */
    for (int l = 0; l < MFAD_VW; l++) P[l] = mfad_lanes_load2(mfad_lanes_at(a, idx[i][l]) + 1);
    MFAD_LANES_XY_IN(P, lo2, hi2);
    xv[i * MFAD_ND + 2] = MFAD_LANES_Y(lo2, hi2);
#endif
  }
}

#endif
#if defined(MFAD_FEATURE_MAP_DIFF) && !defined(MFAD_LANES_MAP_DIFF) && MFAD_NV == 2 && MFAD_NF == 3 && MFAD_ND == 3 && \
    !defined(MFAD_LANES_NO_DIFF_PAIRS)
/* The spring's edge f = x_1 - x_0 (MFAD_FEATURE_MAP_DIFF) without AVX-512VL's masked loads: each lane's
   pairs (x, y) and (y, z) of x_1 less those of x_0, then one transposition of the pairs (two, one a
   vertex, and the map after); the scalar map's subtractions: bitwise the same. The scatter below
   takes -g, +g from one transposition too. Cloth's HVP 1.54x -> 1.60x the scalar loop (bench_lanes
   -workload cloth -n 317, 3 runs in turn, AMD EPYC znver1: bench/README.md) */
#define MFAD_LANES_MAP_DIFF       1
#define MFAD_LANES_MAP_DIFF_PAIRS 1
static inline __attribute__((always_inline)) void mfad_lanes_gather_map(const double *a, const long long idx[MFAD_NV][MFAD_VW], const mfad_vd *pv,
                                                                        mfad_vd *f)
{
  mfad_v2d P[MFAD_VW];
  (void)pv;
  for (int l = 0; l < MFAD_VW; l++) P[l] = mfad_lanes_load2(mfad_lanes_at(a, idx[1][l])) - mfad_lanes_load2(mfad_lanes_at(a, idx[0][l]));
  MFAD_LANES_XY_IN(P, lo, hi);
  f[0] = MFAD_LANES_X(lo, hi);
  f[1] = MFAD_LANES_Y(lo, hi);
  for (int l = 0; l < MFAD_VW; l++) P[l] = mfad_lanes_load2(mfad_lanes_at(a, idx[1][l]) + 1) - mfad_lanes_load2(mfad_lanes_at(a, idx[0][l]) + 1);
  MFAD_LANES_XY_IN(P, lo2, hi2);
  f[2] = MFAD_LANES_Y(lo2, hi2);
}
#endif
/* entry d at byte offset idx[a][l] of y += weight o[a nd + d] lane l, lane by lane (element order), vertex by vertex: by
   pairs, a third unknown alone (each entry written as the scalar path writes it: a neighbour's
   entry, another thread's, is never read and stored back) */
static inline __attribute__((always_inline)) void mfad_lanes_scatter_vec(double *y, double weight, const long long idx[MFAD_NV][MFAD_VW],
                                                                         const mfad_vd *o)
{
  mfad_v2d P[MFAD_NV][MFAD_VW];
  for (int i = 0; i < MFAD_NV; i++) MFAD_LANES_XY_OUT(o[i * MFAD_ND], o[i * MFAD_ND + 1], P[i]);
  for (int l = 0; l < MFAD_VW; l++)
    for (int i = 0; i < MFAD_NV; i++) {
      double  *yi = mfad_lanes_out(y, idx[i][l]);
      mfad_v2d t  = mfad_lanes_load2(yi);
      t += weight * P[i][l];
      memcpy(yi, &t, sizeof(t));
#if MFAD_ND == 3
      yi[2] += weight * o[i * MFAD_ND + 2][l];
#endif
    }
}
#else
/* the lanes' element vectors of a (x or v): xv[a nd + d] lane l = entry d at byte offset idx[a][l] */
static inline __attribute__((always_inline)) void mfad_lanes_gather_vec(const double *a, const long long idx[MFAD_NV][MFAD_VW], mfad_vd *xv)
{
  for (int i = 0; i < MFAD_NV; i++)
    for (int d = 0; d < MFAD_ND; d++) xv[i * MFAD_ND + d] = mfad_vgather(a + d, idx[i]);
}

/* entry d at byte offset idx[a][l] of y += weight o[a nd + d] lane l, lane by lane (element order) */
static inline __attribute__((always_inline)) void mfad_lanes_scatter_vec(double *y, double weight, const long long idx[MFAD_NV][MFAD_VW],
                                                                         const mfad_vd *o)
{
  double oa[MFAD_N][MFAD_VW];
  memcpy(oa, o, sizeof(oa));
  for (int l = 0; l < MFAD_VW; l++)
    for (int i = 0; i < MFAD_NV; i++)
      for (int d = 0; d < MFAD_ND; d++) mfad_lanes_out(y, idx[i][l])[d] += weight * oa[i * MFAD_ND + d][l];
}
#endif

#if !defined(MFAD_LANES_MAP_DIFF)
/* the lanes' features of a (x or v): its element vectors gathered, then the map */
static inline __attribute__((always_inline)) void mfad_lanes_gather_map(const double *a, const long long idx[MFAD_NV][MFAD_VW], const mfad_vd *pv,
                                                                        mfad_vd *f)
{
  mfad_vd xv[MFAD_N];
  mfad_lanes_gather_vec(a, idx, xv);
  mfad_feature_map_lanes(xv, pv, f);
}
#endif

/* the lanes' parameters: pv[k] lane l = params[(e0 + l) np + k] */
static inline __attribute__((always_inline)) void mfad_lanes_params(const MfadLoop *L, int e0, mfad_vd *pv)
{
  long long idx[MFAD_VW];
  int       k = 0;
#if MFAD_VW == 4 || (MFAD_VW == 8 && MFAD_LANES_PAIRED)
  /* 4 x 4 blocks of the lanes' consecutive rows, transposed in registers (a fraction of the loads);
     8 lanes: two such blocks, one a half */
  typedef double mfad_v4d __attribute__((vector_size(32)));
  for (; k + 4 <= MFAD_NP; k += 4) {
    mfad_v4d q[MFAD_VW / 4][4];
    for (int h = 0; h < MFAD_VW / 4; h++) {
      const double *P = L->params + (long)(e0 + 4 * h) * MFAD_NP;
      mfad_v4d      r[4];
      memcpy(r, P + k, sizeof(mfad_v4d)), memcpy(r + 1, P + MFAD_NP + k, sizeof(mfad_v4d));
      memcpy(r + 2, P + 2 * MFAD_NP + k, sizeof(mfad_v4d)), memcpy(r + 3, P + 3 * MFAD_NP + k, sizeof(mfad_v4d));
      const mfad_v4d lo01 = MFAD_LANES_SHUF4(r[0], r[1], 0, 4, 2, 6), hi01 = MFAD_LANES_SHUF4(r[0], r[1], 1, 5, 3, 7);
      const mfad_v4d lo23 = MFAD_LANES_SHUF4(r[2], r[3], 0, 4, 2, 6), hi23 = MFAD_LANES_SHUF4(r[2], r[3], 1, 5, 3, 7);
      q[h][0] = MFAD_LANES_SHUF4(lo01, lo23, 0, 1, 4, 5);
      q[h][1] = MFAD_LANES_SHUF4(hi01, hi23, 0, 1, 4, 5);
      q[h][2] = MFAD_LANES_SHUF4(lo01, lo23, 2, 3, 6, 7);
      q[h][3] = MFAD_LANES_SHUF4(hi01, hi23, 2, 3, 6, 7);
    }
    for (int j = 0; j < 4; j++)
#if MFAD_VW == 4
      pv[k + j] = q[0][j];
#else
      pv[k + j] = MFAD_VSV(q[0][j], q[1][j], 0, 1, 2, 3, 4, 5, 6, 7);
#endif
  }
#endif
#if MFAD_LANES_PAIRED && MFAD_VW == 4 && MFAD_NP == 2
  /* two parameters (a spring's rest length and stiffness): the 4 lanes' 8 consecutive doubles as two
     32-byte loads, taken apart by two shuffles (one permute of two sources each on AVX-512) where
     four 16-byte loads took four shuffles: cloth's gradient 2.12-2.15x -> 2.22-2.25x the scalar loop,
     HVP 1.79-1.86x -> 1.82-1.86x (bench_lanes -workload cloth -n 317, 4 runs in turn, Intel Xeon
     model 207) */
  {
    typedef double mfad_v4d_ __attribute__((vector_size(32)));
    mfad_v4d_      r0, r1;
    memcpy(&r0, L->params + (long)e0 * 2, sizeof(r0));
    memcpy(&r1, L->params + (long)e0 * 2 + 4, sizeof(r1));
    pv[0] = MFAD_VSV(r0, r1, 0, 2, 4, 6);
    pv[1] = MFAD_VSV(r0, r1, 1, 3, 5, 7);
    k     = 2;
  }
#endif
#if MFAD_LANES_PAIRED && (MFAD_VW == 4 || MFAD_VW == 8)
  /* two left: a 16-byte load a lane, transposed as a vertex's first two unknowns */
  for (; k + 2 <= MFAD_NP; k += 2) {
    mfad_v2d P[MFAD_VW];
    for (int l = 0; l < MFAD_VW; l++) P[l] = mfad_lanes_load2(L->params + (long)(e0 + l) * MFAD_NP + k);
    MFAD_LANES_XY_IN(P, lo, hi);
    pv[k]     = MFAD_LANES_X(lo, hi);
    pv[k + 1] = MFAD_LANES_Y(lo, hi);
  }
#endif
  for (int l = 0; l < MFAD_VW; l++) idx[l] = (long long)(e0 + l) * MFAD_NP * (long long)sizeof(double);
  for (; k < MFAD_NP; k++) pv[k] = mfad_vgather(L->params + k, idx);
}

/* the lanes' feature adjoints af pulled back (B^T af, on the lanes), each lane's element vector
   scattered in element order: the scalar loop's additions in the scalar loop's order */
static inline __attribute__((always_inline)) void mfad_lanes_scatter(const MfadLoop *L, const long long idx[MFAD_NV][MFAD_VW], const mfad_vd *pv,
                                                                     const mfad_vd *af)
{
#if defined(MFAD_LANES_MAP_DIFF_PAIRS)
  /* B^T af = (-af, af): the pairs (x, y) of af transposed once, each lane's subtracted from x_0's
     entries and added to x_1's, z alone, in the scalar path's order (y + w (-g) and y - w g are the
     same number) */
  mfad_v2d     P[MFAD_VW];
  const double w = L->weight;
  double      *y = L->y; /* read once: a store to y[] might change L->y, as far as the compiler knows */
  (void)pv;
  MFAD_LANES_XY_OUT(af[0], af[1], P);
  for (int l = 0; l < MFAD_VW; l++) {
    double  *y0 = mfad_lanes_out(y, idx[0][l]), *y1 = mfad_lanes_out(y, idx[1][l]);
    mfad_v2d t0 = mfad_lanes_load2(y0);
    t0 -= w * P[l];
    memcpy(y0, &t0, sizeof(t0));
    y0[2] -= w * af[2][l];
    mfad_v2d t1 = mfad_lanes_load2(y1);
    t1 += w * P[l];
    memcpy(y1, &t1, sizeof(t1));
    y1[2] += w * af[2][l];
  }
#elif defined(MFAD_LANES_MAP_DIFF)
  /* B^T af = (-af, af): af transposed once, each lane's row subtracted from x_0's entries and added
     to x_1's, in the scalar path's order (y + w (-g) and y - w g are the same number) */
  const mfad_vd r[4] = {af[0], af[1], af[2], mfad_vsplat(0.0)};
  mfad_vd       c[4];
  const double  w = L->weight;
  double *const y = L->y; /* read once: a store to y[] might change L->y, as far as the compiler knows */
  (void)pv;
  MFAD_LANES_T4(r, c);
  for (int l = 0; l < 4; l++) {
    const mfad_v2d xy = {c[l][0], c[l][1]};
    double        *y0 = mfad_lanes_out(y, idx[0][l]), *y1 = mfad_lanes_out(y, idx[1][l]);
    mfad_v2d       t0 = mfad_lanes_load2(y0);
    t0 -= w * xy;
    memcpy(y0, &t0, sizeof(t0));
    y0[2] -= w * c[l][2];
    mfad_v2d t1 = mfad_lanes_load2(y1);
    t1 += w * xy;
    memcpy(y1, &t1, sizeof(t1));
    y1[2] += w * c[l][2];
  }
#else
  mfad_vd out[MFAD_N];
  mfad_feature_pull_lanes(af, pv, out);
  mfad_lanes_scatter_vec(L->y, L->weight, idx, out);
#endif
}

/* one group's energies E and their feature adjoints af; 0 where its lanes took a branch
   differently */
static inline __attribute__((always_inline)) int mfad_lanes_energy_front(const MfadLoop *L, int e0, long long idx[MFAD_NV][MFAD_VW],
                                                                         mfad_vd pv[MFAD_NPV], mfad_vd af[MFAD_NF], mfad_vd *E)
{
  mfad_vd fv[MFAD_NF];
  int     div = 0;
  mfad_lanes_index(L, e0, idx);
  mfad_lanes_params(L, e0, pv);
  mfad_lanes_gather_map(L->x, idx, pv, fv);
  mfad_energy_lanes_vval(fv, pv, E, af, &div);
  return !div;
}

/* the lanes' energies into *sum in element order (the scalar loop's additions) */
static inline __attribute__((always_inline)) void mfad_lanes_sum(const MfadLoop *L, mfad_vd E, double *sum)
{
  for (int l = 0; l < MFAD_VW; l++) *sum += L->weight * E[l];
}

/* one group of lanes; 0 where its lanes took a branch differently (nothing scattered). The block's
   energy gets the lanes' values in element order (the value pass of the scalar loop, fused) */
static inline __attribute__((unused)) int mfad_lanes_gradient_group(const MfadLoop *L, int e0, double *sum)
{
  long long idx[MFAD_NV][MFAD_VW];
  mfad_vd   pv[MFAD_NPV], af[MFAD_NF], E;
  if (!mfad_lanes_energy_front(L, e0, idx, pv, af, &E)) return 0;
  mfad_lanes_sum(L, E, sum);
  mfad_lanes_scatter(L, idx, pv, af);
  return 1;
}

/* the value alone: the gradient's group without the scatter (inlined, the compiler drops the adjoints) */
static inline __attribute__((unused)) int mfad_lanes_value_group(const MfadLoop *L, int e0, double *sum)
{
  long long idx[MFAD_NV][MFAD_VW];
  mfad_vd   pv[MFAD_NPV], af[MFAD_NF], E;
  if (!mfad_lanes_energy_front(L, e0, idx, pv, af, &E)) return 0;
  mfad_lanes_sum(L, E, sum);
  return 1;
}

/* the HVP of one group up to its feature adjoints' tangents at (H_F B v, before the pull-back) */
static inline __attribute__((always_inline)) void mfad_lanes_hvp_front(const MfadLoop *L, int e0, long long idx[MFAD_NV][MFAD_VW], mfad_vd *pv,
                                                                       mfad_vd *at, int *div)
{
  mfad_vd    fx[MFAD_NF], fw[MFAD_NF];
  mfad_vdual fs[MFAD_NF], af[MFAD_NF], E;
  mfad_lanes_index(L, e0, idx);
  mfad_lanes_params(L, e0, pv);
  mfad_lanes_gather_map(L->x, idx, pv, fx);
  mfad_lanes_gather_map(L->v, idx, pv, fw); /* B v: the map is linear */
  for (int m = 0; m < MFAD_NF; m++) {
    fs[m].v = fx[m];
    fs[m].t = fw[m];
  }
  mfad_energy_lanes_vdual(fs, pv, &E, af, div);
  for (int m = 0; m < MFAD_NF; m++) at[m] = af[m].t;
}

static inline __attribute__((unused)) int mfad_lanes_hvp_group(const MfadLoop *L, int e0, double *sum)
{
  (void)sum;
  long long idx[MFAD_NV][MFAD_VW];
  mfad_vd   pv[MFAD_NPV], at[MFAD_NF];
  int       div = 0;
  mfad_lanes_hvp_front(L, e0, idx, pv, at, &div);
  if (div) return 0;
  mfad_lanes_scatter(L, idx, pv, at);
  return 1;
}

/* the coloured loop of mfad/impl/loop_cpu.h, a block's elements by pairs of groups (PAIRS: those it
   takes, e advanced past them), by groups of lanes, then its tail; with VALUE, the block's energy
   in block_value (each block is one thread's, in element order). A colour's blocks are handed out
   one at a time, as in MFAD_CPU_COLOURED: a thread held up (parked by the scheduler, or its caches
   cold after another energy's loop on its core) costs the others one block, not its static half */
#define MFAD_LANES_NO_PAIRS(L, e, hi)
#define MFAD_CPU_COLOURED_LANES(L, PAIRS, GROUP, SCALAR, VALUE) \
  do { \
    const int nt_ = mfad_cpu_threads(L); \
    (void)nt_; \
    MFAD_OMP(parallel num_threads(nt_) if ((L)->parallel)) \
    for (int col_ = 0; col_ < (L)->ncolors; col_++) { \
      MFAD_OMP(for schedule(dynamic, 1)) \
      for (int bi_ = (L)->color_start[col_]; bi_ < (L)->color_start[col_ + 1]; bi_++) { \
        const int b_ = (L)->color_blocks[bi_], hi_ = (L)->block_start[b_ + 1]; \
        int       e    = (L)->block_start[b_]; \
        double    sum_ = 0.0; \
        PAIRS(L, e, hi_); \
        for (; e + MFAD_VW <= hi_; e += MFAD_VW) \
          if (!GROUP(L, e, &sum_)) \
            for (int l_ = 0; l_ < MFAD_VW; l_++) { \
              const int e_ = e + l_; \
              SCALAR(e_); \
            } \
        for (; e < hi_; e++) SCALAR(e); \
        if (VALUE) (L)->block_value[b_] = sum_; \
      } \
    } \
  } while (0)

/* an element off the lanes: the scalar loop's value and gradient */
#define MFAD_LANES_SCALAR_GRADIENT(e) \
  do { \
    double g_[MFAD_N]; \
    sum_ += L->weight * mfad_elem_value(L, e); \
    (void)mfad_elem_gradient(L, e, g_); \
    mfad_elem_scatter(L->y, L->conn + (long)(e)*MFAD_NV, g_, L->weight); \
  } while (0)
#define MFAD_LANES_SCALAR_HVP(e) \
  do { \
    double hv_[MFAD_N]; \
    mfad_elem_hvp(L, e, hv_); \
    mfad_elem_scatter(L->y, L->conn + (long)(e)*MFAD_NV, hv_, L->weight); \
  } while (0)

/* The modes on lanes (bits: 1 gradient, 2 HVP, 4 value, 8 element Hessian, 16 Hessian diagonal), chosen per energy by measurement:
   mfad_add_energy's LANES_MODES (cmake/MfadEnergy.cmake) passes -DMFAD_LANES_MODES; a mode left out
   keeps the scalar loop and its lanes body is never instantiated (a fraction of the unit's compile
   time). LANES alone: gradient and HVP */
#ifndef MFAD_LANES_MODES
#define MFAD_LANES_MODES 3
#endif

#if (MFAD_LANES_MODES) & 4
/* the blocks' energies (mfad/impl/loop_cpu.h's value loop: blocks uncoloured), groups of lanes in
   element order, then the tail */
static void mfad_cpu_lanes_value(const MfadLoop *L)
{
  const int nt_ = mfad_cpu_threads(L);
  (void)nt_;
  MFAD_OMP(parallel for schedule(dynamic, 1) num_threads(nt_) if (L->nblocks > 1))
  for (int b = 0; b < L->nblocks; b++) {
    const int hi  = L->block_start[b + 1];
    int       e   = L->block_start[b];
    double    sum = 0.0;
    for (; e + MFAD_VW <= hi; e += MFAD_VW)
      if (!mfad_lanes_value_group(L, e, &sum))
        for (int l = 0; l < MFAD_VW; l++) sum += L->weight * mfad_elem_value(L, e + l);
    for (; e < hi; e++) sum += L->weight * mfad_elem_value(L, e);
    L->block_value[b] = sum;
  }
}
#define MFAD_CPU_LANES_value(L) \
  if (!(L)->scalar) { \
    mfad_cpu_lanes_value(L); \
    return; \
  }
#else
#define MFAD_CPU_LANES_value(L)
#endif

/* pairs where the body is small (3 features: mass_spring's HVP 1.16-1.17x the scalar loop -> 1.24-1.31x);
   larger bodies spill registers with two groups live (neohookean_tet 1.88-1.94x -> 1.56-1.60x,
   membrane_tri 1.65-1.67x -> 1.40-1.47x; symmetric_dirichlet and arap_tri, 4 features, equal within the
   noise): bench_lanes, 2 runs each, -DMFAD_LANES_PAIRS=0|1. The gradient too, since the gather and
   scatter by 16-byte pairs: mass_spring 1.56-1.88x -> 2.09-2.12x (-n 200), neohookean_tet equal */
#ifndef MFAD_LANES_PAIRS
#define MFAD_LANES_PAIRS (MFAD_NF <= 3)
#endif
/* MFAD_CPU_LANES(L, mode) of mfad/impl/loop_cpu.h: the lanes' loop of the mode, unless L->scalar */
#if (MFAD_LANES_MODES) & 1
/* the gradient and the blocks' energies (the scalar loop's value pass and gradient pass in one) */
/* by pairs of groups as the HVP's below (MFAD_LANES_PAIRS), the energies summed and the gradients
   scattered in element order */
#define MFAD_LANES_GRADIENT_PAIRS(L, e, hi) \
  for (; e + 2 * MFAD_VW <= hi; e += 2 * MFAD_VW) { \
    long long idxa_[MFAD_NV][MFAD_VW], idxb_[MFAD_NV][MFAD_VW]; \
    mfad_vd   pa_[MFAD_NPV], pb_[MFAD_NPV], afa_[MFAD_NF], afb_[MFAD_NF], Ea_, Eb_; \
    const int oka_ = mfad_lanes_energy_front(L, e, idxa_, pa_, afa_, &Ea_); \
    const int okb_ = mfad_lanes_energy_front(L, e + MFAD_VW, idxb_, pb_, afb_, &Eb_); \
    if (oka_) { \
      mfad_lanes_sum(L, Ea_, &sum_); \
      mfad_lanes_scatter(L, idxa_, pa_, afa_); \
    } else \
      for (int l_ = 0; l_ < MFAD_VW; l_++) { \
        const int e_ = e + l_; \
        MFAD_LANES_SCALAR_GRADIENT(e_); \
      } \
    if (okb_) { \
      mfad_lanes_sum(L, Eb_, &sum_); \
      mfad_lanes_scatter(L, idxb_, pb_, afb_); \
    } else \
      for (int l_ = 0; l_ < MFAD_VW; l_++) { \
        const int e_ = e + MFAD_VW + l_; \
        MFAD_LANES_SCALAR_GRADIENT(e_); \
      } \
  }
#if MFAD_LANES_PAIRS
#define MFAD_LANES_GRADIENT_PAIRS_ MFAD_LANES_GRADIENT_PAIRS
#else
#define MFAD_LANES_GRADIENT_PAIRS_ MFAD_LANES_NO_PAIRS
#endif
static void mfad_cpu_lanes_gradient(const MfadLoop *L)
{
  MFAD_CPU_COLOURED_LANES(L, MFAD_LANES_GRADIENT_PAIRS_, mfad_lanes_gradient_group, MFAD_LANES_SCALAR_GRADIENT, 1);
}
#define MFAD_CPU_LANES_gradient(L) \
  if (!(L)->scalar && !(L)->atomic) { \
    mfad_cpu_lanes_gradient(L); \
    return; \
  }
#else
#define MFAD_CPU_LANES_gradient(L)
#endif
#if (MFAD_LANES_MODES) & 2
/* The HVP by pairs of groups: two bodies side by side, then the two scatters in element order (a
   divergent group's elements on the scalar path in their place). One body's dependent chain (a
   spring's sqrt and divisions, ~70 cycles a group) overlaps the other's: mass_spring's HVP 7.7-8.1
   -> 6.9-7.3 ns a spring (bench_lanes -energy mass_spring -n 300); the gradient measured no gain */
#define MFAD_LANES_HVP_PAIRS(L, e, hi) \
  for (; e + 2 * MFAD_VW <= hi; e += 2 * MFAD_VW) { \
    long long idxa_[MFAD_NV][MFAD_VW], idxb_[MFAD_NV][MFAD_VW]; \
    mfad_vd   pa_[MFAD_NPV], pb_[MFAD_NPV], ata_[MFAD_NF], atb_[MFAD_NF]; \
    int       da_ = 0, db_ = 0; \
    mfad_lanes_hvp_front(L, e, idxa_, pa_, ata_, &da_); \
    mfad_lanes_hvp_front(L, e + MFAD_VW, idxb_, pb_, atb_, &db_); \
    if (!da_) mfad_lanes_scatter(L, idxa_, pa_, ata_); \
    else \
      for (int l_ = 0; l_ < MFAD_VW; l_++) { \
        const int e_ = e + l_; \
        MFAD_LANES_SCALAR_HVP(e_); \
      } \
    if (!db_) mfad_lanes_scatter(L, idxb_, pb_, atb_); \
    else \
      for (int l_ = 0; l_ < MFAD_VW; l_++) { \
        const int e_ = e + MFAD_VW + l_; \
        MFAD_LANES_SCALAR_HVP(e_); \
      } \
  }
#if MFAD_LANES_PAIRS
#define MFAD_LANES_HVP_PAIRS_ MFAD_LANES_HVP_PAIRS
#else
#define MFAD_LANES_HVP_PAIRS_ MFAD_LANES_NO_PAIRS
#endif
/* GCC's scheduling before register allocation (-fschedule-insns: off on x86 by default, as it
   lengthens live ranges) on the HVP's pairs of groups, where 32 vector registers (AVX-512VL) hold
   both groups: mass_spring's HVP 4.74-4.86 -> 4.41-4.54 ns a spring (bench_lanes -workload cloth
   -n 317, 5 runs in turn, AMD EPYC Zen 4); with 16 (-mno-avx512f) they spill, 4.80-4.86 -> 5.68-6.47,
   as do 8 lanes' (5.52-5.85 -> 6.23-6.38), and the whole unit with it made the gradient 1-3% slower
   (bench/README.md). -DMFAD_LANES_NO_SCHEDULE: off */
#if MFAD_LANES_PAIRS && MFAD_VW == 4 && defined(__AVX512VL__) && defined(__GNUC__) && !defined(__clang__) && !defined(MFAD_LANES_NO_SCHEDULE)
#define MFAD_LANES_HVP_SCHEDULE __attribute__((optimize("schedule-insns")))
#else
#define MFAD_LANES_HVP_SCHEDULE
#endif
static void MFAD_LANES_HVP_SCHEDULE mfad_cpu_lanes_hvp(const MfadLoop *L)
{
  MFAD_CPU_COLOURED_LANES(L, MFAD_LANES_HVP_PAIRS_, mfad_lanes_hvp_group, MFAD_LANES_SCALAR_HVP, 0);
}
#define MFAD_CPU_LANES_hvp(L) \
  if (!(L)->scalar && !(L)->atomic) { \
    mfad_cpu_lanes_hvp(L); \
    return; \
  }
#else
#define MFAD_CPU_LANES_hvp(L)
#endif

#if ((MFAD_LANES_MODES)&24) && defined(MFAD_VMD_K)
/* The feature Hessians H_F of a group and its energies E: one sweep of dual numbers with one tangent
   per feature (seeded with the unit directions: the adjoints' tangents are H_F's columns), by
   forward-over-reverse where the scalar path takes Hessian numbers; 0 where its lanes took a
   branch differently */
static inline __attribute__((always_inline)) int mfad_lanes_feature_hessian(const MfadLoop *L, int e0, long long idx[MFAD_NV][MFAD_VW],
                                                                            mfad_vd pv[MFAD_NPV], mfad_vd HF[MFAD_NF][MFAD_NF], mfad_vd *Ev)
{
  mfad_vd     fx[MFAD_NF];
  mfad_vmdual fs[MFAD_NF], af[MFAD_NF], E;
  int         div = 0;
  mfad_lanes_index(L, e0, idx);
  mfad_lanes_params(L, e0, pv);
  mfad_lanes_gather_map(L->x, idx, pv, fx);
  for (int k0 = 0; k0 < MFAD_NF; k0 += MFAD_VMD_K) {
    for (int m = 0; m < MFAD_NF; m++) {
      fs[m].v = fx[m];
      for (int k = 0; k < MFAD_VMD_K; k++) fs[m].t[k] = mfad_vsplat(m == k0 + k ? 1.0 : 0.0);
    }
    mfad_energy_lanes_vmd(fs, pv, &E, af, &div);
    if (div) return 0;
    for (int m = 0; m < MFAD_NF; m++)
      for (int k = 0; k < MFAD_VMD_K && k0 + k < MFAD_NF; k++) HF[m][k0 + k] = af[m].t[k];
  }
  *Ev = E.v;
  return 1;
}
#endif

#if ((MFAD_LANES_MODES)&8) && defined(MFAD_VMD_K)
/* The element Hessians of a group (the Hessian mode): the feature Hessian H_F
   (mfad_lanes_feature_hessian), PSD-projected where L->psd asks (mfad_psd_project_lanes), then
   B^T H_F B as mfad_elem_feature_pullback does (M + N pull-backs), on the lanes; each lane's N x N
   block written to its element's place. Equal to the scalar path to round-off */
static inline __attribute__((always_inline)) int mfad_lanes_hessian_group(const MfadLoop *L, int e0, double *sum)
{
  long long idx[MFAD_NV][MFAD_VW];
  mfad_vd   pv[MFAD_NPV], W[MFAD_NF][MFAD_N], w[MFAD_NF], hf[MFAD_NF], row[MFAD_N], HF[MFAD_NF][MFAD_NF], E;
  if (!mfad_lanes_feature_hessian(L, e0, idx, pv, HF, &E)) return 0;
  for (int l = 0; l < MFAD_VW; l++) *sum += L->weight * E[l];
  if (L->psd) mfad_psd_project_lanes(MFAD_NF, &HF[0][0], L->psd, L->psd_eps);
  /* W = B^T H_F by H_F's rows (its columns: symmetric to round-off; the scalar path reads rows) */
  for (int m = 0; m < MFAD_NF; m++) {
    for (int k = 0; k < MFAD_NF; k++) hf[k] = HF[m][k];
    mfad_feature_pull_lanes(hf, pv, W[m]);
  }
  for (int n = 0; n < MFAD_N; n++) {
    double *H = L->y + (long)e0 * MFAD_N * MFAD_N + (long)n * MFAD_N;
    for (int m = 0; m < MFAD_NF; m++) w[m] = W[m][n];
    mfad_feature_pull_lanes(w, pv, row);
    for (int j = 0; j < MFAD_N; j++) row[j] = row[j] * L->weight;
    int j = 0;
#if defined(MFAD_LANES_T4)
    /* 4 x 4 blocks transposed in registers: a lane's 4 consecutive entries one store */
    for (; j + 4 <= MFAD_N; j += 4) {
      mfad_vd c[4];
      MFAD_LANES_T4((row + j), c);
      for (int l = 0; l < 4; l++) memcpy(H + (long)l * MFAD_N * MFAD_N + j, &c[l], sizeof(mfad_vd));
    }
#endif
    for (; j < MFAD_N; j++)
      for (int l = 0; l < MFAD_VW; l++) H[(long)l * MFAD_N * MFAD_N + j] = row[j][l];
  }
  return 1;
}

#define MFAD_LANES_SCALAR_HESSIAN(e) \
  do { \
    double *H_ = L->y + (long)(e)*MFAD_N * MFAD_N; \
    sum += L->weight * MFAD_CPU_ELEM_HESSIAN(L, e, H_); \
    for (int i_ = 0; i_ < MFAD_N * MFAD_N; i_++) H_[i_] *= L->weight; \
  } while (0)
/* the Hessian mode's loop (mfad/impl/loop_cpu.h's mfad_cpu_hessian: blocks uncoloured, each element's
   block its own), groups of lanes in element order, then the tail */
static void mfad_cpu_lanes_hessian(const MfadLoop *L)
{
  const int nt_ = mfad_cpu_threads(L);
  (void)nt_;
  MFAD_OMP(parallel for schedule(dynamic, 1) num_threads(nt_) if (L->nblocks > 1))
  for (int b = 0; b < L->nblocks; b++) {
    const int hi  = L->block_start[b + 1];
    int       e   = L->block_start[b];
    double    sum = 0.0;
    for (; e + MFAD_VW <= hi; e += MFAD_VW)
      if (!mfad_lanes_hessian_group(L, e, &sum))
        for (int l = 0; l < MFAD_VW; l++) MFAD_LANES_SCALAR_HESSIAN(e + l);
    for (; e < hi; e++) MFAD_LANES_SCALAR_HESSIAN(e);
    L->block_value[b] = sum;
  }
}
/* the PSD-projected element Hessians too: L->psd is set where the projection is H_F's (src/hessian.c) */
#define MFAD_CPU_LANES_hessian(L) \
  if (!(L)->scalar) { \
    mfad_cpu_lanes_hessian(L); \
    return; \
  }
#else
#define MFAD_CPU_LANES_hessian(L)
#endif

#if ((MFAD_LANES_MODES)&16) && defined(MFAD_VMD_K)
/* The Hessian diagonals of a group (the Jacobi preconditioner's): H_F as the element Hessian's
   (mfad_lanes_feature_hessian), W = B^T H_F by its rows (M pull-backs), B's rows (M pull-backs of
   the unit directions: constants folded where B is), then diag(B^T H_F B)_n = sum_m B_mn W_mn,
   scattered as the HVP's. The scalar path's diagonal mode carries 2N + 1 doubles through the body
   instead: equal to round-off, not bitwise */
static inline __attribute__((unused)) int mfad_lanes_diagonal_group(const MfadLoop *L, int e0, double *sum)
{
  long long idx[MFAD_NV][MFAD_VW];
  mfad_vd   pv[MFAD_NPV], HF[MFAD_NF][MFAD_NF], E, W[MFAD_NF][MFAD_N], B[MFAD_NF][MFAD_N], u[MFAD_NF], dg[MFAD_N];
  (void)sum;
  if (!mfad_lanes_feature_hessian(L, e0, idx, pv, HF, &E)) return 0;
  for (int m = 0; m < MFAD_NF; m++) {
    mfad_feature_pull_lanes(HF[m], pv, W[m]);
    for (int k = 0; k < MFAD_NF; k++) u[k] = mfad_vsplat(k == m ? 1.0 : 0.0);
    mfad_feature_pull_lanes(u, pv, B[m]);
  }
  for (int n = 0; n < MFAD_N; n++) {
    dg[n] = B[0][n] * W[0][n];
    for (int m = 1; m < MFAD_NF; m++) dg[n] += B[m][n] * W[m][n];
  }
  mfad_lanes_scatter_vec(L->y, L->weight, idx, dg);
  return 1;
}
#define MFAD_LANES_SCALAR_DIAGONAL(e) \
  do { \
    double dg_[MFAD_N]; \
    mfad_elem_diagonal(L, e, dg_); \
    mfad_elem_scatter(L->y, L->conn + (long)(e)*MFAD_NV, dg_, L->weight); \
  } while (0)
static void mfad_cpu_lanes_diagonal(const MfadLoop *L)
{
  MFAD_CPU_COLOURED_LANES(L, MFAD_LANES_NO_PAIRS, mfad_lanes_diagonal_group, MFAD_LANES_SCALAR_DIAGONAL, 0);
}
#define MFAD_CPU_LANES_diagonal(L) \
  if (!(L)->scalar) { \
    mfad_cpu_lanes_diagonal(L); \
    return; \
  }
#else
#define MFAD_CPU_LANES_diagonal(L)
#endif

#endif /* MFAD_LOOP_CPU_LANES_H */
