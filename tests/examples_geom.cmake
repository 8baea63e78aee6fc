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
# Newton ends at |grad E| <= 1e-8 sqrt(area) (-gatol 1e-8, given: param's gradient stop; its default is
# the Newton decrement's, tests/real_param.cmake's stop tests), so E - E* is second order in that: 4e-8 relative is generous. Iterations: 8 measured from the Tutte embedding (distortion s1/s2 ~ 5); 20 allows for
# other solvers; a wrong Hessian makes Newton linear, well beyond 20.
mfad_geom_test(example_param_plane param 1 plane OPTIONS -n 8 -surface plane -gatol 1e-8)
mfad_geom_test(example_param_plane_np2 param 2 plane OPTIONS -n 8 -surface plane -gatol 1e-8)
mfad_geom_test(example_param_plane_tao param 1 plane OPTIONS -n 8 -surface plane -use_tao -gatol 1e-8)
# a curved surface (spherical cap, Gaussian bump): energy above the isometric bound, no flipped
# triangle (the +inf barrier and the backtracking line search), also with an added log barrier
mfad_geom_test(example_param_cap param 1 curved OPTIONS -n 12 -surface cap)
mfad_geom_test(example_param_hat_barrier param 2 curved OPTIONS -n 12 -surface hat -barrier 0.01)
# 1 and 2 ranks reach the same minimiser: energies to 1e-9 (both end at |g| <= 1e-8 sqrt(area), -gatol; the
# energy error is quadratic in that, plus summation round-off)
mfad_geom_test(example_param_ranks param 2 ranks energy OPTIONS -n 12 -surface cap -gatol 1e-8)

# arap. (a) Both handles moved by one rigid motion: the rigidly moved rest shape has every J a
# rotation, so E = 0, its global minimum; Newton must find it (rigid_deviation: distance of each
# vertex from that shape; both to round-off). (b) The right end moved by dx = 1 along a bar of
# length 4: the uniaxial stretch J = diag(1.25, 1) in every triangle is stationary (its stress
# 2A (J - R) = diag(0.5 A, 0) is uniform, and has no traction on the free long sides), the handles
# agree with it, and E = area (s - 1)^2 = 4 x 0.0625 (s1 = 1.25, s2 = 1 in arap_tri's formula).
mfad_geom_test(example_arap_rigid arap 1 rigid OPTIONS -handles rigid -angle 60 -dx 1 -dy 2)
# -snes_rtol 1e-10: the check asks rigid_deviation <= 1e-8, and SNES's default rtol 1e-8 stops at an
# absolute residual of 1.5e-7 here (deviation ~4e-8), one Newton step short of it whenever round-off
# puts step 6 just under the threshold (it did once the energy ran at its features)
mfad_geom_test(example_arap_rigid_np2 arap 2 rigid OPTIONS -handles rigid -angle -30 -dx 0.5 -dy -1 -snes_rtol 1e-10)
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
# smooth -order 2 (bilaplacian): F = lambda B + fidelity term, B = 1/2 sum_{v interior} |(L x)_v|^2 / m_v.
# (a) -fidelity 0 on a plane: B >= 0 and B = 0 iff (L z)_v = 0 at every interior v; L restricted to
# interior rows and columns is positive definite (the Dirichlet energy of a non-constant piecewise
# linear function vanishing on the boundary is positive), so with z = 0 on the boundary z = 0 is the
# only minimiser (per coordinate: z decouples from x, y). One Newton step solves it: with CG (shell,
# Jacobi) to an unpreconditioned relative residual of 1e-13, the step's relative error is below
# kappa x 1e-13 ~ 1e-9 (kappa ~ 1.2e4 at n = 16: the Lanczos estimate of -ksp_monitor_singular_value),
# times |z0| <= 0.03 sqrt(3 x 289): far below 1e-8; on 2 ranks the assembled form (L W L by PETSc's
# products) with a direct solve, to round-off.
mfad_geom_test(example_smooth_bilap_plane smooth 1 harmonic OPTIONS -order 2 -n 16 -surface plane -fidelity 0 -ksp_rtol 1e-13 -ksp_norm_type unpreconditioned)
mfad_geom_test(example_smooth_bilap_plane_np2 smooth 2 harmonic OPTIONS -order 2 -n 16 -surface plane -fidelity 0 -bilap_hessian aij -pc_type redundant -redundant_pc_type cholesky)
# (b) -fidelity 0 on curved surfaces: min B = 0 is reached where (L x)_v = 0 at every interior v,
# which is the harmonic extension of the boundary that order 1 finds (the minimiser of D, whose
# gradient is L x): the same surface, so the same rms_after to 1e-8 relative (both orders by direct
# solves, to round-off; on 2 ranks by CG at 1e-13, as in (a)).
mfad_geom_test(example_smooth_bilap_harmonic smooth 1 orders OPTIONS -n 16 -surface hat -fidelity 0 -mfad_hessian aij -bilap_hessian aij -pc_type cholesky)
mfad_geom_test(example_smooth_bilap_harmonic_np2 smooth 2 orders OPTIONS -n 16 -surface cap -fidelity 0 -ksp_rtol 1e-13 -ksp_norm_type unpreconditioned)
# (c) the composite Hessian lambda Z L W L Z + fidelity against PETSc's finite differences, shell
# (1 rank) and assembled (2 ranks); -lambda 1 so that L W L dominates the fixed rows' identity (a
# Hessian missing the column mask Z fails at 0.19); quadratic, so the FD error is round-off (5e-10 seen).
# No noise: a derivative test, not a smoothing one (so much smoothing of a 4 x 4 grid ends farther
# from the clean surface than the noise, which exits 1)
mfad_geom_test(example_smooth_bilap_test_jacobian smooth 1 jacobian OPTIONS -order 2 -n 4 -surface cap -lambda 1 -noise 0)
mfad_geom_test(example_smooth_bilap_test_jacobian_np2 smooth 2 jacobian OPTIONS -order 2 -n 4 -surface cap -lambda 1 -noise 0 -bilap_hessian aij -pc_type none)
# (d) with fidelity, z solves (M + lambda Q) z = M z0, Q = Z L W L Z positive semi-definite: the
# argument of (b) above for order 1 holds with Q for L, so rms_after < rms_before; SNES and TAO
mfad_geom_test(example_smooth_bilap_contract smooth 1 contract OPTIONS -order 2 -n 16 -surface plane)
mfad_geom_test(example_smooth_bilap_contract_tao smooth 1 contract OPTIONS -order 2 -n 16 -surface plane -use_tao)
# (e) 1 rank vs 2 ranks, order 2 (rtol 1e-13 as in (a): both solutions within 1e-9 of the exact one)
mfad_geom_test(example_smooth_bilap_ranks smooth 2 ranks rms_after OPTIONS -order 2 -n 16 -ksp_rtol 1e-13 -ksp_norm_type unpreconditioned)
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
mfad_geom_test(example_smooth_test_jacobian smooth 1 jacobian OPTIONS -n 4 -noise 0) # no noise: as (c)

# arap_surface (3-D surfaces, rotations as unknowns). (a) Both handles moved by one rigid motion
# (turn about a skew axis plus a move): x = Q xbar + t with every cell's rotation Q makes every
# term 0, the global minimum (E >= 0: the tube's triangles are right-angled, all cotangent
# weights >= 0), and the only one with these handles. Newton must reach it: energy, distance of
# each vertex from the moved rest shape and |R - Q|_F to round-off of its stopping test (measured
# 1e-15 with -snes_rtol 1e-14), edge lengths unchanged. Also on a read OBJ surface, 2 ranks.
mfad_geom_test(example_arap_surface_rigid arap_surface 1 surface_rigid OPTIONS -nx 12 -nt 8 -handles rigid -angle 60 -axis 1,1,1 -dx 1 -dy 2 -dz 3 -snes_rtol 1e-14)
mfad_geom_test(example_arap_surface_rigid_np2 arap_surface 2 surface_rigid OPTIONS -nx 12 -nt 8 -handles rigid -angle -70 -axis 0,1,0 -dx 1 -snes_rtol 1e-14)
mfad_geom_test(example_arap_surface_rigid_tao arap_surface 1 surface_rigid OPTIONS -nx 12 -nt 8 -handles rigid -angle 60 -axis 1,1,1 -dx 1 -use_tao -tao_gatol 1e-13)
# a closed Gmsh sphere read through DMPlex (obtuse triangles: some cotangent weights negative; 12 iterations measured)
mfad_geom_test(example_arap_surface_rigid_msh arap_surface 2 surface_rigid OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/sphere_tris.msh -handles rigid -angle 30 -axis 1,2,3 -dz 1 -snes_rtol 1e-14)
mfad_geom_test(example_arap_surface_rigid_obj arap_surface 2 surface_rigid OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj -handles rigid -angle 45 -axis 1,0,1 -snes_rtol 1e-14)
# a turn past 180 degrees: a Gibbs vector cannot reach it (the Cayley map is singular at pi; with
# -rechart 0: DIVERGED_MAX_IT at E = 1.85), the moving chart R(u) R0 can (35 iterations in 5 load steps)
mfad_geom_test(example_arap_surface_rigid_turn arap_surface 2 surface_rigid_turn OPTIONS -nx 12 -nt 8 -handles rigid -angle 200 -axis 1,2,3 -dx 1 -snes_rtol 1e-14)
# (b) An independent reference: Sorkine & Alexa's local-global algorithm, written in the example
# from the paper (Horn's closed-form best rotation, a sparse LU solve of the cotangent Laplacian
# system), no mfad derivatives. Its fixed points are the stationary points of the same energy, so
# from the same start both must end at the same surface (a bend and a twist of a small tube;
# measured: energies equal to 13 digits, vertices 8e-13 apart with -snes_rtol 1e-14).
# Local-global takes 180 and 404 iterations, Newton 13 and 12.
mfad_geom_test(example_arap_surface_local_global arap_surface 1 local_global OPTIONS -nx 8 -nt 8 -angle 30 -local_global 5000 -snes_rtol 1e-14)
mfad_geom_test(example_arap_surface_local_global_twist arap_surface 1 local_global OPTIONS -nx 8 -nt 8 -handles twist -angle 45 -local_global 5000 -snes_rtol 1e-14)
# (c) 1 and 2 ranks agree: at 45 degrees, and on the default 90-degree bend (which has several
# minima, wrinkles on the inner side: both reach the same one, 15 iterations measured over the 2
# load steps, 30 allowed); projected-only Newton (-mfad_psd_project_steps -1, 50 iterations) ends at
# the same energy as the default Newton-CG (15). (d) the exact Hessian (fused
# shell, no projection) against PETSc's finite differences, 2 ranks (measured 2.7e-8).
mfad_geom_test(example_arap_surface_ranks arap_surface 2 ranks energy OPTIONS -nx 12 -nt 8 -angle 45)
mfad_geom_test(example_arap_surface_bend_ranks arap_surface 2 ranks energy)
mfad_geom_test(example_arap_surface_projected_only arap_surface 1 same_energy OPTIONS -mfad_psd_project_steps -1 -snes_max_it 200)
# (one Newton step per load step, -snes_type ksponly: three Jacobians tested at three points, and
# the run ends converged, as arap_surface exits non-zero after a solve that did not converge)
mfad_geom_test(example_arap_surface_test_jacobian arap_surface 2 jacobian OPTIONS -nx 4 -nt 4 -angle 30 -mfad_hessian shell -mfad_psd_project none -ksp_type minres -pc_type none -snes_type ksponly -load_steps 3)
# (e) -o writes the triangles and their vertices only: the rotation nodes are unknowns, not points
mfad_geom_test(example_arap_surface_vtu arap_surface 2 vtu OPTIONS -nx 6 -nt 5 -handles twist -angle 20)
# frames (n-RoSy fields on faces, frame_field energy). (a) A flat square, boundary-aligned 4-RoSy: the
# boundary edges run along x or y, so the constant field (x and y directions, u = 1 relative to an
# axis) is admissible and parallel (r u_f = u_g across every edge of a plane), energy 0, the
# minimum of a sum of squares; no singularities. SNES stops at |g| <= 1e-8 |g0|, |g0|^2 ~ 4 x 32
# boundary faces; E - E* = 1/2 g^T H^-1 g <= |g|^2 / (2 mu_min) with mu_min ~ 0.1 on this grid:
# ~1e-13, so 1e-10 is a safe bound for "0" (a wrong transport leaves E = O(1)). Quadratic: one
# Newton step with CG to 1e-10, so 1 iteration; 3 allowed.
mfad_geom_test(example_frames_square frames 1 frames_zero OPTIONS -grid 8 -surface plane)
mfad_geom_test(example_frames_square_np2 frames 2 frames_zero OPTIONS -grid 8 -surface plane)
mfad_geom_test(example_frames_square_tao frames 1 frames_zero OPTIONS -grid 8 -surface plane -use_tao)
# (b) Poincare-Hopf. The singularity index of a vertex is (sum of the field's mismatches around its
# one-ring / n + angle defect) / 2 pi (framesurface.h); summed over a closed surface the mismatches
# cancel edge by edge and the defects sum to 2 pi chi (discrete Gauss-Bonnet), so the indices sum to
# chi = 2 for a topological sphere, whatever the field -- given a transport consistent with the
# defects (else the indices are not multiples of 1/n and the program stops). The cube of
# tests/meshes/cube.obj (8 vertices, 18 edges, 12 faces: chi = 2) has a parallel 4-RoSy, the field
# along its edges (each face flat, each corner's holonomy pi/2 invisible to a 4-RoSy, the surface
# simply connected), so the globally optimal field has energy 0 (eigenvalue 0: the shift keeps
# H + shift M definite), no mismatch, and index defect / 2 pi = (pi/2) / 2 pi = 1/4 at each of the
# 8 corners. Energy 0 to 1e-12 (round-off of 12 faces' transport, |u|^2 ~ 1). Inverse iteration
# with a zero eigenvalue and a 1e-8 shift converges in 1-2 steps; 5 allowed.
mfad_geom_test(example_frames_cube frames 1 frames_closed 2 8 1e-12 5 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj)
mfad_geom_test(example_frames_cube_aij frames 2 frames_closed 2 8 1e-12 5 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj -mfad_hessian aij)
# the Gmsh sphere (unstructured, 2 ranks): the indices sum to chi = 2, whatever the field. No parallel
# field exists (the sphere is curved everywhere), so no energy or count is asserted. The round
# sphere's smallest eigenvalue is 9-fold (spin-4 harmonics of degree 4) and the mesh splits it only
# slightly, so inverse iteration crawls to a tight residual (5e-6 after 500 steps): a 1e-4 residual
# (reached in 5 steps) is enough for the field's indices; 20 allowed.
mfad_geom_test(example_frames_sphere frames 2 frames_closed 2 -1 -1 20 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/sphere_tris.msh -power_rtol 1e-4)
# n = 1, a vector field on the sphere: the hairy ball theorem, integer indices summing to 2
mfad_geom_test(example_frames_sphere_n1 frames 1 frames_closed 2 -1 -1 20 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/sphere_tris.msh -power_rtol 1e-4 -n 1)
# On a disk with boundary alignment, Poincare-Hopf for fields tangent to the boundary (Ray et al. 2008,
# "N-symmetry direction field design", ACM TOG 27(2), sec. 4; Bommes et al. 2009, "Mixed-integer
# quadrangulation", sec. 3): interior + boundary indices = chi = 1, a boundary vertex's index being
# round(n tau / 2 pi) / n for the boundary's turning tau = pi - (its angle sum) when the field is
# smooth in its fan (framesurface.h: the identity is exact, the rounding needs the smoothness).
# petsc-examples/meshes/cap.obj: a circle of 24 boundary vertices, each turning by ~2 pi / 24 < pi / 4:
# boundary indices 0, interior sum 1 (here one +1 singularity at the valence-24 pole, which keeps the
# mesh's 24-fold symmetry). The grid on the spherical cap: its
# 4 corners turn by ~pi / 2 (> pi / 4, round(4 x 1/4) = 1), its sides' vertices by far less than
# pi / 4: boundary sum 4 x 1/4 = 1, interior sum 0.
mfad_geom_test(example_frames_disk frames 1 frames_disk 1 0 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj)
mfad_geom_test(example_frames_cap_grid frames 2 frames_disk 0 1 OPTIONS -grid 12 -surface cap)
# (c) 1 and 2 ranks reach the same field: energies to 1e-9 (boundary problem on the Gaussian bump,
# and with cotan weights on the polar cap (a Delaunay mesh: the weights are positive); the global
# problem on the bump: inverse iteration to a 1e-8 residual, the energy's error quadratic in it;
# 12 inverse iterations measured, 30 allowed)
mfad_geom_test(example_frames_ranks frames 2 ranks energy OPTIONS -grid 12 -surface hat)
mfad_geom_test(example_frames_ranks_cotan frames 2 ranks energy OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj -weights cotan)
mfad_geom_test(example_frames_ranks_global frames 2 ranks energy OPTIONS -grid 12 -surface hat -problem global)
# The global problem finds the smallest eigenvalue, against a dense oracle: on the 4 x 4 grid on the
# Gaussian bump, mfad's assembled H (-mfad_hessian aij -ksp_view_mat binary, with -shift 0 and
# -shift 1: their difference is M, checked diagonal) read with PETSc's PetscBinaryIO.py and solved
# by LAPACK (numpy.linalg.eigvalsh of M^-1/2 H M^-1/2) gives mu = 0.31477283142111750 (a complex
# pair, as u and i u), lambda = mu / 2 = 0.15738641571055875 = energy_per_area of the normalised
# field. Inverse iteration stops at a 1e-8 residual: the eigenvalue's error is quadratic in it.
mfad_geom_test(example_frames_eigen_oracle frames 2 frames_eigen 0.15738641571055875 OPTIONS -grid 4 -surface hat -problem global)
# (d) the fused Hessian of frame_field against PETSc's finite differences of the gradient (the
# energy is quadratic: the difference is exact up to round-off, ~1e-8 relative at PETSc's step)
mfad_geom_test(example_frames_test_jacobian frames 2 jacobian OPTIONS -grid 3 -surface cap -mfad_hessian shell)
# bad requests are PETSc errors that say what is wrong: boundary alignment on a closed surface; cotan
# weights on the Gaussian bump's grid, whose diagonals are not Delaunay (negative weights would
# leave the energy unbounded below)
mfad_geom_test(example_frames_closed_boundary frames 1 frames_fails "needs a surface with boundary" OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj -problem boundary)
mfad_geom_test(example_frames_cotan_negative frames 2 frames_fails "not Delaunay" OPTIONS -grid 8 -surface hat -weights cotan)
# sphere (spherical parameterisation of a closed genus-0 surface; real meshes in tests/real_sphere.cmake).
# (a) The sum of the signed solid angles of a closed oriented surface's triangles seen from the
# origin is 4 pi times the map's degree (Gauss), whatever the solver did; with no flipped triangle
# a map of a sphere onto the sphere covers it exactly once, so covered_area = 1 up to the round-off
# of ~10^3 atan2 terms (~1e-13): 1e-10. (b) Every step ends with the retraction y / |y| (and the
# fixed vertices lie on the sphere exactly), so | |y| - 1 | is a few ulps: 1e-12. energy_per_area
# >= 4 because x + 1/x >= 2 for each squared singular value. Iterations from the default Tutte
# start (Newton-CG on the exact Hessian, preconditioned by the projected one): 9 measured (default
# ellipsoid), 6 for the cube, 10 for the bumpy shape; 30, 10 and 40 allowed.
mfad_geom_test(example_sphere sphere 1 sphere 30)
mfad_geom_test(example_sphere_np2 sphere 2 sphere 30)
mfad_geom_test(example_sphere_cube sphere 1 sphere 10 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj)
mfad_geom_test(example_sphere_cube_np2 sphere 2 sphere 10 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube.obj)
mfad_geom_test(example_sphere_bumpy_np2 sphere 2 sphere 40 OPTIONS -shape bumpy)
# the radial start (-start radial) on a star-shaped surface, to the same checks
mfad_geom_test(example_sphere_radial_np2 sphere 2 sphere 40 OPTIONS -start radial)
# (c) A round sphere mesh (vertices on the unit sphere) is its own radial projection, and its rest
# copy is scaled to its own chord area (factor 1): every triangle's map is a rotation, where
# |J|^2 + |J^+|^2 = 4, the global minimum of the distortion (x + 1/x >= 2 per squared singular
# value). Without the barrier (whose gradient is not zero there) the radial start is the minimiser:
# the energy is 4 x area to round-off (1e-12 relative) and no vertex moves (the gradient is
# round-off, ~1e-15, so Newton's step is of that size: 1e-12). The gradient at the start is that
# round-off, so a relative tolerance can never be met (and the example does not converge on a short
# step, stol 0): -snes_atol 1e-12, a thousand times the round-off.
mfad_geom_test(example_sphere_round sphere 1 sphere_round OPTIONS -shape sphere -barrier 0 -start radial -snes_atol 1e-12)
mfad_geom_test(example_sphere_round_np2 sphere 2 sphere_round OPTIONS -shape sphere -barrier 0 -n 5 -start radial -snes_atol 1e-12)
# (d) 1 and 2 ranks reach the same minimiser: energies to 1e-9 (both end at |g| <= 1e-8 |g0|)
mfad_geom_test(example_sphere_ranks sphere 2 ranks energy)
# The constraint by retraction does not bias the minimiser: TAO's trust region without any
# retraction (the radial penalty alone holds |y| = 1, its only minimum) ends at the same energy
# (1e-9: both converged, the energy error is second order in |g|). Its |y| - 1 is first order: the
# radial part of the gradient at vertex v is 4 k_v (|y|^2 - 1) |y| ~ 8 k_v (|y| - 1), k_v >= 0.0139
# (the smallest third of a vertex's rest triangle areas on the default mesh), and TAO stops at
# |g| <= grtol |f| = 1e-8 x 52 (PETSc 3.26; gatol 1e-8 with 3.18): | |y| - 1 | <= 5.2e-7 / 0.11
# = 4.7e-6, checked <= 1e-5.
mfad_geom_test(example_sphere_tao sphere 1 sphere_tao)
# (e) The exact Hessian (fused shell products, also as the preconditioning matrix: no projection,
# no preconditioner) against PETSc's finite-difference Jacobian of the gradient at every Newton step,
# barrier and fixed dofs included, 2 ranks (measured 6e-8 to 1e-7, the one-sided difference's
# truncation; 1e-5 as for the other examples).
mfad_geom_test(example_sphere_test_jacobian sphere 2 jacobian OPTIONS -n 2 -mfad_hessian shell -mfad_pmat shell -mfad_psd_project none -pc_type none)
# (f) A surface that is not star-shaped about its vertex centroid (tests/meshes/cube_dent.off: the
# radial projection flips triangles) is mapped from the Tutte start like any other, to the checks
# of (a) and (b); -start radial refuses it with a message, and an open surface is refused.
mfad_geom_test(example_sphere_cube_dent sphere 1 sphere 20 OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube_dent.off)
mfad_geom_test(example_sphere_not_star_shaped sphere 1 sphere_refused "is not star-shaped about its vertex centroid" OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/cube_dent.off -start radial)
mfad_geom_test(example_sphere_open_mesh sphere 1 sphere_refused "a closed surface is needed" OPTIONS -mesh ${PROJECT_SOURCE_DIR}/petsc-examples/meshes/cap.obj)

# -mfad_psd_project_steps (projected, then exact Newton; shell/snes.c), on the elastic bar under 400 g
# with Neo-Hookean (nonconvex: the exact shell's CG meets negative curvature at step 2): projected
# Newton alone (abs) needs 70 steps (linear near the minimum), projected for 2 steps then exact 11
# (measured); both must end at the same minimum. 2 ranks.
mfad_geom_test(example_elastic_psd_project_steps elastic 2 psd_steps OPTIONS -g 400 -mfad_hessian cached -mfad_psd_project abs)
# the same with TAO (shell/tao.c; before it TAO projected throughout): 84 iterations against 16 (measured)
mfad_geom_test(example_elastic_psd_project_steps_tao elastic 2 psd_steps_tao OPTIONS -g 400 -mfad_hessian cached -mfad_psd_project abs)
