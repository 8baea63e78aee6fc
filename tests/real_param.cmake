# SPDX-License-Identifier: BSD-2-Clause
# param (petsc-examples/param.c) with its DEFAULT solver on the real disks of tests/meshes (Spot's
# patch, 1,279 vertices, and the same patch jittered: slivers down to 1.2 degrees, 619 negative
# cotangent weights), checked by tests/real_param.sh. Every converged run must show:
#  - no flipped triangle (the line search never accepts a step into +inf);
#  - energy_per_area >= 4: symmetric Dirichlet of a triangle is A (s1^2 + s2^2 + s1^-2 + s2^-2) >= 4 A;
#  - residual = |grad E| / sqrt(area) <= 1e-8, -gatol's (the tests below give -gatol 1e-8: the
#    gradient stop, whose minimum they compare; param's default stop is the Newton decrement's at
#    1e-4 of E, the `stop` tests).
# Two converged runs (SNES vs TAO, 1 vs 2 ranks, Cholesky vs CG) must reach the same energy to 1e-10
# relative. Why that holds: near the minimum E - E* ~ g^T H^-1 g / 2 with |g| <= 1e-8 sqrt(area),
# and the last (exact Newton) step takes |g| well below that; measured, the energies agree in all
# 13 printed digits here and on 10k-50k-vertex scans, so 1e-10 leaves room for round-off only.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_real_param_test(<name> <nranks> <check> [<check arguments>] [OPTIONS <program options>])
# (every check but stop and fails with -gatol 1e-8)
function(mfad_real_param_test name nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  set(stop -gatol 1e-8)
  if(check STREQUAL "stop" OR check STREQUAL "fails")
    set(stop)
  endif()
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/real_param.sh ${check} $<TARGET_FILE:param> ${nranks} ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS}
            -- ${ARG_UNPARSED_ARGUMENTS} ${ARG_OPTIONS} ${stop})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 300)
endfunction()

set(_patch ${CMAKE_CURRENT_SOURCE_DIR}/meshes/spot_patch.obj)
set(_jitter ${CMAKE_CURRENT_SOURCE_DIR}/meshes/spot_jitter.obj)
# the defaults, 1 and 2 ranks (MUMPS's Cholesky where PETSc has it; 15 Newton steps on the jitter)
mfad_real_param_test(real_param_patch 1 disk OPTIONS -mesh ${_patch})
mfad_real_param_test(real_param_jitter 1 disk OPTIONS -mesh ${_jitter})
# (several ranks without MUMPS: every rank factors the whole matrix, PCREDUNDANT + PETSc's Cholesky)
mfad_real_param_test(real_param_patch_ranks 2 ranks OPTIONS -mesh ${_patch})
mfad_real_param_test(real_param_jitter_ranks 2 ranks OPTIONS -mesh ${_jitter})
# tests/meshes/sock.obj: Tutte's map squeezes its closed end e^-16-fold; unfolding it took 372 SNES
# steps (TAO: 270) with the abs projection, more than the 200 the defaults once allowed; 129 (TAO 72)
# with -mfad_psd_project clamp (at a minimum of 2,539.33, not abs's 2,537.78). The facts of a converged map only,
# on 1 and 2 ranks and with TAO: over hundreds of steps of a non-convex energy, round-off can end
# the path at another local minimum (2 ranks with PETSc 3.26's redundant Cholesky: 2,543.84 after
# 264 steps against 2,537.78 on 1 rank; with 3.18's, 2,537.78 in 367 steps), so energies are not
# compared here as they are on the patch and the jitter (15 steps)
set(_sock ${CMAKE_CURRENT_SOURCE_DIR}/meshes/sock.obj)
mfad_real_param_test(real_param_sock 1 disk OPTIONS -mesh ${_sock})
mfad_real_param_test(real_param_sock_np2 2 disk OPTIONS -mesh ${_sock})
mfad_real_param_test(real_param_sock_tao 1 disk OPTIONS -mesh ${_sock} -use_tao)
# SNES vs TAO (nls, its More-Thuente line search started short of the first flip) on the same defaults
mfad_real_param_test(real_param_patch_tao 1 agree -use_tao -- OPTIONS -mesh ${_patch})
mfad_real_param_test(real_param_jitter_tao 1 agree -use_tao -- OPTIONS -mesh ${_jitter})
mfad_real_param_test(real_param_jitter_tao_np2 2 agree -use_tao -- OPTIONS -mesh ${_jitter})
# TAO bnls: the step bound wraps any TAO method's line search (before, nls only: bnls, lmvm and
# blmvm ended DIVERGED_LS_FAILURE on the Tutte start, bnls at its first step into a flip; 77 steps on
# PETSc 3.18, where TAO allows 2,000; 3.26 gives bnls 50)
mfad_real_param_test(real_param_jitter_tao_bnls 1 agree -use_tao -tao_type bnls -tao_max_it 500 -- OPTIONS -mesh ${_jitter})
# TAO bqnls (quasi-Newton; it reads the diagonal of the Hessian it was given, if assembled, before
# its first step): runs to an honest reason within 50 steps (before: the automatic Hessian's error
# "MatGetDiagonal before the first point"; it converges slowly, |g| 2e-6 after 2,700 steps)
mfad_real_param_test(real_param_jitter_tao_bqnls 1 fails OPTIONS -mesh ${_jitter} -use_tao -tao_type bqnls -tao_max_it 50)
# another linear solver reaches the same minimum: PETSc's own Cholesky (1 rank; the fallback where
# PETSc has no MUMPS)
mfad_real_param_test(real_param_jitter_petsc_cholesky 1 agree -pc_factor_mat_solver_type petsc -pc_factor_mat_ordering_type nd -- OPTIONS -mesh ${_jitter})
# and the several-rank fallback where PETSc has no MUMPS, given explicitly (2 ranks)
mfad_real_param_test(real_param_jitter_redundant 2 agree -ksp_type preonly -pc_type redundant -redundant_pc_type cholesky
                     -redundant_pc_factor_mat_solver_type petsc -redundant_pc_factor_mat_ordering_type nd -- OPTIONS -mesh ${_jitter})
# projected Newton only (-mfad_psd_switch never): linear convergence, 154 steps measured, ending where
# E's decrease is below its round-off (the line search's round-off allowance takes it to -gatol)
mfad_real_param_test(real_param_jitter_projected 1 agree -mfad_psd_switch never -- OPTIONS -mesh ${_jitter})
# a solve cut short (one Newton step) exits non-zero with the reason on stderr, SNES and TAO
mfad_real_param_test(real_param_fails 1 fails OPTIONS -mesh ${_jitter} -snes_max_it 1)
mfad_real_param_test(real_param_fails_tao 2 fails OPTIONS -mesh ${_jitter} -use_tao -tao_max_it 1)
# param's default stop (the Newton decrement's, -mfad_decrement_rtol 1e-4) against the gradient stop
# (-gatol 1e-8, the minimum): a converged, flip-free map above the minimum and within 1e-3 of it
# (measured: 1.8e-5 on the patch, 7e-8 on the jitter; on TinyAD-Examples' bunny_cut and
# armadillo_cut_low 7.6e-4 and 2.0e-4, where TinyAD's own stop leaves 1.1e-3 and 4.8e-4), in fewer
# Newton steps (9 against 13, 11 against 14); SNES, TAO, 2 ranks
mfad_real_param_test(real_param_patch_stop 1 stop OPTIONS -mesh ${_patch})
mfad_real_param_test(real_param_jitter_stop_tao 1 stop OPTIONS -mesh ${_jitter} -use_tao)
mfad_real_param_test(real_param_jitter_stop_np2 2 stop OPTIONS -mesh ${_jitter})
