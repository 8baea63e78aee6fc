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
/** @brief Wires E into a SNES: function = gradient, objective = energy (line searches),
    Jacobian = the Hessian shell; an invalid element is a SNES domain error. Call before
    SNESSetFromOptions(). */
PetscErrorCode MfadEnergySetSNES(MfadEnergy E, SNES snes);
/** @brief Wires E into a TAO: objective and gradient, Hessian = the shell. Call before
    TaoSetFromOptions(). */
PetscErrorCode MfadEnergySetTao(MfadEnergy E, Tao tao);

#ifdef __cplusplus
}
#endif

#endif /* MFADPETSC_H */
