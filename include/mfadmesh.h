// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadmesh.h
  @brief Meshes for mfad: file readers (OBJ, OFF, TetGen, Gmsh, Medit; PLY through DMPlex), DMPlex
         distribution and element sets, and VTK output of a solution.

  Readers are serial: one process reads a whole file into an MfadMesh (vertices, cells of one
  kind, optional tags). Bad files are PETSc errors naming the file and line.
**/
#ifndef MFADMESH_H
#define MFADMESH_H

#include <mfad.h>
#include <petscdmplex.h>

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

/** @brief Writes the cells of `term` (lines, triangles or tets) at the positions X as a VTK
    unstructured grid (.vtu), gathered on rank 0 and written atomically: a temporary
    "<path>.tmp.<pid>", synced, then renamed, so `path` holds the old file or the whole new one.
    The temporary is removed on every error and on a signal that ends the process mid-write
    (SIGINT, SIGTERM and the signals PETSc's handler traps; src/vtu.c says how). Point data:
    "displacement" (X - X0, when X0 is given) and "gradient_norm" (the norm of each vertex's
    gradient of E at X, fixed dofs excluded). dof 2 positions get z = 0. -mfad_vtu_binary
    (MfadEnergySetVTUBinary()) writes base64 binary arrays instead of ASCII. */
PetscErrorCode MfadEnergyWriteVTU(MfadEnergy E, PetscInt term, Vec X, Vec X0, const char path[]);
/** @brief The mesh readers' options (-mfad_mesh_max_line, -mfad_mesh_check_manifold,
    -mfad_dmplex_max_degree; no prefix: no energy exists when a mesh is read), listed under -help by
    MfadEnergySetFromOptions(); see MfadOptionTableGetEntry(). */
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
/** @brief The boundary of a triangle surface as a successor map: next[v] (nvert entries, the caller's
    memory) is the vertex that follows v along the boundary edge leaving it, in the direction of
    the triangles' orientation; -1 for a vertex on no boundary edge. A boundary edge is one used
    by one triangle only; a vertex where two boundary loops touch keeps one successor. */
PetscErrorCode MfadMeshComputeBoundary(MfadMesh mesh, PetscInt next[]);
/** @brief A flip-free start X for a map of a disk-topology triangle surface to the plane (E made by
    MfadEnergyCreateFromMesh(comm, mesh, 2, &E); every rank passes the whole mesh): Tutte's
    embedding (the boundary loop on a circle by arc length, the interior by the graph Laplacian, one
    linear solve: CG + Jacobi to 1e-12, -<prefix>mfad_tutte_ksp_* and _pc_* options), scaled to the
    surface's area and oriented counter-clockwise, turned so that the vertex farthest from vertex 0
    lies on its horizontal. The rigid motions, which leave a map's distortion unchanged, are pinned
    by 3 fixed dofs set on E (vertex 0, and that vertex's y; MfadEnergySetFixedDofs() replaces
    any set before). A surface with no boundary or more than one loop is an error. Collective. */
PetscErrorCode MfadEnergyComputeTutteStart(MfadEnergy E, MfadMesh mesh, Vec X);
/** @brief A box [lo, hi] of nx * ny * nz cubes, each cut into 6 positively oriented tets (Kuhn),
    vertex (i, j, k) numbered i + (nx + 1) (j + (ny + 1) k). */
PetscErrorCode MfadMeshCreateBox(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], MfadMesh *mesh);

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
/** @brief An energy on the DM's vertices: each rank owns the vertices its DM owns (point SF),
    numbered contiguously per rank as DMPlexGetVertexNumbering() numbers them. */
PetscErrorCode MfadEnergyCreateFromDMPlex(DM dm, PetscInt dof, MfadEnergy *E);
/** @brief X (E's layout) = the DM's vertex coordinates (the first `dof` of them; zero beyond the
    DM's coordinate dimension). Use as the rest shape and starting point. */
PetscErrorCode MfadEnergyCopyCoordinatesFromDMPlex(MfadEnergy E, DM dm, Vec X);
/** @brief This rank's elements of `set` (each element on exactly one rank: the owner of the
    cell or edge), as global vertex ids (*nvert per element) and their coordinates (coordinate
    dimension per vertex), both allocated with PetscMalloc1() (free with PetscFree(); pass NULL
    to skip). Collective. */
PetscErrorCode MfadDMPlexGetElements(DM dm, MfadDMPlexSet set, PetscInt *nelem, PetscInt *nvert, PetscInt **conn, PetscReal **rest);
/** @brief Adds kernel `k` on the DM's element set `set` as a term of E (made by
    MfadEnergyCreateFromDMPlex()). A kernel with a rest-shape set-up gets the DM's coordinates as
    rest shape and `material`; otherwise it must take no parameters. Collective. Reads exactly the
    kernel's count of material constants (MfadKernelGetMaterialCount()): prefer
    MfadEnergyAddTermFromDMPlexWithMaterial(), which checks the length. */
PetscErrorCode MfadEnergyAddTermFromDMPlex(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, const PetscReal material[], PetscReal weight, PetscInt *term);
/** @brief MfadEnergyAddTermFromDMPlex() with the length of `material` (`nmaterial` constants): a
    count other than the kernel's is an error naming the term, the kernel and both counts. */
PetscErrorCode MfadEnergyAddTermFromDMPlexWithMaterial(MfadEnergy E, DM dm, MfadKernel k, MfadDMPlexSet set, PetscInt nmaterial,
                                                       const PetscReal material[], PetscReal weight, PetscInt *term);
/** @brief The one-rings of this rank's owned vertices: row i (vertex rstart + i of the energy's
    layout) lists neighbours[offsets[i] .. offsets[i + 1]) in global ids, sorted. Needs the
    vertices' whole star (overlap 1). Free both with PetscFree(). */
PetscErrorCode MfadDMPlexGetVertexNeighbors(DM dm, PetscInt *n, PetscInt **offsets, PetscInt **neighbors);

#ifdef __cplusplus
}
#endif

#endif /* MFADMESH_H */
