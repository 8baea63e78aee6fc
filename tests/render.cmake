# SPDX-License-Identifier: BSD-2-Clause
# Pictures (python/mfad/render.py; scripts/render.sh calls it): pytest in tests/render_py/, a few
# seconds each. VTU files the examples write (elastic's tets in ASCII and binary, param's planar
# triangles) and numpy arrays drawn to PNGs of the size asked, showing the field's colours where the
# mesh is; the command line's messages on a missing file, an unknown field, an unreadable file.
# Defined only where Debian's Python has meshio, matplotlib and pytest (scripts/setup.sh installs them).
set(MFAD_RENDER_PYTHON /usr/bin/python3 CACHE FILEPATH "Python with numpy, matplotlib, meshio and pytest for the render tests")
execute_process(COMMAND ${MFAD_RENDER_PYTHON} -c "import numpy, matplotlib, meshio, pytest" RESULT_VARIABLE mfad_render_rc
                OUTPUT_QUIET ERROR_QUIET)
if(NOT mfad_render_rc EQUAL 0)
  message(STATUS "render tests: ${MFAD_RENDER_PYTHON} lacks numpy, matplotlib, meshio or pytest (Debian: python3-matplotlib python3-meshio python3-pytest): not defined")
  return()
endif()
# no __pycache__ in the source tree; matplotlib's font cache in the build tree, not in ~ (read-only homes)
set(mfad_render_env "${MFAD_MPI_ENV};PYTHONPATH=${PROJECT_SOURCE_DIR}/python;PYTHONDONTWRITEBYTECODE=1;MPLCONFIGDIR=${CMAKE_CURRENT_BINARY_DIR}/mplconfig;OMP_NUM_THREADS=1")
set(mfad_render_pytest ${MFAD_RENDER_PYTHON} -m pytest -q -p no:cacheprovider)
add_test(NAME render_arrays COMMAND ${mfad_render_pytest} ${CMAKE_CURRENT_SOURCE_DIR}/render_py/test_render_arrays.py)
set(mfad_render_tests render_arrays)
if(MFAD_BUILD_EXAMPLES)
  foreach(t vtu cli)
    add_test(NAME render_${t} COMMAND ${mfad_render_pytest} ${CMAKE_CURRENT_SOURCE_DIR}/render_py/test_render_${t}.py
                                      --elastic $<TARGET_FILE:elastic> --param $<TARGET_FILE:param>)
    list(APPEND mfad_render_tests render_${t})
  endforeach()
endif()
set_tests_properties(${mfad_render_tests} PROPERTIES ENVIRONMENT "${mfad_render_env}" LABELS "render" TIMEOUT 120)
