// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyWriteVTU: a term's cells at a point X as one VTK XML unstructured grid, gathered on
   rank 0 (PETSc's to-zero scatter for the vertex fields, a gather for the cells) and written there
   by the mesh library's MfadVTUWrite (src/mesh/vtu.c: a temporary file, synced and renamed, removed
   on errors and signals). */
#include <mfadmesh.h>
#include "mfadimpl.h"

PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, Vec X, Vec X0, const char path[])
{
  PetscMPIInt        rank, size, nloc, *counts = NULL, *displs = NULL;
  PetscInt           nv, ncell = 0, dof;
  PetscBool          binary = PETSC_FALSE;
  Vec                G, Xz, Gz, X0z = NULL;
  VecScatter         toz;
  PetscInt          *mine, *cells = NULL;
  PetscErrorCode     ierr = PETSC_SUCCESS;
  const MfadTerm    *t;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  MfadValidPointer(path, 5);
  PetscCheck(term >= 0 && term < E->nterms, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: term %" PetscInt_FMT " does not exist (the energy has %" PetscInt_FMT " terms)", term, E->nterms);
  t   = &E->terms[term];
  nv  = t->k->ncellvert; /* the cell; further element vertices (rotation nodes) are not geometry */
  dof = E->dof;
  PetscCheck(nv >= 1 && nv <= 4, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, "MfadEnergyWriteVTU: term '%s' has %" PetscInt_FMT "-vertex elements; VTK cells are written for 1 to 4 vertices (points, lines, triangles, tets)", t->name, nv);
  PetscCheck(dof == 2 || dof == 3, PetscObjectComm((PetscObject)E), PETSC_ERR_SUP, "MfadEnergyWriteVTU: %" PetscInt_FMT " dofs per vertex are not positions (2 or 3 needed)", dof);
  PetscCall(MfadEnergySetUp(E)); /* the options read, -mfad_vtu_binary among them */
  binary = E->opt.vtu_binary;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)E), &rank));
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)E), &size));

  /* vertex fields on rank 0: positions, displacement, gradient (fixed dofs zeroed: their
     "gradient" is the constraint residual, not a force) */
  PetscCall(MfadEnergyCreateVecs(E, NULL, &G));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  if (E->local.nfixown) {
    PetscScalar *g;
    PetscCall(VecGetArray(G, &g));
    for (PetscInt i = 0; i < E->local.nfixown; i++) g[E->local.fixloc[i]] = 0;
    PetscCall(VecRestoreArray(G, &g));
  }
  PetscCall(VecScatterCreateToZero(X, &toz, &Xz));
  PetscCall(VecDuplicate(Xz, &Gz));
  PetscCall(VecScatterBegin(toz, X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(toz, G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  if (X0) {
    PetscCall(MfadEnergyCheckVec_Private(E, X0, 4, "MfadEnergyWriteVTU"));
    PetscCall(VecDuplicate(Xz, &X0z));
    PetscCall(VecScatterBegin(toz, X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
    PetscCall(VecScatterEnd(toz, X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
  }
  PetscCall(VecScatterDestroy(&toz));

  /* cells on rank 0, in each rank's order */
  PetscCheck((PetscInt64)t->nelem * nv < PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: too many cells on one rank to gather");
  PetscCall(PetscMPIIntCast(t->nelem * nv, &nloc));
  PetscCall(PetscMalloc1(t->nelem * nv, &mine));
  for (PetscInt e = 0; e < t->nelem; e++)
    for (PetscInt a = 0; a < nv; a++) mine[e * nv + a] = t->conn_global[e * t->k->nvert + a];
  if (rank == 0) PetscCall(PetscMalloc2(size, &counts, size + 1, &displs));
  PetscCallMPI(MPI_Gather(&nloc, 1, MPI_INT, counts, 1, MPI_INT, 0, PetscObjectComm((PetscObject)E)));
  if (rank == 0) {
    PetscInt64 total = 0;
    displs[0]        = 0;
    for (PetscMPIInt r = 0; r < size; r++) total += counts[r];
    PetscCheck(total < PETSC_MPI_INT_MAX, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadEnergyWriteVTU: %" PetscInt64_FMT " cell entries are too many to gather on one rank", total);
    for (PetscMPIInt r = 0; r < size; r++) displs[r + 1] = displs[r] + counts[r];
    ncell = (PetscInt)(total / nv);
    PetscCall(PetscMalloc1(total, &cells));
  }
  PetscCallMPI(MPI_Gatherv(mine, nloc, MPIU_INT, cells, counts, displs, MPIU_INT, 0, PetscObjectComm((PetscObject)E)));
  PetscCall(PetscFree(mine));

  if (rank == 0) {
    const PetscScalar *x, *g, *x0 = NULL;
    PetscReal         *pts, *disp = NULL, *gnorm;
    MfadVTUField       fields[2];
    PetscInt           nfield = 0;
    PetscCall(VecGetArrayRead(Xz, &x));
    PetscCall(VecGetArrayRead(Gz, &g));
    if (X0z) PetscCall(VecGetArrayRead(X0z, &x0));
    PetscInt *id, npts = 0;
    /* points: the vertices the cells use, in vertex order (an energy's other vertices, e.g.
       rotation nodes, are unknowns but not points); cells renumbered to them */
    PetscCall(PetscMalloc1(E->N, &id));
    for (PetscInt v = 0; v < E->N; v++) id[v] = -1;
    for (PetscInt i = 0; i < ncell * nv; i++) id[cells[i]] = 0;
    for (PetscInt v = 0; v < E->N; v++)
      if (!id[v]) id[v] = npts++;
    for (PetscInt i = 0; i < ncell * nv; i++) cells[i] = id[cells[i]];
    PetscCall(PetscCalloc2(3 * npts, &pts, npts, &gnorm));
    if (x0) PetscCall(PetscCalloc1(3 * npts, &disp));
    for (PetscInt v = 0; v < E->N; v++) {
      const PetscInt q = id[v];
      double         s = 0;
      if (q < 0) continue;
      for (PetscInt d = 0; d < dof; d++) {
        pts[3 * q + d] = PetscRealPart(x[v * dof + d]);
        if (disp) disp[3 * q + d] = PetscRealPart(x[v * dof + d] - x0[v * dof + d]);
        s += PetscRealPart(g[v * dof + d] * g[v * dof + d]);
      }
      gnorm[q] = sqrt(s);
    }
    PetscCall(PetscFree(id));
    PetscCall(VecRestoreArrayRead(Xz, &x));
    PetscCall(VecRestoreArrayRead(Gz, &g));
    if (X0z) PetscCall(VecRestoreArrayRead(X0z, &x0));
    if (disp) {
      fields[nfield].name  = "displacement";
      fields[nfield].ncomp = 3;
      fields[nfield].data  = disp;
      nfield++;
    }
    fields[nfield].name  = "gradient_norm";
    fields[nfield].ncomp = 1;
    fields[nfield].data  = gnorm;
    nfield++;
    /* the error (a write failure) must reach every rank: broadcast it instead of returning alone */
    ierr = MfadVTUWrite(path, npts, pts, ncell, nv, cells, nfield, fields, binary);
    PetscCall(PetscFree2(pts, gnorm));
    PetscCall(PetscFree(disp));
    PetscCall(PetscFree(cells));
    PetscCall(PetscFree2(counts, displs));
  }
  PetscCallMPI(MPI_Bcast(&ierr, 1, MPI_INT, 0, PetscObjectComm((PetscObject)E)));
  PetscCall(VecDestroy(&Xz));
  PetscCall(VecDestroy(&Gz));
  PetscCall(VecDestroy(&X0z));
  PetscCall(VecDestroy(&G));
  PetscCheck(!ierr, PetscObjectComm((PetscObject)E), PETSC_ERR_FILE_WRITE, "MfadEnergyWriteVTU: could not write %s (see the message above)", path);
  PetscFunctionReturn(PETSC_SUCCESS);
}
