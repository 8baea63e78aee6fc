#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Installs the Debian packages mfad needs to build and test, only those that are missing.
# Idempotent: a second run installs nothing. Extra packages: MFAD_EXTRA_PACKAGES="a b". The
# packages under `wanted` only make things faster: one that cannot be installed is a warning.
set -euo pipefail

packages=(
  cmake pkg-config make gcc g++       # toolchain (g++: host builds of the .cu files, if enabled)
  petsc-dev                           # PETSc 3.18 (real, OpenMPI), with its pkg-config file
  libopenmpi-dev openmpi-bin          # MPI headers, mpicc, mpiexec
  check                               # unit tests
  tetgen                              # the tests' curved tet mesh (tests/make_spot_tets.sh)
  python3-pycparser                   # tools/mfad-energy: the C front end of the plain-C energy translator
  python3-pytest                      # tests/translator_py: the translator's pass tests
  python3-matplotlib                  # python/mfad/render.py draws results (the demo's picture, scripts/render.sh)
  python3-meshio                      # python/mfad/render.py reads VTU files
  ccache                              # compiled objects cached across builds and clones (scripts/ccache.sh)
  python3-dev cython3                 # python/: the Cython extension mfad._mfad (headers, the compiler)
  python3-numpy python3-mpi4py        # python/: meshes as numpy arrays; communicators from mpi4py
  python3-petsc4py                    # python/: PETSc's Python binding, Debian's build of the PETSc above (its .pxd)
)
# shellcheck disable=SC2206
packages+=(${MFAD_EXTRA_PACKAGES:-})
wanted=(
  # an optimised BLAS, single-threaded (no threads of its own beside mfad's and MPI's ranks): Debian's
  # alternatives make it the libblas.so.3 that PETSc's MUMPS and CHOLMOD load, whose dense fronts ran
  # 3x faster than on the reference BLAS (elastic's Spot tets, every default: MUMPS's 58
  # factorisations 18.4 -> 6.1 s, the whole solve 22.3 -> 10.1 s; the same digits; 2026-12-03)
  libopenblas0-serial
)

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

missing=() missing_wanted=()
for p in "${packages[@]}"; do
  installed "$p" || missing+=("$p")
done
for p in "${wanted[@]}"; do
  installed "$p" || missing_wanted+=("$p")
done

if [ ${#missing[@]} -eq 0 ] && [ ${#missing_wanted[@]} -eq 0 ]; then
  echo "setup: all ${#packages[@]} packages present (${packages[*]}), and ${wanted[*]}; nothing to install"
  exit 0
fi

echo "setup: installing missing packages: ${missing[*]} ${missing_wanted[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "setup: not root and no sudo: install these packages by hand: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
# another apt (a second script, unattended upgrades) may hold dpkg's lock: wait for it
apt_opts=(-q -y -o Dpkg::Use-Pty=0 -o DPkg::Lock::Timeout=600)
# the lists may be absent or stale on a fresh machine; retry once on a network hiccup
"${sudo[@]}" apt-get "${apt_opts[@]}" update </dev/null || { sleep 5; "${sudo[@]}" apt-get "${apt_opts[@]}" update </dev/null; }
if [ ${#missing[@]} -ne 0 ]; then
  "${sudo[@]}" apt-get "${apt_opts[@]}" install --no-install-recommends "${missing[@]}" </dev/null
fi
if [ ${#missing_wanted[@]} -ne 0 ]; then
  "${sudo[@]}" apt-get "${apt_opts[@]}" install --no-install-recommends "${missing_wanted[@]}" </dev/null ||
    echo "setup: warning: could not install ${missing_wanted[*]} (faster, not needed); going on without" >&2
fi

still=()
for p in "${missing[@]}"; do
  installed "$p" || still+=("$p")
done
if [ ${#still[@]} -ne 0 ]; then
  echo "setup: failed to install: ${still[*]}" >&2
  exit 1
fi
echo "setup: installed ${missing[*]}"
