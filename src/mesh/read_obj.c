// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadOBJ: Wavefront OBJ triangle surfaces. `v` and `f` records are read, polygons
   triangulated (src/mesh/polytri.c: convex ones fanned, others ear-clipped); attribute, grouping, material and free-form records are skipped; anything
   else is refused, so that a file that is not OBJ is not read as an empty or partial one. */
#include <string.h>
#include "mfadread.h"

/* records that carry nothing a triangle surface needs */
static const char *const MfadObjIgnored[] = {"vt", "vn", "vp", "o", "g", "s", "usemtl", "mtllib", "l", "p", "mg", "lod", "bevel", "c_interp", "d_interp", "shadow_obj", "trace_obj", "maplib", "usemap", "call", "csh",
                                              /* free-form curves and surfaces */
                                              "cstype", "deg", "bmat", "step", "curv", "curv2", "surf", "parm", "trim", "hole", "scrv", "sp", "end", "con", "ctech", "stech", NULL};

static PetscBool MfadObjIsIgnored(const char tok[])
{
  for (const char *const *k = MfadObjIgnored; *k; k++)
    if (!strcmp(tok, *k)) return PETSC_TRUE;
  return PETSC_FALSE;
}

/* One `f` corner: v, v/t, v/t/n or v//n; returns the 0-based vertex (t and n are checked to be
   integers and otherwise ignored). Negative v counts back from the last vertex read so far;
   positive ones are checked against the whole file's vertex count at its end. */
static PetscErrorCode MfadObjCorner(MfadReader *r, char tok[], PetscInt nv, PetscInt *v)
{
  char    *part[3] = {tok, NULL, NULL}, *slash;
  PetscInt np = 1, idx;

  PetscFunctionBegin;
  while ((slash = strchr(part[np - 1], '/'))) {
    MfadReaderCheck(r, np < 3, "face corner '%s' has more than 3 parts (v/t/n)", MfadReaderShow_Private(tok));
    *slash     = '\0';
    part[np++] = slash + 1;
  }
  MfadReaderCheck(r, *part[0], "face corner without a vertex index");
  MfadReaderCheck(r, np == 1 || *part[np - 1], "face corner ends with '/'");
  for (PetscInt i = 1; i < np; i++)
    if (*part[i]) PetscCall(MfadReaderParseInt_Private(r, part[i], i == 1 ? "texture index of a face corner" : "normal index of a face corner", &idx));
  PetscCall(MfadReaderParseInt_Private(r, part[0], "vertex index of a face corner", &idx));
  MfadReaderCheck(r, idx != 0, "vertex index 0 (OBJ numbers vertices from 1)");
  if (idx < 0) {
    MfadReaderCheck(r, -(PetscInt64)idx <= nv, "relative vertex index %" PetscInt_FMT " reaches before the first vertex (%" PetscInt_FMT " read so far)", idx, nv);
    *v = nv + idx;
  } else *v = idx - 1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadObjFace(MfadReadState *s, MfadReader *r)
{
  const PetscInt nv = (PetscInt)(s->coords.n / 3);
  char          *tok;

  PetscFunctionBegin;
  s->poly.n = 0;
  while ((tok = MfadReaderToken_Private(r))) {
    PetscInt v;

    PetscCall(MfadObjCorner(r, tok, nv, &v));
    PetscCall(MfadArrayPush_Private(&s->poly, &v, 1));
  }
  PetscCall(MfadReadStatePushPolygon_Private(s, r, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadObjVertex(MfadReadState *s, MfadReader *r)
{
  PetscReal   x[3], extra;
  PetscInt    nextra = 0;
  const char *tok;

  PetscFunctionBegin;
  PetscCall(MfadReaderReal_Private(r, "x coordinate of a vertex", &x[0]));
  PetscCall(MfadReaderReal_Private(r, "y coordinate of a vertex", &x[1]));
  PetscCall(MfadReaderReal_Private(r, "z coordinate of a vertex", &x[2]));
  /* `v x y z w` (a weight) or `v x y z r g b` (a colour, a common extension): numbers, ignored */
  while ((tok = MfadReaderToken_Private(r))) {
    nextra++;
    MfadReaderCheck(r, nextra <= 4, "a vertex has more than 7 numbers (x y z, then w or r g b)");
    PetscCall(MfadReaderParseReal_Private(r, tok, "weight or colour of a vertex", &extra));
  }
  PetscCall(MfadArrayPush_Private(&s->coords, x, 3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeshReadOBJ_Parse(MfadReadState *s, const char path[])
{
  MfadReader *r = &s->r[0];
  PetscBool   found;
  PetscInt    nv;
  char       *tok;

  PetscFunctionBegin;
  PetscCall(MfadReaderOpen_Private(r, path));
  for (;;) {
    PetscCall(MfadReaderNextLine_Private(r, &found));
    if (!found) break;
    tok = MfadReaderToken_Private(r);
    if (!strcmp(tok, "v")) PetscCall(MfadObjVertex(s, r));
    else if (!strcmp(tok, "f")) PetscCall(MfadObjFace(s, r));
    else
      MfadReaderCheck(r, MfadObjIsIgnored(tok), "unknown record '%s' (an OBJ file has v, vt, vn, f, o, g, s, usemtl, mtllib ...)",
                      MfadReaderShow_Private(tok));
  }
  /* positive indices may name vertices defined further down: check them now, in file order */
  nv = (PetscInt)(s->coords.n / 3);
  for (size_t i = 0; i < s->cells.n; i++) {
    const PetscInt v = ((PetscInt *)s->cells.data)[i];

    if (v >= nv) {
      r->line = ((PetscInt *)s->lines.data)[i / 3];
      MfadReaderCheck(r, PETSC_FALSE, "face refers to vertex %" PetscInt_FMT ", the file has %" PetscInt_FMT " vertices", v + 1, nv);
    }
  }
  PetscCall(MfadReadStateToMesh_Private(s, r, 3, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshReadOBJ(const char path[], MfadMesh *mesh)
{
  MfadReadState s;

  PetscFunctionBegin;
  PetscCall(MfadReadStateInit_Private(&s, path, mesh));
  PetscCall(MfadReadStateFinish_Private(&s, MfadMeshReadOBJ_Parse(&s, path), mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
