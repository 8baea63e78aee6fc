// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/loop_cpu.h
  @brief CPU element loops (OpenMP) around the element bodies of mfad/impl/element.h.

  Race-free and deterministic: blocks of consecutive elements are coloured so that blocks of one
  colour share no vertex; a colour's blocks run in parallel, each block in element order, colours
  in order. Every output entry therefore receives its contributions in the same order for any
  thread count (bitwise identical results). Energies are summed per block, then in block order.
  The atomic variant exists only to measure against (it is not deterministic).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/loop_cpu.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_LOOP_CPU_H
#define MFAD_LOOP_CPU_H

#ifdef _OPENMP
#include <omp.h>
#define MFAD_OMP(x) _Pragma(MFAD_STR(omp x))
static inline int mfad_cpu_threads(const MfadLoop *L) { return L->nthreads > 0 ? L->nthreads : omp_get_max_threads(); }
#else
#define MFAD_OMP(x)
static inline int mfad_cpu_threads(const MfadLoop *L) { (void)L; return 1; }
#endif

/* the loops: static, each compiled only in the translation unit of its mode (MFAD_INSTANTIATE_MODES,
   mfad/impl/instantiate.h), the others unused there */
#define MFAD_CPU_LOOP static __attribute__((unused))
/* the element Hessian of the Hessian and block-diagonal loops: instantiate.h compiles it once, out
   of line, for both (and for the host element): each inlined copy of a 12-unknown Hessian body
   cost gcc -O3 ~7 s, and a call per element costs nothing against its N^2 lanes */
#ifndef MFAD_CPU_ELEM_HESSIAN
#define MFAD_CPU_ELEM_HESSIAN mfad_elem_hessian
#endif

/* Runs STMT (which sees the element index `e`) over every element, colour by colour. A colour's
   blocks are handed out one at a time (dynamic): a thread the scheduler parks behind another
   process holds the others up by one block, not by its static half of the colour (docs/threads.md);
   which thread runs a block does not change its sums. */
#define MFAD_CPU_COLOURED(L, STMT) \
  do { \
    const int nt_ = mfad_cpu_threads(L); \
    (void)nt_; \
    MFAD_OMP(parallel num_threads(nt_) if ((L)->parallel)) \
    for (int col_ = 0; col_ < (L)->ncolors; col_++) { \
      MFAD_OMP(for schedule(dynamic, 1)) \
      for (int bi_ = (L)->color_start[col_]; bi_ < (L)->color_start[col_ + 1]; bi_++) { \
        const int b_ = (L)->color_blocks[bi_]; \
        for (int e = (L)->block_start[b_]; e < (L)->block_start[b_ + 1]; e++) { STMT; } \
      } \
    } \
  } while (0)

/* Runs STMT over every element with no shared output (values, element Hessians); the block's
   energy is accumulated in `sum_` and stored in block_value. */
#define MFAD_CPU_BLOCKS(L, STMT) \
  do { \
    const int nt_ = mfad_cpu_threads(L); \
    (void)nt_; \
    MFAD_OMP(parallel for schedule(dynamic, 1) num_threads(nt_) if ((L)->nblocks > 1)) \
    for (int b_ = 0; b_ < (L)->nblocks; b_++) { \
      double sum_ = 0.0; \
      for (int e = (L)->block_start[b_]; e < (L)->block_start[b_ + 1]; e++) { STMT; } \
      (L)->block_value[b_] = sum_; \
    } \
  } while (0)

/* Comparison only: one parallel loop, atomic scatter. */
#define MFAD_CPU_ATOMIC(L, OUT, STMT) \
  do { \
    const int nt_ = mfad_cpu_threads(L); \
    (void)nt_; \
    MFAD_OMP(parallel for schedule(static) num_threads(nt_) if ((L)->nblocks > 1)) \
    for (int e = 0; e < (L)->nelem; e++) { \
      double     OUT[MFAD_N]; \
      const int *c_ = (L)->conn + (long)e * MFAD_NV; \
      STMT; \
      for (int a = 0; a < MFAD_NV; a++) \
        for (int d = 0; d < MFAD_ND; d++) { \
          MFAD_OMP(atomic) \
          (L)->y[(long)c_[a] * MFAD_ND + d] += (L)->weight * OUT[a * MFAD_ND + d]; \
        } \
    } \
  } while (0)

#if defined(MFAD_ENERGY_LANES_DEFINED)
#include <mfad/impl/loop_cpu_lanes.h>
/* the lanes' loop where the energy has one for the mode (mfad/impl/loop_cpu_lanes.h), unless L->scalar */
#define MFAD_CPU_LANES(L, mode) MFAD_CPU_LANES_##mode(L)
#else
#define MFAD_CPU_LANES(L, mode)
#endif

MFAD_CPU_LOOP void mfad_cpu_value(const MfadLoop *L)
{
  MFAD_CPU_LANES(L, value)
  MFAD_CPU_BLOCKS(L, sum_ += L->weight * mfad_elem_value(L, e));
}

MFAD_CPU_LOOP void mfad_cpu_gradient(const MfadLoop *L)
{
  /* energies per block, then the gradient coloured; the value pass costs a fraction of it */
  MFAD_CPU_LANES(L, gradient) /* the energies too */
  mfad_cpu_value(L);
  if (L->atomic) {
    MFAD_CPU_ATOMIC(L, g, (void)mfad_elem_gradient(L, e, g));
    return;
  }
  MFAD_CPU_COLOURED(L, double g[MFAD_N]; (void)mfad_elem_gradient(L, e, g); mfad_elem_scatter(L->y, L->conn + (long)e * MFAD_NV, g, L->weight));
}

MFAD_CPU_LOOP void mfad_cpu_hvp(const MfadLoop *L)
{
  MFAD_CPU_LANES(L, hvp)
  if (L->atomic) {
    MFAD_CPU_ATOMIC(L, hv, mfad_elem_hvp(L, e, hv));
    return;
  }
  MFAD_CPU_COLOURED(L, double hv[MFAD_N]; mfad_elem_hvp(L, e, hv); mfad_elem_scatter(L->y, L->conn + (long)e * MFAD_NV, hv, L->weight));
}

/* the diagonal mode: one pass of 2N + 1 doubles per number (mfad/impl/ad.h) */
MFAD_CPU_LOOP void mfad_cpu_diagonal(const MfadLoop *L)
{
  MFAD_CPU_LANES(L, diagonal)
  MFAD_CPU_COLOURED(L, double dg[MFAD_N]; mfad_elem_diagonal(L, e, dg); mfad_elem_scatter(L->y, L->conn + (long)e * MFAD_NV, dg, L->weight));
}

MFAD_CPU_LOOP void mfad_cpu_blockdiag(const MfadLoop *L)
{
  MFAD_CPU_COLOURED(L, double H[MFAD_N * MFAD_N]; (void)MFAD_CPU_ELEM_HESSIAN(L, e, H);
                    mfad_elem_scatter_blocks(L->y, L->conn + (long)e * MFAD_NV, H, L->weight));
}

MFAD_CPU_LOOP void mfad_cpu_hessian(const MfadLoop *L)
{
  MFAD_CPU_LANES(L, hessian)
  MFAD_CPU_BLOCKS(L, double *H = L->y + (long)e * MFAD_N * MFAD_N; sum_ += L->weight * MFAD_CPU_ELEM_HESSIAN(L, e, H);
                  for (int i = 0; i < MFAD_N * MFAD_N; i++) H[i] *= L->weight);
}

#endif /* MFAD_LOOP_CPU_H */
