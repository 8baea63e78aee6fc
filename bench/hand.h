// SPDX-License-Identifier: BSD-2-Clause
/* The hand-written kernels (plain C derivatives, mfad's loops): see handkernel.h. */
#ifndef BENCH_HAND_H
#define BENCH_HAND_H
#define MFAD_IMPL_ALLOWED 1 /* hand-written kernels: the complete kernel struct */
#include <mfad/impl/kernel.h>
extern const struct _n_MfadKernel BenchKernel_neohookean_tet_hand;
extern const struct _n_MfadKernel BenchKernel_mass_spring_hand;
#endif
