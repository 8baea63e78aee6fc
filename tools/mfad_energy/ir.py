# SPDX-License-Identifier: BSD-2-Clause
"""The IR between forward emission and its consumers (the printer, the adjoint sweep of reverse.py).

Expressions (passive values, lvalues, the typed arguments of OP() calls) are `Expr` nodes: each is a
str whose value is its forward text, exactly as printed in the OP() dialect of
include/mfad/impl/ad_generic.h, and whose fields are its structure. `Paren` keeps the parentheses
the forward text has; a tree is always the one a C parser reads from that text (Bin, Un and Cast
re-associate when built without parentheses), so the adjoint sweep sees what the compiler sees.
`cgen(look)` prints an expression as the adjoint sweep writes it (operands parenthesised unless
simple, the style of pycparser's CGenerator) with each variable's name mapped by look.

Statements are objects with `text()` (their forward text, on one line). Lines of the function
(`Line`, `Block`, `If`, `For`, `Scope`) carry the user's coord; `Function` is one emitted function;
`lines(functions)` is the printer: (coord, text) lines, as output.line_text takes them."""

# binary operators, higher binds stronger (C's, as pycparser's CGenerator has them)
PREC = {"||": 0, "&&": 1, "|": 2, "^": 3, "&": 4, "==": 5, "!=": 5, ">": 6, ">=": 6, "<": 6, "<=": 6,
        ">>": 7, "<<": 7, "+": 8, "-": 8, "*": 9, "/": 9, "%": 9}


class Expr(str):
    """A passive expression or an lvalue; the str is its forward text."""
    simple = True  # needs no parentheses as an operand (a name, a constant, a call, an element)
    kids = ()

    def cgen(self, look):
        return str(self)

    def names(self, out=None):
        """The variable names the expression reads (a set)."""
        out = set() if out is None else out
        for k in self.kids:
            kid = getattr(self, k)
            for e in kid if isinstance(kid, list) else [kid]:
                e.names(out)
        return out

    def strip(self):
        return self

    def map(self, f):
        """A copy with every sub-expression e replaced by f(e) where that is not None (bottom-up otherwise)."""
        r = f(self)
        if r is not None:
            return r
        return self.rebuild(*[[a.map(f) for a in getattr(self, k)] if isinstance(getattr(self, k), list) else getattr(self, k).map(f) for k in self.kids])

    def rebuild(self, *kids):
        return self


def paren_unless_simple(e, look):
    t = e.cgen(look)
    return t if e.strip().simple else "(" + t + ")"


class Lit(Expr):
    """A constant or a name that is not a variable (INFINITY, a math.h function's name)."""

    def __new__(cls, text, simple=True):
        s = str.__new__(cls, text)
        s.simple = simple
        return s


def num(text):
    """A numeric literal; a negative one is a negation, as C reads it."""
    text = str(text)
    return Un("-", Lit(text[1:])) if text.startswith("-") else Lit(text)


class Name(Expr):
    """A variable (renamed by the adjoint sweep's look); resolved: already a name of the sweep."""

    def __new__(cls, name, resolved=False):
        s = str.__new__(cls, name)
        s.name, s.resolved = str(name), resolved
        return s

    def cgen(self, look):
        return self.name if self.resolved else str(look(self.name))

    def names(self, out=None):
        out = set() if out is None else out
        out.add(self.name)
        return out


class Fn(Expr):
    """A called function's name: MFAD_FN(name) (a helper of the kernel's number type) or plain."""

    def __new__(cls, name, mfad_fn=False):
        s = str.__new__(cls, "MFAD_FN(%s)" % name if mfad_fn else name)
        s.name = name
        return s

    def cgen(self, look):
        return look.fn(self.name) if hasattr(look, "fn") else self.name


class Paren(Expr):
    kids = ("e",)

    def __new__(cls, e):
        s = str.__new__(cls, "(%s)" % e)
        s.e = e
        return s

    def cgen(self, look):
        return self.e.cgen(look)

    def strip(self):
        return self.e.strip()

    @property
    def simple(self):
        return self.e.strip().simple

    def rebuild(self, e):
        return Paren(e)


class Bin(Expr):
    simple = False
    kids = ("l", "r")

    def __new__(cls, op, l, r):
        # the tree C reads from the text: a + b * c, (a - b) + c for l - r with r = 'b + c' unparenthesised
        if isinstance(r, Bin) and PREC[r.op] <= PREC[op]:
            return Bin(r.op, Bin(op, l, r.l), r.r)
        if isinstance(l, Bin) and PREC[l.op] < PREC[op]:
            return Bin(l.op, l.l, Bin(op, l.r, r))
        s = str.__new__(cls, "%s %s %s" % (l, op, r))
        s.op, s.l, s.r = op, l, r
        return s

    @classmethod
    def raw(cls, op, l, r):
        """l op r as this tree, whatever C would read from its text (the offset k + i of an inlined
        helper's a[i], a = &b[k])."""
        s = str.__new__(cls, "%s %s %s" % (l, op, r))
        s.op, s.l, s.r = op, l, r
        return s

    def cgen(self, look):
        return "%s %s %s" % (paren_unless_simple(self.l, look), self.op, paren_unless_simple(self.r, look))

    def rebuild(self, l, r):
        return Bin(self.op, l, r)


class Un(Expr):
    """A prefix operator: - + ! ~ ++ --."""
    simple = False
    kids = ("e",)

    def __new__(cls, op, e):
        if isinstance(e, Bin):  # -a * b is (-a) * b
            return Bin(e.op, Un(op, e.l), e.r)
        s = str.__new__(cls, "%s%s" % (op, e))
        s.op, s.e = op, e
        return s

    def cgen(self, look):
        return self.op + paren_unless_simple(self.e, look)

    def rebuild(self, e):
        return Un(self.op, e)


class Post(Expr):
    """i++, i--."""
    simple = False
    kids = ("e",)

    def __new__(cls, op, e):
        s = str.__new__(cls, "%s%s" % (e, op))
        s.op, s.e = op, e
        return s

    def cgen(self, look):
        return paren_unless_simple(self.e, look) + self.op

    def rebuild(self, e):
        return Post(self.op, e)


class Call(Expr):
    kids = ("fn", "args")

    def __new__(cls, fn, args):
        s = str.__new__(cls, "%s(%s)" % (fn, ", ".join(args)))
        s.fn, s.args = fn, list(args)
        return s

    def cgen(self, look):
        return "%s(%s)" % (self.fn.cgen(look), ", ".join(a.cgen(look) for a in self.args))

    def rebuild(self, fn, args):
        return Call(fn, args)


class Tern(Expr):
    simple = False
    kids = ("c", "a", "b")

    def __new__(cls, c, a, b):
        s = str.__new__(cls, "%s ? %s : %s" % (c, a, b))
        s.c, s.a, s.b = c, a, b
        return s

    def cgen(self, look):
        return "(%s) ? (%s) : (%s)" % (self.c.cgen(look), self.a.cgen(look), self.b.cgen(look))

    def rebuild(self, c, a, b):
        return Tern(c, a, b)


class Cast(Expr):
    simple = False
    kids = ("e",)

    def __new__(cls, ty, e):
        if isinstance(e, Bin):
            return Bin(e.op, Cast(ty, e.l), e.r)
        s = str.__new__(cls, "(%s)%s" % (ty, e))
        s.ty, s.e = ty, e
        return s

    def cgen(self, look):
        return "(%s) %s" % (self.ty, paren_unless_simple(self.e, look))

    def rebuild(self, e):
        return Cast(self.ty, e)


class Index(Expr):
    """base[idx]: an array element (of doubles, or of numbers of type T)."""
    kids = ("base", "idx")

    def __new__(cls, base, idx):
        s = str.__new__(cls, "%s[%s]" % (base, idx))
        s.base, s.idx = base, idx
        return s

    def cgen(self, look):
        return "%s[%s]" % (paren_unless_simple(self.base, look), self.idx.cgen(look))

    def rebuild(self, base, idx):
        return Index(base, idx)


class Deref(Expr):
    """(*name): a number passed by pointer (a helper's argument, the result slot)."""
    simple = False
    kids = ("e",)

    def __new__(cls, e):
        s = str.__new__(cls, "(*%s)" % e)
        s.e = e
        return s

    def cgen(self, look):
        return "*" + paren_unless_simple(self.e, look)

    def rebuild(self, e):
        return Deref(e)


class Addr(Expr):
    """&x: a number argument (x a Name, Index or Deref) or an array's entry k."""
    simple = False
    kids = ("e",)

    def __new__(cls, e):
        s = str.__new__(cls, "&%s" % e)
        s.e = e
        return s

    def cgen(self, look):
        return "&" + paren_unless_simple(self.e, look)

    def rebuild(self, e):
        return Addr(e)


class Val(Expr):
    """OP(val)(&x): a number's value."""
    kids = ("x",)

    def __new__(cls, x):
        s = str.__new__(cls, "OP(val)(&%s)" % x)
        s.x = x
        return s

    def cgen(self, look):
        return "OP(val)(&%s)" % paren_unless_simple(self.x, look)

    def rebuild(self, x):
        return Val(x)


class Init(Expr):
    """{a, b, ...}: an array's initialiser."""
    kids = ("items",)

    def __new__(cls, items):
        s = str.__new__(cls, "{%s}" % ", ".join(items))
        s.items = list(items)
        return s

    def cgen(self, look):
        return "{%s}" % ", ".join(i.cgen(look) for i in self.items)

    def rebuild(self, items):
        return Init(items)


# ---------------------------------------------------------------- statements (one line's items)
class Stmt:
    """An item of a line; coord: the user's position of its line (set by Line)."""
    coord = None
    cname = "Stmt"  # its kind in messages (pycparser's name of the construct)

    def names(self):
        out = set()
        for e in self.exprs():
            e.names(out)
        return out

    def exprs(self):
        return []

    def __str__(self):
        return self.text()


class Op(Stmt):
    """OP(name)(args): an operation of include/mfad/impl/ad.h; args are Addr (a number), Name or Addr
    of an Index (an array, from its entry k) or passive Exprs."""
    cname = "FuncCall"

    def __init__(self, name, args):
        self.name, self.args = name, list(args)

    def exprs(self):
        return self.args

    def text(self):
        return "OP(%s)(%s);" % (self.name, ", ".join(self.args))


class CallS(Stmt):
    """A helper's call as a statement; void_cast: (void)f(...), its value discarded."""

    def __init__(self, call, void_cast=False):
        self.call, self.void_cast = call, void_cast
        self.cname = "Cast" if void_cast else "FuncCall"

    def exprs(self):
        return [self.call]

    def text(self):
        return "%s%s;" % ("(void)" if self.void_cast else "", self.call)


class TDecl(Stmt):
    """T name[dims]; (several names: T a, b;)"""
    cname = "Decl"

    def __init__(self, names, dims=()):
        self.decl_names, self.dims = list(names), list(dims)

    def text(self):
        return "T %s%s;" % (", ".join(self.decl_names), "".join("[%d]" % n for n in self.dims))


class PDecl(Stmt):
    """A variable of doubles or integers: [const ]base name[dims][ = init];"""
    cname = "Decl"

    def __init__(self, base, name, dims=(), init=None, const=False):
        self.base, self.name, self.dims, self.init, self.const = base, name, list(dims), init, const

    def exprs(self):
        return [self.init] if self.init is not None else []

    def head(self):
        return "%s%s %s%s" % ("const " if self.const else "", self.base, self.name, "".join("[%d]" % n for n in self.dims))

    def text(self):
        return "%s%s;" % (self.head(), "" if self.init is None else " = %s" % self.init)

    def cgen(self, look):
        return "%s%s" % (self.head(), "" if self.init is None else " = %s" % self.init.cgen(look))


class PAssign(Stmt):
    """lv op e; on doubles or integers."""
    cname = "Assignment"

    def __init__(self, lv, op, e):
        self.lv, self.op, self.e = lv, op, e

    def exprs(self):
        return [self.lv, self.e]

    def text(self):
        return "%s %s %s;" % (self.lv, self.op, self.e)

    def cgen(self, look):
        return "%s %s %s" % (self.lv.cgen(look), self.op, self.e.cgen(look))


class ExprS(Stmt):
    """An expression as a statement: i++; (void)v;"""

    def __init__(self, e, cname):
        self.e, self.cname = e, cname

    def exprs(self):
        return [self.e]

    def text(self):
        return "%s;" % self.e

    def cgen(self, look):
        return self.e.cgen(look)


class Return(Stmt):
    cname = "Return"

    def __init__(self, e=None):
        self.e = e

    def exprs(self):
        return [self.e] if self.e is not None else []

    def text(self):
        return "return;" if self.e is None else "return %s;" % self.e


class Jump(Stmt):
    """break; continue;"""

    def __init__(self, kind):
        self.kind, self.cname = kind, kind.capitalize()

    def text(self):
        return "%s;" % self.kind


class IfS(Stmt):
    """if (c) { ... } else { ... } on one line (a ternary on numbers): its branches are item lists."""
    cname = "If"

    def __init__(self, cond, then, else_):
        self.cond, self.then, self.else_ = cond, then, else_

    def exprs(self):
        return [self.cond]

    def names(self):
        out = self.cond.names()
        for s in self.then + self.else_:
            out |= s.names()
        return out

    def text(self):
        return "if (%s) { %s } else { %s }" % (self.cond, " ".join(s.text() for s in self.then), " ".join(s.text() for s in self.else_))


# ---------------------------------------------------------------- lines of a function
class Line:
    """One line: items (after `T temps;` in braces when braced, a scope of their own)."""

    def __init__(self, coord, items, temps=(), braced=False):
        self.coord, self.items, self.temps, self.braced = coord, list(items), list(temps), braced
        for s in self.items:
            s.coord = coord

    def text(self):
        body = " ".join(s.text() for s in self.items)
        if self.braced:
            return "{ %s%s }" % ("T %s; " % ", ".join(self.temps) if self.temps else "", body)
        return body

    def print(self, depth, out):
        out.append((self.coord, "  " * depth + self.text()))


class Block:
    """{ stmts } over lines of their own; coord: the '{' line's."""

    def __init__(self, coord, stmts):
        self.coord, self.stmts = coord, stmts

    def print(self, depth, out):
        out.append((self.coord, "  " * depth + "{"))
        for s in self.stmts:
            s.print(depth + 1, out)
        out.append((None, "  " * depth + "}"))


class Scope:
    """'{ T temps; items' on the first line, then stmts at the same depth, then '}': the values an
    if's condition reads from helpers over numbers, in scope around it."""

    def __init__(self, coord, temps, items, stmts):
        self.coord, self.temps, self.items, self.stmts = coord, list(temps), list(items), stmts
        for s in self.items:
            s.coord = coord

    def print(self, depth, out):
        decl = "T %s; " % ", ".join(self.temps) if self.temps else ""
        out.append((self.coord, "  " * depth + "{ %s%s" % (decl, " ".join(s.text() for s in self.items))))
        for s in self.stmts:
            s.print(depth, out)
        out.append((None, "  " * depth + "}"))


class If:
    """if (cond) then [else else_]: then and else_ are Blocks."""

    def __init__(self, coord, cond, then, else_=None, else_coord=None):
        self.coord, self.cond, self.then, self.else_, self.else_coord = coord, cond, then, else_, else_coord

    def print(self, depth, out):
        out.append((self.coord, "  " * depth + "if (%s)" % self.cond))
        self.then.print(depth, out)
        if self.else_ is not None:
            out.append((self.else_coord, "  " * depth + "else"))
            self.else_.print(depth, out)


class For:
    """for (init; cond; next) body, body a Block. init: (kind, base, name, op, value) with kind 'decl'
    (base name = value), 'assign' (name op value; name an lvalue) or None (empty); pragma:
    MFAD_UNROLL and the like, or ''."""

    def __init__(self, coord, init, cond, next_, body, pragma=""):
        self.coord, self.init, self.cond, self.next, self.body, self.pragma = coord, init, cond, next_, body, pragma

    def init_text(self):
        if self.init is None:
            return ""
        kind, base, name, op, value = self.init
        return "%s %s = %s" % (base, name, value) if kind == "decl" else "%s %s %s" % (name, op, value)

    def print(self, depth, out):
        nxt = self.next.text()[:-1] if isinstance(self.next, Stmt) else self.next
        out.append((self.coord, "  " * depth + "%sfor (%s; %s; %s)" % (self.pragma, self.init_text(), self.cond, nxt)))
        self.body.print(depth, out)


class Function:
    """One emitted function. kind: 'body' (MFAD_ENERGY_BODY(x, p, E): the energy or residual),
    'helper' (MFAD_ENERGY_HELPER) or 'host' (static, over doubles). params: (text, name) of each
    (name None for '(void)'); pre: lines at the body's start (argument copies, (void)p;)."""

    def __init__(self, kind, coord, body_coord, name=None, ret=None, params=(), body_names=None):
        self.kind, self.coord, self.body_coord, self.name, self.ret = kind, coord, body_coord, name, ret
        self.params = list(params)
        self.body_names = body_names  # (x, p, E) of a body
        self.pre, self.stmts = [], []

    def head(self):
        if self.kind == "body":
            return "MFAD_ENERGY_BODY(%s, %s, %s)" % self.body_names
        params = ", ".join(t for t, _ in self.params) or "void"
        if self.kind == "host":
            return "static %s %s(%s)" % (self.ret, self.name, params)
        return "MFAD_ENERGY_HELPER %s %s(%s)" % (self.ret, self.name, params)

    def print(self, out):
        out.append((self.coord, self.head()))
        out.append((self.body_coord, "{"))
        for line in self.pre:
            line.print(1, out)
        for s in self.stmts:
            s.print(1, out)
        out.append((None, "}"))


def lines(functions):
    """The printer: the functions' (coord, text) lines (output.line_text adds the #line directives)."""
    out = []
    for f in functions:
        f.print(out)
    return out
