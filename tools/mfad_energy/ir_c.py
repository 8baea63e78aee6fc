# SPDX-License-Identifier: BSD-2-Clause
"""The forward IR as the C statements a parser reads from its printed text, for the adjoint sweep
(reverse.py): a line holds several statements (in braces, a scope of its own), a one-line if (a
ternary on numbers) is an if of its own. Compound, CIf and CFor are a block, an if and a for over
such items; CGen writes them as pycparser's CGenerator does (a loop on values that the sweep runs
as it is)."""
from . import ir


# A line of the forward IR holds several statements (in braces: a scope of its own); the sweep
# walks them one by one: Compound, CIf and CFor are a block, an if and a for over such items.
class Compound:
    cname = "Compound"

    def __init__(self, coord, items):
        self.coord, self.items = coord, items


class CIf:
    cname = "If"

    def __init__(self, coord, cond, iftrue, iffalse):
        self.coord, self.cond, self.iftrue, self.iffalse = coord, cond, iftrue, iffalse


class CFor:
    cname = "For"

    def __init__(self, coord, init, cond, next_, body):
        self.coord, self.init, self.cond, self.next, self.body = coord, init, cond, next_, body


def temps_decl(coord, temps):
    if not temps:
        return []
    d = ir.TDecl(temps)
    d.coord = coord
    return [d]


def items_of(stmts):
    """IR lines, blocks, ifs and loops as a list of statements (Compound, CIf, CFor, ir.Stmt)."""
    out = []
    for s in stmts:
        if isinstance(s, ir.Line):
            if s.braced:
                out.append(Compound(s.coord, temps_decl(s.coord, s.temps) + [flat(i) for i in s.items]))
            else:
                out += [flat(i) for i in s.items]
        elif isinstance(s, ir.Block):
            out.append(Compound(s.coord, items_of(s.stmts)))
        elif isinstance(s, ir.Scope):
            out.append(Compound(s.coord, temps_decl(s.coord, s.temps) + [flat(i) for i in s.items] + items_of(s.stmts)))
        elif isinstance(s, ir.If):
            out.append(CIf(s.coord, s.cond, Compound(s.then.coord, items_of(s.then.stmts)),
                           Compound(s.else_.coord, items_of(s.else_.stmts)) if s.else_ is not None else None))
        elif isinstance(s, ir.For):
            out.append(CFor(s.coord, s.init, s.cond, s.next, Compound(s.body.coord, items_of(s.body.stmts))))
        else:  # pragma: no cover
            raise TypeError("internal: %s in a function's statements" % type(s).__name__)
    return out


def flat(item):
    """A line's item; a one-line if (a ternary on numbers) as a CIf."""
    if isinstance(item, ir.IfS):
        return CIf(item.coord, item.cond, Compound(None, [flat(i) for i in item.then]), Compound(None, [flat(i) for i in item.else_]))
    return item


def walk(items):
    """Every statement in items, nested ones included."""
    for s in items:
        yield s
        if isinstance(s, Compound):
            yield from walk(s.items)
        elif isinstance(s, CIf):
            yield from walk([b for b in (s.iftrue, s.iffalse) if b is not None])
        elif isinstance(s, CFor):
            yield from walk([s.body])


def raw(node, **fields):
    """A copy of the expression node with some fields replaced and no re-association: the tree as
    built (its forward text is stale; the sweep prints with cgen)."""
    n = str.__new__(type(node), str(node))
    n.__dict__.update(node.__dict__)
    n.__dict__.update(fields)
    return n


class CGen:
    """Statements as pycparser's CGenerator writes them: a loop on values, which the sweep runs as it is."""

    def __init__(self, look):
        self.look, self.indent = look, 0

    def simple(self, s):
        """The text of a statement that C could also read as an expression (no ';')."""
        if isinstance(s, ir.CallS):
            return ("(void) " if s.void_cast else "") + s.call.cgen(self.look)
        if isinstance(s, ir.TDecl):
            return ";\n".join("T %s%s" % (n, "".join("[%d]" % k for k in s.dims)) for n in s.decl_names)
        if isinstance(s, ir.Op):
            return "OP(%s)(%s)" % (s.name, ", ".join(a.cgen(self.look) for a in s.args))
        return s.cgen(self.look)  # PDecl, PAssign, ExprS

    def stmt(self, s):
        if isinstance(s, CFor):
            init = "" if s.init is None else ("%s %s = %s" % (s.init[1], s.init[2], s.init[4].cgen(self.look)) if s.init[0] == "decl" else
                                              "%s %s %s" % (s.init[2].cgen(self.look), s.init[3], s.init[4].cgen(self.look)))
            nxt = s.next.cgen(self.look)
            return "for (%s; %s; %s)\n" % (init, s.cond.cgen(self.look), nxt) + self.gen(s.body, True)
        if isinstance(s, CIf):
            t = "if (%s)\n" % s.cond.cgen(self.look) + self.gen(s.iftrue, True)
            if s.iffalse is not None:
                t += " " * self.indent + "else\n" + self.gen(s.iffalse, True)
            return t
        if isinstance(s, Compound):
            t = " " * self.indent + "{\n"
            self.indent += 2
            t += "".join(self.gen(i) for i in s.items)
            self.indent -= 2
            return t + " " * self.indent + "}\n"
        if isinstance(s, ir.Return):
            return "return;" if s.e is None else "return %s;" % s.e.cgen(self.look)
        if isinstance(s, ir.Jump):
            return "%s;" % s.kind
        return self.simple(s)

    def gen(self, s, add_indent=False):
        ind = " " * (self.indent + (2 if add_indent else 0))
        if isinstance(s, Compound):
            return self.stmt(s)
        if isinstance(s, CIf):
            return ind + self.stmt(s)
        if isinstance(s, (CFor, ir.Return, ir.Jump)):
            return ind + self.stmt(s) + "\n"
        return ind + self.stmt(s) + ";\n"
