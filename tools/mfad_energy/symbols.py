# SPDX-License-Identifier: BSD-2-Clause
"""Symbols: a function's variables (Var: type, extents, parameter or local), constant integers, lvalues."""
from pycparser import c_ast

from .common import INT_TYPES, fail, src


class Var:
    """A variable or parameter of one function: its C type and role."""

    def __init__(self, name, base, dims, node, is_param=False, is_ptr=False, const=False):
        self.name, self.base, self.dims, self.node = name, base, dims, node
        self.is_param, self.is_ptr, self.const = is_param, is_ptr, const
        self.role = None  # 'x' or 'p' in the energy function
        self.index = None  # parameter position

    @property
    def is_double(self):
        return self.base == "double"

    @property
    def is_array(self):
        return self.is_ptr or bool(self.dims)


def decl_type(decl):
    """(base type name, dims, is_ptr, const) of a Decl."""
    t, dims, is_ptr = decl.type, [], False
    while True:
        if isinstance(t, c_ast.ArrayDecl):
            dims.append(t.dim)
            t = t.type
        elif isinstance(t, c_ast.PtrDecl):
            if is_ptr or dims:
                fail(decl, "'%s': pointers to pointers or arrays are not supported in an energy" % decl.name)
            is_ptr = True
            t = t.type
        else:
            break
    if not isinstance(t, c_ast.TypeDecl) or not isinstance(t.type, c_ast.IdentifierType):
        fail(decl, "'%s': only double and integer variables and arrays of them are supported in an energy" % decl.name)
    names = t.type.names
    base = "double" if names == ["double"] else ("float" if names == ["float"] else " ".join(names))
    if base not in ("double", "float") and not set(names) <= INT_TYPES:
        fail(decl, "'%s' has type '%s': only double and integer types are supported in an energy" % (decl.name, base))
    const = "const" in (t.quals or []) or "const" in (decl.quals or [])
    return base, dims, is_ptr, const


def const_int(node, env=None):
    """Fold an integer constant expression (env: loop variables and known int constants); None if not constant."""
    env = env or {}
    if isinstance(node, c_ast.Constant):
        if node.type in ("int", "long int", "unsigned int", "long long int", "unsigned long int"):
            try:
                return int(node.value.rstrip("uUlL"), 0)
            except ValueError:
                return None
        return None
    if isinstance(node, c_ast.ID):
        v = env.get(node.name)
        return v if isinstance(v, int) else None
    if isinstance(node, c_ast.UnaryOp) and node.op in ("-", "+"):
        v = const_int(node.expr, env)
        return None if v is None else (-v if node.op == "-" else v)
    if isinstance(node, c_ast.BinaryOp):
        a, b = const_int(node.left, env), const_int(node.right, env)
        if a is None or b is None:
            return None
        op = node.op
        try:
            if op == "+": return a + b
            if op == "-": return a - b
            if op == "*": return a * b
            if op == "/": return int(a / b) if b else None
            if op == "%": return (abs(a) % abs(b)) * (1 if a >= 0 else -1) if b else None
            if op == "<": return int(a < b)
            if op == "<=": return int(a <= b)
            if op == ">": return int(a > b)
            if op == ">=": return int(a >= b)
            if op == "==": return int(a == b)
            if op == "!=": return int(a != b)
        except ZeroDivisionError:
            return None
    if isinstance(node, c_ast.Cast):
        return const_int(node.expr, env)
    return None


class Function:
    """A function definition, with its variables resolved once (scopes followed)."""

    def __init__(self, fdef):
        self.fdef, self.name = fdef, fdef.decl.name
        self.coord = fdef.decl.coord
        ftype = fdef.decl.type
        rt = ftype.type
        if isinstance(rt, c_ast.PtrDecl) or not isinstance(rt.type, c_ast.IdentifierType):
            fail(fdef.decl, "function '%s' must return double, an integer type or void" % self.name)
        self.ret = " ".join(rt.type.names)
        self.params = []
        for i, prm in enumerate(ftype.args.params if ftype.args else []):
            if isinstance(prm, c_ast.Typename) and src(prm) == "void":
                continue
            if isinstance(prm, c_ast.EllipsisParam):
                fail(prm, "variadic functions are not supported in an energy")
            base, dims, is_ptr, const = decl_type(prm)
            if len(dims) > 1:
                fail(prm, "parameter '%s': pass matrices as flat arrays (A[3 * i + j])" % prm.name)
            v = Var(prm.name, base, [], prm, is_param=True, is_ptr=is_ptr or bool(dims), const=const)
            v.size = const_int(dims[0]) if dims and dims[0] is not None else None
            v.index = i
            self.params.append(v)
        self.var_of = {}  # id(ID node) -> Var
        self.locals = []
        self.calls = []  # FuncCall nodes in order
        self.assigned = set()  # Vars written by assignment
        scope = [{v.name: v for v in self.params}]
        self._resolve(fdef.body, scope)

    def lookup(self, name, scope):
        for s in reversed(scope):
            if name in s:
                return s[name]
        return None

    def _resolve(self, node, scope):
        if node is None:
            return
        if isinstance(node, (c_ast.Compound, c_ast.For)):
            scope.append({})
            for _, ch in node.children():
                self._resolve(ch, scope)
            scope.pop()
            return
        if isinstance(node, c_ast.Decl):
            if isinstance(node.type, c_ast.FuncDecl):
                fail(node, "function declarations inside an energy function are not supported")
            if node.storage and "static" in node.storage:
                fail(node, "'%s': static local variables are not supported in an energy" % node.name)
            base, dims, is_ptr, const = decl_type(node)
            if is_ptr:
                fail(node, "'%s': pointer variables are not supported in an energy (index the array instead)" % node.name)
            dimv = []
            for d in dims:
                n = const_int(d) if d is not None else None
                if n is None:
                    fail(node, "'%s': array sizes must be integer constants" % node.name)
                dimv.append(n)
            v = Var(node.name, base, dimv, node, const=const)
            if node.init is not None:
                self._resolve(node.init, scope)
            scope[-1][node.name] = v
            self.locals.append(v)
            self.var_of[id(node)] = v
            return
        if isinstance(node, c_ast.ID):
            v = self.lookup(node.name, scope)
            if v is not None:
                self.var_of[id(node)] = v
            return
        if isinstance(node, c_ast.FuncCall):
            self.calls.append(node)
            if node.args is not None:
                self._resolve(node.args, scope)
            return
        if isinstance(node, c_ast.StructRef):
            fail(node, "structures are not supported in an energy")
        if isinstance(node, c_ast.Assignment):
            self._resolve(node.lvalue, scope)
            self._resolve(node.rvalue, scope)
            base = node.lvalue
            while isinstance(base, c_ast.ArrayRef):
                base = base.name
            if isinstance(base, c_ast.ID) and id(base) in self.var_of:
                self.assigned.add(self.var_of[id(base)])
            return
        for _, ch in node.children():
            self._resolve(ch, scope)


def strip_casts(node):
    """An array passed by name, whatever pointer cast the user wrote around it."""
    while isinstance(node, c_ast.Cast):
        node = node.expr
    return node


def array_arg(fn, a):
    """An array argument of a call: `name` (the whole array) or `&name[k]` (its entries from k on)
    as (Var, k node or None); None for anything else. A pointer cast around it is looked through."""
    a = strip_casts(a)
    if isinstance(a, c_ast.ID):
        v = fn.var_of.get(id(a))
        return (v, None) if v is not None and v.is_array else None
    if isinstance(a, c_ast.UnaryOp) and a.op == "&" and isinstance(a.expr, c_ast.ArrayRef) and isinstance(a.expr.name, c_ast.ID):
        v = fn.var_of.get(id(a.expr.name))
        if v is not None and v.is_array:
            return v, a.expr.subscript
    return None


def lvalue_var(fn, node):
    """The Var at the base of an lvalue (ID or ArrayRef chain), or None."""
    while isinstance(node, c_ast.ArrayRef):
        node = node.name
    if isinstance(node, c_ast.ID):
        return fn.var_of.get(id(node))
    return None
