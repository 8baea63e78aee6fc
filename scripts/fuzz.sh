#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds the libFuzzer target of the mesh readers (tests/fuzz/fuzz_readers.c with the reader
# sources compiled in; clang -fsanitize=fuzzer,address,undefined, which gcc cannot do) into
# ./build-fuzz and runs it. Seeds: the good meshes of tests/meshes and the saved regressions.
# Usage: bash scripts/fuzz.sh [seconds, default 60] [more libFuzzer arguments, e.g. -jobs=2]
# A crash, leak or UB report stops it and leaves the input in build-fuzz/artifacts/: fix the
# reader, then copy the input to tests/fuzz/regressions/ (test_fuzz_regressions replays it).
# Environment: MFAD_FUZZ_DIR (default <repo>/build-fuzz), CC (default clang).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=${MFAD_FUZZ_DIR:-$root/build-fuzz}
secs=${1:-60}
shift || true
cc=${CC:-clang}
command -v "$cc" >/dev/null || { echo "fuzz.sh: $cc not found (apt-get install clang)" >&2; exit 1; }

mkdir -p "$out/seeds" "$out/corpus" "$out/artifacts"
# Debian's petsc.pc names no MPI flags: ask Open MPI's wrapper
# shellcheck disable=SC2046
"$cc" -g -O1 -std=gnu11 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -I"$root/include" -I"$root/src" $(pkg-config --cflags petsc) $(mpicc --showme:compile) \
  "$root"/src/readfile.c "$root"/src/polytri.c "$root"/src/read_obj.c "$root"/src/read_off.c "$root"/src/read_tetgen.c \
  "$root"/src/read_gmsh.c "$root"/src/read_gmsh_binary.c "$root"/src/read_medit.c "$root"/src/read.c "$root"/src/meshcheck.c "$root"/src/mesh.c "$root"/tests/fuzz/fuzz_readers.c \
  $(pkg-config --libs petsc) $(mpicc --showme:link) -lm -o "$out/fuzz_readers"

# seeds in the input layout of tests/fuzz/fuzz_readers.h: a reader byte, then the file(s)
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
"$out/fuzz_readers" -max_total_time="$secs" -max_len=8192 -rss_limit_mb=2048 -timeout=10 \
  -dict="$root/tests/fuzz/readers.dict" \
  -print_final_stats=1 -artifact_prefix="$out/artifacts/" "$@" \
  "$out/corpus" "$out/seeds" "$root/tests/fuzz/regressions"
