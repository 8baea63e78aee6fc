// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadOFF: Geomview OFF triangle surfaces (ASCII). The header keyword is optional;
   ST, C and N variants carry texture coordinates, colours and normals after each vertex's
   x y z, which are checked to be numbers and ignored. Polygons are triangulated as in OBJ (src/mesh/polytri.c). */
#include <string.h>
#include "mfadread.h"

/* "OFF", or [ST][C][N][4][n]OFF; sets *extras when vertices carry more than x y z */
static PetscErrorCode MfadOffKeyword(MfadReader *r, const char tok[], PetscBool *extras)
{
  const size_t len = strlen(tok);
  const char  *p   = tok;

  PetscFunctionBegin;
  MfadReaderCheck(r, len >= 3 && !strcmp(tok + len - 3, "OFF"), "'%s' is not an OFF header (OFF, COFF, NOFF, STOFF ...)",
                  MfadReaderShow_Private(tok));
  if (!strncmp(p, "ST", 2)) p += 2;
  if (*p == 'C') p++;
  if (*p == 'N') p++;
  PetscCheck(*p != '4' && *p != 'n', PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": %s files (homogeneous or n-dimensional vertices) are not supported", r->path, r->line, tok);
  MfadReaderCheck(r, p == tok + len - 3, "'%s' is not an OFF header (OFF, COFF, NOFF, STOFF ...)", MfadReaderShow_Private(tok));
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

/* Whether the rest of a face line could be a vertex's numbers and not a face: 3 reals (up to 12
   with ST/C/N extras) that are not a count n >= 3 followed by integers (ids). More vertex lines
   than the header's count put vertices where faces are expected, and the face's own complaint
   alone ("face 0 has 0 vertices") hid that; read, not consumed. */
static PetscBool MfadOffLineIsVertex(const char *p, PetscBool extras)
{
  PetscInt  ntok = 0, max = extras ? 12 : 3;
  long long n    = 0;
  PetscBool ints = PETSC_TRUE, count = PETSC_FALSE;

  if (!p) return PETSC_FALSE;
  for (;;) {
    char  *end;
    size_t len;
    p += strspn(p, " \t\r\v\f\n");
    if (!*p) break;
    if (ntok == max) return PETSC_FALSE; /* too many numbers for a vertex */
    len = strcspn(p, " \t\r\v\f\n");
    (void)strtod(p, &end);
    if (end != p + len) return PETSC_FALSE; /* not a number: neither a vertex nor a face */
    if (ntok == 0) {
      n     = strtoll(p, &end, 10);
      count = (PetscBool)(end == p + len && n >= 3);
    } else if (ntok <= n) {
      (void)strtoll(p, &end, 10);
      ints = (PetscBool)(ints && end == p + len);
    }
    ntok++;
    p += len;
  }
  /* a count and integers is a face, if a short one ("3 0 1": fewer ids than its count says) */
  return (PetscBool)(ntok >= 3 && !(count && ints));
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
    PetscInt    n;
    char        hint[160] = "", what[2][224];
    const char *wcount = "the vertex count of a face", *wvertex = "a vertex of a face (fewer than its count says)";

    PetscCall(MfadReaderExpectLine_Private(r, "face", f, nf));
    /* a line that fails as a face and reads as a vertex: say what is likely wrong with the file */
    if (MfadOffLineIsVertex(r->cur, extras)) {
      PetscCall(PetscSNPrintf(hint, sizeof hint,
                              "; or, if the line is a vertex's coordinates, the file has more vertex lines than the header's %" PetscInt_FMT, nv));
      PetscCall(PetscSNPrintf(what[0], sizeof what[0], "%s%s", wcount, hint));
      PetscCall(PetscSNPrintf(what[1], sizeof what[1], "%s%s", wvertex, hint));
      wcount  = what[0];
      wvertex = what[1];
    }
    PetscCall(MfadReaderInt_Private(r, wcount, &n));
    MfadReaderCheck(r, n >= 3, "face %" PetscInt_FMT " has %" PetscInt_FMT " vertices (3 or more)%s", f, n, hint);
    s->poly.n = 0;
    for (PetscInt k = 0; k < n; k++) {
      PetscInt v;

      PetscCall(MfadReaderInt_Private(r, wvertex, &v));
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
