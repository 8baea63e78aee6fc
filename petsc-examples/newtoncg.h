// SPDX-License-Identifier: BSD-2-Clause
/* Newton-CG on the exact Hessian preconditioned by the Cholesky factor of the PSD-projected one,
   with the projected Newton step where CG fails or meets negative curvature and that step's
   quadratic model is lower (newtoncg.c): sphere's and arap_surface's default solver. */
#ifndef NEWTONCG_H
#define NEWTONCG_H

#include <mfadpetsc.h>

typedef struct {
  PetscInt  nfallback; /* steps whose CG step was replaced by the projected one */
  PetscReal slope;     /* |g.y| of the last step taken: the first-order decrease it predicts */
} NewtonCG;

/* -mfad_hessian shell -mfad_pmat aij -mfad_psd_project abs, each unless given: the exact Hessian
   as the operator, the projected one assembled as the preconditioning matrix */
PetscErrorCode NewtonCGSetDefaults(void);
/* snes's KSP: stcg without a radius, a Cholesky preconditioner (MUMPS where PETSc has it, else
   PETSc's own, PCREDUNDANT on several ranks; zero pivots tolerated), the fallback to the projected
   step; before SNESSetFromOptions, which may change any of them. ncg counts the fallbacks. */
PetscErrorCode NewtonCGSetSNES(NewtonCG *ncg, SNES snes);

#endif
