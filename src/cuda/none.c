// SPDX-License-Identifier: BSD-2-Clause
/* The CUDA backend where CUDA was not compiled: registered all the same (src/backends.h), so that
   asking for it is an error that says why, never an unknown name or a CPU run. */
#include "../mfadimpl.h"

PetscErrorCode MfadEnergyCreate_CUDA(MfadEnergy E)
{
  SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP,
          "-mfad_backend cuda: this build of mfad was compiled without CUDA (no nvcc found, or -DMFAD_ENABLE_CUDA=OFF); rebuild with nvcc (CUDACXX) "
          "and -DMFAD_ENABLE_CUDA=ON");
}
