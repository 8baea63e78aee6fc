# SPDX-License-Identifier: BSD-2-Clause
"""Names every pass shares: the math.h tables, the error type (file:line:column), C text of a node."""
from pycparser import c_generator


# math.h functions with a derivative rule in include/mfad/impl/ad_generic.h: name -> OP name
MATH1 = {f: f for f in ("sqrt", "cbrt", "exp", "log", "sin", "cos", "tan", "asin", "acos", "atan", "tanh", "fabs")}
# of these the forward emitter writes the jet (f, f', f'') in double and one OP(chain1), which the
# adjoint sweep reverses too (jets.py JET_RULES; digamma and trigamma: include/mfad/impl/special.h)
JET1 = ("erf", "erfc", "expm1", "log1p", "sinh", "cosh", "lgamma")
MATH1.update((f, f) for f in JET1)
MATH2 = {"atan2": "atan2", "hypot": "hypot", "fmin": "fmin", "fmax": "fmax"}  # pow is special
# math.h functions of passive arguments only (no derivative, or piecewise constant)
PASSIVE_MATH = {"floor", "ceil", "round", "trunc", "fmod", "copysign", "log2", "log10", "exp2"}
VALUE_TESTS = {"isfinite", "isnan", "isinf", "mfad_value"}  # read the value: an int, or a double without derivatives
SPECIAL_IDS = {"__mfad_INFINITY": "INFINITY", "__mfad_NAN": "NAN", "__mfad_HUGE_VAL": "HUGE_VAL"}
ARITH = {"+", "-", "*", "/"}
COMPARE = {"<", ">", "<=", ">=", "==", "!=", "&&", "||"}
INT_TYPES = {"int", "long", "short", "unsigned", "signed", "char", "size_t"}


class TranslateError(Exception):
    def __init__(self, coord, msg):
        super().__init__(msg)
        self.coord, self.msg = coord, msg

    def __str__(self):
        c = self.coord
        where = "%s:%s:%s: " % (c.file, c.line, c.column or 1) if c is not None else ""
        return "%serror: %s" % (where, self.msg)


def fail(node, msg):
    raise TranslateError(getattr(node, "coord", None), msg)


def src(node):
    """The construct as C text, for messages."""
    from pycparser import c_generator
    try:
        return c_generator.CGenerator().visit(node)
    except Exception:
        return type(node).__name__
