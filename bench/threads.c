// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Element loops on 1 thread, on 2 and with the default thread count (docs/threads.md), on an idle\n"
    "machine and with a core kept busy by a spinning process this program starts: gradient, fused\n"
    "HVP, element-Hessian cache build and assembly of Neo-Hookean tets. Three energies on the same\n"
    "mesh (threads 1, 2 and the default, each keeping what its default policy has learned), called\n"
    "in turn (the same load for each; 2 threads first, then, beside the spinner, 30 ms for its idle\n"
    "thread to stop spinning), idle and busy phases alternating -rounds times. Prints per\n"
    "phase and operation the median ms of each, the ratios default / 1 thread (busy: the goal is\n"
    "<= 1.1), 1 thread / default (idle: the goal is >= 1.7 on 2 cores) and 1 / 2 threads, the\n"
    "ratio of the means (every timed call: the default's probes count) and the most threads the\n"
    "default has used so far.\n"
    "  -n <20> -m <42>: an n x n x m box of cubes, 6 tets each (default 100,800 tets; -n 40 -m 105: 1M)\n"
    "  -reps <9>: timed calls per energy, operation and phase (after -warm untimed calls)\n"
    "  -warm <8>: untimed calls per energy, operation and phase (docs/threads.md: the first ~50 ms of\n"
    "     a phase on this VM can see another runnable thread that /proc does not show)\n"
    "  -rounds <1>: idle / busy phase pairs\n"
    "  -busy <1>: spinning processes in a busy phase\n"
    "  -two <true>: time the energy on 2 threads too (false: only 1 thread and the default run)\n"
    "  -pause <0>: ms of sleep before every call (0: back to back, as a Krylov method's products;\n"
    "     30: each call after OpenMP's idle thread has gone to sleep, which a threaded call wakes)\n"
    "  -trace: print every timed call of the default\n";
/* Run: build/bench/bench_threads (100k tets), build/bench/bench_threads -n 40 -m 105 (1M tets).
   Results: docs/threads.md. The spinners are forked before PetscInitialize (no fork under MPI) and
   spin only while the shared flag says busy; they exit with the program. */
#include "benchsync.h"
#include "benchbox.h"
#include <petsctime.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

enum { OP_GRADIENT, OP_HVP, OP_CACHE, OP_ASSEMBLY, NOP };
static const char *const opname[NOP] = {"gradient", "HVP", "cache build", "assembly"};
enum { NCFG = 3 }; /* energies with 1 thread, 2 threads, the default */

static int CompareDouble(const void *a, const void *b)
{
  return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b);
}

/* the spinner: burns one core while *flag == 1, sleeps while 0, exits at 2 or when its parent is gone */
static void Spin(volatile int *flag, pid_t parent)
{
  unsigned long i = 0;
  for (;;) {
    const int f = *flag;
    if (f == 2 || getppid() != parent) _exit(0);
    /* 20 ms between looks: a sleeper that woke every millisecond was, right after each threaded
       loop (its idle thread spinning on, the caller on the other core), a runnable thread the
       default's count of other processes saw in about 25 counts of bench_threads' idle phase
       (-reps 15; 1-2 with -busy 0, no spinner) */
    if (f == 0) usleep(20000);
    else
      for (i = 0; i < 10000000UL; i++) __asm__ volatile("" ::: "memory");
  }
}

static double LoadAverage(void)
{
  double la = 0.0;
  FILE  *fp = fopen("/proc/loadavg", "r");
  if (fp) {
    if (fscanf(fp, "%lf", &la) != 1) la = 0.0;
    fclose(fp);
  }
  return la;
}

/* seconds of one call of op on E; the Hessian ops see a new state of X, so they compute again */
static PetscErrorCode TimeOne(MfadEnergy E, int op, Vec X, Vec V, Vec Y, Mat A, double *sec)
{
  double t0, t1;

  PetscFunctionBeginUser;
  if (op == OP_CACHE || op == OP_ASSEMBLY) { /* a new state of the same point */
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(PetscTime(&t0));
  switch (op) {
  case OP_GRADIENT:
    PetscCall(MfadEnergyComputeGradient(E, X, Y));
    break;
  case OP_HVP:
    PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    break;
  case OP_CACHE:
    PetscCall(MfadEnergyComputeHessianCache(E, X));
    break;
  case OP_ASSEMBLY:
    PetscCall(MfadEnergyComputeHessian(E, X, A));
    break;
  }
  BenchSync();
  PetscCall(PetscTime(&t1));
  *sec = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  /* warm: 8 untimed calls an energy (24 in all: 40 ms of the 2 ms loops) before a phase's timed ones. With 2, the
     default's first idle gradient calls ran on one thread in about one run in three (1.0x): for up to
     ~50 ms after the program starts or a phase's 200 ms pause, /proc/loadavg counted a third runnable
     thread beside our two that no /proc/<pid>/task/<tid>/stat showed in state R (a VM sandbox's PID
     namespace hides it), and the default counts it as another process (docs/threads.md) */
  PetscInt      n = 20, m = 42, reps = 9, warm = 8, rounds = 1, nbusy = 1, ntet = 0, nvert = 0, pause = 0;
  PetscBool     two = PETSC_TRUE, trace = PETSC_FALSE;
  MfadEnergy    E[NCFG];
  Vec           X[NCFG], V, Y[NCFG];
  Mat           A[NCFG];
  pid_t         spinner[8];
  volatile int *flag;
  PetscReal     dg = 0.0;

  /* the spinners first: a fork after MPI's initialisation is not safe */
  flag = mmap(NULL, sizeof(int), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (flag == MAP_FAILED) return 1;
  *flag = 0;
  for (PetscInt i = 1; i < argc; i++)
    if (!strcmp(argv[i], "-busy") && i + 1 < argc) nbusy = atoi(argv[i + 1]);
  nbusy = PetscMax(0, PetscMin(nbusy, 8));
  for (PetscInt i = 0; i < nbusy; i++) {
    const pid_t parent = getpid();
    spinner[i]         = fork();
    if (spinner[i] == 0) Spin(flag, parent);
  }

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mfad thread benchmark", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "cubes along", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed calls", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsInt("-warm", "untimed calls", NULL, warm, &warm, NULL));
  PetscCall(PetscOptionsInt("-rounds", "idle / busy pairs", NULL, rounds, &rounds, NULL));
  PetscCall(PetscOptionsInt("-busy", "spinning processes", NULL, nbusy, &nbusy, NULL));
  PetscCall(
      PetscOptionsBool("-two", "time the energy on 2 threads too (its idle threads spin after each loop, beside the others)", NULL, two, &two, NULL));
  PetscCall(PetscOptionsInt("-pause", "ms of sleep before every call", NULL, pause, &pause, NULL));
  PetscCall(PetscOptionsBool("-trace", "print every timed call of the default", NULL, trace, &trace, NULL));
  PetscOptionsEnd();
  reps  = PetscMax(1, PetscMin(reps, 64));
  pause = PetscMax(0, PetscMin(pause, 1000));
  for (int c = 0; c < NCFG; c++) {
    PetscCall(BenchBoxCreate(n, m, &E[c], &X[c], &ntet, &nvert));
    PetscCall(MfadEnergySetFromOptions(E[c]));
    PetscCall(MfadEnergySetNumThreads(E[c], c == 0 ? 1 : c == 1 ? 2 : 0));
    PetscCall(MfadEnergySetUp(E[c]));
    PetscCall(MfadEnergyCreateMatrix(E[c], &A[c]));
    PetscCall(VecDuplicate(X[c], &Y[c]));
  }
  PetscCall(VecDuplicate(X[0], &V));
  PetscCall(VecSetRandom(V, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_SELF,
                        "Neo-Hookean tets: %" PetscInt_FMT " elements, %" PetscInt_FMT " vertices; %d cores online; %" PetscInt_FMT
                        " timed calls per cell (median), %" PetscInt_FMT " spinner(s) when busy\n",
                        ntet, nvert, (int)sysconf(_SC_NPROCESSORS_ONLN), reps, nbusy));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-5s %-12s %10s %10s %10s %8s %8s %8s %12s %8s %11s\n", "load", "operation", "1 thr ms", "2 thr ms",
                        "default ms", "def/1", "1/def", "1/2", "def/1 means", "threads", "loadavg"));
  for (PetscInt round = 0; round < rounds; round++)
    for (int busy = 0; busy < 2; busy++) {
      *flag = busy && nbusy > 0;
      /* the spinners are running, or (idle after busy) have finished their burst and sleep: a
         spinner still running would be counted by the default as another process's busy core */
      if (busy || round > 0) usleep(200000);
      for (int op = 0; op < NOP; op++) {
        double   t[NCFG][64] = {{0}}, sum[NCFG] = {0}, l0 = LoadAverage();
        PetscInt used;
        for (PetscInt r = -warm; r < reps; r++)
          for (int k = 0; k < NCFG; k++) { /* in turn: each configuration sees the same load */
            /* 2 threads first, then, beside the spinner, a pause: its idle thread spins on after
               the loop (libgomp's wait policy, docs/threads.md) and would take the core the next
               one shares with the spinner. Not when idle: there it spins on a core nobody else
               wants, and a pause would send it to sleep, so that the default's next threaded
               call, and only the default's, would pay for waking it (a VM's idle vCPU: 30 us to
               8 ms here, docs/threads.md). 1 thread and the default swap places every call */
            const int c = k == 0 ? 1 : (k + (int)r) % 2 ? 0 : 2;
            double    s = 0.0;
            if (c == 1 && !two) {
              t[c][PetscMax(r, 0)] = 0.0;
              continue;
            }
            if (pause > 0) usleep((useconds_t)(1000 * pause));
            PetscCall(TimeOne(E[c], op, X[c], V, Y[c], A[c], &s));
            if (c == 1 && busy && nbusy > 0) usleep(30000);
            if (r >= 0) t[c][r] = s;
            if (r >= 0) sum[c] += s;
            if (trace && c == 2)
              PetscCall(PetscPrintf(PETSC_COMM_SELF, "  %s call %" PetscInt_FMT ": %.2f ms (1 thread %.2f)\n", opname[op], r, 1e3 * s,
                                    1e3 * t[0][PetscMax(r, 0)]));
          }
        for (int c = 0; c < NCFG; c++) qsort(t[c], reps, sizeof(double), CompareDouble);
        PetscCall(MfadEnergyGetNumThreadsUsed(E[2], &used));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-5s %-12s %10.2f %10.2f %10.2f %8.2f %8.2f %8.2f %12.2f %8" PetscInt_FMT " %5.2f-%.2f\n",
                              busy ? "busy" : "idle", opname[op], 1e3 * t[0][reps / 2], 1e3 * t[1][reps / 2], 1e3 * t[2][reps / 2],
                              t[2][reps / 2] / t[0][reps / 2], t[0][reps / 2] / t[2][reps / 2], t[0][reps / 2] / t[1][reps / 2], sum[2] / sum[0],
                              used, l0, LoadAverage()));
      }
    }
  *flag = 0;
  /* the three energies give the same gradient bitwise (coloured blocks): checked, so a policy
     that changed results would show here */
  for (int c = 0; c < NCFG; c++) PetscCall(MfadEnergyComputeGradient(E[c], X[c], Y[c]));
  for (int c = 1; c < NCFG; c++) {
    PetscReal d;
    PetscCall(VecAXPY(Y[c], -1.0, Y[0]));
    PetscCall(VecNorm(Y[c], NORM_INFINITY, &d));
    dg = PetscMax(dg, d);
  }
  for (int c = 0; c < NCFG; c++) {
    PetscCall(MatDestroy(&A[c]));
    PetscCall(VecDestroy(&X[c]));
    PetscCall(VecDestroy(&Y[c]));
    PetscCall(MfadEnergyDestroy(&E[c]));
  }
  PetscCall(VecDestroy(&V));
  PetscCall(PetscFinalize());
  *flag = 2;
  for (PetscInt i = 0; i < nbusy; i++) waitpid(spinner[i], NULL, 0);
  if (dg != 0.0) fprintf(stderr, "bench_threads: a threaded gradient differs from 1 thread's by %g\n", (double)dg);
  return dg != 0.0;
}
