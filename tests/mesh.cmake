# SPDX-License-Identifier: BSD-2-Clause
# DMPlex distribution (src/dmplex.c): Gmsh and generated meshes on 1, 2 and 4 ranks against the
# same mesh on one rank, with a tet term and a bending-stencil term (the test energy hinge_test)
add_executable(test_dmplex test_dmplex.c)
target_link_libraries(test_dmplex PRIVATE mfad m)
target_compile_options(test_dmplex PRIVATE -Wall -Wextra)
mfad_add_energy(test_dmplex hinge_test HEADER ${CMAKE_CURRENT_SOURCE_DIR}/energies/hinge_test.h NO_CUDA)
set(MFAD_MESHES ${CMAKE_CURRENT_SOURCE_DIR}/meshes)
foreach(np 1 2 4)
  mfad_mpi_test(test_dmplex_${np} ${np} $<TARGET_FILE:test_dmplex> -meshes ${MFAD_MESHES})
endforeach()
# the partitioner is PETSc's choice: another one moves elements, not results
mfad_mpi_test(test_dmplex_simple_2 2 $<TARGET_FILE:test_dmplex> -meshes ${MFAD_MESHES} -petscpartitioner_type simple)
mfad_mpi_test(test_dmplex_ptscotch_3 3 $<TARGET_FILE:test_dmplex> -meshes ${MFAD_MESHES} -petscpartitioner_type ptscotch)
# -mfad_view reports the load balance (elements and ghost vertices per rank)
mfad_mpi_test(test_dmplex_view_2 2 $<TARGET_FILE:test_dmplex> -meshes ${MFAD_MESHES} -mfad_view)
set_tests_properties(test_dmplex_view_2 PROPERTIES PASS_REGULAR_EXPRESSION "load balance over 2 ranks .*ghost vertices [0-9]+ / [0-9.]+ / [1-9]" FAIL_REGULAR_EXPRESSION "FAIL")
# a hang (a rank waiting for another that stopped) fails in minutes, not at ctest's default
set_tests_properties(test_dmplex_1 test_dmplex_2 test_dmplex_4 test_dmplex_simple_2 test_dmplex_ptscotch_3 test_dmplex_view_2 PROPERTIES TIMEOUT 300)
