# SPDX-License-Identifier: BSD-2-Clause
# Example runs: petsc-examples/elastic under mpiexec, checked by tests/example_elastic.sh on the
# physical quantities of its summary line (see that script for each check). A run takes ~1 s.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_example_test(<name> <nranks> <check> [<check arguments>] [OPTIONS <program options>])
# One OpenMP thread per rank: these tests check solvers and physics, not threading (the unit tests
# do), and spinning OpenMP threads of several ranks on a 2-core machine slow a run 100-fold.
function(mfad_example_test name nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_elastic.sh ${check} $<TARGET_FILE:elastic> ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS}
            -- ${ARG_UNPARSED_ARGUMENTS} -- ${ARG_OPTIONS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks}
                                          TIMEOUT 300)
endfunction()

# Iteration bound. The default bar (4 x 4 x 16 cubes of 5 mm, E = 1e5 Pa, rho = 1000) sags by 1/6
# of its length: a geometrically nonlinear problem. Newton from the rest shape needs a few damped
# steps before it enters the region of quadratic convergence, then about 3 full steps to round-off
# (measured: newtonls 7 steps, TAO nls 6). 20 leaves room for another Newton-like path (trust
# region, other Krylov method or preconditioner); a wrong Hessian product makes Newton linearly
# convergent or stagnant, which needs many more steps or fails (SNES's limit is 50).
set(MFAD_ELASTIC_MAXITS 20)

# (a) newtonls + CG + Jacobi (the shell's diagonal), 1 rank; (b) the same on 2 ranks
mfad_example_test(example_elastic_cg 1 solve 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_type newtonls -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_cg_np2 2 solve 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_type newtonls -ksp_type cg -pc_type jacobi)
# (c) TAO's Newton line search with the shell as Hessian
mfad_example_test(example_elastic_tao_nls 1 solve 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -use_tao -tao_type nls)
# (d) trust-region Newton. PETSc 3.18's newtontr measures progress by |F| = |grad E|, not by the
#     energy; on the soft default bar |F| grows along any useful step (|J s| >> |F|: stiff elastic
#     modes), the radius collapses and it crawls (or stops on a tiny step: hence the residual check).
#     A 100 times stiffer bar (sag 1/600 of its length) is nearly linear: full Newton steps pass.
mfad_example_test(example_elastic_newtontr 1 solve 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_type newtontr -E 1e7)
# (e) point-block Jacobi (the shell's inverted 3 x 3 vertex blocks), 2 ranks
mfad_example_test(example_elastic_pbjacobi 2 solve 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_type newtonls -ksp_type cg -pc_type pbjacobi)
# (f) the shell Hessian against PETSc's finite-difference Jacobian of the gradient at every Newton
#     step, on a tiny bar (1 x 1 x 2 cubes, 36 dofs)
mfad_example_test(example_elastic_test_jacobian 1 jacobian OPTIONS -n 1 -m 2 -snes_type newtonls -ksp_type cg -pc_type jacobi)
#     and TAO's -tao_test_hessian likewise (1e-5: FD error ~2e-6 measured, as for the Jacobian); a
#     named KSP keeps the exact Hessian (the statics defaults would PSD-project it)
mfad_example_test(example_elastic_tao_test_hessian 1 hessian OPTIONS -n 1 -m 2 -tao_nls_ksp_type cg)
# (g) 1, 2 and 3 ranks (3 cuts the vertex slabs inside a cross-section) reach the same energy;
# (h) SNES (newtonls) and TAO (nls) reach the same energy.
#     Tolerance 1e-10 relative: each run ends with |g| = |grad E| <= 1e-6 |g0| = 1.7e-8 (checked), and
#     near the minimiser E(x) - E* <= |g|^2 / (2 lambda_min) with lambda_min = 0.079 (CG's Lanczos
#     estimate of the Hessian there, unpreconditioned), i.e. <= 1.8e-15 = 2e-12 |E*| (|E*| = 8.1e-4);
#     summation order (ranks) adds round-off ~1e-14. The tip displacement is first order in the
#     solution's error |x - x*| <= |g| / lambda_min = 2e-7 m = 2e-5 of it: tolerance 1e-4.
mfad_example_test(example_elastic_ranks 3 ranks ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_type newtonls -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_snes_vs_tao 1 tao ${MFAD_ELASTIC_MAXITS} OPTIONS -ksp_type cg -pc_type jacobi)
# (i) physics in the linear regime (E = 1e8: tip deflection 1.6e-4 of the length): Clapeyron's
#     U = W / 2 to 1e-3 and Euler-Bernoulli's deflection within [0.7, 1.1] (see the script)
mfad_example_test(example_elastic_linear 1 linear ${MFAD_ELASTIC_MAXITS} 4 16 0.005 1e8 1000 -9.81 OPTIONS -ksp_type cg -pc_type jacobi)
# (j) -o writes a complete VTK file (2 ranks: gathered on rank 0), atomically
mfad_example_test(example_elastic_vtu 2 vtu OPTIONS -n 2 -m 4)
# (k) invalid elements: at 200 g, full Newton steps invert tets (E = +inf, a SNES domain error); with
#     the example's statics defaults (projected, then exact where definite; Cholesky) the backtracking
#     line search cuts those steps, and the solve reaches TAO ntr's minimiser (measured 22 steps; 2
#     and 3 ranks 22-23).
#     Energies agree to 1e-10 by the argument of (g)-(h). (Newton-MINRES on the exact Hessian, once
#     tested here, is not always a descent direction: it failed 1 run in 30 when the automatic form's
#     timing-dependent choices changed its round-off.)
mfad_example_test(example_elastic_domain 1 domain 50 1 OPTIONS -g -2000)
#     and on 2 ranks: MUMPS, or without it every rank factoring the whole matrix (PCREDUNDANT)
mfad_example_test(example_elastic_domain_np2 2 domain 50 2 OPTIONS -g -2000)
# (l) the Hessian forms (-mfad_hessian, -mfad_pmat) reach the fused shell's minimiser: the cached
#     element Hessians with point-block Jacobi from them (2 ranks); the shell operator with an
#     assembled preconditioning matrix and algebraic multigrid (2 ranks); the assembled Hessian
#     factored by Cholesky (1 rank: PETSc's own Cholesky is sequential), also as sbaij; and TAO
#     with the cached form. Energies to 1e-10 by the argument of (g)-(h).
mfad_example_test(example_elastic_cached_pbjacobi 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian cached -ksp_type cg -pc_type pbjacobi)
mfad_example_test(example_elastic_shell_aij_gamg 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian shell -mfad_pmat aij -ksp_type cg -pc_type gamg)
mfad_example_test(example_elastic_aij_cholesky 1 forms 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian aij -ksp_type preonly -pc_type cholesky)
mfad_example_test(example_elastic_sbaij_cholesky 1 forms 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian aij -mat_type sbaij -ksp_type preonly -pc_type cholesky)
mfad_example_test(example_elastic_tao_cached 1 forms 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -use_tao -tao_type nls -mfad_hessian cached -tao_nls_ksp_type cg -tao_nls_pc_type jacobi)
# (l') -mfad_hessian auto (the examples' default) reaches the same minimiser on 2 ranks, whichever
#     forms it holds per step and switches to within a step: with Jacobi, point-block Jacobi (its
#     blocks from the form it holds), projected-then-exact steps (never the fused form while
#     projected) and TAO; and the assembled aij with point-block Jacobi on 2 ranks (PETSc 3.18's
#     MPIAIJ COO preallocation gave its diagonal block block size 1: 1 x 1 blocks inverted)
mfad_example_test(example_elastic_auto_np2 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian auto -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_auto_pbjacobi_np2 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian auto -ksp_type cg -pc_type pbjacobi)
mfad_example_test(example_elastic_auto_psd_steps_np2 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian auto -mfad_psd_project abs -mfad_psd_project_steps 2 -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_auto_tao_np2 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -use_tao -tao_type nls -mfad_hessian auto -tao_nls_ksp_type cg -tao_nls_pc_type jacobi)
mfad_example_test(example_elastic_aij_pbjacobi_np2 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_hessian aij -ksp_type cg -pc_type pbjacobi)
# (m) a PSD-projected assembled preconditioner under the exact shell operator: same minimiser
mfad_example_test(example_elastic_psd_pmat 1 forms 1 ${MFAD_ELASTIC_MAXITS} OPTIONS -mfad_pmat aij -mfad_psd_project clamp -ksp_type cg -pc_type gamg)
# (n) -snes_mf_operator: PETSc's finite-difference operator with mfad's assembled Hessian as the
#     preconditioning matrix (2 ranks); the FD products stall near |grad E| ~ 1e-7 |g0| (round-off
#     in the differences), still inside the checks' 1e-5 and the energy's 1e-10 of (g)-(h)
mfad_example_test(example_elastic_mf_operator 2 forms 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -snes_mf_operator -mfad_hessian aij -ksp_type cg -pc_type gamg)
# (o) materials (-material): in the linear regime every hyperelastic model is linear elasticity with
#     the same Lame constants, so the checks of (i) hold for each
foreach(mat stable_neohookean stvk corotated)
  mfad_example_test(example_elastic_linear_${mat} 1 linear ${MFAD_ELASTIC_MAXITS} 4 16 0.005 1e8 1000 -9.81 OPTIONS -material ${mat} -ksp_type cg -pc_type jacobi)
endforeach()
# (p) implicit-Euler dynamics (-ts_steps, -dt): an unclamped bar falls freely (1 and 2 ranks, and a
#     large step that also deforms nothing); a stiff clamped bar loses energy and settles on the static
#     solution (see the script for both arguments). Iteration bound: a step from the prediction
#     x_n + dt v_n is closer to its minimiser than statics from rest: 20 as in (a)
mfad_example_test(example_elastic_freefall 1 freefall 2 ${MFAD_ELASTIC_MAXITS} 5 0.01 -9.81 OPTIONS -n 2 -m 6)
mfad_example_test(example_elastic_freefall_np2 2 freefall 2 ${MFAD_ELASTIC_MAXITS} 4 0.05 -9.81 OPTIONS -n 2 -m 6 -material stable_neohookean)
mfad_example_test(example_elastic_settle 1 settle ${MFAD_ELASTIC_MAXITS} 6 OPTIONS -n 2 -m 8)
mfad_example_test(example_elastic_dynamics_np2 2 solve 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -n 2 -m 8 -ts_steps 5 -material corotated)
# (p) -mesh: a read TetGen mesh (two unit cubes stacked along z, tests/meshes/twocubes.poly), DMPlex
#     distributed, clamped at x = 0: 1 vs 2 ranks, Clapeyron in the linear regime (E = 1e10: the
#     sag ~1e-6 m of a 1 m body), dynamics on 2 ranks; the Gmsh box on 2 ranks; a missing file
set(MFAD_TWOCUBES ${CMAKE_CURRENT_SOURCE_DIR}/meshes/twocubes.1.node)
mfad_example_test(example_elastic_mesh_ranks 2 mesh ${MFAD_ELASTIC_MAXITS} OPTIONS -mesh ${MFAD_TWOCUBES} -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_mesh_linear_np2 2 clapeyron 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mesh ${MFAD_TWOCUBES} -E 1e10 -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_mesh_dynamics_np2 2 solve 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mesh ${MFAD_TWOCUBES} -ts_steps 3 -dt 0.05)
mfad_example_test(example_elastic_mesh_gmsh_np2 2 solve 2 ${MFAD_ELASTIC_MAXITS} OPTIONS -mesh ${CMAKE_CURRENT_SOURCE_DIR}/meshes/box_tets.msh -ksp_type cg -pc_type jacobi)
mfad_example_test(example_elastic_mesh_missing 1 badmesh)
# the same two cubes in millimetres: -mesh_scale 0.001 (E 100 Pa against 1e5) scales the solution
mfad_example_test(example_elastic_mesh_scale 1 scale ${MFAD_ELASTIC_MAXITS} 0.001 1e5 OPTIONS -mesh ${MFAD_TWOCUBES})
# -mfad_monitor (shell/monitor.c): a line per Newton step with the form and projection it used, on
# the bar's defaults (assembled, projected, factored with inertia: -mfad_psd_switch auto takes exact
# steps once they pay), SNES and TAO; and the solve still converges (exit 0)
foreach(solver snes tao)
  set(opt)
  if(solver STREQUAL "tao")
    set(opt -use_tao)
  endif()
  add_test(NAME example_elastic_monitor_${solver}
    COMMAND sh -c "\"$0\" -mfad_monitor $1 </dev/null >\"$2\" 2>&1; rc=$?; cat \"$2\"; [ $rc -eq 0 ] &&
                   grep -q '^mfad: step 1 energy [-+.e0-9]* |g| [-+.e0-9]* hessian [a-z]*aij projection [ac][a-z]* ksp 1 time' \"$2\" &&
                   grep -q '^mfad: step [0-9]* energy [-+.e0-9]* |g| [-+.e0-9]* hessian [a-z]*aij projection none (exact) ksp 1 time' \"$2\""
            $<TARGET_FILE:elastic> "${opt}" ${CMAKE_CURRENT_BINARY_DIR}/example_elastic_monitor_${solver}.out)
  set_tests_properties(example_elastic_monitor_${solver} PROPERTIES ENVIRONMENT "OMP_NUM_THREADS=1" LABELS "example" TIMEOUT 300)
endforeach()
