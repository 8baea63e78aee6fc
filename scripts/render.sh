#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Renders a .vtu to a PNG (scripts/render.py), first putting numpy and matplotlib from PyPI into
# the ignored virtual environment .venv (once). Arguments go to render.py:
#   bash scripts/render.sh result.vtu result.png [--field gradient_norm] [--view 25 -60]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv=${MFAD_VENV:-$root/.venv}
if ! "$venv/bin/python" -c 'import numpy, matplotlib' 2>/dev/null; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet numpy matplotlib
fi
exec "$venv/bin/python" "$root/scripts/render.py" "$@"
