// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend's entries (-mfad_backend cuda), which its create function
   (MfadEnergyCreate_CUDA, src/backends.h) puts in the energy's table: implemented by the .cu files
   of src/cuda/ (compiled by nvcc, or by the host C++ compiler with include/mfad/impl/cuda_emulate.h for the
   tests); where CUDA was not compiled, src/cuda/none.c's create is an error that says so. All Vecs
   are the energy's local vectors (owned vertices, then ghosts); the core does the ghost exchange.
   The backend's state (MfadCuda, src/cuda/cudaimpl.h) is the energy's E->data. */
#ifndef MFADCUDA_H
#define MFADCUDA_H

#include "../mfadimpl.h"

/* Succeeds when CUDA was compiled and a device answers; else an error naming the reason (the CUDA
   error code and string). */
PETSC_INTERN PetscErrorCode MfadCudaCheckDevice_Private(MPI_Comm comm);
/* The type of the energy's local vectors: VECSEQCUDA where PETSc has CUDA (its ghost exchange then
   stays on the device), VECSEQ otherwise. */
PETSC_INTERN PetscErrorCode MfadEnergyLocalVecType_CUDA(MfadEnergy E, VecType *type);
/* Frees the device copies (connectivity, colours, buffers) and the state: the table's reset, term
   changed and destroy (the state is made again on first use). */
PETSC_INTERN PetscErrorCode MfadEnergyReset_CUDA(MfadEnergy E);
/* The backend table's entries (MfadBackendOps, src/mfadimpl.h): on the device where PETSc holds the
   Vecs there (no copy to or from the host), through the host where it does not. */
PETSC_INTERN PetscErrorCode MfadEnergyLocalFix_CUDA(MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadEnergyRunTerms_CUDA(MfadEnergy E, MfadOp op, PetscReal *value);
PETSC_INTERN PetscErrorCode MfadEnergyFixedRows_CUDA(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X);
/* The COO values of MfadEnergyComputeHessian() at X: a device pointer when `device`, else a host
   copy; both owned by the energy. */
PETSC_INTERN PetscErrorCode MfadEnergyHessianValues_CUDA(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values);
/* The element-Hessian cache on the device, at X. */
PETSC_INTERN PetscErrorCode MfadEnergyHessianCache_CUDA(MfadEnergy E, Vec X);
/* A product (MFAD_OP_HVP: yloc <- H vloc), diagonal (yloc) or block diagonal (blockloc) from the device cache. */
PETSC_INTERN PetscErrorCode MfadEnergyCachedRun_CUDA(MfadEnergy E, MfadOp op);

#endif
