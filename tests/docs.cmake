# SPDX-License-Identifier: BSD-2-Clause
# The API reference (Doxygen, when present): built with `all`, it documents the public API
# (a page that names MfadEnergySetSNES and MfadEnergyComputeHessianProduct) without warnings about
# unknown commands or bad markup (undocumented parameters are not checked).
if(DOXYGEN_FOUND)
  add_test(NAME docs_api_reference COMMAND sh -c "grep -l MfadEnergySetSNES '${MFAD_DOCS_DIR}/html/'*.html >/dev/null && grep -l MfadEnergyComputeHessianProduct '${MFAD_DOCS_DIR}/html/'*.html >/dev/null && ! grep -E 'unknown command|unable to resolve|end of comment block' '${MFAD_DOCS_DIR}/warnings.log'")
  set_tests_properties(docs_api_reference PROPERTIES LABELS "docs")
endif()
# The README's tutorial shows docs/tutorial's files as they are (the install test builds those files)
add_test(NAME docs_readme_tutorial COMMAND ${CMAKE_COMMAND} -DREADME=${PROJECT_SOURCE_DIR}/README.md
         -DDIR=${PROJECT_SOURCE_DIR}/docs/tutorial -P ${CMAKE_CURRENT_SOURCE_DIR}/docs/readme_tutorial.cmake)
set_tests_properties(docs_readme_tutorial PROPERTIES LABELS "docs")
