# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash
# Sourced by render.sh and render-frames.sh: mfad_render_python prints a Python that imports
# numpy, matplotlib and meshio: $MFAD_PYTHON, python3 or Debian's /usr/bin/python3 (setup.sh's
# python3-matplotlib and python3-meshio), else the ignored .venv (MFAD_VENV), given them from PyPI once.
mfad_render_python() {
  local root venv py
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  for py in ${MFAD_PYTHON:-} python3 /usr/bin/python3; do
    if "$py" -c 'import numpy, matplotlib, meshio' >/dev/null 2>&1; then
      echo "$py"
      return 0
    fi
  done
  venv=${MFAD_VENV:-$root/.venv}
  if ! "$venv/bin/python" -c 'import numpy, matplotlib, meshio' >/dev/null 2>&1; then
    echo "render: no Python with numpy, matplotlib and meshio: installing them from PyPI into $venv" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet numpy matplotlib meshio >&2
  fi
  echo "$venv/bin/python"
}
