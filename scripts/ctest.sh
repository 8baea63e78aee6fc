# SPDX-License-Identifier: BSD-2-Clause
# Sourced by scripts/test.sh and test-sanitize.sh (not run): mfad_ctest BUILD [ctest arguments]
# runs ctest on BUILD the one way CI's stages do:
# - as many tests at once as there are cores (CTEST_PARALLEL_LEVEL): MPI tests hold one core per
#   rank (PROCESSORS), the thread test the whole machine (RUN_SERIAL);
# - ctest's own scheduler starts the longest tests first when it knows their times: its cost data
#   (Testing/Temporary/CTestCostData.txt) is kept in ~/.cache/mfad/ctest-cost/ per build
#   directory name, so a fresh clone starts from the last run's times instead of from none;
# - Open MPI allowed to run as root and to start more ranks than there are cores;
# - a limit per test (MFAD_TEST_TIMEOUT, default 900 s; tests may have their own), so that a hung
#   MPI run fails its test instead of the whole run; output of failing tests shown;
# - the results also as JUnit, BUILD/Testing/ctest-junit.xml (tests/ci_tests.py reads them).
# Its exit status is ctest's.
mfad_ctest() {
  local build=$1 rc=0
  shift
  # Open MPI refuses root unless told; tests may start more ranks than there are cores
  if [ "$(id -u)" -eq 0 ]; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
  fi
  export OMPI_MCA_rmaps_base_oversubscribe=1
  local cost=$build/Testing/Temporary/CTestCostData.txt
  local saved=${MFAD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mfad}/ctest-cost/$(basename "$build").txt
  if [ ! -s "$cost" ] && [ -s "$saved" ]; then
    mkdir -p "$(dirname "$cost")"
    cp "$saved" "$cost"
  fi
  CTEST_PARALLEL_LEVEL=${CTEST_PARALLEL_LEVEL:-$(nproc 2>/dev/null || echo 2)} \
    ctest --test-dir "$build" --output-on-failure --no-tests=error --timeout "${MFAD_TEST_TIMEOUT:-900}" \
    --output-junit "$build/Testing/ctest-junit.xml" "$@" </dev/null || rc=$?
  if [ -s "$cost" ]; then
    mkdir -p "$(dirname "$saved")"
    cp "$cost" "$saved" || true
  fi
  return $rc
}
