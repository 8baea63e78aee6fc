// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Elastic cubes of tetrahedra dropped, tilted, one above the other onto a fixed triangulated floor:\n"
    "the lowest lands on the floor, each other one on the cube below it. By implicit Euler with\n"
    "incremental potential contact (IPC): each time step minimises\n"
    "  1/(2 dt^2) |x - x_pred|_M^2 + W(x) + sum over pairs closer than dhat of the IPC barrier,\n"
    "W the Neo-Hookean energy and gravity, the pairs (a point of one surface and a triangle, or two\n"
    "edges: cube and floor, cube and cube, and each cube with itself) found anew at each Newton\n"
    "step (MfadContactDetect, a term of changing elements), every line-search step capped before a\n"
    "pair could pass through (continuous collision, MfadContactStepBound). Options:\n"
    "  -cubes <2>      elastic cubes, stacked with a gap of -drop between each and the next\n"
    "  -n <4>          cells along each side of a cube (6 tets each)\n"
    "  -h <0.025>      cube edge [m]\n"
    "  -E <1e5>        Young's modulus [Pa]; -nu <0.3> Poisson's ratio; -rho <1000> density [kg/m^3]\n"
    "  -g <-9.81>      gravity along z [m/s^2]\n"
    "  -drop <0.02>    gap between the lowest cube and the floor, and between a cube and the next, at the start [m]\n"
    "  -tilt <0.4>     each cube turned by this angle [rad] about x (alternating in sign from cube to cube)\n"
    "                  and half of it about y: it lands on a corner\n"
    "  -floor <8>      floor squares per side (the floor spans twice the cube's width)\n"
    "  -dhat <h/4>     contact activation distance [m] (h = -h / -n); -kappa <10 m g / dhat^3> stiffness\n"
    "  -ts_steps <40>  implicit-Euler steps; -dt <0.005> time step [s]\n"
    "  -o_steps <prefix>  write the cubes after every step, <prefix>_0001.vtu ...\n"
    "Each step prints 'drop: step ...' with the lowest z, the centre of mass's z, the smallest pair\n"
    "distance and the pairs between two cubes (cube_pairs); the last line is the summary\n"
    "(min_contact_distance over all steps: > 0, nothing passed through; cube_pairs: the most pairs\n"
    "between two cubes at a step). Defaults -mfad_psd_project abs -mfad_psd_project_steps 3\n"
    "(projected, then exact Newton); mfad's options and every SNES/KSP/PC option apply.\n\n";

#include <mfadmesh.h>
#include "stepper.h"
#include "contactstep.h"

typedef struct {
  PetscInt  cubes, n, nf, steps;
  PetscReal h, young, nu, rho, grav, drop, tilt, dt;
} Scene;

/* Where the cubes start (all (n+1)^3 vertices of each, rest: the first cube's): cube k turned by
   (-1)^k tilt about its centre and lifted to a gap of -drop above the floor (k = 0) or the highest
   point of cube k - 1 */
static void CubesStart(const Scene *sc, const PetscReal rest[], PetscInt nb, PetscReal x0[])
{
  PetscReal top = 0;
  for (PetscInt k = 0; k < sc->cubes; k++) {
    const PetscReal a = (k % 2 ? -1 : 1) * sc->tilt, b = 0.5 * sc->tilt, c = 0.5 * sc->n * sc->h;
    PetscReal       zmin = PETSC_MAX_REAL, *xk = &x0[3 * k * nb];
    for (PetscInt v = 0; v < nb; v++) { /* about the cube's centre: R_y(b) R_x(a) */
      const PetscReal p[3] = {rest[3 * v] - c, rest[3 * v + 1] - c, rest[3 * v + 2] - c};
      const PetscReal q[3] = {p[0], PetscCosReal(a) * p[1] - PetscSinReal(a) * p[2], PetscSinReal(a) * p[1] + PetscCosReal(a) * p[2]};
      xk[3 * v]            = PetscCosReal(b) * q[0] + PetscSinReal(b) * q[2];
      xk[3 * v + 1]        = q[1];
      xk[3 * v + 2]        = -PetscSinReal(b) * q[0] + PetscCosReal(b) * q[2];
      zmin                 = PetscMin(zmin, xk[3 * v + 2]);
    }
    for (PetscInt v = 0; v < nb; v++) xk[3 * v + 2] += top + sc->drop - zmin; /* the floor is z = 0 */
    for (PetscInt v = 0; v < nb; v++) top = PetscMax(top, xk[3 * v + 2]);
  }
}

/* The floor: (nf + 1)^2 vertices at z = 0 spanning twice a cube's width, centred under them */
static void FloorVertex(const Scene *sc, PetscInt f, PetscReal X[3])
{
  const PetscReal W = 2 * sc->n * sc->h, s = W / sc->nf;
  X[0] = -0.5 * W + s * (f % (sc->nf + 1));
  X[1] = -0.5 * W + s * (f / (sc->nf + 1));
  X[2] = 0;
}

/* The edges of triangles t0 ... t1 - 1 appended to edge[2 (*ne) ...], each once (from the
   triangle where it appears first; triangles of one surface, which shares no edge with another) */
static void Edges(const PetscInt tri[], PetscInt t0, PetscInt t1, PetscInt edge[], PetscInt *ne)
{
  const PetscInt e0 = *ne;

  for (PetscInt t = t0; t < t1; t++)
    for (int a = 0; a < 3; a++) {
      const PetscInt p = PetscMin(tri[3 * t + a], tri[3 * t + (a + 1) % 3]), q = PetscMax(tri[3 * t + a], tri[3 * t + (a + 1) % 3]);
      PetscBool      seen = PETSC_FALSE;
      for (PetscInt e = e0; e < *ne && !seen; e++) seen = (PetscBool)(edge[2 * e] == p && edge[2 * e + 1] == q);
      if (!seen) edge[2 * *ne] = p, edge[2 * *ne + 1] = q, (*ne)++;
    }
}

/* The contact surface, the same on every rank, dealt round-robin: each cube's boundary triangles
   (the faces of its tets with all three vertices on one side of the box), the floor's triangles,
   their edges once each and their vertices once each. Vertex l of the surface is global vertex l
   (cube k's vertices are k nb ... (k + 1) nb - 1, then the floor's): every rank lists them all
   (small); rest: every cube's at its rest place (only edge lengths are used). */
static PetscErrorCode Surface(const Scene *sc, PetscMPIInt rank, PetscMPIInt size, PetscInt *nv, PetscInt **gid, PetscReal **rest, PetscInt *ntri,
                              PetscInt **tri, PetscInt *nedge, PetscInt **edge, PetscInt *npoint, PetscInt **point)
{
  const PetscInt   n = sc->n, nb = (n + 1) * (n + 1) * (n + 1), nfl = (sc->nf + 1) * (sc->nf + 1), ncube = n * n * n, nc = sc->cubes;
  const PetscInt   mt = nc * 12 * n * n + 2 * sc->nf * sc->nf; /* triangles: 2 n^2 per face */
  PetscInt        *conn, *alltri, *alledge, nt = 0, ne = 0, nt1, ne1;
  PetscReal        lo[3] = {0, 0, 0}, hi[3] = {n * sc->h, n * sc->h, n * sc->h};
  static const int faces[4][3] = {
      {0, 2, 1},
      {0, 1, 3},
      {1, 2, 3},
      {0, 3, 2}
  };

  PetscFunctionBeginUser;
  *nv = nc * nb + nfl;
  PetscCall(PetscMalloc2(*nv, gid, 3 * *nv, rest));
  PetscCall(PetscMalloc1(24 * ncube, &conn));
  PetscCall(PetscMalloc2(3 * mt, &alltri, 2 * 3 * mt, &alledge));
  for (PetscInt l = 0; l < *nv; l++) (*gid)[l] = l;
  for (PetscInt k = 0; k < nc; k++) PetscCall(MfadMeshBoxVertices(n, n, n, lo, hi, 0, nb, &(*rest)[3 * k * nb]));
  for (PetscInt f = 0; f < nfl; f++) FloorVertex(sc, f, &(*rest)[3 * (nc * nb + f)]);
  PetscCall(MfadMeshBoxTets(n, n, n, 0, ncube, conn));
  for (PetscInt t = 0; t < 6 * ncube; t++)
    for (int f = 0; f < 4; f++) {
      PetscInt v[3], side = -1;
      for (int a = 0; a < 3; a++) v[a] = conn[4 * t + faces[f][a]];
      for (int d = 0; d < 3 && side < 0; d++)
        for (PetscInt s = 0; s <= n; s += n) {
          PetscBool on = PETSC_TRUE;
          for (int a = 0; a < 3; a++) {
            const PetscInt ijk[3] = {v[a] % (n + 1), (v[a] / (n + 1)) % (n + 1), v[a] / ((n + 1) * (n + 1))};
            on                    = (PetscBool)(on && ijk[d] == s);
          }
          if (on) side = d;
        }
      if (side < 0) continue;
      for (int a = 0; a < 3; a++) alltri[3 * nt + a] = v[a];
      nt++;
    }
  Edges(alltri, 0, nt, alledge, &ne);
  nt1 = nt, ne1 = ne;
  for (PetscInt k = 1; k < nc; k++, nt += nt1, ne += ne1) { /* the other cubes: the first's, shifted */
    for (PetscInt i = 0; i < 3 * nt1; i++) alltri[3 * nt + i] = alltri[i] + k * nb;
    for (PetscInt i = 0; i < 2 * ne1; i++) alledge[2 * ne + i] = alledge[i] + k * nb;
  }
  for (PetscInt j = 0; j < sc->nf; j++)
    for (PetscInt i = 0; i < sc->nf; i++) {
      const PetscInt v00 = nc * nb + j * (sc->nf + 1) + i, v10 = v00 + 1, v01 = v00 + sc->nf + 1, v11 = v01 + 1;
      const PetscInt t[6] = {v00, v10, v11, v00, v11, v01};
      for (int k = 0; k < 6; k++) alltri[3 * nt + k] = t[k];
      nt += 2;
    }
  Edges(alltri, nt - 2 * sc->nf * sc->nf, nt, alledge, &ne); /* the floor's */
  PetscCall(PetscMalloc3(3 * (nt / size + 1), tri, 2 * (ne / size + 1), edge, *nv / size + 1, point));
  *ntri = *nedge = *npoint = 0;
  for (PetscInt t = rank; t < nt; t += size, (*ntri)++)
    for (int a = 0; a < 3; a++) (*tri)[3 * *ntri + a] = alltri[3 * t + a];
  for (PetscInt e = rank; e < ne; e += size, (*nedge)++)
    for (int a = 0; a < 2; a++) (*edge)[2 * *nedge + a] = alledge[2 * e + a];
  for (PetscInt v = rank; v < *nv; v += size) (*point)[(*npoint)++] = v; /* interior cube vertices too: harmless, never near a triangle */
  PetscCall(PetscFree2(alltri, alledge));
  PetscCall(PetscFree(conn));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The pairs of the last detection between two cubes (vertex ids below ncv, of two cubes of nb),
   over all ranks: each pair is kept by one rank */
static PetscErrorCode CubePairs(Contact *ct, PetscInt nb, PetscInt ncv, PetscInt *count)
{
  const MfadContactKind kinds[2] = {MFAD_CONTACT_POINT_TRIANGLE, MFAD_CONTACT_EDGE_EDGE};
  MPI_Comm              comm;

  PetscFunctionBeginUser;
  *count = 0;
  for (int k = 0; k < 2; k++) {
    const PetscInt  *conn;
    const PetscReal *par;
    PetscInt         np;
    PetscCall(MfadContactGetPairs(ct->C, kinds[k], &np, &conn, &par));
    for (PetscInt i = 0; i < np; i++) {
      PetscBool two = PETSC_FALSE, floor = PETSC_FALSE;
      for (int a = 0; a < 4; a++) floor = (PetscBool)(floor || conn[4 * i + a] >= ncv);
      for (int a = 1; a < 4; a++) two = (PetscBool)(two || conn[4 * i + a] / nb != conn[4 * i] / nb);
      if (two && !floor) (*count)++;
    }
  }
  PetscCall(MfadEnergyGetComm(ct->E, &comm));
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, count, 1, MPIU_INT, MPI_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm    comm;
  PetscMPIInt rank, size;
  Scene       sc = {2, 4, 8, 40, 0.025, 1e5, 0.3, 1000, -9.81, 0.02, 0.4, 0.005};
  PetscInt    nb, nfl, ncv, N, n = PETSC_DECIDE, vstart, vend, cstart, cend, ncube, inertia, its = 0, reason = 1, nv = 0, ntri = 0, nedge = 0,
                            npoint = 0, *gid, *tri, *edge, *point, cube_pairs_max = 0;
  PetscReal *rest, *x0, *mass, *vel, *xpred, *xold, *iparam, dhat = 0, kappa = 0, dmin = PETSC_MAX_REAL, zmin_all = PETSC_MAX_REAL, gnorm0,
                                                             residual = 0;
  MfadEnergy  E;
  Vec         X, X0, G, M;
  Solver      S;
  Contact     ct;
  char        prefix[PETSC_MAX_PATH_LEN] = "";
  PetscBool   steps_out                  = PETSC_FALSE, meshopt;
  const char *reason_name                = "";
  PetscInt    tets_term;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscOptionsBegin(comm, NULL, "Drop options", NULL);
  PetscCall(PetscOptionsInt("-cubes", "elastic cubes, one above the other", NULL, sc.cubes, &sc.cubes, NULL));
  PetscCall(PetscOptionsInt("-n", "cells along each side of a cube", NULL, sc.n, &sc.n, NULL));
  PetscCall(PetscOptionsReal("-h", "cube edge [m]", NULL, sc.h, &sc.h, NULL));
  PetscCall(PetscOptionsReal("-E", "Young's modulus [Pa]", NULL, sc.young, &sc.young, NULL));
  PetscCall(PetscOptionsReal("-nu", "Poisson's ratio", NULL, sc.nu, &sc.nu, NULL));
  PetscCall(PetscOptionsReal("-rho", "density [kg/m^3]", NULL, sc.rho, &sc.rho, NULL));
  PetscCall(PetscOptionsReal("-g", "gravity along z [m/s^2]", NULL, sc.grav, &sc.grav, NULL));
  PetscCall(PetscOptionsReal("-drop", "gap to the floor and between cubes at the start [m]", NULL, sc.drop, &sc.drop, NULL));
  PetscCall(PetscOptionsReal("-tilt", "turn about x [rad] (half of it about y)", NULL, sc.tilt, &sc.tilt, NULL));
  PetscCall(PetscOptionsInt("-floor", "floor squares per side", NULL, sc.nf, &sc.nf, NULL));
  PetscCall(PetscOptionsReal("-dhat", "contact activation distance [m]", NULL, dhat, &dhat, NULL));
  PetscCall(PetscOptionsReal("-kappa", "barrier stiffness", NULL, kappa, &kappa, NULL));
  PetscCall(PetscOptionsInt("-ts_steps", "implicit-Euler steps", NULL, sc.steps, &sc.steps, NULL));
  PetscCall(PetscOptionsReal("-dt", "time step [s]", NULL, sc.dt, &sc.dt, NULL));
  PetscCall(PetscOptionsString("-o_steps", "write the cube after every step as <prefix>_NNNN.vtu", NULL, prefix, prefix, sizeof prefix, &steps_out));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mesh", &meshopt));
  PetscOptionsEnd();
  /* the cubes' faces, the floor and the contact pairs are the generated ones': no read body */
  PetscCheck(!meshopt, comm, PETSC_ERR_SUP,
             "drop simulates its generated -cubes of -n^3 cells only; -mesh is not supported (elastic, smooth, param, arap, arap_surface, frames and "
             "sphere read meshes)");
  PetscCheck(sc.cubes >= 1 && sc.n >= 1 && sc.nf >= 1 && sc.steps >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE,
             "-cubes %" PetscInt_FMT ", -n %" PetscInt_FMT ", -floor %" PetscInt_FMT " and -ts_steps %" PetscInt_FMT " must be >= 1", sc.cubes, sc.n,
             sc.nf, sc.steps);
  PetscCheck(sc.h > 0 && sc.young > 0 && sc.nu > -1 && sc.nu < 0.5 && sc.rho > 0 && sc.dt > 0 && sc.drop > 0 && dhat >= 0 && kappa >= 0, comm,
             PETSC_ERR_ARG_OUTOFRANGE, "-h, -E, -rho, -dt and -drop must be > 0, -nu in (-1, 0.5), -dhat and -kappa >= 0");
  PetscCheck(!steps_out || prefix[0], comm, PETSC_ERR_ARG_WRONG, "-o_steps needs a file name prefix");
  if (dhat == 0) dhat = 0.25 * sc.h;
  if (kappa == 0) kappa = 10 * sc.rho * sc.h * sc.h * sc.h * PetscAbsReal(sc.grav) / (dhat * dhat * dhat);

  /* vertices: each cube's (n+1)^3 (ncv in all), then the floor's (fixed); cells: each cube's n^3 */
  nb    = (sc.n + 1) * (sc.n + 1) * (sc.n + 1);
  ncv   = sc.cubes * nb;
  nfl   = (sc.nf + 1) * (sc.nf + 1);
  N     = ncv + nfl;
  ncube = sc.n * sc.n * sc.n;
  PetscCall(PetscSplitOwnership(comm, &n, &N));
  PetscCallMPI(MPI_Scan(&n, &vend, 1, MPIU_INT, MPI_SUM, comm));
  vstart = vend - n;
  cstart = (sc.cubes * ncube * rank) / size, cend = (sc.cubes * ncube * (rank + 1)) / size;
  PetscCall(MfadEnergyCreate(comm, 3, n, N, &E));
  /* the cheapest form per Newton step, projected then exact (a tumbling cube: the exact Hessian is
     indefinite on the way); options override them */
  PetscCall(MfadEnergySetHessianType(E, MFAD_HESSIAN_AUTO, MFAD_HESSIAN_AUTO));
  PetscCall(MfadEnergySetPSDProjection(E, MFAD_PSD_ABS, 0));
  PetscCall(MfadEnergySetPSDProjectionSteps(E, 3));
  PetscCall(Surface(&sc, rank, size, &nv, &gid, &rest, &ntri, &tri, &nedge, &edge, &npoint, &point));
  PetscCall(PetscMalloc6(3 * ncv, &x0, n, &mass, 3 * n, &vel, 3 * n, &xpred, 3 * n, &xold, 4 * n, &iparam));
  CubesStart(&sc, rest, nb, x0);
  {
    MfadKernel k;
    PetscInt  *conn, *vconn;
    PetscReal *trest, mat[2] = {sc.young / (2 * (1 + sc.nu)), sc.young * sc.nu / ((1 + sc.nu) * (1 - 2 * sc.nu))}, *gp;
    PetscCall(PetscMalloc4(24 * (cend - cstart), &conn, 72 * (cend - cstart), &trest, n, &vconn, 4 * n, &gp));
    for (PetscInt k = cstart / ncube; k * ncube < cend; k++) { /* this rank's cells of cube k, its vertex ids shifted */
      const PetscInt c0 = PetscMax(cstart, k * ncube), c1 = PetscMin(cend, (k + 1) * ncube);
      PetscInt      *ck = &conn[24 * (c0 - cstart)];
      PetscCall(MfadMeshBoxTets(sc.n, sc.n, sc.n, c0 - k * ncube, c1 - k * ncube, ck));
      for (PetscInt i = 0; i < 24 * (c1 - c0); i++) ck[i] += k * nb;
    }
    PetscCall(VecCreateMPI(comm, n, N, &M));
    for (PetscInt t = 0; t < 6 * (cend - cstart); t++) { /* lumped masses: rho V / 4 to each corner */
      PetscReal   D[9], V, m;
      PetscScalar mv[4];
      for (int a = 0; a < 4; a++)
        for (int d = 0; d < 3; d++) trest[12 * t + 3 * a + d] = rest[3 * conn[4 * t + a] + d];
      for (int a = 0; a < 3; a++)
        for (int d = 0; d < 3; d++) D[3 * a + d] = trest[12 * t + 3 * (a + 1) + d] - trest[12 * t + d];
      V = (D[0] * (D[4] * D[8] - D[5] * D[7]) - D[1] * (D[3] * D[8] - D[5] * D[6]) + D[2] * (D[3] * D[7] - D[4] * D[6])) / 6;
      m = sc.rho * PetscAbsReal(V) / 4;
      for (int a = 0; a < 4; a++) mv[a] = m;
      PetscCall(VecSetValues(M, 4, &conn[4 * t], mv, ADD_VALUES));
    }
    PetscCall(VecAssemblyBegin(M));
    PetscCall(VecAssemblyEnd(M));
    PetscCall(MfadKernelFind("neohookean_tet", &k));
    PetscCall(MfadEnergyAddTermFromRest(E, k, 6 * (cend - cstart), conn, trest, mat, 1.0, &tets_term));
    {
      const PetscScalar *mm;
      PetscCall(VecGetArrayRead(M, &mm));
      for (PetscInt l = 0; l < n; l++) {
        mass[l]       = vstart + l < ncv ? PetscRealPart(mm[l]) : 1.0; /* the floor's: fixed, any mass */
        vconn[l]      = vstart + l;
        gp[3 * l]     = 0;
        gp[3 * l + 1] = 0;
        gp[3 * l + 2] = vstart + l < ncv ? mass[l] * sc.grav : 0;
      }
      PetscCall(VecRestoreArrayRead(M, &mm));
    }
    PetscCall(MfadKernelFind("gravity", &k));
    PetscCall(MfadEnergyAddTerm(E, k, n, vconn, gp, 1.0, NULL));
    for (PetscInt l = 0; l < n; l++) {
      gp[4 * l] = mass[l] / (sc.dt * sc.dt);
      for (int d = 0; d < 3; d++) gp[4 * l + 1 + d] = vstart + l < ncv ? x0[3 * (vstart + l) + d] : rest[3 * (vstart + l) + d];
    }
    PetscCall(MfadKernelFind("inertia", &k));
    PetscCall(MfadEnergyAddTerm(E, k, n, vconn, gp, 1.0, &inertia));
    PetscCall(PetscFree4(conn, trest, vconn, gp));
  }
  { /* the floor is fixed */
    PetscInt   nfix = 0, *fix;
    PetscReal *val;
    PetscCall(PetscMalloc2(3 * n, &fix, 3 * n, &val));
    for (PetscInt v = PetscMax(vstart, ncv); v < vend; v++)
      for (int d = 0; d < 3; d++) fix[nfix] = 3 * v + d, val[nfix++] = rest[3 * v + d];
    PetscCall(MfadEnergySetFixedDofs(E, nfix, fix, val));
    PetscCall(PetscFree2(fix, val));
  }
  PetscCall(ContactCreate(E, nv, gid, rest, ntri, tri, nedge, edge, npoint, point, dhat, kappa, NULL, 0, &ct));
  PetscCall(MfadEnergySetFromOptions(E));
  PetscCall(MfadEnergySetUp(E));

  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  {
    PetscScalar *x;
    PetscCall(VecGetArray(X, &x));
    for (PetscInt l = 0; l < n; l++)
      for (int d = 0; d < 3; d++) x[3 * l + d] = vstart + l < ncv ? x0[3 * (vstart + l) + d] : rest[3 * (vstart + l) + d], vel[3 * l + d] = 0;
    PetscCall(VecRestoreArray(X, &x));
  }
  PetscCall(VecDuplicate(X, &X0));
  PetscCall(VecCopy(X, X0));
  PetscCall(MfadEnergyComputeGradient(E, X, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0)); /* the load: the cubes' weight */
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  PetscCall(SolverCreate(E, PETSC_FALSE, 1e-6 * gnorm0, NULL, X, &S));

  for (PetscInt step = 1; step <= sc.steps; step++) {
    PetscScalar *x;
    PetscInt     sits = 0, sreason = 0, cube_pairs;
    const char  *sname = "";
    PetscReal    dp, dsph, z[2] = {PETSC_MAX_REAL, 0}, mz = 0, msum = 0, gnorm;

    PetscCall(ImplicitEulerPredict(E, inertia, n, mass, sc.dt, vel, X, xold, xpred, iparam));
    PetscCall(ContactStepStart(X, xold));
    PetscCall(SolverSolve(&S, X, &sits, &sreason, &sname));
    PetscCall(MfadEnergyComputeGradient(E, X, G));
    PetscCall(VecNorm(G, NORM_2, &gnorm));
    residual = PetscMax(residual, gnorm / gnorm0);
    its      = PetscMax(its, sits);
    if (step == 1 || sreason < reason) reason = sreason, reason_name = sname;
    PetscCall(ImplicitEulerVelocity(n, sc.dt, X, xold, vel));
    PetscCall(ContactMeasure(&ct, X, &dp, &dsph));
    PetscCall(CubePairs(&ct, nb, ncv, &cube_pairs));
    dmin           = PetscMin(dmin, dp);
    cube_pairs_max = PetscMax(cube_pairs_max, cube_pairs);
    PetscCall(VecGetArray(X, &x));
    for (PetscInt l = 0; l < n && vstart + l < ncv; l++) {
      z[0] = PetscMin(z[0], PetscRealPart(x[3 * l + 2]));
      mz += mass[l] * PetscRealPart(x[3 * l + 2]);
      msum += mass[l];
    }
    PetscCall(VecRestoreArray(X, &x));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &z[0], 1, MPIU_REAL, MPIU_MIN, comm));
    {
      PetscReal s2[2] = {mz, msum};
      PetscCall(MPIU_Allreduce(MPI_IN_PLACE, s2, 2, MPIU_REAL, MPIU_SUM, comm));
      z[1] = s2[0] / s2[1];
    }
    zmin_all = PetscMin(zmin_all, z[0]);
    PetscCall(PetscPrintf(comm,
                          "drop: step %" PetscInt_FMT " time %.6e lowest_z %.12e com_z %.12e contact_distance %.6e cube_pairs %" PetscInt_FMT
                          " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                          step, (double)(step * sc.dt), (double)z[0], (double)z[1], (double)dp, cube_pairs, (double)(gnorm / gnorm0), sits, sreason,
                          sname));
    if (steps_out) {
      char path[PETSC_MAX_PATH_LEN + 16];
      PetscCall(PetscSNPrintf(path, sizeof path, "%s_%04" PetscInt_FMT ".vtu", prefix, step));
      PetscCall(MfadEnergyWriteVTU(E, tets_term, X, X0, path));
    }
  }
  {
    PetscInt updates, rebuilds, repre, kept, detections, capped;
    PetscCall(MfadEnergyGetElementsCounts(E, &updates, &rebuilds, &repre, &kept));
    PetscCall(MfadEnergyGetContactDetections(E, &detections));
    PetscCall(MfadEnergyGetStepCuts(E, &capped));
    PetscCall(PetscPrintf(comm,
                          "drop: vertices %" PetscInt_FMT " tets %" PetscInt_FMT " cubes %" PetscInt_FMT
                          " dhat %.6e kappa %.6e min_contact_distance %.6e lowest_z %.6e cube_pairs %" PetscInt_FMT " detections %" PetscInt_FMT
                          " capped_steps %" PetscInt_FMT " ghost_rebuilds %" PetscInt_FMT " repreallocations %" PetscInt_FMT
                          " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                          N, 6 * ncube * sc.cubes, sc.cubes, (double)dhat, (double)kappa, (double)dmin, (double)zmin_all, cube_pairs_max, detections,
                          capped, rebuilds, repre, (double)residual, its, reason, reason_name));
  }
  PetscCall(ContactDestroy(&ct));
  PetscCall(SolverDestroy(&S));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&M));
  PetscCall(PetscFree2(gid, rest));
  PetscCall(PetscFree3(tri, edge, point));
  PetscCall(PetscFree6(x0, mass, vel, xpred, xold, iparam));
  PetscCall(MfadEnergyDestroy(&E));
  if (reason <= 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "drop: a step did not converge: %s\n", reason_name));
  PetscCall(PetscFinalize());
  return reason > 0 ? 0 : 1;
}
