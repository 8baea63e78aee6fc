# SPDX-License-Identifier: BSD-2-Clause
# The kernel-level GPU check (tests/gpu/kernelcheck.cu, docs/gpu.md) under the CUDA emulation:
# every CUDA entry point of the emulated energies (MFAD_CUDA_EMU_ENERGIES, tests/cuda.cmake's
# mfad_cudaemu, which holds their CPU kernels and their emulated CUDA tables) against the CPU
# element bodies, then the two workloads at a few hundred elements, so that the program that
# scripts/gpu-check.sh builds with nvcc on a lent GPU (tests/gpu/CMakeLists.txt, no PETSc) has
# run its logic before a GPU is ever lent. Label cuda: stage 2 runs it too (scripts/test-cuda.sh).
if(NOT TARGET mfad_cudaemu)
  return()
endif()
set(gpucheck_emu ${CMAKE_CURRENT_BINARY_DIR}/gpucheck_emu)
set(gpucheck_list "")
# and the residual tests' energies it holds (tests/cuda.cmake's emu_test_energies): a least-squares
# residual and a system, for the residual modes
foreach(name IN LISTS MFAD_CUDA_EMU_ENERGIES emu_test_energies)
  string(APPEND gpucheck_list "MFAD_GPUCHECK_ENERGY(${name})\n")
endforeach()
file(CONFIGURE OUTPUT ${gpucheck_emu}/gpucheck_energies.h CONTENT "${gpucheck_list}")
file(CONFIGURE OUTPUT ${gpucheck_emu}/kernelcheck.cc CONTENT "#include <mfad/impl/cuda_emulate.h>\n#include \"${CMAKE_CURRENT_SOURCE_DIR}/gpu/kernelcheck.cu\"\n")
add_executable(gpu_kernelcheck_emu ${gpucheck_emu}/kernelcheck.cc)
target_include_directories(gpu_kernelcheck_emu PRIVATE ${gpucheck_emu} ${PROJECT_SOURCE_DIR}/include)
target_compile_definitions(gpu_kernelcheck_emu PRIVATE MFAD_IMPL_ALLOWED=1)
target_compile_options(gpu_kernelcheck_emu PRIVATE -Wall -Wextra -Wno-unused-function)
target_link_libraries(gpu_kernelcheck_emu PRIVATE mfad_cudaemu m)
# 64 elements per energy; a 3 x 3 x 4 box (216 tets) and a 12 x 12 cloth (506 springs), 2 repetitions
add_test(NAME gpu_kernelcheck_emu COMMAND gpu_kernelcheck_emu -n 64 -box 3 3 4 -cloth 12 -reps 2)
set_tests_properties(gpu_kernelcheck_emu PROPERTIES LABELS "unit;cuda")
