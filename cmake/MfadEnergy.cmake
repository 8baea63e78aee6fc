# SPDX-License-Identifier: BSD-2-Clause
# mfad_add_energy(<target> <name> [HEADER <file>] [BUILTIN] [NO_CUDA] [ROLL_HESSIAN_ROWS] [COMPILE_OPTIONS <opt>...])
#   ROLL_HESSIAN_ROWS keeps Hessian mode's rows as loops on the host (energies of many unknowns:
#   a fraction of the compile time, see include/mfad/ad.h)
#   Compiles energy <name> (header <file>, default energies/<name>.h beside the caller) into
#   <target>: value, gradient, fused HVP and element Hessian on the CPU, as MfadKernel_<name>;
#   when CUDA is enabled, the same header is also compiled by nvcc into <target> (the kernel's
#   CUDA entry points, -mfad_backend cuda).
#   Use it from a user project after find_package(mfad); then MfadKernelRegister(MFAD_KERNEL(name)).
#   COMPILE_OPTIONS replaces the default -O3 (test energies that exercise every operation at
#   N = 16 take minutes at -O1 and seconds at -O0); NO_CUDA skips the nvcc compile.
set(MFAD_ENERGY_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})
function(mfad_add_energy target name)
  cmake_parse_arguments(ARG "BUILTIN;NO_CUDA;ROLL_HESSIAN_ROWS" "HEADER" "COMPILE_OPTIONS" ${ARGN})
  if(NOT ARG_COMPILE_OPTIONS)
    set(ARG_COMPILE_OPTIONS -O3 -fno-math-errno)
  endif()
  if(NOT ARG_HEADER)
    set(ARG_HEADER ${CMAKE_CURRENT_SOURCE_DIR}/${name}.h)
  endif()
  get_filename_component(header ${ARG_HEADER} ABSOLUTE)
  if(NOT EXISTS ${header})
    message(FATAL_ERROR "mfad_add_energy(${name}): no header ${header}")
  endif()
  set(src "#define MFAD_ENERGY_NAME   ${name}\n#define MFAD_ENERGY_HEADER \"${header}\"\n")
  if(ARG_ROLL_HESSIAN_ROWS)
    # in the source itself: source properties set here would not reach a target of another directory
    string(APPEND src "#define MFAD_ROLL_HESSIAN_ROWS 1\n")
  endif()
  string(APPEND src "#include <mfad/instantiate.h>\n")
  file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.c CONTENT "${src}")
  target_sources(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.c)
  # element code is compute-bound: full optimisation whatever the build type
  set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.c PROPERTIES COMPILE_OPTIONS "${ARG_COMPILE_OPTIONS}")
  if(MFAD_HAVE_CUDA AND NOT ARG_NO_CUDA)
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu CONTENT "${src}")
    target_sources(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu)
    if(TARGET CUDA::cudart)
      target_link_libraries(${target} PRIVATE CUDA::cudart)
    endif()
  endif()
  if(TARGET OpenMP::OpenMP_C)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  if(ARG_BUILTIN)
    set_property(GLOBAL APPEND PROPERTY MFAD_BUILTIN_ENERGIES ${name})
  endif()
endfunction()
