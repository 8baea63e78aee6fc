# SPDX-License-Identifier: BSD-2-Clause
# Mesh file readers: good and bad files (tests/meshes/), fuzz regressions (tests/fuzz/).
mfad_check_test(test_readers LABELS readers)
target_compile_definitions(test_readers PRIVATE MFAD_TEST_MESHES="${CMAKE_CURRENT_SOURCE_DIR}/meshes")
