# SPDX-License-Identifier: BSD-2-Clause
"""Forward emission, part 2: expressions that carry derivatives, reduced to OP() calls (sums, products,
in-place updates, the numerical-stability rewrites)."""
from pycparser import c_ast

from . import ir
from .common import JET1, MATH1, MATH2, PASSIVE_MATH, fail, src


class ActiveExpressions:
    """Emitter methods for active expressions (see emit_forward.Emitter)."""

    # ------------------------------------------------------------ active expressions
    # aexpr(e, dest, scale) emits scale * e (scale a passive ir.Expr or None for 1) into dest
    # or a temporary and returns its lvalue (ir.Name, ir.Index or ir.Deref). Passive factors are pushed down to where they cost
    # nothing (the constants of a chain rule, the coefficient of a sum's term), and every subtree
    # that depends on one differentiated scalar u is evaluated in double with its first and second
    # derivatives and applied as one chain rule OP(chain1): f(u) for any f built from + - * / and
    # math.h functions costs one operation on the derivative lanes.

    def release(self, *names):
        for n in names:
            if n in self.temps and n not in self.free:
                self.free.append(n)

    def target(self, dest, *reuse):
        """Where a result goes: dest, else a temporary operand (freed by this op), else a new temporary."""
        if dest is not None:
            return dest
        for r in reuse:
            if r in self.temps and r not in self.free:
                return r
        return self.temp()

    def scaled(self, a, scale, dest):
        """scale * a into dest (or in place when a is a temporary)."""
        if scale is None:
            if dest is not None and dest != a:
                self.pre.append(ir.Op("copy", [ir.Addr(dest), ir.Addr(a)]))
                self.release(a)
                return dest
            return a
        r = self.target(dest, a)
        self.pre.append(ir.Op("muls", [ir.Addr(r), ir.Addr(a), scale]))
        if r != a:
            self.release(a)
        return r

    @staticmethod
    def mulscale(scale, s):
        if scale is None:
            return s
        return ir.Bin("*", ir.Paren(scale), ir.Paren(s))

    def reads(self, e, text):
        """Does e read the variable that the lvalue `text` writes (so it must not be written early)?"""
        while isinstance(text, (ir.Index, ir.Deref)):
            text = text.base if isinstance(text, ir.Index) else text.e
        base = text
        found = [False]

        def walk(n):
            if isinstance(n, c_ast.ID):
                v = self.var(n)
                vn = self.vname(v) if v is not None else None
                if v is not None and (v.name == base or (vn.e if isinstance(vn, ir.Deref) else vn) == base):
                    found[0] = True
            for _, ch in n.children():
                walk(ch)

        walk(e)
        return found[0]

    # elementary operations of include/mfad/impl/ad.h: safe when the output aliases an input
    IN_PLACE = {"add", "sub", "mul", "div", "sqr", "muls", "adds", "neg", "copy", "set", "chain1", "chain2"}

    def aexpr(self, e, dest=None, scale=None):
        if dest is not None and self.reads(e, dest):
            r = self.aexpr(e, None, scale)
            last = self.pre[-1] if self.pre else None
            if r in self.temps and isinstance(last, ir.Op) and last.name in self.IN_PLACE and len(last.args) > 1 and last.args[0] == "&" + r:
                # the last operation wrote r: let it write dest instead (every AD operation may
                # write an input, include/mfad/impl/ad.h), a += b as one operation, not one and a copy
                last.args[0] = ir.Addr(dest)
                if r == self.temps[-1] and not any(r in t.names() for t in self.pre):
                    self.temps.pop()
                else:
                    self.release(r)
                return dest
            self.pre.append(ir.Op("copy", [ir.Addr(dest), ir.Addr(r)]))
            self.release(r)
            return dest
        if not self.s.expr_active(e):
            r = self.target(dest)
            val = self.pexpr(e)
            self.pre.append(ir.Op("set", [ir.Addr(r), val if scale is None else self.mulscale(scale, val)]))
            return r
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            v, text = self.lvalue(e)
            return self.scaled(text, scale, dest)
        if isinstance(e, c_ast.Cast):
            return self.aexpr(e.expr, dest, scale)
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "+":
                return self.aexpr(e.expr, dest, scale)
            if e.op == "-":  # a factor -1 like any other: free in a sum's terms or a chain rule
                return self.aexpr(e.expr, dest, ir.num("-1.0") if scale is None else ir.Un("-", ir.Paren(scale)))
            fail(e, "operator '%s' on a differentiated value" % e.op)
        u = self.univariate(e)
        if u is not None and not isinstance(e, (c_ast.ID, c_ast.ArrayRef)) and self.nonlinear(e):
            return self.fused(e, u, dest, scale)
        if isinstance(e, c_ast.BinaryOp):
            la, ra = self.s.expr_active(e.left), self.s.expr_active(e.right)
            if e.op in ("+", "-"):
                return self.sum(e, dest, scale)
            if e.op == "*" and not (la and ra):
                act, pas = (e.left, e.right) if la else (e.right, e.left)
                return self.aexpr(act, dest, self.mulscale(scale, self.pexpr(pas)))
            if e.op == "/" and la and not ra:
                return self.aexpr(e.left, dest, self.mulscale(scale, ir.Bin("/", ir.Lit("1.0"), ir.Paren(self.pexpr(e.right)))))
            if la and ra:
                a = self.aexpr(e.left)
                b = self.aexpr(e.right)
                if e.op == "*" and scale is not None:  # (s a) b: the scale rides on a temporary operand for free
                    pass
                r = self.target(dest if scale is None else None, a, b)
                if e.op == "*" and a == b:
                    self.pre.append(ir.Op("sqr", [ir.Addr(r), ir.Addr(a)]))
                else:
                    self.pre.append(ir.Op({"*": "mul", "/": "div"}[e.op], [ir.Addr(r), ir.Addr(a), ir.Addr(b)]))
                self.release(*[t for t in (a, b) if t != r])
                return self.scaled(r, scale, dest)
            # s / b through the chain rule: f = s/b, f' = -s/b^2, f'' = 2s/b^3
            s = self.pexpr(e.left) if scale is None else self.mulscale(scale, self.pexpr(e.left))
            b = self.aexpr(e.right)
            sv, ib = self.dtemp(s), self.dtemp(ir.Bin("/", ir.Lit("1.0"), ir.Val(b)))
            r = self.target(dest, b)
            prod = lambda *xs: xs[0] if len(xs) == 1 else ir.Bin("*", prod(*xs[:-1]), xs[-1])  # noqa: E731
            self.pre.append(ir.Op("chain1", [ir.Addr(r), ir.Addr(b), prod(sv, ib), prod(ir.Un("-", sv), ib, ib), prod(ir.Lit("2.0"), sv, ib, ib, ib)]))
            if r != b:
                self.release(b)
            return r
        if isinstance(e, c_ast.TernaryOp):
            c = self.pexpr(e.cond, True)
            r = self.target(dest)
            saved = self.pre
            self.pre = []
            self.aexpr(e.iftrue, r, scale)
            t_code = self.pre
            self.pre = []
            self.aexpr(e.iffalse, r, scale)
            f_code = self.pre
            self.pre = saved
            self.pre.append(ir.IfS(c, t_code, f_code))
            return r
        if isinstance(e, c_ast.FuncCall):
            name = self.call_name(e)
            args = e.args.exprs if e.args else []
            act = [self.s.expr_active(a) for a in args]
            if (name in JET1 or name in self.tr.rules) and len(args) == 1:
                return self.chain_call(e, name, args[0], dest, scale)
            if name in MATH1:
                if len(args) != 1:
                    fail(e, "%s() takes one argument" % name)
                a = self.aexpr(args[0])
                r = self.target(dest if scale is None else None, a)
                self.pre.append(ir.Op(MATH1[name], [ir.Addr(r), ir.Addr(a)]))
                if r != a:
                    self.release(a)
                return self.scaled(r, scale, dest)
            if name == "pow":
                if len(args) != 2:
                    fail(e, "pow() takes two arguments")
                if act[0] and not act[1]:
                    a = self.aexpr(args[0])
                    r = self.target(dest if scale is None else None, a)
                    self.pre.append(ir.Op("pow", [ir.Addr(r), ir.Addr(a), self.pexpr(args[1])]))
                    if r != a:
                        self.release(a)
                elif act[1] and not act[0]:
                    b = self.aexpr(args[1])
                    r = self.target(dest if scale is None else None, b)
                    self.pre.append(ir.Op("powd", [ir.Addr(r), self.pexpr(args[0]), ir.Addr(b)]))
                    if r != b:
                        self.release(b)
                else:
                    a, b = self.aexpr(args[0]), self.aexpr(args[1])
                    r = self.target(dest if scale is None else None, a, b)
                    self.pre.append(ir.Op("pow2", [ir.Addr(r), ir.Addr(a), ir.Addr(b)]))
                    self.release(*[t for t in (a, b) if t != r])
                return self.scaled(r, scale, dest)
            if name in MATH2:
                if len(args) != 2:
                    fail(e, "%s() takes two arguments" % name)
                a, b = self.aexpr(args[0]), self.aexpr(args[1])  # a constant operand becomes a number without derivatives
                r = self.target(dest if scale is None else None, a, b)
                self.pre.append(ir.Op(MATH2[name], [ir.Addr(r), ir.Addr(a), ir.Addr(b)]))
                self.release(*[t for t in (a, b) if t != r])
                return self.scaled(r, scale, dest)
            if name in PASSIVE_MATH:
                fail(e, "'%s' of a differentiated value: mfad has no derivative rule for %s()" % (src(e), name))
            callee = self.tr.callee_spec(self.s, e)
            if callee.fn.ret == "void":
                fail(e, "'%s' returns nothing: its value cannot be used" % callee.fn.name)
            r = self.target(dest if scale is None else None)
            self.emit_call(e, callee, ir.Addr(r))
            return self.scaled(r, scale, dest)
        if isinstance(e, c_ast.Assignment):
            fail(e, "assignment inside an expression: write it as its own statement")
        fail(e, "'%s' is not supported on a differentiated value" % src(e))

    def terms(self, e, sign=1):
        """A +/- chain as (sign, node) terms."""
        if isinstance(e, c_ast.BinaryOp) and e.op in ("+", "-"):
            return self.terms(e.left, sign) + self.terms(e.right, sign if e.op == "+" else -sign)
        if isinstance(e, c_ast.UnaryOp) and e.op == "-":
            return self.terms(e.expr, -sign)
        if isinstance(e, c_ast.UnaryOp) and e.op == "+":
            return self.terms(e.expr, sign)
        return [(sign, e)]

    def sum(self, e, dest, scale):
        terms = self.terms(e)
        passive = [(sg, t) for sg, t in terms if not self.s.expr_active(t)]
        active = [(sg, t) for sg, t in terms if self.s.expr_active(t)]
        # terms that depend on the same one scalar become one chain rule
        groups, rest = {}, []
        for sg, t in active:
            u = self.univariate(t)
            if u is not None:
                groups.setdefault(u, []).append((sg, t))
            else:
                rest.append((sg, t))
        for u in list(groups):
            if len(groups[u]) == 1 and not self.nonlinear(groups[u][0][1]):
                rest.append(groups.pop(u)[0])
        if scale is not None and any(not self.absorbs(t) for _, t in rest):
            # a term would need a multiplication of its own: one for the whole sum instead
            return self.scaled(self.sum(e, None, None), scale, dest)
        parts = []  # (sign, lvalue)
        for u, g in groups.items():
            node = g[0][1] if g[0][0] > 0 else c_ast.UnaryOp("-", g[0][1], g[0][1].coord)
            for sg, t in g[1:]:
                node = c_ast.BinaryOp("+" if sg > 0 else "-", node, t, t.coord)
            parts.append((1, self.fused(node, u, None, scale)))
        for sg, t in rest:
            if scale is not None:
                parts.append((1, self.aexpr(t, None, scale if sg > 0 else ir.Un("-", ir.Paren(scale)))))
            else:
                parts.append((sg, self.aexpr(t)))
        parts.sort(key=lambda p: -p[0])  # a positive term first: no negation needed
        r = None
        if parts[0][0] < 0:  # every term negative
            a = parts[0][1]
            r = self.target(dest, a)
            self.pre.append(ir.Op("neg", [ir.Addr(r), ir.Addr(a)]))
            if r != a:
                self.release(a)
            parts = [(1, r)] + parts[1:]
        if len(parts) == 1:
            acc = parts[0][1]
        else:
            a = parts[0][1]
            for sg, b in parts[1:]:
                r = self.target(dest, a, b)
                self.pre.append(ir.Op("add" if sg > 0 else "sub", [ir.Addr(r), ir.Addr(a), ir.Addr(b)]))
                self.release(*[t for t in (a, b) if t != r])
                a = r
            acc = a
        if passive:
            # -(c), not 0.0 - (c): the compiler may fold a negation but not a subtraction from +0
            c = None
            for sg, t in passive:
                pt = ir.Paren(self.pexpr(t))
                c = (ir.Un("-", pt) if sg < 0 else pt) if c is None else ir.Bin("+" if sg > 0 else "-", c, pt)
            c = ir.Paren(c)
            r = self.target(dest, acc)
            self.pre.append(ir.Op("adds", [ir.Addr(r), ir.Addr(acc), c if scale is None else self.mulscale(scale, c)]))
            if r != acc:
                self.release(acc)
            acc = r
        return self.scaled(acc, None, dest)

    def absorbs(self, e):
        """Does scale * e cost no more operations than e? (The scale joins a chain rule's constants
        or a product's passive factor; a variable or a product of two differentiated values needs
        a multiplication of its own.)"""
        if not self.s.expr_active(e):
            return True
        if isinstance(e, c_ast.UnaryOp) and e.op == "-":
            return True  # a factor -1 already
        if isinstance(e, c_ast.Cast) or (isinstance(e, c_ast.UnaryOp) and e.op == "+"):
            return self.absorbs(e.expr)
        if isinstance(e, c_ast.BinaryOp):
            if e.op in ("+", "-"):
                return all(self.absorbs(t) for _, t in self.terms(e))
            la, ra = self.s.expr_active(e.left), self.s.expr_active(e.right)
            if (e.op == "*" and not (la and ra)) or (e.op == "/" and not ra):
                return True
        return self.univariate(e) is not None and self.nonlinear(e)
