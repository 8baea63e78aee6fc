#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# CMAKE_CUDA_COMPILER_LAUNCHER of -DMFAD_CUDA_RESOURCE_REPORT=ON: runs the nvcc command line it is
# given (compiled with -Xptxas=-v) and keeps ptxas's per-kernel resource report beside the object,
# as <object>.ptxas, for scripts/cuda-resources.py; everything else nvcc says goes to the build log.
out=
prev=
for a in "$@"; do
  [ "$prev" = -o ] && out=$a
  prev=$a
done
[ -n "$out" ] || exec "$@"
rc=0
"$@" 2>"$out.ptxas" || rc=$?
grep -v -e '^ptxas info' -e '^ *[0-9]* bytes stack frame' "$out.ptxas" >&2 || true
exit $rc
