# SPDX-License-Identifier: BSD-2-Clause
"""Reverse emission: the adjoint sweep of the energy's forward body (forward-over-reverse), built from
the forward pass's IR (ir.py): its statements and their typed operands, never its text."""
from . import ir
from .ir_c import CFor, CGen, CIf, Compound, items_of, raw, walk


# ---------------------------------------------------------------- forward-over-reverse at the features
# The energy's emitted body (OP() calls on T numbers, passive doubles, value branches, loops of
# constant bounds) run once forward and then backwards as an adjoint sweep: over T = double its
# adjoint is the gradient, over T = mfad_dual (value, tangent along B v) its adjoint's tangent is
# H_F B v: one tangent where forward-over-forward carries M gradient lanes. The adjoint rules are
# ADJ(op) of include/mfad/impl/ad_reverse.h; each reads copies of its op's inputs, so an op may
# overwrite an input. Loops are unrolled (their bounds are constants), branches on values are
# recorded forward and taken again backwards, helpers over numbers inlined. A body this does not
# cover (loops of other bounds, other ops) keeps forward-over-forward: the energy has no reverse
# body, and the translator says so at the user's file:line (NoReverse.coord).
REV_OPS = {  # op: result kind, then argument kinds (s: a T number, a: T array, p: a double, q: a double array never written,
#  o: a second result, a T number, whose adjoint the rule takes and clears; n: an int)
    "set": "sp", "copy": "ss", "neg": "ss", "add": "sss", "sub": "sss", "adds": "ssp", "muls": "ssp",
    "mul": "sss", "div": "sss", "sqr": "ss", "chain1": "ssppp", "det2": "sa", "det3": "sa",
    "dot3": "saa", "frob2": "san", "tmatmul": "aaan", "cross3": "aaa", "norm3": "sa", "atan2": "sss", "sqrt": "ss",
    "matmuld": "aaqn", "inv2": "aoa", "inv3": "aoa", "chain2": "ssspppppp",
    "pow": "ssp", "powd": "sps", "pow2": "sss", "hypot": "sss", "fmin": "sss", "fmax": "sss",
}
REV_OPS.update({f: "ss" for f in ("exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "tanh", "cbrt", "fabs", "inv")})
REV_LEN = {"det2": lambda n: 4, "det3": lambda n: 9, "dot3": lambda n: 3, "cross3": lambda n: 3, "norm3": lambda n: 3, "frob2": lambda n: n, "tmatmul": lambda n: n * n, "matmuld": lambda n: n * n, "inv2": lambda n: 4, "inv3": lambda n: 9}


class NoReverse(Exception):
    """Why the body has no adjoint sweep; coord: the user's construct that prevents it (None: unknown)."""

    def __init__(self, msg, coord=None):
        super().__init__(msg)
        self.coord = coord



class Look:
    """How the sweep names what an expression reads: variables by their scope (a loop index is its
    value), a helper of the unit by its value pass's (mfad/impl/instantiate.h)."""

    def __init__(self, rv):
        self.rv = rv

    def __call__(self, name):
        return self.rv.look(name)

    def fn(self, name):
        return "%s_val" % name if name in self.rv.helpers else str(self.rv.look(name))


class Reverser:
    signature = "MFAD_ENERGY_REV_BODY"

    def __init__(self, functions):
        """functions: the forward IR of the energy (ir.Function), the helpers it calls before its body."""
        bodies = [i for i, f in enumerate(functions) if f.kind == "body"]
        if len(bodies) != 1:
            raise NoReverse("not one body")
        self.body = functions[bodies[0]]
        self.x, self.p, self.E = self.body.body_names
        # helpers over numbers (MFAD_ENERGY_HELPER functions before the body) are inlined at their calls
        self.helpers = {f.fn_name: f for f in functions[:bodies[0]] if f.kind == "helper"}
        self.where = None  # the statement being reversed
        self.decls, self.used, self.scopes = [], {self.x, self.p, self.E}, []
        self.svars, self.arrays, self.nsave, self.nb = [], {}, 0, 0
        # arrays of doubles the body sets (a helper's outputs: double ml[2]; lame(p, ml)): forward
        # statements; an op takes their entries by value (save), or the whole array as a matrix it
        # reads in the reverse sweep (matmuld's q), after which they must not change (qread)
        self.parrays, self.qread = {}, set()
        self.lk = Look(self)
        self.in_branch = self.in_loop = 0  # inside a recorded branch, an unrolled loop (save)

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
        for s in reversed(self.scopes):
            if name in s:
                return s[name]
        return name

    def name(self, e):
        """The sweep's name of the variable e (an ir.Name)."""
        return e.name if e.resolved else self.look(e.name)

    def expr(self, e):
        return e.cgen(self.lk)

    def cond(self, e):
        """A branch's condition (lanes.py takes it on every lane)."""
        return self.expr(e)

    def const(self, e):
        def ev(e):
            if isinstance(e, ir.Paren):
                return ev(e.e)
            if isinstance(e, ir.Lit) and str(e).lstrip("-").isdigit():  # "-1": a loop index, substituted in an inlined helper
                return int(str(e))
            if isinstance(e, ir.Name):
                v = self.name(e)
                if isinstance(v, int):
                    return v
            elif isinstance(e, ir.Un) and e.op in "+-":
                v = ev(e.e)
                return None if v is None else (-v if e.op == "-" else v)
            elif isinstance(e, ir.Bin) and e.op in "+-*/%":
                a, b = ev(e.l), ev(e.r)
                if a is not None and b is not None:
                    return a + b if e.op == "+" else a - b if e.op == "-" else a * b if e.op == "*" else a // b if e.op == "/" else a % b
            return None

        k = ev(e)
        if k is None:
            raise NoReverse("not a constant: %s" % self.expr(e))
        return k

    def array(self, e):
        """The T array e names here: (its text, its adjoint's text, entries or None for x)"""
        n = self.name(e)
        if n == self.x:
            return n, "_mfad_ax", None
        if n in self.arrays:
            return n, "_mfad_a_" + n, self.arrays[n]
        raise NoReverse("array %s" % n)

    def operand(self, node, kind):
        """(forward text, adjoint text, array name or None, offset) of an OP() argument."""
        if kind in "pqn":
            if kind == "q":  # read whole in the reverse sweep (not saved): a passive array stays as it is from here on
                b = node.strip()
                b = b.e.base if isinstance(b, ir.Addr) and isinstance(b.e, ir.Index) else b
                if isinstance(b, ir.Name) and self.name(b) in self.parrays:
                    self.qread.add(self.name(b))
            return self.expr(node), None, None, 0
        if kind == "a":
            if isinstance(node, ir.Name):
                v, av, _ = self.array(node)
                return v, av, v, 0
            if isinstance(node, ir.Addr) and isinstance(node.e, ir.Index) and isinstance(node.e.base, ir.Name):
                v, av, _ = self.array(node.e.base)
                k = self.const(node.e.idx)
                return "&%s[%d]" % (v, k), "&%s[%d]" % (av, k), v, k
            raise NoReverse("array argument %s" % self.expr(node))
        if not isinstance(node, ir.Addr):
            raise NoReverse("number argument not &name")
        e = node.e
        if isinstance(e, ir.Deref) and isinstance(e.e, ir.Name) and not e.e.resolved and e.e.name == self.E:
            return "(*%s)" % self.E, "_mfad_aE", None, 0
        if isinstance(e, ir.Name) and self.name(e) in self.svars:
            n = self.name(e)
            return n, "_mfad_a_" + n, None, 0
        if isinstance(e, ir.Index) and isinstance(e.base, ir.Name):
            v, av, size = self.array(e.base)
            k = self.const(e.idx)
            if size is not None and not 0 <= k < size:
                raise NoReverse("index %d of %s" % (k, v))
            return "%s[%d]" % (v, k), "%s[%d]" % (av, k), None, 0
        raise NoReverse("number argument %s" % self.expr(e))

    def guard(self, s):
        """A branch that ends the energy: [OP(set)(E, c);] return; (the value at a wall)"""
        items = s.items
        if not items or not isinstance(items[-1], ir.Return):
            return None
        fwd = []
        for it in items[:-1]:
            if not isinstance(it, ir.Op) or it.name != "set" or self.operand(it.args[0], "s")[1] != "_mfad_aE":
                raise NoReverse("a branch that returns does more than set the energy")
            fwd.append("OP(set)(&(*%s), %s);" % (self.E, self.expr(it.args[1])))
        return fwd + ["return;"]

    def block(self, items, fwd, rev, top=False):
        """Forward statements into fwd; the reverse sweep's statements, in forward order, into rev."""
        self.scopes.append({})
        for i, s in enumerate(items or []):
            self.stmt(s, fwd, rev, top and i == len(items) - 1)
        self.scopes.pop()

    def bounds(self, s):
        """(index, lo, hi) of the loop s, for (int i = lo; i < hi; i++) with lo and hi constants here,
        at most 64 rounds; else NoReverse."""
        if s.init is None or s.init[0] != "decl":
            raise NoReverse("loop header")
        i = s.init[2]
        lo = self.const(s.init[4])
        cond = s.cond.strip()
        if not (isinstance(cond, ir.Bin) and cond.op == "<" and isinstance(cond.l, ir.Name) and cond.l.name == i):
            raise NoReverse("loop condition")
        hi = self.const(cond.r)
        nxt = s.next
        if not (isinstance(nxt, (ir.Post, ir.Un)) and nxt.op == "++" and isinstance(nxt.e, ir.Name) and nxt.e.name == i):
            raise NoReverse("loop increment")
        if hi - lo > 64:
            raise NoReverse("loop of %d rounds" % (hi - lo))
        return i, lo, hi

    def loop(self, s, fwd, rev):
        i, lo, hi = self.bounds(s)
        self.in_loop += 1
        for k in range(lo, hi):
            self.scopes.append({i: k})
            self.block(s.body.items, fwd, rev)
            self.scopes.pop()
        self.in_loop -= 1

    def declare(self, s):
        """A declaration: None, or the forward statement that sets the variable."""
        if isinstance(s, ir.TDecl):
            for name in s.decl_names:
                n = self.unique(name)
                self.scopes[-1][name] = n
                if len(s.dims) > 1:
                    raise NoReverse("array of arrays")
                if s.dims:
                    self.arrays[n] = s.dims[0]
                    self.decls.append("T %s[%d];" % (n, s.dims[0]))
                else:
                    self.svars.append(n)
                    self.decls.append("T %s;" % n)
            return None
        if s.base == "int" and not s.dims and s.const and s.init is not None:
            try:  # a const int of the loop indices (a corner k + 1 mod 3): a constant in this body
                self.scopes[-1][s.name] = self.const(s.init)
                return None
            except NoReverse:
                pass
        n = self.unique(s.name)
        self.scopes[-1][s.name] = n
        if s.base in ("double", "int") and s.dims and s.const and isinstance(s.init, ir.Init):
            # a table of constants (a file-scope static const, lower.py)
            self.decls.append("const %s %s%s = %s;" % (s.base, n, "".join("[%d]" % k for k in s.dims), s.init.cgen(self.lk)))
            return None
        if s.base in ("double", "int") and not s.dims:
            self.decls.append("%s %s;" % (s.base, n))
            return "%s = %s;" % (n, self.expr(s.init)) if s.init is not None else None
        if s.base == "double" and len(s.dims) == 1 and not s.const and (s.init is None or isinstance(s.init, ir.Init)):
            self.parrays[n] = s.dims[0]
            self.decls.append("double %s[%d];" % (n, s.dims[0]))
            if s.init is None:
                return None
            items = list(s.init.items) + [ir.Lit("0.0")] * (s.dims[0] - len(s.init.items))  # C's zeros after the list
            return " ".join("%s[%d] = %s;" % (n, k, self.expr(e)) for k, e in enumerate(items[:s.dims[0]]))
        raise NoReverse("declaration of %s" % s.name)

    def parray(self, lv):
        """The passive array that the lvalue lv (an entry a[k]) writes, or None."""
        if isinstance(lv, ir.Index) and isinstance(lv.base, ir.Name) and self.name(lv.base) in self.parrays:
            n = self.name(lv.base)
            if n in self.qread:
                raise NoReverse("%s written after an operation read it whole" % n)
            return n
        return None

    def stmt(self, s, fwd, rev, last):
        self.where = s.coord or self.where
        if isinstance(s, Compound):
            items = s.items
            if last and items and isinstance(items[-1], ir.Return):
                items = items[:-1]
            self.block(items, fwd, rev)
            return
        if isinstance(s, ir.Return):
            if last:
                return
            raise NoReverse("return before the end")
        if isinstance(s, (ir.TDecl, ir.PDecl)):
            t = self.declare(s)
            if t:
                fwd.append(t)
            return
        if isinstance(s, CFor):
            if self.passive(s):  # doubles only (an iteration on values): as it is, run forward
                inner = {}
                for d in walk([s]):
                    if isinstance(d, CFor) and d.init is not None and d.init[0] == "decl":
                        inner[d.init[2]] = d.init[2]
                    elif isinstance(d, ir.PDecl):
                        inner[d.name] = d.name
                    elif isinstance(d, ir.TDecl):
                        inner.update((n, n) for n in d.decl_names)
                self.scopes.append(inner)
                fwd.append(CGen(self.lk).stmt(s).replace("\n", " "))
                self.scopes.pop()
                return
            self.loop(s, fwd, rev)
            return
        if isinstance(s, CIf):
            g = self.guard(s.iftrue)
            if g is not None:
                if s.iffalse is not None:
                    raise NoReverse("guard with else")
                fwd.append("if (%s) { %s }" % (self.cond(s.cond), " ".join(g)))
                return
            b = self.unique("_mfad_b%d" % self.nb)
            self.nb += 1
            self.decls.append("int %s;" % b)
            fwd.append("%s = (%s);" % (b, self.cond(s.cond)))
            parts = []
            for branch in (s.iftrue, s.iffalse):
                f2, r2 = [], []
                if branch is not None:
                    self.in_branch += 1
                    self.block(branch.items, f2, r2)
                    self.in_branch -= 1
                parts.append((f2, r2))
            fwd.append("if (%s) { %s } else { %s }" % (b, " ".join(parts[0][0]), " ".join(parts[1][0])))
            rev.append(("if", b, parts[0][1], parts[1][1]))
            return
        if isinstance(s, ir.PAssign) and isinstance(s.lv, ir.Name) and self.name(s.lv) not in self.svars and self.name(s.lv) not in self.arrays:
            fwd.append(s.cgen(self.lk) + ";")
            return
        if isinstance(s, ir.PAssign) and self.parray(s.lv):
            fwd.append(s.cgen(self.lk) + ";")
            return
        if isinstance(s, ir.CallS) and not s.void_cast and s.call.fn.name in self.helpers:
            self.inline(s, fwd, rev)
            return
        if not isinstance(s, ir.Op):
            raise NoReverse("statement %s" % s.cname)
        self.op(s.name, s.args, fwd, rev)

    def inline(self, call, fwd, rev):
        """A helper over numbers, inlined: its parameters become the call's arguments (resolved in
        the caller's scope), returns at its end are dropped; any other return refuses."""
        name = call.call.fn.name
        fn = self.helpers[name]
        params = [n for _, n in fn.params] or [None]  # f(void): one parameter without a name
        args = call.call.args
        if len(params) != len(args):
            raise NoReverse("call of %s" % name)

        def resolve(e):
            def f(n):
                if isinstance(n, ir.Name) and not n.resolved:
                    r = self.look(n.name)
                    return ir.Lit(str(r)) if isinstance(r, int) else ir.Name(r, resolved=True)
                return None
            return e.map(f)
        sub = dict(zip(params, (resolve(a) for a in args)))

        def sx(e):  # parameters -> arguments; *&a -> a; (&a[k])[i] -> a[k + i]
            if isinstance(e, ir.Name):
                return sub[e.name] if not e.resolved and e.name in sub else e
            if isinstance(e, ir.Deref):
                x = sx(e.e)
                return x.e if isinstance(x, ir.Addr) else raw(e, e=x)
            if isinstance(e, ir.Index):
                b, i = sx(e.base), sx(e.idx)
                if isinstance(b, ir.Addr) and isinstance(b.e, ir.Index):
                    return raw(e, base=b.e.base, idx=ir.Bin.raw("+", b.e.idx, i))
                return raw(e, base=b, idx=i)
            if not e.kids:
                return e
            return raw(e, **{k: [sx(a) for a in getattr(e, k)] if isinstance(getattr(e, k), list) else sx(getattr(e, k)) for k in e.kids})

        def ss(s):  # a statement of the helper, its expressions substituted
            if isinstance(s, Compound):
                return Compound(s.coord, [ss(i) for i in s.items])
            if isinstance(s, CIf):
                return CIf(s.coord, sx(s.cond), ss(s.iftrue), ss(s.iffalse) if s.iffalse is not None else None)
            if isinstance(s, CFor):
                init = s.init if s.init is None else s.init[:4] + (sx(s.init[4]),)
                if init is not None and init[0] == "assign":
                    init = (init[0], init[1], sx(init[2])) + init[3:]
                return CFor(s.coord, init, sx(s.cond), ss(s.next) if isinstance(s.next, ir.Stmt) else sx(s.next), ss(s.body))
            t = object.__new__(type(s))
            t.__dict__.update(s.__dict__)
            for k in ("args",):
                if k in t.__dict__:
                    t.args = [sx(a) for a in s.args]
            for k in ("call", "init", "lv", "e", "cond"):
                if t.__dict__.get(k) is not None:
                    setattr(t, k, sx(getattr(s, k)))
            return t
        body = [ss(s) for s in items_of(fn.pre + fn.stmts)]

        def tail(items):  # drop the returns that end the helper anyway
            items = list(items or [])
            while items and isinstance(items[-1], ir.Return) and items[-1].e is None:
                items.pop()
            if items and isinstance(items[-1], Compound):
                items[-1] = Compound(None, tail(items[-1].items))
            elif items and isinstance(items[-1], CIf):
                s = items[-1]
                br = [Compound(None, tail(b.items)) if b is not None else None for b in (s.iftrue, s.iffalse)]
                items[-1] = CIf(None, s.cond, br[0], br[1])
            return items

        def ends(s):  # s returns on every path (a return, or an if both of whose branches do)
            if isinstance(s, Compound):
                return bool(s.items) and ends(s.items[-1])
            if isinstance(s, CIf):
                return s.iffalse is not None and ends(s.iftrue) and ends(s.iffalse)
            return isinstance(s, ir.Return) and s.e is None

        def early(items):
            # an if one of whose branches returns (if (!(J > 0.0)) return INFINITY; ...): the
            # statements after it move into its other branch, so that each path ends in a return
            # (dropped by tail) and the sweep records the branch as any other
            items = list(items or [])
            for i, s in enumerate(items):
                if isinstance(s, CIf) and any(isinstance(t, ir.Return) for t in walk([s])):
                    rest = items[i + 1:]
                    br = []
                    for b in (s.iftrue, s.iffalse):
                        b_items = b.items if isinstance(b, Compound) else [] if b is None else [b]
                        br.append(Compound(None, early(b_items if ends(Compound(None, b_items)) else b_items + rest)))
                    return items[:i] + [CIf(s.coord, s.cond, br[0], br[1])]
            return items
        items = tail(early(body))
        if any(isinstance(s, ir.Return) for s in walk(items)):
            raise NoReverse("a return inside %s" % name)
        self.block(items, fwd, rev)

    def passive(self, s):
        """No operation on numbers in s (it may read their values)."""
        return not any(isinstance(t, ir.Op) for t in walk([s]))

    def save(self, decl, text, fwd):
        k = "_mfad_v%d" % self.nsave
        self.nsave += 1
        d = decl % k
        if self.in_branch > 1 or (self.in_branch and self.in_loop):
            # saved and read back under the same recorded branch, nested in another or in an unrolled
            # loop (a switch, a while loop: lower.py): gcc -O3 loses track of that and warns
            # (-Wmaybe-uninitialized); a single branch (energies/mass_spring.c) it follows
            if d.startswith("double "):
                d = d[:-1] + " = 0.0;"
            elif "[" in d:  # T name[n];
                d += " for (int _mfad_i = 0; _mfad_i < %s; _mfad_i++) OP(zero)(&%s[_mfad_i]);" % (d[d.index("[") + 1:d.index("]")], k)
            else:
                d += " OP(zero)(&%s);" % k
        self.decls.append(d)
        fwd.append(text % k)
        return k

    def op(self, op, args, fwd, rev):
        if op in ("dot3", "mul") and len(args) == 3 and self.expr(args[1]) == self.expr(args[2]):
            # a . a and a a: the same forward arithmetic, and an adjoint that takes 2 g once
            op, args = ("frob2", args[:2] + [ir.Lit("3")]) if op == "dot3" else ("sqr", args[:2])
        kinds = REV_OPS.get(op)
        if kinds is None or len(args) != len(kinds):
            raise NoReverse("op %s" % op)
        n = self.const(args[kinds.index("n")]) if "n" in kinds else 0
        length = REV_LEN[op](n) if op in REV_LEN else 0
        res = self.operand(args[0], kinds[0])
        fwd_args, adj, saved = [res[0] if kinds[0] == "a" else "&" + res[0]], [], []
        for a, kind in zip(args[1:], kinds[1:]):
            v, av, arr, off = self.operand(a, kind)
            fwd_args.append(v if kind not in "so" else "&" + v)
            if kind == "o":
                saved.append("&" + av)
                continue
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
    UNREAD = {"set": "p", "copy": "s", "neg": "s", "add": "s", "sub": "s", "adds": "sp", "muls": "s", "matmuld": "a"}

    @staticmethod
    def base(adj):
        return adj.lstrip("&").split("[")[0]

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
        body = items_of(self.body.pre + self.body.stmts)
        try:
            self.block(body, fwd, rev, top=True)
        except NoReverse as e:  # at the innermost statement being reversed
            e.coord = e.coord or self.where
            raise
        out = ["%s(%s, %s, %s, _mfad_ax)" % (self.signature, self.x, self.p, self.E), "{"]
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
