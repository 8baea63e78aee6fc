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
