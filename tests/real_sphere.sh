#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/sphere on real and on broken closed surfaces and checks what it prints.
#   real_sphere.sh <check> [<check arguments>] <program> <nranks> <mpiexec> [mpiexec flags] -- [program options]
# The checks' justifications are in tests/real_sphere.cmake beside the tests that use them.
check=$1
shift
case $check in refused) msg=$1 make=$2; shift 2 ;; esac
set -- "$check" "$@"
. "$(dirname "$0")/geom_lib.sh" # check prog np mpiexec mpiflags, field, ok; "$@" the program options
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

output() { # output <nranks> [options]: the whole output (start and summary lines); fails on an error exit
  n=$1
  shift
  # shellcheck disable=SC2086
  "$mpiexec" $mpiflags -n "$n" "$prog" "$@" </dev/null >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: sphere exited with an error"; exit 1; }
  cat "$tmp/out"
}
mapped() { # mapped <output>: the start and the result are flip-free maps of degree one onto the unit sphere
  s=$(echo "$1" | grep "^sphere: start" | tail -1)
  l=$(echo "$1" | grep "^sphere: vertices" | tail -1)
  [ -n "$s" ] && [ -n "$l" ] || { echo "$1"; echo "FAIL: no start or summary line"; exit 1; }
  echo "$s"
  echo "$l"
  ok "the start: no flipped triangle, covered_area = 1 to 1e-10" "a == 0 && abs(b - 1) <= 1e-10" "$(field "$s" flipped)" "$(field "$s" covered_area)"
  ok "converged (reason > 0)" "a > 0" "$(field "$l" reason)"
  ok "no flipped triangle" "a == 0" "$(field "$l" flipped)"
  ok "covered_area = 1 to 1e-10" "abs(a - 1) <= 1e-10" "$(field "$l" covered_area)"
  ok "max_norm_error <= 1e-12" "a <= 1e-12" "$(field "$l" max_norm_error)"
  ok "energy_per_area >= 4 (symmetric Dirichlet's lower bound)" "a >= 4" "$(field "$l" energy_per_area)"
}

# Broken closed surfaces, written as OBJ files: <name> <file>
octahedron() { # octahedron <dx> <first vertex number>: vertices and outward triangles
  awk -v dx="$1" -v o="$2" 'BEGIN {
    printf "v %g 0 0\nv %g 0 0\nv %g 1 0\nv %g -1 0\nv %g 0 1\nv %g 0 -1\n", dx + 1, dx - 1, dx, dx, dx, dx
    split("0 2 4 2 1 4 1 3 4 3 0 4 2 0 5 1 2 5 3 1 5 0 3 5", f, " ")
    for (i = 1; i <= 24; i += 3) printf "f %d %d %d\n", f[i] + o, f[i + 1] + o, f[i + 2] + o
  }'
}
torus() { # torus <n>: an n x n grid on a torus, genus 1, vertices from <first vertex number>
  awk -v n="$1" -v o="${2:-1}" -v dx="${3:-0}" 'BEGIN {
    pi = atan2(0, -1)
    for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
      a = 2 * pi * i / n; b = 2 * pi * j / n
      printf "v %.9f %.9f %.9f\n", dx + (2 + cos(b)) * cos(a), (2 + cos(b)) * sin(a), sin(b)
    }
    for (i = 0; i < n; i++) for (j = 0; j < n; j++) {
      p = i * n + j; q = ((i + 1) % n) * n + j; r = ((i + 1) % n) * n + (j + 1) % n; s = i * n + (j + 1) % n
      printf "f %d %d %d\nf %d %d %d\n", p + o, q + o, r + o, p + o, r + o, s + o
    }
  }'
}
merge() { # merge "<from>=<to> ...": vertex <from> becomes <to> (<to> < <from>), the rest renumbered
  awk -v pairs="$1" 'BEGIN { n = split(pairs, p, " "); for (i = 1; i <= n; i++) { split(p[i], q, "="); to[q[1]] = q[2] } }
    /^v/ { nv++; if (nv in to) next; print; next }
    /^f/ { for (i = 2; i <= 4; i++) { k = $i; if (k in to) k = to[k]; s = 0; for (r in to) if (r + 0 < k + 0) s++; $i = k - s } print }'
}
make_mesh() {
  case $1 in
  torus) torus 6 ;;                                               # genus 1: V - E + F = 0
  sphere_and_torus) { octahedron 10 1; torus 6 7; } ;;            # V - E + F = 2 + 0 = 2, two components
  pinched) { octahedron 0 1; octahedron 2 7; } | merge "8=1" ;;   # two spheres touching at a vertex: V - E + F = 3
  # two spheres joined at two (non-adjacent) vertices: connected, closed, every edge in two
  # consistently oriented triangles, V - E + F = 10 - 24 + 16 = 2, but two fans at either vertex
  glued) { octahedron 0 1; octahedron 2 7; } | merge "8=1 7=2" ;;
  reversed) octahedron 0 1 | awk '/^f/ && !done { print "f", $2, $4, $3; done = 1; next } { print }' ;; # one triangle turned
  open) octahedron 0 1 | awk '/^f/ && !done { done = 1; next } { print }' ;;                       # one triangle missing
  *) echo "unknown mesh $1"; exit 2 ;;
  esac
}

case $check in
map) # a flip-free degree-one map, start and result
  out=$(output "$np" "$@")
  mapped "$out" ;;
ranks) # 1 rank and np ranks: both maps, and the same energy to 1e-9 relative
  out1=$(output 1 "$@")
  mapped "$out1"
  out2=$(output "$np" "$@")
  mapped "$out2"
  l1=$(echo "$out1" | grep "^sphere: vertices" | tail -1)
  l2=$(echo "$out2" | grep "^sphere: vertices" | tail -1)
  ok "energy: 1 rank vs $np ranks to 1e-9" "abs(a - b) <= 1e-9 * abs(a)" "$(field "$l1" energy)" "$(field "$l2" energy)" ;;
target_area) # the Tutte start's rest size (equilateral shares of the sphere) against a round mesh's own chord area
  out1=$(output "$np" "$@" -start radial)
  mapped "$out1"
  out2=$(output "$np" "$@" -start tutte)
  mapped "$out2"
  ok "area: the Tutte start's rest size = the round mesh's chord area to 1e-3" "abs(a - b) <= 1e-3 * b" \
    "$(field "$(echo "$out2" | grep "^sphere: vertices")" area)" "$(field "$(echo "$out1" | grep "^sphere: vertices")" area)" ;;
not_converged) # a solve stopped early: a non-zero exit, the reason on stderr, the summary on stdout
  # shellcheck disable=SC2086
  if "$mpiexec" $mpiflags -n "$np" "$prog" "$@" </dev/null >"$tmp/out" 2>"$tmp/err"; then
    cat "$tmp/out" "$tmp/err"
    echo "FAIL: sphere exited with 0 although its solve did not converge"
    exit 1
  fi
  grep -q "did not converge: DIVERGED" "$tmp/err" || { cat "$tmp/out" "$tmp/err"; echo "FAIL: no reason on stderr"; exit 1; }
  grep "^sphere: vertices" "$tmp/out" || { cat "$tmp/out"; echo "FAIL: no summary line"; exit 1; }
  grep "did not converge" "$tmp/err" ;;
refused) # a broken surface: an error exit whose message contains $msg
  make_mesh "$make" >"$tmp/mesh.obj"
  # shellcheck disable=SC2086
  if "$mpiexec" $mpiflags -n "$np" "$prog" -mesh "$tmp/mesh.obj" "$@" </dev/null >"$tmp/out" 2>&1; then
    cat "$tmp/out"
    echo "FAIL: sphere accepted $make"
    exit 1
  fi
  grep -q "$msg" "$tmp/out" || { cat "$tmp/out"; echo "FAIL: the error does not say '$msg'"; exit 1; }
  grep "$msg" "$tmp/out" | head -1 ;;
*)
  echo "unknown check $check"
  exit 2 ;;
esac
echo "PASS: $check"
