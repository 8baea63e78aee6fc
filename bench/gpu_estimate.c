// SPDX-License-Identifier: BSD-2-Clause
/* A paper estimate for the first GPU run: per element of each built-in energy, the bytes the
   fused HVP moves and the flops it executes (counted by the kernel's own counting mode at a valid
   element), and the resulting lower bound for 1M elements on an H100 SXM (3.35 TB/s HBM3, 34
   TFLOP/s FP64 without tensor cores, which AD code cannot use). Two traffic models bracket the
   truth: "reuse" reads each vertex's x and v and updates y once (perfect caching; vertices per
   element: the box tet mesh's 0.175 scaled by nvert / 4, 1 for one-vertex terms), "stream" gathers and
   scatters every element's vertices from memory. Both count the connectivity (4 B per vertex),
   the parameters (8 B each) and the colour's element list (4 B). Launch latency, one launch per
   element colour, comes on top: see bench/gpu_estimate.md. */
#include <mfad.h>
#define MFAD_IMPL_ALLOWED 1 /* counts a kernel's flops per element (its flops entry point): the complete kernel (machinery) */
#include <mfad/impl/kernel.h>
#include <stdio.h>

#define H100_BW    3.35e12
#define H100_FP64  34e12
#define NELEM      1.0e6
#define VERT_RATIO 0.175 /* vertices per tet of a large box mesh: (n+1)^3 / (6 n^3) */

int main(int argc, char **argv)
{
  const char *names[] = {"neohookean_tet", "stable_neohookean_tet", "stvk_tet", "corotated_tet", "volume_barrier_tet", "membrane_tri", "bending_dihedral", "mass_spring", "pin_spring",
                         "symmetric_dirichlet", "dirichlet_tri", "flip_barrier_tri", "arap_tri", "sphere_penalty", "frame_field", "gravity", "inertia"};
  const double simplex[4][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, 0.8660254037844386, 0}, {0.5, 0.28867513459481287, 0.816496580927726}};

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| energy | N | params | HVP flops/elem | bytes/elem (reuse) | bytes/elem (stream) | 1M elements: bound reuse (us) | bound stream (us) | limited by |\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n"));
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
    MfadKernel k;
    double     rest[12], mat[16], p[64], x[16], fl[MFAD_MODE_COUNT];
    PetscCall(MfadKernelFind(names[i], &k));
    const int N = k->nvert * k->dof;
    for (int m = 0; m < 16; m++) mat[m] = 1.0;
    for (int a = 0; a < k->nvert; a++)
      for (int d = 0; d < 3; d++) rest[3 * a + d] = simplex[a][d];
    if (k->rest) {
      if (k->rest(rest, mat, p)) { /* a kernel whose rest shape is not a regular simplex's corners */
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %s | %d | %d | (rest set-up refuses the regular simplex: not estimated) | | | | | |\n", names[i], N, k->nparam));
        continue;
      }
    } else
      for (int j = 0; j < k->nparam; j++) p[j] = 1.0;
    for (int a = 0; a < k->nvert; a++) /* a mildly stretched element */
      for (int d = 0; d < k->dof; d++) x[a * k->dof + d] = 1.05 * simplex[a][d] + 0.01 * d;
    k->flops(x, p, fl);
    const double fixed  = 4.0 * k->nvert + 8.0 * k->nparam + 4.0;
    const double vpe    = k->nvert == 1 ? 1.0 : VERT_RATIO * k->nvert / 4.0; /* vertices per element (the tet figure scaled) */
    const double reuse  = fixed + vpe * 32.0 * k->dof;                       /* x, v read, y read + written: 4 x 8 B per dof */
    const double stream = fixed + (double)N * 8.0 * 4;
    const double tf     = fl[MFAD_MODE_HVP] * NELEM / H100_FP64;
    const double tr = reuse * NELEM / H100_BW, ts = stream * NELEM / H100_BW;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "| %s | %d | %d | %.0f | %.0f | %.0f | %.1f | %.1f | %s |\n", names[i], N, k->nparam, fl[MFAD_MODE_HVP], reuse, stream, 1e6 * PetscMax(tf, tr),
                          1e6 * PetscMax(tf, ts), tf > ts ? "flops" : tf > tr ? "flops (reuse) / bytes (stream)" : "bytes"));
  }
  PetscCall(PetscFinalize());
  return 0;
}
