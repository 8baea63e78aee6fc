#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# CI's second stage (.ci/run runs it after scripts/test.sh): mfad built a second time, with CUDA
# on, against a current PETSc configured with CUDA (scripts/petsc-cuda.sh: PETSc 3.26.1, cached
# in ~/.cache/mfad), into ./build-cuda, then every test with ctest. It checks that the sources
# compile, without deprecation warnings, against PETSc 3.26 and with PETSC_HAVE_CUDA defined,
# that nvcc compiles the energies and the CUDA backend, and that the tests pass there (the CUDA
# backend through its host emulation, test_cuda_emu; test_cuda, which needs a device, reports
# Skipped). No GPU is used or needed: nothing here runs on a device. The tests it runs are what can
# differ from stage 1 (see the selection below), not the whole suite again.
# The kernels' resource table (scripts/cuda-resources.py) is printed, and a kernel over its gate
# (launch bounds, registers x block, stack, spills, occupancy) fails the stage. Extra arguments go to ctest. Exit status: ctest's; 1 if PETSc, the
# build or the gate failed; 0 with a SKIPPED message when there is no nvcc (or MFAD_CI_CUDA=0).
# Environment: MFAD_CUDA_BUILD_DIR (default <repo>/build-cuda), MFAD_CI_CUDA=0 (skip) or =all (every
# test), MFAD_BUILD_DIR_STAGE1 (stage 1's build, default <repo>/build), and those
# of scripts/petsc-cuda.sh (MFAD_PETSC_VERSION, MFAD_CACHE, MFAD_CUDA_ARCH, MFAD_JOBS).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_CUDA_BUILD_DIR:-$root/build-cuda}
start=$SECONDS

if [ "${MFAD_CI_CUDA:-1}" = 0 ]; then
  echo "test-cuda: SKIPPED: MFAD_CI_CUDA=0"
  exit 0
fi
nvcc=${CUDACXX:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
  echo "test-cuda: SKIPPED: no CUDA compiler (looked for \$CUDACXX, nvcc on PATH, /usr/local/cuda/bin/nvcc):"
  echo "test-cuda: the CUDA build against a current PETSc is not checked on this machine"
  exit 0
fi

echo "test-cuda: PETSc with CUDA (scripts/petsc-cuda.sh; the first run builds it, ~8 min on 2 cores)"
t=$SECONDS
if ! petsc=$(CUDACXX=$nvcc bash "$root/scripts/petsc-cuda.sh" | tail -n 1) || [ ! -f "$petsc/lib/pkgconfig/petsc.pc" ]; then
  echo "test-cuda: FAILED: no PETSc with CUDA to build against (scripts/petsc-cuda.sh failed, see its messages above)" >&2
  exit 1
fi
grep -q '^#define PETSC_HAVE_CUDA 1' "$petsc/include/petscconf.h" ||
  { echo "test-cuda: FAILED: $petsc is not configured with CUDA (no PETSC_HAVE_CUDA in petscconf.h)" >&2; exit 1; }
petsc_time=$((SECONDS - t))
version=$(sed -n 's/^Version: *//p' "$petsc/lib/pkgconfig/petsc.pc")
echo "test-cuda: PETSc $version with CUDA in $petsc ($petsc_time s)"

# CMake finds PETSc with pkg-config; tests and the install test's programs load this libpetsc
export PKG_CONFIG_PATH=$petsc/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$petsc/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUDACXX=$nvcc
# a build dir configured against another PETSc would keep that one: start it afresh
if [ -f "$build/CMakeCache.txt" ] && ! grep -q "$petsc/lib" "$build/CMakeCache.txt"; then
  echo "test-cuda: $build was configured against another PETSc: removing it"
  rm -rf "$build"
fi

# CUDA required (ON: no silent CPU-only build). What a PETSc API change produces is an error here:
# a call to a removed function (an implicit declaration, only a warning in C), a changed
# signature (incompatible pointers, int conversions) and deprecated calls
export MFAD_BUILD_DIR=$build
werror="-Werror=implicit-function-declaration -Werror=incompatible-pointer-types -Werror=int-conversion -Werror=deprecated-declarations"
export MFAD_CMAKE_ARGS="${MFAD_CMAKE_ARGS:-} -DMFAD_ENABLE_CUDA=ON -DMFAD_CUDA_RESOURCE_REPORT=ON"
echo "test-cuda: building mfad against PETSc $version with CUDA into $build"
t=$SECONDS
log=$(mktemp "${TMPDIR:-/tmp}/mfad-build-cuda.XXXXXX")
trap 'rm -f "$log"' EXIT
if ! bash "$root/scripts/build.sh" "-DCMAKE_C_FLAGS=$werror" >"$log" 2>&1; then
  grep -E -B1 -A3 'error' "$log" | head -n 80 >&2 || tail -n 30 "$log" >&2
  echo "test-cuda: FAILED: mfad does not build against PETSc $version with CUDA (the errors are above)" >&2
  exit 1
fi
grep -q 'mfad: CUDA ON' "$log" || { echo "test-cuda: FAILED: CMake did not enable CUDA (no 'mfad: CUDA ON' in the build log)" >&2; exit 1; }
nwarn=$(grep -c 'warning:' "$log" || true)
if [ "$nwarn" -gt 0 ]; then
  grep -A2 'warning:' "$log" | head -n 60 || true # head closing the pipe is not a failure
fi
echo "test-cuda: mfad built with CUDA ($((SECONDS - t)) s, $nwarn compiler warnings)"

# the energies' CUDA translation units are linked into libmfad (the CUDA backend launches them);
# link them once more, alone, into a throwaway shared library with the CUDA runtime, so that an
# energy's kernels that need anything but the runtime fail here with the energy's name
mapfile -t cuobjs < <(find "$build" -name 'mfad_energy_*.cu.o' -not -path '*/CMakeFiles/[0-9]*' | sort)
if [ ${#cuobjs[@]} -eq 0 ]; then
  echo "test-cuda: FAILED: CUDA is on but nvcc compiled no energy (no mfad_energy_*.cu.o under $build)" >&2
  exit 1
fi
if ! "$nvcc" -shared -o "$build/mfad-cuda-link-check.so" "${cuobjs[@]}" -Xlinker --no-undefined -lcudart; then
  echo "test-cuda: FAILED: the ${#cuobjs[@]} nvcc-compiled energies do not link (above)" >&2
  exit 1
fi
echo "test-cuda: the ${#cuobjs[@]} nvcc-compiled energies link with the CUDA runtime alone, no undefined symbols"

# every kernel's registers, stack and spills for each architecture, from ptxas's own report, and
# the gate a GPU needs: what the stack costs is reserved for every resident thread (docs/gpu.md)
echo "test-cuda: CUDA kernels' resources (ptxas -v; gate: launch bounds on every kernel, registers x block <= 64 K, stack <= 1 KB, no spills and >= 25% occupancy in value/gradient/HVP kernels)"
if ! python3 "$root/scripts/cuda-resources.py" "$build" --known "$root/scripts/cuda-resources-known.txt"; then
  echo "test-cuda: FAILED: a CUDA kernel fails the resource gate (the table above)" >&2
  exit 1
fi

# what differs from stage 1 (scripts/test.sh against Debian's PETSc, its build in $stage1): the
# CUDA backend's emulation, the install test (a user's energy through nvcc too), the tests of
# PETSc APIs whose behaviour changed since 3.18 (label petsc-api: tests/CMakeLists.txt names them)
# and every test that only this configuration defines (those of PETSc without MUMPS); without a
# stage-1 build, or with MFAD_CI_CUDA=all, every test
stage1=${MFAD_BUILD_DIR_STAGE1:-$root/build}
labels='cuda|install|petsc-api'
select=(--not-in "$stage1")
if [ "${MFAD_CI_CUDA:-1}" = all ]; then
  select=(--not-in /nonexistent)
fi
if ! regex=$(python3 "$root/tests/ci_tests.py" select "$build" --labels "$labels" "${select[@]}"); then
  echo "test-cuda: FAILED: could not list the tests of $build" >&2
  exit 1
fi
n=$(($(printf '%s' "$regex" | tr -cd '|' | wc -c) + 1))
echo "test-cuda: ctest in $build (CPU code paths; PETSc $version, no GPU): $n tests, labels $labels and those $stage1 does not define"
# (the install test's user project through the compiler cache too)
# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
# shellcheck source=scripts/ctest.sh
. "$root/scripts/ctest.sh"
rc=0
mfad_ctest "$build" -R "$regex" "$@" || rc=$?
echo "test-cuda: done in $((SECONDS - start)) s (PETSc $petsc_time s), ctest exit status $rc"
exit $rc
