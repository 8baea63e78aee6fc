# SPDX-License-Identifier: BSD-2-Clause
# petsc-examples/sphere on a real closed genus-0 surface that is not star-shaped (Spot the cow,
# tests/meshes/spot.obj), and on broken closed surfaces, checked by tests/real_sphere.sh.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# mfad_sphere_test(<name> <nranks> <check> [<check arguments>] [OPTIONS <program options>])
function(mfad_sphere_test name nranks check)
  cmake_parse_arguments(ARG "" "" "OPTIONS" ${ARGN})
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/real_sphere.sh ${check} ${ARG_UNPARSED_ARGUMENTS} $<TARGET_FILE:sphere> ${nranks}
            ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -- ${ARG_OPTIONS})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 600)
endfunction()

# (a) The default start (Tutte, mean-value weights, inverse stereographic projection; see sphere.c)
# is flip-free in exact arithmetic whatever the shape; checked in floating point: the start has no
# flipped triangle and covers the sphere once. Then the solution: every triangle's signed solid
# angle summed over 4 pi is the degree of the map (Gauss), so with no flipped triangle
# covered_area = 1 up to the round-off of 5,856 atan2 terms (~1e-13): 1e-10; every step ends with
# the retraction y / |y|: | |y| - 1 | <= 1e-12; energy_per_area >= 4 (x + 1/x >= 2 per squared
# singular value); converged (reason > 0). 1 and 2 ranks (the start is computed identically on
# every rank) reach the same minimiser: energies to 1e-9 relative (both stop at |g| <= 1e-6
# sqrt(area) = 3.5e-6 against E = 70; the energy error is second order in |g|).
mfad_sphere_test(real_sphere_spot_ranks 2 ranks OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/spot.obj)
# (a') A generated hard shape (-shape fingers: a unit sphere with three thin fingers of length 8,
# 866 vertices; the start squeezes them, energy_per_area 17.8): the default converges with the same
# checks as (a), on 1 and on 2 ranks. Tens of Newton steps (48; 65 before CG's forcing term, shell/newtoncg.c; 261 before the distortion's
# great-circle wall, energies/sphere_symmetric_dirichlet.c), many with an indefinite Hessian, so
# the two runs may end in different local minima: no energy comparison between them. Before the
# projected-step fallback (Newton-CG's, shell/newtoncg.c) it stopped at step 155 on a zero CG step.
mfad_sphere_test(real_sphere_fingers 1 map OPTIONS -shape fingers -n 12 -fingers 8)
mfad_sphere_test(real_sphere_fingers_np2 2 map OPTIONS -shape fingers -n 12 -fingers 8)
# (a2) Reweighting rounds that reach round-off end the rounds, and the best start so far is kept
# (before, the program stopped with an error): -start_reweight_exponent 8 multiplies each edge's
# weight by rho^2 per round, and the fingers' planar triangles are flat to round-off at round 3
# (measured); then the checks of (a).
mfad_sphere_test(real_sphere_reweight_roundoff 1 map OPTIONS -shape fingers -n 6 -fingers 8 -start_reweight_exponent 8)
# (a3) The Tutte start's rest size: the chord area of the sphere shared out as equilateral spherical
# triangles (sphere.c, SphereTargetArea()). A round mesh's own chord area (what -start radial takes,
# the map being then a rotation per triangle) is the truth it estimates: to 1e-3 (measured 2.5e-4
# on the cube-sphere's right-angled triangles; the start's chord area, used before, can be 1.3 of
# 4 pi when the star of the pole covers a large cap).
mfad_sphere_test(real_sphere_target_area 1 target_area OPTIONS -shape sphere)
# (b) A solve stopped before convergence (2 Newton steps) exits non-zero with the reason on stderr.
mfad_sphere_test(real_sphere_not_converged 1 not_converged OPTIONS -mesh ${PROJECT_SOURCE_DIR}/tests/meshes/spot.obj -snes_max_it 2)
# (c) Broken closed surfaces (written by the script) are refused with a message that says why:
# genus 1, two components whose V - E + F is 2, two spheres touching at a vertex or glued at two
# (V - E + F = 2, every edge in two triangles), one triangle turned, one missing.
mfad_sphere_test(real_sphere_refuse_torus 1 refused "genus 1" torus)
mfad_sphere_test(real_sphere_refuse_components 1 refused "2 connected components" sphere_and_torus)
mfad_sphere_test(real_sphere_refuse_pinched 1 refused "more than one fan" pinched)
mfad_sphere_test(real_sphere_refuse_glued 1 refused "more than one fan" glued)
mfad_sphere_test(real_sphere_refuse_reversed 2 refused "not consistently oriented" reversed)
mfad_sphere_test(real_sphere_refuse_open 1 refused "a closed surface is needed" open)
