# SPDX-License-Identifier: BSD-2-Clause
# No silent traps (tests/test_options.c): the user's preconditioner in either order, -mfad_view
# without the program asking, options without values, -help, an invalid start point named
mfad_check_test(test_options)
mfad_mpi_test(test_options_2 2 $<TARGET_FILE:test_options>)
set_tests_properties(test_options_2 PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=300;OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMP_WAIT_POLICY=PASSIVE;OMP_NUM_THREADS=1")
