# SPDX-License-Identifier: BSD-2-Clause
# The header tiers (tests/headers.sh): the machinery's guard, MfadKernel opaque to users, and the
# deprecated paths still compiling today's generated files, with a warning. A few small compiles.
_mfad_find_translator()
set(mfad_headers_inc ${PETSC_INCLUDE_DIRS} ${MPI_C_INCLUDE_DIRS})
list(REMOVE_DUPLICATES mfad_headers_inc)
list(TRANSFORM mfad_headers_inc PREPEND -I)
add_test(NAME header_tiers
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/headers.sh ${MFAD_TRANSLATOR_PYTHON} ${MFAD_ENERGY_TRANSLATOR} ${CMAKE_C_COMPILER}
          ${PROJECT_SOURCE_DIR}/include ${CMAKE_CURRENT_BINARY_DIR}/headers-work ${PROJECT_SOURCE_DIR}/energies/mass_spring.c
          ${CMAKE_CURRENT_SOURCE_DIR}/oracle/mass_spring.h ${mfad_headers_inc})
set_tests_properties(header_tiers PROPERTIES LABELS "unit")
