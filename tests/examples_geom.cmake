# SPDX-License-Identifier: BSD-2-Clause
# The geometry examples (petsc-examples/param, smooth, arap) run small and checked on their summary
# lines by tests/example_geom.sh. Each run takes well under a second.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_geom_test(<name> <program> <nranks> <check> [<check arguments>] [OPTIONS <program options>])
function(mfad_geom_test name prog nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/example_geom.sh ${check} $<TARGET_FILE:${prog}> ${nranks} ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS}
            -- ${ARG_UNPARSED_ARGUMENTS} ${ARG_OPTIONS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 300)
endfunction()

# param. Symmetric Dirichlet of a triangle is A (s1^2 + s2^2 + s1^-2 + s2^-2) >= 4 A (x^2 + x^-2 >= 2),
# equal only for an isometry (s1 = s2 = 1). A flat mesh has an isometric parameterisation (itself),
# so with a free boundary the minimum is exactly 4 x area, area 4 for the square [-1, 1]^2, every
# triangle's s1/s2 = 1 (checked to 1e-4: s1/s2 - 1 is first order in the solution's error, ~1e-8).
# Newton ends at |grad E| <= 1e-8 |grad E_0|, so E - E* is second order in that: 4e-8 relative is
# generous. Iterations: 8 measured from the Tutte embedding (distortion s1/s2 ~ 5); 20 allows for
# other solvers; a wrong Hessian makes Newton linear, well beyond 20.
mfad_geom_test(example_param_plane param 1 plane OPTIONS -n 8 -surface plane)
mfad_geom_test(example_param_plane_np2 param 2 plane OPTIONS -n 8 -surface plane)
mfad_geom_test(example_param_plane_tao param 1 plane OPTIONS -n 8 -surface plane -use_tao)
# a curved surface (spherical cap, Gaussian bump): energy above the isometric bound, no flipped
# triangle (the +inf barrier and the backtracking line search), also with an added log barrier
mfad_geom_test(example_param_cap param 1 curved OPTIONS -n 12 -surface cap)
mfad_geom_test(example_param_hat_barrier param 2 curved OPTIONS -n 12 -surface hat -barrier 0.01)
# 1 and 2 ranks reach the same minimiser: energies to 1e-9 (both end at |g| <= 1e-8 |g0|; the energy
# error is quadratic in that, plus summation round-off)
mfad_geom_test(example_param_ranks param 2 ranks energy OPTIONS -n 12 -surface cap)

# arap. (a) Both handles moved by one rigid motion: the rigidly moved rest shape has every J a
# rotation, so E = 0, its global minimum; Newton must find it (rigid_deviation: distance of each
# vertex from that shape; both to round-off). (b) The right end moved by dx = 1 along a bar of
# length 4: the uniaxial stretch J = diag(1.25, 1) in every triangle is stationary (its stress
# 2A (J - R) = diag(0.5 A, 0) is uniform, and has no traction on the free long sides), the handles
# agree with it, and E = area (s - 1)^2 = 4 x 0.0625 (s1 = 1.25, s2 = 1 in arap_tri's formula).
mfad_geom_test(example_arap_rigid arap 1 rigid OPTIONS -handles rigid -angle 60 -dx 1 -dy 2)
mfad_geom_test(example_arap_rigid_np2 arap 2 rigid OPTIONS -handles rigid -angle -30 -dx 0.5 -dy -1)
mfad_geom_test(example_arap_stretch arap 1 stretch 1.25 OPTIONS -handles stretch -dx 1)
# (c) the default bend (a quarter circle): 1 and 2 ranks agree (as for param); 11 iterations
# measured, 30 allowed
mfad_geom_test(example_arap_ranks arap 2 ranks energy OPTIONS -nx 16 -ny 4)

# smooth. (a) Without fidelity the result minimises the Dirichlet energy with the boundary fixed:
# with the cotangents fixed (the noisy input's), the energy is a sum of one quadratic form per
# coordinate, so the heights are the discrete harmonic extension of the boundary heights, 0 for a
# plane: z = 0 everywhere, to the linear solve's 1e-10 relative tolerance (noise 0.03: 1e-8 bound).
mfad_geom_test(example_smooth_harmonic smooth 1 harmonic OPTIONS -n 16 -surface plane -fidelity 0)
mfad_geom_test(example_smooth_harmonic_np2 smooth 2 harmonic OPTIONS -n 16 -surface plane -fidelity 0)
# (b) With fidelity, z solves (M + lambda L) z = M z0 (L positive semi-definite, boundary rows 0):
# z^T M z + lambda z^T L z = z^T M z0 <= |z|_M |z0|_M, so |z|_M <= |z0|_M, strictly unless L z = 0;
# rms_before/after are exactly those M-norms (lumped masses) over the total mass.
mfad_geom_test(example_smooth_contract smooth 1 contract OPTIONS -n 16 -surface plane)
mfad_geom_test(example_smooth_ranks smooth 2 ranks rms_after OPTIONS -n 16)
# param from a file: the OBJ cap of petsc-examples/meshes/cap.obj (a polar grid, valence 24 at the
# pole; scripts/make-cap-obj.sh), read on every rank, 2 ranks
mfad_geom_test(example_param_obj param 2 curved OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj)
# The exact Hessians (fused shell products, no PSD projection) against PETSc's finite-difference
# Jacobian of the gradient at every Newton step, with the examples' fixed dofs: ARAP (2 ranks),
# symmetric Dirichlet on a cap (MINRES: unprojected, it may be indefinite), the smoothing quadratic.
# PETSc's one-sided difference with its default step has truncation error ~1e-8 to 1e-6 relative to |J|
# (measured: arap 1e-8, param 3e-7, smooth 4e-10); 1e-5 separates it from a wrong Hessian (the
# PSD-projected one of param fails it at 8e-2).
mfad_geom_test(example_arap_test_jacobian arap 2 jacobian OPTIONS -nx 4 -ny 2 -mfad_hessian shell -mfad_psd_project none)
mfad_geom_test(example_param_test_jacobian param 1 jacobian OPTIONS -n 3 -surface cap -mfad_hessian shell -mfad_psd_project none -ksp_type minres)
mfad_geom_test(example_smooth_test_jacobian smooth 1 jacobian OPTIONS -n 4)

# sphere (spherical parameterisation of a closed genus-0 surface).
# (a) The sum of the signed solid angles of a closed oriented surface's triangles seen from the
# origin is 4 pi times the map's degree (Gauss), whatever the solver did; with no flipped triangle
# a map of a sphere onto the sphere covers it exactly once, so covered_area = 1 up to the round-off
# of ~10^3 atan2 terms (~1e-13): 1e-10. (b) Every step ends with the retraction y / |y| (and the
# fixed vertices lie on the sphere exactly), so | |y| - 1 | is a few ulps: 1e-12. energy_per_area
# >= 4 because x + 1/x >= 2 for each squared singular value. Iterations: 19 measured (default
# ellipsoid, Newton-CG with the exact Hessian), 3 for the cube; 30 and 10 allowed.
mfad_geom_test(example_sphere sphere 1 sphere 30)
mfad_geom_test(example_sphere_np2 sphere 2 sphere 30)
mfad_geom_test(example_sphere_cube sphere 1 sphere 10 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj)
mfad_geom_test(example_sphere_cube_np2 sphere 2 sphere 10 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj)
mfad_geom_test(example_sphere_bumpy_np2 sphere 2 sphere 40 OPTIONS -shape bumpy)
# (c) A round sphere mesh (vertices on the unit sphere) is its own radial projection, and its rest
# copy is scaled to its own chord area (factor 1): every triangle's map is a rotation, where
# |J|^2 + |J^+|^2 = 4, the global minimum of the distortion (x + 1/x >= 2 per squared singular
# value). Without the barrier (whose gradient is not zero there) the start is the minimiser: the
# energy is 4 x area to round-off (1e-12 relative) and no vertex moves (the gradient is round-off,
# ~1e-15, so Newton's step is of that size: 1e-12).
mfad_geom_test(example_sphere_round sphere 1 sphere_round OPTIONS -shape sphere -barrier 0)
mfad_geom_test(example_sphere_round_np2 sphere 2 sphere_round OPTIONS -shape sphere -barrier 0 -n 5)
# (d) 1 and 2 ranks reach the same minimiser: energies to 1e-9 (both end at |g| <= 1e-8 |g0|)
mfad_geom_test(example_sphere_ranks sphere 2 ranks energy)
# The constraint by retraction does not bias the minimiser: TAO's trust region without any
# retraction (the radial penalty alone holds |y| = 1, its only minimum) ends at the same energy
# (1e-9: both converged, the energy error is second order in |g|). Its |y| - 1 is first order: the
# radial part of the gradient at vertex v is 4 k_v (|y|^2 - 1) |y| ~ 8 k_v (|y| - 1), k_v >= 0.0139
# (the smallest third of a vertex's rest triangle areas on the default mesh), and TAO stops at
# |g| <= grtol |f| = 1e-8 x 52 (PETSc 3.26; gatol 1e-8 with 3.18): | |y| - 1 | <= 5.2e-7 / 0.11
# = 4.7e-6, checked <= 1e-5 (measured 5e-12 with 3.18, 2.9e-8 with 3.26).
mfad_geom_test(example_sphere_tao sphere 1 sphere_tao)
# (e) The exact Hessian (fused shell products) against PETSc's finite-difference Jacobian of the
# gradient at every Newton step, barrier and fixed dofs included, 2 ranks (measured 6e-8 to 1e-7,
# the one-sided difference's truncation; 1e-5 as for the other examples).
mfad_geom_test(example_sphere_test_jacobian sphere 2 jacobian OPTIONS -n 2 -mfad_hessian shell)
# Bad input is refused with a message: a surface that is not star-shaped about its vertex centroid
# (the radial projection would flip triangles: tests/meshes/cube_dent.off), and an open one.
mfad_geom_test(example_sphere_not_star_shaped sphere 1 sphere_refused "is not star-shaped about its vertex centroid" OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube_dent.off)
mfad_geom_test(example_sphere_open_mesh sphere 1 sphere_refused "a closed surface is needed" OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj)
