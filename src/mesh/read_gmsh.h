// SPDX-License-Identifier: BSD-2-Clause
/* What the Gmsh reader's text (src/mesh/read_gmsh.c) and binary (src/mesh/read_gmsh_binary.c) parts share. */
#ifndef MFAD_READ_GMSH_H
#define MFAD_READ_GMSH_H

#include "mfadread.h"

/* an element type: nodes and dimension; `corners` 3 for the triangle family, 4 for the
   tetrahedron family, 0 for the others (read, checked, dropped) */
typedef struct {
  int type, nodes, dim, corners;
} MfadGmshType;

#define MFAD_GMSH_MAX_NODES 125

typedef struct {
  MfadReadState *s;
  MfadReader    *r;
  int            v4;     /* 1: MSH 4.1, 0: MSH 2.x */
  int            binary; /* file type 1 */
  MfadArray      nodes;  /* PetscReal, 3 per node, in the file's order */
  MfadArray      tags;   /* PetscInt, each node's tag */
  MfadArray      nlines; /* PetscInt, each node's line */
  PetscInt      *sorted; /* the tags ascending, and the node each belongs to */
  PetscInt      *perm;
  MfadArray      entities; /* 4.1: PetscInt triples (dimension, tag, first physical tag or 0) */
  PetscBool      have_nodes, have_elements, have_entities;
  PetscInt       maxdim;                   /* of the elements read, -1 before any */
  PetscInt       odd_line[4], odd_type[4]; /* per dimension: the first element neither triangle nor tet */
} MfadGmsh;

PETSC_INTERN const MfadGmshType *MfadGmshTypeFind_Private(PetscInt type);
PETSC_INTERN PetscErrorCode      MfadGmshTypeGet_Private(MfadReader *r, PetscInt type, const MfadGmshType **t);
PETSC_INTERN PetscErrorCode      MfadGmshSectionEnd_Private(MfadReader *r, const char sec[], PetscInt n, const char what[]);
PETSC_INTERN PetscErrorCode      MfadGmshPushNode_Private(MfadGmsh *g, PetscInt tag, const PetscReal x[3]);
PETSC_INTERN PetscErrorCode      MfadGmshNodeTable_Private(MfadGmsh *g);
PETSC_INTERN PetscErrorCode      MfadGmshPushElement_Private(MfadGmsh *g, PetscInt etag, const MfadGmshType *t, PetscInt phys, const PetscInt node[]);
/* the first physical tag of entity (dim, tag) in $Entities, or 0 */
PETSC_INTERN PetscInt MfadGmshPhysical_Private(const MfadGmsh *g, PetscInt dim, PetscInt tag);

/* src/mesh/read_gmsh_binary.c: binary files (file type 1) after their format line: the 1 that tells
   the byte order, and the sections whose records are binary */
PETSC_INTERN PetscErrorCode MfadGmshBinaryOne_Private(MfadGmsh *g);
PETSC_INTERN PetscErrorCode MfadGmshEntitiesBinary_Private(MfadGmsh *g);
PETSC_INTERN PetscErrorCode MfadGmshNodesBinary_Private(MfadGmsh *g);
PETSC_INTERN PetscErrorCode MfadGmshElementsBinary_Private(MfadGmsh *g);
PETSC_INTERN PetscErrorCode MfadGmshSkipSectionBinary_Private(MfadGmsh *g, const char section[]);

#endif /* MFAD_READ_GMSH_H */
