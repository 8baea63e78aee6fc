// SPDX-License-Identifier: BSD-2-Clause
/* What the core (src/) gives the PETSc glue (shell/) privately: declared once, here, for both
   src/mfadimpl.h and shell/shellimpl.h (a prototype written in two headers drifts). The energy
   stays opaque: no structure of src/ is seen from shell/. Never included by users or examples. */
#ifndef MFAD_SHARED_H
#define MFAD_SHARED_H

#include <mfad.h>
#include "mfadcompat.h"

/* ------------------------------------------------------------------ options tables (src/options.c) */
/* One entry of an options table: what -help prints, what the "needs a value" check says, and, for
   an option of the energy, how its value is read from the energy and given to its setter. A table
   drives every read of its options (MfadOptionsRead_Private()), so that an option added to it is
   read, listed by -help, checked for its value and listed by MfadOptionTableGetEntry(). */
typedef union {
  PetscBool b;
  PetscInt  i; /* MFAD_OPTION_INT, and the index of a MFAD_OPTION_CHOICE */
  PetscReal r;
  char      s[64]; /* MFAD_OPTION_TYPE */
} MfadOptionValue;

typedef struct {
  const char        *name; /* "-mfad_block_size" */
  MfadOptionType     type;
  const char        *help;
  const char        *setter;  /* the manual page -help names: the setter, or where the option acts */
  const char        *takes;   /* what a value must be, for the "needs a value" error (a choice's: its list) */
  PetscInt           nchoice; /* MFAD_OPTION_CHOICE: the choices, choices[i] the value i */
  const char *const *choices;
  MfadOptionValue    dflt; /* the default -help shows where no object holds the value (solver, mesh options) */
  /* an energy's option: assign, the setter given *v; else *v the energy's value (NULL: none, as -mfad_view) */
  PetscErrorCode (*access)(MfadEnergy E, PetscBool assign, MfadOptionValue *v);
} MfadOption;

struct _n_MfadOptionTable {
  const char       *title; /* -help's heading of the block */
  PetscInt          n;
  const MfadOption *entries;
};

/* Reads every option of table t (prefix: the options prefix) in one options block: first an option
   that needs a value and has none is an error naming what it takes, then each option is read, -help
   listing it; v[] in: the current values (the defaults -help shows), out: the values read;
   set[i]: option i was given */
PETSC_INTERN PetscErrorCode MfadOptionsRead_Private(MPI_Comm comm, const char prefix[], MfadOptionTable t, MfadOptionValue v[], PetscBool set[]);
/* "-name" given without the value it needs is an error naming what it takes */
PETSC_INTERN PetscErrorCode MfadOptionsRequireValue_Private(MPI_Comm comm, const char prefix[], const char name[], const char takes[]);

/* ------------------------------------------------------------------ the energy's state, for the solvers */
/* src/energy.c: sets the projection of Newton step `it` (-mfad_psd_project_steps) */
PETSC_INTERN PetscErrorCode MfadEnergyChooseProjection_Private(MfadEnergy E, PetscInt it, PetscBool failed);
/* src/energy.c: the projection of this Newton step (none in an exact step of -mfad_psd_project_steps) */
PETSC_INTERN PetscErrorCode MfadEnergyGetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection *type);
PETSC_INTERN PetscErrorCode MfadEnergySetPSDProjectionInUse_Private(MfadEnergy E, MfadPSDProjection type); /* shell/psdswitch.c */
/* src/energy.c: a solver default's projection, unless the user chose one (*chosen) */
PETSC_INTERN PetscErrorCode MfadEnergySetPSDProjectionDefault_Private(MfadEnergy E, PetscBool *chosen);
PETSC_INTERN PetscErrorCode MfadEnergySetPSDEpsilon_Private(MfadEnergy E, PetscReal epsilon);
/* src/energy.c: this solve's counts (reset: from zero) of -mfad_psd_switch and of Newton-CG */
PETSC_INTERN PetscErrorCode MfadEnergyCountPSDSwitch_Private(MfadEnergy E, PetscBool reset, PetscInt exact, PetscInt fallbacks);
PETSC_INTERN PetscErrorCode MfadEnergyCountNewtonCG_Private(MfadEnergy E, PetscBool reset, PetscInt fallbacks, PetscInt escapes);
/* src/stepbound.c: one more step cut by the pre-check */
PETSC_INTERN PetscErrorCode MfadEnergyCountStepCut_Private(MfadEnergy E);
/* src/assemble.c: the assembled Hessian with `type` as the default of -mat_type (MfadEnergyCreateMatrix(): aij), and the type
   an assembled Hessian that only a Krylov method applies is made in (baij where mfad fills it in place, else aij) */
PETSC_INTERN PetscErrorCode MfadEnergyCreateMatrixOfType_Private(MfadEnergy E, MatType type, Mat *A);
PETSC_INTERN PetscErrorCode MfadEnergyGetOperatorMatType_Private(MfadEnergy E, MatType *type);
/* src/energy.c: the Hessian forms set in code (-1: not set) */
PETSC_INTERN PetscErrorCode MfadEnergySetHessianTypes_Private(MfadEnergy E, PetscInt jac, PetscInt pmat);
PETSC_INTERN PetscErrorCode MfadEnergyGetHessianTypes_Private(MfadEnergy E, PetscInt *jac, PetscInt *pmat);
/* src/contactterms.c: the contact's continuous-collision bound along D (1 without a contact) */
PETSC_INTERN PetscErrorCode MfadEnergyComputeContactBound_Private(MfadEnergy E, Vec X, Vec D, PetscReal *alpha);
/* src/energypred.c: the first least-squares term's name, or NULL */
PETSC_INTERN PetscErrorCode MfadEnergyGetLeastSquaresTerm_Private(MfadEnergy E, const char **name);
/* src/setup.c: a free vertex in no element of any term is an error naming it; collective */
PETSC_INTERN PetscErrorCode MfadEnergyCheckUntouched_Private(MfadEnergy E);
/* src/compute.c: names the first invalid element at X (msg empty if none); collective */
PETSC_INTERN PetscErrorCode MfadEnergyDescribeInvalid_Private(MfadEnergy E, Vec X, char msg[], size_t len);

#endif
