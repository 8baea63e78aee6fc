// SPDX-License-Identifier: BSD-2-Clause
/* Newton-CG on the exact Hessian preconditioned by the Cholesky factor of the PSD-projected one,
   with the projected Newton step where CG fails or meets negative curvature and that step's
   quadratic model is lower (newtoncg.c): sphere's and arap_surface's default solver. */
#ifndef NEWTONCG_H
#define NEWTONCG_H

#include <mfadpetsc.h>

typedef struct {
  PetscInt  nfallback; /* steps whose CG step was replaced by the projected one */
  PetscInt  nescape;   /* steps along negative curvature away from a saddle (newtoncg.c) */
  PetscReal slope;     /* |g.y| of the last step taken: the first-order decrease it predicts */
  PetscBool roundoff;  /* the solve stopped by the round-off test (NewtonCGConvergedReason()) */
  PetscBool escaped;   /* the last step was an escape */
  PetscReal f, xnorm;  /* the energy and |X| at the last convergence test */
} NewtonCG;

/* the reason NewtonCGConvergedReason() gives a stop at round-off: not one of SNES's */
#define NEWTONCG_CONVERGED_ROUNDOFF 100

/* -mfad_hessian shell -mfad_pmat aij -mfad_psd_project abs, each unless given: the exact Hessian
   as the operator, the projected one assembled as the preconditioning matrix */
PetscErrorCode NewtonCGSetDefaults(void);
/* snes's KSP: stcg without a radius, a Cholesky preconditioner (MUMPS where PETSc has it, else
   PETSc's own, PCREDUNDANT on several ranks; zero pivots tolerated), the fallback to the projected
   step, SNES's convergence test with a stop at the energy's round-off; before SNESSetFromOptions,
   which may change any of them. ncg counts the fallbacks. */
PetscErrorCode NewtonCGSetSNES(NewtonCG *ncg, SNES snes);
/* after SNESSolve, given SNES's reason (and name) and the energy f at its solution: the reason
   becomes NEWTONCG_CONVERGED_ROUNDOFF (CONVERGED_ROUNDOFF) where the solve stopped because the last
   step predicted a decrease below the energy's round-off (never one after negative curvature) */
PetscErrorCode NewtonCGConvergedReason(NewtonCG *ncg, PetscReal f, PetscInt *reason, const char **name);

#endif
