# SPDX-License-Identifier: BSD-2-Clause
# Dynamic element sets (src/dynamic.c): a term whose elements appear, vanish and cross the rank
# partition, every Hessian form against an energy built from scratch, the counts of ghost rebuilds
# and re-preallocations, SNES with a provider, bad input refused (test_dynamic), on 1 and 2 ranks.
add_executable(test_dynamic test_dynamic.c)
target_link_libraries(test_dynamic PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_dynamic PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_dynamic_${np} ${np} $<TARGET_FILE:test_dynamic>)
endforeach()
