#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/arap in its least-squares forms (-form gauss_newton, brgn) and checks their
# summary lines against each other and against Newton's (-form energy).
#   example_lsq.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# The tolerances are justified in tests/examples_lsq.cmake beside the tests that use them.
set -eu
check=$1 prog=$2 np=$3 mpiexec=$4
shift 4
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift

run() { # run <nranks> [options]: prints the summary line; a non-zero exit is a failure
  n=$1
  shift
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$n" "$prog" "$@" </dev/null 2>&1) || { echo "$out"; echo "FAIL: arap exited with an error"; exit 1; }
  line=$(echo "$out" | grep "^arap: vertices" | tail -1)
  [ -n "$line" ] || { echo "$out"; echo "FAIL: no summary line"; exit 1; }
  echo "$line"
}
field() { # field <summary line> <key>: the value after the key
  echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
ok() { # ok <description> <awk condition on a, b, c> [a] [b] [c]
  if awk -v a="${3:-0}" -v b="${4:-0}" -v c="${5:-0}" "function abs(x) { return x < 0 ? -x : x } BEGIN { exit !($2) }"; then :; else
    echo "FAIL: $1 (a = ${3:-}, b = ${4:-}, c = ${5:-})"
    exit 1
  fi
}
converged() { # converged <line> <max iterations>
  ok "converged (reason > 0)" "a > 0" "$(field "$1" reason)"
  ok "iterations <= $2" "a <= $2" "$(field "$1" iterations)"
  ok "no flipped triangle" "a == 0" "$(field "$1" flipped)"
}

case $check in
forms) # Newton, Gauss-Newton and brgn from the same start: the same arap_tri energy to <rtol>
  rtol=$1 maxit=$2
  shift 2
  l0=$(run "$np" "$@" -form energy); echo "$l0"
  l1=$(run "$np" "$@" -form gauss_newton); echo "$l1"
  l2=$(run "$np" "$@" -form brgn); echo "$l2"
  converged "$l0" "$maxit"
  converged "$l1" "$maxit"
  converged "$l2" "$maxit"
  e0=$(field "$l0" energy)
  ok "gauss_newton's energy = Newton's to $rtol" "abs(a - b) <= $rtol * abs(b)" "$(field "$l1" energy)" "$e0"
  ok "brgn's energy = Newton's to $rtol" "abs(a - b) <= $rtol * abs(b)" "$(field "$l2" energy)" "$e0" ;;
ranks) # 1 rank and np ranks: the same energy to <rtol>
  rtol=$1 maxit=$2
  shift 2
  l1=$(run 1 "$@"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  converged "$l1" "$maxit"
  converged "$l2" "$maxit"
  ok "energy: 1 rank vs $np ranks to $rtol" "abs(a - b) <= $rtol * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
fails) # exits non-zero with <text> in its output (stderr)
  text=$1
  shift
  # shellcheck disable=SC2086
  if out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1); then echo "$out"; echo "FAIL: arap exited with 0"; exit 1; fi
  echo "$out" | grep -q -- "$text" || { echo "$out"; echo "FAIL: no message '$text'"; exit 1; }
  echo "$out" | grep -- "$text" | head -1 ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
