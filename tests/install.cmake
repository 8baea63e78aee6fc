# SPDX-License-Identifier: BSD-2-Clause
# install: `cmake --install` of this build into a scratch prefix, then a small program built
# against that prefix twice, with find_package(mfad) and with `pkg-config mfad`, and run.
# The work is done by tests/install/run.cmake (cmake -P) at test time; the README's tutorial is built
# against the installed prefix with CMake and with its Makefile by two tests that need the first
# (a fixture) and run beside each other.
# whether mfad's tuning targets 256-bit registers: then a user's energy built as the tutorial shows
# (either route) has its gradient and HVP on SIMD lanes, which -mfad_view must say
include(CheckCSourceCompiles)
list(JOIN MFAD_HOST_TUNING " " CMAKE_REQUIRED_FLAGS)
check_c_source_compiles("#if !defined(__AVX__)\n#error no 256-bit registers\n#endif\nint main(void) { return 0; }" MFAD_HOST_HAS_AVX)
unset(CMAKE_REQUIRED_FLAGS)
set(mfad_expect_lanes 0)
if(MFAD_HOST_HAS_AVX)
  set(mfad_expect_lanes 1)
endif()
set(mfad_install_args
    -DMFAD_EXPECT_LANES=${mfad_expect_lanes}
    -DMFAD_BUILD_DIR=${PROJECT_BINARY_DIR}
    -DMFAD_TEST_SOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}/install
    -DMFAD_WORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/install-test
    -DMFAD_C_COMPILER=${CMAKE_C_COMPILER}
    -DMFAD_GENERATOR=${CMAKE_GENERATOR}
    -DMFAD_PKG_CONFIG=${PKG_CONFIG_EXECUTABLE}
    -DMFAD_TUTORIAL_DIR=${PROJECT_SOURCE_DIR}/docs/tutorial
    -DMFAD_WARN_ENERGY=${CMAKE_CURRENT_SOURCE_DIR}/translator/warn/unused_local.c
    -DMFAD_MPIEXEC=${MFAD_MPIEXEC}
    -DMFAD_HAVE_CUDA=${MFAD_HAVE_CUDA})
add_test(NAME install COMMAND ${CMAKE_COMMAND} ${mfad_install_args} -DMFAD_INSTALL_PART=install -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run.cmake)
set_tests_properties(install PROPERTIES FIXTURES_SETUP mfad_install)
foreach(route cmake make)
  add_test(NAME install_tutorial_${route}
    COMMAND ${CMAKE_COMMAND} ${mfad_install_args} -DMFAD_INSTALL_PART=tutorial-${route} -P ${CMAKE_CURRENT_SOURCE_DIR}/install/run.cmake)
  set_tests_properties(install_tutorial_${route} PROPERTIES FIXTURES_REQUIRED mfad_install)
endforeach()
# configuring a project (MPI, OpenMP and PETSc detection) and compiling the tutorial's energy at -O3
# (and through nvcc where CUDA is on): 60-100 s each on an idle 2-core machine with an empty
# compiler cache, seconds with a warm one; a limit that holds at load 4 with an empty cache
set_tests_properties(install install_tutorial_cmake install_tutorial_make PROPERTIES LABELS "install" ENVIRONMENT "${MFAD_MPI_ENV}" TIMEOUT 1800)
