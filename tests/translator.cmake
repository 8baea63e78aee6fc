# SPDX-License-Identifier: BSD-2-Clause
# mfad-energy, the plain-C energy translator: each construct it cannot differentiate is an error
# naming the user's file:line, and compiler warnings on generated code name the user's line
# (tests/translator/, tests/translator_errors.sh)
_mfad_find_translator()
add_test(NAME translator_errors
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/translator_errors.sh ${MFAD_TRANSLATOR_PYTHON} ${MFAD_ENERGY_TRANSLATOR}
          ${CMAKE_C_COMPILER} ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_BINARY_DIR}/translator-work)
set_tests_properties(translator_errors PROPERTIES LABELS "unit")
# a plain-C test energy with every supported construct and function, in every mode (test_plain.c)
mfad_check_test(test_plain)
mfad_add_energy(test_plain plain_ops SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/energies/plain_ops.c NO_CUDA)
target_include_directories(test_plain PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# the README's tutorial in tree: its energy against finite differences through PETSc
# (-snes_test_jacobian on the Hessian shell, 2 ranks) and its closed-form energy
add_executable(tutorial_stretch ${PROJECT_SOURCE_DIR}/docs/tutorial/stretch.c)
target_link_libraries(tutorial_stretch PRIVATE mfad)
target_compile_options(tutorial_stretch PRIVATE -Wall -Wextra)
mfad_add_energy(tutorial_stretch sym_dirichlet SOURCE ${PROJECT_SOURCE_DIR}/docs/tutorial/sym_dirichlet.c NO_CUDA)
add_test(NAME tutorial_test_jacobian
  COMMAND ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -n 2 $<TARGET_FILE:tutorial_stretch> -snes_test_jacobian -snes_max_it 3 -snes_converged_reason)
# FD Jacobian error: h ~ 1e-8 relative steps give ~1e-7 relative error on these O(1) Hessians
set_tests_properties(tutorial_test_jacobian PROPERTIES ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" LABELS "mpi" PROCESSORS 2
  PASS_REGULAR_EXPRESSION "J - Jfd\\|\\|_F/\\|\\|J\\|\\|_F = [0-9.]+e-0[5-9]"
  FAIL_REGULAR_EXPRESSION "J - Jfd\\|\\|_F/\\|\\|J\\|\\|_F = [0-9.]+e-0[0-4]|J - Jfd\\|\\|_F/\\|\\|J\\|\\|_F = [0-9.]+e\\+")
