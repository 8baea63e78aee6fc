# SPDX-License-Identifier: BSD-2-Clause
# The build-time yardstick (issue 48, item 6): a compressible Mooney-Rivlin tet written over its 12
# unknowns with no features, as a new user writes one, built exactly as mfad_add_energy builds a
# user's energy (default options, -O3); test_mooney_rivlin checks its modes and CPU loops.
mfad_check_test(test_mooney_rivlin)
mfad_add_energy(test_mooney_rivlin mooney_rivlin_tet SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/mooney_rivlin_tet.c NO_CUDA)
