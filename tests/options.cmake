# SPDX-License-Identifier: BSD-2-Clause
# No silent traps (tests/test_options.c): the user's preconditioner in either order, -mfad_view
# without the program asking, options without values, -help, an invalid start point named
mfad_check_test(test_options)
target_link_libraries(test_options PRIVATE ${CMAKE_DL_LIBS}) # dlsym: each option's setter exists
if(MFAD_PETSC_HAS_MUMPS) # its solves with -pc_type cholesky on 2 ranks
  mfad_mpi_test(test_options_2 2 $<TARGET_FILE:test_options>)
  set_tests_properties(test_options_2 PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=300;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_WAIT_POLICY=PASSIVE;OMP_NUM_THREADS=1")
endif()
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()
# the same on a real program: -help lists every -mfad_ option; -mfad_view prints once though the
# program also calls MfadEnergyViewFromOptions() itself after its first evaluation
# (the options: every one of the tables, as test_options -print_option_names lists them)
add_test(NAME options_program_help COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/options_program.sh help $<TARGET_FILE:elastic> -m 4)
add_test(NAME options_program_view COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/options_program.sh view $<TARGET_FILE:elastic> -m 4)
set_tests_properties(options_program_help options_program_view PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example")
set_tests_properties(options_program_help PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1;MFAD_OPTION_NAMES=$<TARGET_FILE:test_options>")
