// SPDX-License-Identifier: BSD-2-Clause
/* A flip-free start for maps of a disk-topology surface to the plane (parameterisation, ARAP,
   symmetric Dirichlet): Tutte's embedding (MfadEnergyComputeTutteStart, described in
   mfadmeshenergy.h) of the surface's boundary (MfadMeshComputeBoundary, src/mesh/meshboundary.c). */
#include "mfadimpl.h"
#include <mfadmesh.h>
#include <petscksp.h> /* the Laplacian's solve */

/* The 2 x 2 map J = Ds Dm^{-1} of the planar image x (x0, y0, x1, y1, x2, y2) of the rest triangle r
   (3-D), Dm in an orthonormal frame of r's plane: its rest area, and det J */
static PetscReal MfadTriangleAreaDet_Private(const PetscReal r[9], const PetscReal x[6], PetscReal *det)
{
  PetscReal e1[3], e2[3], l1 = 0, dot = 0, a, b, d, c2 = 0, Ds[4], J[4];

  for (int i = 0; i < 3; i++) e1[i] = r[3 + i] - r[i], e2[i] = r[6 + i] - r[i];
  for (int i = 0; i < 3; i++) {
    const PetscReal c = e1[(i + 1) % 3] * e2[(i + 2) % 3] - e1[(i + 2) % 3] * e2[(i + 1) % 3];
    l1 += e1[i] * e1[i], dot += e1[i] * e2[i], c2 += c * c;
  }
  a     = PetscSqrtReal(l1);
  b     = dot / a;
  d     = PetscSqrtReal(c2) / a; /* Dm = [a b; 0 d] */
  Ds[0] = x[2] - x[0], Ds[1] = x[4] - x[0], Ds[2] = x[3] - x[1], Ds[3] = x[5] - x[1];
  J[0] = Ds[0] / a, J[1] = -Ds[0] * b / (a * d) + Ds[1] / d;
  J[2] = Ds[2] / a, J[3] = -Ds[2] * b / (a * d) + Ds[3] / d;
  *det = J[0] * J[3] - J[1] * J[2];
  return 0.5 * a * d;
}

/* The whole of X on every rank: a start is computed once, from a mesh every rank holds whole */
static PetscErrorCode MfadVecGetAll_Private(Vec X, Vec *all, const PetscScalar **x)
{
  VecScatter scatter;

  PetscFunctionBegin;
  PetscCall(VecScatterCreateToAll(X, &scatter, all));
  PetscCall(VecScatterBegin(scatter, X, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(scatter, X, *all, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterDestroy(&scatter));
  PetscCall(VecGetArrayRead(*all, x));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadVecRestoreAll_Private(Vec *all, const PetscScalar **x)
{
  PetscFunctionBegin;
  PetscCall(VecRestoreArrayRead(*all, x));
  PetscCall(VecDestroy(all));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The Laplacian's solver, set in code so that -<prefix>mfad_tutte_ksp_* and _pc_* override it: on one
   rank a sparse Cholesky (PETSc's own, in AMD order where PETSc has AMD, else nested dissection),
   factored once for both coordinates; on several ranks CG + Jacobi to 1e-12. CG + Jacobi on one rank
   (the default before) took 448 iterations per coordinate on armadillo_cut_low (32,121 vertices):
   0.48 s of param's 1.3 s of set-up (-log_view), where the ordering, the factorisation and both
   solves take 0.08-0.12 s; its rtol of 1e-12 also left the start 1e-8 (relative, in the energy)
   from the solution that the factorisation finds to round-off. */
static PetscErrorCode MfadTutteKSPSetDefaults_Private(MPI_Comm comm, KSP ksp)
{
  PC          pc;
  PetscMPIInt size;
  PetscErrorCode (*amd)(void) = NULL;

  PetscFunctionBegin;
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size == 1) {
    PetscCall(KSPSetType(ksp, KSPPREONLY));
    PetscCall(PCSetType(pc, PCCHOLESKY));
    PetscCall(PCFactorSetMatSolverType(pc, MATSOLVERPETSC));
    PetscCall(MatInitializePackage()); /* registers the orderings */
    PetscCall(PetscFunctionListFind(MatOrderingList, MATORDERINGAMD, &amd));
    PetscCall(PCFactorSetMatOrderingType(pc, amd ? MATORDERINGAMD : MATORDERINGND));
  } else {
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetTolerances(ksp, 1e-12, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(PCSetType(pc, PCJACOBI));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The graph Laplacian's rows [vstart, vend): the sum over the triangles of [2 -1 -1; -1 2 -1;
   -1 -1 2] (each edge weight 1 per triangle), written as CSR from the whole mesh, which every rank
   holds, so no entry travels. With MatSetValues() (a cell's 3 x 3 at a time) it took 55 ms of
   param's set-up on armadillo_cut_low, preallocated; with a fixed guess of 8 a row (before) the
   rows that outgrew it reallocated the whole matrix: 0.6 s. Integer sums: exact in any order. */
static PetscErrorCode MfadTutteLaplacian_Private(MPI_Comm comm, MfadMesh m, PetscInt vstart, PetscInt vend, Mat *L)
{
  const PetscInt nloc = vend - vstart;
  PetscInt      *inc, *fill, *ia, *ja, *mark, *where;
  PetscScalar   *a;

  PetscFunctionBegin;
  /* each owned vertex's corners (3 c + k), by vertex */
  PetscCall(PetscCalloc2(nloc + 1, &inc, nloc + 1, &ia));
  for (PetscInt e = 0; e < 3 * m->ncell; e++)
    if (m->cells[e] >= vstart && m->cells[e] < vend) inc[m->cells[e] - vstart + 1]++;
  for (PetscInt v = 0; v < nloc; v++) inc[v + 1] += inc[v];
  PetscCall(PetscMalloc2(inc[nloc], &fill, 3 * inc[nloc], &ja));
  PetscCall(PetscMalloc3(3 * inc[nloc], &a, m->nvert, &mark, m->nvert, &where));
  for (PetscInt v = 0; v < nloc; v++) ia[v] = inc[v];
  for (PetscInt e = 0; e < 3 * m->ncell; e++)
    if (m->cells[e] >= vstart && m->cells[e] < vend) fill[ia[m->cells[e] - vstart]++] = e;
  /* row v: its distinct columns (a mark per vertex), summed, then sorted */
  for (PetscInt w = 0; w < m->nvert; w++) mark[w] = -1;
  ia[0] = 0;
  for (PetscInt v = 0; v < nloc; v++) {
    PetscInt n = 0;
    for (PetscInt i = inc[v]; i < inc[v + 1]; i++) {
      const PetscInt c = fill[i] / 3, k = fill[i] % 3;
      for (PetscInt b = 0; b < 3; b++) {
        const PetscInt col = m->cells[3 * c + b];
        if (mark[col] != v) mark[col] = v, where[col] = ia[v] + n, ja[ia[v] + n] = col, a[ia[v] + n] = 0, n++;
        a[where[col]] += b == k ? 2 : -1;
      }
    }
    PetscCall(PetscSortIntWithScalarArray(n, ja + ia[v], a + ia[v]));
    ia[v + 1] = ia[v] + n;
  }
  PetscCall(MatCreate(comm, L));
  PetscCall(MatSetSizes(*L, nloc, nloc, m->nvert, m->nvert));
  PetscCall(MatSetType(*L, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*L, ia, ja, a)); /* the one of the two for L's type; the other does nothing */
  PetscCall(MatMPIAIJSetPreallocationCSR(*L, ia, ja, a));
  PetscCall(PetscFree2(inc, ia));
  PetscCall(PetscFree2(fill, ja));
  PetscCall(PetscFree3(a, mark, where));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Tutte's embedding: boundary vertices on the unit circle at angles proportional to the boundary's
   arc length, the rest solving the graph Laplacian's equations (each interior edge counted once per
   triangle: positive weights, so Tutte's theorem still gives an embedding). */
static PetscErrorCode MfadTutteEmbedding_Private(MPI_Comm comm, const char prefix[], MfadMesh m, PetscInt vstart, PetscInt vend, Vec U)
{
  PetscInt    *next, b0 = -1, nb = 0, nbv = 0, *rows;
  PetscReal   *theta, len = 0;
  Mat          L, Ld;
  Vec          x, rhs;
  KSP          ksp;
  PetscScalar *u;

  PetscFunctionBegin;
  PetscCall(PetscMalloc3(m->nvert, &next, m->nvert, &theta, m->nvert, &rows));
  PetscCall(MfadMeshComputeBoundary(m, next));
  for (PetscInt v = 0; v < m->nvert && b0 < 0; v++)
    if (next[v] >= 0) b0 = v;
  PetscCheck(b0 >= 0, comm, PETSC_ERR_ARG_WRONG, "MfadEnergyComputeTutteStart: the mesh has no boundary (a disk-topology surface is needed)");
  for (PetscInt v = b0;;) { /* walk the loop from b0: arc length as the angle */
    const PetscInt w = next[v];
    PetscReal      d = 0;
    theta[v]         = len;
    for (int k = 0; k < 3; k++) d += PetscSqr(m->coords[3 * w + k] - m->coords[3 * v + k]);
    len += PetscSqrtReal(d);
    PetscCheck(++nb <= m->nvert && w >= 0, comm, PETSC_ERR_ARG_WRONG,
               "MfadEnergyComputeTutteStart: the boundary is not a loop (the surface is not a manifold)");
    v = w;
    if (v == b0) break;
  }
  for (PetscInt v = 0; v < m->nvert; v++) nbv += next[v] >= 0;
  PetscCheck(nbv == nb, comm, PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeTutteStart: %" PetscInt_FMT " boundary vertices, a loop of %" PetscInt_FMT
             ": the surface is not a disk (several boundaries, or holes)",
             nbv, nb);

  PetscCall(MfadTutteLaplacian_Private(comm, m, vstart, vend, &L));
  PetscCall(MatCreateVecs(L, &x, &rhs));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPAppendOptionsPrefix(ksp, "mfad_tutte_"));
  PetscCall(MfadTutteKSPSetDefaults_Private(comm, ksp));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(MatDuplicate(L, MAT_COPY_VALUES, &Ld));
  PetscCall(VecGetArray(U, &u));
  for (int d = 0; d < 2; d++) {
    PetscInt           nr = 0;
    KSPConvergedReason reason;
    const PetscScalar *xs;
    PetscScalar       *b;
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
    if (d == 0) { /* Ld and its factorisation serve both coordinates */
      PetscCall(MatZeroRowsColumns(Ld, nr, rows, 1.0, x, rhs));
      PetscCall(KSPSetOperators(ksp, Ld, Ld));
    } else { /* the right side MatZeroRowsColumns() forms: -L x off the boundary (x is 0 there), x on it */
      PetscCall(MatMult(L, x, rhs));
      PetscCall(VecScale(rhs, -1));
      PetscCall(VecGetArrayRead(x, &xs));
      PetscCall(VecGetArray(rhs, &b));
      for (PetscInt i = 0; i < nr; i++) b[rows[i] - vstart] = xs[rows[i] - vstart];
      PetscCall(VecRestoreArray(rhs, &b));
      PetscCall(VecRestoreArrayRead(x, &xs));
    }
    PetscCall(KSPSolve(ksp, rhs, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCheck(reason > 0, comm, PETSC_ERR_NOT_CONVERGED,
               "MfadEnergyComputeTutteStart: the Laplacian's solve did not converge (%s): -%smfad_tutte_ksp_* options choose it",
               KSPConvergedReasons[reason], prefix ? prefix : "");
    PetscCall(VecGetArrayRead(x, &xs));
    for (PetscInt v = vstart; v < vend; v++) u[2 * (v - vstart) + d] = xs[v - vstart];
    PetscCall(VecRestoreArrayRead(x, &xs));
  }
  PetscCall(VecRestoreArray(U, &u));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&rhs));
  PetscCall(MatDestroy(&Ld));
  PetscCall(MatDestroy(&L));
  PetscCall(PetscFree3(next, theta, rows));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyComputeTutteStart(MfadEnergy E, MfadMesh m, Vec U)
{
  MPI_Comm    comm;
  const char *prefix;
  PetscInt    cstart, cend, vstart, vend, N, dof;
  PetscReal   loc[2] = {0, 0}, sum[2], area, uarea;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscValidHeaderSpecific(U, VEC_CLASSID, 3);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadMeshCheckSameOnRanks_Private(comm, m, "MfadEnergyComputeTutteStart"));
  MfadValidPointer(m, 2); /* NULL on every rank (one rank's NULL is the error above) */
  PetscCall(MfadEnergyGetOptionsPrefix(E, &prefix));
  PetscCall(MfadEnergyGetSizes(E, &dof, NULL, &N));
  PetscCheck(dof == 2 && N == m->nvert && m->ncorner == 3 && m->dim == 3, comm, PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeTutteStart: needs a triangle surface in 3-D and an energy with 2 unknowns on each of its vertices "
             "(MfadEnergyCreateFromMesh(comm, mesh, 2, &E)); got %" PetscInt_FMT "-cornered cells in %" PetscInt_FMT "-D, %" PetscInt_FMT
             " vertices, and an energy of %" PetscInt_FMT " x %" PetscInt_FMT,
             m->ncorner, m->dim, m->nvert, N, dof);
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  PetscCall(MfadMeshGetCellRange(comm, m, &cstart, &cend));
  /* Tutte, then scaled about the origin to the surface's area (the isometric size) and mirrored
     if the surface's triangles turn clockwise. The free boundary leaves rigid motions free (the
     Hessian singular): fix the first vertex (translation) and the y of the vertex k farthest from
     it, after turning the start about vertex 0 so that y_k = y_0; every minimiser, turned about
     vertex 0 to put k on that line, satisfies this, so the energy's minimum is unchanged. */
  PetscCall(MfadTutteEmbedding_Private(comm, prefix, m, vstart, vend, U));
  {
    Vec                all;
    const PetscScalar *u;
    PetscCall(MfadVecGetAll_Private(U, &all, &u));
    for (PetscInt c = cstart; c < cend; c++) { /* rest area, and the map's signed area */
      PetscReal r[9], x[6], det, A;
      for (int a = 0; a < 3; a++) {
        const PetscInt v = m->cells[3 * c + a];
        for (int d = 0; d < 3; d++) r[3 * a + d] = m->coords[3 * v + d];
        for (int d = 0; d < 2; d++) x[2 * a + d] = PetscRealPart(u[2 * v + d]);
      }
      A = MfadTriangleAreaDet_Private(r, x, &det);
      loc[0] += A;
      loc[1] += A * det;
    }
    PetscCall(MfadVecRestoreAll_Private(&all, &u));
    PetscCall(MPIU_Allreduce(loc, sum, 2, MPIU_REAL, MPIU_SUM, comm));
    area = sum[0], uarea = sum[1];
  }
  PetscCheck(area > 0 && uarea != 0, comm, PETSC_ERR_ARG_WRONG,
             "MfadEnergyComputeTutteStart: the surface (area %g) or its embedding (signed area %g) has no area", (double)area, (double)uarea);
  if (uarea < 0) {
    PetscScalar *u;
    PetscCall(VecGetArray(U, &u));
    for (PetscInt v = vstart; v < vend; v++) u[2 * (v - vstart)] = -u[2 * (v - vstart)];
    PetscCall(VecRestoreArray(U, &u));
  }
  PetscCall(VecScale(U, PetscSqrtReal(area / PetscAbsReal(uarea))));
  {
    Vec                all;
    const PetscScalar *ua;
    PetscScalar       *u;
    PetscInt           k = 0, dofs[3] = {0, 1, 0};
    PetscReal          o[2], c, sn, r = 0, vals[3];
    PetscMPIInt        rank;
    PetscCall(MfadVecGetAll_Private(U, &all, &ua)); /* the same on every rank, so the same k */
    o[0] = PetscRealPart(ua[0]), o[1] = PetscRealPart(ua[1]);
    for (PetscInt v = 1; v < m->nvert; v++) {
      const PetscReal d = PetscSqr(PetscRealPart(ua[2 * v]) - o[0]) + PetscSqr(PetscRealPart(ua[2 * v + 1]) - o[1]);
      if (d > r) r = d, k = v;
    }
    r = PetscSqrtReal(r), c = r > 0 ? (PetscRealPart(ua[2 * k]) - o[0]) / r : 1, sn = r > 0 ? (PetscRealPart(ua[2 * k + 1]) - o[1]) / r : 0;
    PetscCall(MfadVecRestoreAll_Private(&all, &ua));
    PetscCheck(r > 0, comm, PETSC_ERR_PLIB, "MfadEnergyComputeTutteStart: the embedding puts every vertex at vertex 0");
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
