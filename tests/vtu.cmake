# SPDX-License-Identifier: BSD-2-Clause
# VTU output (src/vtu.c, src/mesh/vtu.c): written on 1 and 2 ranks, read back and compared (test_vtu.c).
add_executable(test_vtu test_vtu.c)
target_link_libraries(test_vtu PRIVATE mfad m)
target_compile_options(test_vtu PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_vtu_${np} ${np} $<TARGET_FILE:test_vtu>)
endforeach()

# a write interrupted by a signal (issue 46, item 9): no temporary left, the previous file intact.
# INT and TERM: PETSc does not trap them (INT never, TERM not under Open MPI); HUP goes through
# PETSc's handler chain.
add_executable(test_vtu_signal test_vtu_signal.c)
target_link_libraries(test_vtu_signal PRIVATE mfad m)
target_compile_options(test_vtu_signal PRIVATE -Wall -Wextra)
foreach(sig INT TERM HUP)
  add_test(NAME vtu_signal_${sig} COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/vtu_signal.sh ${sig} $<TARGET_FILE:test_vtu_signal> ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS})
  set_tests_properties(vtu_signal_${sig} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "mpi" TIMEOUT 60)
endforeach()
