// SPDX-License-Identifier: BSD-2-Clause
/* Contact detection's private structures, shared by src/contact.c (API, narrow phase, step bound)
   and src/contactgrid.c (boxes, hashed-grid broad phase, exchange between ranks). */
#ifndef MFAD_CONTACTIMPL_H
#define MFAD_CONTACTIMPL_H

#include <omp.h>
#include <mfad/contact.h>
#include "mfadimpl.h"

/* a primitive sent to another rank: kind, global vertex ids, coordinates and step of its vertices,
   the rest |e|^2 of an edge */
#define MFAD_CONTACT_REC 23

typedef struct {
  PetscInt  n, cap;
  PetscInt *ij; /* pairs (i, j) */
} MfadPairList;

/* The broad phase's buffers, kept from one call to the next: fresh ones at every detection (about
   40 bytes per grid entry, tens of MB at 100k vertices) cost more in the kernel's page faults and
   zeroing than the pair search itself (perf: clear_page 16% of bench_contact). Capacities in
   elements; the per-thread lists grow with realloc() inside threads. */
typedef struct {
  size_t        ckey, cid, cebx, cstart, cfill, cfb, cbox;
  uint64_t     *key;
  PetscInt     *id, *fill, *start;
  float        *ebx, *fb;
  PetscReal    *box; /* the primitives' boxes (MfadContactBoxes_Private) */
  int           nth;
  MfadPairList *lpt, *lee; /* per thread */
  MfadPairList  PT, EE;    /* the last call's candidates */
} MfadBroadScratch;

struct _p_MfadContact {
  MPI_Comm   comm;
  PetscInt   refct; /* the creator's and each energy's that holds it (MfadEnergyAddContact()) */
  PetscInt   nv;  /* this rank's vertices (coordinates x[3 nv]) */
  PetscInt  *gid; /* their global ids */
  PetscInt   ntri, nedge, npoint;
  PetscInt  *tri, *edge, *point; /* over local vertex numbers */
  PetscReal *edge_rest2;         /* rest |a1 - a0|^2 of each edge, or NULL: no mollifier */
  PetscReal  dhat, kappa;
  PetscBool  surface_set;
  /* the last detection's pairs */
  PetscInt         npt, nee, cappt, capee;
  PetscInt        *ptconn, *eeconn;
  PetscReal       *ptpar, *eepar;
  PetscReal        dmin; /* their smallest squared distance (dhat^2 if none), this rank */
  MfadBroadScratch broad;
};

/* the primitives of one detection: this rank's, then those received (vertex copies appended) */
typedef struct {
  PetscInt     nv, np, nt, ne;
  PetscReal   *x, *dx;                /* 3 nv (dx NULL: detection) */
  PetscInt    *gid;                   /* nv */
  PetscInt    *p, *t, *e;             /* np, 3 nt, 2 ne vertex numbers */
  PetscReal   *erest2;                /* ne, or NULL */
  PetscMPIInt *prank, *trank, *erank; /* owning rank of each primitive */
  PetscBool    own;                   /* arrays owned (freed by WorkDestroy) */
} MfadContactWork;

/* threads for a loop of n items: OpenMP's count from 16,384 items on (as the element loops) */
static inline int MfadContactThreads_Private(PetscInt64 n) { return n >= 16384 ? omp_get_max_threads() : 1; }

/* the primitives' boxes (6 reals each: lo, hi; in the scratch's buffer): points padded by ppad,
   edges by epad */
PETSC_INTERN PetscErrorCode MfadContactBoxes_Private(MfadBroadScratch *, const MfadContactWork *, PetscReal, PetscReal, PetscReal **, PetscReal **,
                                                     PetscReal **);
/* candidate point-triangle (box overlap) and edge-edge (i < j) pairs into the scratch's PT and EE;
   cells at least hmin */
PETSC_INTERN PetscErrorCode MfadBroadPhase_Private(MfadBroadScratch *, PetscInt, const PetscReal *, PetscInt, const PetscReal *, PetscInt,
                                                   const PetscReal *, PetscReal);
PETSC_INTERN PetscErrorCode MfadBroadScratchDestroy_Private(MfadBroadScratch *);
/* this rank's primitives, then copies of other ranks' near this rank's region (collective) */
PETSC_INTERN PetscErrorCode MfadContactWorkCreate_Private(MfadContact, const PetscReal[], const PetscReal[], PetscReal, PetscReal, MfadContactWork *);
PETSC_INTERN PetscErrorCode MfadContactWorkDestroy_Private(MfadContactWork *);

#endif /* MFAD_CONTACTIMPL_H */
