# SPDX-License-Identifier: BSD-2-Clause
# petsc-examples/cloth runs, checked by tests/example_cloth.sh (see it for each argument)
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()
function(mfad_cloth_test name nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_cloth.sh ${check} $<TARGET_FILE:cloth> ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS}
            -- ${ARG_UNPARSED_ARGUMENTS} -- ${ARG_OPTIONS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 300)
endfunction()
# Iteration bound per time step: a step starts at x_pred = x_n + dt v_n, within O(dt^2 |g|) of
# its minimiser, where Newton converges in a few steps (measured: 2-4); 10 leaves room, while a
# wrong Hessian product (linear convergence) needs many more
mfad_cloth_test(example_cloth_drape 2 drape 10 OPTIONS -nx 12 -ny 12)
mfad_cloth_test(example_cloth_freefall 1 freefall 1 10 5 0.01 -9.81 OPTIONS -nx 8 -ny 8)
mfad_cloth_test(example_cloth_freefall_np2 2 freefall 2 10 4 0.05 -9.81 OPTIONS -nx 8 -ny 6 -bend_springs 5)
# contact: the unpinned sheet falls onto a sphere of radius 0.25 and folds onto itself over 80 steps
# (measured: 2-37 Newton steps each with projected-then-exact Newton, most 6-9; self-contact from ~step 60);
# 1 and 2 ranks compared over the first 20 steps
mfad_cloth_test(example_cloth_contact_sphere 2 contact 50 80 20 OPTIONS -pin none -sphere 0.25)
# statics of the hanging sheet: Newton from the flat rest shape; measured 2 steps
mfad_cloth_test(example_cloth_hang 1 hang 1 10)
mfad_cloth_test(example_cloth_hang_np2 2 hang 2 10)
