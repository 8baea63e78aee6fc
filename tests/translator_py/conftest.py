# SPDX-License-Identifier: BSD-2-Clause
"""Shared set-up of the translator's pass tests: the package from tools/, and translate(), which runs
the front end (the C preprocessor and pycparser, as mfad-energy does) on a small energy's text."""
import argparse
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
TOOLS = os.path.join(ROOT, "tools")
sys.path.insert(0, TOOLS)
sys.dont_write_bytecode = True

from mfad_energy import frontend, ir  # noqa: E402
from mfad_energy.translator import Translator  # noqa: E402

CPP = os.environ.get("MFAD_CPP", "cc -E")


def translate(tmp_path, code, name="e"):
    """A Translator over the energy `code` (its info read), written to tmp_path/<name>.c."""
    path = tmp_path / (name + ".c")
    path.write_text("#include <math.h>\n#include <mfad/energy.h>\n" + code)
    args = argparse.Namespace(cpp=CPP, incs=[], defs=[], depfile=None, source=str(path))
    ast, rc = frontend.parse(args, str(path), str(tmp_path / "out.c"), TOOLS)
    assert ast is not None, "the front end refused the test energy (rc %d)" % rc
    tr = Translator(ast, str(path), name, None)
    tr.info()
    return tr


def body_ir(tr):
    """The energy's forward body and the helpers it calls, as IR (ir.Function, the body last)."""
    return tr.emit(tr.energy_spec())


def body_text(tr):
    """The energy's forward body, as C lines (no #line directives)."""
    return [t for _, t in ir.lines(body_ir(tr))]
