// SPDX-License-Identifier: BSD-2-Clause
/* Gmsh (.msh) and Medit (.mesh) files, run on 1 and 2 ranks (tests/readers_gmsh.cmake).
   - Bad files (node index out of range, counts that disagree with the data, truncated, a
     non-manifold edge or face with -mfad_mesh_check_manifold, ...) are errors on every rank of
     MfadDMPlexCreateFromFile(PETSC_COMM_WORLD), with the expected code and a message naming the
     file and line; MfadMeshRead() on rank 0 gives the same error.
   - Good files: the Gmsh reader gives the cells and coordinates PETSc's DMPlexCreateGmsh() gives
     for the committed box and sphere; the same meshes written as Medit (and as MSH 2.2) read back
     exactly; TetGen's two cubes written as Medit read back exactly, tags included; a Medit box
     distributed on all ranks has all its tets.
   Prints one line per failure, nothing otherwise; exit status 1 on failure. */
#include <mfadmesh.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int         failures;
static PetscMPIInt rank, size;
static char        err_msg[4096]; /* the message of the last error raised on this rank */
static char        tmpdir[256];
static char        meshdir[PETSC_MAX_PATH_LEN] = "."; /* tests/meshes (-meshes) */

#define Fail(...) \
  do { \
    printf("[%d] FAIL ", (int)rank); \
    printf(__VA_ARGS__); \
    printf("\n"); \
    fflush(stdout); \
    failures++; \
  } while (0)

static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                  void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(err_msg, sizeof(err_msg), "%s", mess ? mess : "");
  return n;
}

/* rank 0 writes <tmpdir>/<name>; every rank gets its path */
static PetscErrorCode WriteTemp(const char name[], const char *text, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", tmpdir, name));
  if (rank == 0) {
    FILE *fp = fopen(path, "wb");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fputs(text, fp);
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ bad files */
typedef struct {
  const char    *name, *text; /* text NULL: the committed file tests/meshes/bad/<name> */
  PetscErrorCode code;
  int            line;
  const char    *frag;
  PetscBool      manifold; /* with -mfad_mesh_check_manifold */
} BadFile;

static PetscErrorCode WriteGmshBinary(MfadMesh m, const char name[], int v4, int bad, char path[PETSC_MAX_PATH_LEN]);
static PetscErrorCode TwoTets(MfadMesh *m);

/* Two tets on the nodes 1..5 and a boundary triangle (MSH 2.2, physical groups 7 and 9) */
#define G2_HEAD  "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n"
#define G2_NODES "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n" /* lines 4-11 */
#define G2_TRI   "1 2 2 7 1 1 2 3\n"
#define G2_TET1  "2 4 2 9 1 1 2 3 4\n"
#define G2_TET2  "3 4 2 9 1 2 3 4 5\n"
/* the same in MSH 4.1: one volume entity (physical 3), one node block, one element block */
#define G4_HEAD  "$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 0 0 0 1 1 1 1 3 0\n$EndEntities\n" /* lines 1-7 */
#define G4_NODES "$Nodes\n1 5 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n$EndNodes\n"       /* lines 8-21 */
/* Medit: the two tets, one boundary triangle */
#define MD_VERTS "MeshVersionFormatted 2\nDimension 3\nVertices\n5\n0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\n1 1 1 2\n" /* lines 1-9 */

static const BadFile bad_files[] = {
  /* Gmsh 2.2 */
    {"node_out_of_range.msh",               G2_HEAD G2_NODES "$Elements\n3\n" G2_TRI G2_TET1 "3 4 2 9 1 2 3 4 6\n$EndElements\n",                     PETSC_ERR_FILE_UNEXPECTED, 16,
     "element 3 refers to node 6, which the $Nodes section does not define (5 nodes, tags 1 to 5)",                                                                                                                                                            PETSC_FALSE},
    {"node_zero.msh",                       G2_HEAD G2_NODES "$Elements\n1\n2 4 2 9 1 0 2 3 4\n$EndElements\n",                                       PETSC_ERR_FILE_UNEXPECTED, 14, "element 2 refers to node 0",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"element_count_too_large.msh",         G2_HEAD G2_NODES "$Elements\n4\n" G2_TRI G2_TET1 G2_TET2 "$EndElements\n",                                PETSC_ERR_FILE_UNEXPECTED, 17,
     "'$EndElements' where element 4 of 4 was expected",                                                                                                                                                                                                       PETSC_FALSE},
    {"element_count_too_small.msh",         G2_HEAD G2_NODES "$Elements\n2\n" G2_TRI G2_TET1 G2_TET2 "$EndElements\n",                                PETSC_ERR_FILE_UNEXPECTED, 16,
     "'3' where $EndElements was expected: more data than the 2 elements the $Elements header announced",                                                                                                                                                      PETSC_FALSE},
    {"node_count_too_large.msh",            G2_HEAD "$Nodes\n6\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n$EndNodes\n",                            PETSC_ERR_FILE_UNEXPECTED, 11,
     "'$EndNodes' where node 6 of 6 was expected",                                                                                                                                                                                                             PETSC_FALSE},
    {"truncated.msh",                       G2_HEAD G2_NODES "$Elements\n3\n" G2_TRI G2_TET1,                                                         PETSC_ERR_FILE_UNEXPECTED, 15, "the file ends before element 3 of 3",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"truncated_line.msh",                  G2_HEAD G2_NODES "$Elements\n3\n" G2_TRI G2_TET1 "3 4 2 9 1 2 3",                                         PETSC_ERR_FILE_UNEXPECTED, 16,
     "the line ends before a node of an element",                                                                                                                                                                                                              PETSC_FALSE},
    {"truncated_nodes.msh",                 G2_HEAD "$Nodes\n5\n1 0 0 0\n2 1 0 0\n",                                                                  PETSC_ERR_FILE_UNEXPECTED, 7,  "the file ends before node 3 of 5",                                       PETSC_FALSE},
    {"no_end_elements.msh",                 G2_HEAD G2_NODES "$Elements\n3\n" G2_TRI G2_TET1 G2_TET2,                                                 PETSC_ERR_FILE_UNEXPECTED, 16,
     "the file ends before $EndElements",                                                                                                                                                                                                                      PETSC_FALSE},
    {"duplicate_node.msh",                  G2_HEAD "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n2 0 0 1\n5 1 1 1\n$EndNodes\n",                            PETSC_ERR_FILE_UNEXPECTED, 9,
     "node 2 is defined twice (also on line 7)",                                                                                                                                                                                                               PETSC_FALSE},
    {"degenerate.msh",                      G2_HEAD G2_NODES "$Elements\n1\n2 4 2 9 1 1 2 3 3\n$EndElements\n",                                       PETSC_ERR_FILE_UNEXPECTED, 14,
     "degenerate tetrahedron: vertex 3 appears twice",                                                                                                                                                                                                         PETSC_FALSE},
    {"not_a_number.msh",                    G2_HEAD "$Nodes\n1\n1 0 zero 0\n$EndNodes\n",                                                             PETSC_ERR_FILE_UNEXPECTED, 6,  "'zero' is not a number",                                                 PETSC_FALSE},
    {"elements_first.msh",                  G2_HEAD "$Elements\n1\n1 2 0 1 2 3\n$EndElements\n",                                                      PETSC_ERR_FILE_UNEXPECTED, 4,  "$Elements before $Nodes",                                                PETSC_FALSE},
    {"only_lines.msh",                      G2_HEAD G2_NODES "$Elements\n1\n1 1 0 1 2\n$EndElements\n",                                               PETSC_ERR_FILE_UNEXPECTED, 15,
     "the file has no triangles or tetrahedra",                                                                                                                                                                                                                PETSC_FALSE},
    {"hexahedron.msh",                      G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 "3 5 0 1 2 3 4 5 1 2 3\n$EndElements\n",                        PETSC_ERR_SUP,             15,
     "element type 5 in a 3-D mesh: mfad reads tetrahedra only",                                                                                                                                                                                               PETSC_FALSE},
    {"unknown_type.msh",                    G2_HEAD G2_NODES "$Elements\n1\n1 99 0 1 2 3\n$EndElements\n",                                            PETSC_ERR_SUP,             14, "element type 99 is not one mfad knows",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"binary_cut.msh",                      "$MeshFormat\n2.2 1 8\n",                                                                                 PETSC_ERR_FILE_UNEXPECTED, 3,  "the file ends inside the binary 1 after the format line",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"version40.msh",                       "$MeshFormat\n4 0 8\n$EndMeshFormat\n",                                                                   PETSC_ERR_SUP,             2,  "MSH version '4' is not read",                                            PETSC_FALSE},
    {"not_gmsh.msh",                        "solid cube\n",                                                                                           PETSC_ERR_FILE_UNEXPECTED, 1,  "'solid' where $MeshFormat was expected",                                 PETSC_FALSE},
    {"unterminated_section.msh",            G2_HEAD "$PhysicalNames\n1\n3 9 \"solid\"\n",                                                             PETSC_ERR_FILE_UNEXPECTED, 6,
     "the file ends inside section $PhysicalNames",                                                                                                                                                                                                            PETSC_FALSE},
 /* three triangles on the edge of nodes 10 and 20 (a fin): read without the check, refused with it */
    {"fin.msh",
     G2_HEAD "$Nodes\n5\n10 0 0 0\n20 0 0 1\n30 1 0 0\n40 -1 0 0\n50 0 1 0\n$EndNodes\n$Elements\n3\n1 2 0 10 20 30\n2 2 0 20 10 40\n3 2 0 10 20 "
             "50\n$EndElements\n",                                                                                                                    PETSC_ERR_FILE_UNEXPECTED, 16, "edge 10-20 is shared by 3 triangles (lines 14, 15, 16): not a manifold", PETSC_TRUE },
 /* Gmsh 4.1 */
    {"node_out_of_range41.msh",             G4_HEAD G4_NODES "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n2 2 3 4 9\n$EndElements\n",                     PETSC_ERR_FILE_UNEXPECTED, 26,
     "element 2 refers to node 9",                                                                                                                                                                                                                             PETSC_FALSE},
    {"block_count_too_large41.msh",         G4_HEAD G4_NODES "$Elements\n1 3 1 3\n3 1 4 3\n1 1 2 3 4\n2 2 3 4 5\n$EndElements\n",                     PETSC_ERR_FILE_UNEXPECTED,
     27,                                                                                                                                                                             "'$EndElements' where element of the block 3 of 3 was expected",          PETSC_FALSE},
    {"header_count41.msh",                  G4_HEAD G4_NODES "$Elements\n1 3 1 3\n3 1 4 2\n1 1 2 3 4\n2 2 3 4 5\n$EndElements\n",                     PETSC_ERR_FILE_UNEXPECTED, 26,
     "the element blocks hold 2 elements, the $Elements header announced 3",                                                                                                                                                                                   PETSC_FALSE},
    {"node_tag_range41.msh",                G4_HEAD "$Nodes\n1 2 1 2\n3 1 0 2\n1\n3\n",                                                               PETSC_ERR_FILE_UNEXPECTED, 12,
     "node tag 3 outside the header's range 1 to 2",                                                                                                                                                                                                           PETSC_FALSE},
    {"truncated41.msh",                     G4_HEAD G4_NODES "$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n",                                              PETSC_ERR_FILE_UNEXPECTED, 25,
     "the file ends before element of the block 2 of 2",                                                                                                                                                                                                       PETSC_FALSE},
    {"wrong_dimension41.msh",               G4_HEAD G4_NODES "$Elements\n1 2 1 2\n2 1 4 2\n1 1 2 3 4\n2 2 3 4 5\n$EndElements\n",                     PETSC_ERR_FILE_UNEXPECTED, 24,
     "element type 4 (of dimension 3) in a block of entity dimension 2",                                                                                                                                                                                       PETSC_FALSE},
 /* a third tet on the face 2-3-4 (nodes 2 3 4 and a sixth): no volume mesh, refused without the option */
    {"face_in_three_tets41.msh",
     G4_HEAD "$Nodes\n1 6 1 6\n3 1 0 6\n1\n2\n3\n4\n5\n6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n1 1 0.9\n$EndNodes\n$Elements\n1 3 1 3\n3 1 4 3\n1 1 2 "
             "3 4\n2 2 3 4 5\n3 2 3 4 6\n$EndElements\n",                                                                                             PETSC_ERR_FILE_UNEXPECTED, 29, "face 2-3-4 is shared by 3 tetrahedra (lines 27, 28, 29)",                PETSC_FALSE},
    /* issue 46: the block's count larger than its tags ran into the coordinates: "'0.0' is not an integer" */
    {"node_block_count41.msh",              G4_HEAD "$Nodes\n1 6 1 6\n3 1 0 6\n1\n2\n3\n4\n5\n0.0 0.0 0.0\n1.0 0.0 0.0\n0.0 1.0 0.0\n0.0 0.0 1.0\n1.0 1.0 1.0\n$EndNodes\n",
     PETSC_ERR_FILE_UNEXPECTED, 16, "'0.0' where node tag 6 of 6 was expected: the block header on line 10 says 6 nodes, the block lists 5 tags (the count is too large)", PETSC_FALSE},
    /* a count beyond PetscInt was "99999999999 is out of range" */
    {"node_count_huge41.msh",               G4_HEAD "$Nodes\n1 99999999999 1 5\n3 1 0 5\n1\n2\n3\n4\n5\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n1 1 1\n$EndNodes\n",
     PETSC_ERR_FILE_UNEXPECTED, 9, "the header says 99999999999 nodes, more than a file of", PETSC_FALSE},
 /* Medit */
    /* issue 46: nan was taken for a keyword: "'nan' where vertex 3 of 5 was expected (the count is too large)" */
    {"nan.mesh",                            "MeshVersionFormatted 2\nDimension 3\nVertices\n5\n0 0 0 1\n1 0 0 1\nnan 1 0 1\n0 0 1 1\n1 1 1 2\nTetrahedra\n1\n1 2 3 4 0\nEnd\n",
     PETSC_ERR_FILE_UNEXPECTED, 7, "nan is not a finite number (x coordinate of a vertex)", PETSC_FALSE},
    {"vertex_out_of_range.mesh",            MD_VERTS "Tetrahedra\n2\n1 2 3 4 7\n2 3 4 6 8\nEnd\n",                                                    PETSC_ERR_FILE_UNEXPECTED, 13,
     "tetrahedron 2 refers to vertex 6, the file has vertices 1 to 5",                                                                                                                                                                                         PETSC_FALSE},
    {"count_too_large.mesh",                MD_VERTS "Tetrahedra\n3\n1 2 3 4 7\n2 3 4 5 8\nTriangles\n1\n1 2 3 5\nEnd\n",                             PETSC_ERR_FILE_UNEXPECTED, 14,
     "'Triangles' where tetrahedron 3 of 3 was expected",                                                                                                                                                                                                      PETSC_FALSE},
    {"count_too_small.mesh",                MD_VERTS "Tetrahedra\n1\n1 2 3 4 7\n2 3 4 5 8\nEnd\n",                                                    PETSC_ERR_FILE_UNEXPECTED, 13, "'2' where a keyword was expected",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"truncated.mesh",                      MD_VERTS "Tetrahedra\n2\n1 2 3 4 7\n",                                                                    PETSC_ERR_FILE_UNEXPECTED, 12, "the file ends before tetrahedron 2 of 2",                                PETSC_FALSE},
    {"truncated_vertex.mesh",               "MeshVersionFormatted 1\nDimension 3\nVertices\n2\n0 0 0 1\n1 0",                                         PETSC_ERR_FILE_UNEXPECTED, 6,
     "the file ends before z coordinate of a vertex",                                                                                                                                                                                                          PETSC_FALSE},
    {"no_end.mesh",                         MD_VERTS "Tetrahedra\n2\n1 2 3 4 7\n2 3 4 5 8\n",                                                         PETSC_ERR_FILE_UNEXPECTED, 13, "the file ends before End",                                               PETSC_FALSE},
    {"unknown_keyword.mesh",                MD_VERTS "Tetrahedrons\n2\n",                                                                             PETSC_ERR_FILE_UNEXPECTED, 10, "unknown keyword 'Tetrahedrons'",                                         PETSC_FALSE},
    {"not_a_number.mesh",                   "MeshVersionFormatted 1\nDimension 3\nVertices\n1\n0 0 zero 1\n",                                         PETSC_ERR_FILE_UNEXPECTED, 5,  "'zero' is not a number",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"degenerate.mesh",                     MD_VERTS "Triangles\n1\n1 2 2 0\nEnd\n",                                                                  PETSC_ERR_FILE_UNEXPECTED, 12, "degenerate triangle: vertex 2 appears twice",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"hexahedra.mesh",                      MD_VERTS "Hexahedra\n1\n1 2 3 4 5 1 2 3 0\nEnd\n",                                                        PETSC_ERR_SUP,             10, "Hexahedra: mfad reads tetrahedra and triangles only",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"version.mesh",                        "MeshVersionFormatted 3\n",                                                                               PETSC_ERR_SUP,             1,  "MeshVersionFormatted 3",                                                 PETSC_FALSE},
    {"not_medit.mesh",                      "OFF\n",                                                                                                  PETSC_ERR_FILE_UNEXPECTED, 1,  "'OFF' where MeshVersionFormatted was expected",                          PETSC_FALSE},
    {"vertices_first.mesh",                 "MeshVersionFormatted 1\nVertices\n",                                                                     PETSC_ERR_FILE_UNEXPECTED, 2,  "Vertices before Dimension",                                              PETSC_FALSE},
    {"after_end.mesh",                      MD_VERTS "Tetrahedra\n1\n1 2 3 4 7\nEnd\n\n1\n",                                                          PETSC_ERR_FILE_UNEXPECTED, 15, "data after End",                                                         PETSC_FALSE},
    {"face_in_three_tets.mesh",
     "MeshVersionFormatted 2\nDimension 3\nVertices\n6\n0 0 0 1\n1 0 0 1\n0 1 0 1\n0 0 1 1\n1 1 1 2\n1 1 0.9 0\nTetrahedra 3\n1 2 3 4 0\n2 3 4 5 "
     "0\n4 3 2 6 0\nEnd\n",                                                                                                                           PETSC_ERR_FILE_UNEXPECTED, 14, "face 2-3-4 is shared by 3 tetrahedra (lines 12, 13, 14)",                PETSC_FALSE},
    {"fin.mesh",
     "MeshVersionFormatted 1\nDimension\n3\nVertices 5\n0 0 0 0  0 0 1 0  1 0 0 0  -1 0 0 0  0 1 0 0\nTriangles 3\n1 2 3 0\n2 1 4 0\n1 2 5 0\nEnd\n", PETSC_ERR_FILE_UNEXPECTED, 9,  "edge 1-2 is shared by 3 triangles (lines 7, 8, 9)",                      PETSC_TRUE },
 /* the committed ones (tests/meshes/bad/, also fuzz seeds) */
    {"gmsh22_node_out_of_range.msh",        NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 16, "element 3 refers to node 6",                                             PETSC_FALSE},
    {"gmsh22_element_count_too_large.msh",  NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 17, "'$EndElements' where element 4 of 4 was expected",                       PETSC_FALSE},
    {"gmsh22_truncated.msh",                NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 15, "the file ends before element 3 of 3",                                    PETSC_FALSE},
    {"gmsh22_fin_non_manifold.msh",         NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 16, "edge 10-20 is shared by 3 triangles",                                    PETSC_TRUE },
    {"gmsh41_node_out_of_range.msh",        NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 26, "element 2 refers to node 9",                                             PETSC_FALSE},
    {"gmsh41_element_count_too_large.msh",  NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 27, "'$EndElements' where element of the block 3 of 3 was expected",
     PETSC_FALSE                                                                                                                                                                                                                                                          },
    {"gmsh41_truncated.msh",                NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 25, "the file ends before element of the block 2 of 2",                       PETSC_FALSE},
    {"medit_vertex_out_of_range.mesh",      NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 13, "tetrahedron 2 refers to vertex 6",                                       PETSC_FALSE},
    {"medit_count_too_large.mesh",          NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 14, "'Triangles' where tetrahedron 3 of 3 was expected",                      PETSC_FALSE},
    {"medit_truncated.mesh",                NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 12, "the file ends before tetrahedron 2 of 2",                                PETSC_FALSE},
    {"medit_fin_non_manifold.mesh",         NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 9,  "edge 1-2 is shared by 3 triangles (lines 7, 8, 9)",                      PETSC_TRUE },
    {"gmsh22_binary_node_out_of_range.msh", NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 11, "element 2 refers to node 6",                                             PETSC_FALSE},
    {"gmsh41_binary_truncated.msh",         NULL,                                                                                                     PETSC_ERR_FILE_UNEXPECTED, 12, "the file ends inside a node of an element",                              PETSC_FALSE},
};

/* binary Gmsh: two tets as binary MSH 2.2 (bin 1) or 4.1 (bin 2) by WriteGmshBinary(), spoilt by `bad` */
static const struct {
  BadFile b;
  int     bin, bad;
} bad_binary[] = {
  /* binary Gmsh (lines: 2.2 has its nodes on 7, its elements on 11; 4.1 its entities on 6, nodes on 9, elements on 12) */
    {{"node_out_of_range_bin22.msh", "", PETSC_ERR_FILE_UNEXPECTED, 11, "element 2 refers to node 6, which the $Nodes section does not define",
      PETSC_FALSE},
     1,                                                                                                                       1},
    {{"count_too_large_bin22.msh", "", PETSC_ERR_FILE_UNEXPECTED, 11, "the binary data end before element 3 of 3 (the count is too large)",
      PETSC_FALSE},
     1,                                                                                                                       2},
    {{"truncated_bin22.msh", "", PETSC_ERR_FILE_UNEXPECTED, 11, "the file ends inside a node of an element", PETSC_FALSE}, 1, 3},
    {{"node_out_of_range_bin41.msh", "", PETSC_ERR_FILE_UNEXPECTED, 12, "element 2 refers to node 6, which the $Nodes section does not define",
      PETSC_FALSE},
     2,                                                                                                                       1},
    {{"count_too_large_bin41.msh", "", PETSC_ERR_FILE_UNEXPECTED, 12,
      "the binary data end before element of the block 3 of 3 (the count is too large)", PETSC_FALSE},
     2,                                                                                                                       2},
    {{"truncated_bin41.msh", "", PETSC_ERR_FILE_UNEXPECTED, 12, "the file ends inside a node of an element", PETSC_FALSE}, 2, 3},
};

/* One bad file: the same error (code, "<path>:<line>: <frag>") on every rank of WORLD, and from
   MfadMeshRead() on rank 0 alone */
static PetscErrorCode CheckBadFile(const BadFile *b, int bin, int bad)
{
  char           path[PETSC_MAX_PATH_LEN], where[PETSC_MAX_PATH_LEN + 64];
  PetscErrorCode ierr;
  DM             dm = NULL;

  PetscFunctionBeginUser;
  if (bin) {
    MfadMesh m = NULL;
    if (rank == 0) PetscCall(TwoTets(&m));
    PetscCall(WriteGmshBinary(m, b->name, bin == 2, bad, path));
    PetscCall(MfadMeshDestroy(&m));
  } else if (b->text) PetscCall(WriteTemp(b->name, b->text, path));
  else PetscCall(PetscSNPrintf(path, sizeof(path), "%s/bad/%s", meshdir, b->name));
  PetscCall(PetscSNPrintf(where, sizeof(where), "%s:%d: %s", path, b->line, b->frag));
  if (b->manifold) {
    /* without the check, the readers take a non-manifold mesh (as the OBJ reader does) */
    if (rank == 0) {
      MfadMesh m = NULL;
      PetscCall(MfadMeshRead(path, &m));
      PetscCall(MfadMeshDestroy(&m));
    }
    PetscCall(PetscOptionsSetValue(NULL, "-mfad_mesh_check_manifold", "1"));
  }
  err_msg[0] = '\0';
  PetscCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, path, &dm);
  PetscCall(PetscPopErrorHandler());
  if (ierr != b->code) Fail("%s on %d ranks: error %d, expected %d (%s)", b->name, (int)size, (int)ierr, (int)b->code, err_msg);
  else if (!strstr(err_msg, where)) Fail("%s on %d ranks: message '%s' lacks '%s'", b->name, (int)size, err_msg, where);
  if (dm) Fail("%s: a DM came back from a failed read", b->name);
  if (rank == 0) {
    MfadMesh m = (MfadMesh)0x1;

    err_msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = MfadMeshRead(path, &m);
    PetscCall(PetscPopErrorHandler());
    if (ierr != b->code || m)
      Fail("%s: MfadMeshRead error %d, expected %d, mesh %s (%s)", b->name, (int)ierr, (int)b->code, m ? "not NULL" : "NULL", err_msg);
    else if (strncmp(err_msg, where, strlen(where))) Fail("%s: MfadMeshRead message '%s' does not start with '%s'", b->name, err_msg, where);
    if (b->text || bin) unlink(path);
  }
  if (b->manifold) PetscCall(PetscOptionsClearValue(NULL, "-mfad_mesh_check_manifold"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ good files */
static PetscBool SameMesh(const char *what, MfadMesh a, MfadMesh b, PetscBool tags)
{
  const char *why = NULL;

  if (a->nvert != b->nvert || a->ncell != b->ncell || a->ncorner != b->ncorner) why = "sizes";
  else if (memcmp(a->coords, b->coords, sizeof(PetscReal) * 3 * a->nvert)) why = "coordinates";
  else if (memcmp(a->cells, b->cells, sizeof(PetscInt) * a->ncorner * a->ncell)) why = "cells";
  else if (tags && (!a->cell_tags != !b->cell_tags || (a->cell_tags && memcmp(a->cell_tags, b->cell_tags, sizeof(PetscInt) * a->ncell))))
    why = "cell tags";
  else if (tags && (!a->vertex_tags != !b->vertex_tags || (a->vertex_tags && memcmp(a->vertex_tags, b->vertex_tags, sizeof(PetscInt) * a->nvert))))
    why = "vertex tags";
  if (why)
    Fail("%s: %s differ (%d/%d vertices, %d/%d cells of %d/%d corners)", what, why, (int)a->nvert, (int)b->nvert, (int)a->ncell, (int)b->ncell,
         (int)a->ncorner, (int)b->ncorner);
  return (PetscBool)!why;
}

/* m as a Medit file, written the way people's files differ: keywords in mixed case, comments,
   counts on the keyword's line or the next, records split across lines; with tets, a Triangles
   section (the first tet's faces, dropped by the reader), Edges and Corners */
static PetscErrorCode WriteMedit(MfadMesh m, const char name[], char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", tmpdir, name));
  if (rank == 0) {
    FILE *fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "# written by test_readers_gmsh\nMeshVersionFormatted 2\n\nDIMENSION\n3\nvertices %d\n", (int)m->nvert);
    for (PetscInt v = 0; v < m->nvert; v++)
      fprintf(fp, "%.17g %.17g\n  %.17g %d # vertex %d\n", m->coords[3 * v], m->coords[3 * v + 1], m->coords[3 * v + 2],
              m->vertex_tags ? (int)m->vertex_tags[v] : 0, (int)v + 1);
    if (m->ncorner == 4) fprintf(fp, "Edges\n1\n1 2 0\nTriangles\n4\n1 2 3 0 1 2 4 0\n1 3 4 0 2 3 4 0\nCorners 1 1\n");
    fprintf(fp, "%s\n%d\n", m->ncorner == 4 ? "Tetrahedra" : "triangles", (int)m->ncell);
    for (PetscInt c = 0; c < m->ncell; c++) {
      for (PetscInt k = 0; k < m->ncorner; k++) fprintf(fp, "%d ", (int)m->cells[m->ncorner * c + k] + 1);
      fprintf(fp, "%d\n", m->cell_tags ? (int)m->cell_tags[c] : 0);
    }
    fprintf(fp, "end\n");
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* m as MSH 2.2 with sparse node tags (10 v + 3), cells in physical group 5, two lines before them */
static PetscErrorCode WriteGmsh22(MfadMesh m, const char name[], char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", tmpdir, name));
  if (rank == 0) {
    FILE *fp = fopen(path, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n1\n3 5 \"body\"\n$EndPhysicalNames\n$Nodes\n%d\n", (int)m->nvert);
    for (PetscInt v = 0; v < m->nvert; v++)
      fprintf(fp, "%d %.17g %.17g %.17g\n", 10 * (int)v + 3, m->coords[3 * v], m->coords[3 * v + 1], m->coords[3 * v + 2]);
    fprintf(fp, "$EndNodes\n$Elements\n%d\n1 1 2 1 1 3 13\n2 15 2 1 1 3\n", (int)m->ncell + 2);
    for (PetscInt c = 0; c < m->ncell; c++) {
      fprintf(fp, "%d %d 2 5 1", (int)c + 3, m->ncorner == 4 ? 4 : 2);
      for (PetscInt k = 0; k < m->ncorner; k++) fprintf(fp, " %d", 10 * (int)m->cells[m->ncorner * c + k] + 3);
      fprintf(fp, "\n");
    }
    fprintf(fp, "$EndElements\n");
    fclose(fp);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the two tets of the bad files: nodes 1-5, tets 1 2 3 4 and 2 3 4 5 */
static PetscErrorCode TwoTets(MfadMesh *m)
{
  const PetscReal x[15] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 1};
  const PetscInt  c[8]  = {0, 1, 2, 3, 1, 2, 3, 4};

  PetscFunctionBeginUser;
  PetscCall(MfadMeshCreate(3, 5, 4, 2, m));
  PetscCall(PetscArraycpy((*m)->coords, x, 15));
  PetscCall(PetscArraycpy((*m)->cells, c, 8));
  PetscFunctionReturn(PETSC_SUCCESS);
}

#define W(x) fwrite(&(x), sizeof(x), 1, fp)

/* m (rank 0's) as binary Gmsh, MSH 4.1 (v4) or 2.2, node tags 1 + index, cells in physical group 5;
   bad: 1 the last cell's last node is nvert + 1, 2 the element count one too large, 3 the file
   cut 22 bytes short (inside the last element) */
static PetscErrorCode WriteGmshBinary(MfadMesh m, const char name[], int v4, int bad, char path[PETSC_MAX_PATH_LEN])
{
  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, PETSC_MAX_PATH_LEN, "%s/%s", tmpdir, name));
  if (rank == 0) {
    FILE     *fp  = fopen(path, "wb");
    const int one = 1, dim = m->ncorner == 4 ? 3 : 2, type = m->ncorner == 4 ? 4 : 2, ncount = (int)m->ncell + (bad == 2);
    long      size;

    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot write %s", path);
    fprintf(fp, "$MeshFormat\n%s 1 8\n", v4 ? "4.1" : "2.2");
    W(one);
    fprintf(fp, "\n$EndMeshFormat\n");
    if (v4) {
      const size_t ne[4] = {0, 0, dim == 2, dim == 3}, np = 1, nb = 0, nodes[4] = {1, (size_t)m->nvert, 1, (size_t)m->nvert};
      const size_t elems[4] = {1, (size_t)ncount, 1, (size_t)ncount}, nv = (size_t)m->nvert, nc = (size_t)ncount;
      const int    phys = 5, block[3] = {dim, 1, 0}, eblock[3] = {dim, 1, type};
      const double box[6] = {0, 0, 0, 0, 0, 0};

      fprintf(fp, "$Entities\n");
      fwrite(ne, sizeof(size_t), 4, fp);
      W(one), fwrite(box, sizeof(double), 6, fp), W(np), W(phys), W(nb);
      fprintf(fp, "\n$EndEntities\n$Nodes\n");
      fwrite(nodes, sizeof(size_t), 4, fp), fwrite(block, sizeof(int), 3, fp), W(nv);
      for (size_t v = 1; v <= nv; v++) W(v);
      for (PetscInt v = 0; v < m->nvert; v++) fwrite(&m->coords[3 * v], sizeof(double), 3, fp);
      fprintf(fp, "\n$EndNodes\n$Elements\n");
      fwrite(elems, sizeof(size_t), 4, fp), fwrite(eblock, sizeof(int), 3, fp), W(nc);
      for (PetscInt c = 0; c < m->ncell; c++) {
        size_t e = (size_t)c + 1;

        W(e);
        for (PetscInt k = 0; k < m->ncorner; k++) {
          size_t v = (size_t)m->cells[m->ncorner * c + k] + 1 + (bad == 1 && c == m->ncell - 1 && k == m->ncorner - 1);
          W(v);
        }
      }
      fprintf(fp, "\n$EndElements\n");
    } else {
      const int header[3] = {type, (int)m->ncell, 2};

      fprintf(fp, "$Nodes\n%d\n", (int)m->nvert);
      for (PetscInt v = 0; v < m->nvert; v++) {
        int tag = (int)v + 1;
        W(tag), fwrite(&m->coords[3 * v], sizeof(double), 3, fp);
      }
      fprintf(fp, "\n$EndNodes\n$Elements\n%d\n", ncount);
      fwrite(header, sizeof(int), 3, fp);
      for (PetscInt c = 0; c < m->ncell; c++) {
        const int e[3] = {(int)c + 1, 5, 1};

        fwrite(e, sizeof(int), 3, fp);
        for (PetscInt k = 0; k < m->ncorner; k++) {
          int v = (int)m->cells[m->ncorner * c + k] + 1 + (bad == 1 && c == m->ncell - 1 && k == m->ncorner - 1);
          W(v);
        }
      }
      fprintf(fp, "\n$EndElements\n");
    }
    size = ftell(fp);
    fclose(fp);
    if (bad == 3) PetscCheck(!truncate(path, size - 22), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "cannot truncate %s", path);
  }
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  PetscFunctionReturn(PETSC_SUCCESS);
}
#undef W

typedef struct {
  PetscReal x[3];
  PetscInt  id;
} Point;

static int CmpPoint(const void *a, const void *b)
{
  const Point *p = (const Point *)a, *q = (const Point *)b;
  for (int d = 0; d < 3; d++)
    if (p->x[d] != q->x[d]) return p->x[d] < q->x[d] ? -1 : 1;
  return 0;
}

static int CmpCell(const void *a, const void *b)
{
  const PetscInt *p = (const PetscInt *)a, *q = (const PetscInt *)b;
  for (int k = 0; k < 4; k++)
    if (p[k] != q[k]) return p[k] < q[k] ? -1 : 1;
  return 0;
}

/* the cells as rows of 4 ids of their vertices in coordinate order (sorted points `pts`), each
   row's ids sorted (tets: PETSc turns them over) or rotated to start at the smallest (triangles:
   their orientation kept), the rows sorted; 4th entry -1 for triangles */
static PetscErrorCode CanonicalCells(PetscInt nv, const PetscReal *coords, PetscInt nc, PetscInt ncorner, const PetscInt *cells, PetscInt **rows)
{
  Point    *pts;
  PetscInt *rank_of, *r;

  PetscFunctionBeginUser;
  PetscCall(PetscMalloc2(nv, &pts, nv, &rank_of));
  PetscCall(PetscMalloc1(4 * nc, rows));
  r = *rows;
  for (PetscInt v = 0; v < nv; v++) {
    for (int d = 0; d < 3; d++) pts[v].x[d] = coords[3 * v + d];
    pts[v].id = v;
  }
  qsort(pts, (size_t)nv, sizeof(*pts), CmpPoint);
  for (PetscInt v = 0; v < nv; v++) rank_of[pts[v].id] = v;
  for (PetscInt c = 0; c < nc; c++) {
    PetscInt *row = r + 4 * c, s = 0;
    for (PetscInt k = 0; k < ncorner; k++) row[k] = rank_of[cells[ncorner * c + k]];
    if (ncorner == 4) PetscCall(PetscSortInt(4, row));
    else {
      PetscInt t[3];
      for (PetscInt k = 1; k < 3; k++)
        if (row[k] < row[s]) s = k;
      for (PetscInt k = 0; k < 3; k++) t[k] = row[(s + k) % 3];
      for (PetscInt k = 0; k < 3; k++) row[k] = t[k];
      row[3] = -1;
    }
  }
  qsort(r, (size_t)nc, 4 * sizeof(PetscInt), CmpCell);
  PetscCall(PetscFree2(pts, rank_of));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the Gmsh reader against PETSc's on a good file: the same points, the same cells */
static PetscErrorCode CompareWithPETSc(const char path[], PetscInt ncell)
{
  MfadMesh           m;
  DM                 dm;
  PetscInt           cStart, cEnd, vStart, vEnd, nc, *pcells, *ra, *rb;
  PetscReal         *pcoords;
  PetscSection       cs;
  Vec                X;
  const PetscScalar *x;
  Point             *pa, *pb;

  PetscFunctionBeginUser;
  PetscCall(MfadMeshReadGmsh(path, &m));
  if (m->ncell != ncell) Fail("%s: %d cells, the file has %d", path, (int)m->ncell, (int)ncell);
  PetscCall(PetscOptionsSetValue(NULL, "-dm_plex_gmsh_spacedim", "3"));
  PetscCall(DMPlexCreateFromFile(PETSC_COMM_SELF, path, "petsc", PETSC_FALSE, &dm));
  PetscCall(PetscOptionsClearValue(NULL, "-dm_plex_gmsh_spacedim"));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  PetscCall(DMPlexGetConeSize(dm, cStart, &nc));
  if (vEnd - vStart != m->nvert || cEnd - cStart != m->ncell || nc != m->ncorner)
    Fail("%s: PETSc reads %d vertices, %d cells of %d; mfad %d, %d of %d", path, (int)(vEnd - vStart), (int)(cEnd - cStart), (int)nc, (int)m->nvert,
         (int)m->ncell, (int)m->ncorner);
  else {
    PetscCall(PetscMalloc2(nc * (cEnd - cStart), &pcells, 3 * (vEnd - vStart), &pcoords));
    for (PetscInt c = cStart; c < cEnd; c++) {
      const PetscInt *cone;
      PetscCall(DMPlexGetCone(dm, c, &cone));
      for (PetscInt k = 0; k < nc; k++) pcells[nc * (c - cStart) + k] = cone[k] - vStart;
    }
    PetscCall(DMGetCoordinateSection(dm, &cs));
    PetscCall(DMGetCoordinatesLocal(dm, &X));
    PetscCall(VecGetArrayRead(X, &x));
    for (PetscInt v = vStart; v < vEnd; v++) {
      PetscInt off;
      PetscCall(PetscSectionGetOffset(cs, v, &off));
      for (int d = 0; d < 3; d++) pcoords[3 * (v - vStart) + d] = PetscRealPart(x[off + d]);
    }
    PetscCall(VecRestoreArrayRead(X, &x));
    /* the same set of points (exactly: both parse the same decimal numbers) */
    PetscCall(PetscMalloc2(m->nvert, &pa, m->nvert, &pb));
    for (PetscInt v = 0; v < m->nvert; v++)
      for (int d = 0; d < 3; d++) pa[v].x[d] = m->coords[3 * v + d], pb[v].x[d] = pcoords[3 * v + d], pa[v].id = pb[v].id = v;
    qsort(pa, (size_t)m->nvert, sizeof(*pa), CmpPoint);
    qsort(pb, (size_t)m->nvert, sizeof(*pb), CmpPoint);
    for (PetscInt v = 0; v < m->nvert; v++)
      if (CmpPoint(&pa[v], &pb[v]) || (v && !CmpPoint(&pa[v], &pa[v - 1]))) {
        Fail("%s: point %d in coordinate order differs from PETSc's (or repeats)", path, (int)v);
        break;
      }
    PetscCall(PetscFree2(pa, pb));
    PetscCall(CanonicalCells(m->nvert, m->coords, m->ncell, m->ncorner, m->cells, &ra));
    PetscCall(CanonicalCells(m->nvert, pcoords, m->ncell, m->ncorner, pcells, &rb));
    if (memcmp(ra, rb, sizeof(PetscInt) * 4 * m->ncell)) Fail("%s: the cells differ from PETSc's", path);
    PetscCall(PetscFree(ra));
    PetscCall(PetscFree(rb));
    PetscCall(PetscFree2(pcells, pcoords));
  }
  PetscCall(DMDestroy(&dm));
  PetscCall(MfadMeshDestroy(&m));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode GoodFiles(const char dir[])
{
  char     box[PETSC_MAX_PATH_LEN], sphere[PETSC_MAX_PATH_LEN], tetgen[PETSC_MAX_PATH_LEN], cube[PETSC_MAX_PATH_LEN], path[PETSC_MAX_PATH_LEN];
  MfadMesh a = NULL, b = NULL;
  DM       dm;
  PetscInt n, ng;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(box, sizeof(box), "%s/box_tets.msh", dir));
  PetscCall(PetscSNPrintf(sphere, sizeof(sphere), "%s/sphere_tris.msh", dir));
  PetscCall(PetscSNPrintf(tetgen, sizeof(tetgen), "%s/twocubes.1.ele", dir));
  PetscCall(PetscSNPrintf(cube, sizeof(cube), "%s/cube.obj", dir));
  if (rank == 0) {
    /* gmsh 4.8.4 wrote 939 tets (box_tets.msh) and 380 triangles (sphere_tris.msh) */
    PetscCall(CompareWithPETSc(box, 939));
    PetscCall(CompareWithPETSc(sphere, 380));
  }
  /* Medit: TetGen's two cubes (region tags, boundary markers), the OBJ cube, the Gmsh box; and the
     Gmsh box as MSH 2.2 with sparse node tags and a physical group */
  {
    const char *src[3] = {tetgen, cube, box}, *name[3] = {"twocubes.mesh", "cube.mesh", "box.mesh"};
    for (int i = 0; i < 3; i++) {
      if (rank == 0) PetscCall(MfadMeshRead(src[i], &a));
      PetscCall(WriteMedit(a, name[i], path));
      if (rank == 0) {
        PetscCall(MfadMeshRead(path, &b));
        if (i == 0) (void)SameMesh(name[i], a, b, PETSC_TRUE);
        else if (SameMesh(name[i], a, b, PETSC_FALSE) && (!b->cell_tags || !b->vertex_tags || b->cell_tags[0] || b->vertex_tags[0]))
          Fail("%s: references 0 not read as tags", name[i]);
        PetscCall(MfadMeshDestroy(&b));
      }
      if (i == 2) {
        /* binary MSH 2.2 and 4.1: the same mesh, and what PETSc's reader reads from them */
        for (int v4 = 0; v4 < 2; v4++) {
          PetscCall(WriteGmshBinary(a, v4 ? "box_bin41.msh" : "box_bin22.msh", v4, 0, path));
          if (rank == 0) {
            PetscCall(MfadMeshRead(path, &b));
            if (SameMesh(path, a, b, PETSC_FALSE) && (!b->cell_tags || b->cell_tags[0] != 5))
              Fail("%s: physical group 5 not read as the cell tags", path);
            PetscCall(MfadMeshDestroy(&b));
            PetscCall(CompareWithPETSc(path, 939));
            unlink(path);
          }
        }
        PetscCall(WriteGmsh22(a, "box22.msh", path));
        if (rank == 0) {
          PetscCall(MfadMeshRead(path, &b));
          if (SameMesh("box22.msh", a, b, PETSC_FALSE) && (!b->cell_tags || b->cell_tags[0] != 5 || b->cell_tags[b->ncell - 1] != 5))
            Fail("box22.msh: physical group 5 not read as the cell tags");
          PetscCall(MfadMeshDestroy(&b));
        }
      }
      PetscCall(MfadMeshDestroy(&a));
    }
  }
  /* the Medit box distributed over all ranks: every tet on some rank */
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/box.mesh", tmpdir));
  PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, path, &dm));
  PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_CELLS, &n, NULL, NULL, NULL));
  PetscCallMPI(MPI_Allreduce(&n, &ng, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (ng != 939) Fail("box.mesh on %d ranks: %d tets, expected 939", (int)size, (int)ng);
  PetscCall(DMDestroy(&dm));
  if (rank == 0) {
    const char *names[3] = {"twocubes.mesh", "cube.mesh", "box.mesh"};
    for (int i = 0; i < 3; i++) {
      PetscCall(PetscSNPrintf(path, sizeof(path), "%s/%s", tmpdir, names[i]));
      unlink(path);
    }
    PetscCall(PetscSNPrintf(path, sizeof(path), "%s/box22.msh", tmpdir));
    unlink(path);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* issue 46: a section's $End... on the line of its last record ("1 1 1$EndNodes", "3 0.7
   $EndElementData"), or at the end of a file with no line end: Gmsh reads these (it looks for the
   end after the records it counted); each reads as the same file with its ends on lines of their own */
static PetscErrorCode SectionEndOnDataLine(void)
{
  static const char data[] = "$ElementData\n1\n\"x\"\n1\n0\n3\n0\n1\n2\n2 0.5\n3 0.7";
  static const struct {
    const char *name, *text;
  } files[] = {
    {"end_plain.msh",      G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 G2_TET2 "$EndElements\n%s\n$EndElementData\n"},
    {"end_glued.msh",      G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 G2_TET2 "$EndElements\n%s$EndElementData\n"  },
    {"end_blank.msh",      G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 G2_TET2 "$EndElements\n%s $EndElementData"    },
    {"end_no_newline.msh", G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 G2_TET2 "$EndElements\n%s\n$EndElementData"   },
    {"end_nodedata.msh",
     G2_HEAD G2_NODES "$Elements\n2\n" G2_TET1 G2_TET2
     "$EndElements\n$NodeData\n1\n\"u\"\n1\n0\n3\n0\n1\n5\n1 0\n2 0\n3 0\n4 0\n5 0 $EndNodeData\n%s\n$EndElementData\n"},
    {"end_mesh_sections.msh",
     G2_HEAD "$Nodes\n5\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1$EndNodes\n$Elements\n2\n" G2_TET1 "3 4 2 9 1 2 3 4 5 $EndElements\n%s $EndElementData\n"},
  };
  MfadMesh ref = NULL;

  PetscFunctionBeginUser;
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    char           text[1024], path[PETSC_MAX_PATH_LEN];
    MfadMesh       m = NULL;
    PetscErrorCode ierr;

    snprintf(text, sizeof(text), files[i].text, data);
    PetscCall(WriteTemp(files[i].name, text, path));
    if (rank) continue;
    err_msg[0] = '\0';
    PetscCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = MfadMeshRead(path, &m);
    PetscCall(PetscPopErrorHandler());
    if (ierr) Fail("%s: refused (%s)", files[i].name, err_msg);
    else if (!ref) ref = m, m = NULL;
    else (void)SameMesh(files[i].name, ref, m, PETSC_TRUE);
    if (i == 0 && (!ref || ref->ncell != 2 || ref->nvert != 5)) Fail("%s: not the two tets of the file", files[i].name);
    PetscCall(MfadMeshDestroy(&m));
    unlink(path);
  }
  PetscCall(MfadMeshDestroy(&ref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A fin read without the manifold check becomes a DM; its edge pairs are then an error on every
   rank (the edge in 3 triangles is on one rank only) */
static PetscErrorCode FinEdgePairs(void)
{
  char           path[PETSC_MAX_PATH_LEN];
  DM             dm;
  PetscInt       n;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscSNPrintf(path, sizeof(path), "%s/bad/gmsh22_fin_non_manifold.msh", meshdir));
  PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, path, &dm));
  err_msg[0] = '\0';
  PetscCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadDMPlexGetElements(dm, MFAD_DMPLEX_EDGE_PAIRS, &n, NULL, NULL, NULL);
  PetscCall(PetscPopErrorHandler());
  if (ierr != PETSC_ERR_ARG_WRONG || !strstr(err_msg, "is shared by 3 triangles: the surface is not a manifold"))
    Fail("edge pairs of a fin on %d ranks: error %d (%s)", (int)size, (int)ierr, err_msg);
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-meshes", meshdir, sizeof(meshdir), NULL));
  if (rank == 0) {
    snprintf(tmpdir, sizeof(tmpdir), "%s/mfad_gmsh_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    PetscCheck(mkdtemp(tmpdir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s", tmpdir);
  }
  PetscCallMPI(MPI_Bcast(tmpdir, sizeof(tmpdir), MPI_CHAR, 0, PETSC_COMM_WORLD));
  for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) PetscCall(CheckBadFile(&bad_files[i], 0, 0));
  for (size_t i = 0; i < sizeof(bad_binary) / sizeof(bad_binary[0]); i++)
    PetscCall(CheckBadFile(&bad_binary[i].b, bad_binary[i].bin, bad_binary[i].bad));
  PetscCall(GoodFiles(meshdir));
  PetscCall(SectionEndOnDataLine());
  PetscCall(FinEdgePairs());
  PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) rmdir(tmpdir);
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
