// SPDX-License-Identifier: BSD-2-Clause
/* Contact for the examples' time steppers (cloth.c, drop.c): the self-contact of a triangle surface
   (MfadEnergyAddContact(): IPC barrier terms on the pairs closer than dhat, detected at each Newton
   step, every line-search step capped before a pair could pass through) and a fixed sphere as an
   obstacle (ipc_point_sphere, whose declared wall caps the steps too). SNES's round-off stop and the
   pre-check are the library's (MfadEnergySetSNES()). The surface of this rank is given as for
   MfadContactSetSurface(): its vertices (global ids, owned and the others its triangles and edges
   touch), triangles, edges and points, each on one rank only. */
#ifndef MFAD_EXAMPLES_CONTACTSTEP_H
#define MFAD_EXAMPLES_CONTACTSTEP_H
#include <mfadpetsc.h>

typedef struct {
  MfadEnergy  E;
  MfadContact C;
  PetscInt    pt, ee, sphere_term; /* the terms (sphere_term -1: no sphere) */
  PetscReal   centre[3], radius;   /* the sphere (radius 0: none) */
} Contact;

/* Adds the two pair terms (and, with radius > 0, the sphere's on this rank's `npoint` points) to E */
PetscErrorCode ContactCreate(MfadEnergy E, PetscInt nv, const PetscInt gid[], const PetscReal rest[], PetscInt ntri, const PetscInt tri[],
                             PetscInt nedge, const PetscInt edge[], PetscInt npoint, const PetscInt point[], PetscReal dhat, PetscReal kappa,
                             const PetscReal centre[3], PetscReal radius, Contact *ct);
/* Detects at X (collective) and gives the smallest pair distance and the smallest distance of a
   vertex to the sphere (dhat-capped pairs; +inf without a sphere; every vertex of E is on the
   surface in these examples) */
PetscErrorCode ContactMeasure(Contact *ct, Vec X, PetscReal *dpair, PetscReal *dsphere);
/* Before a time step's solve: X = x_n (xold, this rank's dofs), which is collision-free, where
   ImplicitEulerPredict() left x_pred, which may have passed through */
PetscErrorCode ContactStepStart(Vec X, const PetscReal xold[]);
PetscErrorCode ContactDestroy(Contact *ct);
#endif
