# SPDX-License-Identifier: BSD-2-Clause
"""Ctrl-C during a solve: param.py (SNES, mfad's default solver) on a surface big enough to take
seconds is sent SIGINT once PETSc's monitor has printed the first Newton step; the solve must stop
with KeyboardInterrupt raised from snes.solve (Python's handler only sets a flag: the monitor that
Energy.set_snes installs checks it each step) well before it would have converged.
  test_interrupt.py <param.py>"""
import os
import signal
import subprocess
import sys
import time

cmd = [sys.executable, "-u", sys.argv[1], "-n", "160", "-snes_monitor", "-snes_rtol", "1e-14"]
p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, stdin=subprocess.DEVNULL)
out = []
for line in p.stdout:
    out.append(line)
    if "1 SNES Function norm" in line:
        t0 = time.time()
        p.send_signal(signal.SIGINT)
        break
else:
    sys.exit("python_interrupt: FAILED: the solve never printed its first step:\n" + "".join(out))
rest = p.stdout.read()
rc = p.wait()
out.append(rest)
text = "".join(out)
print(text)
steps = text.count("SNES Function norm")
print("python_interrupt: exit %d, %.2f s after SIGINT, %d Newton steps printed" % (rc, time.time() - t0, steps))
assert "KeyboardInterrupt" in text and "snes.solve" in text, "no KeyboardInterrupt from snes.solve"
assert "param: vertices" not in text, "the solve ran to its end"
assert rc != 0
assert steps <= 4, "the solve went on for %d steps after SIGINT" % steps
print("python_interrupt: passed")
