# SPDX-License-Identifier: BSD-2-Clause
"""The lanes body (tools/mfad_energy/lanes.py): the adjoint sweep over SIMD lanes, its branch on values
taken by MFAD_VIF on lane masks, passive doubles as MFAD_S, passive operands broadcast; and its
refusals (NoLanes) of what a vector of lanes cannot take in C."""
import pytest

from conftest import body_ir, translate
from mfad_energy.lanes import NoLanes, lanes_feature_code, lanes_function
from mfad_energy.reverse import NoReverse, Reverser

GUARD = """
static void fm(const double x[2], const double p[1], double f[2]) { f[0] = p[0] * x[0]; f[1] = x[1]; }
static double e(const double f[2], const double p[1])
{
  const double s = f[0] * f[1];
  if (!(s > 0.0) || p[0] < 0.5) return INFINITY;
  return p[0] * log(s);
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 2, .params = 1, .energy = e, .features = 2, .feature = fm};
"""


def test_lanes_body_is_the_sweep_on_lanes(tmp_path):
    """The scalar sweep's statements, with the guard's condition as lane masks under MFAD_VIF
    (! as ~, || as |), passive doubles declared MFAD_S, and passive operands broadcast."""
    b = body_ir(translate(tmp_path, GUARD))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    assert lanes[0] == "MFAD_ENERGY_LANES_BODY(f, p, _mfad_E, _mfad_ax)"
    guard = [t for t in lanes if t.strip().startswith("if (")]
    assert guard == ["  if (MFAD_VIF((MFAD_VM((~MFAD_VM(MFAD_VM(OP(val)(&s) > 0.0)))) | MFAD_VM(MFAD_VM(p[0] < 0.5))))) "
                     "{ OP(set)(&(*_mfad_E), INFINITY); return; }"]
    assert not any(t.strip().startswith("double ") for t in lanes)
    assert sum(t.strip().startswith("MFAD_S ") for t in lanes) == sum(t.strip().startswith("double ") for t in rev) > 0
    # the same operations in the same order: the lanes' values are the scalar path's
    ops = [t.strip().split("(")[1] for t in rev if t.strip().startswith(("OP(", "ADJ("))]
    assert ops == [t.strip().split("(")[1] for t in lanes if t.strip().startswith(("OP(", "ADJ("))]
    assert any("MFAD_VS(" in t for t in lanes)


def test_lanes_feature_map(tmp_path):
    """The feature map and its transpose once more over mfad_vd, under their own names."""
    from mfad_energy.features import feature_code
    tr = translate(tmp_path, GUARD)
    rows, code = tr.feature_rows()
    text = "\n".join(lanes_feature_code(feature_code(rows, code, 2, 2, "fm")))
    assert "mfad_feature_map_lanes(const mfad_vd *MFAD_RESTRICT v" in text
    assert "mfad_feature_pull_lanes(" in text and "double" not in text


@pytest.mark.parametrize("stmt, why", [
    ("int k = 0; if (f[0] > 0.0) k = 1; const double s = f[1] * k;", "the int k"),
    ("const double q = (int)(p[0] * 3.0); const double s = q * f[0] * f[1];", "a cast to int on values"),
    ("const double q = (p[0] > 1.0) / 2; const double s = q * f[0] * f[1];", "'/' of a comparison's truth value"),
    ("const double q = ((p[0] > 1.0) + (f[0] > 1.0 ? 1 : 0)) / 2; const double s = q * f[0] * f[1];", "'/' of a comparison's truth value"),
])
def test_lanes_refusals(tmp_path, stmt, why):
    """What lanes cannot take refuses with its reason (the energy keeps the scalar path); the scalar
    sweep itself takes each of them."""
    code = GUARD.replace("const double s = f[0] * f[1];", stmt)
    b = body_ir(translate(tmp_path, code))
    Reverser(b).function()
    with pytest.raises(NoLanes, match=why):
        lanes_function(b)


def test_lanes_selects(tmp_path):
    """What branches on values inside an expression goes on the lanes as selects, lane by lane, with
    no MFAD_VIF (a group on both sides of a kink stays on the lanes): fmin, fmax and fabs of numbers
    are the ops themselves (their lanes rules select: mfad/impl/ad_generic.h), in the scalar sweep's
    order; a ternary of passive values is mfad_vblend of its operands; fabs's jet (one unknown: its
    sign, (double)((a > 0) - (a < 0))) takes the comparisons' truth values as doubles (mfad_vtruth);
    fabs of a passive value is the C library's lane by lane."""
    code = GUARD.replace("const double s = f[0] * f[1];",
                         "const double q = f[0] > 1.0 ? 2.0 : 3.0; const double t = fabs(mfad_value(f[1]) - p[0]);"
                         " const double s = q * t * fmax(f[0], f[1]) * fmin(f[0] * f[1], p[0]) + fabs(f[0]) + fabs(f[0] - f[1]);")
    b = body_ir(translate(tmp_path, code))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    text = " ".join(lanes)
    ops = [t.strip().split("(")[1] for t in rev if t.strip().startswith(("OP(", "ADJ("))]
    assert ops == [t.strip().split("(")[1] for t in lanes if t.strip().startswith(("OP(", "ADJ("))]
    assert {"fmax)", "fmin)", "fabs)"} <= {o.split(")")[0] + ")" for o in ops}
    assert "mfad_vblend(MFAD_VM(OP(val)(&f[0]) > 1.0), MFAD_VS(2.0), MFAD_VS(3.0))" in text
    assert "mfad_vtruth(MFAD_VM(" in text and "(double)" not in text
    assert text.count("MFAD_VIF(") == 1  # the guard's alone


def test_lanes_unroll_loops_with_operations(tmp_path):
    """A loop of operations on numbers (constant bounds: stvk_tet's G2[4 i] -= 1) is unrolled on the
    lanes as on the scalar sweep, the same operations in the same order, and so is a loop on values
    alone that runs a constant count (a fixed number of Newton steps); one that tests values (an
    iteration until it converges, corotated_tet's root) still refuses: C's loop cannot run lanes in
    step."""
    code = GUARD.replace("const double s = f[0] * f[1];",
                         "double g[2]; for (int i = 0; i < 2; i++) g[i] = f[i] * f[i]; for (int i = 0; i < 2; i++) g[i] -= 1.0;"
                         " const double s = g[0] * g[1];")
    b = body_ir(translate(tmp_path, code))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    ops = [t.strip().split("(")[1] for t in rev if t.strip().startswith(("OP(", "ADJ("))]
    assert ops == [t.strip().split("(")[1] for t in lanes if t.strip().startswith(("OP(", "ADJ("))]
    assert "OP(adds)(&g[1], &g[1], MFAD_VS(-1.0));" in " ".join(lanes)
    code = GUARD.replace("const double s = f[0] * f[1];",
                         "double r = 1.0; const double a = mfad_value(f[0]); for (int it = 0; it < 3; it++) r = 0.5 * (r + a / r);"
                         " const double s = r * f[0] * f[1];")
    lanes = " ".join(lanes_function(body_ir(translate(tmp_path, code))))
    assert lanes.count("r = MFAD_VS(0.5 * (r + (a / r)));") == 3 and " for (" not in lanes.replace("for (int _mfad_i", ""), lanes
    code = code.replace("r = 0.5 * (r + a / r);", "{ const double q = 0.5 * (r + a / r); if (!(fabs(q - r) > 1e-15)) break; r = q; }")
    b = body_ir(translate(tmp_path, code))
    Reverser(b).function()
    with pytest.raises(NoLanes, match="a loop on values"):
        lanes_function(b)


def test_lanes_literals_broadcast(tmp_path):
    """A passive double set from literals alone (a C scalar: gcc refuses it for a vector) is broadcast
    by MFAD_VS, declared or assigned; the body marks its divergence flag used (an energy without a
    branch on values never sets it: -Werror=unused-parameter)."""
    code = GUARD.replace("const double s = f[0] * f[1];", "double q = 2.0 * 1.0; q = 3.0; const double s = q * f[0] * f[1];")
    lanes = lanes_function(body_ir(translate(tmp_path, code)))
    text = " ".join(lanes)
    assert "= MFAD_VS(2.0 * 1.0);" in text and "= MFAD_VS(3.0);" in text
    assert lanes[2].strip().startswith("(void)_mfad_div;")


NOFEAT = """
static double e(const double x[4], const double p[4])
{
  double A[4];
  mfad_matmul(A, x, p, 2);
  if (!(A[0] > 0.0)) return INFINITY;
  return A[0] * A[3] - A[1] * A[2] + p[0] * log(A[0]);
}
const MfadEnergyInfo e_info = {.vertices = 2, .dof = 2, .params = 4, .energy = e};
"""


def test_lanes_without_features_and_matmuld(tmp_path):
    """An energy written over its unknowns (no features, as a new user writes one) has a lanes body
    at its unknowns (the identity map: mfad/impl/loop_cpu_lanes.h); its product with a constant
    matrix (matmuld, F = Ds Dm^-1) goes on the lanes where that matrix is the parameters (lane
    vectors there), and refuses for a table of doubles, which is not."""
    b = body_ir(translate(tmp_path, NOFEAT))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    assert lanes[0] == "MFAD_ENERGY_LANES_BODY(x, p, _mfad_E, _mfad_ax)"
    assert "OP(matmuld)(A, x, p, 2);" in " ".join(lanes)
    ops = [t.strip().split("(")[1] for t in rev if t.strip().startswith(("OP(", "ADJ("))]
    assert ops == [t.strip().split("(")[1] for t in lanes if t.strip().startswith(("OP(", "ADJ("))]
    code = NOFEAT.replace("mfad_matmul(A, x, p, 2);", "const double B[4] = {1.0, 2.0, 3.0, 4.0}; mfad_matmul(A, x, B, 2);")
    b = body_ir(translate(tmp_path, code))
    Reverser(b).function()
    with pytest.raises(NoLanes, match="op matmuld of B"):
        lanes_function(b)


def test_lanes_condition_on_a_helper_value(tmp_path):
    """A branch that tests a helper's value (the README tutorial's `if (mfad_inv3(Fi, F) <= 0.0)`: the
    lowering computes the helper, then tests an int it sets) holds that int as a lane mask taken by
    MFAD_VIF, as any condition; an int the energy itself computes from values still refuses."""
    code = NOFEAT.replace("  if (!(A[0] > 0.0)) return INFINITY;\n", "  double Ai[4];\n  if (mfad_inv2(Ai, A) <= 0.0) return INFINITY;\n")
    code = code.replace("+ p[0] * log(A[0])", "+ p[0] * Ai[0]")
    assert "mfad_inv2" in code
    lanes = lanes_function(body_ir(translate(tmp_path, code)))
    text = " ".join(lanes)
    assert "mfad_vm _mfad_c1;" in text and "if (MFAD_VIF(_mfad_c1))" in text, text


HELPERS = """
static double youngs(double m) { return 2.0 * m; }
static double stiffness(const double p[1])
{
  const double k = youngs(p[0]);
  double       s = k;
  s *= p[0] < 1.0 ? 1.0 : 0.5;
  return s;
}
""" + GUARD.replace("return p[0] * log(s);", "return stiffness(p) * log(s);")


def test_lanes_helpers_over_doubles(tmp_path):
    """A helper over doubles that a value's expression calls (the scalar sweep calls its value pass)
    gets a lanes version, its doubles lane vectors and its statements lowered as the body's passive
    ones (the ternary a select), defined after the helpers it calls and before the body, and called
    under the pass's MFAD_FN."""
    b = body_ir(translate(tmp_path, HELPERS))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    assert any("stiffness__p_val(p)" in t for t in rev)
    heads = [t for t in lanes if t.startswith("MFAD_GEN_MODIFIERS")]
    assert heads == ["MFAD_GEN_MODIFIERS mfad_vd MFAD_FN(youngs__p_lanes)(mfad_vd m)",
                     "MFAD_GEN_MODIFIERS mfad_vd MFAD_FN(stiffness__p_lanes)(const mfad_vd *p)"], heads
    text = "\n".join(lanes)
    assert lanes.index("MFAD_ENERGY_LANES_BODY(f, p, _mfad_E, _mfad_ax)") > lanes.index(heads[1])
    assert "const mfad_vd k = MFAD_VS(MFAD_FN(youngs__p_lanes)(MFAD_VS(p[0])));" in text
    assert "s *= mfad_vblend(MFAD_VM(p[0] < 1.0), MFAD_VS(1.0), MFAD_VS(0.5));" in text
    assert "MFAD_FN(stiffness__p_lanes)(p)" in text and "_val(" not in text and "double" not in text


@pytest.mark.parametrize("helper, why", [
    ("static double stiffness(const double p[1]) { double s = 0.0; for (int i = 0; i < (int)p[0]; i++) s += p[0]; return s; }",
     "a loop in the helper stiffness"),
    ("static double stiffness(const double p[1]) { int k = 2; if (p[0] > 1.0) k = 3; return k * p[0]; }", "an int in the helper stiffness"),
])
def test_lanes_helper_refusals(tmp_path, helper, why):
    """A helper over doubles with a loop of no constant count or an int that is not a constant keeps
    the energy off the lanes, with the helper named; the scalar sweep takes it."""
    code = helper + GUARD.replace("return p[0] * log(s);", "return stiffness(p) * log(s);")
    b = body_ir(translate(tmp_path, code))
    Reverser(b).function()
    with pytest.raises(NoLanes, match=why):
        lanes_function(b)


def test_arrays_of_doubles_the_energy_sets(tmp_path):
    """An array of doubles the body sets (a helper's outputs, an initialiser list, whose missing
    entries are C's zeros) has forward statements in the adjoint sweep, and on the lanes lane
    vectors; a matrix that matmuld reads whole may be such an array, which must not change after
    (the reverse sweep reads it there, not a copy)."""
    code = NOFEAT.replace("  double A[4];\n  mfad_matmul(A, x, p, 2);\n",
                          "  double A[4], M[4], c[3] = {2.0, p[1]};\n  for (int i = 0; i < 4; i++) M[i] = c[0] * p[i];\n"
                          "  mfad_matmul(A, x, M, 2);\n")
    code = code.replace("+ p[0] * log(A[0])", "+ (p[0] + c[2]) * log(A[0]) + c[1] * A[1]")
    b = body_ir(translate(tmp_path, code))
    rev, lanes = Reverser(b).function(), lanes_function(b)
    text = " ".join(rev)
    assert "double M[4];" in text and "double c[3];" in text
    assert "c[0] = 2.0; c[1] = p[1]; c[2] = 0.0;" in text
    assert "M[i] = c[0] * p[i];" in text and "OP(matmuld)(A, x, M, 2);" in text  # the loop as it is
    ltext = " ".join(lanes)
    assert "MFAD_S M[4];" in ltext and "MFAD_S c[3];" in ltext and "double" not in ltext
    assert "c[0] = MFAD_VS(2.0); c[1] = MFAD_VS(p[1]); c[2] = MFAD_VS(0.0);" in ltext
    assert "M[0] = MFAD_VS(c[0] * p[0]);" in ltext and "M[3] = MFAD_VS(c[0] * p[3]);" in ltext  # unrolled
    late = code.replace("  if (!(A[0] > 0.0))", "  M[0] = 1.0;\n  if (!(A[0] > 0.0))")
    with pytest.raises(NoReverse, match="M written after an operation read it whole"):
        Reverser(body_ir(translate(tmp_path, late))).function()


def test_lanes_helper_branches_as_selects(tmp_path):
    """An if in a helper over doubles is taken on every lane: both branches computed, an assignment
    under a branch keeping the lanes that did not take it, a return setting the result of the lanes
    still running and ending them (nested ifs, an else, a return in a branch and at the end)."""
    helper = """static double stiffness(const double p[1])
{
  double w = p[0];
  if (p[0] > 0.5) {
    if (p[0] > 2.0) return 0.0;
    w *= 0.5;
  } else w += 1.0;
  return w;
}
"""
    b = body_ir(translate(tmp_path, helper + GUARD.replace("return p[0] * log(s);", "return stiffness(p) * log(s);")))
    lanes = lanes_function(b)
    start = lanes.index("MFAD_GEN_MODIFIERS mfad_vd MFAD_FN(stiffness__p_lanes)(const mfad_vd *p)")
    body = [t.strip() for t in lanes[start + 2:lanes.index("}", start + 2)] if t.strip() not in ("{", "}")]
    assert body == ["mfad_vd _mfad_r = MFAD_VS(0.0);", "mfad_vm _mfad_live = ~(mfad_vm){0};", "mfad_vd w = MFAD_VS(p[0]);",
                    "const mfad_vm _mfad_m1 = MFAD_VM(p[0] > 0.5);", "const mfad_vm _mfad_m2 = MFAD_VM(p[0] > 2.0);",
                    "_mfad_r = mfad_vblend((_mfad_live & _mfad_m1 & _mfad_m2), MFAD_VS(0.0), _mfad_r);",
                    "_mfad_live &= ~(_mfad_live & _mfad_m1 & _mfad_m2);",
                    "w = mfad_vblend((_mfad_live & _mfad_m1), w * (0.5), w);",
                    "w = mfad_vblend((_mfad_live & ~_mfad_m1), w + (1.0), w);",
                    "_mfad_r = mfad_vblend((_mfad_live), MFAD_VS(w), _mfad_r);", "_mfad_live &= ~(_mfad_live);", "return _mfad_r;"], body


def test_lanes_helper_loops_unrolled(tmp_path):
    """A loop of a constant count in a helper over doubles is unrolled, and a const int of constants
    is that constant, as in the body."""
    helper = """static double stiffness(const double p[1])
{
  const int n = 3;
  double    s = 0.0;
  for (int i = 0; i < n; i++) s += (i + 1) * p[0];
  return s;
}
"""
    lanes = lanes_function(body_ir(translate(tmp_path, helper + GUARD.replace("return p[0] * log(s);", "return stiffness(p) * log(s);"))))
    start = lanes.index("MFAD_GEN_MODIFIERS mfad_vd MFAD_FN(stiffness__p_lanes)(const mfad_vd *p)")
    body = [t.strip() for t in lanes[start + 2:lanes.index("}", start + 2) + 6] if t.strip() not in ("{", "}")]
    assert body[:5] == ["mfad_vd s = MFAD_VS(0.0);", "s += (0 + 1) * p[0];", "s += (1 + 1) * p[0];", "s += (2 + 1) * p[0];",
                        "return MFAD_VS(s);"], body


def test_lanes_const_int_of_a_comparison(tmp_path):
    """A const int of a comparison of values (const int big = s > p[0] && p[1] > 0.0) is a lane mask:
    a branch on it is taken by MFAD_VIF, in a value's expression it is 0.0 or 1.0; the scalar sweep
    keeps it an int."""
    code = GUARD.replace("  if (!(s > 0.0) || p[0] < 0.5) return INFINITY;\n  return p[0] * log(s);",
                         "  if (!(s > 0.0)) return INFINITY;\n  const int big = s > p[0] && p[0] > 0.0;\n"
                         "  if (!big) return INFINITY;\n  return (1.0 + big) * log(s);")
    assert "const int big" in code
    b = body_ir(translate(tmp_path, code))
    rev, lanes = " ".join(Reverser(b).function()), " ".join(lanes_function(b))
    assert "int big;" in rev and "mfad_vm big;" in lanes
    assert "if (MFAD_VIF((~MFAD_VM(big))))" in lanes and "mfad_vtruth(big)" in lanes, lanes


def test_early_return_in_a_helper_over_numbers(tmp_path):
    """A helper over numbers with an early return (if (s > 2.0) return ...; return log(s);) has an
    adjoint sweep and lanes: the statements after the if move into its other branch, recorded as any
    branch; a return inside a loop of the helper still refuses the sweep."""
    helper = """static double soft_log(double s)
{
  if (s > 2.0) return log(2.0) + 0.5 * log(s / 2.0);
  const double l = log(s);
  return l;
}
"""
    code = helper + GUARD.replace("return p[0] * log(s);", "return p[0] * soft_log(s);")
    b = body_ir(translate(tmp_path, code))
    rev = " ".join(Reverser(b).function())
    assert "_mfad_b0 = (OP(val)(&" in rev and "> 2.0);" in rev, rev
    assert "MFAD_VIF(" in " ".join(lanes_function(b))
    looped = helper.replace("  if (s > 2.0) return", "  for (int i = 0; i < 2; i++)\n    if (s > 2.0 + i) return")
    b = body_ir(translate(tmp_path, looped + GUARD.replace("return p[0] * log(s);", "return p[0] * soft_log(s);")))
    with pytest.raises(NoReverse, match="a return inside soft_log"):
        Reverser(b).function()
