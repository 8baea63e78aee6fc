// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "SIMD lanes against the scalar element loop (mfad/impl/loop_cpu_lanes.h) on the driver's workloads\n"
    "(workloads.h): gradient and fused HVP of the same kernel through its scalar loop (MfadLoop.scalar),\n"
    "its lanes at 4 and at 8 (copies of the energy compiled here with -DMFAD_LANES_WIDTH), and the\n"
    "hand-written scalar C of bench_ops (hand_*.c), interleaved in one process, 1 thread, one block\n"
    "in element order (the scatter of a real mesh). The fastest of -reps (the least disturbed on a\n"
    "shared machine; -median: medians) of this thread's CPU time: ns and cycles per element (the\n"
    "clock measured by a chain of dependent integer adds, 1 cycle each), the speed-up over scalar,\n"
    "and the largest difference from the scalar results relative to their largest entry.\n"
    "  -workload neohookean|cloth  -n <20> -m <42>  -reps <15>\n";
#include <math.h>
#include <string.h>
#include <time.h>
#include "hand.h"
#include "workloads.h"

MFAD_KERNEL_DECLARE(neohookean_tet_w4);
MFAD_KERNEL_DECLARE(neohookean_tet_w8);
MFAD_KERNEL_DECLARE(mass_spring_w4);
MFAD_KERNEL_DECLARE(mass_spring_w8);

static double Now(void)
{
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t); /* this thread's CPU time: not the time other processes had */
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int CompareDouble(const void *a, const void *b)
{
  return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b);
}

/* cycles per second: 2^28 dependent adds (one cycle of latency each), the fastest of 5 */
static double ClockHz(void)
{
  double best = 0;
  for (int r = 0; r < 5; r++) {
    unsigned long long s  = 0;
    const double       t0 = Now();
    for (unsigned long long i = 0; i < (1ULL << 28); i++) __asm__ volatile("add %1, %0" : "+r"(s) : "r"(i));
    const double hz = (double)(1ULL << 28) / (Now() - t0);
    if (hz > best) best = hz;
  }
  return best;
}

int main(int argc, char **argv)
{
  PetscInt    wl = WL_NEOHOOKEAN, n = 20, m = 42, reps = 15;
  PetscBool   median = PETSC_FALSE;
  Mesh        M;
  MfadKernel  ks[4];
  const char *names[4] = {"scalar", "lanes4", "lanes8", "hand"};

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_lanes", NULL);
  PetscCall(PetscOptionsEList("-workload", "neohookean or cloth", NULL, WorkloadNames, 2, WorkloadNames[wl], &wl, NULL));
  PetscCall(PetscOptionsInt("-n", "size (workloads.h)", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "length (neohookean)", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-median", "medians instead of the fastest", NULL, median, &median, NULL));
  PetscOptionsEnd();
  PetscCheck(reps >= 1 && reps <= 99, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be in [1, 99]", reps);
  PetscCall(MeshCreate((Workload)wl, n, m, &M));
  ks[0] = M.k;
  ks[1] = wl == WL_NEOHOOKEAN ? MFAD_KERNEL(neohookean_tet_w4) : MFAD_KERNEL(mass_spring_w4);
  ks[2] = wl == WL_NEOHOOKEAN ? MFAD_KERNEL(neohookean_tet_w8) : MFAD_KERNEL(mass_spring_w8);
  ks[3] = wl == WL_NEOHOOKEAN ? &BenchKernel_neohookean_tet_hand : &BenchKernel_mass_spring_hand;
  {
    const int   ne = (int)M.nelem, nd = (int)(M.nvert * M.dof);
    int        *conn, bs[2] = {0, ne}, cs[2] = {0, 1}, cb[1] = {0};
    double     *v, *y[4][2], bv, t[4][2][99], hz;
    PetscRandom rnd;
    PetscCall(PetscMalloc2(M.nv * M.nelem, &conn, nd, &v));
    for (PetscInt i = 0; i < M.nv * M.nelem; i++) conn[i] = (int)M.conn[i];
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    for (int i = 0; i < nd; i++) PetscCall(PetscRandomGetValueReal(rnd, &v[i]));
    PetscCall(PetscRandomDestroy(&rnd));
    for (int k = 0; k < 4; k++)
      for (int op = 0; op < 2; op++) PetscCall(PetscMalloc1(nd, &y[k][op]));
    MfadLoop L = {0};
    L.nelem = ne, L.conn = conn, L.params = M.np ? M.params : NULL, L.weight = 1.0, L.x = M.x, L.v = v, L.block_value = &bv;
    L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1, L.parallel = 0;
    hz = ClockHz();
    for (PetscInt r = -1; r < reps; r++) /* r = -1: warm-up; the four interleaved */
      for (int k = 0; k < 4; k++)
        for (int op = 0; op < 2; op++) {
          L.y      = y[k][op];
          L.scalar = k == 0;
          memset(L.y, 0, sizeof(double) * (size_t)nd);
          const double t0 = Now();
          (op ? ks[k]->cpu_hvp : ks[k]->cpu_gradient)(&L);
          if (r >= 0) t[k][op][r] = Now() - t0;
        }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "workload %s: %d elements, 1 thread, clock %.2f GHz (dependent adds), %s of %d\n", WorkloadNames[wl], ne,
                          1e-9 * hz, median ? "medians" : "fastest", (int)reps));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10s %10s %8s %12s %10s %10s %8s %12s\n", "loop", "grad ns/el", "cycles/el", "speed-up", "diff",
                          "hvp ns/el", "cycles/el", "speed-up", "diff"));
    double med[4][2];
    for (int k = 0; k < 4; k++)
      for (int op = 0; op < 2; op++) {
        qsort(t[k][op], (size_t)reps, sizeof(double), CompareDouble);
        med[k][op] = t[k][op][median ? reps / 2 : 0] / ne;
      }
    for (int k = 0; k < 4; k++) {
      double diff[2];
      for (int op = 0; op < 2; op++) {
        double d = 0, s = 0;
        for (int i = 0; i < nd; i++) {
          d = PetscMax(d, PetscAbsReal(y[k][op][i] - y[0][op][i]));
          s = PetscMax(s, PetscAbsReal(y[0][op][i]));
        }
        diff[op] = d / s;
      }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10.2f %10.1f %8.2f %12.2e %10.2f %10.1f %8.2f %12.2e\n", names[k], 1e9 * med[k][0],
                            hz * med[k][0], med[0][0] / med[k][0], diff[0], 1e9 * med[k][1], hz * med[k][1], med[0][1] / med[k][1], diff[1]));
    }
    for (int k = 0; k < 4; k++)
      for (int op = 0; op < 2; op++) PetscCall(PetscFree(y[k][op]));
    PetscCall(PetscFree2(conn, v));
  }
  PetscCall(MeshDestroy(&M));
  PetscCall(PetscFinalize());
  return 0;
}
