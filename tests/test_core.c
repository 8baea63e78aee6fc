// SPDX-License-Identifier: BSD-2-Clause
/* The energy object on one rank: derivatives against finite differences and against each
   other, fixed dofs, determinism across threads and blockings, and bad input. */
#include "testutil.h"
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static TestGrid grid;

/* value, gradient and HVP of the spring-grid energy at its perturbed point */
typedef struct {
  MfadEnergy E;
  Vec        X, G, V, Y, T;
} Fixture;

static void FixtureCreate(Fixture *f, PetscInt nx, PetscInt ny, PetscInt nz, double amp)
{
  TestCall(TestGridCreate(nx, ny, nz, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &f->E));
  TestCall(MfadEnergyCreateVecs(f->E, &f->X, &f->G));
  TestCall(VecDuplicate(f->X, &f->V));
  TestCall(VecDuplicate(f->X, &f->Y));
  TestCall(VecDuplicate(f->X, &f->T));
  TestCall(TestGridPoint(&grid, amp, 7, f->X));
  TestCall(TestGridPoint(&grid, 1.0, 11, f->V));
  TestCall(VecAXPY(f->V, -1.0, f->X)); /* some direction with entries of order 1 */
}

static void FixtureDestroy(Fixture *f)
{
  TestCall(VecDestroy(&f->X));
  TestCall(VecDestroy(&f->G));
  TestCall(VecDestroy(&f->V));
  TestCall(VecDestroy(&f->Y));
  TestCall(VecDestroy(&f->T));
  TestCall(MfadEnergyDestroy(&f->E));
  TestCall(TestGridDestroy(&grid));
}

START_TEST(gradient_matches_fd_of_objective)
{
  Fixture     f;
  const double h = 1e-6; /* central differences: error O(h^2 |E'''|) + O(eps |E| / h) ~ 1e-10 */
  PetscReal   fp, fm, gv;
  FixtureCreate(&f, 5, 3, 3, 0.1);
  TestCall(MfadEnergyComputeGradient(f.E, f.X, f.G));
  TestCall(VecDot(f.G, f.V, &gv));
  TestCall(VecWAXPY(f.T, h, f.V, f.X));
  TestCall(MfadEnergyComputeObjective(f.E, f.T, &fp));
  TestCall(VecWAXPY(f.T, -h, f.V, f.X));
  TestCall(MfadEnergyComputeObjective(f.E, f.T, &fm));
  ck_assert_msg(fabs((fp - fm) / (2 * h) - gv) <= 1e-6 * (1 + fabs(gv)), "g.v = %.12e, FD %.12e, bound %.1e", gv, (fp - fm) / (2 * h), 1e-6 * (1 + fabs(gv)));
  ck_assert_msg(gv != 0.0, "the test direction must see the gradient");
  FixtureDestroy(&f);
}
END_TEST

START_TEST(hvp_matches_fd_of_gradient)
{
  Fixture      f;
  Vec          Gp, Gm;
  const double h = 1e-6;
  PetscReal    err, nrm;
  FixtureCreate(&f, 5, 3, 3, 0.1);
  TestCall(VecDuplicate(f.X, &Gp));
  TestCall(VecDuplicate(f.X, &Gm));
  TestCall(MfadEnergyComputeHessianProduct(f.E, f.X, f.V, f.Y));
  TestCall(VecWAXPY(f.T, h, f.V, f.X));
  TestCall(MfadEnergyComputeGradient(f.E, f.T, Gp));
  TestCall(VecWAXPY(f.T, -h, f.V, f.X));
  TestCall(MfadEnergyComputeGradient(f.E, f.T, Gm));
  TestCall(VecAXPY(Gp, -1.0, Gm));
  TestCall(VecScale(Gp, 1.0 / (2 * h)));
  TestCall(VecNorm(f.Y, NORM_2, &nrm));
  TestCall(VecAXPY(Gp, -1.0, f.Y));
  TestCall(VecNorm(Gp, NORM_2, &err));
  ck_assert_msg(err <= 1e-6 * nrm && nrm > 0, "|HV - FD| = %.3e, |HV| = %.3e, bound 1e-6 relative", err, nrm);
  TestCall(VecDestroy(&Gp));
  TestCall(VecDestroy(&Gm));
  FixtureDestroy(&f);
}
END_TEST

START_TEST(hessian_is_symmetric)
{
  Fixture   f;
  Vec       U, HU;
  PetscReal uhv, vhu;
  FixtureCreate(&f, 5, 3, 3, 0.2);
  TestCall(VecDuplicate(f.X, &U));
  TestCall(VecDuplicate(f.X, &HU));
  TestCall(TestGridPoint(&grid, 1.0, 99, U));
  TestCall(MfadEnergyComputeHessianProduct(f.E, f.X, f.V, f.Y));
  TestCall(MfadEnergyComputeHessianProduct(f.E, f.X, U, HU));
  TestCall(VecDot(U, f.Y, &uhv));
  TestCall(VecDot(f.V, HU, &vhu));
  /* exact in exact arithmetic; round-off of a sum of ~1e3 products */
  ck_assert_msg(fabs(uhv - vhu) <= 1e-12 * (fabs(uhv) + 1), "u.Hv = %.15e, v.Hu = %.15e", uhv, vhu);
  TestCall(VecDestroy(&U));
  TestCall(VecDestroy(&HU));
  FixtureDestroy(&f);
}
END_TEST

/* diag(H) and the vertex blocks against H e_i, column by column (a small mesh) */
START_TEST(diagonal_and_blocks_match_hvp_columns)
{
  Fixture      f;
  PetscInt     n;
  PetscScalar *blocks;
  FixtureCreate(&f, 3, 2, 2, 0.2);
  TestCall(VecGetSize(f.X, &n));
  TestCall(PetscMalloc1(3 * n, &blocks));
  TestCall(MfadEnergyComputeHessianDiagonal(f.E, f.X, f.T));
  TestCall(MfadEnergyComputeHessianBlockDiagonal(f.E, f.X, blocks));
  for (PetscInt i = 0; i < n; i++) {
    const PetscScalar *y, *d;
    TestCall(VecZeroEntries(f.V));
    TestCall(VecSetValue(f.V, i, 1.0, INSERT_VALUES));
    TestCall(VecAssemblyBegin(f.V));
    TestCall(VecAssemblyEnd(f.V));
    TestCall(MfadEnergyComputeHessianProduct(f.E, f.X, f.V, f.Y));
    TestCall(VecGetArrayRead(f.Y, &y));
    TestCall(VecGetArrayRead(f.T, &d));
    ck_assert_msg(fabs(y[i] - d[i]) <= 1e-12 * (1 + fabs(d[i])), "dof %d: H_ii = %.15e from HVP, %.15e from diagonal", (int)i, y[i], d[i]);
    for (PetscInt r = 3 * (i / 3); r < 3 * (i / 3) + 3; r++) {
      const PetscScalar b = blocks[(i / 3) * 9 + (r % 3) * 3 + i % 3];
      ck_assert_msg(fabs(y[r] - b) <= 1e-12 * (1 + fabs(b)), "vertex %d block (%d,%d): %.15e from HVP, %.15e from blocks", (int)(i / 3), (int)(r % 3), (int)(i % 3), y[r], b);
    }
    TestCall(VecRestoreArrayRead(f.Y, &y));
    TestCall(VecRestoreArrayRead(f.T, &d));
  }
  TestCall(PetscFree(blocks));
  FixtureDestroy(&f);
}
END_TEST

START_TEST(fixed_dofs_are_identity_rows_and_zero_columns)
{
  Fixture            f;
  const PetscScalar *x, *g, *y, *v;
  PetscScalar       *w;
  PetscInt           n;
  FixtureCreate(&f, 4, 3, 2, 0.2);
  TestCall(VecGetLocalSize(f.X, &n));
  /* gradient rows of fixed dofs: x - value (the point is perturbed away from the values) */
  TestCall(MfadEnergyComputeGradient(f.E, f.X, f.G));
  TestCall(VecGetArrayRead(f.X, &x));
  TestCall(VecGetArrayRead(f.G, &g));
  for (PetscInt i = 0; i < n; i++)
    if ((i / 3) % grid.nx == 0) ck_assert_msg(fabs(g[i] - (x[i] - grid.rest[i])) < 1e-15, "fixed dof %d: gradient %g, expected x - value = %g", (int)i, g[i], x[i] - grid.rest[i]);
  TestCall(VecRestoreArrayRead(f.G, &g));
  TestCall(VecRestoreArrayRead(f.X, &x));
  /* a direction on fixed dofs only: H v = v (identity rows, zero columns elsewhere) */
  TestCall(VecGetArray(f.V, &w));
  for (PetscInt i = 0; i < n; i++)
    if ((i / 3) % grid.nx != 0) w[i] = 0.0;
  TestCall(VecRestoreArray(f.V, &w));
  TestCall(MfadEnergyComputeHessianProduct(f.E, f.X, f.V, f.Y));
  TestCall(VecGetArrayRead(f.Y, &y));
  TestCall(VecGetArrayRead(f.V, &v));
  for (PetscInt i = 0; i < n; i++) ck_assert_msg(y[i] == v[i], "dof %d: (H v)_i = %g, expected %g", (int)i, y[i], v[i]);
  TestCall(VecRestoreArrayRead(f.Y, &y));
  TestCall(VecRestoreArrayRead(f.V, &v));
  /* ApplyFixedValues puts the values in */
  TestCall(MfadEnergyApplyFixedValues(f.E, f.X));
  TestCall(MfadEnergyComputeGradient(f.E, f.X, f.G));
  TestCall(VecGetArrayRead(f.G, &g));
  for (PetscInt i = 0; i < n; i++)
    if ((i / 3) % grid.nx == 0) ck_assert_msg(g[i] == 0.0, "fixed dof %d after ApplyFixedValues: gradient %g", (int)i, g[i]);
  TestCall(VecRestoreArrayRead(f.G, &g));
  FixtureDestroy(&f);
}
END_TEST

/* results of a loop configuration, as copies */
static void RunConfig(Fixture *f, PetscInt threads, PetscInt block, const char *scatter, PetscReal *fval, Vec G, Vec Y)
{
  TestCall(PetscOptionsSetValue(NULL, "-mfad_block_size", NULL));
  {
    char buf[32];
    TestCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)block));
    TestCall(PetscOptionsSetValue(NULL, "-mfad_block_size", buf));
    TestCall(PetscSNPrintf(buf, sizeof(buf), "%d", (int)threads));
    TestCall(PetscOptionsSetValue(NULL, "-mfad_num_threads", buf));
    TestCall(PetscOptionsSetValue(NULL, "-mfad_scatter", scatter));
  }
  TestCall(MfadEnergySetFromOptions(f->E));
  TestCall(MfadEnergyComputeObjectiveGradient(f->E, f->X, fval, G));
  TestCall(MfadEnergyComputeHessianProduct(f->E, f->X, f->V, Y));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_block_size"));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_num_threads"));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_scatter"));
}

static int VecBitwiseEqual(Vec A, Vec B)
{
  const PetscScalar *a, *b;
  PetscInt           n;
  int                eq;
  TestCall(VecGetLocalSize(A, &n));
  TestCall(VecGetArrayRead(A, &a));
  TestCall(VecGetArrayRead(B, &b));
  eq = memcmp(a, b, n * sizeof(PetscScalar)) == 0;
  TestCall(VecRestoreArrayRead(A, &a));
  TestCall(VecRestoreArrayRead(B, &b));
  return eq;
}

START_TEST(results_are_bitwise_identical_for_1_and_2_threads)
{
  Fixture   f;
  Vec       G2, Y2;
  PetscReal f1, f2;
  FixtureCreate(&f, 12, 10, 10, 0.1); /* ~6k springs: several blocks of 64 per colour */
  TestCall(VecDuplicate(f.X, &G2));
  TestCall(VecDuplicate(f.X, &Y2));
  RunConfig(&f, 1, 64, "colour", &f1, f.G, f.Y);
  RunConfig(&f, 2, 64, "colour", &f2, G2, Y2);
  ck_assert_msg(f1 == f2, "energy %.17g (1 thread) != %.17g (2 threads)", f1, f2);
  ck_assert_msg(VecBitwiseEqual(f.G, G2), "gradients differ between 1 and 2 threads");
  ck_assert_msg(VecBitwiseEqual(f.Y, Y2), "HVPs differ between 1 and 2 threads");
  TestCall(VecDestroy(&G2));
  TestCall(VecDestroy(&Y2));
  FixtureDestroy(&f);
}
END_TEST

START_TEST(blockings_and_atomic_scatter_agree_to_roundoff)
{
  Fixture   f;
  Vec       G2, Y2;
  PetscReal f1, f2, e, n;
  const PetscInt    blocks[]   = {1, 7, 100000};
  const char       *scatters[] = {"colour", "colour", "atomic"};
  FixtureCreate(&f, 8, 6, 5, 0.1);
  TestCall(VecDuplicate(f.X, &G2));
  TestCall(VecDuplicate(f.X, &Y2));
  RunConfig(&f, 1, 1024, "colour", &f1, f.G, f.Y);
  for (int c = 0; c < 3; c++) {
    RunConfig(&f, 2, blocks[c], scatters[c], &f2, G2, Y2);
    ck_assert_msg(fabs(f1 - f2) <= 1e-13 * fabs(f1), "energy %.17g vs %.17g (block %d, %s)", f1, f2, (int)blocks[c], scatters[c]);
    TestCall(VecNorm(f.G, NORM_2, &n));
    TestCall(VecAXPY(G2, -1.0, f.G));
    TestCall(VecNorm(G2, NORM_2, &e));
    ck_assert_msg(e <= 1e-13 * n, "gradient differs by %.3e (norm %.3e), block %d, %s", e, n, (int)blocks[c], scatters[c]);
    TestCall(VecNorm(f.Y, NORM_2, &n));
    TestCall(VecAXPY(Y2, -1.0, f.Y));
    TestCall(VecNorm(Y2, NORM_2, &e));
    ck_assert_msg(e <= 1e-13 * n, "HVP differs by %.3e (norm %.3e), block %d, %s", e, n, (int)blocks[c], scatters[c]);
  }
  TestCall(VecDestroy(&G2));
  TestCall(VecDestroy(&Y2));
  FixtureDestroy(&f);
}
END_TEST

/* A term added after set-up resets the layout; the other terms' parameters, kept in loop order
   by set-up, must come back in the caller's order (springs given in reverse, so the loop order
   differs from it; their rest lengths take 3 values, so a permutation changes the energy) */
START_TEST(adding_a_term_after_setup_keeps_parameters)
{
  MfadEnergy E;
  MfadKernel spring, gravity;
  Vec        X, G1, G2;
  PetscInt  *conn, v0 = 0;
  double    *rest, k = 3.0, zero[3] = {0, 0, 0};
  PetscReal  f1, f2, e, n;
  TestCall(TestGridCreate(6, 5, 4, &grid));
  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, PETSC_DECIDE, grid.nvert, &E));
  TestCall(MfadKernelFind("mass_spring", &spring));
  TestCall(MfadKernelFind("gravity", &gravity));
  TestCall(PetscMalloc2(2 * grid.nelem, &conn, 6 * grid.nelem, &rest));
  for (PetscInt e = 0; e < grid.nelem; e++)
    for (int a = 0; a < 2; a++) {
      const PetscInt v = grid.conn[2 * (grid.nelem - 1 - e) + a];
      conn[2 * e + a]  = v;
      for (int d = 0; d < 3; d++) rest[6 * e + 3 * a + d] = grid.rest[3 * v + d];
    }
  TestCall(MfadEnergyAddTermFromRest(E, spring, grid.nelem, conn, rest, &k, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, &G1));
  TestCall(VecDuplicate(X, &G2));
  TestCall(TestGridPoint(&grid, 0.1, 7, X));
  TestCall(MfadEnergyComputeObjectiveGradient(E, X, &f1, G1));
  TestCall(MfadEnergyAddTerm(E, gravity, 1, &v0, zero, 1.0, NULL)); /* adds nothing to E */
  TestCall(MfadEnergyComputeObjectiveGradient(E, X, &f2, G2));
  ck_assert_msg(fabs(f2 - f1) <= 1e-13 * fabs(f1), "energy %.17g before, %.17g after adding a zero term", f1, f2);
  TestCall(VecNorm(G1, NORM_2, &n));
  TestCall(VecAXPY(G2, -1.0, G1));
  TestCall(VecNorm(G2, NORM_2, &e));
  ck_assert_msg(e <= 1e-13 * n, "gradient changed by %.3e (norm %.3e) after adding a zero term", e, n);
  TestCall(PetscFree2(conn, rest));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&G1));
  TestCall(VecDestroy(&G2));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
}
END_TEST

/* ------------------------------------------------------------------ bad input */
/* Runs `call` with PETSc's error printing off; asserts it failed with `code` and that the
   message contains each of the fragments. */
static void ExpectError(PetscErrorCode ierr, PetscErrorCode code, const char *what, const char *frag1, const char *frag2)
{
  const char   *text;
  TestErrorText msg = NULL;
  ck_assert_msg(ierr != 0, "%s: expected an error, got success", what);
  PetscErrorMessage(ierr, &text, &msg);
  ck_assert_msg(ierr == code, "%s: error %d (%s), expected %d", what, (int)ierr, msg ? msg : "", (int)code);
  ck_assert_msg(msg && strstr(msg, frag1), "%s: message '%s' lacks '%s'", what, msg ? msg : "", frag1);
  if (frag2) ck_assert_msg(strstr(msg, frag2), "%s: message '%s' lacks '%s'", what, msg, frag2);
}

START_TEST(bad_input_gives_clear_errors)
{
  MfadEnergy     E;
  MfadKernel     spring;
  Vec            X, G, W;
  PetscErrorCode ierr;
  const PetscInt conn[]   = {0, 1, 1, 2, 2, 7};
  const double   params[] = {1, 1, 1, 1, 1, 1};
  double         k = 1, rest[12] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
  PetscScalar   *x;

  TestCall(MfadKernelFind("mass_spring", &spring));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadKernelFind("no_such_energy", &spring);
  ExpectError(ierr, PETSC_ERR_ARG_UNKNOWN_TYPE, "unknown kernel", "no_such_energy", NULL);
  TestCall(MfadKernelFind("mass_spring", &spring));
  ierr = MfadEnergyCreate(PETSC_COMM_SELF, 4, 5, 5, &E);
  ExpectError(ierr, PETSC_ERR_ARG_OUTOFRANGE, "4 dofs per vertex", "dofs per vertex", NULL);

  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, 5, 5, &E));
  ierr = MfadEnergyAddTerm(E, spring, -1, conn, params, 1.0, NULL);
  ExpectError(ierr, PETSC_ERR_ARG_OUTOFRANGE, "negative count", "negative element count", "mass_spring");
  /* 0 elements with arrays: allowed, as the header says (they are not read; it was an error) */
  TestCall(MfadEnergyAddTerm(E, spring, 0, conn, params, 1.0, NULL));
  ierr = MfadEnergyAddTerm(E, spring, 3, conn, NULL, 1.0, NULL);
  ExpectError(ierr, PETSC_ERR_ARG_NULL, "missing parameters", "params is NULL", NULL);
  /* degenerate rest shape: both vertices at the origin */
  ierr = MfadEnergyAddTermFromRest(E, spring, 2, conn + 2, rest, &k, 1.0, NULL);
  ExpectError(ierr, PETSC_ERR_ARG_WRONG, "degenerate rest element", "element 1", "vertices 2 7");
  /* out-of-range vertex id: found at set-up, with term, element and vertex */
  TestCall(MfadEnergyAddTerm(E, spring, 3, conn, params, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, &G));
  TestCall(VecSet(X, 0.5));
  ierr = MfadEnergyComputeGradient(E, X, G);
  ExpectError(ierr, PETSC_ERR_ARG_OUTOFRANGE, "vertex id out of range", "element 2 refers to vertex 7", "'mass_spring'");
  TestCall(MfadEnergyDestroy(&E));

  /* wrong Vec size and NaN in x */
  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, 5, 5, &E));
  TestCall(MfadEnergyAddTerm(E, spring, 2, conn, params, 1.0, NULL));
  TestCall(VecCreateSeq(PETSC_COMM_SELF, 14, &W));
  ierr = MfadEnergyComputeGradient(E, W, G);
  ExpectError(ierr, PETSC_ERR_ARG_SIZ, "wrong Vec size", "local size 14", "needs 15");
  TestCall(VecGetArray(X, &x));
  x[4] = NAN;
  TestCall(VecRestoreArray(X, &x));
  ierr = MfadEnergyComputeGradient(E, X, G);
  ExpectError(ierr, PETSC_ERR_FP, "NaN in x", "vertex 1 dof 1", "nan");
  /* fixed dof out of range; CUDA without CUDA */
  {
    PetscInt bad = 15;
    ierr         = MfadEnergySetFixedDofs(E, 1, &bad, NULL);
    ExpectError(ierr, PETSC_ERR_ARG_OUTOFRANGE, "fixed dof out of range", "dof 15", NULL);
  }
  ierr = MfadEnergySetBackend(E, MFAD_BACKEND_CUDA);
  /* no device here: either CUDA was not compiled (SUP) or no device answers (SUP_SYS, with the CUDA error) */
  if (ierr == PETSC_ERR_SUP) ExpectError(ierr, PETSC_ERR_SUP, "cuda backend", "cuda", "compiled without CUDA");
  else ExpectError(ierr, PETSC_ERR_SUP_SYS, "cuda backend", "cuda", "no usable CUDA device");
  /* the energy still works after all that */
  TestCall(VecSet(X, 0.25));
  TestCall(VecSetValue(X, 0, 1.0, INSERT_VALUES));
  TestCall(VecAssemblyBegin(X));
  TestCall(VecAssemblyEnd(X));
  ierr = MfadEnergyComputeGradient(E, X, G);
  ck_assert_msg(ierr == 0, "the energy must still work after rejected input");
  TestCall(PetscPopErrorHandler());
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&G));
  TestCall(VecDestroy(&W));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

/* MfadKernel is opaque to users (mfad.h): its getters give what a program lays a term's arrays out
   by, as each energy declares it (energies/<name>.c's MfadEnergyInfo); a NULL kernel is an error */
START_TEST(kernel_getters_give_its_declaration)
{
  static const struct {
    const char *name;
    PetscInt    nvert, dof, nparam, rest_dim;
  } Declared[] = {
      {"neohookean_tet", 4, 3, 12, 3},
      {"dirichlet_tri",  3, 3, 5,  3},
      {"mass_spring",    2, 3, 2,  3},
      {"gravity",        1, 3, 3,  0}
  };
  PetscErrorCode ierr;
  const char    *name;

  for (size_t i = 0; i < sizeof(Declared) / sizeof(Declared[0]); i++) {
    MfadKernel k;
    PetscInt   nvert = -1, dof = -1, nparam = -1, rest_dim = -1;

    TestCall(MfadKernelFind(Declared[i].name, &k));
    TestCall(MfadKernelGetName(k, &name));
    ck_assert_msg(!strcmp(name, Declared[i].name), "MfadKernelFind(\"%s\") gave a kernel named '%s'", Declared[i].name, name);
    TestCall(MfadKernelGetSizes(k, &nvert, &dof, &nparam));
    TestCall(MfadKernelGetRestDimension(k, &rest_dim));
    ck_assert_msg(nvert == Declared[i].nvert && dof == Declared[i].dof && nparam == Declared[i].nparam && rest_dim == Declared[i].rest_dim,
                  "%s: %d vertices, %d dofs, %d parameters, rest dimension %d; its declaration says %d, %d, %d, %d", name, (int)nvert, (int)dof,
                  (int)nparam, (int)rest_dim, (int)Declared[i].nvert, (int)Declared[i].dof, (int)Declared[i].nparam, (int)Declared[i].rest_dim);
    nvert = -1;
    TestCall(MfadKernelGetSizes(k, &nvert, NULL, NULL)); /* each size alone */
    ck_assert_msg(nvert == Declared[i].nvert, "%s: MfadKernelGetSizes(k, &nvert, NULL, NULL) gave %d vertices", name, (int)nvert);
  }
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadKernelGetName(NULL, &name);
  TestCall(PetscPopErrorHandler());
  ExpectError(ierr, PETSC_ERR_ARG_NULL, "MfadKernelGetName(NULL)", "MfadKernelGetName: NULL kernel", NULL);
}
END_TEST

/* MfadEnergy is a PetscObject: PETSc's references, prefixes, names, viewers and destroy act on it */
START_TEST(energy_is_a_petsc_object)
{
  Fixture           f;
  MfadEnergy        E2;
  const char       *cname, *prefix;
  PetscInt          refs;
  PetscReal         e1, e2;
  MfadPSDProjection psd;
  PetscViewer       viewer;
  char              path[] = "/tmp/mfad_core_view_XXXXXX", line[512];
  int               fd, header = 0;
  FILE             *fp;

  FixtureCreate(&f, 3, 3, 2, 0.1);
  TestCall(PetscObjectGetClassName((PetscObject)f.E, &cname));
  ck_assert_str_eq(cname, "MfadEnergy");
  /* a reference taken through PETSc keeps it alive past MfadEnergyDestroy() */
  TestCall(MfadEnergyComputeObjective(f.E, f.X, &e1));
  TestCall(PetscObjectReference((PetscObject)f.E));
  E2 = f.E;
  TestCall(MfadEnergyDestroy(&E2));
  ck_assert_ptr_null(E2);
  TestCall(PetscObjectGetReference((PetscObject)f.E, &refs));
  ck_assert_int_eq((int)refs, 1);
  TestCall(MfadEnergyComputeObjective(f.E, f.X, &e2));
  ck_assert_msg(e1 == e2, "objective %g after dropping a reference, %g before", (double)e2, (double)e1);
  /* PETSc's prefix is the energy's: its options are read under it */
  TestCall(PetscObjectSetOptionsPrefix((PetscObject)f.E, "soft_"));
  TestCall(MfadEnergyGetOptionsPrefix(f.E, &prefix));
  ck_assert_str_eq(prefix, "soft_");
  TestCall(PetscOptionsSetValue(NULL, "-soft_mfad_psd_project", "abs"));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_psd_project", "clamp"));
  TestCall(MfadEnergySetFromOptions(f.E));
  TestCall(PetscOptionsClearValue(NULL, "-soft_mfad_psd_project"));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_psd_project"));
  TestCall(MfadEnergyGetPSDProjection(f.E, &psd, NULL));
  ck_assert_msg(psd == MFAD_PSD_ABS, "-soft_mfad_psd_project abs gave projection %d", (int)psd);
  /* PetscObjectView() is MfadEnergyView(), headed by PETSc's class, name and prefix */
  TestCall(PetscObjectSetName((PetscObject)f.E, "springs"));
  fd = mkstemp(path);
  ck_assert_msg(fd >= 0, "mkstemp failed");
  close(fd);
  TestCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, path, &viewer));
  TestCall(PetscObjectView((PetscObject)f.E, viewer));
  TestCall(PetscViewerDestroy(&viewer));
  fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "no view written");
  while (fgets(line, sizeof(line), fp))
    if (strstr(line, "MfadEnergy Object: springs (soft_)") && strstr(line, "1 MPI process")) header++;
  fclose(fp);
  (void)remove(path);
  ck_assert_msg(header == 1, "PetscObjectView printed %d headers 'MfadEnergy Object: springs (soft_) 1 MPI process'", header);
  /* PetscObjectDestroy() is MfadEnergyDestroy() */
  TestCall(PetscObjectDestroy((PetscObject *)&f.E));
  ck_assert_ptr_null(f.E);
  FixtureDestroy(&f);
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("core");
  TCase   *tc = tcase_create("energy");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, gradient_matches_fd_of_objective);
  tcase_add_test(tc, hvp_matches_fd_of_gradient);
  tcase_add_test(tc, hessian_is_symmetric);
  tcase_add_test(tc, diagonal_and_blocks_match_hvp_columns);
  tcase_add_test(tc, fixed_dofs_are_identity_rows_and_zero_columns);
  tcase_add_test(tc, results_are_bitwise_identical_for_1_and_2_threads);
  tcase_add_test(tc, blockings_and_atomic_scatter_agree_to_roundoff);
  tcase_add_test(tc, adding_a_term_after_setup_keeps_parameters);
  tcase_add_test(tc, bad_input_gives_clear_errors);
  tcase_add_test(tc, kernel_getters_give_its_declaration);
  tcase_add_test(tc, energy_is_a_petsc_object);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
