// SPDX-License-Identifier: BSD-2-Clause
/* STREAM triad a = b + s c (McCalpin's kernel, same byte count: 24 bytes per entry, write
   allocation not counted) with OpenMP, for the bench's memory-bandwidth bound. Prints
   'RESULT stream_triad_<threads> <GB/s median> <min> <max>' for 1 and 2 threads.
   Usage: stream [-n entries (default 2^25: 3 arrays of 256 MiB)] [-reps 10] */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int CompareDouble(const void *a, const void *b) { return (*(const double *)a > *(const double *)b) - (*(const double *)a < *(const double *)b); }

int main(int argc, char **argv)
{
  long    n = 1L << 25;
  int     reps = 10;
  double *a, *b, *c, t[64];

  for (int i = 1; i + 1 < argc; i += 2) {
    if (!strcmp(argv[i], "-n")) n = atol(argv[i + 1]);
    else if (!strcmp(argv[i], "-reps")) reps = atoi(argv[i + 1]);
  }
  if (reps < 1 || reps > 64 || n < 1) {
    fprintf(stderr, "stream: -reps must be 1-64 and -n positive\n");
    return 1;
  }
  a = malloc(n * sizeof(double));
  b = malloc(n * sizeof(double));
  c = malloc(n * sizeof(double));
  if (!a || !b || !c) {
    fprintf(stderr, "stream: cannot allocate 3 x %ld doubles\n", n);
    return 1;
  }
  for (int nt = 1; nt <= 2; nt++) {
#pragma omp parallel for num_threads(nt) schedule(static) /* first touch by the threads that use them */
    for (long i = 0; i < n; i++) {
      a[i] = 0.0;
      b[i] = 1.0;
      c[i] = 2.0;
    }
    for (int r = -1; r < reps; r++) {
      const double s = 3.0, t0 = omp_get_wtime();
#pragma omp parallel for num_threads(nt) schedule(static)
      for (long i = 0; i < n; i++) a[i] = b[i] + s * c[i];
      if (r >= 0) t[r] = omp_get_wtime() - t0;
    }
    qsort(t, reps, sizeof(double), CompareDouble);
    /* bandwidth: the fastest time is the highest rate */
    printf("RESULT stream_triad_%d %.3f %.3f %.3f (a[1] = %g)\n", nt, 24e-9 * n / t[reps / 2], 24e-9 * n / t[reps - 1], 24e-9 * n / t[0], a[1]);
  }
  free(a);
  free(b);
  free(c);
  return 0;
}
