// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Parameterisation of a disk-topology surface: a Tutte embedding (boundary on a circle, interior\n"
    "vertices at the average of their neighbours, one linear solve with KSP) refined by Newton on the\n"
    "symmetric Dirichlet energy with a free boundary (Smith & Schaefer 2015). Flipped triangles have\n"
    "energy +inf, so the line search backs off before any triangle flips. The surface is an n x n grid\n"
    "over [-1, 1]^2 lifted onto z = f(x, y), or a surface read from a file. Options:\n"
    "  -mesh <file>            a disk-topology triangle surface (.obj or .off), e.g.\n"
    "                          petsc-examples/meshes/cap.obj; default: the generated grid\n"
    "  -n <16>                 grid squares per side (2 n^2 triangles)\n"
    "  -surface <cap>          plane | cap (sphere of radius 2) | hat (Gaussian bump)\n"
    "  -barrier <0>            weight of an added flip_barrier_tri term (-A log det J)\n"
    "  -mfad_decrement_rtol <1e-4>  the stop: converged after a Newton step whose predicted decrease\n"
    "                          of E (g . H^-1 g / 2, the Newton decrement's) is at most rtol |E|, the\n"
    "                          same on every mesh and at every scale (the library's test,\n"
    "                          MfadEnergySetDecrementTolerance(); 0: off): E within 2e-9 to 2.7e-3\n"
    "                          (relative) of its minimum on six meshes, below TinyAD's stop on its\n"
    "                          bunny and armadillo, instead of grinding 7-10 orders past a map\n"
    "  -gatol <1e-8>           converged when |grad E| <= gatol sqrt(area): E scales with the area and\n"
    "                          the map with its square root, so the test means the same on every mesh\n"
    "                          and at every scale (sets -snes_atol, or -tao_gatol, unless given; the\n"
    "                          relative and step tests are off by default: -snes_rtol 0 -snes_stol 0,\n"
    "                          -tao_grtol 0 -tao_gttol 0). Always on; given, it is the only stop (the\n"
    "                          decrement's is off unless -mfad_decrement_rtol is given too), and runs\n"
    "                          so converged agree in energy to 1e-10 relative (measured: 1e-13 and\n"
    "                          better on 1k-50k-vertex scans)\n"
    "  -use_tao                minimise with TAO (default -tao_type nls, its More-Thuente line search\n"
    "                          started short of the first flip by the library, -mfad_step_bound)\n"
    "  -o <file.vtu>           write the parameterisation (z = 0) with the gradient norm\n"
    "The Tutte start is the library's (MfadEnergyComputeTutteStart: -mfad_tutte_ksp_*, -mfad_tutte_pc_*).\n"
    "The Newton solve is the library's default (MfadEnergySetSolverDefaults): with no -mfad_hessian,\n"
    "-ksp_type or -pc_type given, the assembled Hessian, projected per element (symmetric Dirichlet is\n"
    "not convex), factored by a sparse Cholesky with inertia (the library's choice: MUMPS, else PETSc's\n"
    "own, on several ranks by every rank), exact Newton steps where the exact Hessian is positive definite\n"
    "(-mfad_psd_switch auto: quadratic convergence at the end; never: projected throughout); TAO nls\n"
    "the same. With -mfad_hessian given: the exact Hessian (unless -mfad_psd_project), CG + Jacobi\n"
    "unless -ksp_type. -snes_max_it 10000, -tao_max_it 10000. Every SNES/KSP/PC/TAO and mfad option\n"
    "applies. SNES's line search (-snes_linesearch_type shell: backtracking on E, a step within E's\n"
    "round-off taken if it lowers |grad E|) starts at 0.9 of the step where the first triangle would\n"
    "flip (the library's -mfad_step_bound).\n"
    "Rigid motions are pinned: the first vertex (translation) and the y of the vertex farthest from it,\n"
    "after turning the start so that the two lie on a line of constant y (rotation).\n"
    "The last line is a summary: vertices, triangles, area (of the surface), energy (symmetric\n"
    "Dirichlet), energy_per_area (4 for an isometry, larger with distortion), max_sigma_ratio (the\n"
    "largest s1/s2 of a triangle's map, 1 for a conformal one), flipped (triangles with det J <= 0),\n"
    "residual (|grad E| / sqrt(area) at the end, what -gatol bounds), iterations, exact_steps (those\n"
    "with the exact Hessian) and the converged reason. A solve that did not converge (reason < 0)\n"
    "prints the reason on stderr and exits with status 1.\n\n";

#include <mfadpetsc.h>
#include <string.h>
#include "geommesh.h"

/* PETSc 3.21 renamed SNESLineSearchShellSetUserFunc() (same arguments) */
#if PETSC_VERSION_LT(3, 21, 0)
#define SNESLineSearchShellSetApply SNESLineSearchShellSetUserFunc
#endif

/* param's stop (-mfad_decrement_rtol): E to 1e-4 relative. TinyAD's parameterisation stops at a
   decrement of 1e-2 absolute (2e-4 of E on its meshes); at 1e-5 projected Newton goes on through its
   linear phase (steps of 2e-5 relative decrease on bunny_cut) to the exact steps' end: 44 steps
   instead of 19 (bench/README.md, "param's stop") */
#define PARAM_DECREMENT_RTOL 1e-4

MFAD_KERNEL_DECLARE(symmetric_dirichlet);
MFAD_KERNEL_DECLARE(flip_barrier_tri);

/* Per-triangle measures of the map U of cells [cstart, cend), summed over the ranks: rest area,
   parameter-space signed area, max s1/s2 (+inf if flipped), flipped count */
static PetscErrorCode Measure(MPI_Comm comm, MfadMesh m, PetscInt cstart, PetscInt cend, Vec U, PetscReal *area, PetscReal *uarea, PetscReal *ratio,
                              PetscInt *flipped)
{
  Vec                Uall;
  const PetscScalar *u;
  PetscReal          loc[2] = {0, 0}, rmax = 1;
  PetscInt           nf = 0;

  PetscFunctionBegin;
  PetscCall(GeomGetAll(U, &Uall, &u));
  for (PetscInt c = cstart; c < cend; c++) {
    PetscReal r[9], x[6], J[4], A, s1, s2;
    for (int a = 0; a < 3; a++) {
      const PetscInt v = m->cells[3 * c + a];
      for (int d = 0; d < 3; d++) r[3 * a + d] = m->coords[3 * v + d];
      for (int d = 0; d < 2; d++) x[2 * a + d] = PetscRealPart(u[2 * v + d]);
    }
    A = GeomTriangleMap(r, x, J);
    GeomSingularValues(J, &s1, &s2);
    loc[0] += A;
    loc[1] += A * (J[0] * J[3] - J[1] * J[2]);
    if (!(s2 > 0)) nf++;
    else rmax = PetscMax(rmax, s1 / s2);
  }
  PetscCall(GeomRestoreAll(&Uall, &u));
  PetscCall(MPIU_Allreduce(loc, area, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(&loc[1], uarea, 1, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(&rmax, ratio, 1, MPIU_REAL, MPIU_MAX, comm));
  PetscCall(MPIU_Allreduce(&nf, flipped, 1, MPIU_INT, MPIU_SUM, comm));
  if (*flipped) *ratio = PETSC_INFINITY;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* SNES's line search: backtracking on the energy (Armijo, halving) from the step the library's
   pre-checks leave (cut short of the first flip: -mfad_step_bound), with a round-off allowance. Near the minimum an exact Newton step lowers E by
   less than E's own round-off (seen at |g| = 1.2e-7 sqrt(area) on a 30k-vertex scan, E = 2.2e6), where a test on E alone (PETSc's bt) fails; a step
   that raises E by no more than round-off (1e3 eps |E|) and lowers |g| is then taken (Hager & Zhang's approximate Wolfe condition). */
static PetscErrorCode EnergyLineSearch(SNESLineSearch ls, void *ctx)
{
  SNES        snes;
  Vec         X, F, Y, W, G;
  PetscReal   f0, f, slope, lambda = 1, fnorm, gnorm = 0, xnorm, ynorm;
  PetscBool   changed, have_g = PETSC_FALSE, ok = PETSC_FALSE;
  PetscScalar dot;

  PetscFunctionBegin;
  (void)ctx;
  PetscCall(SNESLineSearchGetSNES(ls, &snes));
  PetscCall(SNESLineSearchGetVecs(ls, &X, &F, &Y, &W, &G));
  PetscCall(SNESLineSearchGetNorms(ls, NULL, &fnorm, NULL));
  PetscCall(SNESLineSearchPreCheck(ls, X, Y, &changed));
  PetscCall(SNESComputeObjective(snes, X, &f0));
  PetscCall(VecDot(F, Y, &dot));
  slope = -PetscRealPart(dot); /* dE/dlambda of E(X - lambda Y) at 0 */
  if (!(slope < 0)) {
    PetscCall(PetscInfo(ls, "param: not a descent direction (slope %g)\n", (double)slope));
    PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_FAILED_REDUCT));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (int it = 0; it < 50 && !ok; it++, lambda *= 0.5) {
    PetscCall(VecWAXPY(W, -lambda, Y, X));
    PetscCall(SNESComputeObjective(snes, W, &f)); /* an invalid element: a huge value, never taken */
    if (f <= f0 + 1e-4 * lambda * slope) ok = PETSC_TRUE;
    else if (f <= f0 + 1e3 * PETSC_MACHINE_EPSILON * PetscAbsReal(f0)) {
      PetscCall(SNESComputeFunction(snes, W, G));
      PetscCall(VecNorm(G, NORM_2, &gnorm));
      have_g = ok = (PetscBool)(gnorm < fnorm);
    }
    if (ok) break;
  }
  if (!ok) {
    PetscCall(PetscInfo(ls, "param: no step lowers E (or, within round-off, |g|)\n"));
    PetscCall(SNESLineSearchSetReason(ls, SNES_LINESEARCH_FAILED_REDUCT));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(VecCopy(W, X));
  if (have_g) PetscCall(VecCopy(G, F));
  else {
    PetscCall(SNESComputeFunction(snes, X, F));
    PetscCall(VecNorm(F, NORM_2, &gnorm));
  }
  PetscCall(VecNorm(X, NORM_2, &xnorm));
  PetscCall(VecNorm(Y, NORM_2, &ynorm));
  PetscCall(SNESLineSearchSetLambda(ls, lambda));
  PetscCall(SNESLineSearchSetNorms(ls, xnorm, gnorm, lambda * ynorm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Minimises E from X in place with SNES (newtonls) or TAO (nls), the example's defaults set in code before SetFromOptions() so that every
   option given overrides them. Converged at the Newton decrement's test (-mfad_decrement_rtol, set in main()) or at |grad E| <= atol =
   gatol sqrt(area), PETSc's relative and step tests off: a test relative to the Tutte
   start's gradient, which varies by orders of magnitude between meshes, does not say how close E is. Parts that Tutte's map squeezes take
   hundreds to thousands of steps of steady descent (tests/meshes/sock.obj, a closed end squeezed e^-16-fold: 372 steps; Homer of 6,001
   vertices cut open at one vertex: 1,612), hence 10000 steps, not 200. The solver itself is the library's default
   (MfadEnergySetSolverDefaults(): the assembled Hessian, projected, factored by a Cholesky with inertia; CG + Jacobi on the projected Hessian
   stalls on real meshes: 10,000 iterations at the first step of a 10k-vertex scan), and its line search starts short of the first flip
   (-mfad_step_bound: symmetric_dirichlet declares its wall). */
static PetscErrorCode Minimize(MPI_Comm comm, MfadEnergy E, Vec X, PetscBool use_tao, PetscReal atol, PetscInt *its, PetscInt *nexact,
                               PetscInt *reason, const char **reason_name)
{
  PetscFunctionBegin;
  if (use_tao) {
    Tao                tao;
    TaoConvergedReason r;
    PetscCall(TaoCreate(comm, &tao));
    PetscCall(TaoSetType(tao, TAONLS)); /* its own line search, started short of the first flip by the library */
    PetscCall(MfadEnergySetTao(E, tao));
    PetscCall(TaoSetTolerances(tao, atol, 0, 0));
    PetscCall(TaoSetMaximumIterations(tao, 10000));
    PetscCall(TaoSetSolution(tao, X));
    PetscCall(TaoSetFromOptions(tao));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetIterationNumber(tao, its));
    PetscCall(TaoGetConvergedReason(tao, &r));
    *reason      = r;
    *reason_name = TaoConvergedReasons[r];
    PetscCall(TaoDestroy(&tao));
  } else {
    SNES                snes;
    SNESConvergedReason r;
    SNESLineSearch      ls;
    KSP                 ksp;
    KSPType             type;
    PetscCall(SNESCreate(comm, &snes));
    PetscCall(MfadEnergySetSNES(E, snes));
    PetscCall(SNESSetTolerances(snes, atol, 0, 0, 10000, PETSC_DEFAULT));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPGetType(ksp, &type));
    if (!type) PetscCall(KSPSetType(ksp, KSPCG)); /* a Hessian form given (-mfad_hessian): CG, Jacobi (mfad's) */
    PetscCall(SNESGetLineSearch(snes, &ls));
    PetscCall(SNESLineSearchSetType(ls, SNESLINESEARCHSHELL)); /* -snes_linesearch_type overrides it */
    PetscCall(SNESLineSearchShellSetApply(ls, EnergyLineSearch, NULL));
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(SNESSolve(snes, NULL, X));
    PetscCall(SNESGetIterationNumber(snes, its));
    PetscCall(SNESGetConvergedReason(snes, &r));
    *reason      = r;
    *reason_name = SNESConvergedReasons[r];
    PetscCall(SNESDestroy(&snes));
  }
  PetscCall(MfadEnergyGetPSDSwitchCounts(E, nexact, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MfadMesh    m;
  MfadEnergy  E;
  Vec         U, G;
  PetscInt    n = 16, cstart = 0, cend = 0, vstart = 0, vend = 0, its = 0, nexact = 0, reason = 0, flipped, term, flipped0;
  PetscReal   barrier = 0, gatol = 1e-8, atol, area, uarea, ratio, energy, gnorm, ratio0;
  GeomSurface surface      = GEOM_CAP;
  PetscBool   use_tao = PETSC_FALSE, write = PETSC_FALSE, file, gatol_set;
  char        out[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char *reason_name = "";

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Parameterisation options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a disk-topology triangle surface (.obj, .off)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsInt("-n", "grid squares per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-surface", "surface the grid is lifted to", NULL, GeomSurfaces, (PetscEnum)surface, (PetscEnum *)&surface, NULL));
  PetscCall(PetscOptionsReal("-barrier", "weight of an added flip barrier term", NULL, barrier, &barrier, NULL));
  PetscCall(PetscOptionsReal("-gatol", "converged when |grad E| <= gatol sqrt(area)", NULL, gatol, &gatol, &gatol_set));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the parameterisation (.vtu)", NULL, out, out, sizeof out, &write));
  PetscOptionsEnd();
  PetscCheck(gatol >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-gatol %g must be >= 0", (double)gatol);
  PetscCheck(barrier >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-barrier %g must be >= 0", (double)barrier);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  if (file) {                          /* every rank reads the (small) file; the triangles are then split as for the grid */
    PetscCall(MfadMeshRead(path, &m)); /* .obj, .off, .msh, .mesh, ... by extension */
    PetscCheck(m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG,
               "param: %s: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", path, m->ncorner, m->dim);
    PetscCall(MfadMeshCheckManifold(m, path));
  } else PetscCall(GeomMeshGrid(n, n, -1, -1, 2, 2, surface, &m));
  area = 0; /* every rank holds the whole mesh */
  for (PetscInt c = 0; c < m->ncell; c++) {
    PetscReal e[2][3], n[3];
    for (int a = 0; a < 2; a++)
      for (int d = 0; d < 3; d++) e[a][d] = m->coords[3 * m->cells[3 * c + a + 1] + d] - m->coords[3 * m->cells[3 * c] + d];
    n[0] = e[0][1] * e[1][2] - e[0][2] * e[1][1], n[1] = e[0][2] * e[1][0] - e[0][0] * e[1][2], n[2] = e[0][0] * e[1][1] - e[0][1] * e[1][0];
    area += 0.5 * PetscSqrtReal(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  }
  atol = gatol * PetscSqrtReal(area);
  PetscCall(MfadEnergyCreateFromMesh(comm, m, 2, &E));
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend));
  PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(symmetric_dirichlet), NULL, 1.0, &term));
  if (barrier > 0) PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(flip_barrier_tri), NULL, barrier, NULL));
  /* the stop: the Newton decrement's (set before SetFromOptions(): -mfad_decrement_rtol overrides
     it), or the gradient's alone where -gatol is given */
  if (!gatol_set) PetscCall(MfadEnergySetDecrementTolerance(E, PARAM_DECREMENT_RTOL));
  PetscCall(MfadEnergySetFromOptions(E));

  /* Tutte, scaled to the surface's area, rigid motions pinned (geommesh.h) */
  PetscCall(MfadEnergyCreateVecs(E, &U, &G));
  PetscCall(MfadEnergyComputeTutteStart(E, m, U));
  PetscCall(Measure(comm, m, cstart, cend, U, &area, &uarea, &ratio0, &flipped0));
  PetscCheck(flipped0 == 0, comm, PETSC_ERR_PLIB, "param: the Tutte embedding has %" PetscInt_FMT " flipped triangles", flipped0);
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  PetscCall(Minimize(comm, E, U, use_tao, atol, &its, &nexact, &reason, &reason_name));

  PetscCall(MfadEnergyComputeObjective(E, U, &energy));
  PetscCall(MfadEnergyComputeGradient(E, U, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm));
  PetscCall(Measure(comm, m, cstart, cend, U, &area, &uarea, &ratio, &flipped));
  if (barrier > 0) { /* report symmetric Dirichlet alone: the barrier's share is not distortion */
    PetscReal  eb;
    MfadEnergy Es;
    PetscCall(MfadEnergyCreateFromMesh(comm, m, 2, &Es));
    PetscCall(MfadEnergyAddTermFromMesh(Es, m, MFAD_KERNEL(symmetric_dirichlet), NULL, 1.0, NULL));
    PetscCall(MfadEnergyComputeObjective(Es, U, &eb));
    energy = eb;
    PetscCall(MfadEnergyDestroy(&Es));
  }
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, U, NULL, out));
  PetscCall(PetscPrintf(comm,
                        "param: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT
                        " area %.12e energy %.12e energy_per_area %.12e max_sigma_ratio %.6e"
                        " tutte_sigma_ratio %.6e flipped %" PetscInt_FMT " residual %.3e iterations %" PetscInt_FMT " exact_steps %" PetscInt_FMT
                        " reason %" PetscInt_FMT " %s\n",
                        m->nvert, m->ncell, (double)area, (double)energy, (double)(energy / area), (double)ratio, (double)ratio0, flipped,
                        (double)(gnorm / PetscSqrtReal(area)), its, nexact, reason, reason_name));

  PetscCall(VecDestroy(&U));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  if (reason <= 0)
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "param: %s did not converge: %s (reason %" PetscInt_FMT ")\n", use_tao ? "TAO" : "SNES", reason_name,
                           reason));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
