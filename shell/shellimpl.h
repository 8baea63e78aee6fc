// SPDX-License-Identifier: BSD-2-Clause
/* What the PETSc glue's files share: the context of mfad's MATSHELLs (fused and cached Hessian)
   and helpers. Private to shell/. */
#ifndef MFAD_SHELLIMPL_H
#define MFAD_SHELLIMPL_H

#include <mfadpetsc.h>
#include "mfadshared.h" /* the core's private calls (src/) */

/* shell/monitor.c: says, once per solver, that -snes_test_jacobian / -tao_test_hessian meet a Gauss-Newton Hessian */
PETSC_INTERN PetscErrorCode MfadWarnGaussNewtonTest_Private(MfadEnergy E, PetscObject solver);

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
/* shell/nonmonotone.c: E at the last M points of a solve, the nonmonotone line search's reference */
typedef struct {
  PetscInt  n; /* points seen (reset to 0 at a solve's start) */
  PetscReal e[MFAD_LINE_SEARCH_MEMORY_MAX];
} MfadEnergyMemory;
PETSC_INTERN PetscErrorCode MfadEnergyGetNonmonotoneMemory_Private(MfadEnergy E, PetscInt *M);
PETSC_INTERN PetscErrorCode MfadEnergyMemoryPush_Private(MfadEnergyMemory *mem, PetscInt M, PetscReal e, PetscReal *ref);
/* shell/snes.c: a dynamic energy's providers at a Newton step's point; G (may be NULL) is then the gradient there */
PETSC_INTERN PetscErrorCode MfadEnergyUpdateElementsAtStep_Private(MfadEnergy E, Vec X, Vec G);
/* shell/snes.c: E composed on obj (a SNES, Tao or assembled Hessian), and found again */
PETSC_INTERN PetscErrorCode MfadEnergyAttach_Private(MfadEnergy E, PetscObject obj);
PETSC_INTERN PetscErrorCode MfadEnergyQueryAttached_Private(PetscObject obj, MfadEnergy *E);
/* shell/options.c: the solver options (-mfad_hessian, -mfad_pmat, -mfad_jacobian, -mfad_monitor) in
   one block, -help from the table; v[] in: the defaults, out: the values read */
typedef enum {
  MFAD_SOLVER_OPTION_HESSIAN,
  MFAD_SOLVER_OPTION_PMAT,
  MFAD_SOLVER_OPTION_JACOBIAN,
  MFAD_SOLVER_OPTION_MONITOR,
  MFAD_SOLVER_OPTIONS
} MfadSolverOption;
PETSC_INTERN PetscErrorCode MfadSolverOptionsRead_Private(MfadEnergy E, MfadOptionValue v[], PetscBool set[]);
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
/* shell/forms.c */
PETSC_INTERN PetscErrorCode MfadEnergyCreateOperatorMat_Private(MfadEnergy E, Mat *H);
PETSC_INTERN PetscErrorCode MfadEnergyCreateJacobians_Private(MfadEnergy E, MfadHessianType jdefault, PetscInt pdefault, Mat *J, Mat *P);
PETSC_INTERN PetscErrorCode MfadJacobiansSetPoint_Private(Mat J, Mat P, Vec X);
PETSC_INTERN PetscErrorCode MfadPCSetDefault_Private(PC pc, Mat P, PetscBool shell_only);
PETSC_INTERN PetscErrorCode MfadPCCheckShell_Private(PC pc, Mat P);
PETSC_INTERN PetscErrorCode MfadPCIsPETScDefault_Private(PC pc, PetscBool *isdefault);
/* shell/defaults.c: mfad's solver where the user chose none (-mfad_solver_defaults) */
PETSC_INTERN PetscErrorCode MfadPCTypeNeedsEntries_Private(const char type[], PetscBool *needs);
PETSC_INTERN PetscErrorCode MfadPCFactorSetMinimumDegree_Private(PC pc);
PETSC_INTERN PetscErrorCode MfadPCSetCholesky_Private(PC pc, PC *fpc);
PETSC_INTERN PetscErrorCode MfadOptionGiven_Private(const char prefix[], const char name[], PetscBool *set);
PETSC_INTERN PetscErrorCode MfadSNESSetDefaults_Private(MfadEnergy E, SNES snes, MfadHessianType *form, PetscInt *pform);
PETSC_INTERN PetscErrorCode MfadTaoSetDefaults_Private(MfadEnergy E, Tao tao, MfadHessianType *form);
PETSC_INTERN PetscErrorCode MfadTaoResidualSetDefaults_Private(MfadEnergy E, Tao tao, PetscBool *aij);

#endif
