// SPDX-License-Identifier: BSD-2-Clause
/* The core's FP64 fused multiply-add rate on scalars and on vectors of 2, 4 and 8 lanes (GNU vector
   types, compiled with the energies' flags: bench/CMakeLists.txt), for bench_lanes: the ceiling of
   a speed-up by lanes on this machine. A core that runs a 256-bit instruction as two 128-bit halves
   (AMD's Zen 1: measured 1 ymm FMA a cycle against 2 scalar ones) gives 4 lanes at most 2x a scalar
   loop whose multiply-adds fill the pipes; one with 256-bit pipes, 4x. */
#include <time.h>
#include "peak.h"

#define PEAK_ITERS (1L << 22)

static double PeakNow(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* 12 chains (latency 4-5 cycles x 2 pipes, and a few more) of a = a m + c on PEAK_V, in named
   variables (an array stays in memory); PEAK_KEEP, an empty asm, keeps each chain in a register of
   its own, so that the compiler neither packs scalar chains into vectors nor drops them.
   Multiply-adds (doubles) a second */
#define PEAK_CHAINS(X)  X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)
#define PEAK_CHAINS6(X) X(0) X(1) X(2) X(3) X(4) X(5)
#define PEAK_DECL(k)    PEAK_V a##k = (PEAK_V){0} + (double)k;
#define PEAK_STEP(k) \
  a##k = a##k * m + c; \
  PEAK_KEEP(a##k);
#define PEAK_SUM(k) s += PEAK_FIRST(a##k);
#define PEAK_FUNCTION(name, CHAINS, nchains) \
  static double name(void) \
  { \
    const PEAK_V    m = (PEAK_V){0} + 1.0000000001, c = (PEAK_V){0} + 1e-12; \
    volatile double sink; \
    double          s  = 0.0; \
    const double    t0 = PeakNow(); \
    CHAINS(PEAK_DECL) \
    for (long i = 0; i < PEAK_ITERS; i++) { CHAINS(PEAK_STEP) } \
    const double dt = PeakNow() - t0; \
    CHAINS(PEAK_SUM) \
    sink = s; \
    (void)sink; \
    return (double)PEAK_ITERS * (nchains) * (double)(sizeof(PEAK_V) / sizeof(double)) / dt; \
  }

/* doubles, and GNU vectors of 2, 4 and 8 */
typedef double peak_v2 __attribute__((vector_size(16)));
typedef double peak_v4 __attribute__((vector_size(32)));
typedef double peak_v8 __attribute__((vector_size(64)));
#define PEAK_KEEP(a)  __asm__ volatile("" : "+x"(a))
#define PEAK_FIRST(a) (a)
#define PEAK_V        double
PEAK_FUNCTION(PeakScalar, PEAK_CHAINS, 12)
#undef PEAK_V
#undef PEAK_FIRST
#define PEAK_FIRST(a) (a)[0]
#define PEAK_V        peak_v2
PEAK_FUNCTION(PeakLanes2, PEAK_CHAINS, 12)
#undef PEAK_V
#define PEAK_V peak_v4
PEAK_FUNCTION(PeakLanes4, PEAK_CHAINS, 12)
#undef PEAK_V
#undef PEAK_KEEP
/* 8 lanes: without AVX-512 two 256-bit halves, which "+x" cannot hold, and 6 chains of them (12
   chains would need 24 of the 16 registers). GCC 12 takes such a vector through the stack at every
   step (measured 0.75 doubles a cycle against 4 lanes' 4 on an AVX2 Zen 1): what 8 lanes get there */
#define PEAK_KEEP(a) (void)0
#define PEAK_V       peak_v8
#if defined(__AVX512F__)
PEAK_FUNCTION(PeakLanes8, PEAK_CHAINS, 12)
#else
PEAK_FUNCTION(PeakLanes8, PEAK_CHAINS6, 6)
#endif

double BenchPeakFmaRate(int lanes, int reps)
{
  double best = 0.0;
  for (int r = 0; r < reps; r++) {
    const double rate = lanes == 1 ? PeakScalar() : lanes == 2 ? PeakLanes2() : lanes == 4 ? PeakLanes4() : PeakLanes8();
    if (rate > best) best = rate;
  }
  return best;
}
