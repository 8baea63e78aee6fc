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
# the same on 2 ranks with the merged entries through PETSc's COO, not mfad's CSR (src/assemble_csr.c)
mfad_mpi_test(test_dynamic_coo_2 2 $<TARGET_FILE:test_dynamic> -mfad_assemble_csr 0)
# the cost of an update against one fused HVP (bench/dynamic.c, run by hand); here only its smoke run
add_executable(bench_dynamic ${PROJECT_SOURCE_DIR}/bench/dynamic.c)
target_link_libraries(bench_dynamic PRIVATE mfad m)
target_compile_options(bench_dynamic PRIVATE -Wall -Wextra)
mfad_mpi_test(bench_dynamic_smoke_np2 2 $<TARGET_FILE:bench_dynamic> -n 4 -pairs 50 -reps 2)
