#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/advdiff and checks what it prints (justifications in tests/examples_residual.cmake).
#   example_advdiff.sh <check> <program> <mpiexec> [mpiexec flags] -- [program options]
#   checks: order <min>      every observed L2 order under -refine is >= min, every solve converged
#           ranks            1 and 2 ranks give the same l2_error and u_l2 to 1e-10 (relative)
#           diverge          a solve that cannot converge exits non-zero, saying so on stderr
#           vtu              -o on 2 ranks writes the whole grid (-n 8: 81 points, 128 triangles), complete
set -eu
check=$1
shift
case $check in order) min=$1; shift ;; esac
prog=$1 mpiexec=$2
shift 2
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() { # run <nranks> [options]: output in $tmp/out, exit status in $rc
  n=$1
  shift
  # shellcheck disable=SC2086
  if "$mpiexec" $mpiflags -n "$n" "$prog" "$@" </dev/null >"$tmp/out" 2>&1; then rc=0; else rc=$?; fi
  cat "$tmp/out"
}
field() { # field <line> <key>: the value after the key
  echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}
ok() { # ok <description> <awk condition on a, b> [a] [b]
  if awk -v a="${3:-0}" -v b="${4:-0}" "function abs(x) { return x < 0 ? -x : x } BEGIN { exit !($2) }"; then :; else
    echo "FAIL: $1 (a = ${3:-}, b = ${4:-})"
    exit 1
  fi
}

case $check in
order)
  run 1 "$@"
  [ "$rc" -eq 0 ] || { echo "FAIL: advdiff exited with $rc"; exit 1; }
  orders=$(grep "^advdiff: refinement" "$tmp/out" | awk '{ for (i = 1; i < NF; i++) if ($i == "l2_order") print $(i + 1) }')
  [ -n "$orders" ] || { echo "FAIL: no refinement line (run with -refine >= 1)"; exit 1; }
  for p in $orders; do ok "observed L2 order >= $min" "a >= b" "$p" "$min"; done
  ;;
ranks)
  run 1 "$@"
  [ "$rc" -eq 0 ] || { echo "FAIL: 1 rank exited with $rc"; exit 1; }
  l1=$(grep "^advdiff: n " "$tmp/out" | tail -1)
  run 2 "$@"
  [ "$rc" -eq 0 ] || { echo "FAIL: 2 ranks exited with $rc"; exit 1; }
  l2=$(grep "^advdiff: n " "$tmp/out" | tail -1)
  for key in l2_error u_l2; do
    ok "$key: 1 and 2 ranks agree to 1e-10" "abs(a - b) <= 1e-10 * abs(a)" "$(field "$l1" "$key")" "$(field "$l2" "$key")"
  done
  ;;
diverge)
  run 2 "$@"
  [ "$rc" -ne 0 ] || { echo "FAIL: advdiff exited with 0 after a solve that did not converge"; exit 1; }
  grep -q "SNES did not converge" "$tmp/out" || { echo "FAIL: no 'did not converge' message"; exit 1; }
  l=$(grep "^advdiff: n " "$tmp/out" | tail -1)
  ok "the summary line's reason is negative" "a < 0" "$(field "$l" reason)"
  ;;
vtu)
  run 2 -n 8 -o "$tmp/u.vtu" "$@"
  [ "$rc" -eq 0 ] || { echo "FAIL: advdiff exited with $rc"; exit 1; }
  grep -q 'NumberOfPoints="81" NumberOfCells="128"' "$tmp/u.vtu" || { echo "FAIL: not the whole 8 x 8 grid"; exit 1; }
  [ "$(grep -c '<DataArray' "$tmp/u.vtu")" -eq 7 ] || { echo "FAIL: not 7 arrays (points, 3 cell arrays, u, u_exact, error)"; exit 1; }
  tail -1 "$tmp/u.vtu" | grep -q '</VTKFile>' || { echo "FAIL: the file is truncated"; exit 1; }
  ;;
*)
  echo "example_advdiff.sh: unknown check $check"
  exit 2
  ;;
esac
echo "PASS: $check"
