# SPDX-License-Identifier: BSD-2-Clause
# The CUDA backend (label cuda; `ctest -L cuda` is the GPU smoke test, docs/gpu.md).
# - test_cuda: the real library, -mfad_backend cuda against cpu on every entry point; exits 77
#   (ctest: Skipped) where CUDA was not compiled or no device answers.
# - test_cuda_emu (1 and 2 ranks): the same test against mfad_cudaemu, a copy of the library whose
#   src/cuda/*.cu and energy kernels (mfad/impl/loop_cuda.h) are compiled by the host C++ compiler under
#   include/mfad/impl/cuda_emulate.h: the kernels, launchers, colour-batched launches, staging and COO layout
#   run on the CPU in every CI stage, with or without nvcc.
add_executable(test_cuda test_cuda.c)
target_link_libraries(test_cuda PRIVATE mfad PkgConfig::CHECK m)
target_compile_options(test_cuda PRIVATE -Wall -Wextra)
add_test(NAME test_cuda COMMAND test_cuda)
set_tests_properties(test_cuda PROPERTIES ENVIRONMENT "CK_DEFAULT_TIMEOUT=600;${MFAD_MPI_ENV}" LABELS "unit;cuda" SKIP_RETURN_CODE 77)

include(CheckLanguage)
check_language(CXX)
if(NOT CMAKE_CXX_COMPILER)
  message(STATUS "mfad: no C++ compiler: the CUDA emulation tests are not built")
  return()
endif()
enable_language(CXX)

# energies compiled into the emulated library: one of each element shape (2 x 3, 4 x 3, 3 x 2, 1 x 3)
# and a least-squares residual (its scalar entry points run the same kernels)
set(MFAD_CUDA_EMU_ENERGIES mass_spring neohookean_tet symmetric_dirichlet gravity arap_tri_lsq CACHE STRING "Energies of the CUDA emulation library")
# and the residual tests' own energies (tests/residual.cmake translates them): a least-squares and a
# system residual, for the residual operators on the device (test_cuda_residual)
set(emu_test_energies res_lsq res_sys)
set(emu ${CMAKE_CURRENT_BINARY_DIR}/cudaemu)
set(emu_sources)
# the core: mfad's own C sources but the no-CUDA stub
get_target_property(mfad_sources mfad SOURCES)
foreach(s IN LISTS mfad_sources)
  if(s MATCHES "^(src|shell)/.*\\.c$" AND NOT s MATCHES "^src/cuda/")
    list(APPEND emu_sources ${PROJECT_SOURCE_DIR}/${s})
  endif()
endforeach()
set(builtin "")
set(emu_translated)
foreach(name IN LISTS MFAD_CUDA_EMU_ENERGIES emu_test_energies)
  if(EXISTS ${PROJECT_SOURCE_DIR}/energies/${name}.c OR EXISTS ${CMAKE_CURRENT_SOURCE_DIR}/energies/${name}.c)
    # a plain-C energy: the unit mfad-energy wrote for the library instantiates the kernel itself
    set(body "#include \"mfad_energy_${name}.c\"\n")
    list(APPEND emu_translated mfad_translate_${name})
  else()
    set(body "#define MFAD_ENERGY_NAME   ${name}\n#define MFAD_ENERGY_HEADER \"${name}.h\"\n#define MFAD_IMPL_ALLOWED  1\n#include <mfad/impl/instantiate.h>\n")
  endif()
  file(CONFIGURE OUTPUT ${emu}/energy_${name}.c CONTENT "${body}")
  set(cudadefs "")
  if(name STREQUAL "mass_spring")
    # the diagonal by HVP columns (mfad_add_energy's CUDA_DIAGONAL_COLUMNS: corotated_tet on a GPU,
    # which the emulation does not build) is checked against the CPU through the springs; every
    # other emulated energy runs the diagonal mode
    set(cudadefs "#define MFAD_CUDA_DIAGONAL_COLUMNS 1\n")
  endif()
  file(CONFIGURE OUTPUT ${emu}/energy_${name}_cuda.cc CONTENT "#include <mfad/impl/cuda_emulate.h>\n${cudadefs}${body}")
  list(APPEND emu_sources ${emu}/energy_${name}.c ${emu}/energy_${name}_cuda.cc)
  string(APPEND builtin "MFAD_BUILTIN(${name})\n")
endforeach()
file(CONFIGURE OUTPUT ${emu}/include/mfadbuiltin.h CONTENT "${builtin}")
foreach(f backend cached psd residual)
  file(CONFIGURE OUTPUT ${emu}/${f}.cc CONTENT "#include <mfad/impl/cuda_emulate.h>\n#include \"cuda/${f}.cu\"\n")
  list(APPEND emu_sources ${emu}/${f}.cc)
endforeach()
# energies at -O1: correctness only, and neohookean's Hessian mode at -O3 costs a minute of g++
set_source_files_properties(${emu}/energy_neohookean_tet.c ${emu}/energy_neohookean_tet_cuda.cc PROPERTIES COMPILE_OPTIONS "-O1")
add_library(mfad_cudaemu SHARED ${emu_sources})
if(emu_translated)
  add_dependencies(mfad_cudaemu ${emu_translated})
endif()
# the energies by base name (no absolute path in a generated file: cmake/MfadEnergy.cmake)
target_include_directories(mfad_cudaemu PUBLIC ${PROJECT_SOURCE_DIR}/include PRIVATE ${emu}/include ${PROJECT_SOURCE_DIR}/src
                           ${PROJECT_BINARY_DIR}/energies ${PROJECT_SOURCE_DIR}/energies ${CMAKE_CURRENT_BINARY_DIR})
target_link_libraries(mfad_cudaemu PUBLIC mfadmesh PkgConfig::PETSC MPI::MPI_C PRIVATE OpenMP::OpenMP_C m)
# (energy headers' host-only rest set-up is unused in the kernels' translation units, as under nvcc)
target_compile_options(mfad_cudaemu PRIVATE -Wall -Wextra -fno-math-errno $<$<COMPILE_LANGUAGE:CXX>:-Wno-unused-function>)
# a copy of the library: the machinery's other half, as the library (CMakeLists.txt)
target_compile_definitions(mfad_cudaemu PRIVATE MFAD_IMPL_ALLOWED=1)

add_executable(test_cuda_emu test_cuda.c)
target_link_libraries(test_cuda_emu PRIVATE mfad_cudaemu PkgConfig::CHECK m)
target_compile_definitions(test_cuda_emu PRIVATE MFAD_TEST_CUDA_EMULATED)
target_compile_options(test_cuda_emu PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_cuda_emu_${np} ${np} $<TARGET_FILE:test_cuda_emu>)
  set_property(TEST test_cuda_emu_${np} APPEND PROPERTY LABELS cuda)
  set_property(TEST test_cuda_emu_${np} APPEND PROPERTY ENVIRONMENT "CK_DEFAULT_TIMEOUT=600")
endforeach()

# the backend's hardening with failures planted in the emulation (issue 49): PSD chunks, syevj's info
# and statuses, one upload of the point, per-term element-set changes, -mfad_cuda_sync
add_executable(test_cuda_hard test_cuda_hard.c)
target_link_libraries(test_cuda_hard PRIVATE mfad_cudaemu PkgConfig::CHECK m)
target_compile_options(test_cuda_hard PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_cuda_hard_${np} ${np} $<TARGET_FILE:test_cuda_hard>)
  set_property(TEST test_cuda_hard_${np} APPEND PROPERTY LABELS cuda)
endforeach()

# residual terms' own operators on the device (issue 49, item 3): every residual mode against the CPU
add_executable(test_cuda_residual test_cuda_residual.c)
target_link_libraries(test_cuda_residual PRIVATE mfad_cudaemu PkgConfig::CHECK m)
target_compile_options(test_cuda_residual PRIVATE -Wall -Wextra)
foreach(np 1 2)
  mfad_mpi_test(test_cuda_residual_${np} ${np} $<TARGET_FILE:test_cuda_residual>)
  set_property(TEST test_cuda_residual_${np} APPEND PROPERTY LABELS cuda)
endforeach()
