#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# pip install ./python against the install test's prefix (pkg-config through MFAD_DIR), into a venv
# that sees the system's petsc4py, numpy and Cython (--no-build-isolation), from a copy of python/
# (pip builds in the tree it is given); then the Python tutorial with that venv's mfad on 2 ranks,
# compiling its energy with the compiler and flags the installed mfad.pc names.
#   pip_install.sh <python> <source dir> <prefix> <work dir> <mpiexec> [flags]
set -eu
py=$1 src=$2 prefix=$3 work=$4
shift 4
rm -rf "$work"
mkdir -p "$work"
cp -r "$src/python" "$work/python"
"$py" -m venv --system-site-packages "$work/venv"
MFAD_DIR=$prefix "$work/venv/bin/pip" install --no-build-isolation --no-deps --no-index "$work/python" >"$work/pip.log" 2>&1 || { cat "$work/pip.log"; exit 1; }
tail -1 "$work/pip.log"
where=$(cd "$work" && "$work/venv/bin/python" -c "import mfad, mfad._config as c; print(mfad.__file__, c.TRANSLATOR[0])")
echo "pip_install.sh: $where"
case $where in
  "$work/venv/"*"$prefix/"*) ;;
  *) echo "pip_install.sh: FAILED: mfad is not the venv's, or its translator not the prefix's: $where" >&2; exit 1 ;;
esac
# the environment's compiler cache (scripts/ccache.sh), as the install test's tutorial takes it
MFAD_CC_LAUNCHER=${CMAKE_C_COMPILER_LAUNCHER:-} MFAD_PYTHON_CACHE=$work/cache "$@" -n 2 "$work/venv/bin/python" "$src/python/examples/tutorial.py" </dev/null
