# SPDX-License-Identifier: BSD-2-Clause
"""Unit tests of the translator's IR (tools/mfad_energy/ir.py): what forward emission lowers a few
statements to (a product, a univariate call, a loop, an if), the printed text of those nodes,
expression trees that are the ones C reads from their text, and the adjoint sweep built from an IR
statement list without any text. Run in seconds: python3 -m pytest tests/translator_py."""
import collections

import pytest
from conftest import body_ir, translate

from mfad_energy import ir
from mfad_energy.reverse import NoReverse, Reverser

HEAD = "const MfadEnergyInfo e_info = {.vertices = 1, .dof = 2, .params = 1, .energy = e};\n"


def body(tmp_path, code):
    """The energy body's ir.Function for `double e(x, p) { code }`."""
    funcs = body_ir(translate(tmp_path, "static double e(const double x[2], const double p[1])\n{\n%s\n}\n%s" % (code, HEAD)))
    assert funcs[-1].kind == "body" and funcs[-1].body_names == ("x", "p", "_mfad_E")
    return funcs[-1]


def printed(f):
    return [t.strip() for _, t in ir.lines([f])]


def test_product(tmp_path):
    """x0 * x1, returned: one OP(mul) into the result slot (*_mfad_E), its operands the addresses of
    the unknowns' entries, then the return; all on the return statement's line."""
    f = body(tmp_path, "  (void)p;\n  return x[0] * x[1];")
    cast, line = f.stmts
    assert isinstance(cast.items[0], ir.ExprS) and cast.items[0].cname == "Cast"
    op, ret = line.items
    assert isinstance(op, ir.Op) and op.name == "mul" and isinstance(ret, ir.Return)
    res, a, b = op.args
    assert isinstance(res, ir.Addr) and isinstance(res.e, ir.Deref) and res.e.e == "_mfad_E"
    assert isinstance(a.e, ir.Index) and a.e.base == "x" and a.e.idx == "0" and b.e.idx == "1"
    assert line.coord.line == 6 and not line.braced  # translate() adds two #include lines above the function
    assert printed(f)[-2:] == ["OP(mul)(&(*_mfad_E), &x[0], &x[1]); return;", "}"]


def test_univariate_call(tmp_path):
    """exp(p0 x0): one OP(chain1) from x0, its value and derivatives double temporaries (const
    double _sN) declared before it on its line, exp called once on a temporary."""
    f = body(tmp_path, "  return exp(p[0] * x[0]);")
    (line,) = f.stmts
    chain = [s for s in line.items if isinstance(s, ir.Op)]
    assert [c.name for c in chain] == ["chain1"] and chain[0].args[1] == "&x[0]"
    temps = {s.name: s.init for s in line.items if isinstance(s, ir.PDecl)}
    assert all(isinstance(a, ir.Name) and a.name in temps for a in chain[0].args[2:])
    calls = [e for e in temps.values() if isinstance(e, ir.Call)]
    assert [c.fn.name for c in calls] == ["exp"]
    assert line.braced and line.text().startswith("{ const double _s0 = OP(val)(&x[0]);")  # T temporaries: none, braces for the _s scope
    assert line.text().endswith("OP(chain1)(&(*_mfad_E), &x[0], %s, %s, %s); return; }" % tuple(chain[0].args[2:]))


def test_loop(tmp_path):
    """A loop of differentiated arithmetic with constant bounds: an ir.For (unrolled: MFAD_UNROLL)
    whose header is a tree, body a Block of its own lines."""
    f = body(tmp_path, "  double s = 0;\n  for (int i = 0; i < 2; i++) s += x[i] * x[i];\n  return p[0] * s;")
    loop = [s for s in f.stmts if isinstance(s, ir.For)]
    assert len(loop) == 1
    lp = loop[0]
    assert lp.pragma == "MFAD_UNROLL " and lp.init == ("decl", "int", "i", "=", "0")
    cond = lp.cond.strip()
    assert isinstance(cond, ir.Bin) and cond.op == "<" and cond.l == "i" and cond.r == "2"
    assert isinstance(lp.next, ir.Post) and lp.next.op == "++"
    assert isinstance(lp.body, ir.Block) and len(lp.body.stmts) == 1
    assert "MFAD_UNROLL for (int i = 0; (i < 2); i++)" in printed(f)


def test_if(tmp_path):
    """An if on parameters: an ir.If with a passive condition and a Block per branch."""
    f = body(tmp_path, "  if (p[0] > 0.0)\n    return x[0] * x[0];\n  else\n    return x[1];")
    (node,) = f.stmts
    assert isinstance(node, ir.If) and node.else_ is not None
    assert isinstance(node.cond.strip(), ir.Bin) and node.cond.strip().op == ">"
    assert [type(s) for s in node.then.stmts] == [ir.Line]
    assert printed(f)[2:4] == ["if ((p[0] > 0.0))", "{"]
    assert "else" in printed(f)


def test_expression_is_what_c_reads():
    """A tree built without parentheses is the one C reads from its text: a - b + c is (a - b) + c,
    -a * b is (-a) * b; Paren keeps the text's parentheses and vanishes in the sweep's style."""
    a, b, c = ir.Name("a"), ir.Name("b"), ir.Name("c")
    e = ir.Bin("-", a, ir.Bin("+", b, c))
    assert e == "a - b + c" and e.op == "+" and e.l.op == "-"
    n = ir.Un("-", ir.Bin("*", a, b))
    assert n == "-a * b" and n.op == "*" and isinstance(n.l, ir.Un)
    p = ir.Bin("-", a, ir.Paren(ir.Bin("+", b, c)))
    assert p == "a - (b + c)" and p.op == "-"
    look = {"a": "a_1", "b": 2, "c": "c"}.get
    assert n.cgen(look) == "(-a_1) * 2" and p.cgen(look) == "a_1 - (2 + c)"
    assert ir.num("-0.25") == "-0.25" and isinstance(ir.num("-0.25"), ir.Un)


Coord = collections.namedtuple("Coord", "file line column")


def sweep_body(coord=None):
    """y = x0 x1; E = p0 y, as IR built by hand: no text anywhere."""
    x, p, y = ir.Name("x"), ir.Name("p"), ir.Name("y")
    f = ir.Function("body", None, None, body_names=("x", "p", "_mfad_E"))
    f.stmts = [ir.Line(coord, [ir.TDecl(["y"]),
                               ir.Op("mul", [ir.Addr(y), ir.Addr(ir.Index(x, ir.Lit("0"))), ir.Addr(ir.Index(x, ir.Lit("1")))]),
                               ir.Op("muls", [ir.Addr(ir.Deref(ir.Name("_mfad_E"))), ir.Addr(y), ir.Index(p, ir.Lit("0"))]),
                               ir.Return()])]
    return f


def test_adjoint_sweep_from_ir():
    """The sweep of an IR statement list: forward ops with their inputs saved, then the adjoints
    in reverse order (E = p0 y first, linear: ADJ(muls); then y = x0 x1, whose adjoint has a zero
    tangent: ADJ(mul_s) on the adjoint's value)."""
    rev = [t.strip() for t in Reverser([sweep_body()]).function()]
    assert rev[0] == "MFAD_ENERGY_REV_BODY(x, p, _mfad_E, _mfad_ax)"
    fwd = rev.index("OP(mul)(&y, &x[0], &x[1]);")
    assert rev[fwd - 2:fwd] == ["_mfad_v0 = x[0];", "_mfad_v1 = x[1];"]
    assert rev[fwd + 1:fwd + 3] == ["_mfad_v2 = p[0];", "OP(muls)(&(*_mfad_E), &y, p[0]);"]
    adj = [t for t in rev if "ADJ(" in t]
    assert len(adj) == 2
    assert "ADJ(muls)(&_mfad_a_y, &_mfad_g, _mfad_v2)" in adj[0]
    assert "ADJ(mul_s)(&_mfad_ax[0], &_mfad_ax[1], OP(val)(&_mfad_g), &_mfad_v0, &_mfad_v1)" in adj[1]


def test_sweep_ignores_forward_text(tmp_path, monkeypatch):
    """The sweep reads the IR, not the forward text: a cosmetic change to how operations print
    leaves reverse mode as it was."""
    f = body(tmp_path, "  double y = x[0] * x[1];\n  return p[0] * exp(y);")
    before = Reverser([f]).function()
    monkeypatch.setattr(ir.Op, "text", lambda self: "OP( %s )( %s );" % (self.name, " , ".join(self.args)))
    monkeypatch.setattr(ir.Line, "text", lambda self: "/* reformatted */ " + " ".join(s.text() for s in self.items))
    assert "/* reformatted */ OP( mul )" in "\n".join(t for _, t in ir.lines([f]))
    assert Reverser([f]).function() == before


def test_no_reverse_names_the_line():
    """An operation without an adjoint rule refuses at the coord of the IR line that holds it."""
    f = sweep_body(Coord("e.c", 12, 3))
    f.stmts[0].items[1].name = "cof3"
    with pytest.raises(NoReverse, match="op cof3") as e:
        Reverser([f]).function()
    assert e.value.coord.line == 12
