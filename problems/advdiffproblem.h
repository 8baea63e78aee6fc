// SPDX-License-Identifier: BSD-2-Clause
/* What petsc-examples/advdiff and bench/residual_pde share: the discretisation of
       -div((1 + k u^2) grad u) + b . grad u + c u^3 = f  on the unit square,  u = u* on the boundary,
   with the manufactured solution u*(x, y) = sin(pi x) sin(pi y) + x y (f in closed form), by P1
   triangles (the element residual problems/advdiff_tri.c) on a structured n x n grid of
   squares, each cut into 2 triangles along the diagonal (0,0)-(1,1). Every rank holds the whole
   generated grid; triangles are split in contiguous ranges, vertices owned in PETSc's default
   split (vertex (i, j) has id j (n + 1) + i: a rank owns a band of rows). */
#ifndef ADVDIFFPROBLEM_H
#define ADVDIFFPROBLEM_H

#include <mfadmesh.h>
#include <mfadpetsc.h>

/* The coefficients of the equation. */
typedef struct {
  PetscReal b[2]; /* velocity */
  PetscReal k;    /* nonlinear diffusion: coefficient 1 + k u^2 */
  PetscReal c;    /* cubic reaction */
} AdvDiffCoefficients;

typedef struct {
  PetscInt            n;              /* squares per side */
  AdvDiffCoefficients coef;           /* the equation */
  MfadMesh            mesh;           /* the whole grid, on every rank (coordinates 2-D) */
  MfadEnergy          E;              /* the system F(u) = sum of the element residuals */
  PetscInt            vstart, vend;   /* this rank's vertices */
  PetscInt            cstart, cend;   /* this rank's triangles */
} AdvDiff;

/* Reads -b, -k, -c (the defaults given) into coef. */
PetscErrorCode AdvDiffCoefficientsFromOptions(MPI_Comm comm, AdvDiffCoefficients *coef);
/* The grid of n x n squares and the system on it, boundary dofs fixed at u*. */
PetscErrorCode AdvDiffCreate(MPI_Comm comm, PetscInt n, const AdvDiffCoefficients *coef, AdvDiff *ad);
PetscErrorCode AdvDiffDestroy(AdvDiff *ad);
/* The start of Newton: 0 inside, u* on the boundary. */
PetscErrorCode AdvDiffInitialGuess(AdvDiff *ad, Vec U);
/* U = u* at the vertices (the interpolant of the exact solution). */
PetscErrorCode AdvDiffInterpolateExact(AdvDiff *ad, Vec U);
/* ||u_h - u*||_L2 (7-point degree-5 rule per triangle), max_vertices |u_h - u*| and ||u_h||_L2. */
PetscErrorCode AdvDiffErrors(AdvDiff *ad, Vec U, PetscReal *l2, PetscReal *linf, PetscReal *unorm);
/* The triangles with point data u, u_exact and error (u - u*), gathered on rank 0, as a VTK
   unstructured grid (ASCII). */
PetscErrorCode AdvDiffWriteVTU(AdvDiff *ad, Vec U, const char path[]);

#endif
