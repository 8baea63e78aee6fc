# SPDX-License-Identifier: BSD-2-Clause
# bench/ programs in their checking mode (never timed): hand-written gradient and HVP agree with
# mfad's to 1e-10 relative, cached and assembled products with the fused one, and PETSc's MatMFFD
# product is finite and within 1e-4 of the exact HVP (bench/ops.c says why); serial and 2 ranks.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()
foreach(wl neohookean cloth dirichlet)
  add_test(NAME bench_ops_check_${wl} COMMAND bench_ops -workload ${wl} -n 6 -m 8 -check)
  set_tests_properties(bench_ops_check_${wl} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=2" LABELS "bench" PROCESSORS 2)
  mfad_mpi_test(bench_ops_check_${wl}_mpi 2 $<TARGET_FILE:bench_ops> -workload ${wl} -n 6 -m 8 -check)
endforeach()
# bench_spmv runs (tiny box): every storage format's product is aij's to round-off (it exits 1 if not)
add_test(NAME bench_spmv_smoke COMMAND bench_spmv -n 3 -m 4 -reps 1)
set_tests_properties(bench_spmv_smoke PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV}" LABELS "bench")
