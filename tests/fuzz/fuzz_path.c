// SPDX-License-Identifier: BSD-2-Clause
/* libFuzzer target for the whole path from a mesh file to the energy's evaluation (fuzz_path.h):
   one process, PETSC_COMM_SELF; scripts/fuzz.sh builds it with clang -fsanitize=fuzzer against the
   library compiled with -fsanitize=fuzzer-no-link,address,undefined, runs it, then replays its
   corpus on 2 ranks (fuzz_path_replay.c). PETSc is initialised once, without its signal handlers
   (the sanitizers catch the crashes) and with its errors silenced: an error is a clean outcome. */
#include "fuzz_path.h"

static char dir[256];

static void FuzzAtExit(void) { FuzzCleanup(dir); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
  (void)argc, (void)argv;
  FuzzInitialize(dir, sizeof(dir), "mfad_fuzzpath", FuzzAtExit);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  (void)FuzzPathRun(PETSC_COMM_SELF, dir, data, size);
  return 0;
}
