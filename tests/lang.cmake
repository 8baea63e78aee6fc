# SPDX-License-Identifier: BSD-2-Clause
# Energies written with the constructs mfad-energy lowers (tools/mfad_energy/lower.py: while with
# MFAD_MAX_ITERATIONS, switch, the comma, file-scope tables, loop bounds from p) or differentiates by
# table (erf ... lgamma, MFAD_DERIVATIVES): tests/test_lang.c checks each against finite differences,
# forward over reverse against forward over forward (<name>_fof, -DMFAD_NO_REVERSE, at -O0 as in
# tests/features.cmake); test_lang_cuda compiles their CUDA kernels as the CUDA emulation does.
mfad_check_test(test_lang)
set(lang_dir ${CMAKE_CURRENT_SOURCE_DIR}/energies)
# the energies as the plain C they are too: the kernels' values against mfad_energy_eval() of them
target_sources(test_lang PRIVATE ${lang_dir}/lang_math.c ${lang_dir}/lang_control.c ${lang_dir}/lang_loop_p.c)
foreach(name lang_math lang_control)
  mfad_add_energy(test_lang ${name} SOURCE ${lang_dir}/${name}.c NO_CUDA)
  mfad_add_energy(test_lang ${name}_fof SOURCE ${lang_dir}/${name}.c NO_CUDA COMPILE_OPTIONS -O0 -DMFAD_NO_REVERSE)
endforeach()
mfad_add_energy(test_lang lang_loop_p SOURCE ${lang_dir}/lang_loop_p.c NO_CUDA)
include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  set(lang_cuda)
  foreach(name lang_math lang_control lang_loop_p)
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/lang_cuda/${name}_cuda.cc
         CONTENT "#define MFAD_IMPL_ALLOWED 1\n#include <mfad/impl/cuda_emulate.h>\n#include \"mfad_energy_${name}.c\"\n")
    list(APPEND lang_cuda ${CMAKE_CURRENT_BINARY_DIR}/lang_cuda/${name}_cuda.cc)
  endforeach()
  add_library(test_lang_cuda OBJECT ${lang_cuda})
  target_link_libraries(test_lang_cuda PRIVATE mfad)
  target_compile_options(test_lang_cuda PRIVATE -O0 -Wall -Wextra -Wno-unused-function -iquote ${CMAKE_CURRENT_BINARY_DIR})
  add_dependencies(test_lang_cuda mfad_translate_lang_math mfad_translate_lang_control mfad_translate_lang_loop_p)
  add_dependencies(test_lang test_lang_cuda)
endif()
