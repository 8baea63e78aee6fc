# SPDX-License-Identifier: BSD-2-Clause
# 1, 2 and the default (measured) thread count give bitwise the same results (docs/threads.md)
mfad_check_test(test_threads)
# alone on the machine: the thread policy times 1 thread against OpenMP's count (src/compute.c)
set_tests_properties(test_threads PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=120;${MFAD_MPI_ENV};OMP_NUM_THREADS=2" RUN_SERIAL ON)
