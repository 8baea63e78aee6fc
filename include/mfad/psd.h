// SPDX-License-Identifier: BSD-2-Clause
/* Deprecated path, kept for one release after mfad 0.1: the generated-code machinery moved under
   include/mfad/impl/, so that a file mfad-energy generated before keeps building (with a warning).
   Regenerate such a file with mfad-energy (its output includes <mfad/impl/instantiate.h>); a program
   includes <mfad.h>, an energy file <mfad/energy.h>. */
#warning "<mfad/psd.h> is deprecated: it moved to <mfad/impl/psd.h> (regenerate with mfad-energy)"
#define MFAD_IMPL_ALLOWED 1
#include <mfad/impl/psd.h>
