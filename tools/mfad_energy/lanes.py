# SPDX-License-Identifier: BSD-2-Clause
"""SIMD lanes across elements: the adjoint sweep of reverse.py once more, for include/mfad/impl/ad_lanes.h,
where every passive double is a vector of MFAD_VW lanes (one element each) and the numbers T are
lanes of values (the gradient) or of dual numbers (the HVP). The text is the scalar sweep's, but for:
passive doubles declared MFAD_S; a passive operand of an OP()/ADJ() broadcast (MFAD_VS: a literal
becomes a vector); a branch's condition as lane masks (comparisons as they are, ! && || as ~ & |)
taken by MFAD_VIF (every lane alike, or the body stops and the loop runs those elements on the scalar
path); in a passive expression, a ternary as a select of its two operands lane by lane (mfad_vblend:
both are computed, neither has effects), a comparison's truth value (C's int 0 or 1) as the double 0.0
or 1.0 (mfad_vtruth), a cast to double as a broadcast, a call of the energy's helper over doubles
(a Lamé parameter from E and nu) a call of its lanes version (helper_lanes). fabs, fmin and fmax of
numbers are selects lane by lane (mfad/impl/ad_generic.h), of passive values the C library's. What
a vector of lanes cannot take in C (a cast to an int, an int computed from values, a comparison's
truth value divided, a loop on values that tests them, in a helper over doubles a loop without a
constant count or an int that is not a constant, a call other than the math of ad_lanes.h and those
helpers, and matmuld of a table other than the parameters) refuses with NoLanes: the energy keeps
the scalar path, and the translator says why
(cli.py)."""
import re

from . import ir
from .ir_c import CFor, CIf, Compound, items_of, walk
from .reverse import NoReverse, Reverser

# math.h functions ad_lanes.h takes lane by lane (MFAD_VMATH1/2), and the ops whose adjoint rules run on lanes
LANE_MATH = {"sqrt", "log", "exp", "sin", "cos", "tan", "tanh", "sinh", "cosh", "asin", "acos", "atan", "cbrt", "log1p",
             "expm1", "erf", "erfc", "pow", "atan2", "hypot", "fabs", "fmin", "fmax"}
CMP = {"<", ">", "<=", ">=", "==", "!="}
TRUTH = CMP | {"&&", "||"}  # operators whose value is an int truth value


def truth(e):
    """e is a truth value (a comparison, ! && ||)."""
    e = e.strip()
    return isinstance(e, ir.Bin) and e.op in TRUTH or isinstance(e, ir.Un) and e.op == "!"


def lane_int(e, ints):
    """e is an int in C that the lanes hold as doubles: its + - * are the same numbers, its / and %
    are not (C's int division). ints(name): the name is an int (a loop index, a constant)."""
    e = e.strip()
    if truth(e):
        return True
    if isinstance(e, ir.Tern):
        return lane_int(e.a, ints) and lane_int(e.b, ints)
    if isinstance(e, ir.Bin) and e.op in "+-*":
        return lane_int(e.l, ints) and lane_int(e.r, ints)
    if isinstance(e, ir.Un) and e.op in "+-":
        return lane_int(e.e, ints)
    if isinstance(e, ir.Lit):
        return str(e).isdigit()
    return isinstance(e, ir.Name) and ints(e)


class NoLanes(NoReverse):
    """Why the energy has no lanes body; coord: the construct."""


class LaneReverser(Reverser):
    signature = "MFAD_ENERGY_LANES_BODY"

    def __init__(self, functions):
        super().__init__(functions)
        self.masks = set()  # the sweep's names of conditions held as lane masks (declare)
        self.quiet = 0  # in constant(): expressions printed as they are
        # helpers over doubles that a passive expression calls, over lanes (helper_lanes): their
        # definitions in the order they are needed (a helper's callees before it)
        self.lane_helpers = {}

    def lane(self, e):
        """e, a passive expression, as the lanes take it (an ir.Expr whose text is lanes C): arithmetic
        and the lanes' math as they are; a ternary a select of its operands (each lane's choice; the
        scalar path computes one operand, the lanes both, which has no effect: a passive expression
        calls only math.h); a truth value 0.0 or 1.0 as a double (C's int converted where it meets a
        double: the same numbers under + - *); a cast to double a broadcast."""
        def ints(name):
            return isinstance(self.name(name), int)

        def held(e):  # e has an int the lanes hold as doubles (a truth value, a ternary's select)
            found = []
            e.map(lambda n: found.append(n) if truth(n) or isinstance(n, ir.Tern) else None)
            return bool(found)

        def f(n):
            if isinstance(n, (ir.Bin, ir.Un)) and self.constant(n):
                return n  # an int of constants and loop indices (i % 4 == 0 of an unrolled loop): a C scalar
            if isinstance(n, ir.Tern):
                return ir.Lit("mfad_vblend(%s, MFAD_VS(%s), MFAD_VS(%s))" % (self.mask(n.c), self.expr(n.a), self.expr(n.b)))
            if truth(n):
                return ir.Lit("mfad_vtruth(%s)" % self.mask(n))
            if isinstance(n, ir.Cast):
                ty = " ".join(t for t in n.ty.split() if t != "const")
                if ty != "double":
                    raise NoLanes("a cast to %s on values" % ty)
                return ir.Lit("MFAD_VS(%s)" % self.expr(n.e))
            if isinstance(n, ir.Bin) and n.op in ("/", "%") and all(lane_int(k, ints) for k in (n.l, n.r)) and (held(n.l) or held(n.r)):
                raise NoLanes("'%s' of a comparison's truth value (an int)" % n.op)
            if isinstance(n, ir.Bin) and n.op in ("%", "&", "|", "^", "<<", ">>"):
                raise NoLanes("'%s' on values" % n.op)
            if isinstance(n, ir.Un) and n.op in ("~", "++", "--"):
                raise NoLanes("'%s' on values" % n.op)
            if isinstance(n, ir.Post):
                raise NoLanes("'%s' on values" % n.op)
            if isinstance(n, ir.Name) and self.name(n) in self.masks:
                return ir.Lit("mfad_vtruth(%s)" % self.name(n))  # a truth value held as a mask (declare)
            if isinstance(n, ir.Call) and isinstance(n.fn, ir.Fn) and n.fn.name in self.helpers:
                return self.helper_call(n)
            if isinstance(n, ir.Call):
                fn = str(n.fn)
                if fn not in LANE_MATH:
                    raise NoLanes("a call of %s" % fn)
            return None

        return e.map(f)

    def helper_call(self, n):
        """A call of the user's helper over doubles (the scalar sweep calls its value pass's: a Lamé
        parameter from Young's modulus and Poisson's ratio) as a call of its lanes version, its double
        arguments lane vectors, its ints C's."""
        name = n.fn.name
        fn = self.helpers[name]
        if fn.ret != "double" or any(re.search(r"\bT\b", t) for t, _ in fn.params):
            raise NoLanes("a call of %s (a helper over numbers in a value's expression)" % name)
        if name not in self.lane_helpers:  # (the translator refuses recursion)
            self.helper_lanes(name)
        args = []
        for (t, _), a in zip(fn.params, n.args):
            if re.search(r"\bdouble\b", t) and "*" not in t:
                args.append("MFAD_VS(%s)" % self.expr(a))
            else:
                args.append(self.expr(a))
        return ir.Lit("MFAD_FN(%s_lanes)(%s)" % (name, ", ".join(args)))

    def helper_lanes(self, name):
        """Defines the lanes version of the helper over doubles name: its doubles lane vectors, its
        statements lowered as the sweep's passive ones (declarations, assignments, returns, blocks).
        An if in it is taken on every lane, as a select (if-conversion): both branches are computed
        (a helper over doubles calls only math.h: no effect), an assignment under a branch keeps the
        lanes that did not take it (mfad_vblend), a return sets the result of the lanes still running
        (_mfad_live) and ends them. A loop of a constant count is unrolled and a const int of constants is
        a constant, as in the body; another loop or int in it refuses."""
        fn = self.helpers[name]
        self.lane_helpers[name] = []
        saved, self.scopes = self.scopes, [{}]  # the helper's names are its own, not the body's
        items = items_of(fn.pre + fn.stmts)
        branched = any(isinstance(t, CIf) for t in walk(items))
        lines, nmask = [], [0]
        if branched:
            lines += ["  mfad_vd _mfad_r = MFAD_VS(0.0);", "  mfad_vm _mfad_live = ~(mfad_vm){0};"]
        try:

            def block(items, depth, guard):
                # guard: the masks under which these statements run (with _mfad_live once branched)
                pad = "  " * depth
                g = "(%s)" % " & ".join(guard) if guard else None
                for s in items:
                    if isinstance(s, Compound):
                        lines.append(pad + "{")
                        block(s.items, depth + 1, guard)
                        lines.append(pad + "}")
                    elif isinstance(s, CIf):
                        nmask[0] += 1
                        m = "_mfad_m%d" % nmask[0]
                        lines.append(pad + "const mfad_vm %s = %s;" % (m, self.mask(s.cond)))
                        for body, mm in ((s.iftrue, m), (s.iffalse, "~" + m)):
                            if body is not None:
                                lines.append(pad + "{")
                                block(body.items if isinstance(body, Compound) else [body], depth + 1, guard + [mm])
                                lines.append(pad + "}")
                    elif isinstance(s, ir.PDecl) and s.base == "double" and not (s.dims and s.init is not None):
                        head = s.head().replace("double", "mfad_vd", 1)
                        lines.append(pad + (head + ";" if s.init is None else "%s = MFAD_VS(%s);" % (head, self.expr(s.init))))
                    elif isinstance(s, ir.PAssign):
                        lv, e = self.expr(s.lv), self.expr(s.e)
                        if g:
                            v = "MFAD_VS(%s)" % e if s.op == "=" else "%s %s (%s)" % (lv, s.op[:-1], e)
                            lines.append(pad + "%s = mfad_vblend(%s, %s, %s);" % (lv, g, v, lv))
                        else:
                            lines.append(pad + "%s %s %s;" % (lv, s.op, "MFAD_VS(%s)" % e if s.op == "=" else e))
                    elif isinstance(s, CFor) and self.counted(s):  # unrolled, as the body's loops
                        i, lo, hi = self.bounds(s)
                        for k in range(lo, hi):
                            self.scopes.append({i: k})
                            lines.append(pad + "{")
                            block(s.body.items if isinstance(s.body, Compound) else [s.body], depth + 1, guard)
                            lines.append(pad + "}")
                            self.scopes.pop()
                    elif isinstance(s, ir.PDecl) and s.base == "int" and s.const and not s.dims and s.init is not None and self.constant(s.init):
                        self.scopes[-1][s.name] = self.const(s.init)  # a constant here, as in the body
                    elif isinstance(s, ir.Return) and s.e is not None and not branched:
                        lines.append(pad + "return MFAD_VS(%s);" % self.expr(s.e))
                    elif isinstance(s, ir.Return) and s.e is not None:
                        lines.append(pad + "_mfad_r = mfad_vblend(%s, MFAD_VS(%s), _mfad_r);" % (g, self.expr(s.e)))
                        lines.append(pad + "_mfad_live &= ~%s;" % g)
                    else:
                        what = {"For": "a loop", "Decl": "an int"}.get(s.cname, "a statement %s" % s.cname)
                        raise NoLanes("%s in the helper %s" % (what, name))

            block(items, 1, ["_mfad_live"] if branched else [])
        finally:
            self.scopes = saved
        if branched:
            lines.append("  return _mfad_r;")
        params = ", ".join(re.sub(r"\bdouble\b", "mfad_vd", t) for t, _ in fn.params) or "void"
        del self.lane_helpers[name]  # after its callees
        self.lane_helpers[name] = ["MFAD_GEN_MODIFIERS mfad_vd MFAD_FN(%s_lanes)(%s)" % (name, params), "{"] + lines + ["}"]

    def constant(self, e):
        """e is an int constant in this body (the sweep's const(), its message's text not lowered)."""
        self.quiet += 1
        try:
            self.const(e)
            return True
        except NoReverse:
            return False
        finally:
            self.quiet -= 1

    def expr(self, e):
        if isinstance(e, ir.Expr) and not self.quiet:
            e = self.lane(e)
        return super().expr(e)

    def cond(self, e):
        return "MFAD_VIF(%s)" % self.mask(e)

    def mask(self, e):
        """e as a lane mask (mfad_vm) text."""
        e = e.strip()
        if isinstance(e, ir.Name) and self.name(e) in self.masks:
            return self.name(e)
        if isinstance(e, ir.Un) and e.op == "!":
            return "(~MFAD_VM(%s))" % self.mask(e.e)
        if isinstance(e, ir.Bin) and e.op in ("&&", "||"):
            return "(MFAD_VM(%s) %s MFAD_VM(%s))" % (self.mask(e.l), "&" if e.op == "&&" else "|", self.mask(e.r))
        if isinstance(e, ir.Bin) and e.op in CMP:
            return "MFAD_VM(%s %s %s)" % (self.paren(e.l), e.op, self.paren(e.r))
        return "MFAD_VM(%s != 0.0)" % self.paren(e)

    def paren(self, e):
        t = self.expr(e)
        return t if e.strip().simple else "(" + t + ")"

    def operand(self, node, kind):
        r = super().operand(node, kind)
        if kind == "p":  # a passive operand: a literal broadcast to the lanes
            return ("MFAD_VS(%s)" % r[0],) + tuple(r[1:])
        return r

    def declare(self, s):
        if (isinstance(s, ir.PDecl) and s.base == "int" and not s.dims and s.const and s.init is not None
                and (re.match(r"^_mfad_c\d+$", s.name) or truth(s.init) and not self.constant(s.init))):
            # a branch's condition that reads a helper's value (lower.py: `if (mfad_inv3(Fi, F) <= 0.0)`
            # computes the helper, then tests this int), or the user's const int of a comparison of
            # values (const int inverted = !(J > 0.0)): a lane mask, taken by MFAD_VIF as any condition,
            # 0.0 or 1.0 in a value's expression (lane)
            n = self.unique(s.name)
            self.scopes[-1][s.name] = n
            self.masks.add(n)
            self.decls.append("mfad_vm %s;" % n)
            return "%s = %s;" % (n, self.mask(s.init))
        if isinstance(s, ir.PDecl) and s.base == "int" and not (not s.dims and s.const and s.init is not None):
            raise NoLanes("the int %s (an int may hold a value's branch)" % s.name)
        if isinstance(s, ir.PDecl) and s.base == "int":
            try:
                self.const(s.init)
            except NoReverse:
                raise NoLanes("the int %s (an int may hold a value's branch)" % s.name)
        t = super().declare(s)
        if t and isinstance(s, ir.PDecl) and s.base == "double" and s.dims:
            # an array of doubles from its initialiser list (reverse.py): each entry broadcast
            return " ".join("%s = MFAD_VS(%s);" % tuple(a.split(" = ", 1)) for a in t[:-1].split("; "))
        if t and isinstance(s, ir.PDecl) and s.base == "double":
            # a double set from literals alone (2.0 * 1.0, a folded constant of lower.py) is a scalar
            # in C: broadcast (MFAD_VS leaves a lane vector as it is)
            n, e = t[:-1].split(" = ", 1)
            t = "%s = MFAD_VS(%s);" % (n, e)
        return t

    def save(self, decl, text, fwd):
        # a value saved under any recorded branch starts initialised (the scalar sweep does so only
        # under nested ones): gcc -O1 (the sanitizer build) loses track of it on the lanes and warns
        if self.in_branch == 1 and not self.in_loop:
            self.in_loop += 1
            try:
                return super().save(decl, text, fwd)
            finally:
                self.in_loop -= 1
        return super().save(decl, text, fwd)

    def passive(self, s):
        # a loop of doubles alone with a test on values (an iteration: corotated_tet's root) would run
        # its lanes in step, which C's loop cannot; one with operations on numbers, or of doubles
        # alone without a branch (M[i] = c p[i]), is unrolled as on the scalar sweep (its bounds are
        # constants: lower.py)
        if super().passive(s):
            if any(isinstance(t, CIf) for t in walk([s])) or not self.counted(s):
                raise NoLanes("a loop on values")
        return False

    def counted(self, s):
        """The loop s runs a constant count the sweep unrolls (Reverser.bounds)."""
        self.quiet += 1
        try:
            self.bounds(s)
            return True
        except NoReverse:
            return False
        finally:
            self.quiet -= 1

    def stmt(self, s, fwd, rev, last):
        if isinstance(s, ir.PAssign) and (isinstance(s.lv, ir.Name) and self.name(s.lv) not in self.svars and self.name(s.lv) not in self.arrays
                                          or self.parray(s.lv)):
            e = self.expr(s.e)
            fwd.append("%s %s %s;" % (s.lv.cgen(self.lk), s.op, "MFAD_VS(%s)" % e if s.op == "=" else e))  # as declare: literals broadcast
            return
        if isinstance(s, ir.Op) and s.name == "matmuld":
            # its constant matrix on lanes: the parameters' lane vectors (F = Ds Dm^-1, Dm^-1 in p); a
            # table of doubles is not a lane vector
            b = str(s.args[2]).replace(" ", "")
            names = "|".join(re.escape(n) for n in [self.p] + [k for k in self.parrays])
            if not re.match(r"^((%s)|&(%s)\[[^]]*\]|(%s)\+.+)$" % ((names,) * 3), b):
                raise NoLanes("op matmuld of %s (not the parameters or an array the energy sets)" % b)
        return super().stmt(s, fwd, rev, last)

    def function(self):
        out = super().function()
        out.insert(2, "  (void)_mfad_div; /* an energy without a branch on values never reports one */")
        res = [line for h in self.lane_helpers.values() for line in h]
        for line in out:
            m = re.match(r"^  double (\w+)( = 0\.0)?;(.*)$", line)
            if m:
                line = "  MFAD_S %s%s;%s" % (m.group(1), " = MFAD_VS(0.0)" if m.group(2) else "", m.group(3))
            line = re.sub(r"^  double (\w+\[\d+\]);$", r"  MFAD_S \1;", line)  # an array of doubles the energy sets
            res.append(line)
        return res


def lanes_function(body_ir):
    """The lanes body's lines (MFAD_ENERGY_LANES_BODY), or raises NoLanes/NoReverse."""
    return LaneReverser(body_ir).function()


def lanes_feature_code(feature):
    """The feature map and its transpose (features.py's text) over lanes: mfad_feature_map_lanes and
    mfad_feature_pull_lanes on mfad_vd arrays (one element a lane), constants broadcast."""
    out = []
    for line in feature:
        line = line.replace("MFAD_FEATURE_MAP_DEFINED", "MFAD_FEATURE_MAP_LANES_DEFINED")
        line = re.sub(r"\bmfad_feature_(map|pull)\(", r"mfad_feature_\1_lanes(", line)
        line = re.sub(r"\bdouble\b", "mfad_vd", line)
        line = re.sub(r"= (-?[0-9][0-9.eE+-]*);$", r"= MFAD_VS(\1);", line)
        out.append(line)
    return out
