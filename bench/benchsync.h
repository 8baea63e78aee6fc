// SPDX-License-Identifier: BSD-2-Clause
/* BenchSync(): waits for the GPU's queued work before a timer stops. With CUDA vectors mfad's
   launches are asynchronous (PETSc's vectors too), so a timer around a call would measure the
   launches, not the work (the first GPU run showed an HVP "faster" than its roofline bound).
   Nothing in a build without CUDA; without a device the call fails at once and is ignored. */
#ifndef MFAD_BENCHSYNC_H
#define MFAD_BENCHSYNC_H
#if defined(MFAD_BENCH_CUDA)
#include <cuda_runtime_api.h>
static inline void BenchSync(void) { (void)cudaDeviceSynchronize(); }
#else
static inline void BenchSync(void) {}
#endif
#endif
