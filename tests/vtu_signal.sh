#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# MfadEnergyWriteVTU interrupted by a signal mid-write (issue 46, item 9): the process ends, its
# temporary "<out>.tmp.<pid>" is gone and the previous output is intact, byte for byte.
#   vtu_signal.sh <signal> <test_vtu_signal> <mpiexec> [mpiexec flags] -- [program options]
# The writer (tests/test_vtu_signal.c) writes <out>, then writes again into a FIFO at its
# temporary's name: the script's read shows the second write has begun, and as the script never
# drains the pipe the write cannot end, so the signal always lands mid-write. Prints nothing on
# success.
set -u
sig=$1 prog=$2 mpiexec=$3
shift 3
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift
dir=$(mktemp -d "${TMPDIR:-/tmp}/mfad-vtu-signal-XXXXXX") || exit 1
out=$dir/out.vtu
fail() {
  echo "FAIL: $*"
  [ -f "$dir/log" ] && cat "$dir/log"
  [ -n "${job:-}" ] && kill -KILL "$job" 2>/dev/null
  rm -rf "$dir"
  exit 1
}
# job control: a background job of a non-interactive shell would start with SIGINT ignored
set -m 2>/dev/null || :
# shellcheck disable=SC2086
"$mpiexec" $mpiflags -n 1 "$prog" -o "$out" "$@" </dev/null >"$dir/log" 2>&1 &
job=$!
# the FIFO appears once the first write is complete (10 s: a loaded machine)
i=0
while :; do
  fifo=$(ls -d "$out".tmp.* 2>/dev/null | head -n 1)
  [ -n "$fifo" ] && [ -p "$fifo" ] && break
  kill -0 "$job" 2>/dev/null || fail "the writer ended before its second write"
  i=$((i + 1))
  [ "$i" -gt 200 ] && fail "no FIFO $out.tmp.* after 10 s"
  sleep 0.05
done
pid=${fifo##*.}
before=$(cksum <"$out")
# opening the FIFO meets the writer's fopen(); the first bytes show the write is under way
exec 3<"$fifo"
head -c 1 <&3 >/dev/null || fail "nothing read from $fifo"
kill "-$sig" "$pid" || fail "cannot signal the writer (pid $pid)"
i=0
while kill -0 "$job" 2>/dev/null; do
  i=$((i + 1))
  [ "$i" -gt 200 ] && fail "the writer still runs 10 s after SIG$sig"
  sleep 0.05
done
wait "$job"
rc=$?
exec 3<&-
[ "$rc" -ne 0 ] || fail "the writer exited with status 0 after SIG$sig"
grep -q "interrupted write returned" "$dir/log" && fail "the interrupted write returned"
left=$(ls -d "$out".tmp.* 2>/dev/null)
[ -z "$left" ] || fail "SIG$sig mid-write left the temporary $left"
[ "$(cksum <"$out")" = "$before" ] || fail "SIG$sig mid-write changed $out"
rm -rf "$dir"
exit 0
