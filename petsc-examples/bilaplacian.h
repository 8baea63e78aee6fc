// SPDX-License-Identifier: BSD-2-Clause
/* Bilaplacian (L^2) fairing for the smooth example (Desbrun, Meyer, Schroeder and Barr 1999,
   "Implicit fairing of irregular meshes using diffusion and curvature flow", SIGGRAPH):
     F(x) = E(x) + lambda B(x),   B(x) = 1/2 sum_{v interior} |(L x)_v|^2 / m_v = 1/2 g^T W g,
   g = L x, W = diag(w), w = 1/m_v at interior vertices and 0 at boundary ones. (L x)_v couples v's
   one-ring, so B is no fixed-size element and is not an mfad kernel: it is composed from mfad's
   exact operators on the Dirichlet energy D (D = 1/2 x^T L x, grad D = L x, H_D = L):
     grad B = L W g (one Hessian product),   H_B v = L W L v (two; exact because D is quadratic).
   E carries the other terms and the fixed dofs, handled as mfad does (src/compute.c): B is
   evaluated with the fixed values in place, so its gradient rows and its Hessian rows and columns
   of fixed dofs are zero (Z L W L Z, Z zeroing them), and E adds x_i - value_i and the identity.
   The Hessian goes to SNES or TAO as a MATSHELL (MatMult: two fused products of D, one of E;
   GetDiagonal: the exact diagonal from L assembled once) or assembled (-bilap_hessian aij:
   lambda Z L W L Z + H_E by PETSc's sparse products, for direct solvers and multigrid);
   -bilap_pmat picks the preconditioning matrix the same way (default: the operator). */
#ifndef BILAPLACIAN_H
#define BILAPLACIAN_H

#include <mfadpetsc.h>

typedef enum { BILAP_HESSIAN_SHELL, BILAP_HESSIAN_AIJ } BilapHessianType;
static const char *const BilapHessianTypes[] = {"shell", "aij", "BilapHessianType", "BILAP_HESSIAN_", NULL};

typedef struct _n_Bilap *Bilap;
struct _n_Bilap {
  MfadEnergy       D, E; /* D: the Dirichlet energy alone, no fixed dofs; E: the rest, with the fixed dofs */
  PetscReal        lambda;
  Vec              w, mask;         /* w: the row weights of W; mask: 0 at fixed dofs, 1 elsewhere (Z) */
  Vec              xt, g, t, u, xp; /* work; xp: the point of the Hessian */
  Vec              diag;            /* diag(lambda Z L W L Z) */
  Mat              A;               /* lambda Z L W L Z + H_E assembled (when asked) */
  BilapHessianType hessian, pmat;
};

/* u <- Z L W L Z v (t, u work: v may be neither) */
PetscErrorCode BilapProduct_Private(Bilap b, Vec v, Vec u);

PetscErrorCode BilapMatMult_Private(Mat H, Vec v, Vec y);

PetscErrorCode BilapMatGetDiagonal_Private(Mat H, Vec d);

/* The diagonal of lambda Z L W L Z (column norms of W^1/2 L, squared) and, when asked, that matrix
   plus H_E assembled. L = H_D is assembled once (D is quadratic: any point) and converted to AIJ,
   whatever -mat_type made it, for PETSc's products. */
PetscErrorCode BilapSetUp_Private(Bilap b);

/* Creates the bilaplacian problem: D the Dirichlet energy alone (weight 1, no fixed dofs), E the
   other terms with the fixed dofs (nfix global dof ids, any rank may name any, as given to
   MfadEnergySetFixedDofs(E)), w the row weights (1/m_v at interior vertices' dofs, 0 at boundary
   ones). Reads -bilap_hessian and -bilap_pmat <shell|aij>. */
PetscErrorCode BilapCreate(MfadEnergy D, MfadEnergy E, PetscReal lambda, Vec w, PetscInt nfix, const PetscInt fixdofs[], Bilap *bilap);

PetscErrorCode BilapDestroy(Bilap *bilap);

/* B at X (fixed values in place) and t = W g, g = L x */
PetscErrorCode BilapEnergy_Private(Bilap b, Vec X, PetscReal *B);

/* F(X) = E(X) + lambda B(X); Bpart (may be NULL) gets B(X) */
PetscErrorCode BilapComputeObjective(Bilap b, Vec X, PetscReal *f, PetscReal *Bpart);

/* f (may be NULL) and G = grad E + lambda Z L W g */
PetscErrorCode BilapComputeObjectiveGradient(Bilap b, Vec X, PetscReal *f, Vec G);

/* The operator and preconditioning matrix the options ask for (new references) */
PetscErrorCode BilapCreateJacobians_Private(Bilap b, Mat *J, Mat *P);

PetscErrorCode BilapSNESObjective_Private(SNES snes, Vec X, PetscReal *f, void *ctx);

PetscErrorCode BilapSNESFunction_Private(SNES snes, Vec X, Vec G, void *ctx);

PetscErrorCode BilapSNESJacobian_Private(SNES snes, Vec X, Mat J, Mat P, void *ctx);

PetscErrorCode BilapTaoObjective_Private(Tao tao, Vec X, PetscReal *f, void *ctx);

PetscErrorCode BilapTaoObjectiveGradient_Private(Tao tao, Vec X, PetscReal *f, Vec G, void *ctx);

/* TAO's Newton methods choose a factorisation (ILU, block Jacobi) when they create their KSP, which
   a shell cannot give: Jacobi then, unless -pc_type (with the PC's prefix) was given */
PetscErrorCode BilapTaoHessian_Private(Tao tao, Vec X, Mat J, Mat P, void *ctx);

/* Wires the problem into a SNES (GeomSetSNESFn): function = gradient, objective = F, Jacobian =
   -bilap_hessian, preconditioning matrix = -bilap_pmat */
PetscErrorCode BilapSetSNES(void *ctx, SNES snes);

/* Wires the problem into a TAO (GeomSetTaoFn): objective, gradient, Hessian as for SNES */
PetscErrorCode BilapSetTao(void *ctx, Tao tao);

#endif /* BILAPLACIAN_H */
