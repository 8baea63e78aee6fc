// SPDX-License-Identifier: BSD-2-Clause
/* Deprecated path, kept for one release after mfad 0.1: the generated-code machinery moved under
   include/mfad/impl/, so that a file mfad-energy generated before keeps building (with a warning).
   Regenerate such a file with mfad-energy (its output includes <mfad/impl/instantiate.h>); a program
   includes <mfad.h>, an energy file <mfad/energy.h>. */
#warning "<mfad/kernel.h> is deprecated: it moved to <mfad/impl/kernel.h> (regenerate with mfad-energy)"
#define MFAD_IMPL_ALLOWED 1
#include <mfad/impl/kernel.h>
/* what the old header also declared, now in mfad.h (this one stays plain C, without PETSc) */
#ifndef MFAD_KERNEL
typedef const struct _n_MfadKernel *MfadKernel;
#define MFAD_KERNEL_DECLARE(name) extern const struct _n_MfadKernel MfadKernel_##name
#define MFAD_KERNEL(name)         (&MfadKernel_##name)
#endif
