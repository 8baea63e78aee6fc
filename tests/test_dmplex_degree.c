// SPDX-License-Identifier: BSD-2-Clause
/* Issue 46, item 7: vertex degree and DMPlex distribution. PETSc sizes DMPlex work arrays by the
   largest vertex degree to the power depth + 1 in PetscInt (src/mesh/dmplex.c says where): one OBJ face
   of 200,000 corners, fanned by the reader, crashed on 2 ranks (heap corruption), and a fan of tets
   round one edge gave malloc errors. Now MfadDMPlexDistribute() refuses a degree past PETSc's limit
   before PETSc sees it, naming the vertex, its degree and the limit; at the limit the mesh
   distributes and every vertex's star (what overflowed) is taken. The inputs are written by rank 0
   at test time. Run on 1 and 2 ranks (tests/mesh.cmake). */
#include "testutil.h"
#include <mfadmesh.h>
#include <petscdmplex.h>
#include <petscsf.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static PetscMPIInt rank, size;

/* The largest s with s^(depth + 1) <= PETSC_MAX_INT: DMPlexGetTransitiveClosure()'s work array of
   (s^(depth+1) - 1) / (s - 1) entries (PETSc 3.18 to 3.26), the tightest of PETSc's sizes */
static PetscInt ClosureLimit(int depth)
{
  PetscInt64 s = 1;
  for (;; s++) {
    PetscInt64 p = 1;
    for (int e = 0; e <= depth; e++) {
      if (p > (PetscInt64)PETSC_MAX_INT / (s + 1)) return (PetscInt)s;
      p *= s + 1;
    }
  }
}

/* the file `name` that rank 0 writes and reads (the others only look for it) */
static const char *Path(const char name[])
{
  static char path[PETSC_MAX_PATH_LEN];
  snprintf(path, sizeof path, "test_dmplex_degree_%d_%s", (int)size, name); /* the 1- and 2-rank runs may overlap */
  return path;
}

/* n tets round the edge (0, 1) on the z axis, closed (ring vertices 2 .. n + 1 at z = 0): vertices 0
   and 1 have degree n + 1, the ring's 4 */
static const char *WriteEdgeFan(int n)
{
  char node[PETSC_MAX_PATH_LEN], ele[PETSC_MAX_PATH_LEN];
  snprintf(node, sizeof node, "%s", Path("fan.node"));
  snprintf(ele, sizeof ele, "%s", Path("fan.ele"));
  if (!rank) {
    FILE *fp = fopen(node, "w");
    ck_assert_msg(fp != NULL, "cannot write %s", node);
    fprintf(fp, "%d 3 0 0\n0 0 0 -1\n1 0 0 1\n", n + 2);
    for (int i = 0; i < n; i++) fprintf(fp, "%d %.17g %.17g 0\n", i + 2, cos(2 * M_PI * i / n), sin(2 * M_PI * i / n));
    fclose(fp);
    fp = fopen(ele, "w");
    ck_assert_msg(fp != NULL, "cannot write %s", ele);
    fprintf(fp, "%d 4 0\n", n);
    for (int i = 0; i < n; i++) fprintf(fp, "%d 0 1 %d %d\n", i, 2 + i, 2 + (i + 1) % n); /* positive volume */
    fclose(fp);
  }
  ck_assert(MPI_Barrier(PETSC_COMM_WORLD) == MPI_SUCCESS);
  return Path("fan.node");
}

/* n triangles round vertex 0 (a disk: degree n), written as triangles, so the reader keeps the fan */
static const char *WriteTriangleFan(int n)
{
  if (!rank) {
    FILE *fp = fopen(Path("fan.obj"), "w");
    ck_assert_msg(fp != NULL, "cannot write %s", Path("fan.obj"));
    fprintf(fp, "v 0 0 0\n");
    for (int i = 0; i < n; i++) fprintf(fp, "v %.17g %.17g 0\n", cos(2 * M_PI * i / n), sin(2 * M_PI * i / n));
    for (int i = 0; i < n; i++) fprintf(fp, "f 1 %d %d\n", i + 2, (i + 1) % n + 2);
    fclose(fp);
  }
  ck_assert(MPI_Barrier(PETSC_COMM_WORLD) == MPI_SUCCESS);
  return Path("fan.obj");
}

/* The file through MfadDMPlexCreateFromFile() (rank 0 reads, the DM is distributed with overlap 1);
   on success every vertex's star is taken (the closure that overflowed), and *ncell is the number of
   cells over all ranks, each counted by its owner */
static PetscErrorCode Distribute(const char path[], PetscInt *ncell)
{
  DM              dm;
  PetscSF         sf;
  PetscInt        cStart, cEnd, vStart, vEnd, nleaves, owned;
  const PetscInt *leaves;

  PetscFunctionBeginUser;
  PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, path, &dm));
  PetscCall(DMPlexGetDepthStratum(dm, 0, &vStart, &vEnd));
  for (PetscInt v = vStart; v < vEnd; v++) {
    PetscInt *star = NULL, n;
    PetscCall(DMPlexGetTransitiveClosure(dm, v, PETSC_FALSE, &n, &star));
    PetscCall(DMPlexRestoreTransitiveClosure(dm, v, PETSC_FALSE, &n, &star));
  }
  PetscCall(DMPlexGetHeightStratum(dm, 0, &cStart, &cEnd));
  PetscCall(DMGetPointSF(dm, &sf));
  PetscCall(PetscSFGetGraph(sf, NULL, &nleaves, &leaves, NULL));
  owned = cEnd - cStart;
  for (PetscInt l = 0; l < nleaves && nleaves > 0; l++) {
    const PetscInt p = leaves ? leaves[l] : l;
    if (p >= cStart && p < cEnd) owned--;
  }
  PetscCallMPI(MPI_Allreduce(&owned, ncell, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(DMDestroy(&dm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode DistributeQuietly(const char path[], PetscInt *ncell)
{
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = Distribute(path, ncell);
  PetscCall(PetscPopErrorHandler());
  return ierr;
}

/* the degree of the worst vertex and the limit, as the message gives them */
static void ExpectRefused(const char *what, PetscErrorCode ierr, PetscInt degree, PetscInt limit, const char *why)
{
  char frag[128];
  snprintf(frag, sizeof frag, "vertex 0 (from 0 on rank 0; in the file's order when rank 0 read the mesh) has degree %d", (int)degree);
  TestExpectError(ierr, what, "MfadDMPlexDistribute: ", frag);
  snprintf(frag, sizeof frag, "more than %d%s", (int)limit, why);
  TestExpectError(ierr, what, frag, NULL);
}

/* PETSc's own limit: degree L distributes, L + 1 is refused, for tets (depth 3) and triangles
   (depth 2). Measured on 3.18.5 (32-bit PetscInt): 215 and 1290, the first crashes at 216 and 1291.
   With 64-bit PetscInt the limits (55,108 and 2,097,151) make inputs too big for a unit test; the
   option's test below covers the check there. */
START_TEST(degree_past_petsc_limit_is_refused)
{
  const PetscInt L3 = ClosureLimit(3), L2 = ClosureLimit(2);
  PetscInt       ncell;
  if (L2 > 5000) return;
  ck_assert_msg(L3 == 215 && L2 == 1290, "32-bit PetscInt: limits %d and %d, the powers say 215 and 1290", (int)L3, (int)L2);
  TestCall(Distribute(WriteEdgeFan((int)L3 - 1), &ncell));
  ck_assert_int_eq(ncell, L3 - 1);
  ExpectRefused("tets round one edge, one too many", DistributeQuietly(WriteEdgeFan((int)L3), &ncell), L3 + 1, L3, ", the most that PETSc");
  /* the option lowers PETSc's limit, never raises it */
  TestCall(PetscOptionsSetValue(NULL, "-mfad_dmplex_max_degree", "100000"));
  ExpectRefused("one too many under -mfad_dmplex_max_degree 100000", DistributeQuietly(WriteEdgeFan((int)L3), &ncell), L3 + 1, L3,
                ", the most that PETSc");
  TestCall(PetscOptionsClearValue(NULL, "-mfad_dmplex_max_degree"));
  TestCall(Distribute(WriteTriangleFan((int)L2), &ncell));
  ck_assert_int_eq(ncell, L2);
  ExpectRefused("triangles round one vertex, one too many", DistributeQuietly(WriteTriangleFan((int)L2 + 1), &ncell), L2 + 1, L2,
                ", the most that PETSc");
}
END_TEST

/* -mfad_dmplex_max_degree lowers the limit (the refusal is testable whatever PetscInt is) */
START_TEST(degree_limit_is_an_option)
{
  PetscInt ncell;
  TestCall(PetscOptionsSetValue(NULL, "-mfad_dmplex_max_degree", "10"));
  TestCall(Distribute(WriteEdgeFan(9), &ncell)); /* degree 10 */
  ck_assert_int_eq(ncell, 9);
  ExpectRefused("11 edges under -mfad_dmplex_max_degree 10", DistributeQuietly(WriteEdgeFan(10), &ncell), 11, 10, " (-mfad_dmplex_max_degree)");
  TestCall(PetscOptionsSetValue(NULL, "-mfad_dmplex_max_degree", "0"));
  TestExpectError(DistributeQuietly(WriteEdgeFan(10), &ncell), "-mfad_dmplex_max_degree 0", "-mfad_dmplex_max_degree 0 must be >= 1", NULL);
  TestCall(PetscOptionsClearValue(NULL, "-mfad_dmplex_max_degree"));
}
END_TEST

/* The case, smaller: one OBJ face of 20,000 corners (the reader fanned it, degree 19,999)
   is read as a strip (src/mesh/polytri.c) and distributes: n - 2 cells, on every rank count */
START_TEST(long_polygon_distributes)
{
  const int n = 20000;
  PetscInt  ncell;
  if (!rank) {
    FILE *fp = fopen(Path("face.obj"), "w");
    ck_assert_msg(fp != NULL, "cannot write %s", Path("face.obj"));
    for (int i = 0; i < n; i++) fprintf(fp, "v %.17g %.17g 0\n", cos(2 * M_PI * i / n), sin(2 * M_PI * i / n));
    fprintf(fp, "f");
    for (int i = 0; i < n; i++) fprintf(fp, " %d", i + 1);
    fprintf(fp, "\n");
    fclose(fp);
  }
  ck_assert(MPI_Barrier(PETSC_COMM_WORLD) == MPI_SUCCESS);
  TestCall(Distribute(Path("face.obj"), &ncell));
  ck_assert_int_eq(ncell, n - 2);
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("dmplex_degree");
  TCase   *tc = tcase_create("vertex degree");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  tcase_add_test(tc, degree_past_petsc_limit_is_refused);
  tcase_add_test(tc, degree_limit_is_an_option);
  tcase_add_test(tc, long_polygon_distributes);
  tcase_set_timeout(tc, 60);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  if (!rank) {
    const char *names[] = {"fan.node", "fan.ele", "fan.obj", "face.obj"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) remove(Path(names[i]));
  }
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
