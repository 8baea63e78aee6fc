// SPDX-License-Identifier: BSD-2-Clause
/**
  @file mfadmeshbox.h
  @brief Generated box meshes as arrays (libmfadmesh): the tets and vertex coordinates of a box of
         cubes, for test, benchmark and example meshes. Included by mfad.h, which has always
         declared them, and by mfadmesh.h (MfadMeshCreateBox() makes an MfadMesh of them).
**/
#ifndef MFADMESHBOX_H
#define MFADMESHBOX_H

#include <petscsys.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @brief Tets of a box of nx x ny x nz cubes, 6 per cube, positively oriented and conforming;
    vertex (i, j, k) has id i + (nx + 1) (j + (ny + 1) k). Writes the 24 vertex ids of each cube
    c in [cstart, cend) (cubes numbered x fastest) to conn. Use for generated test and benchmark
    meshes and examples. */
PetscErrorCode MfadMeshBoxTets(PetscInt nx, PetscInt ny, PetscInt nz, PetscInt cstart, PetscInt cend, PetscInt conn[]);
/** @brief Coordinates of the box's vertices [vstart, vend) spanning [lo, hi] (3 per vertex). */
PetscErrorCode MfadMeshBoxVertices(PetscInt nx, PetscInt ny, PetscInt nz, const PetscReal lo[3], const PetscReal hi[3], PetscInt vstart,
                                   PetscInt vend, PetscReal coords[]);

#ifdef __cplusplus
}
#endif

#endif /* MFADMESHBOX_H */
