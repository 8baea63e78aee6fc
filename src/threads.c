// SPDX-License-Identifier: BSD-2-Clause
/* Threads of the element loops (docs/threads.md): how many a loop gets, and the timing that decides
   it where the user chose no count. */
#include "mfadimpl.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* The count asked for (MfadEnergySetNumThreads(), -mfad_num_threads), else OpenMP's */
int MfadEnergyThreads_Private(MfadEnergy E)
{
#ifdef _OPENMP
  return E->opt.nthreads > 0 ? (int)E->opt.nthreads : omp_get_max_threads();
#else
  (void)E;
  return 1;
#endif
}

/* A thread count asked for (MfadEnergySetNumThreads, -mfad_num_threads) is used as asked. The
   default (OpenMP's count) is used only where it is measured to pay: each site (operation) is
   timed per element on one thread (its second run: the first touches cold memory) and on all,
   the faster runs, and the slower is timed again
   every `interval` calls, so that a core another process takes (or frees) is noticed. A probe of
   the slower costs (slow / fast - 1) calls' time: the interval keeps that under 1/20 of the time
   (on a busy 2-core machine a threaded loop measured 10-100x slower than one thread: a barrier per
   colour waits for a descheduled thread). Below MFAD_THREADS_MIN_ELEMENTS a loop runs on the
   calling thread: there a fork-join gains microseconds on an idle machine and can cost a
   scheduler time slice (milliseconds) on a busy one. Results are bitwise the same for any count. */
#define MFAD_THREADS_MIN_ELEMENTS 16384
#define MFAD_THREADS_PROBE_MIN    4
#define MFAD_THREADS_PROBE_MAX    (1 << 20)
#define MFAD_THREADS_PROBE_BUDGET 20 /* calls per unit of probe loss: 5% */

static double MfadWallTime_Private(void)
{
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return 0.0;
#endif
}

/* Threads for a loop of `nelem` elements at `site`; t0 is passed on to MfadThreadsEnd_Private */
int MfadThreadsBegin_Private(MfadEnergy E, int site, PetscCount nelem, double *t0)
{
  const int         nt = MfadEnergyThreads_Private(E);
  MfadThreadChoice *c  = &E->threads[site];
  int               use;

  *t0 = -1.0;
  if (nt <= 1 || nelem < MFAD_THREADS_MIN_ELEMENTS) return 1;
  if (E->opt.nthreads > 0) {
    E->threads_used = PetscMax(E->threads_used, nt);
    return nt;
  }
  if (!c->interval) c->interval = MFAD_THREADS_PROBE_MIN;
  if (c->warm < 2) use = 1;
  else if (c->sec[1] <= 0.0) {
    use      = nt;
    c->probe = 1;
  } else {
    const int best = c->sec[1] < c->sec[0] ? nt : 1;
    c->probe       = ++c->calls >= c->interval;
    if (c->probe) c->calls = 0;
    use = c->probe ? (best > 1 ? 1 : nt) : best;
  }
  *t0             = MfadWallTime_Private();
  E->threads_used = PetscMax(E->threads_used, use);
  return use;
}

void MfadThreadsEnd_Private(MfadEnergy E, int site, int nt, PetscCount nelem, double t0)
{
  MfadThreadChoice *c = &E->threads[site];
  const int         i = nt > 1;
  double            s;

  if (t0 < 0.0) return;
  s = (MfadWallTime_Private() - t0) / (double)nelem;
  if (c->warm < 2) { /* the first run warms the caches; the second is timed */
    if (c->warm++) c->sec[0] = s;
    return;
  }
  /* the loop in use: smoothed; a probe or a first time: replaces */
  c->sec[i] = c->probe || c->sec[i] <= 0.0 ? s : 0.5 * (c->sec[i] + s);
  if (c->probe) {
    const double loss  = PetscMax(c->sec[0], c->sec[1]) / PetscMin(c->sec[0], c->sec[1]) - 1.0;
    const int    taken = i == (c->sec[1] < c->sec[0]); /* the probed count is now the faster */
    c->interval =
        taken ? MFAD_THREADS_PROBE_MIN : (int)PetscMin(PetscMax(2.0 * c->interval, MFAD_THREADS_PROBE_BUDGET * loss), (double)MFAD_THREADS_PROBE_MAX);
    c->probe = 0;
  }
}
