#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Stands in for tools/mfad-energy in tests/gpu/CMakeLists.txt where MFAD_GPUCHECK_UNITS names a
folder of energies translated beforehand (scripts/gpu-check.sh --prepare, on a machine with
pycparser): copies $MFAD_GPUCHECK_UNITS/mfad_energy_<name>.c to the output and writes an empty
depfile. Takes mfad-energy's command line: SOURCE -o OUT --name NAME [--depfile D] [others]."""
import argparse, os, shutil, sys

ap = argparse.ArgumentParser()
ap.add_argument("source")
ap.add_argument("-o", required=True)
ap.add_argument("--name", required=True)
ap.add_argument("--depfile")
a, _ = ap.parse_known_args()
units = os.environ.get("MFAD_GPUCHECK_UNITS", "")
src = os.path.join(units, f"mfad_energy_{a.name}.c")
if not os.path.isfile(src):
    sys.exit(f"pretranslated.py: no {src}: translate the energies first (scripts/gpu-check.sh --prepare) or install pycparser")
shutil.copyfile(src, a.o)
if a.depfile:
    with open(a.depfile, "w") as f:
        f.write(f"{a.o}: {a.source}\n")
