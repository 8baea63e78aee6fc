# SPDX-License-Identifier: BSD-2-Clause
"""mfad.Kernel.from_c: a plain-C energy file translated, compiled and loaded, its kernel registered
(found by name); a second build is the cached object (the file is not rewritten); an energy given as
text; a translation error raises mfad.TranslationError with the translator's file:line:column.
  test_kernel.py <sym_dirichlet.c>"""
import os
import re
import sys
import mfad
from mfad import _build

path = sys.argv[1]
k = mfad.Kernel.from_c(path)
assert k.name == "sym_dirichlet" and k.sizes == (4, 3, 10), (k.name, k.sizes)
assert mfad.Kernel("sym_dirichlet").sizes == k.sizes  # registered
assert mfad.Kernel.from_c(path) is k  # loaded once per process
so, name = _build.build(path)
stamp = os.stat(so).st_mtime_ns
assert _build.build(path) == (so, name) and os.stat(so).st_mtime_ns == stamp, "a cached energy was compiled again"
print("python_kernel_from_c: %s cached in %s" % (name, so))

good = """#include <mfad/energy.h>
static double spring1(const double x[2], const double p[1]) { return 0.5 * p[0] * (x[0] * x[0] + x[1] * x[1]); }
const MfadEnergyInfo spring1_info = {.vertices = 1, .dof = 2, .params = 1, .energy = spring1};
"""
k1 = mfad.Kernel.from_c(good)
assert k1.name == "spring1" and k1.sizes == (1, 2, 1), (k1.name, k1.sizes)

bad = good.replace("x[1] * x[1]", "x[1] * undefined_thing")
try:
    mfad.Kernel.from_c(bad)
except mfad.TranslationError as e:
    msg = str(e)
    print("python_kernel_from_c: TranslationError: %s" % msg)
    assert re.search(r"energy-[0-9a-f]+\.c:2:\d+: .*undefined_thing", msg), msg
else:
    raise AssertionError("a bad energy raised nothing")
missing = os.path.join(os.path.dirname(os.path.abspath(path)), "no_such_energy.c")
try:
    mfad.Kernel.from_c(missing)
except FileNotFoundError as e:
    assert "no_such_energy.c" in str(e)
else:
    raise AssertionError("a missing file raised nothing")
print("python_kernel_from_c: passed")
