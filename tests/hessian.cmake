# SPDX-License-Identifier: BSD-2-Clause
# Explicit Hessians: the forms (shell, cached, assembled aij/baij/sbaij) on every built-in energy,
# the dense reference, allocation, PSD projection (test_hessian); distributed against serial on
# 1 and 2 ranks (test_hessian_mpi).
mfad_check_test(test_hessian)
add_executable(test_hessian_mpi test_hessian_mpi.c)
target_link_libraries(test_hessian_mpi PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_hessian_mpi PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_hessian_mpi_${np} ${np} $<TARGET_FILE:test_hessian_mpi>)
endforeach()
# The energies' walls (.step) and MfadEnergyComputeStepBound against the energy, 1 and 2 ranks
add_executable(test_stepbound test_stepbound.c)
target_link_libraries(test_stepbound PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_stepbound PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_stepbound_${np} ${np} $<TARGET_FILE:test_stepbound>)
endforeach()
