# SPDX-License-Identifier: BSD-2-Clause
"""Front end: the C preprocessor (with tools/fakeinc/math.h, the restricted math.h an energy may use,
and mfad's include/) and pycparser. Its failures are the user's: messages name the file."""
import os
import shlex
import subprocess
import sys

from pycparser import c_ast, c_parser


def include_dirs(tool_dir):
    """(fakeinc, include) beside the mfad-energy command: tools/ of the tree, or bin/ of an install."""
    fake = os.path.join(tool_dir, "fakeinc")
    if not os.path.isdir(fake):
        fake = os.path.join(tool_dir, "..", "share", "mfad", "fakeinc")
    return fake, os.path.normpath(os.path.join(tool_dir, "..", "include"))


def parse(args, source, out, tool_dir):
    """The preprocessed, parsed source as (pycparser AST, 0), or (None, exit status) with the reason on stderr."""
    fake, mfadinc = include_dirs(tool_dir)
    cmd = shlex.split(args.cpp) + ["-nostdinc", "-I", fake, "-I", mfadinc, "-D__MFAD_ENERGY_TRANSLATOR__"]
    for i in args.incs:
        cmd += ["-I", i]
    for d in args.defs:
        cmd += ["-D", d]
    if args.depfile:
        cmd += ["-MD", "-MF", args.depfile, "-MT", out]
    cmd.append(source)
    try:
        pp = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    except OSError as e:
        sys.stderr.write("mfad-energy: cannot run the preprocessor '%s': %s\n" % (args.cpp, e))
        return None, 2
    if pp.returncode != 0:
        sys.stderr.write(pp.stderr)
        sys.stderr.write("mfad-energy: %s: the C preprocessor failed (an energy may include <math.h>, <mfad/energy.h> and its own headers)\n" % args.source)
        return None, 1
    return parse_text(pp.stdout, source)


def parse_text(text, source):
    """pycparser on preprocessed text: (AST, 0), or (None, 1) with pycparser's file:line:col on stderr."""
    try:
        ast = c_parser.CParser().parse(text, source)
    except Exception as e:  # pycparser's ParseError: "file:line:col: before: token"
        sys.stderr.write("%s: error: not C that mfad-energy reads (%s)\n" % (str(e).split(": before")[0] if ":" in str(e) else source, e))
        return None, 1
    # pycparser 2.21 gives a function body's '{' on the line after its declarator the file of the
    # #line before the function (another header); 3.00 gives its own: the body is in the
    # declarator's file (the output's #line directives then agree between the two)
    for ext in ast.ext:
        b, d = ext.body.coord if isinstance(ext, c_ast.FuncDef) else None, ext.decl.coord if isinstance(ext, c_ast.FuncDef) else None
        if b is not None and d is not None and b.file != d.file:
            ext.body.coord = type(b)(d.file, b.line, b.column)
    return ast, 0
