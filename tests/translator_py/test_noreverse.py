# SPDX-License-Identifier: BSD-2-Clause
"""No silent fallback (issue 48 item 3): reverse mode is tried for every scalar energy; one whose body has no adjoint sweep
gets a warning at the construct that prevents it and keeps forward over forward; with
.reverse = MFAD_REVERSE_REQUIRED the same is an error and nothing is written."""
from conftest import CPP, TOOLS

from mfad_energy import cli

ENERGY = """#include <math.h>
#include <mfad/energy.h>
static void feat(const double x[3], const double p[1], double f[3]) { for (int i = 0; i < 3; i++) f[i] = x[i]; }
static double en(const double f[3], const double p[1])
{
  double s = 0;
  (void)p;
  for (int i = 0; i < 3; i++) s += f[i] * f[i];
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .features = 3, .feature = feat, .energy = en%s};
"""
CAST_LINE = 7  # the (void)p; statement: not an OP() the adjoint sweep knows


def run(tmp_path, capsys, extra):
    src, out = tmp_path / "e.c", tmp_path / "e_mfad.c"
    src.write_text(ENERGY % extra)
    rc = cli.main([str(src), "-o", str(out), "--cpp", CPP], tool_dir=TOOLS)
    return rc, capsys.readouterr().err, out


def test_no_reverse_warns_at_the_construct(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("MFAD_ENERGY_VERBOSE", raising=False)
    rc, err, out = run(tmp_path, capsys, "")
    assert rc == 0 and out.exists()
    assert err.startswith("%s:%d: mfad-energy: warning: no reverse mode for energy 'e' (" % (tmp_path / "e.c", CAST_LINE)), err
    assert "forward over forward" in err and err.count("\n") == 1
    assert "MFAD_ENERGY_REV_BODY" not in out.read_text()


def test_reverse_required_is_an_error(tmp_path, capsys):
    rc, err, out = run(tmp_path, capsys, ", .reverse = MFAD_REVERSE_REQUIRED")
    assert rc != 0 and not out.exists()
    assert err.startswith("%s:%d: mfad-energy: error: no reverse mode for energy 'e' (" % (tmp_path / "e.c", CAST_LINE)), err


def test_reverse_required_met_is_quiet(tmp_path, capsys):
    # without the cast the body reverses: no message, and the unit has its adjoint sweep
    src_extra = ", .reverse = MFAD_REVERSE_REQUIRED"
    global ENERGY
    body = "  double s = 0;\n  (void)p;\n  for (int i = 0; i < 3; i++) s += f[i] * f[i];\n  return s;\n"
    assert body in ENERGY
    saved, ENERGY = ENERGY, ENERGY.replace(body, "  return p[0] * (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]);\n")
    try:
        rc, err, out = run(tmp_path, capsys, src_extra)
    finally:
        ENERGY = saved
    assert rc == 0 and err == "" and "MFAD_ENERGY_REV_BODY" in out.read_text()


PLAIN = """#include <math.h>
#include <mfad/energy.h>
static double en(const double x[3], const double p[1]) { return p[0] * exp(x[0] * x[1]) + x[2] * x[2]; }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 3, .params = 1, .energy = en%s};
"""


def run_plain(tmp_path, capsys, extra):
    src, out = tmp_path / "e.c", tmp_path / "e_mfad.c"
    src.write_text(PLAIN % extra)
    rc = cli.main([str(src), "-o", str(out), "--cpp", CPP], tool_dir=TOOLS)
    return rc, capsys.readouterr().err, out


def test_an_energy_without_features_is_reversed_at_its_unknowns(tmp_path, capsys):
    rc, err, out = run_plain(tmp_path, capsys, "")
    assert rc == 0 and err == "" and "MFAD_ENERGY_REV_BODY" in out.read_text()
    assert "#define MFAD_ENERGY_REVERSE  1" in out.read_text() and "MFAD_ENERGY_FEATURES" not in out.read_text()


def test_reverse_never_is_quiet_and_forward(tmp_path, capsys):
    rc, err, out = run_plain(tmp_path, capsys, ", .reverse = MFAD_REVERSE_NEVER")
    assert rc == 0 and err == "" and "MFAD_ENERGY_REV_BODY" not in out.read_text()


def test_reverse_required_of_a_residual_is_refused(tmp_path, capsys):
    src, out = tmp_path / "r.c", tmp_path / "r_mfad.c"
    src.write_text("#include <mfad/energy.h>\nstatic void res(const double x[2], const double p[1], double r[2]) { r[0] = x[0] - p[0]; r[1] = x[1] * x[0]; }\n"
                   "const MfadEnergyInfo r_info = {.vertices = 1, .dof = 2, .params = 1, .outputs = 2, .residual = res, .reverse = MFAD_REVERSE_REQUIRED};\n")
    rc = cli.main([str(src), "-o", str(out), "--cpp", CPP], tool_dir=TOOLS)
    err = capsys.readouterr().err
    assert rc != 0 and not out.exists() and "a residual has no reverse mode" in err, err


def test_lanes_without_a_reverse_sweep_is_said(tmp_path, capsys):
    """--lanes (mfad_add_energy's LANES) on an energy whose author chose forward over forward: a note
    that it keeps the scalar path, as every other refusal of lanes says why (it was silent)."""
    src, out = tmp_path / "e.c", tmp_path / "e_mfad.c"
    src.write_text(PLAIN % ", .reverse = MFAD_REVERSE_NEVER")
    rc = cli.main([str(src), "-o", str(out), "--cpp", CPP, "--lanes"], tool_dir=TOOLS)
    err = capsys.readouterr().err
    assert rc == 0 and err == "%s: mfad-energy: note: no lanes for energy 'e' (no reverse sweep): the scalar path\n" % src, err
    assert "MFAD_ENERGY_LANES_BODY" not in out.read_text()
