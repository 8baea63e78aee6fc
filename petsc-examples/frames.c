// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Frame field design: a smooth n-RoSy (n = 4: a cross field) on a triangle surface, one direction\n"
    "field per face stored as the complex n-th power u of its direction in the face's tangent frame,\n"
    "minimising the connection Dirichlet energy sum_edges w |u_g - r_fg u_f|^2 (the frame_field energy;\n"
    "r_fg the Levi-Civita transport across the edge; Knoppel et al. 2013, TinyAD's frame field example).\n"
    "Two problems:\n"
    "  boundary  faces on the boundary hold the n-th power of their boundary edge's direction (fixed\n"
    "            dofs), the rest minimises the energy: a quadratic problem, solved by SNES (or TAO)\n"
    "            with mfad's Hessian (the default on a surface with boundary);\n"
    "  global    Knoppel's globally optimal field: the smallest eigenvector of the energy with respect\n"
    "            to the face-area mass, by inverse power iteration (a KSP solve with the mfad Hessian\n"
    "            plus shift x mass per step, normalised in the mass norm; the default on closed surfaces).\n"
    "The surface is a grid over [-1, 1]^2 on z = f(x, y) or a file. Options:\n"
    "  -mesh <file>          a triangle surface (.obj, .off, Gmsh .msh, .ply), e.g. tests/meshes/cube.obj\n"
    "                        or tests/meshes/sphere_tris.msh (closed), petsc-examples/meshes/cap.obj (a\n"
    "                        disk); default: the generated grid\n"
    "  -grid <16>            grid squares per side (2 grid^2 faces)\n"
    "  -surface <cap>        plane | cap (sphere of radius 2) | hat (Gaussian bump)\n"
    "  -n <4>                the RoSy order (1: a direction field, 2: line field, 4: cross field)\n"
    "  -weights <uniform>    uniform (w = 1) | cotan (w = (cot a + cot b)/2, the angles opposite the edge)\n"
    "  -problem <boundary>   boundary | global\n"
    "  -use_tao              boundary problem: minimise with TAO (default -tao_type nls) instead of SNES\n"
    "  -shift <s>            global problem: the shift (default 1e-8 x the largest diagonal entry of\n"
    "                        mass^-1 H, so that H + shift mass is definite where an exactly parallel\n"
    "                        field exists, e.g. on the cube)\n"
    "  -power_rtol <1e-8>    global: stop at |H x - mu M x|_{M^-1} <= rtol x that scale x |x|_M\n"
    "  -power_max_it <500>   global: the most inverse iterations\n"
    "  -power_monitor        global: print mu and the relative residual of each inverse iteration\n"
    "  -seed <1>             global: the seed of the random start\n"
    "  -o <file.vtu>         write the surface with cell vectors 'direction' (one of the n directions,\n"
    "                        3-D, unit), 'magnitude' (|u|) and point data 'index' (singularity index)\n"
    "Defaults -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10; every SNES/KSP/PC/TAO and mfad option applies\n"
    "(-mfad_hessian shell|cached|aij: with aij the global problem's matrix is assembled, any PC works).\n"
    "The last line is a summary: vertices, faces, interior_edges, euler (V - E + F), energy,\n"
    "energy_per_area (global: the smallest eigenvalue, the field normalised to mean |u|^2 = 1), the\n"
    "shift (global), singularities (interior vertices\n"
    "with a nonzero index), index_sum (their indices' sum), boundary_index_sum (the boundary vertices'),\n"
    "iterations (Newton or inverse iterations) and the converged reason.\n\n";

#include <mfadpetsc.h>
#include <stdio.h>
#include <string.h>
#include "geommesh.h"
#include "framesurface.h"

MFAD_KERNEL_DECLARE(frame_field);

typedef enum { FRAMES_BOUNDARY, FRAMES_GLOBAL } FramesProblem;
static const char *const FramesProblems[] = {"boundary", "global", "FramesProblem", "FRAMES_", NULL};
typedef enum { FRAMES_UNIFORM, FRAMES_COTAN } FramesWeights;
static const char *const FramesWeightsNames[] = {"uniform", "cotan", "FramesWeights", "FRAMES_", NULL};

/* H + shift M as a MATSHELL over the Hessian of any matrix-free form (M diagonal) */
typedef struct {
  Mat       H;
  Vec       mass, work;
  PetscReal shift;
} Shifted;

static PetscErrorCode ShiftedMult(Mat S, Vec x, Vec y)
{
  Shifted *ctx;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &ctx));
  PetscCall(MatMult(ctx->H, x, y));
  PetscCall(VecPointwiseMult(ctx->work, ctx->mass, x));
  PetscCall(VecAXPY(y, ctx->shift, ctx->work));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode ShiftedGetDiagonal(Mat S, Vec d)
{
  Shifted *ctx;

  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &ctx));
  PetscCall(MatGetDiagonal(ctx->H, d));
  PetscCall(VecAXPY(d, ctx->shift, ctx->mass));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x^T M y */
static PetscErrorCode MassDot(Vec mass, Vec x, Vec y, Vec work, PetscReal *dot)
{
  PetscScalar d;

  PetscFunctionBeginUser;
  PetscCall(VecPointwiseMult(work, mass, x));
  PetscCall(VecDot(work, y, &d));
  *dot = PetscRealPart(d);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The smallest eigenpair of H x = mu M x (H the energy's Hessian, M the face areas per dof) by
   inverse iteration on H + shift M from a seeded random start, normalised to x^T M x = area. */
static PetscErrorCode InversePower(MfadEnergy E, Vec mass, PetscReal area, PetscInt seed, PetscReal shift, PetscReal rtol, PetscInt max_it,
                                   PetscBool monitor, Vec X, PetscReal *mu, PetscReal *shift_used, PetscInt *its, PetscInt *reason,
                                   const char **reason_name)
{
  MPI_Comm           comm;
  MfadHessianType    type = MFAD_HESSIAN_SHELL;
  const char        *prefix;
  Mat                H, A;
  Vec                Y, W, R;
  KSP                ksp;
  PC                 pc;
  Shifted            ctx = {NULL, NULL, NULL, 0};
  PetscReal          scale, q;
  PetscInt           rstart, rend;
  PetscScalar       *x;
  unsigned long long state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetOptionsPrefix(E, &prefix));
  PetscCall(PetscOptionsGetEnum(NULL, prefix, "-mfad_hessian", MfadHessianTypes, (PetscEnum *)&type, NULL));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(VecDuplicate(X, &W));
  PetscCall(VecDuplicate(X, &R));
  PetscCall(MfadEnergyCreateHessianMat(E, type, &H));
  PetscCall(VecSet(X, 0));
  PetscCall(MfadHessianSetPoint(H, X)); /* the energy is quadratic: H is the same at every point */
  /* scale = max_i H_ii / M_ii: each element Hessian 2w [1 -conj(r); -r 1] has off-diagonal blocks no
     larger than its diagonal, so every eigenvalue mu lies in [0, 2 scale] (Gershgorin) */
  PetscCall(MatGetDiagonal(H, W));
  PetscCall(VecPointwiseDivide(W, W, mass));
  PetscCall(VecMax(W, NULL, &scale));
  *shift_used = shift >= 0 ? shift : 1e-8 * scale;
  if (type == MFAD_HESSIAN_AIJ) { /* assembled: add shift M to its diagonal, any PC applies */
    PetscCall(VecCopy(mass, W));
    PetscCall(VecScale(W, *shift_used));
    PetscCall(MatDiagonalSet(H, W, ADD_VALUES));
    PetscCall(PetscObjectReference((PetscObject)H));
    A = H;
  } else {
    PetscInt n, N;
    ctx.H = H, ctx.mass = mass, ctx.shift = *shift_used;
    PetscCall(VecDuplicate(X, &ctx.work)); /* its own: W is the solves' right-hand side */
    PetscCall(VecGetLocalSize(X, &n));
    PetscCall(VecGetSize(X, &N));
    PetscCall(MatCreateShell(comm, n, n, N, N, &ctx, &A));
    PetscCall(MatShellSetOperation(A, MATOP_MULT, (void (*)(void))ShiftedMult));
    PetscCall(MatShellSetOperation(A, MATOP_MULT_TRANSPOSE, (void (*)(void))ShiftedMult));
    PetscCall(MatShellSetOperation(A, MATOP_GET_DIAGONAL, (void (*)(void))ShiftedGetDiagonal));
    PetscCall(MatSetOption(A, MAT_SYMMETRIC, PETSC_TRUE));
  }
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));

  /* the same start on any number of ranks: one seeded stream over all dofs */
  PetscCall(VecGetOwnershipRange(X, &rstart, &rend));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt i = 0; i < rend; i++) {
    const PetscReal r = GeomRandom(&state);
    if (i >= rstart) x[i - rstart] = r;
  }
  PetscCall(VecRestoreArray(X, &x));
  *its = 0, *reason = -1, *reason_name = "DIVERGED_MAX_IT";
  for (;;) {
    PetscReal rho2 = 0, xmx = 0;
    PetscCall(MassDot(mass, X, X, W, &xmx));
    PetscCall(VecScale(X, PetscSqrtReal(area / xmx)));
    /* Rayleigh quotient and residual |A x - (mu + shift) M x|_{M^-1} / |x|_M */
    PetscCall(MatMult(A, X, R));
    PetscCall(VecDot(R, X, &q));
    q   = PetscRealPart(q) / area;
    *mu = q - *shift_used;
    PetscCall(VecPointwiseMult(W, mass, X));
    PetscCall(VecAXPY(R, -q, W));
    PetscCall(VecPointwiseDivide(W, R, mass));
    PetscCall(MassDot(mass, W, W, Y, &rho2));
    if (monitor)
      PetscCall(PetscPrintf(comm, "  %3" PetscInt_FMT " inverse iteration: mu %.12e residual %.6e\n", *its, (double)*mu,
                            (double)(PetscSqrtReal(rho2 / area) / scale)));
    if (PetscSqrtReal(rho2 / area) <= rtol * scale) {
      *reason = 1, *reason_name = "CONVERGED_RESIDUAL";
      break;
    }
    if (*its == max_it) break;
    {
      KSPConvergedReason kr;
      PetscCall(VecPointwiseMult(W, mass, X));
      PetscCall(KSPSolve(ksp, W, Y));
      PetscCall(KSPGetConvergedReason(ksp, &kr));
      if (kr < 0) {
        *reason = -2, *reason_name = "DIVERGED_LINEAR_SOLVE";
        break;
      }
    }
    PetscCall(VecCopy(Y, X));
    (*its)++;
  }
  PetscCall(KSPDestroy(&ksp));
  if (type != MFAD_HESSIAN_AIJ) PetscCall(VecDestroy(&ctx.work));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&H));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&W));
  PetscCall(VecDestroy(&R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The surface and the field on rank 0 as a VTK unstructured grid (ASCII): cell vectors 'direction'
   (the direction arg(u)/n in the face's frame, in 3-D: glyphs in ParaView), 'magnitude' |u| (small
   near singularities of the global field), point data 'index'. Written to <path>.tmp, then renamed. */
static PetscErrorCode WriteVTU(MPI_Comm comm, MfadMesh m, const FrameSurface *s, PetscInt n, const PetscScalar u[], const PetscReal index[],
                               const char path[])
{
  PetscMPIInt rank;
  char        tmp[PETSC_MAX_PATH_LEN + 8];
  FILE       *fp;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  if (rank) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscSNPrintf(tmp, sizeof tmp, "%s.tmp", path));
  fp = fopen(tmp, "w");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "frames: cannot open %s for writing", tmp);
  fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n");
  fprintf(fp, "  <UnstructuredGrid>\n    <Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", m->nvert, m->ncell);
  fprintf(fp, "    <PointData Scalars=\"index\">\n      <DataArray type=\"Float64\" Name=\"index\" format=\"ascii\">\n");
  for (PetscInt v = 0; v < m->nvert; v++) fprintf(fp, "%.17g\n", (double)index[v]);
  fprintf(fp, "      </DataArray>\n    </PointData>\n    <CellData Vectors=\"direction\" Scalars=\"magnitude\">\n");
  fprintf(fp, "      <DataArray type=\"Float64\" Name=\"direction\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (PetscInt f = 0; f < m->ncell; f++) {
    const PetscReal  phi = PetscAtan2Real(PetscRealPart(u[2 * f + 1]), PetscRealPart(u[2 * f])) / n, c = PetscCosReal(phi), sn = PetscSinReal(phi);
    const PetscReal *e = &s->frame[9 * f];
    fprintf(fp, "%.17g %.17g %.17g\n", (double)(c * e[0] + sn * e[3]), (double)(c * e[1] + sn * e[4]), (double)(c * e[2] + sn * e[5]));
  }
  fprintf(fp, "      </DataArray>\n      <DataArray type=\"Float64\" Name=\"magnitude\" format=\"ascii\">\n");
  for (PetscInt f = 0; f < m->ncell; f++)
    fprintf(fp, "%.17g\n", (double)PetscSqrtReal(PetscSqr(PetscRealPart(u[2 * f])) + PetscSqr(PetscRealPart(u[2 * f + 1]))));
  fprintf(fp, "      </DataArray>\n    </CellData>\n    <Points>\n      <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
  for (PetscInt v = 0; v < m->nvert; v++)
    fprintf(fp, "%.17g %.17g %.17g\n", (double)m->coords[3 * v], (double)m->coords[3 * v + 1], (double)m->coords[3 * v + 2]);
  fprintf(fp, "      </DataArray>\n    </Points>\n    <Cells>\n      <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
  for (PetscInt f = 0; f < m->ncell; f++)
    fprintf(fp, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", m->cells[3 * f], m->cells[3 * f + 1], m->cells[3 * f + 2]);
  fprintf(fp, "      </DataArray>\n      <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
  for (PetscInt f = 0; f < m->ncell; f++) fprintf(fp, "%" PetscInt_FMT "\n", 3 * (f + 1));
  fprintf(fp, "      </DataArray>\n      <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
  for (PetscInt f = 0; f < m->ncell; f++) fprintf(fp, "5\n");
  fprintf(fp, "      </DataArray>\n    </Cells>\n    </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
  PetscCheck(!ferror(fp) && fclose(fp) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "frames: writing %s failed", tmp);
  PetscCheck(rename(tmp, path) == 0, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "frames: cannot rename %s to %s", tmp, path);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  MfadMesh           m;
  FrameSurface       s;
  MfadEnergy         E;
  Vec                X, mass, Xall;
  PetscInt           grid = 16, n = 4, cstart = 0, cend = 0, nel = 0, *conn, its = 0, reason = 0, nsing = 0, nedges, seed = 1, max_it = 500;
  PetscReal         *params, *index, energy, area = 0, mu = 0, shift = -1, shift_used = 0, rtol = 1e-8, isum = 0, bsum = 0;
  GeomSurface        surface = GEOM_CAP;
  FramesProblem      problem = FRAMES_BOUNDARY;
  FramesWeights      weights = FRAMES_UNIFORM;
  PetscBool          use_tao = PETSC_FALSE, monitor = PETSC_FALSE, write = PETSC_FALSE, file, pset;
  char               out[PETSC_MAX_PATH_LEN] = "", path[PETSC_MAX_PATH_LEN] = "";
  const char        *reason_name = "";
  const PetscScalar *u;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Frame field options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a triangle surface (.obj, .off, .msh, .ply)", NULL, path, path, sizeof path, &file));
  PetscCall(PetscOptionsInt("-grid", "grid squares per side", NULL, grid, &grid, NULL));
  PetscCall(PetscOptionsEnum("-surface", "surface the grid is lifted to", NULL, GeomSurfaces, (PetscEnum)surface, (PetscEnum *)&surface, NULL));
  PetscCall(PetscOptionsInt("-n", "RoSy order", NULL, n, &n, NULL));
  PetscCall(PetscOptionsEnum("-weights", "edge weights", NULL, FramesWeightsNames, (PetscEnum)weights, (PetscEnum *)&weights, NULL));
  PetscCall(PetscOptionsEnum("-problem", "boundary-aligned or globally optimal field", NULL, FramesProblems, (PetscEnum)problem,
                             (PetscEnum *)&problem, &pset));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsReal("-shift", "global: shift of the inverse iteration", NULL, shift, &shift, NULL));
  PetscCall(PetscOptionsReal("-power_rtol", "global: relative residual tolerance", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsInt("-power_max_it", "global: most inverse iterations", NULL, max_it, &max_it, NULL));
  PetscCall(PetscOptionsBool("-power_monitor", "global: print each inverse iteration", NULL, monitor, &monitor, NULL));
  PetscCall(PetscOptionsInt("-seed", "global: seed of the random start", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsString("-o", "write the field (.vtu)", NULL, out, out, sizeof out, &write));
  PetscOptionsEnd();
  PetscCheck(n >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": the RoSy order must be >= 1", n);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");

  if (file) PetscCall(GeomMeshRead(path, &m)); /* every rank reads the (small) file */
  else PetscCall(GeomMeshGrid(grid, grid, -1, -1, 2, 2, surface, &m));
  PetscCall(FrameSurfaceCreate(m, &s));
  if (!pset && !s.nbedge) problem = FRAMES_GLOBAL;
  PetscCheck(problem != FRAMES_BOUNDARY || s.nbedge, comm, PETSC_ERR_ARG_WRONG,
             "frames: -problem boundary needs a surface with boundary (this one is closed)");

  /* the energy's "vertices" are the faces, owned in contiguous ranges; each interior edge is an
     element on the rank that owns its first face */
  PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend)); /* the faces are the unknowns' "vertices" */
  PetscCall(MfadEnergyCreate(comm, 2, cend - cstart, m->ncell, &E));
  PetscCall(PetscMalloc3(2 * s.nedge, &conn, 3 * s.nedge, &params, m->nvert, &index));
  /* cotan weights are negative across an edge whose opposite angles sum to more than pi (a
     non-Delaunay edge): the energy would not be bounded below; round-off of a zero weight is fine.
     Every rank checks every edge, so all stop together. */
  for (PetscInt e = 0; e < s.nedge && weights == FRAMES_COTAN; e++)
    PetscCheck(s.cotan[e] > -1e-12, comm, PETSC_ERR_ARG_WRONG,
               "frames: the edge %" PetscInt_FMT "-%" PetscInt_FMT " between faces %" PetscInt_FMT " and %" PetscInt_FMT
               " has cotan weight %g < 0 (not Delaunay): use -weights uniform",
               s.edge[4 * e + 2], s.edge[4 * e + 3], s.edge[4 * e], s.edge[4 * e + 1], (double)s.cotan[e]);
  for (PetscInt e = 0; e < s.nedge; e++) {
    const PetscInt f = s.edge[4 * e], g = s.edge[4 * e + 1];
    if (f < cstart || f >= cend) continue;
    conn[2 * nel] = f, conn[2 * nel + 1] = g;
    params[3 * nel]     = PetscCosReal(n * s.theta[e]);
    params[3 * nel + 1] = PetscSinReal(n * s.theta[e]);
    params[3 * nel + 2] = weights == FRAMES_COTAN ? PetscMax(s.cotan[e], 0) : 1;
    nel++;
  }
  PetscCall(MfadEnergyAddTerm(E, MFAD_KERNEL(frame_field), nel, conn, params, 1.0, NULL));
  if (problem == FRAMES_BOUNDARY) { /* u of the owned boundary faces = e^{i n angle(boundary edge)} */
    PetscInt  *dofs, nfix = 0;
    PetscReal *vals;
    PetscCall(PetscMalloc2(2 * (cend - cstart), &dofs, 2 * (cend - cstart), &vals));
    for (PetscInt f = cstart; f < cend; f++)
      if (!PetscIsNanReal(s.bangle[f])) {
        dofs[nfix] = 2 * f, vals[nfix++] = PetscCosReal(n * s.bangle[f]);
        dofs[nfix] = 2 * f + 1, vals[nfix++] = PetscSinReal(n * s.bangle[f]);
      }
    PetscCall(MfadEnergySetFixedDofs(E, nfix, dofs, vals));
    PetscCall(PetscFree2(dofs, vals));
  }
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  PetscCall(MfadEnergyCreateVecs(E, &X, &mass));
  {
    PetscScalar *w;
    PetscCall(VecGetArray(mass, &w));
    for (PetscInt f = cstart; f < cend; f++) w[2 * (f - cstart)] = w[2 * (f - cstart) + 1] = s.area[f];
    PetscCall(VecRestoreArray(mass, &w));
    for (PetscInt f = 0; f < m->ncell; f++) area += s.area[f];
  }

  if (problem == FRAMES_BOUNDARY) {
    PetscCall(VecSet(X, 0));
    PetscCall(MfadEnergyApplyFixedValues(E, X));
    PetscCall(GeomMinimize(comm, E, X, use_tao, 1e-10, 0, &its, &reason, &reason_name));
  } else PetscCall(InversePower(E, mass, area, seed, shift, rtol, max_it, monitor, X, &mu, &shift_used, &its, &reason, &reason_name));
  PetscCall(MfadEnergyComputeObjective(E, X, &energy));

  /* singularities, from the field and the geometry alone (every rank holds the whole field) */
  PetscCall(GeomGetAll(X, &Xall, &u));
  PetscCall(FrameSurfaceIndices(&s, n, u, index));
  for (PetscInt v = 0; v < m->nvert; v++) {
    if (s.kind[v] == 1 && index[v] != 0) nsing++, isum += index[v];
    if (s.kind[v] == 2) bsum += index[v];
  }
  if (write) PetscCall(WriteVTU(comm, m, &s, n, u, index, out));
  PetscCall(GeomRestoreAll(&Xall, &u));

  nedges = s.nedge + s.nbedge;
  {
    PetscInt nv = 0;
    for (PetscInt v = 0; v < m->nvert; v++) nv += s.kind[v] > 0;
    PetscCall(PetscPrintf(comm,
                          "frames: vertices %" PetscInt_FMT " faces %" PetscInt_FMT " interior_edges %" PetscInt_FMT " euler %" PetscInt_FMT
                          " n %" PetscInt_FMT " problem %s weights %s"
                          " energy %.12e energy_per_area %.12e shift %.3e singularities %" PetscInt_FMT
                          " index_sum %.6f boundary_index_sum %.6f iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                          nv, m->ncell, s.nedge, nv - nedges + m->ncell, n, FramesProblems[problem], FramesWeightsNames[weights], (double)energy,
                          (double)(energy / area), (double)shift_used, nsing, (double)isum, (double)bsum, its, reason, reason_name));
  }

  PetscCall(PetscFree3(conn, params, index));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&mass));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(FrameSurfaceDestroy(&s));
  PetscCall(MfadMeshDestroy(&m));
  if (reason <= 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "frames: the solve did not converge: %s\n", reason_name));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
