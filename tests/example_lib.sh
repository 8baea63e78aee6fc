# SPDX-License-Identifier: BSD-2-Clause
# What tests/example_<name>.sh share, sourced after setting `name` (the program, e.g. elastic): the
# arguments <check> <program> <mpiexec> [mpiexec flags] -- [check arguments] [-- program options]
# (on return "$@" holds "[check arguments] -- [program options]"), a scratch folder $work, and
# fail, run, field, holds, number and close. A program's summary line starts "<name>: vertices ".
set -u

check=$1
prog=$2
shift 2
mpiexec=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  mpiexec="$mpiexec $1"
  shift
done
[ $# -gt 0 ] && shift # --
args=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  args="$args $1"
  shift
done
[ $# -gt 0 ] && shift # --
# what remains in "$@": program options common to every run of this check

work=$(mktemp -d "${TMPDIR:-/tmp}/example_$name.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

fail() {
  echo "example_$name.sh $check: FAILED: $*" >&2
  exit 1
}

# run <tag> <nranks> [options]: runs the program, leaves its output in $work/<tag>.out and its summary
# line in $work/<tag>.sum
run() {
  tag=$1
  np=$2
  shift 2
  # shellcheck disable=SC2086 # $mpiexec holds the command and its flags
  $mpiexec -n "$np" "$prog" "$@" </dev/null >"$work/$tag.out" 2>&1
  rc=$?
  if [ $rc -ne 0 ]; then
    cat "$work/$tag.out" >&2
    fail "run '$tag' ($np ranks, options $*) exited with status $rc"
  fi
  grep "^$name: vertices " "$work/$tag.out" >"$work/$tag.sum"
  if [ "$(wc -l <"$work/$tag.sum")" -ne 1 ]; then
    cat "$work/$tag.out" >&2
    fail "run '$tag': expected exactly one summary line '$name: vertices ...'"
  fi
}

# field <tag> <name>: the value after <name> in the summary line of run <tag>
field() {
  awk -v name="$2" '{ for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }' "$work/$1.sum"
}

# holds <awk condition on a, b, c>: exit status of the condition
holds() {
  cond=$1
  shift
  awk -v a="${1:-}" -v b="${2:-}" -v c="${3:-}" "BEGIN { exit !($cond) }"
}

# number <string>: a finite number as printed by %e or %d (not inf, nan or empty)
number() {
  printf '%s\n' "$1" | grep -Eq '^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$'
}

# close <what> <a> <b> <rtol>: |a - b| <= rtol max(|a|, |b|)
close() {
  rel=$(awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a; n = b < 0 ? -b : b; if (n > m) m = n; printf "%.3e", (m > 0 ? d / m : d) }')
  # (mawk reads "printf ..., m > 0 ? ..." as output to a file "0": the parentheses matter, and an
  # empty or non-numeric result is a failure, never a pass)
  { printf '%s\n' "$rel" | grep -Eq '^[0-9]'; } || fail "$1: cannot compare '$2' with '$3'"
  holds 'a + 0 <= b + 0' "$rel" "$4" || fail "$1: $2 vs $3 differ by $rel relative, expected at most $4"
}

# shellcheck disable=SC2086 # $args: the check's own words
set -- $args -- "$@"
