#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Writes petsc-examples/meshes/cap.obj: the unit sphere's cap of polar angle up to 60 degrees as
# a polar grid (a pole vertex, `rings` rings of `sectors` vertices), triangles counter-clockwise
# seen from outside. The param example's file input (-mesh) and its test use it.
#   bash scripts/make-cap-obj.sh [rings] [sectors]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
awk -v K="${1:-6}" -v S="${2:-24}" 'BEGIN {
  pi = atan2(0, -1)
  printf "# unit sphere cap, polar angle <= 60 deg: %d rings x %d sectors (scripts/make-cap-obj.sh)\n", K, S
  print "v 0 0 1"
  for (k = 1; k <= K; k++)
    for (j = 0; j < S; j++) {
      p = k * (pi / 3) / K; t = 2 * pi * j / S
      printf "v %.15g %.15g %.15g\n", sin(p) * cos(t), sin(p) * sin(t), cos(p)
    }
  for (j = 0; j < S; j++) printf "f 1 %d %d\n", 2 + j, 2 + (j + 1) % S
  for (k = 1; k < K; k++)
    for (j = 0; j < S; j++) {
      a = 2 + (k - 1) * S + j; b = 2 + (k - 1) * S + (j + 1) % S
      d = a + S; c = b + S
      printf "f %d %d %d\nf %d %d %d\n", a, d, c, a, c, b
    }
}' > "$root/petsc-examples/meshes/cap.obj"
echo "wrote $root/petsc-examples/meshes/cap.obj"
