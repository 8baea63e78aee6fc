// SPDX-License-Identifier: BSD-2-Clause
/* What the geometry examples (param, smooth, arap) share: a generated disk-topology triangle mesh
   (a grid over a rectangle, lifted onto a surface z = f(x, y)), the split of its triangles over
   the ranks, its boundary, and the gathering of a distributed solution for per-triangle measures.
   Every rank holds the whole (small, generated) mesh; elements are split in contiguous ranges and
   vertices are owned in PETSc's PETSC_DECIDE layout, as a file reader plus a partitioner would
   leave them. */
#ifndef GEOMMESH_H
#define GEOMMESH_H

#include <mfadmesh.h>
#include <mfadpetsc.h>
#include <math.h>
#include <string.h>
#include <strings.h>

/* The surfaces z = f(x, y) a grid can be lifted to. */
typedef enum { GEOM_PLANE, GEOM_CAP, GEOM_HAT } GeomSurface;
static const char *const GeomSurfaces[] = {"plane", "cap", "hat", "GeomSurface", "GEOM_", NULL};

/* plane: 0; cap: the sphere of radius 2 through the origin's column, z = sqrt(4 - r^2) - sqrt(2);
   hat: a Gaussian bump 0.5 exp(-2 r^2) */
static inline PetscReal GeomSurfaceHeight(GeomSurface s, PetscReal x, PetscReal y)
{
  switch (s) {
  case GEOM_CAP:
    return PetscSqrtReal(4.0 - x * x - y * y) - PetscSqrtReal(2.0);
  case GEOM_HAT:
    return 0.5 * PetscExpReal(-2.0 * (x * x + y * y));
  default:
    return 0.0;
  }
}

/* An nx x ny grid of squares over [x0, x0 + w] x [y0, y0 + h], each split into 2 triangles
   (counter-clockwise seen from +z), vertex (i, j) with id j (nx + 1) + i, at height f(x, y). */
PetscErrorCode GeomMeshGrid(PetscInt nx, PetscInt ny, PetscReal x0, PetscReal y0, PetscReal w, PetscReal h, GeomSurface s, MfadMesh *mesh);

/* This rank's contiguous range [cstart, cend) of the mesh's cells and [vstart, vend) of its
   vertices (PETSC_DECIDE splits of both). */
PetscErrorCode GeomMeshRanges(MPI_Comm comm, MfadMesh m, PetscInt *cstart, PetscInt *cend, PetscInt *vstart, PetscInt *vend);

/* A copy of the whole distributed vector X on every rank (for per-triangle measures of small
   meshes); restore with GeomRestoreAll() */
PetscErrorCode GeomGetAll(Vec X, Vec *Xall, const PetscScalar **x);

PetscErrorCode GeomRestoreAll(Vec *Xall, const PetscScalar **x);

/* The 2 x 2 map J = Ds Dm^{-1} of a planar image x (x0, y0, x1, y1, x2, y2) of the rest triangle r
   (3-D, 9 coordinates), Dm in an orthonormal frame of r's plane; returns the rest area */
static inline PetscReal GeomTriangleMap(const PetscReal r[9], const PetscReal x[6], PetscReal J[4])
{
  PetscReal e1[3], e2[3], l1 = 0, dot = 0, a, b, d, c2 = 0, Ds[4];
  for (int i = 0; i < 3; i++) e1[i] = r[3 + i] - r[i], e2[i] = r[6 + i] - r[i];
  for (int i = 0; i < 3; i++) {
    const PetscReal c = e1[(i + 1) % 3] * e2[(i + 2) % 3] - e1[(i + 2) % 3] * e2[(i + 1) % 3];
    l1 += e1[i] * e1[i], dot += e1[i] * e2[i], c2 += c * c;
  }
  a     = PetscSqrtReal(l1);
  b     = dot / a;
  d     = PetscSqrtReal(c2) / a; /* Dm = [a b; 0 d], Dm^{-1} = [1/a, -b/(a d); 0, 1/d] */
  Ds[0] = x[2] - x[0], Ds[1] = x[4] - x[0], Ds[2] = x[3] - x[1], Ds[3] = x[5] - x[1];
  J[0] = Ds[0] / a, J[1] = -Ds[0] * b / (a * d) + Ds[1] / d;
  J[2] = Ds[2] / a, J[3] = -Ds[2] * b / (a * d) + Ds[3] / d;
  return 0.5 * a * d;
}

/* singular values s1 >= s2 (signed: s2 < 0 when det J < 0) of a 2 x 2 J */
static inline void GeomSingularValues(const PetscReal J[4], PetscReal *s1, PetscReal *s2)
{
  const PetscReal q = PetscSqrtReal((J[0] + J[3]) * (J[0] + J[3]) + (J[2] - J[1]) * (J[2] - J[1]));
  const PetscReal w = PetscSqrtReal((J[0] - J[3]) * (J[0] - J[3]) + (J[2] + J[1]) * (J[2] + J[1]));
  *s1               = 0.5 * (q + w);
  *s2               = 0.5 * (q - w);
}

/* a seeded uniform random number in [-1, 1) (xorshift64): the same on every rank and run */
static inline PetscReal GeomRandom(unsigned long long *state)
{
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return 2.0 * (PetscReal)(*state >> 11) / 9007199254740992.0 - 1.0;
}

/* How a problem is handed to a solver: an MfadEnergy through MfadEnergySetSNES()/MfadEnergySetTao()
   (GeomMinimize), or a composite objective through its own callbacks (bilaplacian.h) */
typedef PetscErrorCode (*GeomSetSNESFn)(void *ctx, SNES snes);
typedef PetscErrorCode (*GeomSetTaoFn)(void *ctx, Tao tao);

/* Minimises the problem `ctx` from X in place: TAO (nls) with -use_tao, else SNES, each wired by
   its setter; Krylov defaults CG + Jacobi (the Hessians here are symmetric; the SNES setter, then
   the command line, may change them), `ksp_rtol` > 0 tightens CG, `max_it` > 0 sets the Newton
   steps allowed (all set in code before SetFromOptions(): options override them). Returns the
   iterations and the converged reason (number and name) for the summary line. */
PetscErrorCode GeomMinimizeProblem(MPI_Comm comm, void *ctx, GeomSetSNESFn setsnes, GeomSetTaoFn settao, Vec X, PetscBool use_tao, PetscReal ksp_rtol,
                                   PetscInt max_it, PetscInt *its, PetscInt *reason, const char **reason_name);

PetscErrorCode GeomSetSNES_Energy(void *E, SNES snes);

PetscErrorCode GeomSetTao_Energy(void *E, Tao tao);

/* Minimises the energy E from X in place (GeomMinimizeProblem() with mfad's own SNES/TAO glue) */
PetscErrorCode GeomMinimize(MPI_Comm comm, MfadEnergy E, Vec X, PetscBool use_tao, PetscReal ksp_rtol, PetscInt max_it, PetscInt *its,
                            PetscInt *reason, const char **reason_name);

/* A triangle surface in 3-D read from a file, whole on the calling rank (the examples' meshes are
   small): .obj and .off by MfadMeshRead(), Gmsh (.msh), .ply and DMPlex's other formats through
   MfadDMPlexCreateFromFile() on PETSC_COMM_SELF; checked to be a manifold (MfadMeshCheckManifold()) */
PetscErrorCode GeomMeshRead(const char path[], MfadMesh *mesh);

#endif /* GEOMMESH_H */
