// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadpetsc.h
  @brief mfad's PETSc solver glue: the Hessian as a MATSHELL (MatMult = fused HVP) and the
         SNES/TAO callbacks, all chosen from the command line.
**/
#ifndef MFADPETSC_H
#define MFADPETSC_H

#include <petscsnes.h>
#include <petsctao.h>
#include <mfad.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Creates the Hessian of E as a MATSHELL: MatMult (and MatMultTranspose) is the fused
    HVP at the point set by MfadHessianShellSetPoint(); also GetDiagonal (Jacobi) and
    InvertBlockDiagonal (point-block Jacobi); marked symmetric. */
PetscErrorCode MfadEnergyCreateHessianShell(MfadEnergy E, Mat *H);
/** @brief Sets the point at which the shell Hessian is applied (X is copied). */
PetscErrorCode MfadHessianShellSetPoint(Mat H, Vec X);
/** @brief Returns the point stored in a Hessian shell (borrowed: do not destroy). */
PetscErrorCode MfadHessianShellGetPoint(Mat H, Vec *X);
/** @brief Creates the cached Hessian of E as a MATSHELL: element Hessians computed once per point
    at MfadHessianShellSetPoint() (PSD-projected if set), MatMult a small dense product per element;
    GetDiagonal and InvertBlockDiagonal from the same element Hessians; marked symmetric. Use when
    a Krylov solve takes more products per Newton step than a Hessian costs. */
PetscErrorCode MfadEnergyCreateHessianCached(MfadEnergy E, Mat *H);

/** The forms of the Hessian a solver can be given (-mfad_hessian, -mfad_pmat). */
typedef enum {
  MFAD_HESSIAN_SHELL  = 0, /**< MATSHELL, MatMult = fused HVP (matrix-free) */
  MFAD_HESSIAN_CACHED = 1, /**< MATSHELL, MatMult from element Hessians stored per point */
  MFAD_HESSIAN_AIJ    = 2, /**< assembled by COO; type from -mat_type (aij, baij, sbaij) */
  MFAD_HESSIAN_AUTO   = 3  /**< one of the three chosen per point (Newton step) from their measured costs */
} MfadHessianType;
extern const char *const MfadHessianTypes[];
/** @brief The options the solver glue reads (-mfad_hessian, -mfad_pmat, -mfad_jacobian,
    -mfad_monitor; shell/options.c), listed under -help by MfadEnergySetSNES(), MfadEnergySetTao()
    and MfadEnergySetTaoResidual(); see MfadOptionTableGetEntry(). */
PetscErrorCode MfadSolverGetOptionTable(MfadOptionTable *table);
/** @brief Creates the automatic Hessian of E (-mfad_hessian auto) as a MATSHELL holding the
    fused, cached and assembled forms: at each point (MfadHessianSetPoint(), once per Newton step)
    it brings the one predicted cheapest for the step to the point, from each form's measured cost
    per point and per product on this mesh and the products made at the previous point (the
    previous step's Krylov iterations); MatMult, the diagonal and the vertex blocks are that form's.
    The choice and its predictions are told under -info, a summary under -mfad_view and MatView().
    With a PSD projection in use the fused form (nothing to project) is never chosen, and for a
    non-symmetric system the cached one (packed symmetric) neither. */
PetscErrorCode MfadEnergyCreateHessianAuto(MfadEnergy E, Mat *H);
/** @brief Creates the Hessian of E in the given form; bring it to a point with MfadHessianSetPoint(). */
PetscErrorCode MfadEnergyCreateHessianMat(MfadEnergy E, MfadHessianType type, Mat *H);
/** @brief The Hessian forms SNES and TAO get (MfadEnergySetSNES(), MfadEnergySetTao()): the
    operator's and the preconditioning matrix's (pass the same form twice for one matrix: then
    -mfad_hessian alone changes both), in code; -mfad_hessian and -mfad_pmat override them. A form set counts as the user's choice: mfad's
    default solver (MfadEnergySetSolverDefaults()) then leaves the linear solver alone. */
PetscErrorCode MfadEnergySetHessianType(MfadEnergy E, MfadHessianType jac, MfadHessianType pmat);
/** @brief The forms set in code (shell where none; `set` says whether any was), either may be NULL. */
PetscErrorCode MfadEnergyGetHessianType(MfadEnergy E, MfadHessianType *jac, MfadHessianType *pmat, PetscBool *set);
/** @brief Brings a Hessian of any form made by MfadEnergyCreateHessianMat() (or a shell) to X:
    shells store X (the cached one computes its element Hessians), an assembled one is filled. */
PetscErrorCode MfadHessianSetPoint(Mat H, Vec X);
/** @brief Wires E into a SNES: function = gradient, objective = energy (line searches),
    Jacobian = the form of -mfad_hessian, preconditioning matrix = the form of -mfad_pmat (default:
    the same matrix). Where the user chose no form and no linear solver, mfad's default solver
    (MfadEnergySetSolverDefaults(): the assembled Hessian and a Cholesky with inertia up to
    -mfad_direct_solve_limit unknowns, else the automatic form); with the defaults off, the form is
    shell. Call before or after SNESSetFromOptions(): the defaults are set on the SNES's objects in
    code, the options read whenever SNESSetFromOptions() runs win, and so does a type set in code
    after this call. Preconditioner: Jacobi only when the user chose none (no -pc_type, no
    PCSetType() in code, in either order; a PCSetType() to PETSc's own placeholder, ilu on one rank
    or bjacobi on more, made before SNESSetFromOptions() cannot be told from it). A preconditioner that needs matrix
    entries (ilu, icc, lu, cholesky, bjacobi, asm, sor, gamg ...) on a shell form is an error.
    An invalid start point (an element's energy +inf or NaN) is an error naming the term, the
    element (lowest number; elements numbered rank by rank in the order given), its vertices and
    the reason; an invalid trial point later is a SNES domain error / backtracking, named under
    -info. Each Newton step's Hessian, projected or exact, follows -mfad_psd_switch
    (MfadEnergySetPSDSwitch()); its hooks (a KSP pre-solve and, for newtonls, a line-search
    pre-check that runs before any pre-check set on it, whenever that was set) are installed at
    the first Newton step, so the order of this call and SNESSetFromOptions() does not matter.
    -mfad_monitor prints a line per Newton step (energy, |g|, the Hessian form and projection the
    step used, its linear iterations, time). */
PetscErrorCode MfadEnergySetSNES(MfadEnergy E, SNES snes);
/** @brief Wires E into a TAO: objective and gradient, Hessian and preconditioning matrix as for
    SNES (-mfad_hessian, -mfad_pmat; the default solver for nls and bnls where the type is known
    when E is wired in: set in code or by -tao_type), the preconditioner and invalid points as for SNES (TAO's
    placeholder PC, ilu or bjacobi, becomes Jacobi on a shell form at the first Hessian), the
    projection switch and -mfad_monitor as for SNES (no line-search pre-check: TAO's Newton
    methods test descent themselves). Call before or after TaoSetFromOptions(). */
PetscErrorCode MfadEnergySetTao(MfadEnergy E, Tao tao);
/** @brief The least-squares residual's Jacobian as a MATSHELL: MatMult is J V (one dual-number
    pass per element), MatMultTranspose J^T W; bring it to a point with MfadResidualJacobianSetPoint(). */
PetscErrorCode MfadEnergyCreateResidualJacobianShell(MfadEnergy E, Mat *J);
/** @brief Brings a residual Jacobian (shell, or assembled by MfadEnergyCreateResidualJacobian()) to X. */
PetscErrorCode MfadResidualJacobianSetPoint(Mat J, MfadEnergy E, Vec X);
/** @brief Wires E's least-squares terms into a TAO nonlinear least-squares solver (-tao_type brgn,
    pounders): residual routine, Jacobian routine (-mfad_jacobian shell (default) or aij). Set the
    solution vector as usual. Fixed dofs enter the residual at their set values whatever the
    solution vector holds, and brgn's regulariser (l2prox, first centred at 0) would move those
    entries: they are set as TAO variable bounds (lower = upper = the value, refreshed at every
    residual), which brgn's bounded subsolver keeps, so the solution holds them (a bound set later
    with TaoSetVariableBounds() replaces these: include the fixed values in it). */
PetscErrorCode MfadEnergySetTaoResidual(MfadEnergy E, Tao tao);

#ifdef __cplusplus
}
#endif

#endif /* MFADPETSC_H */
