# SPDX-License-Identifier: BSD-2-Clause
# The install test (cmake -P, started by tests/install.cmake):
#   1. cmake --install MFAD_BUILD_DIR --prefix MFAD_WORK_DIR/prefix
#   2. configure, build and run tests/install/ with find_package(mfad) (target mfad::mfad)
#   3. compile and run tests/install/consumer.c with `pkg-config --cflags --libs mfad`
foreach(v MFAD_BUILD_DIR MFAD_TEST_SOURCE_DIR MFAD_WORK_DIR MFAD_C_COMPILER MFAD_PKG_CONFIG)
  if(NOT ${v})
    message(FATAL_ERROR "install test: -D${v}=... is required")
  endif()
endforeach()

set(prefix ${MFAD_WORK_DIR}/prefix)
file(REMOVE_RECURSE ${MFAD_WORK_DIR})
file(MAKE_DIRECTORY ${MFAD_WORK_DIR})

# runs a command; on failure stops with the command and its output
function(mfad_step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install test: ${what} failed (exit ${rc})\n  command: ${cmd}\n${out}")
  endif()
  message(STATUS "install test: ${what}: ok")
endfunction()

# ---------------------------------------------------------------- 1. install
mfad_step("cmake --install" ${CMAKE_COMMAND} --install ${MFAD_BUILD_DIR} --prefix ${prefix})

# ---------------------------------------------------------------- 2. find_package(mfad)
set(gen)
if(MFAD_GENERATOR)
  set(gen -G ${MFAD_GENERATOR})
endif()
set(cbuild ${MFAD_WORK_DIR}/cmake-build)
mfad_step("configure with find_package(mfad)" ${CMAKE_COMMAND} -S ${MFAD_TEST_SOURCE_DIR} -B ${cbuild} ${gen}
          -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_C_COMPILER=${MFAD_C_COMPILER} -DCMAKE_BUILD_TYPE=Release)
mfad_step("build with find_package(mfad)" ${CMAKE_COMMAND} --build ${cbuild})
mfad_step("run the find_package(mfad) build" ${cbuild}/consumer)

# ---------------------------------------------------------------- 3. pkg-config mfad
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
