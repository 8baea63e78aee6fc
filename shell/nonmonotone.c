// SPDX-License-Identifier: BSD-2-Clause
/* The nonmonotone full step of a Newton step's line search (SNES newtonls with bt, TAO nls;
   -mfad_line_search_memory M): a full step that the line search would refuse (E rises, or falls by
   less than Armijo's decrease) is taken where E there is below the largest E of the last M points
   by Armijo's decrease (Grippo, Lampariello and Lucidi 1986); any other step is the line search's,
   as it would be (More-Thuente may go beyond a step it takes: param's TAO on sock.obj took 103
   steps where its steps were taken here too, 85 as now). A monotone search along an energy's soft
   mode (the Spot tets hanging from a clamp swing) cuts every third exact step to 0.2-0.5 and
   crawls: elastic took 70 SNES and 65 TAO steps monotone, 55 and 54 with M = 10 (64 and 58 with 4;
   PETSc's full step, with no test at all, 29, through a first step that raised E sixty-fold). A
   step cut short of a wall stays the line search's. */
#include "shellimpl.h"

/* The memory in use: -mfad_line_search_memory, 1 (monotone) under Newton-CG, whose steps along
   negative curvature and CG's inexact ones the full step does not suit (sphere's Spot: 49 steps
   monotone, 77 with 10) */
PetscErrorCode MfadEnergyGetNonmonotoneMemory_Private(MfadEnergy E, PetscInt *M)
{
  PetscBool ncg;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetLineSearchMemory(E, M));
  PetscCall(MfadEnergyGetNewtonCG(E, &ncg));
  if (ncg) *M = 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Remembers e (E at the point a line search starts from) among the last M, and gives the largest */
PetscErrorCode MfadEnergyMemoryPush_Private(MfadEnergyMemory *mem, PetscInt M, PetscReal e, PetscReal *ref)
{
  PetscFunctionBegin;
  mem->e[mem->n % M] = e;
  mem->n++;
  *ref = e;
  for (PetscInt i = 0; i < PetscMin(mem->n, M); i++) *ref = PetscMax(*ref, mem->e[i]);
  PetscFunctionReturn(PETSC_SUCCESS);
}
