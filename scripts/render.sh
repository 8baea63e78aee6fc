#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Renders a .vtu to a PNG with python/mfad/render.py (meshio reads, matplotlib draws). Arguments go
# to it (python3 -m mfad.render --help):
#   bash scripts/render.sh result.vtu result.png [--field gradient_norm] [--view 25 -60] [--size 840x660]
# A Python with numpy, matplotlib and meshio: Debian's (scripts/setup.sh installs them), else those
# from PyPI in the ignored virtual environment .venv (set up once).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/render-python.sh
. "$root/scripts/render-python.sh"
py=$(mfad_render_python)
PYTHONPATH="$root/python${PYTHONPATH:+:$PYTHONPATH}" exec "$py" -m mfad.render "$@"
