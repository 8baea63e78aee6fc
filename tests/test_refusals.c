// SPDX-License-Identifier: BSD-2-Clause
/* No silent wrong answer (issue 46): input that gave a result it should not have is refused with a
   PETSc error naming the option, rank, term, element or line, or is now computed right; and
   messages that misled now say what is wrong. Run on 1 and 2 ranks (tests/core.cmake): the
   whole-mesh API's ranks must agree, and a rank's element 0 is not the mesh's. */
#include "testutil.h"
#include <mfadmesh.h>
#include <stdio.h>
#include <string.h>

static PetscMPIInt rank, size;

/* the spring grid's energy at a perturbed point, with -mfad_block_size `bs` (NULL: the default) */
static PetscErrorCode GridEnergy(const TestGrid *g, const char *bs, PetscReal *f)
{
  MfadEnergy E;
  Vec        X;

  PetscFunctionBeginUser;
  if (bs) PetscCall(PetscOptionsSetValue(NULL, "-mfad_block_size", bs));
  PetscCall(TestGridEnergy(PETSC_COMM_WORLD, g, &E));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(g, 0.1, 5, X));
  PetscCall(MfadEnergyComputeObjective(E, X, f));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  if (bs) PetscCall(PetscOptionsClearValue(NULL, "-mfad_block_size"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Item 1. A block size near 2^31 overflowed the 32-bit block count in src/colour.c: no element
   was coloured and every term was 0 (elastic printed energy 0, converged). Any block size >= 1
   is one blocking of the same sum: the energy agrees with the default's to round-off. */
START_TEST(block_size_near_int_max_evaluates_every_element)
{
  TestGrid  g;
  PetscReal f0, f1;

  TestCall(TestGridCreate(10, 10, 10, &g)); /* ~6,000 springs: > 648 on a rank, which overflowed */
  TestCall(GridEnergy(&g, NULL, &f0));
  TestCall(GridEnergy(&g, "2147483000", &f1));
  ck_assert_msg(f0 > 0, "default block size: energy %g, expected > 0", (double)f0);
  /* the same elements summed in another order: a few ulps per element, 1e-12 relative */
  ck_assert_msg(PetscAbsReal(f1 - f0) <= 1e-12 * f0, "-mfad_block_size 2147483000: energy %.17g, the default's %.17g", (double)f1, (double)f0);
  TestCall(PetscOptionsSetValue(NULL, "-mfad_block_size", "0"));
  {
    MfadEnergy     E;
    PetscErrorCode ierr;
    TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergySetFromOptions(E);
    TestCall(PetscPopErrorHandler());
    TestExpectError(ierr, "-mfad_block_size 0", "-mfad_block_size", ">= 1");
    TestCall(MfadEnergyDestroy(&E));
  }
  TestCall(PetscOptionsClearValue(NULL, "-mfad_block_size"));
  TestCall(TestGridDestroy(&g));
}
END_TEST

/* the box 1 x 1 x n (6 n tets), its cells' first two corners swapped in cell `flip` (>= 0) */
static PetscErrorCode Box(PetscInt n, PetscInt flip, MfadMesh *m)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};

  PetscFunctionBeginUser;
  PetscCall(MfadMeshCreateBox(1, 1, n, lo, hi, m));
  if (flip >= 0) {
    const PetscInt v          = (*m)->cells[4 * flip];
    (*m)->cells[4 * flip]     = (*m)->cells[4 * flip + 1];
    (*m)->cells[4 * flip + 1] = v;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Item 2. Every rank passes the whole mesh; ranks passing different ones gave each its own vertex
   count as the global size (inf, NaN, then heap corruption). Now every rank gets the same error,
   naming each rank's sizes; meshes of equal sizes that differ are told by their hashes. */
START_TEST(ranks_passing_different_meshes_are_refused)
{
  MfadMesh       m, same;
  MfadEnergy     E = NULL;
  MfadKernel     k;
  PetscErrorCode ierr;
  PetscReal      mat[2] = {1, 1};

  TestCall(Box(1, -1, &same));
  TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, same, 3, &E)); /* the same mesh is fine */
  TestCall(MfadEnergyDestroy(&E));
  if (size == 1) { /* nothing to disagree with */
    TestCall(MfadMeshDestroy(&same));
    return;
  }
  /* rank r: 1 x 1 x (1 + r) cubes, rank 0 8 vertices and 6 cells, rank 1 12 and 12 */
  TestCall(Box(1 + rank, -1, &m));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergyCreateFromMesh, other sizes on rank 1", "rank 0: 8 vertices, 6 cells", "rank 1: 12 vertices, 12 cells");
  ck_assert_msg(!E, "MfadEnergyCreateFromMesh made an energy from different meshes");
  TestCall(MfadMeshDestroy(&m));
  /* the same sizes, one cell's corners swapped on rank 1: the term's cells would differ */
  TestCall(Box(1, rank == 1 ? 3 : -1, &m));
  TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, same, 3, &E));
  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromMesh(E, m, k, mat, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergyAddTermFromMesh, a cell differs on rank 1", "meshes differ in cell/coordinate hashes", "rank 1: 8 vertices");
  TestCall(MfadEnergyDestroy(&E));
  TestCall(MfadMeshDestroy(&m));
  TestCall(MfadMeshDestroy(&same));
}
END_TEST

/* Item 5. A repeated vertex made a degenerate element that was accepted (a tet of energy +inf at
   every point; the readers refuse it). Now refused by both ways in, naming term, element, vertex. */
START_TEST(repeated_vertex_is_refused)
{
  /* a positive tet's rest shape: the rest coordinates are per element, so they need not repeat */
  const PetscReal rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1, 1};
  const PetscInt  tet[4] = {0, 1, 2, 2}, spring[2] = {3, 3};
  const char     *where = size == 1 ? "term 'neohookean_tet': element 0 repeats vertex 2" : NULL;
  char            local[128];
  MfadEnergy      E;
  MfadKernel      k, ks;
  PetscErrorCode  ierr;
  PetscReal       stiff = 1;

  TestCall(PetscSNPrintf(local, sizeof local, "term 'neohookean_tet': local element 0 of rank %d repeats vertex 2", rank));
  TestCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 8, &E));
  TestCall(MfadKernelFind("neohookean_tet", &k));
  TestCall(MfadKernelFind("mass_spring", &ks));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromRest(E, k, 1, tet, rest, mat, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergyAddTermFromRest, tet 0 1 2 2", where ? where : local, "(vertices 0 1 2 2)");
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTerm(E, ks, 1, spring, &stiff, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergyAddTerm, spring 3 3", "term 'mass_spring'", "repeats vertex 3");
  TestCall(MfadEnergyDestroy(&E));
  { /* through the whole-mesh API: the mesh's cell number. 1 x 1 x 2: cells 0-5 on rank 0, 6-11 on rank 1 */
    MfadMesh m;
    TestCall(Box(2, -1, &m));
    m->cells[4 * 8 + 2] = m->cells[4 * 8];
    TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergyAddTermFromMesh(E, m, k, mat, 1.0, NULL);
    TestCall(PetscPopErrorHandler());
    /* on every rank: the others would wait for the last in a collective call (issue 46) */
    TestCall(PetscSNPrintf(local, sizeof local, "element 8 repeats vertex %" PetscInt_FMT, m->cells[4 * 8]));
    TestExpectError(ierr, "MfadEnergyAddTermFromMesh, cell 8 repeats a vertex", local, NULL);
    TestCall(MfadEnergyDestroy(&E));
    TestCall(MfadMeshDestroy(&m));
  }
}
END_TEST

/* Item 11. nelem = 0 is allowed (the header says so) whatever the array: it was an error when the
   array was not NULL. The term then evaluates with this rank's 0 elements. */
START_TEST(no_elements_with_an_array_is_allowed)
{
  TestGrid   g;
  MfadEnergy E;
  MfadKernel ks;
  Vec        X;
  PetscReal  f0, f1, stiff = 1;
  PetscInt   conn[2] = {0, 1}, t;

  TestCall(TestGridCreate(3, 2, 2, &g));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &g, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(TestGridPoint(&g, 0.1, 3, X));
  TestCall(MfadEnergyComputeObjective(E, X, &f0));
  TestCall(MfadKernelFind("mass_spring", &ks));
  TestCall(MfadEnergyAddTerm(E, ks, 0, conn, &stiff, 1.0, &t));
  ck_assert_msg(t == 1, "the new term's index %d, expected 1", (int)t);
  TestCall(MfadEnergyComputeObjective(E, X, &f1));
  ck_assert_msg(f1 == f0, "a term of 0 elements changed the energy: %.17g, before %.17g", (double)f1, (double)f0);
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&g));
}
END_TEST

/* Item 11. A rest-shape error on a rank named the rank's own element ("[1] ... element 0" was the
   mesh's element 6): now the global number where it is known, else "local element k of rank r". */
START_TEST(rest_shape_errors_name_global_or_local_elements)
{
  const PetscReal good[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1, 1};
  PetscReal       rest[24];
  const PetscInt  conn[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  MfadEnergy      E;
  MfadKernel      k;
  MfadMesh        m;
  PetscErrorCode  ierr;
  char            want[128];

  TestCall(MfadKernelFind("neohookean_tet", &k));
  /* the last rank's second element inverted (x and y of its vertex 1 swapped) */
  for (int i = 0; i < 24; i++) rest[i] = good[i % 12];
  if (rank == size - 1) {
    rest[12 + 3] = 0;
    rest[12 + 4] = 1;
    rest[12 + 6] = 1;
    rest[12 + 7] = 0;
  }
  TestCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 8, &E));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromRest(E, k, 2, conn, rest, mat, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  if (rank == size - 1) {
    if (size == 1) TestCall(PetscSNPrintf(want, sizeof want, "term 'neohookean_tet': element 1 has a degenerate or inverted rest shape"));
    else
      TestCall(PetscSNPrintf(want, sizeof want, "term 'neohookean_tet': local element 1 of rank %d has a degenerate or inverted rest shape", rank));
    TestExpectError(ierr, "MfadEnergyAddTermFromRest, an inverted tet", want, "(vertices 4 5 6 7)");
  } else ck_assert_msg(ierr == 0, "MfadEnergyAddTermFromRest: rank %d, whose tets are fine, failed", rank);
  TestCall(MfadEnergyDestroy(&E));
  /* through the whole-mesh API: cell 8 of 12 (rank 1's third on 2 ranks) inverted */
  TestCall(Box(2, 8, &m));
  TestCall(MfadEnergyCreateFromMesh(PETSC_COMM_WORLD, m, 3, &E));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyAddTermFromMesh(E, m, k, mat, 1.0, NULL);
  TestCall(PetscPopErrorHandler());
  /* on every rank, as the mesh's one error (fuzz_path_replay found the others waiting forever) */
  TestExpectError(ierr, "MfadEnergyAddTermFromMesh, cell 8 inverted", "element 8 has a degenerate or inverted rest shape (kernel code 2: inverted)",
                  NULL);
  TestCall(MfadEnergyDestroy(&E));
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* Item 11. An OFF file with more vertex lines than its header says: the first extra vertex was
   read as face 0 and reported as "face 0 has 0 vertices (3 or more)", nothing more. A line that is
   not a face and could be a vertex now says so too (a short face of integers, "3 0 1", is not one) */
START_TEST(off_with_extra_vertex_lines_says_so)
{
  char           path[64];
  FILE          *fp;
  MfadMesh       m = NULL;
  PetscErrorCode ierr;
  /* the extra vertex's first coordinate read as the face's vertex count: 0, or not an integer */
  const char *extra[2] = {"0 1 1", "0.5 1 1"},
             *said[2]  = {":7: face 0 has 0 vertices (3 or more); or, if the line is a vertex's coordinates,",
                          "'0.5' is not an integer (the vertex count of a face; or, if the line is a vertex's coordinates,"};

  TestCall(PetscSNPrintf(path, sizeof path, "test_refusals_extra_%d.off", rank));
  for (int i = 0; i < 2; i++) {
    fp = fopen(path, "w");
    ck_assert_msg(fp != NULL, "cannot write %s", path);
    fprintf(fp, "OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n%s\n3 0 1 2\n", extra[i]);
    fclose(fp);
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadMeshReadOFF(path, &m);
    TestCall(PetscPopErrorHandler());
    remove(path);
    TestExpectError(ierr, extra[i], said[i], "the file has more vertex lines than the header's 4");
    ck_assert_msg(!m, "%s: a mesh was returned", extra[i]);
  }
  /* a good file still reads: the check does not take faces for vertices */
  fp = fopen(path, "w");
  ck_assert_msg(fp != NULL, "cannot write %s", path);
  fputs("OFF\n4 2 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3 0.5 0.5 0.5 1\n", fp);
  fclose(fp);
  TestCall(MfadMeshReadOFF(path, &m));
  remove(path);
  ck_assert_msg(m->nvert == 4 && m->ncell == 2, "good OFF: %d vertices, %d faces", (int)m->nvert, (int)m->ncell);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* 8. An endless line (/dev/zero, any newline-free stream) is an error at -mfad_mesh_max_line bytes,
   not all of memory (getline() grew its buffer at 150-250 MB/s until malloc failed); the default
   cap (64 MiB) holds /dev/zero to well under a second. A long line below the cap still reads. */
START_TEST(endless_line_is_refused_at_the_cap)
{
  MfadMesh       m = NULL;
  PetscErrorCode ierr;
  char           path[64];
  FILE          *fp;

  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadMeshReadOBJ("/dev/zero", &m);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "/dev/zero", "/dev/zero:1: a line longer than 67108864 bytes", "-mfad_mesh_max_line");
  ck_assert_msg(!m, "/dev/zero: a mesh was returned");
  /* a comment of 10,000 bytes under a cap of 20,000 reads; under 5,000 it is refused */
  TestCall(PetscSNPrintf(path, sizeof path, "test_refusals_long_%d.obj", rank));
  fp = fopen(path, "w");
  ck_assert_msg(fp != NULL, "cannot write %s", path);
  fputc('#', fp);
  for (int i = 0; i < 10000; i++) fputc('x', fp);
  fprintf(fp, "\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
  fclose(fp);
  TestCall(PetscOptionsSetValue(NULL, "-mfad_mesh_max_line", "20000"));
  TestCall(MfadMeshReadOBJ(path, &m));
  ck_assert_int_eq(m->ncell, 1);
  TestCall(MfadMeshDestroy(&m));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_mesh_max_line", "5000"));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadMeshReadOBJ(path, &m);
  TestCall(PetscPopErrorHandler());
  TestCall(PetscOptionsClearValue(NULL, "-mfad_mesh_max_line"));
  remove(path);
  TestExpectError(ierr, "a 10,001-byte line under -mfad_mesh_max_line 5000", ":1: a line longer than 5000 bytes", NULL);
}
END_TEST

/* 8. A hostile file's bytes are not echoed raw into messages: control codes shown as \xNN */
START_TEST(control_bytes_are_escaped_in_messages)
{
  MfadMesh       m = NULL;
  PetscErrorCode ierr;
  char           path[64];
  FILE          *fp;

  TestCall(PetscSNPrintf(path, sizeof path, "test_refusals_esc_%d.obj", rank));
  fp = fopen(path, "w");
  ck_assert_msg(fp != NULL, "cannot write %s", path);
  fprintf(fp, "v 0 0 0\n\033[31mRED\a 1 2\n");
  fclose(fp);
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadMeshReadOBJ(path, &m);
  TestCall(PetscPopErrorHandler());
  remove(path);
  TestExpectError(ierr, "an ESC in a record", ":2: unknown record '\\x1b[31mRED\\x07'", NULL);
}
END_TEST

/* Item 10. A vertex that no element touches and that is not fixed (a disk OBJ's stray vertex made
   param stop at its first step with DIVERGED_LINEAR_SOLVE: an empty row of the Hessian) is refused
   by number at the first Hessian of a SNES solve; fixing all its dofs makes it fine, fixing some is
   not enough. The energy itself may leave vertices alone (it may be one part of an objective). */
static PetscErrorCode SolveChain(MfadEnergy E, Vec X)
{
  SNES snes;

  PetscFunctionBeginUser;
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetTolerances(snes, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT, 3, PETSC_DEFAULT));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(untouched_vertex_is_refused_by_number)
{
  const PetscInt  conn[6] = {0, 1, 1, 2, 2, 3}, dofs[3] = {12, 13, 14};
  const PetscReal params[6] = {1, 1, 1, 1, 1, 1};
  MfadEnergy      E;
  MfadKernel      ks;
  Vec             X;
  PetscErrorCode  ierr;
  PetscReal       f;

  /* 5 vertices, springs 0-1-2-3 on rank 0: vertex 4 is in no element */
  TestCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 5, &E));
  TestCall(MfadKernelFind("mass_spring", &ks));
  TestCall(MfadEnergyAddTerm(E, ks, rank == 0 ? 3 : 0, conn, params, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(VecSetRandom(X, NULL));
  TestCall(MfadEnergyComputeObjective(E, X, &f));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SolveChain(E, X);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "a vertex in no element", "vertex 4 (0-based; 1 such vertices in all) is in no element of any term and not fixed",
                  "MfadEnergySetFixedDofs()");
  TestCall(MfadEnergySetFixedDofs(E, 2, dofs, NULL)); /* y and z of vertex 4 free: still refused */
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SolveChain(E, X);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "a vertex in no element, one dof fixed", "vertex 4 (0-based", NULL);
  TestCall(MfadEnergySetFixedDofs(E, 3, dofs, NULL));
  TestCall(SolveChain(E, X));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

/* Item 11. A vertex id out of range was an error on the rank that had it alone (the others went on
   into the set-up's collectives) naming the rank's own element number: now every rank gets it,
   naming the element by its global number (rank 0's elements first). */
START_TEST(vertex_out_of_range_is_refused_on_every_rank)
{
  const PetscReal params[4] = {1, 1, 1, 1};
  PetscInt        conn[4]   = {0, 1, 1, 2};
  MfadEnergy      E;
  MfadKernel      ks;
  Vec             X;
  PetscErrorCode  ierr;
  PetscReal       f;
  char            want[128];

  if (rank == size - 1) conn[3] = 99; /* the last rank's second spring */
  TestCall(PetscSNPrintf(want, sizeof want, "term 'mass_spring': element %d refers to vertex 99, outside [0, 3)", 2 * size - 1));
  TestCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, rank == 0 ? 3 : 0, 3, &E));
  TestCall(MfadKernelFind("mass_spring", &ks));
  TestCall(MfadEnergyAddTerm(E, ks, 2, conn, params, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(VecSet(X, 1.0));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyComputeObjective(E, X, &f);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "a vertex out of range", want, "(vertices 1 99)");
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

/* Item 10. Every reader drops the vertices in no cell (a stray vertex of an exported file), the
   others renumbered in the file's order: an OBJ of 5 vertices whose triangle uses 1, 3 and 5 */
START_TEST(reader_drops_vertices_in_no_cell)
{
  char     path[64];
  FILE    *fp;
  MfadMesh m;

  TestCall(PetscSNPrintf(path, sizeof path, "test_refusals_stray_%d.obj", rank));
  fp = fopen(path, "w");
  ck_assert_msg(fp != NULL, "cannot write %s", path);
  fprintf(fp, "v 0 0 0\nv 9 9 9\nv 1 0 0\nv 8 8 8\nv 0 1 0\nf 1 3 5\n");
  fclose(fp);
  TestCall(MfadMeshReadOBJ(path, &m));
  remove(path);
  ck_assert_msg(m->nvert == 3 && m->ncell == 1, "%d vertices, %d cells; expected 3 and 1", (int)m->nvert, (int)m->ncell);
  ck_assert_msg(m->cells[0] == 0 && m->cells[1] == 1 && m->cells[2] == 2, "cell %d %d %d, expected 0 1 2", (int)m->cells[0], (int)m->cells[1],
                (int)m->cells[2]);
  ck_assert_msg(m->coords[3] == 1 && m->coords[7] == 1 && m->coords[4] == 0, "the kept vertices' coordinates moved");
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("refusals");
  TCase   *tc = tcase_create("no silent wrong answer");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  tcase_add_test(tc, block_size_near_int_max_evaluates_every_element);
  tcase_add_test(tc, ranks_passing_different_meshes_are_refused);
  tcase_add_test(tc, repeated_vertex_is_refused);
  tcase_add_test(tc, no_elements_with_an_array_is_allowed);
  tcase_add_test(tc, rest_shape_errors_name_global_or_local_elements);
  tcase_add_test(tc, off_with_extra_vertex_lines_says_so);
  tcase_add_test(tc, endless_line_is_refused_at_the_cap);
  tcase_add_test(tc, control_bytes_are_escaped_in_messages);
  tcase_add_test(tc, untouched_vertex_is_refused_by_number);
  tcase_add_test(tc, vertex_out_of_range_is_refused_on_every_rank);
  tcase_add_test(tc, reader_drops_vertices_in_no_cell);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
