// SPDX-License-Identifier: BSD-2-Clause
/* Energies on a distributed DMPlex (described in mfadmeshenergy.h): the energy's layout is the
   DM's vertex numbering (each rank owns the vertices its DM owns), its start point the DM's
   coordinates, its terms the DM's element sets (src/mesh/dmplexsets.c, libmfadmesh). */
#include "mfadimpl.h"
#include <mfadmesh.h>
#include "mesh/mfadmeshimpl.h"

PetscErrorCode MfadEnergyCreateFromDMPlex(DM dm, PetscInt dof, MfadEnergy *E)
{
  PetscInt        vStart, vEnd, n;
  const PetscInt *num;
  IS              is;

  PetscFunctionBegin;
  PetscValidHeaderSpecific(dm, DM_CLASSID, 1);
  MfadValidPointer(E, 3);
  PetscCall(MfadDMPlexVertices_Private(dm, &vStart, &vEnd, &num, &is, &n));
  PetscCall(MfadEnergyCreate(PetscObjectComm((PetscObject)dm), dof, n, PETSC_DETERMINE, E));
  /* DMPlex numbers owned vertices contiguously per rank in rank order, as the energy's layout */
  for (PetscInt v = 0; v < vEnd - vStart; v++)
    PetscCheck(num[v] < 0 || (num[v] >= (*E)->rstart && num[v] < (*E)->rstart + n), PETSC_COMM_SELF, PETSC_ERR_PLIB,
               "MfadEnergyCreateFromDMPlex: owned vertex %" PetscInt_FMT " has global id %" PetscInt_FMT " outside this rank's range [%" PetscInt_FMT
               ", %" PetscInt_FMT ")",
               v + vStart, num[v], (*E)->rstart, (*E)->rstart + n);
  PetscCall(ISRestoreIndices(is, &num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The energy's vertex count must be the DM's: the ids of one are used in the other */
static PetscErrorCode MfadEnergyCheckDMPlex_Private(MfadEnergy E, PetscInt nowned)
{
  PetscFunctionBegin;
  PetscCheck(nowned == E->n, PETSC_COMM_SELF, PETSC_ERR_ARG_INCOMP,
             "MfadEnergy owns %" PetscInt_FMT " vertices on this rank but the DM owns %" PetscInt_FMT
             ": create the energy with MfadEnergyCreateFromDMPlex()",
             E->n, nowned);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCopyCoordinatesFromDMPlex(MfadEnergy E, DM dm, Vec X)
{
  PetscInt           vStart, vEnd, n, cdim;
  const PetscInt    *num;
  const PetscScalar *c;
  PetscScalar       *x;
  PetscSection       cs;
  Vec                coords;
  IS                 is;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscValidHeaderSpecific(dm, DM_CLASSID, 2);
  PetscCall(MfadEnergyCheckVec_Private(E, X, 3, "MfadEnergyCopyCoordinatesFromDMPlex"));
  PetscCall(MfadDMPlexVertices_Private(dm, &vStart, &vEnd, &num, &is, &n));
  PetscCall(MfadEnergyCheckDMPlex_Private(E, n));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(DMGetCoordinateSection(dm, &cs));
  PetscCall(DMGetCoordinatesLocal(dm, &coords));
  PetscCall(VecGetArrayRead(coords, &c));
  PetscCall(VecGetArray(X, &x));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt off;
    if (num[v - vStart] < 0) continue;
    PetscCall(PetscSectionGetOffset(cs, v, &off));
    /* fewer dofs than coordinates keep the first ones; more are zero (a planar mesh in 3-D) */
    for (PetscInt d = 0; d < E->dof; d++) x[(num[v - vStart] - E->rstart) * E->dof + d] = d < cdim ? c[off + d] : 0.0;
  }
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(VecRestoreArrayRead(coords, &c));
  PetscCall(ISRestoreIndices(is, &num));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromDMPlex(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, const PetscReal material[], PetscReal weight,
                                           PetscInt *term)
{
  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscCheck(k && k->name, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_NULL, "MfadEnergyAddTermFromDMPlex: NULL kernel");
  /* reads exactly the kernel's count */
  PetscCall(MfadEnergyAddTermFromDMPlexWithMaterial(E, dm, k, set, k->nmaterial, material, weight, term));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyAddTermFromDMPlexWithMaterial(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, PetscInt nmaterial,
                                                       const PetscReal material[], PetscReal weight, PetscInt *term)
{
  PetscInt        n, nv, cdim, vStart, vEnd, nowned;
  PetscInt       *conn;
  PetscReal      *rest;
  const PetscInt *num;
  IS              is;

  PetscFunctionBegin;
  MfadValidEnergy(E, 1);
  PetscValidHeaderSpecific(dm, DM_CLASSID, 2);
  PetscCheck(k && k->name, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_NULL, "MfadEnergyAddTermFromDMPlex: NULL kernel");
  PetscCall(MfadEnergyCheckMaterialCount_Private(E, k, "MfadEnergyAddTermFromDMPlexWithMaterial", nmaterial, material));
  PetscCall(MfadDMPlexVertices_Private(dm, &vStart, &vEnd, &num, &is, &nowned));
  PetscCall(ISRestoreIndices(is, &num));
  PetscCall(MfadEnergyCheckDMPlex_Private(E, nowned));
  PetscCall(DMGetCoordinateDim(dm, &cdim));
  PetscCall(MfadDMPlexGetElements(dm, set, &n, &nv, &conn, &rest));
  if (nv != k->nvert || (k->rest && k->rest_dim != cdim) || (!k->rest && k->nparam)) {
    PetscCall(PetscFree(conn));
    PetscCall(PetscFree(rest));
    PetscCheck(nv == k->nvert, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_INCOMP,
               "MfadEnergyAddTermFromDMPlex: kernel '%s' takes %d vertices per element but the DM's %s have %" PetscInt_FMT, k->name, k->nvert,
               MfadDMPlexSets[set], nv);
    PetscCheck(!k->rest || k->rest_dim == cdim, PetscObjectComm((PetscObject)E), PETSC_ERR_ARG_INCOMP,
               "MfadEnergyAddTermFromDMPlex: kernel '%s' takes rest shapes of %d coordinates per vertex but the DM has %" PetscInt_FMT, k->name,
               k->rest_dim, cdim);
    SETERRQ(PetscObjectComm((PetscObject)E), PETSC_ERR_SUP,
            "MfadEnergyAddTermFromDMPlex: kernel '%s' takes %d parameters per element and has no rest-shape set-up: use MfadDMPlexGetElements() and "
            "MfadEnergyAddTerm()",
            k->name, k->nparam);
  }
  /* the DM's coordinates are the rest shape where the kernel computes its parameters from one */
  if (k->rest) PetscCall(MfadEnergyAddTermFromRest(E, k, n, n ? conn : NULL, rest, material, weight, term));
  else PetscCall(MfadEnergyAddTerm(E, k, n, n ? conn : NULL, NULL, weight, term));
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree(rest));
  PetscFunctionReturn(PETSC_SUCCESS);
}
