# SPDX-License-Identifier: BSD-2-Clause
# The AD numbers, op by op in every mode, through the test energy energies/ad_ops.h at N = 1, 12, 16
mfad_check_test(test_ad)
foreach(n 1 12 16)
  # -O0: every operation at N = 16, fully inlined, takes minutes to optimise; correctness only here
  mfad_add_energy(test_ad ad_ops_n${n} HEADER ${CMAKE_CURRENT_SOURCE_DIR}/energies/ad_ops_n${n}.h NO_CUDA COMPILE_OPTIONS -O0)
endforeach()
target_include_directories(test_ad PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# every built-in kernel on random valid elements
mfad_check_test(test_kernels)
