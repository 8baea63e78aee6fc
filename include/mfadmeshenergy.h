// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadmeshenergy.h
  @brief Energies on meshes (libmfad): an energy on an MfadMesh given whole on every rank or on a
         distributed DMPlex, its terms on their cells, its start point from their coordinates, and
         VTK output of a term at a point.

  The glue between the mesh library (mfadmesh.h, libmfadmesh) and the energy (mfad.h, libmfad),
  in libmfad; <mfadmesh.h> includes it.
**/
#ifndef MFADMESHENERGY_H
#define MFADMESHENERGY_H

#include <mfad.h>
#include <mfadmesh.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Writes the cells of `term` (lines, triangles or tets) at the positions X as a VTK
    unstructured grid (.vtu), gathered on rank 0 and written atomically: a temporary
    "<path>.tmp.<pid>", synced, then renamed, so `path` holds the old file or the whole new one.
    The temporary is removed on every error and on a signal that ends the process mid-write
    (SIGINT, SIGTERM and the signals PETSc's handler traps), as MfadVTUWrite() does. Point data:
    "displacement" (X - X0, when X0 is given) and "gradient_norm" (the norm of each vertex's
    gradient of E at X, fixed dofs excluded). dof 2 positions get z = 0. -mfad_vtu_binary (with
    E's prefix; MfadEnergySetVTUBinary()) writes base64 binary arrays instead of ASCII. */
PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, Vec X, Vec X0, const char path[]);
/** @brief The mesh readers' options (-mfad_mesh_max_line, -mfad_mesh_check_manifold,
    -mfad_dmplex_max_degree; no prefix: no energy exists when a mesh is read), listed under -help by
    MfadEnergySetFromOptions(); see MfadOptionTableGetEntry(). libmfad's: its table sits with the
    energy's, which reads them for -help and the check of a missing value. */
PetscErrorCode MfadMeshGetOptionTable(MfadOptionTable *table);

/* ---------------------------------------------------------------- a whole mesh on every rank (libigl's V, F) */

/** @brief An energy on the vertices of `mesh`, which every rank of comm passes whole (vertices and
    cells, as libigl's V and F): each rank owns a contiguous range of the vertices (PETSc's default
    split), `dof` unknowns each. The serial-friendly way in; meshes too big for one process go
    through DMPlex (MfadDMPlexCreateFromFile(), MfadEnergyCreateFromDMPlex()). Collective: ranks
    whose meshes differ (sizes, or hashes of the cells and coordinates; as do
    MfadEnergyAddTermFromMesh() and MfadEnergyComputeTutteStart()) get the same error on every
    rank, naming each rank's sizes. */
PetscErrorCode MfadEnergyCreateFromMesh(MPI_Comm comm, MfadMesh mesh, PetscInt dof, MfadEnergy *E);
/** @brief Adds kernel `k` on the mesh's cells as a term of E (made by MfadEnergyCreateFromMesh()):
    each rank adds a contiguous range of the cells (MfadMeshGetCellRange()), with parameters from
    the mesh's coordinates as rest shape and `material` (a kernel with a rest-shape set-up; one
    without must take no parameters). The term's index in *term (NULL: not wanted). Errors name
    elements by their cell numbers in the mesh. Collective. Reads exactly the kernel's count of
    material constants (MfadKernelGetMaterialCount()): prefer
    MfadEnergyAddTermFromMeshWithMaterial(), which checks the length. */
PetscErrorCode MfadEnergyAddTermFromMesh(MfadEnergy E, MfadMesh mesh, MfadKernel k, const PetscReal material[], PetscReal weight, PetscInt *term);
/** @brief MfadEnergyAddTermFromMesh() with the length of `material` (`nmaterial` constants): a
    count other than the kernel's is an error naming the term, the kernel and both counts. */
PetscErrorCode MfadEnergyAddTermFromMeshWithMaterial(MfadEnergy E, MfadMesh mesh, MfadKernel k, PetscInt nmaterial, const PetscReal material[],
                                                     PetscReal weight, PetscInt *term);
/** @brief This rank's range [cstart, cend) of the mesh's cells, as MfadEnergyAddTermFromMesh() adds them. */
PetscErrorCode MfadMeshGetCellRange(MPI_Comm comm, MfadMesh mesh, PetscInt *cstart, PetscInt *cend);
/** @brief X (E's layout) = the mesh's coordinates: the start point or rest shape (the first `dof`
    coordinates of each vertex; zero beyond the mesh's). */
PetscErrorCode MfadEnergyCopyCoordinatesFromMesh(MfadEnergy E, MfadMesh mesh, Vec X);
/** @brief This rank's range [vstart, vend) of E's vertices (global ids; either may be NULL). */
PetscErrorCode MfadEnergyGetOwnershipRange(MfadEnergy E, PetscInt *vstart, PetscInt *vend);
/** @brief A flip-free start X for a map of a disk-topology triangle surface to the plane (E made by
    MfadEnergyCreateFromMesh(comm, mesh, 2, &E); every rank passes the whole mesh): Tutte's
    embedding (the boundary loop on a circle by arc length, the interior by the graph Laplacian:
    one factorisation, a sparse Cholesky, on one rank, CG + Jacobi to 1e-12 on several;
    -<prefix>mfad_tutte_ksp_* and _pc_* options), scaled to the surface's area and oriented
    counter-clockwise, turned so that the vertex farthest from vertex 0 lies on its horizontal.
    The rigid motions, which leave a map's distortion unchanged, are pinned by 3 fixed dofs set on E (vertex 0, and that vertex's y; MfadEnergySetFixedDofs() replaces
    any set before). A surface with no boundary or more than one loop is an error. Collective. */
PetscErrorCode MfadEnergyComputeTutteStart(MfadEnergy E, MfadMesh mesh, Vec X);
/* ---------------------------------------------------------------- DMPlex */

/** @brief An energy on the DM's vertices: each rank owns the vertices its DM owns (point SF),
    numbered contiguously per rank as DMPlexGetVertexNumbering() numbers them. */
PetscErrorCode MfadEnergyCreateFromDMPlex(DM dm, PetscInt dof, MfadEnergy *E);
/** @brief X (E's layout) = the DM's vertex coordinates (the first `dof` of them; zero beyond the
    DM's coordinate dimension). Use as the rest shape and starting point. */
PetscErrorCode MfadEnergyCopyCoordinatesFromDMPlex(MfadEnergy E, DM dm, Vec X);
/** @brief Adds kernel `k` on the DM's element set `set` as a term of E (made by
    MfadEnergyCreateFromDMPlex()). A kernel with a rest-shape set-up gets the DM's coordinates as
    rest shape and `material`; otherwise it must take no parameters. Collective. Reads exactly the
    kernel's count of material constants (MfadKernelGetMaterialCount()): prefer
    MfadEnergyAddTermFromDMPlexWithMaterial(), which checks the length. */
PetscErrorCode MfadEnergyAddTermFromDMPlex(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, const PetscReal material[], PetscReal weight,
                                           PetscInt *term);
/** @brief MfadEnergyAddTermFromDMPlex() with the length of `material` (`nmaterial` constants): a
    count other than the kernel's is an error naming the term, the kernel and both counts. */
PetscErrorCode MfadEnergyAddTermFromDMPlexWithMaterial(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, PetscInt nmaterial,
                                                       const PetscReal material[], PetscReal weight, PetscInt *term);

#ifdef __cplusplus
}
#endif

#endif /* MFADMESHENERGY_H */
