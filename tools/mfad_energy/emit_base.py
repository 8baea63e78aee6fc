# SPDX-License-Identifier: BSD-2-Clause
"""Forward emission, part 1: the statement context (temporaries), variables and passive expressions."""
from pycparser import c_ast

from . import ir
from .common import ARITH, COMPARE, MATH1, MATH2, PASSIVE_MATH, SPECIAL_IDS, VALUE_TESTS, fail, src
from .symbols import const_int


class EmitterBase:
    """Lowers one Spec to the IR (ir.py): the OP() dialect of include/mfad/impl/ad_generic.h, as nodes."""

    def __init__(self, spec):
        self.s, self.fn, self.tr = spec, spec.fn, spec.tr
        self.out = []  # the function's statements (ir.Line, ir.Block, ...), innermost block last
        self.loops = []  # (var name, For node) of the enclosing constant-bound loops
        self.consts = {}  # const int locals with constant values
        self.lv_override = {}  # Var -> text (active scalar parameters passed by pointer)
        self.host = spec.flavor == "host"

    # ------------------------------------------------------------ statement context
    def begin(self):
        self.temps, self.free, self.pre, self.ntmp = [], [], [], 0

    def temp(self):
        if self.free:
            return self.free.pop()
        name = ir.Name("_t%d" % len(self.temps))
        self.temps.append(name)
        return name

    def dtemp(self, expr):
        name = ir.Name("_s%d" % self.ntmp)
        self.ntmp += 1
        self.pre.append(ir.PDecl("double", name, init=expr, const=True))
        return name

    def end(self, coord, item=None):
        """The statement's line: its operations (self.pre), then item (an ir.Stmt or None)."""
        # a jet entry that no rule took (the product of a term with itself needs no a''): dropped,
        # in one backward pass (a temporary is read only by the statements after it)
        used, kept = item.names() if item is not None else set(), []
        for t in reversed(self.pre):
            if isinstance(t, ir.PDecl) and t.name[:2] == "_s" and t.name[2:].isdigit() and t.name not in used:
                continue
            used |= t.names()
            kept.append(t)
        self.pre = kept[::-1]
        items = self.pre + ([item] if item is not None else [])
        if items:
            self.put(ir.Line(coord, items, self.temps, bool(self.temps or (self.pre and self.ntmp))))

    def put(self, stmt):
        self.out.append(stmt)

    # ------------------------------------------------------------ variables
    def var(self, node):
        return self.fn.var_of.get(id(node))

    def active(self, v):
        return self.s.is_active(v)

    def vname(self, v):
        return self.lv_override.get(v) or ir.Name(v.name)

    def check_index(self, ref, v, depth_i, idx, extent=1):
        """Constant indices (including those of constant-bound loops) must lie within the array
        (with extent: entries idx .. idx + extent - 1, a sub-array passed to a function)."""
        size = v.size if v.is_param else (v.dims[depth_i] if depth_i < len(v.dims) else None)
        if size is None:
            return
        names = set()

        def ids(n):
            if isinstance(n, c_ast.ID):
                names.add(n.name)
            for _, ch in n.children():
                ids(ch)

        ids(idx)
        for env in self.loop_envs(names):
            k = const_int(idx, env)
            if k is None:
                return
            if k < 0 or k + extent > size:
                where = ", ".join("%s = %d" % (n, env[n]) for n in sorted(names) if n in env and n not in self.consts)
                what = "index %d of '%s' is" % (k, v.name) if extent == 1 else "entries %d to %d of '%s' are" % (k, k + extent - 1, v.name)
                fail(idx, "%s out of range (%d entries)%s" % (what, size, " at " + where if where else ""))

    def loop_envs(self, names):
        """Every assignment of the enclosing constant-bound loops' variables (up to a limit)."""
        loops = [l for l in self.loops if l is not None]
        base = dict(self.consts)
        count = [0]

        def rec(i, env):
            if count[0] > 200000:
                return
            if i == len(loops):
                count[0] += 1
                yield dict(env)
                return
            name, node = loops[i]
            vals = self.loop_values(node, env)
            if vals is None:
                env.pop(name, None)
                yield from rec(i + 1, env)
                return
            for val in vals:
                env[name] = val
                yield from rec(i + 1, env)
            env.pop(name, None)

        yield from rec(0, base)

    def loop_values(self, node, env):
        init = node.init
        if isinstance(init, c_ast.DeclList) and len(init.decls) == 1:
            name, start = init.decls[0].name, const_int(init.decls[0].init, env)
        elif isinstance(init, c_ast.Assignment) and init.op == "=" and isinstance(init.lvalue, c_ast.ID):
            name, start = init.lvalue.name, const_int(init.rvalue, env)
        else:
            return None
        if start is None:
            return None
        vals, i = [], start
        e = dict(env)
        while len(vals) < 4096:
            e[name] = i
            c = const_int(node.cond, e) if node.cond is not None else None
            if c is None:
                return None
            if not c:
                return vals
            vals.append(i)
            nx = node.next
            if isinstance(nx, c_ast.UnaryOp) and nx.op in ("p++", "++"):
                i += 1
            elif isinstance(nx, c_ast.UnaryOp) and nx.op in ("p--", "--"):
                i -= 1
            elif isinstance(nx, c_ast.Assignment) and nx.op in ("+=", "-="):
                step = const_int(nx.rvalue, e)
                if step is None:
                    return None
                i += step if nx.op == "+=" else -step
            else:
                return None
        return None

    def lvalue(self, e):
        """(Var, ir expression) of an ID or array element; indices are passive integers, checked."""
        chain = []
        node = e
        while isinstance(node, c_ast.ArrayRef):
            chain.append(node)
            node = node.name
        if not isinstance(node, c_ast.ID):
            fail(e, "'%s': only variables and array elements can be read or written" % src(e))
        if node.name in SPECIAL_IDS:
            return None, ir.Lit(SPECIAL_IDS[node.name])
        v = self.var(node)
        if v is None:
            if node.name in self.tr.funcs or node.name in MATH1:
                fail(node, "'%s' is a function: call it" % node.name)
            fail(node, "'%s' is not a variable of this function (global variables are not supported in an energy)" % node.name)
        chain.reverse()
        ndim = 1 if v.is_param and v.is_ptr else len(v.dims)
        if not chain and v.is_array:
            fail(e, "'%s' is an array: index it (pointer arithmetic and whole-array values are not supported; pass arrays to functions by name)" % v.name)
        if len(chain) != ndim:
            fail(e, "'%s' has %d index(es), '%s' has %d dimension(s)" % (src(e), len(chain), v.name, ndim))
        text = self.vname(v)
        for i, ref in enumerate(chain):
            if self.uses_active(ref.subscript):
                fail(ref.subscript, "array index '%s' depends on the element's unknowns: indices must be known without them" % src(ref.subscript))
            self.check_index(ref, v, i, ref.subscript)
            text = ir.Index(text, self.pexpr(ref.subscript))
        return v, text

    # ------------------------------------------------------------ passive expressions
    def pexpr(self, e, value=False):
        """A double/int expression without derivatives (ir.Expr); `value` lets differentiated values be read."""
        if isinstance(e, c_ast.Constant):
            if e.type == "string" or e.type == "char":
                fail(e, "strings and characters are not supported in an energy")
            return ir.num(e.value)
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            v, text = self.lvalue(e)
            if v is not None and self.active(v):
                if not value:
                    fail(e, "'%s' carries a derivative here (internal: not a value context)" % src(e))
                return ir.Val(text)
            return text
        if isinstance(e, c_ast.BinaryOp):
            if e.op in COMPARE:
                return ir.Paren(ir.Bin(e.op, self.pexpr(e.left, True), self.pexpr(e.right, True)))
            if e.op in ARITH:
                return ir.Paren(ir.Bin(e.op, self.pexpr(e.left, value), self.pexpr(e.right, value)))
            if self.s.expr_active(e.left) or self.s.expr_active(e.right):
                fail(e, "operator '%s' on a differentiated value" % e.op)
            return ir.Paren(ir.Bin(e.op, self.pexpr(e.left), self.pexpr(e.right)))
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("-", "+"):
                return ir.Paren(ir.Un(e.op, self.pexpr(e.expr, value)))
            if e.op == "!":
                return ir.Paren(ir.Un("!", self.pexpr(e.expr, True)))
            if e.op == "~":
                return ir.Paren(ir.Un("~", self.pexpr(e.expr)))
            if e.op == "sizeof":
                return ir.Lit(src(e), simple=False)
            if e.op in ("&", "*"):
                fail(e, "pointer arithmetic ('%s') is not supported in an energy: index arrays and pass them by name" % src(e))
            if e.op in ("p++", "p--", "++", "--"):
                v, text = self.lvalue(e.expr)
                self.check_write(e, v)
                if v is not None and v.is_double:
                    fail(e, "'%s': increment integer counters only" % src(e))
                if v is None:
                    return ir.Lit(src(e), simple=False)
                return ir.Post(e.op[1:], text) if e.op[0] == "p" else ir.Un(e.op, text)
            fail(e, "operator '%s' is not supported in an energy" % e.op)
        if isinstance(e, c_ast.TernaryOp):
            return ir.Paren(ir.Tern(self.pexpr(e.cond, True), self.pexpr(e.iftrue, value), self.pexpr(e.iffalse, value)))
        if isinstance(e, c_ast.Cast):
            ty = src(e.to_type)
            if ty not in ("double", "const double") and self.s.expr_active(e.expr) and not value:
                fail(e, "'%s' converts a differentiated value to %s: its derivative would be lost" % (src(e), ty))
            if "*" in ty:
                fail(e, "pointer casts are not supported in an energy")
            return ir.Paren(ir.Cast(ty, self.pexpr(e.expr, value or ty in ("double", "const double"))))
        if isinstance(e, c_ast.FuncCall):
            name = self.call_name(e)
            args = e.args.exprs if e.args else []
            if name in MATH1 or name in MATH2 or name == "pow" or name in PASSIVE_MATH:
                if name in PASSIVE_MATH and any(self.s.expr_active(a) for a in args) and not value:
                    fail(e, "'%s' of a differentiated value: mfad has no derivative rule for %s()" % (src(e), name))
                if any(self.s.expr_active(a) for a in args) and not value:
                    fail(e, "internal: active math call in a passive context")
                return ir.Call(ir.Fn(name), [self.pexpr(a, value) for a in args])
            if name in self.tr.rules and len(args) == 1:  # a user's function with derivative rules, at a value
                return ir.Call(self.rule_fn(name), [self.pexpr(args[0], value)])
            if name == "mfad_value":  # include/mfad/energy.h: the value, a constant for derivatives
                if len(args) != 1:
                    fail(e, "mfad_value() takes one argument")
                return ir.Paren(self.pexpr(args[0], True))
            if name in VALUE_TESTS:
                return ir.Call(ir.Fn(name), [self.pexpr(a, True) for a in args])
            callee = self.tr.callee_spec(self.s, e)
            if callee.ret_active:
                if not value:
                    fail(e, "internal: active call in a passive context")
                t = self.temp()
                self.emit_call(e, callee, ir.Addr(t))
                return ir.Val(t)
            if callee.fn.ret == "void":
                fail(e, "'%s' returns nothing: its value cannot be used" % callee.fn.name)
            return self.call_text(e, callee)
        if isinstance(e, c_ast.Assignment):
            fail(e, "assignment inside an expression: write it as its own statement")
        if isinstance(e, (c_ast.ExprList,)):
            fail(e, "the comma operator is not supported in an energy")
        fail(e, "'%s' is not supported in an energy" % src(e))

    def call_name(self, e):
        if not isinstance(e.name, c_ast.ID):
            fail(e, "calls through function pointers are not supported in an energy")
        return e.name.name

    def check_write(self, node, v):
        if v is None:
            return
        if v.role in ("x", "p"):
            fail(node, "write to '%s': the element's %s are read-only" % (v.name, "unknowns" if v.role == "x" else "parameters"))
