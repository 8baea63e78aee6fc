# SPDX-License-Identifier: BSD-2-Clause
# No silent wrong answer (issue 46): an example whose result is not the answer it reports (a solve
# that moved nothing reported as converged, a map that overlaps itself, a mesh whose weights are
# infinite) exits non-zero with the reason on standard error. Each mesh is made here; each run
# takes well under a second.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()

# ---- elastic: the gradient must fall (to the square root of the solver's relative tolerance: see
# petsc-examples/stepper.h), whatever the solver's reason.
# The two cubes read as 2e-8 m across sag by rho |g| L / E ~ 2e-9 of their size, below SNES's step
# test (|dx| < 1e-8 |x|); the energy's round-off hides the Newton step's decrease and newtonls
# reported the tiny step as CONVERGED_SNORM_RELATIVE with |g| / |g0| = 1 (exit 0). The library's
# convergence test now refuses a step test that has not lowered |g| (shell/psdswitch.c): SNES runs
# to DIVERGED_MAX_IT, and the example exits 1 with the reason (its own check of the gradient,
# petsc-examples/stepper.c, stays behind it for solvers without the library's test)
mfad_refused_test(example_elastic_mesh_nothing_moved elastic 1 "the solve did not converge: DIVERGED_MAX_IT"
                  OPTIONS -mesh ${CMAKE_CURRENT_SOURCE_DIR}/meshes/twocubes.1.node -mesh_scale 1e-8)

# ---- arap -mesh: a map with flipped triangles overlaps itself, which no parameterisation may; ARAP
# has no barrier against it, so the example counts them and fails unless -allow_flips. A square cup
# (a 2 x 2 square tube 4 high, closed by a fan at the bottom: a disk) flattens with 2 of its 72
# triangles flipped (28 Newton steps, converged, exit 0 before this check)
set(MFAD_CUP_PERIMETER "-1 -1;0 -1;1 -1;1 0;1 1;0 1;-1 1;-1 0")
set(MFAD_CUP_OBJ "# a square cup: the perimeter of [-1, 1]^2 at z = 0 .. 4, closed at z = 0 by a fan from its centre\nv 0 0 0\n")
foreach(z RANGE 0 4)
  foreach(p IN LISTS MFAD_CUP_PERIMETER)
    string(APPEND MFAD_CUP_OBJ "v ${p} ${z}\n")
  endforeach()
endforeach()
foreach(i RANGE 0 7)
  math(EXPR a "2 + ${i}")
  math(EXPR b "2 + (${i} + 1) % 8")
  string(APPEND MFAD_CUP_OBJ "f 1 ${a} ${b}\n")
endforeach()
foreach(j RANGE 0 3)
  foreach(i RANGE 0 7)
    math(EXPR a "2 + 8 * ${j} + ${i}")
    math(EXPR b "2 + 8 * ${j} + (${i} + 1) % 8")
    math(EXPR c "${a} + 8")
    math(EXPR d "${b} + 8")
    string(APPEND MFAD_CUP_OBJ "f ${a} ${b} ${c}\nf ${b} ${d} ${c}\n")
  endforeach()
endforeach()
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/square_cup.obj "${MFAD_CUP_OBJ}")
mfad_refused_test(example_arap_mesh_flipped arap 1 "of 72 triangles are flipped (det J <= 0) in the map"
                  OPTIONS -mesh ${CMAKE_CURRENT_BINARY_DIR}/square_cup.obj)
# -allow_flips accepts the same map: converged, exit 0
mfad_lsq_test(example_arap_mesh_allow_flips 1 newton 100 -mesh ${CMAKE_CURRENT_BINARY_DIR}/square_cup.obj -allow_flips)

# ---- arap_surface: a triangle of no area to round-off (a T-junction closed by a flat triangle, as
# exported meshes have: vertex 2 = vertex 1 / 3 in decimals, off the line by round-off) has infinite
# cotangent weights: refused up front, naming it (converged at energy 1e13, exit 0 before this check)
file(WRITE ${CMAKE_CURRENT_BINARY_DIR}/zero_area_triangle.obj
     "# a disk of 4 triangles; the second (vertices 0 1 2 from 0) has no area\nv 0 0 0\nv 0.3 0.9 0\nv 0.1 0.3 0\nv 0.9 0.3 0\nv -0.6 0.6 0\nf 1 4 2\nf 1 2 3\nf 3 2 5\nf 1 3 5\n")
mfad_refused_test(example_arap_surface_zero_area arap_surface 1 "triangle 1 (vertices 0 1 2, ids from 0) has no area"
                  OPTIONS -mesh ${CMAKE_CURRENT_BINARY_DIR}/zero_area_triangle.obj)
