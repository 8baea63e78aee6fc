// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadmesh.h
  @brief Meshes for mfad: file readers (OBJ, OFF, TetGen; Gmsh and PLY through DMPlex), DMPlex
         distribution and element sets, and VTK output of a solution.

  Readers are serial: one process reads a whole file into an MfadMesh (vertices, cells of one
  kind, optional tags). Bad files are PETSc errors naming the file and line.
**/
#ifndef MFADMESH_H
#define MFADMESH_H

#include <mfad.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A mesh as read from a file: vertices and cells of one kind (triangles or tets), 0-based. */
typedef struct _n_MfadMesh *MfadMesh;
struct _n_MfadMesh {
  PetscInt   dim;         /**< coordinates per vertex (3; 2 for planar files) */
  PetscInt   nvert;       /**< vertices */
  PetscInt   ncell;       /**< cells */
  PetscInt   ncorner;     /**< vertices per cell: 3 (triangles) or 4 (tets) */
  PetscReal *coords;      /**< nvert * dim coordinates */
  PetscInt  *cells;       /**< ncell * ncorner vertex ids in [0, nvert) */
  PetscInt  *cell_tags;   /**< ncell region tags (TetGen attribute, Gmsh physical group), or NULL */
  PetscInt  *vertex_tags; /**< nvert boundary markers (TetGen), or NULL */
};

/** @brief Allocates a mesh with room for nvert vertices and ncell cells (tags NULL). */
PetscErrorCode MfadMeshCreate(PetscInt dim, PetscInt nvert, PetscInt ncorner, PetscInt ncell, MfadMesh *mesh);
/** @brief Frees the mesh and sets *mesh to NULL. */
PetscErrorCode MfadMeshDestroy(MfadMesh *mesh);
/** @brief Reads a Wavefront OBJ surface: `v` and `f` lines (v, v/t, v/t/n, v//n and negative
    indices); polygons are fan-triangulated; other records are ignored. */
PetscErrorCode MfadMeshReadOBJ(const char path[], MfadMesh *mesh);
/** @brief Reads an OFF surface (triangles; polygons fan-triangulated). */
PetscErrorCode MfadMeshReadOFF(const char path[], MfadMesh *mesh);
/** @brief Reads a TetGen mesh: `path` is the base name or its .node or .ele file; tets with
    region attributes as cell tags and boundary markers as vertex tags where present. */
PetscErrorCode MfadMeshReadTetGen(const char path[], MfadMesh *mesh);
/** @brief Reads any of the above by the file's extension (.obj, .off, .node, .ele). */
PetscErrorCode MfadMeshRead(const char path[], MfadMesh *mesh);

/** @brief Writes the cells of `term` (lines, triangles or tets) at the positions X as a VTK
    unstructured grid (.vtu), gathered on rank 0 and written atomically (temporary file, then
    rename). Point data: "displacement" (X - X0, when X0 is given) and "gradient_norm" (the norm
    of each vertex's gradient of E at X, fixed dofs excluded). dof 2 positions get z = 0.
    -mfad_vtu_binary (with E's prefix) writes base64 binary arrays instead of ASCII. */
PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, Vec X, Vec X0, const char path[]);

#ifdef __cplusplus
}
#endif

#endif /* MFADMESH_H */
