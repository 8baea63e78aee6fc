# SPDX-License-Identifier: BSD-2-Clause
# Energies at features (MfadEnergyInfo .features/.feature, docs in include/mfad/energy.h): the
# ported built-in energies are checked against their pre-port bodies in every mode by test_kernels
# (tests/oracle/) and their projected Hessians by test_hessian; here mfad-energy's refusals of a
# feature map that is not linear in x, each at the user's file:line (tests/features/*.c).
_mfad_find_translator()
add_test(NAME features_errors
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/features_errors.sh ${MFAD_TRANSLATOR_PYTHON} ${MFAD_ENERGY_TRANSLATOR} ${CMAKE_CURRENT_BINARY_DIR}/features-work)
set_tests_properties(features_errors PROPERTIES LABELS "unit")
# the ported neohookean_tet and mass_spring as plain C (E = psi(fmap(x))) against their kernels,
# and the feature-space PSD projection (tests/test_features.c)
mfad_check_test(test_features)
# SIMD lanes (energies built with LANES) against the scalar loop: gradient, energies and HVP, with
# tails and branches on values taken differently within a group of lanes (tests/test_lanes.c)
mfad_check_test(test_lanes)
# and a user's energy that declares no features (written over its 12 unknowns, with a branch and
# pow: tests/energies/mooney_rivlin_tet.c), on lanes at its unknowns with the default width
mfad_add_energy(test_lanes mooney_rivlin_tet_lanes SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/mooney_rivlin_tet.c NO_CUDA LANES_MODES gradient hvp value)
# and the README's tutorial energy as a user builds it (mfad_add_energy's defaults: LANES), whose
# branch tests a helper's value (if (mfad_inv3(Fi, F) <= 0.0): a lane mask)
mfad_add_energy(test_lanes sym_dirichlet_lanes SOURCE ${PROJECT_SOURCE_DIR}/docs/tutorial/sym_dirichlet.c NO_CUDA)
# and a user's energy with kinks (fabs, fmin, fmax, a ternary: selects lane by lane on the lanes,
# tests/energies/kinked_tet.c), its value on lanes too
mfad_add_energy(test_lanes kinked_tet_lanes SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/kinked_tet.c NO_CUDA LANES_MODES gradient hvp value)
# and a user's spring whose stiffness is a helper over doubles that calls another (their lanes
# versions: tests/reverse/spring_helpers.c), as mfad_add_energy builds a user's energy with features
mfad_add_energy(test_lanes spring_helpers_lanes SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/reverse/spring_helpers.c NO_CUDA)
# and a user's tet with its material as Young's modulus and Poisson's ratio: the Lamé parameters from a
# helper that writes an array, a helper over doubles with an if, an array with an initialiser list
# (tests/energies/lame_tet.c), with the defaults for a user's energy without features
mfad_add_energy(test_lanes lame_tet_lanes SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/lame_tet.c NO_CUDA)
# the lanes' log in registers against the C library's (tests/test_lanes_math.c), with the library's
# host tuning and -fno-math-errno, as the energies' units
mfad_check_test(test_lanes_math)
target_compile_options(test_lanes_math PRIVATE ${MFAD_HOST_TUNING} -fno-math-errno)
set_tests_properties(test_lanes_math PROPERTIES SKIP_RETURN_CODE 77)
# and at 8 lanes (AVX-512's variants of glibc's vector math where the build has AVX-512F)
add_executable(test_lanes_math8 test_lanes_math.c)
target_link_libraries(test_lanes_math8 PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_lanes_math8 PRIVATE -Wall -Wextra ${MFAD_HOST_TUNING} -fno-math-errno)
target_compile_definitions(test_lanes_math8 PRIVATE MFAD_LANES_WIDTH=8)
add_test(NAME test_lanes_math8 COMMAND test_lanes_math8)
set_tests_properties(test_lanes_math8 PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=120" LABELS "unit" SKIP_RETURN_CODE 77)
# the same at 8 lanes (AVX-512's registers; the library's width is 4 unless -DMFAD_LANES_WIDTH=8): the
# built-in energies on lanes compiled into test_lanes8 again as <name>_l8, with the library's modes;
# skipped (77) on a CPU without AVX-512F
add_executable(test_lanes8 test_lanes.c)
target_link_libraries(test_lanes8 PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_lanes8 PRIVATE -Wall -Wextra)
target_compile_definitions(test_lanes8 PRIVATE MFAD_TEST_LANES8)
target_include_directories(test_lanes8 PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
get_property(lanes_energies GLOBAL PROPERTY MFAD_BUILTIN_LANES_ENERGIES)
set(lanes8_lines "")
foreach(name IN LISTS lanes_energies)
  get_property(modes GLOBAL PROPERTY MFAD_BUILTIN_LANES_MODES_${name})
  mfad_add_energy(test_lanes8 ${name}_l8 SOURCE ${PROJECT_SOURCE_DIR}/energies/${name}.c NO_CUDA LANES LANES_MODES ${modes}
                  COMPILE_OPTIONS -O3 -fno-math-errno ${MFAD_HOST_TUNING} -DMFAD_LANES_WIDTH=8)
  string(APPEND lanes8_lines " X(${name})")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/test_lanes8_energies.h CONTENT "#define LANES8_ENERGIES(X)${lanes8_lines}\n")
add_test(NAME test_lanes8 COMMAND test_lanes8)
set_tests_properties(test_lanes8 PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=120;${MFAD_MPI_ENV}" LABELS "unit" SKIP_RETURN_CODE 77)
# forward-over-reverse (the gradient and HVP of every energy whose body mfad-energy reverses)
# against forward-over-forward: each is compiled here again with -DMFAD_NO_REVERSE as <name>_fof
set(MFAD_REVERSE_ENERGIES arap_tri dirichlet_tri flip_barrier_tri mass_spring membrane_tri neohookean_tet
  stable_neohookean_tet symmetric_dirichlet volume_barrier_tet stvk_tet corotated_tet bending_dihedral arap_surface
  sphere_symmetric_dirichlet
  # without features: reversed at their unknowns
  sphere_flip_barrier sphere_penalty pin_spring inertia gravity frame_field)
# The forward-over-forward copies are compiled at -O0: the comparison's bound (1e-12 of the largest
# entry) is far above any difference in rounding or FMA contraction between optimisation levels,
# and at -O3 they cost 7 minutes of compiler time (arap_surface's alone 4.5 without its rolled
# Hessian rows), CI's longest build step in every stage
include(${CMAKE_CURRENT_SOURCE_DIR}/oracle/oracles.cmake)
mfad_check_test(test_reverse)
set(reverse_lines "")
foreach(name IN LISTS MFAD_REVERSE_ENERGIES)
  set(roll)
  if(name IN_LIST MFAD_ORACLES_ROLL_HESSIAN_ROWS)
    set(roll ROLL_HESSIAN_ROWS) # as registered in energies/CMakeLists.txt
  endif()
  mfad_add_energy(test_reverse ${name}_fof SOURCE ${PROJECT_SOURCE_DIR}/energies/${name}.c NO_CUDA ${roll} COMPILE_OPTIONS -O0 -DMFAD_NO_REVERSE)
  string(APPEND reverse_lines "MFAD_REVERSE_ENERGY(${name})\n")
endforeach()
# compiled both ways here: helpers inlined into the adjoint sweep (tests/reverse/spring_helpers.c),
# every op with an adjoint rule on values of several unknowns (tests/reverse/every_op.c), and three
# energies a user writes without features (the tutorial's, which inverts F with mfad_inv3;
# the build-time yardstick, F = Ds Dm^-1 by mfad_matmul; lame_tet's arrays of doubles it sets)
foreach(src reverse/spring_helpers.c reverse/every_op.c ../docs/tutorial/sym_dirichlet.c energies/mooney_rivlin_tet.c energies/lame_tet.c)
  get_filename_component(name ${src} NAME_WE)
  if(NOT name STREQUAL "spring_helpers")
    set(name rev_${name}) # the tests of translator.cmake and buildtime.cmake build them under their own names
  endif()
  foreach(suffix "" _fof)
    set(opt)
    if(suffix)
      set(opt -DMFAD_NO_REVERSE)
    endif()
    set(level -O0)
    if(name STREQUAL "spring_helpers")
      set(level -O3 -fno-math-errno) # its helpers' inlining is what it tests
    endif()
    mfad_add_energy(test_reverse ${name}${suffix} SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/${src} NO_CUDA COMPILE_OPTIONS ${level} ${opt})
  endforeach()
  string(APPEND reverse_lines "MFAD_REVERSE_ENERGY(${name})\n")
endforeach()
file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mfad_reverse_energies.h CONTENT "${reverse_lines}")
target_include_directories(test_reverse PRIVATE ${CMAKE_CURRENT_BINARY_DIR})
