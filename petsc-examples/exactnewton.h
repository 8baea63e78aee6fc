// SPDX-License-Identifier: BSD-2-Clause
/* Exact Newton steps where the exact Hessian is positive definite, projected ones elsewhere, for a
   SNES or TAO that factors an assembled, PSD-projected Hessian by a Cholesky whose inertia PETSc
   knows (MUMPS, PETSc's own): param's -exact_newton and elastic's -mesh statics (exactnewton.c). */
#ifndef EXACTNEWTON_H
#define EXACTNEWTON_H

#include <mfadpetsc.h>

typedef struct {
  MfadEnergy        E;
  MfadPSDProjection psd; /* the projection to fall back to */
  PetscReal         eps;
  Mat               H;             /* the assembled Hessian the solver factors */
  Vec               X;             /* the solver's iterate */
  PetscBool         active;        /* a Cholesky with inertia of a projected Hessian: exact steps tried */
  PetscBool         exact;         /* this step uses the exact Hessian */
  PetscReal         gprev;         /* |g| at the start of the previous step */
  PetscInt          nexact;        /* steps taken with the exact Hessian */
  PetscInt          skip, backoff; /* after a failed try, the next one waits 1, 2, 4, 4 ... steps */
  /* SNES: the line search's precheck set before ours, run after it */
  PetscErrorCode (*precheck)(SNESLineSearch, Vec, Vec, PetscBool *, void *);
  void *precheck_ctx;
} ExactNewton;

/* The factorisation that ExactNewton needs, as option defaults under prefix pre ("-" for SNES's KSP,
   "-tao_nls_" for TAO NLS's): -ksp_type preonly and a Cholesky with inertia, MUMPS's LDL^T where
   PETSc has it, else PETSc's own (nested dissection), on several ranks factored whole by every rank */
PetscErrorCode ExactNewtonSetFactorDefaults(MPI_Comm comm, const char pre[]);
/* Sets a up for E's solver: active when ksp factors H (assembled, E projected) by a Cholesky with
   inertia; then the pre-solve check is on ksp. X is the solver's iterate. */
PetscErrorCode ExactNewtonSetUp(ExactNewton *a, MfadEnergy E, KSP ksp, Mat H, Vec X);
/* Chooses each step's Hessian (a no-op unless a is active); SNES: a becomes its application context,
   and its line search's precheck (set before this call) runs after a's descent check */
PetscErrorCode ExactNewtonSetSNES(ExactNewton *a, SNES snes);
PetscErrorCode ExactNewtonSetTao(ExactNewton *a, Tao tao);
/* After the solve: E's projection as it was set */
PetscErrorCode ExactNewtonFinish(ExactNewton *a);

#endif
