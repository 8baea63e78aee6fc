#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs the geometry examples (param, smooth, arap) at their defaults with -o and renders each result
# to docs/img/<example>.png with scripts/render.sh (the README's pictures).
#   bash scripts/render-geom.sh            (after bash scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$root/docs/img"
export OMP_NUM_THREADS=1
"$build/petsc-examples/param" -o "$tmp/param.vtu" | tail -1
"$build/petsc-examples/smooth" -o "$tmp/smooth.vtu" | tail -1
"$build/petsc-examples/smooth" -fidelity 1 -lambda 1e-9 -o "$tmp/noisy.vtu" >/dev/null # the input, nearly untouched
"$build/petsc-examples/smooth" -order 2 -o "$tmp/smooth-bilap.vtu" | tail -1
"$build/petsc-examples/arap" -o "$tmp/arap.vtu" | tail -1
bash "$root/scripts/render.sh" "$tmp/param.vtu" "$root/docs/img/param.png" --field none --title "param: symmetric Dirichlet, spherical cap (UV plane)"
bash "$root/scripts/render.sh" "$tmp/noisy.vtu" "$root/docs/img/smooth-input.png" --field none --title "smooth: noisy input"
bash "$root/scripts/render.sh" "$tmp/smooth.vtu" "$root/docs/img/smooth.png" --field displacement --title "smooth: result (colour: |displacement|)"
bash "$root/scripts/render.sh" "$tmp/smooth-bilap.vtu" "$root/docs/img/smooth-bilap.png" --field displacement --title "smooth -order 2: bilaplacian result (colour: |displacement|)"
bash "$root/scripts/render.sh" "$tmp/arap.vtu" "$root/docs/img/arap.png" --field displacement --title "arap: bar bent by its end handles"
