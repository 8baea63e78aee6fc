#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/elastic under mpiexec and checks what its summary line says, e.g.
#   elastic: vertices 425 elements 1536 energy ... elastic ... work ... tip_displacement ... iterations 7 reason 3 CONVERGED_FNORM_RELATIVE
# Usage: example_elastic.sh <check> <elastic> <mpiexec> [mpiexec flags] -- [check arguments] [-- program options]
#   solve <nranks> <maxits>   converged: reason > 0, at most <maxits> iterations, |grad E| reduced
#                             by 1e-5 (catches a solver that stops on a small step far from the
#                             minimiser), and the bar sags
#   ranks <maxits>            1, 2 and 3 ranks reach the same energy (1e-10) and tip displacement
#   tao <maxits>              SNES (newtonls) and TAO (nls) reach the same energy (1e-10)
#   forms <nranks> <maxits>   the program options (a Hessian form, -mfad_hessian/-mfad_pmat, and its
#                             preconditioner) reach the energy (1e-10) and tip displacement of the
#                             reference: the fused shell with CG and Jacobi
#   hessian                   -tao_test_hessian: ||H - Hfd||_F/||H||_F < 1e-5 at every TAO Newton step
#   domain <maxits> <np>      a load that inverts elements on full Newton steps: the statics defaults
#                             (newtonls, backtracking; <np> ranks) pass through +inf trial points and
#                             agree with TAO ntr (1 rank)
#   jacobian                  -snes_test_jacobian: ||J - Jfd||_F/||J||_F < 1e-5 at every Newton step,
#                             and 10 times smaller with a 10 times smaller FD step
#   linear <maxits> <n> <m> <h> <E> <rho> <g>
#                             a stiff bar (linear regime): strain energy = half the work of gravity
#                             (Clapeyron), tip deflection near Euler-Bernoulli's q L^4 / (8 E I)
#   mesh <maxits>             a read mesh (-mesh in the options) on 1 and 2 ranks: converged, the same
#                             energy (1e-10) and tip displacement (1e-6)
#   clapeyron <np> <maxits>   a stiff body (linear regime, e.g. a read mesh): strain energy = half
#                             the work of gravity to 1e-3
#   hang <maxits> <np>        a large deformation of a read mesh (its default statics): 1 (and 2 when
#                             <np> is 2) ranks converge (|grad E| <= 1e-7 of the load) to the same energy (1e-10), the
#                             energy below the rest shape's, and no tet inverted (min det F > 0,
#                             from the deformed mesh written by -o)
#   scale <maxits> <s> <E>    units: -mesh_scale s with Young's modulus s E is the same deformation
#                             gradient as the file's units with E (stress times s, its divergence
#                             unchanged, like the body force rho g): tip displacement times s and
#                             energy times s^4, to 1e-7 (the same Newton iterates, scaled)
#   badmesh                   -mesh with a missing file fails and names the file
#   vtu                       -o writes a complete VTK file on 2 ranks, and no temporary file is left
#   freefall <np> <maxits> <steps> <dt> <g>
#                             implicit-Euler dynamics of the unclamped bar: the centre of mass follows
#                             the free-fall recurrence v_{n+1} = v_n + g dt, z_{n+1} = z_n + dt v_{n+1}
#   settle <maxits> <steps>   implicit-Euler dynamics of a stiff clamped bar: mechanical energy never
#                             increases (starting from 0 at rest), and the bar settles on the static
#                             solution
# Prints nothing on success; on failure, the value, the expectation and the program's output.
set -u
name=elastic
. "$(dirname "$0")/example_lib.sh"

# converged <tag> <maxits> [<maxres>]: reason > 0, iterations <= maxits, residual
# |grad E(x)| / |grad E(x0)| <= maxres (default 1e-5), numbers finite, the bar sags (u_z < 0)
converged() {
  reason=$(field "$1" reason)
  its=$(field "$1" iterations)
  res=$(field "$1" residual)
  tip=$(field "$1" tip_displacement)
  energy=$(field "$1" energy)
  maxres=${3:-1e-5}
  holds 'a + 0 > 0' "$reason" || { cat "$work/$1.out" >&2; fail "run '$1': converged reason $reason ($(awk '{ print $NF }' "$work/$1.sum")), expected > 0"; }
  holds 'a + 0 <= b + 0' "$its" "$2" || { cat "$work/$1.out" >&2; fail "run '$1': $its iterations, expected at most $2"; }
  { number "$res" && holds 'a + 0 <= b + 0' "$res" "$maxres"; } || fail "run '$1': |grad E| reduced to $res of its initial value, expected at most $maxres"
  number "$energy" || fail "run '$1': energy '$energy', expected a finite number"
  { number "$tip" && holds 'a + 0 < 0' "$tip"; } || fail "run '$1': tip displacement '$tip', expected a finite number < 0 (the bar sags)"
}

# mindetf <file.vtu>: the smallest det F over the tets of the ASCII VTK file written by -o (rest
# positions = points - displacement; det F = det Ds / det Dm)
mindetf() {
  awk '
    /<Points>/ { inpts = 1; next }
    /<\/Points>/ { inpts = 0; next }
    /<DataArray/ { arr = ""; if ($0 ~ /Name="connectivity"/) arr = "c"; else if ($0 ~ /Name="displacement"/) arr = "u"; else if (inpts) arr = "x"; next }
    /<\/DataArray>/ { arr = ""; next }
    arr == "x" { for (i = 1; i <= NF; i++) x[nx++] = $i }
    arr == "u" { for (i = 1; i <= NF; i++) u[nu++] = $i }
    arr == "c" { for (i = 1; i <= NF; i++) c[nc++] = $i }
    function det3(a) { return a[1] * (a[5] * a[9] - a[6] * a[8]) - a[2] * (a[4] * a[9] - a[6] * a[7]) + a[3] * (a[4] * a[8] - a[5] * a[7]) }
    END {
      if (nx == 0 || nx != nu || nc == 0 || nc % 4) { print "unreadable"; exit }
      for (e = 0; e < nc / 4; e++) {
        for (a = 1; a <= 3; a++)
          for (d = 0; d < 3; d++) {
            i = 3 * c[4 * e + a] + d; j = 3 * c[4 * e] + d
            ds[3 * (a - 1) + d + 1] = x[i] - x[j]
            dm[3 * (a - 1) + d + 1] = x[i] - x[j] - (u[i] - u[j])
          }
        J = det3(ds) / det3(dm)
        if (e == 0 || J < m) m = J
      }
      printf "%.6e\n", m
    }' "$1"
}

case $check in
  solve)
    np=$1 maxits=$2
    shift 3
    run solve "$np" "$@"
    converged solve "$maxits"
    ;;
  ranks)
    maxits=$1
    shift 2
    for np in 1 2 3; do
      run "np$np" "$np" "$@"
      converged "np$np" "$maxits" 1e-6
    done
    for np in 2 3; do
      close "energy, 1 vs $np ranks" "$(field np1 energy)" "$(field "np$np" energy)" 1e-10
      close "tip displacement, 1 vs $np ranks" "$(field np1 tip_displacement)" "$(field "np$np" tip_displacement)" 1e-4
    done
    ;;
  tao)
    maxits=$1
    shift 2
    run snes 1 -snes_type newtonls "$@"
    converged snes "$maxits" 1e-6
    run tao 1 -use_tao -tao_type nls "$@"
    converged tao "$maxits" 1e-6
    close "energy, SNES vs TAO" "$(field snes energy)" "$(field tao energy)" 1e-10
    close "tip displacement, SNES vs TAO" "$(field snes tip_displacement)" "$(field tao tip_displacement)" 1e-4
    ;;
  forms)
    np=$1 maxits=$2
    shift 3
    run form "$np" "$@"
    converged form "$maxits" 1e-6
    run ref "$np" -mfad_hessian shell -mfad_pmat shell -snes_type newtonls -ksp_type cg -pc_type jacobi
    converged ref "$maxits" 1e-6
    # both end with |g| <= 1e-6 |g0|: the argument of (g)-(h) in tests/examples.cmake
    close "energy, $* vs the fused shell" "$(field form energy)" "$(field ref energy)" 1e-10
    close "tip displacement, $* vs the fused shell" "$(field form tip_displacement)" "$(field ref tip_displacement)" 1e-4
    ;;
  domain)
    # a load 200 times gravity: full Newton steps invert elements (E = +inf there); without the step
    # bound the line search must back off through them, with it (the default: neohookean_tet's wall)
    # each step starts short of the first inversion; both reach the minimiser that TAO's trust
    # region finds
    maxits=$1 np=$2
    shift 3
    run snes "$np" -info :snes -mfad_step_bound 0 "$@"
    converged snes "$maxits" 1e-7
    invalid=$(grep -c 'mfad: invalid element' "$work/snes.out")
    [ "$invalid" -ge 1 ] || fail "expected trial points with inverted elements (none seen: the test no longer exercises the domain path)"
    run bound "$np" -info :sneslinesearch "$@"
    converged bound "$maxits" 1e-7
    cuts=$(grep -c 'mfad: step cut' "$work/bound.out")
    [ "$cuts" -ge 1 ] || fail "expected steps cut at the first inversion (none seen: the test no longer exercises the step bound)"
    run tr 1 -use_tao -tao_type ntr -tao_max_it 300 -mfad_hessian shell "$@"
    converged tr 300 1e-6 # ntr: 43 steps on PETSc 3.18, 106 on 3.26
    close "energy, backtracking Newton through inverted trial points vs TAO ntr" "$(field snes energy)" "$(field tr energy)" 1e-10
    close "energy, Newton with the step bound vs TAO ntr" "$(field bound energy)" "$(field tr energy)" 1e-10
    ;;
  jacobian | hessian)
    shift 1
    # ratio <tag>: the ||J - Jfd||_F/||J||_F of each Newton step, one a line, in $work/<tag>.ratios
    ratios() {
      sed -n 's/.*||[JH] - [JH]fd||_F\/||[JH]||_F = \([^,]*\),.*/\1/p' "$work/$1.out" >"$work/$1.ratios"
      count=$(wc -l <"$work/$1.ratios")
      [ "$count" -ge 2 ] || { cat "$work/$1.out" >&2; fail "run '$1': expected a Jacobian test at each of >= 2 Newton steps, found $count"; }
      while read -r ratio; do
        { number "$ratio" && holds 'a + 0 < 1e-5' "$ratio"; } || { cat "$work/$1.out" >&2; fail "run '$1': ||J - Jfd||_F/||J||_F = $ratio, expected < 1e-5"; }
      done <"$work/$1.ratios"
    }
    if [ "$check" = hessian ]; then # TAO's -tao_test_hessian: the same comparison, TAO's own FD step
      run tao 1 -use_tao -tao_type nls -tao_test_hessian "$@"
      converged tao 50
      ratios tao
      exit 0
    fi
    run jac8 1 -snes_test_jacobian -snes_test_err 1e-8 "$@"
    converged jac8 50
    ratios jac8
    # PETSc's one-sided difference has truncation error proportional to its step: with an exact
    # Hessian the difference shrinks 10 times with the step (down to round-off, ~1e-8 at step 1e-10);
    # a wrong Hessian leaves a floor. Require a 5-fold reduction at the first Newton step.
    run jac9 1 -snes_test_jacobian -snes_test_err 1e-9 "$@"
    ratios jac9
    r8=$(sed -n 1p "$work/jac8.ratios")
    r9=$(sed -n 1p "$work/jac9.ratios")
    holds 'a + 0 <= b / 5' "$r9" "$r8" || fail "||J - Jfd||_F/||J||_F is $r8 with FD step 1e-8 and $r9 with 1e-9: not FD truncation error (expected at most $r8 / 5)"
    ;;
  linear)
    maxits=$1 n=$2 m=$3 h=$4 young=$5 rho=$6 g=$7
    shift 8
    run lin 1 -n "$n" -m "$m" -h "$h" -E "$young" -rho "$rho" -g "$g" "$@"
    converged lin "$maxits"
    u=$(field lin elastic)
    w=$(field lin work)
    holds 'a + 0 > 0 && b + 0 > 0' "$u" "$w" || fail "elastic energy $u and work of gravity $w must be > 0"
    # Clapeyron: for linear elasticity (K u = f) U = u^T K u / 2 = f . u / 2 exactly, also for the
    # discrete model; Neo-Hookean adds O(|grad u|) ~ O(rotation ~ w / L) relative, ~2e-4 here
    close "strain energy vs half the work of gravity" "$u" "$(awk -v w="$w" 'BEGIN { printf "%.17g", w / 2 }')" 1e-3
    # Euler-Bernoulli: w = q L^4 / (8 E I), q = rho |g| a^2, I = a^4 / 12, a = n h, L = m h. Linear
    # tets are stiffer than the continuum (displacements converge from below under refinement);
    # shear adds q L^2 / (2 k G A) = 0.8 (1 + nu) (a / L)^2 = 6.5% at L / a = 4 (Timoshenko, k = 5/6):
    # ratio < 1.1. Four linear tets across lock in bending; 0.7 still catches wrong units or material
    # constants (swapped Lame constants: ~0.3; a factor 2 in E: 0.5 or 2).
    web=$(awk -v n="$n" -v m="$m" -v h="$h" -v E="$young" -v rho="$rho" -v g="$g" 'BEGIN { a = n * h; L = m * h; if (g < 0) g = -g; printf "%.17g", 1.5 * rho * g * L^4 / (E * a^2) }')
    ratio=$(awk -v t="$(field lin tip_displacement)" -v w="$web" 'BEGIN { printf "%.4f", -t / w }')
    holds 'a + 0 >= 0.7 && a + 0 <= 1.1' "$ratio" || fail "tip deflection $(field lin tip_displacement) is $ratio times Euler-Bernoulli's $web, expected 0.7 to 1.1"
    ;;
  mesh)
    maxits=$1
    shift 2
    for np in 1 2; do
      run "np$np" "$np" "$@"
      converged "np$np" "$maxits"
    done
    # the same minimiser: Newton converges to round-off (residual ~1e-12) on both, and the energy
    # differs only by the order of floating-point sums across ranks (~1e-15 relative) and the
    # remaining gradient squared over the Hessian (~1e-24), far below 1e-10
    close "energy, 1 vs 2 ranks" "$(field np1 energy)" "$(field np2 energy)" 1e-10
    close "tip displacement, 1 vs 2 ranks" "$(field np1 tip_displacement)" "$(field np2 tip_displacement)" 1e-6
    ;;
  clapeyron)
    np=$1 maxits=$2
    shift 3
    run lin "$np" "$@"
    converged lin "$maxits"
    u=$(field lin elastic)
    w=$(field lin work)
    holds 'a + 0 > 0 && b + 0 > 0' "$u" "$w" || fail "elastic energy $u and work of gravity $w must be > 0"
    # Clapeyron: linear elasticity (K u = f) has U = u^T K u / 2 = f . u / 2 exactly, also for the
    # discrete model; the hyperelastic models differ by O(|grad u|), tiny for a stiff body
    close "strain energy vs half the work of gravity" "$u" "$(awk -v w="$w" 'BEGIN { printf "%.17g", w / 2 }')" 1e-3
    ;;
  hang)
    maxits=$1 nps=$2
    shift 3
    for np in $(seq 1 "$nps"); do
      run "np$np" "$np" -o "$work/np$np.vtu" "$@"
      converged "np$np" "$maxits" 1e-7
      # E(x) - E(x0) = elastic - work (gravity's potential is -f . x): the solve went downhill
      holds 'a + 0 < b + 0' "$(field "np$np" elastic)" "$(field "np$np" work)" ||
        fail "run 'np$np': elastic energy $(field "np$np" elastic) >= work of gravity $(field "np$np" work): the energy did not decrease from the rest shape"
      j=$(mindetf "$work/np$np.vtu")
      { number "$j" && holds 'a + 0 > 0' "$j"; } || fail "run 'np$np': min det F = $j over the tets, expected > 0 (no inverted tet)"
    done
    # the same minimiser (|grad E| <= 1e-7 of the load on both): the energies differ by the order
    # of floating-point sums across ranks and the gradient squared over the Hessian, << 1e-10
    [ "$nps" -lt 2 ] || close "energy, 1 vs 2 ranks" "$(field np1 energy)" "$(field np2 energy)" 1e-10
    ;;
  hangtao)
    # the same with TAO NLS (-use_tao: the same defaults under -tao_nls_ names, Armijo backtracking):
    # the same minimiser as SNES's to 1e-10 (both end at |grad E| <= 1e-7 of the load), no tet inverted
    maxits=$1
    shift 2
    run snes 1 "$@"
    converged snes "$maxits" 1e-7
    run tao 1 -use_tao -o "$work/tao.vtu" "$@"
    converged tao "$maxits" 1e-7
    j=$(mindetf "$work/tao.vtu")
    { number "$j" && holds 'a + 0 > 0' "$j"; } || fail "run 'tao': min det F = $j over the tets, expected > 0 (no inverted tet)"
    close "energy, TAO vs SNES" "$(field tao energy)" "$(field snes energy)" 1e-10
    ;;
  scale)
    maxits=$1 s=$2 e=$3
    shift 4
    run unit 1 -E "$e" "$@"
    converged unit "$maxits"
    run scaled 1 -mesh_scale "$s" -E "$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.17g", s * e }')" "$@"
    converged scaled "$maxits"
    close "tip displacement with -mesh_scale $s, over $s" "$(awk -v t="$(field scaled tip_displacement)" -v s="$s" 'BEGIN { printf "%.17g", t / s }')" \
      "$(field unit tip_displacement)" 1e-7
    close "energy with -mesh_scale $s, over $s^4" "$(awk -v t="$(field scaled energy)" -v s="$s" 'BEGIN { printf "%.17g", t / (s * s * s * s) }')" \
      "$(field unit energy)" 1e-7
    ;;
  badmesh)
    shift 1
    $mpiexec -n 1 "$prog" -mesh "$work/no_such_mesh.node" "$@" </dev/null >"$work/bad.out" 2>&1 && fail "-mesh with a missing file succeeded"
    grep -q "no_such_mesh.node" "$work/bad.out" || { cat "$work/bad.out" >&2; fail "the error does not name the missing file"; }
    ;;
  vtu)
    shift 1
    run vtu 2 -o "$work/bar.vtu" "$@"
    converged vtu 50
    [ -f "$work/bar.vtu" ] || fail "-o $work/bar.vtu wrote no file"
    ls "$work" | grep -q '^bar\.vtu\.tmp' && fail "a temporary file bar.vtu.tmp* was left behind"
    nv=$(field vtu vertices)
    ne=$(field vtu elements)
    grep -q "NumberOfPoints=\"$nv\" NumberOfCells=\"$ne\"" "$work/bar.vtu" || fail "bar.vtu does not declare $nv points and $ne cells"
    tail -n 1 "$work/bar.vtu" | grep -q '^</VTKFile>$' || fail "bar.vtu does not end with </VTKFile>"
    # the values of one DataArray, one per line
    array() { sed -n "/Name=\"$1\"/,/<\/DataArray>/p" "$work/bar.vtu" | sed '1d;$d' | tr -s ' ' '\n' | grep -v '^$'; }
    [ "$(array displacement | wc -l)" -eq $((3 * nv)) ] || fail "bar.vtu has $(array displacement | wc -l) displacement values, expected $((3 * nv))"
    [ "$(array connectivity | wc -l)" -eq $((4 * ne)) ] || fail "bar.vtu has $(array connectivity | wc -l) connectivity entries, expected $((4 * ne))"
    # vertex 0 is clamped: its displacement (the first 3 values) is zero
    [ "$(array displacement | head -n 3 | grep -Ecv '^-?0(\.0*)?([eE][-+]?0+)?$')" -eq 0 ] || fail "vertex 0 is clamped, but bar.vtu gives it displacement $(array displacement | head -n 3 | tr '\n' ' ')"
    # and the free end moves: some displacement is not zero
    [ "$(array displacement | grep -Ecv '^-?0(\.0*)?([eE][-+]?0+)?$')" -gt 0 ] || fail "bar.vtu has no non-zero displacement"
    # every cell type is VTK_TETRA (10)
    types=$(array types | grep -c '^10$')
    [ "$types" -eq "$ne" ] || fail "bar.vtu has $types cells of type 10 (VTK_TETRA), expected $ne"
    ;;
  freefall)
    # Internal forces sum to zero and gravity and inertia are linear, so the z-sum of the gradient of
    # step n's incremental potential is (M / dt^2)(Z - Z*), Z the centre of mass, Z* = Z_n + dt V_n +
    # dt^2 g: at a solution with |grad E| <= 1e-6 of the load (the program's SNES tolerance for
    # dynamics), the load being |(m_v g)_v| <= 3 M |g| / sqrt(nv) (lumped masses within 3 x their
    # mean), |Z - Z*| <= 3e-6 dt^2 |g| per step; over N steps (velocity errors carried) the error is
    # <= N^2 3e-6 dt^2 |g| against the displacement dt^2 |g| N (N + 1) / 2: 1e-5 relative holds.
    np=$1 maxits=$2 steps=$3 dt=$4 g=$5
    shift 6
    run ff "$np" -clamp 0 -ts_steps "$steps" -dt "$dt" -g "$g" "$@"
    converged ff "$maxits"
    vz=$(awk -v n="$steps" -v dt="$dt" -v g="$g" 'BEGIN { printf "%.17g", n * dt * g }')
    zz=$(awk -v n="$steps" -v dt="$dt" -v g="$g" 'BEGIN { printf "%.17g", dt * dt * g * n * (n + 1) / 2 }')
    close "centre-of-mass velocity after $steps steps vs N dt g" "$(field ff com_velocity)" "$vz" 1e-5
    close "centre-of-mass displacement after $steps steps vs dt^2 g N (N + 1) / 2" "$(field ff com_displacement)" "$zz" 1e-5
    # a rigid translation: no strain (elastic energy 0 up to round-off of ~1e-16 per element)
    holds 'a + 0 < 1e-12 && a + 0 > -1e-12' "$(field ff elastic)" || fail "free fall: elastic energy $(field ff elastic), expected 0 (a rigid translation)"
    ;;
  settle)
    # Implicit Euler dissipates: with x_{n+1} minimising 1/(2 dt^2)|x - x_n - dt v_n|_M^2 + W(x) and W
    # convex (the linear regime: E = 1e8, strains ~1e-4), the optimality condition
    # M (v_{n+1} - v_n) = -dt grad W(x_{n+1}) and convexity give
    # K_{n+1} + W_{n+1} + 1/2 |v_{n+1} - v_n|_M^2 <= K_n + W_n: mechanical energy never increases, up
    # to the round-off of W: Neo-Hookean's per-element terms ~1.5 mu V cancel to the strain energy,
    # so W carries ~10 eps 1.5 mu Vol = 2e-13 J here (mu = 3.8e7 Pa, Vol = 4e-6 m^3): slack 1e-12 J.
    # The lowest bending mode (~160 Hz at E = 1e8) has omega dt ~ 10 at dt = 0.01: each step
    # multiplies its deviation from the static solution by 1 / (1 + (omega dt)^2) ~ 1e-2, so after
    # N >= 5 steps the bar is at the static solution to ~1e-10: tip displacement to 1e-5 (the
    # steps end with |grad E| <= 1e-6 of the load, statics with 1e-8: displacement errors of the
    # same relative order in this nearly linear problem). Full Newton steps (-snes_linesearch_type basic):
    # the energy's round-off (above) is larger than a converging Newton step's decrease, which
    # makes a backtracking line search fail near the solution of so stiff a bar.
    maxits=$1 steps=$2
    shift 3
    run dyn 1 -E 1e8 -ts_steps "$steps" -dt 0.01 -snes_linesearch_type basic "$@"
    converged dyn "$maxits"
    run stat 1 -E 1e8 -snes_linesearch_type basic "$@"
    converged stat "$maxits"
    grep '^elastic: step ' "$work/dyn.out" | awk '{ for (i = 1; i < NF; i++) { if ($i == "energy") e = $(i + 1); if ($i == "kinetic") k = $(i + 1) } printf "%.15e\n", e + k }' >"$work/mech"
    [ "$(wc -l <"$work/mech")" -eq "$steps" ] || fail "expected $steps step lines"
    awk 'BEGIN { prev = 0 } { if ($1 - prev > 1e-12) { print NR ": " prev " -> " $1; exit 1 } prev = $1 }' "$work/mech" ||
      fail "mechanical energy (potential + kinetic) increased at a step: $(tr '\n' ' ' <"$work/mech")"
    close "settled tip displacement vs statics" "$(field dyn tip_displacement)" "$(field stat tip_displacement)" 1e-5
    ;;
  *)
    fail "unknown check '$check'"
    ;;
esac
exit 0
