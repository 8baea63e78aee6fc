// SPDX-License-Identifier: BSD-2-Clause
/* Threads of the element loops (docs/threads.md): how many a loop gets, and the timing that decides
   it where the user chose no count. */
#include "mfadimpl.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__linux__)
#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>
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
   default (OpenMP's count) is used only where the cores are free and it is measured to pay: while
   other processes run threads on the cores it would need (counted every MFAD_THREADS_SAMPLE s), a
   loop gets the cores left (at least one thread), untimed. Otherwise each site (operation) is
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
#define MFAD_THREADS_PROBE_BUDGET 20   /* calls per unit of probe loss: 5% */
#define MFAD_THREADS_SAMPLE       0.02 /* seconds between two counts of other processes' threads: ~0.1 ms each */

static double MfadWallTime_Private(void)
{
#ifdef _OPENMP
  return omp_get_wtime();
#else
  return 0.0;
#endif
}

/* Linux's count of runnable threads now (/proc/loadavg, the field before the '/'); -1 where it
   cannot be read */
static int MfadRunnable_Private(void)
{
#if defined(__linux__)
  char buf[128];
  int  fd, len, all;

  fd = open("/proc/loadavg", O_RDONLY);
  if (fd < 0) return -1;
  len = (int)read(fd, buf, sizeof(buf) - 1);
  close(fd);
  if (len <= 0) return -1;
  buf[len] = 0;
  return sscanf(buf, "%*f %*f %*f %d/", &all) == 1 ? all : -1;
#else
  return -1;
#endif
}

/* Threads of other processes running now: the runnable count less this process's own
   (/proc/self/task/<tid>/stat in state R: the caller, and OpenMP threads still spinning after the
   last parallel region); -1 where that cannot be read. The runnable count is read before and after
   the scan of our own, and the smaller is used: a kernel thread runnable for microseconds
   (rcu_preempt and ksoftirqd were caught so on a VM here, right after a parallel region; each such
   count kept a loop on one thread for MFAD_THREADS_SAMPLE s), or our own OpenMP thread that
   stopped spinning between the two reads, is not another process's core; a process that keeps a
   core busy is runnable in both. Still counted: a sleeper that wakes while our idle OpenMP thread
   spins on the core it would run on (it waits in the run queue for a while). 60-100 us;
   MfadThreadsBegin_Private() counts at most every MFAD_THREADS_SAMPLE s per site (0.5% of the
   time). */
static int MfadOthersRunning_Private(void)
{
#if defined(__linux__)
  char           buf[512];
  int            fd, len, all, after, mine = 0;
  DIR           *dir;
  struct dirent *t;

  all = MfadRunnable_Private();
  if (all < 0) return -1;
  dir = opendir("/proc/self/task");
  if (!dir) return -1;
  while ((t = readdir(dir))) {
    const char *p;
    if (t->d_name[0] < '0' || t->d_name[0] > '9') continue;
    if (snprintf(buf, sizeof(buf), "/proc/self/task/%s/stat", t->d_name) >= (int)sizeof(buf)) continue;
    fd = open(buf, O_RDONLY);
    if (fd < 0) continue; /* a thread that ended meanwhile */
    len = (int)read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (len <= 0) continue;
    buf[len] = 0;
    p        = strrchr(buf, ')'); /* "tid (name) S ...": the name may hold spaces and parentheses */
    if (p && p[1] == ' ' && p[2] == 'R') mine++;
  }
  closedir(dir);
  after = MfadRunnable_Private();
  if (after >= 0) all = PetscMin(all, after);
  return PetscMax(all - mine, 0);
#else
  return -1;
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
  { /* cores other processes keep busy are not ours: threads there wait at every colour's barrier
       for a thread the scheduler has parked (docs/threads.md); such a run is not timed either, so
       that the measurements stay those of the free cores */
    const double now = MfadWallTime_Private();
#ifdef _OPENMP
    const int ncpu = omp_get_num_procs();
#else
    const int ncpu = 1;
#endif
    if (c->sampled <= 0.0 || now - c->sampled > MFAD_THREADS_SAMPLE) {
      const int before = c->others;
      c->others        = MfadOthersRunning_Private();
      /* others where there were none: counted again at the next call, not MFAD_THREADS_SAMPLE s
         later. A sleeper that wakes for a moment (runnable behind our OpenMP thread, which spins on
         after a loop) is gone by then; it kept loops of 1-2 ms on one thread for 20 ms (4 calls in
         a row of bench_threads' idle phase, woken by its own sleeping spinner), while a process
         that keeps a core busy is counted again, and then every MFAD_THREADS_SAMPLE s */
      c->sampled = c->others > 0 && before <= 0 ? 0.0 : now;
      /* others gone after a spell of two counts or more: where threads are the slower by their
         times, those may have been taken beside the others before a count saw them (the first calls
         of the spell), so threads are timed again at this call, not after the interval their
         losses earned (it doubles with each lost probe: no threaded call in 30 after a spell in
         tests/test_threads.c, where the cores were free) */
      if (c->others > 0) c->busy++;
      else {
        if (c->busy >= 2 && c->warm >= 2 && c->sec[1] > 0.0 && c->sec[1] >= c->sec[0]) {
          c->interval = MFAD_THREADS_PROBE_MIN;
          c->calls    = MFAD_THREADS_PROBE_MIN - 1;
        }
        c->busy = 0;
      }
    }
    if (c->others >= 0 && c->others + nt > ncpu) {
      use             = PetscMax(1, PetscMin(nt, ncpu - c->others));
      E->threads_used = PetscMax(E->threads_used, use);
      return use;
    }
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
  /* the loop in use: smoothed; a probe or a first time: replaces. A run counts for at most twice
     the time known so far (its count's, else the other's): one run the hypervisor or the scheduler
     stopped for milliseconds (on a VM here, idle, about one threaded run of 1.4-2.2 ms in 6-15 took
     8-18 ms) would otherwise make its count the slower until the next probe or, as a probe, keep
     it off for the hundreds of calls its loss earns. A lasting change is followed by doubling,
     within a few runs. */
  const int    threaded = c->sec[1] < c->sec[0];
  const int    known    = c->sec[i] > 0.0;
  const double ref      = known ? c->sec[i] : c->sec[1 - i];
  if (ref > 0.0) s = PetscMin(s, 2.0 * ref);
  c->sec[i] = c->probe || !known ? s : 0.5 * (c->sec[i] + s);
  if (!c->probe && (c->sec[1] < c->sec[0]) != threaded) {
    /* the loop in use became the slower by its own runs (another process came while the count of
       them saw none): the other is timed again within MFAD_THREADS_PROBE_MIN calls, not after the
       interval its own last probe earned (hundreds of calls when it lost by far), so that a
       disturbance does not outlast itself */
    c->interval = MFAD_THREADS_PROBE_MIN;
    c->calls    = 0;
  }
  if (c->probe) {
    const double loss  = PetscMax(c->sec[0], c->sec[1]) / PetscMin(c->sec[0], c->sec[1]) - 1.0;
    const int    taken = i == (c->sec[1] < c->sec[0]); /* the probed count is now the faster */
    /* a count whose first run lost is timed again as soon as one that won: one run is no measure
       of its loss (a first threaded run of the fused HVP here took 12-18 ms where the next took 1.7) */
    c->interval = taken || !known ? MFAD_THREADS_PROBE_MIN
                                  : (int)PetscMin(PetscMax(2.0 * c->interval, MFAD_THREADS_PROBE_BUDGET * loss), (double)MFAD_THREADS_PROBE_MAX);
    c->probe = 0;
  }
}

/* Starts a site's timing again (after set-up work that belongs to no single call, such as the pair
   sum's gather, built once per pattern): a timed run measures the loop alone */
void MfadThreadsRestart_Private(double *t0)
{
  if (*t0 >= 0.0) *t0 = MfadWallTime_Private();
}
