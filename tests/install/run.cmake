# SPDX-License-Identifier: BSD-2-Clause
# The install tests (cmake -P, started by tests/install.cmake), in parts (MFAD_INSTALL_PART):
#   install: 1. cmake --install MFAD_BUILD_DIR --prefix MFAD_WORK_DIR/prefix
#            2. configure, build and run tests/install/ with find_package(mfad) (target mfad::mfad)
#            3. compile and run tests/install/consumer.c with `pkg-config --cflags --libs mfad`
#            2 and 3 again for tests/test_mesh_only.c, a program of meshes alone, with the mesh
#            library only: mfad::mfadmesh and `pkg-config mfadmesh`
#   tutorial-cmake, tutorial-make: 4. build the README's tutorial (docs/tutorial) with CMake or
#            with its Makefile against that prefix, and run it on 2 ranks
# The tutorial's parts need the prefix of the first (a ctest fixture) and run beside each other:
# each compiles the tutorial's energy at -O3, most of these tests' time with an empty cache.
foreach(v MFAD_BUILD_DIR MFAD_TEST_SOURCE_DIR MFAD_WORK_DIR MFAD_C_COMPILER MFAD_PKG_CONFIG MFAD_TUTORIAL_DIR MFAD_MPIEXEC MFAD_WARN_ENERGY MFAD_INSTALL_PART)
  if(NOT ${v})
    message(FATAL_ERROR "install test: -D${v}=... is required")
  endif()
endforeach()
if(NOT MFAD_INSTALL_PART MATCHES "^(install|tutorial-cmake|tutorial-make)$")
  message(FATAL_ERROR "install test: MFAD_INSTALL_PART is install, tutorial-cmake or tutorial-make, not '${MFAD_INSTALL_PART}'")
endif()

set(prefix ${MFAD_WORK_DIR}/prefix)
set(gen)
if(MFAD_GENERATOR)
  set(gen -G ${MFAD_GENERATOR})
endif()
if(MFAD_INSTALL_PART STREQUAL "install")
  file(REMOVE_RECURSE ${MFAD_WORK_DIR})
  file(MAKE_DIRECTORY ${MFAD_WORK_DIR})
elseif(NOT EXISTS ${prefix}/bin/mfad-energy)
  message(FATAL_ERROR "install test: no installed mfad in ${prefix}: the test 'install' (this one's fixture) did not run or failed")
endif()

# runs a command; on failure stops with the command and its output
function(mfad_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test: ${what} failed (exit ${rc})\n  command: ${cmd}\n${out}")
  endif()
  message(STATUS "install test: ${what}: ok")
endfunction()

# the installed mfad.pc first on PKG_CONFIG_PATH; sets pcdir
macro(mfad_pkg_config_path)
  file(GLOB_RECURSE pcfiles ${prefix}/*/pkgconfig/mfad.pc)
  list(LENGTH pcfiles npc)
  if(NOT npc EQUAL 1)
    message(FATAL_ERROR "install test: expected one mfad.pc under ${prefix}, found: ${pcfiles}")
  endif()
  get_filename_component(pcdir ${pcfiles} DIRECTORY)
  if(DEFINED ENV{PKG_CONFIG_PATH} AND NOT "$ENV{PKG_CONFIG_PATH}" STREQUAL "")
    set(ENV{PKG_CONFIG_PATH} "${pcdir}:$ENV{PKG_CONFIG_PATH}")
  else()
    set(ENV{PKG_CONFIG_PATH} "${pcdir}")
  endif()
endmacro()

# the tutorial's parts
function(mfad_run_tutorial what exe)
  execute_process(COMMAND ${MFAD_MPIEXEC} --oversubscribe -n 2 ${exe} INPUT_FILE /dev/null
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR NOT out MATCHES "stretch: energy 2\\.6777777778e\\+01, CONVERGED")
    message(FATAL_ERROR "install test: the tutorial (${what}) on 2 ranks: exit ${rc}, expected 'stretch: energy 2.6777777778e+01, CONVERGED...' (the closed form), got:\n${out}")
  endif()
  message(STATUS "install test: the tutorial (${what}) on 2 ranks: ok")
  if(MFAD_EXPECT_LANES)
    # built as a user builds it, the energy's gradient, HVP and element Hessians run on SIMD lanes (mfad_add_energy's
    # default, the Makefile's --lanes, mfad's tuning: energy_cflags, MFAD_HOST_TUNING)
    execute_process(COMMAND ${MFAD_MPIEXEC} -n 1 ${exe} -mfad_view INPUT_FILE /dev/null RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0 OR NOT out MATCHES "CPU loops on SIMD lanes \\(-mfad_lanes true\\): gradient, HVP, element Hessians")
      message(FATAL_ERROR "install test: the tutorial (${what}): its energy's gradient, HVP and element Hessians are not on SIMD lanes (-mfad_view: no 'CPU loops on SIMD lanes (-mfad_lanes true): gradient, HVP, element Hessians'), exit ${rc}:\n${out}")
    endif()
    message(STATUS "install test: the tutorial (${what}): gradient, HVP and element Hessians on SIMD lanes: ok")
  endif()
endfunction()
if(NOT MFAD_INSTALL_PART STREQUAL "install")
  # ------------------------------------------------------------ 4. the README's tutorial
  # The files of docs/tutorial exactly as the README shows them: a plain-C energy translated by the
  # installed mfad-energy, built with find_package(mfad) or with the Makefile (pkg-config), run
  # on 2 ranks. The bar stretched to 1.5 times its length with its end faces held is a homogeneous
  # stretch (the lateral stretch t minimises s^2 + 2 t^2 + 1/s^2 + 2/t^2 at t = 1): energy
  # V (s^2 + 1/s^2 + 4) = 4 (2.25 + 0.4444... + 4) = 26.7777..., printed to 10 digits.
  set(ENV{PATH} "${prefix}/bin:$ENV{PATH}")
  mfad_pkg_config_path()
  set(tdir ${MFAD_WORK_DIR}/${MFAD_INSTALL_PART})
  file(REMOVE_RECURSE ${tdir})
  file(COPY ${MFAD_TUTORIAL_DIR}/ DESTINATION ${tdir})
  if(MFAD_INSTALL_PART STREQUAL "tutorial-cmake")
    mfad_step("configure the tutorial" ${CMAKE_COMMAND} -S ${tdir} -B ${tdir}/build ${gen} -DCMAKE_PREFIX_PATH=${prefix}
              -DCMAKE_C_COMPILER=${MFAD_C_COMPILER} -DCMAKE_BUILD_TYPE=Release)
    mfad_step("build the tutorial with CMake" ${CMAKE_COMMAND} --build ${tdir}/build)
    mfad_run_tutorial("CMake" ${tdir}/build/stretch)
    if(MFAD_HAVE_CUDA)
      # the user's energy got its CUDA half: the kernel's CUDA table is linked in (a weak reference otherwise)
      execute_process(COMMAND nm ${tdir}/build/stretch OUTPUT_VARIABLE syms)
      if(NOT syms MATCHES "[RDd] MfadCudaKernel_sym_dirichlet")
        message(FATAL_ERROR "install test: mfad has CUDA but the tutorial's energy has no CUDA entry points (MfadCudaKernel_sym_dirichlet)")
      endif()
      message(STATUS "install test: the tutorial's energy has its CUDA entry points: ok")
    endif()
  else()
    # a compiler launcher of the environment (ccache: scripts/ccache.sh), as the CMake build takes
    # it from CMAKE_C_COMPILER_LAUNCHER: the tutorial's energy at -O3 is most of this test's time
    set(cc ${MFAD_C_COMPILER})
    if(DEFINED ENV{CMAKE_C_COMPILER_LAUNCHER} AND NOT "$ENV{CMAKE_C_COMPILER_LAUNCHER}" STREQUAL "")
      set(cc "$ENV{CMAKE_C_COMPILER_LAUNCHER} ${MFAD_C_COMPILER}")
    endif()
    mfad_step("build the tutorial with make and pkg-config" make -C ${tdir} "CC=${cc}")
    mfad_run_tutorial("Makefile" ${tdir}/stretch)
  endif()
  return()
endif()

# ---------------------------------------------------------------- 1. install
mfad_step("cmake --install" ${CMAKE_COMMAND} --install ${MFAD_BUILD_DIR} --prefix ${prefix})

# ---------------------------------------------------------------- 2. find_package(mfad)
set(cbuild ${MFAD_WORK_DIR}/cmake-build)
mfad_step("configure with find_package(mfad)" ${CMAKE_COMMAND} -S ${MFAD_TEST_SOURCE_DIR} -B ${cbuild} ${gen}
          -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${MFAD_C_COMPILER} -DCMAKE_BUILD_TYPE=Release
          -DMFAD_WARN_ENERGY=${MFAD_WARN_ENERGY})
execute_process(COMMAND ${CMAKE_COMMAND} --build ${cbuild} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install test: build with find_package(mfad) failed (exit ${rc}):\n${out}")
endif()
if(NOT out MATCHES "unused_local\\.c:7:[0-9]+: warning: unused variable")
  message(FATAL_ERROR "install test: the warning in tests/translator/warn/unused_local.c (line 7) did not reach the build log at the user's line:\n${out}")
endif()
message(STATUS "install test: build with find_package(mfad), a warning at the user's line: ok")
mfad_step("run the find_package(mfad) build" ${cbuild}/consumer)
get_filename_component(meshes ${MFAD_TEST_SOURCE_DIR}/../meshes ABSOLUTE)
# the mesh library alone: linked without libmfad, which it must not need
macro(mfad_check_mesh_only exe)
  execute_process(COMMAND readelf -d ${exe} OUTPUT_VARIABLE needed)
  if(needed MATCHES "libmfad\\.so")
    message(FATAL_ERROR "install test: ${exe}, linked with the mesh library only, needs libmfad:\n${needed}")
  endif()
endmacro()
mfad_check_mesh_only(${cbuild}/mesh_only)
mfad_step("run the mesh-only program (mfad::mfadmesh)" ${cbuild}/mesh_only ${meshes} ${cbuild})

# ---------------------------------------------------------------- 3. pkg-config mfad
mfad_pkg_config_path()
execute_process(COMMAND ${MFAD_PKG_CONFIG} --cflags --libs mfad RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install test: pkg-config --cflags --libs mfad failed (PKG_CONFIG_PATH=${pcdir}):\n${err}")
endif()
execute_process(COMMAND ${MFAD_PKG_CONFIG} --variable=libdir mfad OUTPUT_VARIABLE libdir OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT EXISTS ${libdir}/libmfad.so)
  message(FATAL_ERROR "install test: mfad.pc's libdir '${libdir}' has no libmfad.so: the .pc file does not point into the prefix it was installed in (${prefix})")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
set(pbuild ${MFAD_WORK_DIR}/pkgconfig-build)
file(MAKE_DIRECTORY ${pbuild})
mfad_step("compile with pkg-config mfad (${MFAD_C_COMPILER} ... ${flags})"
          ${MFAD_C_COMPILER} -Wall -Wextra -o ${pbuild}/consumer ${MFAD_TEST_SOURCE_DIR}/consumer.c ${flags} -Wl,-rpath,${libdir})
mfad_step("run the pkg-config build" ${pbuild}/consumer)
execute_process(COMMAND ${MFAD_PKG_CONFIG} --cflags --libs mfadmesh RESULT_VARIABLE rc OUTPUT_VARIABLE flags ERROR_VARIABLE err
                OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "install test: pkg-config --cflags --libs mfadmesh failed (PKG_CONFIG_PATH=${pcdir}):\n${err}")
endif()
separate_arguments(flags UNIX_COMMAND "${flags}")
mfad_step("compile the mesh-only program with pkg-config mfadmesh (${MFAD_C_COMPILER} ... ${flags})"
          ${MFAD_C_COMPILER} -Wall -Wextra -o ${pbuild}/mesh_only ${MFAD_TEST_SOURCE_DIR}/../test_mesh_only.c ${flags} -Wl,-rpath,${libdir})
mfad_check_mesh_only(${pbuild}/mesh_only)
mfad_step("run the pkg-config mesh-only build" ${pbuild}/mesh_only ${meshes} ${pbuild})
