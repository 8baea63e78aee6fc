// SPDX-License-Identifier: BSD-2-Clause
/* Contact for the examples' time steppers (cloth.c, drop.c): the self-contact of a triangle surface by
   mfad's detection (MfadContact) and IPC barrier terms, and a fixed sphere as an obstacle.
   - Two terms of changing elements, point-triangle and edge-edge pairs closer than dhat, given
     anew by an element provider at the start of each Newton step (MfadEnergySetTermElementsFunction).
   - A SNES line-search pre-check that caps every step where a point could pass through a triangle
     or an edge through an edge (MfadContactStepBound(): additive CCD, between detections) or a
     vertex enter the sphere (the exact entry time along the step, times 0.9). The barriers' +inf
     at d <= 0 then never has to be met by backtracking alone.
   The surface of this rank is given as for MfadContactSetSurface(): its vertices (global ids,
   owned and the others its triangles and edges touch), triangles, edges and points, each on one
   rank only. */
#ifndef MFAD_EXAMPLES_CONTACTSTEP_H
#define MFAD_EXAMPLES_CONTACTSTEP_H
#include <mfadpetsc.h>

typedef struct {
  MfadEnergy  E;
  MfadContact C;
  PetscInt    pt, ee, sphere_term; /* the terms (sphere_term -1: no sphere) */
  PetscInt    nv;                  /* this rank's surface vertices */
  VecScatter  scatter;             /* global X -> their coordinates */
  Vec         xs, dxs;             /* sequential, 3 nv */
  PetscReal   centre[3], radius;   /* the sphere (radius 0: none) */
  PetscReal   dmin;                /* smallest pair distance (not squared) seen at a detection */
  PetscReal   alpha_min;           /* smallest step bound applied */
  PetscInt    detections, capped;  /* provider calls; steps the pre-check shortened */
  PetscReal   slope;               /* |grad E . step| of the last step tried: its predicted decrease */
  PetscBool   roundoff;            /* the last solve ended on ContactConverged()'s round-off test */
} Contact;

/* the reason a time step reports when its last step predicted less than round-off (not SNES's) */
#define CONTACT_CONVERGED_ROUNDOFF 100

/* Adds the two pair terms (and, with radius > 0, the sphere's on this rank's `npoint` points) to E */
PetscErrorCode ContactCreate(MfadEnergy E, PetscInt nv, const PetscInt gid[], const PetscReal rest[], PetscInt ntri, const PetscInt tri[],
                             PetscInt nedge, const PetscInt edge[], PetscInt npoint, const PetscInt point[], PetscReal dhat, PetscReal kappa,
                             const PetscReal centre[3], PetscReal radius, Contact *ct);
/* The line-search pre-check on snes (newtonls), and SNES's convergence test with a round-off stop:
   converged where the last step predicted less than the energy's round-off (ContactAtRoundoff()),
   flagged in ct->roundoff (PETSc 3.26's line search keeps taking such steps where 3.18's fails) */
PetscErrorCode ContactSetSNES(Contact *ct, SNES snes);
/* Detects at X (collective) and gives the smallest pair distance and the smallest distance of a
   surface vertex to the sphere (dhat-capped pairs; +inf without a sphere) */
PetscErrorCode ContactMeasure(Contact *ct, Vec X, PetscReal *dpair, PetscReal *dsphere);
/* Whether the last step tried predicted a decrease below the energy's round-off at X (100 eps |E|):
   a line search that then fails has nothing left to find (barriers make E's terms large and
   cancelling); collective */
PetscErrorCode ContactAtRoundoff(Contact *ct, Vec X, PetscBool *yes);
/* Before a time step's solve: X = x_n (xold, this rank's dofs), which is collision-free, where
   ImplicitEulerPredict() left x_pred, which may have passed through */
PetscErrorCode ContactStepStart(Vec X, const PetscReal xold[]);
/* After it: a solve that ended on the round-off stop, or whose line search failed where the last
   step predicted less than round-off, gets CONTACT_CONVERGED_ROUNDOFF ("CONVERGED_ROUNDOFF") */
PetscErrorCode ContactStepReason(Contact *ct, Vec X, PetscInt *reason, const char **name);
PetscErrorCode ContactDestroy(Contact *ct);
#endif
