// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfad/impl/cuda_common.h
  @brief What every CUDA launch shares (mfad/impl/loop_cuda.h per energy, src/cuda/ for the rest): the
         launch macro, the grid arithmetic and the element of a thread in a colour-batched launch.
         Compiled by nvcc, or by the host C++ compiler under mfad/impl/cuda_emulate.h (the tests).
**/
#if !defined(MFAD_IMPL_ALLOWED)
#error "<mfad/impl/cuda_common.h> is generated-code machinery: include <mfad.h> or <mfad/energy.h>; mfad-energy's output defines MFAD_IMPL_ALLOWED"
#endif
#ifndef MFAD_CUDA_COMMON_H
#define MFAD_CUDA_COMMON_H

#if !defined(MFAD_CUDA_EMULATION)
#include <cuda_runtime.h>
/* kern<<<grid, block, 0, stream>>>(args): a macro so that the emulation can run it as loops */
#define MFAD_LAUNCH(kern, grid, block, stream, ...) kern<<<(grid), (block), 0, (cudaStream_t)(stream)>>>(__VA_ARGS__)
#endif

/* Threads per CUDA block: element kernels keep their numbers in registers (a fused HVP at N = 12
   uses ~200), so small blocks leave the scheduler room; a first GPU run should sweep 64..256. */
#define MFAD_CUDA_THREADS 128

/* Every kernel declares the block size it is launched with: nvcc then fits its registers to that
   block (a kernel compiled for 1,024 threads may need more registers than a 512-thread block has,
   and its launch fails), and scripts/cuda-resources.py reads the size back from the object
   (EIATTR_MAX_THREADS) to compute occupancy and check registers x block <= 64 K. */
#define MFAD_CUDA_BOUNDS        __launch_bounds__(MFAD_CUDA_THREADS)
#define MFAD_CUDA_BOUNDS_SERIAL __launch_bounds__(1) /* the kernels launched as one thread (a serial sum) */

/* CUDA blocks covering n threads */
static inline int mfad_cuda_grid(int n) { return (n + MFAD_CUDA_THREADS - 1) / MFAD_CUDA_THREADS; }

/* The element thread `i` of a launch works on: elems[i] (one colour's element list) or i. */
__host__ __device__ static inline int mfad_cuda_element(const int *elems, int i) { return elems ? elems[i] : i; }

/* The thread index of the calling CUDA thread in a 1-D grid. */
#define MFAD_CUDA_TID() ((int)(blockIdx.x * blockDim.x + threadIdx.x))

#endif /* MFAD_CUDA_COMMON_H */
