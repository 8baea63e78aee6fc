// SPDX-License-Identifier: BSD-2-Clause
/* The factorisation that the library's -mfad_psd_switch inertia (its default, auto, where the
   solver factors with inertia) needs, as option defaults: param's and elastic's. */
#ifndef CHOLESKY_H
#define CHOLESKY_H

#include <mfadpetsc.h>

/* Option defaults under prefix pre ("-" for SNES's KSP, "-tao_nls_" for TAO NLS's): -ksp_type
   preonly and a Cholesky with inertia, MUMPS's LDL^T where PETSc has it, else PETSc's own (nested
   dissection), on several ranks factored whole by every rank */
PetscErrorCode CholeskyInertiaDefaults(MPI_Comm comm, const char pre[]);

#endif
