#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# mfad-energy refuses a feature map (MfadEnergyInfo .feature) that is not linear in x, or that it
# cannot unroll, with the user's file:line: every tests/features/*.c starts with
#   /* expect: LINE: text */
# usage: features_errors.sh PYTHON TRANSLATOR WORK_DIR
set -u
py=$1 tr=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
fails=0 n=0
for f in "$here"/features/*.c; do
  n=$((n + 1))
  spec=$(sed -n '1s|^/\* expect: \([0-9]*\): \(.*\) \*/$|\1\t\2|p' "$f")
  line=${spec%%$'\t'*} text=${spec#*$'\t'}
  if [ -z "$spec" ]; then echo "$f: no '/* expect: LINE: text */' first line"; fails=$((fails + 1)); continue; fi
  if out=$("$py" "$tr" "$f" -o "$work/out.c" 2>&1); then
    echo "FAIL $f: translated, expected an error at line $line: $text"; fails=$((fails + 1)); continue
  fi
  if ! grep -qF "$f:$line:" <<<"$out" || ! grep -qF "$text" <<<"$out"; then
    echo "FAIL $f: expected '$f:$line: ... $text', got:"; echo "$out"; fails=$((fails + 1))
  fi
done
[ "$n" -gt 0 ] || { echo "no test energies found in $here/features"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n feature-map checks failed"; exit 1; }
