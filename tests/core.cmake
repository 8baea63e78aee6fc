# SPDX-License-Identifier: BSD-2-Clause
mfad_check_test(test_core)
add_executable(test_mpi test_mpi.c)
target_link_libraries(test_mpi PRIVATE mfad PkgConfig::CHECK m)
foreach(np 1 2 3)
  mfad_mpi_test(test_mpi_${np} ${np} $<TARGET_FILE:test_mpi>)
endforeach()
mfad_check_test(test_shell)
