#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Wall time of example runs with -mfad_num_threads 1 and with the default threads, medians of
# REPS runs taken alternately (so both see the same load), optionally with a busy loop beside
# them (BUSY=1: `while :; do :; done`, one core's worth); prints the load average with each row.
# Results in docs/threads.md. From the source directory:
#   BIN=build/petsc-examples TETS=bar.1.node REPS=3 BUSY=1 sh bench/threads.sh [case ...]
# cases: demo big sphere param tets (default: all; tets only with TETS set)
BIN=${BIN:-build/petsc-examples}
REPS=${REPS:-3}
busy=""
if [ "${BUSY:-0}" = 1 ]; then
  sh -c 'while :; do :; done' &
  busy=$!
fi
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
seconds() { # command...: wall seconds of one run
  s=$(date +%s.%N)
  "$@" > /dev/null 2>&1 || echo "FAILED: $*" >&2
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
run() { # name, command...
  name=$1
  shift
  : > /tmp/mfad_threads_1
  : > /tmp/mfad_threads_0
  l0=$(cut -d' ' -f1 /proc/loadavg)
  for r in $(seq "$REPS"); do
    seconds "$@" -mfad_num_threads 1 >> /tmp/mfad_threads_1
    seconds "$@" >> /tmp/mfad_threads_0
  done
  t1=$(median < /tmp/mfad_threads_1)
  t0=$(median < /tmp/mfad_threads_0)
  printf '%-26s %8.2f %8.2f %6.2f   load %s-%s\n' "$name" "$t1" "$t0" "$(echo "$t0 / $t1" | bc -l)" "$l0" "$(cut -d' ' -f1 /proc/loadavg)"
}
cases=${*:-demo big sphere param tets}
printf '%-26s %8s %8s %6s\n' case "1 thr s" "default" ratio
for c in $cases; do
  case $c in
  demo) run "elastic demo" "$BIN/elastic" -snes_monitor -ksp_type cg -pc_type jacobi ;;
  big) run "elastic -n 8 -m 32" "$BIN/elastic" -n 8 -m 32 ;;
  sphere) run "sphere" "$BIN/sphere" ;;
  param) run "param spot_patch" "$BIN/param" -mesh tests/meshes/spot_patch.obj ;;
  tets) [ -n "$TETS" ] && run "elastic -mesh $(basename "$TETS")" "$BIN/elastic" -mesh "$TETS" ;;
  esac
done
[ -n "$busy" ] && kill "$busy"
rm -f /tmp/mfad_threads_1 /tmp/mfad_threads_0
exit 0
