#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# CI's sanitizer stage: mfad built with AddressSanitizer and UndefinedBehaviorSanitizer
# (-DMFAD_SANITIZE=ON, CUDA off, examples and benchmarks off, -O1) into ./build-sanitize, only the
# programs its tests run, then the unit, reader and MPI tests under them (ctest -L 'unit|readers|mpi').
# Any report fails its test: UBSan does not recover, ASan stops at the first error. Leaks are
# checked where they can be told apart: the reader tests' own sanitizer builds (*_asan,
# tests/readers.cmake, which stage 1 runs, so not again here) check before PetscFinalize with MPI's
# own allocations suppressed (tests/fuzz/lsan.supp); at a whole program's exit Open MPI has
# unloaded the plugins it allocated from, so their blocks come without a module to suppress them
# by, and the exit check is off here.
# Extra arguments go to ctest. Exit status: ctest's, 1 if the build failed.
# Environment: MFAD_SANITIZE_BUILD_DIR (default <repo>/build-sanitize), MFAD_JOBS.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFAD_SANITIZE_BUILD_DIR:-$root/build-sanitize}
bash "$root/scripts/setup.sh"

t=$SECONDS
# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
labels='unit|readers|mpi'
# -O1 and line tables only (-g1): the sanitizers' usual level, and a fraction of -O3's compile time
# for the unrolled energies
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O1 -g1" -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g1" \
  -DMFAD_SANITIZE=ON -DMFAD_ENABLE_CUDA=OFF -DMFAD_BUILD_EXAMPLES=OFF ${MFAD_CMAKE_ARGS:-} >/dev/null
# only the programs of the tests run here (and the library), not the rest of `all`
targets=$(python3 "$root/tests/ci_tests.py" targets "$build" --labels "$labels" --exclude '_asan$')
echo "test-sanitize: building $targets"
# shellcheck disable=SC2086
cmake --build "$build" -j "${MFAD_JOBS:-2}" --target $targets
echo "test-sanitize: built in $((SECONDS - t)) s ($(mfad_ccache_stats))"

# ASan's own fast unwinder at malloc (mfad is built with frame pointers; a report's own stack is
# unwound fully, fast_unwind_on_fatal=0 by default): the full unwinder at every allocation made
# these tests 2.8x slower (ctest 373 against 131 s; test_threads 165 against 28 s alone), for
# allocation stacks that lose only frames inside libraries built without frame pointers.
# PETSc's signal handler would hide ASan's report behind its own.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=0
export LSAN_OPTIONS=suppressions=$root/tests/fuzz/lsan.supp
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export PETSC_OPTIONS="${PETSC_OPTIONS:-} -no_signal_handler"
# shellcheck source=scripts/ctest.sh
. "$root/scripts/ctest.sh"
# (not the reader tests' own *_asan builds: stage 1 ran them, with these sanitizers)
mfad_ctest "$build" -L "$labels" -E '_asan$' "$@"
