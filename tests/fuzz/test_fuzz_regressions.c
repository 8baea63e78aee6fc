// SPDX-License-Identifier: BSD-2-Clause
/* Replays every saved fuzz input (tests/fuzz/regressions/: inputs that once crashed, leaked or
   hit undefined behaviour in a reader) through every reader. Each must end cleanly: a mesh that
   passes FuzzCheckMesh() or a PETSc error. A crash or an abort fails the test. */
#include <dirent.h>
#include "fuzz_readers.h"
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

int main(int argc, char **argv)
{
  const char *regressions = argc > 1 ? argv[1] : MFAD_FUZZ_REGRESSIONS;
  char        dir[256];
  DIR        *d;
  int         nfiles = 0, nerr = 0, nok = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  snprintf(dir, sizeof(dir), "%s/mfad_fuzzreg_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  if (!mkdtemp(dir) || !(d = opendir(regressions))) {
    fprintf(stderr, "cannot create a temporary folder or open %s\n", regressions);
    return 1;
  }
  for (struct dirent *e; (e = readdir(d));) {
    char     path[4096];
    FILE    *fp;
    uint8_t *data;
    long     size;

    if (e->d_name[0] == '.') continue;
    snprintf(path, sizeof(path), "%s/%s", regressions, e->d_name);
    if (!(fp = fopen(path, "rb")) || fseek(fp, 0, SEEK_END) || (size = ftell(fp)) < 0 || fseek(fp, 0, SEEK_SET)) {
      fprintf(stderr, "cannot read %s\n", path);
      return 1;
    }
    data = (uint8_t *)malloc((size_t)size + 1);
    if ((long)fread(data, 1, (size_t)size, fp) != size) return 1;
    fclose(fp);
    nfiles++;
    /* the input as saved, then its file through each reader */
    for (int which = -1; which < 6; which++) {
      const uint8_t first = data[0];

      if (size < 1) break;
      if (which >= 0) data[0] = (uint8_t)((first & 4) | (which < 4 ? which : 8 | (which - 4))); /* FuzzReader() */
      if (FuzzReadersRun(dir, data, (size_t)size)) nerr++;
      else nok++;
      data[0] = first;
    }
    free(data);
  }
  closedir(d);
  FuzzCleanup(dir);
#if defined(__SANITIZE_ADDRESS__)
  /* leaks now, while MPI's plugins are loaded and its allocations can be told apart by library
     (tests/fuzz/lsan.supp); a leak ends the program with an error */
  __lsan_do_leak_check();
#endif
  PetscCall(PetscPopErrorHandler());
  PetscCall(PetscFinalize());
  if (!nfiles) {
    fprintf(stderr, "no regression inputs in %s\n", regressions);
    return 1;
  }
  printf("%d inputs, %d reads: %d meshes, %d PETSc errors, no crash\n", nfiles, nok + nerr, nok, nerr);
  return 0;
}
