# SPDX-License-Identifier: BSD-2-Clause
# MfadInitialize() (src/initialize.c): a program run alone gets Open MPI's singleton parameters, a
# value already in the environment is kept, a program mpiexec started gets none.
add_executable(test_initialize test_initialize.c)
target_link_libraries(test_initialize PRIVATE mfad)
add_test(NAME test_initialize COMMAND test_initialize -expect_isolated 1 -expect_pml ob1)
add_test(NAME test_initialize_kept COMMAND test_initialize -expect_isolated 0 -expect_pml ^ucx)
mfad_mpi_test(test_initialize_np2 2 $<TARGET_FILE:test_initialize>)
set_tests_properties(test_initialize PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV}" LABELS "unit")
set_tests_properties(test_initialize_kept PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMPI_MCA_ess_singleton_isolated=0;OMPI_MCA_pml=^ucx"
                                                     LABELS "unit")
