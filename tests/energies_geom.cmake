# SPDX-License-Identifier: BSD-2-Clause
# The geometry-processing energies (dirichlet_tri, arap_tri, flip_barrier_tri, sphere_penalty,
# frame_field): invariances and exact values; their derivatives in every mode are in test_kernels.
mfad_check_test(test_energies_geom)
# the sphere energies (sphere_symmetric_dirichlet, sphere_flip_barrier): scale and rotation
# invariance, 4 A at an isometry, 0 and +inf where exact
mfad_check_test(test_energies_sphere)
