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
/* Every reader: PETSC_ERR_FILE_OPEN when the file cannot be opened; PETSC_ERR_FILE_UNEXPECTED
   "<path>:<line>: <what was wrong>" for malformed content (truncated, counts that disagree
   with the data, non-numeric or non-finite numbers, indices out of range, a repeated vertex in a
   face or cell, an empty mesh); PETSC_ERR_SUP for format variants mfad does not read. '#'
   comments, blank lines, CRLF line ends and lines of any length are fine. With the option
   -mfad_mesh_check_manifold every reader also runs MfadMeshCheckManifold() (error lines then
   name the cells' lines in the file). */

/** @brief Reads a Wavefront OBJ surface into *mesh (3-D triangles).
    `v x y z [w]` (and `v x y z r g b`) and `f` records (v, v/t, v/t/n, v//n corners, negative
    indices count back from the last vertex read); polygons are fan-triangulated (exact for
    convex ones); vt, vn, o, g, s, usemtl, mtllib, l, p and free-form records are skipped;
    any other record is an error.
    @param[in]  path the .obj file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadOBJ(const char path[], MfadMesh *mesh);
/** @brief Reads an ASCII OFF surface into *mesh (3-D triangles): header keyword (OFF, or the
    ST/C/N variants, whose extra vertex data are ignored; optional), counts, vertices, faces
    (polygons fan-triangulated, trailing face colours ignored); 4OFF, nOFF and binary OFF are
    PETSC_ERR_SUP.
    @param[in]  path the .off file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadOFF(const char path[], MfadMesh *mesh);
/** @brief Reads a TetGen mesh: `path` is the base name or its .node or .ele file; tets with
    region attributes as cell tags and boundary markers as vertex tags where present. */
PetscErrorCode MfadMeshReadTetGen(const char path[], MfadMesh *mesh);
/** @brief Reads any of the above by the file's extension (.obj, .off, .node, .ele). */
PetscErrorCode MfadMeshRead(const char path[], MfadMesh *mesh);
/** @brief Checks that the mesh is a manifold where it matters: no edge of a triangle surface
    in more than 2 triangles (what parameterisation and bending energies need), no face of a
    tet mesh in more than 2 tets. Use it after reading a surface for such energies; the
    readers call it themselves only with -mfad_mesh_check_manifold.
    @param[in] mesh the mesh
    @param[in] path a name for the error message (the file it came from), or NULL
    @return PETSC_ERR_ARG_WRONG "<path>: edge 3-7 is shared by 3 triangles (cells 1, 4, 9) ..."
            naming 0-based vertex and cell ids */
PetscErrorCode MfadMeshCheckManifold(MfadMesh mesh, const char path[]);

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
