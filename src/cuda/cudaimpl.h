// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend's own structures (C++: nvcc or the emulation). */
#ifndef MFAD_CUDAIMPL_H
#define MFAD_CUDAIMPL_H

#include "mfadcuda.h"
#include <mfad/cuda_common.h>

#define MfadCallCUDA(call) \
  do { \
    const cudaError_t cerr_ = (cudaError_t)(call); \
    PetscCheck(cerr_ == cudaSuccess, PETSC_COMM_SELF, PETSC_ERR_LIB, "CUDA error %d (%s: %s) in %s", (int)cerr_, cudaGetErrorName(cerr_), cudaGetErrorString(cerr_), #call); \
  } while (0)

/* A term on the device: uploaded once at set-up. */
typedef struct {
  int    *conn;         /* nelem * nvert local vertex ids, loop order */
  double *params;       /* nelem * nparam */
  int    *elems;        /* elements grouped by colour (colours of single elements) */
  int    *colour_start; /* host: ncolours + 1 offsets into elems */
  int     ncolours;
  int    *block_start;  /* the core's nblocks + 1 block offsets, for the block energies */
} MfadCudaTerm;

/* A device buffer allocated on first use and kept (no allocation per call). */
typedef struct {
  void  *ptr;
  size_t bytes;
} MfadCudaBuffer;

typedef struct {
  cudaStream_t   stream; /* one per energy */
  MfadCudaTerm  *terms;
  PetscInt       nterms;
  int           *fixloc; /* fixed local dofs */
  PetscInt       fixed_count; /* the energy's fixed-dof set-up that fixloc holds */
  MfadCudaBuffer x, v, y, blocks, elem_value, block_value, hess, cache;
  double        *hess_host; /* COO values for a host matrix */
  PetscCount     nhess_host;
  MfadHessianKey hess_key, cache_key;
} MfadCuda;

PETSC_INTERN PetscErrorCode MfadCudaGet_Private(MfadEnergy E, MfadCuda **c);
PETSC_INTERN PetscErrorCode MfadCudaBufferGet_Private(MfadCudaBuffer *b, size_t bytes, void **ptr);
/* Device view of a local Vec: in place when PETSc holds it on the device, else staged */
PETSC_INTERN PetscErrorCode MfadCudaVecGetRead_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, const PetscScalar **host, const double **dev);
PETSC_INTERN PetscErrorCode MfadCudaVecRestoreRead_Private(Vec X, const PetscScalar **host);
PETSC_INTERN PetscErrorCode MfadCudaVecGetWrite_Private(MfadCuda *c, Vec Y, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mtype);
PETSC_INTERN PetscErrorCode MfadCudaVecRestoreWrite_Private(MfadCuda *c, Vec Y, PetscScalar **host, double *dev, PetscMemType mtype);
PETSC_INTERN PetscErrorCode MfadCudaZeroFixed_Private(MfadEnergy E, MfadCuda *c, double *v);
PETSC_INTERN void           MfadCudaLaunchInit_Private(MfadEnergy E, const MfadTerm *term, const MfadCudaTerm *dt, MfadCuda *c, MfadCudaLaunch *P);

#endif
