// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "A hyperelastic cantilever sagging under its own weight, solved with mfad's exact\n"
    "gradients and Hessian-vector products by SNES (default) or TAO: statics, or implicit-Euler\n"
    "dynamics (-ts_steps) where each step minimises the incremental potential\n"
    "  1/(2 dt^2) |x - x_pred|_M^2 + W(x),   x_pred = x_n + dt v_n,   v_{n+1} = (x_{n+1} - x_n) / dt.\n"
    "The bar is an n x n x m box of cubes of edge h (m along the bar, the x axis), each cube\n"
    "split into 6 tetrahedra (the library's MfadMeshCreateBox()); a hyperelastic material,\n"
    "gravity along z with lumped masses, the face x = 0 clamped. Options:\n"
    "  -n <4>         cubes across the bar (y and z)\n"
    "  -m <16>        cubes along the bar (x)\n"
    "  -h <0.005>     cube edge [m]\n"
    "  -E <1e5>       Young's modulus [Pa]\n"
    "  -nu <0.3>      Poisson's ratio\n"
    "  -rho <1000>    density [kg/m^3]\n"
    "  -g <-9.81>     gravity along z [m/s^2]\n"
    "  -material <neohookean>  neohookean | stable_neohookean | stvk | corotated\n"
    "  -ts_steps <0>  implicit-Euler time steps from rest (0: statics)\n"
    "  -dt <0.01>     time step [s]\n"
    "  -clamp <true>  clamp the face x = 0 (false: a free body, dynamics only)\n"
    "  -mesh <file>   a tet mesh (TetGen .node/.ele, Gmsh .msh, ...; DMPlex-distributed) instead of\n"
    "                 the bar (-n -m -h are then errors): the vertices within -clamp_band of the smallest\n"
    "                 x are clamped, the tip is the vertices within -clamp_band of the largest x\n"
    "  -clamp_band <0.05>  with -mesh: thickness of the clamped (and tip) band, a fraction of the\n"
    "                 mesh's extent along -clamp_axis (a curved mesh has one vertex of smallest x);\n"
    "                 statics needs at least 3 clamped vertices not on one line, else an error\n"
    "  -clamp_axis <x>  with -mesh: x | y | z, the clamp at its smallest values, the tip at its largest\n"
    "  -mesh_scale <1>  with -mesh: metres per unit of the file's coordinates (0.001 for millimetres);\n"
    "                 material and load are physical: a 120 m gel body cannot hold its weight\n"
    "  Statics (the bar or -mesh): under a large load (a real mesh clamped on a small patch swings\n"
    "                 through a large rotation; the bar at -g -2000 folds) the exact Hessian is\n"
    "                 indefinite on the way, so unless -mfad_hessian, -ksp_type or\n"
    "                 -pc_type is given the defaults are -mfad_hessian aij -mfad_psd_project abs\n"
    "                 -ksp_type preonly -pc_type cholesky (MUMPS LDL^T; without MUMPS PETSc's own, on several\n"
    "                 ranks by every rank: -pc_type redundant -redundant_pc_type cholesky) -snes_max_it 200 -snes_rtol 1e-7,\n"
    "                 with -use_tao the same for TAO NLS (-tao_nls_ksp_type, -tao_nls_pc_type ...,\n"
    "                 -tao_max_it 200 -tao_gttol 1e-7),\n"
    "                 and each Newton step is exact where the factor's inertia says the exact Hessian is\n"
    "                 positive definite (projected elsewhere: descent far from the minimiser, quadratic\n"
    "                 convergence near it)\n"
    "  -use_tao       minimise with TAO (default -tao_type nls) instead of solving with SNES\n"
    "                 (SNES: newtonls; the linear solver of statics above, of dynamics -ksp_type cg -pc_type jacobi)\n"
    "  -o <file.vtu>  write the deformed mesh, its displacement and gradient norm (VTK XML; -mfad_vtu_binary for base64)\n"
    "Unless -mfad_hessian, -mfad_pmat, -pc_type or -snes_fd_color is given (and outside the\n"
    "statics defaults), the Hessian is -mfad_hessian auto: per Newton step the fused, cached or\n"
    "assembled form, whichever its measured costs predict cheapest (-info :mat says which).\n"
    "mfad's options (-mfad_backend, -mfad_view, ...) and every SNES/KSP/PC/TAO option apply.\n"
    "The last line printed is a summary: vertices, elements, energy (total potential: strain\n"
    "energy plus gravity's -f . x), elastic (strain energy), work (of gravity, f . u),\n"
    "tip_displacement (mean z displacement of the free end face, the vertices of largest x), residual (|grad E| at the\n"
    "solution / at the rest shape, i.e. relative to the load; the largest over time steps), statics also gradient\n"
    "(|grad E| at the solution, in N), with the statics defaults exact_steps (Newton steps on the exact Hessian),\n"
    "iterations (the most of any time step) and the converged reason (> 0: converged; the smallest of any time step); with\n"
    "-ts_steps also steps, time, kinetic (1/2 v^T M v), com_displacement and com_velocity (z of\n"
    "the centre of mass). Each time step prints a line 'elastic: step ...' with the same fields.\n"
    "The exit status is 1, the reason on standard error, when a solve did not converge or its gradient did\n"
    "not fall at least to the square root of the solver's relative tolerance (-snes_rtol; -tao_gttol, -tao_grtol)\n"
    "or to its absolute one, whatever reason the solver gave (a step test relative to |x| can stop a solve\n"
    "that moved nothing).\n\n";

#include "stepper.h"
#include "elasticmesh.h"
#include <petsctime.h>
#include <stdio.h>
#include <string.h>

/* The bar: n x n x m cubes of edge h, m along x, the cross-section centred on the x axis. */
typedef struct {
  PetscInt  n, m;
  PetscReal h;
} Grid;

/* The bar as a mesh: the library's box (MfadMeshCreateBox(), 6 tets per cube) built along its z
   axis, whose vertex numbering runs slowest, so that the contiguous vertex ranges of the ranks are
   slabs of the bar; its coordinates then turned (X, Y, Z) -> (Z, X, Y), a rotation, onto the x axis. */
static PetscErrorCode BarMeshCreate(const Grid *g, MfadMesh *mesh)
{
  const PetscReal w = 0.5 * g->n * g->h, lo[3] = {-w, -w, 0}, hi[3] = {w, w, g->m * g->h};

  PetscFunctionBeginUser;
  PetscCall(MfadMeshCreateBox(g->n, g->n, g->m, lo, hi, mesh));
  for (PetscInt v = 0; v < (*mesh)->nvert; v++) {
    PetscReal *x = &(*mesh)->coords[3 * v], t = x[2];
    x[2] = x[1];
    x[1] = x[0];
    x[0] = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The bar's energy (the material `kname` with Lame constants `material` on its tets, through the
   library's whole-mesh calls) and, per owned vertex, what MeshEnergyCreate() gives for a read
   mesh: rest position, lumped mass (rho V / 4 of every tet to each of its vertices), clamp (face
   x = 0) and tip (face x = L) flags. Free rest, mass, clamp, tip with PetscFree4(). */
static PetscErrorCode BarEnergyCreate(MPI_Comm comm, const Grid *g, const char kname[], const PetscReal material[], PetscReal rho, MfadEnergy *E,
                                      PetscInt *N, PetscInt *n, PetscInt *vstart, PetscInt *ncell, PetscReal **rest, PetscReal **mass,
                                      PetscBool **clamp, PetscBool **tip)
{
  MfadMesh   mesh;
  MfadKernel solid;
  PetscInt   dof;
  PetscReal  L = g->m * g->h;

  PetscFunctionBeginUser;
  PetscCall(BarMeshCreate(g, &mesh));
  PetscCall(MfadKernelFind(kname, &solid));
  PetscCall(MfadEnergyCreateFromMesh(comm, mesh, 3, E));
  PetscCall(MfadEnergyAddTermFromMesh(*E, mesh, solid, material, 1.0, NULL));
  PetscCall(MfadEnergyGetSizes(*E, &dof, n, N));
  *ncell = mesh->ncell;
  PetscCallMPI(MPI_Scan(n, vstart, 1, MPIU_INT, MPI_SUM, comm));
  *vstart -= *n;
  PetscCall(PetscMalloc4(3 * *n, rest, *n, mass, *n, clamp, *n, tip));
  PetscCall(PetscArrayzero(*mass, *n));
  for (PetscInt c = 0; c < mesh->ncell; c++) { /* every rank sees every tet: no communication */
    const PetscInt *t = &mesh->cells[4 * c];
    PetscReal       d[3][3], vol;
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) d[a][b] = mesh->coords[3 * t[a + 1] + b] - mesh->coords[3 * t[0] + b];
    vol = PetscAbsReal(d[0][0] * (d[1][1] * d[2][2] - d[1][2] * d[2][1]) - d[0][1] * (d[1][0] * d[2][2] - d[1][2] * d[2][0]) +
                       d[0][2] * (d[1][0] * d[2][1] - d[1][1] * d[2][0])) /
          6;
    for (int a = 0; a < 4; a++)
      if (t[a] >= *vstart && t[a] < *vstart + *n) (*mass)[t[a] - *vstart] += rho * vol / 4;
  }
  for (PetscInt l = 0; l < *n; l++) {
    for (int d = 0; d < 3; d++) (*rest)[3 * l + d] = mesh->coords[3 * (*vstart + l) + d];
    (*clamp)[l] = (*rest)[3 * l] <= 1e-9 * L ? PETSC_TRUE : PETSC_FALSE; /* the box's end faces are exact up to round-off */
    (*tip)[l]   = (*rest)[3 * l] >= (1 - 1e-9) * L ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(MfadMeshDestroy(&mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The problem's constants, from the options. */
typedef struct {
  PetscReal young, nu, rho, grav, dt;
  PetscInt  material, steps;
  PetscBool clamp, use_tao;
} Problem;

/* -material: each name is the kernel <name>_tet, all with the Lame constants (mu, lambda) */
static const char *const Materials[] = {"neohookean", "stable_neohookean", "stvk", "corotated"};

/* Adds the loads on this rank's n owned vertices (from vstart; rest positions Xr, masses mass):
   gravity, for dynamics the inertia term (its index in *inertia, parameters m / dt^2 and x_pred
   set per step), and the clamp of the vertices flagged in clamp[] (with -clamp). force[] receives
   each owned vertex's gravity force. */
static PetscErrorCode AddLoads(MfadEnergy E, PetscInt vstart, PetscInt n, const PetscReal Xr[], const PetscReal mass[], const PetscBool clamp[],
                               const Problem *P, PetscReal force[], PetscInt *inertia)
{
  MfadKernel gravity;
  PetscInt   nfix = 0, *gconn, *fixed;
  PetscReal *gparam, *fixval;

  PetscFunctionBeginUser;
  PetscCall(MfadKernelFind("gravity", &gravity));
  /* gravity: E = -f . x per owned vertex, f = m_v (0, 0, g); inertia: 1/2 m_v / dt^2 |x - x_pred|^2,
     x_pred the rest position until the first step sets it */
  PetscCall(PetscMalloc2(n, &gconn, 4 * n, &gparam));
  for (PetscInt l = 0; l < n; l++) {
    gconn[l]          = vstart + l;
    gparam[3 * l]     = 0;
    gparam[3 * l + 1] = 0;
    gparam[3 * l + 2] = mass[l] * P->grav;
    for (int d = 0; d < 3; d++) force[3 * l + d] = gparam[3 * l + d];
  }
  PetscCall(MfadEnergyAddTerm(E, gravity, n, gconn, gparam, 1.0, NULL));
  *inertia = -1;
  if (P->steps > 0) {
    MfadKernel kin;
    PetscCall(MfadKernelFind("inertia", &kin));
    for (PetscInt l = 0; l < n; l++) {
      gparam[4 * l] = mass[l] / (P->dt * P->dt);
      for (int d = 0; d < 3; d++) gparam[4 * l + 1 + d] = Xr[3 * l + d];
    }
    PetscCall(MfadEnergyAddTerm(E, kin, n, gconn, gparam, 1.0, inertia));
  }
  PetscCall(PetscFree2(gconn, gparam));

  /* clamp: all dofs of the flagged owned vertices at their rest positions */
  for (PetscInt l = 0; P->clamp && l < n; l++) nfix += clamp[l] ? 3 : 0;
  PetscCall(PetscMalloc2(nfix, &fixed, nfix, &fixval));
  nfix = 0;
  for (PetscInt l = 0; P->clamp && l < n; l++)
    for (int d = 0; clamp[l] && d < 3; d++) {
      fixed[nfix]  = 3 * (vstart + l) + d;
      fixval[nfix] = Xr[3 * l + d];
      nfix++;
    }
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fixed, fixval));
  PetscCall(PetscFree2(fixed, fixval));
  PetscFunctionReturn(0);
}

/* What the summary reports, summed over ranks: [0] f . x, [1] f . u, [2] z displacement summed
   over the free end face, [3] its vertex count, [4] sum m u_z, [5] sum m v_z, [6] 1/2 v^T M v,
   [7] sum m, [8] the inertia term's value (dynamics), from x, v and x_pred (owned vertices). */
#define NMEASURE 9
static PetscErrorCode Measure(MPI_Comm comm, PetscInt n, const PetscReal rest[], const PetscBool tip[], const PetscScalar x[], const PetscReal vel[],
                              const PetscReal xpred[], const PetscReal force[], const PetscReal mass[], PetscReal dt, PetscReal sum[NMEASURE])
{
  PetscReal local[NMEASURE] = {0};

  PetscFunctionBeginUser;
  for (PetscInt l = 0; l < n; l++) {
    const PetscReal *Xr = &rest[3 * l];
    for (int d = 0; d < 3; d++) {
      const PetscReal xd = PetscRealPart(x[3 * l + d]);
      local[0] += force[3 * l + d] * xd;
      local[1] += force[3 * l + d] * (xd - Xr[d]);
      if (vel) local[6] += 0.5 * mass[l] * vel[3 * l + d] * vel[3 * l + d];
      if (xpred) local[8] += 0.5 * mass[l] / (dt * dt) * (xd - xpred[3 * l + d]) * (xd - xpred[3 * l + d]);
    }
    if (tip[l]) {
      local[2] += PetscRealPart(x[3 * l + 2]) - Xr[2];
      local[3] += 1;
    }
    local[4] += mass[l] * (PetscRealPart(x[3 * l + 2]) - Xr[2]);
    if (vel) local[5] += mass[l] * vel[3 * l + 2];
    local[7] += mass[l];
  }
  PetscCall(MPIU_Allreduce(local, sum, NMEASURE, MPIU_REAL, MPIU_SUM, comm));
  PetscFunctionReturn(0);
}

/* Statics needs the clamp to hold the body: at least 3 clamped vertices not on one line (fewer
   leave a rigid rotation free and the Hessian singular). Their positions' covariance C has rank
   >= 2 exactly then; its second invariant (sum of the 2 x 2 principal minors) is the sum of the
   products of eigenvalue pairs, > 0 iff two eigenvalues are, tested relative to tr(C)^2. */
static PetscErrorCode CheckClamp(MPI_Comm comm, PetscInt n, const PetscReal rest[], const PetscBool clamp[], const char path[])
{
  PetscReal s[10] = {0}, S[10], mean[3], C[3][3], tr, m2;

  PetscFunctionBeginUser;
  for (PetscInt v = 0; v < n; v++) {
    const PetscReal *x = &rest[3 * v];
    if (!clamp[v]) continue;
    s[0] += 1;
    for (int a = 0, k = 4; a < 3; a++) {
      s[1 + a] += x[a];
      for (int b = a; b < 3; b++) s[k++] += x[a] * x[b];
    }
  }
  PetscCall(MPIU_Allreduce(s, S, 10, MPIU_REAL, MPIU_SUM, comm));
  PetscCheck(S[0] >= 3, comm, PETSC_ERR_ARG_WRONG,
             "elastic%s%s: %" PetscInt_FMT
             " clamped vertices cannot hold the body in statics (3 not on one line are needed): widen -clamp_band or use -ts_steps",
             path ? " -mesh " : "", path ? path : "", (PetscInt)S[0]);
  for (int a = 0; a < 3; a++) mean[a] = S[1 + a] / S[0];
  for (int a = 0, k = 4; a < 3; a++)
    for (int b = a; b < 3; b++, k++) C[a][b] = C[b][a] = S[k] / S[0] - mean[a] * mean[b];
  tr = C[0][0] + C[1][1] + C[2][2];
  m2 = C[0][0] * C[1][1] - C[0][1] * C[0][1] + C[0][0] * C[2][2] - C[0][2] * C[0][2] + C[1][1] * C[2][2] - C[1][2] * C[1][2];
  PetscCheck(m2 > 1e-10 * tr * tr, comm, PETSC_ERR_ARG_WRONG,
             "elastic%s%s: the %" PetscInt_FMT
             " clamped vertices lie on one line and cannot hold the body in statics: widen -clamp_band or use -ts_steps",
             path ? " -mesh " : "", path ? path : "", (PetscInt)S[0]);
  PetscFunctionReturn(0);
}

/* The tolerance defaults of statics, set on the solver (options override them). The solver is the library's
   default (MfadEnergySetSolverDefaults()), which is what this example measured it needs: the bar
   under 200 g folds and inverts tets on full steps (Newton-CG on the exact Hessian stopped on
   negative curvature after 2 steps, Newton-MINRES failed its line search once in 30 runs whose forms
   differed only in round-off; the default converged in 22 steps), and a real body clamped on a
   small patch (the default band of a curved mesh: Spot is held by the 14 vertices of its ear) swings
   through a large rotation to hang below it, the exact Hessian indefinite on the way (CG stops on
   negative curvature, and continuation in the load does not help: 1/100 of gravity already swings
   the body). So: the assembled Hessian, PSD-projected per element, factored by a sparse Cholesky
   whose inertia -mfad_psd_switch auto uses for exact steps where the exact Hessian is positive
   definite, and room for the ~70 Newton steps of the swing. A user's -ksp_type/-pc_type or
   -mfad_hessian gets the exact Hessian. */
static PetscErrorCode StaticsDefaults(SNES snes, Tao tao)
{
  PetscFunctionBeginUser;
  /* |grad E| <= 1e-7 of the load (Spot: 3e-5 N against ~4 N of weight per vertex): the energy
     (~1e4 J of terms that cancel) carries round-off of the order of a Newton step's decrease once
     |grad E| is ~2e-8 of the load, where the backtracking line search stalls */
  if (snes) PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, 1e-7, PETSC_DEFAULT, 200, PETSC_DEFAULT));
  if (!tao) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(TaoSetTolerances(tao, 0, 0, 1e-7)); /* gttol: |g| / |g0|, as SNES's rtol */
  PetscCall(TaoSetMaximumIterations(tao, 200));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  Grid           g     = {4, 16, 0.005};
  Problem        P     = {1e5, 0.3, 1000, -9.81, 0.01, 0, 0, PETSC_TRUE, PETSC_FALSE};
  PetscBool      write = PETSC_FALSE, readmesh = PETSC_FALSE, *clamp, *tip;
  PetscReal      band = 0.05, mscale = 1, size = 0;
  PetscBool      gridopt[3], bandopt, axisopt, scaleopt;
  PetscInt       axis                    = 0;
  const char    *Axes[]                  = {"x", "y", "z"};
  char           out[PETSC_MAX_PATH_LEN] = "", meshpath[PETSC_MAX_PATH_LEN] = "", kname[64];
  PetscInt       N, n = PETSC_DECIDE, vstart, ncell, its = 0, inertia, reason = 1;
  PetscReal     *force, *mass, *rest, material[2], *vel = NULL, *xpred = NULL, *iparam = NULL, energy, sum[NMEASURE], gnorm0, gnorm, residual = 0;
  PetscReal      gstart, gfail = 0, gstartfail = 0, load;
  PetscBool      fell     = PETSC_TRUE;
  PetscInt       stepfail = 0;
  char           tol[256] = "", failname[64] = "";
  MfadEnergy     E;
  Vec            X, G, Xrest;
  Solver         S;
  const char    *reason_name = "";
  PetscLogDouble ts0, ts1, t0 = 0, t1 = 0;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Hyperelastic bar options", NULL);
  PetscCall(PetscOptionsInt("-n", "cubes across the bar (y and z)", NULL, g.n, &g.n, &gridopt[0]));
  PetscCall(PetscOptionsInt("-m", "cubes along the bar (x)", NULL, g.m, &g.m, &gridopt[1]));
  PetscCall(PetscOptionsReal("-h", "cube edge [m]", NULL, g.h, &g.h, &gridopt[2]));
  PetscCall(PetscOptionsReal("-E", "Young's modulus [Pa]", NULL, P.young, &P.young, NULL));
  PetscCall(PetscOptionsReal("-nu", "Poisson's ratio", NULL, P.nu, &P.nu, NULL));
  PetscCall(PetscOptionsReal("-rho", "density [kg/m^3]", NULL, P.rho, &P.rho, NULL));
  PetscCall(PetscOptionsReal("-g", "gravity along z [m/s^2]", NULL, P.grav, &P.grav, NULL));
  PetscCall(PetscOptionsEList("-material", "hyperelastic material", NULL, Materials, (PetscInt)(sizeof(Materials) / sizeof(Materials[0])),
                              Materials[P.material], &P.material, NULL));
  PetscCall(PetscOptionsInt("-ts_steps", "implicit-Euler time steps (0: statics)", NULL, P.steps, &P.steps, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step [s]", NULL, P.dt, &P.dt, NULL));
  PetscCall(PetscOptionsBool("-clamp", "clamp the face x = 0", NULL, P.clamp, &P.clamp, NULL));
  PetscCall(PetscOptionsReal("-clamp_band", "with -mesh: clamped band's thickness, a fraction of the x extent", NULL, band, &band, &bandopt));
  PetscCall(PetscOptionsEList("-clamp_axis", "with -mesh: the axis of the clamp (smallest values) and the tip (largest)", NULL, Axes, 3, Axes[axis],
                              &axis, &axisopt));
  PetscCall(PetscOptionsReal("-mesh_scale", "with -mesh: metres per unit of the file's coordinates", NULL, mscale, &mscale, &scaleopt));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of solving with SNES", NULL, P.use_tao, &P.use_tao, NULL));
  PetscCall(PetscOptionsString("-mesh", "a tet mesh file (TetGen .node/.ele, Gmsh .msh, ...) instead of the generated bar", NULL, meshpath, meshpath,
                               sizeof meshpath, &readmesh));
  PetscCall(PetscOptionsString("-o", "write the solution as an ASCII VTK unstructured grid (.vtu)", NULL, out, out, sizeof out, &write));
  PetscOptionsEnd();
  PetscCheck(g.n >= 1 && g.m >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT " and -m %" PetscInt_FMT " must be >= 1", g.n, g.m);
  PetscCheck(g.h > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-h %g must be > 0", (double)g.h);
  PetscCheck(P.young > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-E %g must be > 0", (double)P.young);
  PetscCheck(P.nu > -1 && P.nu < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "-nu %g must be in (-1, 0.5)", (double)P.nu);
  PetscCheck(P.rho >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-rho %g must be >= 0", (double)P.rho);
  PetscCheck(P.steps >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-ts_steps %" PetscInt_FMT " must be >= 0", P.steps);
  PetscCheck(P.dt > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-dt %g must be > 0", (double)P.dt);
  PetscCheck(P.steps > 0 || P.clamp, comm, PETSC_ERR_ARG_INCOMP,
             "-clamp false leaves statics without a minimiser (a free body falls): use -ts_steps");
  PetscCheck(P.steps == 0 || P.rho > 0, comm, PETSC_ERR_ARG_INCOMP, "-ts_steps needs mass: -rho %g must be > 0", (double)P.rho);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!readmesh || meshpath[0], comm, PETSC_ERR_ARG_WRONG, "-mesh needs a file name");
  PetscCheck(band >= 0 && band < 0.5, comm, PETSC_ERR_ARG_OUTOFRANGE, "-clamp_band %g must be in [0, 0.5)", (double)band);
  PetscCheck(!readmesh || !(gridopt[0] || gridopt[1] || gridopt[2]), comm, PETSC_ERR_ARG_INCOMP,
             "-n, -m and -h describe the generated bar: they mean nothing with -mesh");
  PetscCheck(readmesh || !(bandopt || axisopt || scaleopt), comm, PETSC_ERR_ARG_INCOMP,
             "-clamp_band, -clamp_axis and -mesh_scale are for -mesh: the generated bar clamps its face x = 0 and is sized by -h");
  PetscCheck(mscale > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-mesh_scale %g must be > 0", (double)mscale);

  /* the material: kernel <name>_tet with the Lame constants of (E, nu) */
  PetscCall(PetscSNPrintf(kname, sizeof kname, "%s_tet", Materials[P.material]));
  material[0] = P.young / (2 * (1 + P.nu));
  material[1] = P.young * P.nu / ((1 + P.nu) * (1 - 2 * P.nu));

  PetscCall(PetscTime(&ts0));
  if (readmesh)
    PetscCall(
        MeshEnergyCreate(comm, meshpath, mscale, kname, material, P.rho, axis, band, &E, &N, &n, &vstart, &ncell, &rest, &mass, &clamp, &tip, &size));
  else PetscCall(BarEnergyCreate(comm, &g, kname, material, P.rho, &E, &N, &n, &vstart, &ncell, &rest, &mass, &clamp, &tip));
  if (P.clamp && P.steps == 0) PetscCall(CheckClamp(comm, n, rest, clamp, readmesh ? meshpath : NULL));
  PetscCall(PetscMalloc1(3 * n, &force));
  PetscCall(AddLoads(E, vstart, n, rest, mass, clamp, &P, force, &inertia));
  if (P.steps > 0) PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_AUTO, MFAD_HESSIAN_AUTO)); /* dynamics: 5x faster than the fused form alone */
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergySetUp(E));

  /* initial guess, and the initial state of dynamics: the rest shape, at rest */
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt l = 0; l < 3 * n; l++) x[l] = rest[l];
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(MfadEnergyApplyFixedValues(E, X));
  PetscCall(VecDuplicate(X, &Xrest));
  PetscCall(VecCopy(X, Xrest));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0));
  PetscCall(PetscTime(&ts1));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view")); /* after one evaluation: flops are counted */
  PetscCall(SolverCreate(E, P.use_tao, P.steps > 0 ? 1e-6 * gnorm0 : 0, P.steps > 0 ? NULL : StaticsDefaults, X, &S));

  PetscCall(PetscTime(&t0));
  if (P.steps == 0) {
    PetscCall(SolverSolve(&S, X, &its, &reason, &reason_name));
    PetscCall(MfadEnergyComputeGradient(E, X, G));
    PetscCall(VecNorm(G, NORM_2, &gnorm));
    residual = gnorm0 > 0 ? gnorm / gnorm0 : gnorm;
    PetscCall(SolverGradientFell(&S, gnorm0, gnorm, &fell, tol, sizeof tol));
    if (!fell) gfail = gnorm, gstartfail = gnorm0;
  } else {
    PetscReal *xold;
    PetscCall(PetscCalloc3(3 * n, &vel, 3 * n, &xpred, 4 * n, &iparam));
    PetscCall(PetscMalloc1(3 * n, &xold));
    for (PetscInt step = 1; step <= P.steps; step++) {
      PetscScalar *x;
      PetscInt     sits = 0, sreason = 0;
      const char  *sname = "";
      PetscBool    sfell;
      char         stol[256];

      PetscCall(ImplicitEulerPredict(E, inertia, n, mass, P.dt, vel, X, xold, xpred, iparam));
      PetscCall(MfadEnergyComputeGradient(E, X, G)); /* where this step's solve starts: its rtol is relative to it */
      PetscCall(VecNorm(G, NORM_2, &gstart));
      PetscCall(SolverSolve(&S, X, &sits, &sreason, &sname));
      PetscCall(MfadEnergyComputeGradient(E, X, G));
      PetscCall(VecNorm(G, NORM_2, &gnorm));
      PetscCall(SolverGradientFell(&S, gstart, gnorm, &sfell, stol, sizeof stol));
      if (!sfell && fell) { /* the first step whose gradient did not fall */
        fell = PETSC_FALSE, stepfail = step, gfail = gnorm, gstartfail = gstart;
        PetscCall(PetscStrncpy(tol, stol, sizeof tol));
        PetscCall(PetscStrncpy(failname, sname, sizeof failname));
      }
      residual = PetscMax(residual, gnorm0 > 0 ? gnorm / gnorm0 : gnorm);
      its      = PetscMax(its, sits);
      if (step == 1 || sreason < reason) reason = sreason, reason_name = sname;
      PetscCall(ImplicitEulerVelocity(n, P.dt, X, xold, vel));
      PetscCall(MfadEnergyComputeObjective(E, X, &energy));
      PetscCall(VecGetArray(X, &x));
      PetscCall(Measure(comm, n, rest, tip, x, vel, xpred, force, mass, P.dt, sum));
      PetscCall(VecRestoreArray(X, &x));
      PetscCall(PetscPrintf(comm,
                            "elastic: step %" PetscInt_FMT
                            " time %.6e energy %.12e kinetic %.12e com_displacement %.12e com_velocity %.12e tip_displacement %.12e"
                            " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                            step, (double)(step * P.dt), (double)(energy - sum[8]), (double)sum[6], (double)(sum[4] / sum[7]),
                            (double)(sum[5] / sum[7]), (double)(sum[2] / sum[3]), (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), sits, sreason,
                            sname));
    }
    PetscCall(PetscFree(xold));
  }
  PetscCall(PetscTime(&t1));

  /* what the tests check: the potential energy (the objective less the inertia term); elastic
     energy = potential + f . x (gravity is -f . x); the work of gravity f . u; the mean z
     displacement of the free end face; the gradient's reduction |grad E(x)| / |grad E(x0)|,
     whatever the solver's own stopping test */
  PetscCall(MfadEnergyComputeObjective(E, X, &energy));
  {
    const PetscScalar *x;
    PetscCall(VecGetArrayRead(X, &x));
    PetscCall(Measure(comm, n, rest, tip, x, vel, xpred, force, mass, P.dt, sum));
    PetscCall(VecRestoreArrayRead(X, &x));
  }
  energy -= sum[8];

  /* the deformed bar (term 0: the solid's tets) with its displacement from the rest shape */
  if (write) PetscCall(MfadEnergyWriteVTU(E, 0, X, Xrest, out));

  PetscCall(PetscPrintf(comm, "elastic: setup %.3f s solve %.3f s\n", (double)(ts1 - ts0), (double)(t1 - t0)));
  PetscCall(PetscPrintf(comm,
                        "elastic: vertices %" PetscInt_FMT " elements %" PetscInt_FMT " material %s"
                        " energy %.12e elastic %.12e work %.12e tip_displacement %.12e",
                        N, ncell, Materials[P.material], (double)energy, (double)(energy + sum[0]), (double)sum[1], (double)(sum[2] / sum[3])));
  if (P.steps)
    PetscCall(PetscPrintf(comm, " steps %" PetscInt_FMT " time %.6e kinetic %.12e com_displacement %.12e com_velocity %.12e", P.steps,
                          (double)(P.steps * P.dt), (double)sum[6], (double)(sum[4] / sum[7]), (double)(sum[5] / sum[7])));
  else PetscCall(PetscPrintf(comm, " gradient %.3e", (double)gnorm));
  {
    PetscInt nexact, nfall;
    PetscCall(MfadEnergyGetPSDSwitchCounts(E, &nexact, &nfall));
    if (nexact + nfall > 0) PetscCall(PetscPrintf(comm, " exact_steps %" PetscInt_FMT, nexact));
  }
  PetscCall(
      PetscPrintf(comm, " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n", (double)residual, its, reason, reason_name));

  PetscCall(SolverDestroy(&S));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&Xrest));
  PetscCall(VecDestroy(&G));
  PetscCall(PetscFree(force));
  PetscCall(PetscFree4(rest, mass, clamp, tip));
  if (P.steps) PetscCall(PetscFree3(vel, xpred, iparam));
  PetscCall(MfadEnergyDestroy(&E));
  /* a mesh in other units than metres is another body: rho |g| L / E compares its weight with its stiffness */
  load = P.rho * PetscAbsReal(P.grav) * size / P.young;
  if (reason <= 0) {
    PetscCall(PetscFPrintf(comm, PETSC_STDERR, "elastic: the solve did not converge: %s\n", reason_name));
    if (readmesh && load > 1)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "elastic: the mesh is %.3e m across, so its weight is rho |g| L / E = %.3g times its stiffness: if the file is not in "
                             "metres, give -mesh_scale\n",
                             (double)size, (double)load));
  } else if (!fell) {
    /* a solver's step test or a line search that saw no decrease can end a solve "converged" where the
       gradient did not fall: the answer is the start, not the solution */
    if (stepfail)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "elastic: step %" PetscInt_FMT ": the gradient did not fall, %s: it is %.3e, from %.3e where the step "
                             "started, though the solver says %s\n",
                             stepfail, tol, (double)gfail, (double)gstartfail, failname));
    else
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "elastic: the gradient did not fall, %s: it is %.3e, from %.3e at the rest shape (residual %.3e), "
                             "though the solver says %s\n",
                             tol, (double)gfail, (double)gstartfail, (double)residual, reason_name));
    /* SNES's step test stops at |dx| < stol |x| (stol 1e-8 by default): the sag of a body L across is ~ rho |g| L / E of L, and |x| >= L,
       so a body whose relative sag is below stol looks converged at its first step */
    if (readmesh && load < 1e-8)
      PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                             "elastic: the mesh is %.3e m across, so its sag is rho |g| L / E = %.3g of its size, below SNES's step tolerance "
                             "relative to the positions (-snes_stol): if the file is not in metres, give -mesh_scale\n",
                             (double)size, (double)load));
  }
  PetscCall(PetscFinalize());
  return reason > 0 && fell ? 0 : 1;
}
