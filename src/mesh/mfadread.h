// SPDX-License-Identifier: BSD-2-Clause
/* What the text mesh readers (src/mesh/read_*.c) share: a line reader that knows the file name and
   the line number for error messages, token parsers, and arrays that grow as records arrive
   (so that no count read from a file sizes an allocation before the data backs it). */
#ifndef MFADREAD_H
#define MFADREAD_H

#include <stdio.h>
#include "mfadmeshimpl.h"

/* A text file read line by line: whole lines up to -mfad_mesh_max_line bytes, '#' comments and
   CR/LF line ends stripped, tokens split on blanks (space, tab, CR, VT, FF). */
typedef struct {
  char       *path; /* a copy, for error messages */
  FILE       *fp;
  char       *buf;  /* the current line (malloc'ed) */
  size_t      cap;  /* bytes allocated for buf */
  size_t      max_line; /* the longest line read (-mfad_mesh_max_line): an endless one is an error, not all of memory */
  char       *cur;  /* the next token starts at or after cur */
  PetscInt    line; /* 1-based number of the current line; 0 before the first */
  PetscInt64  size; /* bytes in the file */
  PetscBool   split_end; /* Gmsh (ASCII): a "$End..." after a line's records starts a line of its own */
  char       *pending;   /* that "$End...", in buf: the next line NextLine returns (same line number) */
} MfadReader;

/* "<path>:<line>: <what was wrong>", a PETSC_ERR_FILE_UNEXPECTED error on PETSC_COMM_SELF */
#define MfadReaderCheck(r, cond, fmt, ...) \
  PetscCheck((cond), PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s:%" PetscInt_FMT ": " fmt, (r)->path, (r)->line, ##__VA_ARGS__)

PETSC_INTERN PetscErrorCode MfadReaderOpen_Private(MfadReader *r, const char path[]);
/* src/mesh/polytri.c: a polygon's triangles (a strip if convex, else ear clipping); status 1 no plane, 2 crossing itself */
PETSC_INTERN PetscErrorCode MfadPolygonTriangulate_Private(PetscInt n, const PetscReal *x, PetscInt *tri, int *status);
PETSC_INTERN PetscErrorCode MfadReaderClose_Private(MfadReader *r);
PETSC_INTERN PetscErrorCode MfadReaderNextLine_Private(MfadReader *r, PetscBool *found);
PETSC_INTERN PetscErrorCode MfadReaderGetLine_Private(MfadReader *r, ssize_t *len);
/* src/mesh/readfile.c: a token as an error message shows it: its first 40 bytes, bytes that are not
   printable ASCII as \xNN (a hostile file's terminal control codes are not echoed); one static
   buffer, so one token per message */
PETSC_INTERN const char    *MfadReaderShow_Private(const char *tok);
PETSC_INTERN PetscErrorCode MfadReaderExpectLine_Private(MfadReader *r, const char what[], PetscInt i, PetscInt n);
PETSC_INTERN PetscErrorCode MfadReaderExpectEnd_Private(MfadReader *r, const char what[]);
PETSC_INTERN char          *MfadReaderToken_Private(MfadReader *r);
PETSC_INTERN PetscErrorCode MfadReaderParseInt_Private(MfadReader *r, const char tok[], const char what[], PetscInt *v);
PETSC_INTERN PetscErrorCode MfadReaderInt_Private(MfadReader *r, const char what[], PetscInt *v);
PETSC_INTERN PetscErrorCode MfadReaderParseReal_Private(MfadReader *r, const char tok[], const char what[], PetscReal *v);
PETSC_INTERN PetscErrorCode MfadReaderReal_Private(MfadReader *r, const char what[], PetscReal *v);
PETSC_INTERN PetscErrorCode MfadReaderCheckDistinct_Private(MfadReader *r, const char what[], const PetscInt v[], PetscInt n, PetscInt base);
PETSC_INTERN PetscErrorCode MfadReaderCheckCount_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt n);
/* the same for a count read wider than PetscInt: one too large for PetscInt is said to be too large, with its value */
PETSC_INTERN PetscErrorCode MfadReaderCheckCount64_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt64 n);
PETSC_INTERN PetscErrorCode MfadReaderCount_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt *n);

/* A growing array of `size`-byte entries: PetscMalloc'ed, doubled when full. */
typedef struct {
  void  *data;
  size_t n, cap, size;
} MfadArray;

PETSC_INTERN PetscErrorCode MfadArrayPush_Private(MfadArray *a, const void *x, size_t count);
PETSC_INTERN PetscErrorCode MfadArrayDestroy_Private(MfadArray *a);

/* What a reader builds, freed by MfadReadStateFinish_Private() whatever the parse returned:
   a reader's parse function works on this and may return an error at any point. */
typedef struct {
  MfadReader r[2];        /* the file(s): TetGen reads .node and .ele */
  MfadArray  coords;      /* PetscReal, 3 per vertex */
  MfadArray  cells;       /* PetscInt, ncorner per cell, 0-based */
  MfadArray  lines;       /* PetscInt, the line each cell came from (for error messages) */
  MfadArray  poly;        /* PetscInt, scratch: one polygon's vertices */
  MfadArray  polys;       /* PetscInt pairs: first cell and corners of each face of 4+ corners,
                             fanned while reading, triangulated at the end (OBJ may name
                             vertices defined further down) */
  MfadArray  vertex_tags; /* PetscInt, one per vertex, or empty */
  MfadArray  cell_tags;   /* PetscInt, one per cell, or empty */
  MfadArray  tris;        /* Gmsh, Medit: PetscInt, 3 per triangle, while cells holds the tets; the
                             cells of a file without tets (MfadReadStatePickCells_Private()) */
  MfadArray  tri_lines;   /* PetscInt, the line of each triangle */
  MfadArray  tri_tags;    /* PetscInt, one per triangle, or empty */
  MfadArray  vertex_id;   /* PetscInt, the file's name of each vertex (Gmsh node tags) for error
                             messages, or empty: vertex i is then named base + i */
  MfadMesh   mesh;        /* the result, destroyed when the parse failed */
} MfadReadState;

PETSC_INTERN PetscErrorCode MfadReadStateInit_Private(MfadReadState *s, const char path[], MfadMesh *mesh);
PETSC_INTERN PetscErrorCode MfadReadStateFinish_Private(MfadReadState *s, PetscErrorCode ierr, MfadMesh *mesh);
PETSC_INTERN PetscErrorCode MfadReadStatePushPolygon_Private(MfadReadState *s, MfadReader *r, PetscInt base);
/* The readers' common ending: s's arrays into s->mesh; refuses an empty mesh (naming r's last
   line); runs the manifold check on tet meshes, and on surfaces when -mfad_mesh_check_manifold
   asks for it, naming vertices as the file numbers them (from base, or s->vertex_id). */
PETSC_INTERN PetscErrorCode MfadReadStateToMesh_Private(MfadReadState *s, MfadReader *r, PetscInt ncorner, PetscInt base);
/* Gmsh, Medit: the cells are the tets if there are any (the triangles, a tet mesh's boundary, are
   dropped), else the triangles; *ncorner 4 or 3 */
PETSC_INTERN PetscErrorCode MfadReadStatePickCells_Private(MfadReadState *s, PetscInt *ncorner);
/* MfadMeshCheckManifold() with the file's line of each cell (or NULL) and vertex numbering:
   vertex_id[i] (or base + i where vertex_id is NULL) */
PETSC_INTERN PetscErrorCode MfadMeshCheckManifold_Private(MfadMesh mesh, const char path[], const PetscInt cell_line[], PetscInt base, const PetscInt vertex_id[]);

#endif /* MFADREAD_H */
