# SPDX-License-Identifier: BSD-2-Clause
"""Forward-over-forward emission: the Emitter lowers one Spec (a function at one activity signature) to
the IR of ir.py (an ir.Function), which prints as C in the OP() dialect of
include/mfad/impl/ad_generic.h. Its methods are in four modules, one concern each: emit_base
(statement context, variables, passive expressions), emit_active (active expressions), jets (the
fused univariate chain rule) and emit_stmt (calls, statements, the function)."""
from .emit_active import ActiveExpressions
from .emit_base import EmitterBase
from .emit_stmt import Statements
from .jets import Jets


class Emitter(EmitterBase, ActiveExpressions, Jets, Statements):
    """Lowers one Spec to an ir.Function (function() returns it)."""
