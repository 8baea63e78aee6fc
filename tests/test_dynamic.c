// SPDX-License-Identifier: BSD-2-Clause
/* Dynamic element sets (MfadEnergySetTermElements) on any number of ranks: a Neo-Hookean tet box
   plus a term of springs ("contact") whose elements appear, vanish, change order and cross the
   rank partition. At every stage, against an energy built from scratch with the same elements (on
   the same ranks) and a serial replica: objective and gradient to 1e-12, gradient and fused
   product against central differences, the fused product of a shell made before the first change
   against the cached form and assembled aij and baij matrices made before the first change
   (re-preallocated inside MfadEnergyComputeHessian) and the from-scratch energy to 1e-12, the PSD-
   projected assembled and cached forms against the from-scratch projection; the counts of ghost
   rebuilds and re-preallocations against what the stage's pair and ghost sets say. Then SNES and TAO
   solves whose provider changes the element set every step, and bad input that must be refused
   with the term's name. Prints one line per failure. */
#include "hessian_fixtures.h"

static int failures;

static PetscErrorCode Expect(PetscBool ok, const char *stage, const char *what, PetscReal value, PetscReal bound)
{
  PetscFunctionBeginUser;
  if (!ok) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s: %s = %.3e, bound %.1e\n", stage, what, (double)value, (double)bound));
    failures++;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A global list of springs; spring p belongs to rank key[p] % size */
typedef struct {
  PetscInt  n;
  PetscInt  conn[2 * 64], key[64];
  PetscReal params[2 * 64];
} Springs;

/* npairs random distinct vertex pairs, rest lengths in [0.2, 0.6], stiffness 2 */
static void SpringsRandom(unsigned long long seed, PetscInt npairs, PetscInt nvert, Springs *s)
{
  s->n = 0;
  while (s->n < npairs) {
    const PetscInt a = (PetscInt)((TestRand(&seed) + 1.0) * 0.5 * nvert), b = (PetscInt)((TestRand(&seed) + 1.0) * 0.5 * nvert);
    if (a == b || a >= nvert || b >= nvert) continue;
    s->conn[2 * s->n]       = a;
    s->conn[2 * s->n + 1]   = b;
    s->params[2 * s->n]     = 0.4 + 0.2 * TestRand(&seed);
    s->params[2 * s->n + 1] = 2.0;
    s->key[s->n]            = s->n;
    s->n++;
  }
}

/* springs along one edge of every 4th tet, each on the rank that holds the tet (HFixEnergy deals
   tet e to rank e % size): pairs the mesh has already, on every number of ranks */
static void SpringsMeshEdges(const HFix *f, Springs *s)
{
  s->n = 0;
  for (PetscInt t = 0; t < f->nelem && s->n < 64; t += 4) {
    s->conn[2 * s->n]       = f->conn[4 * t + (t / 4) % 3];
    s->conn[2 * s->n + 1]   = f->conn[4 * t + 3];
    s->params[2 * s->n]     = 0.3;
    s->params[2 * s->n + 1] = 2.0;
    s->key[s->n]            = t;
    s->n++;
  }
}

/* the same springs in reverse order, each with its two vertices swapped: the same pairs */
static void SpringsPermuted(const Springs *in, Springs *s)
{
  s->n = in->n;
  for (PetscInt p = 0; p < in->n; p++) {
    const PetscInt q     = in->n - 1 - p;
    s->conn[2 * p]       = in->conn[2 * q + 1];
    s->conn[2 * p + 1]   = in->conn[2 * q];
    s->params[2 * p]     = in->params[2 * q];
    s->params[2 * p + 1] = in->params[2 * q + 1];
    s->key[p]            = in->key[q];
  }
}

/* every spring twice (the second copy stiffer): the same pairs, twice the elements */
static void SpringsDoubled(const Springs *in, Springs *s)
{
  s->n = 2 * in->n;
  for (PetscInt p = 0; p < in->n; p++)
    for (int k = 0; k < 2; k++) {
      const PetscInt q     = p + k * in->n;
      s->conn[2 * q]       = in->conn[2 * p];
      s->conn[2 * q + 1]   = in->conn[2 * p + 1];
      s->params[2 * q]     = in->params[2 * p];
      s->params[2 * q + 1] = in->params[2 * p + 1] * (1 + k);
      s->key[q]            = in->key[p];
    }
}

/* this rank's springs (all of them on PETSC_COMM_SELF) */
static PetscErrorCode SpringsLocal(MPI_Comm comm, const Springs *s, PetscInt *n, PetscInt conn[], PetscReal params[])
{
  PetscMPIInt rank, size;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  *n = 0;
  for (PetscInt p = 0; p < s->n; p++)
    if (s->key[p] % size == rank) {
      for (int a = 0; a < 2; a++) {
        conn[2 * *n + a]   = s->conn[2 * p + a];
        params[2 * *n + a] = s->params[2 * p + a];
      }
      (*n)++;
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The oracle of the counts: this rank's vertex pairs (both orders, and each used vertex with itself)
   as sorted keys a * N + b, and its ghosts (used, not owned) */
static PetscErrorCode RankSets(const HFix *f, const Springs *s, PetscInt *npair, PetscInt pairs[], PetscInt *nghost, PetscInt ghosts[])
{
  PetscMPIInt rank, size;
  PetscInt    lo, hi, nloc = f->nvert / 1;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  nloc = PETSC_DECIDE;
  {
    PetscInt N = f->nvert;
    PetscCall(PetscSplitOwnership(PETSC_COMM_WORLD, &nloc, &N));
    PetscCallMPI(MPI_Scan(&nloc, &hi, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    lo = hi - nloc;
  }
  *npair = *nghost = 0;
  for (int part = 0; part < 2; part++) {
    const PetscInt ne = part ? s->n : f->nelem, nv = part ? 2 : 4;
    for (PetscInt e = 0; e < ne; e++) {
      const PetscInt *c = part ? s->conn + 2 * e : f->conn + 4 * e;
      if ((part ? s->key[e] : e) % size != rank) continue;
      for (PetscInt a = 0; a < nv; a++) {
        if (c[a] < lo || c[a] >= hi) ghosts[(*nghost)++] = c[a];
        for (PetscInt b = 0; b < nv; b++) pairs[(*npair)++] = c[a] * f->nvert + c[b];
      }
    }
  }
  PetscCall(PetscSortRemoveDupsInt(npair, pairs));
  PetscCall(PetscSortRemoveDupsInt(nghost, ghosts));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* whether two sorted sets differ on any rank */
static PetscErrorCode SetsDiffer(PetscInt na, const PetscInt a[], PetscInt nb, const PetscInt b[], PetscBool *differ)
{
  PetscBool same = (PetscBool)(na == nb);
  PetscInt  mine, any;

  PetscFunctionBeginUser;
  if (same && na) PetscCall(PetscArraycmp(a, b, na, &same));
  mine = same ? 0 : 1;
  PetscCall(MPIU_Allreduce(&mine, &any, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  *differ = any ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the distributed Y against the serial Ys (every entry on every rank) */
static PetscErrorCode RelDiffSerial(Vec Y, Vec Ys, PetscReal *rel)
{
  const PetscScalar *y, *ys;
  PetscInt           lo, hi;
  PetscReal          loc[2] = {0, 0}, glob[2];

  PetscFunctionBeginUser;
  PetscCall(VecGetOwnershipRange(Y, &lo, &hi));
  PetscCall(VecGetArrayRead(Y, &y));
  PetscCall(VecGetArrayRead(Ys, &ys));
  for (PetscInt i = lo; i < hi; i++) {
    loc[0] += PetscSqr(PetscRealPart(y[i - lo] - ys[i]));
    loc[1] += PetscSqr(PetscRealPart(ys[i]));
  }
  PetscCall(VecRestoreArrayRead(Y, &y));
  PetscCall(VecRestoreArrayRead(Ys, &ys));
  PetscCall(MPIU_Allreduce(loc, glob, 2, MPIU_REAL, MPIU_SUM, PETSC_COMM_WORLD));
  *rel = PetscSqrtReal(glob[0] / PetscMax(glob[1], 1e-300));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the tet box with the springs as a second term, and tail's as a third (tail may be NULL), built
   at once (the oracle) */
static PetscErrorCode FromScratch(MPI_Comm comm, const HFix *f, const Springs *s, const Springs *tail, MfadEnergy *E)
{
  MfadKernel spring;
  PetscInt   n, conn[2 * 64];
  PetscReal  params[2 * 64];

  PetscFunctionBeginUser;
  PetscCall(HFixEnergy(comm, f, E));
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(SpringsLocal(comm, s, &n, conn, params));
  PetscCall(MfadEnergyAddTerm(*E, spring, n, n ? conn : NULL, params, 0.75, NULL));
  if (tail) {
    PetscCall(SpringsLocal(comm, tail, &n, conn, params));
    PetscCall(MfadEnergyAddTerm(*E, spring, n, n ? conn : NULL, params, 0.5, NULL));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  MfadEnergy E;
  PetscInt   dyn;
  Springs   *tail; /* a fixed term after the changing one (its slots move when the changing one's count does), or NULL */
  Mat        S, C, A, B, Q, Z; /* made before the first change: Q sbaij, Z aij with one COO entry per element entry */
  Vec        X, V;
} Dyn;

/* MfadEnergyComputeHessian() into M, whose nonzero state must be new exactly when the pair set
   changed (M preallocated again): PCs redo a symbolic factorisation, and PETSc 3.26 finds the
   diagonal blocks again, only on a new state. Its seq(s)baij preallocation kept the state (the
   fill then read the old diagonal positions in the new arrays: example_drop_contact) */
static PetscErrorCode ComputeNewState(const char *stage, const char *what, MfadEnergy E, Vec X, Mat M, PetscBool pairs_changed)
{
  PetscObjectState s0, s1;
  char             msg[128];

  PetscFunctionBeginUser;
  PetscCall(MatGetNonzeroState(M, &s0));
  PetscCall(MfadEnergyComputeHessian(E, X, M));
  PetscCall(MatGetNonzeroState(M, &s1));
  PetscCall(PetscSNPrintf(msg, sizeof msg, "%s: nonzero state changed (expected iff a rank's pair set changed)", what));
  PetscCall(Expect((PetscBool)((s1 != s0) == pairs_changed), stage, msg, (PetscReal)(s1 != s0), pairs_changed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* what a preconditioner reads from M, filled by E at X: its diagonal and (blocks: PETSc has them
   for aij and baij, not sbaij) inverted diagonal blocks (point-block Jacobi), against a matrix
   made afresh from the from-scratch energy E2 at X, whose caches cannot be stale. Called after a
   pattern change and again at another point (new values, the same pattern). 1e-12 on the
   diagonal (summation order); 1e-10 on the inverted 3 x 3 blocks (their condition numbers) */
static PetscErrorCode SameDiagonals(const char *stage, const char *what, MfadEnergy E, MfadEnergy E2, Vec X, Mat M, PetscBool blocks)
{
  Mat                F;
  Vec                DF, DM;
  const PetscScalar *fi, *mi;
  PetscInt           n, bs;
  PetscReal          rel = 0, diff = 0, nrm = 0;
  char               msg[160];

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyComputeHessian(E, X, M));
  PetscCall(MfadEnergyCreateMatrix(E2, &F));
  PetscCall(MfadEnergyComputeHessian(E2, X, F));
  PetscCall(MatCreateVecs(F, &DF, NULL));
  PetscCall(VecDuplicate(DF, &DM));
  PetscCall(MatGetDiagonal(F, DF));
  PetscCall(MatGetDiagonal(M, DM));
  PetscCall(HFixRelDiff(DM, DF, &rel));
  PetscCall(PetscSNPrintf(msg, sizeof msg, "|diagonal(%s) - diagonal(new aij)| / |.|", what));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, msg, rel, 1e-12));
  PetscCall(VecDestroy(&DF));
  PetscCall(VecDestroy(&DM));
  if (blocks) {
    PetscCall(MatGetLocalSize(F, &n, NULL));
    PetscCall(MatGetBlockSize(F, &bs));
    PetscCall(MatInvertBlockDiagonal(F, &fi));
    PetscCall(MatInvertBlockDiagonal(M, &mi));
    for (PetscInt i = 0; i < n * bs; i++) diff = PetscMax(diff, PetscAbsScalar(mi[i] - fi[i])), nrm = PetscMax(nrm, PetscAbsScalar(fi[i]));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &diff, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCallMPI(MPIU_Allreduce(MPI_IN_PLACE, &nrm, 1, MPIU_REAL, MPIU_MAX, PETSC_COMM_WORLD));
    PetscCall(PetscSNPrintf(msg, sizeof msg, "max |inverted diagonal blocks(%s) - new aij's| / max |new aij's|", what));
    PetscCall(Expect((PetscBool)(diff <= 1e-10 * nrm), stage, msg, diff / nrm, 1e-10));
  }
  PetscCall(MatDestroy(&F));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckStage(const char *stage, const HFix *f, Dyn *d, const Springs *s, const Springs *prev)
{
  MfadEnergy E2, Es;
  Vec        G, G2, Y, Y2, Xs, Vs, Ys, Xp, Gp, Gm;
  Mat        S2, Ss, A2;
  PetscReal  fE, f2, fs, rel, h = 1e-5, fp, fm, gv, nrm;
  PetscInt   n, conn[2 * 64], c0[4], c1[4];
  PetscReal  params[2 * 64];
  PetscInt   np0, np1, ng0, ng1, *p0, *p1, *g0, *g1, cap = 16 * (f->nelem + 64);
  PetscBool  pairs_changed, ghosts_changed;

  PetscFunctionBeginUser;
  /* the change, and what its counts must be */
  PetscCall(PetscMalloc4(cap, &p0, cap, &p1, cap, &g0, cap, &g1));
  PetscCall(RankSets(f, prev, &np0, p0, &ng0, g0));
  PetscCall(RankSets(f, s, &np1, p1, &ng1, g1));
  PetscCall(SetsDiffer(np0, p0, np1, p1, &pairs_changed));
  PetscCall(SetsDiffer(ng0, g0, ng1, g1, &ghosts_changed));
  PetscCall(PetscFree4(p0, p1, g0, g1));
  PetscCall(MfadEnergyGetElementsCounts(d->E, NULL, &c0[1], &c0[2], &c0[3]));
  PetscCall(SpringsLocal(PETSC_COMM_WORLD, s, &n, conn, params));
  PetscCall(MfadEnergySetTermElements(d->E, d->dyn, n, conn, params));
  PetscCall(MfadEnergyGetElementsCounts(d->E, NULL, &c1[1], &c1[2], &c1[3]));
  PetscCall(Expect((PetscBool)(c1[1] - c0[1] == (ghosts_changed ? 1 : 0)), stage,
                   "ghost rebuilds at the change (expected 1 iff a rank's ghost set changed)", c1[1] - c0[1], ghosts_changed));

  PetscCall(FromScratch(PETSC_COMM_WORLD, f, s, d->tail, &E2));
  PetscCall(FromScratch(PETSC_COMM_SELF, f, s, d->tail, &Es));
  PetscCall(MfadEnergyCreateVecs(d->E, &G, &G2));
  PetscCall(VecDuplicate(G, &Y));
  PetscCall(VecDuplicate(G, &Y2));
  PetscCall(MfadEnergyCreateVecs(Es, &Xs, &Vs));
  PetscCall(VecDuplicate(Xs, &Ys));
  PetscCall(HFixPoint(f, 0.03, 11, Xs));
  PetscCall(HFixPoint(f, 1.0, 12, Vs));

  /* objective and gradient: the same sums as built at once (1e-12: summation order only) */
  PetscCall(MfadEnergyComputeObjectiveGradient(d->E, d->X, &fE, G));
  PetscCall(MfadEnergyComputeObjectiveGradient(E2, d->X, &f2, G2));
  PetscCall(MfadEnergyComputeObjective(Es, Xs, &fs));
  PetscCall(Expect((PetscBool)(PetscAbsReal(fE - f2) <= 1e-12 * PetscAbsReal(f2)), stage, "|f - f(from scratch)| / |f|",
                   PetscAbsReal(fE - f2) / PetscAbsReal(f2), 1e-12));
  PetscCall(Expect((PetscBool)(PetscAbsReal(fE - fs) <= 1e-12 * PetscAbsReal(fs)), stage, "|f - f(serial)| / |f|",
                   PetscAbsReal(fE - fs) / PetscAbsReal(fs), 1e-12));
  PetscCall(HFixRelDiff(G, G2, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|g - g(from scratch)| / |g|", rel, 1e-12));
  PetscCall(MfadEnergyComputeGradient(Es, Xs, Ys));
  PetscCall(RelDiffSerial(G, Ys, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|g - g(serial)| / |g|", rel, 1e-12));

  /* central differences, step 1e-5: O(h^2) ~ 1e-10 relative truncation, 1e-16 f / h round-off */
  PetscCall(VecDuplicate(d->X, &Xp));
  PetscCall(VecDuplicate(G, &Gp));
  PetscCall(VecDuplicate(G, &Gm));
  PetscCall(VecWAXPY(Xp, h, d->V, d->X));
  PetscCall(MfadEnergyComputeObjectiveGradient(d->E, Xp, &fp, Gp));
  PetscCall(VecWAXPY(Xp, -h, d->V, d->X));
  PetscCall(MfadEnergyComputeObjectiveGradient(d->E, Xp, &fm, Gm));
  PetscCall(VecDot(G, d->V, &gv));
  PetscCall(Expect((PetscBool)(PetscAbsReal((fp - fm) / (2 * h) - gv) <= 1e-6 * PetscMax(PetscAbsReal(gv), 1.0)), stage, "|FD of f - g.v| / |g.v|",
                   PetscAbsReal((fp - fm) / (2 * h) - gv) / PetscMax(PetscAbsReal(gv), 1.0), 1e-6));
  PetscCall(VecAXPY(Gp, -1.0, Gm));
  PetscCall(VecScale(Gp, 1.0 / (2 * h)));

  /* the fused product of the shell made before any change, at the point set again */
  PetscCall(MfadHessianSetPoint(d->S, d->X));
  PetscCall(MatMult(d->S, d->V, Y));
  PetscCall(HFixRelDiff(Y, Gp, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-6), stage, "|fused - FD of gradient| / |FD|", rel, 1e-6));
  PetscCall(MfadEnergyCreateHessianMat(E2, MFAD_HESSIAN_SHELL, &S2));
  PetscCall(MfadHessianSetPoint(S2, d->X));
  PetscCall(MatMult(S2, d->V, Y2));
  PetscCall(HFixRelDiff(Y, Y2, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|fused - fused(from scratch)| / |fused|", rel, 1e-12));
  PetscCall(MfadEnergyCreateHessianMat(Es, MFAD_HESSIAN_SHELL, &Ss));
  PetscCall(MfadHessianSetPoint(Ss, Xs));
  PetscCall(MatMult(Ss, Vs, Ys));
  PetscCall(RelDiffSerial(Y, Ys, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|fused - fused(serial)| / |fused|", rel, 1e-12));
  PetscCall(MfadHessianSetPoint(d->C, d->X));
  PetscCall(MatMult(d->C, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|cached - fused| / |fused|", rel, 1e-12));
  PetscCall(ComputeNewState(stage, "aij", d->E, d->X, d->A, pairs_changed));
  PetscCall(MatMult(d->A, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|assembled aij - fused| / |fused|", rel, 1e-12));
  PetscCall(ComputeNewState(stage, "baij", d->E, d->X, d->B, pairs_changed));
  PetscCall(MatMult(d->B, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|assembled baij - fused| / |fused|", rel, 1e-12));
  PetscCall(ComputeNewState(stage, "sbaij", d->E, d->X, d->Q, pairs_changed));
  PetscCall(MatMult(d->Q, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|assembled sbaij - fused| / |fused|", rel, 1e-12));
  PetscCall(MfadEnergyComputeHessian(d->E, d->X, d->Z));
  PetscCall(MatMult(d->Z, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|assembled aij (element COO) - fused| / |fused|", rel, 1e-12));
  { /* the diagonals after the change, and at another point on the same pattern */
    Vec Xq;
    PetscCall(VecDuplicate(d->X, &Xq));
    PetscCall(VecWAXPY(Xq, 1e-2, d->V, d->X));
    for (int p = 0; p < 2; p++) {
      Vec Xp = p ? Xq : d->X;
      PetscCall(SameDiagonals(stage, p ? "aij, another point" : "aij", d->E, E2, Xp, d->A, PETSC_TRUE));
      PetscCall(SameDiagonals(stage, p ? "baij, another point" : "baij", d->E, E2, Xp, d->B, PETSC_TRUE));
      PetscCall(SameDiagonals(stage, p ? "sbaij, another point" : "sbaij", d->E, E2, Xp, d->Q, PETSC_FALSE));
    }
    PetscCall(VecDestroy(&Xq));
  }
  {
    PetscBool sym;
    PetscCall(MatNorm(d->A, NORM_FROBENIUS, &nrm));
    PetscCall(MatIsSymmetric(d->A, 1e-14 * nrm, &sym));
    PetscCall(Expect(sym, stage, "assembled aij symmetric (tolerance 1e-14 |A|_F); |A|_F", nrm, 0));
  }
  /* three matrices with merged COO: each re-preallocated iff the pair set changed, else kept; the
     one with an entry per element entry after every change */
  PetscCall(MfadEnergyGetElementsCounts(d->E, NULL, &c1[1], &c1[2], &c1[3]));
  PetscCall(Expect((PetscBool)(c1[2] - c0[2] == (pairs_changed ? 4 : 1)), stage,
                   "re-preallocations of 4 matrices (expected 3 iff a rank's pair set changed, + 1)", c1[2] - c0[2], pairs_changed ? 4 : 1));
  PetscCall(Expect((PetscBool)(c1[3] - c0[3] == (pairs_changed ? 0 : 3)), stage,
                   "preallocations kept of 3 matrices (expected 3 iff no pair set changed)", c1[3] - c0[3], pairs_changed ? 0 : 3));

  /* PSD projection: per element, the same as the from-scratch energy's; cached = assembled */
  PetscCall(MfadEnergySetPSDProjection(d->E, MFAD_PSD_CLAMP, 0.0));
  PetscCall(MfadEnergySetPSDProjection(E2, MFAD_PSD_CLAMP, 0.0));
  PetscCall(MfadEnergyComputeHessian(d->E, d->X, d->A));
  PetscCall(MfadEnergyCreateMatrix(E2, &A2));
  PetscCall(MfadEnergyComputeHessian(E2, d->X, A2));
  PetscCall(MatMult(d->A, d->V, Y));
  PetscCall(MatMult(A2, d->V, Y2));
  PetscCall(HFixRelDiff(Y, Y2, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|projected aij - projected aij(from scratch)| / |.|", rel, 1e-12));
  PetscCall(MfadHessianSetPoint(d->C, d->X));
  PetscCall(MatMult(d->C, d->V, Y2));
  PetscCall(HFixRelDiff(Y2, Y, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-12), stage, "|projected cached - projected aij| / |.|", rel, 1e-12));
  { /* a sum of PSD element Hessians and the identity rows of fixed dofs: v^T H v >= 0 (round-off 1e-12 |H| |v|^2) */
    PetscReal vhv, vv;
    PetscCall(VecDot(d->V, Y, &vhv));
    PetscCall(VecDot(d->V, d->V, &vv));
    PetscCall(MatNorm(d->A, NORM_FROBENIUS, &nrm));
    PetscCall(Expect((PetscBool)(vhv >= -1e-12 * nrm * vv), stage, "v^T H_projected v / (|H| |v|^2)", vhv / (nrm * vv), -1e-12));
  }
  PetscCall(MfadEnergySetPSDProjection(d->E, MFAD_PSD_NONE, 0.0));

  PetscCall(MatDestroy(&A2));
  PetscCall(MatDestroy(&S2));
  PetscCall(MatDestroy(&Ss));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&G2));
  PetscCall(VecDestroy(&Y));
  PetscCall(VecDestroy(&Y2));
  PetscCall(VecDestroy(&Xs));
  PetscCall(VecDestroy(&Vs));
  PetscCall(VecDestroy(&Ys));
  PetscCall(VecDestroy(&Xp));
  PetscCall(VecDestroy(&Gp));
  PetscCall(VecDestroy(&Gm));
  PetscCall(MfadEnergyDestroy(&E2));
  PetscCall(MfadEnergyDestroy(&Es));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The stages on the tet box with a changing spring term; with tail, a fixed term of springs on
   mesh edges after it (pairs and ghosts the tets have already, so the counts' oracle stands) */
static PetscErrorCode CheckStages(const HFix *f, PetscBool tail)
{
  MfadKernel spring;
  Dyn        d;
  Springs    none = {0}, mesh, a, ap, a2, b;
  PetscInt   updates;

  PetscFunctionBeginUser;
  SpringsMeshEdges(f, &mesh);
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(HFixEnergy(PETSC_COMM_WORLD, f, &d.E));
  PetscCall(MfadEnergyAddTerm(d.E, spring, 0, NULL, NULL, 0.75, &d.dyn)); /* empty at first */
  PetscCall(MfadEnergySetTermName(d.E, d.dyn, "contact"));
  d.tail = tail ? &mesh : NULL;
  if (tail) {
    PetscInt  n, conn[2 * 64];
    PetscReal params[2 * 64];
    PetscCall(SpringsLocal(PETSC_COMM_WORLD, &mesh, &n, conn, params));
    PetscCall(MfadEnergyAddTerm(d.E, spring, n, n ? conn : NULL, params, 0.5, NULL));
  }
  PetscCall(MfadEnergyCreateVecs(d.E, &d.X, &d.V));
  PetscCall(HFixPoint(f, 0.03, 11, d.X));
  PetscCall(HFixPoint(f, 1.0, 12, d.V));
  PetscCall(MfadEnergyCreateHessianMat(d.E, MFAD_HESSIAN_SHELL, &d.S));
  PetscCall(MfadEnergyCreateHessianMat(d.E, MFAD_HESSIAN_CACHED, &d.C));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "aij"));
  PetscCall(MfadEnergyCreateMatrix(d.E, &d.A));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "baij"));
  PetscCall(MfadEnergyCreateMatrix(d.E, &d.B));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "sbaij"));
  PetscCall(MfadEnergyCreateMatrix(d.E, &d.Q));
  PetscCall(PetscOptionsSetValue(NULL, "-mat_type", "aij"));
  PetscCall(MfadEnergySetCOOMerge(d.E, PETSC_FALSE)); /* -mfad_coo_merge 0 */
  PetscCall(MfadEnergyCreateMatrix(d.E, &d.Z));
  PetscCall(MfadEnergySetCOOMerge(d.E, PETSC_TRUE));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_type"));

  SpringsRandom(1, 25, f->nvert, &a);
  SpringsPermuted(&a, &ap);
  SpringsDoubled(&a, &a2);
  SpringsRandom(2, 25, f->nvert, &b);
  PetscCall(CheckStage("stage 0 (empty)", f, &d, &none, &none));
  PetscCall(CheckStage("stage 1 (springs on mesh edges)", f, &d, &mesh, &none));
  PetscCall(CheckStage("stage 2 (random pairs A)", f, &d, &a, &mesh));
  PetscCall(CheckStage("stage 3 (A reversed and swapped)", f, &d, &ap, &a));
  PetscCall(CheckStage("stage 4 (random pairs B)", f, &d, &b, &ap));
  PetscCall(CheckStage("stage 5 (empty)", f, &d, &none, &b));
  PetscCall(CheckStage("stage 6 (A again)", f, &d, &a, &none));
  /* the same pairs from twice the elements: the slots grow (with tail, the fixed term's move) */
  PetscCall(CheckStage(tail ? "stage 7 (A doubled, a fixed term after)" : "stage 7 (A doubled)", f, &d, &a2, &a));
  PetscCall(MfadEnergyGetElementsCounts(d.E, &updates, NULL, NULL, NULL));
  PetscCall(Expect((PetscBool)(updates == 8), "stages", "element-set changes counted", updates, 8));
  PetscCall(MfadEnergyViewFromOptions(d.E, "-dynamic_view"));
  PetscCall(MatDestroy(&d.S));
  PetscCall(MatDestroy(&d.C));
  PetscCall(MatDestroy(&d.A));
  PetscCall(MatDestroy(&d.B));
  PetscCall(MatDestroy(&d.Q));
  PetscCall(MatDestroy(&d.Z));
  PetscCall(VecDestroy(&d.X));
  PetscCall(VecDestroy(&d.V));
  PetscCall(MfadEnergyDestroy(&d.E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ SNES with a provider */

typedef struct {
  const Springs *a, *ap;
  PetscInt       calls;
} Provider;

/* alternates between A and A reversed: a new element set at every Newton step, the same energy */
static PetscErrorCode AlternatingSprings(MfadEnergy E, PetscInt term, Vec X, void *ctx)
{
  Provider *p = (Provider *)ctx;
  PetscInt  n, conn[2 * 64];
  PetscReal params[2 * 64];
  MPI_Comm  comm;

  PetscFunctionBeginUser;
  (void)X;
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(SpringsLocal(comm, p->calls % 2 ? p->ap : p->a, &n, conn, params));
  PetscCall(MfadEnergySetTermElements(E, term, n, conn, params));
  p->calls++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Solve(MfadEnergy E, const HFix *f, Vec X, SNESConvergedReason *reason, PetscInt *its)
{
  SNES snes;

  PetscFunctionBeginUser;
  PetscCall(SNESCreate(PETSC_COMM_WORLD, &snes));
  PetscCall(MfadEnergySetSNES(E, snes));
  PetscCall(SNESSetTolerances(snes, 1e-12, 1e-10, 0, 50, 1000));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(HFixPoint(f, 0.03, 11, X));
  PetscCall(MfadEnergyApplyFixedValues(E, X));
  PetscCall(SNESSolve(snes, NULL, X));
  PetscCall(SNESGetConvergedReason(snes, reason));
  PetscCall(SNESGetIterationNumber(snes, its));
  PetscCall(SNESDestroy(&snes));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckSNES(const HFix *f)
{
  MfadKernel          spring;
  MfadEnergy          E, E2;
  Springs             a, ap;
  Provider            p = {&a, &ap, 0};
  Vec                 X, X2;
  SNESConvergedReason r, r2;
  PetscInt            its, its2, t;
  PetscReal           rel;

  PetscFunctionBeginUser;
  SpringsRandom(1, 25, f->nvert, &a);
  for (PetscInt q = 0; q < a.n; q++) { /* gentle springs, 10% longer than at rest: a well-posed minimum */
    PetscReal l2 = 0;
    for (int c = 0; c < 3; c++) l2 += PetscSqr(f->rest[3 * a.conn[2 * q + 1] + c] - f->rest[3 * a.conn[2 * q] + c]);
    a.params[2 * q]     = 1.1 * PetscSqrtReal(l2);
    a.params[2 * q + 1] = 0.5;
  }
  SpringsPermuted(&a, &ap);
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(HFixEnergy(PETSC_COMM_WORLD, f, &E));
  PetscCall(MfadEnergyAddTerm(E, spring, 0, NULL, NULL, 0.75, &t));
  PetscCall(MfadEnergySetTermElementsFunction(E, t, AlternatingSprings, &p));
  PetscCall(FromScratch(PETSC_COMM_WORLD, f, &a, NULL, &E2));
  PetscCall(MfadEnergyCreateVecs(E, &X, NULL));
  PetscCall(VecDuplicate(X, &X2));
  /* no update before the solve: the provider's first call (before the first Newton step's Hessian)
     brings the springs, and the step's right-hand side is computed again with them */
  PetscCall(Solve(E, f, X, &r, &its));
  PetscCall(Expect((PetscBool)(p.calls == its), "snes", "provider calls (one per Newton step) - Newton steps", p.calls - its, 0));
  PetscCall(Solve(E2, f, X2, &r2, &its2));
  { /* TAO's Newton (nls): the provider before each Hessian too, the same minimiser */
    Tao                tao;
    TaoConvergedReason tr;
    Vec                Xt;
    PetscInt           calls = p.calls;
    PetscCall(VecDuplicate(X, &Xt));
    PetscCall(HFixPoint(f, 0.03, 11, Xt));
    PetscCall(MfadEnergyApplyFixedValues(E, Xt));
    PetscCall(TaoCreate(PETSC_COMM_WORLD, &tao));
    PetscCall(TaoSetType(tao, TAONLS));
    PetscCall(TaoSetSolution(tao, Xt));
    PetscCall(MfadEnergySetTao(E, tao));
    PetscCall(TaoSetTolerances(tao, 1e-11, 0, 0));
    PetscCall(TaoSetFromOptions(tao));
    PetscCall(TaoSolve(tao));
    PetscCall(TaoGetConvergedReason(tao, &tr));
    PetscCall(Expect((PetscBool)(tr > 0), "tao", "converged reason with a provider", tr, 0));
    PetscCall(Expect((PetscBool)(p.calls > calls), "tao", "provider calls during the solve", p.calls - calls, 1));
    PetscCall(HFixRelDiff(Xt, X2, &rel));
    PetscCall(Expect((PetscBool)(rel <= 1e-8), "tao", "|x(tao) - x(snes, from scratch)| / |x|", rel, 1e-8));
    PetscCall(TaoDestroy(&tao));
    PetscCall(VecDestroy(&Xt));
  }
  PetscCall(Expect((PetscBool)(r > 0), "snes", "converged reason with a provider", r, 0));
  PetscCall(Expect((PetscBool)(r2 > 0), "snes", "converged reason from scratch", r2, 0));
  /* the same energy: the same minimiser to the solver's tolerance (1e-10 absolute gradient) */
  PetscCall(HFixRelDiff(X, X2, &rel));
  PetscCall(Expect((PetscBool)(rel <= 1e-8), "snes", "|x - x(from scratch)| / |x|", rel, 1e-8));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X2));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadEnergyDestroy(&E2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------ bad input */

static char lastmsg[1024];

static PetscErrorCode KeepMessage(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess,
                                  void *ctx)
{
  (void)comm;
  (void)line;
  (void)fun;
  (void)file;
  (void)ctx;
  if (p == PETSC_ERROR_INITIAL && mess) PetscStrncpy(lastmsg, mess, sizeof(lastmsg));
  return n;
}

/* the call failed, and (where `word` is given) its first message has `word` in it */
static PetscErrorCode ExpectError(PetscErrorCode ierr, const char *what, const char *word)
{
  char *found = NULL;

  PetscFunctionBeginUser;
  if (word) PetscCall(PetscStrstr(lastmsg, word, &found));
  if (!ierr || (word && !found)) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAIL bad input: %s: error %d, message \"%s\" (expected an error naming \"%s\")\n", what, (int)ierr,
                          lastmsg, word ? word : ""));
    failures++;
  }
  lastmsg[0] = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Recursive(MfadEnergy E, PetscInt term, Vec X, void *ctx)
{
  PetscFunctionBeginUser;
  (void)term;
  (void)ctx;
  PetscCall(MfadEnergyUpdateElements(E, X));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode NaNProvider(MfadEnergy E, PetscInt term, Vec X, void *ctx)
{
  PetscInt  conn[2] = {0, 1};
  PetscReal params[2];

  PetscFunctionBeginUser;
  (void)X;
  (void)ctx;
  params[0] = 0.3;
  params[1] = (PetscReal)NAN;
  PetscCall(MfadEnergySetTermElements(E, term, 1, conn, params));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode CheckBadInput(const HFix *f)
{
  MfadKernel     spring;
  MfadEnergy     E;
  Mat            S;
  Vec            X, V, Y;
  Springs        a;
  PetscInt       t, n, conn[2 * 64], bad[2]    = {0, 1};
  PetscReal      params[2 * 64], f0, f1, p2[2] = {0.3, 2.0};
  PetscMPIInt    rank;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  SpringsRandom(1, 25, f->nvert, &a);
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(HFixEnergy(PETSC_COMM_WORLD, f, &E));
  PetscCall(MfadEnergyAddTerm(E, spring, 0, NULL, NULL, 0.75, &t));
  PetscCall(MfadEnergySetTermName(E, t, "contact"));
  PetscCall(SpringsLocal(PETSC_COMM_WORLD, &a, &n, conn, params));
  PetscCall(MfadEnergySetTermElements(E, t, n, conn, params));
  PetscCall(MfadEnergyCreateVecs(E, &X, &V));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(HFixPoint(f, 0.03, 11, X));
  PetscCall(HFixPoint(f, 1.0, 12, V));
  PetscCall(MfadEnergyComputeObjective(E, X, &f0));

  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  ierr = MfadEnergySetTermElements(E, t, -1, NULL, NULL);
  PetscCall(ExpectError(ierr, "negative element count", "contact"));
  bad[1] = rank == 0 ? f->nvert : 1; /* out of range on rank 0 only: every rank refuses */
  ierr   = MfadEnergySetTermElements(E, t, 1, bad, p2);
  PetscCall(ExpectError(ierr, "vertex id out of range", "contact"));
  bad[1] = -3;
  ierr   = MfadEnergySetTermElements(E, t, 1, bad, p2);
  PetscCall(ExpectError(ierr, "negative vertex id", "contact"));
  bad[1]    = 1;
  params[0] = 0.3;
  params[1] = (PetscReal)NAN;
  ierr      = MfadEnergySetTermElements(E, t, 1, bad, params);
  PetscCall(ExpectError(ierr, "NaN parameter", "contact"));
  ierr = MfadEnergySetTermElements(E, t, 1, NULL, p2);
  PetscCall(ExpectError(ierr, "no connectivity", "contact"));
  ierr = MfadEnergySetTermElements(E, t, 1, bad, NULL);
  PetscCall(ExpectError(ierr, "no parameters", "contact"));
  ierr = MfadEnergySetTermElements(E, 7, 0, NULL, NULL);
  PetscCall(ExpectError(ierr, "no such term", "no term 7"));
  PetscCall(PetscPopErrorHandler());
  /* refused sets leave the term as it was */
  PetscCall(MfadEnergyComputeObjective(E, X, &f1));
  PetscCall(Expect((PetscBool)(f1 == f0), "bad input", "objective changed by refused element sets", f1 - f0, 0));

  /* a change between a Hessian's point and its product (inside a linear solve) */
  PetscCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_SHELL, &S));
  PetscCall(MfadHessianSetPoint(S, X));
  PetscCall(MatMult(S, V, Y));
  PetscCall(SpringsLocal(PETSC_COMM_WORLD, &a, &n, conn, params));
  PetscCall(MfadEnergySetTermElements(E, t, n > 1 ? n - 1 : 0, conn, params));
  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  ierr = MatMult(S, V, Y);
  PetscCall(ExpectError(ierr, "product after an element change without a new point", "element set changed"));
  PetscCall(PetscPopErrorHandler());
  PetscCall(MfadHessianSetPoint(S, X));
  PetscCall(MatMult(S, V, Y)); /* fine again at the point set anew */

  /* providers: one that calls the update again, one that gives a NaN parameter */
  PetscCall(MfadEnergySetTermElementsFunction(E, t, Recursive, NULL));
  PetscCall(PetscPushErrorHandler(KeepMessage, NULL));
  ierr = MfadEnergyUpdateElements(E, X);
  PetscCall(ExpectError(ierr, "provider calling MfadEnergyUpdateElements()", "provider"));
  PetscCall(MfadEnergySetTermElementsFunction(E, t, NaNProvider, NULL));
  ierr = MfadEnergyUpdateElements(E, X);
  PetscCall(ExpectError(ierr, "provider giving a NaN parameter", "contact"));
  PetscCall(PetscPopErrorHandler());
  PetscCall(MfadEnergySetTermElementsFunction(E, t, NULL, NULL));
  PetscCall(MfadEnergyUpdateElements(E, X)); /* no provider: nothing to do, and no stale state */
  PetscCall(MfadEnergyComputeObjective(E, X, &f1));
  PetscCall(Expect((PetscBool)PetscIsNormalReal(f1), "bad input", "objective after refused provider sets", f1, 0));

  PetscCall(MatDestroy(&S));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  HFix f;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(HFixCreate("neohookean_tet", &f));
  PetscCall(CheckStages(&f, PETSC_FALSE));
  PetscCall(CheckStages(&f, PETSC_TRUE));
  PetscCall(CheckSNES(&f));
  PetscCall(CheckBadInput(&f));
  PetscCall(HFixDestroy(&f));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "test_dynamic: %d failed\n", failures));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
