// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Steady nonlinear advection-diffusion-reaction on the unit square, P1 triangles:\n"
    "    -div((1 + k u^2) grad u) + b . grad u + c u^3 = f,   u = u* on the boundary,\n"
    "with the manufactured solution u*(x, y) = sin(pi x) sin(pi y) + x y and f computed from it in\n"
    "closed form. The element residual is the plain-C file problems/advdiff_tri.c (a system\n"
    "residual, .sum = MFAD_SUM_SYSTEM): mfad sums it into F(u) = 0 and gives SNES its exact,\n"
    "non-symmetric Jacobian (assembled, or as products J v with dual numbers). The grid is n x n\n"
    "squares, each cut into two triangles; every rank holds it whole, owns a band of vertex rows and\n"
    "a contiguous range of the triangles. Newton starts from 0 inside.\n"
    "Options:\n"
    "  -n <16>          squares per side\n"
    "  -b <2,1>         velocity bx,by\n"
    "  -k <1>           nonlinear diffusion: coefficient 1 + k u^2 (k >= 0)\n"
    "  -c <1>           cubic reaction coefficient (c >= 0)\n"
    "  -refine <0>      also solve on 2n, 4n, ... (refine times) and print the observed orders of\n"
    "                   the L2 and max errors between consecutive grids (2 for P1 in L2)\n"
    "  -o <file.vtu>    write u, u_exact and error = u - u* on the (finest) grid\n"
    "Defaults: -mfad_hessian aij (the exact Jacobian assembled), -ksp_type gmres, -pc_type bjacobi\n"
    "(ILU(0) blocks) on an assembled preconditioning matrix and jacobi on a shell one (-mfad_hessian\n"
    "shell: matrix-free exact J v), -ksp_rtol 1e-10; every SNES/KSP/PC and mfad option applies\n"
    "(-snes_test_jacobian, -snes_fd_color, -snes_mf_operator, ...; on large grids -pc_type gamg: ILU(0)\n"
    "needs ~800 GMRES iterations per Newton step at n = 256 on 2 ranks). One summary line per grid: n,\n"
    "triangles, unknowns, l2_error = ||u_h - u*||_L2 (7-point rule per triangle), max_error (at the\n"
    "vertices), u_l2 = ||u_h||_L2, Newton and linear iterations and the reason. Exits non-zero when a\n"
    "solve did not converge.\n\n";

#include "advdiffproblem.h"

typedef struct {
  PetscReal           l2, linf, unorm;
  PetscInt            its, lits;
  SNESConvergedReason reason;
} Result;

/* One solve on the n x n grid; -o written when out is not empty */
static PetscErrorCode Solve(MPI_Comm comm, PetscInt n, const AdvDiffCoefficients *coef, const char out[], Result *res)
{
  AdvDiff   ad;
  Vec       U;
  SNES      snes;
  KSP       ksp;
  PC        pc;
  Mat       P;
  PetscBool shell;

  PetscFunctionBeginUser;
  PetscCall(AdvDiffCreate(comm, n, coef, &ad));
  PetscCall(MfadEnergyCreateVecs(ad.E, &U, NULL));
  PetscCall(AdvDiffInitialGuess(&ad, U));
  /* the exact Jacobian assembled (-mfad_hessian X sets both J and P instead) */
  PetscCall(MfadEnergySetHessianType(ad.E, MFAD_HESSIAN_AIJ, MFAD_HESSIAN_AIJ));
  PetscCall(SNESCreate(comm, &snes));
  PetscCall(MfadEnergySetSNES(ad.E, snes));
  /* an ILU needs entries: a shell preconditioning matrix (-mfad_pmat shell) gets Jacobi from its
     exact diagonal; either is only a default, -pc_type overrides it */
  PetscCall(SNESGetJacobian(snes, NULL, &P, NULL, NULL));
  PetscCall(PetscObjectTypeCompare((PetscObject)P, MATSHELL, &shell));
  PetscCall(SNESGetKSP(snes, &ksp));
  PetscCall(KSPSetType(ksp, KSPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-10, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, shell ? PCJACOBI : PCBJACOBI));
  PetscCall(SNESSetFromOptions(snes));
  PetscCall(SNESSolve(snes, NULL, U));
  PetscCall(SNESGetIterationNumber(snes, &res->its));
  PetscCall(SNESGetLinearSolveIterations(snes, &res->lits));
  PetscCall(SNESGetConvergedReason(snes, &res->reason));
  PetscCall(AdvDiffErrors(&ad, U, &res->l2, &res->linf, &res->unorm));
  PetscCall(PetscPrintf(comm,
                        "advdiff: n %" PetscInt_FMT " triangles %" PetscInt_FMT " unknowns %" PetscInt_FMT
                        " l2_error %.12e max_error %.6e u_l2 %.12e iterations %" PetscInt_FMT " linear_iterations %" PetscInt_FMT " reason %d %s\n",
                        n, ad.mesh->ncell, ad.mesh->nvert, (double)res->l2, (double)res->linf, (double)res->unorm, res->its, res->lits,
                        (int)res->reason, SNESConvergedReasons[res->reason]));
  if (out[0]) PetscCall(AdvDiffWriteVTU(&ad, U, out));
  PetscCall(SNESDestroy(&snes));
  PetscCall(VecDestroy(&U));
  PetscCall(AdvDiffDestroy(&ad));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm            comm;
  PetscInt            n = 16, refine = 0;
  AdvDiffCoefficients coef = {{2, 1}, 1, 1};
  Result              prev = {0}, res;
  PetscBool           write, meshopt;
  char                out[PETSC_MAX_PATH_LEN] = "";
  int                 failed = 0;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Advection-diffusion-reaction options", NULL);
  PetscCall(PetscOptionsInt("-n", "squares per side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-refine", "solve on n, 2n, ... 2^refine n and print the observed orders", NULL, refine, &refine, NULL));
  PetscCall(PetscOptionsString("-o", "write u, u_exact and the error (.vtu)", NULL, out, out, sizeof out, &write));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mesh", &meshopt));
  PetscOptionsEnd();
  /* the manufactured solution, its boundary data and the refinement study are the unit square's */
  PetscCheck(!meshopt, comm, PETSC_ERR_SUP,
             "advdiff solves on its generated -n x -n unit square only; -mesh is not supported (elastic, smooth, param, arap, arap_surface, frames and "
             "sphere read meshes)");
  PetscCall(AdvDiffCoefficientsFromOptions(comm, &coef));
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(refine >= 0 && refine <= 6, comm, PETSC_ERR_ARG_OUTOFRANGE, "-refine %" PetscInt_FMT ": 0 to 6 (each doubles n)", refine);

  for (PetscInt l = 0; l <= refine; l++) {
    const PetscInt nl = n << l;
    PetscCall(Solve(comm, nl, &coef, l == refine ? out : "", &res));
    if (res.reason <= 0) {
      PetscCall(PetscFPrintf(comm, PETSC_STDERR, "advdiff: SNES did not converge on n %" PetscInt_FMT ": %s\n", nl, SNESConvergedReasons[res.reason]));
      failed = 1;
    }
    /* e ~ C h^p: p = log2(e(h) / e(h / 2)) */
    if (l > 0)
      PetscCall(PetscPrintf(comm, "advdiff: refinement n %" PetscInt_FMT " -> %" PetscInt_FMT " l2_order %.4f max_order %.4f\n", nl / 2, nl,
                            (double)PetscLog2Real(prev.l2 / res.l2), (double)PetscLog2Real(prev.linf / res.linf)));
    prev = res;
  }
  PetscCall(PetscFinalize());
  return failed;
}
