// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "As-rigid-as-possible deformation of a planar bar with two handles: the vertices of its left\n"
    "and right ends are fixed dofs moved to prescribed places, the rest minimise the ARAP energy\n"
    "(arap_tri: each triangle's best rotation eliminated in closed form) by Newton's method, or as\n"
    "the least-squares problem it is (arap_tri_lsq: r = sqrt(A) (J - R(J)) per triangle, |r|^2 =\n"
    "arap_tri) by Gauss-Newton.\n"
    "The bar is an nx x ny grid of squares over [0, L] x [0, 1], 2 triangles per square. Options:\n"
    "  -nx <24> -ny <6> -L <4>  grid and bar length\n"
    "  -handles <bend>          bend: left end fixed, right end turned by -angle about its centre\n"
    "                           and moved by (-dx, -dy); rigid: both ends moved by the same rigid\n"
    "                           motion (turn by -angle about the origin, move by (-dx, -dy));\n"
    "                           stretch: the right end moved by (-dx, 0), the left fixed\n"
    "  -angle <90> -dx <2L/pi - L> -dy <2L/pi>  the handles' motion (degrees, lengths); the\n"
    "                           default bends the bar's axis into a quarter circle of its length\n"
    "  -form <energy>           energy: Newton on arap_tri (projected, see below); gauss_newton:\n"
    "                           the same solver on arap_tri_lsq, whose Hessian is J^T J (Gauss-Newton);\n"
    "                           brgn: TAO's Gauss-Newton for least squares (-tao_type brgn) on the\n"
    "                           stacked residual and its Jacobian (-mfad_jacobian aij|shell)\n"
    "  -use_tao                 minimise with TAO (default -tao_type nls) instead of SNES\n"
    "  -mesh <file>             instead of the bar, ARAP parameterisation of a disk-topology surface\n"
    "                           (.obj, .off, .msh, ...; e.g. tests/meshes/spot_patch.obj): its map to\n"
    "                           the plane from Tutte's embedding with a free boundary, rigid motions\n"
    "                           pinned (vertex 0 and the y of the vertex farthest from it); no handles\n"
    "  -o <file.vtu>            write the deformed bar (or the map) with its displacement\n"
    "  -allow_flips             with -mesh: accept a map with flipped triangles; without it such a map\n"
    "                           is a failure (exit 1, the count on standard error): ARAP has no barrier\n"
    "                           against flips, and a surface that flattens badly has a minimum that overlaps itself\n"
    "Defaults: -mfad_hessian cached -mfad_psd_project clamp -mfad_psd_project_steps 10 (projected,\n"
    "then exact Newton: ARAP is not convex;\n"
    "with -mfad_hessian given, the exact Hessian unless -mfad_psd_project is given too; gauss_newton:\n"
    "-mfad_hessian cached, J^T J needs no projection; gauss_newton and brgn: -snes_max_it/-tao_max_it\n"
    "500, Gauss-Newton converging linearly where the residual is not 0; brgn: the library's (the\n"
    "assembled J, -mfad_jacobian aij; no preconditioner in its subsolver); -mesh with -form energy: -snes_max_it/-tao_max_it 10000,\n"
    "parts that Tutte's map squeezes taking hundreds of steps),\n"
    "-ksp_type cg -pc_type jacobi; every SNES/KSP/PC/TAO and mfad option applies.\n"
    "The last line is a summary: vertices, triangles, area, energy (ARAP), rigid_deviation (the\n"
    "largest distance of a vertex from the left handle's rigid motion applied to the rest shape: 0\n"
    "when the handles move rigidly together), stretch_x (mean x-length of the bar over L; these two\n"
    "for the bar only), flipped (triangles with det J <= 0), residual (|grad E| at the end / at the\n"
    "start), iterations, time (seconds in the solver), form, reason. energy and residual are\n"
    "arap_tri's whatever the -form.\n\n";

#include <mfadpetsc.h>
#include "geommesh.h"

MFAD_KERNEL_DECLARE(arap_tri);
MFAD_KERNEL_DECLARE(arap_tri_lsq);

typedef enum { HANDLES_BEND, HANDLES_RIGID, HANDLES_STRETCH } Handles;
static const char *const HandlesTypes[] = {"bend", "rigid", "stretch", "Handles", "HANDLES_", NULL};
typedef enum { FORM_ENERGY, FORM_GAUSS_NEWTON, FORM_BRGN } Form;
static const char *const FormTypes[] = {"energy", "gauss_newton", "brgn", "Form", "FORM_", NULL};

/* TAO's Gauss-Newton for least squares on the energy's stacked residual (its least-squares terms).
   Its inner Newton-Krylov solve on J^T J + (1e-4 I, its l2prox term) gets the library's defaults:
   the assembled J and no preconditioner (MfadEnergySetTaoResidual()) */
static PetscErrorCode MinimizeBRGN(MPI_Comm comm, MfadEnergy E, Vec X, PetscInt max_it, PetscInt *its, PetscInt *reason, const char **reason_name)
{
  Tao                tao;
  TaoConvergedReason r;

  PetscFunctionBeginUser;
  PetscCall(TaoCreate(comm, &tao));
  PetscCall(TaoSetType(tao, TAOBRGN));
  PetscCall(MfadEnergySetTaoResidual(E, tao)); /* and its defaults: the assembled J, no PC in the subsolver */
  PetscCall(TaoSetMaximumIterations(tao, max_it));
  PetscCall(TaoSetSolution(tao, X));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoSolve(tao)); /* fixed dofs stay at their values: MfadEnergySetTaoResidual() bounds them */
  PetscCall(TaoGetIterationNumber(tao, its));
  PetscCall(TaoGetConvergedReason(tao, &r));
  *reason      = r;
  *reason_name = TaoConvergedReasons[r];
  PetscCall(TaoDestroy(&tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a rigid motion: turn by angle a about c, then move by t */
static void Rigid(PetscReal a, const PetscReal c[2], const PetscReal t[2], const PetscReal X[2], PetscReal x[2])
{
  const PetscReal dx = X[0] - c[0], dy = X[1] - c[1];
  x[0] = c[0] + PetscCosReal(a) * dx - PetscSinReal(a) * dy + t[0];
  x[1] = c[1] + PetscSinReal(a) * dx + PetscCosReal(a) * dy + t[1];
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  MfadMesh    m;
  MfadEnergy  E, Earap;
  Vec         X, X0, G;
  PetscInt       nx = 24, ny = 6, vstart = 0, vend = 0, cstart, cend, its, reason, term, nfix = 0, *fix, flipped = 0, max_it, ntri;
  PetscReal  *fixval, L = 4, angle = 90, dx, dy, energy, gnorm, gnorm0, loc[4] = {0, 0, 0, 0}, sum[4], dev;
  PetscLogDouble t0, t1;
  Handles     handles = HANDLES_BEND;
  Form        form    = FORM_ENERGY;
  PetscBool      use_tao = PETSC_FALSE, write = PETSC_FALSE, set, psd;
  char        out[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  PetscBool      file = PETSC_FALSE, allow_flips = PETSC_FALSE, overlaps;
  const char *reason_name;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "ARAP deformation options", NULL);
  PetscCall(PetscOptionsInt("-nx", "grid squares along the bar", NULL, nx, &nx, NULL));
  PetscCall(PetscOptionsInt("-ny", "grid squares across the bar", NULL, ny, &ny, NULL));
  PetscCall(PetscOptionsReal("-L", "bar length (its width is 1)", NULL, L, &L, NULL));
  PetscCall(PetscOptionsEnum("-handles", "how the handles move", NULL, HandlesTypes, (PetscEnum)handles, (PetscEnum *)&handles, NULL));
  PetscCall(PetscOptionsReal("-angle", "turn of the handles [degrees]", NULL, angle, &angle, NULL));
  dx = 2 * L / PETSC_PI - L; /* a quarter circle of radius 2L/pi (for the L read above) */
  dy = 2 * L / PETSC_PI;
  PetscCall(PetscOptionsReal("-dx", "move of the handles along x", NULL, dx, &dx, NULL));
  PetscCall(PetscOptionsReal("-dy", "move of the handles along y", NULL, dy, &dy, NULL));
  PetscCall(PetscOptionsEnum("-form", "the problem's form and solver", NULL, FormTypes, (PetscEnum)form, (PetscEnum *)&form, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-mesh", "parameterise this disk-topology surface instead of deforming the bar", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsString("-o", "write the deformed bar or the map (.vtu)", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsBool("-allow_flips", "with -mesh: accept a map with flipped triangles (exit 0)", NULL, allow_flips, &allow_flips, NULL));
  PetscOptionsEnd();
  PetscCheck(L > 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-L %g must be > 0", (double)L);
  PetscCheck(handles != HANDLES_STRETCH || L + dx > 0, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-handles stretch -dx %g: the bar's length L + dx must stay > 0", (double)dx);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!(form == FORM_BRGN && use_tao), comm, PETSC_ERR_ARG_INCOMP, "-form brgn is a TAO solve already: drop -use_tao");
  /* Newton steps: a read surface's parts that Tutte's map squeezes take many to unfold, not PETSc's default 50 (tests/meshes/sock.obj:
     657 Newton steps; the Homer model cut in half, 4,201 vertices: 209); Gauss-Newton is linear where the residual at the minimum is not 0 */
  max_it = form != FORM_ENERGY ? 500 : file ? 10000 : 0;
  angle *= PETSC_PI / 180;

  if (file) {
    PetscCall(GeomMeshRead(path, &m)); /* every rank holds the whole (small) mesh */
    PetscCheck(m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG, "arap: %s: need a triangle surface in 3-D", path);
  } else PetscCall(GeomMeshGrid(nx, ny, 0, 0, L, 1, GEOM_PLANE, &m));
  PetscCall(MfadEnergyCreateFromMesh(comm, m, 2, &E));
  /* weight 2: the least-squares term's objective w/2 |r|^2 = |r|^2 is arap_tri */
  if (form == FORM_ENERGY) PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(arap_tri), NULL, 1.0, &term));
  else PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(arap_tri_lsq), NULL, 2.0, &term));
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  /* projected Newton unless the user picks a Hessian form (then the exact one unless projected);
     J^T J (gauss_newton) is positive semi-definite already */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mfad_hessian", &set));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mfad_psd_project", &psd));
  if (!set && form != FORM_BRGN) PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_CACHED, MFAD_HESSIAN_CACHED));
  if (!set && !psd && form == FORM_ENERGY) {
    /* projected Newton alone is linear near the minimum: on tests/meshes/spot_jitter.obj (slivers)
       it stopped at 50 steps; 10 projected steps, then the exact Hessian: 13 steps, the same energy */
    PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_CLAMP, 0));
    PetscCall(MfadEnergySetPSDProjectionSteps(E, 10));
  }
  PetscCall(MfadEnergySetFromOptions(E));
  /* the summary's energy and gradient are arap_tri's, whatever the form solved */
  if (form == FORM_ENERGY) Earap = E;
  else {
    PetscInt t;
    PetscCall(MfadEnergyCreateFromMesh(comm, m, 2, &Earap));
    PetscCall(MfadEnergyAddTermFromMesh(Earap, m, MFAD_KERNEL(arap_tri), NULL, 1.0, &t));
  }

  /* the handles: this rank's owned vertices of columns i = 0 and i = nx (any rank may name any
     fixed dof; naming only owned ones names each once) */
  PetscCall(PetscMalloc2(4 * (ny + 1), &fix, 4 * (ny + 1), &fixval));
  for (PetscInt v = vstart; v < vend && !file; v++) {
    const PetscInt   i  = v % (nx + 1);
    const PetscReal *Xr = &m->coords[3 * v], c0[2] = {0, 0}, t[2] = {dx, dy}, cr[2] = {L, 0.5}, zero[2] = {0, 0};
    PetscReal        x[2];
    if (i != 0 && i != nx) continue;
    if (handles == HANDLES_RIGID) Rigid(angle, c0, t, Xr, x);
    else if (handles == HANDLES_BEND) Rigid(i ? angle : 0, cr, i ? t : zero, Xr, x);
    else x[0] = Xr[0] + (i ? dx : 0), x[1] = Xr[1];
    for (int d = 0; d < 2; d++) fix[nfix] = 2 * v + d, fixval[nfix++] = x[d];
  }
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  if (file) { /* start: Tutte's embedding, which also pins the rigid motions (on Earap too: the same map) */
    if (Earap != E) PetscCall(MfadEnergyComputeTutteStart(Earap, m, X));
    PetscCall(MfadEnergyComputeTutteStart(E, m, X));
    PetscCall(VecDuplicate(X, &X0));
    PetscCall(VecCopy(X, X0));
  } else { /* start: the rest shape with the handles in place */
    PetscCall(MfadEnergySetFixedDofs(E, nfix, fix, fixval));
    if (Earap != E) PetscCall(MfadEnergySetFixedDofs(Earap, nfix, fix, fixval));
    PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X));
    PetscCall(VecDuplicate(X, &X0));
    PetscCall(VecCopy(X, X0));
    PetscCall(MfadEnergyApplyFixedValues(E, X));
  }
  PetscCall(MfadEnergyComputeGradient(Earap, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  PetscCall(PetscTime(&t0));
  if (form == FORM_BRGN) PetscCall(MinimizeBRGN(comm, E, X, max_it, &its, &reason, &reason_name));
  else PetscCall(GeomMinimize(comm, E, X, use_tao, 0, max_it, &its, &reason, &reason_name));
  PetscCall(PetscTime(&t1));

  PetscCall(MfadEnergyComputeObjective(Earap, X, &energy));
  PetscCall(MfadEnergyComputeGradient(Earap, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm));
  {
    /* owned vertices: distance from the rigid motion of the left handle (rigid: the common one);
       the bar's x-extent at each row (stretch); triangles: flipped ones, rest area */
    const PetscScalar *x;
    const PetscReal    c0[2] = {0, 0}, t[2] = {dx, dy};
    Vec                Xall;
    const PetscScalar *xa;
    PetscCall(VecGetArrayRead(X, &x));
    for (PetscInt v = vstart; v < vend && !file; v++) {
      PetscReal      y[2] = {m->coords[3 * v], m->coords[3 * v + 1]};
      const PetscInt i    = v % (nx + 1);
      if (handles == HANDLES_RIGID) Rigid(angle, c0, t, &m->coords[3 * v], y);
      loc[0] = PetscMax(loc[0],
                        PetscSqrtReal(PetscSqr(PetscRealPart(x[2 * (v - vstart)]) - y[0]) + PetscSqr(PetscRealPart(x[2 * (v - vstart) + 1]) - y[1])));
      if (i == nx) loc[1] += PetscRealPart(x[2 * (v - vstart)]);
      if (i == 0) loc[1] -= PetscRealPart(x[2 * (v - vstart)]);
    }
    PetscCall(VecRestoreArrayRead(X, &x));
    PetscCall(GeomGetAll(X, &Xall, &xa));
    PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend));
    for (PetscInt c = cstart; c < cend; c++) {
      PetscReal r[9], y[6], J[4];
      for (int a = 0; a < 3; a++) {
        const PetscInt v = m->cells[3 * c + a];
        for (int d = 0; d < 3; d++) r[3 * a + d] = m->coords[3 * v + d];
        for (int d = 0; d < 2; d++) y[2 * a + d] = PetscRealPart(xa[2 * v + d]);
      }
      loc[3] += GeomTriangleMap(r, y, J);
      loc[2] += !(J[0] * J[3] - J[1] * J[2] > 0);
    }
    PetscCall(GeomRestoreAll(&Xall, &xa));
    PetscCall(MPIU_Allreduce(loc, &dev, 1, MPIU_REAL, MPIU_MAX, comm));
    PetscCall(MPIU_Allreduce(&loc[1], &sum[1], 3, MPIU_REAL, MPIU_SUM, comm));
    flipped = (PetscInt)sum[2];
  }
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, X, X0, out));
  if (file)
    PetscCall(PetscPrintf(comm,
                          "arap: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT " area %.12e energy %.12e flipped %" PetscInt_FMT
                          " residual %.3e iterations %" PetscInt_FMT " time %.3f form %s reason %" PetscInt_FMT " %s\n",
                          m->nvert, m->ncell, (double)sum[3], (double)energy, flipped, (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), its, (double)(t1 - t0),
                          FormTypes[form], reason, reason_name));
  else PetscCall(PetscPrintf(comm,
                        "arap: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT
                        " area %.12e energy %.12e rigid_deviation %.3e stretch_x %.12e flipped %" PetscInt_FMT
                        " residual %.3e iterations %" PetscInt_FMT " time %.3f form %s reason %" PetscInt_FMT " %s\n",
                        m->nvert, m->ncell, (double)sum[3], (double)energy, (double)dev, (double)(sum[1] / ((ny + 1) * L)), flipped,
                        (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), its, (double)(t1 - t0), FormTypes[form], reason, reason_name));

  PetscCall(PetscFree2(fix, fixval));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&G));
  if (Earap != E) PetscCall(MfadEnergyDestroy(&Earap));
  PetscCall(MfadEnergyDestroy(&E));
  ntri     = m->ncell;
  overlaps = (PetscBool)(file && flipped > 0 && !allow_flips);
  PetscCall(MfadMeshDestroy(&m));
  if (reason <= 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "arap: the solve did not converge: %s\n", reason_name));
  /* a map of a surface is a parameterisation only if it is one-to-one: a flipped triangle makes it fold over itself */
  else if (overlaps)
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "arap: %s: %" PetscInt_FMT " of %" PetscInt_FMT
                           " triangles are flipped (det J <= 0) in the map: it overlaps itself (ARAP has no barrier against flips); give "
                           "-allow_flips to accept it\n",
                           path, flipped, ntri));
  PetscCall(PetscFinalize());
  return reason > 0 && !overlaps ? 0 : 1;
}
