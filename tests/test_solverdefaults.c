// SPDX-License-Identifier: BSD-2-Clause
/* The solver a user's program gets with no choice of its own (shell/defaults.c, -mfad_solver_defaults),
   and that any choice, by option or in code, before or after, wins: on the spring grid pulled far
   from its rest shape (an indefinite exact Hessian at the start), whose minimiser is the rest shape. */
#include "testutil.h"
#include "hessian_fixtures.h"
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

typedef struct {
  char              ksp[64], pc[64], factor[64], jtype[64], ptype[64]; /* the types the solve ran with ("" unset) */
  PetscInt          ksp_max_it, snes_max_it, its, ncg_fallbacks, ncg_escapes;
  PetscBool         converged, options_written;
  MfadPSDProjection psd;
  PetscInt          nsolves;                        /* linear solves */
  PetscReal         rtol_first, rtol_min, rtol_max; /* CG's relative tolerance in them */
  PetscInt          nenergy;                        /* E at each Newton step's point */
  PetscReal         energy[256];
} Outcome;

static PetscErrorCode RecordEnergy(SNES snes, PetscInt it, PetscReal fnorm, void *ctx)
{
  Outcome *o = (Outcome *)ctx;
  Vec      X;

  PetscFunctionBeginUser;
  (void)it, (void)fnorm;
  PetscCall(SNESGetSolution(snes, &X));
  if (o->nenergy < 256) PetscCall(SNESComputeObjective(snes, X, &o->energy[o->nenergy++]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each linear solve's relative tolerance, read at its first iteration (after every pre-solve) */
static PetscErrorCode RecordRtol(KSP ksp, PetscInt it, PetscReal rnorm, void *ctx)
{
  Outcome  *o = (Outcome *)ctx;
  PetscReal rtol;

  PetscFunctionBeginUser;
  (void)rnorm;
  if (it) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(KSPGetTolerances(ksp, &rtol, NULL, NULL, NULL));
  if (!o->nsolves++) o->rtol_first = o->rtol_min = o->rtol_max = rtol;
  o->rtol_min = PetscMin(o->rtol_min, rtol), o->rtol_max = PetscMax(o->rtol_max, rtol);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static double start_amp = 0.2; /* the start: the rest shape plus this much noise */

typedef enum { MFAD_ORDER_BEFORE, MFAD_ORDER_AFTER } Order; /* MfadEnergySetSNES before or after SNESSetFromOptions */

/* Solves with the options `opts`, in the given order; `code` sets a KSP type in code first ("": none;
   "form:shell": the Hessian form instead; "newtoncg": MfadEnergySetNewtonCG(); "newtoncg:pc:<type>":
   that and a PC type),
   `psd_none` chooses no projection in code */
static PetscErrorCode Solve(const char *opts, Order order, const char *code, PetscBool psd_none, Outcome *o)
{
  TestGrid            grid;
  MfadEnergy          E;
  Vec                 X;
  SNES                snes;
  KSP                 ksp;
  PC                  pc;
  Mat                 J, P, F;
  const char         *t;
  SNESConvergedReason reason;
  PetscReal           rtol, atol, dtol;

  PetscFunctionBeginUser;
  PetscCall(PetscMemzero(o, sizeof *o));
  PetscCall(PetscOptionsClear(NULL));
  PetscCall(PetscOptionsInsertString(NULL, opts));
  PetscCall(TestGridCreate(5, 3, 3, &grid));
  PetscCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
  if (psd_none) PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_NONE, 0));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(TestGridPoint(&grid, start_amp, 7, X));
  PetscCall(SNESCreate(PETSC_COMM_SELF, &snes));
  PetscCall(SNESGetKSP(snes, &ksp));
  if (!strcmp(code, "form:shell")) PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_SHELL, MFAD_HESSIAN_SHELL)); /* a form chosen in code */
  else if (!strncmp(code, "newtoncg", 8)) {
    PetscCall(MfadEnergySetNewtonCG(E, PETSC_TRUE));
    if (!strncmp(code, "newtoncg:pc:", 12)) {
      PetscCall(KSPGetPC(ksp, &pc));
      PetscCall(PCSetType(pc, code + 12));
    }
  } else if (code[0]) PetscCall(KSPSetType(ksp, code));
  PetscCall(KSPMonitorSet(ksp, RecordRtol, o, NULL));
  PetscCall(SNESMonitorSet(snes, RecordEnergy, o, NULL));
  if (order == MFAD_ORDER_AFTER) PetscCall(SNESSetFromOptions(snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  if (order == MFAD_ORDER_BEFORE) PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, &reason));
  PetscCall(SNESGetIterationNumber(snes, &o->its));
  o->converged = (PetscBool)(reason > 0);
  PetscCall(SNESGetTolerances(snes, NULL, NULL, NULL, &o->snes_max_it, NULL));
  PetscCall(KSPGetTolerances(ksp, &rtol, &atol, &dtol, &o->ksp_max_it));
  PetscCall(KSPGetType(ksp, &t));
  PetscCall(PetscStrncpy(o->ksp, t ? t : "", sizeof o->ksp));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCGetType(pc, &t));
  PetscCall(PetscStrncpy(o->pc, t ? t : "", sizeof o->pc));
  if (!strcmp(o->pc, PCCHOLESKY)) {
    MatSolverType st;
    PetscCall(PCFactorGetMatrix(pc, &F));
    PetscCall(MatFactorGetSolverType(F, &st));
    PetscCall(PetscStrncpy(o->factor, st ? st : "", sizeof o->factor));
  }
  PetscCall(SNESGetJacobian(snes, &J, &P, NULL, NULL));
  PetscCall(MatGetType(J, &t));
  PetscCall(PetscStrncpy(o->jtype, t ? t : "", sizeof o->jtype));
  PetscCall(MatGetType(P, &t));
  PetscCall(PetscStrncpy(o->ptype, t ? t : "", sizeof o->ptype));
  PetscCall(MfadEnergyGetNewtonCGCounts(E, &o->ncg_fallbacks, &o->ncg_escapes));
  PetscCall(MfadEnergyGetPSDProjection(E, &o->psd, NULL));
  { /* defaults live on the objects, never in the options database */
    const char *const names[] = {"-ksp_type",          "-pc_type",     "-mfad_hessian", "-mfad_pmat",
                                 "-mfad_psd_project",  "-snes_max_it", "-ksp_max_it",   "-pc_factor_mat_solver_type",
                                 "-mat_mumps_icntl_24"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
      PetscBool set;
      PetscCall(PetscOptionsHasName(NULL, NULL, names[i], &set));
      if (set && !strstr(opts, names[i])) o->options_written = PETSC_TRUE;
    }
  }
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&X));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(TestGridDestroy(&grid));
  PetscCall(PetscOptionsClear(NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* No choice: the assembled, projected Hessian factored by a Cholesky with inertia, in either order */
START_TEST(no_choice_gets_the_factorisation)
{
  for (int order = MFAD_ORDER_BEFORE; order <= MFAD_ORDER_AFTER; order++) {
    Outcome o;
    TestCall(Solve("", (Order)order, "", PETSC_FALSE, &o));
    ck_assert_msg(o.converged, "order %d: did not converge (%" PetscInt_FMT " steps)", order, o.its);
    ck_assert_msg(!strcmp(o.ksp, KSPPREONLY) && !strcmp(o.pc, PCCHOLESKY), "order %d: ksp %s pc %s", order, o.ksp, o.pc);
#if defined(PETSC_HAVE_MUMPS)
    ck_assert_str_eq(o.factor, MATSOLVERMUMPS);
#else
    ck_assert_str_eq(o.factor, MATSOLVERPETSC);
#endif
    ck_assert_msg(!strcmp(o.jtype, MATSEQAIJ), "order %d: Jacobian %s", order, o.jtype);
    ck_assert_int_eq(o.psd, MFAD_PSD_ABS);
    ck_assert_int_eq(o.snes_max_it, 200);
    ck_assert_msg(!o.options_written, "order %d: a default was written into the options database", order);
  }
}
END_TEST

/* A Krylov method chosen by option or in code, before or after: kept, with the automatic form,
   Jacobi, and the Krylov cap; a cap given is kept */
START_TEST(a_krylov_choice_wins)
{
  Outcome o;

  TestCall(Solve("-ksp_type cg", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPCG) && !strcmp(o.pc, PCJACOBI) && !strcmp(o.jtype, MATSHELL), "-ksp_type cg: ksp %s pc %s J %s", o.ksp, o.pc,
                o.jtype);
  ck_assert_int_eq(o.ksp_max_it, 500);
  ck_assert_int_eq(o.psd, MFAD_PSD_NONE);
  TestCall(Solve("-ksp_type cg", MFAD_ORDER_AFTER, "", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPCG) && !strcmp(o.pc, PCJACOBI), "-ksp_type cg, after: ksp %s pc %s", o.ksp, o.pc);
  TestCall(Solve("", MFAD_ORDER_BEFORE, KSPMINRES, PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPMINRES) && !strcmp(o.pc, PCJACOBI), "KSPSetType(minres): ksp %s pc %s", o.ksp, o.pc);
  TestCall(Solve("-ksp_type cg -ksp_max_it 77", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_int_eq(o.ksp_max_it, 77);
  /* a preconditioner that needs entries: the assembled form, not an error on a shell */
  TestCall(Solve("-pc_type ilu -ksp_type gmres", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.pc, PCILU) && !strcmp(o.jtype, MATSEQAIJ), "-pc_type ilu: pc %s J %s", o.pc, o.jtype);
}
END_TEST

/* A form chosen, a projection chosen in code, the defaults off, the limit below the problem */
START_TEST(other_choices_win)
{
  Outcome o;

  TestCall(Solve("-mfad_hessian shell", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(strcmp(o.pc, PCCHOLESKY) && !strcmp(o.jtype, MATSHELL), "-mfad_hessian shell: pc %s J %s", o.pc, o.jtype);
  TestCall(Solve("", MFAD_ORDER_BEFORE, "form:shell", PETSC_FALSE, &o));
  ck_assert_msg(strcmp(o.pc, PCCHOLESKY) && !strcmp(o.jtype, MATSHELL), "MfadEnergySetHessianType(shell): pc %s J %s", o.pc, o.jtype);
  TestCall(Solve("-mfad_hessian aij -ksp_type cg", MFAD_ORDER_BEFORE, "form:shell", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.jtype, MATSEQAIJ), "-mfad_hessian aij over a shell set in code: J %s", o.jtype);
  TestCall(Solve("", MFAD_ORDER_BEFORE, "", PETSC_TRUE, &o));
  ck_assert_msg(!strcmp(o.pc, PCCHOLESKY) && o.psd == MFAD_PSD_NONE, "projection none in code: pc %s psd %d", o.pc, (int)o.psd);
  TestCall(Solve("-mfad_solver_defaults 0", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(strcmp(o.pc, PCCHOLESKY) && !strcmp(o.jtype, MATSHELL) && o.ksp_max_it == 10000 && o.snes_max_it == 50,
                "defaults off: pc %s J %s ksp_max_it %" PetscInt_FMT " snes_max_it %" PetscInt_FMT, o.pc, o.jtype, o.ksp_max_it, o.snes_max_it);
  TestCall(Solve("-mfad_direct_solve_limit 10", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(strcmp(o.pc, PCCHOLESKY) && !strcmp(o.jtype, MATSHELL) && o.ksp_max_it == 500, "over the limit: pc %s J %s ksp_max_it %" PetscInt_FMT,
                o.pc, o.jtype, o.ksp_max_it);
}
END_TEST

/* Newton-CG (-mfad_newton_cg or MfadEnergySetNewtonCG()), each part unless chosen: stcg on the
   exact Hessian's shell, the projected Hessian assembled and factored as the preconditioner; it
   converges from the pulled grid (an indefinite exact Hessian) in fewer steps than projected Newton
   (linear near the minimum) */
START_TEST(newton_cg)
{
  Outcome o, p;

  for (int order = MFAD_ORDER_BEFORE; order <= MFAD_ORDER_AFTER; order++) {
    TestCall(Solve("-mfad_newton_cg", (Order)order, "", PETSC_FALSE, &o));
    ck_assert_msg(o.converged, "order %d: did not converge (%" PetscInt_FMT " steps)", order, o.its);
    ck_assert_msg(!strcmp(o.ksp, KSPSTCG) && !strcmp(o.pc, PCCHOLESKY), "order %d: ksp %s pc %s", order, o.ksp, o.pc);
    ck_assert_msg(!strcmp(o.jtype, MATSHELL) && !strcmp(o.ptype, MATSEQAIJ), "order %d: J %s P %s", order, o.jtype, o.ptype);
    ck_assert_int_eq(o.psd, MFAD_PSD_ABS);
    ck_assert_msg(!o.options_written, "order %d: a default was written into the options database", order);
    /* CG's tolerance: the forcing term min(0.5, |g| / |g0|), 0.5 at the start and tighter as |g| falls */
    ck_assert_msg(o.nsolves > 1 && o.rtol_first == 0.5 && o.rtol_min < 1e-3, "order %d: CG's rtol first %g, smallest %g in %" PetscInt_FMT " solves",
                  order, (double)o.rtol_first, (double)o.rtol_min, o.nsolves);
  }
  /* a tolerance chosen is kept in every step; Eisenstat-Walker's (-snes_ksp_ew) replaces the forcing
     term: its first is its rtol_0, 0.3 (on PETSc 3.18 the switch's pre-solve, set after SNES's, used
     to drop it silently) */
  TestCall(Solve("-mfad_newton_cg -ksp_rtol 1e-3", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(o.converged && o.rtol_min == 1e-3 && o.rtol_max == 1e-3, "-ksp_rtol 1e-3: CG's rtol %g to %g", (double)o.rtol_min,
                (double)o.rtol_max);
  TestCall(Solve("-mfad_newton_cg -snes_ksp_ew", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(o.converged && PetscAbsReal(o.rtol_first - 0.3) < 1e-15, "-snes_ksp_ew: CG's first rtol %g", (double)o.rtol_first);
  /* the exact Hessian factored as the preconditioner too (shifted where indefinite): CG fails or meets
     negative curvature, the projected step (here of that factor) or an escape takes over, and the
     solve still converges (measured: 13 steps, 3 fallbacks, 1 escape; 7 steps and none above) */
  TestCall(Solve("-mfad_newton_cg -mfad_psd_project none -mfad_pmat aij", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &p));
  ck_assert_msg(p.converged && p.ncg_fallbacks + p.ncg_escapes > 0,
                "exact preconditioner: converged %d, fallbacks %" PetscInt_FMT " escapes %" PetscInt_FMT, p.converged, p.ncg_fallbacks,
                p.ncg_escapes);
  TestCall(Solve("", MFAD_ORDER_BEFORE, "newtoncg", PETSC_FALSE, &o));
  ck_assert_msg(o.converged && !strcmp(o.ksp, KSPSTCG) && !strcmp(o.jtype, MATSHELL), "in code: ksp %s J %s", o.ksp, o.jtype);
  TestCall(Solve("-ksp_type cg", MFAD_ORDER_AFTER, "newtoncg", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPCG) && !strcmp(o.pc, PCCHOLESKY), "-ksp_type cg: ksp %s pc %s", o.ksp, o.pc);
  TestCall(Solve("", MFAD_ORDER_BEFORE, "newtoncg:pc:jacobi", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPSTCG) && !strcmp(o.pc, PCJACOBI), "PCSetType(jacobi): ksp %s pc %s", o.ksp, o.pc);
  TestCall(Solve("-mfad_newton_cg -mfad_hessian cached -mfad_pmat aij", MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
  ck_assert_msg(o.converged && !strcmp(o.jtype, MATSHELL) && !strcmp(o.ptype, MATSEQAIJ), "-mfad_hessian cached: J %s P %s", o.jtype, o.ptype);
  TestCall(Solve("-mfad_newton_cg 0", MFAD_ORDER_BEFORE, "newtoncg", PETSC_FALSE, &o));
  ck_assert_msg(!strcmp(o.ksp, KSPPREONLY), "-mfad_newton_cg 0 over the call: ksp %s", o.ksp);
}
END_TEST

/* TAO nls with no choice: the factorisation too (set before nls reads its KSP's type); lmvm, which
   asks for no Hessian: no assembled Hessian made */
START_TEST(tao_defaults)
{
  for (int k = 0; k < 2; k++) {
    TestGrid           grid;
    MfadEnergy         E;
    Vec                X;
    Tao                tao;
    KSP                ksp;
    PC                 pc;
    Mat                H;
    TaoConvergedReason reason;
    PetscBool          preonly, chol, aij;

    TestCall(TestGridCreate(5, 3, 3, &grid));
    TestCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(TestGridPoint(&grid, 0.2, 7, X));
    TestCall(TaoCreate(PETSC_COMM_SELF, &tao));
    TestCall(TaoSetType(tao, k ? TAOLMVM : TAONLS));
    TestCall(MfadEnergySetTao(E, tao));
    TestCall(TaoSetSolution(tao, X));
    TestCall(TaoSetTolerances(tao, 1e-9, 0, 0));
    TestCall(TaoSetFromOptions(tao));
    TestCall(TaoSolve(tao));
    TestCall(TaoGetConvergedReason(tao, &reason));
    ck_assert_msg(k || reason > 0, "tao nls: %s", TaoConvergedReasons[reason]); /* lmvm: only which Hessian */
    TestCall(TaoGetHessian(tao, &H, NULL, NULL, NULL));
    TestCall(PetscObjectTypeCompare((PetscObject)H, MATSEQAIJ, &aij));
    if (!k) {
      TestCall(TaoGetKSP(tao, &ksp));
      TestCall(KSPGetPC(ksp, &pc));
      TestCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPREONLY, &preonly));
      TestCall(PetscObjectTypeCompare((PetscObject)pc, PCCHOLESKY, &chol));
      ck_assert_msg(preonly && chol && aij, "tao nls: preonly %d cholesky %d aij %d", preonly, chol, aij);
    } else ck_assert_msg(!aij, "tao lmvm: an assembled Hessian was made");
    TestCall(TaoDestroy(&tao));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(TestGridDestroy(&grid));
  }
}
END_TEST

/* The default projection is the energy's (MfadEnergyInfo.projection): clamp where every scalar term
   declares it (symmetric_dirichlet), abs where one does not (flip_barrier_tri beside it, or the
   spring grid), the user's where chosen (option or code, before or after); SNES and TAO nls. An
   epsilon alone (-mfad_psd_epsilon) chooses no type: the energy's, with that epsilon */
START_TEST(projection_is_the_energys)
{
  const char *const opts[] = {
      "", "", "-mfad_psd_project abs", "", "-tao_type nls", "-tao_type nls", "-mfad_psd_epsilon 1e-8", "-mfad_psd_epsilon 1e-8 -tao_type nls"};
  for (int c = 0; c < 8; c++) {
    HFix              f, g;
    MfadEnergy        E;
    SNES              snes = NULL;
    Tao               tao  = NULL;
    MfadPSDProjection psd, want;
    PetscReal         eps;

    TestCall(PetscOptionsClear(NULL));
    TestCall(PetscOptionsInsertString(NULL, opts[c]));
    TestCall(HFixCreate("symmetric_dirichlet", &f));
    TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
    want = MFAD_PSD_CLAMP;
    if (c == 1 || c == 5) { /* a second term whose energy declares nothing: abs */
      TestCall(HFixCreate("flip_barrier_tri", &g));
      TestCall(MfadEnergyAddTerm(E, g.k, g.nelem, g.conn, g.params, 1.0, NULL));
      TestCall(HFixDestroy(&g));
      want = MFAD_PSD_ABS;
    }
    if (c == 2) want = MFAD_PSD_ABS; /* chosen by option */
    if (c == 3) {                    /* chosen in code */
      TestCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0));
      want = MFAD_PSD_ABS;
    }
    if (c < 4 || c == 6) {
      TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
      TestCall(MfadEnergySetSNES(E, snes));
      TestCall(SNESSetFromOptions(snes));
    } else {
      TestCall(TaoCreate(PETSC_COMM_SELF, &tao));
      TestCall(MfadEnergySetTao(E, tao));
      TestCall(TaoSetFromOptions(tao));
    }
    TestCall(MfadEnergySetFromOptions(E));
    TestCall(MfadEnergyGetPSDProjection(E, &psd, &eps));
    ck_assert_msg(psd == want, "case %d (%s): projection %s, expected %s", c, opts[c], MfadPSDProjections[psd], MfadPSDProjections[want]);
    ck_assert_msg(eps == (c >= 6 ? 1e-8 : 0.0), "case %d (%s): epsilon %g", c, opts[c], (double)eps);
    TestCall(SNESDestroy(&snes));
    TestCall(TaoDestroy(&tao));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(HFixDestroy(&f));
  }
  TestCall(PetscOptionsClear(NULL));
}
END_TEST

/* The default factorisation on one rank (shell/defaults.c), the same on every pattern: a triangle
   mesh's (symmetric_dirichlet), a tet mesh's (neohookean_tet) and the spring grid's MUMPS where
   PETSc has it, else PETSc's; PETSc's in AMD order, else QMD, wherever it factors, also where an
   option chose it. SNES and TAO nls alike; a solver type given by option wins. */
START_TEST(the_factorisation_on_every_pattern)
{
  static const char *const names[] = {"symmetric_dirichlet", "neohookean_tet", "mass_spring"};
  PetscErrorCode (*amd)(void)      = NULL;
#if defined(PETSC_HAVE_MUMPS)
  const char *other = MATSOLVERMUMPS;
#else
  const char *other = MATSOLVERPETSC;
#endif

  TestCall(MatInitializePackage());
  TestCall(PetscFunctionListFind(MatOrderingList, MATORDERINGAMD, &amd));
  for (int c = 0; c < 3 * 2 * 2; c++) {
    const char *name = names[c % 3], *want, *got = NULL;
    PetscBool   tao = (PetscBool)((c / 3) % 2), given = (PetscBool)(c / 6);
    HFix        f;
    MfadEnergy  E;
    SNES        snes = NULL;
    Tao         t    = NULL;
    KSP         ksp;
    PC          pc;

    TestCall(PetscOptionsClear(NULL));
    if (given) TestCall(PetscOptionsInsertString(NULL, "-pc_factor_mat_solver_type petsc -tao_nls_pc_factor_mat_solver_type petsc"));
    want = given ? MATSOLVERPETSC : other;
    TestCall(HFixCreate(name, &f));
    TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
    if (tao) {
      TestCall(TaoCreate(PETSC_COMM_SELF, &t));
      TestCall(TaoSetType(t, TAONLS));
      TestCall(MfadEnergySetTao(E, t));
      TestCall(TaoSetFromOptions(t));
      TestCall(TaoGetKSP(t, &ksp));
    } else {
      TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
      TestCall(MfadEnergySetSNES(E, snes));
      TestCall(SNESSetFromOptions(snes));
      TestCall(SNESGetKSP(snes, &ksp));
    }
    TestCall(KSPGetPC(ksp, &pc));
    TestCall(PCFactorGetMatSolverType(pc, &got));
    ck_assert_msg(got && !strcmp(got, want), "%s, %s%s: factorisation %s, expected %s", name, tao ? "TAO nls" : "SNES",
                  given ? ", -pc_factor_mat_solver_type petsc" : "", got ? got : "(none)", want);
    { /* PETSc's own Cholesky, chosen by mfad or by option, in minimum-degree order: the natural
         order and SPARSPAK's nested dissection fill in (shell/pc.c) */
      char        path[] = "/tmp/mfad_pcview_XXXXXX", text[4096] = "", line[64];
      const int   fd = mkstemp(path);
      PetscViewer v;
      FILE       *fp;
      size_t      n;

      Mat A;

      ck_assert_msg(fd >= 0, "mkstemp failed");
      close(fd);
      /* the factor's ordering is shown once the PC has its factor matrix (PETSc 3.18-3.26) */
      TestCall(MfadEnergyCreateMatrix(E, &A));
      TestCall(PCSetOperators(pc, A, A));
      TestCall(PCFactorSetUpMatSolverType(pc));
      TestCall(MatDestroy(&A));
      TestCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, path, &v));
      TestCall(PCView(pc, v)); /* PETSc 3.18-3.26 have no PCFactorGetMatOrderingType() */
      TestCall(PetscViewerDestroy(&v));
      fp = fopen(path, "r");
      ck_assert_msg(fp, "cannot read %s", path);
      n       = fread(text, 1, sizeof(text) - 1, fp);
      text[n] = 0;
      fclose(fp);
      unlink(path);
      snprintf(line, sizeof line, "matrix ordering: %s", amd ? MATORDERINGAMD : MATORDERINGQMD);
      ck_assert_msg(!strcmp(want, MATSOLVERMUMPS) || strstr(text, line), "%s, %s%s: expected \"%s\" in PCView:\n%s", name, tao ? "TAO nls" : "SNES",
                    given ? ", -pc_factor_mat_solver_type petsc" : "", line, text);
    }
    TestCall(SNESDestroy(&snes));
    TestCall(TaoDestroy(&t));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(HFixDestroy(&f));
  }
  TestCall(PetscOptionsClear(NULL));
}
END_TEST

/* The nonmonotone full step (-mfad_line_search_memory, shell/nonmonotone.c): no step's energy above
   the largest of the last m points', and with 1, none above the last; on the spring grid pulled
   farther from rest (noise 2), full steps are taken above the last point's energy and the solve is
   shorter (39 steps monotone, 33 with 10) */
START_TEST(the_full_step_may_rise)
{
  PetscInt its[2], rises[2];

  start_amp = 2;
  for (int i = 0; i < 2; i++) {
    const PetscInt m = i ? 10 : 1;
    char           opts[64];
    Outcome        o;

    TestCall(PetscSNPrintf(opts, sizeof opts, "-mfad_line_search_memory %" PetscInt_FMT, m));
    TestCall(Solve(opts, MFAD_ORDER_BEFORE, "", PETSC_FALSE, &o));
    ck_assert_msg(o.converged, "%s: did not converge (%" PetscInt_FMT " steps)", opts, o.its);
    rises[i] = 0, its[i] = o.its;
    for (PetscInt k = 1; k < o.nenergy; k++) {
      PetscReal ref = o.energy[k - 1];
      for (PetscInt j = PetscMax(0, k - m); j < k; j++) ref = PetscMax(ref, o.energy[j]);
      ck_assert_msg(o.energy[k] <= ref, "%s: step %" PetscInt_FMT ": E %g above the last %" PetscInt_FMT " points' %g", opts, k, (double)o.energy[k],
                    m, (double)ref);
      if (o.energy[k] > o.energy[k - 1]) rises[i]++;
    }
  }
  start_amp = 0.2;
  ck_assert_int_eq(rises[0], 0);
  ck_assert_int_ge(rises[1], 1);
  ck_assert_int_lt(its[1], its[0]);
}
END_TEST

static PetscErrorCode RecordTaoEnergy(Tao tao, void *ctx)
{
  Outcome  *o = (Outcome *)ctx;
  PetscReal f;

  PetscFunctionBeginUser;
  PetscCall(TaoGetSolutionStatus(tao, NULL, &f, NULL, NULL, NULL, NULL));
  if (o->nenergy < 256) o->energy[o->nenergy++] = f;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The same for TAO nls (its line search's apply wrapped, shell/tao.c) */
START_TEST(the_full_step_may_rise_tao)
{
  PetscInt its[2], rises[2];

  for (int i = 0; i < 2; i++) {
    const PetscInt     m = i ? 10 : 1;
    TestGrid           grid;
    MfadEnergy         E;
    Vec                X;
    Tao                tao;
    TaoConvergedReason reason;
    Outcome            o;

    TestCall(PetscMemzero(&o, sizeof o));
    TestCall(TestGridCreate(5, 3, 3, &grid));
    TestCall(TestGridEnergy(PETSC_COMM_SELF, &grid, &E));
    TestCall(MfadEnergySetLineSearchMemory(E, m));
    TestCall(MfadEnergyCreateVecs(E, &X, NULL));
    TestCall(TestGridPoint(&grid, 2, 7, X));
    TestCall(TaoCreate(PETSC_COMM_SELF, &tao));
    TestCall(TaoSetType(tao, TAONLS));
    TestCall(MfadEnergySetTao(E, tao));
    TestCall(TaoSetSolution(tao, X));
    TestCall(TaoSetMaximumIterations(tao, 500));
    TestCall(TaoSetFromOptions(tao));
    TestCall(TestTaoMonitorSet(tao, RecordTaoEnergy, &o, NULL));
    TestCall(TaoSolve(tao));
    TestCall(TaoGetConvergedReason(tao, &reason));
    TestCall(TaoGetIterationNumber(tao, &its[i]));
    ck_assert_msg(reason > 0, "memory %" PetscInt_FMT ": %s", m, TaoConvergedReasons[reason]);
    rises[i] = 0;
    for (PetscInt k = 1; k < o.nenergy; k++) {
      PetscReal ref = o.energy[k - 1];
      for (PetscInt j = PetscMax(0, k - m); j < k; j++) ref = PetscMax(ref, o.energy[j]);
      ck_assert_msg(o.energy[k] <= ref, "memory %" PetscInt_FMT ": step %" PetscInt_FMT ": E %g above the last points' %g", m, k, (double)o.energy[k],
                    (double)ref);
      if (o.energy[k] > o.energy[k - 1]) rises[i]++;
    }
    TestCall(TaoDestroy(&tao));
    TestCall(VecDestroy(&X));
    TestCall(MfadEnergyDestroy(&E));
    TestCall(TestGridDestroy(&grid));
  }
  ck_assert_int_eq(rises[0], 0);
  ck_assert_int_ge(rises[1], 1);
  ck_assert_int_lt(its[1], its[0]);
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("solverdefaults");
  TCase   *tc = tcase_create("defaults");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, no_choice_gets_the_factorisation);
  tcase_add_test(tc, a_krylov_choice_wins);
  tcase_add_test(tc, other_choices_win);
  tcase_add_test(tc, newton_cg);
  tcase_add_test(tc, tao_defaults);
  tcase_add_test(tc, projection_is_the_energys);
  tcase_add_test(tc, the_factorisation_on_every_pattern);
  tcase_add_test(tc, the_full_step_may_rise);
  tcase_add_test(tc, the_full_step_may_rise_tao);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
