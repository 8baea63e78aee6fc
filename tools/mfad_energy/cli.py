# SPDX-License-Identifier: BSD-2-Clause
"""mfad-energy: turns a plain-C element energy into mfad's AD modes by source transformation.

    mfad-energy [-o OUT.c] [--name NAME] [--info VAR] [-I DIR] [-D MACRO] [--depfile F] ENERGY.c

ENERGY.c is ordinary C over doubles (it compiles as it is): an energy function
`double f(const double x[N], const double p[P])`, optional helpers and rest set-up, and one
`const MfadEnergyInfo <name>_info = {...}` (include <mfad/energy.h>). The output is one C file
that compiles with a C compiler (CPU) and, included from a .cu file, with nvcc (CUDA): the
energy in every mode of include/mfad/impl/instantiate.h (value, gradient, fused HVP, Hessian, ...)
as the kernel MfadKernel_<NAME> (NAME of <NAME>_info, or --name). Activity analysis keeps everything that depends only on p and
constants in double; `#line` directives point compiler messages at ENERGY.c. Constructs that
cannot be differentiated are errors at file:line:column. The C front end is pycparser, fed by
the C preprocessor (`cc -E`) with a math.h that declares only what an energy may use.
"""
import argparse
import os
import sys

from . import ir
from .common import TranslateError, fail
from .features import feature_code
from .frontend import parse
from .output import unit_text
from .lanes import lanes_feature_code, lanes_function
from .reverse import NoReverse, Reverser
from .translator import Translator


def main(argv=None, tool_dir=None):
    """The mfad-energy command; tool_dir is the directory of the command (tools/ of the tree, bin/ of an
    install), where fakeinc/ and ../include are found."""
    if tool_dir is None:
        tool_dir = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    ap = argparse.ArgumentParser(prog="mfad-energy", description=__doc__.split("\n\n")[0])
    ap.add_argument("source")
    ap.add_argument("-o", "--output", help="output C file (default: NAME_mfad.c beside the source)")
    ap.add_argument("--name", help="kernel name: MfadKernel_NAME (default: NAME of the file's 'const MfadEnergyInfo NAME_info')")
    ap.add_argument("--info", help="the MfadEnergyInfo variable, if the file has several")
    ap.add_argument("-I", dest="incs", action="append", default=[], help="include directory")
    ap.add_argument("-D", dest="defs", action="append", default=[], help="macro definition")
    ap.add_argument("--cpp", default=os.environ.get("MFAD_CPP", "cc -E"), help="C preprocessor command (default: cc -E)")
    ap.add_argument("--depfile", help="write the source's included files as a Makefile rule")
    ap.add_argument("--roll-hessian-rows", action="store_true", help="Hessian mode's rows as loops (energies of many unknowns: a fraction of the compile time)")
    ap.add_argument("--lanes", action="store_true", help="also a gradient and HVP body over SIMD lanes, one element per lane "
                    "(include/mfad/impl/ad_lanes.h), where the energy has features and a reverse body the lanes can take; else a note")
    ap.add_argument("--line-directory", metavar="DIR", help="output that names no absolute path: #line file names relative to DIR "
                    "(the directory the compiler runs in) and the unit's self-include by its base name (the build puts the output's "
                    "directory on the include path), so that a compiler cache hits whichever folder the tree is in")
    args = ap.parse_args(argv)

    source = os.path.abspath(args.source)
    base = os.path.splitext(os.path.basename(source))[0]
    out = os.path.abspath(args.output or os.path.join(os.path.dirname(source), (args.name or base) + "_mfad.c"))
    ast, rc = parse(args, source, out, tool_dir)
    if ast is None:
        return rc
    try:
        tr = Translator(ast, source, args.name, args.info)
        name = tr.name  # --name, else from the info variable: what MFAD_KERNEL(name) links against
        meta = tr.info()
        energy = tr.energy_spec()
        body_ir = tr.emit(energy)
        body = ir.lines(body_ir)
        feature = []
        if "features" in meta:
            rows, code = tr.feature_rows()
            feature = feature_code(rows, code, meta["vertices"] * meta["dof"], meta["features"], meta["feature"])
        rest, rest_name = [], None
        if "rest" in meta:
            rest = ir.lines(tr.emit(tr.rest_spec()))
            rest_name = tr.specs[(meta["rest"], (False, False, False), "host", False)].cname
        step, step_name = [], None
        if "step" in meta:
            step = ir.lines(tr.emit(tr.step_spec()))
            step_name = tr.specs[(meta["step"], (False, False, False), "host", False)].cname
        reverse = []
        if tr.residual and meta.get("reverse") == 1:
            fail(tr.infos[0], "'%s': .reverse = MFAD_REVERSE_REQUIRED: a residual has no reverse mode (its Jacobian runs forward)" % tr.infos[0].name)
        # tried for every scalar energy (at its features, or at its unknowns where it declares none),
        # unless its author chose forward over forward (.reverse = MFAD_REVERSE_NEVER)
        if not tr.residual and meta.get("reverse") != 2:
            try:
                reverse = Reverser(body_ir).function()
            except NoReverse as e:
                # never silent: forward over forward is slower on the CPU and, on the GPU, over the resource gate
                c = e.coord or tr.infos[0].coord
                kind = "error" if meta.get("reverse") == 1 else "warning"
                sys.stderr.write("%s:%s: mfad-energy: %s: no reverse mode for energy '%s' (%s): its Hessian modes use forward over "
                                 "forward (slower on the CPU; on the GPU over the resource gate)\n" % (c.file, c.line, kind, name, e))
                if meta.get("reverse") == 1:
                    return 1
        lanes = []
        if args.lanes and not reverse and not tr.residual:  # the lanes body is the reverse sweep on lanes: said, as every other refusal
            # (a residual's loops are its own, never on lanes: nothing to say)
            sys.stderr.write("%s: mfad-energy: note: no lanes for energy '%s' (no reverse sweep): the scalar path\n" % (source, name))
        if args.lanes and reverse:
            # an energy without features runs on the lanes at its unknowns (the identity map:
            # mfad/impl/loop_cpu_lanes.h), as its reverse sweep does on the scalar path
            try:
                lanes = lanes_feature_code(feature) + lanes_function(body_ir)
            except NoReverse as e:  # NoLanes: said, never an error (the scalar path serves)
                c = e.coord or tr.infos[0].coord
                sys.stderr.write("%s:%s: mfad-energy: note: no lanes for energy '%s' (%s): the scalar path\n" % (c.file, c.line, name, e))
    except TranslateError as e:
        sys.stderr.write(str(e) + "\n")
        return 1

    text = unit_text(source, out, name, meta, tr.residual, body, feature, rest, rest_name, step, step_name, reverse,
                     args.line_directory, args.roll_hessian_rows, lanes)
    old = None
    if os.path.exists(out):
        with open(out) as f:
            old = f.read()
    if old != text:  # unchanged output keeps its time stamp: no rebuild
        with open(out, "w") as f:
            f.write(text)
    return 0

