#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds a current PETSc configured with CUDA (for CI's second build of mfad, .ci/run) into a
# cache outside the checkout and prints its prefix as the last line of stdout:
#   petsc=$(bash scripts/petsc-cuda.sh)   # then PKG_CONFIG_PATH=$petsc/lib/pkgconfig
# A second run with the same version and options reuses the cached build (a stamp file).
# No GPU or driver is needed: only nvcc and the toolkit's libraries (configure links libcuda
# from the toolkit's stubs/; the resulting libpetsc.so needs only the toolkit's libcudart,
# libcublas, libcusparse ... at run time, so CPU-only programs run on a machine without a GPU).
# Progress goes to stderr; the configure and make logs stay in the cache.
# Environment:
#   MFAD_PETSC_VERSION  PETSc release from PyPI (default 3.26.1)
#   MFAD_CACHE          cache directory (default $XDG_CACHE_HOME/mfad or ~/.cache/mfad)
#   MFAD_CUDA_ARCH      --with-cuda-arch (default 90)
#   MFAD_JOBS           make jobs (default: all cores)
#   CUDACXX             nvcc (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc)
#   MFAD_PETSC_KEEP_BUILD=1  keep the source/build tree after installing (default: removed)
# With --fetch, only downloads the source release into the cache if it is not there (and no build
# is cached): .ci/run starts that in the background while its first stage builds.
# Exit status: 0 ready; 1 failure (a message says which step, with the log's tail); 3 no nvcc.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
version=${MFAD_PETSC_VERSION:-3.26.1}
cache=${MFAD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mfad}
arch=${MFAD_CUDA_ARCH:-90}
jobs=${MFAD_JOBS:-$(nproc 2>/dev/null || echo 2)}
prefix=$cache/petsc-$version-cuda
build=$cache/build/petsc-$version
log() { echo "petsc-cuda: $*" >&2; }
die() {
  echo "petsc-cuda: ERROR: $*" >&2
  exit 1
}
start=$SECONDS

nvcc=${CUDACXX:-$(command -v nvcc || true)}
[ -n "$nvcc" ] || nvcc=/usr/local/cuda/bin/nvcc
if [ ! -x "$nvcc" ]; then
  log "no CUDA compiler (nvcc on PATH, /usr/local/cuda/bin/nvcc or CUDACXX): nothing to build"
  exit 3
fi
# the real nvcc, whatever PATH found (a wrapper script such as /usr/local/bin/nvcc or a link):
# the stamp and configure see one path for one toolkit, so a cache built under one PATH is
# reused under another (it was rebuilt, 8 min, whenever CI and a shell saw different nvccs)
here=$({ "$nvcc" -dryrun -c -x cu /dev/null -o /dev/null 2>&1 || true; } | sed -n '/^#\$ _HERE_=/{s///p;q;}')
[ -n "$here" ] && [ -x "$here/nvcc" ] && nvcc=$here/nvcc
nvcc=$(readlink -f "$nvcc")
cudadir=$(cd "$(dirname "$nvcc")/.." && pwd)
nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')

# what PETSc builds against: setup.sh's toolchain and Open MPI (g++: PETSc's CUDA code is C++),
# Python for configure, reference BLAS/LAPACK
# (not for --fetch, which runs beside another stage's set-up: one apt at a time)
if [ "${1:-}" != --fetch ]; then
  MFAD_EXTRA_PACKAGES="${MFAD_EXTRA_PACKAGES:-} python3 libblas-dev liblapack-dev" \
    bash "$root/scripts/setup.sh" >&2 || die "installing the Debian packages PETSc needs failed (see above)"
fi

opts=(
  --with-cc=mpicc --with-cxx=mpicxx --with-fc=0
  --with-cuda=1 --with-cudac="$nvcc" --with-cuda-arch="$arch"
  --with-debugging=0 --with-shared-libraries=1
  --with-blaslapack-lib="-llapack -lblas"
  --with-x=0
  COPTFLAGS=-O2 CXXOPTFLAGS=-O2 CUDAOPTFLAGS=-O2
)

mkdir -p "$cache"
# one build at a time per cache (CI runs on one machine may overlap)
exec 9>"$cache/.petsc-cuda.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
fi

base_opts=("${opts[@]}") # the stamp: version, nvcc and these (NVML options follow from the version)
stamp_text() { printf 'petsc %s\nnvcc %s (%s)\noptions %s\n' "$version" "$nvcc_version" "$nvcc" "$*"; }

# --- reuse
if [ -f "$prefix/.mfad-stamp" ] && [ -f "$prefix/lib/pkgconfig/petsc.pc" ] &&
  [ "$(cat "$prefix/.mfad-stamp")" = "$(stamp_text "${opts[*]}")" ]; then
  log "PETSc $version with CUDA (sm_$arch, nvcc $nvcc_version) already built in $prefix"
  echo "$prefix"
  exit 0
fi
[ -d "$prefix" ] && [ "${1:-}" != --fetch ] && log "$prefix was built with other options or is incomplete: rebuilding"

# --- fetch the source release (the sdist on PyPI is PETSc's release tarball)
dl=$cache/dl
tarball=$dl/petsc-$version.tar.gz
if [ ! -s "$tarball" ]; then
  pip=()
  if python3 -m pip --version >/dev/null 2>&1; then
    pip=(python3 -m pip)
  elif command -v pip3 >/dev/null 2>&1; then
    pip=(pip3)
  elif [ "${1:-}" = --fetch ]; then
    log "no pip yet: the download waits for the build"
    exit 0
  else
    MFAD_EXTRA_PACKAGES=python3-pip bash "$root/scripts/setup.sh" >&2 || die "no pip, and installing python3-pip failed"
    pip=(python3 -m pip)
  fi
  log "downloading petsc==$version (source) from PyPI"
  mkdir -p "$dl"
  t=$SECONDS
  "${pip[@]}" download --no-deps --no-binary :all: --disable-pip-version-check -d "$dl" "petsc==$version" >&2 ||
    die "pip download petsc==$version failed (network, PyPI, or no such version: pip index versions petsc)"
  [ -s "$tarball" ] || die "pip download did not produce $tarball"
  log "downloaded in $((SECONDS - t)) s"
fi
if [ "${1:-}" = --fetch ]; then
  log "source ready: $tarball"
  exit 0
fi

rm -rf "$build" "$prefix"
mkdir -p "$build"
tar -xzf "$tarball" -C "$build" --strip-components=1 || die "unpacking $tarball failed"
cd "$build"

# --- NVML: PETSc 3.26 links it only on request (--with-cuda-nvml, off: we say so); 3.25 always
# does, and gets the stand-in from scripts/nvml-stub (see nvml_stub.c): a file and soname
# libnvidia-ml.so, never the driver's libnvidia-ml.so.1, found through libpetsc's run path
cudapy=config/BuildSystem/config/packages/CUDA.py
nvml="not used"
if grep -q 'with-cuda-nvml' "$cudapy"; then
  opts+=(--with-cuda-nvml=0)
elif grep -q 'nvml' "$cudapy"; then
  stub=$cache/nvml-stub
  mkdir -p "$stub/include" "$stub/lib"
  cp "$root/scripts/nvml-stub/nvml.h" "$stub/include/nvml.h"
  gcc -O2 -shared -fPIC -Wl,-soname,libnvidia-ml.so -o "$stub/lib/libnvidia-ml.so" "$root/scripts/nvml-stub/nvml_stub.c" ||
    die "building the NVML stand-in failed"
  opts+=(--with-cuda-include="[$cudadir/include,$stub/include]"
    --with-cuda-lib="[-L$cudadir/lib64 -lcudart -lcufft -lcublas -lcusparse -lcusolver -lcurand,$cudadir/lib64/stubs/libcuda.so,$stub/lib/libnvidia-ml.so]"
    LDFLAGS="-Wl,-rpath,$stub/lib")
  nvml="stand-in $stub (link only)"
fi

# Open MPI refuses root unless told (configure runs an MPI test program)
if [ "$(id -u)" -eq 0 ]; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# configure complains about compilers and flags in the environment
unset CC CXX CFLAGS CXXFLAGS CPPFLAGS LDFLAGS CUDAFLAGS PETSC_DIR PETSC_ARCH

log "configuring PETSc $version: nvcc $nvcc_version, sm_$arch, NVML $nvml"
log "  ./configure --prefix=$prefix PETSC_ARCH=arch-mfad-cuda $(printf "%q " "${opts[@]}")"
t=$SECONDS
if ! python3 ./configure --prefix="$prefix" PETSC_ARCH=arch-mfad-cuda "${opts[@]}" >"$build/configure.out" 2>&1; then
  tail -n 30 "$build/configure.out" >&2
  [ -f configure.log ] && { echo "--- configure.log (tail)" >&2; tail -n 40 configure.log >&2; }
  die "PETSc $version configure failed ($((SECONDS - t)) s); full log: $build/configure.log"
fi
log "configured in $((SECONDS - t)) s"

log "building PETSc with $jobs jobs (log: $build/make.log)"
t=$SECONDS
if ! make PETSC_DIR="$build" PETSC_ARCH=arch-mfad-cuda MAKE_NP="$jobs" all >"$build/make.log" 2>&1; then
  grep -n -i -m 20 'error' "$build/make.log" >&2 || true
  tail -n 30 "$build/make.log" >&2
  die "PETSc $version build failed ($((SECONDS - t)) s); full log: $build/make.log"
fi
log "built in $((SECONDS - t)) s"
make PETSC_DIR="$build" PETSC_ARCH=arch-mfad-cuda install >"$build/install.log" 2>&1 ||
  { tail -n 30 "$build/install.log" >&2; die "PETSc $version install into $prefix failed"; }
[ -f "$prefix/lib/pkgconfig/petsc.pc" ] || die "no $prefix/lib/pkgconfig/petsc.pc after install"
cp "$build/configure.log" "$prefix/configure.log"
stamp_text "${base_opts[*]}" >"$prefix/.mfad-stamp"
cd "$cache"
[ "${MFAD_PETSC_KEEP_BUILD:-0}" = 1 ] || rm -rf "$build"
log "PETSc $version with CUDA ready in $prefix ($((SECONDS - start)) s)"
echo "$prefix"
