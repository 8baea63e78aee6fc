// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadTetGen: TetGen's .node (points, attributes, boundary markers) and .ele
   (tetrahedra, region attributes) files. Numbering starts at the .node file's first point
   number, 0 or 1 (TetGen's -z). Records must be numbered consecutively, so a count in a header
   that disagrees with the data is found at the line where they part. */
#include <math.h>
#include <string.h>
#include <strings.h>
#include "mfadread.h"

/* A record number: the first one is 0 or 1 and fixes *first, the others follow it. */
static PetscErrorCode MfadTetGenNumber(MfadReader *r, const char what[], PetscInt i, PetscInt *first)
{
  PetscInt id;

  PetscFunctionBegin;
  PetscCall(MfadReaderInt_Private(r, what, &id));
  if (i == 0) {
    MfadReaderCheck(r, id == 0 || id == 1, "the first %s is numbered %" PetscInt_FMT " (TetGen numbers from 0 or 1)", what, id);
    *first = id;
  } else MfadReaderCheck(r, id == *first + i, "%s number %" PetscInt_FMT ", expected %" PetscInt_FMT " (numbered consecutively; is a count in the header wrong?)", what, id, *first + i);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadTetGenNoMore(MfadReader *r, PetscInt n, const char what[])
{
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(MfadReaderNextLine_Private(r, &found));
  MfadReaderCheck(r, !found, "more data after the last of the %" PetscInt_FMT " %s the header announced", n, what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* .node: "<points> <dimension 3> <attributes> <boundary markers 0|1>", then
   "<point #> <x> <y> <z> [attributes] [boundary marker]" */
static PetscErrorCode MfadTetGenNode(MfadReadState *s, MfadReader *r, PetscInt *first)
{
  PetscInt np, dim, nattr, nbm;

  PetscFunctionBegin;
  PetscCall(MfadReaderExpectLine_Private(r, "the .node header (points, dimension, attributes, boundary markers)", 0, 0));
  PetscCall(MfadReaderCount_Private(r, "points", 8, &np)); /* "0 0 0 0\n" */
  PetscCall(MfadReaderInt_Private(r, "the dimension", &dim));
  MfadReaderCheck(r, dim == 3, "dimension %" PetscInt_FMT ": TetGen meshes are 3-D", dim);
  PetscCall(MfadReaderCount_Private(r, "attributes per point", 2, &nattr));
  PetscCall(MfadReaderInt_Private(r, "the boundary marker flag", &nbm));
  MfadReaderCheck(r, nbm == 0 || nbm == 1, "boundary marker flag %" PetscInt_FMT " (0 or 1)", nbm);
  PetscCall(MfadReaderExpectEnd_Private(r, "the .node header"));
  for (PetscInt i = 0; i < np; i++) {
    PetscReal x[3], attr;

    PetscCall(MfadReaderExpectLine_Private(r, "point", i, np));
    PetscCall(MfadTetGenNumber(r, "point", i, first));
    PetscCall(MfadReaderReal_Private(r, "x coordinate of a point", &x[0]));
    PetscCall(MfadReaderReal_Private(r, "y coordinate of a point", &x[1]));
    PetscCall(MfadReaderReal_Private(r, "z coordinate of a point", &x[2]));
    for (PetscInt a = 0; a < nattr; a++) PetscCall(MfadReaderReal_Private(r, "an attribute of a point", &attr));
    if (nbm) {
      PetscInt marker;

      PetscCall(MfadReaderInt_Private(r, "the boundary marker of a point", &marker));
      PetscCall(MfadArrayPush_Private(&s->vertex_tags, &marker, 1));
    }
    PetscCall(MfadReaderExpectEnd_Private(r, "a point (more numbers than the header says)"));
    PetscCall(MfadArrayPush_Private(&s->coords, x, 3));
  }
  PetscCall(MfadTetGenNoMore(r, np, "points"));
  MfadReaderCheck(r, np > 0, "no points (an empty mesh)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* .ele: "<tetrahedra> <nodes per tetrahedron 4|10> <attributes>", then
   "<tetrahedron #> <node> ... [attributes]"; the first attribute (TetGen's region, -A) is the
   cell tag. 10-node tets list their corners first. */
static PetscErrorCode MfadTetGenEle(MfadReadState *s, MfadReader *r, PetscInt base)
{
  const PetscInt np = (PetscInt)(s->coords.n / 3);
  PetscInt       nt, npt, nattr, first = 0;

  PetscFunctionBegin;
  PetscCall(MfadReaderExpectLine_Private(r, "the .ele header (tetrahedra, nodes per tetrahedron, attributes)", 0, 0));
  PetscCall(MfadReaderCount_Private(r, "tetrahedra", 10, &nt)); /* "0 0 1 2 3\n" */
  PetscCall(MfadReaderInt_Private(r, "nodes per tetrahedron", &npt));
  MfadReaderCheck(r, npt == 4 || npt == 10, "%" PetscInt_FMT " nodes per tetrahedron (4 or 10)", npt);
  PetscCall(MfadReaderCount_Private(r, "attributes per tetrahedron", 2, &nattr));
  PetscCall(MfadReaderExpectEnd_Private(r, "the .ele header"));
  for (PetscInt t = 0; t < nt; t++) {
    PetscInt tet[4];

    PetscCall(MfadReaderExpectLine_Private(r, "tetrahedron", t, nt));
    PetscCall(MfadTetGenNumber(r, "tetrahedron", t, &first));
    for (PetscInt k = 0; k < npt; k++) {
      PetscInt v;

      PetscCall(MfadReaderInt_Private(r, "a node of a tetrahedron (fewer than the header says)", &v));
      MfadReaderCheck(r, v >= base && v - base < np, "tetrahedron %" PetscInt_FMT " refers to node %" PetscInt_FMT ", the .node file has nodes %" PetscInt_FMT " to %" PetscInt_FMT, first + t, v, base, base + np - 1);
      if (k < 4) tet[k] = v - base;
    }
    for (PetscInt a = 0; a < nattr; a++) {
      PetscReal attr;

      PetscCall(MfadReaderReal_Private(r, "an attribute of a tetrahedron", &attr));
      if (a == 0) {
        PetscInt tag;

        /* checked before the conversion, which is undefined out of range */
        MfadReaderCheck(r, attr == floor(attr) && fabs(attr) <= PETSC_MAX_INT, "region attribute %g of tetrahedron %" PetscInt_FMT " is not an integer tag", (double)attr, first + t);
        tag = (PetscInt)attr;
        PetscCall(MfadArrayPush_Private(&s->cell_tags, &tag, 1));
      }
    }
    PetscCall(MfadReaderExpectEnd_Private(r, "a tetrahedron (more numbers than the header says)"));
    PetscCall(MfadReaderCheckDistinct_Private(r, "tetrahedron", tet, 4, base));
    PetscCall(MfadArrayPush_Private(&s->cells, tet, 4));
    PetscCall(MfadArrayPush_Private(&s->lines, &r->line, 1));
  }
  PetscCall(MfadTetGenNoMore(r, nt, "tetrahedra"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeshReadTetGen_Parse(MfadReadState *s, const char path[])
{
  const size_t   len = strlen(path);
  size_t         stem = len;
  char          *name;
  PetscInt       base = 0;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  /* path is the base name or either file */
  if (len >= 5 && !strcasecmp(path + len - 5, ".node")) stem = len - 5;
  else if (len >= 4 && !strcasecmp(path + len - 4, ".ele")) stem = len - 4;
  PetscCall(PetscMalloc1(stem + 6, &name));
  PetscCall(PetscMemcpy(name, path, stem));
  strcpy(name + stem, ".node");
  ierr = MfadReaderOpen_Private(&s->r[0], name); /* the readers copy the name */
  if (!ierr) {
    strcpy(name + stem, ".ele");
    ierr = MfadReaderOpen_Private(&s->r[1], name);
  }
  PetscCall(PetscFree(name));
  PetscCall(ierr);
  PetscCall(MfadTetGenNode(s, &s->r[0], &base));
  PetscCall(MfadTetGenEle(s, &s->r[1], base));
  PetscCall(MfadReadStateToMesh_Private(s, &s->r[1], 4, base));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshReadTetGen(const char path[], MfadMesh *mesh)
{
  MfadReadState s;

  PetscFunctionBegin;
  PetscCall(MfadReadStateInit_Private(&s, path, mesh));
  PetscCall(MfadReadStateFinish_Private(&s, MfadMeshReadTetGen_Parse(&s, path), mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
