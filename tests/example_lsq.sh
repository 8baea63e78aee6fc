#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/arap in its least-squares forms (-form gauss_newton, brgn) and checks their
# summary lines against each other and against Newton's (-form energy).
#   example_lsq.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# The tolerances are justified in tests/examples_lsq.cmake beside the tests that use them.
. "$(dirname "$0")/geom_lib.sh"

converged_arap() { # converged_arap <line> <max iterations>: also no flipped triangle
  converged "$1" "$2"
  ok "no flipped triangle" "a == 0" "$(field "$1" flipped)"
}

case $check in
forms) # Newton, Gauss-Newton and brgn from the same start: the same arap_tri energy to <rtol>
  rtol=$1 maxit=$2
  shift 2
  l0=$(run "$np" "$@" -form energy); echo "$l0"
  l1=$(run "$np" "$@" -form gauss_newton); echo "$l1"
  l2=$(run "$np" "$@" -form brgn); echo "$l2"
  converged_arap "$l0" "$maxit"
  converged_arap "$l1" "$maxit"
  converged_arap "$l2" "$maxit"
  e0=$(field "$l0" energy)
  ok "gauss_newton's energy = Newton's to $rtol" "abs(a - b) <= $rtol * abs(b)" "$(field "$l1" energy)" "$e0"
  ok "brgn's energy = Newton's to $rtol" "abs(a - b) <= $rtol * abs(b)" "$(field "$l2" energy)" "$e0" ;;
sliver) # a mesh with slivers, default options: Newton and Gauss-Newton converge to the same energy
  # (to <rtol>); ARAP has no barrier, so its minimum may flip sliver triangles: not checked here
  rtol=$1 maxit=$2
  shift 2
  l0=$(run "$np" "$@"); echo "$l0"
  l1=$(run "$np" "$@" -form gauss_newton); echo "$l1"
  converged "$l0" "$maxit"
  converged "$l1" "$maxit"
  ok "gauss_newton's energy = Newton's to $rtol" "abs(a - b) <= $rtol * abs(b)" "$(field "$l1" energy)" "$(field "$l0" energy)" ;;
newton) # the default (Newton on arap_tri) converges within <maxit> steps to |g| <= 1e-8 |g0|; on a
  # surface that flattens badly its minimum overlaps itself, so flips are not checked
  maxit=$1
  shift
  l0=$(run "$np" "$@"); echo "$l0"
  converged "$l0" "$maxit"
  ok "residual |g|/|g0| <= 1e-8" "a <= 1e-8" "$(field "$l0" residual)"
  ok "energy finite and >= 0" "a >= 0 and a < 1e300" "$(field "$l0" energy)" ;;
ranks) # 1 rank and np ranks: the same energy to <rtol>
  rtol=$1 maxit=$2
  shift 2
  l1=$(run 1 "$@"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  converged_arap "$l1" "$maxit"
  converged_arap "$l2" "$maxit"
  ok "energy: 1 rank vs $np ranks to $rtol" "abs(a - b) <= $rtol * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
fails) # exits non-zero with <text> in its output (stderr)
  text=$1
  shift
  # shellcheck disable=SC2086
  if out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1); then echo "$out"; echo "FAIL: arap exited with 0"; exit 1; fi
  echo "$out" | grep -q -- "$text" || { echo "$out"; echo "FAIL: no message '$text'"; exit 1; }
  echo "$out" | grep -- "$text" | head -1 ;;
brgn_defaults) # MfadEnergySetTaoResidual's defaults, said under -info: the assembled J and no preconditioner
  # in brgn's subsolver; options naming either replace it (no such line), and all three converge
  # to the same energy (1e-9)
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" -form brgn -info :tao </dev/null 2>&1) || { echo "$out"; echo "FAIL: arap exited with an error"; exit 1; }
  echo "$out" | grep -q "the residual's Jacobian assembled" || { echo "$out" | tail -5; echo "FAIL: no assembled Jacobian by default"; exit 1; }
  echo "$out" | grep -q "brgn's subsolver without a preconditioner" || { echo "$out" | tail -5; echo "FAIL: the subsolver kept its L-BFGS preconditioner"; exit 1; }
  l0=$(echo "$out" | grep "^arap: vertices" | tail -1); echo "$l0"
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" -form brgn -info :tao -mfad_jacobian shell -tao_brgn_subsolver_tao_bnk_pc_type lmvm </dev/null 2>&1) || { echo "$out"; echo "FAIL: arap exited with an error"; exit 1; }
  if echo "$out" | grep -q "mfad: default solver"; then echo "$out" | grep "mfad: default solver"; echo "FAIL: a default replaced an option given"; exit 1; fi
  l1=$(echo "$out" | grep "^arap: vertices" | tail -1); echo "$l1"
  converged_arap "$l0" 200
  converged_arap "$l1" 200
  ok "brgn with the options' solver: the same energy to 1e-9" "abs(a - b) <= 1e-9 * abs(b)" "$(field "$l1" energy)" "$(field "$l0" energy)" ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
