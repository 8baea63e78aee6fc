// SPDX-License-Identifier: BSD-2-Clause
/* The built-in backends (libCEED's ceed-backend-list.h): MFAD_BACKEND(name, create function), one
   line each, expanded by src/mfadimpl.h into declarations and by src/backend.c into registrations
   at MfadInitializePackage(). A new backend adds its line here and its sources in CMakeLists.txt;
   a backend outside mfad calls MfadEnergyRegister() instead. Deliberately no include guard. */
MFAD_BACKEND(MFAD_ENERGY_CPU, MfadEnergyCreate_CPU)   /* src/cpu.c */
MFAD_BACKEND(MFAD_ENERGY_CUDA, MfadEnergyCreate_CUDA) /* src/cuda/backend.cu, or src/cuda/none.c's error where CUDA is not compiled */
