// SPDX-License-Identifier: BSD-2-Clause
/* The package: MfadEnergy's class id, the log events, the built-in backends, registered once (the
   first MfadEnergyCreate() or MfadEnergyRegister()) and dropped at PetscFinalize(), as PETSc's
   own packages do (src/mat/interface/dlregismat.c). */
#include "mfadimpl.h"

PetscClassId     MFAD_CLASSID;
PetscLogEvent    MFAD_Events[MFAD_OP_COUNT], MFAD_SetUpEvent;
PetscLogEvent    MFAD_ElementHessianEvent, MFAD_AssembleEvent, MFAD_CachedMultEvent, MFAD_PatternEvent;
PetscLogEvent    MFAD_GhostEvent, MFAD_ElementsEvent, MFAD_ElementSetEvent;
static PetscBool MfadPackageInitialized = PETSC_FALSE;

static PetscErrorCode MfadFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(MfadEnergyRegisterDestroy_Private());
  MfadPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadInitializePackage(void)
{
  PetscFunctionBegin;
  if (MfadPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  MfadPackageInitialized = PETSC_TRUE;
  PetscCall(PetscClassIdRegister("MfadEnergy", &MFAD_CLASSID));
  PetscCall(PetscLogEventRegister("MfadObjective", MFAD_CLASSID, &MFAD_Events[MFAD_OP_VALUE]));
  PetscCall(PetscLogEventRegister("MfadGradient", MFAD_CLASSID, &MFAD_Events[MFAD_OP_GRADIENT]));
  PetscCall(PetscLogEventRegister("MfadHessianProd", MFAD_CLASSID, &MFAD_Events[MFAD_OP_HVP]));
  PetscCall(PetscLogEventRegister("MfadHessianDiag", MFAD_CLASSID, &MFAD_Events[MFAD_OP_DIAGONAL]));
  PetscCall(PetscLogEventRegister("MfadHessianBlkD", MFAD_CLASSID, &MFAD_Events[MFAD_OP_BLOCKDIAG]));
  PetscCall(PetscLogEventRegister("MfadSetUp", MFAD_CLASSID, &MFAD_SetUpEvent));
  PetscCall(PetscLogEventRegister("MfadElemHessian", MFAD_CLASSID, &MFAD_ElementHessianEvent));
  PetscCall(PetscLogEventRegister("MfadAssemble", MFAD_CLASSID, &MFAD_AssembleEvent));
  PetscCall(PetscLogEventRegister("MfadMatPattern", MFAD_CLASSID, &MFAD_PatternEvent));
  PetscCall(PetscLogEventRegister("MfadElementSet", MFAD_CLASSID, &MFAD_ElementSetEvent)); /* dynamic terms: a new element set */
  PetscCall(PetscLogEventRegister("MfadResidual", MFAD_CLASSID, &MFAD_ResidualEvent));
  PetscCall(PetscLogEventRegister("MfadResidualJac", MFAD_CLASSID, &MFAD_ResidualJacobianEvent));
  PetscCall(PetscLogEventRegister("MfadJacTransProd", MFAD_CLASSID, &MFAD_TransposeEvent));
  PetscCall(PetscLogEventRegister("MfadCachedMult", MFAD_CLASSID, &MFAD_CachedMultEvent));
  /* inside the operations above: ghost exchange apart from element work (bench/scaling.c) */
  PetscCall(PetscLogEventRegister("MfadGhostExch", MFAD_CLASSID, &MFAD_GhostEvent));
  PetscCall(PetscLogEventRegister("MfadElements", MFAD_CLASSID, &MFAD_ElementsEvent));
  PetscCall(PetscRegisterFinalize(MfadFinalizePackage));
  PetscCall(MfadEnergyRegisterAll_Private()); /* the built-in backends (src/backends.h) */
  PetscFunctionReturn(PETSC_SUCCESS);
}
