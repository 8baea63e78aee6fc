# SPDX-License-Identifier: BSD-2-Clause
"""Unit tests of lower.py (while/do-while with MFAD_MAX_ITERATIONS, switch, the comma, file-scope
tables, MFAD_DERIVATIVES), of the jet rules of table (jets.JET_RULES) and of the kernel's name
(from the info variable, or --name)."""
import math

import pytest
from conftest import body_text, translate

from mfad_energy import cli, ir
from mfad_energy.common import TranslateError
from mfad_energy.jets import Jets
from mfad_energy.reverse import Reverser
from pycparser import c_ast

WHILE = """
static double e(const double x[1], const double p[1])
{
  double s = x[0], r = s * s - p[0];
  MFAD_MAX_ITERATIONS(6);
  while (fabs(r) > 1e-12) { s -= r / (2.0 * s); r = s * s - p[0]; }
  return s;
}
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 1, .params = 1, .energy = e};
"""


def items(tr, fname="e"):
    return tr.function(fname).fdef.body.block_items  # lowered when first asked for


def test_while_is_a_bounded_for_without_break(tmp_path):
    """while (c) S with MFAD_MAX_ITERATIONS(6): for (6 rounds) if (c) S: no break for the adjoint sweep."""
    loop = [s for s in items(translate(tmp_path, WHILE)) if isinstance(s, c_ast.For)]
    assert len(loop) == 1
    assert isinstance(loop[0].cond, c_ast.BinaryOp) and loop[0].cond.right.value == "6"
    assert isinstance(loop[0].stmt, c_ast.If) and loop[0].stmt.iffalse is None
    assert not any(isinstance(n, c_ast.Break) for n in walk(loop[0]))


def walk(n):
    yield n
    for _, ch in n.children():
        yield from walk(ch)


def test_while_needs_its_maximum(tmp_path):
    with pytest.raises(TranslateError, match=r"while loop without a maximum count.*MFAD_MAX_ITERATIONS\(n\);"):
        translate(tmp_path, WHILE.replace("MFAD_MAX_ITERATIONS(6);", "")).energy_spec()


def test_do_while_runs_its_body_first(tmp_path):
    tr = translate(tmp_path, WHILE.replace("while (fabs(r) > 1e-12) {", "do {").replace("r = s * s - p[0]; }", "r = s * s - p[0]; } while (fabs(r) > 1e-12);"))
    block = [s for s in items(tr) if isinstance(s, c_ast.Compound)][0].block_items
    assert isinstance(block[0], c_ast.Decl) and block[0].init.value == "1"  # int _mfad_goK = 1
    guard = block[1].stmt
    assert isinstance(guard, c_ast.If) and isinstance(guard.iftrue.block_items[-1], c_ast.Assignment)


SWITCH = """
static const double W[3] = {1.0, 2.0, 4.0};
static double e(const double x[1], const double p[1])
{
  double g, u, v;
  u = x[0], v = 2.0 * x[0];
  switch ((int)p[0]) {
  case 0: g = u * W[0]; break;
  case 1: case 2: g = u * v * W[(int)p[0]]; break;
  default: g = v;
  }
  return g;
}
static double unused(double t) { return t; }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 1, .params = 1, .energy = e};
"""


def test_switch_comma_and_table(tmp_path):
    tr = translate(tmp_path, SWITCH)
    body = items(tr)
    assert isinstance(body[0], c_ast.Decl) and body[0].name == "W" and "static" not in body[0].storage  # the table, a local copy
    assert not any(isinstance(s, c_ast.Decl) and s.name == "W" for s in items(tr, "unused"))  # only where it is read
    assigns = [s for s in body if isinstance(s, c_ast.Assignment)]
    assert [a.lvalue.name for a in assigns] == ["u", "v"]  # u = ..., v = ...; as two statements
    chain = [s for s in body if isinstance(s, c_ast.If)][0]
    assert isinstance(chain.cond, c_ast.BinaryOp) and chain.cond.op == "=="
    assert chain.iffalse.cond.op == "||"  # case 1: case 2:
    assert isinstance(chain.iffalse.iffalse, c_ast.Compound)  # default
    text = "\n".join(body_text(tr))
    assert "const double W[3] = {1.0, 2.0, 4.0};" in text


def test_fallthrough_refused(tmp_path):
    with pytest.raises(TranslateError, match="falls through"):
        translate(tmp_path, SWITCH.replace("g = u * W[0]; break;", "g = u * W[0];")).energy_spec()


RULE = """
static double sq(double t) { return t * t; }
static double sq_d1(double t) { return 2.0 * t; }
static double sq_d2(double t) { (void)t; return 2.0; }
MFAD_DERIVATIVES(sq, sq_d1, sq_d2);
static void fm(const double x[2], const double p[1], double f[2]) { (void)p; f[0] = x[0]; f[1] = x[1]; }
static double e(const double f[2], const double p[1]) { return p[0] * sq(f[0] * f[1]) + erf(f[0] + f[1]) + lgamma(2.0 + f[0] * f[0]); }
const MfadEnergyInfo e_info = {.vertices = 1, .dof = 2, .params = 1, .energy = e, .features = 2, .feature = fm};
"""


def test_user_rule_and_math_as_one_chain_rule(tmp_path):
    """sq(u), erf(u), lgamma(u) of a value of several unknowns: f, f', f'' at its value, one OP(chain1)
    each (the user's three functions over doubles), which the adjoint sweep reverses."""
    tr = translate(tmp_path, RULE)
    assert tr.rules == {"sq": ("sq_d1", "sq_d2")}
    body = tr.emit(tr.energy_spec())
    text = "\n".join(t for _, t in ir.lines(body))
    for g in ("sq", "sq_d1", "sq_d2"):
        assert "MFAD_FN(%s__p)(" % g in text
    assert "mfad_digamma(" in text and "mfad_trigamma(" in text
    assert text.count("OP(chain1)") >= 3
    rev = Reverser(body).function()
    assert sum("ADJ(chain1" in line for line in rev) >= 3


@pytest.mark.parametrize("name", [n for n in Jets.JET_RULES if n != "lgamma"])
def test_jet_rules_against_differences(name):
    """f' and f'' of each table entry against central differences of f and f' (lgamma's: test_lang.c)."""
    env = {k: getattr(math, k) for k in ("erf", "erfc", "expm1", "log1p", "sinh", "cosh", "exp")}
    for a in (-0.7, 0.3, 1.9):
        r0, r1, r2 = Jets.JET_RULES[name]
        x = ir.Name("a")  # the rules build IR; its text is the C, which Python reads alike here
        t0 = r0(x)
        t1 = r1(x, ir.Paren(t0))
        t2 = r2(x, ir.Paren(t0), ir.Paren(t1))
        f = lambda v: eval(str(t0), dict(env, a=v))  # noqa: E731
        d1 = lambda v: eval(str(t1), dict(env, a=v))  # noqa: E731
        d2 = eval(str(t2), dict(env, a=a))
        h = 1e-5
        assert abs(d1(a) - (f(a + h) - f(a - h)) / (2 * h)) < 1e-8 * (1.0 + abs(d1(a)))
        assert abs(d2 - (d1(a + h) - d1(a - h)) / (2 * h)) < 1e-8 * (1.0 + abs(d2))


def test_kernel_named_by_its_info(tmp_path):
    """No --name: the kernel is NAME of NAME_info, whatever the file is called; --name still wins."""
    src = tmp_path / "my_file.c"
    src.write_text("#include <mfad/energy.h>\nstatic double s(const double x[1], const double p[1]) { return p[0] * x[0] * x[0]; }\n"
                   "const MfadEnergyInfo spring_info = {.vertices = 1, .dof = 1, .params = 1, .energy = s};\n")
    assert cli.main([str(src), "-o", str(tmp_path / "a.c")], tool_dir=cli_tool_dir()) == 0
    assert "#define MFAD_ENERGY_NAME   spring\n" in (tmp_path / "a.c").read_text()
    assert cli.main([str(src), "-o", str(tmp_path / "b.c"), "--name", "other"], tool_dir=cli_tool_dir()) == 0
    assert "#define MFAD_ENERGY_NAME   other\n" in (tmp_path / "b.c").read_text()


def cli_tool_dir():
    from conftest import TOOLS
    return TOOLS


def test_unused_function_is_not_lowered(tmp_path):
    """A function nothing calls is not checked (as before lowering existed): its bare while is no error."""
    tr = translate(tmp_path, WHILE + "static double unused(double t) { while (t > 1.0) t *= 0.5; return t; }\n")
    tr.emit(tr.energy_spec())
    assert "unused" not in tr.functions


def test_while_whose_condition_writes_breaks(tmp_path):
    """while (k++ < 3): the condition must run once per round of the user's loop, not once per bound."""
    tr = translate(tmp_path, WHILE.replace("double s = x[0], r = s * s - p[0];", "double s = x[0], r = s * s - p[0];\n  int k = 0;")
                   .replace("while (fabs(r) > 1e-12)", "while (k++ < 3)"))
    loop = [s for s in items(tr) if isinstance(s, c_ast.For)][0]
    assert isinstance(loop.stmt, c_ast.Compound) and isinstance(loop.stmt.block_items[0].iftrue, c_ast.Break)
