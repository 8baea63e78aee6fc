// SPDX-License-Identifier: BSD-2-Clause
/* MfadMeshReadGmsh: Gmsh meshes, MSH 2.x and 4.1, ASCII (here) and binary (the records of
   src/mesh/read_gmsh_binary.c). mfad reads them itself rather than through DMPlexCreateGmsh(), which
   (PETSc 3.18) trusts the file: a node index out of range crashes it on one rank and goes
   unnoticed on two. Here every count, tag and index is checked
   and an error names the file and line.
   The cells are the tets if the file has any, else the triangles (a tet mesh's boundary
   triangles, lines and points are checked and dropped); higher-order tets and triangles keep
   their corners. Only the nodes of the cells become vertices, in the file's order (Gmsh also
   lists the nodes of geometry points and high-order nodes); error messages name nodes by their
   tags. The physical group of a cell (2.x: its first tag; 4.1: its entity's first physical
   tag) is its cell tag. */
#include <string.h>
#include "read_gmsh.h"

/* Gmsh's element types (gmsh/src/common/GmshDefines.h): nodes, dimension, corners */
static const MfadGmshType MfadGmshTypes[] = {
    {1,  2,   1, 0},
    {2,  3,   2, 3},
    {3,  4,   2, 0},
    {4,  4,   3, 4},
    {5,  8,   3, 0},
    {6,  6,   3, 0},
    {7,  5,   3, 0},
    {8,  3,   1, 0},
    {9,  6,   2, 3},
    {10, 9,   2, 0},
    {11, 10,  3, 4},
    {12, 27,  3, 0},
    {13, 18,  3, 0},
    {14, 14,  3, 0},
    {15, 1,   0, 0},
    {16, 8,   2, 0},
    {17, 20,  3, 0},
    {18, 15,  3, 0},
    {19, 13,  3, 0},
    {20, 9,   2, 3},
    {21, 10,  2, 3},
    {22, 12,  2, 3},
    {23, 15,  2, 3},
    {24, 15,  2, 3},
    {25, 21,  2, 3},
    {26, 4,   1, 0},
    {27, 5,   1, 0},
    {28, 6,   1, 0},
    {29, 20,  3, 4},
    {30, 35,  3, 4},
    {31, 56,  3, 4},
    {92, 64,  3, 0},
    {93, 125, 3, 0},
};
const MfadGmshType *MfadGmshTypeFind_Private(PetscInt type)
{
  for (size_t i = 0; i < sizeof(MfadGmshTypes) / sizeof(MfadGmshTypes[0]); i++)
    if (MfadGmshTypes[i].type == type) return &MfadGmshTypes[i];
  return NULL;
}

/* The next line, which must be record i of the n `what` of section `sec`; *tok is its first token.
   A section line there means the header's count is too large. */
static PetscErrorCode MfadGmshRecord(MfadReader *r, const char sec[], const char what[], PetscInt i, PetscInt n, char **tok)
{
  PetscFunctionBegin;
  PetscCall(MfadReaderExpectLine_Private(r, what, i, n));
  *tok = MfadReaderToken_Private(r);
  MfadReaderCheck(r, (*tok)[0] != '$', "'%s' where %s %" PetscInt_FMT " of %" PetscInt_FMT " was expected (the count in the %s header is too large)",
                  MfadReaderShow_Private(*tok), what, i + 1, n, sec);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The line after a section's records: $End<sec>; anything else means the count was too small. */
PetscErrorCode MfadGmshSectionEnd_Private(MfadReader *r, const char sec[], PetscInt n, const char what[])
{
  char  end[64];
  char *tok;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", sec + 1));
  PetscCall(MfadReaderExpectLine_Private(r, end, 0, 0));
  tok = MfadReaderToken_Private(r);
  MfadReaderCheck(r, !strcmp(tok, end), "'%s' where %s was expected: more data than the %" PetscInt_FMT " %s the %s header announced",
                  MfadReaderShow_Private(tok), end, n, what, sec);
  PetscCall(MfadReaderExpectEnd_Private(r, end));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A section mfad does not need ($PhysicalNames, $Periodic, $NodeData ...): skipped to its end */
static PetscErrorCode MfadGmshSkipSection(MfadReader *r, const char section[])
{
  char      end[64], sec[64]; /* section is in the line buffer that the next line overwrites */
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(sec, sizeof(sec), "%.50s", section));
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", sec + 1));
  for (;;) {
    const char *tok;

    PetscCall(MfadReaderNextLine_Private(r, &found));
    MfadReaderCheck(r, found, "the file ends inside section %s (no %s)", sec, end);
    tok = MfadReaderToken_Private(r);
    if (!strcmp(tok, end)) break;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "$MeshFormat", then "<version> <file-type> <data-size>" */
static PetscErrorCode MfadGmshFormat(MfadGmsh *g)
{
  MfadReader *r = g->r;
  char       *tok, *version;
  PetscInt    filetype, datasize;

  PetscFunctionBegin;
  PetscCall(MfadReaderExpectLine_Private(r, "$MeshFormat", 0, 0));
  tok = MfadReaderToken_Private(r);
  PetscCheck(strcmp(tok, "$NOD") && strcmp(tok, "$NOE"), PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%s:%" PetscInt_FMT ": Gmsh's version 1 format is not read (save as MSH 2.2 or 4.1)", r->path, r->line);
  MfadReaderCheck(r, !strcmp(tok, "$MeshFormat"), "'%s' where $MeshFormat was expected (is this a Gmsh .msh file?)", MfadReaderShow_Private(tok));
  PetscCall(MfadReaderExpectEnd_Private(r, "$MeshFormat"));
  PetscCall(MfadReaderExpectLine_Private(r, "the format line (version, file type, data size)", 0, 0));
  version = MfadReaderToken_Private(r);
  PetscCall(MfadReaderInt_Private(r, "the file type (0 ASCII, 1 binary)", &filetype));
  PetscCall(MfadReaderInt_Private(r, "the data size", &datasize));
  MfadReaderCheck(r, filetype == 0 || filetype == 1, "file type %" PetscInt_FMT " (0 ASCII, 1 binary)", filetype);
  g->binary = filetype == 1;
  if (g->binary) r->split_end = PETSC_FALSE, r->pending = NULL; /* binary records follow the line: no text to split */
  /* binary records hold doubles and (4.1) size_t of data-size bytes: 8 */
  PetscCheck(!g->binary || datasize == 8, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": binary data size %" PetscInt_FMT " (mfad reads 8)",
             r->path, r->line, datasize);
  if (!strcmp(version, "4.1")) g->v4 = 1;
  else if (!strcmp(version, "2") || !strcmp(version, "2.0") || !strcmp(version, "2.1") || !strcmp(version, "2.2")) g->v4 = 0;
  else
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": MSH version '%s' is not read (mfad reads 2.2 and 4.1)", r->path, r->line,
            MfadReaderShow_Private(version));
  PetscCall(MfadReaderExpectEnd_Private(r, "the format line"));
  if (g->binary) PetscCall(MfadGmshBinaryOne_Private(g));
  PetscCall(MfadGmshSectionEnd_Private(r, "$MeshFormat", 1, "format line"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 4.1 "$Entities": points "tag x y z nphys phys...", curves, surfaces and volumes "tag minx miny
   minz maxx maxy maxz nphys phys... nbound bound..." */
static PetscErrorCode MfadGmshEntities(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n[4];
  const char *names[4] = {"point entity", "curve entity", "surface entity", "volume entity"};

  PetscFunctionBegin;
  MfadReaderCheck(r, g->v4, "$Entities in an MSH 2 file");
  MfadReaderCheck(r, !g->have_entities, "a second $Entities section");
  g->have_entities = PETSC_TRUE;
  PetscCall(MfadReaderExpectLine_Private(r, "the $Entities header (points, curves, surfaces, volumes)", 0, 0));
  for (int d = 0; d < 4; d++) PetscCall(MfadReaderCount_Private(r, names[d], 10, &n[d]));
  PetscCall(MfadReaderExpectEnd_Private(r, "the $Entities header"));
  for (PetscInt d = 0; d < 4; d++)
    for (PetscInt i = 0; i < n[d]; i++) {
      PetscInt  e[3] = {d, 0, 0}, np, nb, t;
      PetscReal x;
      char     *tok = NULL;

      PetscCall(MfadGmshRecord(r, "$Entities", names[d], i, n[d], &tok));
      PetscCall(MfadReaderParseInt_Private(r, tok, "an entity tag", &e[1]));
      for (int k = 0; k < (d ? 6 : 3); k++) PetscCall(MfadReaderReal_Private(r, d ? "a bounding box coordinate" : "a point's coordinate", &x));
      PetscCall(MfadReaderInt_Private(r, "the number of physical tags", &np));
      MfadReaderCheck(r, np >= 0, "negative number of physical tags %" PetscInt_FMT, np);
      for (PetscInt k = 0; k < np; k++) {
        PetscCall(MfadReaderInt_Private(r, "a physical tag (fewer than announced)", &t));
        if (k == 0) e[2] = t;
      }
      if (d) {
        PetscCall(MfadReaderInt_Private(r, "the number of bounding entities", &nb));
        MfadReaderCheck(r, nb >= 0, "negative number of bounding entities %" PetscInt_FMT, nb);
        for (PetscInt k = 0; k < nb; k++) PetscCall(MfadReaderInt_Private(r, "a bounding entity (fewer than announced)", &t));
      }
      PetscCall(MfadReaderExpectEnd_Private(r, "an entity (more numbers than its counts say)"));
      PetscCall(MfadArrayPush_Private(&g->entities, e, 3));
    }
  PetscCall(MfadGmshSectionEnd_Private(r, "$Entities", n[0] + n[1] + n[2] + n[3], "entities"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadGmshPushNode_Private(MfadGmsh *g, PetscInt tag, const PetscReal x[3])
{
  MfadReader *r = g->r;

  PetscFunctionBegin;
  MfadReaderCheck(r, tag > 0, "node tag %" PetscInt_FMT " (Gmsh's tags are positive)", tag);
  PetscCall(MfadArrayPush_Private(&g->tags, &tag, 1));
  PetscCall(MfadArrayPush_Private(&g->nlines, &r->line, 1));
  PetscCall(MfadArrayPush_Private(&g->nodes, x, 3));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* x (its token `first`, when the caller has read it, else NULL), y, z and nparam parametric coordinates */
static PetscErrorCode MfadGmshCoordinates(MfadReader *r, const char first[], PetscReal x[3], PetscInt nparam)
{
  PetscReal u;

  PetscFunctionBegin;
  if (first) PetscCall(MfadReaderParseReal_Private(r, first, "x coordinate of a node", &x[0]));
  else PetscCall(MfadReaderReal_Private(r, "x coordinate of a node", &x[0]));
  PetscCall(MfadReaderReal_Private(r, "y coordinate of a node", &x[1]));
  PetscCall(MfadReaderReal_Private(r, "z coordinate of a node", &x[2]));
  for (PetscInt k = 0; k < nparam; k++) PetscCall(MfadReaderReal_Private(r, "a parametric coordinate of a node", &u));
  PetscCall(MfadReaderExpectEnd_Private(r, "a node's coordinates"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* "$Nodes"; then the tags sorted, for the elements' look-ups (a tag defined twice is an error) */
static PetscErrorCode MfadGmshNodes(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n, nblocks = 1, tmin = 0, tmax = 0, total = 0;
  char       *tok;

  PetscFunctionBegin;
  MfadReaderCheck(r, !g->have_nodes, "a second $Nodes section");
  g->have_nodes = PETSC_TRUE;
  PetscCall(MfadReaderExpectLine_Private(r, "the $Nodes header", 0, 0));
  if (g->v4) {
    PetscCall(MfadReaderCount_Private(r, "node blocks", 8, &nblocks));
    PetscCall(MfadReaderCount_Private(r, "nodes", 8, &n));
    PetscCall(MfadReaderInt_Private(r, "the smallest node tag", &tmin));
    PetscCall(MfadReaderInt_Private(r, "the largest node tag", &tmax));
  } else PetscCall(MfadReaderCount_Private(r, "nodes", 8, &n));
  PetscCall(MfadReaderExpectEnd_Private(r, "the $Nodes header"));
  if (!g->v4) {
    for (PetscInt i = 0; i < n; i++) {
      PetscInt  tag;
      PetscReal x[3];

      PetscCall(MfadGmshRecord(r, "$Nodes", "node", i, n, &tok));
      PetscCall(MfadReaderParseInt_Private(r, tok, "a node tag", &tag));
      PetscCall(MfadGmshCoordinates(r, NULL, x, 0));
      PetscCall(MfadGmshPushNode_Private(g, tag, x));
    }
    total = n;
  } else {
    for (PetscInt b = 0; b < nblocks; b++) {
      PetscInt dim, etag, param, nb, first = (PetscInt)g->tags.n, header;

      PetscCall(MfadGmshRecord(r, "$Nodes", "node block", b, nblocks, &tok));
      PetscCall(MfadReaderParseInt_Private(r, tok, "a node block's entity dimension", &dim));
      MfadReaderCheck(r, dim >= 0 && dim <= 3, "entity dimension %" PetscInt_FMT " (0 to 3)", dim);
      PetscCall(MfadReaderInt_Private(r, "a node block's entity tag", &etag));
      PetscCall(MfadReaderInt_Private(r, "a node block's parametric flag", &param));
      MfadReaderCheck(r, param == 0 || param == 1, "parametric flag %" PetscInt_FMT " (0 or 1)", param);
      PetscCall(MfadReaderCount_Private(r, "nodes in a block", 8, &nb));
      PetscCall(MfadReaderExpectEnd_Private(r, "a node block header"));
      header = r->line;
      MfadReaderCheck(r, nb <= n - total, "the node blocks hold more than the %" PetscInt_FMT " nodes the $Nodes header announced", n);
      total += nb;
      /* the block's tags, one a line, then its coordinates, one node a line */
      for (PetscInt i = 0; i < nb; i++) {
        PetscInt        tag;
        const PetscReal zero[3] = {0, 0, 0};

        PetscCall(MfadGmshRecord(r, "$Nodes", "node tag of the block", i, nb, &tok));
        {
          /* a line of coordinates where a tag was expected: the block's count is larger than its
             tags (said so, not as "'0.0' is not an integer") */
          const char *more = MfadReaderToken_Private(r);
          char       *end;

          (void)strtoll(tok, &end, 10);
          MfadReaderCheck(r, i == 0 || (end != tok && !*end && !more),
                          "'%s' where node tag %" PetscInt_FMT " of %" PetscInt_FMT " was expected: the block header on line %" PetscInt_FMT
                          " says %" PetscInt_FMT " nodes, the block lists %" PetscInt_FMT " tags (the count is too large)",
                          MfadReaderShow_Private(tok), i + 1, nb, header, nb, i);
          MfadReaderCheck(r, !more, "unexpected '%s' after a node tag", MfadReaderShow_Private(more));
        }
        PetscCall(MfadReaderParseInt_Private(r, tok, "a node tag", &tag));
        MfadReaderCheck(r, tag >= tmin && tag <= tmax, "node tag %" PetscInt_FMT " outside the header's range %" PetscInt_FMT " to %" PetscInt_FMT,
                        tag, tmin, tmax);
        PetscCall(MfadGmshPushNode_Private(g, tag, zero));
      }
      for (PetscInt i = 0; i < nb; i++) {
        PetscReal *x = (PetscReal *)g->nodes.data + 3 * (first + i);

        PetscCall(MfadGmshRecord(r, "$Nodes", "node coordinate line of the block", i, nb, &tok));
        PetscCall(MfadGmshCoordinates(r, tok, x, param ? dim : 0));
        ((PetscInt *)g->nlines.data)[first + i] = r->line;
      }
    }
    MfadReaderCheck(r, total == n, "the node blocks hold %" PetscInt_FMT " nodes, the $Nodes header announced %" PetscInt_FMT, total, n);
  }
  PetscCall(MfadGmshSectionEnd_Private(r, "$Nodes", total, "nodes"));
  PetscCall(MfadGmshNodeTable_Private(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The tags sorted, with their node, for the elements' look-ups; a tag defined twice is an error */
PetscErrorCode MfadGmshNodeTable_Private(MfadGmsh *g)
{
  PetscFunctionBegin;
  PetscCall(PetscMalloc2(g->tags.n, &g->sorted, g->tags.n, &g->perm));
  for (size_t i = 0; i < g->tags.n; i++) {
    g->sorted[i] = ((const PetscInt *)g->tags.data)[i];
    g->perm[i]   = (PetscInt)i;
  }
  PetscCall(PetscSortIntWithArray((PetscInt)g->tags.n, g->sorted, g->perm));
  for (size_t i = 1; i < g->tags.n; i++)
    if (g->sorted[i] == g->sorted[i - 1]) {
      const PetscInt *lines = (const PetscInt *)g->nlines.data, a = lines[g->perm[i - 1]], c = lines[g->perm[i]];
      MfadReader     *r = g->r;

      r->line = PetscMax(a, c);
      MfadReaderCheck(r, PETSC_FALSE, "node %" PetscInt_FMT " is defined twice (also on line %" PetscInt_FMT ")", g->sorted[i], PetscMin(a, c));
    }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Element `etag` of type t on the nodes of tags node[], checked to be defined; a triangle or tet
   (corners distinct) is kept with its physical tag and the line it ends on. */
PetscErrorCode MfadGmshPushElement_Private(MfadGmsh *g, PetscInt etag, const MfadGmshType *t, PetscInt phys, const PetscInt node[])
{
  MfadReader    *r = g->r;
  MfadReadState *s = g->s;
  PetscInt       idx[4];

  PetscFunctionBegin;
  for (int k = 0; k < t->nodes; k++) {
    PetscInt loc = -1;

    PetscCall(PetscFindInt(node[k], (PetscInt)g->tags.n, g->sorted, &loc));
    MfadReaderCheck(r, loc >= 0,
                    "element %" PetscInt_FMT " refers to node %" PetscInt_FMT ", which the $Nodes section does not define (%" PetscInt_FMT
                    " nodes, tags %" PetscInt_FMT " to %" PetscInt_FMT ")",
                    etag, node[k], (PetscInt)g->tags.n, g->tags.n ? g->sorted[0] : 0, g->tags.n ? g->sorted[g->tags.n - 1] : 0);
    if (k < 4) idx[k] = g->perm[loc];
  }
  g->maxdim = PetscMax(g->maxdim, t->dim);
  if (!t->corners) {
    if (!g->odd_line[t->dim]) g->odd_line[t->dim] = r->line, g->odd_type[t->dim] = t->type;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MfadReaderCheckDistinct_Private(r, t->corners == 4 ? "tetrahedron" : "triangle", node, t->corners, 0));
  PetscCall(MfadArrayPush_Private(t->corners == 4 ? &s->cells : &s->tris, idx, (size_t)t->corners));
  PetscCall(MfadArrayPush_Private(t->corners == 4 ? &s->lines : &s->tri_lines, &r->line, 1));
  PetscCall(MfadArrayPush_Private(t->corners == 4 ? &s->cell_tags : &s->tri_tags, &phys, 1));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The node tags of element `etag` of type t, the rest of its line */
static PetscErrorCode MfadGmshElement(MfadGmsh *g, PetscInt etag, const MfadGmshType *t, PetscInt phys)
{
  MfadReader *r = g->r;
  PetscInt    node[MFAD_GMSH_MAX_NODES];

  PetscFunctionBegin;
  for (int k = 0; k < t->nodes; k++) PetscCall(MfadReaderInt_Private(r, "a node of an element (fewer than its type has)", &node[k]));
  PetscCall(MfadReaderExpectEnd_Private(r, "an element (more nodes than its type has)"));
  PetscCall(MfadGmshPushElement_Private(g, etag, t, phys, node));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadGmshTypeGet_Private(MfadReader *r, PetscInt type, const MfadGmshType **t)
{
  PetscFunctionBegin;
  *t = MfadGmshTypeFind_Private(type);
  PetscCheck(*t, PETSC_COMM_SELF, PETSC_ERR_SUP,
             "%s:%" PetscInt_FMT ": element type %" PetscInt_FMT " is not one mfad knows (Gmsh types 1-31, 92, 93)", r->path, r->line, type);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt MfadGmshPhysical_Private(const MfadGmsh *g, PetscInt dim, PetscInt tag)
{
  const PetscInt *ent = (const PetscInt *)g->entities.data;

  for (size_t e = 0; e < g->entities.n / 3; e++)
    if (ent[3 * e] == dim && ent[3 * e + 1] == tag) return ent[3 * e + 2];
  return 0;
}

/* "$Elements". 2.x: "tag type ntags tags... nodes..."; 4.1: blocks "dim entity type n", then
   "tag nodes..." */
static PetscErrorCode MfadGmshElements(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n, nblocks = 1, tmin, tmax, total = 0;
  char       *tok;

  PetscFunctionBegin;
  MfadReaderCheck(r, g->have_nodes, "$Elements before $Nodes");
  MfadReaderCheck(r, !g->have_elements, "a second $Elements section");
  g->have_elements = PETSC_TRUE;
  PetscCall(MfadReaderExpectLine_Private(r, "the $Elements header", 0, 0));
  if (g->v4) {
    PetscCall(MfadReaderCount_Private(r, "element blocks", 8, &nblocks));
    PetscCall(MfadReaderCount_Private(r, "elements", 4, &n));
    PetscCall(MfadReaderInt_Private(r, "the smallest element tag", &tmin));
    PetscCall(MfadReaderInt_Private(r, "the largest element tag", &tmax));
  } else PetscCall(MfadReaderCount_Private(r, "elements", 8, &n));
  PetscCall(MfadReaderExpectEnd_Private(r, "the $Elements header"));
  if (!g->v4) {
    for (PetscInt i = 0; i < n; i++) {
      PetscInt            etag, type, ntags, tag, phys = 0;
      const MfadGmshType *t;

      PetscCall(MfadGmshRecord(r, "$Elements", "element", i, n, &tok));
      PetscCall(MfadReaderParseInt_Private(r, tok, "an element tag", &etag));
      PetscCall(MfadReaderInt_Private(r, "an element type", &type));
      PetscCall(MfadGmshTypeGet_Private(r, type, &t));
      PetscCall(MfadReaderInt_Private(r, "the number of tags", &ntags));
      MfadReaderCheck(r, ntags >= 0, "element %" PetscInt_FMT " has a negative number of tags %" PetscInt_FMT, etag, ntags);
      for (PetscInt k = 0; k < ntags; k++) {
        PetscCall(MfadReaderInt_Private(r, "a tag of an element (fewer than announced)", &tag));
        if (k == 0) phys = tag;
      }
      PetscCall(MfadGmshElement(g, etag, t, phys));
    }
    total = n;
  } else {
    for (PetscInt b = 0; b < nblocks; b++) {
      PetscInt            dim, etag, type, nb, phys = 0;
      const MfadGmshType *t;

      PetscCall(MfadGmshRecord(r, "$Elements", "element block", b, nblocks, &tok));
      PetscCall(MfadReaderParseInt_Private(r, tok, "an element block's entity dimension", &dim));
      PetscCall(MfadReaderInt_Private(r, "an element block's entity tag", &etag));
      PetscCall(MfadReaderInt_Private(r, "an element block's element type", &type));
      PetscCall(MfadReaderCount_Private(r, "elements in a block", 4, &nb));
      PetscCall(MfadReaderExpectEnd_Private(r, "an element block header"));
      PetscCall(MfadGmshTypeGet_Private(r, type, &t));
      MfadReaderCheck(r, dim == t->dim, "element type %" PetscInt_FMT " (of dimension %d) in a block of entity dimension %" PetscInt_FMT, type,
                      t->dim, dim);
      MfadReaderCheck(r, nb <= n - total, "the element blocks hold more than the %" PetscInt_FMT " elements the $Elements header announced", n);
      total += nb;
      phys = MfadGmshPhysical_Private(g, dim, etag);
      for (PetscInt i = 0; i < nb; i++) {
        PetscCall(MfadGmshRecord(r, "$Elements", "element of the block", i, nb, &tok));
        PetscCall(MfadReaderParseInt_Private(r, tok, "an element tag", &etag));
        PetscCall(MfadGmshElement(g, etag, t, phys));
      }
    }
    MfadReaderCheck(r, total == n, "the element blocks hold %" PetscInt_FMT " elements, the $Elements header announced %" PetscInt_FMT, total, n);
  }
  PetscCall(MfadGmshSectionEnd_Private(r, "$Elements", total, "elements"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The cells (tets, else triangles) on the nodes they use, renumbered in the file's order */
static PetscErrorCode MfadGmshFinish(MfadGmsh *g)
{
  MfadReader     *r = g->r;
  MfadReadState  *s = g->s;
  PetscInt        ncorner, nnode = (PetscInt)g->tags.n, nv = 0, *used, *cells;
  PetscBool       tagged = PETSC_FALSE;
  const PetscInt *tags   = (const PetscInt *)g->tags.data;

  PetscFunctionBegin;
  MfadReaderCheck(r, g->have_nodes, "the file ends without a $Nodes section");
  MfadReaderCheck(r, g->have_elements, "the file ends without an $Elements section");
  MfadReaderCheck(r, g->maxdim >= 2, "the file has no triangles or tetrahedra (an empty mesh)");
  if (g->odd_line[g->maxdim]) {
    r->line = g->odd_line[g->maxdim];
    SETERRQ(PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": element type %" PetscInt_FMT " in a %" PetscInt_FMT "-D mesh: mfad reads %s only",
            r->path, r->line, g->odd_type[g->maxdim], g->maxdim, g->maxdim == 3 ? "tetrahedra" : "triangles");
  }
  PetscCall(MfadReadStatePickCells_Private(s, &ncorner));
  cells = (PetscInt *)s->cells.data;
  PetscCall(PetscMalloc1(nnode, &used));
  for (PetscInt i = 0; i < nnode; i++) used[i] = -1;
  for (size_t i = 0; i < s->cells.n; i++) used[cells[i]] = 0;
  for (PetscInt i = 0; i < nnode; i++)
    if (!used[i]) {
      used[i] = nv++;
      PetscCall(MfadArrayPush_Private(&s->coords, (const PetscReal *)g->nodes.data + 3 * i, 3));
      PetscCall(MfadArrayPush_Private(&s->vertex_id, &tags[i], 1));
    }
  for (size_t i = 0; i < s->cells.n; i++) cells[i] = used[cells[i]];
  PetscCall(PetscFree(used));
  for (size_t i = 0; i < s->cell_tags.n; i++) tagged = (PetscBool)(tagged || ((const PetscInt *)s->cell_tags.data)[i]);
  if (!tagged) s->cell_tags.n = 0; /* no physical groups */
  PetscCall(MfadReadStateToMesh_Private(s, r, ncorner, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadMeshReadGmsh_Parse(MfadGmsh *g, const char path[])
{
  MfadReader *r = g->r;
  PetscBool   found;

  PetscFunctionBegin;
  PetscCall(MfadReaderOpen_Private(r, path));
  r->split_end = PETSC_TRUE;
  PetscCall(MfadGmshFormat(g));
  for (;;) {
    char *tok;

    PetscCall(MfadReaderNextLine_Private(r, &found));
    if (!found) break;
    tok = MfadReaderToken_Private(r);
    MfadReaderCheck(r, tok[0] == '$' && tok[1], "'%s' outside a section (a line like $Nodes was expected)", MfadReaderShow_Private(tok));
    PetscCall(MfadReaderExpectEnd_Private(r, "a section name"));
    if (!strcmp(tok, "$Nodes")) PetscCall(g->binary ? MfadGmshNodesBinary_Private(g) : MfadGmshNodes(g));
    else if (!strcmp(tok, "$Elements")) PetscCall(g->binary ? MfadGmshElementsBinary_Private(g) : MfadGmshElements(g));
    else if (!strcmp(tok, "$Entities")) PetscCall(g->binary ? MfadGmshEntitiesBinary_Private(g) : MfadGmshEntities(g));
    else {
      MfadReaderCheck(r, strncmp(tok, "$End", 4), "'%s' without its section", MfadReaderShow_Private(tok));
      MfadReaderCheck(r, strcmp(tok, "$MeshFormat"), "a second $MeshFormat");
      if (g->binary && strcmp(tok, "$PhysicalNames")) PetscCall(MfadGmshSkipSectionBinary_Private(g, tok)); /* binary records */
      else PetscCall(MfadGmshSkipSection(r, tok));
    }
  }
  PetscCall(MfadGmshFinish(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshReadGmsh(const char path[], MfadMesh *mesh)
{
  MfadReadState  s;
  MfadGmsh       g;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  PetscCall(MfadReadStateInit_Private(&s, path, mesh));
  PetscCall(PetscMemzero(&g, sizeof(g)));
  g.s = &s, g.r = &s.r[0], g.maxdim = -1;
  g.nodes.size = sizeof(PetscReal);
  g.tags.size = g.nlines.size = g.entities.size = sizeof(PetscInt);
  ierr                                          = MfadMeshReadGmsh_Parse(&g, path);
  PetscCall(MfadArrayDestroy_Private(&g.nodes));
  PetscCall(MfadArrayDestroy_Private(&g.tags));
  PetscCall(MfadArrayDestroy_Private(&g.nlines));
  PetscCall(MfadArrayDestroy_Private(&g.entities));
  PetscCall(PetscFree2(g.sorted, g.perm));
  PetscCall(MfadReadStateFinish_Private(&s, ierr, mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}
