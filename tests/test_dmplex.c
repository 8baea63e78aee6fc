// SPDX-License-Identifier: BSD-2-Clause
/* DMPlex distribution against one rank. For five meshes (Gmsh tets, a Gmsh sphere surface and the
   same sphere as binary PLY, read from tests/meshes/, a generated box of tets and a generated bumpy sheet of triangles), every
   rank also builds the same mesh alone on PETSC_COMM_SELF, and the distributed energy must match
   that serial one to 1e-12 relative: value, gradient norm, HVP norm, and the projections of
   gradient and HVP on a smooth field (numbering-free, so a wrong vertex map cannot hide). Terms:
   neohookean_tet on the cells of a tet mesh; on a surface, the 4-vertex test energy hinge_test on
   the interior edge pairs (which cross the partition) plus mass_spring on the edges. Also: global
   element counts equal the serial ones and closed-form ones; both ranks of a 2-rank run own vertices; the hinge
   stencils have the orientation the bending convention promises; the vertex one-rings list every
   edge twice. Run under mpiexec with any number of ranks; prints FAIL lines, nothing otherwise
   (plus -mfad_view output when given). */
#include <mfadmesh.h>
#include <math.h>

MFAD_KERNEL_DECLARE(hinge_test);

static int failures;

#define Fail(...) \
  do { \
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL " __VA_ARGS__)); \
    failures++; \
  } while (0)

/* the point and the direction: smooth fields of the rest position, so the same on any numbering */
static void Displacement(const PetscReal p[3], PetscReal u[3])
{
  u[0] = 0.04 * sin(3.0 * p[0] + 1.0);
  u[1] = 0.04 * cos(2.0 * p[1] + p[2]);
  u[2] = 0.04 * sin(p[2] + 2.0 * p[0]);
}
static void Direction(const PetscReal p[3], PetscReal v[3])
{
  v[0] = cos(p[0]) + 0.3;
  v[1] = sin(2.0 * p[1] - p[0]);
  v[2] = p[2] * p[0] - 0.5;
}
static void Probe(const PetscReal p[3], PetscReal a[3])
{
  a[0] = 1.0 + p[1];
  a[1] = p[0] * p[2] - 0.2;
  a[2] = cos(p[0] + p[1]);
}

typedef struct {
  PetscReal f, gnorm, ynorm, ga, ya, gscale, yscale; /* ga = G . a, ya = Y . a; scales |G||a|, |Y||a| */
  PetscInt  nelem[2];                                /* global elements of each term */
} Result;

static PetscErrorCode Evaluate(DM dm, PetscBool surface, PetscBool view, Result *r)
{
  MPI_Comm           comm = PetscObjectComm((PetscObject)dm);
  MfadEnergy         E;
  MfadKernel         k;
  Vec                X0, X, V, A, G, Y;
  PetscScalar       *x, *v, *a;
  const PetscScalar *x0;
  PetscInt           n, term[2] = {-1, -1};
  const PetscReal    material[2] = {1.0, 10.0}, spring = 2.0;
  PetscReal          an;

  PetscFunctionBeginUser;
  PetscCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
  PetscCall(MfadEnergySetFromOptions(E));
  if (surface) {
    PetscCall(MfadEnergyAddTermFromDMPlex(E, dm, MFAD_KERNEL(hinge_test), MFAD_DMPLEX_EDGE_PAIRS, NULL, 0.7, &term[0]));
    PetscCall(MfadKernelFind("mass_spring", &k));
    PetscCall(MfadEnergyAddTermFromDMPlex(E, dm, k, MFAD_DMPLEX_EDGES, &spring, 1.0, &term[1]));
  } else {
    PetscCall(MfadKernelFind("neohookean_tet", &k));
    PetscCall(MfadEnergyAddTermFromDMPlex(E, dm, k, MFAD_DMPLEX_CELLS, material, 1.0, &term[0]));
  }
  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  PetscCall(VecDuplicate(X, &X0));
  PetscCall(VecDuplicate(X, &V));
  PetscCall(VecDuplicate(X, &A));
  PetscCall(VecDuplicate(X, &Y));
  PetscCall(MfadEnergyCopyCoordinatesFromDMPlex(E, dm, X0));
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X0, &x0));
  PetscCall(VecGetArray(X, &x));
  PetscCall(VecGetArray(V, &v));
  PetscCall(VecGetArray(A, &a));
  for (PetscInt i = 0; i < n; i += 3) {
    PetscReal p[3] = {PetscRealPart(x0[i]), PetscRealPart(x0[i + 1]), PetscRealPart(x0[i + 2])}, u[3], w[3], q[3];
    Displacement(p, u);
    Direction(p, w);
    Probe(p, q);
    for (int d = 0; d < 3; d++) {
      x[i + d] = p[d] + u[d];
      v[i + d] = w[d];
      a[i + d] = q[d];
    }
  }
  PetscCall(VecRestoreArray(A, &a));
  PetscCall(VecRestoreArray(V, &v));
  PetscCall(VecRestoreArray(X, &x));
  PetscCall(VecRestoreArrayRead(X0, &x0));
  PetscCall(MfadEnergyComputeObjectiveGradient(E, X, &r->f, G));
  PetscCall(MfadEnergyComputeHessianProduct(E, X, V, Y));
  PetscCall(VecNorm(G, NORM_2, &r->gnorm));
  PetscCall(VecNorm(Y, NORM_2, &r->ynorm));
  PetscCall(VecNorm(A, NORM_2, &an));
  PetscCall(VecDot(G, A, &r->ga));
  PetscCall(VecDot(Y, A, &r->ya));
  r->gscale = r->gnorm * an;
  r->yscale = r->ynorm * an;
  for (int t = 0; t < 2; t++) {
    PetscInt mine = 0;
    if (term[t] >= 0) PetscCall(MfadDMPlexGetElements(dm, t == 0 ? (surface ? MFAD_DMPLEX_EDGE_PAIRS : MFAD_DMPLEX_CELLS) : MFAD_DMPLEX_EDGES, &mine, NULL, NULL, NULL));
    PetscCall(MPIU_Allreduce(&mine, &r->nelem[t], 1, MPIU_INT, MPI_SUM, comm));
  }
  if (view) PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&V));
  PetscCall(VecDestroy(&A));
  PetscCall(VecDestroy(&G));
  PetscCall(VecDestroy(&Y));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode Compare(const char *mesh, const char *what, PetscReal a, PetscReal b, PetscReal scale)
{
  PetscFunctionBeginUser;
  /* 1e-12: the sums differ only in order (elements per rank, ghost additions); each is ~1e-16
     relative per operation over ~1e3 terms */
  if (!(PetscAbsReal(a - b) <= 1e-12 * scale)) Fail("%s: %s distributed %.17g, serial %.17g, bound %.1e\n", mesh, what, (double)a, (double)b, 1e-12 * (double)scale);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A box of tets (MfadMeshBoxTets) or an nx x ny sheet of triangles with a bump, counter-clockwise
   seen from +z (so every triangle's normal has n_z > 0) */
static PetscErrorCode Generate(PetscBool surface, PetscInt nx, PetscInt ny, PetscInt nz, MfadMesh *mesh)
{
  PetscFunctionBeginUser;
  if (!surface) {
    const PetscReal lo[3] = {0, 0, 0}, hi[3] = {1.0, 0.8, 0.5};
    PetscCall(MfadMeshCreate(3, (nx + 1) * (ny + 1) * (nz + 1), 4, 6 * nx * ny * nz, mesh));
    PetscCall(MfadMeshBoxTets(nx, ny, nz, 0, nx * ny * nz, (*mesh)->cells));
    PetscCall(MfadMeshBoxVertices(nx, ny, nz, lo, hi, 0, (nx + 1) * (ny + 1) * (nz + 1), (*mesh)->coords));
  } else {
    PetscInt c = 0;
    PetscCall(MfadMeshCreate(3, (nx + 1) * (ny + 1), 3, 2 * nx * ny, mesh));
    for (PetscInt j = 0; j <= ny; j++)
      for (PetscInt i = 0; i <= nx; i++) {
        PetscReal *p = (*mesh)->coords + 3 * (i + (nx + 1) * j);
        p[0]         = (PetscReal)i / nx;
        p[1]         = (PetscReal)j / ny;
        p[2]         = 0.1 * sin(3.0 * p[0]) * cos(2.0 * p[1]);
      }
    for (PetscInt j = 0; j < ny; j++)
      for (PetscInt i = 0; i < nx; i++) {
        const PetscInt v00 = i + (nx + 1) * j, v10 = v00 + 1, v01 = v00 + nx + 1, v11 = v01 + 1;
        const PetscInt t[6] = {v00, v10, v11, v00, v11, v01};
        for (int q = 0; q < 6; q++) (*mesh)->cells[c++] = t[q];
      }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Hinge orientation: triangle (e0, e1, o0) and (e1, e0, o1) have normals n0, n1; on a sheet
   both point to +z, on a closed surface they agree (n0 . n1 > 0 between neighbours) */
static PetscErrorCode CheckHinges(const char *name, DM dm, PetscBool sheet)
{
  PetscInt   n, nv, bad = 0, badg;
  PetscInt  *conn;
  PetscReal *r;

  PetscFunctionBeginUser;
  PetscCall(MfadDMPlexGetElements(dm, MFAD_DMPLEX_EDGE_PAIRS, &n, &nv, &conn, &r));
  for (PetscInt e = 0; e < n; e++) {
    const PetscReal *x = r + 12 * e;
    PetscReal        a[3], b[3], c[3], d[3], n0[3], n1[3];
    for (int i = 0; i < 3; i++) {
      a[i] = x[3 + i] - x[i];
      b[i] = x[6 + i] - x[i];
      c[i] = x[i] - x[3 + i];
      d[i] = x[9 + i] - x[3 + i];
    }
    for (int i = 0; i < 3; i++) {
      n0[i] = a[(i + 1) % 3] * b[(i + 2) % 3] - a[(i + 2) % 3] * b[(i + 1) % 3];
      n1[i] = c[(i + 1) % 3] * d[(i + 2) % 3] - c[(i + 2) % 3] * d[(i + 1) % 3];
    }
    if (sheet ? !(n0[2] > 0 && n1[2] > 0) : !(n0[0] * n1[0] + n0[1] * n1[1] + n0[2] * n1[2] > 0)) bad++;
  }
  PetscCall(MPIU_Allreduce(&bad, &badg, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)dm)));
  if (badg) Fail("%s: %" PetscInt_FMT " hinge stencils are not (e0, e1, o0) + (e1, e0, o1) in the surface's orientation\n", name, badg);
  PetscCall(PetscFree(conn));
  PetscCall(PetscFree(r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Ownership and one-rings on the distributed DM */
static PetscErrorCode CheckDistribution(const char *name, DM dm, PetscInt nedges)
{
  MPI_Comm    comm = PetscObjectComm((PetscObject)dm);
  PetscMPIInt size;
  PetscInt    n, *off, *nb, mine, cnt, sym = 0, symg, minown;
  MfadEnergy  E;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
  PetscCall(MfadEnergyGetSizes(E, NULL, &mine, NULL));
  PetscCall(MPIU_Allreduce(&mine, &minown, 1, MPIU_INT, MPI_MIN, comm));
  /* the partition, not rank 0, owns the vertices: on 2 ranks each owns some of these ~200-300
     vertex meshes. Not asked on more ranks: a partitioner without a graph (PETSc's `simple`, the
     default where PETSc has no partitioner package) may give a rank only cells whose vertices are
     all owned by its neighbours, which is correct, if wasteful */
  if (size == 2 && !(minown > 0)) Fail("%s: a rank owns %" PetscInt_FMT " vertices on %d ranks\n", name, minown, size);
  PetscCall(MfadDMPlexGetVertexNeighbors(dm, &n, &off, &nb));
  if (n != mine) Fail("%s: %" PetscInt_FMT " one-rings for %" PetscInt_FMT " owned vertices\n", name, n, mine);
  mine = off[n];
  PetscCall(MPIU_Allreduce(&mine, &cnt, 1, MPIU_INT, MPI_SUM, comm));
  if (cnt != 2 * nedges) Fail("%s: one-rings list %" PetscInt_FMT " neighbours, twice the edges is %" PetscInt_FMT "\n", name, cnt, 2 * nedges);
  for (PetscInt i = 0; i < n; i++)
    for (PetscInt j = off[i]; j < off[i + 1]; j++) sym += nb[j]; /* sum of neighbour ids ... */
  {
    PetscInt rstart = 0, ncheck = 0;
    PetscCallMPI(MPI_Exscan(&n, &rstart, 1, MPIU_INT, MPI_SUM, comm));
    for (PetscInt i = 0; i < n; i++) ncheck += (rstart + i) * (off[i + 1] - off[i]); /* ... equals the sum of ids weighted by degree */
    sym -= ncheck;
  }
  PetscCall(MPIU_Allreduce(&sym, &symg, 1, MPIU_INT, MPI_SUM, comm));
  if (symg != 0) Fail("%s: one-rings are not symmetric (sum of neighbour ids - sum of degree-weighted ids = %" PetscInt_FMT ")\n", name, symg);
  PetscCall(PetscFree(off));
  PetscCall(PetscFree(nb));
  PetscCall(MfadEnergyDestroy(&E));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Each call must fail (on some rank, for `anyrank`) and print nothing; errors are PETSc's */
static PetscErrorCode Expect(PetscErrorCode ierr, const char *what, PetscBool anyrank)
{
  PetscMPIInt failed = ierr != 0, any, all;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, PETSC_COMM_WORLD));
  PetscCallMPI(MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_MIN, PETSC_COMM_WORLD));
  if (!(anyrank ? any : all)) Fail("%s: no error\n", what);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Bad requests are errors, not wrong answers (nor hangs): a missing file, a file PETSc cannot read, a kernel of the wrong element size,
   edge pairs of a tet mesh; without overlap, edge pairs and one-rings of a distributed surface
   (whose stars are split) stop, while cells, which need no overlap, still count right */
static PetscErrorCode CheckErrors(const char *box, const char *badply)
{
  DM          dm, sheet;
  MfadEnergy  E;
  MfadKernel  spring;
  MfadMesh    mesh;
  PetscMPIInt rank, size;
  PetscInt    n, ng, *off, *nb;
  const PetscReal k = 1.0;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(MfadKernelFind("mass_spring", &spring));
  PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, box, &dm));
  PetscCall(MfadEnergyCreateFromDMPlex(dm, 3, &E));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(Expect(MfadDMPlexCreateFromFile(PETSC_COMM_SELF, "no/such/mesh.msh", &sheet), "a missing file", PETSC_FALSE));
  PetscCall(Expect(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, badply, &sheet), "an ASCII PLY file (rank 0 reads it; all ranks stop)", PETSC_FALSE));
  PetscCall(Expect(MfadEnergyAddTermFromDMPlex(E, dm, spring, MFAD_DMPLEX_CELLS, &k, 1.0, NULL), "a 2-vertex kernel on tets", PETSC_FALSE));
  PetscCall(Expect(MfadDMPlexGetElements(dm, MFAD_DMPLEX_EDGE_PAIRS, &n, NULL, NULL, NULL), "edge pairs of a tet mesh", PETSC_FALSE));
  PetscCall(PetscPopErrorHandler());
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(DMDestroy(&dm));
  if (size == 1) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(Generate(PETSC_TRUE, 14, 12, 0, &mesh));
  PetscCall(MfadDMPlexCreateFromMesh(PETSC_COMM_WORLD, rank == 0 ? mesh : NULL, &sheet));
  PetscCall(MfadMeshDestroy(&mesh));
  PetscCall(MfadDMPlexDistribute(&sheet, 0));
  PetscCall(MfadDMPlexGetElements(sheet, MFAD_DMPLEX_CELLS, &n, NULL, NULL, NULL));
  PetscCall(MPIU_Allreduce(&n, &ng, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (ng != 2 * 14 * 12) Fail("overlap 0: %" PetscInt_FMT " triangles, expected %d\n", ng, 2 * 14 * 12);
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  PetscCall(Expect(MfadDMPlexGetElements(sheet, MFAD_DMPLEX_EDGE_PAIRS, &n, NULL, NULL, NULL), "edge pairs without overlap", PETSC_TRUE));
  PetscCall(Expect(MfadDMPlexGetVertexNeighbors(sheet, &n, &off, &nb), "one-rings without overlap", PETSC_TRUE));
  PetscCall(PetscPopErrorHandler());
  PetscCall(DMDestroy(&sheet));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One mesh: distributed on WORLD against the same mesh alone on SELF; `expect` closed-form counts */
static PetscErrorCode RunCase(const char *name, const char *path, PetscBool surface, PetscInt gen[3], const PetscInt expect[2])
{
  DM          dms, dmw;
  Result      s, w;
  PetscMPIInt rank;
  PetscInt    nedges, ne;

  PetscFunctionBeginUser;
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  if (path) {
    PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_SELF, path, &dms));
    PetscCall(MfadDMPlexCreateFromFile(PETSC_COMM_WORLD, path, &dmw));
  } else {
    MfadMesh mesh;
    PetscCall(Generate(surface, gen[0], gen[1], gen[2], &mesh));
    PetscCall(MfadDMPlexCreateFromMesh(PETSC_COMM_SELF, mesh, &dms));
    PetscCall(MfadDMPlexCreateFromMesh(PETSC_COMM_WORLD, rank == 0 ? mesh : NULL, &dmw));
    PetscCall(MfadMeshDestroy(&mesh));
    PetscCall(MfadDMPlexDistribute(&dmw, 1));
  }
  PetscCall(Evaluate(dms, surface, PETSC_FALSE, &s));
  PetscCall(Evaluate(dmw, surface, PETSC_TRUE, &w));
  PetscCall(Compare(name, "energy", w.f, s.f, PetscAbsReal(s.f)));
  PetscCall(Compare(name, "|gradient|", w.gnorm, s.gnorm, s.gnorm));
  PetscCall(Compare(name, "|HVP|", w.ynorm, s.ynorm, s.ynorm));
  PetscCall(Compare(name, "gradient . probe", w.ga, s.ga, s.gscale));
  PetscCall(Compare(name, "HVP . probe", w.ya, s.ya, s.yscale));
  for (int t = 0; t < 2; t++) {
    if (w.nelem[t] != s.nelem[t]) Fail("%s: term %d has %" PetscInt_FMT " elements on all ranks, %" PetscInt_FMT " serially\n", name, t, w.nelem[t], s.nelem[t]);
    if (expect[t] >= 0 && s.nelem[t] != expect[t]) Fail("%s: term %d has %" PetscInt_FMT " elements, expected %" PetscInt_FMT "\n", name, t, s.nelem[t], expect[t]);
  }
  PetscCall(MfadDMPlexGetElements(dmw, MFAD_DMPLEX_EDGES, &ne, NULL, NULL, NULL));
  PetscCall(MPIU_Allreduce(&ne, &nedges, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(CheckDistribution(name, dmw, nedges));
  if (surface) PetscCall(CheckHinges(name, dmw, path ? PETSC_FALSE : PETSC_TRUE));
  PetscCall(DMDestroy(&dms));
  PetscCall(DMDestroy(&dmw));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char      dir[PETSC_MAX_PATH_LEN] = ".", box[PETSC_MAX_PATH_LEN], sphere[PETSC_MAX_PATH_LEN], ply[PETSC_MAX_PATH_LEN], badply[PETSC_MAX_PATH_LEN];
  PetscInt  gbox[3] = {6, 5, 4}, gsheet[3] = {14, 12, 0};
  PetscInt  ebox[2], esheet[2], etets[2] = {939, -1}, esphere[2];
  PetscInt  F;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(MfadKernelRegister(MFAD_KERNEL(hinge_test)));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-meshes", dir, sizeof(dir), NULL));
  PetscCall(PetscSNPrintf(box, sizeof(box), "%s/box_tets.msh", dir));
  PetscCall(PetscSNPrintf(sphere, sizeof(sphere), "%s/sphere_tris.msh", dir));
  PetscCall(PetscSNPrintf(ply, sizeof(ply), "%s/sphere_tris.ply", dir)); /* the same sphere as binary PLY */
  PetscCall(PetscSNPrintf(badply, sizeof(badply), "%s/ascii_unsupported.ply", dir));
  /* closed forms: 6 tets per cube; a sheet of nx x ny quads has 2 nx ny triangles and
     nx (ny + 1) + ny (nx + 1) + nx ny edges, of which 2 (nx + ny) on the boundary have no pair;
     a closed triangulated surface has 3F/2 edges, all interior. The files' cell counts are their
     element blocks' (gmsh 4.8.4 wrote 939 tets of type 4 in box_tets.msh, 380 triangles of type 2
     in sphere_tris.msh) */
  ebox[0]    = 6 * gbox[0] * gbox[1] * gbox[2];
  ebox[1]    = -1;
  esheet[1]  = gsheet[0] * (gsheet[1] + 1) + gsheet[1] * (gsheet[0] + 1) + gsheet[0] * gsheet[1];
  esheet[0]  = esheet[1] - 2 * (gsheet[0] + gsheet[1]);
  F          = 380;
  esphere[0] = esphere[1] = 3 * F / 2;
  PetscCall(RunCase("gmsh tets", box, PETSC_FALSE, NULL, etets));
  PetscCall(RunCase("gmsh sphere", sphere, PETSC_TRUE, NULL, esphere));
  PetscCall(RunCase("binary PLY sphere", ply, PETSC_TRUE, NULL, esphere));
  PetscCall(RunCase("generated box", NULL, PETSC_FALSE, gbox, ebox));
  PetscCall(RunCase("generated sheet", NULL, PETSC_TRUE, gsheet, esheet));
  PetscCall(CheckErrors(box, badply));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
