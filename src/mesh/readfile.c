// SPDX-License-Identifier: BSD-2-Clause
/* The line reader, token parsers and growing arrays shared by the text mesh readers. Every
   error names the file and the line: "<path>:<line>: <what was wrong>". */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "mfadread.h"

#define MFAD_BLANKS " \t\r\v\f"
/* the longest line read by default: a 200,000-corner OBJ face is ~1.5 MB; /dev/zero, or any
   newline-free stream, grew getline()'s buffer at 150-250 MB/s until malloc failed (issue 46) */
#define MFAD_MAX_LINE (64 << 20)

PetscErrorCode MfadReaderOpen_Private(MfadReader *r, const char path[])
{
  struct stat st;

  PetscFunctionBegin;
  PetscCall(PetscMemzero(r, sizeof(*r)));
  PetscCall(PetscStrallocpy(path, &r->path));
  {
    PetscInt max = MFAD_MAX_LINE;
    PetscCall(PetscOptionsGetInt(NULL, NULL, "-mfad_mesh_max_line", &max, NULL));
    PetscCheck(max >= 1, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-mfad_mesh_max_line %" PetscInt_FMT " must be >= 1", max);
    r->max_line = (size_t)max;
  }
  r->size = -1;
  r->fp   = fopen(path, "rb");
  PetscCheck(r->fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: cannot open: %s", path, strerror(errno));
  /* a directory opens but cannot be read; a pipe has no size (then counts are not checked
     against it, the growing arrays still bound what is allocated by what was read) */
  if (!fstat(fileno(r->fp), &st)) {
    PetscCheck(!S_ISDIR(st.st_mode), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: cannot open: a directory", path);
    if (S_ISREG(st.st_mode)) r->size = (PetscInt64)st.st_size;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReaderClose_Private(MfadReader *r)
{
  PetscFunctionBegin;
  if (r->fp) fclose(r->fp);
  free(r->buf);
  PetscCall(PetscFree(r->path));
  r->fp  = NULL;
  r->buf = NULL;
  r->cur = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}

const char *MfadReaderShow_Private(const char *tok)
{
  static char       buf[4 * 40 + 1];
  static const char hex[] = "0123456789abcdef";
  size_t            n     = 0;

  for (int i = 0; tok && tok[i] && i < 40; i++) {
    const unsigned char c = (unsigned char)tok[i];
    if (c >= 0x20 && c < 0x7f) buf[n++] = (char)c;
    else {
      buf[n++] = '\\';
      buf[n++] = 'x';
      buf[n++] = hex[c >> 4];
      buf[n++] = hex[c & 15];
    }
  }
  buf[n] = '\0';
  return buf;
}

/* One line, its newline included, into r->buf (grown by doubling, at most r->max_line bytes):
 *len its length (NUL bytes counted), -1 at the end of the file */
PetscErrorCode MfadReaderGetLine_Private(MfadReader *r, ssize_t *len)
{
  size_t n = 0;
  int    ch;

  PetscFunctionBegin;
  r->pending = NULL; /* a split line's rest is in the buffer this overwrites */
  /* getc_unlocked: one reader owns r->fp, and getc()'s lock per byte was 14 ms of the 48 ms that
     reading armadillo_cut_low.obj (2.8 MB) took */
  while ((ch = getc_unlocked(r->fp)) != EOF) {
    if (n + 2 > r->cap) {
      const size_t cap = r->cap ? 2 * r->cap : 4096;
      char        *buf;
      PetscCheck(n < r->max_line, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED,
                 "%s:%" PetscInt_FMT ": a line longer than %zu bytes (-mfad_mesh_max_line; is this a text mesh file?)", r->path, r->line + 1,
                 r->max_line);
      buf = (char *)realloc(r->buf, cap);
      PetscCheck(buf, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s:%" PetscInt_FMT ": the line is too long to hold in memory", r->path, r->line + 1);
      r->buf = buf, r->cap = cap;
    }
    r->buf[n++] = (char)ch;
    if (ch == '\n') break;
  }
  *len = (n == 0 && ch == EOF) ? -1 : (ssize_t)n;
  if (r->buf) r->buf[n] = '\0';
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line with content: comments ('#' to the end of the line) and blank lines are
   skipped. *found is false at the end of the file. */
PetscErrorCode MfadReaderNextLine_Private(MfadReader *r, PetscBool *found)
{
  PetscFunctionBegin;
  *found = PETSC_FALSE;
  if (r->pending) { /* the rest of the line read last: "$End..." */
    r->cur     = r->pending;
    *r->cur    = '$';
    r->pending = NULL;
    *found     = PETSC_TRUE;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  for (;;) {
    ssize_t len;
    char   *hash, *end;

    errno = 0;
    PetscCall(MfadReaderGetLine_Private(r, &len));
    if (len < 0) {
      PetscCheck(!ferror(r->fp), PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "%s:%" PetscInt_FMT ": read error: %s", r->path, r->line + 1, strerror(errno));
      r->cur = NULL;
      if (!r->line) r->line = 1; /* an empty file: errors about it name line 1 */
      PetscFunctionReturn(PETSC_SUCCESS);
    }
    PetscCheck(r->line < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: more than %d lines", r->path, (int)PETSC_MAX_INT);
    r->line++;
    /* a NUL byte would silently end the line for the parsers below */
    MfadReaderCheck(r, strlen(r->buf) == (size_t)len, "a NUL byte (is this a binary file?)");
    if ((hash = strchr(r->buf, '#'))) *hash = '\0';
    r->cur = r->buf + strspn(r->buf, MFAD_BLANKS "\n");
    /* Gmsh finds a section's end after the records it counted, also on the line of the last
       one ("5 1 1 1$EndNodes", "2 0.5 $EndElementData"; what public files hold): split there */
    if (r->split_end && *r->cur && (end = strstr(r->cur + 1, "$End"))) {
      *end       = '\0';
      r->pending = end;
    }
    if (*r->cur) break;
  }
  *found = PETSC_TRUE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next line with content, which must be there: it should hold record i (0-based) of the n
   `what` records the header announced (n = 0: `what` alone names it). */
PetscErrorCode MfadReaderExpectLine_Private(MfadReader *r, const char what[], PetscInt i, PetscInt n)
{
  PetscBool found;

  PetscFunctionBegin;
  PetscCall(MfadReaderNextLine_Private(r, &found));
  if (n) MfadReaderCheck(r, found, "the file ends before %s %" PetscInt_FMT " of %" PetscInt_FMT " (truncated, or the header's count is too large)", what, i + 1, n);
  else MfadReaderCheck(r, found, "the file ends before %s", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Nothing may follow on the current line; `what` names what the line held. */
PetscErrorCode MfadReaderExpectEnd_Private(MfadReader *r, const char what[])
{
  const char *tok = MfadReaderToken_Private(r);

  PetscFunctionBegin;
  MfadReaderCheck(r, !tok, "unexpected '%s' after %s", MfadReaderShow_Private(tok), what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The next token on the current line, NUL-terminated in place, or NULL at its end. */
char *MfadReaderToken_Private(MfadReader *r)
{
  char *tok;

  if (!r->cur) return NULL;
  tok = r->cur + strspn(r->cur, MFAD_BLANKS "\n");
  if (!*tok) {
    r->cur = tok;
    return NULL;
  }
  r->cur = tok + strcspn(tok, MFAD_BLANKS "\n");
  if (*r->cur) *r->cur++ = '\0';
  return tok;
}

PetscErrorCode MfadReaderParseInt_Private(MfadReader *r, const char tok[], const char what[], PetscInt *v)
{
  char     *end;
  long long x;

  PetscFunctionBegin;
  errno = 0;
  x     = strtoll(tok, &end, 10);
  MfadReaderCheck(r, end != tok && !*end, "'%s' is not an integer (%s)", MfadReaderShow_Private(tok), what);
  MfadReaderCheck(r, errno != ERANGE && x >= PETSC_MIN_INT && x <= PETSC_MAX_INT, "%.40s is out of range (%s)", tok, what);
  *v = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReaderInt_Private(MfadReader *r, const char what[], PetscInt *v)
{
  const char *tok = MfadReaderToken_Private(r);

  PetscFunctionBegin;
  MfadReaderCheck(r, tok, "the line ends before %s", what);
  PetscCall(MfadReaderParseInt_Private(r, tok, what, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A finite real number (strtod's forms: 1, -2.5, 3e-7, 0x1p-3); inf and nan are refused. */
PetscErrorCode MfadReaderParseReal_Private(MfadReader *r, const char tok[], const char what[], PetscReal *v)
{
  char  *end;
  double x;

  PetscFunctionBegin;
  x = strtod(tok, &end);
  MfadReaderCheck(r, end != tok && !*end, "'%s' is not a number (%s)", MfadReaderShow_Private(tok), what);
  /* overflow gives inf; underflow to 0 or a subnormal is a fine coordinate */
  MfadReaderCheck(r, isfinite(x), "%.40s is not a finite number (%s)", tok, what);
  *v = (PetscReal)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReaderReal_Private(MfadReader *r, const char what[], PetscReal *v)
{
  const char *tok = MfadReaderToken_Private(r);

  PetscFunctionBegin;
  MfadReaderCheck(r, tok, "the line ends before %s", what);
  PetscCall(MfadReaderParseReal_Private(r, tok, what, v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A count from a header: not negative, and not more records than the file's bytes can hold
   at min_bytes each (so "2000000000 vertices" in a small file is an error, not a big malloc). */
PetscErrorCode MfadReaderCheckCount64_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt64 n)
{
  PetscFunctionBegin;
  MfadReaderCheck(r, n >= 0, "negative count %" PetscInt64_FMT " of %s", n, what);
  /* the last record may lack its line end: + 1 (n below 2^63 / 2^7: no overflow for min_bytes <= 128) */
  MfadReaderCheck(r, r->size < 0 || (n <= INT64_MAX / 128 && n * min_bytes <= r->size + 1),
                  "the header says %" PetscInt64_FMT " %s, more than a file of %" PetscInt64_FMT " bytes can hold", n, what, r->size);
  /* a pipe has no size: the count must still fit the meshes' index type */
  MfadReaderCheck(r, n <= PETSC_MAX_INT, "the header says %" PetscInt64_FMT " %s, more than PetscInt counts (%d)", n, what, (int)PETSC_MAX_INT);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReaderCheckCount_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt n)
{
  PetscFunctionBegin;
  PetscCall(MfadReaderCheckCount64_Private(r, what, min_bytes, (PetscInt64)n));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A count read whole (strtoll), so that one beyond PetscInt is "too large", not "out of range" */
PetscErrorCode MfadReaderCount_Private(MfadReader *r, const char what[], PetscInt min_bytes, PetscInt *n)
{
  const char *tok = MfadReaderToken_Private(r);
  char       *end;
  long long   x;

  PetscFunctionBegin;
  MfadReaderCheck(r, tok, "the line ends before %s", what);
  errno = 0;
  x     = strtoll(tok, &end, 10);
  MfadReaderCheck(r, end != tok && !*end, "'%s' is not an integer (%s)", MfadReaderShow_Private(tok), what);
  MfadReaderCheck(r, errno != ERANGE, "the header says %.40s %s, more than any file can hold", tok, what);
  PetscCall(MfadReaderCheckCount64_Private(r, what, min_bytes, (PetscInt64)x));
  *n = (PetscInt)x;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A cell or polygon (`what`) with a repeated vertex is degenerate (ids printed from base). */
PetscErrorCode MfadReaderCheckDistinct_Private(MfadReader *r, const char what[], const PetscInt v[], PetscInt n, PetscInt base)
{
  PetscInt dup = -1;

  PetscFunctionBegin;
  if (n <= 16) {
    for (PetscInt i = 1; i < n && dup < 0; i++)
      for (PetscInt j = 0; j < i; j++)
        if (v[i] == v[j]) dup = v[i];
  } else { /* a long polygon: sort a copy */
    PetscInt *sorted;

    PetscCall(PetscMalloc1(n, &sorted));
    PetscCall(PetscArraycpy(sorted, v, n));
    PetscCall(PetscSortInt(n, sorted));
    for (PetscInt i = 1; i < n && dup < 0; i++)
      if (sorted[i] == sorted[i - 1]) dup = sorted[i];
    PetscCall(PetscFree(sorted));
  }
  MfadReaderCheck(r, dup < 0, "degenerate %s: vertex %" PetscInt_FMT " appears twice", what, dup + base);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadArrayPush_Private(MfadArray *a, const void *x, size_t count)
{
  PetscFunctionBegin;
  /* meshes are indexed by PetscInt: no array may outgrow it */
  PetscCheck(count <= (size_t)PETSC_MAX_INT - a->n, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "a mesh with more than %d entries in one array does not fit PetscInt", (int)PETSC_MAX_INT);
  if (a->n + count > a->cap) {
    size_t cap = a->cap ? a->cap : 64;

    while (cap < a->n + count) cap *= 2;
    if (a->data) PetscCall(PetscRealloc(cap * a->size, &a->data));
    else PetscCall(PetscMalloc(cap * a->size, &a->data));
    a->cap = cap;
  }
  PetscCall(PetscMemcpy((char *)a->data + a->n * a->size, x, count * a->size));
  a->n += count;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadArrayDestroy_Private(MfadArray *a)
{
  PetscFunctionBegin;
  PetscCall(PetscFree(a->data));
  a->n = a->cap = 0;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReadStateInit_Private(MfadReadState *s, const char path[], MfadMesh *mesh)
{
  PetscFunctionBegin;
  MfadValidPointer(path, 1);
  MfadValidPointer(mesh, 2);
  *mesh = NULL;
  PetscCall(PetscMemzero(s, sizeof(*s)));
  s->coords.size      = sizeof(PetscReal);
  s->cells.size       = sizeof(PetscInt);
  s->lines.size       = sizeof(PetscInt);
  s->poly.size        = sizeof(PetscInt);
  s->polys.size       = sizeof(PetscInt);
  s->vertex_tags.size = sizeof(PetscInt);
  s->cell_tags.size   = sizeof(PetscInt);
  s->tris.size        = sizeof(PetscInt);
  s->tri_lines.size   = sizeof(PetscInt);
  s->tri_tags.size    = sizeof(PetscInt);
  s->vertex_id.size   = sizeof(PetscInt);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Frees everything s holds; on success hands s->mesh to *mesh, on error destroys it and passes
   the parse's error on (its code and message unchanged). */
PetscErrorCode MfadReadStateFinish_Private(MfadReadState *s, PetscErrorCode ierr, MfadMesh *mesh)
{
  PetscFunctionBegin;
  for (int i = 0; i < 2; i++) PetscCall(MfadReaderClose_Private(&s->r[i]));
  PetscCall(MfadArrayDestroy_Private(&s->coords));
  PetscCall(MfadArrayDestroy_Private(&s->cells));
  PetscCall(MfadArrayDestroy_Private(&s->lines));
  PetscCall(MfadArrayDestroy_Private(&s->poly));
  PetscCall(MfadArrayDestroy_Private(&s->polys));
  PetscCall(MfadArrayDestroy_Private(&s->vertex_tags));
  PetscCall(MfadArrayDestroy_Private(&s->cell_tags));
  PetscCall(MfadArrayDestroy_Private(&s->tris));
  PetscCall(MfadArrayDestroy_Private(&s->tri_lines));
  PetscCall(MfadArrayDestroy_Private(&s->tri_tags));
  PetscCall(MfadArrayDestroy_Private(&s->vertex_id));
  if (ierr) PetscCall(MfadMeshDestroy(&s->mesh));
  PetscCall(ierr);
  *mesh = s->mesh;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* s->poly (a face of the current line) into triangles: 3 or more distinct vertices, fanned as
   (0, i, i+1) for now; a face of 4 or more corners is remembered and triangulated once every
   vertex is read (MfadReadStateTriangulate()) */
PetscErrorCode MfadReadStatePushPolygon_Private(MfadReadState *s, MfadReader *r, PetscInt base)
{
  const PetscInt *p = (const PetscInt *)s->poly.data, n = (PetscInt)s->poly.n;

  PetscFunctionBegin;
  MfadReaderCheck(r, n >= 3, "a face needs 3 or more vertices, this one has %" PetscInt_FMT, n);
  PetscCall(MfadReaderCheckDistinct_Private(r, "face", p, n, base));
  if (n > 3) {
    const PetscInt first[2] = {(PetscInt)(s->cells.n / 3), n};
    PetscCall(MfadArrayPush_Private(&s->polys, first, 2));
  }
  for (PetscInt i = 1; i + 1 < n; i++) {
    const PetscInt tri[3] = {p[0], p[i], p[i + 1]};

    PetscCall(MfadArrayPush_Private(&s->cells, tri, 3));
    PetscCall(MfadArrayPush_Private(&s->lines, &r->line, 1));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every face of 4+ corners, its fan replaced in place by its triangulation (src/mesh/polytri.c:
   convex faces by a strip, which is the fan for 4 and 5 corners, non-convex ones by ear clipping;
   neither fans a long polygon from one corner); a face with no plane or crossing itself is an error
   naming its line. The polygon is read back from its fan (p0, p_i, p_i+1). */
static PetscErrorCode MfadReadStateTriangulate(MfadReadState *s, MfadReader *r)
{
  const PetscInt  *pl = (const PetscInt *)s->polys.data, *lines = (const PetscInt *)s->lines.data;
  const PetscReal *c  = (const PetscReal *)s->coords.data;
  PetscInt        *cells = (PetscInt *)s->cells.data;

  PetscFunctionBegin;
  for (size_t k = 0; k < s->polys.n / 2; k++) {
    const PetscInt f = pl[2 * k], n = pl[2 * k + 1];
    PetscInt      *t = &cells[3 * f], *p, *tri;
    PetscReal     *x;
    int            status;

    PetscCall(PetscMalloc3(n, &p, 3 * (n - 2), &tri, 3 * n, &x));
    p[0] = t[0], p[1] = t[1];
    for (PetscInt i = 0; i < n - 2; i++) p[i + 2] = t[3 * i + 2];
    for (PetscInt i = 0; i < n; i++)
      for (int d = 0; d < 3; d++) x[3 * i + d] = c[3 * p[i] + d];
    PetscCall(MfadPolygonTriangulate_Private(n, x, tri, &status));
    if (!status)
      for (PetscInt i = 0; i < 3 * (n - 2); i++) t[i] = p[tri[i]];
    PetscCall(PetscFree3(p, tri, x));
    r->line = lines[f];
    MfadReaderCheck(r, status != 1, "a face of %" PetscInt_FMT " vertices has no area (its corners are collinear or coincide)", n);
    MfadReaderCheck(r, status != 2, "a face of %" PetscInt_FMT " vertices crosses itself (no triangulation keeps its orientation)", n);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Vertices in no cell dropped, the others renumbered in the file's order (tags follow), with a
   note under -info: exported files often carry one (a stray point of a scan, an unused control
   point), and such a vertex is a free unknown that no energy touches, an empty row of every
   Hessian: Newton's linear solve fails at its first step without naming it (issue 46). The Gmsh
   reader always kept only the nodes of its cells; now every reader does. name: the file's name of
   each vertex (Gmsh node tags), or NULL (numbered from base). */
static PetscErrorCode MfadMeshDropUnused_Private(MfadMesh m, const char path[], PetscInt base, const PetscInt name[])
{
  PetscInt *newid, nkeep = 0, first = -1;

  PetscFunctionBegin;
  PetscCall(PetscCalloc1(m->nvert, &newid));
  for (PetscInt i = 0; i < m->ncell * m->ncorner; i++) newid[m->cells[i]] = 1;
  for (PetscInt v = 0; v < m->nvert; v++) {
    if (!newid[v] && first < 0) first = v;
    newid[v] = newid[v] ? nkeep++ : -1;
  }
  if (nkeep < m->nvert) {
    PetscCall(PetscInfo(NULL,
                        "%s: dropped %" PetscInt_FMT " of %" PetscInt_FMT " vertices, in no %s (the first: vertex %" PetscInt_FMT
                        "); the others are renumbered in the file's order\n",
                        path, m->nvert - nkeep, m->nvert, m->ncorner == 3 ? "triangle" : "tetrahedron", name ? name[first] : first + base));
    for (PetscInt v = 0; v < m->nvert; v++) {
      if (newid[v] < 0) continue;
      for (PetscInt d = 0; d < m->dim; d++) m->coords[newid[v] * m->dim + d] = m->coords[v * m->dim + d];
      if (m->vertex_tags) m->vertex_tags[newid[v]] = m->vertex_tags[v];
    }
    for (PetscInt i = 0; i < m->ncell * m->ncorner; i++) m->cells[i] = newid[m->cells[i]];
    m->nvert = nkeep;
  }
  PetscCall(PetscFree(newid));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReadStateToMesh_Private(MfadReadState *s, MfadReader *r, PetscInt ncorner, PetscInt base)
{
  PetscBool check = PETSC_FALSE;
  MfadMesh  m;

  PetscFunctionBegin;
  MfadReaderCheck(r, s->coords.n > 0, "the file ends without any vertex (an empty mesh)");
  MfadReaderCheck(r, s->cells.n > 0, "the file ends without any %s (an empty mesh)", ncorner == 3 ? "face" : "tetrahedron");
  PetscCall(MfadReadStateTriangulate(s, r));
  PetscCall(MfadMeshCreate(3, (PetscInt)(s->coords.n / 3), ncorner, (PetscInt)(s->cells.n / ncorner), &s->mesh));
  m = s->mesh;
  PetscCall(PetscMemcpy(m->coords, s->coords.data, s->coords.n * sizeof(PetscReal)));
  PetscCall(PetscMemcpy(m->cells, s->cells.data, s->cells.n * sizeof(PetscInt)));
  if (s->vertex_tags.n) {
    PetscCall(PetscMalloc1(m->nvert, &m->vertex_tags));
    PetscCall(PetscMemcpy(m->vertex_tags, s->vertex_tags.data, m->nvert * sizeof(PetscInt)));
  }
  if (s->cell_tags.n) {
    PetscCall(PetscMalloc1(m->ncell, &m->cell_tags));
    PetscCall(PetscMemcpy(m->cell_tags, s->cell_tags.data, m->ncell * sizeof(PetscInt)));
  }
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-mfad_mesh_check_manifold", &check, NULL));
  /* a face in 3 tets is no volume mesh at all: tet meshes are always checked (a surface with an
     edge in 3 triangles is fine for springs, so surfaces only on request) */
  if (check || ncorner == 4) PetscCall(MfadMeshCheckManifold_Private(m, r->path, (const PetscInt *)s->lines.data, base, s->vertex_id.n ? (const PetscInt *)s->vertex_id.data : NULL));
  PetscCall(MfadMeshDropUnused_Private(m, r->path, base, s->vertex_id.n ? (const PetscInt *)s->vertex_id.data : NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadReadStatePickCells_Private(MfadReadState *s, PetscInt *ncorner)
{
  PetscFunctionBegin;
  if (s->cells.n) {
    *ncorner = 4;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  *ncorner = 3;
  { /* swap, so that Finish frees both */
    MfadArray t;
    t = s->cells, s->cells = s->tris, s->tris = t;
    t = s->lines, s->lines = s->tri_lines, s->tri_lines = t;
    t = s->cell_tags, s->cell_tags = s->tri_tags, s->tri_tags = t;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
