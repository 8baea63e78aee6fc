# SPDX-License-Identifier: BSD-2-Clause
"""Forward emission, part 3: calls (helpers, the mfad_* intrinsics), statements and the function."""
from pycparser import c_ast

from . import ir
from .common import ARITH, MATH1, MATH2, PASSIVE_MATH, VALUE_TESTS, fail, src
from .symbols import array_arg, const_int


class Statements:
    """Emitter methods for calls and statements (see emit_forward.Emitter)."""

    # ------------------------------------------------------------ calls
    INTRINSICS = {
        # helper: (pattern of active array/scalar args, (OP, its arguments: the call's by position, r the return slot))
        "mfad_dot3": [((True, True), ("dot3", ("r", 0, 1)))],
        "mfad_sub3": [((True, True, True), ("sub3", (0, 1, 2)))],
        "mfad_cross3": [((True, True, True), ("cross3", (0, 1, 2)))],
        "mfad_norm3": [((True,), ("norm3", ("r", 0)))],
        "mfad_frob2": [((True, False), ("frob2", ("r", 0, 1)))],
        "mfad_det2": [((True,), ("det2", ("r", 0)))],
        "mfad_det3": [((True,), ("det3", ("r", 0)))],
        "mfad_inv2": [((True, True), ("inv2", (0, "r", 1)))],
        "mfad_inv3": [((True, True), ("inv3", (0, "r", 1)))],
        "mfad_matmul": [((True, True, False, False), ("matmuld", (0, 1, 2, 3))), ((True, True, True, False), ("matmul", (0, 1, 2, 3)))],
        "mfad_tmatmul": [((True, True, True, False), ("tmatmul", (0, 1, 2, 3)))],
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
                    text = ir.Addr(ir.Index(text, self.pexpr(k)))
                out.append(text)
            elif prm.is_double and callee.sig[prm.index]:
                out.append(ir.Addr(self.aexpr(a)))
            else:
                out.append(self.pexpr(a))
        return out

    def call_text(self, e, callee):
        return ir.Call(callee.fn_ref, self.call_args(e, callee))

    @staticmethod
    def array_name(arg):
        """The array an argument (a, &a[k]) passes."""
        while isinstance(arg, (ir.Addr, ir.Index)):
            arg = arg.e if isinstance(arg, ir.Addr) else arg.base
        return arg

    def emit_call(self, e, callee, ret):
        """A call as a statement; ret is the slot (ir.Addr) of a differentiated return value, or None."""
        if not self.host and callee.fn.fdef.coord.file == self.tr.energy_h and callee.fn.name in self.INTRINSICS:
            for pattern, (op, order) in self.INTRINSICS[callee.fn.name]:
                if tuple(pattern) == tuple(callee.sig) and (ret is not None or "r" not in order or callee.fn.name in ("mfad_inv2", "mfad_inv3")):
                    args = self.call_args(e, callee)
                    outs = [a for a, prm in zip(args, callee.fn.params) if prm.is_ptr and not prm.const]
                    ins = [a for a, prm in zip(args, callee.fn.params) if prm.is_ptr and prm.const]
                    if {self.array_name(t) for t in outs} & {self.array_name(t) for t in ins}:
                        fail(e, "'%s': the output array is also an input (mfad's helpers need separate arrays)" % src(e))
                    self.pre.append(ir.Op(op, [(ret if ret is not None else ir.Lit("0")) if i == "r" else args[i] for i in order]))
                    return
        args = self.call_args(e, callee)
        if callee.ret_active:
            if ret is None:
                ret = ir.Addr(self.temp())
            args.append(ret)
            self.pre.append(ir.CallS(ir.Call(callee.fn_ref, args)))
        elif ret is not None:
            self.pre.append(ir.Op("set", [ret, ir.Call(callee.fn_ref, args)]))
        else:
            self.pre.append(ir.CallS(ir.Call(callee.fn_ref, args), void_cast=callee.fn.ret != "void"))

    # ------------------------------------------------------------ statements
    def block(self, items, coord, depth):
        """The statements `items` (at nesting depth `depth`) as an ir.Block (their own list of lines)."""
        saved, self.out = self.out, []
        for item in items:
            self.stmt(item, depth)
        out, self.out = self.out, saved
        return ir.Block(coord, out)

    def stmt(self, s, depth):
        if isinstance(s, c_ast.Compound):
            saved = dict(self.consts)
            self.put(self.block(s.block_items or [], s.coord, depth + 1))
            self.consts = saved
            return
        self.begin()
        if isinstance(s, c_ast.Decl):
            self.decl(s)
        elif isinstance(s, c_ast.Assignment):
            self.assign(s)
            self.end(s.coord)
        elif isinstance(s, c_ast.FuncCall):
            name = self.call_name(s)
            if name in MATH1 or name in MATH2 or name in PASSIVE_MATH or name == "pow" or name in VALUE_TESTS:
                fail(s, "the value of %s() is not used" % name)
            callee = self.tr.callee_spec(self.s, s)
            self.emit_call(s, callee, None)
            self.end(s.coord)
        elif isinstance(s, c_ast.UnaryOp) and s.op in ("p++", "p--", "++", "--"):
            self.end(s.coord, ir.ExprS(self.pexpr(s), "UnaryOp"))
        elif isinstance(s, c_ast.If):
            c = self.pexpr(s.cond, True)
            scope = None
            if self.temps or self.pre:  # the condition reads differentiated helpers' values: compute them in a block around the if
                scope = ir.Scope(s.coord, self.temps, self.pre + [ir.PDecl("int", "_mfad_c%d" % depth, init=c, const=True)], [])
                c = ir.Name("_mfad_c%d" % depth)
            node = ir.If(s.coord, c, self.branch(s.iftrue, depth))
            if s.iffalse is not None:
                node.else_, node.else_coord = self.branch(s.iffalse, depth), s.iffalse.coord
            if scope is not None:
                scope.stmts.append(node)
                node = scope
            self.put(node)
        elif isinstance(s, c_ast.For):
            self.for_(s, depth)
        elif isinstance(s, c_ast.Return):
            self.ret(s)
        elif isinstance(s, (c_ast.Break, c_ast.Continue)):
            if not self.loops:
                fail(s, "break/continue outside a for loop")
            self.put(ir.Line(s.coord, [ir.Jump("break" if isinstance(s, c_ast.Break) else "continue")]))
        elif isinstance(s, c_ast.EmptyStatement):
            pass
        elif isinstance(s, c_ast.Cast) and src(s.to_type).strip() == "void":
            v = self.var(s.expr) if isinstance(s.expr, c_ast.ID) else None
            if v is None:
                fail(s, "'%s': a (void) cast in an energy marks an unused variable or parameter only" % src(s))
            self.end(s.coord, ir.ExprS(ir.Cast("void", self.vname(v)), "Cast"))
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
        """A branch or loop body as an ir.Block (a statement that is not a block gets one)."""
        if isinstance(s, c_ast.Compound):
            saved = dict(self.consts)
            b = self.block(s.block_items or [], s.coord, depth + 1)
            self.consts = saved
            return b
        return self.block([s], None, depth + 1)

    def decl(self, d):
        v = self.var(d)
        if self.active(v):
            if v not in self.lv_override:  # else it is the result itself (returned_local)
                self.put(ir.Line(d.coord, [ir.TDecl([v.name], v.dims)]))
            self.begin()
            if d.init is not None:
                self.init_active(d, self.vname(v), d.init, v.dims)
            self.end(d.coord)
            return
        if d.init is None:
            self.end(d.coord, ir.PDecl(v.base, v.name, v.dims, const=v.const))
            return
        init = self.pinit(d.init)
        if v.const and not v.dims and not v.is_double:
            k = const_int(d.init, self.consts)
            if k is not None:
                self.consts[v.name] = k
        if self.temps or self.pre:  # a passive value read from a differentiated helper: keep the variable in scope
            self.put(ir.Line(d.coord, [ir.PDecl(v.base, v.name, v.dims)]))
            self.end(d.coord, ir.PAssign(ir.Name(v.name), "=", init))
        else:
            self.end(d.coord, ir.PDecl(v.base, v.name, v.dims, init, const=v.const))

    def pinit(self, init):
        if isinstance(init, c_ast.InitList):
            return ir.Init([self.pinit(i) for i in init.exprs])
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
                sub = ir.Index(name, ir.Lit(str(k)))
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
            self.pre.append(ir.Op("set", [ir.Addr(name), ir.Lit("0.0")]))
        else:
            for k in range(dims[0]):
                self.zero(ir.Index(name, ir.Lit(str(k))), dims[1:])

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
            self.pre.append(ir.PAssign(lv, s.op, self.pexpr(s.rvalue)))

    def for_(self, s, depth):
        init, var = s.init, None
        if isinstance(init, c_ast.DeclList):
            if len(init.decls) != 1:
                fail(s, "a for loop declares one counter")
            d = init.decls[0]
            v = self.var(d)
            if v.is_double or v.dims:
                fail(d, "loop counter '%s' must be an integer" % d.name)
            if self.uses_active(d.init):
                fail(d.init, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(d.init))
            head = ("decl", v.base, v.name, "=", self.pexpr(d.init))
            var = v.name
        elif isinstance(init, c_ast.Assignment):
            v, lv = self.lvalue(init.lvalue)
            if v.is_double:
                fail(init, "loop counter '%s' must be an integer" % v.name)
            if self.uses_active(init.rvalue):
                fail(init.rvalue, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(init.rvalue))
            head = ("assign", None, lv, init.op, self.pexpr(init.rvalue))
            var = v.name
        elif init is None:
            head = None
        else:
            fail(s, "unsupported for-loop initialisation '%s'" % src(init))
        for part in (s.cond, s.next):
            if part is None:
                fail(s, "a for loop needs a condition and a step (constant bounds)")
            if self.uses_active(part):
                fail(part, "loop bound '%s' depends on the element's unknowns: loops need constant bounds" % src(part))
        self.begin()
        cond = self.pexpr(s.cond)
        nxt = self.pexpr(s.next) if not isinstance(s.next, c_ast.Assignment) else self.passive_assign(s.next)
        if self.temps or self.pre:
            fail(s, "loop condition calls a function of differentiated values")
        # loops of differentiated arithmetic unrolled (their numbers stay in registers); a loop on
        # values only (a Newton iteration that breaks when converged) is left to the compiler
        unroll = "" if self.host or not self.uses_active(s.stmt) else "MFAD_UNROLL "
        self.loops.append((var, s))
        body = self.branch(s.stmt, depth)
        self.loops.pop()
        self.put(ir.For(s.coord, head, cond, nxt, body, unroll))

    def passive_assign(self, a):
        v, lv = self.lvalue(a.lvalue)
        if v is not None and v.is_double:
            fail(a, "loop step must change an integer counter")
        return ir.PAssign(lv, a.op, self.pexpr(a.rvalue))

    def uses_active(self, e):
        return self.s.mentions(e)

    def ret(self, s):
        if self.s.energy and self.s.tr.residual:
            if s.expr is not None:
                fail(s, "a residual returns nothing: it writes its outputs")
            self.end(s.coord, ir.Return())
        elif self.s.energy or self.s.ret_active:
            if s.expr is None:
                fail(s, "the energy must return a value")
            out = "(*_mfad_E)" if self.s.energy else "(*_mfad_r)"
            v = self.var(s.expr) if isinstance(s.expr, c_ast.ID) else None
            if v is None or self.vname(v) != out:
                self.aexpr(s.expr, ir.Deref(ir.Name(out[2:-1])))
            self.end(s.coord, ir.Return())
        else:
            if s.expr is None:
                self.end(s.coord, ir.Return())
            else:
                if self.s.expr_active(s.expr):
                    fail(s, "internal: active return in a passive function")
                self.end(s.coord, ir.Return(self.pexpr(s.expr)))

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
        """The Spec's function as an ir.Function."""
        s, fn = self.s, self.fn
        pre_body = []
        if (s.energy and not s.tr.residual) or s.ret_active:
            v = self.returned_local()
            if v is not None:
                self.lv_override[v] = ir.Deref(ir.Name("_mfad_E" if s.energy else "_mfad_r"))
        if s.energy:
            x, p = fn.params[:2]
            f = ir.Function("body", fn.coord, fn.fdef.body.coord, body_names=(x.name, p.name, fn.params[2].name if s.tr.residual else "_mfad_E"))
            uses_p = any(v is p for v in fn.var_of.values())
            if not uses_p:
                pre_body.append([ir.ExprS(ir.Cast("void", ir.Name(p.name)), "Cast")])
        else:
            params = []
            for v in fn.params:
                act = s.is_active(v)
                if v.is_ptr:
                    ty = ("T" if act else v.base)
                    params.append(("%s%s *%s" % ("const " if v.const else "", ty, v.name), v.name))
                elif v.is_double:
                    copy = v in fn.assigned or (act and not s.sig[v.index])
                    if s.sig[v.index]:
                        pname = "_mfad_a_" + v.name if copy else v.name
                        params.append(("const T *%s" % pname, pname))
                        if copy:
                            pre_body.append([ir.TDecl([v.name]), ir.Op("copy", [ir.Addr(ir.Name(v.name)), ir.Name(pname)])])
                        else:
                            self.lv_override[v] = ir.Deref(ir.Name(v.name))
                    else:
                        if act:
                            params.append(("double _mfad_a_%s" % v.name, "_mfad_a_" + v.name))
                            pre_body.append([ir.TDecl([v.name]), ir.Op("set", [ir.Addr(ir.Name(v.name)), ir.Name("_mfad_a_" + v.name)])])
                        else:
                            params.append(("%s%s %s" % ("const " if v.const else "", v.base, v.name), v.name))
                else:
                    params.append(("%s%s %s" % ("const " if v.const else "", v.base, v.name), v.name))
            if s.ret_active:
                params.append(("T *_mfad_r", "_mfad_r"))
                ret = "void"
            else:
                ret = fn.ret
            f = ir.Function("host" if self.host else "helper", fn.coord, fn.fdef.body.coord, s.cname, ret, params)
        f.fn_name = s.fn_ref.name if not s.energy else None
        f.pre = [ir.Line(fn.fdef.body.coord, items) for items in pre_body]
        for item in fn.fdef.body.block_items or []:
            self.stmt(item, 1)
        f.stmts = self.out
        return f
