// SPDX-License-Identifier: BSD-2-Clause
/* The mesh file readers: good files read into the mesh they describe (checked by geometry,
   not by copying the reader's output: areas, volumes, Euler characteristics, explicit cells),
   and every class of bad file is an error with the right code, naming the file and the line. */
#include <mfadmesh.h>
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

#define TestCall(call) ck_assert_msg((call) == 0, "PETSc error in %s: %s", #call, err_msg)

/* ------------------------------------------------------------------ helpers */
static char err_msg[8192]; /* the message of the last error raised (not the traceback) */
static char tmpdir[256];

/* An error handler that records the first message of an error and returns its code. */
static PetscErrorCode RecordError(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  (void)comm, (void)line, (void)fun, (void)file, (void)ctx;
  if (p == PETSC_ERROR_INITIAL) snprintf(err_msg, sizeof(err_msg), "%s", mess ? mess : "");
  return n;
}

static const char *MeshPath(const char name[])
{
  static char path[PETSC_MAX_PATH_LEN];
  snprintf(path, sizeof(path), "%s/%s", MFAD_TEST_MESHES, name);
  return path;
}

/* writes len bytes (strlen when len < 0) to <tmpdir>/<name>, returns its path */
static const char *WriteTemp(const char name[], const char *text, long len)
{
  static char path[PETSC_MAX_PATH_LEN];
  FILE       *fp;
  snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
  fp = fopen(path, "wb");
  ck_assert_msg(fp != NULL, "cannot write %s", path);
  if (len < 0) len = (long)strlen(text);
  ck_assert_int_eq(fwrite(text, 1, (size_t)len, fp), len);
  fclose(fp);
  return path;
}

static void Vec3Sub(const PetscReal *a, const PetscReal *b, PetscReal *c)
{
  for (int d = 0; d < 3; d++) c[d] = a[d] - b[d];
}

static void Vec3Cross(const PetscReal *a, const PetscReal *b, PetscReal *c)
{
  c[0] = a[1] * b[2] - a[2] * b[1];
  c[1] = a[2] * b[0] - a[0] * b[2];
  c[2] = a[0] * b[1] - a[1] * b[0];
}

/* surface area, and the volume enclosed (divergence theorem: sum of a.(b x c)/6 over
   triangles; the right volume only if all triangles face outwards) */
static void SurfaceMeasures(MfadMesh m, PetscReal *area, PetscReal *volume)
{
  *area = *volume = 0;
  for (PetscInt c = 0; c < m->ncell; c++) {
    const PetscReal *a = m->coords + 3 * m->cells[3 * c], *b = m->coords + 3 * m->cells[3 * c + 1], *d = m->coords + 3 * m->cells[3 * c + 2];
    PetscReal        u[3], v[3], n[3], bxd[3];
    Vec3Sub(b, a, u);
    Vec3Sub(d, a, v);
    Vec3Cross(u, v, n);
    *area += 0.5 * sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    Vec3Cross(b, d, bxd);
    *volume += (a[0] * bxd[0] + a[1] * bxd[1] + a[2] * bxd[2]) / 6;
  }
}

/* V - E + F, edges counted once (pairs of vertices, sorted, as a v0 * nvert + v1 key) */
static int CmpLong(const void *a, const void *b)
{
  const long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static PetscInt EulerCharacteristic(MfadMesh m)
{
  long long *e = malloc(sizeof(*e) * 3 * m->ncell);
  PetscInt   ne = 0;
  for (PetscInt c = 0; c < m->ncell; c++)
    for (int k = 0; k < 3; k++) {
      long long a = m->cells[3 * c + k], b = m->cells[3 * c + (k + 1) % 3];
      e[3 * c + k] = a < b ? a * m->nvert + b : b * m->nvert + a;
    }
  qsort(e, 3 * m->ncell, sizeof(*e), CmpLong);
  for (PetscInt i = 0; i < 3 * m->ncell; i++) ne += (i == 0 || e[i] != e[i - 1]);
  free(e);
  return m->nvert - ne + m->ncell;
}

static void CheckCellsInRange(MfadMesh m)
{
  for (PetscInt i = 0; i < m->ncell * m->ncorner; i++) ck_assert_msg(m->cells[i] >= 0 && m->cells[i] < m->nvert, "cell entry %d = %d out of [0, %d)", (int)i, (int)m->cells[i], (int)m->nvert);
}

/* the unit cube of cube.obj, cube_negative_crlf.obj and cube.off, however it was written:
   8 vertices, 12 triangles, area 6, volume 1 (so every triangle faces outwards), a closed
   manifold surface of genus 0 (V - E + F = 2); volume and area are exact in binary */
static void CheckUnitCube(MfadMesh m, const char *file)
{
  PetscReal area, volume;
  ck_assert_msg(m->dim == 3 && m->ncorner == 3, "%s: dim %d ncorner %d", file, (int)m->dim, (int)m->ncorner);
  ck_assert_msg(m->nvert == 8 && m->ncell == 12, "%s: %d vertices %d cells, expected 8 and 12", file, (int)m->nvert, (int)m->ncell);
  CheckCellsInRange(m);
  SurfaceMeasures(m, &area, &volume);
  ck_assert_msg(fabs(area - 6) < 1e-14 && fabs(volume - 1) < 1e-14, "%s: area %g volume %g, expected 6 and 1", file, area, volume);
  ck_assert_msg(EulerCharacteristic(m) == 2, "%s: Euler characteristic %d, expected 2", file, (int)EulerCharacteristic(m));
  ck_assert_msg(m->cell_tags == NULL && m->vertex_tags == NULL, "%s: surface files carry no tags", file);
  TestCall(MfadMeshCheckManifold(m, file));
}

/* ------------------------------------------------------------------ good files */
START_TEST(obj_cube_with_quads_and_attributes)
{
  MfadMesh        m;
  const PetscReal v1[3] = {1, 0, 0}; /* `v 1e0 0 0 1.0`: x y z w */
  TestCall(MfadMeshReadOBJ(MeshPath("cube.obj"), &m));
  CheckUnitCube(m, "cube.obj");
  for (int d = 0; d < 3; d++) ck_assert_msg(m->coords[3 + d] == v1[d], "vertex 2 coordinate %d = %g", d, m->coords[3 + d]);
  /* fan of `f 1/1/1 4/2/1 3/3/1 2/1/1`: (1 4 3) (1 3 2), 0-based */
  {
    const PetscInt fan[6] = {0, 3, 2, 0, 2, 1};
    for (int i = 0; i < 6; i++) ck_assert_msg(m->cells[i] == fan[i], "first quad's fan: entry %d is %d, expected %d", i, (int)m->cells[i], (int)fan[i]);
  }
  TestCall(MfadMeshDestroy(&m));
  ck_assert_ptr_null(m);
}
END_TEST

START_TEST(obj_negative_indices_and_crlf)
{
  MfadMesh m;
  TestCall(MfadMeshReadOBJ(MeshPath("cube_negative_crlf.obj"), &m));
  CheckUnitCube(m, "cube_negative_crlf.obj");
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* n corners (x, y) of a simple polygon: twice its signed area (shoelace) and whether (px, py) is
   inside (crossing number) */
static double Shoelace(int n, const double (*c)[2])
{
  double a = 0;
  for (int i = 0; i < n; i++) a += c[i][0] * c[(i + 1) % n][1] - c[(i + 1) % n][0] * c[i][1];
  return a;
}

static int Inside(int n, const double (*c)[2], double px, double py)
{
  int in = 0;
  for (int i = 0, j = n - 1; i < n; j = i++)
    if ((c[i][1] > py) != (c[j][1] > py) && px < (c[j][0] - c[i][0]) * (py - c[i][1]) / (c[j][1] - c[i][1]) + c[i][0]) in = !in;
  return in;
}

/* A non-convex face read from OBJ (in the xy plane) and from OFF (the same polygon tilted out of
   it: rotation about the axis (1, 1, 0) by 0.7): n - 2 triangles, each turning the polygon's way
   (normal along the polygon's), their areas adding up to the shoelace area, every centroid inside
   the polygon. The fan of these polygons from their first corner would flip a triangle. */
static void CheckPolygonFace(const char name[], int n, const double (*c)[2], int tilted)
{
  MfadMesh  m;
  char      text[2048];
  size_t    k = 0;
  double    R[9], sum = 0;
  const double ax[3] = {M_SQRT1_2, M_SQRT1_2, 0}, th = tilted == 1 ? 0.7 : 0.0, co = cos(th), si = sin(th);
  const int    off = tilted == 1, early = tilted == 2; /* 2: OBJ, the face before its vertices */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) R[3 * i + j] = (1 - co) * ax[i] * ax[j] + (i == j ? co : 0);
  R[1] -= si * ax[2], R[2] += si * ax[1], R[3] += si * ax[2], R[5] -= si * ax[0], R[6] -= si * ax[1], R[7] += si * ax[0];
  if (off) k += (size_t)snprintf(text + k, sizeof(text) - k, "OFF\n%d 1 0\n", n);
  for (int pass = 0; pass < 2; pass++) {
    if (pass == (early ? 0 : 1)) { /* the face */
      k += (size_t)snprintf(text + k, sizeof(text) - k, off ? "%d" : "f", n);
      for (int i = 0; i < n; i++) k += (size_t)snprintf(text + k, sizeof(text) - k, " %d", off ? i : i + 1);
      k += (size_t)snprintf(text + k, sizeof(text) - k, "\n");
    } else
      for (int i = 0; i < n; i++) {
        const double p[3] = {c[i][0], c[i][1], 0};
        k += (size_t)snprintf(text + k, sizeof(text) - k, "%s%.17g %.17g %.17g\n", off ? "" : "v ", R[0] * p[0] + R[1] * p[1], R[3] * p[0] + R[4] * p[1], R[6] * p[0] + R[7] * p[1]);
      }
  }
  TestCall(MfadMeshRead(WriteTemp(name, text, -1), &m));
  ck_assert_msg(m->ncell == n - 2, "%s: %d triangles, expected %d", name, (int)m->ncell, n - 2);
  for (PetscInt t = 0; t < m->ncell; t++) {
    double e1[3], e2[3], nrm[3], q[3] = {0, 0, 0}, z;
    Vec3Sub(&m->coords[3 * m->cells[3 * t + 1]], &m->coords[3 * m->cells[3 * t]], e1);
    Vec3Sub(&m->coords[3 * m->cells[3 * t + 2]], &m->coords[3 * m->cells[3 * t]], e2);
    Vec3Cross(e1, e2, nrm);
    z = R[2] * nrm[0] + R[5] * nrm[1] + R[8] * nrm[2]; /* along the rotated z axis: the polygon's normal */
    ck_assert_msg(z > 1e-12, "%s: triangle %d turns the wrong way (normal component %g)", name, (int)t, z);
    sum += z;
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) q[d] += m->coords[3 * m->cells[3 * t + a] + d] / 3;
    ck_assert_msg(Inside(n, c, R[0] * q[0] + R[3] * q[1] + R[6] * q[2], R[1] * q[0] + R[4] * q[1] + R[7] * q[2]), "%s: triangle %d lies outside the polygon", name, (int)t);
  }
  ck_assert_msg(fabs(sum - Shoelace(n, c)) < 1e-12 * fabs(Shoelace(n, c)), "%s: triangles' area %g, polygon's %g", name, 0.5 * sum, 0.5 * Shoelace(n, c));
  TestCall(MfadMeshDestroy(&m));
}

START_TEST(non_convex_faces_are_ear_clipped)
{
  /* an L starting next to its notch, and an arrow starting at its tail's notch */
  const double L[6][2]     = {{2, 1}, {1, 1}, {1, 2}, {0, 2}, {0, 0}, {2, 0}};
  const double arrow[7][2] = {{1, 1}, {1, 0}, {3, 1.5}, {1, 3}, {1, 2}, {0, 2}, {0, 1}};
  CheckPolygonFace("L.obj", 6, L, 0);
  CheckPolygonFace("L.off", 6, L, 1);
  CheckPolygonFace("arrow.obj", 7, arrow, 0);
  CheckPolygonFace("arrow.off", 7, arrow, 1);
  CheckPolygonFace("L_face_first.obj", 6, L, 2); /* OBJ may name vertices defined further down */
}
END_TEST

/* Issue 46, item 7: one OBJ face of n corners (a circle of radius 1 in z = 0; `dent`: corner n/2 at
   radius 1/2, the one reflex corner) read as n - 2 triangles turning the face's way, adding up to its
   area, none of whose corners has more than max_degree edges. The readers fanned a convex face from
   its first corner (degree n - 1) and ear-clipped a non-convex one from its last (n - 1 too), and
   PETSc's DMPlex crashes on such degrees (src/mesh/dmplex.c). */
static void CheckLongFace(const char name[], int n, int dent, int max_degree)
{
  const size_t cap  = (size_t)n * 64 + 64;
  char        *text = malloc(cap);
  size_t       k    = 0;
  double       sum = 0, area = 0;
  MfadMesh     m;
  long long   *e;
  PetscInt     ne = 0;
  int         *deg, worst = 0;
  ck_assert_ptr_nonnull(text);
  for (int i = 0; i < n; i++) {
    const double t = 2 * M_PI * i / n, r = dent && i == n / 2 ? 0.5 : 1.0;
    k += (size_t)snprintf(text + k, cap - k, "v %.17g %.17g 0\n", r * cos(t), r * sin(t));
  }
  k += (size_t)snprintf(text + k, cap - k, "f");
  for (int i = 0; i < n; i++) k += (size_t)snprintf(text + k, cap - k, " %d", i + 1);
  k += (size_t)snprintf(text + k, cap - k, "\n");
  TestCall(MfadMeshRead(WriteTemp(name, text, (long)k), &m));
  free(text);
  ck_assert_msg(m->ncell == n - 2, "%s: %d triangles, expected %d", name, (int)m->ncell, n - 2);
  for (int i = 0; i < n; i++) area += m->coords[3 * i] * m->coords[3 * ((i + 1) % n) + 1] - m->coords[3 * ((i + 1) % n)] * m->coords[3 * i + 1];
  e   = malloc(sizeof(*e) * 3 * m->ncell);
  deg = calloc((size_t)n, sizeof(*deg));
  for (PetscInt t = 0; t < m->ncell; t++) {
    PetscReal e1[3], e2[3], nrm[3];
    Vec3Sub(&m->coords[3 * m->cells[3 * t + 1]], &m->coords[3 * m->cells[3 * t]], e1);
    Vec3Sub(&m->coords[3 * m->cells[3 * t + 2]], &m->coords[3 * m->cells[3 * t]], e2);
    Vec3Cross(e1, e2, nrm);
    ck_assert_msg(nrm[2] > 0, "%s: triangle %d turns the wrong way (normal z %g)", name, (int)t, nrm[2]);
    sum += nrm[2];
    for (int a = 0; a < 3; a++) {
      const long long u = m->cells[3 * t + a], v = m->cells[3 * t + (a + 1) % 3];
      e[3 * t + a] = u < v ? u * n + v : v * n + u;
    }
  }
  /* twice the areas: n - 2 sums of products of numbers <= 1, each to a few ulps */
  ck_assert_msg(fabs(sum - area) < 1e-12 * area, "%s: triangles' area %.17g, the face's %.17g", name, 0.5 * sum, 0.5 * area);
  qsort(e, 3 * m->ncell, sizeof(*e), CmpLong);
  for (PetscInt i = 0; i < 3 * m->ncell; i++)
    if (i == 0 || e[i] != e[i - 1]) deg[e[i] / n]++, deg[e[i] % n]++, ne++;
  ck_assert_msg(ne == 2 * n - 3, "%s: %d edges, a triangulated n-gon has 2n - 3 = %d", name, (int)ne, 2 * n - 3);
  for (int v = 0; v < n; v++) worst = deg[v] > deg[worst] ? v : worst;
  ck_assert_msg(deg[worst] <= max_degree, "%s: vertex %d has %d edges, more than %d", name, worst, deg[worst], max_degree);
  free(e);
  free(deg);
  TestCall(MfadMeshDestroy(&m));
}

START_TEST(long_faces_have_no_high_degree_vertex)
{
  /* convex: a strip, every corner in at most 3 triangles, so at most 2 sides and 2 diagonals */
  CheckLongFace("circle.obj", 20000, 0, 4);
  /* one reflex corner: ear clipping cuts every other ear per pass round the face, a corner gains at
     most one diagonal on each side per pass, and with ears everywhere but at the dent each pass
     halves the face: at most 2 + 2 (ceil(log2 n) + 1) edges (one pass spared for the dent) */
  CheckLongFace("dented_circle.obj", 2000, 1, 2 + 2 * ((int)ceil(log2(2000.0)) + 1));
}
END_TEST

/* The strip of 4 and 5 corners is the fan from corner 0 that the readers always gave (the quad of
   obj_cube_with_quads_and_attributes is its case of 4): so a file of quads reads as before */
START_TEST(pentagon_is_still_fanned_from_its_first_corner)
{
  MfadMesh       m;
  const PetscInt fan[9] = {0, 1, 2, 0, 2, 3, 0, 3, 4};
  TestCall(MfadMeshRead(WriteTemp("pentagon.obj", "v 0 0 0\nv 2 0 0\nv 3 1 0\nv 1 2 0\nv -1 1 0\nf 1 2 3 4 5\n", -1), &m));
  ck_assert_int_eq(m->ncell, 3);
  for (int i = 0; i < 9; i++) ck_assert_msg(m->cells[i] == fan[i], "pentagon: entry %d is %d, the fan's %d", i, (int)m->cells[i], (int)fan[i]);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

START_TEST(off_cube_with_quads)
{
  MfadMesh m;
  TestCall(MfadMeshReadOFF(MeshPath("cube.off"), &m));
  CheckUnitCube(m, "cube.off");
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

START_TEST(off_colours_and_counts_on_the_header_line)
{
  MfadMesh  m;
  PetscReal area, volume;
  TestCall(MfadMeshReadOFF(MeshPath("tetra.off"), &m));
  ck_assert_msg(m->nvert == 4 && m->ncell == 4, "%d vertices, %d faces", (int)m->nvert, (int)m->ncell);
  CheckCellsInRange(m);
  SurfaceMeasures(m, &area, &volume);
  /* corner tetrahedron: three right triangles of area 1/2, one equilateral of side sqrt 2 */
  ck_assert_msg(fabs(area - (1.5 + sqrt(3) / 2)) < 1e-14 && fabs(volume - 1.0 / 6) < 1e-15, "area %.17g volume %.17g", area, volume);
  ck_assert_int_eq(EulerCharacteristic(m), 2);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

START_TEST(manifold_check_names_the_edge)
{
  MfadMesh       m;
  PetscErrorCode ierr;
  TestCall(MfadMeshReadOBJ(MeshPath("fin.obj"), &m)); /* reading does not check by default */
  ck_assert_int_eq(m->ncell, 3);
  TestCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadMeshCheckManifold(m, "fin.obj");
  ck_assert_msg(ierr == PETSC_ERR_ARG_WRONG, "error %d: %s", (int)ierr, err_msg);
  ck_assert_msg(strstr(err_msg, "fin.obj: edge 0-1 is shared by 3 triangles (cells 0, 1, 2)"), "message: %s", err_msg);
  TestCall(MfadMeshDestroy(&m));
  /* on request the reader checks, with the lines of the three faces (7, 8, 9 of fin.obj) */
  TestCall(PetscOptionsSetValue(NULL, "-mfad_mesh_check_manifold", "1"));
  ierr = MfadMeshReadOBJ(MeshPath("fin.obj"), &m);
  TestCall(PetscOptionsClearValue(NULL, "-mfad_mesh_check_manifold"));
  ck_assert_msg(ierr == PETSC_ERR_FILE_UNEXPECTED && m == NULL, "error %d: %s", (int)ierr, err_msg);
  ck_assert_msg(strstr(err_msg, "fin.obj:9: edge 1-2 is shared by 3 triangles (lines 7, 8, 9)"), "message: %s", err_msg);
  TestCall(PetscPopErrorHandler());
}
END_TEST

/* signed volume of tet c: (b - a) . ((c - a) x (d - a)) / 6 */
static PetscReal TetVolume(MfadMesh m, PetscInt c)
{
  const PetscReal *x[4];
  PetscReal        u[3], v[3], w[3], n[3];
  for (int k = 0; k < 4; k++) x[k] = m->coords + 3 * m->cells[4 * c + k];
  Vec3Sub(x[1], x[0], u);
  Vec3Sub(x[2], x[0], v);
  Vec3Sub(x[3], x[0], w);
  Vec3Cross(v, w, n);
  return (u[0] * n[0] + u[1] * n[1] + u[2] * n[2]) / 6;
}

/* twocubes.poly's boundary marker of a point, where one facet alone holds it: 0 inside the
   domain, the facet's marker inside a facet, -1 on the facets' edges (TetGen picks one) */
static PetscInt TwoCubesMarker(const PetscReal *x)
{
  const PetscBool ix = (PetscBool)(x[0] > 0 && x[0] < 1), iy = (PetscBool)(x[1] > 0 && x[1] < 1), iz = (PetscBool)(x[2] > 0 && x[2] < 2 && x[2] != 1);
  if (ix && iy && iz) return 0;
  if (ix && iy) return x[2] == 0 ? 1 : x[2] == 2 ? 2 : 4;
  if (iz && ((ix && (x[1] == 0 || x[1] == 1)) || (iy && (x[0] == 0 || x[0] == 1)))) return 3;
  return -1;
}

START_TEST(tetgen_two_regions_with_markers)
{
  MfadMesh  m;
  PetscReal vol[3] = {0, 0, 0}, sign;
  PetscInt  checked = 0;
  TestCall(MfadMeshReadTetGen(MeshPath("twocubes.1"), &m)); /* the base name */
  ck_assert_msg(m->dim == 3 && m->ncorner == 4 && m->ncell > 0, "dim %d ncorner %d ncell %d", (int)m->dim, (int)m->ncorner, (int)m->ncell);
  ck_assert_msg(m->cell_tags && m->vertex_tags, "TetGen's region attributes and boundary markers must be read");
  CheckCellsInRange(m);
  /* the regions of twocubes.poly: [0,1]^2 x [0,1] is 1, [0,1]^2 x [1,2] is 2, 1 each in volume;
     TetGen orients all tets alike */
  sign = TetVolume(m, 0) > 0 ? 1 : -1;
  for (PetscInt c = 0; c < m->ncell; c++) {
    const PetscReal v = TetVolume(m, c) * sign;
    PetscReal       zc = 0;
    for (int k = 0; k < 4; k++) zc += 0.25 * m->coords[3 * m->cells[4 * c + k] + 2];
    ck_assert_msg(v > 0, "tet %d: volume %g, orientation differs from tet 0's", (int)c, v);
    ck_assert_msg(m->cell_tags[c] == (zc < 1 ? 1 : 2), "tet %d with centroid z = %g has tag %d", (int)c, zc, (int)m->cell_tags[c]);
    vol[m->cell_tags[c]] += v;
  }
  ck_assert_msg(fabs(vol[1] - 1) < 1e-13 && fabs(vol[2] - 1) < 1e-13, "region volumes %.17g %.17g, expected 1 and 1", vol[1], vol[2]);
  for (PetscInt v = 0; v < m->nvert; v++) {
    const PetscInt expect = TwoCubesMarker(m->coords + 3 * v);
    if (expect < 0) continue;
    ck_assert_msg(m->vertex_tags[v] == expect, "vertex %d at (%g %g %g): marker %d, expected %d", (int)v, m->coords[3 * v], m->coords[3 * v + 1], m->coords[3 * v + 2], (int)m->vertex_tags[v], (int)expect);
    checked++;
  }
  ck_assert_msg(checked > 20, "only %d vertices lie inside the domain or a facet", (int)checked);
  TestCall(MfadMeshCheckManifold(m, "twocubes.1")); /* a tet mesh: no face in 3 tets */
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

/* the same tetgen run numbered from 0 (-z) and from 1 is the same mesh */
START_TEST(tetgen_zero_and_one_based_agree)
{
  MfadMesh a, b;
  TestCall(MfadMeshRead(MeshPath("twocubes.1.node"), &a));
  TestCall(MfadMeshRead(MeshPath("twocubes0.1.ele"), &b));
  ck_assert_msg(a->nvert == b->nvert && a->ncell == b->ncell, "%d/%d vertices, %d/%d cells", (int)a->nvert, (int)b->nvert, (int)a->ncell, (int)b->ncell);
  ck_assert_msg(!memcmp(a->coords, b->coords, sizeof(PetscReal) * 3 * a->nvert), "coordinates differ");
  ck_assert_msg(!memcmp(a->cells, b->cells, sizeof(PetscInt) * 4 * a->ncell), "cells differ");
  ck_assert_msg(!memcmp(a->cell_tags, b->cell_tags, sizeof(PetscInt) * a->ncell), "cell tags differ");
  ck_assert_msg(!memcmp(a->vertex_tags, b->vertex_tags, sizeof(PetscInt) * a->nvert), "vertex tags differ");
  TestCall(MfadMeshDestroy(&a));
  TestCall(MfadMeshDestroy(&b));
}
END_TEST

START_TEST(tetgen_ten_node_tets_and_attributes)
{
  MfadMesh       m;
  const PetscInt tags[4] = {11, 12, 13, 14};
  TestCall(MfadMeshReadTetGen(MeshPath("tet10.ele"), &m));
  /* the 6 midpoints are in no (linear) tet: dropped, as every reader drops vertices in no cell */
  ck_assert_msg(m->nvert == 4 && m->ncell == 1, "%d vertices %d cells", (int)m->nvert, (int)m->ncell);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(m->cells[k], k); /* the corners, 0-based */
  ck_assert_msg(fabs(fabs(TetVolume(m, 0)) - 1.0 / 6) < 1e-15, "volume %g, expected 1/6", TetVolume(m, 0));
  ck_assert_int_eq(m->cell_tags[0], -3);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(m->vertex_tags[k], tags[k]);
  TestCall(MfadMeshDestroy(&m));
}
END_TEST

START_TEST(read_dispatches_by_extension)
{
  MfadMesh       m;
  PetscErrorCode ierr;
  TestCall(MfadMeshRead(MeshPath("cube.obj"), &m));
  CheckUnitCube(m, "cube.obj");
  TestCall(MfadMeshDestroy(&m));
  TestCall(MfadMeshRead(MeshPath("cube.off"), &m));
  CheckUnitCube(m, "cube.off");
  TestCall(MfadMeshDestroy(&m));
  TestCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadMeshRead("mesh.stl", &m);
  ck_assert_msg(ierr == PETSC_ERR_SUP && strstr(err_msg, "mesh.stl: unknown mesh file extension '.stl'"), "error %d: %s", (int)ierr, err_msg);
  ierr = MfadMeshRead("dir.v2/mesh", &m);
  ck_assert_msg(ierr == PETSC_ERR_SUP && strstr(err_msg, "needs an extension"), "error %d: %s", (int)ierr, err_msg);
  TestCall(PetscPopErrorHandler());
}
END_TEST

/* ------------------------------------------------------------------ bad files */
typedef struct {
  const char    *name; /* written to <tmpdir>/<name>, read by MfadMeshRead() */
  const char    *text; /* the file's content */
  long           len;  /* its length, -1: strlen (set for NUL bytes) */
  PetscErrorCode code; /* the expected error */
  int            line; /* the line the message must name */
  const char    *frag; /* and a fragment it must contain */
  const char    *ele;  /* TetGen: the .ele file's content (name is the .node file) */
  int            in_ele; /* TetGen: the message names the .ele file */
} BadFile;

/* two good TetGen files to spoil one at a time: points 1..4 and one tet */
#define NODE4 "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n"
#define ELE1  "1 4 0\n1 1 2 3 4\n"

static const BadFile bad_files[] = {
  /* faces that no triangulation represents: a bow-tie (its two lobes' areas cancel) and a
     pentagram (turns left at every corner, twice around: no ear without another corner in it) */
  {"bowtie.obj", "v 0 0 0\nv 1 1 0\nv 1 0 0\nv 0 1 0\nf 1 2 3 4\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "has no area", NULL, 0},
  {"collinear.off", "OFF\n4 1 0\n0 0 0\n1 0 0\n2 0 0\n3 0 0\n4 0 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 7, "has no area", NULL, 0},
  {"pentagram.obj", "v 1 0 0\nv 0.309016994 0.951056516 0\nv -0.809016994 0.587785252 0\nv -0.809016994 -0.587785252 0\nv 0.309016994 -0.951056516 0\nf 1 3 5 2 4\n", -1, PETSC_ERR_FILE_UNEXPECTED, 6, "crosses itself", NULL, 0},
  /* OBJ */
  {"truncated_vertex.obj", "v 0 0 0\nv 1 0 0\nv 0 1", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "line ends before z coordinate", NULL, 0},
  {"truncated_face.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "3 or more vertices, this one has 2", NULL, 0},
  {"not_a_number.obj", "# comment\nv 0 0 0\nv 1 0 0\nv 0 1 zero\nf 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "'zero' is not a number", NULL, 0},
  {"nan.obj", "v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 2, "nan is not a finite number", NULL, 0},
  {"overflow_real.obj", "v 0 0 0\nv 1 0 0\nv 0 1e999 0\nf 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "not a finite number", NULL, 0},
  {"index_too_large.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\nf 1 2 4\nv 1 1 1\nf 1 2 5\n", -1, PETSC_ERR_FILE_UNEXPECTED, 8, "face refers to vertex 5, the file has 4 vertices", NULL, 0},
  {"index_zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "vertex index 0", NULL, 0},
  {"index_not_integer.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3.0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "'3.0' is not an integer", NULL, 0},
  {"index_int_overflow.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 99999999999999999999\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "out of range", NULL, 0},
  {"relative_too_far.obj", "v 0 0 0\nv 1 0 0\nf -1 -2 -3\nv 0 1 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "relative vertex index -3 reaches before the first vertex (2 read so far)", NULL, 0},
  {"corner_four_parts.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/1/1/1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "more than 3 parts", NULL, 0},
  {"corner_bad_texture.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1/x 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "'x' is not an integer (texture index", NULL, 0},
  {"degenerate.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3 2\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "degenerate face: vertex 2 appears twice", NULL, 0},
  {"unknown_record.obj", "v 0 0 0\nvx 1 0 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 2, "unknown record 'vx'", NULL, 0},
  {"too_many_numbers.obj", "v 0 0 0 1 1 1 1 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "more than 7 numbers", NULL, 0},
  {"no_vertices.obj", "# nothing\n\n# here\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "without any vertex", NULL, 0},
  {"no_faces.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\n# no f\n", -1, PETSC_ERR_FILE_UNEXPECTED, 4, "without any face", NULL, 0},
  {"empty.obj", "", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "without any vertex", NULL, 0},
  {"nul_byte.obj", "v 0 0 0\nv 1\0 0 0\n", 17, PETSC_ERR_FILE_UNEXPECTED, 2, "NUL byte", NULL, 0},
  /* OFF */
  {"truncated.off", "OFF\n4 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 8, "the file ends before face 3 of 4", NULL, 0},
  {"truncated_face.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1", -1, PETSC_ERR_FILE_UNEXPECTED, 6, "fewer than its count says", NULL, 0},
  {"too_many_vertices_counted.off", "OFF\n5 4 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 7, "vertex count too large", NULL, 0},
  {"too_few_faces_counted.off", "OFF\n4 3 6\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 2 1\n3 0 1 3\n3 0 3 2\n3 1 2 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 10, "more data after the last of the 3 faces", NULL, 0},
  {"huge_count.off", "OFF\n# a lie\n2000000000 1 0\n0 0 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "the header says 2000000000 vertices, more than a file of 33 bytes can hold", NULL, 0},
  {"negative_count.off", "OFF\n3 -1 0\n0 0 0\n1 0 0\n0 1 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 2, "negative count -1 of faces", NULL, 0},
  {"count_overflow.off", "OFF 3 99999999999 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "the header says 99999999999 faces, more than a file of 20 bytes can hold", NULL, 0},
  {"not_a_number.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 two\n", -1, PETSC_ERR_FILE_UNEXPECTED, 6, "'two' is not an integer", NULL, 0},
  {"index_out_of_range.off", "OFF\n3 2 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n3 0 1 3\n", -1, PETSC_ERR_FILE_UNEXPECTED, 7, "face 1 refers to vertex 3, the file has 3", NULL, 0},
  {"degenerate.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 6, "degenerate face: vertex 1 appears twice", NULL, 0},
  {"two_vertex_face.off", "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n2 0 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 6, "face 0 has 2 vertices", NULL, 0},
  {"empty_mesh.off", "OFF\n0 0 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 2, "without any vertex", NULL, 0},
  {"no_faces.off", "OFF\n3 0 0\n0 0 0\n1 0 0\n0 1 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "without any face", NULL, 0},
  {"bad_keyword.off", "PLY\n3 1 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "'PLY' is not an OFF header", NULL, 0},
  {"homogeneous.off", "4OFF\n3 1 0\n", -1, PETSC_ERR_SUP, 1, "4OFF files", NULL, 0},
  {"binary.off", "OFF BINARY\n", -1, PETSC_ERR_SUP, 1, "binary OFF", NULL, 0},
  {"empty.off", "# only a comment", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "the file ends before the OFF header", NULL, 0},
  /* TetGen */
  {"truncated.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n# the end\n3 0 1 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "the file ends before point 4 of 4", ELE1, 0},
  {"truncated_line.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "line ends before z coordinate", ELE1, 0},
  {"truncated_ele.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 3, "the file ends before tetrahedron 2 of 2", "2 4 0\n# long enough for 2 tets\n1 1 2 3 4\n", 1},
  {"too_many_counted.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 2, "line ends before a node of a tetrahedron", "1 10 0\n1 1 2 3 4\n", 1},
  {"too_few_counted.node", "3 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "more data after the last of the 3 points", ELE1, 0},
  {"too_few_tets_counted.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 3, "more data after the last of the 1 tetrahedra", "1 4 0\n1 1 2 3 4\n2 4 3 2 1\n", 1},
  {"gap.node", "4 3 0 0\n1 0 0 0\n3 1 0 0\n3 0 1 0\n4 0 0 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "point number 3, expected 2", ELE1, 0},
  {"first_five.node", "4 3 0 0\n5 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 2, "the first point is numbered 5", ELE1, 0},
  {"bad_node_index.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 3, "tetrahedron 1 refers to node 5, the .node file has nodes 1 to 4", "# one tet\n1 4 0\n1 1 2 3 5\n", 1},
  {"zero_in_one_based.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 2, "refers to node 0", "1 4 0\n1 0 1 2 3\n", 1},
  {"degenerate.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 2, "degenerate tetrahedron: vertex 3 appears twice", "1 4 0\n1 1 2 3 3\n", 1},
  {"not_a_number.node", "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 one\n", -1, PETSC_ERR_FILE_UNEXPECTED, 5, "'one' is not a number", ELE1, 0},
  {"two_d.node", "4 2 0 0\n1 0 0\n2 1 0\n3 0 1\n4 1 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "dimension 2", ELE1, 0},
  {"marker_flag.node", "4 3 0 2\n1 0 0 0 1\n2 1 0 0 1\n3 0 1 0 1\n4 0 0 1 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "boundary marker flag 2", ELE1, 0},
  {"extra_number.node", "4 3 0 0\n1 0 0 0\n2 1 0 0 7\n3 0 1 0\n4 0 0 1\n", -1, PETSC_ERR_FILE_UNEXPECTED, 3, "unexpected '7' after a point", ELE1, 0},
  {"huge.node", "2000000000 3 0 0\n1 0 0 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "the header says 2000000000 points, more than a file of", ELE1, 0},
  {"nodes_per_tet.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 1, "5 nodes per tetrahedron", "1 5 0\n1 1 2 3 4 4\n", 1},
  {"region_not_integer.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 2, "region attribute 1.5 of tetrahedron 1 is not an integer", "1 4 1\n1 1 2 3 4 1.5\n", 1},
  {"no_tets.node", NODE4, -1, PETSC_ERR_FILE_UNEXPECTED, 1, "without any tetrahedron", "0 4 0\n", 1},
  {"no_points.node", "0 3 0 0\n", -1, PETSC_ERR_FILE_UNEXPECTED, 1, "no points (an empty mesh)", ELE1, 0},
};

START_TEST(bad_files_name_file_and_line)
{
  for (size_t i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
    const BadFile *b = &bad_files[i];
    char           path[PETSC_MAX_PATH_LEN], ele[PETSC_MAX_PATH_LEN], where[PETSC_MAX_PATH_LEN + 32];
    MfadMesh       m = (MfadMesh)0x1; /* must come back NULL */
    PetscErrorCode ierr;

    snprintf(path, sizeof(path), "%s", WriteTemp(b->name, b->text, b->len));
    if (b->ele) { /* <stem>.ele next to <stem>.node */
      snprintf(ele, sizeof(ele), "%.*s.ele", (int)(strlen(b->name) - 5), b->name);
      snprintf(ele, sizeof(ele), "%s", WriteTemp(ele, b->ele, -1));
    }
    err_msg[0] = '\0';
    TestCall(PetscPushErrorHandler(RecordError, NULL));
    ierr = MfadMeshRead(path, &m);
    TestCall(PetscPopErrorHandler());
    ck_assert_msg(ierr == b->code, "%s: error %d, expected %d (%s)", b->name, (int)ierr, (int)b->code, err_msg);
    ck_assert_msg(m == NULL, "%s: the mesh must be NULL after an error", b->name);
    snprintf(where, sizeof(where), "%s:%d: ", b->in_ele ? ele : path, b->line);
    ck_assert_msg(strncmp(err_msg, where, strlen(where)) == 0, "%s: message '%s' does not start with '%s'", b->name, err_msg, where);
    ck_assert_msg(strstr(err_msg, b->frag), "%s: message '%s' lacks '%s'", b->name, err_msg, b->frag);
    unlink(path);
    if (b->ele) unlink(ele);
  }
}
END_TEST

START_TEST(missing_file_is_file_open)
{
  PetscErrorCode ierr;
  MfadMesh       m;
  char           path[PETSC_MAX_PATH_LEN];
  snprintf(path, sizeof(path), "%s/no_such_file.obj", tmpdir);
  TestCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadMeshReadOBJ(path, &m);
  ck_assert_msg(ierr == PETSC_ERR_FILE_OPEN && strstr(err_msg, path) && strstr(err_msg, "cannot open"), "error %d: %s", (int)ierr, err_msg);
  ierr = MfadMeshReadOFF(tmpdir, &m); /* a directory */
  ck_assert_msg(ierr == PETSC_ERR_FILE_OPEN && strstr(err_msg, "a directory"), "error %d: %s", (int)ierr, err_msg);
  /* a .node without its .ele */
  snprintf(path, sizeof(path), "%s", WriteTemp("lonely.node", NODE4, -1));
  ierr = MfadMeshReadTetGen(path, &m);
  snprintf(path, sizeof(path), "%s/lonely.ele: cannot open", tmpdir);
  ck_assert_msg(ierr == PETSC_ERR_FILE_OPEN && strstr(err_msg, path) && m == NULL, "error %d: %s", (int)ierr, err_msg);
  snprintf(path, sizeof(path), "%s/lonely.node", tmpdir);
  unlink(path);
  TestCall(PetscPopErrorHandler());
}
END_TEST

/* a line far longer than any fixed buffer is read whole: the error after it is still on the
   right line, and a long polygon on one line is read */
START_TEST(long_lines_are_read_whole)
{
  const int      n = 100000; /* vertices of one polygon, on one line of ~600 kB */
  size_t         cap = (size_t)n * 80 + 300000, len = 0;
  char          *text = malloc(cap);
  const char    *path;
  MfadMesh       m;
  PetscErrorCode ierr;
  PetscReal      area, volume;

  len += (size_t)snprintf(text + len, cap - len, "# %0200000d\n", 0); /* a 200 kB comment */
  for (int i = 0; i < n; i++) len += (size_t)snprintf(text + len, cap - len, "v %.17g %.17g 0\n", cos(2 * M_PI * i / n), sin(2 * M_PI * i / n));
  len += (size_t)snprintf(text + len, cap - len, "f");
  for (int i = 1; i <= n; i++) len += (size_t)snprintf(text + len, cap - len, " %d", i);
  len += (size_t)snprintf(text + len, cap - len, "\n");
  path = WriteTemp("long.obj", text, (long)len);
  TestCall(MfadMeshReadOBJ(path, &m));
  ck_assert_int_eq(m->ncell, n - 2);
  SurfaceMeasures(m, &area, &volume);
  /* a regular n-gon inscribed in the unit circle: area n/2 sin(2 pi/n), error O(n eps) */
  ck_assert_msg(fabs(area - 0.5 * n * sin(2 * M_PI / n)) < 1e-9, "polygon area %.17g", area);
  TestCall(MfadMeshDestroy(&m));
  /* the same with a bad vertex after the long lines: comment, n vertices, face, then line n + 3 */
  len += (size_t)snprintf(text + len, cap - len, "v 1 2 x\n");
  path = WriteTemp("long.obj", text, (long)len);
  TestCall(PetscPushErrorHandler(RecordError, NULL));
  ierr = MfadMeshReadOBJ(path, &m);
  TestCall(PetscPopErrorHandler());
  {
    char where[PETSC_MAX_PATH_LEN + 32];
    snprintf(where, sizeof(where), "%s:%d: 'x' is not a number", path, n + 3);
    ck_assert_msg(ierr == PETSC_ERR_FILE_UNEXPECTED && strstr(err_msg, where), "error %d: '%s', expected '%s'", (int)ierr, err_msg, where);
  }
  free(text);
}
END_TEST

int main(int argc, char **argv)
{
  Suite   *s  = suite_create("readers");
  TCase   *tc = tcase_create("readers");
  SRunner *sr;
  int      failed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  snprintf(tmpdir, sizeof(tmpdir), "%s/mfad_readers_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(tmpdir)) return 2;
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, obj_cube_with_quads_and_attributes);
  tcase_add_test(tc, obj_negative_indices_and_crlf);
  tcase_add_test(tc, off_cube_with_quads);
  tcase_add_test(tc, non_convex_faces_are_ear_clipped);
  tcase_add_test(tc, long_faces_have_no_high_degree_vertex);
  tcase_add_test(tc, pentagon_is_still_fanned_from_its_first_corner);
  tcase_add_test(tc, off_colours_and_counts_on_the_header_line);
  tcase_add_test(tc, manifold_check_names_the_edge);
  tcase_add_test(tc, tetgen_two_regions_with_markers);
  tcase_add_test(tc, tetgen_zero_and_one_based_agree);
  tcase_add_test(tc, tetgen_ten_node_tets_and_attributes);
  tcase_add_test(tc, read_dispatches_by_extension);
  tcase_add_test(tc, bad_files_name_file_and_line);
  tcase_add_test(tc, missing_file_is_file_open);
  tcase_add_test(tc, long_lines_are_read_whole);
  suite_add_tcase(s, tc);
  sr = srunner_create(s);
  srunner_set_fork_status(sr, CK_NOFORK); /* MPI is not fork-safe */
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  rmdir(tmpdir);
#if defined(__SANITIZE_ADDRESS__)
  /* test_readers_asan: every error path above must have freed what it allocated; checked now,
     while MPI's allocations can be told apart by library (tests/fuzz/lsan.supp) */
  __lsan_do_leak_check();
#endif
  PetscCall(PetscFinalize());
  return failed ? 1 : 0;
}
