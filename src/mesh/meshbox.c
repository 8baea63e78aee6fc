// SPDX-License-Identifier: BSD-2-Clause
/* Structured tet meshes of a box (PETSc 3.18 has no TetGen here): each cube of an
   nx x ny x nz grid split into 6 tets around its main diagonal (Kuhn/Freudenthal), every tet
   positively oriented, neighbouring cubes conforming: as arrays (MfadMeshBoxTets(),
   MfadMeshBoxVertices()) or as an MfadMesh (MfadMeshCreateBox()). */
#include "mfadmeshimpl.h"

/* the 6 monotone lattice paths from corner 000 to 111, corners as bit masks (x = 1, y = 2, z = 4) */
static const int MfadKuhnTets[6][4] = {{0, 1, 3, 7}, {0, 1, 5, 7}, {0, 2, 3, 7}, {0, 2, 6, 7}, {0, 4, 5, 7}, {0, 4, 6, 7}};

static int MfadKuhnOrientation_Private(const int t[4])
{
  double p[4][3], a[3], b[3], c[3];
  for (int v = 0; v < 4; v++)
    for (int d = 0; d < 3; d++) p[v][d] = (t[v] >> d) & 1;
  for (int d = 0; d < 3; d++) {
    a[d] = p[1][d] - p[0][d];
    b[d] = p[2][d] - p[0][d];
    c[d] = p[3][d] - p[0][d];
  }
  return a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]) > 0 ? 1 : -1;
}

PetscErrorCode MfadMeshBoxTets(PetscInt nx, PetscInt ny, PetscInt nz, PetscInt cstart, PetscInt cend, PetscInt conn[])
{
  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshBoxTets: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cubes", nx, ny, nz);
  PetscCheck(0 <= cstart && cstart <= cend && cend <= nx * ny * nz, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshBoxTets: cube range [%" PetscInt_FMT ", %" PetscInt_FMT ") outside [0, %" PetscInt_FMT ")", cstart, cend, nx * ny * nz);
  PetscCheck((PetscInt64)(nx + 1) * (ny + 1) * (nz + 1) < PETSC_MAX_INT && (PetscInt64)6 * nx * ny * nz * 4 < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshBoxTets: mesh too large for 32-bit indices");
  for (PetscInt c = cstart; c < cend; c++) {
    const PetscInt i = c % nx, j = (c / nx) % ny, k = c / (nx * ny);
    for (int t = 0; t < 6; t++) {
      int tet[4];
      for (int v = 0; v < 4; v++) tet[v] = MfadKuhnTets[t][v];
      if (MfadKuhnOrientation_Private(tet) < 0) {
        int s  = tet[2];
        tet[2] = tet[3];
        tet[3] = s;
      }
      for (int v = 0; v < 4; v++) {
        const int b                               = tet[v];
        conn[((c - cstart) * 6 + t) * 4 + v] = (i + (b & 1)) + (nx + 1) * ((j + ((b >> 1) & 1)) + (ny + 1) * (k + ((b >> 2) & 1)));
      }
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshBoxVertices(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], PetscInt vstart, PetscInt vend, PetscReal coords[])
{
  const PetscInt nv = (nx + 1) * (ny + 1) * (nz + 1);

  PetscFunctionBegin;
  PetscCheck(0 <= vstart && vstart <= vend && vend <= nv, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshBoxVertices: vertex range [%" PetscInt_FMT ", %" PetscInt_FMT ") outside [0, %" PetscInt_FMT ")", vstart, vend, nv);
  for (PetscInt v = vstart; v < vend; v++) {
    const PetscInt ijk[3] = {v % (nx + 1), (v / (nx + 1)) % (ny + 1), v / ((nx + 1) * (ny + 1))}, n[3] = {nx, ny, nz};
    for (int d = 0; d < 3; d++) coords[3 * (v - vstart) + d] = lo[d] + (hi[d] - lo[d]) * (PetscReal)ijk[d] / (PetscReal)n[d];
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MfadMeshCreateBox(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], MfadMesh *mesh)
{
  PetscInt64 nv = (PetscInt64)(nx + 1) * (ny + 1) * (nz + 1), nc = (PetscInt64)6 * nx * ny * nz;

  PetscFunctionBegin;
  PetscCheck(nx > 0 && ny > 0 && nz > 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadMeshCreateBox: %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT " cubes", nx, ny, nz);
  PetscCheck(nv < PETSC_MAX_INT && 4 * nc < PETSC_MAX_INT, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
             "MfadMeshCreateBox: mesh too large for 32-bit indices");
  for (int d = 0; d < 3; d++)
    PetscCheck(hi[d] > lo[d], PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "MfadMeshCreateBox: empty extent [%g, %g] along axis %d", (double)lo[d],
               (double)hi[d], d);
  PetscCall(MfadMeshCreate(3, (PetscInt)nv, 4, (PetscInt)nc, mesh));
  PetscCall(MfadMeshBoxTets(nx, ny, nz, 0, nx * ny * nz, (*mesh)->cells));
  PetscCall(MfadMeshBoxVertices(nx, ny, nz, lo, hi, 0, (PetscInt)nv, (*mesh)->coords));
  PetscFunctionReturn(PETSC_SUCCESS);
}
