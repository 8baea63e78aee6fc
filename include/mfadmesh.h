// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadmesh.h
  @brief Meshes for mfad, the library libmfadmesh: file readers (OBJ, OFF, TetGen, Gmsh, Medit;
         PLY through DMPlex), generated meshes, mesh checks, DMPlex distribution and element
         sets, and VTK output of arrays.

  Readers are serial: one process reads a whole file into an MfadMesh (vertices, cells of one
  kind, optional tags). Bad files are PETSc errors naming the file and line.

  libmfadmesh needs PETSc, not the AD core: a program of meshes alone links it only
  (`mfad::mfadmesh`, `pkg-config --libs mfadmesh`). This header also declares, at its end, the
  glue between meshes and energies of libmfad (mfadmeshenergy.h: MfadEnergyCreateFromMesh(),
  MfadEnergyWriteVTU(), ...), as it always has; such a program may define MFADMESH_ONLY before
  including it to see the mesh library's API alone.
**/
#ifndef MFADMESH_H
#define MFADMESH_H

#include <petscdmplex.h>
#include <mfadmeshbox.h>

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
  PetscInt  *cell_tags;   /**< ncell region tags (TetGen attribute, Gmsh physical group, Medit reference), or NULL */
  PetscInt  *vertex_tags; /**< nvert boundary markers (TetGen), references (Medit), or NULL */
};

/** @brief Allocates a mesh with room for nvert vertices and ncell cells (tags NULL). */
PetscErrorCode MfadMeshCreate(PetscInt dim, PetscInt nvert, PetscInt ncorner, PetscInt ncell, MfadMesh *mesh);
/** @brief Frees the mesh and sets *mesh to NULL. */
PetscErrorCode MfadMeshDestroy(MfadMesh *mesh);
/* Every reader: PETSC_ERR_FILE_OPEN when the file cannot be opened; PETSC_ERR_FILE_UNEXPECTED
   "<path>:<line>: <what was wrong>" for malformed content (truncated, counts that disagree
   with the data, non-numeric or non-finite numbers, indices out of range, a repeated vertex in a
   face or cell, an empty mesh); PETSC_ERR_SUP for format variants mfad does not read. '#'
   comments, blank lines, CRLF line ends and lines of any length are fine. A tet mesh with a face
   in more than 2 tets is an error; with the option -mfad_mesh_check_manifold every reader also
   runs MfadMeshCheckManifold() on surfaces (error lines name the cells' lines in the file).
   Vertices in no cell (a stray point in an exported file) are dropped and the others renumbered
   in the file's order, tags following, with a note under -info: such a vertex would be an unknown
   no energy touches, refused by MfadEnergySetUp(). */

/** @brief Reads a Wavefront OBJ surface into *mesh (3-D triangles).
    `v x y z [w]` (and `v x y z r g b`) and `f` records (v, v/t, v/t/n, v//n corners, negative
    indices count back from the last vertex read); convex polygons are fanned,
    non-convex ones ear-clipped, and a polygon (4 or more corners) with no area or crossing itself is an
    error (a triangle with no area is read: the energies that need its area refuse it at their rest set-up); vt, vn, o, g, s, usemtl, mtllib, l, p and free-form records are skipped;
    any other record is an error.
    @param[in]  path the .obj file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadOBJ(const char path[], MfadMesh *mesh);
/** @brief Reads an ASCII OFF surface into *mesh (3-D triangles): header keyword (OFF, or the
    ST/C/N variants, whose extra vertex data are ignored; optional), counts, vertices, faces
    (polygons triangulated as for OBJ, trailing face colours ignored); 4OFF, nOFF and binary OFF are
    PETSC_ERR_SUP.
    @param[in]  path the .off file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadOFF(const char path[], MfadMesh *mesh);
/** @brief Reads a TetGen mesh (tetgen's .node and .ele files) into *mesh (3-D tets).
    Numbered from 0 or 1 as the .node file's first point says (tetgen -z); records must be
    numbered consecutively. The first .ele attribute (tetgen -A: the region) becomes cell_tags,
    .node boundary markers become vertex_tags, where the files have them; point attributes are
    read and ignored; 10-node tets (tetgen -o2) keep their 4 corners (the midpoints, in no cell, are dropped).
    @param[in]  path the base name (`mesh.1`) or its .node or .ele file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadTetGen(const char path[], MfadMesh *mesh);
/** @brief Reads a Gmsh mesh (MSH 2.2 or 4.1, ASCII or binary) into *mesh: the tets if the file has any,
    else its triangles (boundary triangles, lines and points are checked and dropped; higher-order
    elements keep their corners); only the nodes of those cells become vertices, in the file's
    order. Physical groups (2.2: an element's first tag; 4.1: its entity's first physical tag)
    become cell_tags where the file has them. Every node reference, count and section end is
    checked; MSH 1, 3 and 4.0, binary files of data size other than 8 or in the other byte order,
    and meshes whose cells are quads, hexahedra, prisms or pyramids are PETSC_ERR_SUP. Error
    messages name nodes by their tags, and the file's lines (binary data included).
    @param[in]  path the .msh file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadGmsh(const char path[], MfadMesh *mesh);
/** @brief Reads a Medit .mesh file (ASCII, MeshVersionFormatted 1 or 2, Dimension 3 or 2) into
    *mesh: its Tetrahedra if it has any (Triangles, Edges and the other sections are checked and
    dropped), else its Triangles. Keywords in any case, numbers free across lines, '#' comments.
    Element references become cell_tags, vertex references vertex_tags. Hexahedra, prisms and
    pyramids, and quadrilaterals without tets, are PETSC_ERR_SUP.
    @param[in]  path the .mesh file
    @param[out] mesh the new mesh (MfadMeshDestroy() it) */
PetscErrorCode MfadMeshReadMedit(const char path[], MfadMesh *mesh);
/** @brief Reads a mesh with the reader its extension names (.obj, .off, .node, .ele, .msh or
    .mesh, any case); other extensions are PETSC_ERR_SUP (PLY files go through DMPlex). */
PetscErrorCode MfadMeshRead(const char path[], MfadMesh *mesh);
/** @brief Checks that the mesh is a manifold where it matters: no edge of a triangle surface
    in more than 2 triangles (what parameterisation and bending energies need), no face of a
    tet mesh in more than 2 tets. Use it after reading a surface for such energies; the
    readers call it themselves on tet meshes, and on surfaces with -mfad_mesh_check_manifold.
    @param[in] mesh the mesh
    @param[in] path a name for the error message (the file it came from), or NULL
    @return PETSC_ERR_ARG_WRONG "<path>: edge 3-7 is shared by 3 triangles (cells 1, 4, 9) ..."
            naming 0-based vertex and cell ids */
PetscErrorCode MfadMeshCheckManifold(MfadMesh mesh, const char path[]);
/** @brief The boundary of a triangle surface as a successor map: next[v] (nvert entries, the caller's
    memory) is the vertex that follows v along the boundary edge leaving it, in the direction of
    the triangles' orientation; -1 for a vertex on no boundary edge. A boundary edge is one used
    by one triangle only; a vertex where two boundary loops touch keeps one successor. */
PetscErrorCode MfadMeshComputeBoundary(MfadMesh mesh, PetscInt next[]);

/** @brief A box [lo, hi] of nx * ny * nz cubes, each cut into 6 positively oriented tets (Kuhn),
    vertex (i, j, k) numbered i + (nx + 1) (j + (ny + 1) k). */
PetscErrorCode MfadMeshCreateBox(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], MfadMesh *mesh);

/* ---------------------------------------------------------------- VTK output of arrays */

/** A field of point data for MfadVTUWrite(): `ncomp` values per point (1: a scalar, 3: a vector). */
typedef struct {
  const char      *name;  /**< the DataArray's Name */
  PetscInt         ncomp; /**< components per point: 1 to 9 */
  const PetscReal *data;  /**< npoints * ncomp values, point after point */
} MfadVTUField;

/** @brief Writes points, cells and point data as a VTK unstructured grid (.vtu) from this process
    alone (gather first for a distributed field), atomically: a temporary "<path>.tmp.<pid>",
    synced, then renamed, so `path` holds the old file or the whole new one. The temporary is
    removed on every error and on a signal that ends the process mid-write (SIGINT, SIGTERM and
    the signals PETSc's handler traps; src/mesh/vtu.c says how). Use it to write what a mesh
    program computed; MfadEnergyWriteVTU() writes an energy's term and gradient through it.
    @param[in] path    the file
    @param[in] npoints points
    @param[in] points  npoints * 3 coordinates (2-D data: z = 0)
    @param[in] ncell   cells
    @param[in] nv      vertices per cell: 1 (points), 2 (lines), 3 (triangles) or 4 (tets)
    @param[in] cells   ncell * nv point ids in [0, npoints)
    @param[in] nfield  point-data fields; the first of 3 components is the grid's Vectors
    @param[in] fields  the fields (NULL when nfield is 0)
    @param[in] binary  PETSC_TRUE: base64 binary arrays; PETSC_FALSE: ASCII */
PetscErrorCode MfadVTUWrite(const char path[], PetscInt npoints, const PetscReal points[], PetscInt ncell, PetscInt nv, const PetscInt cells[],
                            PetscInt nfield, const MfadVTUField fields[], PetscBool binary);
/** @brief Writes the mesh (its vertices and cells; 2-D coordinates get z = 0) with point data
    `fields` (nvert values per component) as MfadVTUWrite() does.
    @param[in] mesh   the mesh
    @param[in] nfield point-data fields
    @param[in] fields the fields (NULL when nfield is 0)
    @param[in] binary base64 binary arrays (PETSC_TRUE) or ASCII
    @param[in] path   the file */
PetscErrorCode MfadMeshWriteVTU(MfadMesh mesh, PetscInt nfield, const MfadVTUField fields[], PetscBool binary, const char path[]);

/* ---------------------------------------------------------------- DMPlex: distribution and element sets */

/** Element sets of a DMPlex that become terms (MfadEnergyAddTermFromDMPlex()). */
typedef enum {
  MFAD_DMPLEX_CELLS      = 0, /**< the cells: tets of a 3-D DM (positively oriented), triangles of a surface (in their orientation) */
  MFAD_DMPLEX_EDGES      = 1, /**< the edges (2 vertices): springs */
  MFAD_DMPLEX_EDGE_PAIRS = 2  /**< interior edges of a triangle surface with their two triangles (4 vertices): bending stencils
                                   (e0, e1, o0, o1), triangle (e0, e1, o0) in its orientation, o1 opposite in the other triangle */
} MfadDMPlexSet;
extern const char *const MfadDMPlexSets[];

/** @brief A DMPlex (interpolated, on `comm`, all cells on rank 0) from rank 0's `mesh` (other
    ranks may pass NULL). Distribute it with MfadDMPlexDistribute(). */
PetscErrorCode MfadDMPlexCreateFromMesh(MPI_Comm comm, MfadMesh mesh, DM *dm);
/** @brief Partitions and distributes `*dm` in place with PETSc's partitioner: PTScotch unless
    -petscpartitioner_type says otherwise. `overlap` 1 (cells sharing a vertex with a rank's own)
    gives every rank the whole star of what it owns, which edge pairs and vertex neighbours need.
    A vertex of more edges than PETSc's DMPlex can size (215 in a tet mesh, 1290 in a triangle
    mesh with 32-bit PetscInt) is an error naming it, on any number of ranks; -mfad_dmplex_max_degree
    sets a lower limit (never a higher one). */
PetscErrorCode MfadDMPlexDistribute(DM *dm, PetscInt overlap);
/** @brief Reads a mesh into a distributed DMPlex (overlap 1): .obj, .off, .node, .ele, .msh
    (Gmsh) and .mesh (Medit) through MfadMeshRead() on rank 0, .ply and the other formats of
    DMPlexCreateFromFile() through DMPlex. A file rank 0 cannot read is an error on every rank,
    with rank 0's code and message ("<path>:<line>: <what was wrong>"). */
PetscErrorCode MfadDMPlexCreateFromFile(MPI_Comm comm, const char path[], DM *dm);
/** @brief This rank's elements of `set` (each element on exactly one rank: the owner of the
    cell or edge), as global vertex ids (*nvert per element) and their coordinates (coordinate
    dimension per vertex), both allocated with PetscMalloc1() (free with PetscFree(); pass NULL
    to skip). Collective. */
PetscErrorCode MfadDMPlexGetElements(DM dm, MfadDMPlexSet set, PetscInt *nelem, PetscInt *nvert, PetscInt **conn, PetscReal **rest);
/** @brief The one-rings of this rank's owned vertices: row i (vertex rstart + i of the energy's
    layout) lists neighbours[offsets[i] .. offsets[i + 1]) in global ids, sorted. Needs the
    vertices' whole star (overlap 1). Free both with PetscFree(). */
PetscErrorCode MfadDMPlexGetVertexNeighbors(DM dm, PetscInt *n, PetscInt **offsets, PetscInt **neighbors);

#ifdef __cplusplus
}
#endif

/* the glue of meshes and energies (libmfad), which this header has always declared */
#ifndef MFADMESH_ONLY
#include <mfadmeshenergy.h>
#endif

#endif /* MFADMESH_H */
