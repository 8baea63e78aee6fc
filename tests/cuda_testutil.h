// SPDX-License-Identifier: BSD-2-Clause
/* What the emulated CUDA tests share (test_cuda_hard.c, test_cuda_residual.c): the comparison with
   the CPU backend, to the bound that tests/test_cuda.c derives, and an error recorder. */
#ifndef MFAD_CUDA_TESTUTIL_H
#define MFAD_CUDA_TESTUTIL_H

#include "testutil.h"

/* 1e-12 relative to the largest entry: both backends run the same element bodies; they differ in
   FMA contraction and in the order an entry receives its (a few dozen at most) element
   contributions, each a few roundings: ~1e-14, with margin */
#define CUDA_TOL 1e-12

/* |a - b|_inf <= CUDA_TOL |b|_inf, b the CPU's */
static inline void CudaCompareVecs(Vec a, Vec b, const char *what)
{
  PetscReal d, s;
  Vec       r;
  TestCall(VecDuplicate(a, &r));
  TestCall(VecWAXPY(r, -1.0, b, a));
  TestCall(VecNorm(r, NORM_INFINITY, &d));
  TestCall(VecNorm(b, NORM_INFINITY, &s));
  TestCall(VecDestroy(&r));
  ck_assert_msg(s > 0, "%s: the CPU result is zero: the comparison would prove nothing", what);
  ck_assert_msg(d <= CUDA_TOL * s, "%s: cuda differs from cpu by %g (max |cpu| %g), bound %g", what, (double)d, (double)s, (double)(CUDA_TOL * s));
}

/* an error handler recording the first message of an error into ctx (512 bytes) */
static inline PetscErrorCode CudaRecordError(MPI_Comm comm, int line, const char *func, const char *file, PetscErrorCode n, PetscErrorType p,
                                             const char *mess, void *ctx)
{
  (void)comm, (void)line, (void)func, (void)file;
  if (p == PETSC_ERROR_INITIAL && mess) strncpy((char *)ctx, mess, 511);
  return n;
}

#endif
