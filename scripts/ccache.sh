# SPDX-License-Identifier: BSD-2-Clause
# Sourced by scripts/build.sh, test.sh, test-changed.sh, test-cuda.sh and test-sanitize.sh (not
# run): compiled objects are
# cached across builds and across clones in other folders by ccache (Debian's), when it is
# installed (scripts/setup.sh installs it) and MFAD_CCACHE is not 0.
# - The cache is ~/.cache/mfad/ccache (MFAD_CACHE, as scripts/petsc-cuda.sh's, or CCACHE_DIR).
# - Keyed by ccache itself on the compiler (its binary), every flag and the preprocessed source,
#   PETSc's headers included: another compiler, flag or PETSc is a miss, never a stale object.
# - Path-independent: base_dir is the checkout, so absolute paths under it (CMake's source paths,
#   -I, the line markers of included files) are hashed relative to the build directory, and
#   hash_dir is off, so the build directory's absolute name is not hashed (-g builds: the debug
#   info names the first clone's folder; nothing reads it here). The translated energies name no
#   absolute path in their text (mfad_add_energy passes mfad-energy --line-directory: relative
#   #line names, the self-include by base name), so they hit in ccache's direct mode too.
# - The launchers reach CMake through the environment (CMAKE_<LANG>_COMPILER_LAUNCHER), read when
#   a build directory is first configured.
# Afterwards, mfad_ccache_stats prints the hit counts since it was sourced (ccache --print-stats).
mfad_ccache_stats() { echo "no compiler cache (MFAD_CCACHE=0 or no ccache)"; }
if [ "${MFAD_CCACHE:-1}" != 0 ] && command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${CCACHE_DIR:-${MFAD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mfad}/ccache}
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root}
  export CCACHE_NOHASHDIR=1
  # three build configurations of ~400 objects (-O3, nvcc, sanitizers): ~1.5 GB
  export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-4G}
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_CUDA_COMPILER_LAUNCHER=ccache
  mkdir -p "$CCACHE_DIR"
  ccache -z >/dev/null 2>&1 || true
  mfad_ccache_stats() {
    echo "ccache ($CCACHE_DIR): $(ccache --print-stats 2>/dev/null |
      awk -F'\t' '$1 == "direct_cache_hit" { d = $2 } $1 == "preprocessed_cache_hit" { p = $2 }
                  $1 == "cache_miss" { m = $2 } END { printf "%d hits (%d direct, %d preprocessed), %d misses", d + p, d, p, m }')"
  }
fi
