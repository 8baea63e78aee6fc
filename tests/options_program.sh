#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a user of any mfad program sees, checked on a real program (tests/options.cmake):
#   help <program>   `program -help` lists every -mfad_ option a solver program reads
#   view <program>   `program -mfad_view` prints each energy once (the program also asks itself)
set -u
check=$1
prog=$2
shift 2
out=$(mktemp "${TMPDIR:-/tmp}/options_program.XXXXXX") || exit 1
trap 'rm -f "$out"' EXIT
case $check in
  help)
    "$prog" -help "$@" </dev/null >"$out" 2>&1
    for o in backend num_threads block_size scatter reorder check_finite psd_project psd_epsilon psd_project_steps view vtu_binary hessian pmat; do
      grep -q -- "-mfad_$o[ :<]" "$out" || { echo "options_program.sh help: '$prog -help' does not list -mfad_$o" >&2; exit 1; }
    done
    ;;
  view)
    "$prog" -mfad_view "$@" </dev/null >"$out" 2>&1 || { cat "$out" >&2; echo "options_program.sh view: '$prog -mfad_view' failed" >&2; exit 1; }
    views=$(grep -c '^MfadEnergy Object:' "$out")
    [ "$views" -eq 1 ] || { echo "options_program.sh view: '$prog -mfad_view' printed the energy $views times, expected once" >&2; exit 1; }
    ;;
  *)
    echo "options_program.sh: unknown check '$check'" >&2
    exit 1
    ;;
esac
