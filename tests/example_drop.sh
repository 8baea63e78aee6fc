#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/drop (two elastic cubes dropped, one above the other, onto a fixed floor, with
# IPC contact) under mpiexec on 1 and 2 ranks and checks: every step converges; nothing passes
# through (the smallest pair distance after every step, and the cubes' lowest z, stay > 0: the
# summary's minima over steps); contact happened (a pair came within dhat) and the upper cube
# landed on the lower one (pairs between the two deformable cubes: cube_pairs > 0); the cubes fell
# (their centre of mass ends lower than it started); and 1 and 2 ranks take the same first 30
# steps to 1e-8 (the upper cube meets the lower one at step 25 with the defaults; each step ends
# at |grad E| <= 1e-6 of the load: measured 2e-12 apart over all 40 steps).
# Usage: example_drop.sh contact <drop> <mpiexec> [mpiexec flags] -- <maxits> -- [program options]
set -u
name=drop
. "$(dirname "$0")/example_lib.sh"

case $check in
  contact)
    maxits=$1
    shift 2
    for np in 1 2; do
      run "np$np" "$np" "$@"
      holds 'a + 0 > 0' "$(field "np$np" reason)" || { cat "$work/np$np.out" >&2; fail "run 'np$np': reason $(field "np$np" reason), expected > 0"; }
      holds 'a + 0 <= b + 0' "$(field "np$np" iterations)" "$maxits" || fail "run 'np$np': $(field "np$np" iterations) Newton steps in a time step, expected at most $maxits"
      holds 'a + 0 <= 1e-5' "$(field "np$np" residual)" || fail "run 'np$np': residual $(field "np$np" residual), expected <= 1e-5 of the load"
      d=$(field "np$np" min_contact_distance) z=$(field "np$np" lowest_z) dhat=$(field "np$np" dhat)
      { number "$d" && holds 'a + 0 > 0' "$d"; } || fail "run 'np$np': min_contact_distance '$d', expected > 0 (a pair passed through)"
      { number "$z" && holds 'a + 0 > 0' "$z"; } || fail "run 'np$np': lowest_z '$z', expected > 0 (the cube went through the floor)"
      holds 'a + 0 < b + 0' "$d" "$dhat" || fail "run 'np$np': no pair came within dhat = $dhat (closest $d): no contact exercised"
      holds 'a + 0 > 0' "$(field "np$np" cube_pairs)" || fail "run 'np$np': cube_pairs $(field "np$np" cube_pairs): the upper cube never came within dhat of the lower one"
      first=$(awk '$2 == "step" && $3 == 1 { for (i = 1; i < NF; i++) if ($i == "com_z") print $(i + 1) }' "$work/np$np.out")
      last=$(awk '$2 == "step" { for (i = 1; i < NF; i++) if ($i == "com_z") v = $(i + 1) } END { print v }' "$work/np$np.out")
      holds 'a + 0 < b + 0' "$last" "$first" || fail "run 'np$np': the centre of mass ended at z = $last, not below its start $first"
    done
    # over the first 30 steps (both landings): later, inexact steps whose round-off differs (sums
    # across ranks, and -mfad_hessian auto choosing forms by time) may part further (one cube
    # alone: up to ~3e-8 after its landing, measured)
    for k in $(seq 1 30); do
      for f in lowest_z com_z; do
        a=$(awk -v k="$k" -v name="$f" '$2 == "step" && $3 == k { for (i = 1; i < NF; i++) if ($i == name) print $(i + 1) }' "$work/np1.out")
        b=$(awk -v k="$k" -v name="$f" '$2 == "step" && $3 == k { for (i = 1; i < NF; i++) if ($i == name) print $(i + 1) }' "$work/np2.out")
        close "step $k $f, 1 vs 2 ranks" "$a" "$b" 1e-8
      done
    done
    ;;
  *)
    fail "unknown check '$check'"
    ;;
esac
exit 0
