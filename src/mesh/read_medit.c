// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadMedit: Medit .mesh files (ASCII; what libigl, Gmsh, MMG and TetWild write):
   "MeshVersionFormatted 1|2", "Dimension 3|2", then keyword sections "Vertices n" (x y [z] ref),
   "Tetrahedra n" (4 vertices, ref), "Triangles n" (3 vertices, ref), "Edges", "Corners",
   "Ridges", "Required...", "Normals", "Tangents" ... and "End". Keywords in any case; numbers may
   run across lines (the format is a stream of tokens); '#' starts a comment. Vertices are
   numbered from 1. The cells are the tets if there are any (the triangles, their boundary, are
   checked and dropped), else the triangles; element references are the cell tags, vertex
   references the vertex tags. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "mfadread.h"

/* The next token, from this line or the next ones; the end of the file is an error naming `what`. */
static PetscErrorCode MfadMeditNext(MfadReader *r, const char what[], char **tok)
{
  PetscFunctionBegin;
  while (!(*tok = MfadReaderToken_Private(r))) {
    PetscBool found;

    PetscCall(MfadReaderNextLine_Private(r, &found));
    MfadReaderCheck(r, found, "the file ends before %s (truncated, or a count is too large)", what);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A keyword starts with a letter; nan and inf (strtod reads them) are numbers, for the parsers to
   refuse as not finite rather than as a keyword that ends a section early */
static PetscBool MfadMeditKeyword(const char tok[])
{
  char *end;

  if (!isalpha((unsigned char)tok[0])) return PETSC_FALSE;
  (void)strtod(tok, &end);
  return (PetscBool)(end == tok || *end);
}

/* The first number of record i of the n `what`: a keyword there means the count was too large */
static PetscErrorCode MfadMeditRecord(MfadReader *r, const char what[], PetscInt i, PetscInt n, char **tok)
{
  char where[96];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(where, sizeof(where), "%s %" PetscInt_FMT " of %" PetscInt_FMT, what, i + 1, n));
  PetscCall(MfadMeditNext(r, where, tok));
  MfadReaderCheck(r, !MfadMeditKeyword(*tok), "'%s' where %s was expected (the count is too large)", MfadReaderShow_Private(*tok), where);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeditInt(MfadReader *r, const char what[], PetscInt *v)
{
  char *tok;

  PetscFunctionBegin;
  PetscCall(MfadMeditNext(r, what, &tok));
  PetscCall(MfadReaderParseInt_Private(r, tok, what, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeditReal(MfadReader *r, const char what[], PetscReal *v)
{
  char *tok;

  PetscFunctionBegin;
  PetscCall(MfadMeditNext(r, what, &tok));
  PetscCall(MfadReaderParseReal_Private(r, tok, what, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element sections: vertices per element, and where the kept ones go */
typedef struct {
  const char *keyword, *what;
  int         nv;   /* vertices per element */
  int         kind; /* 4 tets, 3 triangles, 1 other elements (checked, dropped), 0 unsupported */
} MfadMeditElements;

static const MfadMeditElements MfadMeditElementSections[] = {
    {"Tetrahedra",     "tetrahedron",   4, 4},
    {"Triangles",      "triangle",      3, 3},
    {"Edges",          "edge",          2, 1},
    {"Quadrilaterals", "quadrilateral", 4, 1},
    {"Hexahedra",      "hexahedron",    8, 0},
    {"Prisms",         "prism",         6, 0},
    {"Pyramids",       "pyramid",       5, 0},
};

/* Sections of `n` records of a few integers (references to vertices, edges ...) or `dim` reals */
typedef struct {
  const char *keyword;
  int         nint; /* integers per record; 0: dim reals */
} MfadMeditOther;

static const MfadMeditOther MfadMeditOtherSections[] = {
    {"Corners",                       1},
    {"RequiredVertices",              1},
    {"Ridges",                        1},
    {"RequiredEdges",                 1},
    {"RequiredTriangles",             1},
    {"RequiredQuadrilaterals",        1},
    {"RequiredTetrahedra",            1},
    {"RequiredHexahedra",             1},
    {"Normals",                       0},
    {"Tangents",                      0},
    {"NormalAtVertices",              2},
    {"TangentAtVertices",             2},
    {"NormalAtTriangleVertices",      3},
    {"NormalAtQuadrilateralVertices", 3},
    {"TangentAtEdges",                3},
};

static PetscErrorCode MfadMeditElementSection(MfadReadState *s, MfadReader *r, const MfadMeditElements *e, PetscInt dim, PetscInt *quad_line)
{
  const PetscInt nv = (PetscInt)(s->coords.n / 3);
  PetscInt       n, start = r->line;

  PetscFunctionBegin;
  PetscCall(MfadMeditInt(r, e->keyword, &n));
  PetscCall(MfadReaderCheckCount_Private(r, e->keyword, 2 * (e->nv + 1), n));
  PetscCheck(!n || e->kind, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": %s: mfad reads tetrahedra and triangles only", r->path, start,
             e->keyword);
  MfadReaderCheck(r, !n || e->kind != 4 || dim == 3, "Tetrahedra in a file of Dimension %" PetscInt_FMT, dim);
  if (n && !strcmp(e->keyword, "Quadrilaterals") && !*quad_line) *quad_line = start;
  for (PetscInt i = 0; i < n; i++) {
    PetscInt v[8], ref, line;
    char    *tok;

    PetscCall(MfadMeditRecord(r, e->what, i, n, &tok));
    line = r->line;
    for (int k = 0; k < e->nv; k++) {
      if (k) PetscCall(MfadMeditInt(r, "a vertex of an element", &v[k]));
      else PetscCall(MfadReaderParseInt_Private(r, tok, "a vertex of an element", &v[k]));
      MfadReaderCheck(r, v[k] >= 1 && v[k] <= nv,
                      "%s %" PetscInt_FMT " refers to vertex %" PetscInt_FMT ", the file has vertices 1 to %" PetscInt_FMT, e->what, i + 1, v[k], nv);
      v[k]--;
    }
    PetscCall(MfadMeditInt(r, "the reference of an element", &ref));
    if (e->kind < 3) continue;
    { /* errors and the manifold check name the line the element starts on */
      const PetscInt now = r->line;

      r->line = line;
      PetscCall(MfadReaderCheckDistinct_Private(r, e->what, v, e->nv, 1));
      r->line = now;
    }
    PetscCall(MfadArrayPush_Private(e->kind == 4 ? &s->cells : &s->tris, v, (size_t)e->nv));
    PetscCall(MfadArrayPush_Private(e->kind == 4 ? &s->lines : &s->tri_lines, &line, 1));
    PetscCall(MfadArrayPush_Private(e->kind == 4 ? &s->cell_tags : &s->tri_tags, &ref, 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeshReadMedit_Parse(MfadReadState *s, const char path[])
{
  MfadReader *r = &s->r[0];
  PetscInt    version, dim = 0, quad_line = 0, ncorner;
  PetscBool   vertices = PETSC_FALSE;
  char       *tok;

  PetscFunctionBegin;
  PetscCall(MfadReaderOpen_Private(r, path));
  PetscCall(MfadMeditNext(r, "MeshVersionFormatted", &tok));
  MfadReaderCheck(r, !strcasecmp(tok, "MeshVersionFormatted"), "'%s' where MeshVersionFormatted was expected (is this a Medit .mesh file?)",
                  MfadReaderShow_Private(tok));
  PetscCall(MfadMeditInt(r, "the version", &version));
  PetscCheck(version == 1 || version == 2, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%s:%" PetscInt_FMT ": MeshVersionFormatted %" PetscInt_FMT " (mfad reads 1 and 2)", r->path, r->line, version);
  for (;;) {
    size_t k;

    PetscCall(MfadMeditNext(r, "End", &tok));
    if (!strcasecmp(tok, "End")) break;
    if (!strcasecmp(tok, "Dimension")) {
      MfadReaderCheck(r, !dim, "a second Dimension");
      PetscCall(MfadMeditInt(r, "the dimension", &dim));
      MfadReaderCheck(r, dim == 2 || dim == 3, "Dimension %" PetscInt_FMT " (2 or 3)", dim);
      continue;
    }
    if (!strcasecmp(tok, "Vertices")) {
      PetscInt n;

      MfadReaderCheck(r, dim, "Vertices before Dimension");
      MfadReaderCheck(r, !vertices, "a second Vertices section");
      vertices = PETSC_TRUE;
      PetscCall(MfadMeditInt(r, "the number of vertices", &n));
      PetscCall(MfadReaderCheckCount_Private(r, "vertices", 2 * (dim + 1), n));
      for (PetscInt i = 0; i < n; i++) {
        PetscReal x[3] = {0, 0, 0};
        PetscInt  ref;

        PetscCall(MfadMeditRecord(r, "vertex", i, n, &tok));
        PetscCall(MfadReaderParseReal_Private(r, tok, "x coordinate of a vertex", &x[0]));
        PetscCall(MfadMeditReal(r, "y coordinate of a vertex", &x[1]));
        if (dim == 3) PetscCall(MfadMeditReal(r, "z coordinate of a vertex", &x[2]));
        PetscCall(MfadMeditInt(r, "the reference of a vertex", &ref));
        PetscCall(MfadArrayPush_Private(&s->coords, x, 3));
        PetscCall(MfadArrayPush_Private(&s->vertex_tags, &ref, 1));
      }
      continue;
    }
    for (k = 0; k < sizeof(MfadMeditElementSections) / sizeof(MfadMeditElementSections[0]); k++)
      if (!strcasecmp(tok, MfadMeditElementSections[k].keyword)) break;
    if (k < sizeof(MfadMeditElementSections) / sizeof(MfadMeditElementSections[0])) {
      MfadReaderCheck(r, vertices, "%s before Vertices", MfadMeditElementSections[k].keyword);
      PetscCall(MfadMeditElementSection(s, r, &MfadMeditElementSections[k], dim, &quad_line));
      continue;
    }
    for (k = 0; k < sizeof(MfadMeditOtherSections) / sizeof(MfadMeditOtherSections[0]); k++)
      if (!strcasecmp(tok, MfadMeditOtherSections[k].keyword)) break;
    if (k < sizeof(MfadMeditOtherSections) / sizeof(MfadMeditOtherSections[0])) {
      const MfadMeditOther *o   = &MfadMeditOtherSections[k];
      const PetscInt        per = o->nint ? o->nint : dim;
      PetscInt              n;

      MfadReaderCheck(r, dim, "%s before Dimension", o->keyword);
      PetscCall(MfadMeditInt(r, o->keyword, &n));
      PetscCall(MfadReaderCheckCount_Private(r, o->keyword, 2 * per, n));
      for (PetscInt i = 0; i < n; i++) {
        PetscCall(MfadMeditRecord(r, o->keyword, i, n, &tok));
        for (PetscInt j = 0; j < per; j++) {
          if (j) PetscCall(MfadMeditNext(r, o->keyword, &tok));
          if (o->nint) {
            PetscInt v;
            PetscCall(MfadReaderParseInt_Private(r, tok, o->keyword, &v));
          } else {
            PetscReal x;
            PetscCall(MfadReaderParseReal_Private(r, tok, o->keyword, &x));
          }
        }
      }
      continue;
    }
    MfadReaderCheck(r, !MfadMeditKeyword(tok), "unknown keyword '%s'", MfadReaderShow_Private(tok));
    MfadReaderCheck(r, PETSC_FALSE, "'%s' where a keyword was expected (more records than a section's count says?)", MfadReaderShow_Private(tok));
  }
  {
    PetscBool found = PETSC_FALSE;

    tok = MfadReaderToken_Private(r);
    if (!tok) PetscCall(MfadReaderNextLine_Private(r, &found));
    MfadReaderCheck(r, !tok && !found, "data after End");
  }
  MfadReaderCheck(r, vertices, "the file has no Vertices (an empty mesh)");
  if (!s->cells.n && quad_line) {
    r->line = quad_line;
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": Quadrilaterals: mfad reads tetrahedra and triangles only", r->path, r->line);
  }
  PetscCall(MfadReadStatePickCells_Private(s, &ncorner));
  PetscCall(MfadReadStateToMesh_Private(s, r, ncorner, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshReadMedit(const char path[], MfadMesh *mesh)
{
  MfadReadState s;

  PetscFunctionBegin;
  PetscCall(MfadReadStateInit_Private(&s, path, mesh));
  PetscCall(MfadReadStateFinish_Private(&s, MfadMeshReadMedit_Parse(&s, path), mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
