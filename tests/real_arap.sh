#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/arap_surface on a real mesh and checks its summary line.
#   real_arap.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# The tolerances are justified in tests/real_arap.cmake beside the tests that use them.
. "$(dirname "$0")/geom_lib.sh"

case $check in
rigid) # rigidly moved handles: energy 0, every vertex on the rigidly moved rest shape, edge lengths kept
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 60
  ok "energy = 0 (>= 0, <= 1e-16)" "a >= 0 && a <= 1e-16" "$(field "$l" energy)"
  ok "rigid_deviation <= 1e-8" "a <= 1e-8" "$(field "$l" rigid_deviation)"
  ok "rotation_deviation <= 1e-6" "a <= 1e-6" "$(field "$l" rotation_deviation)"
  ok "length_ratio = 1 to 1e-9" "abs(a - 1) <= 1e-9" "$(field "$l" length_ratio)" ;;
ranks) # a non-rigid deformation: converged, energy >= 0, 1 rank and np ranks the same energy to 1e-9
  maxit=$1
  shift
  l1=$(run 1 "$@"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  converged "$l1" "$maxit"
  converged "$l2" "$maxit"
  ok "energy >= 0" "a >= 0 && b >= 0" "$(field "$l1" energy)" "$(field "$l2" energy)"
  ok "energy: 1 rank vs $np ranks to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
roundoff) # only the round-off stop can end the solve (-snes_atol 0 -snes_rtol 0 -snes_stol 0): it
  # does, as reason 4 CONVERGED_SNORM_RELATIVE (PETSc's own step test is off: stol 0), at the default
  # run's minimiser (energy to 1e-10, residual <= 1e-11)
  maxit=$1
  shift
  l1=$(run "$np" "$@"); echo "$l1"
  l2=$(run "$np" "$@" -snes_atol 0 -snes_rtol 0 -snes_stol 0); echo "$l2"
  converged "$l1" "$maxit"
  ok "reason 4 CONVERGED_SNORM_RELATIVE (the round-off stop)" "a == 4" "$(field "$l2" reason)"
  ok "iterations <= $maxit" "a <= $maxit" "$(field "$l2" iterations)"
  ok "energy: the default run's to 1e-10" "abs(a - b) <= 1e-10 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)"
  ok "residual <= 1e-11" "a <= 1e-11" "$(field "$l2" residual)" ;;
minimum) # converged to a local minimum, not a saddle: the exact Hessian's smallest eigenvalue
  # (-check_minimum) >= -1e-8 (a saddle's: -1e-2)
  maxit=$1
  shift
  l=$(run "$np" "$@" -check_minimum); echo "$l"
  converged "$l" "$maxit"
  ok "min_eigenvalue >= -1e-8" "a >= -1e-8" "$(field "$l" min_eigenvalue)" ;;
local_global) # Newton's result is the fixed point of local-global with the same weights
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 60
  ok "energy >= 0" "a >= 0" "$(field "$l" energy)"
  ok "local-global converged (lg_iterations < the cap)" "a < 20000" "$(field "$l" lg_iterations)"
  ok "lg_energy = energy to 1e-8 relative" "abs(a - b) <= 1e-8 * a" "$(field "$l" energy)" "$(field "$l" lg_energy)"
  ok "lg_deviation <= 1e-5" "a <= 1e-5" "$(field "$l" lg_deviation)" ;;
fails) # exits non-zero with <text> in its output (stderr); the summary line, when printed, says reason < 0
  text=$1
  shift
  # shellcheck disable=SC2086
  if out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1); then echo "$out"; echo "FAIL: arap_surface exited 0"; exit 1; fi
  echo "$out" | grep -q -- "$text" || { echo "$out"; echo "FAIL: no message '$text'"; exit 1; }
  echo "$out" | grep -- "$text" | head -1
  line=$(echo "$out" | grep "^arap_surface: vertices" | tail -1)
  [ -z "$line" ] || ok "reason < 0 in the summary line" "a < 0" "$(field "$line" reason)" ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
