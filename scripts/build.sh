#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Configures (Release) and builds mfad into ./build; re-running rebuilds only what changed.
# Extra arguments go to CMake's configure step, e.g. bash scripts/build.sh -DMFAD_ENABLE_CUDA=OFF
# Environment: MFAD_BUILD_DIR (default: <repo>/build), MFAD_JOBS (default: 2),
# MFAD_CMAKE_ARGS (more configure arguments, e.g. "-DMFAD_ENABLE_CUDA=OFF"; also seen by test.sh and demo.sh),
# MFAD_BUILD_TARGETS (build only these targets and what they need, e.g. "elastic"; "tested": the
# programs of the tests, or of those whose names match MFAD_TEST_REGEX; default: all),
# MFAD_CCACHE=0 (no compiler cache; scripts/ccache.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
jobs=${MFAD_JOBS:-2}

start=$SECONDS
# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
# shellcheck disable=SC2086
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release ${MFAD_CMAKE_ARGS:-} "$@"
if [ "${MFAD_BUILD_TARGETS:-}" = tested ]; then
  # what the tests (those matching MFAD_TEST_REGEX, default all) run: benchmarks that no test runs
  # are left out (CI's stage 2 builds everything); tests/ci_tests.py reads ctest's list
  MFAD_BUILD_TARGETS=$(python3 "$root/tests/ci_tests.py" targets "$build" ${MFAD_TEST_REGEX:+--names "$MFAD_TEST_REGEX"})
fi
targets=()
for t in ${MFAD_BUILD_TARGETS:-}; do targets+=(--target "$t"); done
cmake --build "$build" -j "$jobs" "${targets[@]}"
echo "build: $build ready ($((SECONDS - start)) s; $(mfad_ccache_stats))"
