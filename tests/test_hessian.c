// SPDX-License-Identifier: BSD-2-Clause
/* Explicit Hessians: the three forms (fused shell, cached element Hessians, COO-assembled
   matrices of each type) apply the same operator on every built-in energy with fixed dofs; the
   assembled matrix (through COO, and through mfad's CSR on one rank) equals a dense-reference
   assembly with the same stored entries and is symmetric; refilling allocates
   nothing; the PSD projection; the options that choose the forms. */
#include "hessian_fixtures.h"
#define MFAD_IMPL_ALLOWED 1 /* checks element Hessians against the machinery's PSD projection */
#include <mfad/impl/psd.h>
#include <string.h>
#include <unistd.h>

/* every product agrees with the fused one to round-off: sums of the same element products in
   another order, ~1e-15 relative; 1e-12 leaves room for cancellation in |H v| */
#define FORMS_RTOL 1e-12

static const char *const mat_types[] = {"aij", "baij", "sbaij"};

START_TEST(forms_give_the_same_product)
{
  HFix       f;
  MfadEnergy E;
  Mat        S, C, A;
  Vec        X, V, Ys, Y;
  PetscReal  rel;

  TestCall(HFixCreate(HFixNames[_i], &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(X, &Ys));
  TestCall(VecDuplicate(X, &Y));
  TestCall(HFixPoint(&f, 0.03, 1, X));
  TestCall(HFixPoint(&f, 1.0, 2, V));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_SHELL, &S));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_CACHED, &C));
  TestCall(MfadHessianSetPoint(S, X));
  TestCall(MfadHessianSetPoint(C, X));
  TestCall(MatMult(S, V, Ys));
  TestCall(MatMult(C, V, Y));
  TestCall(HFixRelDiff(Y, Ys, &rel));
  ck_assert_msg(rel <= FORMS_RTOL, "%s: cached vs fused product differ by %.3e relative, bound %.0e", HFixNames[_i], rel, FORMS_RTOL);
  for (int t = 0; t < 3; t++) {
    PetscBool sym;
    TestCall(PetscOptionsSetValue(NULL, "-mat_type", mat_types[t]));
    TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AIJ, &A));
    TestCall(PetscOptionsClearValue(NULL, "-mat_type"));
    TestCall(MfadHessianSetPoint(A, X));
    TestCall(MatMult(A, V, Y));
    TestCall(HFixRelDiff(Y, Ys, &rel));
    ck_assert_msg(rel <= FORMS_RTOL, "%s: assembled (%s) vs fused product differ by %.3e relative, bound %.0e", HFixNames[_i], mat_types[t], rel, FORMS_RTOL);
    if (t == 0) { /* symmetric to round-off of its entries */
      PetscReal nrm;
      TestCall(MatNorm(A, NORM_FROBENIUS, &nrm));
      TestCall(MatIsSymmetric(A, 1e-14 * nrm, &sym));
      ck_assert_msg(sym, "%s: the assembled Hessian is not symmetric (tolerance 1e-14 |A|_F)", HFixNames[_i]);
    }
    TestCall(MatDestroy(&A));
  }
  TestCall(MatDestroy(&S));
  TestCall(MatDestroy(&C));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Ys));
  TestCall(VecDestroy(&Y));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* The reference: MatSetValues(ADD_VALUES) of the dense element Hessians of kernel->element(),
   weighted, fixed rows and columns dropped, 1 on their diagonal. */
static PetscErrorCode ReferenceHessian(const HFix *f, Vec X, PetscReal weight, Mat *R)
{
  const int          nv = f->k->nvert, dof = (int)f->dof, N = nv * dof;
  const PetscScalar *x;
  PetscInt           n;
  char              *fixed;

  PetscFunctionBeginUser;
  PetscCall(VecGetSize(X, &n));
  PetscCall(MatCreateSeqDense(PETSC_COMM_SELF, n, n, NULL, R));
  PetscCall(PetscCalloc1(n, &fixed));
  for (PetscInt i = 0; i < f->nfix; i++) fixed[f->fix[i]] = 1;
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt e = 0; e < f->nelem; e++) {
    double   xe[16], H[256], value;
    PetscInt g[16];
    for (int a = 0; a < nv; a++)
      for (int d = 0; d < dof; d++) {
        const PetscInt i = f->conn[nv * e + a] * dof + d;
        xe[a * dof + d]  = PetscRealPart(x[i]);
        g[a * dof + d]   = fixed[i] ? -1 : i; /* MatSetValues ignores negative indices */
      }
    f->k->element(MFAD_MODE_HESSIAN, xe, NULL, f->params + e * f->k->nparam, &value, H);
    for (int i = 0; i < N * N; i++) H[i] *= weight;
    PetscCall(MatSetValues(*R, N, g, N, g, H, ADD_VALUES));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  for (PetscInt i = 0; i < f->nfix; i++) PetscCall(MatSetValue(*R, f->fix[i], f->fix[i], 1.0, ADD_VALUES)); /* the row held nothing */
  PetscCall(MatAssemblyBegin(*R, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*R, MAT_FINAL_ASSEMBLY));
  PetscCall(PetscFree(fixed));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(assembled_equals_dense_reference)
{
  HFix       f;
  MfadEnergy E;
  Mat        A, Ad, R;
  Vec        X;
  PetscReal  nd, nr;
  double     nnz[3][2];

  TestCall(HFixCreate(HFixNames[_i], &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(HFixPoint(&f, 0.03, 3, X));
  TestCall(MfadEnergyApplyFixedValues(E, X)); /* the reference reads x at the fixed dofs too */
  TestCall(ReferenceHessian(&f, X, 1.5, &R));
  TestCall(MatNorm(R, NORM_FROBENIUS, &nr));
  for (int t = 0; t < 3; t++)
    for (int csr = 0; csr < 2; csr++) { /* through PETSc's COO, then mfad's CSR preallocation and fill */
      static const char *const types[] = {"aij", "baij", "sbaij"};
      MatInfo                  info;
      TestCall(PetscOptionsSetValue(NULL, "-mat_type", types[t]));
      TestCall(MfadEnergySetAssembleCSR(E, csr ? PETSC_TRUE : PETSC_FALSE)); /* -mfad_assemble_csr */
      TestCall(MfadEnergyCreateMatrix(E, &A));
      TestCall(MfadEnergySetAssembleCSR(E, PETSC_TRUE));
      TestCall(PetscOptionsClearValue(NULL, "-mat_type"));
      TestCall(MfadEnergyComputeHessian(E, X, A));
      TestCall(MfadEnergyComputeHessian(E, X, A)); /* a refill writes the same */
      TestCall(MatGetInfo(A, MAT_LOCAL, &info));
      nnz[t][csr] = info.nz_used;
      TestCall(MatConvert(A, MATSEQAIJ, MAT_INPLACE_MATRIX, &A)); /* sbaij: both triangles */
      TestCall(MatConvert(A, MATSEQDENSE, MAT_INITIAL_MATRIX, &Ad));
      TestCall(MatAXPY(Ad, -1.0, R, SAME_NONZERO_PATTERN));
      TestCall(MatNorm(Ad, NORM_FROBENIUS, &nd));
      /* the same element Hessians summed in another order: round-off */
      ck_assert_msg(nd <= 1e-13 * nr, "%s (%s, csr %d): |A - A_ref|_F = %.3e, |A_ref|_F = %.3e, bound 1e-13 relative", HFixNames[_i], types[t], csr, nd, nr);
      TestCall(MatDestroy(&A));
      TestCall(MatDestroy(&Ad));
      if (csr) ck_assert_msg(nnz[t][0] == nnz[t][1], "%s (%s): %g stored entries through COO, %g through CSR", HFixNames[_i], types[t], nnz[t][0], nnz[t][1]);
    }
  TestCall(MatDestroy(&R));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

START_TEST(cached_diagonals_match_the_energy)
{
  HFix         f;
  MfadEnergy   E;
  Vec          X, D1, D2;
  PetscReal    rel, d = 0, nb = 0;
  PetscInt     n, dof;
  PetscScalar *b1, *b2;

  TestCall(HFixCreate(HFixNames[_i], &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &D1));
  TestCall(VecDuplicate(X, &D2));
  TestCall(HFixPoint(&f, 0.03, 4, X));
  TestCall(MfadEnergyCachedHessianDiagonal(E, X, D1));
  TestCall(MfadEnergyComputeHessianDiagonal(E, X, D2));
  TestCall(HFixRelDiff(D1, D2, &rel));
  ck_assert_msg(rel <= FORMS_RTOL, "%s: cached vs fused-loop diagonal differ by %.3e relative", HFixNames[_i], rel);
  TestCall(MfadEnergyGetSizes(E, &dof, &n, NULL));
  TestCall(PetscMalloc2(n * dof * dof, &b1, n * dof * dof, &b2));
  TestCall(MfadEnergyCachedHessianBlockDiagonal(E, X, b1));
  TestCall(MfadEnergyComputeHessianBlockDiagonal(E, X, b2));
  for (PetscInt i = 0; i < n * dof * dof; i++) {
    d += PetscSqr(PetscRealPart(b1[i] - b2[i]));
    nb += PetscSqr(PetscRealPart(b2[i]));
  }
  ck_assert_msg(PetscSqrtReal(d) <= FORMS_RTOL * PetscSqrtReal(nb), "%s: cached vs fused-loop vertex blocks differ by %.3e (norm %.3e)", HFixNames[_i], PetscSqrtReal(d), PetscSqrtReal(nb));
  TestCall(PetscFree2(b1, b2));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&D1));
  TestCall(VecDestroy(&D2));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* Peak PETSc heap during a call above the heap before it: any allocation inside the call, even
   one freed before it returns, raises the peak (PetscMallocGetCurrentUsage before/after would
   miss those). Needs PETSc's tracing allocator: main() passes -malloc_debug. */
static PetscErrorCode PeakGrowth(PetscErrorCode (*fn)(void *), void *ctx, PetscLogDouble *growth)
{
  PetscLogDouble before, peak;

  PetscFunctionBeginUser;
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(PetscMallocPushMaximumUsage(1));
  PetscCall(fn(ctx));
  PetscCall(PetscMallocPopMaximumUsage(1, &peak));
  *growth = peak - before;
  PetscFunctionReturn(PETSC_SUCCESS);
}

typedef struct {
  MfadEnergy E;
  Mat        A;
  Vec        X, V, Y;
} FillCtx;

static PetscErrorCode Refill(void *ctx)
{
  FillCtx *c = (FillCtx *)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecScale(c->X, 1.001)); /* a new point: the element Hessians are computed again */
  PetscCall(MfadEnergyComputeHessian(c->E, c->X, c->A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Recache(void *ctx)
{
  FillCtx *c = (FillCtx *)ctx;

  PetscFunctionBeginUser;
  PetscCall(VecScale(c->X, 1.001));
  PetscCall(MfadEnergyCachedHessianProduct(c->E, c->X, c->V, c->Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

START_TEST(refilling_allocates_nothing)
{
  HFix           f;
  FillCtx        c;
  PetscLogDouble mem, growth;

  TestCall(PetscMallocGetCurrentUsage(&mem));
  ck_assert_msg(mem > 0, "PETSc's tracing allocator is off (run with -malloc_debug): the test cannot see allocations");
  TestCall(HFixCreate("neohookean_tet", &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &c.E));
  TestCall(MfadEnergyCreateVecs(c.E, &c.X, &c.V));
  TestCall(VecDuplicate(c.X, &c.Y));
  TestCall(HFixPoint(&f, 0.03, 5, c.X));
  TestCall(HFixPoint(&f, 1.0, 6, c.V));
  for (int t = 0; t < 3; t++) {
    TestCall(PetscOptionsSetValue(NULL, "-mat_type", mat_types[t]));
    TestCall(MfadEnergyCreateMatrix(c.E, &c.A));
    TestCall(PetscOptionsClearValue(NULL, "-mat_type"));
    TestCall(MfadEnergyComputeHessian(c.E, c.X, c.A)); /* the first fill allocates the values */
    TestCall(PeakGrowth(Refill, &c, &growth));
    ck_assert_msg(growth == 0, "MfadEnergyComputeHessian (%s) allocated: PETSc heap peak %.0f bytes above its size before the call", mat_types[t], growth);
    TestCall(MatDestroy(&c.A));
  }
  TestCall(MfadEnergyCachedHessianProduct(c.E, c.X, c.V, c.Y));
  TestCall(PeakGrowth(Recache, &c, &growth));
  ck_assert_msg(growth == 0, "cache rebuild and product allocated: PETSc heap peak %.0f bytes above its size before", growth);
  TestCall(VecDestroy(&c.X));
  TestCall(VecDestroy(&c.V));
  TestCall(VecDestroy(&c.Y));
  TestCall(MfadEnergyDestroy(&c.E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* eigenvalues of a symmetric matrix (a copy), ascending, and its Frobenius norm */
static double Eigenvalues(int n, const double *H, double *lam)
{
  double A[256], V[256], nrm = 0;
  for (int i = 0; i < n * n; i++) {
    A[i] = H[i];
    nrm += H[i] * H[i];
  }
  (void)mfad_sym_eig_jacobi(n, A, V);
  for (int i = 0; i < n; i++) lam[i] = A[i * n + i];
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      if (lam[j] < lam[i]) {
        double t = lam[i];
        lam[i]   = lam[j];
        lam[j]   = t;
      }
  return sqrt(nrm);
}

START_TEST(psd_projection_of_element_hessians)
{
  MfadKernel nh;
  double     rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 4.0}, p[12], x[12], H[144], Hp[144], value, lam[12], lamp[12], scale;
  double     A[144], V[144], err = 0;

  TestCall(MfadKernelFind("neohookean_tet", &nh));
  ck_assert(!nh->rest(rest, mat, p));
  /* the Jacobi decomposition reproduces its matrix: V diag V^T = H to round-off */
  for (int i = 0; i < 12; i++) x[i] = rest[i] * (i % 3 == 2 ? 0.3 : 1.0); /* compressed 70% along z */
  nh->element(MFAD_MODE_HESSIAN, x, NULL, p, &value, H);
  scale = Eigenvalues(12, H, lam);
  ck_assert_msg(lam[0] < -1e-3 * scale, "the compressed tet should be indefinite: smallest eigenvalue %.3e, |H| %.3e", lam[0], scale);
  for (int i = 0; i < 144; i++) A[i] = H[i];
  (void)mfad_sym_eig_jacobi(12, A, V);
  for (int i = 0; i < 12; i++)
    for (int j = 0; j < 12; j++) {
      double s = 0;
      for (int k = 0; k < 12; k++) s += V[i * 12 + k] * A[k * 12 + k] * V[j * 12 + k];
      err = PetscMax(err, fabs(s - H[i * 12 + j]));
    }
  ck_assert_msg(err <= 1e-13 * scale, "Jacobi: |V L V^T - H|_max = %.3e, |H| %.3e", err, scale);
  /* clamp: eigenvalues >= 0 (to round-off), the positive ones kept */
  for (int i = 0; i < 144; i++) Hp[i] = H[i];
  ck_assert(mfad_psd_project(12, Hp, MFAD_PSD_MODE_CLAMP, 0.0) == 1);
  (void)Eigenvalues(12, Hp, lamp);
  ck_assert_msg(lamp[0] >= -1e-12 * scale, "clamp: smallest eigenvalue %.3e, bound -1e-12 |H| = %.3e", lamp[0], -1e-12 * scale);
  for (int i = 0, j = 0; i < 12; i++)
    if (lam[i] > 1e-8 * scale) {
      while (j < 12 && fabs(lamp[j] - lam[i]) > 1e-12 * scale) j++;
      ck_assert_msg(j < 12, "clamp lost the positive eigenvalue %.6e", lam[i]);
    }
  /* abs: the eigenvalues become |lambda| */
  for (int i = 0; i < 144; i++) Hp[i] = H[i];
  ck_assert(mfad_psd_project(12, Hp, MFAD_PSD_MODE_ABS, 0.0) == 1);
  (void)Eigenvalues(12, Hp, lamp);
  {
    double absl[12];
    for (int i = 0; i < 12; i++) absl[i] = fabs(lam[i]);
    for (int i = 0; i < 12; i++)
      for (int j = i + 1; j < 12; j++)
        if (absl[j] < absl[i]) {
          double t = absl[i];
          absl[i]  = absl[j];
          absl[j]  = t;
        }
    for (int i = 0; i < 12; i++) ck_assert_msg(fabs(lamp[i] - absl[i]) <= 1e-12 * scale, "abs: eigenvalue %d is %.6e, expected %.6e", i, lamp[i], absl[i]);
  }
  /* clamp with epsilon: every eigenvalue >= epsilon */
  for (int i = 0; i < 144; i++) Hp[i] = H[i];
  (void)mfad_psd_project(12, Hp, MFAD_PSD_MODE_CLAMP, 1e-2 * scale);
  (void)Eigenvalues(12, Hp, lamp);
  ck_assert_msg(lamp[0] >= 1e-2 * scale * (1 - 1e-10), "clamp epsilon: smallest eigenvalue %.6e < epsilon %.6e", lamp[0], 1e-2 * scale);
  /* a PSD element (mildly stretched: PSD with the 6 rigid zero modes) is unchanged to round-off */
  for (int i = 0; i < 12; i++) x[i] = rest[i] * 1.05;
  nh->element(MFAD_MODE_HESSIAN, x, NULL, p, &value, H);
  scale = Eigenvalues(12, H, lam);
  ck_assert_msg(lam[0] >= -1e-12 * scale, "the stretched tet should be PSD: smallest eigenvalue %.3e", lam[0]);
  for (int i = 0; i < 144; i++) Hp[i] = H[i];
  (void)mfad_psd_project(12, Hp, MFAD_PSD_MODE_CLAMP, 0.0);
  err = 0;
  for (int i = 0; i < 144; i++) err = PetscMax(err, fabs(Hp[i] - H[i]));
  ck_assert_msg(err <= 1e-13 * scale, "a PSD element changed by %.3e (|H| %.3e)", err, scale);
}
END_TEST

/* -mfad_psd_project on an energy: on a compressed mesh (indefinite element Hessians, see above)
   the projected cached and assembled Hessians agree and are PSD (v^T A v >= 0 for random v) */
/* |V diag(d) V^T - H|_max and |V^T V - I|_max of a decomposition */
static void Residuals(int n, const double *H, const double *V, const double *d, double *rec, double *orth)
{
  *rec = *orth = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double r = 0, o = 0;
      for (int k = 0; k < n; k++) r += V[i * n + k] * d[k] * V[j * n + k], o += V[k * n + i] * V[k * n + j];
      *rec  = PetscMax(*rec, fabs(r - H[i * n + j]));
      *orth = PetscMax(*orth, fabs(o - (i == j)));
    }
}

/* the projection's eigensolver (Householder + QL) against Jacobi, on matrices that stress it:
   element Hessians, clustered and repeated eigenvalues, diagonal, zero, 1 x 1, graded scales */
START_TEST(tridiagonal_ql_matches_jacobi)
{
  MfadKernel nh;
  double     rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 4.0}, p[12], x[12], value;
  double     H[576], A[576], V[576], d[24], e[24], lam[24], lamj[24], rec, orth, scale;
  int        cases = 0;

  TestCall(MfadKernelFind("neohookean_tet", &nh));
  ck_assert(!nh->rest(rest, mat, p));
  for (int c = 0; c < 10; c++) {
    int n = 12;
    switch (c) {
    case 0: /* compressed: indefinite, 6 rigid null modes */
    case 1: /* stretched: PSD */
    case 8: /* compressed at 1e-140 and 1e140: squares near the ends of the double range */
    case 9:
      for (int i = 0; i < 12; i++) x[i] = rest[i] * (c == 1 ? 1.05 : (i % 3 == 2 ? 0.3 : 1.0));
      nh->element(MFAD_MODE_HESSIAN, x, NULL, p, &value, H);
      if (c >= 8)
        for (int i = 0; i < n * n; i++) H[i] *= c == 8 ? 1e-140 : 1e140;
      break;
    case 2: /* diagonal with repeated entries: already tridiagonal, split at once */
      n = 9;
      for (int i = 0; i < n * n; i++) H[i] = 0;
      for (int i = 0; i < n; i++) H[i * n + i] = (double)(i % 3) - 1;
      break;
    case 3: /* zero */
      n = 6;
      for (int i = 0; i < n * n; i++) H[i] = 0;
      break;
    case 4: /* 1 x 1 */
      n    = 1;
      H[0] = -2.5;
      break;
    case 5: /* all ones: eigenvalue n once, 0 n - 1 times */
      n = 24;
      for (int i = 0; i < n * n; i++) H[i] = 1;
      break;
    case 6: /* graded: entries from 1e-8 to 1e8 (a tridiagonal Wilkinson-like matrix) */
      n = 18;
      for (int i = 0; i < n * n; i++) H[i] = 0;
      for (int i = 0; i < n; i++) H[i * n + i] = pow(10.0, 8.0 - 16.0 * i / (n - 1));
      for (int i = 0; i + 1 < n; i++) H[i * n + i + 1] = H[(i + 1) * n + i] = 0.5 * pow(10.0, 8.0 - 16.0 * (i + 0.5) / (n - 1));
      break;
    case 7: /* the 2 x 2 Hilbert-like block tiled: clustered eigenvalues */
      n = 12;
      for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) H[i * n + j] = 1.0 / (1 + i % 4 + j % 4) + (i == j ? 1e-9 * i : 0);
      break;
    }
    scale = 0;
    for (int i = 0; i < n * n; i++) V[i] = H[i], scale = PetscMax(scale, fabs(H[i]));
    ck_assert_msg(mfad_sym_eig_tridiag(n, V, d, e) == 0, "case %d: QL did not converge", c);
    Residuals(n, H, V, d, &rec, &orth);
    ck_assert_msg(rec <= 1e-13 * scale, "case %d: |V diag V^T - H|_max = %.3e, |H|_max %.3e", c, rec, scale);
    ck_assert_msg(orth <= 1e-13, "case %d: |V^T V - I|_max = %.3e", c, orth);
    /* the same eigenvalues as Jacobi's, to round-off of |H| */
    for (int i = 0; i < n * n; i++) A[i] = H[i];
    (void)mfad_sym_eig_jacobi(n, A, V);
    for (int i = 0; i < n; i++) lam[i] = d[i], lamj[i] = A[i * n + i];
    TestCall(PetscSortReal(n, lam));
    TestCall(PetscSortReal(n, lamj));
    for (int i = 0; i < n; i++)
      ck_assert_msg(fabs(lam[i] - lamj[i]) <= 1e-13 * scale, "case %d: eigenvalue %d is %.16e, Jacobi's %.16e", c, i, lam[i], lamj[i]);
    cases++;
  }
  ck_assert_int_eq(cases, 10);
}
END_TEST

/* the rotations' hypot: within 3 ulp of libm's over 40 decades each side, exact at the edges */
START_TEST(psd_hypot_matches_libm)
{
  unsigned long long s = 12345;
  const double       inf = PETSC_INFINITY;

  for (int k = 0; k < 100000; k++) {
    double a, b, h, r;
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    a = ((s >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, (double)(int)((s >> 3) % 601) - 300);
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    b = ((s >> 11) / 9007199254740992.0 - 0.5) * pow(10.0, (double)(int)((s >> 3) % 601) - 300);
    h = hypot(a, b);
    r = mfad_hypot(a, b);
    ck_assert_msg(fabs(r - h) <= 6.7e-16 * h + 1e-323, "mfad_hypot(%.17e, %.17e) = %.17e, hypot %.17e", a, b, r, h);
  }
  ck_assert(mfad_hypot(3e200, -4e200) == hypot(3e200, -4e200));
  ck_assert(mfad_hypot(0.0, -0.0) == 0.0);
  ck_assert(mfad_hypot(inf, 1.0) == inf && mfad_hypot(-1.0, -inf) == inf);
  ck_assert(isnan(mfad_hypot(NAN, 1.0)) && isnan(mfad_hypot(0.0, NAN)) && isnan(mfad_hypot(NAN, 1e-300)));
}
END_TEST

/* the Cholesky shortcut of the projection: it proves definite blocks and nothing else */
START_TEST(cholesky_proves_definite_blocks)
{
  MfadKernel nh;
  double     rest[12] = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}, mat[2] = {1.0, 4.0}, p[12], x[12], value, H[144], Hp[144], L[144], lam[12], scale = 0;

  TestCall(MfadKernelFind("neohookean_tet", &nh));
  ck_assert(!nh->rest(rest, mat, p));
  for (int i = 0; i < 12; i++) x[i] = rest[i] * 1.05; /* stretched: PSD, but singular (rigid modes) */
  nh->element(MFAD_MODE_HESSIAN, x, NULL, p, &value, H);
  for (int i = 0; i < 144; i++) scale = PetscMax(scale, fabs(H[i]));
  ck_assert_msg(!mfad_psd_is_above(12, H, 0.0, L), "a singular Hessian cannot be proven to have eigenvalues >= 0 by a shifted Cholesky");
  for (int i = 0; i < 12; i++) H[i * 12 + i] += 1e-3 * scale; /* now definite, smallest eigenvalue 1e-3 |H| */
  ck_assert_msg(mfad_psd_is_above(12, H, 0.0, L), "H + 1e-3 |H| I is definite");
  ck_assert_msg(mfad_psd_is_above(12, H, 0.9e-3 * scale, L), "every eigenvalue is above 0.9e-3 |H|");
  ck_assert_msg(!mfad_psd_is_above(12, H, 1.1e-3 * scale, L), "the smallest eigenvalue, 1e-3 |H|, is below 1.1e-3 |H|");
  for (int i = 0; i < 144; i++) Hp[i] = H[i];
  ck_assert(mfad_psd_project(12, Hp, MFAD_PSD_MODE_ABS, 0.0) == 0);
  ck_assert_msg(memcmp(H, Hp, sizeof(H)) == 0, "a definite block must be left bitwise untouched");
  ck_assert(mfad_psd_project(12, Hp, MFAD_PSD_MODE_CLAMP, 1.1e-3 * scale) == 1); /* raised to epsilon: changed */
  (void)Eigenvalues(12, Hp, lam);
  ck_assert_msg(lam[0] >= 1.1e-3 * scale * (1 - 1e-10), "clamp epsilon: smallest eigenvalue %.6e", lam[0]);
  H[5] = NAN;
  ck_assert_msg(!mfad_psd_is_above(12, H, 0.0, L), "a NaN block is not proven definite");
}
END_TEST

START_TEST(projected_forms_agree_and_are_psd)
{
  HFix       f;
  MfadEnergy E;
  Mat        A, C;
  Vec        X, V, Y1, Y2;
  PetscReal  rel, minq = PETSC_MAX_REAL, scale;
  PetscInt   n;
  PetscScalar *x, q;

  TestCall(HFixCreate("neohookean_tet", &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(X, &Y1));
  TestCall(VecDuplicate(X, &Y2));
  TestCall(HFixPoint(&f, 0.03, 8, X));
  TestCall(VecGetLocalSize(X, &n));
  TestCall(VecGetArray(X, &x));
  for (PetscInt i = 2; i < n; i += 3) x[i] *= 0.4; /* compress along z: indefinite element Hessians */
  TestCall(VecRestoreArray(X, &x));
  TestCall(MfadEnergySetPSDProjection(E, MFAD_PSD_CLAMP, 0.0));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AIJ, &A));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_CACHED, &C));
  TestCall(MfadHessianSetPoint(A, X));
  TestCall(MfadHessianSetPoint(C, X));
  TestCall(MatNorm(A, NORM_FROBENIUS, &scale));
  for (int s = 0; s < 20; s++) {
    TestCall(HFixPoint(&f, 1.0, 100 + s, V));
    TestCall(VecAXPY(V, -1.0, X)); /* noise only */
    TestCall(MatMult(A, V, Y1));
    TestCall(MatMult(C, V, Y2));
    TestCall(HFixRelDiff(Y2, Y1, &rel));
    ck_assert_msg(rel <= FORMS_RTOL, "projected cached vs assembled differ by %.3e relative", rel);
    TestCall(VecDot(Y1, V, &q));
    TestCall(VecNorm(V, NORM_2, &rel));
    minq = PetscMin(minq, PetscRealPart(q) / (rel * rel));
  }
  ck_assert_msg(minq >= -1e-12 * scale, "projected Hessian: min v^T A v / |v|^2 = %.3e < -1e-12 |A|_F", minq);
  TestCall(MatDestroy(&A));
  TestCall(MatDestroy(&C));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Y1));
  TestCall(VecDestroy(&Y2));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* The projection on SIMD lanes (MfadEnergySetLanes, the default) against one element at a time
   (lanes off): H_F's in the kernels' loops (clamp), the element Hessians' in src/psdlanes.c (abs;
   clamp with an epsilon), on the compressed tets (indefinite) and on a 2-D triangle mesh
   (symmetric Dirichlet, 6 x 6 in element space). Jacobi and QL: equal to round-off of |A|, and
   each projection changed the assembled Hessian. */
START_TEST(projection_on_lanes_equals_one_at_a_time)
{
  const char *const names[] = {"neohookean_tet", "symmetric_dirichlet"};
  for (int k = 0; k < 2; k++)
    for (int mode = 0; mode < 3; mode++) {
      HFix         f;
      MfadEnergy   E;
      Mat          A[3];
      Vec          X, V;
      PetscReal    scale, d, d0;
      PetscInt     n;
      PetscScalar *x;

      TestCall(HFixCreate(names[k], &f));
      TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
      TestCall(MfadEnergyCreateVecs(E, &X, &V));
      TestCall(HFixPoint(&f, 0.03, 8, X));
      TestCall(VecGetLocalSize(X, &n));
      TestCall(VecGetArray(X, &x));
      for (PetscInt i = f.dof - 1; i < n; i += f.dof) x[i] *= 0.4; /* compressed along the last axis: indefinite element Hessians */
      TestCall(VecRestoreArray(X, &x));
      TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AIJ, &A[2])); /* unprojected */
      TestCall(MfadHessianSetPoint(A[2], X));
      TestCall(MatNorm(A[2], NORM_FROBENIUS, &scale));
      TestCall(MfadEnergySetPSDProjection(E, mode == 1 ? MFAD_PSD_ABS : MFAD_PSD_CLAMP, mode == 2 ? 1e-3 * scale : 0.0));
      for (int lanes = 0; lanes < 2; lanes++) {
        Vec Xc; /* the same point in a vector of its own: computed again (the element Hessians' key has no lanes) */
        TestCall(MfadEnergySetLanes(E, (PetscBool)lanes));
        TestCall(VecDuplicate(X, &Xc));
        TestCall(VecCopy(X, Xc));
        TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AIJ, &A[lanes]));
        TestCall(MfadHessianSetPoint(A[lanes], Xc));
        TestCall(VecDestroy(&Xc));
      }
      TestCall(MatAXPY(A[2], -1.0, A[0], SAME_NONZERO_PATTERN));
      TestCall(MatNorm(A[2], NORM_FROBENIUS, &d0));
      TestCall(MatAXPY(A[1], -1.0, A[0], SAME_NONZERO_PATTERN));
      TestCall(MatNorm(A[1], NORM_FROBENIUS, &d));
      ck_assert_msg(d0 > 1e-6 * scale, "%s, projection %d: the projection changed the Hessian by only %.3e of %.3e", names[k], mode, d0, scale);
      ck_assert_msg(d <= 1e-13 * scale, "%s, projection %d: lanes and one at a time differ by %.3e of %.3e", names[k], mode, d, scale);
      for (int i = 0; i < 3; i++) TestCall(MatDestroy(&A[i]));
      TestCall(VecDestroy(&X));
      TestCall(VecDestroy(&V));
      TestCall(MfadEnergyDestroy(&E));
      TestCall(HFixDestroy(&f));
    }
}
END_TEST

/* The assembled and cached forms share element Hessians computed at the same point (a cached
   operator with an assembled preconditioner computes them once): both ways give the fused product. */
START_TEST(assembled_and_cached_share_element_hessians)
{
  HFix       f;
  MfadEnergy E;
  Mat        A;
  Vec        X, V, Yf, Y;
  PetscReal  rel;

  TestCall(HFixCreate("neohookean_tet", &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(X, &Yf));
  TestCall(VecDuplicate(X, &Y));
  TestCall(HFixPoint(&f, 0.03, 20, X));
  TestCall(HFixPoint(&f, 1.0, 21, V));
  TestCall(MfadEnergyCreateMatrix(E, &A));
  for (int pass = 0; pass < 2; pass++) {
    TestCall(MfadEnergyComputeHessianProduct(E, X, V, Yf));
    if (pass == 0) { /* assembled first, then the cache packs the assembled element Hessians */
      TestCall(MfadEnergyComputeHessian(E, X, A));
      TestCall(MfadEnergyCachedHessianProduct(E, X, V, Y));
    } else { /* cached first, then the assembly unpacks the cache */
      TestCall(MfadEnergyComputeHessianCache(E, X));
      TestCall(MfadEnergyComputeHessian(E, X, A));
      TestCall(MatMult(A, V, Y));
    }
    TestCall(HFixRelDiff(Y, Yf, &rel));
    ck_assert_msg(rel <= FORMS_RTOL, "pass %d: product from shared element Hessians differs from the fused one by %.3e relative", pass, rel);
    TestCall(VecScale(X, 1.01)); /* a new point for the next pass */
  }
  TestCall(MatDestroy(&A));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Yf));
  TestCall(VecDestroy(&Y));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* errors: projection with only shells, a matrix of another energy, an unsupported -mat_type */
START_TEST(misuse_is_a_clear_error)
{
  HFix           f;
  MfadEnergy     E, E2;
  SNES           snes;
  Mat            A, B = NULL;
  Vec            X;
  PetscErrorCode ierr;

  TestCall(HFixCreate("mass_spring", &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E2));
  TestCall(MfadEnergyCreateVecs(E, &X, NULL));
  TestCall(HFixPoint(&f, 0.03, 9, X));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_psd_project", "clamp"));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "shell")); /* chosen: mfad's default solver would assemble */
  TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
  ierr = MfadEnergySetSNES(E, snes);
  ck_assert_msg(ierr == PETSC_ERR_ARG_INCOMP, "shell + PSD projection: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_INCOMP);
  TestCall(SNESDestroy(&snes));
  TestCall(PetscOptionsSetValue(NULL, "-mfad_hessian", "cached"));
  TestCall(SNESCreate(PETSC_COMM_SELF, &snes));
  ierr = MfadEnergySetSNES(E, snes);
  ck_assert_msg(ierr == 0, "cached + PSD projection must be accepted (error %d)", (int)ierr);
  TestCall(SNESDestroy(&snes));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_hessian"));
  TestCall(PetscOptionsClearValue(NULL, "-mfad_psd_project"));
  TestCall(MfadEnergySetPSDProjection(E, MFAD_PSD_NONE, 0));
  TestCall(MfadEnergyCreateMatrix(E, &A));
  ierr = MfadEnergyComputeHessian(E2, X, A);
  ck_assert_msg(ierr == PETSC_ERR_ARG_WRONG, "a matrix of another energy: error %d, expected %d", (int)ierr, (int)PETSC_ERR_ARG_WRONG);
  TestCall(PetscOptionsSetValue(NULL, "-mat_type", "dense"));
  ierr = MfadEnergyCreateMatrix(E, &B);
  ck_assert_msg(ierr == PETSC_ERR_SUP, "-mat_type dense: error %d, expected %d", (int)ierr, (int)PETSC_ERR_SUP);
  TestCall(PetscOptionsClearValue(NULL, "-mat_type"));
  TestCall(PetscPopErrorHandler());
  TestCall(MatDestroy(&B));
  TestCall(MatDestroy(&A));
  TestCall(VecDestroy(&X));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(MfadEnergyDestroy(&E2));
  TestCall(HFixDestroy(&f));
}
END_TEST

/* -mfad_hessian auto: an error before the first point; at a point, every product, the diagonal
   and the vertex blocks are those of the exact operator whichever form it holds, through the
   switches that many products at one point cause (at the first point: fused, then a form with
   cheaper products) and at the next point, where the previous point's products decide; with a PSD
   projection it never holds the fused form (nothing to project) and applies the projected operator. */
START_TEST(auto_form_keeps_the_operator)
{
  HFix           f;
  MfadEnergy     E;
  Mat            H, S, C;
  Vec            X, V, Y, Ys, D, Ds;
  PetscReal      rel;
  PetscErrorCode ierr;
  char           text[4096];

  TestCall(HFixCreate(HFixNames[_i], &f));
  TestCall(HFixEnergy(PETSC_COMM_SELF, &f, &E));
  TestCall(MfadEnergyCreateVecs(E, &X, &V));
  TestCall(VecDuplicate(X, &Y));
  TestCall(VecDuplicate(X, &Ys));
  TestCall(VecDuplicate(X, &D));
  TestCall(VecDuplicate(X, &Ds));
  TestCall(HFixPoint(&f, 1.0, 2, V));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AUTO, &H));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_SHELL, &S));
  TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = MatMult(H, V, Y);
  TestCall(PetscPopErrorHandler());
  ck_assert_msg(ierr == PETSC_ERR_ORDER, "%s: a product before the first point: error %d, expected %d", HFixNames[_i], (int)ierr,
                (int)PETSC_ERR_ORDER);
  for (int point = 0; point < 2; point++) {
    TestCall(HFixPoint(&f, 0.03, 1 + point, X));
    TestCall(MfadHessianSetPoint(H, X));
    TestCall(MfadHessianSetPoint(S, X));
    TestCall(MatMult(S, V, Ys));
    TestCall(MatGetDiagonal(S, Ds));
    TestCall(MatGetDiagonal(H, D));
    TestCall(HFixRelDiff(D, Ds, &rel));
    ck_assert_msg(rel <= FORMS_RTOL, "%s: point %d: automatic vs fused diagonal differ by %.3e relative", HFixNames[_i], point, rel);
    for (int k = 0; k < 400; k++) { /* enough for a switch: a cache build is ~10 products */
      TestCall(MatMult(H, V, Y));
      TestCall(HFixRelDiff(Y, Ys, &rel));
      ck_assert_msg(rel <= FORMS_RTOL, "%s: point %d, product %d: automatic vs fused differ by %.3e relative, bound %.0e", HFixNames[_i], point, k,
                    rel, FORMS_RTOL);
    }
    { /* the inverse vertex blocks (point-block Jacobi) from the form it holds now (the assembled
         one on one rank is sbaij, whose blocks PETSc 3.18 does not invert): the fused form's, where
         those are regular (gravity's Hessian is zero: both forms refuse it) */
      const PetscScalar *bh, *bs;
      PetscInt           dof, n;
      PetscReal          d = 0, s = 0;
      PetscErrorCode     es, eh;
      TestCall(MfadEnergyGetSizes(E, &dof, &n, NULL));
      TestCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      es = MatInvertBlockDiagonal(S, &bs);
      eh = MatInvertBlockDiagonal(H, &bh);
      TestCall(PetscPopErrorHandler());
      ck_assert_msg((es == 0) == (eh == 0), "%s: point %d: the fused form's blocks %s, the automatic form's %s", HFixNames[_i], point,
                    es ? "are singular" : "invert", eh ? "are singular" : "invert");
      for (PetscInt i = 0; !es && i < n * dof * dof; i++) {
        d = PetscMax(d, PetscAbsScalar(bh[i] - bs[i]));
        s = PetscMax(s, PetscAbsScalar(bs[i]));
      }
      ck_assert_msg(d <= 1e-10 * s, "%s: point %d: automatic vs fused inverse vertex blocks differ by %.3e of the largest entry", HFixNames[_i],
                    point, s > 0 ? d / s : d);
    }
  }
  { /* what it says it holds: after 400 products of the last point, a Neo-Hookean tet's products
       (an HVP ~27 cached products) must have left the fused form: not a timing bound, a 10x margin */
    char        name[] = "/tmp/mfad_auto_view_XXXXXX";
    int         fd     = mkstemp(name);
    FILE       *fp;
    size_t      len;
    PetscViewer viewer;
    ck_assert(fd >= 0);
    close(fd);
    TestCall(PetscViewerASCIIOpen(PETSC_COMM_SELF, name, &viewer));
    TestCall(MatView(H, viewer));
    TestCall(PetscViewerDestroy(&viewer));
    fp  = fopen(name, "r");
    len = fread(text, 1, sizeof(text) - 1, fp);
    fclose(fp);
    remove(name);
    text[len] = 0;
    ck_assert_msg(strstr(text, "automatic form (-mfad_hessian auto), 2 points"), "%s: MatView of the automatic Hessian says:\n%s", HFixNames[_i],
                  text);
    if (!strcmp(HFixNames[_i], "neohookean_tet"))
      ck_assert_msg(!strstr(text, "now: shell"), "neohookean_tet: still the fused form after 800 products:\n%s", text);
  }
  TestCall(MatDestroy(&H));
  /* projected: the cached projected operator, never the fused form */
  TestCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AUTO, &H));
  TestCall(MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_CACHED, &C));
  TestCall(MfadHessianSetPoint(H, X));
  TestCall(MfadHessianSetPoint(C, X));
  TestCall(MatMult(C, V, Ys));
  for (int k = 0; k < 100; k++) {
    TestCall(MatMult(H, V, Y));
    TestCall(HFixRelDiff(Y, Ys, &rel));
    ck_assert_msg(rel <= FORMS_RTOL, "%s: projected, product %d: automatic vs cached differ by %.3e relative", HFixNames[_i], k, rel);
  }
  TestCall(MatDestroy(&C));
  TestCall(MatDestroy(&H));
  TestCall(MatDestroy(&S));
  TestCall(VecDestroy(&X));
  TestCall(VecDestroy(&V));
  TestCall(VecDestroy(&Y));
  TestCall(VecDestroy(&Ys));
  TestCall(VecDestroy(&D));
  TestCall(VecDestroy(&Ds));
  TestCall(MfadEnergyDestroy(&E));
  TestCall(HFixDestroy(&f));
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("hessian");
  TCase   *tc = tcase_create("forms");
  SRunner *sr;
  int      failed, nargs = argc + 1;
  char   **args;

  /* PETSc's tracing allocator, for refilling_allocates_nothing */
  args = (char **)malloc(sizeof(char *) * (nargs + 1));
  for (int i = 0; i < argc; i++) args[i] = argv[i];
  args[argc]  = (char *)"-malloc_debug";
  args[nargs] = NULL;
  PetscCall(PetscInitialize(&nargs, &args, NULL, NULL));
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, forms_give_the_same_product, 0, HFIX_COUNT);
  tcase_add_loop_test(tc, assembled_equals_dense_reference, 0, HFIX_COUNT);
  tcase_add_loop_test(tc, cached_diagonals_match_the_energy, 0, HFIX_COUNT);
  tcase_add_test(tc, refilling_allocates_nothing);
  tcase_add_test(tc, psd_projection_of_element_hessians);
  tcase_add_test(tc, tridiagonal_ql_matches_jacobi);
  tcase_add_test(tc, psd_hypot_matches_libm);
  tcase_add_test(tc, cholesky_proves_definite_blocks);
  tcase_add_test(tc, projected_forms_agree_and_are_psd);
  tcase_add_test(tc, projection_on_lanes_equals_one_at_a_time);
  tcase_add_test(tc, assembled_and_cached_share_element_hessians);
  tcase_add_test(tc, misuse_is_a_clear_error);
  tcase_add_loop_test(tc, auto_form_keeps_the_operator, 0, HFIX_COUNT);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  PetscCall(PetscFinalize());
  free(args);
  return failed ? 1 : 0;
}
