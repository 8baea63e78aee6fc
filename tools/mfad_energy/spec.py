# SPDX-License-Identifier: BSD-2-Clause
"""Activity analysis: which variables of a function carry derivatives, per call signature (Spec)."""
from pycparser import c_ast

from . import ir
from .common import ARITH, MATH1, MATH2, PASSIVE_MATH, VALUE_TESTS, fail, src
from .symbols import array_arg, lvalue_var


class Spec:
    """One function in one activity signature: which parameters carry derivatives."""

    def __init__(self, tr, fn, sig, flavor, energy=False):
        self.tr, self.fn, self.sig, self.flavor, self.energy = tr, fn, sig, flavor, energy
        self.active = {}
        self.tainted = set()
        self.ret_active = False
        self.emitted = None

    @property
    def cname(self):
        return self.fn_ref and str(self.fn_ref)

    @property
    def fn_ref(self):
        """The emitted function's name (ir.Fn): MFAD_FN(name__sig) per number type, or name__sig_host."""
        if self.energy:
            return None
        tag = "".join("a" if s else "p" for s in self.sig)
        if self.flavor == "host":
            return ir.Fn("%s__%s_host" % (self.fn.name, tag) if tag else "%s__host" % self.fn.name)
        return ir.Fn("%s__%s" % (self.fn.name, tag), mfad_fn=True)

    # ------------------------------------------------------------ activity analysis
    def is_active(self, v):
        return self.active.get(v, False)

    def expr_active(self, e):
        fn = self.fn
        if e is None or isinstance(e, c_ast.Constant):
            return False
        if isinstance(e, c_ast.ID):
            v = fn.var_of.get(id(e))
            return bool(v is not None and self.is_active(v))
        if isinstance(e, c_ast.ArrayRef):
            v = lvalue_var(fn, e)
            return bool(v is not None and self.is_active(v))
        if isinstance(e, c_ast.BinaryOp):
            if e.op in ARITH:
                return self.expr_active(e.left) or self.expr_active(e.right)
            return False
        if isinstance(e, c_ast.UnaryOp):
            if e.op in ("-", "+"):
                return self.expr_active(e.expr)
            return False
        if isinstance(e, c_ast.TernaryOp):
            return self.expr_active(e.iftrue) or self.expr_active(e.iffalse)
        if isinstance(e, c_ast.Cast):
            if src(e.to_type) in ("double", "const double"):
                return self.expr_active(e.expr)
            return False
        if isinstance(e, c_ast.FuncCall):
            name = e.name.name if isinstance(e.name, c_ast.ID) else None
            args = e.args.exprs if e.args else []
            if name in MATH1 or name in MATH2 or name == "pow" or name in PASSIVE_MATH or name in self.tr.rules:
                return any(self.expr_active(a) for a in args)
            if name in VALUE_TESTS:
                return False
            callee = self.tr.callee_spec(self, e)
            return callee.ret_active
        if isinstance(e, c_ast.Assignment):
            return self.expr_active(e.rvalue)
        return False

    def mentions(self, e):
        """Does e read the unknowns' values at all (also through comparisons and integers)?"""
        if isinstance(e, (c_ast.ID, c_ast.ArrayRef)):
            v = lvalue_var(self.fn, e)
            if v is not None and (self.is_active(v) or v in self.tainted):
                return True
        if isinstance(e, c_ast.FuncCall) and self.expr_active(e):
            return True
        return any(self.mentions(ch) for _, ch in e.children())

    def arg_sig(self, call, callee_fn):
        args = call.args.exprs if call.args else []
        if len(args) != len(callee_fn.params):
            fail(call, "'%s' takes %d arguments, %d given" % (callee_fn.name, len(callee_fn.params), len(args)))
        sig = []
        for a, prm in zip(args, callee_fn.params):
            if prm.is_ptr:
                aa = array_arg(self.fn, a)
                if aa is None:
                    fail(a, "argument '%s' of '%s': pass an array by name, or its entries from k on as &a[k] (other pointer arithmetic is not supported)" % (src(a), callee_fn.name))
                if len(aa[0].dims) > 1:
                    fail(a, "argument '%s' of '%s': pass matrices as flat arrays (A[3 * i + j])" % (src(a), callee_fn.name))
                if aa[1] is not None and self.expr_active(aa[1]):
                    fail(aa[1], "array index '%s' depends on a differentiated value" % src(aa[1]))
                sig.append(self.is_active(aa[0]))
            elif prm.is_double:
                sig.append(self.expr_active(a))
            else:
                if self.expr_active(a):
                    fail(a, "argument '%s' of '%s' carries a derivative but parameter '%s' is %s" % (src(a), callee_fn.name, prm.name, prm.base))
                sig.append(False)
        return tuple(sig)

    def analyse(self):
        fn = self.fn
        for v in fn.params:
            self.active[v] = bool(self.sig[v.index]) if v.index < len(self.sig) else False
        if self.energy:
            for v in fn.params:
                self.active[v] = v.role in ("x", "r")
        changed = True
        rounds = 0
        while changed:
            changed = False
            rounds += 1
            for lhs, rhs in self.flows():
                if lhs is not None and not lhs.is_double and lhs not in self.tainted and self.mentions(rhs):
                    self.tainted.add(lhs)  # an integer computed from the unknowns' values (a comparison)
                    changed = True
                if lhs is not None and not self.is_active(lhs) and self.expr_active(rhs):
                    if not lhs.is_double:
                        fail(rhs, "'%s' carries a derivative but '%s' is %s: store it in a double" % (src(rhs), lhs.name, lhs.base))
                    if lhs.is_param and lhs.is_ptr and lhs.const:
                        fail(rhs, "write to const array '%s'" % lhs.name)
                    self.active[lhs] = True
                    changed = True
            for call in fn.calls:
                name = call.name.name if isinstance(call.name, c_ast.ID) else None
                if name in MATH1 or name in MATH2 or name in PASSIVE_MATH or name in VALUE_TESTS or name == "pow" or name in self.tr.rules:
                    continue
                callee = self.tr.callee_spec(self, call)
                args = call.args.exprs if call.args else []
                for a, prm in zip(args, callee.fn.params):
                    if prm.is_ptr and not prm.const and callee.is_active(prm):
                        v = array_arg(fn, a)[0]
                        if not self.is_active(v):
                            if not v.is_double:
                                fail(a, "'%s' receives derivatives from '%s' but is %s" % (v.name, callee.fn.name, v.base))
                            self.active[v] = True
                            changed = True
        self.ret_active = (self.energy and not self.tr.residual) or any(self.expr_active(r.expr) for r in self.returns() if r.expr is not None)

    def flows(self):
        """(assigned Var, value) pairs: assignments, initialisers, compound assignments."""
        out = []

        def walk(node):
            if node is None:
                return
            if isinstance(node, c_ast.Decl) and node.init is not None:
                v = self.fn.var_of.get(id(node))
                inits = node.init.exprs if isinstance(node.init, c_ast.InitList) else [node.init]
                stack = list(inits)
                while stack:
                    i = stack.pop()
                    if isinstance(i, c_ast.InitList):
                        stack.extend(i.exprs)
                    else:
                        out.append((v, i))
            if isinstance(node, c_ast.Assignment):
                out.append((lvalue_var(self.fn, node.lvalue), node.rvalue))
            for _, ch in node.children():
                walk(ch)

        walk(self.fn.fdef.body)
        return out

    def returns(self):
        out = []

        def walk(node):
            if isinstance(node, c_ast.Return):
                out.append(node)
            for _, ch in node.children():
                walk(ch)

        walk(self.fn.fdef.body)
        return out
