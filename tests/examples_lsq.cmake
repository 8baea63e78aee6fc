# SPDX-License-Identifier: BSD-2-Clause
# petsc-examples/arap in its least-squares forms: arap_tri_lsq (r = sqrt(A) (J - R(J)) per
# triangle, weight 2 so that |r|^2 = arap_tri) minimised by Gauss-Newton through SNES (-form
# gauss_newton: the least-squares term's "Hessian" is J^T J) and by TAO's brgn on the stacked
# residual (-form brgn), checked by tests/example_lsq.sh against Newton on arap_tri (-form energy).
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_lsq_test(<name> <nranks> <check> [<check arguments>] [<program options>])
function(mfad_lsq_test name nranks check)
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_lsq.sh ${check} $<TARGET_FILE:arap> ${nranks} ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -- ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 600)
endfunction()

# (a) The three forms minimise the same function from the same start and reach the same minimum.
# Each stops at a small gradient of arap_tri (SNES: |g| <= 1e-8 |g0| or a relative step <= 1e-8,
# brgn: |g| <= 1e-8; measured |g|/|g0| 4e-10 to 1e-8). Near a minimum E - E* = 1/2 g^T H^-1 g, second
# order in |g|: with |g0| = 12.8 (bar) and 2.06 (disk), |g| <= 1.3e-7, so E - E* <= |g|^2 / (2 lambda_min)
# stays below 1e-9 E (E = 0.055 on the bar, 0.33 on the disk) unless H's smallest eigenvalue is
# below ~1.5e-4: 1e-9 is that bound, not a tuned number. Measured: 13 digits agree. Iterations: the
# bar 11 (Newton), 12 (Gauss-Newton), 13 (brgn); the disk 48, 74, 79; 200 allowed.
mfad_lsq_test(example_lsq_forms_bar 1 forms 1e-9 200)
mfad_lsq_test(example_lsq_forms_spot_patch 1 forms 1e-9 200 -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/spot_patch.obj)
# (b) 1 and 2 ranks: the same solver on the same problem, only summation order and the Krylov
# solves' round-off differ, the iterates stay within ~1e-10 of each other; both converge as above,
# so the energies agree to the second-order bound of (a), ~1e-10 absolute: 1e-10 relative of E >= 0.05
# (measured: 13 digits).
mfad_lsq_test(example_lsq_ranks_gauss_newton 2 ranks 1e-10 200 -form gauss_newton)
mfad_lsq_test(example_lsq_ranks_brgn 2 ranks 1e-10 200 -form brgn)
# (b') brgn gets MfadEnergySetTaoResidual's defaults (the assembled J, no preconditioner in its
# subsolver: bnk's L-BFGS took 115,365 Krylov iterations on spot_patch, none 32,661), set in code
# and replaced by options naming them; the same minimum either way
mfad_lsq_test(example_lsq_brgn_defaults 1 brgn_defaults)
mfad_lsq_test(example_lsq_ranks_spot_patch 2 ranks 1e-10 200 -form gauss_newton -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/spot_patch.obj)
# (c) spot_jitter.obj (slivers down to 1.2 degrees, 619 negative cotangent weights) with the default
#     options: projected, then exact Newton (50 projected-only steps did not converge) and Gauss-Newton;
#     ARAP has no barrier and its minimum may flip slivers: -allow_flips (arap fails on flips without it)
mfad_lsq_test(example_lsq_sliver_spot_jitter 1 sliver 1e-9 200 -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/spot_jitter.obj -allow_flips)
# (d) tests/meshes/sock.obj (a tube closed at one end, which Tutte's map squeezes e^-16-fold), the
#     defaults: Newton converges, in 657 steps measured (PETSc's default limit is 50; -mesh sets 10000);
#     its minimum overlaps itself: -allow_flips
mfad_lsq_test(example_lsq_newton_sock 1 newton 10000 -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/sock.obj -allow_flips)
# and TAO (nls): 672 iterations (10,000 without a result before shell/tao.c took the exact Hessian
# after -mfad_psd_project_steps' 10 projected ones, as SNES does), stopped as SNES is at |g| <= 1e-8
# |g0| (-tao_gttol; TAO's own -tao_grtol, |g| <= 1e-8 |E|, stopped it at 1.4e-8 |g0| on another path)
mfad_lsq_test(example_lsq_newton_sock_tao 1 newton 10000 -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/sock.obj -use_tao -allow_flips)
# (c) Zero residual: rigidly moved handles make every r_e = 0 at the rigidly moved rest shape, where
# J^T J is the exact Hessian, so Gauss-Newton is Newton there (quadratic) and must find E = 0
# (tests/example_geom.sh's rigid check: E <= 1e-12 area, vertices within 1e-8 of the rigid motion);
# the uniform stretch (s = 1.25) is a non-zero-residual minimum with E = area (s - 1)^2. brgn's
# default test |g| <= 1e-8 leaves the vertices ~|g| / lambda_min away (measured 1.4e-7, E = 4e-15):
# -tao_gatol 1e-12, one more quadratic step.
mfad_geom_test(example_lsq_rigid_gauss_newton arap 1 rigid OPTIONS -form gauss_newton -handles rigid -angle 60 -dx 1 -dy 2)
mfad_geom_test(example_lsq_rigid_brgn arap 2 rigid OPTIONS -form brgn -handles rigid -angle -30 -dx 0.5 -dy -1 -tao_gatol 1e-12)
mfad_geom_test(example_lsq_stretch_gauss_newton arap 2 stretch 1.25 OPTIONS -form gauss_newton -handles stretch -dx 1)
mfad_geom_test(example_lsq_stretch_brgn arap 1 stretch 1.25 OPTIONS -form brgn -handles stretch -dx 1)
# (d) A solve that did not converge exits non-zero with the reason on stderr
mfad_lsq_test(example_lsq_not_converged_gauss_newton 1 fails "did not converge: DIVERGED_MAX_IT" -form gauss_newton -snes_max_it 2)
mfad_lsq_test(example_lsq_not_converged_brgn 2 fails "did not converge: DIVERGED_MAXITS" -form brgn -tao_max_it 2)
# -snes_test_jacobian / -tao_test_hessian on least-squares terms: said before PETSc's report that the
# Hessian compared is Gauss-Newton by design (a difference is expected), with how to test J
add_test(NAME example_lsq_test_jacobian_says_gauss_newton
         COMMAND ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -n 1 $<TARGET_FILE:arap> -form gauss_newton -snes_test_jacobian -snes_max_it 1)
add_test(NAME example_lsq_test_hessian_says_gauss_newton
         COMMAND ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -n 1 $<TARGET_FILE:arap> -form gauss_newton -use_tao -tao_test_hessian -tao_max_it 1)
set_tests_properties(example_lsq_test_jacobian_says_gauss_newton example_lsq_test_hessian_says_gauss_newton PROPERTIES
                     ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi"
                     PASS_REGULAR_EXPRESSION "term '[a-z_]+' is least squares, whose Hessian here is Gauss-Newton")
