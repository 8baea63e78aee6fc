# SPDX-License-Identifier: BSD-2-Clause
"""Feature extraction: the feature map f = B(p) x run symbolically (Lin: linear forms in x with
polynomial coefficients in p), and the C of mfad_feature_map/mfad_feature_pull."""
import re

from pycparser import c_ast

from .common import COMPARE, INT_TYPES, MATH1, MATH2, PASSIVE_MATH, fail, src
from .symbols import const_int, lvalue_var


# ---------------------------------------------------------------- features: a linear map, unrolled
def poly_add(a, b, s=1.0):
    r = dict(a)
    for m, c in b.items():
        r[m] = r.get(m, 0.0) + s * c
        if r[m] == 0.0:
            del r[m]
    return r


def poly_mul(a, b):
    r = {}
    for ma, ca in a.items():
        for mb, cb in b.items():
            m = tuple(sorted(ma + mb))
            r[m] = r.get(m, 0.0) + ca * cb
            if r[m] == 0.0:
                del r[m]
    return r


def poly_const(c):
    return {(): float(c)} if c != 0 else {}


def poly_text(a):
    """C text of a polynomial in p-atoms; terms in a fixed order."""
    if not a:
        return "0.0"
    terms = []
    for m in sorted(a, key=lambda m: (len(m), m)):
        c = a[m]
        if not m:
            terms.append((c < 0, repr(abs(c))))
        elif abs(c) == 1.0:
            terms.append((c < 0, " * ".join(m)))
        else:
            terms.append((c < 0, "%r * %s" % (abs(c), " * ".join(m))))
    out = ("-" if terms[0][0] else "") + terms[0][1]
    for neg, t in terms[1:]:
        out += (" - " if neg else " + ") + t
    return out


class Lin(dict):
    """A double of the feature map: its linear form {k: coefficient poly} (None: the term without x)
    and the C text that computes its value from v and p in the user's operation order (so that a
    translated element gives F = 0 exactly, as the user's code does, and no cancellation of large
    coordinates creeps in)."""

    def __init__(self, form, text):
        super().__init__(form)
        self.text = text


class LinArr:
    """An array seen by the linear interpreter: a store (list of values) and an offset into it."""

    def __init__(self, store, off=0):
        self.store, self.off = store, off


class LinearMap:
    """Runs a feature map `void fmap(const double x[N], const double p[P], double f[M])` symbolically:
    every double is a linear form sum_k c_k(p) x[k] whose coefficients are polynomials in p-atoms
    (p[i], or passive subexpressions). Loops must unroll (constant bounds), branches must not
    depend on x or p; anything non-linear in x is an error at its file:line."""

    def __init__(self, tr, fn, n, params, m):
        self.tr, self.fn, self.n, self.np, self.m = tr, fn, n, params, m
        self.steps = 0

    def run(self):
        fn = self.fn
        x, p, f = fn.params
        env = {}
        self.code, self.ntemp = [], 0
        env[x] = LinArr([Lin({k: poly_const(1.0)}, "v[%d]" % k) for k in range(self.n)])
        env[p] = LinArr([Lin({None: {("p[%d]" % i,): 1.0}}, "p[%d]" % i) for i in range(max(self.np, 1))])
        fout = [None] * self.m
        env[f] = LinArr(fout)
        self.call_body(fn, env)
        for i, v in enumerate(fout):
            if v is None:
                fail(fn.fdef.decl, "feature map '%s' does not set %s[%d]" % (fn.name, f.name, i))
            if isinstance(v, (int, float)):
                v = self.lin(fn.fdef.decl, v)
            if v.get(None):
                fail(fn.fdef.decl, "feature map '%s': %s[%d] has a term independent of %s: the map must be linear in %s (f = B(p) x)" % (fn.name, f.name, i, x.name, x.name))
            fout[i] = v
        return fout

    def call_body(self, fn, env):
        self.ret = None
        try:
            for item in fn.fdef.body.block_items or []:
                self.stmt(fn, item, env)
        except _LinReturn as r:
            return r.value
        return None

    def stmt(self, fn, s, env):
        self.steps += 1
        if self.steps > 200000:
            fail(s, "feature map: too many unrolled statements")
        if isinstance(s, c_ast.Compound):
            for item in s.block_items or []:
                self.stmt(fn, item, env)
        elif isinstance(s, c_ast.Decl):
            v = fn.var_of[id(s)]
            if v.dims:
                size = 1
                for d in v.dims:
                    size *= d
                if len(v.dims) > 1:
                    fail(s, "feature map: '%s': use flat arrays (A[3 * i + j])" % v.name)
                store = [None] * size
                if s.init is not None:
                    if not isinstance(s.init, c_ast.InitList):
                        fail(s, "feature map: array initialiser must be a list")
                    for i, e in enumerate(s.init.exprs):
                        store[i] = self.temp(self.expr(fn, e, env))
                env[v] = LinArr(store)
            else:
                env[v] = self.temp(self.expr(fn, s.init, env)) if s.init is not None else None
        elif isinstance(s, c_ast.Assignment):
            self.assign(fn, s, env)
        elif isinstance(s, c_ast.UnaryOp) and s.op in ("p++", "++", "p--", "--"):
            v = lvalue_var(fn, s.expr)
            env[v] = env[v] + (1 if "+" in s.op else -1)
        elif isinstance(s, c_ast.For):
            if s.init is not None:
                inits = s.init.decls if isinstance(s.init, c_ast.DeclList) else [s.init]
                for d in inits:
                    self.stmt(fn, d, env)
            it = 0
            while True:
                if s.cond is not None:
                    c = self.expr(fn, s.cond, env)
                    if not isinstance(c, int):
                        fail(s, "feature map: loop bounds must be integer constants (the map is unrolled)")
                    if not c:
                        break
                self.stmt(fn, s.stmt, env)
                if s.next is not None:
                    self.stmt(fn, s.next, env)
                it += 1
                if it > 10000:
                    fail(s, "feature map: loop does not end")
        elif isinstance(s, c_ast.If):
            c = self.expr(fn, s.cond, env)
            if not isinstance(c, int):
                fail(s, "feature map: a branch on a double (x or p) is not supported: the map is one linear function of x")
            if c:
                self.stmt(fn, s.iftrue, env)
            elif s.iffalse is not None:
                self.stmt(fn, s.iffalse, env)
        elif isinstance(s, c_ast.Return):
            raise _LinReturn(self.expr(fn, s.expr, env) if s.expr is not None else None)
        elif isinstance(s, c_ast.FuncCall):
            self.expr(fn, s, env)
        elif isinstance(s, (c_ast.EmptyStatement, c_ast.Cast)):
            pass  # (void)p;
        else:
            fail(s, "feature map: '%s' is not supported in a feature map" % src(s))

    def ref(self, fn, e, env):
        """(store, index) of an array entry lvalue/rvalue"""
        if not isinstance(e.name, c_ast.ID):
            fail(e, "feature map: use flat arrays (A[3 * i + j])")
        v = fn.var_of.get(id(e.name))
        arr = env.get(v) if v is not None else None
        if not isinstance(arr, LinArr):
            fail(e, "feature map: '%s' is not an array" % src(e.name))
        k = self.expr(fn, e.subscript, env)
        if not isinstance(k, int):
            fail(e, "feature map: index of '%s' must be an integer" % src(e))
        i = arr.off + k
        if not 0 <= i < len(arr.store):
            fail(e, "feature map: index %d of '%s' is out of bounds (%d entries)" % (k, src(e.name), len(arr.store) - arr.off))
        return arr.store, i

    def assign(self, fn, s, env):
        rhs = self.expr(fn, s.rvalue, env)
        if isinstance(s.lvalue, c_ast.ArrayRef):
            store, i = self.ref(fn, s.lvalue, env)
            old = store[i]
            setter = lambda val: store.__setitem__(i, val)
        elif isinstance(s.lvalue, c_ast.ID):
            v = fn.var_of[id(s.lvalue)]
            old = env.get(v)
            setter = lambda val: env.__setitem__(v, val)
        else:
            fail(s, "feature map: cannot assign to '%s'" % src(s.lvalue))
        if s.op == "=":
            setter(self.temp(rhs))
        else:
            if old is None:
                fail(s, "feature map: '%s' is read before it is set" % src(s.lvalue))
            setter(self.temp(self.binop(s, s.op[0], old, rhs)))

    def temp(self, a):
        """A double stored in a variable: computed once, in a temporary of the generated code"""
        if not isinstance(a, Lin) or re.match(r"^(v|p)\[\d+\]$|^_f\d+$", a.text):
            return a
        name = "_f%d" % self.ntemp
        self.ntemp += 1
        self.code.append((name, a.text))
        return Lin(a, name)

    def lin(self, node, a):
        if isinstance(a, (int, float)):
            return Lin({None: poly_const(a)} if a else {}, repr(float(a)))
        if a is None:
            fail(node, "feature map: a value is read before it is set")
        if isinstance(a, LinArr):
            fail(node, "feature map: an array where a number is expected")
        return a

    @staticmethod
    def active(a):
        return isinstance(a, dict) and any(k is not None for k in a)

    def passive_poly(self, a):
        return a.get(None, {})

    def binop(self, node, op, a, b):
        if isinstance(a, int) and isinstance(b, int):
            r = const_int(c_ast.BinaryOp(op, c_ast.Constant("int", str(a)), c_ast.Constant("int", str(b))))
            if r is None:
                fail(node, "feature map: integer '%s' cannot be folded" % src(node))
            return r
        if op in ("+", "-"):
            A, B = self.lin(node, a), self.lin(node, b)
            r = dict(A)
            for k, c in B.items():
                r[k] = poly_add(r.get(k, {}), c, 1.0 if op == "+" else -1.0)
                if not r[k]:
                    del r[k]
            return Lin(r, "(%s %s %s)" % (A.text, op, B.text))
        if op == "*":
            A, B = self.lin(node, a), self.lin(node, b)
            if self.active(A) and self.active(B):
                fail(node, "feature map: '%s' multiplies two values that depend on x: the map must be linear in x" % src(node))
            text = "(%s * %s)" % (A.text, B.text)
            if self.active(B):
                A, B = B, A
            s = self.passive_poly(B)
            r = {}
            for k, c in A.items():
                pc = poly_mul(c, s)
                if pc:
                    r[k] = pc
            return Lin(r, text)
        if op == "/":
            A, B = self.lin(node, a), self.lin(node, b)
            if self.active(B):
                fail(node, "feature map: '%s' divides by a value that depends on x: the map must be linear in x" % src(node))
            s = self.passive_poly(B)
            if not s:
                fail(node, "feature map: division by zero in '%s'" % src(node))
            if list(s) == [()]:
                inv = poly_const(1.0 / s[()])
            else:
                inv = {("(1.0 / (%s))" % poly_text(s),): 1.0}
            r = self.binop(node, "*", A, Lin({None: inv}, "1.0"))
            return Lin(r, "(%s / %s)" % (A.text, B.text))
        fail(node, "feature map: operator '%s' on doubles is not supported in a feature map (linear in x: + - * /)" % op)

    def atom(self, node, text, args):
        for a in args:
            if self.active(self.lin(node, a)):
                fail(node, "feature map: '%s' is not linear in x" % src(node))
        t = "%s(%s)" % (text, ", ".join(self.lin(node, a).text for a in args))
        return Lin({None: {("%s(%s)" % (text, ", ".join(poly_text(self.passive_poly(self.lin(node, a))) for a in args)),): 1.0}}, t)

    def expr(self, fn, e, env):
        if isinstance(e, c_ast.Constant):
            if e.type == "string":
                fail(e, "feature map: strings are not supported")
            k = const_int(e)
            if k is not None:
                return k
            return float(e.value.rstrip("fFlL"))
        if isinstance(e, c_ast.ID):
            v = fn.var_of.get(id(e))
            if v is None:
                fail(e, "feature map: '%s' is not a variable of this function" % e.name)
            if v not in env:
                fail(e, "feature map: '%s' is read before it is set" % e.name)
            val = env[v]
            return val
        if isinstance(e, c_ast.ArrayRef):
            store, i = self.ref(fn, e, env)
            val = store[i]
            if val is None:
                fail(e, "feature map: '%s' is read before it is set" % src(e))
            return val
        if isinstance(e, c_ast.Cast):
            val = self.expr(fn, e.expr, env)
            names = getattr(getattr(e.to_type.type, "type", None), "names", [])
            if names == ["double"] and isinstance(val, int):
                return float(val)
            return val
        if isinstance(e, c_ast.UnaryOp):
            if e.op == "&":
                if isinstance(e.expr, c_ast.ArrayRef):
                    store, i = self.ref(fn, e.expr, env)
                    return LinArr(store, i)
                fail(e, "feature map: '&' of '%s' is not supported" % src(e.expr))
            val = self.expr(fn, e.expr, env)
            if e.op == "+":
                return val
            if e.op == "-":
                if isinstance(val, int):
                    return -val
                A = self.lin(e, val)
                return Lin(self.binop(e, "*", A, -1), "(-%s)" % A.text)
            if e.op == "!" and isinstance(val, int):
                return int(not val)
            fail(e, "feature map: '%s' is not supported in a feature map" % src(e))
        if isinstance(e, c_ast.BinaryOp):
            a = self.expr(fn, e.left, env)
            b = self.expr(fn, e.right, env)
            if isinstance(a, int) and isinstance(b, int):
                return self.binop(e, e.op, a, b)
            if e.op in COMPARE:
                fail(e, "feature map: a comparison of doubles ('%s') is not supported: the map is one linear function of x" % src(e))
            return self.binop(e, e.op, a, b)
        if isinstance(e, c_ast.TernaryOp):
            c = self.expr(fn, e.cond, env)
            if not isinstance(c, int):
                fail(e, "feature map: a branch on a double is not supported: the map is one linear function of x")
            return self.expr(fn, e.iftrue if c else e.iffalse, env)
        if isinstance(e, c_ast.FuncCall):
            name = e.name.name if isinstance(e.name, c_ast.ID) else None
            args = [self.expr(fn, a, env) for a in (e.args.exprs if e.args else [])]
            if name in MATH1 or name in MATH2 or name in PASSIVE_MATH or name == "pow":
                return self.atom(e, name, args)
            if name not in self.tr.funcs:
                fail(e, "feature map: call to unknown function '%s'" % name)
            callee = self.tr.function(name)
            if len(args) != len(callee.params):
                fail(e, "feature map: '%s' takes %d arguments" % (name, len(callee.params)))
            cenv = {}
            for v, a in zip(callee.params, args):
                if v.is_ptr and not isinstance(a, LinArr):
                    fail(e, "feature map: argument '%s' of '%s' must be an array" % (v.name, name))
                if v.base in INT_TYPES or set(v.base.split()) <= INT_TYPES:
                    if not isinstance(a, int):
                        fail(e, "feature map: integer argument '%s' of '%s' must be a constant" % (v.name, name))
                cenv[v] = a
            saved = getattr(self, "ret", None)
            r = self.call_body(callee, cenv)
            self.ret = saved
            return r
        fail(e, "feature map: '%s' is not supported in a feature map" % src(e))


class _LinReturn(Exception):
    def __init__(self, value):
        super().__init__("return")
        self.value = value


def feature_code(rows, code, n, m, fname):
    """C text of mfad_feature_map (f = B v: the user's operations, `code` the temporaries of the
    unrolled map) and mfad_feature_pull (g_x = B^T g, from the rows of B: rows[i] = {k: poly},
    f_i = sum_k poly * x[k]; each distinct coefficient computed once)."""
    coef, names = {}, []

    def cname(poly):
        t = poly_text(poly)
        if t in ("1.0", "-1.0"):
            return t
        neg = t.startswith("-") and len(poly) == 1
        key = poly_text({mm: -c for mm, c in poly.items()}) if neg else t
        if key not in coef:
            coef[key] = "_b%d" % len(coef)
            names.append((coef[key], key))
        return ("-" if neg else "") + coef[key]

    def combo(terms):
        out = ""
        for c, v in terms:
            neg = c.startswith("-")
            c = c[1:] if neg else c
            t = v if c == "1.0" else "%s * %s" % (c, v)
            out += (" - " if neg else " + ") + t if out else ("-" if neg else "") + t
        return out or "0.0"

    fwd = [rows[i].text for i in range(m)]
    keep, need = [], set()
    for i in range(m):
        need |= set(re.findall(r"\b_f\d+\b", fwd[i]))
    for name, text in reversed(code):  # the temporaries the outputs need, in order
        if name in need:
            keep.append("  const double %s = %s;" % (name, text))
            need |= set(re.findall(r"\b_f\d+\b", text))
    keep.reverse()
    cols = {}
    for i in range(m):
        for k in rows[i]:
            cols.setdefault(k, []).append((cname(rows[i][k]), "g[%d]" % i))
    bwd = [combo(cols.get(k, [])) for k in range(n)]
    decl = ["  const double %s = %s;" % (nm, t) for nm, t in names]
    uses_p = any("p[" in t for _, t in names)
    fwd_uses_p = any("p[" in t for t in keep + fwd)
    head = "/* the feature map of %s, f = B(p) x, unrolled by mfad-energy: %d of %d entries of B are not zero */" % (fname, sum(len(r) for r in rows), n * m)
    lines = [head, "#ifndef MFAD_FEATURE_MAP_DEFINED", "#define MFAD_FEATURE_MAP_DEFINED"]
    # f = x_1 - x_0 of two 3-vectors (B = [-I I], a spring's edge): the lanes take the difference on
    # each lane's vertex rows before transposing them, and scatter -g, +g from one transposition
    # (mfad/impl/loop_cpu_lanes.h)
    if n == 6 and m == 3 and all(set(rows[i]) == {i, i + 3} and poly_text(rows[i][i]) == "-1.0" and poly_text(rows[i][i + 3]) == "1.0"
                                 for i in range(3)):
        lines.append("#define MFAD_FEATURE_MAP_DIFF 1")
    for nm, out, inn, exprs, cnt, body, up in (("mfad_feature_map", "f", "v", fwd, m, keep, fwd_uses_p), ("mfad_feature_pull", "gx", "g", bwd, n, decl, uses_p)):
        lines.append("MFAD_HD static MFAD_INLINE void %s(const double *MFAD_RESTRICT %s, const double *MFAD_RESTRICT p, double *MFAD_RESTRICT %s)" % (nm, inn, out))
        lines.append("{")
        if not up:
            lines.append("  (void)p;")
        lines += body
        for i in range(cnt):
            lines.append("  %s[%d] = %s;" % (out, i, exprs[i]))
        lines.append("}")
    lines.append("#endif")
    return lines
