# SPDX-License-Identifier: BSD-2-Clause
# petsc-examples/drop: two elastic cubes of tets dropped, one onto the other, onto a fixed floor with
# IPC contact, checked by tests/example_drop.sh on 1 and 2 ranks (40 steps: 2-10 Newton steps each, measured)
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()
add_test(NAME example_drop_contact
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_drop.sh contact $<TARGET_FILE:drop> ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -- 30 --)
set_tests_properties(example_drop_contact PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS 2 TIMEOUT 300)
