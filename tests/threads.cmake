# SPDX-License-Identifier: BSD-2-Clause
# 1, 2 and the default (measured) thread count give bitwise the same results (docs/threads.md)
mfad_check_test(test_threads)
set_tests_properties(test_threads PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=120;${MFAD_MPI_ENV};OMP_NUM_THREADS=2")
