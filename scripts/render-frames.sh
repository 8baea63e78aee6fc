#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs petsc-examples/frames on the README's two cases with -o and draws each field to
# docs/img/frames-<case>.png with scripts/render-frames.py (numpy, matplotlib and meshio: Debian's,
# else from PyPI in the ignored .venv, as scripts/render.sh finds them).
#   bash scripts/render-frames.sh            (after bash scripts/build.sh)
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
# shellcheck source=scripts/render-python.sh
. "$root/scripts/render-python.sh"
py=$(mfad_render_python)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$root/docs/img"
export OMP_NUM_THREADS=1
"$build/petsc-examples/frames" -mesh "$root/tests/meshes/sphere_tris.msh" -power_rtol 1e-4 -o "$tmp/sphere.vtu" | tail -1
"$build/petsc-examples/frames" -o "$tmp/cap.vtu" | tail -1
"$py" "$root/scripts/render-frames.py" "$tmp/sphere.vtu" "$root/docs/img/frames-sphere.png" --title "frames: globally optimal cross field, sphere (red: index +1/4)"
"$py" "$root/scripts/render-frames.py" "$tmp/cap.vtu" "$root/docs/img/frames-cap.png" --title "frames: boundary-aligned cross field, spherical cap"
