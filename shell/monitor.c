// SPDX-License-Identifier: BSD-2-Clause
/* -mfad_monitor: one line per Newton (or TAO) step of a solve mfad is wired into, with what PETSc's
   own monitors do not say: the energy, |g|, the Hessian form and projection the step used (the
   projection switch, -mfad_psd_switch), its linear iterations and the time since the solve began.
     mfad: step 3 energy -1.574339e+04 |g| 2.2e-03 hessian aij projection none (exact) ksp 1 time 0.42 s */
#include "shellimpl.h"
#include <petsctime.h>

typedef struct {
  MfadEnergy     E; /* borrowed: the solver holds E (MfadEnergyAttach_Private()) */
  PetscViewer    viewer;
  PetscLogDouble t0; /* the solve's start (its step 0) */
} MfadMonitorCtx;

static PetscErrorCode MfadMonitorDestroy_Private(MfadMonitorDestroyArg arg)
{
  MfadMonitorCtx *m = *(MfadMonitorCtx **)arg;

  PetscFunctionBegin;
  PetscCall(PetscViewerDestroy(&m->viewer));
  PetscCall(PetscFree(m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The form of the step's Hessian J: mfad's forms by name (auto: the one it chose), else J's type */
static PetscErrorCode MfadMonitorFormName_Private(Mat J, char name[], size_t len)
{
  PetscBool   shell, isauto;
  MatType     type;
  const char *form;

  PetscFunctionBegin;
  if (!J) {
    PetscCall(PetscStrncpy(name, "none", len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(PetscObjectTypeCompare((PetscObject)J, MATSHELL, &shell));
  PetscCall(MatGetType(J, &type));
  if (!shell) {
    PetscCall(PetscStrncpy(name, type, len));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadHessianIsAuto_Private(J, &isauto));
  if (isauto) {
    PetscCall(MfadAutoGetFormName_Private(J, &form));
    PetscCall(PetscSNPrintf(name, len, "auto:%s", form));
  } else {
    void *ctx = NULL;
    PetscCall(MatShellGetContext(J, &ctx));
    if (ctx && ((MfadShell *)ctx)->cookie == MFAD_SHELL_COOKIE) PetscCall(PetscStrncpy(name, ((MfadShell *)ctx)->cached ? "cached" : "shell", len));
    else PetscCall(PetscStrncpy(name, "matshell", len));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMonitorLine_Private(MfadMonitorCtx *m, PetscInt it, Vec X, PetscReal gnorm, Mat J, KSP ksp)
{
  PetscReal         f = 0;
  PetscBool         has;
  PetscLogDouble    t;
  PetscInt          lits = 0;
  MfadPSDProjection psd, user;
  char              form[64];

  PetscFunctionBegin;
  PetscCall(PetscTime(&t));
  if (it == 0) m->t0 = t;
  PetscCall(MfadEnergyHasObjective(m->E, &has));
  if (has) PetscCall(MfadEnergyComputeObjective(m->E, X, &f));
  if (ksp && it > 0) PetscCall(KSPGetIterationNumber(ksp, &lits));
  PetscCall(MfadEnergyGetPSDProjectionInUse_Private(m->E, &psd));
  PetscCall(MfadEnergyGetPSDProjection(m->E, &user, NULL));
  PetscCall(MfadMonitorFormName_Private(J, form, sizeof(form)));
  if (it == 0) {
    PetscCall(PetscViewerASCIIPrintf(m->viewer, "mfad: step %" PetscInt_FMT " energy %.12e |g| %.6e\n", it, (double)f, (double)gnorm));
  } else {
    PetscCall(PetscViewerASCIIPrintf(
        m->viewer, "mfad: step %" PetscInt_FMT " energy %.12e |g| %.6e hessian %s projection %s%s ksp %" PetscInt_FMT " time %.3f s\n", it, (double)f,
        (double)gnorm, form, MfadPSDProjections[psd], user != MFAD_PSD_NONE && psd == MFAD_PSD_NONE ? " (exact)" : "", lits, (double)(t - m->t0)));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadSNESMonitor_Private(SNES snes, PetscInt it, PetscReal fnorm, void *ctx)
{
  Vec X;
  Mat J;
  KSP ksp;

  PetscFunctionBegin;
  PetscCall(SNESGetSolution(snes, &X));
  PetscCall(SNESGetJacobian(snes, &J, NULL, NULL, NULL));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(MfadMonitorLine_Private((MfadMonitorCtx *)ctx, it, X, fnorm, J, ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoMonitor_Private(Tao tao, void *ctx)
{
  Vec       X;
  Mat       H = NULL;
  KSP       ksp;
  PetscInt  it;
  PetscReal gnorm;

  PetscFunctionBegin;
  PetscCall(TaoGetSolution(tao, &X));
  PetscCall(TaoGetIterationNumber(tao, &it));
  PetscCall(TaoGetSolutionStatus(tao, NULL, NULL, &gnorm, NULL, NULL, NULL));
  PetscCall(TaoGetHessian(tao, &H, NULL, NULL, NULL));
  PetscCall(TaoGetKSP(tao, &ksp));
  PetscCall(MfadMonitorLine_Private((MfadMonitorCtx *)ctx, it, X, gnorm, H, ksp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_monitor (with E's options prefix) on solver, a SNES or Tao: the monitor is added to theirs */
PetscErrorCode MfadMonitorSetFromOptions_Private(MfadEnergy E, PetscObject solver)
{
  PetscBool       set;
  PetscClassId    id;
  const char     *prefix;
  MfadMonitorCtx *m;

  PetscFunctionBegin;
  PetscCall(PetscObjectGetOptionsPrefix((PetscObject)E, &prefix));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-mfad_monitor", &set));
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscNew(&m));
  m->E      = E;
  m->viewer = PETSC_VIEWER_STDOUT_(PetscObjectComm(solver));
  PetscCall(PetscObjectReference((PetscObject)m->viewer));
  PetscCall(PetscObjectGetClassId(solver, &id));
  if (id == SNES_CLASSID) PetscCall(SNESMonitorSet((SNES)solver, MfadSNESMonitor_Private, m, MfadMonitorDestroy_Private));
  else PetscCall(MfadTaoMonitorSet((Tao)solver, MfadTaoMonitor_Private, m, MfadMonitorDestroy_Private));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -snes_test_jacobian (-snes_test_jacobian_view) or -tao_test_hessian on an energy with
   least-squares terms compare finite differences of the gradient with the Gauss-Newton Hessian
   J^T J, which differs from the true Hessian by sum_i r_i Hess(r_i): PETSc then reports a large
   difference that is no error. Said before the solve, once, with the way to test the Jacobian. */
PetscErrorCode MfadWarnGaussNewtonTest_Private(MfadEnergy E, PetscObject solver)
{
  const char  *term, *prefix, *opt;
  PetscBool    issnes, set = PETSC_FALSE;
  char         name[256];
  PetscClassId id;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetLeastSquaresTerm_Private(E, &term));
  if (!term) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectGetOptionsPrefix(solver, &prefix));
  PetscCall(PetscObjectGetClassId(solver, &id));
  issnes = (PetscBool)(id == SNES_CLASSID);
  opt    = issnes ? "snes_test_jacobian" : "tao_test_hessian";
  PetscCall(PetscSNPrintf(name, sizeof(name), "-%s%s", prefix ? prefix : "", opt));
  PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  if (!set && issnes) {
    PetscCall(PetscSNPrintf(name, sizeof(name), "-%ssnes_test_jacobian_view", prefix ? prefix : ""));
    PetscCall(PetscOptionsHasName(NULL, NULL, name, &set));
  }
  if (!set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscPrintf(
      PetscObjectComm(solver),
      "mfad: -%s%s: term '%s' is least squares, whose Hessian here is Gauss-Newton (J^T J) by design: PETSc compares it with finite "
      "differences of the gradient, which include sum_i r_i Hess(r_i), so a difference is expected. To test the residual's Jacobian, compare "
      "MfadEnergyCreateResidualJacobianShell()'s products with finite differences of MfadEnergyComputeResidual() (docs/guide.md)\n",
      prefix ? prefix : "", opt, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}
