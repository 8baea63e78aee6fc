# SPDX-License-Identifier: BSD-2-Clause
"""The fused univariate chain rule: a one-variable subtree u -> g(u) as its jet (g, g', g''), double
expressions of the IR (jmul/jadd/... fold the literal 0 and 1), emitted as one OP(chain1) call."""
from pycparser import c_ast

from . import ir
from .common import ARITH, JET1, MATH1, fail, src
from .ir import Bin as B, Lit as L, Paren as P, Un as U, num as N


ZERO, ONE = L("0.0"), L("1.0")


def call(name, *args):
    return ir.Call(ir.Fn(name), args)


def prod(*xs):
    """x0 * x1 * ... as written (no folding)."""
    r = xs[0]
    for x in xs[1:]:
        r = B("*", r, x)
    return r


def jmul(*xs):
    """Product of jet entries, exact for the zero and one of derivatives."""
    if ZERO in xs:
        return ZERO
    xs = [x for x in xs if x != ONE]
    if not xs:
        return ONE
    r = xs[0]
    for x in xs[1:]:
        r = B("*", r, x)
    return r


def jmulp(a, b):
    """(a) * b, a possibly a sum."""
    if ZERO in (a, b):
        return ZERO
    if a == ONE:
        return b
    if b == ONE:
        return a
    return B("*", P(a), b)


def jadd(a, b):
    if a == ZERO:
        return b
    if b == ZERO:
        return a
    return B("+", a, b)


def jneg(a):
    return ZERO if a == ZERO else U("-", P(a))


def jsub(a, b):
    if b == ZERO:
        return a
    if a == ZERO:
        return jneg(b)
    return B("-", a, P(b))


class Jets:
    """Emitter methods for one-variable subtrees (see emit_forward.Emitter)."""

    # ------------------------------------------------------------ one-variable subtrees
    def univariate(self, e):
        """The lvalue text of the one differentiated scalar e depends on, if e is built from it with
        + - * / math.h functions and passive values; else None."""
        leaves = set()

        def walk(n):
            if not self.s.expr_active(n):
                return True
            if isinstance(n, (c_ast.ID, c_ast.ArrayRef)):
                leaves.add(self.lvalue(n)[1])
                return True
            if isinstance(n, c_ast.BinaryOp) and n.op in ARITH:
                return walk(n.left) and walk(n.right)
            if isinstance(n, c_ast.UnaryOp) and n.op in ("-", "+"):
                return walk(n.expr)
            if isinstance(n, c_ast.Cast):
                return walk(n.expr)
            if isinstance(n, c_ast.FuncCall) and isinstance(n.name, c_ast.ID):
                args = n.args.exprs if n.args else []
                if (n.name.name in MATH1 or n.name.name in self.tr.rules) and len(args) == 1:
                    return walk(args[0])
                if n.name.name == "pow" and len(args) == 2 and not self.s.expr_active(args[1]):
                    return walk(args[0])
            return False

        if walk(e) and len(leaves) == 1:
            return leaves.pop()
        return None

    def nonlinear(self, e):
        if isinstance(e, c_ast.FuncCall):
            return True
        if isinstance(e, c_ast.BinaryOp):
            if e.op == "*" and self.s.expr_active(e.left) and self.s.expr_active(e.right):
                return True
            if e.op == "/" and self.s.expr_active(e.right):
                return True
            return self.nonlinear(e.left) or self.nonlinear(e.right)
        if isinstance(e, (c_ast.UnaryOp, c_ast.Cast)):
            return self.nonlinear(e.expr)
        return False

    def fused(self, e, u, dest, scale):
        """scale * f(u) as one OP(chain1): f, f' and f'' evaluated in double."""
        uv = self.dtemp(ir.Val(u))
        v, d, dd = self.jet(e, uv, self.dtemp(scale) if scale is not None else None)
        r = self.target(dest)
        self.pre.append(ir.Op("chain1", [ir.Addr(r), ir.Addr(u), v, d, dd]))
        return r

    def D(self, x):
        """A double temporary for a jet entry (ZERO and ONE stay literal)."""
        return x if x in (ZERO, ONE) else self.dtemp(x)

    def compose(self, g0, g1, g2, ad, add):
        """The jet of g(a) from g, g', g'' at a and a's derivatives ad, add."""
        if ad == ONE and add == ZERO:
            return g0, g1, g2
        D = self.D
        return g0, D(jmul(g1, ad)), D(jadd(jmul(g2, D(jmul(ad, ad))), jmul(g1, add)))

    def monomial(self, e):
        """(q, n) if e is q u^n, u the differentiated scalar and q a passive expression (products
        of u and passive values, quotients by passive values); else None."""
        if not self.s.expr_active(e):
            return None
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            return L("1.0"), 1
        if isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op == "+"):
            return self.monomial(e.expr)
        if isinstance(e, c_ast.UnaryOp) and e.op == "-":
            m = self.monomial(e.expr)
            return None if m is None else (U("-", P(m[0])), m[1])
        if isinstance(e, c_ast.BinaryOp) and e.op in ("*", "/"):
            la, ra = self.s.expr_active(e.left), self.s.expr_active(e.right)
            if la and ra:
                a, b = (self.monomial(e.left), self.monomial(e.right)) if e.op == "*" else (None, None)
                return None if a is None or b is None else (B("*", P(a[0]), P(b[0])), a[1] + b[1])
            if la:
                a = self.monomial(e.left)
                return None if a is None else (B(e.op, P(a[0]), P(self.pexpr(e.right))), a[1])
            if e.op == "*":
                b = self.monomial(e.right)
                return None if b is None else (B("*", P(self.pexpr(e.left)), P(b[0])), b[1])
        return None

    def active_core(self, e):
        """The text of e without its passive factors and divisors (k a, a / k -> a)."""
        while True:
            if isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op == "+"):
                e = e.expr
            elif isinstance(e, c_ast.BinaryOp) and e.op in ("*", "/") and not self.s.expr_active(e.right):
                e = e.left
            elif isinstance(e, c_ast.BinaryOp) and e.op == "*" and not self.s.expr_active(e.left):
                e = e.right
            else:
                return src(e)

    def scaled_leaf(self, e):
        """Is e the differentiated scalar times passive factors (u, k * u, u / k, -u)?"""
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            return self.s.expr_active(e)
        if isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op in ("+", "-")):
            return self.scaled_leaf(e.expr)
        if isinstance(e, c_ast.BinaryOp) and e.op in ("*", "/"):
            la, ra = self.s.expr_active(e.left), self.s.expr_active(e.right)
            if la and not ra:
                return self.scaled_leaf(e.left)
            if ra and not la and e.op == "*":
                return self.scaled_leaf(e.right)
        return False

    def jet(self, e, uv, c=None):
        """c * (value, first, second derivative) of e with respect to u, as double expressions (ir);
        c is a passive double (a temporary's name) or None for 1. ZERO and ONE are exact (no
        0 * inf). The factor c is pushed down to where it is free (a passive operand, a numerator,
        the constants of a rule), and the arithmetic kept shallow (independent divisions, one
        reciprocal then products): in the smallest energies the latency of this chain shows next
        to the derivative lanes."""
        D = self.D
        if c == ONE:
            c = None
        if not self.s.expr_active(e):
            return D(jmul(c or ONE, self.dtemp(self.pexpr(e)))), ZERO, ZERO
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            return (uv, ONE, ZERO) if c is None else (D(jmul(c, uv)), c, ZERO)
        if isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op == "+"):
            return self.jet(e.expr, uv, c)
        if isinstance(e, c_ast.UnaryOp):  # '-'
            return self.jet(e.expr, uv, D(U("-", P(c))) if c is not None else D(N("-1.0")))
        if isinstance(e, c_ast.BinaryOp):
            la, ra = self.s.expr_active(e.left), self.s.expr_active(e.right)
            if e.op in ("+", "-"):
                f = jadd if e.op == "+" else jsub
                if c is None or all(self.s.expr_active(t) for _, t in self.terms(e)):
                    a, b = self.jet(e.left, uv, c), self.jet(e.right, uv, c)
                    return tuple(D(f(x, y)) for x, y in zip(a, b))
                # a sum with a constant term k: the factor after the sum, not c u - c k, which
                # loses the digits that u - k keeps where they nearly cancel (an energy near its
                # rest state: (l - L)^2, J - 1 - log J)
                a, b = self.jet(e.left, uv), self.jet(e.right, uv)
                return tuple(D(jmul(c or ONE, D(f(x, y)))) for x, y in zip(a, b))
            if e.op == "*" and not (la and ra):
                act, pas = (e.left, e.right) if la else (e.right, e.left)
                return self.jet(act, uv, D(jmul(c or ONE, P(self.pexpr(pas)))))
            if e.op == "/" and not ra:
                return self.jet(e.left, uv, D(B("/", c or L("1.0"), P(self.pexpr(e.right)))))
            if e.op == "/" and not la:  # k / b, k = c * (numerator): a function of b
                k = D(jmul(c or ONE, P(self.pexpr(e.left))))
                r = e.right
                if isinstance(r, c_ast.FuncCall) and isinstance(r.name, c_ast.ID) and r.name.name == "sqrt" and r.args and len(r.args.exprs) == 1:
                    # k / sqrt(a) = k a^{-1/2}: three independent divisions
                    a, ad, add = self.jet(r.args.exprs[0], uv)
                    f = D(call("sqrt", a))
                    af = D(B("*", a, f))
                    g0 = D(B("/", k, f))
                    g1 = D(B("/", D(B("*", N("-0.5"), k)), af))
                    g2 = D(B("/", D(B("*", L("0.75"), k)), P(B("*", a, af))))
                    return self.compose(g0, g1, g2, ad, add)
                m = self.monomial(r)
                if m is not None and m[1] <= 8:
                    # k / (q u^n) = K u^-n: the reciprocals of u^n and u (independent divisions),
                    # then one product to each derivative
                    n, K = m[1], D(B("/", k, P(m[0])))
                    un = uv
                    for _ in range(n - 1):
                        un = D(B("*", un, uv))
                    ipn, iu = D(B("/", L("1.0"), un)), D(B("/", L("1.0"), uv))
                    return (D(jmul(K, ipn)), D(jmul(D(jmul(D(B("*", N("%d.0" % -n), K)), iu)), ipn)),
                            D(jmul(D(jmul(D(B("*", N("%d.0" % (n * (n + 1))), K)), ipn)), D(jmul(iu, iu)))))
                b, bd, bdd = self.jet(r, uv)
                ib = D(B("/", L("1.0"), b))
                ib2 = D(B("*", ib, ib))
                g0 = D(jmul(k, ib))
                g1 = D(jmul(D(U("-", k)), ib2))
                g2 = D(jmul(D(jmul(D(B("*", L("2.0"), k)), ib)), ib2))
                return self.compose(g0, g1, g2, bd, bdd)
            av, ad, add = self.jet(e.left, uv, c)
            bv, bd, bdd = self.jet(e.right, uv)
            if e.op == "*" and self.active_core(e.left) == self.active_core(e.right):
                # (k a) a: the two product-rule terms are one, taken twice (d: 2 k a a', dd: 2 k (a a'' + a'^2))
                return (D(jmul(av, bv)), D(B("*", L("2.0"), D(jmul(ad, bv)))),
                        D(B("*", L("2.0"), P(jadd(jmul(add, bv), jmul(ad, bd))))))
            if e.op == "*":
                return (D(jmul(av, bv)), D(jadd(jmul(ad, bv), jmul(av, bd))),
                        D(jadd(jadd(jmul(add, bv), jmul(L("2.0"), ad, bd)), jmul(av, bdd))))
            # a / b, both functions of u: one reciprocal of b, then products
            ib = D(B("/", L("1.0"), bv))
            v = D(jmul(av, ib))
            d = D(jmulp(jsub(ad, jmul(v, bd)), ib))
            return v, d, D(jmulp(jsub(jsub(add, jmul(L("2.0"), d, bd)), jmul(v, bdd)), ib))
        name = e.name.name
        args = e.args.exprs
        a, ad, add = self.jet(args[0], uv)
        # g(a), g'(a), g''(a), times c where the rule has a constant to fold it into. A math.h call
        # comes after the arithmetic that does not need it: every xmm register is caller-saved, and
        # divisions issued before the call overlap with it (flip_barrier_tri's Hessian: 4%)
        if name == "log":
            b = a
            if self.scaled_leaf(args[0]):  # log(k u) = log k + log u: the derivatives of log u
                b, ad, add = uv, ONE, ZERO
            if c is None:
                g1 = D(B("/", L("1.0"), b))
                g2 = D(B("*", U("-", g1), g1))
                g0 = D(call("log", a))
            else:
                g1, g2 = D(B("/", c, b)), D(B("/", U("-", P(c)), P(B("*", b, b))))
                g0 = D(jmul(c, D(call("log", a))))
            return self.compose(g0, g1, g2, ad, add)
        if name == "sqrt":
            f = D(call("sqrt", a))
            k1, k2 = (D(B("*", L("0.5"), c)), D(B("*", N("-0.25"), c))) if c is not None else (L("0.5"), N("-0.25"))
            g0, g1, g2 = D(jmul(c or ONE, f)), D(B("/", k1, f)), D(B("/", k2, P(B("*", a, f))))
            return self.compose(g0, g1, g2, ad, add)
        if name == "exp":
            g0 = D(jmul(c or ONE, D(call("exp", a))))
            return self.compose(g0, g0, g0, ad, add)
        if name in ("sin", "cos"):
            s, co = D(call("sin", a)), D(call("cos", a))
            if name == "sin":
                g0, g1 = D(jmul(c or ONE, s)), D(jmul(c or ONE, co))
            else:
                g0, g1 = D(jmul(c or ONE, co)), D(jneg(jmul(c or ONE, s)))
            return self.compose(g0, g1, D(jneg(g0)), ad, add)
        if name == "pow":
            k = D(self.pexpr(args[1]))
            f, f1, f2 = D(call("pow", a, k)), D(B("*", k, call("pow", a, B("-", k, L("1.0"))))), D(prod(k, P(B("-", k, L("1.0"))), call("pow", a, B("-", k, L("2.0")))))
        elif name == "cbrt":
            f = D(call("cbrt", a))
            i3 = D(B("/", L("1.0"), P(B("*", L("3.0"), a))))
            f1 = D(B("*", f, i3))
            f2 = D(prod(N("-2.0"), f1, i3))
        elif name == "tan":
            f = D(call("tan", a))
            f1 = D(B("+", L("1.0"), B("*", f, f)))
            f2 = D(prod(L("2.0"), f, f1))
        elif name == "tanh":
            f = D(call("tanh", a))
            f1 = D(B("-", L("1.0"), B("*", f, f)))
            f2 = D(prod(N("-2.0"), f, f1))
        elif name in ("asin", "acos"):
            q = D(B("/", L("1.0"), P(B("-", L("1.0"), B("*", a, a)))))
            g1 = D(call("sqrt", q))
            g2 = D(prod(a, g1, q))
            f1, f2 = (g1, g2) if name == "asin" else (D(U("-", g1)), D(U("-", g2)))
            f = D(call(name, a))
        elif name == "atan":
            f1 = D(B("/", L("1.0"), P(B("+", L("1.0"), B("*", a, a)))))
            f2 = D(prod(N("-2.0"), a, f1, f1))
            f = D(call("atan", a))
        elif name == "fabs":
            f = D(call("fabs", a))
            f1 = D(ir.Cast("double", P(B("-", P(B(">", a, L("0.0"))), P(B("<", a, L("0.0")))))))
            f2 = ZERO
        elif name in JET1 or name in self.tr.rules:
            f, f1, f2 = self.rule_jet(name, a)
        else:  # pragma: no cover
            fail(e, "internal: no jet rule for %s" % name)
        if c is not None:
            f, f1, f2 = D(jmul(c, f)), D(jmul(c, f1)), D(jmul(c, f2))
        return self.compose(f, f1, f2, ad, add)

    # ------------------------------------------------------------ rules as table entries
    # f, f', f'' at the double a (C text) of the functions whose forward and adjoint rules are one
    # OP(chain1) (common.JET1): a math.h function here gets differentiated by an entry below. A
    # user's MFAD_DERIVATIVES(f, df, d2f) (mfad/energy.h) calls its three functions over doubles.
    JET_RULES = {  # name: (f(a), f'(a, f), f''(a, f, f1)) as IR double expressions
        "erf": (lambda a: call("erf", a), lambda a, f: B("*", L("1.1283791670955126"), call("exp", B("*", U("-", a), a))), lambda a, f, f1: prod(N("-2.0"), a, f1)),
        "erfc": (lambda a: call("erfc", a), lambda a, f: B("*", N("-1.1283791670955126"), call("exp", B("*", U("-", a), a))), lambda a, f, f1: prod(N("-2.0"), a, f1)),
        "expm1": (lambda a: call("expm1", a), lambda a, f: call("exp", a), lambda a, f, f1: f1),
        "log1p": (lambda a: call("log1p", a), lambda a, f: B("/", L("1.0"), P(B("+", L("1.0"), a))), lambda a, f, f1: B("*", U("-", f1), f1)),
        "sinh": (lambda a: call("sinh", a), lambda a, f: call("cosh", a), lambda a, f, f1: f),
        "cosh": (lambda a: call("cosh", a), lambda a, f: call("sinh", a), lambda a, f, f1: f),
        "lgamma": (lambda a: call("lgamma", a), lambda a, f: call("mfad_digamma", a), lambda a, f, f1: call("mfad_trigamma", a)),
    }

    def rule_fn(self, g):
        """The user's function g over doubles in this flavor (a passive helper), as an ir.Fn."""
        return self.tr.spec(self.tr.function(g), (False,), self.s.flavor).fn_ref

    def rule_jet(self, name, a):
        """(f, f', f'') of name at the double a, as temporaries."""
        D = self.D
        if name in self.tr.rules:
            return tuple(D(ir.Call(self.rule_fn(g), [a])) for g in (name,) + tuple(self.tr.rules[name]))
        t0, t1, t2 = self.JET_RULES[name]
        f = D(t0(a))
        f1 = D(t1(a, f))
        e2 = t2(a, f, f1)
        return f, f1, (e2 if e2 is f or e2 is f1 else D(e2))

    def chain_call(self, e, name, arg, dest, scale):
        """scale * name(arg), arg a differentiated value built from several: its jet at arg's value, one OP(chain1)."""
        a = self.aexpr(arg)
        f, f1, f2 = self.rule_jet(name, self.dtemp(ir.Val(a)))
        if scale is not None:
            k = self.dtemp(scale)
            f, f1, f2 = self.D(jmul(k, f)), self.D(jmul(k, f1)), self.D(jmul(k, f2))
        r = self.target(dest, a)
        self.pre.append(ir.Op("chain1", [ir.Addr(r), ir.Addr(a), f, f1, f2]))
        if r != a:
            self.release(a)
        return r
