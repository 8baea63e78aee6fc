# SPDX-License-Identifier: BSD-2-Clause
"""Forward emission, part 3: calls (helpers, the mfad_* intrinsics), statements and the function."""
import copy

from pycparser import c_ast

from .common import ARITH, MATH1, MATH2, PASSIVE_MATH, VALUE_TESTS, fail, src
from .symbols import array_arg, const_int


class Statements:
    """Emitter methods for calls and statements (see emit_forward.Emitter)."""

    # ------------------------------------------------------------ calls
    INTRINSICS = {
        # helper: (pattern of active array/scalar args, emission); r is the return slot
        "mfad_dot3": [((True, True), "OP(dot3)({r}, {0}, {1});")],
        "mfad_sub3": [((True, True, True), "OP(sub3)({0}, {1}, {2});")],
        "mfad_cross3": [((True, True, True), "OP(cross3)({0}, {1}, {2});")],
        "mfad_norm3": [((True,), "OP(norm3)({r}, {0});")],
        "mfad_frob2": [((True, False), "OP(frob2)({r}, {0}, {1});")],
        "mfad_det2": [((True,), "OP(det2)({r}, {0});")],
        "mfad_det3": [((True,), "OP(det3)({r}, {0});")],
        "mfad_inv2": [((True, True), "OP(inv2)({0}, {r}, {1});")],
        "mfad_inv3": [((True, True), "OP(inv3)({0}, {r}, {1});")],
        "mfad_matmul": [((True, True, False, False), "OP(matmuld)({0}, {1}, {2}, {3});"), ((True, True, True, False), "OP(matmul)({0}, {1}, {2}, {3});")],
        "mfad_tmatmul": [((True, True, True, False), "OP(tmatmul)({0}, {1}, {2}, {3});")],
    }

    def call_args(self, e, callee):
        out = []
        for a, prm in zip(e.args.exprs if e.args else [], callee.fn.params):
            if prm.is_ptr:
                v, k = array_arg(self.fn, a)
                if not prm.const:
                    self.check_write(a, v)
                text = self.vname(v)
                if k is not None:  # &v[k]: entries k .. k + size - 1 must lie within v
                    self.check_index(k, v, 0, k, prm.size or 1)
                    text = "&%s[%s]" % (text, self.pexpr(k))
                out.append(text)
            elif prm.is_double and callee.sig[prm.index]:
                out.append("&" + self.aexpr(a))
            else:
                out.append(self.pexpr(a))
        return out

    def call_text(self, e, callee):
        return "%s(%s)" % (callee.cname, ", ".join(self.call_args(e, callee)))

    def emit_call(self, e, callee, ret):
        """A call as a statement; ret is '&slot' for a differentiated return value, or None."""
        if not self.host and callee.fn.fdef.coord.file == self.tr.energy_h and callee.fn.name in self.INTRINSICS:
            for pattern, text in self.INTRINSICS[callee.fn.name]:
                if tuple(pattern) == tuple(callee.sig) and (ret is not None or "{r}" not in text or callee.fn.name in ("mfad_inv2", "mfad_inv3")):
                    args = self.call_args(e, callee)
                    outs = [a for a, prm in zip(args, callee.fn.params) if prm.is_ptr and not prm.const]
                    ins = [a for a, prm in zip(args, callee.fn.params) if prm.is_ptr and prm.const]
                    if {t.lstrip("&").split("[")[0] for t in outs} & {t.lstrip("&").split("[")[0] for t in ins}:
                        fail(e, "'%s': the output array is also an input (mfad's helpers need separate arrays)" % src(e))
                    self.pre.append(text.format(*args, r=(ret if ret is not None else "0")))
                    return
        args = self.call_args(e, callee)
        if callee.ret_active:
            if ret is None:
                ret = "&" + self.temp()
            args.append(ret)
            self.pre.append("%s(%s);" % (callee.cname, ", ".join(args)))
        elif ret is not None:
            self.pre.append("OP(set)(%s, %s(%s));" % (ret, callee.cname, ", ".join(args)))
        else:
            self.pre.append("(void)%s(%s);" % (callee.cname, ", ".join(args)) if callee.fn.ret != "void" else "%s(%s);" % (callee.cname, ", ".join(args)))

    # ------------------------------------------------------------ statements
    def stmt(self, s, depth):
        if isinstance(s, c_ast.Compound):
            self.put(s.coord, depth, "{")
            saved = dict(self.consts)
            for item in s.block_items or []:
                self.stmt(item, depth + 1)
            self.consts = saved
            self.put(None, depth, "}")
            return
        self.begin()
        if isinstance(s, c_ast.Decl):
            self.decl(s, depth)
        elif isinstance(s, c_ast.Assignment):
            self.assign(s)
            self.end(s.coord, "", depth)
        elif isinstance(s, c_ast.FuncCall):
            name = self.call_name(s)
            if name in MATH1 or name in MATH2 or name in PASSIVE_MATH or name == "pow" or name in VALUE_TESTS:
                fail(s, "the value of %s() is not used" % name)
            callee = self.tr.callee_spec(self.s, s)
            self.emit_call(s, callee, None)
            self.end(s.coord, "", depth)
        elif isinstance(s, c_ast.UnaryOp) and s.op in ("p++", "p--", "++", "--"):
            self.end(s.coord, self.pexpr(s) + ";", depth)
        elif isinstance(s, c_ast.If):
            c = self.pexpr(s.cond, True)
            wrap = bool(self.temps or self.pre)
            if wrap:  # the condition reads differentiated helpers' values: compute them in a block around the if
                decl = "T %s; " % ", ".join(self.temps) if self.temps else ""
                self.put(s.coord, depth, "{ %s%s const int _mfad_c%d = %s;" % (decl, " ".join(self.pre), depth, c))
                c = "_mfad_c%d" % depth
            self.put(s.coord, depth, "if (%s)" % c)
            self.branch(s.iftrue, depth)
            if s.iffalse is not None:
                self.put(s.iffalse.coord, depth, "else")
                self.branch(s.iffalse, depth)
            if wrap:
                self.put(None, depth, "}")
        elif isinstance(s, c_ast.For):
            self.for_(s, depth)
        elif isinstance(s, c_ast.Return):
            self.ret(s, depth)
        elif isinstance(s, (c_ast.Break, c_ast.Continue)):
            if not self.loops:
                fail(s, "break/continue outside a for loop")
            self.put(s.coord, depth, src(s).strip().rstrip(";") + ";")
        elif isinstance(s, c_ast.EmptyStatement):
            pass
        elif isinstance(s, c_ast.Cast) and src(s.to_type).strip() == "void":
            v = self.var(s.expr) if isinstance(s.expr, c_ast.ID) else None
            if v is None:
                fail(s, "'%s': a (void) cast in an energy marks an unused variable or parameter only" % src(s))
            self.end(s.coord, "(void)%s;" % self.vname(v), depth)
        elif isinstance(s, (c_ast.While, c_ast.DoWhile)):
            fail(s, "while loops are not supported in an energy: use a for loop with constant bounds")
        elif isinstance(s, (c_ast.Goto, c_ast.Label)):
            fail(s, "goto and labels are not supported in an energy")
        elif isinstance(s, c_ast.Switch):
            fail(s, "switch is not supported in an energy: use if/else")
        elif isinstance(s, c_ast.Pragma):
            pass
        else:
            fail(s, "'%s' is not supported as a statement in an energy" % src(s).strip())

    def branch(self, s, depth):
        if isinstance(s, c_ast.Compound):
            self.stmt(s, depth)
        else:
            self.put(None, depth, "{")
            self.stmt(s, depth + 1)
            self.put(None, depth, "}")

    def decl(self, d, depth):
        v = self.var(d)
        dims = "".join("[%d]" % n for n in v.dims)
        if self.active(v):
            if v not in self.lv_override:  # else it is the result itself (returned_local)
                self.put(d.coord, depth, "T %s%s;" % (v.name, dims))
            self.begin()
            if d.init is not None:
                self.init_active(d, self.vname(v), d.init, v.dims)
            self.end(d.coord, "", depth)
            return
        q = "const " if v.const else ""
        if d.init is None:
            self.end(d.coord, "%s%s %s%s;" % (q, v.base, v.name, dims), depth)
            return
        init = self.pinit(d.init)
        if v.const and not v.dims and not v.is_double:
            k = const_int(d.init, self.consts)
            if k is not None:
                self.consts[v.name] = k
        body = "%s%s %s%s = %s;" % (q, v.base, v.name, dims, init)
        if self.temps or self.pre:  # a passive value read from a differentiated helper: keep the variable in scope
            self.put(d.coord, depth, "%s %s%s;" % (v.base, v.name, dims))
            self.end(d.coord, "%s = %s;" % (v.name, init), depth)
        else:
            self.end(d.coord, body, depth)

    def pinit(self, init):
        if isinstance(init, c_ast.InitList):
            return "{" + ", ".join(self.pinit(i) for i in init.exprs) + "}"
        if isinstance(init, c_ast.NamedInitializer):
            fail(init, "designated initialisers are not supported in an energy function")
        return self.pexpr(init)

    def init_active(self, d, name, init, dims):
        if isinstance(init, c_ast.InitList):
            if not dims:
                fail(init, "'%s' is not an array" % name)
            items = init.exprs
            if len(items) > dims[0]:
                fail(init, "too many initialisers for '%s'" % name)
            for k in range(dims[0]):
                sub = "%s[%d]" % (name, k)
                if k < len(items):
                    self.init_active(d, sub, items[k], dims[1:])
                else:
                    self.zero(sub, dims[1:])
            return
        if dims:
            fail(init, "array '%s' needs a braced initialiser" % name)
        self.aexpr(init, name)

    def zero(self, name, dims):
        if not dims:
            self.pre.append("OP(set)(&%s, 0.0);" % name)
        else:
            for k in range(dims[0]):
                self.zero("%s[%d]" % (name, k), dims[1:])

    def assign(self, s):
        v, lv = self.lvalue(s.lvalue)
        self.check_write(s, v)
        if v is None:
            fail(s, "cannot assign to '%s'" % src(s.lvalue))
        if v.is_param and v.is_ptr and v.const:
            fail(s, "write to const array '%s'" % v.name)
        if s.op == "=":
            rhs = s.rvalue
        else:
            rhs = c_ast.BinaryOp(s.op[:-1], s.lvalue, s.rvalue, s.coord)
            if s.op[:-1] not in ARITH and self.active(v):
                fail(s, "operator '%s' on a differentiated value" % s.op)
        if self.active(v):
            self.aexpr(rhs, lv)
        else:
            if self.s.expr_active(rhs):
                fail(s, "'%s' carries a derivative but '%s' is %s" % (src(s.rvalue), v.name, v.base))
            self.pre.append("%s %s %s;" % (lv, s.op, self.pexpr(s.rvalue)))

    def for_(self, s, depth):
        init, var = s.init, None
        parts = []
        if isinstance(init, c_ast.DeclList):
            if len(init.decls) != 1:
                fail(s, "a for loop declares one counter")
            d = init.decls[0]
            v = self.var(d)
            if v.is_double or v.dims:
                fail(d, "loop counter '%s' must be an integer" % d.name)
            if self.uses_active(d.init):
                fail(d.init, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(d.init))
            parts.append("%s %s = %s" % (v.base, v.name, self.pexpr(d.init)))
            var = v.name
        elif isinstance(init, c_ast.Assignment):
            v, lv = self.lvalue(init.lvalue)
            if v.is_double:
                fail(init, "loop counter '%s' must be an integer" % v.name)
            if self.uses_active(init.rvalue):
                fail(init.rvalue, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(init.rvalue))
            parts.append("%s %s %s" % (lv, init.op, self.pexpr(init.rvalue)))
            var = v.name
        elif init is None:
            parts.append("")
        else:
            fail(s, "unsupported for-loop initialisation '%s'" % src(init))
        for part in (s.cond, s.next):
            if part is None:
                fail(s, "a for loop needs a condition and a step (constant bounds)")
            if self.uses_active(part):
                fail(part, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(part))
        self.begin()
        cond = self.pexpr(s.cond)
        nxt = self.pexpr(s.next) if not isinstance(s.next, c_ast.Assignment) else self.passive_assign_text(s.next)
        if self.temps or self.pre:
            fail(s, "loop condition calls a function of differentiated values")
        parts += [cond, nxt]
        # loops of differentiated arithmetic unrolled (their numbers stay in registers); a loop on
        # values only (a Newton iteration that breaks when converged) is left to the compiler
        unroll = "" if self.host or not self.uses_active(s.stmt) else "MFAD_UNROLL "
        self.put(s.coord, depth, "%sfor (%s; %s; %s)" % (unroll, parts[0], parts[1], parts[2]))
        self.loops.append((var, s))
        self.branch(s.stmt, depth)
        self.loops.pop()

    def passive_assign_text(self, a):
        v, lv = self.lvalue(a.lvalue)
        if v is not None and v.is_double:
            fail(a, "loop step must change an integer counter")
        return "%s %s %s" % (lv, a.op, self.pexpr(a.rvalue))

    def uses_active(self, e):
        return self.s.mentions(e)

    def ret(self, s, depth):
        if self.s.energy and self.s.tr.residual:
            if s.expr is not None:
                fail(s, "a residual returns nothing: it writes its outputs")
            self.end(s.coord, "return;", depth)
        elif self.s.energy or self.s.ret_active:
            if s.expr is None:
                fail(s, "the energy must return a value")
            out = "(*_mfad_E)" if self.s.energy else "(*_mfad_r)"
            v = self.var(s.expr) if isinstance(s.expr, c_ast.ID) else None
            if v is None or self.vname(v) != out:
                self.aexpr(s.expr, out)
            self.end(s.coord, "return;", depth)
        else:
            if s.expr is None:
                self.end(s.coord, "return;", depth)
            else:
                if self.s.expr_active(s.expr):
                    fail(s, "internal: active return in a passive function")
                self.end(s.coord, "return %s;" % self.pexpr(s.expr), depth)

    def returned_local(self):
        """The differentiated scalar local that every differentiated return returns (an energy
        summed term by term: `double E = 0; ... E += t; ... return E;`), or None. It is given the
        result's storage: no variable of its own and no copy at the return."""
        found = set()
        for r in self.s.returns():
            if r.expr is None or not self.s.expr_active(r.expr):
                continue  # return INFINITY; and the like write the result as they are
            v = self.var(r.expr) if isinstance(r.expr, c_ast.ID) else None
            if v is None or v.is_param or v.is_array:
                return None
            found.add(v)
        return found.pop() if len(found) == 1 else None

    # ------------------------------------------------------------ the function
    def function(self):
        s, fn = self.s, self.fn
        pre_body = []
        if (s.energy and not s.tr.residual) or s.ret_active:
            v = self.returned_local()
            if v is not None:
                self.lv_override[v] = "(*_mfad_E)" if s.energy else "(*_mfad_r)"
        if s.energy:
            x, p = fn.params[:2]
            head = "MFAD_ENERGY_BODY(%s, %s, %s)" % (x.name, p.name, fn.params[2].name if s.tr.residual else "_mfad_E")
            uses_p = any(v is p for v in fn.var_of.values())
            if not uses_p:
                pre_body.append("(void)%s;" % p.name)
        else:
            params = []
            for v in fn.params:
                act = s.is_active(v)
                if v.is_ptr:
                    ty = ("T" if act else v.base)
                    params.append("%s%s *%s" % ("const " if v.const else "", ty, v.name))
                elif v.is_double:
                    copy = v in fn.assigned or (act and not s.sig[v.index])
                    if s.sig[v.index]:
                        pname = "_mfad_a_" + v.name if copy else v.name
                        params.append("const T *%s" % pname)
                        if copy:
                            pre_body.append("T %s; OP(copy)(&%s, %s);" % (v.name, v.name, pname))
                        else:
                            self.lv_override[v] = "(*%s)" % v.name
                    else:
                        if act:
                            params.append("double _mfad_a_%s" % v.name)
                            pre_body.append("T %s; OP(set)(&%s, _mfad_a_%s);" % (v.name, v.name, v.name))
                        else:
                            params.append("%s%s %s" % ("const " if v.const else "", v.base, v.name))
                else:
                    params.append("%s%s %s" % ("const " if v.const else "", v.base, v.name))
            if s.ret_active:
                params.append("T *_mfad_r")
                ret = "void"
            else:
                ret = fn.ret
            if not params:
                params = ["void"]
            if self.host:
                head = "static %s %s(%s)" % (ret, s.cname, ", ".join(params))
            else:
                head = "MFAD_ENERGY_HELPER %s %s(%s)" % (ret, s.cname, ", ".join(params))
        self.put(fn.coord, 0, head)
        self.put(fn.fdef.body.coord, 0, "{")
        for t in pre_body:
            self.put(fn.fdef.body.coord, 1, t)
        for item in fn.fdef.body.block_items or []:
            self.stmt(item, 1)
        self.put(None, 0, "}")
        return self.lines
