#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs a geometry example (param, smooth, arap, arap_surface, ...) and checks its summary line.
#   example_geom.sh <check> <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# Each check's justification is in tests/examples_geom.cmake beside the test that uses it.
. "$(dirname "$0")/geom_lib.sh"

case $check in
plane) # param of a flat square: the isometric minimum, 4 x area, area 4
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 20
  ok "area = 4 (the square [-1, 1]^2)" "a - 4 < 1e-12 && 4 - a < 1e-12" "$(field "$l" area)"
  ok "energy_per_area = 4 to 1e-8" "a - 4 < 4e-8 && a - 4 > -1e-12" "$(field "$l" energy_per_area)"
  ok "max_sigma_ratio = 1 to 1e-4" "a < 1 + 1e-4" "$(field "$l" max_sigma_ratio)"
  ok "no flipped triangle" "a == 0" "$(field "$l" flipped)" ;;
curved) # param of a curved surface: above the isometric bound, no flip
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 30 # 21 on 2 ranks without MUMPS (CG + GAMG steps)
  ok "energy_per_area >= 4 (symmetric Dirichlet's lower bound)" "a >= 4" "$(field "$l" energy_per_area)"
  ok "no flipped triangle" "a == 0" "$(field "$l" flipped)" ;;
ranks) # 1 rank and np ranks: the same value of <key> to 1e-9 relative
  key=$1
  shift
  l1=$(run 1 "$@"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  converged "$l1" 30
  converged "$l2" 30
  ok "$key: 1 rank vs $np ranks to 1e-9" "abs(a - b) <= 1e-9 * abs(a) + 1e-14" "$(field "$l1" "$key")" "$(field "$l2" "$key")" ;;
rigid) # arap with rigidly moved handles: energy 0, the rest shape rigidly moved
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 20
  ok "energy = 0 (to 1e-12 x area)" "a <= 1e-12 * b" "$(field "$l" energy)" "$(field "$l" area)"
  ok "rigid_deviation <= 1e-8" "a <= 1e-8" "$(field "$l" rigid_deviation)" ;;
stretch) # arap stretched along x by s = 1 + dx / L: uniaxial state, energy area (s - 1)^2
  s=$1
  shift
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 20
  ok "energy = area (s - 1)^2 to 1e-9" "abs(a - b * (c - 1) ^ 2) <= 1e-9 * a" "$(field "$l" energy)" "$(field "$l" area)" "$s"
  ok "stretch_x = s to 1e-9" "abs(a - b) <= 1e-9" "$(field "$l" stretch_x)" "$s" ;;
harmonic) # smoothing without fidelity, flat boundary: the plane, exactly
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 3
  ok "max_deviation <= 1e-8" "a <= 1e-8" "$(field "$l" max_deviation)" ;;
contract) # smoothing with fidelity: the mass-weighted rms height shrinks
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 3
  ok "rms_after < rms_before" "a < b" "$(field "$l" rms_after)" "$(field "$l" rms_before)" ;;
surface_rigid|surface_rigid_turn) # arap_surface with rigidly moved handles: energy 0, the rest shape and every rotation rigidly moved
  l=$(run "$np" "$@"); echo "$l"
  if [ "$check" = surface_rigid_turn ]; then converged "$l" 60; else converged "$l" 30; fi # _turn: 5 load steps
  ok "energy <= 1e-12" "a <= 1e-12" "$(field "$l" energy)"
  ok "rigid_deviation <= 1e-6" "a <= 1e-6" "$(field "$l" rigid_deviation)"
  ok "rotation_deviation <= 1e-6" "a <= 1e-6" "$(field "$l" rotation_deviation)"
  ok "length_ratio = 1 to 1e-9" "abs(a - 1) <= 1e-9" "$(field "$l" length_ratio)" ;;
vtu) # -o: the VTU holds the surface's vertices and triangles only (no rotation nodes or other unknowns)
  f=$(mktemp "${TMPDIR:-/tmp}/mfad-geom.XXXXXX").vtu
  l=$(run "$np" "$@" -o "$f"); echo "$l"
  head=$(grep -o 'NumberOfPoints="[0-9]*" NumberOfCells="[0-9]*"' "$f" | tr -dc '0-9 ')
  rm -f "$f" "${f%.vtu}"
  ok "VTU points = vertices, cells = triangles" "a == b && c == $(field "$l" triangles)" "$(echo "$head" | awk '{ print $1 }')" "$(field "$l" vertices)" "$(echo "$head" | awk '{ print $2 }')" ;;
same_energy) # the given options end at the same energy as the program's defaults (to 1e-9 relative)
  l1=$(run "$np"); echo "$l1"
  l2=$(run "$np" "$@"); echo "$l2"
  converged "$l1" 30
  converged "$l2" 200
  ok "energy: defaults vs options to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
psd_steps) # -mfad_psd_project_steps 2 (projected, then exact Newton) ends where projected Newton does, in fewer steps
  l1=$(run "$np" "$@" -mfad_psd_project_steps -1 -snes_max_it 300); echo "$l1"
  l2=$(run "$np" "$@" -mfad_psd_project_steps 2); echo "$l2"
  converged "$l1" 300
  converged "$l2" 20
  ok "energy: projected vs projected-then-exact to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
psd_steps_tao) # the same with TAO (nls; shell/tao.c chooses each iteration's projection)
  l1=$(run "$np" "$@" -use_tao -mfad_psd_project_steps -1 -tao_max_it 300); echo "$l1"
  l2=$(run "$np" "$@" -use_tao -mfad_psd_project_steps 2); echo "$l2"
  converged "$l1" 300
  converged "$l2" 30
  ok "energy: projected vs projected-then-exact to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
local_global) # arap_surface: Newton's result is the fixed point of Sorkine & Alexa's local-global iterations
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 60
  ok "local-global converged (lg_iterations < the cap)" "a < 5000" "$(field "$l" lg_iterations)"
  ok "lg_energy = energy to 1e-10 relative" "abs(a - b) <= 1e-10 * a" "$(field "$l" energy)" "$(field "$l" lg_energy)"
  ok "lg_deviation <= 1e-6" "a <= 1e-6" "$(field "$l" lg_deviation)" ;;
orders) # smooth -order 1 and -order 2 on the same options: the same rms_after to 1e-8 relative
  l1=$(run "$np" "$@" -order 1); echo "$l1"
  l2=$(run "$np" "$@" -order 2); echo "$l2"
  converged "$l1" 3
  converged "$l2" 3
  ok "rms_after: order 1 vs order 2 to 1e-8" "abs(a - b) <= 1e-8 * abs(a)" "$(field "$l1" rms_after)" "$(field "$l2" rms_after)" ;;
frames_zero) # frames, flat square, boundary-aligned: the constant field, energy 0, no singularity
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 3
  ok "energy = 0 (<= 1e-10)" "a >= 0 && a <= 1e-10" "$(field "$l" energy)"
  ok "no singularities" "a == 0" "$(field "$l" singularities)"
  ok "index_sum = 0" "a == 0" "$(field "$l" index_sum)" ;;
frames_closed) # frames, closed surface: euler and index sum = chi [singularities = count] [energy <= bound]
  chi=$1 count=$2 bound=$3 maxit=$4
  shift 4
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" "$maxit"
  ok "euler = $chi" "a == b" "$(field "$l" euler)" "$chi"
  ok "index_sum = $chi (Poincare-Hopf)" "abs(a - b) < 1e-9" "$(field "$l" index_sum)" "$chi"
  [ "$count" -lt 0 ] || ok "singularities = $count" "a == b" "$(field "$l" singularities)" "$count"
  [ "$bound" = -1 ] || ok "energy <= $bound" "a >= 0 && a <= b" "$(field "$l" energy)" "$bound" ;;
frames_disk) # frames, disk, boundary-aligned: interior and boundary index sums (chi = 1)
  isum=$1 bsum=$2
  shift 2
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 3
  ok "euler = 1" "a == 1" "$(field "$l" euler)"
  ok "index_sum = $isum" "abs(a - b) < 1e-9" "$(field "$l" index_sum)" "$isum"
  ok "boundary_index_sum = $bsum" "abs(a - b) < 1e-9" "$(field "$l" boundary_index_sum)" "$bsum" ;;
frames_chi) # frames on any surface: interior + boundary index sums = chi (Poincare-Hopf with boundary)
  chi=$1 maxit=$2
  shift 2
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" "$maxit"
  ok "euler = $chi" "a == b" "$(field "$l" euler)" "$chi"
  ok "index_sum + boundary_index_sum = $chi" "abs(a + b - c) < 1e-9" "$(field "$l" index_sum)" "$(field "$l" boundary_index_sum)" "$chi" ;;
frames_eigen) # frames, global problem: energy_per_area (the smallest eigenvalue) = <value> to 1e-9
  value=$1
  shift
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 30
  ok "energy_per_area = $value to 1e-9" "abs(a - b) <= 1e-9 * b" "$(field "$l" energy_per_area)" "$value" ;;
frames_fails) # frames stops with a PETSc error whose message contains <text> (bad input, not a crash)
  text=$1
  shift
  # shellcheck disable=SC2086
  if out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1); then echo "$out"; echo "FAIL: $name succeeded"; exit 1; fi
  echo "$out" | grep -q -- "$text" || { echo "$out"; echo "FAIL: no error message '$text'"; exit 1; } ;;
jacobian) # -snes_test_jacobian at every Newton step: the Hessian against PETSc's finite differences
  # shellcheck disable=SC2086
  out=$("$mpiexec" $mpiflags -n "$np" "$prog" -snes_test_jacobian "$@" </dev/null 2>&1) || { echo "$out"; echo "FAIL: $name exited with an error"; exit 1; }
  ratios=$(echo "$out" | sed -n 's/.*||J - Jfd||_F\/||J||_F = \([^,]*\),.*/\1/p')
  [ -n "$ratios" ] || { echo "$out"; echo "FAIL: no Jacobian test in the output"; exit 1; }
  for r in $ratios; do ok "||J - Jfd||_F/||J||_F = $r < 1e-5" "a + 0 < 1e-5 && a == a" "$r"; done
  echo "$ratios" | tr '\n' ' '; echo ;;
sphere) # sphere: a degree-one map onto the unit sphere, every vertex on it (justified in examples_geom.cmake)
  maxits=$1
  shift
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" "$maxits"
  ok "no flipped triangle" "a == 0" "$(field "$l" flipped)"
  ok "covered_area = 1 to 1e-10" "abs(a - 1) <= 1e-10" "$(field "$l" covered_area)"
  ok "max_norm_error <= 1e-12" "a <= 1e-12" "$(field "$l" max_norm_error)"
  ok "energy_per_area >= 4 (symmetric Dirichlet's lower bound)" "a >= 4" "$(field "$l" energy_per_area)" ;;
sphere_round) # sphere of a round sphere mesh: the start is the isometric minimiser, 4 x area, nothing moves
  l=$(run "$np" "$@"); echo "$l"
  converged "$l" 2
  ok "energy_per_area = 4 to 1e-12" "abs(a - 4) <= 4e-12" "$(field "$l" energy_per_area)"
  ok "max_move <= 1e-12" "a <= 1e-12" "$(field "$l" max_move)"
  ok "no flipped triangle, covered_area = 1" "a == 0 && abs(b - 1) <= 1e-10" "$(field "$l" flipped)" "$(field "$l" covered_area)" ;;
sphere_tao) # sphere: SNES with retraction and TAO without it reach the same energy (1e-9 relative)
  l1=$(run "$np" "$@"); echo "$l1"
  l2=$(run "$np" -use_tao "$@"); echo "$l2"
  converged "$l1" 30
  converged "$l2" 30
  ok "energy: SNES vs TAO to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)"
  ok "TAO: no flipped triangle, max_norm_error <= 1e-5" "a == 0 && b <= 1e-5" "$(field "$l2" flipped)" "$(field "$l2" max_norm_error)" ;;
sphere_refused) # sphere on bad input: an error exit whose message contains $1
  msg=$1
  shift
  # shellcheck disable=SC2086
  if out=$("$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null 2>&1); then echo "$out"; echo "FAIL: $name accepted the input"; exit 1; fi
  echo "$out" | grep -q "$msg" || { echo "$out"; echo "FAIL: the error does not say '$msg'"; exit 1; }
  echo "$out" | grep "$msg" | head -1 ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
