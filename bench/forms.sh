#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Whole Newton solves in each fixed Hessian form and in -mfad_hessian auto: the time of SNESSolve
# (-log_view, all its calls: every time step of a dynamics run) per form, medians of REPS runs taken
# in turn (so every form sees the same load), and auto's ratio to the best fixed form (goal <= 1.2).
# A form a workload cannot use (the fused one under a PSD projection) is '-'. Every run must
# converge and every form must end at the same energy (printed). From the source directory:
#   BIN=build/petsc-examples REPS=3 sh bench/forms.sh [case ...]
# cases: bar dynamics cloth projected big (default: all)
BIN=${BIN:-build/petsc-examples}
REPS=${REPS:-3}
median() { sort -n | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
solve_seconds() { # command...: SNESSolve seconds of one run (max over ranks), its energy on fd 3
  out=$("$@" -log_view 2>&1) || { echo "FAILED: $*" >&2; echo "$out" | tail -3 >&2; echo nan; return; }
  echo "$out" | grep -oE 'energy -?[0-9.]+e[-+][0-9]+' | tail -1 >&3
  echo "$out" | awk '$1 == "SNESSolve" {print $4; exit}'
}
run() { # name, forms, command...
  name=$1 forms=$2
  shift 2
  for f in $forms; do : > "/tmp/mfad_forms_$f"; done
  l0=$(cut -d' ' -f1 /proc/loadavg)
  for r in $(seq "$REPS"); do
    for f in $forms; do solve_seconds "$@" -mfad_hessian "$f" >> "/tmp/mfad_forms_$f" 3> "/tmp/mfad_forms_${f}_energy"; done
  done
  l1=$(cut -d' ' -f1 /proc/loadavg)
  line=$(printf '%-10s' "$name")
  best=""
  for f in shell cached aij; do
    case " $forms " in
    *" $f "*)
      m=$(median < "/tmp/mfad_forms_$f")
      line="$line $(printf '%9.3f' "$m")"
      best=$(echo "$best $m" | awk '{b = $1; for (i = 2; i <= NF; i++) if ($i < b) b = $i; print b}')
      ;;
    *) line="$line $(printf '%9s' -)" ;;
    esac
  done
  a=$(median < /tmp/mfad_forms_auto)
  ratio=$(echo "$a $best" | awk '{printf "%.2f", $1 / $2}')
  energies=$(for f in $forms; do cut -d' ' -f2 "/tmp/mfad_forms_${f}_energy"; done | sort -u | tr '\n' ' ')
  echo "$line $(printf '%9.3f' "$a") $(printf '%6s' "$ratio")   load $l0-$l1  energies: $energies"
}
cases=${*:-bar dynamics cloth projected big}
echo "SNESSolve seconds, median of $REPS; auto/best: auto's time over the best fixed form's"
echo "case          shell    cached       aij      auto  auto/best"
for c in $cases; do
  case $c in
  bar) run bar "shell cached aij auto" "$BIN/elastic" -n 8 -m 32 ;;
  dynamics) run dynamics "shell cached aij auto" "$BIN/elastic" -n 6 -m 24 -ts_steps 10 ;;
  cloth) run cloth "shell cached aij auto" "$BIN/cloth" ;;
  projected) run projected "cached aij auto" "$BIN/elastic" -n 8 -m 32 -g -100 -mfad_psd_project abs -mfad_psd_project_steps 2 ;;
  big) run big "shell cached aij auto" "$BIN/elastic" -n 12 -m 48 ;;
  *) echo "unknown case $c" >&2 ;;
  esac
done
