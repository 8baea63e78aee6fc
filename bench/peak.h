// SPDX-License-Identifier: BSD-2-Clause
/* The core's FP64 multiply-add rate by vector width (bench/peak.c) */
#ifndef BENCH_PEAK_H
#define BENCH_PEAK_H
double BenchPeakFmaRate(int lanes, int reps);
#endif
