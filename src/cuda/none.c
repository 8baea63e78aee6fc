// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend where CUDA was not compiled: asking for it is an error that says so. */
#include "mfadcuda.h"

#define MFAD_NO_CUDA_MSG "-mfad_backend cuda: this build of mfad was compiled without CUDA (no nvcc found, or -DMFAD_ENABLE_CUDA=OFF); rebuild with nvcc (CUDACXX) and -DMFAD_ENABLE_CUDA=ON"

PetscErrorCode MfadCudaCheckDevice_Private(MPI_Comm comm) { SETERRQ(comm, PETSC_ERR_SUP, MFAD_NO_CUDA_MSG); }
PetscErrorCode MfadEnergyLocalVecType_CUDA(MfadEnergy E, VecType *type) { SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG); (void)type; }
PetscErrorCode MfadEnergyReset_CUDA(MfadEnergy E)
{
  (void)E;
  return PETSC_SUCCESS;
}
PetscErrorCode MfadEnergyLocalFix_CUDA(MfadEnergy E) { SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG); }
PetscErrorCode MfadEnergyRunTerms_CUDA(MfadEnergy E, MfadOp op, PetscReal *value)
{
  (void)op, (void)value;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG);
}
PetscErrorCode MfadEnergyFixedRows_CUDA(MfadEnergy E, Vec Y, MfadFixedRows rows, Vec X)
{
  (void)Y, (void)rows, (void)X;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG);
}
PetscErrorCode MfadEnergyHessianValues_CUDA(MfadEnergy E, Vec X, PetscBool device, const PetscScalar **values)
{
  (void)X, (void)device, (void)values;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG);
}
PetscErrorCode MfadEnergyHessianCache_CUDA(MfadEnergy E, Vec X)
{
  (void)X;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG);
}
PetscErrorCode MfadEnergyCachedRun_CUDA(MfadEnergy E, MfadOp op)
{
  (void)op;
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, MFAD_NO_CUDA_MSG);
}
