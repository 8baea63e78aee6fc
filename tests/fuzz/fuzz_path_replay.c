// SPDX-License-Identifier: BSD-2-Clause
/* Replays fuzz inputs (-fuzz_list <file>: files or folders, one a line; default tests/fuzz/regressions/)
   along the whole path of fuzz_path.h on every rank of PETSC_COMM_WORLD: what libFuzzer ran on one
   process, on 2 ranks (scripts/fuzz.sh after its run, over the corpus; the ctest
   test_fuzz_path_2 over the saved regressions). Each input must end cleanly on every rank, an
   energy evaluated or a PETSc error; a crash, an abort or a hang (the caller's timeout) fails it.
   Prints one summary line on rank 0. */
#include <dirent.h>
#include <sys/stat.h>
#include "fuzz_path.h"

#if !defined(MFAD_FUZZ_REGRESSIONS)
#define MFAD_FUZZ_REGRESSIONS "tests/fuzz/regressions"
#endif

typedef struct {
  char      dir[256];
  int       ninputs, nerr, nok;
  PetscBool verbose; /* name each input on stderr before it runs (rank 0): a crash names its input */
} Replay;

static PetscErrorCode ReplayFile(Replay *rp, const char path[])
{
  FILE          *fp;
  uint8_t       *data;
  long           size;
  PetscErrorCode ierr;

  PetscFunctionBeginUser;
  fp = fopen(path, "rb");
  PetscCheck(fp && !fseek(fp, 0, SEEK_END) && (size = ftell(fp)) >= 0 && !fseek(fp, 0, SEEK_SET), PETSC_COMM_SELF, PETSC_ERR_FILE_READ,
             "cannot read %s", path);
  PetscCall(PetscMalloc1(size + 1, &data));
  PetscCheck((long)fread(data, 1, (size_t)size, fp) == size, PETSC_COMM_SELF, PETSC_ERR_FILE_READ, "cannot read %s", path);
  fclose(fp);
  rp->ninputs++;
  if (rp->verbose) {
    fprintf(stderr, "fuzz input %d: %s\n", rp->ninputs, path);
    fflush(stderr);
  }
  /* its errors silenced: a bad input's error is a clean outcome */
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = FuzzPathRun(PETSC_COMM_WORLD, rp->dir, data, (size_t)size);
  PetscCall(PetscPopErrorHandler());
  if (ierr) rp->nerr++;
  else rp->nok++;
  PetscCall(PetscFree(data));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* a folder's files in name order, so that every rank replays the same input at the same time */
static PetscErrorCode ReplayPath(Replay *rp, const char path[])
{
  struct stat     st;
  struct dirent **names;
  int             n;

  PetscFunctionBeginUser;
  PetscCheck(!stat(path, &st), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path);
  if (!S_ISDIR(st.st_mode)) {
    PetscCall(ReplayFile(rp, path));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  n = scandir(path, &names, NULL, alphasort);
  PetscCheck(n >= 0, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot list %s", path);
  for (int i = 0; i < n; i++) {
    char file[PETSC_MAX_PATH_LEN];

    if (names[i]->d_name[0] != '.') {
      PetscCall(PetscSNPrintf(file, sizeof(file), "%s/%s", path, names[i]->d_name));
      PetscCall(ReplayFile(rp, file));
    }
    free(names[i]);
  }
  free(names);
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  Replay      rp = {.ninputs = 0};
  PetscMPIInt rank, size;
  char        list[PETSC_MAX_PATH_LEN] = "";
  PetscBool   has_list;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-fuzz_verbose", &rp.verbose));
  rp.verbose = (PetscBool)(rp.verbose && rank == 0);
  snprintf(rp.dir, sizeof(rp.dir), "%s/mfad_fuzzreplay_XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  PetscCheck(mkdtemp(rp.dir), PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot create %s", rp.dir);
  /* -fuzz_list <file>: the inputs (files or folders), one a line; else the saved regressions */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-fuzz_list", list, sizeof(list), &has_list));
  if (has_list) {
    FILE *fp = fopen(list, "r");
    char  line[PETSC_MAX_PATH_LEN];

    PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open -fuzz_list %s", list);
    while (fgets(line, sizeof(line), fp)) {
      line[strcspn(line, "\r\n")] = '\0';
      if (line[0]) PetscCall(ReplayPath(&rp, line));
    }
    fclose(fp);
  } else PetscCall(ReplayPath(&rp, MFAD_FUZZ_REGRESSIONS));
  FuzzCleanup(rp.dir);
  PetscCheck(rp.ninputs, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "no fuzz inputs");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d inputs on %d ranks: %d energies evaluated, %d PETSc errors, no crash\n", rp.ninputs, (int)size, rp.nok,
                        rp.nerr));
  PetscCall(PetscFinalize());
  return 0;
}
