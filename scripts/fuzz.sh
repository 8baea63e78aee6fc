#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fuzzes mfad with libFuzzer (clang; gcc has none), for a bounded time, then replays on 2 ranks:
# - the library is built by CMake with clang -fsanitize=fuzzer-no-link,address,undefined (CUDA
#   off) into <out>/lib (its objects cached by ccache like the other builds);
# - fuzz_readers (tests/fuzz/fuzz_readers.c): the mesh readers alone, `seconds` of fuzzing;
# - fuzz_path (tests/fuzz/fuzz_path.c): the whole path, file -> mesh -> MfadEnergyCreateFromMesh
#   -> term -> set-up -> energy, gradient, Hessian product, on PETSC_COMM_SELF, `seconds` more;
# - then fuzz_path_replay, the same driver without libFuzzer (ASan and UBSan kept), replays the
#   path's corpus (at most MFAD_FUZZ_REPLAY_MAX inputs, newest first) under mpiexec -n 2: what
#   libFuzzer's one process cannot do. An input's PETSc error is a clean outcome; a crash, a
#   sanitizer report or a hang past MFAD_FUZZ_REPLAY_TIMEOUT seconds fails the run.
# Inputs up to MFAD_FUZZ_MAX_LEN bytes (default 256 KB: the committed meshes whole, spot.obj's
# 180 KB included). Seeds: the meshes of tests/meshes and the saved regressions.
# Usage: bash scripts/fuzz.sh [seconds per target, default 60] [more libFuzzer arguments, e.g. -jobs=2]
# A crash, leak or UB report stops it and leaves the input in <out>/artifacts/: fix the library,
# then copy the input to tests/fuzz/regressions/ (test_fuzz_regressions replays it through the
# readers, test_fuzz_path_2 along the whole path on 2 ranks). A replay failure names the input.
# Environment: MFAD_FUZZ_DIR (default <repo>/build-fuzz), CC (default clang), MFAD_FUZZ_TARGETS
# (default "readers path"), MFAD_FUZZ_MAX_LEN, MFAD_FUZZ_REPLAY_MAX (default 2000),
# MFAD_FUZZ_REPLAY_TIMEOUT (default 600).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${MFAD_FUZZ_DIR:-$root/build-fuzz}
secs=${1:-60}
shift || true
cc=${CC:-clang}
targets=${MFAD_FUZZ_TARGETS:-readers path}
max_len=${MFAD_FUZZ_MAX_LEN:-262144}
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (apt-get install clang)" >&2; exit 1; }

# the library, instrumented for coverage (fuzzer-no-link) and checked (MFAD_SANITIZE: ASan, UBSan)
# shellcheck source=scripts/ccache.sh
. "$root/scripts/ccache.sh"
CC=$cc cmake -S "$root" -B "$out/lib" -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_FLAGS_DEBUG="-O0 -gline-tables-only" -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link \
  -DMFAD_SANITIZE=ON -DMFAD_ENABLE_CUDA=OFF -DMFAD_NATIVE=OFF -DMFAD_BUILD_TESTS=OFF -DMFAD_BUILD_EXAMPLES=OFF >"$out/cmake.log"
cmake --build "$out/lib" -j "${MFAD_JOBS:-2}" --target mfad >>"$out/cmake.log"

# the drivers, against it; Debian's petsc.pc names no MPI flags: ask Open MPI's wrapper
san=("-fsanitize=address,undefined,float-cast-overflow" -fno-sanitize-recover=all)
# shellcheck disable=SC2207
flags=(-g -O1 -std=gnu11 -I"$root/include" $(pkg-config --cflags petsc) $(mpicc --showme:compile))
# shellcheck disable=SC2207
libs=(-L"$out/lib" "-Wl,-rpath,$out/lib" -lmfad -lmfadmesh $(pkg-config --libs petsc) $(mpicc --showme:link) -lm)
for t in readers path; do
  "$cc" "${flags[@]}" -fsanitize=fuzzer "${san[@]}" "$root/tests/fuzz/fuzz_$t.c" "${libs[@]}" -o "$out/fuzz_$t"
done
"$cc" "${flags[@]}" "${san[@]}" "$root/tests/fuzz/fuzz_path_replay.c" "${libs[@]}" -o "$out/fuzz_path_replay"

# seeds in the input layout of tests/fuzz/fuzz_readers.h: a reader byte, then the file(s)
mkdir -p "$out/seeds"
m=$root/tests/meshes
for f in "$m"/*.obj; do { printf '\000'; cat "$f"; } >"$out/seeds/$(basename "$f")"; done
for f in "$m"/*.off; do { printf '\001'; cat "$f"; } >"$out/seeds/$(basename "$f")"; done
for f in "$m"/*.node; do
  { printf '\002'; cat "$f"; printf '\000'; cat "${f%.node}.ele"; } >"$out/seeds/$(basename "$f")"
done
{ printf '\005'; cat "$m/fin.obj"; } >"$out/seeds/fin_checked.obj" # the manifold check on
for f in "$m"/*.msh "$m"/bad/*.msh; do { printf '\014'; cat "$f"; } >"$out/seeds/$(basename "$f")"; done   # Gmsh, checked
for f in "$m"/bad/*.mesh; do { printf '\015'; cat "$f"; } >"$out/seeds/$(basename "$f")"; done             # Medit, checked

# Open MPI (PETSc initialises it) as root; one thread; the input size of small meshes
# inputs are written to files: keep them in memory (/dev/shm), not on disk
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ]; then export TMPDIR=/dev/shm; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# leaks are checked after every input that allocated more than it freed (libFuzzer); not at
# exit, where MPI's plugins report what they keep (unloaded modules: not suppressible)
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/tests/fuzz/lsan.supp:leak_check_at_exit=0}
for t in $targets; do
  mkdir -p "$out/corpus_$t" "$out/artifacts"
  echo "fuzz.sh: fuzz_$t for $secs s, inputs up to $max_len bytes"
  "$out/fuzz_$t" -max_total_time="$secs" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
    -dict="$root/tests/fuzz/readers.dict" \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/" "$@" \
    "$out/corpus_$t" "$out/seeds" "$root/tests/fuzz/regressions"
done

# the path on 2 ranks: the newest inputs of its corpus (awk, not head: no SIGPIPE under pipefail),
# with the seeds and regressions, in one mpiexec; -fuzz_verbose names each input on stderr before it runs, so a crash names its input
case " $targets " in *" path "*) ;; *) exit 0 ;; esac
list=$out/replay.list
{ find "$root/tests/fuzz/regressions" "$out/seeds" -type f; find "$out/corpus_path" -type f -printf '%T@ %p\n' | sort -rn | awk -v n="${MFAD_FUZZ_REPLAY_MAX:-2000}" 'NR <= n { sub(/^[^ ]* /, ""); print }'; } >"$list"
echo "fuzz.sh: replaying $(wc -l <"$list") inputs along the path on 2 ranks"
timeout "${MFAD_FUZZ_REPLAY_TIMEOUT:-600}" mpiexec -n 2 "$out/fuzz_path_replay" -fuzz_verbose -no_signal_handler -fuzz_list "$list" </dev/null 2>"$out/replay.err" ||
  {
    echo "fuzz.sh: the replay on 2 ranks failed (exit $?); the last input it named:" >&2
    grep '^fuzz input' "$out/replay.err" | tail -n 2 >&2
    tail -n 30 "$out/replay.err" >&2
    exit 1
  }
