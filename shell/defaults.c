// SPDX-License-Identifier: BSD-2-Clause
/* The solver a user's program gets where it chose none (-mfad_solver_defaults, default on): what
   mfad's examples converge with on real meshes, as defaults set in code on the solver's objects,
   never in the options database, so that any option given (read when the solver is set from
   options, before or after) or any type set in code after MfadEnergySetSNES() overrides them.
     - an energy of at most -mfad_direct_solve_limit unknowns, with no Hessian form and no linear
       solver chosen: the assembled Hessian, PSD-projected per element unless a projection was
       chosen, factored by a sparse Cholesky that reports its inertia (MUMPS's LDL^T where PETSc
       has it: MfadKSPSetCholesky_Private(); else PETSc's own in minimum-degree order, on several
       ranks factored whole by every rank in PCREDUNDANT), so that -mfad_psd_switch auto takes exact
       steps where the exact Hessian is positive definite and projected ones elsewhere. CG +
       Jacobi on the fused product (the default before) ran 564 s on a user's first Newton step of a Mooney-Rivlin bar and
       ended DIVERGED_LINEAR_SOLVE, and took 10,000 iterations on a linear (LSCM) problem;
     - otherwise, with no form chosen, the automatic form (the cheapest per Newton step by
       measured cost), or, where the chosen preconditioner needs entries (a factorisation), the
       assembled one, PSD-projected unless a projection was chosen (the switch then takes exact
       steps where that factorisation reports the inertia);
     - SNES: a Krylov solve stops after MFAD_KRYLOV_CAP iterations (unless -ksp_max_it or a cap in code
       says otherwise), and a failed linear solve does not end the Newton solve: the truncated
       step (CG's iterate is a descent direction) goes to the line search, and -mfad_psd_switch
       projects the next step where it can;
     - room for 200 Newton steps: a body clamped on a small patch swings through a large rotation
       (elastic on Spot: 74 steps). */
#include "shellimpl.h"
#include <string.h>

#define MFAD_KRYLOV_CAP   500 /* iterations per linear solve (PETSc's default: 10,000) */
#define MFAD_NEWTON_STEPS 200

/* -<prefix><name> in the options database */
PetscErrorCode MfadOptionGiven_Private(const char prefix[], const char name[], PetscBool *set)
{
  char opt[256];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%s%s", prefix ? prefix : "", name));
  PetscCall(PetscOptionsHasName(NULL, NULL, opt, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadKSPChosenParts_Private(KSP, KSPType, PetscBool *, PetscBool *, char[], size_t);

/* The user's choice of ksp's linear solver: -<prefix>ksp_type or -<prefix>pc_type given, or a type
   set in code other than the solver's own (`own`: GMRES, what SetFromOptions gives an unset SNES
   KSP; STCG, what TAO's Newton methods create theirs with) or, for the PC, ILU or block Jacobi (the
   placeholder of a PC with no matrix). pc_type: the preconditioner's type chosen ("": none). */
static PetscErrorCode MfadKSPChosen_Private(KSP ksp, KSPType own, PetscBool *chosen, char pc_type[], size_t len)
{
  PetscBool ksp_set;

  PetscFunctionBegin;
  PetscCall(MfadKSPChosenParts_Private(ksp, own, &ksp_set, chosen, pc_type, len));
  *chosen = (PetscBool)(*chosen || ksp_set);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same, the Krylov method's choice (*ksp_chosen) apart from the preconditioner's (*pc_chosen) */
static PetscErrorCode MfadKSPChosenParts_Private(KSP ksp, KSPType own, PetscBool *ksp_chosen, PetscBool *pc_chosen, char pc_type[], size_t len)
{
  const char *prefix, *type;
  PetscBool   ksp_set, pc_set, gmres, placeholder; /* gmres: the solver's own type */
  PC          pc;

  PetscFunctionBegin;
  pc_type[0] = 0;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(MfadOptionGiven_Private(prefix, "ksp_type", &ksp_set));
  PetscCall(MfadOptionGiven_Private(prefix, "pc_type", &pc_set));
  if (pc_set) {
    char opt[256];
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", prefix ? prefix : ""));
    PetscCall(PetscOptionsGetString(NULL, NULL, opt, pc_type, len, NULL));
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscObjectTypeCompare((PetscObject)ksp, own, &gmres));
  if (type && !gmres) ksp_set = PETSC_TRUE;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &type));
  PetscCall(MfadPCIsPETScDefault_Private(pc, &placeholder));
  if (type && !placeholder && !pc_set) {
    pc_set = PETSC_TRUE;
    PetscCall(PetscStrncpy(pc_type, type, len));
  }
  *ksp_chosen = ksp_set;
  *pc_chosen  = pc_set;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The direct solve: preonly and the Cholesky above (MUMPS where PETSc has it), on every pattern.
   PETSc's own (simplicial: no dense fronts) was a triangle mesh's default on one rank for a day
   (7381478), from param's Hessians on an Intel machine with Debian's reference BLAS (fastest of 50:
   bunny_cut's 19,700 unknowns numeric 20.0 ms and solve 1.0 ms against MUMPS's 31.5-35.4 and
   4.2-5.4 ms). MUMPS's fronts run on the BLAS, and with OpenBLAS (scripts/setup.sh installs it)
   MUMPS wins there too: param with every default on an AMD EPYC (AVX2), 1 thread, processes
   alternating, 2 rounds (2026-12-03): bunny_cut to TinyAD's final energy 2.05-2.51 s with PETSc's in
   AMD order against 1.51-1.58 s with MUMPS, armadillo_cut_low (64,242 unknowns) 12.6-13.4 against
   8.2-8.5 s; with the reference BLAS on that machine MUMPS was even inside param (-log_view: 66-103
   against 98 ms a factorisation) and slower alone (best of 20: 100-104 against 61-90 ms).
   -pc_factor_mat_solver_type petsc chooses PETSc's (in AMD order, else QMD: shell/pc.c). Both report the inertia that -mfad_psd_switch reads. */
static PetscErrorCode MfadKSPSetCholesky_Private(KSP ksp)
{
  PC pc;

  PetscFunctionBegin;
  PetscCall(KSPSetType(ksp, KSPPREONLY));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(MfadPCSetCholesky_Private(pc, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MFAD_KRYLOV_CAP where the cap is PETSc's default and no -ksp_max_it was given */
static PetscErrorCode MfadKSPSetCap_Private(KSP ksp)
{
  const char *prefix;
  PetscBool   set;
  PetscReal   rtol, abstol, dtol;
  PetscInt    maxit;

  PetscFunctionBegin;
  PetscCall(KSPGetOptionsPrefix(ksp, &prefix));
  PetscCall(MfadOptionGiven_Private(prefix, "ksp_max_it", &set));
  PetscCall(KSPGetTolerances(ksp, &rtol, &abstol, &dtol, &maxit));
  if (set || maxit != 10000) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPSetTolerances(ksp, rtol, abstol, dtol, MFAD_KRYLOV_CAP));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Whether the Newton method named (or unset) solves linear systems whose matrix we may choose */
static PetscErrorCode MfadSNESTypeIsNewton_Private(SNES snes, PetscBool *newton)
{
  const char *prefix, *type;
  char        opt[256], given[256];
  PetscBool   set;

  PetscFunctionBegin;
  PetscCall(SNESGetOptionsPrefix(snes, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%ssnes_type", prefix ? prefix : ""));
  PetscCall(PetscOptionsGetString(NULL, NULL, opt, given, sizeof(given), &set));
  PetscCall(SNESGetType(snes, &type));
  if (set) type = given;
  *newton = PETSC_TRUE;
  if (type) {
    PetscBool ls, tr;
    PetscCall(PetscStrcmp(type, SNESNEWTONLS, &ls));
    PetscCall(PetscStrcmp(type, SNESNEWTONTR, &tr));
    *newton = (PetscBool)(ls || tr);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What both solvers' defaults start from: whether they are on, whether the user chose a Hessian
   form (-mfad_hessian or -mfad_pmat, or MfadEnergySetHessianType() in code), whether E is an energy (a system F(x) = 0 has no objective and
   a Jacobian that need not be symmetric: no Cholesky), its size and the direct solve's limit */
static PetscErrorCode MfadEnergyDefaultsGetState_Private(MfadEnergy E, PetscBool *on, PetscBool *formset, PetscBool *energy, PetscInt *N,
                                                         PetscInt *limit)
{
  const char *eprefix;
  PetscBool   pmatset, incode;
  PetscInt    dof;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetSolverDefaults(E, on));
  PetscCall(MfadEnergyGetOptionsPrefix(E, &eprefix));
  PetscCall(MfadOptionGiven_Private(eprefix, "mfad_hessian", formset));
  PetscCall(MfadOptionGiven_Private(eprefix, "mfad_pmat", &pmatset));
  PetscCall(MfadEnergyGetHessianType(E, NULL, NULL, &incode));
  *formset = (PetscBool)(*formset || pmatset || incode);
  PetscCall(MfadEnergyHasObjective(E, energy));
  PetscCall(MfadEnergyGetSizes(E, &dof, NULL, N));
  *N *= dof; /* unknowns */
  PetscCall(MfadEnergyGetDirectSolveLimit(E, limit));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergySetSNES(): the forms' default and the solver's defaults where the user chose none.
 *form: the Hessian form when -mfad_hessian/-mfad_pmat are not given (shell: today's); *pform the
 preconditioning matrix's (-1: the same) */
PetscErrorCode MfadSNESSetDefaults_Private(MfadEnergy E, SNES snes, MfadHessianType *form, PetscInt *pform)
{
  PetscBool   on, formset, chosen, fd, mf, mfop, fdc, has, newton = PETSC_FALSE, needs, ncg;
  const char *sprefix;
  char        pc_type[256];
  KSP         ksp;
  PetscInt    N, limit;

  PetscFunctionBegin;
  *form  = MFAD_HESSIAN_SHELL;
  *pform = -1;
  PetscCall(MfadEnergyDefaultsGetState_Private(E, &on, &formset, &has, &N, &limit));
  PetscCall(MfadEnergyGetNewtonCG(E, &ncg));
  if (ncg && has) { /* the user's choice of method: its forms and linear solver, each unless chosen */
    PetscBool psd_chosen;
    if (!formset) {
      *pform = MFAD_HESSIAN_AIJ;
      PetscCall(MfadEnergySetPSDProjectionDefault_Private(E, &psd_chosen));
    }
    PetscBool ksp_chosen, pc_chosen;
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(MfadKSPChosenParts_Private(ksp, KSPGMRES, &ksp_chosen, &pc_chosen, pc_type, sizeof(pc_type)));
    PetscCall(MfadNewtonCGSetDefaults_Private(E, ksp, ksp_chosen, pc_chosen));
  }
  if (!on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(SNESGetOptionsPrefix(snes, &sprefix));
  PetscCall(MfadOptionGiven_Private(sprefix, "snes_fd", &fd));
  PetscCall(MfadOptionGiven_Private(sprefix, "snes_mf", &mf));
  PetscCall(MfadOptionGiven_Private(sprefix, "snes_mf_operator", &mfop));
  PetscCall(MfadOptionGiven_Private(sprefix, "snes_fd_color", &fdc));
  PetscCall(MfadSNESTypeIsNewton_Private(snes, &newton));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(MfadKSPChosen_Private(ksp, KSPGMRES, &chosen, pc_type, sizeof(pc_type)));
  if (fd || mf || fdc) PetscFunctionReturn(PETSC_SUCCESS); /* PETSc's own Jacobian: the user's solver */
  if (!formset && !mfop && !ncg) {
    PetscCall(MfadPCTypeNeedsEntries_Private(pc_type, &needs));
    if (!chosen && has && newton && N <= limit) {
      PetscBool psd_chosen;
      *form = MFAD_HESSIAN_AIJ;
      PetscCall(MfadKSPSetCholesky_Private(ksp));
      PetscCall(MfadEnergySetPSDProjectionDefault_Private(E, &psd_chosen));
      PetscCall(PetscInfo(snes,
                          "mfad: default solver: %" PetscInt_FMT " unknowns (-mfad_direct_solve_limit %" PetscInt_FMT
                          "): assembled Hessian%s, sparse Cholesky\n",
                          N, limit, psd_chosen ? "" : ", PSD-projected where not definite"));
    } else if (needs) { /* a factorisation or other PC of entries chosen: assembled, projected unless chosen */
      PetscBool psd_chosen;
      *form = MFAD_HESSIAN_AIJ;
      if (has) PetscCall(MfadEnergySetPSDProjectionDefault_Private(E, &psd_chosen));
    } else *form = MFAD_HESSIAN_AUTO;
  }
  PetscCall(MfadKSPSetCap_Private(ksp));
  {
    PetscBool set;
    PetscInt  maxit, maxf;
    PetscReal atol, rtol, stol;
    PetscCall(MfadOptionGiven_Private(sprefix, "snes_max_linear_solve_fail", &set));
    if (!set) PetscCall(SNESSetMaxLinearSolveFailures(snes, PETSC_MAX_INT));
    PetscCall(MfadOptionGiven_Private(sprefix, "snes_max_it", &set));
    PetscCall(SNESGetTolerances(snes, &atol, &rtol, &stol, &maxit, &maxf));
    if (!set && maxit == 50) PetscCall(SNESSetTolerances(snes, atol, rtol, stol, MFAD_NEWTON_STEPS, maxf)); /* 50: PETSc's default */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The TAO type that will solve: -<prefix>tao_type given, else the type set (NULL: none yet, TAO's
   default then being LMVM, which asks for no Hessian) */
static PetscErrorCode MfadTaoGetTypeName_Private(Tao tao, char type[], size_t len)
{
  const char *prefix, *t;
  char        opt[256];
  PetscBool   set;

  PetscFunctionBegin;
  PetscCall(TaoGetOptionsPrefix(tao, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%stao_type", prefix ? prefix : ""));
  PetscCall(PetscOptionsGetString(NULL, NULL, opt, type, len, &set));
  if (set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoGetType(tao, &t));
  PetscCall(PetscStrncpy(type, t ? t : "", len));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static int MfadTaoDirectTag; /* composed on a Tao whose default is the factorisation */

/* MfadEnergySetTao(): as for SNES, where the Newton method is TAO's line-search one (nls, bnls:
   its trust-region ones need a trust-region Krylov method) and known when E is wired in (set in
   code or by -tao_type). The KSP's types are set at the first Hessian, when TAO has made its KSP
   (MfadTaoApplyDefaults_Private()). *form as for SNES. */
static PetscErrorCode MfadTaoChooseDefaults_Private(MfadEnergy E, Tao tao, MfadHessianType *form)
{
  PetscBool on, formset, has, nls, bnls;
  char      type[256];
  PetscInt  N, limit;

  PetscFunctionBegin;
  *form = MFAD_HESSIAN_SHELL;
  PetscCall(MfadEnergyDefaultsGetState_Private(E, &on, &formset, &has, &N, &limit));
  if (!on || formset) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadTaoGetTypeName_Private(tao, type, sizeof(type)));
  if (!type[0]) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrcmp(type, TAONLS, &nls));
  PetscCall(PetscStrcmp(type, TAOBNLS, &bnls));
  {
    KSP       ksp;
    PetscBool chosen       = PETSC_FALSE, needs;
    char      pc_type[256] = "";

    PetscCall(TaoGetKSP(tao, &ksp)); /* made with the type set in code; with -tao_type only, at TaoSetFromOptions() */
    if (ksp) PetscCall(MfadKSPChosen_Private(ksp, KSPSTCG, &chosen, pc_type, sizeof(pc_type)));
    else if (nls || bnls) {
      PetscBool   k;
      const char *tprefix;
      char        kprefix[256], opt[300];
      PetscCall(TaoGetOptionsPrefix(tao, &tprefix));
      PetscCall(PetscSNPrintf(kprefix, sizeof(kprefix), "%s%s", tprefix ? tprefix : "", nls ? "tao_nls_" : "tao_bnk_"));
      PetscCall(MfadOptionGiven_Private(kprefix, "ksp_type", &k));
      PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", kprefix));
      PetscCall(PetscOptionsGetString(NULL, NULL, opt, pc_type, sizeof(pc_type), &chosen));
      chosen = (PetscBool)(chosen || k);
    }
    if ((nls || bnls) && has && N <= limit && !chosen) {
      PetscContainer tag;
      PetscBool      psd_chosen;
      *form = MFAD_HESSIAN_AIJ;
      PetscCall(MfadEnergySetPSDProjectionDefault_Private(E, &psd_chosen));
      PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)tao), &tag));
      PetscCall(PetscContainerSetPointer(tag, &MfadTaoDirectTag));
      PetscCall(PetscObjectCompose((PetscObject)tao, "MfadTaoDirect", (PetscObject)tag));
      PetscCall(PetscContainerDestroy(&tag));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCall(MfadPCTypeNeedsEntries_Private(pc_type, &needs));
    if (needs) {
      PetscBool psd_chosen;
      *form = MFAD_HESSIAN_AIJ;
      if (has) PetscCall(MfadEnergySetPSDProjectionDefault_Private(E, &psd_chosen));
      PetscFunctionReturn(PETSC_SUCCESS);
    }
  }
  *form = MFAD_HESSIAN_AUTO;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The factorisation MfadTaoSetDefaults_Private() chose, where the KSP still has TAO's own type and no
   option names one; before TAO's Newton method reads its KSP's type (at the
   start of its solve): when E is wired in, if TAO has made its KSP (its type set in code), and at
   the end of TaoSetFromOptions(), which makes it for -tao_type (an options handler). Idempotent:
   once set, the types are no longer TAO's own. */
static PetscErrorCode MfadTaoApplyDefaults_Private(Tao tao)
{
  KSP            ksp;
  PetscBool      chosen;
  PetscContainer tag;
  char           pc_type[256];

  PetscFunctionBegin;
  PetscCall(TaoGetKSP(tao, &ksp));
  if (!ksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectQuery((PetscObject)tao, "MfadTaoDirect", (PetscObject *)&tag));
  if (tag) {
    PetscCall(MfadKSPChosen_Private(ksp, KSPSTCG, &chosen, pc_type, sizeof(pc_type)));
    if (!chosen) {
      PetscCall(MfadKSPSetCholesky_Private(ksp));
      PetscCall(PetscInfo(tao, "mfad: default solver: assembled Hessian, sparse Cholesky\n"));
    }
  }
  /* no Krylov cap: nls treats a capped solve as a failed step (arap's TAO solve of sock.obj took
     2,240 steps with it, 799 without) */
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoDefaultsHandler_Private(PetscObject obj, MfadOptionItems items, void *ctx)
{
  PetscFunctionBegin;
  (void)items, (void)ctx;
  PetscCall(MfadTaoApplyDefaults_Private((Tao)obj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadTaoSetDefaults_Private(MfadEnergy E, Tao tao, MfadHessianType *form)
{
  PetscBool on;

  PetscFunctionBegin;
  PetscCall(MfadTaoChooseDefaults_Private(E, tao, form));
  PetscCall(MfadEnergyGetSolverDefaults(E, &on));
  if (!on) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadTaoApplyDefaults_Private(tao));
  PetscCall(PetscObjectAddOptionsHandler((PetscObject)tao, MfadTaoDefaultsHandler_Private, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* brgn's subsolver (bnls) preconditions J^T J + its regulariser by an L-BFGS matrix (PCLMVM, bnk's
   own type): where no preconditioner was chosen (by option, or a type set in code), none instead.
   Measured on arap's spot_patch.obj: 115,365 Krylov iterations with L-BFGS, 32,661 with none (the
   shell J^T J has no diagonal for Jacobi). Idempotent: once set, the type is no longer bnk's own. */
static PetscErrorCode MfadTaoResidualApplyDefaults_Private(Tao tao)
{
  PetscBool   brgn, lmvm, set;
  Tao         sub;
  KSP         ksp;
  PC          pc;
  const char *prefix;
  char        kprefix[256];

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)tao, TAOBRGN, &brgn));
  if (!brgn) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoBRGNGetSubsolver(tao, &sub));
  PetscCall(TaoGetKSP(sub, &ksp));
  if (!ksp) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, PCLMVM, &lmvm));
  /* the KSP's prefix, which bnk sets only in its SetFromOptions: the subsolver's and tao_bnk_ */
  PetscCall(TaoGetOptionsPrefix(sub, &prefix));
  PetscCall(PetscSNPrintf(kprefix, sizeof(kprefix), "%stao_bnk_", prefix ? prefix : ""));
  PetscCall(MfadOptionGiven_Private(kprefix, "pc_type", &set));
  if (lmvm && !set) {
    PetscCall(PCSetType(pc, PCNONE));
    PetscCall(PetscInfo(tao, "mfad: default solver: brgn's subsolver without a preconditioner (not L-BFGS)\n"));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTaoResidualDefaultsHandler_Private(PetscObject obj, MfadOptionItems items, void *ctx)
{
  PetscFunctionBegin;
  (void)items, (void)ctx;
  PetscCall(MfadTaoResidualApplyDefaults_Private((Tao)obj));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MfadEnergySetTaoResidual(): where -mfad_solver_defaults is on, the assembled residual Jacobian
   (*aij) unless -mfad_jacobian is given and the energy has at most -mfad_direct_solve_limit unknowns
   (brgn's Krylov iterations then cost one sparse product, not two element passes), and brgn's
   subsolver without a preconditioner (above): now, where brgn is the type already, and at the end
   of TaoSetFromOptions() (an options handler), where -tao_type brgn makes it */
PetscErrorCode MfadTaoResidualSetDefaults_Private(MfadEnergy E, Tao tao, PetscBool *aij)
{
  PetscBool on, formset, has, given;
  PetscInt  N, limit;

  PetscFunctionBegin;
  *aij = PETSC_FALSE;
  PetscCall(MfadEnergyDefaultsGetState_Private(E, &on, &formset, &has, &N, &limit));
  if (!on) PetscFunctionReturn(PETSC_SUCCESS);
  {
    const char *eprefix;
    PetscCall(MfadEnergyGetOptionsPrefix(E, &eprefix));
    PetscCall(MfadOptionGiven_Private(eprefix, "mfad_jacobian", &given));
  }
  *aij = (PetscBool)(!given && N <= limit);
  if (*aij) PetscCall(PetscInfo(tao, "mfad: default solver: the residual's Jacobian assembled (%" PetscInt_FMT " unknowns)\n", N));
  PetscCall(MfadTaoResidualApplyDefaults_Private(tao));
  PetscCall(PetscObjectAddOptionsHandler((PetscObject)tao, MfadTaoResidualDefaultsHandler_Private, NULL, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}
