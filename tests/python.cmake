# SPDX-License-Identifier: BSD-2-Clause
# The Python package (python/, built where MFAD_PYTHON found Cython, numpy, mpi4py and petsc4py:
# none of these tests is defined elsewhere, e.g. CI's PETSc 3.26 and sanitizer stages). Each runs
# MFADPY_PYTHON with PYTHONPATH=<build>/python and a compile cache in the build tree, shared by
# the tests (an energy compiled once: its atomic rename makes concurrent compiles safe).
if(NOT MFAD_PYTHON_FOUND)
  return()
endif()
set(MFADPY_ENV_NOCACHE "PYTHONPATH=${PROJECT_BINARY_DIR}/python;${MFAD_MPI_ENV};OMP_NUM_THREADS=1")
set(MFADPY_ENV "${MFADPY_ENV_NOCACHE};MFAD_PYTHON_CACHE=${CMAKE_CURRENT_BINARY_DIR}/python-cache")
set(pytests ${CMAKE_CURRENT_SOURCE_DIR}/python)
set(pyexamples ${PROJECT_SOURCE_DIR}/python/examples)

# import mfad: the extension loads against libmfad and petsc4py, a built-in kernel is found
add_test(NAME python_import COMMAND ${MFADPY_PYTHON} -c "import mfad; k = mfad.Kernel('neohookean_tet'); assert k.sizes == (4, 3, 12), k.sizes; print('python_import:', k, k.sizes)")
# the API against itself and the C library's errors: HVP = assembled Hessian x v = shell x v,
# gradient = central differences, fixed dofs, DMPlex = V, F; errors as exceptions with PETSc's message
add_test(NAME python_api COMMAND ${MFADPY_PYTHON} ${pytests}/test_api.py)
add_test(NAME python_api_np2 COMMAND ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -n 2 ${MFADPY_PYTHON} ${pytests}/test_api.py)
# plain-C energies: compiled once and cached, bad sources raise with file:line:column
add_test(NAME python_kernel_from_c COMMAND ${MFADPY_PYTHON} ${pytests}/test_kernel.py ${PROJECT_SOURCE_DIR}/docs/tutorial/sym_dirichlet.c)
# Ctrl-C (SIGINT) during SNESSolve: KeyboardInterrupt from snes.solve, the solve stopped
add_test(NAME python_interrupt COMMAND ${MFADPY_PYTHON} ${pytests}/test_interrupt.py ${pyexamples}/param.py)
set_tests_properties(python_import python_api python_kernel_from_c python_interrupt PROPERTIES LABELS "unit;python" ENVIRONMENT "${MFADPY_ENV}" TIMEOUT 180)
# its own cache: it checks that its second build is the cached object (the file's time unchanged),
# and python_tutorial_np1, started beside it on a cold cache, compiles the same energy and renames
# its object over the first (a CI run: "a cached energy was compiled again")
set_tests_properties(python_kernel_from_c PROPERTIES ENVIRONMENT "${MFADPY_ENV_NOCACHE};MFAD_PYTHON_CACHE=${CMAKE_CURRENT_BINARY_DIR}/python-cache-kernel")
# the same on 2 ranks with SIGINT to rank 0 alone: both stop at the same step
add_test(NAME python_interrupt_np2 COMMAND ${MFADPY_PYTHON} ${pytests}/test_interrupt.py ${pyexamples}/param.py ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS})
set_tests_properties(python_api_np2 python_interrupt_np2 PROPERTIES LABELS "mpi;python" ENVIRONMENT "${MFADPY_ENV}" PROCESSORS 2 TIMEOUT 180)

# the README's tutorial in Python on 1 and 2 ranks: the closed form, as the C tutorial's install test
foreach(np 1 2)
  add_test(NAME python_tutorial_np${np} COMMAND ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS} -n ${np} ${MFADPY_PYTHON} ${pyexamples}/tutorial.py)
  set_tests_properties(python_tutorial_np${np} PROPERTIES LABELS "example;mpi;python" ENVIRONMENT "${MFADPY_ENV}" PROCESSORS ${np}
                       PASS_REGULAR_EXPRESSION "stretch: energy 2\\.6777777778e\\+01, CONVERGED")
endforeach()
# the parameterisation from numpy arrays against tests/user/param.c (C) on the same mesh, 1 and 2
# ranks: the same energy to 1e-12 relative and the same Newton steps; the VTU written
if(MFAD_BUILD_EXAMPLES) # tests/user.cmake builds user_param and user_param_tao
  add_test(NAME python_param_jitter COMMAND sh ${pytests}/param_vs_c.sh ${MFADPY_PYTHON} ${pyexamples}/param.py $<TARGET_FILE:user_param>
                                          ${MFAD_MESHES}/spot_jitter.obj "" ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS})
  # the same with TAO nls (E.set_tao) against tests/user/param_tao.c
  add_test(NAME python_param_tao_jitter COMMAND sh ${pytests}/param_vs_c.sh ${MFADPY_PYTHON} ${pyexamples}/param.py $<TARGET_FILE:user_param_tao>
                                              ${MFAD_MESHES}/spot_jitter.obj -use_tao ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS})
  set_tests_properties(python_param_jitter python_param_tao_jitter PROPERTIES LABELS "example;mpi;python" ENVIRONMENT "${MFADPY_ENV}" PROCESSORS 2)
endif()

# pip install ./python against the install test's prefix (its fixture), then the tutorial with it
add_test(NAME python_pip_install COMMAND sh ${pytests}/pip_install.sh ${MFADPY_PYTHON} ${PROJECT_SOURCE_DIR} ${CMAKE_CURRENT_BINARY_DIR}/install-test/prefix
                                       ${CMAKE_CURRENT_BINARY_DIR}/python-pip ${MFAD_MPIEXEC} ${MFAD_MPIEXEC_FLAGS})
set_tests_properties(python_pip_install PROPERTIES LABELS "install;python" ENVIRONMENT "${MFAD_MPI_ENV};OMP_NUM_THREADS=1" FIXTURES_REQUIRED mfad_install
                     PROCESSORS 2 TIMEOUT 600 COST 60 PASS_REGULAR_EXPRESSION "stretch: energy 2\\.6777777778e\\+01, CONVERGED")
