# SPDX-License-Identifier: BSD-2-Clause
# VTU output (src/vtu.c): written on 1 and 2 ranks, read back and compared (test_vtu.c).
add_executable(test_vtu test_vtu.c)
target_link_libraries(test_vtu PRIVATE mfad m)
target_compile_options(test_vtu PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_vtu_${np} ${np} $<TARGET_FILE:test_vtu>)
endforeach()
