// SPDX-License-Identifier: BSD-2-Clause
/* What elastic.c and cloth.c share: a Newton solver (SNES newtonls + CG + Jacobi by default, or
   TAO nls) on an mfad energy, created once and reused by every time step, and the two halves of
   an implicit-Euler step around it (Martin et al. 2011; Gast et al. 2015): before the solve,
   x_pred = x_n + dt v_n becomes the inertia term's target and the initial guess; after it,
   v_{n+1} = (x_{n+1} - x_n) / dt. */
#ifndef MFAD_EXAMPLES_STEPPER_H
#define MFAD_EXAMPLES_STEPPER_H
#include <mfadpetsc.h>

typedef struct {
  SNES snes;
  Tao  tao;
} Solver;

/* An example's own defaults, set on the solver (snes, or tao; the other NULL) before its SetFromOptions(), so that
   options override them */
typedef PetscErrorCode (*SolverDefaultsFn)(SNES snes, Tao tao);

/* atol > 0: SNES stops at |grad E| < atol and never on a small step. Positions are O(L) while a
   time step moves them by O(dt v), so SNES's default step test |dx| < 1e-8 |x| would end a step
   before its residual falls, and a step starting near its minimiser cannot reduce its residual
   1e8-fold: the objective's round-off hides a Newton step's decrease once |grad E| is ~1e-7 of
   the load, where a backtracking line search fails. defaults: NULL for none. */
PetscErrorCode SolverCreate(MfadEnergy E, PetscBool use_tao, PetscReal atol, SolverDefaultsFn defaults, Vec X, Solver *S);

PetscErrorCode SolverSolve(Solver *S, Vec X, PetscInt *its, PetscInt *reason, const char **reason_name);

PetscErrorCode SolverDestroy(Solver *S);

/* After a solve that says it converged: whether its gradient fell, whatever test stopped it. A step
   test (SNES's stol, relative to |x|, which holds the body's position and size) after a line search
   that saw no decrease ends a solve "converged" where nothing moved (|g| = |g0|). A step test or the
   library's stop at the energy's round-off may also end a sound solve one Newton step before the
   gradient tolerance (measured on the bar with CG + Jacobi: |g| stagnates at 1.2e-7 |g0| against
   -snes_rtol 1e-7), where Newton's quadratic convergence leaves it at about the square root of that
   tolerance. So: |g| <= atol or |g| <= sqrt(rtol) |g0| (SNES), |g| <= gatol, sqrt(gttol) |g0| or
   sqrt(grtol) |f| (TAO); g0 = |grad E| where the solve started, g where it ended. tol[] receives the
   bounds compared, for a message. */
PetscErrorCode SolverGradientFell(Solver *S, PetscReal g0, PetscReal g, PetscBool *fell, char tol[], size_t len);

/* Before a step, on the n owned vertices (3 dofs each): xold = x_n, xpred = x_n + dt v_n, the
   inertia term's parameters (m / dt^2, xpred) set, X = xpred with the fixed values kept. */
PetscErrorCode ImplicitEulerPredict(MfadEnergy E, PetscInt inertia, PetscInt n, const PetscReal mass[], PetscReal dt, const PetscReal vel[], Vec X,
                                    PetscReal xold[], PetscReal xpred[], PetscReal iparam[]);

/* After a step: v_{n+1} = (x_{n+1} - x_n) / dt. */
PetscErrorCode ImplicitEulerVelocity(PetscInt n, PetscReal dt, Vec X, const PetscReal xold[], PetscReal vel[]);
#endif
