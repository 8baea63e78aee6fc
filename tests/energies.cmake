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
# The built-in energies' pointer-dialect bodies (tests/oracle/, from before the plain-C port) as
# kernels <name>_oracle: every mode of each plain-C energy must reproduce them (test_kernels)
# and bench/ compares their speed. They are compiled with the library's host tuning: with FMA
# contraction on one side only, an ill-conditioned step (bending_dihedral's theta - theta0 near
# theta0) already differs by more than the comparison's 1e-14.
include(${CMAKE_CURRENT_SOURCE_DIR}/oracle/oracles.cmake)
set(oracle_lines "")
foreach(name IN LISTS MFAD_ORACLES)
  set(roll)
  if(name IN_LIST MFAD_ORACLES_ROLL_HESSIAN_ROWS)
    set(roll ROLL_HESSIAN_ROWS)
  endif()
  mfad_add_energy(test_kernels ${name}_oracle HEADER ${CMAKE_CURRENT_SOURCE_DIR}/oracle/${name}.h NO_CUDA ${roll}
                  COMPILE_OPTIONS -O3 -fno-math-errno ${MFAD_HOST_TUNING})
  string(APPEND oracle_lines "MFAD_ORACLE(${name})\n")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mfad_oracles.h CONTENT "${oracle_lines}")
target_include_directories(test_kernels PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
