# SPDX-License-Identifier: BSD-2-Clause
# What the geometry examples' test scripts share (tests/example_geom.sh, example_lsq.sh,
# real_arap.sh, real_param.sh), sourced first: the arguments <check> <program> <nranks> <mpiexec>
# [mpiexec flags] -- [program options] (on return "$@" holds the program options), and run, field,
# ok, converged.
# A program's summary line starts "<program name>: vertices ".
set -eu
check=$1 prog=$2 np=$3 mpiexec=$4
shift 4
mpiflags=""
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mpiflags="$mpiflags $1"; shift; done
[ "$#" -gt 0 ] && shift
name=$(basename "$prog")

run() { # run <nranks> [options]: prints the summary line; a non-zero exit is a failure
  n=$1
  shift
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$n" "$prog" "$@" </dev/null 2>&1) || { echo "$out"; echo "FAIL: $name exited with an error"; exit 1; }
  line=$(echo "$out" | grep "^$name: vertices" | tail -1)
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
}
