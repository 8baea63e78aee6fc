#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A program run that must fail: non-zero exit status and a message matching a pattern.
#   example_refused.sh <pattern> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# Used for the examples' refusals (an option they cannot honour, a clamp that cannot hold the body)
# and for their exit status when a solve did not converge. Prints nothing on success.
set -u
pattern=$1 prog=$2 np=$3 mpiexec=$4
shift 4
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift
# shellcheck disable=SC2086
out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
  echo "$out"
  echo "FAIL: $(basename "$prog") $* exited with status 0; expected a failure saying /$pattern/"
  exit 1
fi
if ! echo "$out" | grep -q -e "$pattern"; then
  echo "$out"
  echo "FAIL: $(basename "$prog") $* failed (status $rc) without saying /$pattern/"
  exit 1
fi
exit 0
