// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target for the OBJ, OFF, TetGen, Gmsh and Medit readers (input layout: fuzz_readers.h). Built and
   run by scripts/fuzz.sh with clang -fsanitize=fuzzer,address,undefined; not by CMake (gcc has
   no libFuzzer). PETSc is initialised once, without its signal handlers (the sanitizers catch
   the crashes) and with its errors silenced: a reader's error is a clean outcome. */
#include "fuzz_readers.h"

static char dir[256];

static void FuzzAtExit(void) { FuzzCleanup(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  FuzzInitialize(dir, sizeof(dir), "mfad_fuzz", FuzzAtExit);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  (void)FuzzReadersRun(dir, data, size);
  return 0;
}
