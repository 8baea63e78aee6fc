// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of geommesh.h (declared and described there): part of the examples' compiled helper
   library (petsc-examples/CMakeLists.txt). */
#include "geommesh.h"

PetscErrorCode GeomMeshGrid(PetscInt nx, PetscInt ny, PetscReal x0, PetscReal y0, PetscReal w, PetscReal h, GeomSurface s, MfadMesh *mesh)
{
  MfadMesh m;

  PetscFunctionBegin;
  PetscCheck(nx >= 1 && ny >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "grid %" PetscInt_FMT " x %" PetscInt_FMT ": need at least 1 x 1", nx,
             ny);
  PetscCall(MfadMeshCreate(3, (nx + 1) * (ny + 1), 3, 2 * nx * ny, mesh));
  m = *mesh;
  for (PetscInt j = 0; j <= ny; j++)
    for (PetscInt i = 0; i <= nx; i++) {
      PetscReal *c = &m->coords[3 * (j * (nx + 1) + i)];
      c[0]         = x0 + w * i / nx;
      c[1]         = y0 + h * j / ny;
      c[2]         = GeomSurfaceHeight(s, c[0], c[1]);
    }
  for (PetscInt j = 0; j < ny; j++)
    for (PetscInt i = 0; i < nx; i++) {
      const PetscInt v00 = j * (nx + 1) + i, v10 = v00 + 1, v01 = v00 + nx + 1, v11 = v01 + 1;
      PetscInt      *t = &m->cells[6 * (j * nx + i)];
      /* alternate the diagonal (a "criss-cross" free of a preferred direction) */
      if ((i + j) % 2 == 0) t[0] = v00, t[1] = v10, t[2] = v11, t[3] = v00, t[4] = v11, t[5] = v01;
      else t[0] = v00, t[1] = v10, t[2] = v01, t[3] = v10, t[4] = v11, t[5] = v01;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomMeshRanges(MPI_Comm comm, MfadMesh m, PetscInt *cstart, PetscInt *cend, PetscInt *vstart, PetscInt *vend)
{
  PetscInt nc = PETSC_DECIDE, Nc = m->ncell, nv = PETSC_DECIDE, Nv = m->nvert;

  PetscFunctionBegin;
  PetscCall(PetscSplitOwnership(comm, &nc, &Nc));
  PetscCall(PetscSplitOwnership(comm, &nv, &Nv));
  PetscCallMPI(MPI_Scan(&nc, cend, 1, MPIU_INT, MPI_SUM, comm));
  PetscCallMPI(MPI_Scan(&nv, vend, 1, MPIU_INT, MPI_SUM, comm));
  *cstart = *cend - nc;
  *vstart = *vend - nv;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomGetAll(Vec X, Vec *Xall, const PetscScalar **x)
{
  VecScatter scatter;

  PetscFunctionBegin;
  PetscCall(VecScatterCreateToAll(X, &scatter, Xall));
  PetscCall(VecScatterBegin(scatter, X, *Xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(scatter, X, *Xall, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&scatter));
  PetscCall(VecGetArrayRead(*Xall, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomRestoreAll(Vec *Xall, const PetscScalar **x)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(*Xall, x));
  PetscCall(VecDestroy(Xall));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomMinimizeProblem(MPI_Comm comm, void *ctx, GeomSetSNESFn setsnes, GeomSetTaoFn settao, Vec X, PetscBool use_tao, PetscReal ksp_rtol,
                                   PetscInt max_it, PetscInt *its, PetscInt *reason, const char **reason_name)
{
  PetscFunctionBeginUser;
  *its         = 0;
  *reason      = 0;
  *reason_name = "";
  if (use_tao) {
    Tao                tao;
    TaoConvergedReason r;
    PetscCall(TaoCreate(comm, &tao));
    PetscCall(TaoSetType(tao, TAONLS));
    /* the SNES path's stop, |g| <= 1e-8 |g0|, not TAO's |g| <= 1e-8 |E| (which a mesh's scale
       moves: arap on sock.obj stopped at |g|/|g0| 8.5e-9 or 1.4e-8 as the path varied); TAO's
       absolute 1e-8 kept */
    PetscCall(TaoSetTolerances(tao, 1e-8, 0, 1e-8));
    if (max_it > 0) PetscCall(TaoSetMaximumIterations(tao, max_it));
    PetscCall(settao(ctx, tao));
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
    KSP                 ksp;
    PC                  pc;
    PetscCall(SNESCreate(comm, &snes));
    if (max_it > 0) PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, max_it, PETSC_DEFAULT));
    PetscCall(SNESGetKSP(snes, &ksp));
    PetscCall(KSPSetType(ksp, KSPCG));
    if (ksp_rtol > 0) PetscCall(KSPSetTolerances(ksp, ksp_rtol, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(setsnes(ctx, snes)); /* after CG + Jacobi: it may choose another linear solver */
    PetscCall(SNESSetFromOptions(snes));
    PetscCall(SNESSolve(snes, NULL, X));
    PetscCall(SNESGetIterationNumber(snes, its));
    PetscCall(SNESGetConvergedReason(snes, &r));
    *reason      = r;
    *reason_name = SNESConvergedReasons[r];
    PetscCall(SNESDestroy(&snes));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomSetSNES_Energy(void *E, SNES snes)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergySetSNES((MfadEnergy)E, snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomSetTao_Energy(void *E, Tao tao)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergySetTao((MfadEnergy)E, tao));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomMinimize(MPI_Comm comm, MfadEnergy E, Vec X, PetscBool use_tao, PetscReal ksp_rtol, PetscInt max_it, PetscInt *its,
                            PetscInt *reason, const char **reason_name)
{
  PetscFunctionBeginUser;
  PetscCall(GeomMinimizeProblem(comm, E, GeomSetSNES_Energy, GeomSetTao_Energy, X, use_tao, ksp_rtol, max_it, its, reason, reason_name));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode GeomMeshRead(const char path[], MfadMesh *mesh)
{
  const size_t len = strlen(path);
  const char  *ext = len > 4 ? path + len - 4 : path;

  PetscFunctionBeginUser;
  if (!strcasecmp(ext, ".obj") || !strcasecmp(ext, ".off")) PetscCall(MfadMeshRead(path, mesh));
  else {
    DM         dm;
    PetscInt   nel, nv, vs, ve, *conn;
    PetscReal *rest;
    PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_SELF, path, &dm));
    PetscCall(DMPlexGetDepthStratum(dm, 0, &vs, &ve));
    PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_CELLS, &nel, &nv, &conn, &rest));
    PetscCheck(nv == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG, "%s: need a triangle surface (cells of %" PetscInt_FMT " vertices)", path, nv);
    PetscCall(MfadMeshCreate(3, ve - vs, 3, nel, mesh));
    for (PetscInt e = 0; e < 3 * nel; e++) {
      PetscCheck(conn[e] >= 0 && conn[e] < ve - vs, PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: vertex id %" PetscInt_FMT " outside [0, %" PetscInt_FMT ")",
                 path, conn[e], ve - vs);
      (*mesh)->cells[e] = conn[e];
      for (int d = 0; d < 3; d++) (*mesh)->coords[3 * conn[e] + d] = rest[3 * e + d];
    }
    PetscCall(PetscFree(conn));
    PetscCall(PetscFree(rest));
    PetscCall(DMDestroy(&dm));
  }
  PetscCheck((*mesh)->ncorner == 3 && (*mesh)->dim == 3, PETSC_COMM_SELF, PETSC_ERR_ARG_WRONG,
             "%s: need a triangle surface in 3-D (got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D)", path, (*mesh)->ncorner,
             (*mesh)->dim);
  PetscCall(MfadMeshCheckManifold(*mesh, path));
  PetscFunctionReturn(PETSC_SUCCESS);
}
