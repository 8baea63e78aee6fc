// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Contact detection, step bound and barrier HVP on stacked cloth sheets.\n"
    "  -n <160>       vertices per sheet side (n x n per sheet)\n"
    "  -sheets <4>    sheets, stacked 0.6 edge lengths apart with z noise\n"
    "  -dhat <0.5>    activation distance, in edge lengths\n"
    "  -step <0.3>    random step per vertex coordinate for the step bound, in edge lengths\n"
    "  -reps <3>      repetitions (the fastest is reported)\n"
    "Rows of vertices are dealt to ranks in blocks: pairs cross ranks at the block edges.\n"
    "Reports the time of MfadContactDetect(), MfadContactStepBound(), and of one fused HVP\n"
    "of the membrane (the static term) and of the barrier terms on the pairs found.\n";
#include <mfad.h>
#include <mfad/contact.h>

static unsigned long long Rng = 99;
static PetscReal          Uniform(PetscReal a, PetscReal b)
{
  Rng = Rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return a + (b - a) * ((PetscReal)(Rng >> 11) / 9007199254740992.0);
}

/* the fastest of reps HVPs of E at X */
static PetscErrorCode TimeHVP(MfadEnergy E, Vec X, PetscInt reps, PetscLogDouble *best)
{
  Vec V, Y;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateVecs(E, &V, &Y));
  PetscCall(VecSetRandom(V, NULL));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y)); /* set-up and warm-up */
  *best = 1e30;
  for (PetscInt r = 0; r < reps; r++) {
    PetscLogDouble t0, t1;
    PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)X)));
    PetscCall(PetscTime(&t0));
    PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
    PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)X)));
    PetscCall(PetscTime(&t1));
    *best = PetscMin(*best, t1 - t0);
  }
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&Y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  PetscInt         n = 160, ns = 4, reps = 3, N, nl = 0, *g2l, *l2g, nt = 0, ne = 0, np = 0, *tri, *edge, *pt, *tconn;
  PetscReal        dhatf = 0.5, stepf = 0.3, h, *X, *dX, *lx, *ldx, *rest, alpha = 0, dmin = 0, mat[2] = {1.0, 1.0};
  PetscMPIInt      rank, size;
  PetscLogDouble   tdet = 1e30, tstep = 1e30, thvp_m, thvp_c, thvp_all;
  MfadContact      C;
  MfadEnergy       Em, Ec, Ea;
  MfadKernel       kmem, kpt, kee;
  PetscInt         npt, nee, gpt, gee, vstart, vend;
  const PetscInt  *cpt, *cee;
  const PetscReal *ppt, *pee;
  Vec              Xv;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bench_contact", NULL);
  PetscCall(PetscOptionsInt("-n", "vertices per sheet side", NULL, n, &n, NULL));
  PetscCall(PetscOptionsInt("-sheets", "sheets", NULL, ns, &ns, NULL));
  PetscCall(PetscOptionsReal("-dhat", "activation distance in edge lengths", NULL, dhatf, &dhatf, NULL));
  PetscCall(PetscOptionsReal("-step", "random step in edge lengths", NULL, stepf, &stepf, NULL));
  PetscCall(PetscOptionsInt("-reps", "repetitions", NULL, reps, &reps, NULL));
  PetscOptionsEnd();
  PetscCheck(n >= 2 && ns >= 1 && reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "bench_contact: need -n >= 2, -sheets >= 1, -reps >= 1");
  h = 1.0 / (n - 1);
  N = ns * n * n;
  /* every rank makes the whole geometry (cheap), then keeps its rows */
  PetscCall(PetscMalloc5(3 * N, &X, 3 * N, &dX, 3 * N, &rest, N, &g2l, N, &l2g));
  for (PetscInt s = 0; s < ns; s++)
    for (PetscInt j = 0; j < n; j++)
      for (PetscInt i = 0; i < n; i++) {
        const PetscInt v = (s * n + j) * n + i;
        rest[3 * v] = X[3 * v] = i * h, rest[3 * v + 1] = X[3 * v + 1] = j * h, rest[3 * v + 2] = 0.0;
        X[3 * v + 2] = s * 0.6 * h + Uniform(-0.2 * h, 0.2 * h);
        for (int d = 0; d < 3; d++) dX[3 * v + d] = Uniform(-stepf * h, stepf * h);
      }
  for (PetscInt v = 0; v < N; v++) g2l[v] = -1;
#define ROWRANK(j)   ((PetscMPIInt)(((j)*size) / n))
#define VID(s, i, j) (((s)*n + (j)) * n + (i))
#define LOCAL(g)     (g2l[g] < 0 ? (l2g[nl] = (g), g2l[g] = nl++) : g2l[g])
  PetscCall(PetscMalloc4(6 * ns * n * n, &tri, 6 * ns * n * n, &edge, N, &pt, 6 * ns * n * n, &tconn));
  for (PetscInt s = 0; s < ns; s++)
    for (PetscInt j = 0; j < n; j++) {
      if (ROWRANK(j) != rank) continue;
      for (PetscInt i = 0; i < n; i++) {
        pt[np++] = LOCAL(VID(s, i, j));
        if (i + 1 < n) edge[2 * ne] = LOCAL(VID(s, i, j)), edge[2 * ne + 1] = LOCAL(VID(s, i + 1, j)), ne++;
        if (j + 1 < n) edge[2 * ne] = LOCAL(VID(s, i, j)), edge[2 * ne + 1] = LOCAL(VID(s, i, j + 1)), ne++;
        if (i + 1 < n && j + 1 < n) {
          const PetscInt q[4] = {VID(s, i, j), VID(s, i + 1, j), VID(s, i + 1, j + 1), VID(s, i, j + 1)};
          edge[2 * ne] = LOCAL(q[0]), edge[2 * ne + 1] = LOCAL(q[2]), ne++;
          for (int a = 0; a < 3; a++) tconn[3 * nt + a] = q[a], tconn[3 * (nt + 1) + a] = q[a == 0 ? 0 : a + 1];
          for (int a = 0; a < 6; a++) tri[3 * nt + a] = LOCAL(tconn[3 * nt + a]);
          nt += 2;
        }
      }
    }
#undef LOCAL
  PetscCall(PetscMalloc2(3 * nl, &lx, 3 * nl, &ldx));
  for (PetscInt l = 0; l < nl; l++)
    for (int d = 0; d < 3; d++) lx[3 * l + d] = X[3 * l2g[l] + d], ldx[3 * l + d] = dX[3 * l2g[l] + d];

  /* detection and step bound */
  PetscCall(MfadContactCreate(PETSC_COMM_WORLD, &C));
  PetscCall(MfadContactSetSurface(C, nl, l2g, nt, tri, ne, edge, np, pt));
  PetscCall(MfadContactSetBarrier(C, dhatf * h, 1.0));
  for (PetscInt r = 0; r < reps; r++) {
    PetscLogDouble t0, t1, t2;
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCall(PetscTime(&t0));
    PetscCall(MfadContactDetect(C, lx));
    PetscCallMPI(MPI_Barrier(PETSC_COMM_WORLD));
    PetscCall(PetscTime(&t1));
    PetscCall(MfadContactStepBound(C, lx, ldx, &alpha));
    PetscCall(PetscTime(&t2));
    tdet  = PetscMin(tdet, t1 - t0);
    tstep = PetscMin(tstep, t2 - t1);
  }
  PetscCall(MfadContactGetMinimumDistance(C, &dmin));
  PetscCall(MfadContactGetPairs(C, MFAD_CONTACT_POINT_TRIANGLE, &npt, &cpt, &ppt));
  PetscCall(MfadContactGetPairs(C, MFAD_CONTACT_EDGE_EDGE, &nee, &cee, &pee));
  PetscCall(MPIU_Allreduce(&npt, &gpt, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(MPIU_Allreduce(&nee, &gee, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));

  /* the membrane (static term), the barriers on the pairs, and both: one fused HVP each */
  PetscCall(MfadKernelFind("membrane_tri", &kmem));
  PetscCall(MfadKernelFind("ipc_point_triangle", &kpt));
  PetscCall(MfadKernelFind("ipc_edge_edge", &kee));
  {
    PetscReal *trest;
    PetscCall(PetscMalloc1(9 * nt, &trest));
    for (PetscInt e = 0; e < 3 * nt; e++)
      for (int d = 0; d < 3; d++) trest[3 * e + d] = rest[3 * tconn[e] + d];
    PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, N, &Em));
    PetscCall(MfadEnergyAddTermFromRest(Em, kmem, nt, tconn, trest, mat, 1.0, NULL));
    PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, N, &Ec));
    PetscCall(MfadEnergyAddTerm(Ec, kpt, npt, cpt, ppt, 1.0, NULL));
    PetscCall(MfadEnergyAddTerm(Ec, kee, nee, cee, pee, 1.0, NULL));
    PetscCall(MfadEnergyCreate(PETSC_COMM_WORLD, 3, PETSC_DECIDE, N, &Ea));
    PetscCall(MfadEnergyAddTermFromRest(Ea, kmem, nt, tconn, trest, mat, 1.0, NULL));
    PetscCall(MfadEnergyAddTerm(Ea, kpt, npt, cpt, ppt, 1.0, NULL));
    PetscCall(MfadEnergyAddTerm(Ea, kee, nee, cee, pee, 1.0, NULL));
    PetscCall(PetscFree(trest));
  }
  PetscCall(MfadEnergyCreateVecs(Em, &Xv, NULL));
  PetscCall(VecGetOwnershipRange(Xv, &vstart, &vend));
  {
    PetscScalar *xa;
    PetscCall(VecGetArray(Xv, &xa));
    for (PetscInt k = vstart; k < vend; k++) xa[k - vstart] = X[k];
    PetscCall(VecRestoreArray(Xv, &xa));
  }
  PetscCall(TimeHVP(Em, Xv, reps, &thvp_m));
  PetscCall(TimeHVP(Ec, Xv, reps, &thvp_c));
  PetscCall(TimeHVP(Ea, Xv, reps, &thvp_all));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "bench_contact: %d rank(s), %" PetscInt_FMT " sheets of %" PetscInt_FMT "^2 = %" PetscInt_FMT " vertices, %" PetscInt_FMT
                        " triangles, dhat %g h, step %g h\n",
                        (int)size, ns, n, N, 2 * ns * (n - 1) * (n - 1), (double)dhatf, (double)stepf));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                        "  pairs within dhat: %" PetscInt_FMT " point-triangle, %" PetscInt_FMT " edge-edge; minimum distance %.3g h\n", gpt, gee,
                        (double)(dmin / h)));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  detection       %8.4f s  (%.2f membrane HVPs)\n", tdet, tdet / thvp_m));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  step bound      %8.4f s  (%.2f membrane HVPs), alpha = %.4g\n", tstep, tstep / thvp_m, (double)alpha));
  PetscCall(
      PetscPrintf(PETSC_COMM_WORLD, "  HVP membrane    %8.4f s\n  HVP barriers    %8.4f s\n  HVP both        %8.4f s\n", thvp_m, thvp_c, thvp_all));
  PetscCall(VecDestroy(&Xv));
  PetscCall(MfadEnergyDestroy(&Em));
  PetscCall(MfadEnergyDestroy(&Ec));
  PetscCall(MfadEnergyDestroy(&Ea));
  PetscCall(MfadContactDestroy(&C));
  PetscCall(PetscFree2(lx, ldx));
  PetscCall(PetscFree4(tri, edge, pt, tconn));
  PetscCall(PetscFree5(X, dX, rest, g2l, l2g));
  PetscCall(PetscFinalize());
  return 0;
}
