// SPDX-License-Identifier: BSD-2-Clause
/* The bodies of advdiffproblem.h (described there): the library mfad_problems (problems/CMakeLists.txt). */
#include <stdio.h>
#include "advdiffproblem.h"

MFAD_KERNEL_DECLARE(advdiff_tri);

/* u* and its derivatives: u, du/dx, du/dy, Laplacian */
static void AdvDiffExact(PetscReal x, PetscReal y, PetscReal *u, PetscReal *ux, PetscReal *uy, PetscReal *lap)
{
  const PetscReal sx = PetscSinReal(PETSC_PI * x), sy = PetscSinReal(PETSC_PI * y);
  const PetscReal cx = PetscCosReal(PETSC_PI * x), cy = PetscCosReal(PETSC_PI * y);

  *u = sx * sy + x * y;
  if (ux) *ux = PETSC_PI * cx * sy + y;
  if (uy) *uy = PETSC_PI * sx * cy + x;
  if (lap) *lap = -2 * PETSC_PI * PETSC_PI * sx * sy;
}

/* f = -div((1 + k u^2) grad u) + b . grad u + c u^3 = -(1 + k u^2) lap u - 2 k u |grad u|^2 + ... at u* */
static PetscReal AdvDiffSource(const AdvDiffCoefficients *cf, PetscReal x, PetscReal y)
{
  PetscReal u, ux, uy, lap;

  AdvDiffExact(x, y, &u, &ux, &uy, &lap);
  return -(1 + cf->k * u * u) * lap - 2 * cf->k * u * (ux * ux + uy * uy) + cf->b[0] * ux + cf->b[1] * uy + cf->c * u * u * u;
}

PetscErrorCode AdvDiffCoefficientsFromOptions(MPI_Comm comm, AdvDiffCoefficients *coef)
{
  PetscInt  nb = 2;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscOptionsBegin(comm, NULL, "Advection-diffusion-reaction coefficients", NULL);
  PetscCall(PetscOptionsRealArray("-b", "velocity bx,by", NULL, coef->b, &nb, &set));
  PetscCall(PetscOptionsReal("-k", "nonlinear diffusion: coefficient 1 + k u^2", NULL, coef->k, &coef->k, NULL));
  PetscCall(PetscOptionsReal("-c", "cubic reaction coefficient", NULL, coef->c, &coef->c, NULL));
  PetscOptionsEnd();
  PetscCheck(!set || nb == 2, comm, PETSC_ERR_ARG_WRONG, "-b takes two numbers bx,by (got %" PetscInt_FMT ")", nb);
  /* k, c >= 0 keep the operator monotone: the discrete problem has one solution and Newton a
     well-posed linearisation at every iterate */
  PetscCheck(coef->k >= 0 && coef->c >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-k %g and -c %g must be >= 0", (double)coef->k, (double)coef->c);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffCreate(MPI_Comm comm, PetscInt n, const AdvDiffCoefficients *coef, AdvDiff *ad)
{
  MfadMesh   m;
  PetscInt   nc, *conn, *fixd, nfix = 0;
  PetscReal *params, *fixval;
  /* barycentric coordinates of the 3-point rule of advdiff_tri.c: point q nearest vertex q */
  const PetscReal lq[3][3] = {
    {2.0 / 3, 1.0 / 6, 1.0 / 6},
    {1.0 / 6, 2.0 / 3, 1.0 / 6},
    {1.0 / 6, 1.0 / 6, 2.0 / 3}
  };

  PetscFunctionBeginUser;
  PetscCheck(n >= 1 && (PetscInt64)2 * n * n < PETSC_MAX_INT / 3, comm, PETSC_ERR_ARG_OUTOFRANGE, "advdiff: -n %" PetscInt_FMT " must be in [1, %d)", n,
             (int)PetscSqrtReal(PETSC_MAX_INT / 6.0));
  PetscCall(PetscMemzero(ad, sizeof(*ad)));
  ad->n    = n;
  ad->coef = *coef;
  PetscCall(MfadMeshCreate(2, (n + 1) * (n + 1), 3, 2 * n * n, &m));
  ad->mesh = m;
  for (PetscInt j = 0; j <= n; j++)
    for (PetscInt i = 0; i <= n; i++) {
      m->coords[2 * (j * (n + 1) + i)]     = (PetscReal)i / n;
      m->coords[2 * (j * (n + 1) + i) + 1] = (PetscReal)j / n;
    }
  /* square (i, j): triangles (v00, v10, v11) and (v00, v11, v01), counter-clockwise */
  for (PetscInt j = 0; j < n; j++)
    for (PetscInt i = 0; i < n; i++) {
      const PetscInt v00 = j * (n + 1) + i, v10 = v00 + 1, v01 = v00 + n + 1, v11 = v01 + 1;
      PetscInt      *c = &m->cells[6 * (j * n + i)];
      c[0] = v00, c[1] = v10, c[2] = v11, c[3] = v00, c[4] = v11, c[5] = v01;
    }
  PetscCall(MfadEnergyCreateFromMesh(comm, m, 1, &ad->E));
  PetscCall(MfadEnergyGetOwnershipRange(ad->E, &ad->vstart, &ad->vend));
  PetscCall(MfadMeshGetCellRange(comm, m, &ad->cstart, &ad->cend));

  /* per-triangle parameters (advdiff_tri.c): coordinates, b, k, c, f at the quadrature points */
  nc = ad->cend - ad->cstart;
  PetscCall(PetscMalloc2(3 * nc, &conn, 13 * nc, &params));
  for (PetscInt e = 0; e < nc; e++) {
    const PetscInt *t = &m->cells[3 * (ad->cstart + e)];
    PetscReal      *p = &params[13 * e];
    for (int a = 0; a < 3; a++) {
      conn[3 * e + a] = t[a];
      p[2 * a]        = m->coords[2 * t[a]];
      p[2 * a + 1]    = m->coords[2 * t[a] + 1];
    }
    p[6] = coef->b[0], p[7] = coef->b[1], p[8] = coef->k, p[9] = coef->c;
    for (int q = 0; q < 3; q++) {
      PetscReal x = 0, y = 0;
      for (int a = 0; a < 3; a++) x += lq[q][a] * p[2 * a], y += lq[q][a] * p[2 * a + 1];
      p[10 + q] = AdvDiffSource(coef, x, y);
    }
  }
  PetscCall(MfadEnergyAddTerm(ad->E, MFAD_KERNEL(advdiff_tri), nc, conn, params, 1.0, NULL));
  PetscCall(PetscFree2(conn, params));

  /* Dirichlet: this rank's boundary vertices at u* */
  PetscCall(PetscMalloc2(ad->vend - ad->vstart, &fixd, ad->vend - ad->vstart, &fixval));
  for (PetscInt v = ad->vstart; v < ad->vend; v++) {
    const PetscInt i = v % (n + 1), j = v / (n + 1);
    if (i == 0 || j == 0 || i == n || j == n) {
      fixd[nfix] = v;
      AdvDiffExact(m->coords[2 * v], m->coords[2 * v + 1], &fixval[nfix++], NULL, NULL, NULL);
    }
  }
  PetscCall(MfadEnergySetFixedDofs(ad->E, nfix, fixd, fixval));
  PetscCall(PetscFree2(fixd, fixval));
  PetscCall(MfadEnergySetFromOptions(ad->E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffDestroy(AdvDiff *ad)
{
  PetscFunctionBeginUser;
  PetscCall(MfadEnergyDestroy(&ad->E));
  PetscCall(MfadMeshDestroy(&ad->mesh));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffInitialGuess(AdvDiff *ad, Vec U)
{
  PetscFunctionBeginUser;
  PetscCall(VecZeroEntries(U));
  PetscCall(MfadEnergyApplyFixedValues(ad->E, U));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffInterpolateExact(AdvDiff *ad, Vec U)
{
  PetscScalar *u;

  PetscFunctionBeginUser;
  PetscCall(VecGetArrayWrite(U, &u));
  for (PetscInt v = ad->vstart; v < ad->vend; v++) {
    PetscReal ue;
    AdvDiffExact(ad->mesh->coords[2 * v], ad->mesh->coords[2 * v + 1], &ue, NULL, NULL, NULL);
    u[v - ad->vstart] = ue;
  }
  PetscCall(VecRestoreArrayWrite(U, &u));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffErrors(AdvDiff *ad, Vec U, PetscReal *l2, PetscReal *linf, PetscReal *unorm)
{
  /* Radon's 7-point rule, exact for degree 5: barycentric points and weights (sum 1) */
  const PetscReal    s15 = PetscSqrtReal(15.0), a1 = (6 - s15) / 21, b1 = (9 + 2 * s15) / 21, a2 = (6 + s15) / 21, b2 = (9 - 2 * s15) / 21;
  const PetscReal    w1 = (155 - s15) / 1200, w2 = (155 + s15) / 1200;
  const PetscReal    pts[7][3] = {
    {1.0 / 3, 1.0 / 3, 1.0 / 3},
    {a1,      a1,      b1     },
    {a1,      b1,      a1     },
    {b1,      a1,      a1     },
    {a2,      a2,      b2     },
    {a2,      b2,      a2     },
    {b2,      a2,      a2     }
  };
  const PetscReal    wts[7] = {9.0 / 40, w1, w1, w1, w2, w2, w2};
  MfadMesh           m      = ad->mesh;
  VecScatter         all;
  Vec                Ua;
  const PetscScalar *u;
  PetscReal          loc[2] = {0, 0}, sum[2], mx = 0;
  MPI_Comm           comm   = PetscObjectComm((PetscObject)U);

  PetscFunctionBeginUser;
  /* every vertex value on every rank: the grid is whole on every rank already */
  PetscCall(VecScatterCreateToAll(U, &all, &Ua));
  PetscCall(VecScatterBegin(all, U, Ua, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(all, U, Ua, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecGetArrayRead(Ua, &u));
  for (PetscInt c = ad->cstart; c < ad->cend; c++) {
    const PetscInt  *t = &m->cells[3 * c];
    const PetscReal *p0 = &m->coords[2 * t[0]], *p1 = &m->coords[2 * t[1]], *p2 = &m->coords[2 * t[2]];
    const PetscReal  area = 0.5 * PetscAbsReal((p1[0] - p0[0]) * (p2[1] - p0[1]) - (p2[0] - p0[0]) * (p1[1] - p0[1]));
    for (int q = 0; q < 7; q++) {
      const PetscReal *l = pts[q];
      const PetscReal  x = l[0] * p0[0] + l[1] * p1[0] + l[2] * p2[0], y = l[0] * p0[1] + l[1] * p1[1] + l[2] * p2[1];
      const PetscReal  uh = l[0] * PetscRealPart(u[t[0]]) + l[1] * PetscRealPart(u[t[1]]) + l[2] * PetscRealPart(u[t[2]]);
      PetscReal        ue;
      AdvDiffExact(x, y, &ue, NULL, NULL, NULL);
      loc[0] += area * wts[q] * (uh - ue) * (uh - ue);
      loc[1] += area * wts[q] * uh * uh;
    }
  }
  for (PetscInt v = ad->vstart; v < ad->vend; v++) {
    PetscReal ue;
    AdvDiffExact(m->coords[2 * v], m->coords[2 * v + 1], &ue, NULL, NULL, NULL);
    mx = PetscMax(mx, PetscAbsReal(PetscRealPart(u[v]) - ue));
  }
  PetscCall(VecRestoreArrayRead(Ua, &u));
  PetscCall(VecScatterDestroy(&all));
  PetscCall(VecDestroy(&Ua));
  PetscCall(MPIU_Allreduce(loc, sum, 2, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(&mx, linf, 1, MPIU_REAL, MPIU_MAX, comm));
  *l2    = PetscSqrtReal(sum[0]);
  *unorm = PetscSqrtReal(sum[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AdvDiffWriteVTU(AdvDiff *ad, Vec U, const char path[])
{
  MfadMesh           m = ad->mesh;
  VecScatter         toz;
  Vec                Uz;
  PetscMPIInt        rank;
  MPI_Comm           comm = PetscObjectComm((PetscObject)U);
  const PetscScalar *u;
  char               tmp[PETSC_MAX_PATH_LEN];

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCall(VecScatterCreateToZero(U, &toz, &Uz));
  PetscCall(VecScatterBegin(toz, U, Uz, INSERT_VALUES, SCATTER_FORWARD));
  PetscCall(VecScatterEnd(toz, U, Uz, INSERT_VALUES, SCATTER_FORWARD));
  if (rank == 0) {
    FILE *fp;
    int   bad;
    /* written beside and renamed: an interrupted run never leaves half a file under the name */
    PetscCall(PetscSNPrintf(tmp, sizeof tmp, "%s.tmp", path));
    fp = fopen(tmp, "w");
    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "advdiff: cannot open %s for writing", tmp);
    PetscCall(VecGetArrayRead(Uz, &u));
    fprintf(fp, "<?xml version=\"1.0\"?>\n<VTKFile type=\"UnstructuredGrid\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt32\">\n");
    fprintf(fp, "  <UnstructuredGrid>\n  <Piece NumberOfPoints=\"%" PetscInt_FMT "\" NumberOfCells=\"%" PetscInt_FMT "\">\n", m->nvert, m->ncell);
    fprintf(fp, "    <Points>\n      <DataArray type=\"Float64\" NumberOfComponents=\"3\" format=\"ascii\">\n");
    for (PetscInt v = 0; v < m->nvert; v++) fprintf(fp, "%.17g %.17g 0\n", (double)m->coords[2 * v], (double)m->coords[2 * v + 1]);
    fprintf(fp, "      </DataArray>\n    </Points>\n    <Cells>\n      <DataArray type=\"Int64\" Name=\"connectivity\" format=\"ascii\">\n");
    for (PetscInt c = 0; c < m->ncell; c++) fprintf(fp, "%" PetscInt_FMT " %" PetscInt_FMT " %" PetscInt_FMT "\n", m->cells[3 * c], m->cells[3 * c + 1], m->cells[3 * c + 2]);
    fprintf(fp, "      </DataArray>\n      <DataArray type=\"Int64\" Name=\"offsets\" format=\"ascii\">\n");
    for (PetscInt c = 0; c < m->ncell; c++) fprintf(fp, "%" PetscInt_FMT "\n", 3 * (c + 1));
    fprintf(fp, "      </DataArray>\n      <DataArray type=\"UInt8\" Name=\"types\" format=\"ascii\">\n");
    for (PetscInt c = 0; c < m->ncell; c++) fprintf(fp, "5\n"); /* VTK_TRIANGLE */
    fprintf(fp, "      </DataArray>\n    </Cells>\n    <PointData Scalars=\"u\">\n");
    for (int f = 0; f < 3; f++) {
      static const char *const names[] = {"u", "u_exact", "error"};
      fprintf(fp, "      <DataArray type=\"Float64\" Name=\"%s\" format=\"ascii\">\n", names[f]);
      for (PetscInt v = 0; v < m->nvert; v++) {
        PetscReal ue;
        AdvDiffExact(m->coords[2 * v], m->coords[2 * v + 1], &ue, NULL, NULL, NULL);
        fprintf(fp, "%.17g\n", f == 0 ? (double)PetscRealPart(u[v]) : f == 1 ? (double)ue : (double)(PetscRealPart(u[v]) - ue));
      }
      fprintf(fp, "      </DataArray>\n");
    }
    fprintf(fp, "    </PointData>\n  </Piece>\n  </UnstructuredGrid>\n</VTKFile>\n");
    PetscCall(VecRestoreArrayRead(Uz, &u));
    bad = ferror(fp);
    bad |= fclose(fp);
    if (bad) (void)remove(tmp);
    PetscCheck(!bad, PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "advdiff: writing %s failed (disk full?)", tmp);
    PetscCheck(!rename(tmp, path), PETSC_COMM_SELF, PETSC_ERR_FILE_WRITE, "advdiff: cannot rename %s to %s", tmp, path);
  }
  PetscCall(VecScatterDestroy(&toz));
  PetscCall(VecDestroy(&Uz));
  PetscFunctionReturn(PETSC_SUCCESS);
}
