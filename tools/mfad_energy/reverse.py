# SPDX-License-Identifier: BSD-2-Clause
"""Reverse emission: the adjoint sweep of the energy's forward body (forward-over-reverse)."""
import copy
import re

from pycparser import c_ast, c_generator, c_parser

from .common import src


# ---------------------------------------------------------------- forward-over-reverse at the features
# The energy's emitted body (OP() calls on T numbers, passive doubles, value branches, loops of
# constant bounds) run once forward and then backwards as an adjoint sweep: over T = double its
# adjoint is the gradient, over T = mfad_dual (value, tangent along B v) its adjoint's tangent is
# H_F B v: one tangent where forward-over-forward carries M gradient lanes. The adjoint rules are
# ADJ(op) of include/mfad/impl/ad_reverse.h; each reads copies of its op's inputs, so an op may
# overwrite an input. Loops are unrolled (their bounds are constants), branches on values are
# recorded forward and taken again backwards. A body this does not cover (helpers over numbers,
# loops of other bounds, other ops) keeps forward-over-forward: the energy has no reverse body.
REV_OPS = {  # op: result kind, then argument kinds (s: a T number, a: T array, p: a double, n: an int)
    "set": "sp", "copy": "ss", "neg": "ss", "add": "sss", "sub": "sss", "adds": "ssp", "muls": "ssp",
    "mul": "sss", "div": "sss", "sqr": "ss", "chain1": "ssppp", "det2": "sa", "det3": "sa",
    "dot3": "saa", "frob2": "san", "tmatmul": "aaan", "cross3": "aaa", "norm3": "sa", "atan2": "sss", "sqrt": "ss",
}
REV_LEN = {"det2": lambda n: 4, "det3": lambda n: 9, "dot3": lambda n: 3, "cross3": lambda n: 3, "norm3": lambda n: 3, "frob2": lambda n: n, "tmatmul": lambda n: n * n}


class NoReverse(Exception):
    """Why the body has no adjoint sweep; coord: the user's construct that prevents it (None: unknown)."""

    def __init__(self, msg, coord=None):
        super().__init__(msg)
        self.coord = coord


class Reverser:
    def __init__(self, lines, coords=None):
        """lines: the forward body's C lines; coords: the user's position of each (for messages)."""
        kept = [(c, t) for c, t in zip(coords or [None] * len(lines), lines) if not t.lstrip().startswith("#")]
        self.line_coord = [None, None]  # the parsed line (after the one-line typedef of T) -> the user's position
        for c, t in kept:
            self.line_coord += [c] * (t.count("\n") + 1)
        self.where = None  # the statement being reversed
        text = "\n".join(t for _, t in kept)
        text = re.sub(r"\bMFAD_(NO_)?UNROLL(_HESS)?\b", "", text)
        # helpers over numbers (MFAD_ENERGY_HELPER functions before the body) are inlined at their
        # calls; the newlines stay, so that a parsed line is the same line of the emitted text
        text = re.sub(r"\bMFAD_ENERGY_HELPER\s+", lambda h: "\n" * h.group(0).count("\n"), re.sub(r"\bMFAD_FN\((\w+)\)", r"\1", text))
        m = re.search(r"\bMFAD_ENERGY_BODY\((\w+), (\w+), (\w+)\)", text)
        if not m or text.count("MFAD_ENERGY_BODY") != 1:
            raise NoReverse("not one body")
        self.x, self.p, self.E = m.groups()
        src = "typedef double T;\n%svoid f(T *%s, const double *%s, T *%s)%s" % (text[: m.start()], self.x, self.p, self.E, text[m.end():])
        try:
            ext = c_parser.CParser().parse(src, "<body>").ext
        except Exception as e:
            raise NoReverse("parse: %s" % e)
        self.ast = ext[-1]
        self.helpers = {f.decl.name: f for f in ext[:-1] if isinstance(f, c_ast.FuncDef)}
        self.decls, self.used, self.scopes = [], {self.x, self.p, self.E}, []
        self.svars, self.arrays, self.nsave, self.nb = [], {}, 0, 0
        self.in_branch = self.in_loop = 0  # inside a recorded branch, an unrolled loop (save)
        rv = self

        class Gen(c_generator.CGenerator):
            def visit_ID(g, n):  # a helper in an expression is over doubles: its value pass's (mfad/impl/instantiate.h)
                return "%s_val" % n.name if n.name in rv.helpers else str(rv.look(n.name))
        self.gen = Gen()

    # names: every declaration gets a function-wide unique name and moves to the top; a loop
    # index is a constant in its unrolled body
    def unique(self, name):
        n, k = name, 0
        while n in self.used:
            k += 1
            n = "%s_%d" % (name, k)
        self.used.add(n)
        return n

    def look(self, name):
        if name.startswith("@"):  # a caller's name, resolved before a helper was inlined
            return name[1:]
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return name

    def expr(self, node):
        return self.gen.visit(node)

    def const(self, node):
        t = self.expr(node)
        if not re.match(r"^[0-9+\-*/%() ]+$", t):
            raise NoReverse("not a constant: %s" % t)
        return int(eval(t.replace("/", "//")))

    def array(self, name):
        """The T array called name here: (its text, its adjoint's text, entries or None for x)"""
        n = self.look(name)
        if n == self.x:
            return n, "_mfad_ax", None
        if n in self.arrays:
            return n, "_mfad_a_" + n, self.arrays[n]
        raise NoReverse("array %s" % name)

    def operand(self, node, kind):
        """(forward text, adjoint text, array name or None, offset) of an OP() argument."""
        if kind in "pn":
            return self.expr(node), None, None, 0
        if kind == "a":
            if isinstance(node, c_ast.ID):
                v, av, _ = self.array(node.name)
                return v, av, v, 0
            if isinstance(node, c_ast.UnaryOp) and node.op == "&" and isinstance(node.expr, c_ast.ArrayRef) and isinstance(node.expr.name, c_ast.ID):
                v, av, _ = self.array(node.expr.name.name)
                k = self.const(node.expr.subscript)
                return "&%s[%d]" % (v, k), "&%s[%d]" % (av, k), v, k
            raise NoReverse("array argument %s" % self.expr(node))
        if not (isinstance(node, c_ast.UnaryOp) and node.op == "&"):
            raise NoReverse("number argument not &name")
        e = node.expr
        if isinstance(e, c_ast.UnaryOp) and e.op == "*" and isinstance(e.expr, c_ast.ID) and e.expr.name == self.E:
            return "(*%s)" % self.E, "_mfad_aE", None, 0
        if isinstance(e, c_ast.ID) and self.look(e.name) in self.svars:
            n = self.look(e.name)
            return n, "_mfad_a_" + n, None, 0
        if isinstance(e, c_ast.ArrayRef) and isinstance(e.name, c_ast.ID):
            v, av, size = self.array(e.name.name)
            k = self.const(e.subscript)
            if size is not None and not 0 <= k < size:
                raise NoReverse("index %d of %s" % (k, v))
            return "%s[%d]" % (v, k), "%s[%d]" % (av, k), None, 0
        raise NoReverse("number argument %s" % self.expr(e))

    def opcall(self, node):
        """OP(name)(args) -> name, args; None for anything else."""
        if isinstance(node, c_ast.FuncCall) and isinstance(node.name, c_ast.FuncCall) and isinstance(node.name.name, c_ast.ID) and node.name.name.name == "OP":
            return node.name.args.exprs[0].name, list(node.args.exprs) if node.args else []
        return None

    def guard(self, s):
        """A branch that ends the energy: [OP(set)(E, c);] return; (the value at a wall)"""
        items = (s.block_items if isinstance(s, c_ast.Compound) else [s]) or []
        if not items or not isinstance(items[-1], c_ast.Return):
            return None
        fwd = []
        for it in items[:-1]:
            oc = self.opcall(it)
            if not oc or oc[0] != "set" or self.operand(oc[1][0], "s")[1] != "_mfad_aE":
                raise NoReverse("a branch that returns does more than set the energy")
            fwd.append("OP(set)(&(*%s), %s);" % (self.E, self.expr(oc[1][1])))
        return fwd + ["return;"]

    def block(self, items, fwd, rev, top=False):
        """Forward statements into fwd; the reverse sweep's statements, in forward order, into rev."""
        self.scopes.append({})
        for i, s in enumerate(items or []):
            self.stmt(s, fwd, rev, top and i == len(items) - 1)
        self.scopes.pop()

    def loop(self, s, fwd, rev):
        init, cond, nxt = s.init, s.cond, s.next
        if not (isinstance(init, c_ast.DeclList) and len(init.decls) == 1 and init.decls[0].init is not None):
            raise NoReverse("loop header")
        i = init.decls[0].name
        lo = self.const(init.decls[0].init)
        if not (isinstance(cond, c_ast.BinaryOp) and cond.op == "<" and isinstance(cond.left, c_ast.ID) and cond.left.name == i):
            raise NoReverse("loop condition")
        hi = self.const(cond.right)
        if not (isinstance(nxt, c_ast.UnaryOp) and nxt.op in ("p++", "++") and isinstance(nxt.expr, c_ast.ID) and nxt.expr.name == i):
            raise NoReverse("loop increment")
        if hi - lo > 64:
            raise NoReverse("loop of %d rounds" % (hi - lo))
        body = s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]
        self.in_loop += 1
        for k in range(lo, hi):
            self.scopes.append({i: k})
            self.block(body, fwd, rev)
            self.scopes.pop()
        self.in_loop -= 1

    def declare(self, s):
        base, dims = s.type, []
        while isinstance(base, c_ast.ArrayDecl):
            dims.append(self.const(base.dim))
            base = base.type
        tname = base.type.names if isinstance(base, c_ast.TypeDecl) and isinstance(base.type, c_ast.IdentifierType) else None
        if tname == ["int"] and not dims and "const" in s.quals and s.init is not None:
            try:  # a const int of the loop indices (a corner k + 1 mod 3): a constant in this body
                self.scopes[-1][s.name] = self.const(s.init)
                return None
            except NoReverse:
                pass
        n = self.unique(s.name)
        self.scopes[-1][s.name] = n
        if tname == ["T"]:
            if s.init is not None:
                raise NoReverse("initialised number")
            if len(dims) > 1:
                raise NoReverse("array of arrays")
            if dims:
                self.arrays[n] = dims[0]
                self.decls.append("T %s[%d];" % (n, dims[0]))
            else:
                self.svars.append(n)
                self.decls.append("T %s;" % n)
            return None
        if tname in (["double"], ["int"]) and dims and isinstance(s.init, c_ast.InitList) and "const" in s.quals:
            # a table of constants (a file-scope static const, lower.py)
            def init(i):
                return "{%s}" % ", ".join(init(j) for j in i.exprs) if isinstance(i, c_ast.InitList) else self.expr(i)
            self.decls.append("const %s %s%s = %s;" % (tname[0], n, "".join("[%d]" % k for k in dims), init(s.init)))
            return None
        if tname in (["double"], ["int"]) and not dims:
            self.decls.append("%s %s;" % (tname[0], n))
            return "%s = %s;" % (n, self.expr(s.init)) if s.init is not None else None
        raise NoReverse("declaration of %s" % s.name)

    def stmt(self, s, fwd, rev, last):
        if s.coord is not None and 0 <= s.coord.line < len(self.line_coord):
            self.where = self.line_coord[s.coord.line] or self.where
        if isinstance(s, c_ast.Compound):
            items = s.block_items or []
            if last and items and isinstance(items[-1], c_ast.Return):
                items = items[:-1]
            self.block(items, fwd, rev)
            return
        if isinstance(s, c_ast.Return):
            if last:
                return
            raise NoReverse("return before the end")
        if isinstance(s, c_ast.Decl):
            t = self.declare(s)
            if t:
                fwd.append(t)
            return
        if isinstance(s, c_ast.For):
            if self.passive(s):  # doubles only (an iteration on values): as it is, run forward
                inner = {}

                class D(c_ast.NodeVisitor):
                    def visit_Decl(v, d):
                        inner[d.name] = d.name
                        v.generic_visit(d)
                D().visit(s)
                self.scopes.append(inner)
                fwd.append(self.expr(s).replace("\n", " "))
                self.scopes.pop()
                return
            self.loop(s, fwd, rev)
            return
        if isinstance(s, c_ast.If):
            g = self.guard(s.iftrue)
            if g is not None:
                if s.iffalse is not None:
                    raise NoReverse("guard with else")
                fwd.append("if (%s) { %s }" % (self.expr(s.cond), " ".join(g)))
                return
            b = self.unique("_mfad_b%d" % self.nb)
            self.nb += 1
            self.decls.append("int %s;" % b)
            fwd.append("%s = (%s);" % (b, self.expr(s.cond)))
            parts = []
            for branch in (s.iftrue, s.iffalse):
                f2, r2 = [], []
                if branch is not None:
                    self.in_branch += 1
                    self.block(branch.block_items if isinstance(branch, c_ast.Compound) else [branch], f2, r2)
                    self.in_branch -= 1
                parts.append((f2, r2))
            fwd.append("if (%s) { %s } else { %s }" % (b, " ".join(parts[0][0]), " ".join(parts[1][0])))
            rev.append(("if", b, parts[0][1], parts[1][1]))
            return
        if isinstance(s, c_ast.Assignment) and isinstance(s.lvalue, c_ast.ID) and self.look(s.lvalue.name) not in self.svars and self.look(s.lvalue.name) not in self.arrays:
            fwd.append(self.expr(s) + ";")
            return
        if isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) and s.name.name in self.helpers:
            self.inline(s, fwd, rev)
            return
        oc = self.opcall(s)
        if oc is None:
            raise NoReverse("statement %s" % type(s).__name__)
        self.op(oc[0], oc[1], fwd, rev)

    def inline(self, call, fwd, rev):
        """A helper over numbers, inlined: its parameters become the call's arguments (resolved in
        the caller's scope), returns at its end are dropped; any other return refuses."""
        fn = self.helpers[call.name.name]
        params = [d.name for d in (fn.decl.type.args.params if fn.decl.type.args else [])]
        args = list(call.args.exprs) if call.args else []
        if len(params) != len(args):
            raise NoReverse("call of %s" % call.name.name)
        rv = self

        def resolve(node):
            node = copy.deepcopy(node)

            class R(c_ast.NodeVisitor):
                def visit_ID(v, n):
                    if n.name in rv.helpers:
                        return
                    r = rv.look(n.name)
                    n.name = str(r) if isinstance(r, int) else "@" + r
            R().visit(node)
            return node
        sub = dict(zip(params, (resolve(a) for a in args)))

        class S(c_ast.NodeVisitor):  # parameters -> arguments; *&a -> a; (&a[k])[i] -> a[k + i]
            def generic_visit(v, node):
                for name, child in node.children():
                    new = v.visit(child)
                    if new is not child:
                        attr = re.match(r"(\w+)(\[(\d+)\])?", name)
                        if attr.group(2):
                            getattr(node, attr.group(1))[int(attr.group(3))] = new
                        else:
                            setattr(node, attr.group(1), new)
                return node

            def visit_ID(v, n):
                return copy.deepcopy(sub[n.name]) if n.name in sub else n

            def visit_UnaryOp(v, n):
                n = v.generic_visit(n)
                if n.op == "*" and isinstance(n.expr, c_ast.UnaryOp) and n.expr.op == "&":
                    return n.expr.expr
                return n

            def visit_ArrayRef(v, n):
                n = v.generic_visit(n)
                if isinstance(n.name, c_ast.UnaryOp) and n.name.op == "&" and isinstance(n.name.expr, c_ast.ArrayRef):
                    return c_ast.ArrayRef(n.name.expr.name, c_ast.BinaryOp("+", n.name.expr.subscript, n.subscript))
                return n
        body = S().visit(copy.deepcopy(fn.body))

        def tail(items):  # drop the returns that end the helper anyway
            items = list(items or [])
            while items and isinstance(items[-1], c_ast.Return) and items[-1].expr is None:
                items.pop()
            if items and isinstance(items[-1], c_ast.Compound):
                items[-1] = c_ast.Compound(tail(items[-1].block_items))
            elif items and isinstance(items[-1], c_ast.If):
                s = items[-1]
                br = [c_ast.Compound(tail(b.block_items if isinstance(b, c_ast.Compound) else [b])) if b is not None else None for b in (s.iftrue, s.iffalse)]
                items[-1] = c_ast.If(s.cond, br[0], br[1])
            return items
        items = tail(body.block_items)

        class Ret(c_ast.NodeVisitor):
            def visit_Return(v, n):
                raise NoReverse("a return inside %s" % call.name.name)
        for it in items:
            Ret().visit(it)
        self.block(items, fwd, rev)

    def passive(self, s):
        """No operation on numbers in s (it may read their values)."""
        ops = []

        class C(c_ast.NodeVisitor):
            def visit_FuncCall(v, c):
                oc = self.opcall(c)
                if oc and oc[0] != "val":
                    ops.append(oc[0])
                v.generic_visit(c)
        C().visit(s)
        return not ops

    def save(self, decl, text, fwd):
        k = "_mfad_v%d" % self.nsave
        self.nsave += 1
        d = decl % k
        if self.in_branch > 1 or (self.in_branch and self.in_loop):
            # saved and read back under the same recorded branch, nested in another or in an unrolled
            # loop (a switch, a while loop: lower.py): gcc -O3 loses track of that and warns
            # (-Wmaybe-uninitialized); a single branch (energies/mass_spring.c) it follows
            m = re.match(r"T \w+\[(\d+)\];$", d)
            d = d[:-1] + " = 0.0;" if d.startswith("double ") else d + (" for (int _mfad_i = 0; _mfad_i < %s; _mfad_i++) OP(zero)(&%s[_mfad_i]);" % (m.group(1), k) if m else " OP(zero)(&%s);" % k)
        self.decls.append(d)
        fwd.append(text % k)
        return k

    def op(self, op, args, fwd, rev):
        if op in ("dot3", "mul") and len(args) == 3 and self.expr(args[1]) == self.expr(args[2]):
            # a . a and a a: the same forward arithmetic, and an adjoint that takes 2 g once
            op, args = ("frob2", args[:2] + [c_ast.Constant("int", "3")]) if op == "dot3" else ("sqr", args[:2])
        kinds = REV_OPS.get(op)
        if kinds is None or len(args) != len(kinds):
            raise NoReverse("op %s" % op)
        n = self.const(args[kinds.index("n")]) if "n" in kinds else 0
        length = REV_LEN[op](n) if op in REV_LEN else 0
        res = self.operand(args[0], kinds[0])
        fwd_args, adj, saved = [res[0] if kinds[0] == "a" else "&" + res[0]], [], []
        for a, kind in zip(args[1:], kinds[1:]):
            v, av, arr, off = self.operand(a, kind)
            fwd_args.append(v if kind != "s" else "&" + v)
            if kind in ("s", "a"):
                adj.append("&" + av if kind == "s" else av)
            if kind in self.UNREAD.get(op, ""):
                continue  # the rule does not take this input: nothing saved
            if kind == "s":
                saved.append("&" + self.save("T %s;", "%%s = %s;" % v, fwd))
            elif kind == "a":
                if arr == self.x:  # the input is never written
                    saved.append(v)
                else:
                    saved.append(self.save("T %%s[%d];" % length, "for (int _mfad_i = 0; _mfad_i < %d; _mfad_i++) %%s[_mfad_i] = (%s)[_mfad_i];" % (length, v), fwd))
            elif kind == "p":
                saved.append(self.save("double %s;", "%%s = %s;" % v, fwd))
            else:
                saved.append(v)
        fwd.append("OP(%s)(%s);" % (op, ", ".join(fwd_args)))
        if kinds[0] == "a" and res[2] == self.x:
            raise NoReverse("the input written")
        rev.append(("op", op, res[1], kinds[0] == "a", length, adj, saved))

    LINEAR = {"set", "copy", "neg", "add", "sub", "adds", "muls"}
    # the input kinds a rule does not read (ADJ(op) takes no copy of them)
    UNREAD = {"set": "p", "copy": "s", "neg": "s", "add": "s", "sub": "s", "adds": "sp", "muls": "s"}

    @staticmethod
    def base(adj):
        return re.sub(r"\[.*", "", adj.lstrip("&"))

    def zero_tangent(self, rev):
        """Adjoints whose tangent is zero (over dual numbers): reached from E's seed 1 through
        linear operations only. A rule whose result adjoint g is one of them takes g's value
        (ADJ(op_s)): products with a zero tangent are not folded by the compiler (0 x is not 0
        for x = inf)."""
        entries, stack = [], [rev]
        while stack:
            for e in stack.pop():
                if e[0] == "if":
                    stack += [e[2], e[3]]
                else:
                    entries.append(e)
        passive = {"_mfad_aE": True}
        for _, op, ra, arr, _, adj, _ in entries:
            passive.setdefault(self.base(ra), not arr)
            for a in adj:
                passive.setdefault(self.base(a), not (self.base(a) == "_mfad_ax" or self.base(a)[len("_mfad_a_"):] in self.arrays))
        changed = True
        while changed:
            changed = False
            for _, op, ra, arr, _, adj, _ in entries:
                if passive[self.base(ra)] and op in self.LINEAR:
                    continue
                for a in adj:
                    if passive[self.base(a)]:
                        passive[self.base(a)] = False
                        changed = True
        return passive

    def render(self, rev, passive):
        """The reverse sweep's text: entries in the opposite order."""
        out = []
        for e in reversed(rev):
            if e[0] == "if":
                out.append("if (%s) { %s } else { %s }" % (e[1], " ".join(self.render(e[2], passive)), " ".join(self.render(e[3], passive))))
                continue
            _, op, ra, arr, length, adj, saved = e
            if arr:  # the result's adjoint, an array, taken and cleared
                rule = "ADJ(%s)(%s);" % (op, ", ".join(adj + ["_mfad_g"] + saved))
                out.append("{ T _mfad_g[%d]; for (int _mfad_i = 0; _mfad_i < %d; _mfad_i++) { _mfad_g[_mfad_i] = (%s)[_mfad_i]; OP(zero)(&(%s)[_mfad_i]); } %s }" % (length, length, ra, ra, rule))
            elif op == "set":
                out.append("OP(zero)(&%s);" % ra)
            elif passive[self.base(ra)] and op not in self.LINEAR:
                rule = "ADJ(%s_s)(%s);" % (op, ", ".join(adj + ["OP(val)(&_mfad_g)"] + saved))
                out.append("{ T _mfad_g = %s; OP(zero)(&%s); %s }" % (ra, ra, rule))
            else:
                rule = "ADJ(%s)(%s);" % (op, ", ".join(adj + ["&_mfad_g"] + saved))
                out.append("{ T _mfad_g = %s; OP(zero)(&%s); %s }" % (ra, ra, rule))
        return out

    def function(self):
        fwd, rev = [], []
        body = self.ast.body.block_items or []
        try:
            self.block(body, fwd, rev, top=True)
        except NoReverse as e:  # at the innermost statement being reversed
            e.coord = e.coord or self.where
            raise
        out = ["MFAD_ENERGY_REV_BODY(%s, %s, %s, _mfad_ax)" % (self.x, self.p, self.E), "{"]
        out += ["  " + d for d in self.decls]
        out.append("  T _mfad_aE;")
        out += ["  T _mfad_a_%s;" % v for v in self.svars]
        out += ["  T _mfad_a_%s[%d];" % a for a in self.arrays.items()]
        out.append("  for (int _mfad_i = 0; _mfad_i < MFAD_NA; _mfad_i++) OP(zero)(&_mfad_ax[_mfad_i]);")
        out += ["  " + f for f in fwd]
        out.append("  OP(set)(&_mfad_aE, 1.0);")
        out += ["  OP(zero)(&_mfad_a_%s);" % v for v in self.svars]
        out += ["  for (int _mfad_i = 0; _mfad_i < %d; _mfad_i++) OP(zero)(&_mfad_a_%s[_mfad_i]);" % (k, a) for a, k in self.arrays.items()]
        out += ["  " + r for r in self.render(rev, self.zero_tangent(rev))]
        out.append("}")
        return out
