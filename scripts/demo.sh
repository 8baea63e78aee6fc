#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Sets up, builds and runs the main demo: a hyperelastic bar (petsc-examples/elastic.c) solved
# by Newton-Krylov with mfad's exact Hessian-vector products (CG + Jacobi, no Hessian formed).
# Extra arguments go to the program, after the defaults (later options win), e.g.
#   bash scripts/demo.sh -n 8 -m 32 -o bar.vtu -mfad_view -log_view
# MFAD_NP=2 bash scripts/demo.sh runs it on 2 MPI ranks.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
export MFAD_BUILD_DIR=$build

bash "$root/scripts/setup.sh"
# only the library and the demo program: the tests, benchmarks and other examples are test.sh's
MFAD_BUILD_TARGETS=elastic bash "$root/scripts/build.sh"

exe=$build/petsc-examples/elastic
if [ ! -x "$exe" ]; then
  echo "demo: $exe was not built" >&2
  exit 1
fi
# the result as a VTU and a picture of it (a later -o of the caller's wins, and is drawn)
vtu=$build/demo/elastic.vtu
mkdir -p "$build/demo"
args=(-snes_monitor -ksp_type cg -pc_type jacobi -snes_converged_reason -o "$vtu" "$@")
prev=
for a in "$@"; do
  [ "$prev" = -o ] && vtu=$a
  prev=$a
done

np=${MFAD_NP:-1}
echo "demo: elastic ${args[*]} (${np} rank(s))"
if [ "$np" -gt 1 ]; then
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  mpiexec --oversubscribe -n "$np" "$exe" "${args[@]}" </dev/null
else
  "$exe" "${args[@]}"
fi

# the picture: python/mfad/render.py with Debian's matplotlib and meshio (setup.sh's; MFAD_PYTHON:
# another Python); without them a note, not a failure
png=${vtu%.vtu}.png
py=${MFAD_PYTHON:-/usr/bin/python3}
if "$py" -c 'import matplotlib, meshio' >/dev/null 2>&1; then
  PYTHONPATH="$root/python" "$py" -m mfad.render "$vtu" "$png" --field displacement \
    --title "elastic: a Neo-Hookean bar sagged under its own weight" >/dev/null &&
    echo "demo: the result: $vtu (VTK), and a picture of it: $png" ||
    echo "demo: the result: $vtu (VTK); drawing it failed (the message above)"
else
  echo "demo: the result: $vtu (VTK); for a picture of it: apt-get install python3-matplotlib python3-meshio, then bash scripts/render.sh $vtu ${png}"
fi
