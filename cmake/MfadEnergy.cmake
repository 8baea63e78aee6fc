# SPDX-License-Identifier: BSD-2-Clause
# mfad_add_energy(<target> <name> [SOURCE <file.c>] [HEADER <file.h>] [BUILTIN] [NO_CUDA] [ROLL_HESSIAN_ROWS] [LANES | NO_LANES]
#                 [LANES_MODES <gradient|hvp|value|hessian|diagonal>...] [CUDA_DIAGONAL_COLUMNS] [COMPILE_OPTIONS <opt>...])
#   Compiles energy <name> into <target>: value, gradient, fused HVP and element Hessian on the
#   CPU, as the kernel MfadKernel_<name>; when the library has CUDA, the same source is also
#   compiled by nvcc into <target> (the kernel's CUDA entry points, -mfad_backend cuda).
#   SOURCE (default <name>.c beside the caller, if it exists) is a plain-C energy (see
#   include/mfad/energy.h): mfad-energy translates it at build time, and rebuilds when it or a
#   header it includes changes. HEADER is an energy written against the AD API (T and OP()).
#   Use it from a user project after find_package(mfad); then MfadKernelRegister(MFAD_KERNEL(name)).
#   The energy compiles as two objects that build in parallel: the kernel with every mode but the
#   element Hessian's, and the Hessian and block-diagonal loops (MFAD_INSTANTIATE_MODES).
#   ROLL_HESSIAN_ROWS keeps Hessian mode's rows as loops on the host (energies of many unknowns:
#   a fraction of the compile time, see include/mfad/impl/ad.h).
#   LANES: the CPU gradient and HVP also over SIMD lanes, one element a lane (mfad-energy --lanes,
#   include/mfad/impl/loop_cpu_lanes.h), where the translator finds the energy's reverse body fit
#   for them (else a note, and the scalar path): a second body in the gradient/HVP unit. The lanes'
#   width: -DMFAD_LANES_WIDTH=4|8 at configure time (default 4, include/mfad/impl/ad_lanes.h).
#   A SOURCE energy that is not BUILTIN (a user's) has lanes unless it says NO_LANES or names its
#   own: its gradient and HVP, and its element Hessians where it declares no features, run on lanes
#   where the target has 256-bit registers (MfadKernel.lanes, -mfad_view).
#   LANES_MODES: these modes on lanes (implies LANES; LANES alone: gradient hvp), the others on the
#   scalar loop: where bench_lanes measured the lanes slower for a mode of the energy, or the value
#   (line searches) where faster (energies/CMakeLists.txt); hessian: the element Hessians (Hessian
#   mode) on lanes, the lanes' body in the Hessian's unit too; diagonal: the Hessian diagonal (the
#   Jacobi preconditioner's) on lanes by the element Hessian's sweep, its loop in the Hessian's unit.
#   CUDA_DIAGONAL_COLUMNS: the GPU's Hessian diagonal by N HVP columns instead of the diagonal
#   mode, for an energy whose diagonal-mode body does not fit a thread (ptxas's stack over 1 KB
#   where the columns' is under it: docs/gpu.md).
#   COMPILE_OPTIONS replaces the default -O3 (test energies that exercise every operation at
#   N = 16 take minutes at -O1 and seconds at -O0); NO_CUDA skips the nvcc compile.
set(MFAD_ENERGY_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR})

# the translator: tools/ of the source tree, or bin/ of an installed mfad
function(_mfad_find_translator)
  if(MFAD_ENERGY_TRANSLATOR AND MFAD_TRANSLATOR_PYTHON)
    return()
  endif()
  if(NOT MFAD_ENERGY_TRANSLATOR) # mfadConfig.cmake sets the installed one
    set(t ${MFAD_ENERGY_CMAKE_DIR}/../tools/mfad-energy)
    if(NOT EXISTS ${t})
      message(FATAL_ERROR "mfad_add_energy: mfad-energy not found (${t})")
    endif()
    get_filename_component(t ${t} REALPATH)
    set(MFAD_ENERGY_TRANSLATOR ${t} CACHE FILEPATH "mfad-energy, the plain-C energy translator")
  endif()
  # a Python 3 that has pycparser (Debian's python3-pycparser is for /usr/bin/python3)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  foreach(py ${Python3_EXECUTABLE} /usr/bin/python3)
    if(py)
      execute_process(COMMAND ${py} -c "import pycparser" RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
      if(rc EQUAL 0)
        set(MFAD_TRANSLATOR_PYTHON ${py} CACHE FILEPATH "Python 3 with pycparser, for mfad-energy")
        return()
      endif()
    endif()
  endforeach()
  message(FATAL_ERROR "mfad_add_energy: plain-C energies need Python 3 with pycparser (Debian: apt install python3-pycparser; or pip install pycparser)")
endfunction()

function(mfad_add_energy target name)
  cmake_parse_arguments(ARG "BUILTIN;NO_CUDA;ROLL_HESSIAN_ROWS;CUDA_DIAGONAL_COLUMNS;LANES;NO_LANES" "HEADER;SOURCE" "COMPILE_OPTIONS;LANES_MODES" ${ARGN})
  if(ARG_NO_LANES AND (ARG_LANES OR ARG_LANES_MODES))
    message(FATAL_ERROR "mfad_add_energy(${name}): NO_LANES with LANES or LANES_MODES")
  endif()
  set(user_lanes OFF)
  if(ARG_SOURCE AND NOT ARG_BUILTIN AND NOT ARG_NO_LANES AND NOT ARG_LANES AND NOT ARG_LANES_MODES)
    # a user's plain-C energy: its gradient and HVP on lanes unless it says NO_LANES (faster on every
    # energy measured: bench/README.md; where mfad-energy cannot, a note and the scalar path), and its
    # element Hessians where it declares no features (MFAD_LANES_USER: include/mfad/impl/instantiate.h
    # chooses, knowing the features). The built-in energies name their modes (energies/CMakeLists.txt)
    set(ARG_LANES ON)
    set(user_lanes ON)
  endif()
  set(lanes_modes 3) # bits of include/mfad/impl/loop_cpu_lanes.h's MFAD_LANES_MODES: 1 gradient, 2 HVP
  if(ARG_LANES_MODES)
    set(ARG_LANES ON)
    set(lanes_modes 0)
    foreach(mode ${ARG_LANES_MODES})
      if(mode STREQUAL "gradient")
        math(EXPR lanes_modes "${lanes_modes} | 1")
      elseif(mode STREQUAL "hvp")
        math(EXPR lanes_modes "${lanes_modes} | 2")
      elseif(mode STREQUAL "value")
        math(EXPR lanes_modes "${lanes_modes} | 4")
      elseif(mode STREQUAL "hessian")
        math(EXPR lanes_modes "${lanes_modes} | 8")
      elseif(mode STREQUAL "diagonal")
        math(EXPR lanes_modes "${lanes_modes} | 16")
      else()
        message(FATAL_ERROR "mfad_add_energy(${name}): LANES_MODES ${mode}: the modes on lanes are gradient, hvp, value, hessian and diagonal")
      endif()
    endforeach()
  endif()
  if(NOT ARG_COMPILE_OPTIONS)
    # in mfad's own tree, its host tuning too (MFAD_NATIVE: the 4-wide derivative lanes of
    # mfad/impl/ad.h are two SSE halves without it: the advdiff Jacobian measured 2x slower)
    set(ARG_COMPILE_OPTIONS -O3 -fno-math-errno ${MFAD_HOST_TUNING})
  endif()
  if(MFAD_SANITIZE)
    # the sanitizer build's own level (-O1): at -O3 ASan and UBSan take a minute per energy
    # (neohookean_tet: 61 s against 8 s at -O1), most of CI's sanitizer stage. And no use-after-scope
    # check: a generated body's scopes hold only its own temporaries (no pointer leaves them), and
    # that check's instrumentation of their thousands of locals was half the compile (arap_surface
    # 90 -> 40 s, a user's Mooney-Rivlin on lanes 31 -> 16 s); out-of-bounds checks stay
    list(REMOVE_ITEM ARG_COMPILE_OPTIONS -O3)
    list(APPEND ARG_COMPILE_OPTIONS -fno-sanitize-address-use-after-scope)
  endif()
  if(NOT ARG_HEADER AND NOT ARG_SOURCE)
    if(EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c)
      set(ARG_SOURCE ${CMAKE_CURRENT_SOURCE_DIR}/${name}.c)
    else()
      set(ARG_HEADER ${CMAKE_CURRENT_SOURCE_DIR}/${name}.h)
    endif()
  endif()
  set(unit ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.c)
  # Generated files name no absolute path, so that a compiler cache (ccache's base_dir) hits
  # whichever folder the tree is in: #line names relative to the directory the compiler runs in
  # (the target's binary directory with Makefiles, the build tree's top with Ninja), and the
  # energy's files included by base name from a directory on the quote include path
  set(cwd)
  if(CMAKE_GENERATOR MATCHES "Make")
    get_target_property(cwd ${target} BINARY_DIR)
  elseif(CMAKE_GENERATOR MATCHES "Ninja")
    set(cwd ${CMAKE_BINARY_DIR})
  endif()
  set(incdir ${CMAKE_CURRENT_BINARY_DIR})
  if(ARG_SOURCE)
    get_filename_component(source ${ARG_SOURCE} ABSOLUTE)
    if(NOT EXISTS ${source})
      message(FATAL_ERROR "mfad_add_energy(${name}): no energy source ${source}")
    endif()
    _mfad_find_translator()
    get_filename_component(tooldir ${MFAD_ENERGY_TRANSLATOR} DIRECTORY)
    set(roll)
    if(ARG_ROLL_HESSIAN_ROWS)
      set(roll --roll-hessian-rows)
    endif()
    if(ARG_LANES)
      list(APPEND roll --lanes)
    endif()
    if(cwd)
      list(APPEND roll --line-directory ${cwd})
    endif()
    # the translator is a launcher and the package mfad_energy (tools/, or share/mfad/python of an install):
    # a change to either translates again
    file(GLOB translator_py ${tooldir}/mfad_energy/*.py ${tooldir}/../share/mfad/python/mfad_energy/*.py)
    # the translated unit compiles on its own (it includes mfad/impl/instantiate.h)
    add_custom_command(OUTPUT ${unit}
      COMMAND ${MFAD_TRANSLATOR_PYTHON} ${MFAD_ENERGY_TRANSLATOR} ${source} -o ${unit} --name ${name}
              --cpp "${CMAKE_C_COMPILER} -E" --depfile ${unit}.d ${roll}
      DEPENDS ${source} ${MFAD_ENERGY_TRANSLATOR} ${translator_py}
      DEPFILE ${unit}.d
      COMMENT "mfad-energy: ${name} from ${source}"
      VERBATIM)
    # a custom command's rule reaches only targets of its own directory: the built-in energies are
    # added from energies/ to the library defined above it, so a target carries the rule
    add_custom_target(mfad_translate_${name} DEPENDS ${unit})
    add_dependencies(${target} mfad_translate_${name})
    set_source_files_properties(${unit} TARGET_DIRECTORY ${target} PROPERTIES GENERATED ON)
    set(src "#include \"mfad_energy_${name}.c\"\n")
  else()
    get_filename_component(header ${ARG_HEADER} ABSOLUTE)
    if(NOT EXISTS ${header})
      message(FATAL_ERROR "mfad_add_energy(${name}): no header ${header}")
    endif()
    get_filename_component(incdir ${header} DIRECTORY)
    get_filename_component(hname ${header} NAME)
    set(src "#define MFAD_ENERGY_NAME   ${name}\n#define MFAD_ENERGY_HEADER \"${hname}\"\n")
    if(ARG_ROLL_HESSIAN_ROWS)
      # in the source itself: source properties set here would not reach a target of another directory
      string(APPEND src "#define MFAD_ROLL_HESSIAN_ROWS 1\n")
    endif()
    string(APPEND src "#define MFAD_IMPL_ALLOWED  1\n#include <mfad/impl/instantiate.h>\n")
    file(CONFIGURE OUTPUT ${unit} CONTENT "${src}")
  endif()
  # Two translation units that build in parallel (include/mfad/impl/instantiate.h,
  # MFAD_INSTANTIATE_MODES): the unit itself compiles the kernel and every mode but the element
  # Hessian's, a wrapper of it the Hessian and block-diagonal loops, at least half of the compile
  # time (tests/buildtime.cmake's yardstick: 3 s and 5.5 s, against 9 s as one unit)
  set(hunit ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}_hessian.c)
  # the Hessian diagonal on lanes (LANES_MODES diagonal) takes the element Hessian's dual numbers on
  # lanes: its loop moves to the Hessian's unit, whose lanes' body has them
  set(hmodes "32 /* MFAD_PART_HESSIAN */")
  set(kmodes 31)
  if(ARG_LANES AND (lanes_modes GREATER_EQUAL 16))
    set(hmodes "48 /* MFAD_PART_HESSIAN | MFAD_PART_DIAGONAL */")
    set(kmodes 15)
  endif()
  file(CONFIGURE OUTPUT ${hunit} CONTENT "#define MFAD_INSTANTIATE_MODES ${hmodes}\n#include \"mfad_energy_${name}.c\"\n")
  target_sources(${target} PRIVATE ${unit} ${hunit})
  # element code is compute-bound: full optimisation whatever the build type; warnings on, so
  # that the generated code (whose #line directives name the user's file) is checked as theirs
  set_source_files_properties(${unit} ${hunit} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "${ARG_COMPILE_OPTIONS};-Wall;-Wextra;-iquote;${incdir}")
  set(defs "MFAD_INSTANTIATE_MODES=${kmodes}")
  if(ARG_LANES AND MFAD_LANES_WIDTH)
    # the lanes' width chosen at configure time (default 4: include/mfad/impl/ad_lanes.h says why)
    list(APPEND defs "MFAD_LANES_WIDTH=${MFAD_LANES_WIDTH}")
  endif()
  if(user_lanes)
    list(APPEND defs "MFAD_LANES_USER=1")
  elseif(ARG_LANES AND NOT lanes_modes EQUAL 3)
    list(APPEND defs "MFAD_LANES_MODES=${lanes_modes}")
  endif()
  set_source_files_properties(${unit} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_DEFINITIONS "${defs}")
  if(ARG_LANES AND (lanes_modes GREATER_EQUAL 8 OR user_lanes))
    # the element Hessian or the diagonal on lanes: the Hessian's unit takes the lanes' body too
    list(REMOVE_ITEM defs "MFAD_INSTANTIATE_MODES=${kmodes}")
    set_source_files_properties(${hunit} TARGET_DIRECTORY ${target} PROPERTIES COMPILE_DEFINITIONS "${defs}")
  endif()
  set_source_files_properties(${hunit} TARGET_DIRECTORY ${target} PROPERTIES OBJECT_DEPENDS ${unit})
  if(MFAD_HAVE_CUDA AND NOT ARG_NO_CUDA)
    set(cusrc "${src}")
    if(ARG_CUDA_DIAGONAL_COLUMNS)
      set(cusrc "#define MFAD_CUDA_DIAGONAL_COLUMNS 1\n${src}")
    endif()
    file(CONFIGURE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu CONTENT "${cusrc}")
    target_sources(${target} PRIVATE ${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu)
    # nvcc has no -iquote: the energy's directory on its include path
    set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu TARGET_DIRECTORY ${target} PROPERTIES COMPILE_OPTIONS "-I${incdir}")
    if(ARG_SOURCE)
      set_source_files_properties(${CMAKE_CURRENT_BINARY_DIR}/mfad_energy_${name}.cu TARGET_DIRECTORY ${target} PROPERTIES OBJECT_DEPENDS ${unit})
    endif()
    if(TARGET CUDA::cudart)
      target_link_libraries(${target} PRIVATE CUDA::cudart)
    endif()
  endif()
  # the math library (its link script brings glibc's vector math, libmvec, which the lanes call:
  # include/mfad/impl/ad_lanes.h); GNU ld takes no symbol from a library only libmfad needs
  if(UNIX)
    target_link_libraries(${target} PRIVATE m)
  endif()
  if(TARGET OpenMP::OpenMP_C)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  if(ARG_BUILTIN)
    set_property(GLOBAL APPEND PROPERTY MFAD_BUILTIN_ENERGIES ${name})
    if(ARG_LANES)
      # the built-in energies on lanes and their modes (tests/features.cmake builds them again at 8 lanes)
      set_property(GLOBAL APPEND PROPERTY MFAD_BUILTIN_LANES_ENERGIES ${name})
      set_property(GLOBAL PROPERTY MFAD_BUILTIN_LANES_MODES_${name} ${ARG_LANES_MODES})
    endif()
  endif()
endfunction()
