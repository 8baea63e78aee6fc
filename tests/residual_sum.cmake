# SPDX-License-Identifier: BSD-2-Clause
# The stacked least-squares residual of arap_tri_lsq in the core and the shell, on 1 and 2 ranks:
# shell vs assembled Jacobian, J^T (J v) vs the fused Gauss-Newton product, bad sizes refused
add_executable(test_residual_sum test_residual_sum.c)
target_link_libraries(test_residual_sum PRIVATE mfad m)
target_compile_options(test_residual_sum PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_residual_sum_${np} ${np} $<TARGET_FILE:test_residual_sum>)
endforeach()
