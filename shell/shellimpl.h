// SPDX-License-Identifier: BSD-2-Clause
/* What the PETSc glue's files share: the context of mfad's MATSHELLs (fused and cached Hessian)
   and helpers. Private to shell/. */
#ifndef MFAD_SHELLIMPL_H
#define MFAD_SHELLIMPL_H

#include <mfadpetsc.h>
#include "mfadcompat.h"

/* src/energy.c: sets the projection of Newton step `it` (-mfad_psd_project_steps) */
PETSC_INTERN PetscErrorCode MfadEnergyChooseProjection_Private(MfadEnergy E, PetscInt it, PetscBool failed);
/* src/energy.c: the projection of this Newton step (none in an exact step of -mfad_psd_project_steps) */
PETSC_INTERN PetscErrorCode MfadEnergyGetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection *type);
/* src/energy.c: "-name" given without the value it needs is an error naming what it takes */
PETSC_INTERN PetscErrorCode MfadOptionsRequireValue_Private(MPI_Comm comm, const char prefix[], const char name[], const char takes[]);
/* src/energy.c: Newton-CG's counts of this solve (reset: from zero) */
PETSC_INTERN PetscErrorCode MfadEnergyCountNewtonCG_Private(MfadEnergy E, PetscBool reset, PetscInt fallbacks, PetscInt escapes);
/* src/stepbound.c: one more step cut by the pre-check */
PETSC_INTERN PetscErrorCode MfadEnergyCountStepCut_Private(MfadEnergy E);
/* src/energy.c: the Hessian forms set in code (-1: not set) */
PETSC_INTERN PetscErrorCode MfadEnergySetHessianTypes_Private(MfadEnergy E, PetscInt jac, PetscInt pmat);
PETSC_INTERN PetscErrorCode MfadEnergyGetHessianTypes_Private(MfadEnergy E, PetscInt *jac, PetscInt *pmat);
/* src/contactterms.c: the contact's continuous-collision bound along D (1 without a contact) */
PETSC_INTERN PetscErrorCode MfadEnergyComputeContactBound_Private(MfadEnergy E, Vec X, Vec D, PetscReal *alpha);
/* src/energy.c: the first least-squares term's name, or NULL */
PETSC_INTERN PetscErrorCode MfadEnergyGetLeastSquaresTerm_Private(MfadEnergy E, const char **name);
/* shell/monitor.c: says, once per solver, that -snes_test_jacobian / -tao_test_hessian meet a Gauss-Newton Hessian */
PETSC_INTERN PetscErrorCode MfadWarnGaussNewtonTest_Private(MfadEnergy E, PetscObject solver);
/* src/setup.c: a free vertex in no element of any term is an error naming it; collective */
PETSC_INTERN PetscErrorCode MfadEnergyCheckUntouched_Private(MfadEnergy E);
/* src/compute.c: names the first invalid element at X (msg empty if none); collective */
PETSC_INTERN PetscErrorCode MfadEnergyDescribeInvalid_Private(MfadEnergy E, Vec X, char msg[], size_t len);

#define MFAD_SHELL_COOKIE 0x6d667368 /* "mfsh": the context is an MfadShell */

typedef struct {
  int          cookie;
  MfadEnergy   E;
  Vec          X;         /* the point */
  PetscBool    cached;    /* products from the element-Hessian cache, not the fused HVP */
  PetscScalar *invblocks; /* n * dof * dof, owned by the Mat (MatInvertBlockDiagonal contract) */
  PetscInt     elements_state; /* MfadEnergyGetElementsState() when the point was set */
} MfadShell;

/* shell/hessian.c */
PETSC_INTERN PetscErrorCode MfadShellCreate_Private(MfadEnergy E, PetscBool cached, Mat *H);
PETSC_INTERN PetscErrorCode MfadShellGetContext_Private(Mat H, MfadShell **s);
PETSC_INTERN PetscErrorCode MfadInvertBlocks_Private(Mat H, PetscInt n, PetscInt dof, PetscScalar blocks[]);
PETSC_INTERN PetscErrorCode MfadShellView_Private(Mat H, PetscViewer viewer);
PETSC_INTERN PetscErrorCode MfadShellDestroy_Private(void *ctx);
PETSC_INTERN PetscErrorCode MfadShellCheckElements_Private(MfadShell *s, const char *what);
/* shell/snes.c: a dynamic energy's providers at a Newton step's point; G (may be NULL) is then the gradient there */
PETSC_INTERN PetscErrorCode MfadEnergyUpdateElementsAtStep_Private(MfadEnergy E, Vec X, Vec G);
/* shell/snes.c */
PETSC_INTERN PetscErrorCode MfadEnergyAttach_Private(MfadEnergy E, PetscObject obj);
PETSC_INTERN PetscErrorCode MfadReportInvalid_Private(PetscObject solver, MfadEnergy E, Vec X, PetscBool start);
/* shell/auto.c */
PETSC_INTERN PetscErrorCode MfadHessianIsAuto_Private(Mat H, PetscBool *isauto);
PETSC_INTERN PetscErrorCode MfadAutoSetPoint_Private(Mat H, Vec X);
PETSC_INTERN PetscErrorCode MfadAutoGetPoint_Private(Mat H, Vec *X);
PETSC_INTERN PetscErrorCode MfadAutoGetFormName_Private(Mat H, const char **name);
/* shell/monitor.c: -mfad_monitor on a SNES or Tao, if given */
PETSC_INTERN PetscErrorCode MfadMonitorSetFromOptions_Private(MfadEnergy E, PetscObject solver);
/* shell/psdswitch.c: -mfad_psd_switch, from the SNES Jacobian and TAO Hessian callbacks */
PETSC_INTERN PetscErrorCode MfadPSDSwitchStep_Private(PetscObject solver, MfadEnergy E, KSP ksp, Mat P, Vec X, PetscInt it, PetscReal gnorm,
                                                      PetscBool failed);
PETSC_INTERN PetscErrorCode MfadSNESSetRoundoffTest_Private(SNES snes, MfadEnergy E);
PETSC_INTERN PetscErrorCode MfadKSPSetMUMPSIcntl_Private(KSP ksp, PetscInt icntl, PetscInt value);
PETSC_INTERN PetscErrorCode MfadEnergyComputeStepCut_Private(MfadEnergy E, PetscObject solver, Vec X, Vec Y, PetscReal *cut);
/* shell/psdswitch.c: Newton-CG's word on the step being taken, for the round-off stop: curvature,
   it met negative curvature (no stop at round-off: a saddle may be near); escape, it walks along
   it (a line search failing there finds no decrease: converged at round-off) */
PETSC_INTERN PetscErrorCode MfadSNESRoundoffNoteStep_Private(SNES snes, PetscBool curvature, PetscBool escape);
/* shell/newtoncg.c: -mfad_newton_cg, from the SNES Jacobian callback (J, P: the step's matrices) */
PETSC_INTERN PetscErrorCode MfadNewtonCGStep_Private(SNES snes, MfadEnergy E, Mat J, Mat P);
PETSC_INTERN PetscErrorCode MfadNewtonCGSetDefaults_Private(MfadEnergy E, KSP ksp, PetscBool ksp_chosen, PetscBool pc_chosen);
/* src/energy.c */
PETSC_INTERN PetscErrorCode MfadEnergySetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection type);
PETSC_INTERN PetscErrorCode MfadEnergyCountPSDSwitch_Private(MfadEnergy E, PetscBool reset, PetscInt exact, PetscInt fallbacks);
/* shell/forms.c */
PETSC_INTERN PetscErrorCode MfadEnergyCreateJacobians_Private(MfadEnergy E, MfadHessianType jdefault, PetscInt pdefault, Mat *J, Mat *P);
PETSC_INTERN PetscErrorCode MfadJacobiansSetPoint_Private(Mat J, Mat P, Vec X);
PETSC_INTERN PetscErrorCode MfadPCSetDefault_Private(PC pc, Mat P, PetscBool shell_only);
PETSC_INTERN PetscErrorCode MfadPCCheckShell_Private(PC pc, Mat P);
PETSC_INTERN PetscErrorCode MfadPCIsPETScDefault_Private(PC pc, PetscBool *isdefault);
/* shell/defaults.c: mfad's solver where the user chose none (-mfad_solver_defaults) */
PETSC_INTERN PetscErrorCode MfadPCTypeNeedsEntries_Private(const char type[], PetscBool *needs);
PETSC_INTERN PetscErrorCode MfadPCSetCholesky_Private(PC pc, PC *fpc);
PETSC_INTERN PetscErrorCode MfadSNESSetDefaults_Private(MfadEnergy E, SNES snes, MfadHessianType *form, PetscInt *pform);
PETSC_INTERN PetscErrorCode MfadTaoSetDefaults_Private(MfadEnergy E, Tao tao, MfadHessianType *form);
PETSC_INTERN PetscErrorCode MfadTaoResidualSetDefaults_Private(MfadEnergy E, Tao tao, PetscBool *aij);
/* src/energy.c: a solver default's projection, unless the user chose one (*chosen) */
PETSC_INTERN PetscErrorCode MfadEnergySetPSDProjectionDefault_Private(MfadEnergy E, MfadPSDProjection type, PetscBool *chosen);

#endif
