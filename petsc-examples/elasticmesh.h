// SPDX-License-Identifier: BSD-2-Clause
/* elastic -mesh <file>: the solid on a read tet mesh (anything MfadDMPlexCreateFromFile() reads),
   distributed with DMPlex. Gives main() what the generated bar gives it: the energy with the
   material on the cells, and per owned vertex its rest position, lumped mass, clamp and tip flags. */
#ifndef ELASTICMESH_H
#define ELASTICMESH_H

#include <mfadmesh.h>

/* Reads `path`, makes E (the material `kname` with Lame constants `material` on the cells) and
   returns this rank's n owned vertices from vstart of N, the number of cells, the rest positions
   (3n), lumped masses (rho V / 4 of every tet to each of its vertices, summed across ranks by a Vec
   assembly), the vertices to clamp (coordinate `axis` within `band` times the mesh's extent along it
   of its smallest value: a band, since a curved mesh has a single vertex of smallest x) and the tip
   (the same at the largest value). The file's coordinates are multiplied by `scale` (metres per file
   unit) before anything is computed from them; `size` gets the mesh's largest extent along x, y or
   z after scaling [m].
   Free rest, mass, clamp, tip with PetscFree4(). */
PetscErrorCode MeshEnergyCreate(MPI_Comm comm, const char path[], PetscReal scale, const char kname[], const PetscReal material[], PetscReal rho,
                                PetscInt axis, PetscReal band, MfadEnergy *E, PetscInt *N, PetscInt *n, PetscInt *vstart, PetscInt *ncell,
                                PetscReal **rest, PetscReal **mass, PetscBool **clamp, PetscBool **tip, PetscReal *size);

#endif /* ELASTICMESH_H */
