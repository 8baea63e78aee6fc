// SPDX-License-Identifier: BSD-2-Clause
/* The hand-written kernels (plain C derivatives, mfad's loops): see handkernel.h. */
#ifndef BENCH_HAND_H
#define BENCH_HAND_H
#include <mfad/kernel.h>
extern const struct _n_MfadKernel BenchKernel_neohookean_tet_hand;
extern const struct _n_MfadKernel BenchKernel_mass_spring_hand;
#endif
