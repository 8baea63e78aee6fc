#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# python/examples/param.py (a mesh as numpy arrays) against tests/user/param.c (C) on the same mesh
# and options, on 1 and 2 ranks: the same symmetric Dirichlet energy to 1e-12 relative (C prints 13
# digits) and the same Newton steps; the Python run's VTU holds every vertex.
#   param_vs_c.sh <python> <param.py> <user_param or user_param_tao> <mesh> <param.py's options> <mpiexec> [flags]
# shellcheck disable=SC2086 # $pyopts: options, split
set -u
py=$1 script=$2 cprog=$3 mesh=$4 pyopts=$5
shift 5
work=$(mktemp -d "${TMPDIR:-/tmp}/python_param.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() {
  echo "param_vs_c.sh: FAILED: $*" >&2
  exit 1
}
field() { awk -v name="$2" '{ for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }' "$1"; }
for np in 1 2; do
  "$@" -n $np "$cprog" -mesh "$mesh" </dev/null >"$work/c$np.out" 2>&1 || { cat "$work/c$np.out"; fail "C on $np ranks"; }
  "$@" -n $np "$py" "$script" -mesh "$mesh" $pyopts -vtu "$work/p$np.vtu" </dev/null >"$work/p$np.out" 2>&1 || { cat "$work/p$np.out"; fail "Python on $np ranks"; }
  cat "$work/c$np.out" "$work/p$np.out"
  grep "^user param: vertices" "$work/c$np.out" >"$work/c$np.sum" || fail "no summary from C on $np ranks"
  grep "^param: vertices" "$work/p$np.out" >"$work/p$np.sum" || fail "no summary from Python on $np ranks"
  ce=$(field "$work/c$np.sum" energy) pe=$(field "$work/p$np.sum" energy)
  ci=$(field "$work/c$np.sum" iterations) pi=$(field "$work/p$np.sum" iterations)
  nv=$(field "$work/p$np.sum" vertices)
  awk -v a="$pe" -v b="$ce" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-12 * b) }' || fail "$np ranks: Python energy $pe, C $ce (1e-12 relative)"
  [ "$pi" = "$ci" ] || fail "$np ranks: Python $pi Newton steps, C $ci"
  grep -q "NumberOfPoints=\"$nv\"" "$work/p$np.vtu" || fail "$np ranks: the VTU does not hold the $nv vertices"
  echo "param_vs_c.sh: $np ranks: energy Python $pe C $ce, $pi Newton steps each, VTU of $nv points"
done
echo "param_vs_c.sh: passed"
