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

PetscErrorCode GeomMeshBoundary(MfadMesh m, PetscInt next[])
{
  PetscInt *key, *perm, ne = 3 * m->ncell;

  PetscFunctionBegin;
  PetscCall(PetscMalloc2(ne, &key, ne, &perm));
  for (PetscInt v = 0; v < m->nvert; v++) next[v] = -1;
  /* an undirected edge's key is min * nvert + max; an edge whose key appears once is a boundary edge */
  for (PetscInt e = 0; e < ne; e++) {
    const PetscInt a = m->cells[e], b = m->cells[3 * (e / 3) + (e % 3 + 1) % 3];
    key[e]  = PetscMin(a, b) * m->nvert + PetscMax(a, b);
    perm[e] = e;
  }
  PetscCall(PetscSortIntWithArray(ne, key, perm));
  for (PetscInt e = 0; e < ne; e++) {
    const PetscBool twin = (e > 0 && key[e - 1] == key[e]) || (e + 1 < ne && key[e + 1] == key[e]);
    if (!twin) {
      const PetscInt f  = perm[e];
      next[m->cells[f]] = m->cells[3 * (f / 3) + (f % 3 + 1) % 3];
    }
  }
  PetscCall(PetscFree2(key, perm));
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
                                   PetscInt *its, PetscInt *reason, const char **reason_name)
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

PetscErrorCode GeomMinimize(MPI_Comm comm, MfadEnergy E, Vec X, PetscBool use_tao, PetscReal ksp_rtol, PetscInt *its, PetscInt *reason,
                            const char **reason_name)
{
  PetscFunctionBeginUser;
  PetscCall(GeomMinimizeProblem(comm, E, GeomSetSNES_Energy, GeomSetTao_Energy, X, use_tao, ksp_rtol, its, reason, reason_name));
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
  PetscCheck(b0 >= 0, comm, PETSC_ERR_ARG_WRONG, "the mesh has no boundary (a disk-topology surface is needed)");
  /* walk the boundary loop from b0, arc length as the angle */
  for (PetscInt v = b0;;) {
    const PetscInt w = next[v];
    PetscReal      d = 0;
    theta[v]         = len;
    for (int k = 0; k < 3; k++) d += PetscSqr(m->coords[3 * w + k] - m->coords[3 * v + k]);
    len += PetscSqrtReal(d);
    nb++;
    PetscCheck(nb <= m->nvert, comm, PETSC_ERR_ARG_WRONG, "the boundary is not one loop (mesh not manifold?)");
    v = w;
    if (v == b0) break;
  }
  {
    PetscInt c = 0;
    for (PetscInt v = 0; v < m->nvert; v++) c += next[v] >= 0;
    PetscCheck(c == nb, comm, PETSC_ERR_ARG_WRONG,
               "%" PetscInt_FMT " boundary vertices, one loop of %" PetscInt_FMT ": the surface is not a disk", c, nb);
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

PetscErrorCode GeomTutteStart(MPI_Comm comm, MfadMesh m, MfadEnergy E, Vec U)
{
  PetscInt  cstart, cend, vstart, vend;
  PetscReal loc[2] = {0, 0}, sum[2], area, uarea;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend));
  /* Tutte, then scaled about the origin to the surface's area (the isometric size) and mirrored
     if the surface's triangles turn clockwise. The free boundary leaves rigid motions free (the
     Hessian singular): fix the first vertex (translation) and the y of the vertex k farthest from
     it, after turning the start about vertex 0 so that y_k = y_0; every minimiser, turned about
     vertex 0 to put k on that line, satisfies this, so the energy's minimum is unchanged. */
  PetscCall(TutteEmbedding(comm, m, cstart, cend, vstart, vend, U));
  {
    Vec                Uall;
    const PetscScalar *u;
    PetscCall(GeomGetAll(U, &Uall, &u));
    for (PetscInt c = cstart; c < cend; c++) { /* rest area, and the map's signed area */
      PetscReal r[9], x[6], J[4], A;
      for (int a = 0; a < 3; a++) {
        const PetscInt v = m->cells[3 * c + a];
        for (int d = 0; d < 3; d++) r[3 * a + d] = m->coords[3 * v + d];
        for (int d = 0; d < 2; d++) x[2 * a + d] = PetscRealPart(u[2 * v + d]);
      }
      A = GeomTriangleMap(r, x, J);
      loc[0] += A;
      loc[1] += A * (J[0] * J[3] - J[1] * J[2]);
    }
    PetscCall(GeomRestoreAll(&Uall, &u));
    PetscCall(MPIU_Allreduce(loc, sum, 2, MPIU_REAL, MPIU_SUM, comm));
    area = sum[0], uarea = sum[1];
  }
  if (uarea < 0) {
    PetscScalar *u;
    PetscCall(VecGetArray(U, &u));
    for (PetscInt v = vstart; v < vend; v++) u[2 * (v - vstart)] = -u[2 * (v - vstart)];
    PetscCall(VecRestoreArray(U, &u));
  }
  PetscCall(VecScale(U, PetscSqrtReal(area / PetscAbsReal(uarea))));
  {
    Vec                Uall;
    const PetscScalar *ua;
    PetscScalar       *u;
    PetscInt           k = 0, dofs[3] = {0, 1, 0};
    PetscReal          o[2], c, sn, r = 0, vals[3];
    PetscMPIInt        rank;
    PetscCall(GeomGetAll(U, &Uall, &ua)); /* the same on every rank, so the same k */
    o[0] = PetscRealPart(ua[0]), o[1] = PetscRealPart(ua[1]);
    for (PetscInt v = 1; v < m->nvert; v++) {
      const PetscReal d = PetscSqr(PetscRealPart(ua[2 * v]) - o[0]) + PetscSqr(PetscRealPart(ua[2 * v + 1]) - o[1]);
      if (d > r) r = d, k = v;
    }
    PetscCheck(r > 0, comm, PETSC_ERR_PLIB, "the Tutte embedding puts every vertex at vertex 0");
    r = PetscSqrtReal(r), c = (PetscRealPart(ua[2 * k]) - o[0]) / r, sn = (PetscRealPart(ua[2 * k + 1]) - o[1]) / r;
    PetscCall(GeomRestoreAll(&Uall, &ua));
    PetscCall(VecGetArray(U, &u));
    for (PetscInt v = 0; v < vend - vstart; v++) { /* turn by minus the angle of (u_k - u_0) */
      const PetscReal x = PetscRealPart(u[2 * v]) - o[0], y = PetscRealPart(u[2 * v + 1]) - o[1];
      u[2 * v] = o[0] + c * x + sn * y, u[2 * v + 1] = o[1] - sn * x + c * y;
    }
    PetscCall(VecRestoreArray(U, &u));
    dofs[2] = 2 * k + 1, vals[0] = o[0], vals[1] = o[1], vals[2] = o[1];
    PetscCallMPI(MPI_Comm_rank(comm, &rank));
    PetscCall(MfadEnergySetFixedDofs(E, rank == 0 ? 3 : 0, dofs, vals));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
