# SPDX-License-Identifier: BSD-2-Clause
# petsc-examples/advdiff: a nonlinear system (-div((1 + k u^2) grad u) + b . grad u + c u^3 = f, P1,
# manufactured solution) from a plain-C system residual; checked by tests/example_advdiff.sh on its
# summary lines. Each run takes well under a second.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_advdiff_test(<name> <nranks> <check> [<check arguments>] [OPTIONS <program options>])
function(mfad_advdiff_test name nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_advdiff.sh ${check} ${ARG_UNPARSED_ARGUMENTS} $<TARGET_FILE:advdiff> ${MFAD_MPIEXEC}
            ${MFAD_MPIEXEC_FLAGS} -- ${ARG_OPTIONS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 300)
endfunction()

# (a) convergence: P1 with a quadrature exact for degree 2 has ||u_h - u*||_L2 = O(h^2), so the
#     observed order log2(e_h / e_h/2) tends to 2 (measured 1.980, 1.995, 1.999 for n 8 -> 64).
#     1.8 fails for a first-order error: a wrong element integral or quadrature point, a
#     Jacobian-free but inexact solve stopped early, or a boundary value off by O(h).
mfad_advdiff_test(example_advdiff_order 1 order 1.8 OPTIONS -n 8 -refine 3)
# (b) the exact Jacobian against PETSc's finite differences of F at every Newton step, 2 ranks:
#     assembled (-mfad_hessian aij, the default) and the matrix-free shell (J v by dual numbers).
#     FD steps ~1e-8 relative give ~1e-8 relative error on these O(1) entries (measured 4e-9 to
#     7e-9); a wrong entry is O(1) relative: 1e-6 separates them.
foreach(form aij shell)
  mfad_mpi_test(example_advdiff_test_jacobian_${form} 2 $<TARGET_FILE:advdiff> -n 4 -mfad_hessian ${form} -snes_test_jacobian)
  set_tests_properties(example_advdiff_test_jacobian_${form} PROPERTIES LABELS "example;mpi"
    PASS_REGULAR_EXPRESSION "J - Jfd\\|\\|_F/\\|\\|J\\|\\|_F = [0-9.]+e-(0[7-9]|[1-9][0-9])"
    FAIL_REGULAR_EXPRESSION "J - Jfd\\|\\|_F/\\|\\|J\\|\\|_F = [0-9.]+e(-0[0-6]|\\+)|did not converge")
endforeach()
# (c) 1 and 2 ranks reach the same discrete solution: each solve ends with |F| <= 1e-8 |F0| after
#     quadratically converging Newton steps (GMRES to 1e-10), so both iterates are the solution to
#     ~1e-12 (measured: l2_error agrees to 5e-12 relative); summation order adds round-off
#     ~1e-15. 1e-10 relative on l2_error and ||u_h||_L2; a wrong ghost or boundary row on 2 ranks
#     changes them at O(h^2) = 1e-3.
mfad_advdiff_test(example_advdiff_ranks 2 ranks OPTIONS -n 32)
#     the same through the shell (exact J v, Jacobi-preconditioned GMRES)
mfad_advdiff_test(example_advdiff_ranks_shell 2 ranks OPTIONS -n 16 -mfad_hessian shell)
#     and with PETSc's coloured finite-difference Jacobian on mfad's assembled pattern (-snes_fd_color
#     needs MfadEnergyCreateMatrix()'s matrix assembled before the first Jacobian): J_fd is ~1e-7
#     off, Newton still converges quadratically to the same discrete solution
mfad_advdiff_test(example_advdiff_fd_color 2 ranks OPTIONS -n 16 -snes_fd_color)
# (d) one Newton step from u = 0 cannot reach |F| <= 1e-8 |F0|: a non-zero exit and the reason
mfad_advdiff_test(example_advdiff_diverge 2 diverge OPTIONS -n 8 -snes_max_it 1)
# (e) -o on 2 ranks: the whole grid gathered on rank 0, every array, the file complete
mfad_advdiff_test(example_advdiff_vtu 2 vtu)
# bench/residual_pde small (never timed): it exits non-zero when the FD Jacobian or MatMFFD product
# is off the exact one by more than FD noise (1e-4 relative; measured ~1e-8), the exact JVP off the
# assembled J v by more than round-off, or a Newton solve (exact J, -snes_fd_color, mfad shell,
# -snes_mf_operator) does not converge
mfad_mpi_test(bench_residual_pde_smoke 1 $<TARGET_FILE:bench_residual_pde> -n 16 -reps 1)
set_tests_properties(bench_residual_pde_smoke PROPERTIES LABELS "bench")
mfad_mpi_test(bench_residual_pde_smoke_np2 2 $<TARGET_FILE:bench_residual_pde> -n 16 -reps 1)
set_tests_properties(bench_residual_pde_smoke_np2 PROPERTIES LABELS "bench;mpi")
