#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every CUDA kernel's registers, stack and spills, per architecture, from ptxas's own report
(the <object>.ptxas files that -DMFAD_CUDA_RESOURCE_REPORT=ON keeps, cmake/ptxas-report.sh), and
the gate CI applies to them (docs/gpu.md): a kernel's stack (its frame and its callees', what the
driver reserves for every resident thread) at most --max-stack bytes (1 KB), and no spills in a
value, gradient or HVP kernel. No kernel is exempt: the PSD projection, which held an element
matrix and its eigenvectors per thread (up to 7.4 KB), is a batched eigensolver (src/cuda/psd.cu).

  scripts/cuda-resources.py BUILD_DIR [--max-stack 1024] [--markdown] [--known FILE]
--known: "unit kernel" lines (scripts/cuda-resources-known.txt) of kernels known to fail, with the
reason beside them; they are shown as "known" and do not fail the gate, and one that passes again
is named so that it leaves the list. Exit status 1 when a kernel fails the gate (or no report was
found), else 0."""
import argparse, glob, os, re, subprocess, sys

NOSPILL = re.compile(r"^k_(value|gradient|hvp)$")


def demangle(names):
    try:
        out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True, check=True).stdout.split("\n")
        return dict(zip(names, out))
    except (OSError, subprocess.CalledProcessError):
        return {n: n for n in names}


def parse(path):
    """[(kernel mangled name, arch, registers, stack bytes, spill bytes)] of one report"""
    rows, cur, props = [], None, None
    for line in open(path, errors="replace"):
        m = re.search(r"Compiling entry function '([^']+)' for '(sm_\d+)'", line)
        if m:
            cur = {"name": m.group(1), "arch": m.group(2), "regs": 0, "frame": 0, "stack": None, "spill": 0}
            rows.append(cur)
            continue
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            props = m.group(1)
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur is not None:
            if props == cur["name"]:
                cur["frame"] = int(m.group(1))
            cur["spill"] += int(m.group(2)) + int(m.group(3))  # the kernel's and its callees'
            continue
        m = re.search(r"Used (\d+) registers", line)
        if m and cur is not None:
            cur["regs"] = int(m.group(1))
            s = re.search(r"(\d+) bytes cumulative stack size", line)
            cur["stack"] = int(s.group(1)) if s else cur["frame"]
            cur = None
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--max-stack", type=int, default=1024)
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--known")
    a = ap.parse_args()
    known = set()
    if a.known:
        for line in open(a.known):
            f = line.split("#")[0].split()
            if len(f) >= 2:
                known.add((f[0], f[1]))
    reports = sorted(glob.glob(os.path.join(a.build, "**", "*.ptxas"), recursive=True))
    reports = [r for r in reports if "/bench/" not in r]  # the library's kernels, not bench programs
    if not reports:
        print(f"cuda-resources: no ptxas reports under {a.build} (configure with -DMFAD_CUDA_RESOURCE_REPORT=ON)", file=sys.stderr)
        return 1
    rows = []
    for r in reports:
        unit = re.sub(r"^mfad_energy_", "", os.path.basename(r).split(".")[0])
        for k in parse(r):
            k["unit"] = unit
            rows.append(k)
    names = demangle([k["name"] for k in rows])
    bad = 0
    table = []
    for k in rows:
        d = names[k["name"]].split("(")[0]
        m = re.match(r"mfad_cuda_(k_[a-z_]+?)_" + re.escape(k["unit"]) + r"$", d)
        short = m.group(1) if m else d
        verdict = "ok"
        if k["stack"] > a.max_stack:
            verdict = f"FAIL: stack > {a.max_stack}"
        elif k["spill"] and NOSPILL.match(short):
            verdict = "FAIL: spills"
        if verdict.startswith("FAIL") and (k["unit"], short) in known:
            verdict = "known: " + verdict[6:]
        bad += verdict.startswith("FAIL")
        table.append((k["unit"], short, k["arch"], k["regs"], k["stack"], k["spill"], verdict))
    table.sort()
    if a.markdown:
        print("| unit | kernel | arch | registers | stack bytes | spill bytes | gate |")
        print("| --- | --- | --- | --- | --- | --- | --- |")
        for t in table:
            print("| " + " | ".join(str(x) for x in t) + " |")
    else:
        print(f"{'unit':24} {'kernel':20} {'arch':6} {'regs':>5} {'stack':>7} {'spill':>6}  gate")
        for t in table:
            print(f"{t[0]:24} {t[1]:20} {t[2]:6} {t[3]:5d} {t[4]:7d} {t[5]:6d}  {t[6]}")
    failing = {(t[0], t[1]) for t in table if t[6] != "ok"}
    for u, k in sorted(known - failing):
        if any(t[0] == u and t[1] == k for t in table):
            print(f"cuda-resources: {u} {k} passes now: take it off the known list")
    nknown = sum(t[6].startswith("known") for t in table)
    print(f"cuda-resources: {len(table)} kernels in {len(reports)} reports; {nknown} known to exceed (--known), {bad} fail the gate "
          f"(stack <= {a.max_stack} bytes, no spills in value/gradient/HVP kernels)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
