#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# What a user of any mfad program sees, checked on a real program (tests/options.cmake):
#   help <program>   `program -help` lists every option of mfad's options tables ($MFAD_OPTION_NAMES -print_option_names)
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
    # every option of mfad's options tables, as test_options lists them (MFAD_OPTION_NAMES: its path)
    names=$("${MFAD_OPTION_NAMES:?the path of test_options}" -print_option_names </dev/null) || { echo "options_program.sh help: $MFAD_OPTION_NAMES -print_option_names failed" >&2; exit 1; }
    [ -n "$names" ] || { echo "options_program.sh help: no option names" >&2; exit 1; }
    for o in $names; do
      grep -q -- "$o[ :<]" "$out" || { echo "options_program.sh help: '$prog -help' does not list $o" >&2; exit 1; }
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
