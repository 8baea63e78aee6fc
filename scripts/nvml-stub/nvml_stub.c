/* SPDX-License-Identifier: BSD-2-Clause */
/* Stand-in for libnvidia-ml (see nvml.h beside it), for a PETSc that always links NVML (3.25)
   on a machine without the NVIDIA driver. scripts/petsc-cuda.sh builds it into mfad's cache as
   a file and soname libnvidia-ml.so, never libnvidia-ml.so.1 (the driver's run-time name), so
   it cannot shadow a real driver: only the PETSc linked against it (through its run path)
   loads it. PETSc 3.25 calls nvmlInit_v2 and nvmlShutdown whenever it sets up or tears down a
   CUDA device, so those succeed (doing nothing); the readings, which PETSc takes only for
   -log_view_gpu_energy(_meter), fail with NVML_ERROR_NOT_SUPPORTED: an error, never a number. */
#include "nvml.h"

nvmlReturn_t nvmlInit_v2(void) { return NVML_SUCCESS; }
nvmlReturn_t nvmlShutdown(void) { return NVML_SUCCESS; }
const char  *nvmlErrorString(nvmlReturn_t result)
{
  return result == NVML_SUCCESS ? "Success" : "not supported by the NVML stand-in of mfad (scripts/nvml-stub): no readings";
}
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
  (void)index;
  if (device) *device = 0;
  return NVML_ERROR_NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
  (void)device;
  for (int i = 0; values && i < valuesCount; i++) values[i].nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
  return NVML_ERROR_NOT_SUPPORTED;
}
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
  (void)device;
  if (energy) *energy = 0;
  return NVML_ERROR_NOT_SUPPORTED;
}
