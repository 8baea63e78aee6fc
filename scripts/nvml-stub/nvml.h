/* SPDX-License-Identifier: BSD-2-Clause */
/* A stand-in for the NVIDIA driver's nvml.h, for building PETSc (3.25, or --with-cuda-nvml=1)
   on a machine without the driver: only the types, constants and functions PETSc uses.
   Written from NVML's public documentation; not NVIDIA's header. The matching library
   (nvml_stub.c) initialises and shuts down successfully and fails every reading: a process
   that asks NVML for a number through it gets an error, never a wrong number. */
#ifndef MFAD_NVML_STUB_H
#define MFAD_NVML_STUB_H

#ifdef __cplusplus
extern "C" {
#endif

typedef enum nvmlReturn_enum {
  NVML_SUCCESS                   = 0,
  NVML_ERROR_UNINITIALIZED       = 1,
  NVML_ERROR_INVALID_ARGUMENT    = 2,
  NVML_ERROR_NOT_SUPPORTED       = 3,
  NVML_ERROR_NO_PERMISSION       = 4,
  NVML_ERROR_NOT_FOUND           = 6,
  NVML_ERROR_DRIVER_NOT_LOADED   = 9,
  NVML_ERROR_LIBRARY_NOT_FOUND   = 12,
  NVML_ERROR_FUNCTION_NOT_FOUND  = 13,
  NVML_ERROR_UNKNOWN             = 999
} nvmlReturn_t;

typedef struct nvmlDevice_st *nvmlDevice_t;

typedef enum nvmlValueType_enum {
  NVML_VALUE_TYPE_DOUBLE             = 0,
  NVML_VALUE_TYPE_UNSIGNED_INT       = 1,
  NVML_VALUE_TYPE_UNSIGNED_LONG      = 2,
  NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
  NVML_VALUE_TYPE_SIGNED_LONG_LONG   = 4,
  NVML_VALUE_TYPE_SIGNED_INT         = 5
} nvmlValueType_t;

typedef union nvmlValue_st {
  double             dVal;
  int                siVal;
  unsigned int       uiVal;
  unsigned long      ulVal;
  unsigned long long ullVal;
  long long          sllVal;
} nvmlValue_t;

typedef struct nvmlFieldValue_st {
  unsigned int    fieldId;
  unsigned int    scopeId;
  long long       timestamp;
  long long       latencyUsec;
  nvmlValueType_t valueType;
  nvmlReturn_t    nvmlReturn;
  nvmlValue_t     value;
} nvmlFieldValue_t;

#define NVML_FI_DEV_POWER_INSTANT 186

nvmlReturn_t nvmlInit_v2(void);
nvmlReturn_t nvmlShutdown(void);
const char  *nvmlErrorString(nvmlReturn_t result);
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device);
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values);
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy);

#define nvmlInit                   nvmlInit_v2
#define nvmlDeviceGetHandleByIndex nvmlDeviceGetHandleByIndex_v2

#ifdef __cplusplus
}
#endif
#endif
