# SPDX-License-Identifier: BSD-2-Clause
"""Unit tests of the translator's passes (tools/mfad_energy), each on a small energy: activity analysis,
the feature matrix B, a fused univariate jet, the adjoint sweep of single statements. Run in seconds:
python3 -m pytest tests/translator_py (tools/README.md)."""
import math
import re

import pytest
from conftest import body_ir, body_text, translate

from mfad_energy.reverse import NoReverse, Reverser

FEATURES = """
static void fm(const double x[4], const double p[1], double f[2]) { f[0] = x[3] - x[0]; f[1] = 2.0 * p[0] * x[1] + x[2] / p[0]; }
static double e(const double f[2], const double p[1])
{
  const double a = p[0] * 2.0;
  int k = 1;
  double b = f[0] * a;
  double c = a + 1.0;
  return b * b + exp(f[k] * f[k]) + c;
}
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 2, .params = 1, .energy = e, .features = 2, .feature = fm};
"""


def test_activity(tmp_path):
    """Only what depends on the unknowns carries derivatives: b (from f), not a, c (from p) nor k."""
    sp = translate(tmp_path, FEATURES).energy_spec()
    active = {v.name for v, a in sp.active.items() if a}
    assert active == {"f", "b"}
    assert sp.ret_active


def test_activity_through_helper(tmp_path):
    """A helper's array output is active where an active value is written to it (the call's signature)."""
    tr = translate(tmp_path, """
static void h(const double u[1], double w[1]) { w[0] = 3.0 * u[0]; }
static double e(const double x[1], const double p[1]) { double w[1]; double q[1]; h(x, w); h(p, q); return w[0] * q[0]; }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 1, .params = 1, .energy = e};
""")
    sp = tr.energy_spec()
    assert {v.name for v, a in sp.active.items() if a} == {"x", "w"}
    specs = {key[1]: sp for key, sp in tr.specs.items() if key[0] == "h"}
    assert specs[(False, False)].active.get(specs[(False, False)].fn.params[1]) is False  # h(p, q): doubles
    hx = specs[(True, True)]  # h(x, w): w receives derivatives
    assert {v.name for v, a in hx.active.items() if a} == {"u", "w"}


def test_feature_matrix(tmp_path):
    """B(p) of f = B x, row by row: {column: {monomial in p: coefficient}}."""
    rows, code = translate(tmp_path, FEATURES).feature_rows()
    assert rows == [{3: {(): 1.0}, 0: {(): -1.0}}, {1: {("p[0]",): 2.0}, 2: {("(1.0 / (p[0]))",): 1.0}}]
    assert [t for t, _ in code] == ["_f0", "_f1"]


def test_feature_matrix_refuses_nonlinear(tmp_path):
    from mfad_energy.common import TranslateError
    tr = translate(tmp_path, FEATURES.replace("f[0] = x[3] - x[0];", "f[0] = x[3] * x[0];"))
    with pytest.raises(TranslateError, match="multiplies two values that depend on x"):
        tr.feature_rows()


def test_jet_of_univariate(tmp_path):
    """exp(u*u), u = f[k]: one OP(chain1) whose double arguments are g, g', g'' at u (evaluated here
    from the emitted C and compared with the closed form)."""
    body = "\n".join(body_text(translate(tmp_path, FEATURES)))
    calls = re.findall(r"OP\(chain1\)\(&\w+, &([^,]+), (\w+), (\w+), (\w+)\)", body)
    assert [c[0] for c in calls] == ["b", "f[k]"]  # b*b and exp(f[k]^2): one chain rule each
    u = 0.7
    env = {"exp": math.exp}
    for name, expr in re.findall(r"const double (_s\d+) = ([^;]+);", body):
        env[name] = eval(re.sub(r"OP\(val\)\(&[^)]+\)", repr(u), expr), env)  # noqa: S307 (our own C subset)
    g, g1, g2 = (env[n] for n in calls[1][1:])
    e = math.exp(u * u)
    assert g == pytest.approx(e, rel=1e-15)
    assert g1 == pytest.approx(2 * u * e, rel=1e-15)
    assert g2 == pytest.approx((4 * u * u + 2) * e, rel=1e-15)


SWEEP = """
static void fm(const double x[2], const double p[1], double f[2]) { f[0] = p[0] * x[0]; f[1] = x[1]; }
static double e(const double f[2], const double p[1]) { double y = f[0] * f[1]; return p[0] * y; }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 2, .params = 1, .energy = e, .features = 2, .feature = fm};
"""


def test_adjoint_sweep(tmp_path):
    """y = f0 f1; E = p0 y: the forward statements, then their adjoints in reverse order, each
    reading the inputs saved before its statement."""
    rev = Reverser(body_ir(translate(tmp_path, SWEEP))).function()
    assert rev[0] == "MFAD_ENERGY_REV_BODY(f, p, _mfad_E, _mfad_ax)"
    fwd = [i for i, t in enumerate(rev) if t.strip().startswith("OP(mul")]
    adj = [i for i, t in enumerate(rev) if "ADJ(" in t]
    assert len(fwd) == 2 and len(adj) == 2 and max(fwd) < min(adj)
    assert "ADJ(muls)(&_mfad_a_y, &_mfad_g, _mfad_v2)" in rev[adj[0]]  # E = p0 y first: p0 saved as _mfad_v2
    assert "ADJ(mul_s)(&_mfad_ax[0], &_mfad_ax[1], OP(val)(&_mfad_g), &_mfad_v0, &_mfad_v1)" in rev[adj[1]]
    assert "_mfad_v0 = f[0];" in "\n".join(rev[:fwd[0]])


def test_adjoint_refuses_index_variable(tmp_path):
    """An array read at an index only known at run time has no adjoint here: NoReverse, with the reason."""
    with pytest.raises(NoReverse, match="not a constant: k"):
        Reverser(body_ir(translate(tmp_path, FEATURES))).function()


def test_projection_declared(tmp_path):
    """.projection reaches the kernel (MFAD_ENERGY_PROJECTION, read by the solver defaults); a value
    other than MFAD_PROJECT_CLAMP/ABS, or on a residual, is refused at the info."""
    from mfad_energy.common import TranslateError
    from mfad_energy.output import unit_text
    clamp = FEATURES.replace(".feature = fm}", ".feature = fm, .projection = MFAD_PROJECT_CLAMP}")
    assert translate(tmp_path, clamp).meta["projection"] == 1
    assert "projection" not in translate(tmp_path, FEATURES).meta
    tr = translate(tmp_path, clamp)
    text = unit_text(str(tmp_path / "e.c"), str(tmp_path / "out.c"), "e", tr.meta, False, [], [], [], None, [], None, [])
    assert "#define MFAD_ENERGY_PROJECTION 1" in text
    with pytest.raises(TranslateError, match="projection must be"):
        translate(tmp_path, FEATURES.replace(".feature = fm}", ".feature = fm, .projection = 3}"))
    residual = """
static void r(const double x[2], const double p[1], double out[1]) { out[0] = x[1] - x[0]; }
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 1, .params = 1, .residual = r, .outputs = 1, .projection = MFAD_PROJECT_ABS};
"""
    with pytest.raises(TranslateError, match="projection belongs to a scalar"):
        translate(tmp_path, residual)
