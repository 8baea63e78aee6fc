#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A user's program (tests/user/) with no option against the example it imitates, with its defaults:
#   user_program.sh param|elastic|param_stop <user program> <example> <ranks> <mpiexec> [flags] -- <mesh> [options]
# On 1 to <ranks> ranks the user's program must converge (exit 0), reach the example's minimum
# (param: the same symmetric Dirichlet energy; elastic: the same energy change from the rest shape,
# elastic - work in the example's summary; to 1e-8 relative) and take at most 1.5 times the
# example's Newton steps (on 1 rank). param's minimum is its gradient stop's (-gatol 1e-8; its default
# stop is the Newton decrement's, 1e-4 of E). param_stop: the user's program with [options] (a stop
# of the library's, -mfad_decrement_rtol) must stop above that minimum and within 1e-3 of it
# (relative), in fewer Newton steps than the example's gradient stop, with the reason <reason>
# (the first option).
set -u
check=$1 user=$2 example=$3 ranks=$4
shift 4
mpiexec=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
  mpiexec="$mpiexec $1"
  shift
done
shift
mesh=$1
shift
reason=""
if [ "$check" = param_stop ]; then
  reason=$1
  shift
fi
work=$(mktemp -d "${TMPDIR:-/tmp}/user_program.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
fail() {
  echo "user_program.sh $check: FAILED: $*" >&2
  exit 1
}
field() { awk -v name="$2" '{ for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }' "$1"; }

# shellcheck disable=SC2086 # $mpiexec holds the command and its flags
eopts=""
case $check in param*) eopts="-gatol 1e-8" ;; esac
# shellcheck disable=SC2086
$mpiexec -n 1 "$example" -mesh "$mesh" $eopts </dev/null >"$work/example.out" 2>&1 || { cat "$work/example.out" >&2; fail "the example $example failed"; }
grep "^${check%_stop}: vertices " "$work/example.out" >"$work/example.sum" || { cat "$work/example.out" >&2; fail "no summary line from the example"; }
case $check in
  param | param_stop) want=$(field "$work/example.sum" energy) ;;
  elastic) want=$(awk -v e="$(field "$work/example.sum" elastic)" -v w="$(field "$work/example.sum" work)" 'BEGIN { printf "%.15e", e - w }') ;;
  *) fail "unknown check $check" ;;
esac
steps=$(field "$work/example.sum" iterations)
[ -n "$steps" ] || steps=$(field "$work/example.sum" newton_steps)
echo "example: $(cat "$work/example.sum")"
for np in $(seq 1 "$ranks"); do
  # shellcheck disable=SC2086
  $mpiexec -n "$np" "$user" -mesh "$mesh" "$@" </dev/null >"$work/np$np.out" 2>&1
  rc=$?
  cat "$work/np$np.out"
  [ $rc -eq 0 ] || fail "the user's program on $np ranks exited with status $rc (not converged)"
  line=$(grep "^user ${check%_stop}: vertices " "$work/np$np.out") || fail "no summary line from the user's program on $np ranks"
  echo "$line" >"$work/np$np.sum"
  case $check in
    param | param_stop) got=$(field "$work/np$np.sum" energy) ;;
    elastic) got=$(field "$work/np$np.sum" energy_change) ;;
  esac
  its=$(field "$work/np$np.sum" iterations)
  if [ "$check" = param_stop ]; then
    awk -v a="$got" -v b="$want" 'BEGIN { exit !(a >= b - 1e-12 * b && a <= b + 1e-3 * b) }' ||
      fail "$np ranks: energy $got, not within 1e-3 above the example's minimum $want"
    awk -v a="$its" -v b="$steps" 'BEGIN { exit !(a < b) }' || fail "$np ranks: $its Newton steps, not fewer than the example's $steps"
    field "$work/np$np.sum" reason | grep -qx "$reason" || fail "$np ranks: reason $(field "$work/np$np.sum" reason), not $reason"
    continue
  fi
  awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; if (d < 0) d = -d; s = b < 0 ? -b : b; exit !(d <= 1e-8 * s) }' ||
    fail "$np ranks: energy $got, the example's $want (1e-8 relative)"
  [ "$np" -gt 1 ] || [ -z "$steps" ] || awk -v a="$its" -v b="$steps" 'BEGIN { exit !(a <= 1.5 * b) }' ||
    fail "$np ranks: $its Newton steps, more than 1.5 times the example's $steps"
done
echo "user_program.sh $check: passed (example: $steps steps)"
