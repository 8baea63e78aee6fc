# SPDX-License-Identifier: BSD-2-Clause
# Contact: the IPC barrier energies (closed forms, derivatives in every distance type), detection
# against a brute-force search (random soup, Spot), the continuous-collision step bound, bad input
mfad_check_test(test_contact)
target_compile_definitions(test_contact PRIVATE MFAD_TEST_MESHES="${CMAKE_CURRENT_SOURCE_DIR}/meshes")
