# SPDX-License-Identifier: BSD-2-Clause
"""Lowering on the user's AST, before any analysis: C constructs an energy may use that the passes do
not handle, rewritten into ones they do (so activity analysis, forward emission, feature extraction
and the adjoint sweep see only for loops of constant bounds, if/else and plain statements).

  MFAD_MAX_ITERATIONS(n); while (c) S   ->  for (int _mfad_itK = 0; _mfad_itK < n; _mfad_itK++) if (c) S
      (once c fails S no longer runs, so c stays false: the same rounds, and no break, which the
      adjoint sweep cannot take; with a break or continue in S, or a c that writes (k++ < 5):
      `if (!(c)) break; S`)
  MFAD_MAX_ITERATIONS(n); do S while (c) ->  { int _mfad_goK = 1; for (...) if (_mfad_goK) { S _mfad_goK = (c); } }
  switch (k) { case A: S; break; ... default: D }  ->  if ((k) == A) { S } else if ... else { D }
  a, b;  (a statement)                  ->  a; b;     (for (...; ...; i++, j++) S  ->  for (...; ...; i++) { S j++; })
  static const double W[3] = {...};     ->  a copy `const double W[3] = {...};` at the top of every
      (file scope)                          function that reads W (a local array of constants)
  MFAD_DERIVATIVES(f, d1, d2);          ->  the rule table Lowering.rules: f -> (d1, d2)

Each construct keeps the user's coordinates: messages and #line point at what the user wrote."""
import copy

from pycparser import c_ast

from .common import fail, src
from .symbols import const_int

def walk(n):
    yield n
    for _, ch in n.children():
        yield from walk(ch)


MAX_ITER = "__mfad_max_iterations"  # what MFAD_MAX_ITERATIONS(n) is to the translator (mfad/energy.h)
RULE_PREFIX = "mfad_derivatives_"  # MFAD_DERIVATIVES(f, d1, d2): the table mfad_derivatives_f = {f, d1, d2}


class Lowering:
    """The file's tables and rules (read at once), and the lowering of one function, done when a pass
    first asks for it (Translator.function): a function nothing calls is not checked, as before."""

    def __init__(self, ast):
        self.tables, self.rules = scan(ast)

    def function(self, fdef):
        Lowerer(fdef, self.tables).run()


def scan(ast):
    """(file-scope constant tables {name: Decl}, the user-supplied derivative rules {f: (d1, d2)})."""
    tables, rules = {}, {}
    for ext in ast.ext:
        if isinstance(ext, c_ast.Decl) and ext.name and ext.name.startswith(RULE_PREFIX):
            rules.update(rule(ext))
        elif isinstance(ext, c_ast.Decl) and ext.name and not isinstance(ext.type, c_ast.FuncDecl) and "static" in (ext.storage or []):
            t = ext.type
            while isinstance(t, c_ast.ArrayDecl):
                t = t.type
            if isinstance(t, c_ast.TypeDecl) and "const" in (t.quals or []) and ext.init is not None:
                tables[ext.name] = ext
    return tables, rules


def rule(d):
    """MFAD_DERIVATIVES(f, d1, d2) expands (mfad/energy.h) to the array of function pointers
    `static double (*const mfad_derivatives_f[3])(double) = {f, d1, d2}`."""
    f = d.name[len(RULE_PREFIX):]
    items = d.init.exprs if isinstance(d.init, c_ast.InitList) else []
    if len(items) != 3 or not all(isinstance(i, c_ast.ID) for i in items) or items[0].name != f:
        fail(d, "'%s': write MFAD_DERIVATIVES(f, df, d2f) with the three functions' names" % d.name)
    return {f: (items[1].name, items[2].name)}


class Lowerer:
    def __init__(self, fdef, tables):
        self.fdef, self.tables, self.count = fdef, tables, 0

    def run(self):
        body = self.fdef.body
        body.block_items = self.block(body.block_items or [])
        self.inject_tables()

    def fresh(self, stem):
        self.count += 1
        return "_mfad_%s%d" % (stem, self.count)

    # ---------------------------------------------------------------- statements
    def block(self, items):
        out, i = [], 0
        while i < len(items):
            s = items[i]
            if self.is_max_iter(s):
                n = self.max_count(s)
                if i + 1 >= len(items) or not isinstance(items[i + 1], (c_ast.While, c_ast.DoWhile)):
                    fail(s, "MFAD_MAX_ITERATIONS(%d) must come just before the while or do-while loop it bounds" % n)
                out.append(self.loop(items[i + 1], n))
                i += 2
                continue
            if isinstance(s, (c_ast.While, c_ast.DoWhile)):
                fail(s, "while loop without a maximum count: the translator needs one (it unrolls loops over differentiated "
                     "values): write 'MFAD_MAX_ITERATIONS(n);' just before the %s (at most n rounds; it stops earlier when its "
                     "condition fails), or a for loop with a constant bound and a break" % ("while" if isinstance(s, c_ast.While) else "do"))
            if isinstance(s, c_ast.ExprList):  # a, b; -> a; b;
                out += [self.stmt(e) for e in s.exprs]
            else:
                out.append(self.stmt(s))
            i += 1
        return out

    def sub(self, s):
        """A statement in a branch or loop body: a Compound where lowering gave several."""
        if s is None:
            return None
        if isinstance(s, c_ast.ExprList) or self.is_max_iter(s) or isinstance(s, (c_ast.While, c_ast.DoWhile)):
            return c_ast.Compound(self.block([s]), s.coord)
        return self.stmt(s)

    def stmt(self, s):
        if isinstance(s, c_ast.Compound):
            s.block_items = self.block(s.block_items or [])
        elif isinstance(s, c_ast.If):
            s.iftrue, s.iffalse = self.sub(s.iftrue), self.sub(s.iffalse)
        elif isinstance(s, c_ast.For):
            s.stmt = self.sub(s.stmt)
            if isinstance(s.next, c_ast.ExprList):  # for (...; ...; i++, j++) S -> for (...; ...; i++) { S j++; }
                if self.jumps(s.stmt, c_ast.Continue):
                    fail(s.next, "a comma in a for loop's step with a continue in its body is not supported: step the other counters in the body")
                rest = s.next.exprs[1:]
                s.next = s.next.exprs[0]
                body = s.stmt if isinstance(s.stmt, c_ast.Compound) else c_ast.Compound([s.stmt], s.stmt.coord)
                body.block_items = (body.block_items or []) + rest
                s.stmt = body
            if isinstance(s.init, c_ast.ExprList):  # for (i = 0, j = 0; ...) -> { j = 0; for (i = 0; ...) }
                first, rest = s.init.exprs[0], s.init.exprs[1:]
                s.init = first
                return c_ast.Compound(rest + [s], s.coord)
            if isinstance(s.init, c_ast.DeclList) and len(s.init.decls) > 1:  # for (int i = 0, j = 1; ...) -> { int j = 1; for (int i = 0; ...) }
                rest = s.init.decls[1:]
                s.init = c_ast.DeclList(s.init.decls[:1], s.init.coord)
                return c_ast.Compound(rest + [s], s.coord)
        elif isinstance(s, c_ast.Switch):
            return self.switch(s)
        return s

    @staticmethod
    def is_max_iter(s):
        return isinstance(s, c_ast.FuncCall) and isinstance(s.name, c_ast.ID) and s.name.name == MAX_ITER

    @staticmethod
    def max_count(s):
        args = s.args.exprs if s.args else []
        n = const_int(args[0]) if len(args) == 1 else None
        if n is None or n < 1:
            fail(s, "MFAD_MAX_ITERATIONS(%s): the maximum count must be a positive integer constant" % ", ".join(src(a) for a in args))
        return n

    def jumps(self, s, kinds, loops=True):
        """Does s hold a break/continue (kinds) of its own level (not of a loop inside it)?"""
        if s is None:
            return False
        if isinstance(s, kinds):
            return True
        if loops and isinstance(s, (c_ast.For, c_ast.While, c_ast.DoWhile)):
            return False
        if isinstance(s, c_ast.Switch) and kinds is c_ast.Break:
            return False
        return any(self.jumps(ch, kinds, loops) for _, ch in s.children())

    @staticmethod
    def writes(e):
        """Does the expression e change a variable (k++ < 5)? Then it must not run once more per round."""
        return any(isinstance(n, c_ast.Assignment) or (isinstance(n, c_ast.UnaryOp) and n.op in ("++", "--", "p++", "p--")) for n in walk(e))

    def loop(self, s, n):
        it = self.fresh("it")
        coord = s.coord
        head = c_ast.DeclList([c_ast.Decl(it, [], [], [], [], c_ast.TypeDecl(it, [], None, c_ast.IdentifierType(["int"])),
                                          c_ast.Constant("int", "0"), None, coord=coord)], coord)
        cond = c_ast.BinaryOp("<", c_ast.ID(it, coord), c_ast.Constant("int", str(n)), coord)
        nxt = c_ast.UnaryOp("p++", c_ast.ID(it, coord), coord)
        body = self.sub(s.stmt)
        if isinstance(s, c_ast.While):
            if self.jumps(body, (c_ast.Break, c_ast.Continue)) or self.writes(s.cond):
                stop = c_ast.If(c_ast.UnaryOp("!", s.cond, coord), c_ast.Break(coord), None, coord)
                items = body.block_items if isinstance(body, c_ast.Compound) else [body]
                return c_ast.For(head, cond, nxt, c_ast.Compound([stop] + list(items or []), coord), coord)
            return c_ast.For(head, cond, nxt, c_ast.If(s.cond, body, None, coord), coord)
        if self.jumps(body, (c_ast.Break, c_ast.Continue)):
            fail(s, "break or continue in a do-while loop is not supported: write it as a while loop")
        go = self.fresh("go")
        decl = c_ast.Decl(go, [], [], [], [], c_ast.TypeDecl(go, [], None, c_ast.IdentifierType(["int"])), c_ast.Constant("int", "1"), None, coord=coord)
        items = list(body.block_items or []) if isinstance(body, c_ast.Compound) else [body]
        items.append(c_ast.Assignment("=", c_ast.ID(go, coord), s.cond, s.cond.coord))
        step = c_ast.If(c_ast.ID(go, coord), c_ast.Compound(items, coord), None, coord)
        return c_ast.Compound([decl, c_ast.For(head, cond, nxt, step, coord)], coord)

    def switch(self, s):
        """A switch whose cases each end in break (or return) as an if/else chain on (k) == label."""
        body = s.stmt.block_items if isinstance(s.stmt, c_ast.Compound) else [s.stmt]
        groups, labels, default = [], [], None  # groups: (labels or None for default, statements)
        for item in body or []:
            if not isinstance(item, (c_ast.Case, c_ast.Default)):
                fail(item, "a statement before the first case of a switch")
            if isinstance(item, c_ast.Case):
                if const_int(item.expr) is None:
                    fail(item.expr, "case label '%s' is not an integer constant" % src(item.expr))
                labels.append(item)
            else:
                labels.append(None)
            stmts = list(item.stmts or [])
            if not stmts:
                continue  # case 1: case 2: ... shares the next label's statements
            groups.append((labels, stmts, item))
            labels = []
        if labels:
            groups.append((labels, [], labels[-1] or s))
        conds, out = [], []
        for k, (labs, stmts, item) in enumerate(groups):
            if stmts and isinstance(stmts[-1], c_ast.Break):
                stmts = stmts[:-1]
            elif stmts and not isinstance(stmts[-1], c_ast.Return) and k + 1 < len(groups):
                fail(item, "case falls through into the next one: end it with break (or return)")
            for st in stmts:
                if self.jumps(st, c_ast.Break):
                    fail(st, "a break inside a case's branch or block is not supported: end the case with it")
            if None in labs:
                default = (stmts, item)
                labs = [l for l in labs if l is not None]
                if not labs:
                    continue
            test = None
            for l in labs:
                t = c_ast.BinaryOp("==", copy.deepcopy(s.cond), l.expr, l.coord)
                test = t if test is None else c_ast.BinaryOp("||", test, t, l.coord)
            conds.append((test, c_ast.Compound(self.block(stmts), item.coord)))
        tail = c_ast.Compound(self.block(default[0]), default[1].coord) if default else None
        for test, block in reversed(conds):
            tail = c_ast.If(test, block, tail, block.coord)
        return tail if tail is not None else c_ast.EmptyStatement(s.coord)

    # ---------------------------------------------------------------- file-scope constant tables
    def inject_tables(self):
        if not self.tables:
            return
        declared, used = set(), []

        class V(c_ast.NodeVisitor):
            def visit_Decl(v, d):
                declared.add(d.name)
                v.generic_visit(d)

            def visit_ID(v, n):
                if n.name not in used:
                    used.append(n.name)
        V().visit(self.fdef)
        names = [t for t in self.tables if t in used and t not in declared]
        copies = []
        for t in names:
            d = copy.deepcopy(self.tables[t])
            d.storage = [x for x in d.storage if x != "static"]
            copies.append(d)
        self.fdef.body.block_items = copies + (self.fdef.body.block_items or [])
