// SPDX-License-Identifier: BSD-2-Clause
static const char help[] =
    "Laplacian (-order 1) or bilaplacian (-order 2) smoothing of a noisy surface: minimises\n"
    "    lambda D(x) + fidelity/2 sum_v m_v |x_v - x0_v|^2   (order 1) or\n"
    "    lambda B(x) + fidelity/2 sum_v m_v |x_v - x0_v|^2   (order 2),  B(x) = 1/2 sum_{v interior} |(L x)_v|^2 / m_v,\n"
    "D the cotangent Dirichlet energy (dirichlet_tri, cotangents of the noisy input), L its Hessian (the\n"
    "cotangent Laplacian), the second sum the fidelity to the noisy input x0 (inertia kernel, m_v the\n"
    "lumped vertex area), boundary fixed. Order 1: one Newton step is the implicit fairing step\n"
    "(M + lambda L) x = M x0 of Desbrun et al. 1999 (\"Implicit fairing of irregular meshes using\n"
    "diffusion and curvature flow\", SIGGRAPH). Order 2 is their L^2 fairing, B the discrete integral of\n"
    "|Laplacian x|^2, over interior rows only: a boundary vertex's one-ring is cut by the boundary, so its\n"
    "row of L x is no Laplacian (not 0 even on a flat, even grid: it points into the surface), and\n"
    "penalising it would pull the boundary's neighbours to cancel it; without it min B = 0 is the\n"
    "harmonic surface order 1 finds at -fidelity 0. B is composed from mfad's exact products on D\n"
    "(petsc-examples/bilaplacian.h): grad B = L W L x, H_B = L W L, W = diag(1/m_v) inside, 0 on the\n"
    "boundary. With -fidelity 0 the result is the harmonic surface spanning the boundary (both orders).\n"
    "The input is an n x n grid over [-1, 1]^2 on z = f(x, y), its interior heights perturbed by seeded\n"
    "uniform noise, or a triangle surface read from a file (-mesh), smoothed as it is or with noise\n"
    "added along the vertex normals.\n"
    "Options:\n"
    "  -mesh <file>         a triangle surface (.obj, .off, Gmsh .msh, .ply, ...; with or without\n"
    "                       boundary: a closed one needs -fidelity > 0) instead of the grid\n"
    "  -n <32>              grid squares per side\n"
    "  -surface <hat>       plane | cap | hat\n"
    "  -noise <0.03>        noise amplitude (heights + U(-noise, noise), interior vertices); with\n"
    "                       -mesh (default 0) along the vertex normals, in units of the mean edge length\n"
    "  -seed <1>            noise seed\n"
    "  -order <1>           1: Laplacian (Dirichlet energy), 2: bilaplacian (the default with -mesh:\n"
    "                       it shrinks a curved surface less)\n"
    "  -lambda <0.003>      smoothing strength (a time step of the heat flow); order 2's default is\n"
    "                       0.003^2: a mode of wavenumber k is damped by 1/(1 + lambda k^2) (order 1)\n"
    "                       or 1/(1 + lambda k^4) (order 2), so lambda_2 = lambda_1^2 halves the same\n"
    "                       mode, and order 2 keeps the longer waves and damps the shorter ones more;\n"
    "                       with -mesh the same relative to its mean edge h: 0.768 h^2 (0.59 h^4),\n"
    "                       times -noise where noise is added (less noise, less smoothing)\n"
    "  -fidelity <1>        weight of the fidelity term (0: harmonic surface)\n"
    "  -bilap_hessian <shell> order 2's Hessian: shell (matrix-free, Jacobi from its exact diagonal) or\n"
    "                       aij (lambda L W L + fidelity assembled: direct solvers, GAMG)\n"
    "  -bilap_pmat <shell>  order 2's preconditioning matrix (default: the Hessian's form)\n"
    "  -use_tao             minimise with TAO (default -tao_type nls) instead of SNES\n"
    "  -o <file.vtu>        write the smoothed surface with its displacement from the noisy one\n"
    "Defaults: -ksp_type cg -pc_type jacobi -ksp_rtol 1e-10; every SNES/KSP/PC/TAO and mfad option\n"
    "applies. The last line is a summary: vertices, triangles, noise, rms_before and rms_after (the\n"
    "lumped-area-weighted rms of the height above the clean surface, z - f(x, y), before and after;\n"
    "with -mesh the distance from the vertices as read), max_deviation (largest such value after),\n"
    "energy (the objective), residual, iterations and the\n"
    "reason (-ksp_converged_reason shows the linear iterations). Where noise was added (and -fidelity > 0),\n"
    "a result farther from the clean surface than the noisy input (rms_after >= rms_before) exits 1.\n\n";

#include <mfadpetsc.h>
#include "geommesh.h"
#include "bilaplacian.h"

MFAD_KERNEL_DECLARE(dirichlet_tri);
MFAD_KERNEL_DECLARE(inertia);

/* mass-weighted rms and max over owned vertices (3 dofs each) of z - f(x, y), or with `clean` (a
   read mesh: its vertices as read, owned ones from vstart) of the distance from them */
static PetscErrorCode HeightDeviation(MPI_Comm comm, GeomSurface s, const PetscReal *clean, Vec X, const PetscReal mass[], PetscReal *rms,
                                      PetscReal *dmax)
{
  const PetscScalar *x;
  PetscInt           n;
  PetscReal          loc[2] = {0, 0}, sum[2], mx = 0;

  PetscFunctionBegin;
  PetscCall(VecGetLocalSize(X, &n));
  PetscCall(VecGetArrayRead(X, &x));
  for (PetscInt v = 0; v < n / 3; v++) {
    PetscReal d = 0;
    if (clean)
      for (int k = 0; k < 3; k++) d += PetscSqr(PetscRealPart(x[3 * v + k]) - clean[3 * v + k]);
    d = clean ? PetscSqrtReal(d) : PetscRealPart(x[3 * v + 2]) - GeomSurfaceHeight(s, PetscRealPart(x[3 * v]), PetscRealPart(x[3 * v + 1]));
    loc[0] += mass[v] * d * d;
    loc[1] += mass[v];
    mx = PetscMax(mx, PetscAbsReal(d));
  }
  PetscCall(VecRestoreArrayRead(X, &x));
  PetscCall(MPIU_Allreduce(loc, sum, 2, MPIU_REAL, MPIU_SUM, comm));
  PetscCall(MPIU_Allreduce(&mx, dmax, 1, MPIU_REAL, MPIU_MAX, comm));
  *rms = PetscSqrtReal(sum[0] / sum[1]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A read surface's noise: each interior vertex moved along its (area-weighted) normal by noise x
   the mean edge length x U(-1, 1); *clean gets the positions as read */
static PetscErrorCode MeshAddNormalNoise(MfadMesh m, const PetscInt next[], PetscReal noise, unsigned long long *state, PetscReal *edge,
                                         PetscReal **clean)
{
  PetscReal *nrm, len = 0;

  PetscFunctionBegin;
  PetscCall(PetscMalloc1(3 * m->nvert, clean));
  PetscCall(PetscCalloc1(3 * m->nvert, &nrm));
  PetscCall(PetscArraycpy(*clean, m->coords, 3 * m->nvert));
  for (PetscInt c = 0; c < m->ncell; c++) {
    const PetscInt *t = &m->cells[3 * c];
    PetscReal       e1[3], e2[3];
    for (int d = 0; d < 3; d++) e1[d] = m->coords[3 * t[1] + d] - m->coords[3 * t[0] + d], e2[d] = m->coords[3 * t[2] + d] - m->coords[3 * t[0] + d];
    for (int a = 0; a < 3; a++)
      for (int d = 0; d < 3; d++) nrm[3 * t[a] + d] += e1[(d + 1) % 3] * e2[(d + 2) % 3] - e1[(d + 2) % 3] * e2[(d + 1) % 3];
    len += PetscSqrtReal(e1[0] * e1[0] + e1[1] * e1[1] + e1[2] * e1[2]) + PetscSqrtReal(e2[0] * e2[0] + e2[1] * e2[1] + e2[2] * e2[2]);
  }
  len /= 2 * m->ncell; /* mean of two edges per triangle: the mean edge length, near enough */
  *edge = len;
  for (PetscInt v = 0; v < m->nvert; v++) {
    const PetscReal r = GeomRandom(state), l = PetscSqrtReal(PetscSqr(nrm[3 * v]) + PetscSqr(nrm[3 * v + 1]) + PetscSqr(nrm[3 * v + 2]));
    if (next[v] < 0 && l > 0)
      for (int d = 0; d < 3; d++) m->coords[3 * v + d] += noise * len * r * nrm[3 * v + d] / l;
  }
  PetscCall(PetscFree(nrm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  MPI_Comm           comm;
  MfadMesh           m;
  MfadEnergy         E, D = NULL; /* order 2: E the fidelity and the fixed dofs, D the Dirichlet energy alone */
  Bilap              bilap = NULL;
  Vec                X, X0, G;
  PetscInt           n = 32, vstart = 0, vend = 0, *next, its, reason, term, nfix = 0, *ids, *fixd, seed = 1, order = 1, fterm;
  PetscReal         *fixval, *mass, *params, noise = 0.03, lambda = 0.003, fidelity = 1, energy, gnorm, gnorm0, rms0, rms, dmax, dmax0;
  GeomSurface        surface = GEOM_HAT;
  PetscBool          use_tao = PETSC_FALSE, write = PETSC_FALSE, readmesh = PETSC_FALSE, closed = PETSC_TRUE, gridopt, set, lambdaopt, worse;
  char               out[PETSC_MAX_PATH_LEN] = "", meshpath[PETSC_MAX_PATH_LEN] = "";
  PetscReal         *clean = NULL;
  const char        *reason_name;
  unsigned long long state;

  PetscCall(MfadInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "Smoothing options", NULL);
  PetscCall(PetscOptionsString("-mesh", "a triangle surface file instead of the grid", NULL, meshpath, meshpath, sizeof meshpath, &readmesh));
  if (readmesh) noise = 0, order = 2; /* a read surface is smoothed as it is unless asked; order 2: see -help */
  PetscCall(PetscOptionsInt("-n", "grid squares per side", NULL, n, &n, &gridopt));
  PetscCall(PetscOptionsEnum("-surface", "the clean surface", NULL, GeomSurfaces, (PetscEnum)surface, (PetscEnum *)&surface, &set));
  gridopt = (PetscBool)(gridopt || set);
  PetscCall(PetscOptionsReal("-noise", "noise amplitude", NULL, noise, &noise, NULL));
  PetscCall(PetscOptionsInt("-seed", "noise seed", NULL, seed, &seed, NULL));
  PetscCall(PetscOptionsRangeInt("-order", "1: Laplacian, 2: bilaplacian smoothing", NULL, order, &order, NULL, 1, 2));
  if (order == 2) lambda = lambda * lambda; /* the same cut-off wavenumber (see -help) */
  PetscCall(PetscOptionsReal("-lambda", "smoothing strength", NULL, lambda, &lambda, &lambdaopt));
  PetscCall(PetscOptionsReal("-fidelity", "weight of the fidelity term", NULL, fidelity, &fidelity, NULL));
  PetscCall(PetscOptionsBool("-use_tao", "minimise with TAO instead of SNES", NULL, use_tao, &use_tao, NULL));
  PetscCall(PetscOptionsString("-o", "write the smoothed surface (.vtu)", NULL, out, out, sizeof out, &write));
  PetscOptionsEnd();
  PetscCheck(noise >= 0 && lambda > 0 && fidelity >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-noise %g and -fidelity %g must be >= 0, -lambda %g > 0",
             (double)noise, (double)fidelity, (double)lambda);
  PetscCheck(!write || out[0], comm, PETSC_ERR_ARG_WRONG, "-o needs a file name");
  PetscCheck(!readmesh || meshpath[0], comm, PETSC_ERR_ARG_WRONG, "-mesh needs a file name");
  PetscCheck(!readmesh || !gridopt, comm, PETSC_ERR_ARG_INCOMP, "-n and -surface describe the generated grid: they mean nothing with -mesh");

  /* the noisy input: the same on every rank (one seeded stream over all vertices) */
  if (readmesh) PetscCall(GeomMeshRead(meshpath, &m));
  else PetscCall(GeomMeshGrid(n, n, -1, -1, 2, 2, surface, &m));
  PetscCall(PetscMalloc1(m->nvert, &next));
  PetscCall(MfadMeshComputeBoundary(m, next));
  for (PetscInt v = 0; v < m->nvert; v++)
    if (next[v] >= 0) closed = PETSC_FALSE;
  /* nothing holds a closed surface without fidelity: the Dirichlet energy's minimum is a point */
  PetscCheck(!closed || fidelity > 0, comm, PETSC_ERR_ARG_INCOMP,
             "smooth: %s is a closed surface: -fidelity 0 would shrink it to a point; use -fidelity > 0", meshpath);
  state = 0x9E3779B97F4A7C15ULL ^ (unsigned long long)seed;
  if (readmesh) {
    PetscReal h = 0;
    PetscCall(MeshAddNormalNoise(m, next, noise, &state, &h, &clean));
    /* the grid's default strength relative to its squares (h = 1/16): lambda/h^2 = 0.768 (order 1),
       lambda/h^4 = 0.59 (order 2): the edge-scale noise is damped alike on any mesh's scale. Added
       noise of `noise` edges scales it by `noise`: a curved surface is shrunk by any smoothing
       (mean-curvature flow), so the strength must fall with the noise or the result ends farther
       from the clean surface than the noise put it. Measured with these defaults (rms distance
       before -> after, noise 0.1 / 0.3 / 1; tests/meshes): Spot 2.5e-3 -> 2.0e-3, 7.5e-3 -> 4.7e-3,
       2.6e-2 -> 1.6e-2; sock 2.8e-2 -> 2.1e-2, 8.5e-2 -> 4.4e-2, 0.29 -> 0.16; spot_patch 2.6e-3 ->
       1.9e-3, 7.8e-3 -> 4.6e-3, 2.7e-2 -> 1.6e-2. The former defaults (order 1, not scaled) ended
       farther in 6 of these 9 (Spot 7.5e-3 -> 9.4e-3), order 2 unscaled in 3 (Spot 0.1: 4.0e-3) */
    if (!lambdaopt) lambda = (order == 1 ? 0.768 * h * h : 0.59 * h * h * h * h) * (noise > 0 ? noise : 1);
  } else
    for (PetscInt v = 0; v < m->nvert; v++) {
      const PetscReal r = GeomRandom(&state);
      if (next[v] < 0) m->coords[3 * v + 2] += noise * r;
    }

  PetscCall(MfadEnergyCreateFromMesh(comm, m, 3, &E));
  PetscCall(MfadEnergyGetOwnershipRange(E, &vstart, &vend));
  if (order == 1) PetscCall(MfadEnergyAddTermFromMesh(E, m, MFAD_KERNEL(dirichlet_tri), NULL, lambda, &term));
  else {
    PetscCall(MfadEnergyCreateFromMesh(comm, m, 3, &D));
    PetscCall(MfadEnergyAddTermFromMesh(D, m, MFAD_KERNEL(dirichlet_tri), NULL, 1.0, &term));
  }
  /* lumped masses (a third of each incident triangle's area) of the owned vertices */
  PetscCall(PetscCalloc3(vend - vstart, &mass, 4 * (vend - vstart), &params, vend - vstart, &ids));
  for (PetscInt c = 0; c < m->ncell; c++) {
    PetscReal       e1[3], e2[3], c2 = 0;
    const PetscInt *t = &m->cells[3 * c];
    for (int d = 0; d < 3; d++) e1[d] = m->coords[3 * t[1] + d] - m->coords[3 * t[0] + d], e2[d] = m->coords[3 * t[2] + d] - m->coords[3 * t[0] + d];
    for (int d = 0; d < 3; d++) c2 += PetscSqr(e1[(d + 1) % 3] * e2[(d + 2) % 3] - e1[(d + 2) % 3] * e2[(d + 1) % 3]);
    for (int a = 0; a < 3; a++)
      if (t[a] >= vstart && t[a] < vend) mass[t[a] - vstart] += PetscSqrtReal(c2) / 6;
  }
  if (fidelity > 0) {
    for (PetscInt v = vstart; v < vend; v++) {
      ids[v - vstart]          = v;
      params[4 * (v - vstart)] = mass[v - vstart];
      for (int d = 0; d < 3; d++) params[4 * (v - vstart) + 1 + d] = m->coords[3 * v + d];
    }
    PetscCall(MfadEnergyAddTerm(E, MFAD_KERNEL(inertia), vend - vstart, ids, params, fidelity, &fterm));
    PetscCall(MfadEnergySetTermName(E, fterm, "fidelity"));
  }
  /* the boundary at its (clean) place */
  PetscCall(PetscMalloc2(3 * (vend - vstart), &fixval, 3 * (vend - vstart), &fixd));
  for (PetscInt v = vstart; v < vend; v++)
    if (next[v] >= 0)
      for (int d = 0; d < 3; d++) fixd[nfix] = 3 * v + d, fixval[nfix++] = m->coords[3 * v + d];
  PetscCall(MfadEnergySetFixedDofs(E, nfix, fixd, fixval));
  PetscCall(MfadEnergySetFromOptions(E));

  PetscCall(MfadEnergyCreateVecs(E, &X, &G));
  if (order == 2) {
    PetscScalar *w;
    /* B's row weights: 1/m_v at interior vertices, 0 on the boundary (-help says why) */
    PetscCall(MfadEnergySetFromOptions(D));
    PetscCall(VecGetArray(G, &w));
    for (PetscInt v = vstart; v < vend; v++)
      for (int d = 0; d < 3; d++) w[3 * (v - vstart) + d] = next[v] < 0 ? 1.0 / mass[v - vstart] : 0.0;
    PetscCall(VecRestoreArray(G, &w));
    PetscCall(BilapCreate(D, E, lambda, G, nfix, fixd, &bilap));
  }
  PetscCall(MfadEnergyCopyCoordinatesFromMesh(E, m, X));
  PetscCall(VecDuplicate(X, &X0));
  PetscCall(VecCopy(X, X0));
  PetscCall(HeightDeviation(comm, surface, clean ? &clean[3 * vstart] : NULL, X, mass, &rms0, &dmax0));
  if (order == 1) PetscCall(MfadEnergyComputeGradient(E, X, G));
  else PetscCall(BilapComputeObjectiveGradient(bilap, X, NULL, G));
  PetscCall(VecNorm(G, NORM_2, &gnorm0));
  PetscCall(MfadEnergyViewFromOptions(E, "-mfad_view"));
  if (D) PetscCall(MfadEnergyViewFromOptions(D, "-mfad_view"));

  if (order == 1) {
    PetscCall(GeomMinimize(comm, E, X, use_tao, 1e-10, 0, &its, &reason, &reason_name));
    PetscCall(MfadEnergyComputeObjectiveGradient(E, X, &energy, G));
  } else {
    PetscCall(GeomMinimizeProblem(comm, bilap, BilapSetSNES, BilapSetTao, X, use_tao, 1e-10, 0, &its, &reason, &reason_name));
    PetscCall(BilapComputeObjectiveGradient(bilap, X, &energy, G));
  }
  PetscCall(VecNorm(G, NORM_2, &gnorm));
  PetscCall(HeightDeviation(comm, surface, clean ? &clean[3 * vstart] : NULL, X, mass, &rms, &dmax));
  /* the triangles of the Dirichlet term; order 2's gradient_norm is then |(L x)_v| */
  if (write) PetscCall(MfadEnergyWriteVTU(order == 1 ? E : D, term, X, X0, out));
  PetscCall(PetscPrintf(comm,
                        "smooth: vertices %" PetscInt_FMT " triangles %" PetscInt_FMT
                        " noise %.3e rms_before %.12e rms_after %.12e max_deviation %.3e energy %.12e"
                        " residual %.3e iterations %" PetscInt_FMT " reason %" PetscInt_FMT " %s\n",
                        m->nvert, m->ncell, (double)noise, (double)rms0, (double)rms, (double)dmax, (double)energy,
                        (double)(gnorm0 > 0 ? gnorm / gnorm0 : gnorm), its, reason, reason_name));

  PetscCall(PetscFree3(mass, params, ids));
  PetscCall(PetscFree2(fixval, fixd));
  PetscCall(BilapDestroy(&bilap));
  PetscCall(MfadEnergyDestroy(&D));
  PetscCall(PetscFree(next));
  PetscCall(VecDestroy(&X));
  PetscCall(VecDestroy(&X0));
  PetscCall(VecDestroy(&G));
  PetscCall(MfadEnergyDestroy(&E));
  PetscCall(MfadMeshDestroy(&m));
  PetscCall(PetscFree(clean));
  if (reason <= 0) PetscCall(PetscFPrintf(comm, PETSC_STDERR, "smooth: the solve did not converge: %s\n", reason_name));
  /* the example's own measure decides: smoothing that left the surface farther from the clean one
     than the noise did is a failure, however well the solve converged (with fidelity, which asks
     for a denoised surface; -fidelity 0 asks for the harmonic one, nowhere near the clean surface) */
  worse = (PetscBool)(reason > 0 && noise > 0 && fidelity > 0 && rms >= rms0);
  if (worse)
    PetscCall(PetscFPrintf(comm, PETSC_STDERR,
                           "smooth: the result is farther from the clean surface than the noisy input (rms %.3e, the noise's %.3e): lower -lambda\n",
                           (double)rms, (double)rms0));
  PetscCall(PetscFinalize());
  return reason > 0 && !worse ? 0 : 1;
}
