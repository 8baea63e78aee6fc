// SPDX-License-Identifier: BSD-2-Clause
/* No silent traps: what a user asks for on the command line (or in code) happens, or is an error
   that says why. The preconditioner the user chose survives MfadEnergySetSNES()/SetTao() in
   either order; -mfad_view prints, once, without the program asking; an option given without
   its value is an error; -help lists every -mfad_ option; an invalid start point names its
   element. The options checks go over the options tables (MfadEnergyGetOptionTable(),
   MfadSolverGetOptionTable(), MfadMeshGetOptionTable()): an option added to a table is checked
   with nothing added here. Runs on 1 or 2 ranks (every check is the same on each rank). */
#include "testutil.h"
#include <mfadmesh.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static TestGrid grid;

/* check's assertions need the PETSc error message of a call that failed */
/* ------------------------------------------------------------------ the user's preconditioner */
typedef struct {
  const char *opts;    /* options */
  int         order;   /* 0: MfadEnergySetSNES() then SNESSetFromOptions(); 1: the reverse */
  const char *code_pc; /* PCSetType() in code: NULL, or the type */
  int         code_at; /* when: 0 first of all, 1 between the two calls, 2 after both */
  const char *expect;  /* the PC type the solve must have used */
} PCCase;

static const PCCase pc_cases[] = {
    {"-mfad_hessian aij -pc_type cholesky", 0, NULL,       0, PCCHOLESKY},
    {"-mfad_hessian aij -pc_type cholesky", 1, NULL,       0, PCCHOLESKY}, /* was replaced by Jacobi */
    {"-mfad_pmat aij -pc_type cholesky",    1, NULL,       0, PCCHOLESKY}, /* fused operator, assembled P */
    {"-mfad_hessian aij",                   0, PCCHOLESKY, 0, PCCHOLESKY}, /* was replaced by Jacobi */
    {"-mfad_hessian aij",                   1, PCCHOLESKY, 0, PCCHOLESKY}, /* was replaced by Jacobi */
    {"-mfad_hessian aij",                   1, PCCHOLESKY, 1, PCCHOLESKY}, /* was replaced by Jacobi */
    {"-mfad_hessian aij",                   0, PCCHOLESKY, 2, PCCHOLESKY},
    {"",                                    0, NULL,       0, PCCHOLESKY}, /* no choice: mfad's default factorisation, in either order */
    {"",                                    1, NULL,       0, PCCHOLESKY},
    {"-ksp_type cg",                        0, NULL,       0, PCJACOBI  }, /* a Krylov method, no PC: mfad's Jacobi, in either order */
    {"-ksp_type cg",                        1, NULL,       0, PCJACOBI  },
    {"-mfad_hessian aij",                   1, NULL,       0, PCJACOBI  },
    {"-pc_type pbjacobi",                   1, NULL,       0, PCPBJACOBI},
    {"-pc_type none",                       0, NULL,       0, PCNONE    },
};

static PetscErrorCode SolveSNES(const PCCase *c, char type[], size_t len, PetscBool *converged)
{
  MfadEnergy          E;
  SNES                snes;
  KSP                 ksp;
  PC                  pc;
  Vec                 X;
  SNESConvergedReason reason;
  const char         *t;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, c->opts));
  PetscCall(TestGridCreate(4, 3, 3, &grid));
  PetscCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(&grid, 0.05, 42, X));
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  if (c->code_pc && c->code_at == 0) PetscCall(PCSetType(pc, c->code_pc));
  if (c->order == 0) PetscCall(MfadEnergySetSNES(E, snes));
  else PetscCall(SNESSetFromOptions(snes));
  if (c->code_pc && c->code_at == 1) PetscCall(PCSetType(pc, c->code_pc));
  if (c->order == 0) PetscCall(SNESSetFromOptions(snes));
  else PetscCall(MfadEnergySetSNES(E, snes));
  if (c->code_pc && c->code_at == 2) PetscCall(PCSetType(pc, c->code_pc));
  PetscCall(SNESSetTolerances(snes, 1e-9, 1e-12, 0, 100, 100000));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PCGetType(pc, &t));
  PetscCall(PetscStrncpy(type, t ? t : "(none)", len));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(TestGridDestroy(&grid));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(snes_keeps_the_users_preconditioner)
{
  const PCCase *c = &pc_cases[_i];
  char          type[64];
  PetscBool     conv;

  TestCall(SolveSNES(c, type, sizeof(type), &conv));
  ck_assert_msg(!strcmp(type, c->expect), "'%s', %s first, PCSetType(%s) %s: the solve used PC %s, expected %s", c->opts,
                c->order ? "SNESSetFromOptions" : "MfadEnergySetSNES", c->code_pc ? c->code_pc : "-",
                c->code_at == 0   ? "first"
                : c->code_at == 1 ? "between"
                                  : "after",
                type, c->expect);
  ck_assert_msg(conv, "'%s' with PC %s did not converge", c->opts, type);
}
END_TEST

/* A factorisation of the shell Hessian: an error naming the choice and the way out, in either
   order (PETSc's own would be "could not locate a solver type ... matrix type shell") */
START_TEST(factorising_a_shell_is_an_error_that_says_so)
{
  for (int order = 0; order < 2; order++) {
    PCCase         c = {"-mfad_hessian shell -pc_type cholesky", order, NULL, 0, NULL};
    char           type[64];
    PetscBool      conv;
    PetscErrorCode ierr;
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = SolveSNES(&c, type, sizeof(type), &conv);
    TestCall(PetscPopErrorHandler());
    TestExpectError(ierr, "SNES, -pc_type cholesky on the shell", "needs an assembled matrix", "-mfad_pmat aij");
    TestCall(PetscOptionsClear(NULL));
  }
}
END_TEST

/* An assembled operator that only the Krylov method applies (-mfad_hessian aij beside another
   -mfad_pmat) is made in the format with the faster product: of block size 3, its upper triangle
   (sbaij) on one rank, baij on more (bench_spmv_eigen: baij 1.5-2x aij's MatMult; it was aij;
   bench_spmv: sbaij 1.3-1.5x baij's); the operator that is also the preconditioning matrix stays
   aij (Cholesky and MUMPS factor it), and -mat_type still decides. Each solve converges. */
START_TEST(an_assembled_operator_only_applied_is_blocked)
{
  static const struct {
    const char *opts;
    const char *one_rank, *ranks; /* J's type on one rank, on more */
    PetscBool   same;             /* J is P */
  } cases[] = {
      {"-mfad_hessian aij -mfad_pmat shell -ksp_type cg -pc_type jacobi",  MATSEQSBAIJ, MATMPIBAIJ, PETSC_FALSE},
      {"-mfad_hessian aij -mfad_pmat cached -ksp_type cg -pc_type jacobi", MATSEQSBAIJ, MATMPIBAIJ, PETSC_FALSE},
      {"-mfad_hessian aij -ksp_type cg -pc_type jacobi",                   MATSEQAIJ,   MATMPIAIJ,  PETSC_TRUE },
      {"-mfad_hessian aij -mfad_pmat shell -ksp_type cg -mat_type aij",    MATSEQAIJ,   MATMPIAIJ,  PETSC_FALSE},
  };
  PetscMPIInt size;

  TestCall(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
    MfadEnergy          E;
    SNES                snes;
    Vec                 X;
    Mat                 J, P;
    MatType             jt;
    SNESConvergedReason reason;
    const char         *expect = size == 1 ? cases[i].one_rank : cases[i].ranks;

    TestCall(PetscOptionsClear(NULL));
    TestCall(PetscOptionsInsertString(NULL, cases[i].opts));
    TestCall(TestGridCreate(4, 3, 3, &grid));
    TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(TestGridPoint(&grid, 0.05, 42, X));
    TestCall(SNESCreate(PETSC_COMM_WORLD, &snes));
    TestCall(MfadEnergySetSNES(E, snes));
    TestCall(SNESSetFromOptions(snes));
    TestCall(SNESSetTolerances(snes, 1e-9, 1e-12, 0, 100, 100000));
    TestCall(SNESSolve(snes, NULL, X));
    TestCall(SNESGetConvergedReason(snes, &reason));
    TestCall(SNESGetJacobian(snes, &J, &P, NULL, NULL));
    TestCall(MatGetType(J, &jt));
    ck_assert_msg(!strcmp(jt, expect), "'%s' on %d rank(s): the operator is %s, expected %s", cases[i].opts, (int)size, jt, expect);
    ck_assert_msg((J == P) == cases[i].same, "'%s': the operator %s the preconditioning matrix", cases[i].opts, J == P ? "is" : "is not");
    ck_assert_msg(reason > 0, "'%s' (operator %s) did not converge: %s", cases[i].opts, jt, SNESConvergedReasons[reason]);
    TestCall(SNESDestroy(&snes));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(TestGridDestroy(&grid));
  }
  TestCall(PetscOptionsClear(NULL));
}
END_TEST

/* TAO creates its KSP in TaoSetFromOptions(): a PC type set in code afterwards is the user's */
static PetscErrorCode SolveTao(const char *opts, const char *code_pc, char type[], size_t len, PetscBool *converged)
{
  MfadEnergy         E;
  Tao                tao;
  KSP                ksp;
  PC                 pc;
  Vec                X;
  TaoConvergedReason reason;
  const char        *t;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(TestGridCreate(4, 3, 3, &grid));
  PetscCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(&grid, 0.05, 42, X));
  PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
  PetscCall(TaoSetType(tao, TAONLS));
  PetscCall(MfadEnergySetTao(E, tao));
  PetscCall(TaoSetSolution(tao, X));
  PetscCall(TaoSetTolerances(tao, 1e-9, 0, 0));
  PetscCall(TaoSetFromOptions(tao));
  PetscCall(TaoGetKSP(tao, &ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  if (code_pc) PetscCall(PCSetType(pc, code_pc));
  PetscCall(TaoSolve(tao));
  PetscCall(TaoGetConvergedReason(tao, &reason));
  *converged = reason > 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(PCGetType(pc, &t));
  PetscCall(PetscStrncpy(type, t ? t : "(none)", len));
  PetscCall(TaoDestroy(&tao));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(TestGridDestroy(&grid));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(tao_keeps_the_users_preconditioner)
{
  char           type[64];
  PetscBool      conv;
  PetscErrorCode ierr;

  TestCall(SolveTao("-mfad_hessian aij -tao_nls_pc_type cholesky", NULL, type, sizeof(type), &conv));
  ck_assert_msg(!strcmp(type, PCCHOLESKY) && conv, "TAO, -tao_nls_pc_type cholesky: PC %s, converged %d", type, (int)conv);
  TestCall(SolveTao("-mfad_hessian aij", PCCHOLESKY, type, sizeof(type), &conv));
  ck_assert_msg(!strcmp(type, PCCHOLESKY) && conv, "TAO, PCSetType(cholesky): PC %s, converged %d", type, (int)conv);
  TestCall(SolveTao("", NULL, type, sizeof(type), &conv));
  ck_assert_msg(!strcmp(type, PCCHOLESKY) && conv, "TAO, no choice: PC %s (expected mfad's default cholesky), converged %d", type, (int)conv);
  TestCall(SolveTao("-mfad_hessian shell", NULL, type, sizeof(type), &conv));
  ck_assert_msg(!strcmp(type, PCJACOBI) && conv, "TAO, shell, no PC chosen: PC %s (expected jacobi), converged %d", type, (int)conv);
  /* was silently replaced by Jacobi */
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = SolveTao("-mfad_hessian shell", PCCHOLESKY, type, sizeof(type), &conv);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "TAO, PCSetType(cholesky) on the shell", "needs an assembled matrix", "cholesky");
  TestCall(PetscOptionsClear(NULL));
}
END_TEST

/* ------------------------------------------------------------------ the options tables */
/* Every option of the three tables, by a flat index (the loop tests' _i) */
static PetscErrorCode TableOption(PetscInt k, const char **name, MfadOptionType *type, PetscInt *nchoice, const char *const **choices,
                                  const char **setter, PetscBool *energy)
{
  PetscErrorCode (*const get[3])(MfadOptionTable *) = {MfadEnergyGetOptionTable, MfadSolverGetOptionTable, MfadMeshGetOptionTable};

  PetscFunctionBeginUser;
  for (int g = 0; g < 3; g++) {
    MfadOptionTable t;
    PetscInt        n;
    PetscCall(get[g](&t));
    PetscCall(MfadOptionTableGetSize(t, &n));
    if (k < n) {
      PetscCall(MfadOptionTableGetEntry(t, k, name, type, nchoice, choices, setter));
      if (energy) *energy = (PetscBool)(g == 0);
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    k -= n;
  }
  SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "no option %" PetscInt_FMT " past the tables", k);
}

/* the number of options in the three tables (-1 on an error: called outside the tests too) */
static PetscInt TableSize(void)
{
  PetscErrorCode (*const get[3])(MfadOptionTable *) = {MfadEnergyGetOptionTable, MfadSolverGetOptionTable, MfadMeshGetOptionTable};
  PetscInt n                                        = 0;

  for (int g = 0; g < 3; g++) {
    MfadOptionTable t;
    PetscInt        m;
    if (get[g](&t) || MfadOptionTableGetSize(t, &m)) return -1;
    n += m;
  }
  return n;
}

/* an option that takes a value (an integer, a real, a choice) given without one is an error naming
   it; a Boolean given alone is true, no error */
START_TEST(an_option_without_its_value_is_an_error)
{
  const char    *opt;
  MfadOptionType type;
  MfadEnergy     E;
  SNES           snes;
  PetscErrorCode ierr;

  TestCall(TableOption(_i, &opt, &type, NULL, NULL, NULL, NULL));
  if (type == MFAD_OPTION_NAME) return; /* -mfad_view, -mfad_monitor: an optional value (a viewer) */
  TestCall(PetscOptionsClear(NULL));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "cached")); /* a form -mfad_psd_project can act on */
  TestCall(PetscOptionsSetValue(NULL, opt, NULL));
  TestCall(TestGridCreate(3, 2, 2, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  TestCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetSNES(E, snes);
  TestCall(PetscPopErrorHandler());
  if (type == MFAD_OPTION_BOOL) ck_assert_msg(ierr == 0, "%s given alone (true) is an error %d", opt, (int)ierr);
  else TestExpectError(ierr, opt, opt, "needs a value");
  TestCall(SNESDestroy(&snes));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
  TestCall(PetscOptionsClear(NULL));
}
END_TEST

/* -help names for each option a function of the library (its setter, or where it acts) */
START_TEST(every_option_names_a_function_that_exists)
{
  void *self = dlopen(NULL, RTLD_LAZY);

  ck_assert(self != NULL);
  for (PetscInt k = 0; k < TableSize(); k++) {
    const char *opt, *setter;
    TestCall(TableOption(k, &opt, NULL, NULL, NULL, &setter, NULL));
    ck_assert_msg(setter && dlsym(self, setter), "%s names %s, which the library does not have", opt, setter ? setter : "(null)");
  }
  dlclose(self);
}
END_TEST

/* ------------------------------------------------------------------ -mfad_view and -help */
/* -mfad_view to a file (appended to, so that a second print would show): one view after two
   evaluations and the program's own MfadEnergyViewFromOptions() */
START_TEST(mfad_view_prints_once_without_being_asked)
{
  const char *path = "test_options_view.txt";
  MfadEnergy  E;
  Vec         X, G;
  PetscReal   f;
  char        opt[256], line[1024];
  int         views = 0;
  PetscMPIInt rank;
  FILE       *fp;

  TestCall(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (rank == 0) (void)remove(path);
  TestCall(PetscOptionsClear(NULL));
  TestCall(PetscSNPrintf(opt, sizeof(opt), "ascii:%s::append", path));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_view", opt));
  TestCall(TestGridCreate(3, 2, 2, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &G));
  TestCall(TestGridPoint(&grid, 0.01, 3, X));
  TestCall(MfadEnergyComputeObjective(E, X, &f));
  TestCall(MfadEnergyComputeGradient(E, X, G));
  TestCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  TestCall(MfadEnergyViewFromOptions(E, NULL));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&G));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
  TestCall(PetscOptionsClear(NULL));
  TestCall(MPI_Barrier(PETSC_COMM_WORLD)); /* rank 0 wrote and closed it */
  fp = fopen(path, "r");
  ck_assert_msg(fp != NULL, "-mfad_view %s: no file written", opt);
  while (fgets(line, sizeof(line), fp))
    if (strstr(line, "MfadEnergy Object:")) views++;
  fclose(fp);
  TestCall(MPI_Barrier(PETSC_COMM_WORLD));
  if (rank == 0) (void)remove(path);
  ck_assert_msg(views == 1, "-mfad_view printed the energy %d times, expected once", views);
}
END_TEST

static char   help[1 << 16];
static size_t help_len;

static PetscErrorCode RecordHelp(MPI_Comm comm, const char format[], ...)
{
  va_list ap;
  (void)comm;
  va_start(ap, format);
  if (help_len < sizeof(help)) help_len += (size_t)vsnprintf(help + help_len, sizeof(help) - help_len, format, ap);
  va_end(ap);
  if (help_len > sizeof(help)) help_len = sizeof(help);
  return PETSC_SUCCESS;
}

/* Every option of the tables is in -help (the energy's, the mesh readers', the solvers') */
START_TEST(help_lists_every_mfad_option)
{
  PetscErrorCode (*saved)(MPI_Comm, const char[], ...) = PetscHelpPrintf;
  MfadEnergy E;
  SNES       snes;
  int        out, devnull;

  TestCall(PetscOptionsClear(NULL));
  TestCall(PetscOptionsSetValue(NULL, "-help", NULL));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "cached")); /* the -help pass must not fail */
  help_len        = 0;
  help[0]         = 0;
  PetscHelpPrintf = RecordHelp;
  /* PETSc prints type lists (-vec_type ...) straight to stdout: out of sight while -help is on */
  fflush(stdout);
  out     = dup(1);
  devnull = open("/dev/null", O_WRONLY);
  ck_assert(out >= 0 && devnull >= 0 && dup2(devnull, 1) >= 0);
  TestCall(TestGridCreate(3, 2, 2, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  TestCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  TestCall(MfadEnergySetSNES(E, snes));
  PetscHelpPrintf = saved;
  fflush(stdout);
  ck_assert(dup2(out, 1) >= 0);
  close(out);
  close(devnull);
  TestCall(PetscOptionsClearValue(NULL, "-help")); /* PetscOptionsClear() leaves help on */
  TestCall(SNESDestroy(&snes));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
  TestCall(PetscOptionsClear(NULL));
  for (PetscInt k = 0; k < TableSize(); k++) {
    const char *opt;
    char        key[64];
    TestCall(TableOption(k, &opt, NULL, NULL, NULL, NULL, NULL));
    snprintf(key, sizeof(key), "%s ", opt); /* "-mfad_psd_project " is not "-mfad_psd_project_steps" */
    ck_assert_msg(strstr(help, key) || (snprintf(key, sizeof(key), "%s:", opt), strstr(help, key)) ||
                      (snprintf(key, sizeof(key), "%s <", opt), strstr(help, key)),
                  "-help does not list %s:\n%s", opt, help);
  }
}
END_TEST

/* ------------------------------------------------------------------ an invalid start point */
/* Three separate Neo-Hookean tets (vertices 4t .. 4t+3), given in blocks of consecutive
   elements (rank r holds a contiguous range, so global element numbers are the tets' numbers on
   any number of ranks); tets 1 and 2 inverted at the start: the first invalid one is tet 1. */
static PetscErrorCode InvalidStart(PetscBool tao, PetscErrorCode *ierr)
{
  MfadEnergy   E;
  MfadKernel   nh;
  Vec          X;
  PetscMPIInt  rank, size;
  PetscInt     lo, hi, conn[12];
  double       rest[36], mat[2] = {1.0, 10.0};
  const double ref[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  lo = 3 * rank / size;
  hi = 3 * (rank + 1) / size;
  for (PetscInt t = lo; t < hi; t++)
    for (int a = 0; a < 4; a++) {
      conn[4 * (t - lo) + a] = 4 * t + a;
      for (int d = 0; d < 3; d++) rest[12 * (t - lo) + 3 * a + d] = ref[3 * a + d] + 2.0 * t;
    }
  PetscCall(MfadKernelFind("neohookean_tet", &nh));
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, 12, &E));
  PetscCall(MfadEnergyAddTermFromRest(E, nh, hi - lo, hi > lo ? conn : NULL, rest, mat, 1.0, NULL));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  if (rank == 0)
    for (PetscInt t = 0; t < 3; t++)
      for (int i = 0; i < 12; i++) {
        PetscScalar v = ref[i] + 2.0 * t;
        if (t > 0 && i == 11) v = 2.0 * t - 0.5; /* vertex 4t+3 below the face: J = -0.5 */
        PetscCall(VecSetValue(X, 12 * t + i, v, INSERT_VALUES));
      }
  PetscCall(VecAssemblyBegin(X));
  PetscCall(VecAssemblyEnd(X));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  if (tao) {
    Tao s;
    PetscCall(TaoCreate(PETSC_COMM_WORLD, &s));
    PetscCall(TaoSetType(s, TAOLMVM));
    PetscCall(MfadEnergySetTao(E, s));
    PetscCall(TaoSetSolution(s, X));
    *ierr = TaoSolve(s);
    PetscCall(TaoDestroy(&s));
  } else {
    SNES s;
    PetscCall(SNESCreate(PETSC_COMM_WORLD, &s));
    PetscCall(MfadEnergySetSNES(E, s));
    *ierr = SNESSolve(s, NULL, X);
    PetscCall(SNESDestroy(&s));
  }
  PetscCall(PetscPopErrorHandler());
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Issue 47, item 3: every option has its setter. The four that had none (-mfad_block_size,
   -mfad_scatter, -mfad_reorder, -mfad_check_finite) set in code, as the view and the evaluation show */
static void ViewText(MfadEnergy E, char *text, size_t len)
{
  PetscViewer v;
  FILE       *fp;
  size_t      n;
  TestCall(PetscViewerASCIIOpen(PETSC_COMM_WORLD, "test_options_view.txt", &v));
  TestCall(MfadEnergyView(E, v));
  TestCall(PetscViewerDestroy(&v));
  TestCall(MPI_Barrier(PETSC_COMM_WORLD)); /* rank 0 wrote it */
  fp = fopen("test_options_view.txt", "r");
  ck_assert(fp != NULL);
  n       = fread(text, 1, len - 1, fp);
  text[n] = 0;
  fclose(fp);
  TestCall(MPI_Barrier(PETSC_COMM_WORLD)); /* every rank read it before the next view */
}

START_TEST(setters_of_the_loop_options)
{
  MfadEnergy     E;
  Vec            X;
  PetscReal      f0, f1;
  PetscErrorCode ierr;
  char           text[4096];

  TestCall(PetscOptionsClear(NULL));
  TestCall(TestGridCreate(6, 4, 3, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(TestGridPoint(&grid, 0.1, 3, X));
  TestCall(MfadEnergyComputeObjective(E, X, &f0));
  TestCall(MfadEnergySetBlockSize(E, 7));
  TestCall(MfadEnergySetScatter(E, MFAD_SCATTER_ATOMIC));
  TestCall(MfadEnergySetReorder(E, PETSC_FALSE));
  ViewText(E, text, sizeof text);
  ck_assert_msg(strstr(text, "scatter atomic, block size 7"), "MfadEnergySetBlockSize(7), MfadEnergySetScatter(ATOMIC): the view says '%s'", text);
  TestCall(MfadEnergyComputeObjective(E, X, &f1)); /* the same sum, blocked and ordered otherwise */
  ck_assert_msg(PetscAbsReal(f1 - f0) <= 1e-12 * PetscAbsReal(f0), "energy %.17g, the defaults' %.17g", (double)f1, (double)f0);
  TestCall(MfadEnergySetScatter(E, MFAD_SCATTER_DEFAULT));
  ViewText(E, text, sizeof text);
  ck_assert_msg(strstr(text, "scatter coloured blocks"), "MfadEnergySetScatter(DEFAULT) on the CPU: the view says '%s'", text);
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergySetBlockSize(E, 0);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "MfadEnergySetBlockSize(0)", "-mfad_block_size 0 must be >= 1", NULL);
  TestCall(VecSetValue(X, 0, (PetscScalar)NAN, INSERT_VALUES)); /* a NaN where rank 0 owns it */
  TestCall(VecAssemblyBegin(X));
  TestCall(VecAssemblyEnd(X));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MfadEnergyComputeObjective(E, X, &f1);
  TestCall(PetscPopErrorHandler());
  TestExpectError(ierr, "a NaN point, checked", "the point has", NULL);
  TestCall(MfadEnergySetCheckFinite(E, PETSC_FALSE));
  TestCall(MfadEnergyComputeObjective(E, X, &f1)); /* not checked: the energy says it */
  ck_assert_msg(PetscIsInfOrNanReal(f1), "unchecked NaN point: energy %g", (double)f1);
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
}
END_TEST

/* option's value in the view's line of options ("options: -mfad_backend cpu ..."), into val */
static void ViewedValue(const char *text, const char *opt, char *val, size_t len)
{
  const char *line = strstr(text, "options:"), *p;
  char        key[64];
  size_t      n = 0;
  ck_assert_msg(line != NULL, "the view has no line of options:\n%s", text);
  snprintf(key, sizeof(key), " %s ", opt);
  p = strstr(line, key);
  ck_assert_msg(p != NULL, "the view's options lack %s:\n%s", opt, text);
  for (p += strlen(key); *p && *p != ' ' && *p != '\n' && n + 1 < len; p++) val[n++] = *p;
  val[n] = 0;
}

/* Every option of the energy's table reaches the energy through its setter: given a value other
   than the energy's, MfadEnergySetFromOptions() sets it, as the view (the table's reading of the
   energy) shows. The value is derived from the view before: a Boolean flipped, a number + 1,
   another choice (one the energy refuses, as cuda without a device, must be refused with an
   error naming no unknown value: it reached its setter) */
START_TEST(every_energy_option_reaches_its_setter)
{
  const char        *opt;
  MfadOptionType     type;
  PetscInt           nchoice;
  const char *const *choices;
  PetscBool          energy;
  char               text[8192], before[64], after[64], value[64];
  int                tried = 0, took = 0;

  TestCall(TableOption(_i, &opt, &type, &nchoice, &choices, NULL, &energy));
  if (!energy || type == MFAD_OPTION_NAME) return; /* the solvers' and readers' act where they are read; -mfad_view views */
  /* a type: the two built-in backends (the registry's own test, test_backend, adds one) */
  static const char *const types[] = {"cuda", "cpu"};
  for (PetscInt c = 0; c < (type == MFAD_OPTION_CHOICE ? nchoice : type == MFAD_OPTION_TYPE ? 2 : 1); c++) {
    MfadEnergy     E;
    PetscErrorCode ierr;
    TestCall(PetscOptionsClear(NULL));
    TestCall(TestGridCreate(3, 2, 2, &grid));
    TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
    ViewText(E, text, sizeof text);
    ViewedValue(text, opt, before, sizeof before);
    if (type == MFAD_OPTION_BOOL) snprintf(value, sizeof(value), "%d", !atoi(before));
    else if (type == MFAD_OPTION_INT) snprintf(value, sizeof(value), "%d", atoi(before) + 1);
    else if (type == MFAD_OPTION_REAL) snprintf(value, sizeof(value), "%g", atof(before) + 1);
    else if (type == MFAD_OPTION_TYPE) snprintf(value, sizeof(value), "%s", types[c]);
    else snprintf(value, sizeof(value), "%s", choices[c]);
    if (!strcmp(value, before)) { /* a choice: not the energy's */
      TestCall(MfadEnergyDestroy(&E));
      TestCall(TestGridDestroy(&grid));
      continue;
    }
    tried++;
    TestCall(PetscOptionsSetValue(NULL, opt, value));
    TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = MfadEnergySetFromOptions(E);
    TestCall(PetscPopErrorHandler());
    if (ierr) {
      const char   *t;
      TestErrorText msg = NULL;
      PetscErrorMessage(ierr, &t, &msg);
      ck_assert_msg((type == MFAD_OPTION_CHOICE || type == MFAD_OPTION_TYPE) && msg && !strstr(msg, "Unknown") && !strstr(msg, "unknown"),
                    "%s %s: error '%s'", opt, value, msg ? msg : "");
    } else {
      ViewText(E, text, sizeof text);
      ViewedValue(text, opt, after, sizeof after);
      /* a real compared as a number: PETSc's %g writes 1 as "1." */
      ck_assert_msg(type == MFAD_OPTION_REAL ? atof(after) == atof(value) : !strcmp(after, value), "%s %s: the energy's value is %s (was %s)", opt,
                    value, after, before);
      took++;
    }
    TestCall(MfadEnergyDestroy(&E));
    TestCall(TestGridDestroy(&grid));
    TestCall(PetscOptionsClear(NULL));
  }
  ck_assert_msg(tried > 0, "%s: no value other than the energy's to try", opt);
  ck_assert_msg(took > 0 || !strcmp(opt, "-mfad_backend"), "%s: no other value was taken", opt);
}
END_TEST

/* A view shows what exists and sets nothing up: a new energy is viewed "not set up", without
   ghosts or load balance; MfadEnergySetUp() views -mfad_view at its end with them. The class id
   is public: the energy is checked as any PetscObject. */
START_TEST(a_view_sets_nothing_up)
{
  MfadEnergy   E;
  char         text[8192];
  PetscClassId id;

  TestCall(PetscOptionsClear(NULL));
  TestCall(TestGridCreate(3, 2, 2, &grid));
  TestCall(TestGridEnergy(PETSC_COMM_WORLD, &grid, &E));
  TestCall(PetscObjectGetClassId((PetscObject)E, &id));
  ck_assert_msg(id == MFAD_CLASSID, "the energy's class id %d, MFAD_CLASSID %d", (int)id, (int)MFAD_CLASSID);
  ViewText(E, text, sizeof text);
  ck_assert_msg(strstr(text, "not set up") && !strstr(text, "load balance"), "a new energy's view:\n%s", text);
  ViewText(E, text, sizeof text); /* still not: the first view set nothing up */
  ck_assert_msg(strstr(text, "not set up"), "a second view of a new energy:\n%s", text);
  TestCall(MfadEnergySetUp(E));
  ViewText(E, text, sizeof text);
  ck_assert_msg(!strstr(text, "not set up") && strstr(text, "load balance"), "the view after MfadEnergySetUp():\n%s", text);
  TestCall(MfadEnergyDestroy(&E));
  TestCall(TestGridDestroy(&grid));
}
END_TEST

START_TEST(an_invalid_start_names_its_element)
{
  for (int tao = 0; tao < 2; tao++) {
    PetscErrorCode ierr = 0;
    TestCall(PetscOptionsClear(NULL));
    TestCall(InvalidStart((PetscBool)tao, &ierr));
    TestExpectError(ierr, tao ? "TAO from an inverted tet" : "SNES from an inverted tet",
                    "the start point is invalid: term 'neohookean_tet' element 1 (vertices 4 5 6 7) has energy inf", "inverted");
  }
}
END_TEST

/* Under -info, an invalid trial point (not the start of a solve: a line search's) is named too.
   The SNES objective at an inverted point outside a solve stands for such a trial point. */
START_TEST(info_names_an_invalid_trial_point)
{
  MfadEnergy  E;
  MfadKernel  nh;
  SNES        snes;
  Vec         X;
  PetscReal   f;
  PetscInt    conn[4]  = {0, 1, 2, 3};
  double      rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 10.0};
  char       *name, line[1024], path[PETSC_MAX_PATH_LEN] = "";
  PetscMPIInt rank;
  FILE       *fp;
  PetscBool   found  = PETSC_FALSE;
  const char *expect = "mfad: invalid element at the trial point: term 'neohookean_tet' element 0 (vertices 0 1 2 3) has energy inf";

  TestCall(PetscOptionsClear(NULL));
  TestCall(MfadKernelFind("neohookean_tet", &nh));
  TestCall(MfadEnergyCreate(PETSC_COMM_SELF, 3, 4, 4, &E));
  TestCall(MfadEnergyAddTermFromRest(E, nh, 1, conn, rest, mat, 1.0, NULL));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  for (int i = 0; i < 12; i++) TestCall(VecSetValue(X, i, i == 11 ? -0.5 : rest[i], INSERT_VALUES)); /* vertex 3 below the face: J = -0.5 */
  TestCall(VecAssemblyBegin(X));
  TestCall(VecAssemblyEnd(X));
  TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
  TestCall(MfadEnergySetSNES(E, snes));
  TestCall(PetscInfoSetFile("test_options_info.txt", "w"));
  TestCall(PetscInfoAllow(PETSC_TRUE));
  TestCall(SNESComputeObjective(snes, X, &f));
  TestCall(PetscInfoAllow(PETSC_FALSE));
  TestCall(PetscInfoGetFile(&name, &fp));
  fflush(fp);
  TestCall(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  snprintf(path, sizeof(path), "%s.%d", name, (int)rank); /* PETSc appends the rank */
  fp = fopen(path, "r");
  if (!fp) fp = fopen(strncpy(path, name, sizeof(path) - 1), "r");
  ck_assert_msg(fp != NULL, "-info file %s not written", path);
  while (fgets(line, sizeof(line), fp))
    if (strstr(line, expect)) found = PETSC_TRUE;
  fclose(fp);
  TestCall(PetscInfoSetFile(NULL, NULL));
  (void)remove(path);
  ck_assert_msg(found, "-info does not say '%s'", expect);
  ck_assert_msg(f > 1e99, "the SNES objective at an invalid trial point is %g, expected the stand-in 1e100", (double)f);
  TestCall(SNESDestroy(&snes));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("options");
  TCase   *tc = tcase_create("traps");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  if (TableSize() < 1) return 1;
  if (argc > 1 && !strcmp(argv[1], "-print_option_names")) { /* for tests/options_program.sh: every option a program's -help must list */
    for (PetscInt k = 0; k < TableSize(); k++) {
      const char *opt;
      PetscCall(TableOption(k, &opt, NULL, NULL, NULL, NULL, NULL));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s\n", opt));
    }
    PetscCall(PetscFinalize());
    return 0;
  }
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, help_lists_every_mfad_option); /* first: -help prints each options block once */
  tcase_add_loop_test(tc, snes_keeps_the_users_preconditioner, 0, (int)(sizeof(pc_cases) / sizeof(pc_cases[0])));
  tcase_add_test(tc, factorising_a_shell_is_an_error_that_says_so);
  tcase_add_test(tc, an_assembled_operator_only_applied_is_blocked);
  tcase_add_test(tc, tao_keeps_the_users_preconditioner);
  tcase_add_loop_test(tc, an_option_without_its_value_is_an_error, 0, (int)TableSize());
  tcase_add_loop_test(tc, every_energy_option_reaches_its_setter, 0, (int)TableSize());
  tcase_add_test(tc, every_option_names_a_function_that_exists);
  tcase_add_test(tc, a_view_sets_nothing_up);
  tcase_add_test(tc, mfad_view_prints_once_without_being_asked);
  tcase_add_test(tc, setters_of_the_loop_options);
  tcase_add_test(tc, an_invalid_start_names_its_element);
  tcase_add_test(tc, info_names_an_invalid_trial_point);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
