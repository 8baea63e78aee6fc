# SPDX-License-Identifier: BSD-2-Clause
"""The translation unit: the energy's info, the functions, and a Spec per (function, signature, flavor)."""
import os

from pycparser import c_ast

from .common import MATH1, MATH2, PASSIVE_MATH, TranslateError, VALUE_TESTS, fail
from .emit_forward import Emitter
from .features import LinearMap
from .lower import Lowering
from .spec import Spec
from .symbols import Function, const_int


class Translator:
    def __init__(self, ast, path, name, info_name):
        self.path, self.name = path, name
        self.energy_h = None
        self.funcs, self.infos = {}, []
        self.lowering = Lowering(ast)  # while, switch, the comma, file-scope tables: lower.py
        self.rules = self.lowering.rules
        for ext in ast.ext:
            if isinstance(ext, c_ast.FuncDef):
                if ext.decl.name in self.funcs:
                    fail(ext, "function '%s' is defined twice" % ext.decl.name)
                self.funcs[ext.decl.name] = ext
                if ext.coord.file.endswith(os.path.join("mfad", "energy.h")):
                    self.energy_h = ext.coord.file
            elif isinstance(ext, c_ast.Decl) and isinstance(ext.type, c_ast.TypeDecl) and isinstance(ext.type.type, c_ast.IdentifierType) and ext.type.type.names == ["MfadEnergyInfo"]:
                self.infos.append(ext)
        if info_name:
            self.infos = [d for d in self.infos if d.name == info_name]
            if not self.infos:
                raise TranslateError(None, "%s: no 'const MfadEnergyInfo %s = {...};'" % (path, info_name))
        if not self.infos:
            stem = name or os.path.splitext(os.path.basename(path))[0]
            raise TranslateError(None, "%s: no energy description: add 'const MfadEnergyInfo %s_info = {.vertices = ..., .dof = ..., .params = ..., .energy = ...};' "
                                 "(include <mfad/energy.h>; the kernel is MfadKernel_%s, its name from the variable's)" % (path, stem, stem))
        if len(self.infos) > 1:
            fail(self.infos[1], "more than one MfadEnergyInfo in this file (%s): choose one with --info (the kernel takes its name from it, or from --name)"
                 % ", ".join("'%s' at line %d" % (d.name, d.coord.line) for d in self.infos))
        if name is None:  # the kernel's name: NAME of NAME_info
            name = self.infos[0].name[:-len("_info")] if self.infos[0].name.endswith("_info") and len(self.infos[0].name) > 5 else self.infos[0].name
            self.name = name
        self.residual = False
        self.functions = {}
        self.check_rules()
        self.specs = {}
        self.stack = []
        self.emit_order = []
        self.emitted = set()

    def check_rules(self):
        """MFAD_DERIVATIVES(f, df, d2f): three functions of this file, each 'double g(double)'."""
        for f, ds in self.rules.items():
            for g in (f,) + tuple(ds):
                fdef = self.funcs.get(g)
                if fdef is None:
                    raise TranslateError(None, "%s: MFAD_DERIVATIVES(%s, %s, %s): no function '%s' defined in this file" % (self.path, f, ds[0], ds[1], g))
                fn = self.function(g)
                if fn.ret != "double" or len(fn.params) != 1 or fn.params[0].is_ptr or not fn.params[0].is_double:
                    fail(fdef.decl, "'%s' of MFAD_DERIVATIVES(%s, %s, %s) must be 'double %s(double)'" % (g, f, ds[0], ds[1], g))

    def function(self, name):
        if name not in self.functions:
            self.lowering.function(self.funcs[name])
            self.functions[name] = Function(self.funcs[name])
        return self.functions[name]

    def info(self):
        d = self.infos[0]
        if not isinstance(d.init, c_ast.InitList):
            fail(d, "'%s' needs an initialiser {.vertices = ..., ...}" % d.name)
        out = {}
        for item in d.init.exprs:
            if not isinstance(item, c_ast.NamedInitializer):
                fail(item, "'%s': name each field (.vertices = 4, ...)" % d.name)
            field = item.name[0].name
            val = item.expr
            if field == "sum":
                sums = {"MFAD_SUM_LEAST_SQUARES": 1, "MFAD_SUM_SYSTEM": 2}
                if not isinstance(val, c_ast.ID) or val.name not in sums:
                    fail(val, ".sum must be MFAD_SUM_LEAST_SQUARES or MFAD_SUM_SYSTEM")
                out[field] = sums[val.name]
            elif field in ("vertices", "dof", "params", "rest_dim", "material", "cell_vertices", "outputs", "features"):
                k = const_int(val)
                if k is None:
                    fail(val, ".%s must be an integer constant" % field)
                out[field] = k
            elif field == "reverse":
                out[field] = const_int(val)  # MFAD_REVERSE_REQUIRED is 1, MFAD_REVERSE_NEVER 2 once preprocessed
                if out[field] not in (0, 1, 2):
                    fail(val, ".reverse must be MFAD_REVERSE_REQUIRED, MFAD_REVERSE_NEVER or 0")
            elif field == "projection":
                out[field] = const_int(val)  # MFAD_PROJECT_CLAMP is 1, MFAD_PROJECT_ABS 2 once preprocessed
                if out[field] not in (0, 1, 2):
                    fail(val, ".projection must be MFAD_PROJECT_CLAMP, MFAD_PROJECT_ABS or 0")
            elif field == "description":
                if not (isinstance(val, c_ast.Constant) and val.type == "string"):
                    fail(val, ".description must be a string literal")
                out[field] = val.value
            elif field in ("energy", "rest", "residual", "feature", "step"):
                if isinstance(val, c_ast.UnaryOp) and val.op == "&":
                    val = val.expr
                if not isinstance(val, c_ast.ID) or val.name not in self.funcs:
                    fail(val, ".%s must name a function defined in this file" % field)
                out[field] = val.name
            else:
                fail(item, "unknown field .%s of MfadEnergyInfo" % field)
        for f in ("vertices", "dof"):
            if f not in out:
                fail(d, "'%s' needs .%s" % (d.name, f))
        if ("energy" in out) == ("residual" in out):
            fail(d, "'%s' needs one of .energy (a scalar energy) and .residual (a vector-valued element function)" % d.name)
        self.residual = "residual" in out
        if self.residual:
            if "outputs" not in out:
                fail(d, "'%s': a residual needs .outputs (entries of r per element)" % d.name)
            if not 1 <= out["outputs"] <= 24:
                fail(d, "'%s': .outputs = %d; a residual has 1 to 24 outputs per element" % (d.name, out["outputs"]))
            out.setdefault("sum", 1)
            if out["sum"] == 2 and out["outputs"] != out["vertices"] * out["dof"]:
                fail(d, "'%s': a system residual (MFAD_SUM_SYSTEM) has one output per unknown: .outputs = %d, vertices x dof = %d" % (d.name, out["outputs"], out["vertices"] * out["dof"]))
            out["energy"] = out["residual"]
        elif "outputs" in out or "sum" in out:
            fail(d, "'%s': .outputs and .sum belong to a .residual" % d.name)
        out.setdefault("params", 0)
        out.setdefault("rest_dim", 0)
        out.setdefault("material", 0)
        n = out["vertices"] * out["dof"]
        if not 1 <= n <= 24:
            fail(d, "'%s': vertices x dof = %d unknowns; mfad supports 1 to 24 per element" % (d.name, n))
        if out["params"] < 0 or out["rest_dim"] < 0 or out["material"] < 0:
            fail(d, "'%s': negative sizes" % d.name)
        if out["rest_dim"] and "rest" not in out:
            fail(d, "'%s': .rest_dim is set but there is no .rest function" % d.name)
        if "rest" in out and not out["rest_dim"]:
            fail(d, "'%s': .rest needs .rest_dim (coordinates per vertex it reads)" % d.name)
        if "step" in out and "residual" in out:
            fail(d, "'%s': .step (the largest valid step) belongs to a scalar .energy" % d.name)
        if out.get("projection") and "residual" in out:
            fail(d, "'%s': .projection belongs to a scalar .energy (a residual's Hessian is Gauss-Newton's, positive semi-definite)" % d.name)
        if ("features" in out) != ("feature" in out):
            fail(d, "'%s': .features (how many) and .feature (the map x -> f) come together" % d.name)
        if "features" in out:
            if self.residual:
                fail(d, "'%s': features are supported for a scalar .energy, not a .residual" % d.name)
            if not 1 <= out["features"] <= n:  # n: the unknowns themselves, for the adjoint sweep
                fail(d, "'%s': .features = %d; an energy at features has 1 to %d (at most its %d unknowns)" % (d.name, out["features"], n, n))
        self.meta = out
        self.info_decl = d
        return out

    def feature_rows(self):
        """The feature map's matrix B(p), row by row, checked linear (LinearMap)."""
        m = self.meta
        fn = self.function(m["feature"])
        n, k = m["vertices"] * m["dof"], m["features"]
        want = "void %s(const double x[%d], const double p[%d], double f[%d])" % (fn.name, n, m["params"], k)
        if fn.ret != "void" or len(fn.params) != 3 or not all(v.is_ptr and v.is_double for v in fn.params) or not all(v.const for v in fn.params[:2]) or fn.params[2].const:
            fail(fn.fdef.decl, "feature map '%s' must be '%s'" % (fn.name, want))
        for v, size, what in zip(fn.params, (n, m["params"], k), ("unknowns", "parameters (.params)", "features (.features)")):
            if v.size is not None and v.size != size and not (size == 0 and v.size == 1):
                fail(v.node, "'%s' has %d entries but the energy has %d %s" % (v.name, v.size, size, what))
        lm = LinearMap(self, fn, n, m["params"], k)
        rows = lm.run()
        return rows, lm.code

    def callee_spec(self, caller, call):
        name = call.name.name if isinstance(call.name, c_ast.ID) else None
        if name not in self.funcs:
            if name in PASSIVE_MATH or name in MATH1 or name in MATH2:
                fail(call, "internal: math function as a helper")
            fail(call, "call to unknown function '%s': an energy may call math.h functions (%s) and functions defined in its file or an included header" % (name, ", ".join(sorted(set(MATH1) | set(MATH2) | {"pow"}))))
        fn = self.function(name)
        if name in self.stack:
            cycle = self.stack[self.stack.index(name):] + [name]
            fail(call, "recursion (%s) is not supported in an energy" % " -> ".join(cycle))
        sig = caller.arg_sig(call, fn) if caller.flavor != "host" else tuple(False for _ in fn.params)
        return self.spec(fn, sig, caller.flavor)

    def spec(self, fn, sig, flavor, energy=False):
        key = (fn.name, sig, flavor, energy)
        if key not in self.specs:
            sp = Spec(self, fn, sig, flavor, energy)
            self.specs[key] = sp
            self.stack.append(fn.name)
            try:
                sp.analyse()
            finally:
                self.stack.pop()
        return self.specs[key]

    def emit(self, spec):
        """The spec's function and its callees' (ir.Function), callees first (C needs them declared), each spec once."""
        key = (spec.fn.name, spec.sig, spec.flavor, spec.energy)
        if key in self.emitted:
            return []
        self.emitted.add(key)
        self.stack.append(spec.fn.name)
        try:
            lines = [Emitter(spec).function()]
        finally:
            self.stack.pop()
        out = []
        for call_spec in self.called_specs(spec):
            out += self.emit(call_spec)
        return out + lines

    def called_specs(self, spec):
        res = []
        for call in spec.fn.calls:
            name = call.name.name if isinstance(call.name, c_ast.ID) else None
            if name in MATH1 or name in MATH2 or name in PASSIVE_MATH or name in VALUE_TESTS or name == "pow":
                continue
            if name in self.rules and spec.flavor != "host":  # f, f', f'' over doubles (jets.py rule_jet)
                res += [self.spec(self.function(g), (False,), spec.flavor) for g in (name,) + tuple(self.rules[name])]
                continue
            cs = self.callee_spec(spec, call)
            if spec.flavor != "host" and cs.fn.fdef.coord.file == self.energy_h and cs.fn.name in Emitter.INTRINSICS and any(tuple(p) == tuple(cs.sig) for p, _ in Emitter.INTRINSICS[cs.fn.name]):
                continue
            res.append(cs)
        return res

    def energy_spec(self):
        m = self.meta
        fn = self.function(m["energy"])
        if self.residual:
            return self.residual_spec(fn)
        if fn.ret != "double" or len(fn.params) != 2 or not all(v.is_ptr and v.is_double and v.const for v in fn.params):
            fail(fn.fdef.decl, "energy '%s' must be 'double %s(const double x[%d], const double p[%d])'" % (fn.name, fn.name, m["vertices"] * m["dof"], m["params"]))
        x, p = fn.params
        x.role, p.role = "x", "p"
        n = m["vertices"] * m["dof"]
        if "features" in m:  # psi(f, p) over the features
            n = m["features"]
            if x.size is not None and x.size != n:
                fail(x.node, "'%s' has %d entries but the energy has %d features (.features)" % (x.name, x.size, n))
        if x.size is not None and x.size != n:
            fail(x.node, "'%s' has %d entries but the energy has %d unknowns (vertices %d x dof %d)" % (x.name, x.size, n, m["vertices"], m["dof"]))
        if p.size is not None and p.size != m["params"] and not (m["params"] == 0 and p.size == 1):
            fail(p.node, "'%s' has %d entries but .params is %d" % (p.name, p.size, m["params"]))
        x.size = n
        p.size = m["params"]
        return self.spec(fn, (True, False), "mode", energy=True)

    def residual_spec(self, fn):
        m = self.meta
        n = m["vertices"] * m["dof"]
        want = "void %s(const double x[%d], const double p[%d], double r[%d])" % (fn.name, n, m["params"], m["outputs"])
        if fn.ret != "void" or len(fn.params) != 3 or not all(v.is_ptr and v.is_double for v in fn.params) or not all(v.const for v in fn.params[:2]) or fn.params[2].const:
            fail(fn.fdef.decl, "residual '%s' must be '%s'" % (fn.name, want))
        x, p, r = fn.params
        x.role, p.role, r.role = "x", "p", "r"
        for v, k, what in ((x, n, "unknowns (vertices %d x dof %d)" % (m["vertices"], m["dof"])), (p, m["params"], "parameters (.params)"), (r, m["outputs"], "outputs (.outputs)")):
            if v.size is not None and v.size != k and not (v is p and k == 0 and v.size == 1):
                fail(v.node, "'%s' has %d entries but the residual has %d %s" % (v.name, v.size, k, what))
            v.size = k
        return self.spec(fn, (True, False, True), "mode", energy=True)

    def rest_spec(self):
        fn = self.function(self.meta["rest"])
        if fn.ret != "int" or len(fn.params) != 3 or not all(v.is_ptr and v.is_double for v in fn.params) or fn.params[2].const:
            fail(fn.fdef.decl, "rest set-up '%s' must be 'int %s(const double r[], const double m[], double p[])'" % (fn.name, fn.name))
        m = self.meta
        sizes = (m.get("cell_vertices") or m["vertices"]) * m["rest_dim"], m["material"], m["params"]
        for v, n in zip(fn.params, sizes):
            if v.size is not None and v.size != n and n > 0:
                fail(v.node, "'%s' has %d entries; it should have %d" % (v.name, v.size, n))
            v.size = n if n > 0 else v.size
        return self.spec(fn, (False, False, False), "host")

    def step_spec(self):
        """.step: the largest t with the element valid (finite energy) along x + s d for s in [0, t)"""
        fn = self.function(self.meta["step"])
        if fn.ret != "double" or len(fn.params) != 3 or not all(v.is_ptr and v.is_double for v in fn.params):
            fail(fn.fdef.decl, "step bound '%s' must be 'double %s(const double x[], const double d[], const double p[])'" % (fn.name, fn.name))
        m = self.meta
        n = m["vertices"] * m["dof"]
        for v, k in zip(fn.params, (n, n, m["params"])):
            if v.size is not None and v.size != k and k > 0:
                fail(v.node, "'%s' has %d entries; it should have %d" % (v.name, v.size, k))
            v.size = k if k > 0 else v.size
        return self.spec(fn, (False, False, False), "host")
