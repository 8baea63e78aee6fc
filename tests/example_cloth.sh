#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/cloth under mpiexec and checks its summary line, e.g.
#   cloth: vertices 441 triangles 800 hinges 1160 energy ... sag ... bottom_displacement ... iterations 3 reason 2 CONVERGED_FNORM_ABS
# Usage: example_cloth.sh <check> <cloth> <mpiexec> [mpiexec flags] -- [check arguments] [-- program options]
#   hang <np> <maxits>        a sheet hanging from its top edge, statics: its bottom edge's displacement
#                             is the discrete 1-D solution (below), with and without bending
#   freefall <np> <maxits> <steps> <dt> <g>
#                             an unpinned sheet: the centre of mass follows implicit Euler's free fall
#   drape <maxits>            the default drape (membrane + bending, 4 corners pinned, 20 steps): each
#                             step converges within <maxits>; 1 and 2 ranks agree; the sheet sags
#                             less than free fall would take it; with bending springs too
#   contact <maxits> <steps> <same>
#                             a sheet falling onto a sphere and folding onto itself (-sphere, -contact)
# Prints nothing on success; on failure, the value, the expectation and the program's output.
set -u
name=cloth
. "$(dirname "$0")/example_lib.sh"

# converged <tag> <maxits>: reason > 0 (the smallest over steps), at most <maxits> iterations in any
# step, |grad E| <= 1e-5 of the load after every step (SNES stops at 1e-6)
converged() {
  holds 'a + 0 > 0' "$(field "$1" reason)" || { cat "$work/$1.out" >&2; fail "run '$1': reason $(field "$1" reason), expected > 0"; }
  holds 'a + 0 <= b + 0' "$(field "$1" iterations)" "$2" || fail "run '$1': $(field "$1" iterations) iterations in a step, expected at most $2"
  holds 'a + 0 <= 1e-5' "$(field "$1" residual)" || fail "run '$1': residual $(field "$1" residual), expected <= 1e-5 of the load"
}
case $check in
  hang)
    # The sheet (width W = nx h, ny rows of squares of side h, areal density rho) hangs in the xz plane
    # from its pinned top row; nu = 0 makes the membrane's lambda 0, and then a deformation with
    # u_x = 0 and u_z the same along each row is an exact equilibrium of the discrete energy: each
    # triangle has F = diag(1, s) in (x, z), G = diag(0, (s^2 - 1)/2), and the StVK energy's
    # derivatives with respect to the other components of F vanish there; the sheet stays planar, so
    # bending (flat at rest) adds no force. It is the discrete chain: the squares between rows e and
    # e + 1 stretch by s_e with mu (s_e^3 - s_e) = (the weight of the rows below) / W, the lumped
    # masses being rho W h per row and half that for the bottom one, mu = stretch / 2. The bottom
    # row moves by -h sum_e (s_e - 1). Tolerance: the solve ends with |grad E| <= 1e-6 of the load;
    # the chain's compliance amplifies that by at most its condition number ~ ny^2 = 100: 1e-4.
    np=$1 maxits=$2
    shift 3
    nx=4 ny=10 L=1 rho=0.2 stretch=1e4 g=9.81
    want=$(awk -v nx=$nx -v ny=$ny -v L=$L -v rho=$rho -v k=$stretch -v g=$g 'BEGIN {
      h = L / nx; W = L; mu = k / 2; d = 0
      for (e = 0; e < ny; e++) {
        t = g * rho * W * h * (ny - e - 0.5) / W
        s = 1; for (it = 0; it < 100; it++) s -= (mu * (s^3 - s) - t) / (mu * (3 * s^2 - 1))
        d += h * (s - 1)
      }
      printf "%.17g", -d }')
    for bend in 0 1e-3; do
      run "hang$bend" "$np" -vertical -pin edge -nu 0 -ts_steps 0 -nx $nx -ny $ny -L $L -rho $rho -stretch $stretch -g -$g -bend $bend "$@"
      converged "hang$bend" "$maxits"
      close "bottom-row displacement (bending $bend) vs the discrete chain" "$(field "hang$bend" bottom_displacement)" "$want" 1e-4
    done
    ;;
  freefall)
    # As in example_elastic.sh freefall: internal forces sum to zero, so the z-sum of the gradient is
    # (M / dt^2)(Z - Z*), Z* = Z_n + dt V_n + dt^2 g; with |grad E| <= 1e-6 of the load (|(m_v g)_v|
    # <= 3 M |g| / sqrt(nv)), |Z - Z*| <= 3e-6 dt^2 |g| per step, <= N^2 3e-6 dt^2 |g| after N, against
    # the displacement dt^2 |g| N (N + 1) / 2: 1e-5 relative.
    np=$1 maxits=$2 steps=$3 dt=$4 g=$5
    shift 6
    run ff "$np" -pin none -ts_steps "$steps" -dt "$dt" -g "$g" "$@"
    converged ff "$maxits"
    close "centre-of-mass velocity vs N dt g" "$(field ff com_velocity)" "$(awk -v n="$steps" -v dt="$dt" -v g="$g" 'BEGIN { printf "%.17g", n * dt * g }')" 1e-5
    close "centre-of-mass displacement vs dt^2 g N (N + 1) / 2" "$(field ff com_displacement)" "$(awk -v n="$steps" -v dt="$dt" -v g="$g" 'BEGIN { printf "%.17g", dt * dt * g * n * (n + 1) / 2 }')" 1e-5
    ;;
  drape)
    maxits=$1
    shift 2
    run np1 1 "$@"
    converged np1 "$maxits"
    run np2 2 "$@"
    converged np2 "$maxits"
    # the same steps on 1 and 2 ranks: both end each step with |grad E| <= 1e-6 of the load, and
    # the differences of such inexact steps carry into later steps: 1e-5
    for f in energy com_displacement sag; do
      close "$f, 1 vs 2 ranks" "$(field np1 $f)" "$(field np2 $f)" 1e-5
    done
    # pins hold the sheet: its centre of mass falls less than freely (20 steps of 0.01 s: the
    # implicit-Euler free fall is 9.81 * 1e-4 * 210 = 0.206 m), and it does fall
    holds 'a + 0 < 0 && a + 0 > -0.206' "$(field np1 com_displacement)" || fail "centre of mass moved by $(field np1 com_displacement), expected in (-0.206, 0)"
    run springs 2 -bend_springs 10 "$@"
    converged springs "$maxits"
    ;;
  contact)
    # The sheet falls onto a fixed sphere and folds onto itself (-sphere: IPC barriers on its
    # point-triangle and edge-edge pairs closer than dhat, found anew at each Newton step, and
    # against the sphere; each line-search step capped by continuous collision): every step
    # converges, nothing passes through (every pair and every vertex stays at a distance > 0 after
    # every step: the summary's minima over steps), some pair came within dhat (self-contact
    # happened), and 1 and 2 ranks take the same steps (to 1e-8) over the first <same> steps (each
    # ends at |grad E| <= 1e-6 of the load: differences ~1e-11 measured; later folds amplify them)
    maxits=$1 steps=$2 same=$3
    shift 4
    for np in 1 2; do
      run "np$np" "$np" -ts_steps "$steps" "$@"
      converged "np$np" "$maxits"
      c=$(grep '^cloth: contact ' "$work/np$np.out")
      get() { printf '%s\n' "$c" | awk -v name="$1" '{ for (i = 1; i < NF; i++) if ($i == name) { print $(i + 1); exit } }'; }
      dp=$(get min_contact_distance) ds=$(get min_sphere_distance) dhat=$(get dhat)
      { number "$dp" && holds 'a + 0 > 0' "$dp"; } || fail "run 'np$np': min_contact_distance '$dp', expected > 0 (a pair passed through)"
      { number "$ds" && holds 'a + 0 > 0' "$ds"; } || fail "run 'np$np': min_sphere_distance '$ds', expected > 0 (a vertex entered the sphere)"
      holds 'a + 0 < b + 0' "$dp" "$dhat" || fail "run 'np$np': no pair came within dhat = $dhat (closest $dp): no self-contact exercised"
    done
    for k in $(seq 1 "$same"); do
      for f in energy com_displacement sag; do
        a=$(awk -v k="$k" -v name="$f" '$2 == "step" && $3 == k && $4 == "time" { for (i = 1; i < NF; i++) if ($i == name) print $(i + 1) }' "$work/np1.out")
        b=$(awk -v k="$k" -v name="$f" '$2 == "step" && $3 == k && $4 == "time" { for (i = 1; i < NF; i++) if ($i == name) print $(i + 1) }' "$work/np2.out")
        close "step $k $f, 1 vs 2 ranks" "$a" "$b" 1e-8
      done
    done
    ;;
  *)
    fail "unknown check '$check'"
    ;;
esac
exit 0
