// SPDX-License-Identifier: BSD-2-Clause
/* A program of meshes alone: it includes <mfadmesh.h> and links libmfadmesh only (mfad::mfadmesh,
   tests/mesh.cmake; the install test builds it again against the installed package, with
   find_package(mfad) and with pkg-config mfadmesh). That it links at all is the first claim: the
   mesh library needs nothing of libmfad. Then the mesh library's parts, each against a value
   derived by hand: a read file, a generated box, the manifold check, a boundary, a DMPlex and a
   VTU file read back. Argument 1: tests/meshes; argument 2: a scratch folder. */
#include <mfadmesh.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define Check(cond, ...) \
  do { \
    if (!(cond)) { \
      fprintf(stderr, "test_mesh_only:%d: FAIL: ", __LINE__); \
      fprintf(stderr, __VA_ARGS__); \
      fputc('\n', stderr); \
      failed++; \
    } \
  } while (0)

static int failed;

/* the whole file, NUL-terminated (free it) */
static char *Slurp(const char *path)
{
  FILE *fp = fopen(path, "rb");
  char *s;
  long  n;

  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  s = (char *)malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) n = 0;
  if (s) s[n] = '\0';
  fclose(fp);
  return s;
}

int main(int argc, char **argv)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {2, 1, 1};
  char            path[PETSC_MAX_PATH_LEN], tmp[PETSC_MAX_PATH_LEN + 32];
  MfadMesh        cube, box, square;
  DM              dm;
  PetscInt        cStart, cEnd, nelem, nvert, *conn, next[4];
  PetscErrorCode  ierr;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCheck(argc == 3, PETSC_COMM_SELF, PETSC_ERR_USER, "usage: test_mesh_only <tests/meshes> <scratch folder>");

  /* a reader: cube.obj is the unit cube's 6 quads (8 vertices), each fanned into 2 triangles */
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/cube.obj", argv[1]));
  PetscCall(MfadMeshRead(path, &cube));
  Check(cube->nvert == 8 && cube->ncell == 12 && cube->ncorner == 3, "cube.obj: %d vertices, %d cells of %d corners; expected 8, 12, 3",
        (int)cube->nvert, (int)cube->ncell, (int)cube->ncorner);
  PetscCall(MfadMeshCheckManifold(cube, path));

  /* a generated mesh: 2 x 1 x 1 cubes, 6 tets each, (2 + 1) (1 + 1) (1 + 1) vertices; vertex 11 = (i, j, k) (2, 1, 1) at hi */
  PetscCall(MfadMeshCreateBox(2, 1, 1, lo, hi, &box));
  Check(box->nvert == 12 && box->ncell == 12 && box->ncorner == 4, "box: %d vertices, %d tets; expected 12, 12", (int)box->nvert, (int)box->ncell);
  Check(box->coords[3 * 11] == 2 && box->coords[3 * 11 + 1] == 1 && box->coords[3 * 11 + 2] == 1,
        "box: vertex 11 at (%g, %g, %g), expected (2, 1, 1)", (double)box->coords[33], (double)box->coords[34], (double)box->coords[35]);
  PetscCall(MfadMeshCheckManifold(box, NULL));

  /* the boundary of the square (0 1 2) (0 2 3): edge 0-2 is shared, the loop is 0 -> 1 -> 2 -> 3 -> 0 */
  PetscCall(MfadMeshCreate(2, 4, 3, 2, &square));
  {
    const PetscReal x[8]    = {0, 0, 1, 0, 1, 1, 0, 1};
    const PetscInt  c[6]    = {0, 1, 2, 0, 2, 3};
    const PetscInt  loop[4] = {1, 2, 3, 0};
    PetscCall(PetscArraycpy(square->coords, x, 8));
    PetscCall(PetscArraycpy(square->cells, c, 6));
    PetscCall(MfadMeshComputeBoundary(square, next));
    for (int v = 0; v < 4; v++)
      Check(next[v] == loop[v], "square: boundary successor of vertex %d is %d, expected %d", v, (int)next[v], (int)loop[v]);
  }

  /* DMPlex: the box on one rank has its 12 tets as cells and as the cell element set */
  PetscCall(MfadDMPlexCreateFromMesh(PETSC_COMM_SELF, box, &dm));
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  Check(cEnd - cStart == 12, "DMPlex of the box: %d cells, expected 12", (int)(cEnd - cStart));
  PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_CELLS, &nelem, &nvert, &conn, NULL));
  Check(nelem == 12 && nvert == 4, "DMPlex of the box: %d cell elements of %d vertices, expected 12 of 4", (int)nelem, (int)nvert);
  PetscCall(PetscFree(conn));
  PetscCall(DMDestroy(&dm));

  /* VTU of arrays: the square with a 1-component field, read back; written whole under its name,
     no temporary left beside it */
  PetscCall(PetscSNPrintf(path, sizeof path, "%s/square.vtu", argv[2]));
  {
    const PetscReal    height[4] = {0.5, 1.5, 2.5, 3.5};
    const MfadVTUField f         = {"height", 1, height};
    char              *s;
    PetscCall(MfadMeshWriteVTU(square, 1, &f, PETSC_FALSE, path));
    s = Slurp(path);
    Check(s != NULL, "%s was not written", path);
    if (s) {
      Check(strstr(s, "NumberOfPoints=\"4\" NumberOfCells=\"2\""), "%s: no 4 points and 2 cells:\n%s", path, s);
      Check(strstr(s, "Name=\"height\""), "%s: no field 'height'", path);
      Check(strstr(s, "0.5 1.5 2.5 3.5"), "%s: the field's values are not 0.5 1.5 2.5 3.5", path);
      Check(strstr(s, "0 1 2 0 2 3"), "%s: the connectivity is not 0 1 2 0 2 3", path);
      Check(strstr(s, "0 0 0 1 0 0 1 1 0 0 1 0"), "%s: the planar points did not get z = 0", path);
      Check(strstr(s, "</VTKFile>"), "%s: not whole", path);
    }
    free(s);
  }
  PetscCall(PetscSNPrintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid()));
  Check(access(tmp, F_OK) != 0, "the temporary %s is left", tmp);

  /* a cell naming a point that is not there is refused, the old file kept */
  {
    const PetscReal pts[6]  = {0, 0, 0, 1, 0, 0};
    const PetscInt  cell[2] = {0, 2};
    char           *s;
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadVTUWrite(path, 2, pts, 1, 2, cell, 0, NULL, PETSC_FALSE);
    PetscCall(PetscPopErrorHandler());
    Check(ierr == PETSC_ERR_ARG_OUTOFRANGE, "a cell with point 2 of 2: error %d, expected PETSC_ERR_ARG_OUTOFRANGE (%d)", (int)ierr,
          (int)PETSC_ERR_ARG_OUTOFRANGE);
    s = Slurp(path);
    Check(s && strstr(s, "Name=\"height\""), "%s: the refused write changed the previous file", path);
    free(s);
  }

  PetscCall(MfadMeshDestroy(&square));
  PetscCall(MfadMeshDestroy(&box));
  PetscCall(MfadMeshDestroy(&cube));
  PetscCall(PetscFinalize());
  if (!failed) printf("test_mesh_only: ok\n");
  return failed ? 1 : 0;
}
