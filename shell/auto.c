// SPDX-License-Identifier: BSD-2-Clause
/* -mfad_hessian auto: a MATSHELL that holds the fused (shell), cached and assembled (aij) forms and
   at each point (each Newton step) brings only one of them to the point: the one whose predicted
   cost over the step is lowest,
     cost(form) = creation (aij's pattern, once) + point (build, diagonal, blocks) + k * product,
   k the number of products at the previous point (the previous step's Krylov iterations).
   Every figure is measured on this mesh as soon as the form has been used; before that it comes
   from the others through ratios measured by bench/bench_hessian_forms on Neo-Hookean tets (a
   cache build ~8 fused HVPs, an assembly 1.2 cache builds, COO set-up 1.8, a cached product 1/27
   of a cache build, an SpMV 1/66). A wrong guess costs one step, after which the form's own
   figures decide. The predictions are reduced over the ranks (max), so every rank chooses alike. */
#include "shellimpl.h"
#include <petsctime.h>

#define MFAD_AUTO_COOKIE 0x6d666175 /* "mfau": the context is an MfadAuto */
#define MFAD_AUTO_FORMS  3          /* shell, cached, aij: MfadHessianType's first three */

typedef struct {
  int            cookie;
  MfadEnergy     E;
  Vec            X;
  Mat            form[MFAD_AUTO_FORMS]; /* made on first use */
  PetscInt       cur;                   /* the form at this point; -1 before the first point */
  PetscBool      projected;             /* a PSD projection is in use at this point */
  PetscInt       points, products;      /* points so far; products at this point */
  PetscInt       last_products;         /* products at the previous point; -1 before it */
  PetscLogDouble t_point_now;           /* this point's set-up so far (build, diagonal, blocks) */
  /* measurements: per point, indexed [projected][form]; per product and creation, [form] */
  PetscLogDouble t_point[2][MFAD_AUTO_FORMS], t_mult[MFAD_AUTO_FORMS], t_create[MFAD_AUTO_FORMS];
  PetscLogDouble t_point_min[2][MFAD_AUTO_FORMS]; /* what predicts: a busy machine only slows down */
  PetscInt       n_point[2][MFAD_AUTO_FORMS], n_mult[MFAD_AUTO_FORMS];
  PetscInt       chosen[MFAD_AUTO_FORMS];  /* points at which each form was used */
  PetscBool      allowed[MFAD_AUTO_FORMS]; /* at this point */
  PetscInt       switch_at, switch_to;     /* within a point: after switch_at products, switch_to (-1: not planned yet) */
  PetscInt       switches;                 /* switches within points */
  PetscScalar   *invblocks;                /* the inverse diagonal blocks of a form PETSc inverts none of (sbaij) */
} MfadAuto;

/* the measured ratios of the header comment, relative to one pass of element Hessians */
static const double MfadAutoPointRatio[MFAD_AUTO_FORMS] = {0.25, 1.0, 1.2};              /* shell: its diagonal */
static const double MfadAutoMultRatio[MFAD_AUTO_FORMS]  = {1.0 / 8, 1.0 / 27, 1.0 / 66}; /* per product */
static const double MfadAutoCreateRatio                 = 1.8;                           /* aij's COO pattern */

PetscErrorCode MfadHessianIsAuto_Private(Mat H, PetscBool *isauto)
{
  PetscBool shell;
  void     *ctx = NULL;

  PetscFunctionBegin;
  *isauto = PETSC_FALSE;
  PetscCall(PetscObjectTypeCompare((PetscObject)H, MATSHELL, &shell));
  if (shell) PetscCall(MatShellGetContext(H, &ctx));
  if (ctx && ((MfadAuto *)ctx)->cookie == MFAD_AUTO_COOKIE) *isauto = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadAutoGetContext_Private(Mat H, MfadAuto **a)
{
  PetscBool isauto;

  PetscFunctionBegin;
  PetscCall(MfadHessianIsAuto_Private(H, &isauto));
  PetscCheck(isauto, PetscObjectComm((PetscObject)H), PETSC_ERR_ARG_WRONG,
             "not an mfad automatic Hessian (MfadEnergyCreateHessianMat(E, MFAD_HESSIAN_AUTO, &H))");
  PetscCall(MatShellGetContext(H, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the form in use; an operation before the first point is an error, not a product at zero */
static PetscErrorCode MfadAutoCurrent_Private(Mat H, const char op[], MfadAuto **a)
{
  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, a));
  PetscCheck((*a)->cur >= 0, PetscObjectComm((PetscObject)H), PETSC_ERR_ORDER,
             "mfad automatic Hessian: %s before the first point: call MfadHessianSetPoint() (SNES and TAO do)", op);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Makes form f, timed as its creation. The assembled form is applied and read for its (block)
   diagonal, never factored: its format is the one with the faster product, sbaij on one rank and
   baij on several (block size dof), filled in place as fast as aij (MfadEnergyGetOperatorMatType_Private();
   -mat_type's where given). It was aij while PETSc's COO filled baij ~4x slower (65 against 15 ms at 21k tets). */
static PetscErrorCode MfadAutoCreateForm_Private(MfadAuto *a, PetscInt f)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  if (f == MFAD_HESSIAN_AIJ) PetscCall(MfadEnergyCreateOperatorMat_Private(a->E, &a->form[f]));
  else PetscCall(MfadEnergyCreateHessianMat(a->E, (MfadHessianType)f, &a->form[f]));
  PetscCall(PetscTime(&t1));
  a->t_create[f] = t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* this point's cost, to the form in use */
static void MfadAutoClosePoint_Private(MfadAuto *a)
{
  const PetscInt p = a->projected, f = a->cur;

  a->t_point_min[p][f] = a->n_point[p][f] ? PetscMin(a->t_point_min[p][f], a->t_point_now) : a->t_point_now;
  a->t_point[p][f] += a->t_point_now;
  a->n_point[p][f]++;
}

/* Within a point, products may outnumber the previous point's (the first point has none to go by):
   the form in use may then lose to one with cheaper products. Like renting skis until the rent
   paid equals the price: after as many products as the cheapest such form's making and point cost
   (in products of this form), switch to it; at worst twice the best cost, at best no loss. The
   forms allowed at a point give the same operator, so a Krylov solve may go on across the switch.
   Planned after the point's first product (this form's product then measured); collective. */
static void MfadAutoEstimate_Private(MfadAuto *a, double create[], double point[], double mult[]);

static PetscErrorCode MfadAutoPlanSwitch_Private(Mat H, MfadAuto *a)
{
  double est[3 * MFAD_AUTO_FORMS], *create = est, *point = est + MFAD_AUTO_FORMS, *mult = est + 2 * MFAD_AUTO_FORMS, buy = PETSC_MAX_REAL;

  PetscFunctionBegin;
  MfadAutoEstimate_Private(a, create, point, mult);
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, est, 3 * MFAD_AUTO_FORMS, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)H)));
  a->switch_to = -1;
  a->switch_at = PETSC_MAX_INT;
  for (PetscInt g = 0; g < MFAD_AUTO_FORMS; g++)
    if (a->allowed[g] && g != a->cur && mult[g] < mult[a->cur] && create[g] + point[g] < buy) {
      buy          = create[g] + point[g];
      a->switch_to = g;
    }
  if (a->switch_to >= 0 && mult[a->cur] > 0.0)
    a->switch_at = a->products - 1 + (PetscInt)PetscMin(PetscCeilReal(buy / mult[a->cur]), (double)(PETSC_MAX_INT / 2));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadAutoSwitch_Private(Mat H, MfadAuto *a)
{
  const PetscInt g = a->switch_to;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscInfo(H, "mfad auto: point %" PetscInt_FMT ": %s -> %s after %" PetscInt_FMT " products\n", a->points - 1, MfadHessianTypes[a->cur],
                      MfadHessianTypes[g], a->products));
  MfadAutoClosePoint_Private(a);
  if (!a->form[g]) PetscCall(MfadAutoCreateForm_Private(a, g));
  PetscCall(PetscTime(&t0));
  PetscCall(MfadHessianSetPoint(a->form[g], a->X));
  PetscCall(PetscTime(&t1));
  a->t_point_now = t1 - t0;
  a->cur         = g;
  a->switch_at   = -1;
  a->switches++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadAutoMult_Private(Mat H, Vec V, Vec Y)
{
  MfadAuto      *a;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(MfadAutoCurrent_Private(H, "MatMult", &a));
  PetscCall(PetscTime(&t0));
  PetscCall(MatMult(a->form[a->cur], V, Y));
  PetscCall(PetscTime(&t1));
  a->t_mult[a->cur] += t1 - t0;
  a->n_mult[a->cur]++;
  a->products++;
  if (a->switch_at < 0) PetscCall(MfadAutoPlanSwitch_Private(H, a));
  if (a->products >= a->switch_at) PetscCall(MfadAutoSwitch_Private(H, a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadAutoMultTranspose_Private(Mat H, Vec V, Vec Y)
{
  MfadAuto *a;

  PetscFunctionBegin;
  PetscCall(MfadAutoCurrent_Private(H, "MatMultTranspose", &a));
  PetscCall(MatMultTranspose(a->form[a->cur], V, Y));
  a->products++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* the diagonal and the blocks are part of a point's cost: a shell's cost an element-Hessian pass,
   a cached form's come from its cache */
static PetscErrorCode MfadAutoGetDiagonal_Private(Mat H, Vec D)
{
  MfadAuto      *a;
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(MfadAutoCurrent_Private(H, "MatGetDiagonal", &a));
  PetscCall(PetscTime(&t0));
  PetscCall(MatGetDiagonal(a->form[a->cur], D));
  PetscCall(PetscTime(&t1));
  a->t_point_now += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The inverse diagonal blocks of a form PETSc has no MatInvertBlockDiagonal() for: sbaij (PETSc
   3.18; the assembled form's format on one rank, MfadEnergyGetOperatorMatType_Private()). Each
   block by MatGetValues(), its upper triangle mirrored (sbaij keeps the upper entries), inverted as
   the shell form's are */
static PetscErrorCode MfadAutoFormInvertBlocks_Private(MfadAuto *a, Mat A, const PetscScalar **values)
{
  PetscInt dof, n, rstart, *idx;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetSizes(a->E, &dof, &n, NULL));
  PetscCall(MatGetOwnershipRange(A, &rstart, NULL));
  if (!a->invblocks) PetscCall(PetscMalloc1((size_t)n * dof * dof, &a->invblocks));
  PetscCall(PetscMalloc1(dof, &idx));
  for (PetscInt v = 0; v < n; v++) {
    PetscScalar *b = a->invblocks + (size_t)v * dof * dof;
    for (PetscInt d = 0; d < dof; d++) idx[d] = rstart + v * dof + d;
    PetscCall(MatGetValues(A, dof, idx, dof, idx, b));
    for (PetscInt i = 1; i < dof; i++)
      for (PetscInt j = 0; j < i; j++) b[i * dof + j] = b[j * dof + i];
  }
  PetscCall(PetscFree(idx));
  PetscCall(MfadInvertBlocks_Private(A, n, dof, a->invblocks));
  *values = a->invblocks;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadAutoInvertBlockDiagonal_Private(Mat H, const PetscScalar **values)
{
  MfadAuto      *a;
  PetscLogDouble t0, t1;
  PetscBool      has;

  PetscFunctionBegin;
  PetscCall(MfadAutoCurrent_Private(H, "MatInvertBlockDiagonal", &a));
  PetscCall(PetscTime(&t0));
  PetscCall(MatHasOperation(a->form[a->cur], MATOP_INVERT_BLOCK_DIAGONAL, &has));
  if (has) PetscCall(MatInvertBlockDiagonal(a->form[a->cur], values));
  else PetscCall(MfadAutoFormInvertBlocks_Private(a, a->form[a->cur], values));
  PetscCall(PetscTime(&t1));
  a->t_point_now += t1 - t0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One element-Hessian pass on this mesh, in seconds, from whatever has been measured (0: nothing) */
static double MfadAutoHessianPass_Private(MfadAuto *a)
{
  const PetscInt p = a->projected, q = !a->projected;

  for (PetscInt f = MFAD_HESSIAN_CACHED; f <= MFAD_HESSIAN_AIJ; f++)
    if (a->n_point[p][f]) return a->t_point_min[p][f] / MfadAutoPointRatio[f];
  if (!a->projected && a->n_mult[MFAD_HESSIAN_SHELL])
    return a->t_mult[MFAD_HESSIAN_SHELL] / a->n_mult[MFAD_HESSIAN_SHELL] / MfadAutoMultRatio[MFAD_HESSIAN_SHELL];
  for (PetscInt f = MFAD_HESSIAN_CACHED; f <= MFAD_HESSIAN_AIJ; f++) /* the other projection state's: a guess still */
    if (a->n_point[q][f]) return a->t_point_min[q][f] / MfadAutoPointRatio[f];
  if (a->n_mult[MFAD_HESSIAN_SHELL]) return a->t_mult[MFAD_HESSIAN_SHELL] / a->n_mult[MFAD_HESSIAN_SHELL] / MfadAutoMultRatio[MFAD_HESSIAN_SHELL];
  return 0.0;
}

/* Estimated seconds of each form here: creation (aij's pattern, once), a point, a product */
static void MfadAutoEstimate_Private(MfadAuto *a, double create[], double point[], double mult[])
{
  const double   pass = MfadAutoHessianPass_Private(a);
  const PetscInt p    = a->projected;

  for (PetscInt f = 0; f < MFAD_AUTO_FORMS; f++) {
    point[f]  = a->n_point[p][f] ? a->t_point_min[p][f] : MfadAutoPointRatio[f] * pass;
    mult[f]   = a->n_mult[f] ? a->t_mult[f] / a->n_mult[f] : MfadAutoMultRatio[f] * pass;
    create[f] = (f == MFAD_HESSIAN_AIJ && !a->form[f]) ? MfadAutoCreateRatio * pass : 0.0;
  }
}

/* Chooses the form of the coming point: collective */
static PetscErrorCode MfadAutoChoose_Private(Mat H, MfadAuto *a, PetscInt *choice)
{
  PetscBool        *allowed = a->allowed, sym;
  double            cost[MFAD_AUTO_FORMS], best = PETSC_MAX_REAL;
  MfadPSDProjection psd;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetPSDProjectionInUse_Private(a->E, &psd));
  PetscCall(MfadEnergyIsSymmetric(a->E, &sym));
  a->projected                 = (PetscBool)(psd != MFAD_PSD_NONE);
  allowed[MFAD_HESSIAN_SHELL]  = (PetscBool)!a->projected; /* the fused HVP has nothing to project */
  allowed[MFAD_HESSIAN_CACHED] = sym;                      /* the cache is packed symmetric */
  allowed[MFAD_HESSIAN_AIJ]    = PETSC_TRUE;
  *choice                      = -1;
  if (a->last_products < 0) { /* the first point: nothing measured, no step to learn from */
    for (PetscInt f = 0; f < MFAD_AUTO_FORMS && *choice < 0; f++)
      if (allowed[f]) *choice = f;
    PetscCall(PetscInfo(H, "mfad auto: point 0: %s (first point, nothing measured yet)\n", MfadHessianTypes[*choice]));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  {
    double         create[MFAD_AUTO_FORMS], point[MFAD_AUTO_FORMS], mult[MFAD_AUTO_FORMS];
    const PetscInt k = a->last_products;
    MfadAutoEstimate_Private(a, create, point, mult);
    for (PetscInt f = 0; f < MFAD_AUTO_FORMS; f++) cost[f] = allowed[f] ? create[f] + point[f] + (double)k * mult[f] : -1.0;
  }
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, cost, MFAD_AUTO_FORMS, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)H)));
  for (PetscInt f = 0; f < MFAD_AUTO_FORMS; f++)
    if (cost[f] >= 0.0 && cost[f] < best) {
      best    = cost[f];
      *choice = f;
    }
  PetscCall(PetscInfo(H,
                      "mfad auto: point %" PetscInt_FMT ": %s for %" PetscInt_FMT
                      " products (the previous point's); predicted ms: shell %.3g, cached %.3g, aij %.3g (-1: not allowed%s)\n",
                      a->points, MfadHessianTypes[*choice], a->last_products, 1e3 * cost[0], 1e3 * cost[1], 1e3 * cost[2],
                      a->projected ? ", PSD projection in use" : ""));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Brings the automatic Hessian to X: closes the previous point's figures, chooses, makes the form
   if it is new (timed as its creation) and brings it to X (timed as this point's cost). */
PetscErrorCode MfadAutoSetPoint_Private(Mat H, Vec X)
{
  MfadAuto      *a;
  PetscInt       f = -1; /* MfadAutoChoose_Private() always sets it (aij is always allowed) */
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(MfadAutoGetContext_Private(H, &a));
  if (a->cur >= 0) {
    MfadAutoClosePoint_Private(a);
    a->last_products = a->products;
  }
  PetscCall(MfadAutoChoose_Private(H, a, &f));
  PetscCall(VecCopy(X, a->X));
  if (!a->form[f]) PetscCall(MfadAutoCreateForm_Private(a, f));
  PetscCall(PetscTime(&t0));
  PetscCall(MfadHessianSetPoint(a->form[f], a->X));
  PetscCall(PetscTime(&t1));
  a->t_point_now = t1 - t0;
  a->cur         = f;
  a->products    = 0;
  a->switch_at   = -1;
  a->chosen[f]++;
  a->points++;
  PetscCall(MatAssemblyBegin(H, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(H, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadAutoGetPoint_Private(Mat H, Vec *X)
{
  MfadAuto *a;

  PetscFunctionBegin;
  PetscCall(MfadAutoGetContext_Private(H, &a));
  *X = a->X;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The form at this point ("shell", "cached", "aij"; "none" before the first) */
PetscErrorCode MfadAutoGetFormName_Private(Mat H, const char **name)
{
  MfadAuto *a;

  PetscFunctionBegin;
  PetscCall(MfadAutoGetContext_Private(H, &a));
  *name = a->cur >= 0 ? MfadHessianTypes[a->cur] : "none";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What was chosen and what each form cost on this mesh (figures averaged over this process's
   points; rank 0's printed) */
static PetscErrorCode MfadAutoView_Private(Mat H, PetscViewer viewer)
{
  MfadAuto *a;
  PetscBool ascii;

  PetscFunctionBegin;
  PetscCall(MatShellGetContext(H, &a));
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &ascii));
  if (!ascii) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer,
                                   "mfad Hessian: automatic form (-mfad_hessian auto), %" PetscInt_FMT " points: shell %" PetscInt_FMT
                                   ", cached %" PetscInt_FMT ", aij %" PetscInt_FMT "\n",
                                   a->points, a->chosen[0], a->chosen[1], a->chosen[2]));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (PetscInt f = 0; f < MFAD_AUTO_FORMS; f++) {
    const PetscInt np = a->n_point[0][f] + a->n_point[1][f];
    if (!a->form[f]) continue;
    PetscCall(PetscViewerASCIIPrintf(viewer,
                                     "%-6s: %.3g ms per point (%" PetscInt_FMT " closed), %.3g ms per product (%" PetscInt_FMT "), made in %.3g ms\n",
                                     MfadHessianTypes[f], np ? 1e3 * (a->t_point[0][f] + a->t_point[1][f]) / np : 0.0, np,
                                     a->n_mult[f] ? 1e3 * a->t_mult[f] / a->n_mult[f] : 0.0, a->n_mult[f], 1e3 * a->t_create[f]));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "switches within a point: %" PetscInt_FMT "\n", a->switches));
  if (a->cur >= 0)
    PetscCall(PetscViewerASCIIPrintf(viewer, "now: %s, %" PetscInt_FMT " products at this point\n", MfadHessianTypes[a->cur], a->products));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -mfad_view: the energy is viewed at its first evaluation, before anything is chosen; what auto
   chose is told when the solver lets the Hessian go */
static PetscErrorCode MfadAutoDestroy_Private(void *ctx)
{
  MfadAuto   *a = (MfadAuto *)MfadCtxDestroyArg(ctx);
  const char *prefix;
  PetscBool   view = PETSC_FALSE;
  MPI_Comm    comm;

  PetscFunctionBegin;
  PetscCall(MfadEnergyGetOptionsPrefix(a->E, &prefix));
  PetscCall(MfadEnergyGetComm(a->E, &comm));
  PetscCall(PetscOptionsHasName(NULL, prefix, "-mfad_view", &view));
  if (view && a->points) {
    PetscCall(PetscPrintf(comm,
                          "mfad Hessian: automatic form (-mfad_hessian auto), %" PetscInt_FMT " points: shell %" PetscInt_FMT
                          ", cached %" PetscInt_FMT ", aij %" PetscInt_FMT "; %" PetscInt_FMT " switches within a point\n",
                          a->points, a->chosen[0], a->chosen[1], a->chosen[2], a->switches));
  }
  for (PetscInt f = 0; f < MFAD_AUTO_FORMS; f++) PetscCall(MatDestroy(&a->form[f]));
  PetscCall(VecDestroy(&a->X));
  PetscCall(MfadEnergyDestroy(&a->E));
  PetscCall(PetscFree(a->invblocks));
  PetscCall(PetscFree(a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadEnergyCreateHessianAuto(MfadEnergy E, Mat *H)
{
  MfadAuto *a;
  MPI_Comm  comm;
  PetscInt  dof, n, N;
  PetscBool sym;

  PetscFunctionBegin;
  MfadValidPointer(H, 2);
  PetscCall(MfadEnergyGetComm(E, &comm));
  PetscCall(MfadEnergyGetSizes(E, &dof, &n, &N));
  PetscCall(PetscNew(&a));
  PetscCall(MfadEnergyReference(E));
  a->cookie        = MFAD_AUTO_COOKIE;
  a->E             = E;
  a->cur           = -1;
  a->last_products = -1;
  PetscCall(MfadEnergyCreateVecs(E, &a->X, NULL));
  PetscCall(MatCreateShell(comm, n * dof, n * dof, N * dof, N * dof, a, H));
  PetscCall(MatShellSetContextDestroy(*H, MfadAutoDestroy_Private));
  PetscCall(MatSetBlockSize(*H, dof));
  PetscCall(MfadEnergyIsSymmetric(E, &sym));
  PetscCall(MatSetOption(*H, MAT_SYMMETRIC, sym));
  PetscCall(MatSetOption(*H, MAT_SYMMETRY_ETERNAL, PETSC_TRUE));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT, (void (*)(void))MfadAutoMult_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_MULT_TRANSPOSE, (void (*)(void))MfadAutoMultTranspose_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_GET_DIAGONAL, (void (*)(void))MfadAutoGetDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_INVERT_BLOCK_DIAGONAL, (void (*)(void))MfadAutoInvertBlockDiagonal_Private));
  PetscCall(MatShellSetOperation(*H, MATOP_VIEW, (void (*)(void))MfadAutoView_Private));
  PetscCall(MatSetUp(*H));
  PetscFunctionReturn(PETSC_SUCCESS);
}
