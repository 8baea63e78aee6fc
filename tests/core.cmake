# SPDX-License-Identifier: BSD-2-Clause
mfad_check_test(test_core)
add_executable(test_mpi test_mpi.c)
target_link_libraries(test_mpi PRIVATE mfad PkgConfig::CHECK m)
foreach(np 1 2 3)
  mfad_mpi_test(test_mpi_${np} ${np} $<TARGET_FILE:test_mpi>)
endforeach()
mfad_check_test(test_shell)
# -mfad_psd_switch: projected or exact Newton steps by the factor's inertia (shell/psdswitch.c)
mfad_check_test(test_psdswitch)
mfad_check_test(test_solverdefaults)
# No silent wrong answer (issue 46): refusals and messages of the core, the whole-mesh API and the
# readers, each a case that gave a result or a misleading message before; 1 and 2 ranks (ranks
# that pass different meshes, element numbers by rank)
add_executable(test_refusals test_refusals.c)
target_link_libraries(test_refusals PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_refusals PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_refusals_${np} ${np} $<TARGET_FILE:test_refusals>)
  # a collective that some rank skips would hang rather than fail: bound it
  set_tests_properties(test_refusals_${np} PROPERTIES TIMEOUT 60)
endforeach()
# Issue 46, item 6: a solve that fails at a trial point where the energy is NaN names the term and
# the element (the library's line at the end of SNESSolve); the default line search backs off
add_library(test_trial_nan_kernels STATIC)
target_link_libraries(test_trial_nan_kernels PUBLIC mfad)
mfad_add_energy(test_trial_nan_kernels sqrt_well SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/sqrt_well.c NO_CUDA)
add_executable(test_trial_nan test_trial_nan.c)
target_link_libraries(test_trial_nan PRIVATE test_trial_nan_kernels)
foreach(np 1 2)
  mfad_mpi_test(test_trial_nan_${np} ${np} $<TARGET_FILE:test_trial_nan>)
  set_tests_properties(test_trial_nan_${np} PROPERTIES TIMEOUT 60
    PASS_REGULAR_EXPRESSION "stopped with DIVERGED_[A-Z_]+ at Newton step 0, whose line search met an invalid point: term 'sqrt_well' element 0 \\(vertices 0\\) has energy NaN.*test_trial_nan: ok"
    FAIL_REGULAR_EXPRESSION "PETSC ERROR")
endforeach()
# Material constants with their count (issue 46, item 4): the ...WithMaterial calls refuse a count
# other than the kernel's, agree with the uncounted calls, and -mfad_view shows the constants
add_executable(test_material test_material.c)
target_link_libraries(test_material PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_material PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_material_${np} ${np} $<TARGET_FILE:test_material>)
  set_tests_properties(test_material_${np} PROPERTIES TIMEOUT 60)
endforeach()
# Outputs written in place where no rank has ghosts (src/compute.c: the caller's arrays lent to the
# local vectors on one rank): over NaN, equal to the assembled Hessian's, V untouched, aliases
add_executable(test_inplace test_inplace.c)
target_link_libraries(test_inplace PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_inplace PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_inplace_${np} ${np} $<TARGET_FILE:test_inplace>)
  set_tests_properties(test_inplace_${np} PROPERTIES TIMEOUT 60)
endforeach()
