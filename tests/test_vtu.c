// SPDX-License-Identifier: BSD-2-Clause
/* MfadEnergyWriteVTU on any number of ranks: a Neo-Hookean box (cubes dealt to ranks in
   contiguous ranges, vertices in PETSc's default layout, some dofs fixed) written as ASCII and as
   base64 binary, read back on rank 0 by the small parser below and compared with what it must
   hold: the points are X, the cells are the box's tets in cube order (MfadMeshBoxTets on all
   cubes), the displacement is X - X0, the gradient norm is that of the gradient at X with fixed
   dofs zeroed; ASCII (%.17g) and binary must agree bit for bit. Then the failures: an unwritable
   path is an error on every rank, and no temporary file is left behind.
   Prints one line per failure; exit status = failures. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <mfadmesh.h>

static int failures;
#define EXPECT(c, ...) \
  do { \
    if (!(c)) { \
      printf("FAIL %s:%d: ", __FILE__, __LINE__); \
      printf(__VA_ARGS__); \
      printf("\n"); \
      failures++; \
    } \
  } while (0)

/* ---------------------------------------------------------------- a minimal VTU reader */
static char *Slurp(const char *path)
{
  FILE *fp = fopen(path, "rb");
  long  n;
  char *s;
  if (!fp) return NULL;
  fseek(fp, 0, SEEK_END);
  n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  s = malloc((size_t)n + 1);
  if (fread(s, 1, (size_t)n, fp) != (size_t)n) n = 0;
  s[n] = 0;
  fclose(fp);
  return s;
}

static int B64(int c)
{
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

/* decodes one base64 run starting at *s (stops after its padding or at a non-base64 char) */
static size_t Decode(const char **s, unsigned char *out, size_t max)
{
  size_t n = 0;
  while (1) {
    int q[4], pad = 0;
    for (int i = 0; i < 4; i++) {
      const char c = (*s)[i];
      q[i]         = c == '=' ? (pad++, 0) : B64(c);
      if (q[i] < 0) return n;
    }
    const unsigned v = (unsigned)q[0] << 18 | (unsigned)q[1] << 12 | (unsigned)q[2] << 6 | (unsigned)q[3];
    const unsigned char b[3] = {(unsigned char)(v >> 16), (unsigned char)(v >> 8), (unsigned char)v};
    for (int i = 0; i < 3 - pad && n < max; i++) out[n++] = b[i];
    *s += 4;
    if (pad) return n;
  }
}

/* the values of DataArray `name` (NULL: the Points array) as doubles; returns the count, -1 if absent */
static long ReadArray(const char *xml, const char *name, double *out, long max)
{
  char        key[128];
  const char *p, *type, *body;
  long        n = 0;
  if (name) {
    snprintf(key, sizeof key, "Name=\"%s\"", name);
    p = strstr(xml, key);
  } else p = strstr(strstr(xml, "<Points>"), "<DataArray");
  if (!p) return -1;
  while (p > xml && strncmp(p, "<DataArray", 10)) p--;
  type = strstr(p, "type=\"") + 6;
  body = strchr(p, '>') + 1;
  if (strstr(p, "format=\"binary\"") && strstr(p, "format=\"binary\"") < body) {
    uint32_t       nbytes;
    unsigned char *raw;
    while (*body == ' ' || *body == '\n') body++;
    if (Decode(&body, (unsigned char *)&nbytes, 4) != 4) return -2;
    raw = malloc(nbytes + 3);
    if (Decode(&body, raw, nbytes) != nbytes) return -3;
    for (uint32_t i = 0; n < max; n++) {
      if (!strncmp(type, "Float64", 7) && i + 8 <= nbytes) memcpy(&out[n], raw + i, 8), i += 8;
      else if (!strncmp(type, "Int64", 5) && i + 8 <= nbytes) {
        int64_t v;
        memcpy(&v, raw + i, 8);
        out[n] = (double)v;
        i += 8;
      } else if (!strncmp(type, "UInt8", 5) && i < nbytes) out[n] = raw[i++];
      else break;
    }
    free(raw);
  } else {
    char *end;
    while (n < max) {
      const double v = strtod(body, &end);
      if (end == body) break;
      out[n++] = v;
      body     = end;
    }
  }
  return n;
}

/* ---------------------------------------------------------------- the energy */
typedef struct {
  PetscInt   nx, ny, nz, ncube, nvert;
  MfadEnergy E;
  Vec        X, X0, G;
} Box;

static PetscErrorCode BoxCreate(Box *b)
{
  const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1.5, 1, 0.5}, mat[2] = {3.0, 20.0};
  PetscMPIInt     rank, size;
  PetscInt        c0, c1, *conn, rs, re, *fix, nfix = 0;
  PetscReal      *rest, *all;
  PetscScalar    *x;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  b->nx = 3, b->ny = 2, b->nz = 2;
  b->ncube = b->nx * b->ny * b->nz;
  b->nvert = (b->nx + 1) * (b->ny + 1) * (b->nz + 1);
  c0       = b->ncube * rank / size;
  c1       = b->ncube * (rank + 1) / size;
  PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, b->nvert, &b->E));
  PetscCall(PetscMalloc3(24 * (c1 - c0), &conn, 72 * (c1 - c0), &rest, 3 * b->nvert, &all));
  PetscCall(MfadMeshBoxTets(b->nx, b->ny, b->nz, c0, c1, conn));
  PetscCall(MfadMeshBoxVertices(b->nx, b->ny, b->nz, lo, hi, 0, b->nvert, all));
  for (PetscInt i = 0; i < 24 * (c1 - c0); i++)
    for (int d = 0; d < 3; d++) rest[3 * i + d] = all[3 * conn[i] + d];
  {
    MfadKernel k;
    PetscCall(MfadKernelFind("neohookean_tet", &k));
    PetscCall(MfadEnergyAddTermFromRest(b->E, k, 6 * (c1 - c0), conn, rest, mat, 1.0, NULL));
  }
  /* fix the x = 0 face (rank 0 names them all) */
  PetscCall(PetscMalloc1(3 * b->nvert, &fix));
  if (rank == 0)
    for (PetscInt v = 0; v < b->nvert; v++)
      if (v % (b->nx + 1) == 0)
        for (int d = 0; d < 3; d++) fix[nfix++] = 3 * v + d;
  PetscCall(MfadEnergySetFixedDofs(b->E, nfix, fix, NULL));
  PetscCall(MfadEnergyCreateVecs(b->E, &b->X, &b->G));
  PetscCall(VecDuplicate(b->X, &b->X0));
  PetscCall(VecGetOwnershipRange(b->X, &rs, &re));
  PetscCall(VecGetArray(b->X, &x));
  for (PetscInt i = rs; i < re; i++) x[i - rs] = all[i];
  PetscCall(VecRestoreArray(b->X, &x));
  PetscCall(VecCopy(b->X, b->X0));
  /* a smooth bend, so the gradient is not zero */
  PetscCall(VecGetArray(b->X, &x));
  for (PetscInt i = rs; i < re; i++)
    if (i % 3 == 2) x[i - rs] += 0.05 * PetscSqr(all[i - 2]);
  PetscCall(VecRestoreArray(b->X, &x));
  PetscCall(MfadEnergyApplyFixedValues(b->E, b->X));
  PetscCall(PetscFree3(conn, rest, all));
  PetscCall(PetscFree(fix));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Checks a written file against the box (rank 0 reads; the gathered vectors are on rank 0). */
static PetscErrorCode CheckFile(Box *b, const char *path, Vec Xz, Vec X0z, Vec Gz, const PetscBool *fixed, double *pts_out)
{
  const PetscInt     nv = b->nvert, nc = 6 * b->ncube;
  char              *xml = Slurp(path);
  double            *buf;
  PetscInt          *conn;
  const PetscScalar *x, *x0, *g;

  PetscFunctionBeginUser;
  EXPECT(xml, "%s not written", path);
  if (!xml) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscMalloc2(4 * nc + 3 * nv, &buf, 24 * b->ncube, &conn));
  PetscCall(VecGetArrayRead(Xz, &x));
  PetscCall(VecGetArrayRead(X0z, &x0));
  PetscCall(VecGetArrayRead(Gz, &g));
  EXPECT(ReadArray(xml, NULL, buf, 3 * nv + 1) == 3 * nv, "%s: %" PetscInt_FMT " points expected", path, nv);
  for (PetscInt i = 0; i < 3 * nv; i++) EXPECT(buf[i] == PetscRealPart(x[i]), "%s: point coordinate %" PetscInt_FMT ": %g, X has %g", path, i, buf[i], (double)PetscRealPart(x[i]));
  if (pts_out) PetscCall(PetscArraycpy(pts_out, buf, 3 * nv));
  PetscCall(MfadMeshBoxTets(b->nx, b->ny, b->nz, 0, b->ncube, conn));
  EXPECT(ReadArray(xml, "connectivity", buf, 4 * nc + 1) == 4 * nc, "%s: %" PetscInt_FMT " tets expected", path, nc);
  for (PetscInt i = 0; i < 4 * nc; i++) EXPECT(buf[i] == conn[i], "%s: connectivity entry %" PetscInt_FMT ": %g, the box has %" PetscInt_FMT, path, i, buf[i], conn[i]);
  EXPECT(ReadArray(xml, "offsets", buf, nc + 1) == nc && buf[nc - 1] == 4 * nc, "%s: offsets", path);
  EXPECT(ReadArray(xml, "types", buf, nc + 1) == nc && buf[0] == 10 && buf[nc - 1] == 10, "%s: cell types (10: VTK_TETRA)", path);
  EXPECT(ReadArray(xml, "displacement", buf, 3 * nv + 1) == 3 * nv, "%s: displacement", path);
  for (PetscInt i = 0; i < 3 * nv; i++) EXPECT(buf[i] == PetscRealPart(x[i] - x0[i]), "%s: displacement %" PetscInt_FMT, path, i);
  EXPECT(ReadArray(xml, "gradient_norm", buf, nv + 1) == nv, "%s: gradient_norm", path);
  for (PetscInt v = 0; v < nv; v++) {
    double s = 0;
    for (int d = 0; d < 3; d++)
      if (!fixed[3 * v + d]) s += PetscSqr(PetscRealPart(g[3 * v + d]));
    EXPECT(PetscAbsReal(buf[v] - PetscSqrtReal(s)) <= 1e-14 * PetscMax(1.0, PetscSqrtReal(s)), "%s: gradient norm of vertex %" PetscInt_FMT ": %g, expected %g", path, v, buf[v], PetscSqrtReal(s));
  }
  PetscCall(VecRestoreArrayRead(Xz, &x));
  PetscCall(VecRestoreArrayRead(X0z, &x0));
  PetscCall(VecRestoreArrayRead(Gz, &g));
  PetscCall(PetscFree2(buf, conn));
  free(xml);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* no "<name>.tmp.*" file is left in dir */
static int LeftoverTemps(const char *dir)
{
  DIR           *d = opendir(dir);
  struct dirent *e;
  int            n = 0;
  if (!d) return 0;
  while ((e = readdir(d)))
    if (strstr(e->d_name, ".tmp.")) n++;
  closedir(d);
  return n;
}

int main(int argc, char **argv)
{
  Box         b;
  PetscMPIInt rank;
  char        dir[PETSC_MAX_PATH_LEN] = "", ascii[PETSC_MAX_PATH_LEN], binary[PETSC_MAX_PATH_LEN], bad[PETSC_MAX_PATH_LEN];
  Vec         Xz, X0z, Gz;
  VecScatter  toz;
  PetscBool  *fixed;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(BoxCreate(&b));
  if (rank == 0) {
    strcpy(dir, "/tmp/mfad-vtu-XXXXXX");
    if (!mkdtemp(dir)) dir[0] = 0;
  }
  PetscCallMPI(MPI_Bcast(dir, sizeof dir, MPI_CHAR, 0, PETSC_COMM_WORLD));
  EXPECT(dir[0], "no temporary directory");
  PetscCall(PetscSNPrintf(ascii, sizeof ascii, "%s/box.vtu", dir));
  PetscCall(PetscSNPrintf(binary, sizeof binary, "%s/box-binary.vtu", dir));

  /* the expected fields, gathered on rank 0 */
  PetscCall(MfadEnergyComputeGradient(b.E, b.X, b.G));
  PetscCall(VecScatterCreateToZero(b.X, &toz, &Xz));
  PetscCall(VecDuplicate(Xz, &X0z));
  PetscCall(VecDuplicate(Xz, &Gz));
  PetscCall(VecScatterBegin(toz, b.X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, b.X, Xz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(toz, b.X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, b.X0, X0z, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterBegin(toz, b.G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, b.G, Gz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(PetscCalloc1(3 * b.nvert, &fixed));
  for (PetscInt v = 0; v < b.nvert; v++)
    if (v % (b.nx + 1) == 0) fixed[3 * v] = fixed[3 * v + 1] = fixed[3 * v + 2] = PETSC_TRUE;

  PetscCall(MfadEnergyWriteVTU(b.E, 0, b.X, b.X0, ascii));
  PetscCall(MfadEnergySetVTUBinary(b.E, PETSC_TRUE)); /* -mfad_vtu_binary */
  PetscCall(MfadEnergyWriteVTU(b.E, 0, b.X, b.X0, binary));
  PetscCall(MfadEnergySetVTUBinary(b.E, PETSC_FALSE));
  if (rank == 0) {
    double *pa, *pb;
    char   *xb = Slurp(binary);
    PetscCall(PetscMalloc2(3 * b.nvert, &pa, 3 * b.nvert, &pb));
    PetscCall(CheckFile(&b, ascii, Xz, X0z, Gz, fixed, pa));
    PetscCall(CheckFile(&b, binary, Xz, X0z, Gz, fixed, pb));
    EXPECT(!memcmp(pa, pb, sizeof(double) * 3 * b.nvert), "ASCII and binary points differ");
    EXPECT(xb && strstr(xb, "format=\"binary\"") && !strstr(xb, "format=\"ascii\""), "-mfad_vtu_binary wrote ASCII arrays");
    free(xb);
    PetscCall(PetscFree2(pa, pb));
  }

  /* failures: a missing directory (open fails) and a directory in the way (rename fails) */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  {
    PetscErrorCode ierr;
    PetscCall(PetscSNPrintf(bad, sizeof bad, "%s/no/such/dir/x.vtu", dir));
    ierr = MfadEnergyWriteVTU(b.E, 0, b.X, NULL, bad);
    EXPECT(ierr != 0, "writing into a missing directory succeeded");
    PetscCall(PetscSNPrintf(bad, sizeof bad, "%s/adir.vtu", dir));
    if (rank == 0) EXPECT(mkdir(bad, 0700) == 0, "mkdir %s", bad);
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    ierr = MfadEnergyWriteVTU(b.E, 0, b.X, NULL, bad);
    EXPECT(ierr != 0, "renaming over a directory succeeded");
    ierr = MfadEnergyWriteVTU(b.E, 7, b.X, NULL, ascii);
    EXPECT(ierr == PETSC_ERR_ARG_OUTOFRANGE, "term 7 of 1: error %d", (int)ierr);
  }
  PetscCall(PetscPopErrorHandler());
  if (rank == 0) {
    EXPECT(LeftoverTemps(dir) == 0, "temporary files left in %s", dir);
    /* the good file is intact after the failed writes */
    PetscCall(CheckFile(&b, ascii, Xz, X0z, Gz, fixed, NULL));
    rmdir(bad);
    remove(ascii);
    remove(binary);
    rmdir(dir);
  }

  PetscCall(PetscFree(fixed));
  PetscCall(VecScatterDestroy(&toz));
  PetscCall(VecDestroy(&Xz));
  PetscCall(VecDestroy(&X0z));
  PetscCall(VecDestroy(&Gz));
  PetscCall(VecDestroy(&b.X));
  PetscCall(VecDestroy(&b.X0));
  PetscCall(VecDestroy(&b.G));
  PetscCall(MfadEnergyDestroy(&b.E));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &failures, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
