#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# param (petsc-examples/param.c) on the real disks of tests/meshes with its default solver; the
# checks and their tolerances are justified in tests/real_param.cmake.
#   real_param.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
set -eu
check=$1 prog=$2 np=$3 mpiexec=$4
shift 4
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift

run() { # run <nranks> [options]: prints the summary line; the program must exit 0
  n=$1
  shift
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$n" "$prog" "$@" </dev/null 2>&1) || { echo "$out"; echo "FAIL: param exited with an error"; exit 1; }
  line=$(echo "$out" | grep "^param: vertices" | tail -1)
  [ -n "$line" ] || { echo "$out"; echo "FAIL: no summary line"; exit 1; }
  echo "$line"
}
field() { echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'; }
ok() { # ok <description> <awk condition on a, b> [a] [b]
  if awk -v a="${3:-0}" -v b="${4:-0}" "function abs(x) { return x < 0 ? -x : x } BEGIN { exit !($2) }"; then :; else
    echo "FAIL: $1 (a = ${3:-}, b = ${4:-})"
    exit 1
  fi
}
disk() { # the facts every converged parameterisation of a disk satisfies
  ok "converged (reason > 0)" "a > 0" "$(field "$1" reason)"
  ok "no flipped triangle" "a == 0" "$(field "$1" flipped)"
  ok "energy_per_area >= 4 (the isometric bound)" "a >= 4" "$(field "$1" energy_per_area)"
  ok "residual <= gatol (1e-8)" "a <= 1e-8" "$(field "$1" residual)"
}

case $check in
disk) # the defaults on np ranks
  l=$(run "$np" "$@"); echo "$l"
  disk "$l" ;;
agree) # the defaults on np ranks against the same with <options...> (up to "--"): the same energy to 1e-10 relative
  other=""
  while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do other="$other $1"; shift; done
  [ "$#" -gt 0 ] && shift
  l1=$(run "$np" "$@"); echo "$l1"
  # shellcheck disable=SC2086
  l2=$(run "$np" "$@" $other); echo "$l2"
  disk "$l1"
  disk "$l2"
  ok "energy: defaults vs$other to 1e-10" "abs(a - b) <= 1e-10 * a" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
ranks) # 1 rank vs np ranks: the same energy to 1e-10 relative
  l1=$(run 1 "$@"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  disk "$l1"
  disk "$l2"
  ok "energy: 1 rank vs $np ranks to 1e-10" "abs(a - b) <= 1e-10 * a" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
fails) # a solve cut short: exit status non-zero, the reason on stderr (and not on stdout)
  # shellcheck disable=SC2086
  if "$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null >"${TMPDIR:-/tmp}/real_param.$$.out" 2>"${TMPDIR:-/tmp}/real_param.$$.err"; then
    cat "${TMPDIR:-/tmp}/real_param.$$.out" "${TMPDIR:-/tmp}/real_param.$$.err"; rm -f "${TMPDIR:-/tmp}/real_param.$$".*
    echo "FAIL: param exited 0 on a solve that did not converge"; exit 1
  fi
  err=$(cat "${TMPDIR:-/tmp}/real_param.$$.err"); out=$(cat "${TMPDIR:-/tmp}/real_param.$$.out"); rm -f "${TMPDIR:-/tmp}/real_param.$$".*
  echo "$out" | grep "^param: vertices" || true
  echo "$err" | grep -q "param: .* did not converge: DIVERGED" || { echo "$out"; echo "$err"; echo "FAIL: no 'did not converge' reason on stderr"; exit 1; }
  echo "$err" | grep "did not converge" ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
