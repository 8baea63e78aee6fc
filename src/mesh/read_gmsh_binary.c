// SPDX-License-Identifier: BSD-2-Clause
/* Binary Gmsh files (MSH 2.2 and 4.1, file type 1, data size 8, this machine's byte order): the
   records of $Entities, $Nodes and $Elements are binary (2.2: 4-byte ints and doubles after an
   ASCII count line; 4.1: 4-byte ints, 8-byte size_t and doubles), the rest of the file is text.
   The same checks as for ASCII files (src/mesh/read_gmsh.c); line numbers in messages count the line
   ends in the binary data too, so that they are the file's lines. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "read_gmsh.h"

/* size bytes into buf; the end of the file there is an error naming `what` */
static PetscErrorCode MfadGmshRead(MfadReader *r, void *buf, size_t size, const char what[])
{
  const size_t got = fread(buf, 1, size, r->fp);
  const char  *p = (const char *)buf, *end = p + got;

  PetscFunctionBegin;
  while ((p = (const char *)memchr(p, '\n', (size_t)(end - p)))) r->line++, p++;
  MfadReaderCheck(r, got == size, "the file ends inside %s (truncated, or a count is too large)", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MfadGmshInt(MfadReader *r, const char what[], PetscInt *v)
{
  int x = 0;

  PetscFunctionBegin;
  *v = 0;
  PetscCall(MfadGmshRead(r, &x, sizeof(x), what));
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a 4.1 size_t (data size 8): a count or a tag, which must fit PetscInt */
static PetscErrorCode MfadGmshSize(MfadReader *r, const char what[], PetscInt *v)
{
  uint64_t x = 0;

  PetscFunctionBegin;
  *v = 0;
  PetscCall(MfadGmshRead(r, &x, sizeof(x), what));
  MfadReaderCheck(r, x <= (uint64_t)PETSC_MAX_INT, "%" PetscInt64_FMT " is out of range (%s)", (PetscInt64)x, what);
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* n doubles, finite */
static PetscErrorCode MfadGmshReals(MfadReader *r, const char what[], PetscInt n, PetscReal *v)
{
  double x[16];

  PetscFunctionBegin;
  PetscCheck(n <= 16, PETSC_COMM_SELF, PETSC_ERR_PLIB, "MfadGmshReals: %" PetscInt_FMT " > 16", n);
  PetscCall(MfadGmshRead(r, x, sizeof(double) * (size_t)n, what));
  for (PetscInt i = 0; i < n; i++) {
    MfadReaderCheck(r, isfinite(x[i]), "%g is not a finite number (%s)", x[i], what);
    if (v) v[i] = (PetscReal)x[i];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a count (2.2: int, 4.1: size_t) that the file's remaining bytes could hold at min_bytes each */
static PetscErrorCode MfadGmshCount(MfadGmsh *g, const char what[], PetscInt min_bytes, PetscInt *n)
{
  PetscFunctionBegin;
  if (g->v4) { /* a size_t: one beyond PetscInt is a count too large, said with its value */
    uint64_t x = 0;

    PetscCall(MfadGmshRead(g->r, &x, sizeof(x), what));
    PetscCall(MfadReaderCheckCount64_Private(g->r, what, min_bytes, (PetscInt64)PetscMin(x, (uint64_t)INT64_MAX)));
    *n = (PetscInt)x;
  } else {
    PetscCall(MfadGmshInt(g->r, what, n));
    PetscCall(MfadReaderCheckCount_Private(g->r, what, min_bytes, *n));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Binary data starts on the line after the text line just read ... */
static void MfadGmshBinaryBegin(MfadReader *r)
{
  r->line++;
  r->cur = NULL;
}

/* ... and ends with a line end, which the line reader then reads as an empty line: $End<sec> follows */
static PetscErrorCode MfadGmshBinaryEnd(MfadGmsh *g, const char sec[], PetscInt n, const char what[])
{
  PetscFunctionBegin;
  g->r->line--;
  PetscCall(MfadGmshSectionEnd_Private(g->r, sec, n, what));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Record i of n `what`: "\n$End" there means the count was too large (looked at only when the
   next byte is a line end, and in a regular file, where the reader can go back) */
static PetscErrorCode MfadGmshBinaryRecord(MfadReader *r, const char what[], PetscInt i, PetscInt n)
{
  int c = getc(r->fp);

  PetscFunctionBegin;
  if (c == EOF) PetscFunctionReturn(PETSC_SUCCESS); /* the read that follows says so */
  PetscCheck(ungetc(c, r->fp) != EOF, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot read", r->path);
  if (c == '\n' && r->size >= 0) {
    char buf[5];
    long pos = ftell(r->fp);
    int  end = fread(buf, 1, 5, r->fp) == 5 && !memcmp(buf, "\n$End", 5);

    PetscCheck(pos >= 0 && !fseek(r->fp, pos, SEEK_SET), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s: cannot seek", r->path);
    MfadReaderCheck(r, !end, "the binary data end before %s %" PetscInt_FMT " of %" PetscInt_FMT " (the count is too large)", what, i + 1, n);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadGmshBinaryOne_Private(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    one;

  PetscFunctionBegin;
  MfadGmshBinaryBegin(r);
  PetscCall(MfadGmshInt(r, "the binary 1 after the format line", &one));
  r->line--; /* its line end comes next */
  PetscCheck(one != 0x01000000, PETSC_COMM_SELF, PETSC_ERR_SUP, "%s:%" PetscInt_FMT ": a binary Gmsh file in the other byte order is not read",
             r->path, r->line);
  MfadReaderCheck(r, one == 1, "the binary 1 after the format line reads %" PetscInt_FMT, one);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadGmshEntitiesBinary_Private(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n[4];
  const char *names[4] = {"point entities", "curve entities", "surface entities", "volume entities"};

  PetscFunctionBegin;
  MfadReaderCheck(r, g->v4, "$Entities in an MSH 2 file");
  MfadReaderCheck(r, !g->have_entities, "a second $Entities section");
  g->have_entities = PETSC_TRUE;
  MfadGmshBinaryBegin(r);
  for (int d = 0; d < 4; d++) PetscCall(MfadGmshCount(g, names[d], 40, &n[d])); /* tag, 3 doubles, count */
  for (PetscInt d = 0; d < 4; d++)
    for (PetscInt i = 0; i < n[d]; i++) {
      PetscInt e[3] = {d, 0, 0}, np, nb, t;

      PetscCall(MfadGmshBinaryRecord(r, names[d], i, n[d]));
      PetscCall(MfadGmshInt(r, "an entity tag", &e[1]));
      PetscCall(MfadGmshReals(r, d ? "a bounding box" : "a point's coordinates", d ? 6 : 3, NULL));
      PetscCall(MfadGmshSize(r, "the number of physical tags", &np));
      PetscCall(MfadReaderCheckCount_Private(r, "physical tags", 4, np));
      for (PetscInt k = 0; k < np; k++) {
        PetscCall(MfadGmshInt(r, "a physical tag", &t));
        if (k == 0) e[2] = t;
      }
      if (d) {
        PetscCall(MfadGmshSize(r, "the number of bounding entities", &nb));
        PetscCall(MfadReaderCheckCount_Private(r, "bounding entities", 4, nb));
        for (PetscInt k = 0; k < nb; k++) PetscCall(MfadGmshInt(r, "a bounding entity", &t));
      }
      PetscCall(MfadArrayPush_Private(&g->entities, e, 3));
    }
  PetscCall(MfadGmshBinaryEnd(g, "$Entities", n[0] + n[1] + n[2] + n[3], "entities"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2.2: "<n>" (text), then n times int tag, 3 doubles. 4.1: size_t blocks, nodes, min and max
   tag; each block int dimension, entity, parametric, size_t count, then its size_t tags, then its
   coordinates (3 doubles, and the parametric ones) */
PetscErrorCode MfadGmshNodesBinary_Private(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n, nblocks, tmin, tmax, total = 0;

  PetscFunctionBegin;
  MfadReaderCheck(r, !g->have_nodes, "a second $Nodes section");
  g->have_nodes = PETSC_TRUE;
  if (!g->v4) {
    PetscCall(MfadReaderExpectLine_Private(r, "the $Nodes count", 0, 0));
    PetscCall(MfadReaderCount_Private(r, "nodes", 28, &n));
    PetscCall(MfadReaderExpectEnd_Private(r, "the $Nodes count"));
    MfadGmshBinaryBegin(r);
    for (PetscInt i = 0; i < n; i++) {
      PetscInt  tag;
      PetscReal x[3];

      PetscCall(MfadGmshBinaryRecord(r, "node", i, n));
      PetscCall(MfadGmshInt(r, "a node tag", &tag));
      PetscCall(MfadGmshReals(r, "a node's coordinates", 3, x));
      PetscCall(MfadGmshPushNode_Private(g, tag, x));
    }
    total = n;
  } else {
    MfadGmshBinaryBegin(r);
    PetscCall(MfadGmshCount(g, "node blocks", 20, &nblocks));
    PetscCall(MfadGmshCount(g, "nodes", 32, &n));
    PetscCall(MfadGmshSize(r, "the smallest node tag", &tmin));
    PetscCall(MfadGmshSize(r, "the largest node tag", &tmax));
    for (PetscInt b = 0; b < nblocks; b++) {
      PetscInt dim, etag, param, nb, first = (PetscInt)g->tags.n, np;

      PetscCall(MfadGmshBinaryRecord(r, "node block", b, nblocks));
      PetscCall(MfadGmshInt(r, "a node block's entity dimension", &dim));
      MfadReaderCheck(r, dim >= 0 && dim <= 3, "entity dimension %" PetscInt_FMT " (0 to 3)", dim);
      PetscCall(MfadGmshInt(r, "a node block's entity tag", &etag));
      PetscCall(MfadGmshInt(r, "a node block's parametric flag", &param));
      MfadReaderCheck(r, param == 0 || param == 1, "parametric flag %" PetscInt_FMT " (0 or 1)", param);
      PetscCall(MfadGmshCount(g, "nodes in a block", 32, &nb));
      MfadReaderCheck(r, nb <= n - total, "the node blocks hold more than the %" PetscInt_FMT " nodes the $Nodes header announced", n);
      total += nb;
      np = param ? dim : 0;
      for (PetscInt i = 0; i < nb; i++) {
        PetscInt        tag;
        const PetscReal zero[3] = {0, 0, 0};

        PetscCall(MfadGmshBinaryRecord(r, "node tag of the block", i, nb));
        PetscCall(MfadGmshSize(r, "a node tag", &tag));
        MfadReaderCheck(r, tag >= tmin && tag <= tmax, "node tag %" PetscInt_FMT " outside the header's range %" PetscInt_FMT " to %" PetscInt_FMT,
                        tag, tmin, tmax);
        PetscCall(MfadGmshPushNode_Private(g, tag, zero));
      }
      for (PetscInt i = 0; i < nb; i++) {
        PetscReal x[6];

        PetscCall(MfadGmshReals(r, "a node's coordinates", 3 + np, x));
        PetscCall(PetscArraycpy((PetscReal *)g->nodes.data + 3 * (first + i), x, 3));
        ((PetscInt *)g->nlines.data)[first + i] = r->line;
      }
    }
    MfadReaderCheck(r, total == n, "the node blocks hold %" PetscInt_FMT " nodes, the $Nodes header announced %" PetscInt_FMT, total, n);
  }
  PetscCall(MfadGmshBinaryEnd(g, "$Nodes", total, "nodes"));
  PetscCall(MfadGmshNodeTable_Private(g));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 2.2: "<n>" (text), then blocks of int type, count, tags per element, and count times int tag,
   tags, nodes. 4.1: size_t blocks, elements, min and max tag; each block int dimension, entity,
   type, size_t count, then count times size_t tag and nodes */
PetscErrorCode MfadGmshElementsBinary_Private(MfadGmsh *g)
{
  MfadReader *r = g->r;
  PetscInt    n, nblocks, tmin, tmax, total = 0, node[MFAD_GMSH_MAX_NODES];

  PetscFunctionBegin;
  MfadReaderCheck(r, g->have_nodes, "$Elements before $Nodes");
  MfadReaderCheck(r, !g->have_elements, "a second $Elements section");
  g->have_elements = PETSC_TRUE;
  if (!g->v4) {
    PetscCall(MfadReaderExpectLine_Private(r, "the $Elements count", 0, 0));
    PetscCall(MfadReaderCount_Private(r, "elements", 12, &n));
    PetscCall(MfadReaderExpectEnd_Private(r, "the $Elements count"));
    MfadGmshBinaryBegin(r);
    while (total < n) {
      PetscInt            type, nb, ntags;
      const MfadGmshType *t;

      PetscCall(MfadGmshBinaryRecord(r, "element", total, n));
      PetscCall(MfadGmshInt(r, "an element block's type", &type));
      PetscCall(MfadGmshTypeGet_Private(r, type, &t));
      PetscCall(MfadGmshInt(r, "an element block's count", &nb));
      MfadReaderCheck(r, nb >= 1 && nb <= n - total,
                      "an element block of %" PetscInt_FMT " elements where %" PetscInt_FMT " of the %" PetscInt_FMT " announced are left", nb,
                      n - total, n);
      PetscCall(MfadGmshInt(r, "the number of tags of an element block", &ntags));
      PetscCall(MfadReaderCheckCount_Private(r, "tags per element", 4, ntags));
      total += nb;
      for (PetscInt i = 0; i < nb; i++) {
        PetscInt etag, tag, phys = 0;

        PetscCall(MfadGmshBinaryRecord(r, "element", total - nb + i, n));
        PetscCall(MfadGmshInt(r, "an element tag", &etag));
        for (PetscInt k = 0; k < ntags; k++) {
          PetscCall(MfadGmshInt(r, "a tag of an element", &tag));
          if (k == 0) phys = tag;
        }
        for (int k = 0; k < t->nodes; k++) PetscCall(MfadGmshInt(r, "a node of an element", &node[k]));
        PetscCall(MfadGmshPushElement_Private(g, etag, t, phys, node));
      }
    }
  } else {
    MfadGmshBinaryBegin(r);
    PetscCall(MfadGmshCount(g, "element blocks", 20, &nblocks));
    PetscCall(MfadGmshCount(g, "elements", 16, &n));
    PetscCall(MfadGmshSize(r, "the smallest element tag", &tmin));
    PetscCall(MfadGmshSize(r, "the largest element tag", &tmax));
    for (PetscInt b = 0; b < nblocks; b++) {
      PetscInt            dim, etag, type, nb, phys;
      const MfadGmshType *t;

      PetscCall(MfadGmshBinaryRecord(r, "element block", b, nblocks));
      PetscCall(MfadGmshInt(r, "an element block's entity dimension", &dim));
      PetscCall(MfadGmshInt(r, "an element block's entity tag", &etag));
      PetscCall(MfadGmshInt(r, "an element block's element type", &type));
      PetscCall(MfadGmshTypeGet_Private(r, type, &t));
      MfadReaderCheck(r, dim == t->dim, "element type %" PetscInt_FMT " (of dimension %d) in a block of entity dimension %" PetscInt_FMT, type,
                      t->dim, dim);
      PetscCall(MfadGmshCount(g, "elements in a block", 16, &nb));
      MfadReaderCheck(r, nb <= n - total, "the element blocks hold more than the %" PetscInt_FMT " elements the $Elements header announced", n);
      total += nb;
      phys = MfadGmshPhysical_Private(g, dim, etag);
      for (PetscInt i = 0; i < nb; i++) {
        PetscCall(MfadGmshBinaryRecord(r, "element of the block", i, nb));
        PetscCall(MfadGmshSize(r, "an element tag", &etag));
        for (int k = 0; k < t->nodes; k++) PetscCall(MfadGmshSize(r, "a node of an element", &node[k]));
        PetscCall(MfadGmshPushElement_Private(g, etag, t, phys, node));
      }
    }
    MfadReaderCheck(r, total == n, "the element blocks hold %" PetscInt_FMT " elements, the $Elements header announced %" PetscInt_FMT, total, n);
  }
  PetscCall(MfadGmshBinaryEnd(g, "$Elements", total, "elements"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A section of binary records mfad does not need ($Periodic, $NodeData ...): its lines read raw
   (they may hold NUL bytes) up to $End<name> */
PetscErrorCode MfadGmshSkipSectionBinary_Private(MfadGmsh *g, const char section[])
{
  MfadReader *r = g->r;
  char        end[64], sec[64]; /* section is in the line buffer that getline overwrites */
  size_t      len;

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(sec, sizeof(sec), "%.50s", section));
  PetscCall(PetscSNPrintf(end, sizeof(end), "$End%s", sec + 1));
  len = strlen(end);
  for (;;) {
    ssize_t n;

    PetscCall(MfadReaderGetLine_Private(r, &n));
    MfadReaderCheck(r, n >= 0, "the file ends inside section %s (no %s)", sec, end);
    r->line++;
    { /* $End<sec> ends the line, blanks aside: on a line of its own, or (as Gmsh reads it) right after the data */
      size_t k = (size_t)n;

      while (k > 0 && strchr(" \t\r\n", r->buf[k - 1])) k--;
      if (k >= len && !memcmp(r->buf + k - len, end, len)) break;
    }
  }
  r->cur = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
