#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# mfad-energy's errors point at the user's line: every tests/translator/*.c is an energy with one
# construct the translator must refuse; its first line says where and what:
#   /* expect: LINE: text */
# The translator must fail, and its message must name FILE:LINE: and contain the text. Every
# tests/translator/warn/*.c translates, and the compiler's warning (-Wall -Wextra) on the
# generated code names the user's FILE:LINE (the #line directives):
#   /* warning: LINE: text */
# usage: translator_errors.sh PYTHON TRANSLATOR CC INCLUDE_DIR WORK_DIR
set -u
py=$1 tr=$2 cc=$3 inc=$4 work=$5
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
fails=0 n=0
for f in "$here"/translator/*.c; do
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
for f in "$here"/translator/warn/*.c; do
  n=$((n + 1))
  spec=$(sed -n '1s|^/\* warning: \([0-9]*\): \(.*\) \*/$|\1\t\2|p' "$f")
  line=${spec%%$'\t'*} text=${spec#*$'\t'}
  if ! out=$("$py" "$tr" "$f" -o "$work/warn.c" 2>&1); then echo "FAIL $f: translation failed:"; echo "$out"; fails=$((fails + 1)); continue; fi
  out=$("$cc" -std=gnu11 -Wall -Wextra -I "$inc" -c "$work/warn.c" -o "$work/warn.o" 2>&1)
  if ! grep -qF "$f:$line:" <<<"$out" || ! grep -qF "$text" <<<"$(sed "s/[‘’]/'/g" <<<"$out")"; then
    echo "FAIL $f: expected a warning at '$f:$line: ... $text', got:"; echo "$out"; fails=$((fails + 1))
  fi
done
[ "$n" -gt 0 ] || { echo "no test energies found in $here/translator"; exit 1; }
[ "$fails" -eq 0 ] || { echo "$fails of $n translator checks failed"; exit 1; }
