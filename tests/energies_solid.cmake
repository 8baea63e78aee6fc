# SPDX-License-Identifier: BSD-2-Clause
# Solid and cloth energies: rigid-motion invariance, bending at rest and through 0 and pi, the
# tet solids' small-strain limit, inversion (tests/test_kernels.c checks their derivatives)
mfad_check_test(test_solid_energies)
