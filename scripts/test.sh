#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Sets up (Debian packages), builds (./build, Release) and runs every test with ctest.
# The exit status is ctest's. Extra arguments go to ctest, e.g. bash scripts/test.sh -L unit
# Environment: CTEST_PARALLEL_LEVEL (tests at once; default 1), MFAD_TEST_TIMEOUT (s per test).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_BUILD_DIR:-$root/build}
export MFAD_BUILD_DIR=$build

bash "$root/scripts/setup.sh"
bash "$root/scripts/build.sh"

# Open MPI refuses root unless told; tests may start more ranks than there are cores
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
export OMPI_MCA_rmaps_base_oversubscribe=1

# a per-test limit, so that a hung MPI run fails its test instead of the whole CI run
rc=0
ctest --test-dir "$build" --output-on-failure --no-tests=error --timeout "${MFAD_TEST_TIMEOUT:-900}" "$@" </dev/null || rc=$?
exit $rc
