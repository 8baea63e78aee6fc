# SPDX-License-Identifier: BSD-2-Clause
# A user's own programs (tests/user/), each under 80 lines with no solver code, run with no
# option: the library's default solver converges where the examples do, to the examples' minimum
# (the same energy to 1e-8 relative) in at most 1.5 times their Newton steps, on 1 and 2 ranks
# (tests/user_program.sh). (a) param on the jittered Spot patch from a Tutte start (SNES, and TAO); (b) elastic
# statics on the Spot tets. They run beside the examples: none where the examples are not built.
if(NOT MFAD_BUILD_EXAMPLES)
  return()
endif()
foreach(prog param param_tao elastic)
  add_executable(user_${prog} user/${prog}.c)
  target_link_libraries(user_${prog} PRIVATE mfad)
endforeach()
function(mfad_user_test name nranks prog example check)
  add_test(NAME ${name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/user_program.sh ${check} $<TARGET_FILE:user_${prog}> $<TARGET_FILE:${example}> ${nranks}
            ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -- ${ARGN})
  set_tests_properties(${name} PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "example;mpi" PROCESSORS ${nranks} TIMEOUT 300)
endfunction()
mfad_user_test(user_param_jitter 2 param param param ${MFAD_MESHES}/spot_jitter.obj)
# (a') the same with TAO nls and its default line search (More-Thuente), which fails at the first
# step on a flipping full step unless the library starts it short of the wall (-mfad_step_bound)
mfad_user_test(user_param_tao_jitter 2 param_tao param param ${MFAD_MESHES}/spot_jitter.obj)
# (c) the library's stop at the Newton decrement (-mfad_decrement_rtol, MfadEnergySetDecrementTolerance())
# through the same programs, SNES and TAO nls, 1 and 2 ranks: above the example's minimum and within
# 1e-3 of it (measured 7e-8 at 1e-4), in fewer Newton steps (11 against 14), with the decrement's
# reason (SNES_CONVERGED_USER from PETSc 3.23; SNES_CONVERGED_SNORM_RELATIVE before it)
if(PETSC_VERSION VERSION_LESS 3.23)
  set(_snes_decrement CONVERGED_SNORM_RELATIVE)
else()
  set(_snes_decrement CONVERGED_USER)
endif()
mfad_user_test(user_param_jitter_decrement 2 param param param_stop ${MFAD_MESHES}/spot_jitter.obj ${_snes_decrement} -mfad_decrement_rtol 1e-4)
mfad_user_test(user_param_tao_jitter_decrement 2 param_tao param param_stop ${MFAD_MESHES}/spot_jitter.obj CONVERGED_USER -mfad_decrement_rtol 1e-4)
# without MUMPS, 2 ranks' redundant LDL^T misses a negative eigenvalue on the Spot tets (see
# example_elastic_spot_default): 1 rank there, as for the example
if(MFAD_PETSC_HAS_MUMPS)
  mfad_user_test(user_elastic_spot 2 elastic elastic elastic ${MFAD_SPOT_TETS}/spot.1.node)
else()
  mfad_user_test(user_elastic_spot 1 elastic elastic elastic ${MFAD_SPOT_TETS}/spot.1.node)
endif()
set_tests_properties(user_elastic_spot PROPERTIES FIXTURES_REQUIRED spot_tets)
