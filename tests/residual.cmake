# SPDX-License-Identifier: BSD-2-Clause
# Residuals (vector-valued element functions): the kernels in every mode (test_residual.c), the
# least-squares and system sums in the core, the shell and on 2 ranks (test_residual_sum.c)
mfad_check_test(test_residual)
mfad_add_energy(test_residual res_lsq SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/res_lsq.c NO_CUDA)
mfad_add_energy(test_residual res_sys SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/res_sys.c NO_CUDA)
target_include_directories(test_residual PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
