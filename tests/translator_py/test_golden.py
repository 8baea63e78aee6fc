# SPDX-License-Identifier: BSD-2-Clause
"""Golden generated code: the translation of three energies (a tet, a spring, a residual), checked in
under golden/, so that an intended change to the generated code is a reviewed diff. The comparison
ignores nothing. After an intended change, regenerate them with
    MFAD_GOLDEN_UPDATE=1 python3 -m pytest tests/translator_py/test_golden.py
and review `git diff tests/translator_py/golden`."""
import os

import pytest
from conftest import ROOT

from mfad_energy.cli import main

ENERGIES = ["energies/neohookean_tet.c", "energies/mass_spring.c", "tests/energies/res_lsq.c"]


@pytest.mark.parametrize("source", ENERGIES)
def test_golden(tmp_path, source):
    name = os.path.splitext(os.path.basename(source))[0]
    # the tree as tmp/tree (a link) and the output in tmp/out: #line names relative to tmp are the
    # same wherever the tree and the temporary directory are
    (tmp_path / "tree").symlink_to(ROOT, target_is_directory=True)
    (tmp_path / "out").mkdir()
    out = tmp_path / "out" / (name + ".c")
    argv = [str(tmp_path / "tree" / source), "-o", str(out), "--line-directory", str(tmp_path)]
    assert main(argv, tool_dir=str(tmp_path / "tree" / "tools")) == 0
    golden = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", name + ".c")
    text = out.read_text()
    if os.environ.get("MFAD_GOLDEN_UPDATE"):
        with open(golden, "w") as f:
            f.write(text)
    with open(golden) as f:
        want = f.read()
    assert text == want, ("the generated code of %s differs from %s: if intended, regenerate with "
                          "MFAD_GOLDEN_UPDATE=1 python3 -m pytest tests/translator_py/test_golden.py and review the diff" % (source, golden))
