// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Least squares against energy on ARAP (energies/arap_tri_lsq.c against energies/arap_tri.c) on an\n"
    "n x n grid of [0, 1]^2 lifted onto z = h sin(3x) cos(2y), 2 n^2 triangles, 1 rank:\n"
    "  products: medians of -reps calls, 1 thread: the fused Gauss-Newton product J^T (J v)\n"
    "    (MfadEnergyComputeHessianProduct on the least-squares term), the same as two passes (J v, then\n"
    "    J^T w: MfadEnergyComputeResidualJacobianProduct, ...TransposeProduct), the residual, and\n"
    "    arap_tri's fused HVP and gradient for scale;\n"
    "  -solve: ARAP parameterisation of the lifted grid (start: its projection on the xy plane, rigid\n"
    "    motions pinned), Newton on arap_tri (projected element Hessians, cached) and Gauss-Newton on\n"
    "    arap_tri_lsq (J^T J, cached), both SNES + CG + Jacobi to |grad| <= -rtol |grad_0|: iterations,\n"
    "    CG iterations, time, final arap_tri energy;\n"
    "  -dump <file>: mesh, parameters, x, v and mfad's J^T J v for bench/peers/jax_lsq_peer.py.\n"
    "Options: -n <200> -z <0.3> (h) -reps <7> -solve -rtol <1e-8> -dump <file>; -newton_* and -gn_*\n"
    "prefix the two solves' SNES/KSP/mfad options. Tighter than 1e-8, Gauss-Newton's line search can\n"
    "fail on round-off in the objective near the minimum (seen at 1e-10, n = 100).\n";

#include <mfadpetsc.h>
#define MFAD_IMPL_ALLOWED 1 /* element parameters by the kernel's rest set-up: the complete kernel (machinery) */
#include <mfad/impl/kernel.h>
#include <stdint.h>
#include <stdio.h>

MFAD_KERNEL_DECLARE(arap_tri);
MFAD_KERNEL_DECLARE(arap_tri_lsq);

/* a deterministic number in [-1, 1) from an integer */
static PetscReal Hash(PetscInt i)
{
  unsigned long long s = 0x9E3779B97F4A7C15ULL * (unsigned long long)(i + 1);
  s ^= s >> 31;
  s *= 0xBF58476D1CE4E5B9ULL;
  s ^= s >> 27;
  return 2.0 * (PetscReal)(s >> 11) / 9007199254740992.0 - 1.0;
}

typedef struct {
  PetscInt   n, nvert, ntri, *conn;
  PetscReal *coords, *rest; /* 3 per vertex; 9 per triangle */
} Grid;

static PetscErrorCode GridCreate(PetscInt n, PetscReal z, Grid *g)
{
  PetscFunctionBeginUser;
  g->n     = n;
  g->nvert = (n + 1) * (n + 1);
  g->ntri  = 2 * n * n;
  PetscCall(PetscMalloc3(3 * g->ntri, &g->conn, 3 * g->nvert, &g->coords, 9 * g->ntri, &g->rest));
  for (PetscInt v = 0; v < g->nvert; v++) {
    const PetscReal x = (PetscReal)(v % (n + 1)) / n, y = (PetscReal)(v / (n + 1)) / n;
    g->coords[3 * v] = x, g->coords[3 * v + 1] = y, g->coords[3 * v + 2] = z * PetscSinReal(3 * x) * PetscCosReal(2 * y);
  }
  for (PetscInt t = 0; t < g->ntri; t++) {
    const PetscInt q = t / 2, i = q % n, j = q / n, v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
    const PetscInt tri[2][3] = {
        {v00, v10, v11},
        {v00, v11, v01}
    };
    for (int a = 0; a < 3; a++) {
      g->conn[3 * t + a] = tri[t % 2][a];
      for (int d = 0; d < 3; d++) g->rest[9 * t + 3 * a + d] = g->coords[3 * tri[t % 2][a] + d];
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GridEnergy(const Grid *g, MfadKernel k, PetscReal w, const char prefix[], MfadEnergy *E)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 2, PETSC_DECIDE, g->nvert, E));
  if (prefix) PetscCall(MfadEnergySetOptionsPrefix(*E, prefix));
  PetscCall(MfadEnergyAddTermFromRest(*E, k, g->ntri, g->conn, g->rest, NULL, w, NULL));
  PetscCall(MfadEnergySetNumThreads(*E, 1)); /* 1 thread, as the peers (-mfad_num_threads overrides) */
  PetscCall(MfadEnergySetFromOptions(*E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef PetscErrorCode (*Op)(void *ctx);
typedef struct {
  MfadEnergy E;
  Vec        X, V, Y, R, W;
} Args;

static PetscErrorCode OpGN(void *c)
{
  Args *a = (Args *)c;
  return MfadEnergyComputeHessianProduct(a->E, a->X, a->V, a->Y);
}
static PetscErrorCode OpTwoPass(void *c)
{
  Args *a = (Args *)c;
  PetscFunctionBeginUser;
  PetscCall(MfadEnergyComputeResidualJacobianProduct(a->E, a->X, a->V, a->W));
  PetscCall(MfadEnergyComputeResidualJacobianTransposeProduct(a->E, a->X, a->W, a->Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}
static PetscErrorCode OpResidual(void *c)
{
  Args *a = (Args *)c;
  return MfadEnergyComputeResidual(a->E, a->X, a->R);
}
static PetscErrorCode OpGradient(void *c)
{
  Args *a = (Args *)c;
  return MfadEnergyComputeGradient(a->E, a->X, a->Y);
}

static int Cmp(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

/* one warm-up call, then the median, min and max of reps calls [s] */
static PetscErrorCode Time(const char *what, PetscInt nelem, Op op, void *ctx, PetscInt reps)
{
  double *t;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc1(reps, &t));
  PetscCall(op(ctx));
  for (PetscInt r = 0; r < reps; r++) {
    PetscLogDouble t0, t1;
    PetscCall(PetscTime(&t0));
    PetscCall(op(ctx));
    PetscCall(PetscTime(&t1));
    t[r] = t1 - t0;
  }
  qsort(t, reps, sizeof(double), Cmp);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "RESULT mfad_%s %" PetscInt_FMT " %.6e %.6e %.6e\n", what, nelem, t[reps / 2], t[0], t[reps - 1]));
  PetscCall(PetscFree(t));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the dump for bench/peers/jax_lsq_peer.py: int64 header {2, nelem, nvert}, int64 connectivity
   (3 per triangle), double parameters (5 per triangle, arap_tri_lsq's rest set-up), x, v and
   mfad's J^T J v (2 per vertex; weight 2: J^T J of the rows sqrt(2) r_e) */
static PetscErrorCode Dump(const char *file, const Grid *g, Vec X, Vec V, Vec Y)
{
  FILE              *fp;
  int64_t            hdr[3] = {2, g->ntri, g->nvert}, *conn;
  double            *p;
  const PetscScalar *a;
  Vec                vs[3] = {X, V, Y};
  size_t             nw    = 0;
  MfadKernel         k     = MFAD_KERNEL(arap_tri_lsq);

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(3 * g->ntri, &conn, 5 * g->ntri, &p));
  for (PetscInt i = 0; i < 3 * g->ntri; i++) conn[i] = g->conn[i];
  for (PetscInt t = 0; t < g->ntri; t++)
    PetscCheck(k->rest(&g->rest[9 * t], NULL, &p[5 * t]) == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "triangle %" PetscInt_FMT ": rest set-up failed", t);
  fp = fopen(file, "wb");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s for writing", file);
  nw += fwrite(hdr, sizeof(int64_t), 3, fp);
  nw += fwrite(conn, sizeof(int64_t), 3 * g->ntri, fp);
  nw += fwrite(p, sizeof(double), 5 * g->ntri, fp);
  for (int i = 0; i < 3; i++) {
    PetscCall(VecGetArrayRead(vs[i], &a));
    nw += fwrite(a, sizeof(double), 2 * g->nvert, fp);
    PetscCall(VecRestoreArrayRead(vs[i], &a));
  }
  PetscCheck(fclose(fp) == 0 && nw == (size_t)(3 + 8 * g->ntri + 6 * g->nvert), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "short write to %s", file);
  PetscCall(PetscFree2(conn, p));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Minimises E (SNES, CG + Jacobi, |grad| <= rtol |grad_0|) from the grid's projection on the xy
   plane with vertex 0 and the y of vertex n pinned (both at y = 0: every minimiser turned about
   vertex 0 satisfies this); prints iterations, CG iterations, time and arap_tri's energy */
static PetscErrorCode Solve(const char *name, const Grid *g, MfadEnergy E, MfadEnergy Earap, PetscReal rtol)
{
  const PetscInt      dofs[3] = {0, 1, 2 * g->n + 1};
  const PetscReal     vals[3] = {0, 0, 0};
  SNES                snes;
  KSP                 ksp;
  PC                  pc;
  Vec                 X;
  PetscInt            its, lits;
  PetscReal           f;
  PetscLogDouble      t0, t1;
  SNESConvergedReason reason;
  const char         *prefix;
  PetscScalar        *x;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergySetFixedDofs(E, 3, dofs, vals));
  PetscCall(MfadEnergySetFixedDofs(Earap, 3, dofs, vals));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt v = 0; v < g->nvert; v++) x[2 * v] = g->coords[3 * v], x[2 * v + 1] = g->coords[3 * v + 1];
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergyGetOptionsPrefix(E, &prefix));
  PetscCall(SNESSetOptionsPrefix(snes, prefix));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetTolerances(snes, 0, rtol, 0, 500, 100000));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(PetscTime(&t0));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(PetscTime(&t1));
  PetscCall(SNESGetIterationNumber(snes, &its));
  PetscCall(SNESGetLinearSolveIterations(snes, &lits));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(MfadEnergyComputeObjective(Earap, X, &f));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "SOLVE %s triangles %" PetscInt_FMT " iterations %" PetscInt_FMT " cg_iterations %" PetscInt_FMT
                        " time %.3f energy %.15e reason %s\n",
                        name, g->ntri, its, lits, (double)(t1 - t0), (double)f, SNESConvergedReasons[reason]));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt    n = 200, reps = 7;
  PetscReal   rtol = 1e-8, z = 0.3;
  PetscBool   solve = PETSC_FALSE, dump = PETSC_FALSE;
  char        dumpfile[PETSC_MAX_PATH_LEN] = "";
  PetscMPIInt size;
  Grid        g;
  MfadEnergy  Elsq, Earap;
  Args        a;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_lsq options", NULL);
  PetscCall(PetscOptionsInt("-n", "grid squares per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-reps", "timed calls per operation", NULL, reps, &reps, NULL));
  PetscCall(PetscOptionsBool("-solve", "Newton against Gauss-Newton", NULL, solve, &solve, NULL));
  PetscCall(PetscOptionsReal("-z", "height of the lifted grid (the larger, the farther from isometric)", NULL, z, &z, NULL));
  PetscCall(PetscOptionsReal("-rtol", "-solve: |grad| <= rtol |grad_0|", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsString("-dump", "file for bench/peers/jax_lsq_peer.py", NULL, dumpfile, dumpfile, sizeof dumpfile, &dump));
  PetscOptionsEnd();
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "bench_lsq runs on one rank");
  PetscCheck(n >= 1 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n and -reps must be >= 1");
  PetscCall(GridCreate(n, z, &g));

  if (solve) {
    MfadEnergy En, Eg;
    /* projected Newton as petsc-examples/arap defaults to; Gauss-Newton's J^T J needs no projection */
    PetscCall(PetscOptionsSetValue(NULL, "-newton_mfad_hessian", "cached"));
    PetscCall(PetscOptionsSetValue(NULL, "-newton_mfad_psd_project", "clamp"));
    PetscCall(PetscOptionsSetValue(NULL, "-gn_mfad_hessian", "cached"));
    PetscCall(GridEnergy(&g, MFAD_KERNEL(arap_tri), 1.0, NULL, &Earap));
    PetscCall(GridEnergy(&g, MFAD_KERNEL(arap_tri), 1.0, "newton_", &En));
    PetscCall(GridEnergy(&g, MFAD_KERNEL(arap_tri_lsq), 2.0, "gn_", &Eg)); /* w/2 |r|^2 = arap_tri */
    PetscCall(Solve("newton", &g, En, Earap, rtol));
    PetscCall(Solve("gauss_newton", &g, Eg, Earap, rtol));
    PetscCall(MfadEnergyDestroy(&En));
    PetscCall(MfadEnergyDestroy(&Eg));
    PetscCall(MfadEnergyDestroy(&Earap));
  } else {
    PetscInt     lo, hi;
    PetscScalar *x, *v;
    PetscCall(GridEnergy(&g, MFAD_KERNEL(arap_tri_lsq), 2.0, NULL, &Elsq));
    PetscCall(GridEnergy(&g, MFAD_KERNEL(arap_tri), 1.0, NULL, &Earap));
    a.E = Elsq;
    PetscCall(MfadEnergyCreateVecs(Elsq, &a.X, &a.Y));
    PetscCall(VecDuplicate(a.X, &a.V));
    PetscCall(MfadEnergyCreateResidualVec(Elsq, &a.R));
    PetscCall(VecDuplicate(a.R, &a.W));
    /* a map far from rigid (stretched by 1.2 along x, perturbed by 0.02): every r_e != 0 */
    PetscCall(VecGetOwnershipRange(a.X, &lo, &hi));
    PetscCall(VecGetArray(a.X, &x));
    PetscCall(VecGetArray(a.V, &v));
    for (PetscInt i = lo; i < hi; i++) {
      x[i - lo] = (i % 2 ? g.coords[3 * (i / 2) + 1] : 1.2 * g.coords[3 * (i / 2)]) + 0.02 * Hash(i);
      v[i - lo] = Hash(i + 7919);
    }
    PetscCall(VecRestoreArray(a.X, &x));
    PetscCall(VecRestoreArray(a.V, &v));
    PetscCall(Time("gn_fused", g.ntri, OpGN, &a, reps));
    if (dump) PetscCall(Dump(dumpfile, &g, a.X, a.V, a.Y));
    PetscCall(Time("gn_two_pass", g.ntri, OpTwoPass, &a, reps));
    PetscCall(Time("residual", g.ntri, OpResidual, &a, reps));
    a.E = Earap;
    PetscCall(Time("arap_tri_hvp", g.ntri, OpGN, &a, reps));
    PetscCall(Time("arap_tri_gradient", g.ntri, OpGradient, &a, reps));
    PetscCall(VecDestroy(&a.X));
    PetscCall(VecDestroy(&a.V));
    PetscCall(VecDestroy(&a.Y));
    PetscCall(VecDestroy(&a.R));
    PetscCall(VecDestroy(&a.W));
    PetscCall(MfadEnergyDestroy(&Elsq));
    PetscCall(MfadEnergyDestroy(&Earap));
  }
  PetscCall(PetscFree3(g.conn, g.coords, g.rest));
  PetscCall(PetscFinalize());
  return 0;
}
