// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend's own structures (C++: nvcc or the emulation). */
#ifndef MFAD_CUDAIMPL_H
#define MFAD_CUDAIMPL_H

#include "mfadcuda.h"
#include <mfad/impl/cuda_common.h>
#if !defined(MFAD_CUDA_EMULATION)
#include <cusolverDn.h> /* the PSD projection's batched eigensolver (psd.cu) */
#endif

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
  int    *gstart;       /* gather: nlocal + 1 offsets into gidx, by local vertex */
  int    *gidx;         /* gather: e * nvert + a for each element e with local vertex a, in element order */
  int      *row;          /* least squares: loop element e's rows are row[e] * nout (the caller's order), or NULL until a residual needs them */
  PetscBool ready;        /* uploaded for the term's current element set */
} MfadCudaTerm;

/* A device buffer allocated on first use and kept (no allocation per call). A buffer staging a Vec
   for reading remembers which Vec and state it holds, so that an unchanged point is not copied again. */
typedef struct {
  void            *ptr;
  size_t           bytes;
  PetscBool        staged;
  PetscObjectId    id;
  PetscObjectState state;
} MfadCudaBuffer;

typedef struct {
  cudaStream_t   stream;     /* PETSc's current stream (or our own where PETSc has no CUDA) */
  PetscBool      own_stream;
  MfadCudaTerm  *terms;
  PetscInt       nterms;
  int           *fixloc;     /* fixed local dofs (owned ones first) */
  double        *fixval;     /* their values */
  PetscInt       fixed_count; /* the energy's fixed-dof set-up that fixloc holds */
  PetscBool      pen_device; /* the penalty of the point in xloc is in pen (else in E->local.fixpen) */
  double        *sums_host;  /* nterms + 1: each term's energy, then the penalty */
  PetscInt       nghost_rebuilds; /* the ghost exchange the terms' uploads were numbered for (src/dynamic.c) */
  PetscBool      sync;            /* -mfad_cuda_sync: synchronise after each launch */
  MfadCudaBuffer x, v, y, blocks, elem_value, block_value, elem_out, hess, cache, partial, sums, pen, penterms, flag, res, resw, resjac;
  double        *hess_host; /* COO values for a host matrix */
  PetscCount     nhess_host;
  MfadHessianKey hess_key, cache_key;
  /* the PSD projection (psd.cu): cuSOLVER's handle and Jacobi parameters, made on first use */
  cusolverDnHandle_t solver;
  syevjInfo_t        syevj;
  MfadCudaBuffer     psd, psd_lwork, psd_info, psd_flag;
  int                psd_nlwork, psd_batch; /* the chunk the workspace holds */
  const MfadTerm    *psd_term;              /* the term being projected and its chunk's first element (loop order), for messages */
  PetscInt           psd_first;
  PetscMPIInt        psd_rank, psd_size;
  PetscInt           psd_fallbacks; /* matrices syevj failed on that took the host's projection */
  /* an error a launcher found and described (it returned MFAD_CUDA_REPORTED) */
  PetscErrorCode err_code;
  char           err_msg[512];
} MfadCuda;

/* A launcher's return value (in place of a cudaError_t) when it left its own message in
   MfadCuda.err_msg: a failed eigensolve, a cuSOLVER status */
#define MFAD_CUDA_REPORTED (-1)

PETSC_INTERN PetscErrorCode MfadCudaGet_Private(MfadEnergy E, MfadCuda **c);
PETSC_INTERN PetscErrorCode MfadCudaBufferGet_Private(MfadCudaBuffer *b, size_t bytes, void **ptr);
/* Device view of a local Vec: in place when PETSc holds it on the device, else staged */
PETSC_INTERN PetscErrorCode MfadCudaVecGetRead_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, const PetscScalar **host, const double **dev);
PETSC_INTERN PetscErrorCode MfadCudaVecRestoreRead_Private(Vec X, const PetscScalar **host);
PETSC_INTERN PetscErrorCode MfadCudaVecGetWrite_Private(MfadCuda *c, Vec Y, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mtype);
PETSC_INTERN PetscErrorCode MfadCudaVecRestoreWrite_Private(MfadCuda *c, Vec Y, PetscScalar **host, double *dev, PetscMemType mtype);
PETSC_INTERN PetscErrorCode MfadCudaVecGetReadWrite_Private(MfadCuda *c, Vec X, MfadCudaBuffer *stage, PetscScalar **host, double **dev, PetscMemType *mtype);
PETSC_INTERN PetscErrorCode MfadCudaVecRestoreReadWrite_Private(MfadCuda *c, Vec X, PetscScalar **host, double *dev, PetscMemType mtype);
PETSC_INTERN PetscErrorCode MfadCudaCopy_Private(MfadCuda *c, void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
PETSC_INTERN PetscErrorCode MfadCudaSum_Private(MfadCuda *c, const double *a, int n, double *out);
PETSC_INTERN PetscErrorCode MfadCudaZeroFixed_Private(MfadEnergy E, MfadCuda *c, double *v);
PETSC_INTERN PetscErrorCode MfadCudaTermHessians_Private(MfadEnergy E, MfadCuda *c, PetscInt t, const double *x, double *y, PetscBool packed);
/* After a launcher (err: its return value): a launch error, or with -mfad_cuda_sync the kernel's
   own fault (a synchronisation after it), as an error naming the term's kernel and `what` */
PETSC_INTERN PetscErrorCode MfadCudaLaunchCheck_Private(MfadEnergy E, MfadCuda *c, int err, const MfadTerm *term, const char *what);
PETSC_INTERN const char    *MfadCusolverStatusName(int st);
/* After a launch of one of the backend's own kernels (`kernel`: its name), as MfadCudaLaunchCheck_Private */
PETSC_INTERN PetscErrorCode MfadCudaKernelCheck_Private(MfadCuda *c, const char *kernel);
#define MfadCudaLaunched(c, kern) PetscCall(MfadCudaKernelCheck_Private(c, #kern))
PETSC_INTERN PetscErrorCode MfadCudaPSDReset_Private(MfadCuda *c);
/* One operation of one term (`what`: its name, for messages): a launch per colour, or one over all elements */
PETSC_INTERN PetscErrorCode MfadCudaTermRun_Private(MfadEnergy E, MfadCuda *c, const MfadTerm *term, const MfadCudaTerm *dt, MfadCudaLaunchFn fn,
                                                    PetscBool coloured, MfadCudaLaunch *P, const char *what);
/* src/cuda/residual.cu: the backend table's residual entries */
PETSC_INTERN PetscErrorCode MfadEnergyTransposeProduct_CUDA(MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadEnergyResidual_CUDA(MfadEnergy E, Vec R);
PETSC_INTERN PetscErrorCode MfadEnergyResidualJVP_CUDA(MfadEnergy E, Vec R);
PETSC_INTERN PetscErrorCode MfadEnergyResidualVJP_CUDA(MfadEnergy E, Vec W);
PETSC_INTERN PetscErrorCode MfadEnergyResidualJacobian_CUDA(MfadEnergy E, PetscScalar values[]);
PETSC_INTERN void           MfadCudaLaunchInit_Private(MfadEnergy E, const MfadTerm *term, const MfadCudaTerm *dt, MfadCuda *c, MfadCudaLaunch *P);

/* Where PETSc holds a Vec's values. The emulation has no device: MFAD_CUDA_EMU_RESIDENT=1 makes
   host memory count as the device's, so that the in-place paths (no copies) run there too. */
static inline PetscBool MfadCudaOnDevice(PetscMemType mt)
{
#if defined(MFAD_CUDA_EMULATION)
  const char *s = getenv("MFAD_CUDA_EMU_RESIDENT");
  if (s && s[0] == '1') return PETSC_TRUE;
#endif
  return PetscMemTypeDevice(mt) ? PETSC_TRUE : PETSC_FALSE;
}

#endif
