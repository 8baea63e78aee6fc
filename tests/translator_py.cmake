# SPDX-License-Identifier: BSD-2-Clause
# the translator's passes, one by one (tests/translator_py/, pytest, about a second): activity sets,
# the feature matrix B, a fused univariate jet, adjoint sweeps of single statements, and the golden
# generated code of three energies (tests/translator_py/golden/: an intended change to generated
# code is a reviewed diff; the test's message names the command that regenerates them)
_mfad_find_translator()
set(mfad_pytest_python)
foreach(py ${MFAD_TRANSLATOR_PYTHON} /usr/bin/python3)
  execute_process(COMMAND ${py} -c "import pycparser, pytest" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
  if(rc EQUAL 0)
    set(mfad_pytest_python ${py})
    break()
  endif()
endforeach()
if(mfad_pytest_python)
  add_test(NAME translator_passes
    COMMAND ${mfad_pytest_python} -m pytest -q -p no:cacheprovider ${CMAKE_CURRENT_SOURCE_DIR}/translator_py)
  # no __pycache__ in the source tree
  set_tests_properties(translator_passes PROPERTIES ENVIRONMENT "PYTHONDONTWRITEBYTECODE=1")
else()
  # reported as skipped (not run) by ctest, not passed
  add_test(NAME translator_passes COMMAND ${CMAKE_COMMAND} -E echo "translator_passes: no Python 3 with pycparser and pytest (Debian: apt install python3-pytest; scripts/setup.sh)")
  set_tests_properties(translator_passes PROPERTIES DISABLED ON)
endif()
set_tests_properties(translator_passes PROPERTIES LABELS "unit")
