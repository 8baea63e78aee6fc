// SPDX-License-Identifier: BSD-2-Clause
/* What mfad knows of PETSc's preconditioners: which ones need the matrix's entries, which is
   PETSc's own default, the default mfad gives, the factorisation it sets up for Newton-CG and the
   check that a shell Hessian gets a preconditioner it can apply. Used by the forms, the solver
   defaults, SNES and Newton-CG. */
#include "shellimpl.h"

/* -<prefix>pc_type in the options database: the user's choice, whenever it is read */
static PetscErrorCode MfadPCTypeInOptions_Private(PC pc, PetscBool *set)
{
  const char *prefix;
  char        opt[256];

  PetscFunctionBegin;
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  PetscCall(PetscSNPrintf(opt, sizeof(opt), "-%spc_type", prefix ? prefix : ""));
  PetscCall(PetscOptionsHasName(NULL, NULL, opt, set));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Preconditioners built from the matrix's entries (an mfad shell has only products, its diagonal
   and vertex blocks) */
PetscErrorCode MfadPCTypeNeedsEntries_Private(const char type[], PetscBool *needs)
{
  static const char *const types[] = {PCILU,       PCICC,  PCLU,    PCCHOLESKY, PCBJACOBI,   PCASM, PCGASM, PCSOR,
                                      PCEISENSTAT, PCGAMG, PCHYPRE, PCSVD,      PCREDUNDANT, "ml",  "spai"};

  PetscFunctionBegin;
  *needs = PETSC_FALSE;
  for (size_t i = 0; type && i < sizeof(types) / sizeof(types[0]) && !*needs; i++) PetscCall(PetscStrcmp(type, types[i], needs));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A minimum-degree ordering for PETSc's own Cholesky: AMD where PETSc has it (SuiteSparse), else
   PETSc's own QMD. The natural order fills in, and SPARSPAK's nested dissection (PETSc's ND) fills
   in more than either on meshes: one numeric factorisation of elastic's Hessian on the Spot tets
   (12,663 unknowns, -log_view's MatCholFctrNum, 1 thread, 2026-12-03) took 1.12 s with AMD, 1.58 s
   with QMD, 6 s with ND and about 90 s in the natural order on PETSc 3.18; 1.36 s (QMD) against
   4.95 s (ND) on PETSc 3.26 without SuiteSparse. */
PetscErrorCode MfadPCFactorSetMinimumDegree_Private(PC pc)
{
  PetscErrorCode (*amd)(void) = NULL;

  PetscFunctionBegin;
  PetscCall(MatInitializePackage()); /* registers the orderings */
  PetscCall(PetscFunctionListFind(MatOrderingList, MATORDERINGAMD, &amd));
  PetscCall(PCFactorSetMatOrderingType(pc, amd ? MATORDERINGAMD : MATORDERINGQMD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A sparse Cholesky with inertia as pc (of a KSP on the solver's communicator), set in code (why: shell/defaults.c's
   header comment); *fpc: the PC that factors (pc, or the one inside PCREDUNDANT) */
PetscErrorCode MfadPCSetCholesky_Private(PC pc, PC *fpc)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
#if defined(PETSC_HAVE_MUMPS)
  (void)size;
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERMUMPS));
  /* MUMPS orders by itself (PETSc computes no ordering for a factor that cannot use it); this is
     for PETSc's own Cholesky where -pc_factor_mat_solver_type petsc asks for it */
  PetscCall(MfadPCFactorSetMinimumDegree_Private(pc));
#else
  /* no parallel Cholesky in this PETSc: every rank factors the whole matrix. CG + GAMG on the
     projected Hessian did not finish tests/meshes/spot_jitter.obj, and projected Newton-CG was
     linear on elastic's Spot (not finished in 200 s). */
  if (size > 1) {
    KSP inner;
    PetscCall(PCSetType(pc, PCREDUNDANT));
    PetscCall(PCRedundantGetKSP(pc, &inner));
    PetscCall(KSPGetPC(inner, &pc));
  }
  PetscCall(PCSetType(pc, PCCHOLESKY));
  PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPETSC));
  PetscCall(MfadPCFactorSetMinimumDegree_Private(pc));
#endif
  if (fpc) *fpc = pc;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What PCSetFromOptions() gives a PC that has no matrix yet and no -pc_type: ilu on one rank,
   bjacobi on more (PETSc 3.18-3.26). Called before the solver has its matrices (SNES or TAO set
   from options before mfad is wired in), it is PETSc's placeholder, not the user's choice. */
PetscErrorCode MfadPCIsPETScDefault_Private(PC pc, PetscBool *isdefault)
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)pc), &size));
  PetscCall(PetscObjectTypeCompare((PetscObject)pc, size == 1 ? PCILU : PCBJACOBI, isdefault));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* mfad's default preconditioner is Jacobi (every form has its exact diagonal), set only where
   the user chose none: no -<prefix>pc_type in the options database and no type on the PC, or
   only the placeholder type PCSetFromOptions() gives a PC with no matrix. `shell_only`: replace
   the placeholder only when the preconditioning matrix P is a shell (TAO keeps PETSc's default on
   an assembled P). A type the user set in code or by option is never replaced. */
PetscErrorCode MfadPCSetDefault_Private(PC pc, Mat P, PetscBool shell_only)
{
  PetscBool   set, isdefault, shell = PETSC_TRUE;
  const char *type;

  PetscFunctionBegin;
  PetscCall(MfadPCTypeInOptions_Private(pc, &set));
  if (set) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetType(pc, &type));
  if (!type) {
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  if (P) PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &shell));
  if (shell_only && !shell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MfadPCIsPETScDefault_Private(pc, &isdefault));
  if (!isdefault) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscInfo(pc, "mfad: PC %s was PETSc's placeholder for a PC with no matrix (no -pc_type given): Jacobi instead\n", type));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A preconditioner that needs the matrix's entries (a factorisation, SOR, a domain decomposition,
   algebraic multigrid) cannot be built from an mfad shell, which has only products, its diagonal
   and its vertex blocks: an error that says so, instead of PETSc's "no factorization" deep in
   PCSetUp(). */
PetscErrorCode MfadPCCheckShell_Private(PC pc, Mat P)
{
  PetscBool   shell, needs;
  const char *type, *prefix;

  PetscFunctionBegin;
  if (!P) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &shell));
  if (!shell) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetType(pc, &type));
  PetscCall(MfadPCTypeNeedsEntries_Private(type, &needs));
  if (!needs) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PCGetOptionsPrefix(pc, &prefix));
  SETERRQ(PetscObjectComm((PetscObject)pc), PETSC_ERR_ARG_INCOMP,
          "mfad: the preconditioner %s (-%spc_type) needs an assembled matrix, but the preconditioning matrix is an mfad shell (-mfad_pmat shell or "
          "cached: products, diagonal and vertex blocks only); "
          "use -mfad_pmat aij (or -mfad_hessian aij), or -%spc_type jacobi|pbjacobi|none",
          type, prefix ? prefix : "", prefix ? prefix : "");
}
