# SPDX-License-Identifier: BSD-2-Clause
# Gmsh and Medit files (src/mesh/read_gmsh.c, src/mesh/read_medit.c): bad files are the same error, naming
# file and line, on 1 and 2 ranks of MfadDMPlexCreateFromFile(); good ones read as PETSc's Gmsh
# reader and the other formats read them.
add_executable(test_readers_gmsh test_readers_gmsh.c)
target_link_libraries(test_readers_gmsh PRIVATE mfad m)
target_compile_options(test_readers_gmsh PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_readers_gmsh_${np} ${np} $<TARGET_FILE:test_readers_gmsh> -meshes ${CMAKE_CURRENT_SOURCE_DIR}/meshes)
  set_tests_properties(test_readers_gmsh_${np} PROPERTIES LABELS "mpi;readers" FAIL_REGULAR_EXPRESSION "FAIL")
endforeach()
