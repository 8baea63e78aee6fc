// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "SIMD lanes against the scalar element loop (mfad/impl/loop_cpu_lanes.h): gradient, fused HVP and value of\n"
    "one energy through the library kernel's scalar loop (MfadLoop.scalar), its lanes at 4 (and at 8\n"
    "for neohookean_tet and mass_spring: copies of the energy compiled here with -DMFAD_LANES_WIDTH, every\n"
    "mode on lanes whatever the library chose), and the hand-written scalar C of bench_ops (hand_*.c)\n"
    "where there is one, interleaved in one process, 1 thread, one block in element order (the scatter\n"
    "of a real mesh). The fastest of -reps (the least disturbed on a shared machine; -median: medians)\n"
    "of this thread's CPU time: ns and cycles per element (the clock measured by a chain of dependent\n"
    "integer adds, 1 cycle each), the speed-up over scalar, and the largest difference from the scalar\n"
    "results relative to their largest entry.\n"
    "  -energy <name> (every energy of LanesEnergies below; default: the workload's)\n"
    "  -workload neohookean|cloth  -n <20> -m <42>  -reps <15>  -hessian (the element Hessians too: energies with\n"
    "  LANES_MODES hessian on lanes, the others on the scalar path at every width)  -psd none|clamp|abs (their feature\n"
    "  Hessians PSD-projected, as src/hessian.c asks for clamp: mfad/impl/psd.h's QL on the scalar path, psd_lanes.h's\n"
    "  Jacobi on the lanes)  -diagonal (the Hessian diagonal too)\n"
    "Meshes: the workloads' (workloads.h) for neohookean_tet, mass_spring and symmetric_dirichlet; other\n"
    "tet energies the neohookean box (bending_dihedral: a tet's four vertices as its hinge), other\n"
    "triangle energies a grid of 4n x 3m squares, 2 triangles each, stretched and wiggled out of plane.\n";
#include <math.h>
#include <string.h>
#include <time.h>
#include "hand.h"
#include "peak.h"
#include "workloads.h"

/* the energies the translator takes on lanes (mfad-energy --lanes writes their body), each compiled
   here at 4 lanes (bench/CMakeLists.txt: the same list); user: not the library's (a user's energy
   without features: the scalar loop is its own unit's, L.scalar) */
#define LANES_ENERGIES(X) \
  X(neohookean_tet, 0) \
  X(mass_spring, 0) \
  X(stable_neohookean_tet, 0) \
  X(volume_barrier_tet, 0) \
  X(bending_dihedral, 0) \
  X(symmetric_dirichlet, 0) \
  X(arap_tri, 0) \
  X(flip_barrier_tri, 0) \
  X(dirichlet_tri, 0) \
  X(membrane_tri, 0) \
  X(stvk_tet, 0) \
  X(mooney_rivlin_tet, 1) \
  X(sym_dirichlet, 1)  /* the README's tutorial energy */ \
  X(kinked_tet, 1)     /* fabs, fmin, fmax, a ternary: selects */ \
  X(spring_helpers, 1) /* its stiffness a helper over doubles */ \
  X(lame_tet, 1)       /* arrays of doubles it sets */
#define DECLARE_W4(name, user) MFAD_KERNEL_DECLARE(name##_w4);
LANES_ENERGIES(DECLARE_W4)
MFAD_KERNEL_DECLARE(neohookean_tet_w8);
MFAD_KERNEL_DECLARE(mass_spring_w8);
#define ENTRY_W4(name, user) {#name, MFAD_KERNEL(name##_w4), user},
static const struct {
  const char *name;
  MfadKernel  w4;
  int         user;
} LanesEnergies[] = {LANES_ENERGIES(ENTRY_W4)};

/* the mesh of an energy that no workload names: tets (the neohookean box), or triangles (4n x 3m
   squares); the parameters from the energy's own rest set-up on the undeformed coordinates */
static PetscErrorCode MeshCreateFor(MfadKernel k, PetscInt n, PetscInt m, Mesh *M)
{
  PetscReal *coords, mat[3] = {1e5 / (2 * 1.3), 1e5 * 0.3 / (1.3 * 0.4),
                               1e5 / (3 * 0.4)}; /* mu, lambda (or k, kappa): E = 1e5, nu = 0.3; a third: the bulk modulus */

  PetscFunctionBeginUser;
  if (k->nvert == 2 && k->rest_dim == 3) { /* a spring: the cloth workload's springs, the parameters from the energy's rest set-up */
    const PetscReal h = 1.0 / (n - 1), km = 1e3;
    PetscCall(MeshCreate(WL_CLOTH, n, m, M));
    PetscCheck(k->nparam == M->np && k->nmaterial <= 1, PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_lanes: spring %s: %d parameters, the cloth's %d",
               k->name, k->nparam, (int)M->np);
    M->k = k;
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    for (PetscInt v = 0; v < M->nvert; v++) coords[3 * v] = h * (v % n), coords[3 * v + 1] = h * (v / n), coords[3 * v + 2] = 0;
    PetscCall(MeshRestParams(M, coords, k->nmaterial ? &km : NULL));
    PetscCall(PetscFree(coords));
    PetscFunctionReturn(0);
  }
  PetscCall(PetscMemzero(M, sizeof(*M)));
  M->k   = k;
  M->nv  = k->nvert;
  M->dof = k->dof;
  M->np  = k->nparam;
  PetscCheck(k->rest_dim == 3 && (M->nv == 4 || M->nv == 3), PETSC_COMM_SELF, PETSC_ERR_SUP, "bench_lanes: energy %s: %d vertices: no mesh here",
             k->name, k->nvert);
  if (M->nv == 4) {
    const PetscInt nc    = n * n * m;
    PetscReal      lo[3] = {0, 0, 0}, hi[3] = {1.0, 1.0, (PetscReal)m / n};
    M->nelem = 6 * nc;
    M->nvert = (n + 1) * (n + 1) * (m + 1);
    PetscCall(PetscMalloc3(M->nv * M->nelem, &M->conn, M->np * M->nelem, &M->params, M->dof * M->nvert, &M->x));
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    PetscCall(MfadMeshBoxTets(n, n, m, 0, nc, M->conn));
    PetscCall(MfadMeshBoxVertices(n, n, m, lo, hi, 0, M->nvert, coords));
    for (PetscInt i = 0; i < 3 * M->nvert; i++) M->x[i] = coords[i] * (i % 3 == 2 ? 1.1 : 0.97) + 0.01 / n * PetscSinReal(1.7 * i);
  } else {
    const PetscInt  nx = 4 * n, ny = 3 * m;
    const PetscReal h = 1.0 / nx;
    M->nvert          = (nx + 1) * (ny + 1);
    M->nelem          = 2 * nx * ny;
    PetscCall(PetscMalloc3(M->nv * M->nelem, &M->conn, M->np * M->nelem, &M->params, M->dof * M->nvert, &M->x));
    PetscCall(PetscMalloc1(3 * M->nvert, &coords));
    for (PetscInt j = 0, e = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++, e += 2) {
        const PetscInt v   = j * (nx + 1) + i; /* counter-clockwise triangles */
        M->conn[3 * e]     = v;
        M->conn[3 * e + 1] = v + 1;
        M->conn[3 * e + 2] = v + nx + 2;
        M->conn[3 * e + 3] = v;
        M->conn[3 * e + 4] = v + nx + 2;
        M->conn[3 * e + 5] = v + nx + 1;
      }
    for (PetscInt v = 0; v < M->nvert; v++) {
      const PetscReal X = h * (v % (nx + 1)), Y = h * (v / (nx + 1)),
                      xv[3] = {1.1 * X + 0.3 * Y + 0.02 * h * PetscSinReal(1.7 * v), 0.95 * Y + 0.02 * h * PetscCosReal(2.3 * v),
                               0.1 * h * PetscSinReal(1.3 * v)};
      coords[3 * v]         = X;
      coords[3 * v + 1]     = Y;
      coords[3 * v + 2]     = 0;
      for (PetscInt d = 0; d < M->dof; d++) M->x[M->dof * v + d] = xv[d];
    }
  }
  PetscCall(MeshRestParams(M, coords, k->nmaterial ? mat : NULL));
  PetscCall(PetscFree(coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}

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
  PetscInt    wl = WL_NEOHOOKEAN, n = 20, m = 42, reps = 15, ie = -1, psd = MFAD_PSD_NONE;
  PetscBool   median = PETSC_FALSE, hess = PETSC_FALSE, diag = PETSC_FALSE, set;
  char        energy[64] = "";
  Mesh        M;
  MfadKernel  ks[4], lib;
  const char *names[4] = {"scalar", "lanes4", "lanes8", "hand"};
  int         nk;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_lanes", NULL);
  PetscCall(PetscOptionsEList("-workload", "neohookean or cloth", NULL, WorkloadNames, 2, WorkloadNames[wl], &wl, NULL));
  PetscCall(PetscOptionsString("-energy", "the energy (default: the workload's)", NULL, energy, energy, sizeof(energy), &set));
  PetscCall(PetscOptionsInt("-n", "size (workloads.h)", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-m", "length (neohookean)", NULL, m, &m, NULL));
  PetscCall(PetscOptionsInt("-reps", "repetitions", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-median", "medians instead of the fastest", NULL, median, &median, NULL));
  PetscCall(PetscOptionsBool("-hessian", "the element Hessians too (Hessian mode, the first 16384 elements)", NULL, hess, &hess, NULL));
  PetscCall(PetscOptionsEList("-psd", "the element Hessians' projection (of their feature Hessians)", NULL, MfadPSDProjections, 3,
                              MfadPSDProjections[psd], &psd, NULL));
  PetscCall(PetscOptionsBool("-diagonal", "the Hessian diagonal too (the Jacobi preconditioner's)", NULL, diag, &diag, NULL));
  PetscOptionsEnd();
  PetscCheck(reps >= 1 && reps <= 99, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be in [1, 99]", reps);
  if (!set) PetscCall(PetscStrncpy(energy, WorkloadKernels[wl], sizeof(energy)));
  for (PetscInt i = 0; i < (PetscInt)(sizeof(LanesEnergies) / sizeof(LanesEnergies[0])); i++) {
    PetscBool eq;
    PetscCall(PetscStrcmp(energy, LanesEnergies[i].name, &eq));
    if (eq) ie = i;
  }
  PetscCheck(ie >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-energy %s: not an energy built here with lanes (bench/lanes.c: LanesEnergies)",
             energy);
  if (LanesEnergies[ie].user) lib = LanesEnergies[ie].w4;
  else PetscCall(MfadKernelFind(energy, &lib));
  {
    PetscInt w = -1;
    for (PetscInt i = 0; i < 3; i++) {
      PetscBool eq;
      PetscCall(PetscStrcmp(energy, WorkloadKernels[i], &eq));
      if (eq) w = i;
    }
    if (w >= 0) PetscCall(MeshCreate((Workload)w, n, m, &M));
    else PetscCall(MeshCreateFor(lib, n, m, &M));
  }
  nk    = 2;
  ks[0] = lib;
  ks[1] = LanesEnergies[ie].w4;
  if (ie <= 1) { /* 8 lanes and the hand-written C: the two workloads of bench_ops */
    nk    = 4;
    ks[2] = ie == 0 ? MFAD_KERNEL(neohookean_tet_w8) : MFAD_KERNEL(mass_spring_w8);
    ks[3] = ie == 0 ? &BenchKernel_neohookean_tet_hand : &BenchKernel_mass_spring_hand;
  }
  {
    const int   ne = (int)M.nelem, nd = (int)(M.nvert * M.dof);
    int        *conn, *voff, bs[2] = {0, ne}, cs[2] = {0, 1}, cb[1] = {0};
    double     *v, *y[4][2], bv, bvs[4], t[4][3][99], hz;
    PetscRandom rnd;
    PetscCall(PetscMalloc3(M.nv * M.nelem, &conn, M.nv * M.nelem, &voff, nd, &v));
    for (PetscInt i = 0; i < M.nv * M.nelem; i++) conn[i] = (int)M.conn[i];
    for (PetscInt i = 0; i < M.nv * M.nelem; i++) voff[i] = conn[i] * (int)(M.dof * sizeof(double)); /* as the core keeps them (src/setup.c) */
    PetscCall(PetscRandomCreate(PETSC_COMM_SELF, &rnd));
    PetscCall(PetscRandomSetInterval(rnd, -1.0, 1.0));
    for (int i = 0; i < nd; i++) PetscCall(PetscRandomGetValueReal(rnd, &v[i]));
    PetscCall(PetscRandomDestroy(&rnd));
    for (int k = 0; k < nk; k++)
      for (int op = 0; op < 2; op++) PetscCall(PetscMalloc1(nd, &y[k][op]));
    MfadLoop L = {0};
    L.nelem = ne, L.conn = conn, L.voff = voff, L.params = M.np ? M.params : NULL, L.weight = 1.0, L.x = M.x, L.v = v, L.block_value = &bv;
    L.nblocks = 1, L.ncolors = 1, L.block_start = bs, L.color_start = cs, L.color_blocks = cb, L.nthreads = 1, L.parallel = 0;
    hz = ClockHz();
    for (PetscInt r = -1; r < reps; r++) /* r = -1: warm-up; the kernels interleaved */
      for (int k = 0; k < nk; k++)
        for (int op = 0; op < 3; op++) { /* gradient, HVP, value */
          L.y      = y[k][op % 2];
          L.scalar = k == 0;
          if (op < 2) memset(L.y, 0, sizeof(double) * (size_t)nd);
          const double t0 = Now();
          (op == 2 ? ks[k]->cpu_value : op ? ks[k]->cpu_hvp : ks[k]->cpu_gradient)(&L);
          if (r >= 0) t[k][op][r] = Now() - t0;
          if (op == 2) bvs[k] = bv;
        }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "energy %s: %d elements, 1 thread, clock %.2f GHz (dependent adds), %s of %d\n", energy, ne, 1e-9 * hz,
                          median ? "medians" : "fastest", (int)reps));
    { /* what lanes can gain here at most: a core that splits a 256-bit instruction in halves gives 4 lanes 2x, not 4x (peak.c) */
      double rate[4];
      for (int w = 0; w < 4; w++) rate[w] = BenchPeakFmaRate(1 << w, 5);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                            "FP64 multiply-adds a cycle (bench/peak.c, independent chains): scalar %.2f, 2 lanes %.2f, 4 lanes %.2f, 8 lanes %.2f; "
                            "the most lanes can gain over a scalar loop that fills the pipes: 4 lanes %.2fx, 8 lanes %.2fx\n",
                            rate[0] / hz, rate[1] / hz, rate[2] / hz, rate[3] / hz, rate[2] / rate[0], rate[3] / rate[0]));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10s %10s %8s %9s %10s %10s %8s %9s %10s %10s %8s %9s\n", "loop", "grad ns/el", "cycles/el",
                          "speed-up", "diff", "hvp ns/el", "cycles/el", "speed-up", "diff", "val ns/el", "cycles/el", "speed-up", "diff"));
    double med[4][3];
    for (int k = 0; k < nk; k++)
      for (int op = 0; op < 3; op++) {
        qsort(t[k][op], (size_t)reps, sizeof(double), CompareDouble);
        med[k][op] = t[k][op][median ? reps / 2 : 0] / ne;
      }
    for (int k = 0; k < nk; k++) {
      double diff[3];
      for (int op = 0; op < 2; op++) {
        double d = 0, s = 0;
        for (int i = 0; i < nd; i++) {
          d = PetscMax(d, PetscAbsReal(y[k][op][i] - y[0][op][i]));
          s = PetscMax(s, PetscAbsReal(y[0][op][i]));
        }
        diff[op] = d / s;
      }
      diff[2] = PetscAbsReal(bvs[k] - bvs[0]) / PetscAbsReal(bvs[0]);
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s", names[k]));
      for (int op = 0; op < 3; op++)
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %10.2f %10.1f %8.2f %9.1e", 1e9 * med[k][op], hz * med[k][op], med[0][op] / med[k][op], diff[op]));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
    }
    if (diag) { /* the Hessian diagonal of every element (y += w diag(H_e)), the kernels interleaved */
      const int nkd = nk < 3 ? nk : 3;
      double    td[3][99];
      for (PetscInt r = -1; r < reps; r++)
        for (int k = 0; k < nkd; k++) {
          L.y = y[k][0], L.scalar = k == 0;
          PetscCall(PetscArrayzero(L.y, nd));
          const double t0 = Now();
          ks[k]->cpu_diagonal(&L);
          if (r >= 0) td[k][r] = Now() - t0;
        }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Hessian diagonals:\n%-8s %10s %10s %8s %9s\n", "loop", "diag ns/el", "cycles/el", "speed-up", "diff"));
      for (int k = 0; k < nkd; k++) qsort(td[k], (size_t)reps, sizeof(double), CompareDouble);
      for (int k = 0; k < nkd; k++) {
        const double tk = td[k][median ? reps / 2 : 0] / ne, t0 = td[0][median ? reps / 2 : 0] / ne;
        double       d = 0, s = 0;
        for (int i = 0; i < nd; i++) s = PetscMax(s, PetscAbsReal(y[0][0][i]));
        for (int i = 0; i < nd; i++) d = PetscMax(d, PetscAbsReal(y[k][0][i] - y[0][0][i]) / s);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10.2f %10.1f %8.2f %9.1e\n", names[k], 1e9 * tk, hz * tk, t0 / tk, d));
      }
    }
    if (hess) { /* the element Hessians (Hessian mode, projected with -psd) of the first elements, the kernels interleaved */
      const int neh = ne < 16384 ? ne : 16384, nh = neh * (int)(M.nv * M.dof) * (int)(M.nv * M.dof), nkh = nk < 3 ? nk : 3;
      double   *H[3], th[3][99], hv[3];
      bs[1] = neh, L.nelem = neh, L.psd = (int)psd;
      for (int k = 0; k < nkh; k++) PetscCall(PetscMalloc1(nh, &H[k]));
      for (PetscInt r = -1; r < reps; r++)
        for (int k = 0; k < nkh; k++) {
          L.y = H[k], L.scalar = k == 0;
          const double t0 = Now();
          ks[k]->cpu_hessian(&L);
          if (r >= 0) th[k][r] = Now() - t0;
          hv[k] = bv;
        }
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "element Hessians of %d elements (projection %s):\n%-8s %10s %10s %8s %9s\n", neh,
                            MfadPSDProjections[psd], "loop", "hess ns/el", "cycles/el", "speed-up", "diff"));
      for (int k = 0; k < nkh; k++) qsort(th[k], (size_t)reps, sizeof(double), CompareDouble);
      for (int k = 0; k < nkh; k++) {
        const double tk = th[k][median ? reps / 2 : 0] / neh, t0 = th[0][median ? reps / 2 : 0] / neh;
        double       d = PetscAbsReal(hv[k] - hv[0]) / PetscAbsReal(hv[0]), s = 0;
        for (int i = 0; i < nh; i++) s = PetscMax(s, PetscAbsReal(H[0][i]));
        for (int i = 0; i < nh; i++) d = PetscMax(d, PetscAbsReal(H[k][i] - H[0][i]) / s);
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-8s %10.2f %10.1f %8.2f %9.1e\n", names[k], 1e9 * tk, hz * tk, t0 / tk, d));
      }
      for (int k = 0; k < nkh; k++) PetscCall(PetscFree(H[k]));
    }
    for (int k = 0; k < nk; k++)
      for (int op = 0; op < 2; op++) PetscCall(PetscFree(y[k][op]));
    PetscCall(PetscFree3(conn, voff, v));
  }
  PetscCall(MeshDestroy(&M));
  PetscCall(PetscFinalize());
  return 0;
}
