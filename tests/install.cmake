# SPDX-License-Identifier: BSD-2-Clause
# install: `cmake --install` of this build into a scratch prefix, then a small program built
# against that prefix twice, with find_package(mfad) and with `pkg-config mfad`, and run.
# The work is done by tests/install/run.cmake (cmake -P) at test time.
add_test(NAME install
  COMMAND ${CMAKE_COMMAND}
          -DMFAD_BUILD_DIR=${PROJECT_BINARY_DIR}
          -DMFAD_TEST_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/install
          -DMFAD_WORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test
          -DMFAD_C_COMPILER=${CMAKE_C_COMPILER}
          -DMFAD_GENERATOR=${CMAKE_GENERATOR}
          -DMFAD_PKG_CONFIG=${PKG_CONFIG_EXECUTABLE}
          -DMFAD_TUTORIAL_DIR=${PROJECT_SOURCE_DIR}/docs/tutorial
          -DMFAD_WARN_ENERGY=${CMAKE_CURRENT_SOURCE_DIR}/translator/warn/unused_local.c
          -DMFAD_MPIEXEC=${MFAD_MPIEXEC}
          -DMFAD_HAVE_CUDA=${MFAD_HAVE_CUDA}
          -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run.cmake)
# configuring a project (MPI, OpenMP and PETSc detection) and two builds: well under a minute here
set_tests_properties(install PROPERTIES LABELS "install" ENVIRONMENT "${MFAD_MPI_ENV}" TIMEOUT 600)
