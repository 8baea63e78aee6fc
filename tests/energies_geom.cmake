# SPDX-License-Identifier: BSD-2-Clause
# The geometry-processing energies (dirichlet_tri, arap_tri, flip_barrier_tri, sphere_penalty,
# frame_field): invariances and exact values; their derivatives in every mode are in test_kernels.
mfad_check_test(test_energies_geom)
