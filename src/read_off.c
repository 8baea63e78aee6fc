// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadOFF: Geomview OFF triangle surfaces (ASCII). The header keyword is optional;
   ST, C and N variants carry texture coordinates, colours and normals after each vertex's
   x y z, which are checked to be numbers and ignored. Polygons are triangulated as in OBJ (src/polytri.c). */
#include <string.h>
#include "mfadread.h"

/* "OFF", or [ST][C][N][4][n]OFF; sets *extras when vertices carry more than x y z */
static PetscErrorCode MfadOffKeyword(MfadReader *r, const char tok[], PetscBool *extras)
{
  const size_t len = strlen(tok);
  const char  *p   = tok;

  PetscFunctionBegin;
  MfadReaderCheck(r, len >= 3 && !strcmp(tok + len - 3, "OFF"), "'%.40s' is not an OFF header (OFF, COFF, NOFF, STOFF ...)", tok);
  if (!strncmp(p, "ST", 2)) p += 2;
  if (*p == 'C') p++;
  if (*p == 'N') p++;
  PetscCheck(*p != '4' && *p != 'n', PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": %s files (homogeneous or n-dimensional vertices) are not supported", r->path, r->line, tok);
  MfadReaderCheck(r, p == tok + len - 3, "'%.40s' is not an OFF header (OFF, COFF, NOFF, STOFF ...)", tok);
  *extras = (PetscBool)(p != tok);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a header without its optional keyword starts with the vertex count */
static PetscBool MfadOffIsInteger(const char tok[])
{
  if (*tok == '-' || *tok == '+') tok++;
  return (PetscBool)(*tok && strspn(tok, "0123456789") == strlen(tok));
}

/* numbers after a record's data: at most `max` (colours, normals, texture coordinates) */
static PetscErrorCode MfadOffTrailing(MfadReader *r, PetscInt max, const char what[])
{
  PetscReal   x;
  PetscInt    n = 0;
  const char *tok;

  PetscFunctionBegin;
  while ((tok = MfadReaderToken_Private(r))) {
    n++;
    MfadReaderCheck(r, n <= max, "more than %" PetscInt_FMT " numbers after %s", max, what);
    PetscCall(MfadReaderParseReal_Private(r, tok, what, &x));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeshReadOFF_Parse(MfadReadState *s, const char path[])
{
  MfadReader *r      = &s->r[0];
  PetscBool   extras = PETSC_FALSE, found;
  PetscInt    nv, nf, ne;
  char       *tok;

  PetscFunctionBegin;
  PetscCall(MfadReaderOpen_Private(r, path));
  PetscCall(MfadReaderExpectLine_Private(r, "the OFF header", 0, 0));
  tok = MfadReaderToken_Private(r);
  if (MfadOffIsInteger(tok)) PetscCall(MfadReaderParseInt_Private(r, tok, "vertex count", &nv)); /* no keyword */
  else {
    PetscCall(MfadOffKeyword(r, tok, &extras));
    tok = MfadReaderToken_Private(r);
    PetscCheck(!tok || strcmp(tok, "BINARY"), PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": binary OFF files are not supported", r->path, r->line);
    if (!tok) { /* the counts on a line of their own, as usual */
      PetscCall(MfadReaderExpectLine_Private(r, "the counts (vertices faces edges)", 0, 0));
      tok = MfadReaderToken_Private(r);
    }
    PetscCall(MfadReaderParseInt_Private(r, tok, "vertex count", &nv));
  }
  /* the shortest vertex is "0 0 0\n", the shortest face "3 0 1 2\n" */
  PetscCall(MfadReaderCheckCount_Private(r, "vertices", 6, nv));
  PetscCall(MfadReaderCount_Private(r, "faces", 8, &nf));
  if ((tok = MfadReaderToken_Private(r))) PetscCall(MfadReaderParseInt_Private(r, tok, "edge count", &ne)); /* ignored, often 0 */
  PetscCall(MfadReaderExpectEnd_Private(r, "the counts (vertices faces edges)"));

  for (PetscInt i = 0; i < nv; i++) {
    PetscReal x[3];

    PetscCall(MfadReaderExpectLine_Private(r, "vertex", i, nv));
    PetscCall(MfadReaderReal_Private(r, "x coordinate of a vertex", &x[0]));
    PetscCall(MfadReaderReal_Private(r, "y coordinate of a vertex", &x[1]));
    PetscCall(MfadReaderReal_Private(r, "z coordinate of a vertex", &x[2]));
    /* in a plain OFF file a vertex is 3 numbers: more means the vertex count is too large */
    if (extras) PetscCall(MfadOffTrailing(r, 9, "a vertex's x y z (normal, colour, texture coordinates)"));
    else PetscCall(MfadReaderExpectEnd_Private(r, "a vertex's x y z (is the header's vertex count too large?)"));
    PetscCall(MfadArrayPush_Private(&s->coords, x, 3));
  }
  for (PetscInt f = 0; f < nf; f++) {
    PetscInt n;

    PetscCall(MfadReaderExpectLine_Private(r, "face", f, nf));
    PetscCall(MfadReaderInt_Private(r, "the vertex count of a face", &n));
    MfadReaderCheck(r, n >= 3, "face %" PetscInt_FMT " has %" PetscInt_FMT " vertices (3 or more)", f, n);
    s->poly.n = 0;
    for (PetscInt k = 0; k < n; k++) {
      PetscInt v;

      PetscCall(MfadReaderInt_Private(r, "a vertex of a face (fewer than its count says)", &v));
      MfadReaderCheck(r, v >= 0 && v < nv, "face %" PetscInt_FMT " refers to vertex %" PetscInt_FMT ", the file has %" PetscInt_FMT " (numbered from 0)", f, v, nv);
      PetscCall(MfadArrayPush_Private(&s->poly, &v, 1));
    }
    PetscCall(MfadOffTrailing(r, 4, "a face's vertices (a colour)"));
    PetscCall(MfadReadStatePushPolygon_Private(s, r, 0));
  }
  PetscCall(MfadReaderNextLine_Private(r, &found));
  MfadReaderCheck(r, !found, "more data after the last of the %" PetscInt_FMT " faces the header announced", nf);
  PetscCall(MfadReadStateToMesh_Private(s, r, 3, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshReadOFF(const char path[], MfadMesh *mesh)
{
  MfadReadState s;

  PetscFunctionBegin;
  PetscCall(MfadReadStateInit_Private(&s, path, mesh));
  PetscCall(MfadReadStateFinish_Private(&s, MfadMeshReadOFF_Parse(&s, path), mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
