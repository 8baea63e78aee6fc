#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Sets up (Debian packages), builds (./build, Release) the library and the programs the tests run
# (not the benchmarks that no test runs: CI's stage 2 builds everything), and runs every test with
# ctest (scripts/ctest.sh: as many at once as there are cores, longest first, JUnit results).
# The exit status is ctest's. Extra arguments go to ctest, e.g. bash scripts/test.sh -L unit
# Environment: CTEST_PARALLEL_LEVEL (tests at once; default: the cores), MFAD_TEST_TIMEOUT (s per
# test), MFAD_TEST_REGEX (build only the programs of the tests whose names match it), and
# scripts/build.sh's. Compiled objects are cached (scripts/ccache.sh), those of the install
# test's user project too.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
export MFAD_BUILD_DIR=$build

bash "$root/scripts/setup.sh"
MFAD_BUILD_TARGETS=${MFAD_BUILD_TARGETS:-tested} bash "$root/scripts/build.sh"

# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
# shellcheck source=scripts/ctest.sh
. "$root/scripts/ctest.sh"
mfad_ctest "$build" "$@"
