#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# param (petsc-examples/param.c) on the real disks of tests/meshes with its default solver; the
# checks and their tolerances are justified in tests/real_param.cmake.
#   real_param.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
. "$(dirname "$0")/geom_lib.sh"

map() { # the facts every converged parameterisation of a disk satisfies, at any stop
  ok "converged (reason > 0)" "a > 0" "$(field "$1" reason)"
  ok "no flipped triangle" "a == 0" "$(field "$1" flipped)"
  ok "energy_per_area >= 4 (the isometric bound)" "a >= 4" "$(field "$1" energy_per_area)"
}
disk() { # and at the gradient stop -gatol 1e-8
  map "$1"
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
stop) # the default stop against the gradient stop -gatol 1e-8 (the minimum): above it, within 1e-3, in fewer steps
  l1=$(run "$np" "$@"); echo "$l1"
  l2=$(run "$np" "$@" -gatol 1e-8); echo "$l2"
  map "$l1"
  disk "$l2"
  ok "energy: the default stop above the minimum, within 1e-3" "a >= b - 1e-12 * b && a <= b + 1e-3 * b" "$(field "$l1" energy)" "$(field "$l2" energy)"
  ok "iterations: fewer than the gradient stop's" "a < b" "$(field "$l1" iterations)" "$(field "$l2" iterations)" ;;
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
