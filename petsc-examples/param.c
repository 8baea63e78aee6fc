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
    "  -use_tao                minimise with TAO (default -tao_type nls) instead of SNES\n"
    "  -o <file.vtu>           write the parameterisation (z = 0) with the gradient norm\n"
    "The Tutte solve takes -tutte_ksp_* and -tutte_pc_* options. Defaults for the Newton solve:\n"
    "-mfad_hessian cached -mfad_psd_project abs (projected Newton: symmetric Dirichlet is not\n"
    "convex; with -mfad_hessian given, the exact Hessian unless -mfad_psd_project is given too),\n"
    "-ksp_type cg -pc_type jacobi; every SNES/KSP/PC/TAO and mfad option applies.\n"
    "The last line is a summary: vertices, triangles, area (of the surface), energy (symmetric\n"
    "Dirichlet), energy_per_area (4 for an isometry, larger with distortion), max_sigma_ratio (the\n"
    "largest s1/s2 of a triangle's map, 1 for a conformal one), flipped (triangles with det J <= 0),\n"
    "residual (|grad E| at the end / at the Tutte embedding), iterations and the converged reason.\n\n";

#include <mfadpetsc.h>
#include <string.h>
#include "geommesh.h"

MFAD_KERNEL_DECLARE(symmetric_dirichlet);
MFAD_KERNEL_DECLARE(flip_barrier_tri);

/* Tutte's embedding: boundary vertices on the circle of radius `radius` at angles proportional to
   the boundary's arc length, the rest solving the graph Laplacian's equations (each interior edge
   counted once per triangle: positive weights, so Tutte's theorem still gives an embedding). U gets
   2 values per vertex in the energy's layout. */
static PetscErrorCode TutteEmbedding(MPI_Comm comm, MfadMesh m, PetscInt cstart, PetscInt cend, PetscInt vstart, PetscInt vend, Vec U)
{
  PetscInt    *next, b0 = -1, nb = 0, *rows;
  PetscReal   *theta, len = 0;
  Mat          L;
  Vec          x, rhs;
  KSP          ksp;
  PetscScalar *u;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m->nvert, &next, m->nvert, &theta, m->nvert, &rows));
  PetscCall(GeomMeshBoundary(m, next));
  for (PetscInt v = 0; v < m->nvert && b0 < 0; v++)
    if (next[v] >= 0) b0 = v;
  PetscCheck(b0 >= 0, comm, PETSC_ERR_ARG_WRONG, "param: the mesh has no boundary (a disk-topology surface is needed)");
  /* walk the boundary loop from b0, arc length as the angle */
  for (PetscInt v = b0;;) {
    const PetscInt w = next[v];
    PetscReal      d = 0;
    theta[v]         = len;
    for (int k = 0; k < 3; k++) d += PetscSqr(m->coords[3 * w + k] - m->coords[3 * v + k]);
    len += PetscSqrtReal(d);
    nb++;
    PetscCheck(nb <= m->nvert, comm, PETSC_ERR_ARG_WRONG, "param: the boundary is not one loop (mesh not manifold?)");
    v = w;
    if (v == b0) break;
  }
  {
    PetscInt c = 0;
    for (PetscInt v = 0; v < m->nvert; v++) c += next[v] >= 0;
    PetscCheck(c == nb, comm, PETSC_ERR_ARG_WRONG, "param: %" PetscInt_FMT " boundary vertices, one loop of %" PetscInt_FMT ": the surface is not a disk", c, nb);
  }

  PetscCall(MatCreateAIJ(comm, vend - vstart, vend - vstart, m->nvert, m->nvert, 8, NULL, 8, NULL, &L));
  PetscCall(MatSetOption(L, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE)); /* valence > 7 is legal, only slower */
  for (PetscInt c = cstart; c < cend; c++)
    for (int k = 0; k < 3; k++) {
      const PetscInt    i = m->cells[3 * c + k], j = m->cells[3 * c + (k + 1) % 3], idx[2] = {i, j};
      const PetscScalar a[4] = {1, -1, -1, 1};
      PetscCall(MatSetValues(L, 2, idx, 2, idx, a, ADD_VALUES));
    }
  PetscCall(MatAssemblyBegin(L, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(L, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(L, &x, &rhs));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, "tutte_"));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecGetArray(U, &u));
  for (int d = 0; d < 2; d++) {
    Mat                Ld;
    PetscInt           nr = 0;
    const PetscScalar *xs;
    /* boundary rows (owned ones) become identity rows with the circle's coordinate as value */
    PetscCall(VecSet(x, 0));
    PetscCall(VecSet(rhs, 0));
    for (PetscInt v = vstart; v < vend; v++)
      if (next[v] >= 0) {
        const PetscReal t = 2 * PETSC_PI * theta[v] / len;
        PetscCall(VecSetValue(x, v, d ? PetscSinReal(t) : PetscCosReal(t), INSERT_VALUES));
        rows[nr++] = v;
      }
    PetscCall(VecAssemblyBegin(x));
    PetscCall(VecAssemblyEnd(x));
    PetscCall(MatDuplicate(L, MAT_COPY_VALUES, &Ld));
    PetscCall(MatZeroRowsColumns(Ld, nr, rows, 1.0, x, rhs));
    PetscCall(KSPSetOperators(ksp, Ld, Ld));
    PetscCall(KSPSolve(ksp, rhs, x));
    PetscCall(VecGetArrayRead(x, &xs));
    for (PetscInt v = vstart; v < vend; v++) u[2 * (v - vstart) + d] = xs[v - vstart];
    PetscCall(VecRestoreArrayRead(x, &xs));
    PetscCall(MatDestroy(&Ld));
  }
  PetscCall(VecRestoreArray(U, &u));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&rhs));
  PetscCall(MatDestroy(&L));
  PetscCall(PetscFree3(next, theta, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Per-triangle measures of the map U of cells [cstart, cend), summed over the ranks: rest area,
   parameter-space signed area, max s1/s2 (+inf if flipped), flipped count */
static PetscErrorCode Measure(MPI_Comm comm, MfadMesh m, PetscInt cstart, PetscInt cend, Vec U, PetscReal *area, PetscReal *uarea, PetscReal *ratio, PetscInt *flipped)
{
  Vec                Uall;
  const PetscScalar *u;
  PetscReal          loc[2] = {0, 0}, rmax = 1;
  PetscInt           nf     = 0;

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

int main(int argc, char **argv)
{
  MPI_Comm       comm;
  MfadMesh       m;
  MfadEnergy     E;
  Vec            U, G;
  PetscInt       n = 16, cstart = 0, cend = 0, vstart = 0, vend = 0, *conn, its, reason, flipped, term, flipped0;
  PetscReal     *rest, barrier = 0, area, uarea, ratio, energy, gnorm, gnorm0, ratio0;
  GeomSurface    surface = GEOM_CAP;
  PetscBool      use_tao = PETSC_FALSE, write = PETSC_FALSE, set, file;
  char           out[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char    *reason_name;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Parameterisation options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a disk-topology triangle surface (.obj, .off)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsInt("-n", "grid squares per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-surface", "surface the grid is lifted to", NULL, GeomSurfaces, (PetscEnum)surface, (PetscEnum *)&surface, NULL));
  PetscCall(PetscOptionsReal("-barrier", "weight of an added flip barrier term", NULL, barrier, &barrier, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the parameterisation (.vtu)", NULL, out, out, sizeof out, &write));
  PetscOptionsEnd();
  PetscCheck(barrier >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-barrier %g must be >= 0", (double)barrier);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  /* projected Newton unless the user picks a Hessian form (then the exact one unless projected) */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mfad_hessian", &set));
  if (!set) {
    PetscCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "cached"));
    PetscCall(PetscOptionsHasName(NULL, NULL, "-mfad_psd_project", &set));
    if (!set) PetscCall(PetscOptionsSetValue(NULL, "-mfad_psd_project", "abs"));
  }

  if (file) { /* every rank reads the (small) file; the triangles are then split as for the grid */
    const size_t len = strlen(path);
    if (len > 4 && !strcmp(path + len - 4, ".off")) PetscCall(MfadMeshReadOFF(path, &m));
    else PetscCall(MfadMeshReadOBJ(path, &m));
    PetscCheck(m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG, "param: %s: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", path, m->ncorner, m->dim);
    PetscCall(MfadMeshCheckManifold(m, path));
  } else PetscCall(GeomMeshGrid(n, n, -1, -1, 2, 2, surface, &m));
  PetscCall(GeomMeshRanges(comm, m, &cstart, &cend, &vstart, &vend));
  PetscCall(MfadEnergyCreate(comm, 2, vend - vstart, m->nvert, &E));
  PetscCall(GeomMeshElements(m, cstart, cend, &conn, &rest));
  PetscCall(MfadEnergyAddTermFromRest(E, MFAD_KERNEL(symmetric_dirichlet), cend - cstart, conn, rest, NULL, 1.0, &term));
  if (barrier > 0) PetscCall(MfadEnergyAddTermFromRest(E, MFAD_KERNEL(flip_barrier_tri), cend - cstart, conn, rest, NULL, barrier, NULL));
  PetscCall(MfadEnergySetFromOptions(E));

  /* Tutte, then scaled about the origin to the surface's area (the isometric size) and mirrored
     if the surface's triangles turn clockwise; the free boundary leaves rigid motions free: fix the
     first vertex (translation) and let the PSD projection's epsilon hold the rotation */
  PetscCall(MfadEnergyCreateVecs(E, &U, &G));
  PetscCall(TutteEmbedding(comm, m, cstart, cend, vstart, vend, U));
  PetscCall(Measure(comm, m, cstart, cend, U, &area, &uarea, &ratio0, &flipped0));
  if (uarea < 0) {
    PetscScalar *u;
    PetscCall(VecGetArray(U, &u));
    for (PetscInt v = vstart; v < vend; v++) u[2 * (v - vstart)] = -u[2 * (v - vstart)];
    PetscCall(VecRestoreArray(U, &u));
  }
  PetscCall(VecScale(U, PetscSqrtReal(area / PetscAbsReal(uarea))));
  {
    const PetscInt dofs[2] = {0, 1};
    PetscReal      vals[2] = {0, 0};
    PetscMPIInt    rank;
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    if (rank == 0) {
      const PetscScalar *u;
      PetscCall(VecGetArrayRead(U, &u));
      vals[0] = PetscRealPart(u[0]), vals[1] = PetscRealPart(u[1]);
      PetscCall(VecRestoreArrayRead(U, &u));
    }
    PetscCall(MfadEnergySetFixedDofs(E, rank == 0 ? 2 : 0, dofs, vals));
  }
  PetscCall(Measure(comm, m, cstart, cend, U, &area, &uarea, &ratio0, &flipped0));
  PetscCheck(flipped0 == 0, comm, PETSC_ERR_PLIB, "param: the Tutte embedding has %" PetscInt_FMT " flipped triangles", flipped0);
  PetscCall(MfadEnergyComputeGradient(E, U, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));

  PetscCall(GeomMinimize(comm, E, U, use_tao, 0, &its, &reason, &reason_name));

  PetscCall(MfadEnergyComputeObjective(E, U, &energy));
  PetscCall(MfadEnergyComputeGradient(E, U, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm));
  PetscCall(Measure(comm, m, cstart, cend, U, &area, &uarea, &ratio, &flipped));
  if (barrier > 0) { /* report symmetric Dirichlet alone: the barrier's share is not distortion */
    PetscReal eb;
    MfadEnergy Es;
    PetscCall(MfadEnergyCreate(comm, 2, vend - vstart, m->nvert, &Es));
    PetscCall(MfadEnergyAddTermFromRest(Es, MFAD_KERNEL(symmetric_dirichlet), cend - cstart, conn, rest, NULL, 1.0, NULL));
    PetscCall(MfadEnergyComputeObjective(Es, U, &eb));
    energy = eb;
    PetscCall(MfadEnergyDestroy(&Es));
  }
  if (write) PetscCall(MfadEnergyWriteVTU(E, term, U, NULL, out));
  PetscCall(PetscPrintf(comm,
                        "param: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT " area %.12e energy %.12e energy_per_area %.12e max_sigma_ratio %.6e"
                        " tutte_sigma_ratio %.6e flipped %" PetscInt_FMT " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                        m->nvert, m->ncell, (double)area, (double)energy, (double)(energy / area), (double)ratio, (double)ratio0, flipped,
                        (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), its, reason, reason_name));

  PetscCall(PetscFree2(conn, rest));
  PetscCall(VecDestroy(&U));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  PetscCall(PetscFinalize());
  return 0;
}
