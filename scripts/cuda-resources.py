#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Every CUDA kernel's registers, shared memory, stack and spills, per architecture, from ptxas's
own report (the <object>.ptxas files that -DMFAD_CUDA_RESOURCE_REPORT=ON keeps,
cmake/ptxas-report.sh), its block size and occupancy, and the gate CI applies to them
(docs/gpu.md):
- every kernel declares its launch size (__launch_bounds__ through MFAD_CUDA_BOUNDS, or
  MFAD_CUDA_BOUNDS_SERIAL for a one-thread launch: include/mfad/impl/cuda_common.h); the sources
  (include/mfad/impl/loop_cuda.h, src/cuda/) are read for that size, MFAD_CUDA_THREADS;
- registers x block fit the 64 K registers a block may have (as the hardware checks a launch:
  registers per warp rounded up to 256, warps rounded up to the 4 sub-partitions);
- a kernel's stack (its frame and its callees', what the driver reserves for every resident
  thread) at most --max-stack bytes (1 KB); no spills in a value, gradient or HVP kernel;
- the value, gradient and HVP kernels at >= --min-occupancy (25%) of an SM's 64 warps at that block
  size (CUDA's occupancy calculation, cuda_occupancy.h, for sm_80 and sm_90: 64 K registers in 4
  sub-partitions, 64 warps, 32 blocks, 164 / 228 KB of shared memory per SM).
No kernel is exempt by name: the PSD projection, which held an element matrix and its
eigenvectors per thread (up to 7.4 KB), is a batched eigensolver (src/cuda/psd.cu).

  scripts/cuda-resources.py BUILD_DIR [--max-stack 1024] [--min-occupancy 25] [--markdown] [--known FILE]
--known: "unit kernel [gate]" lines (scripts/cuda-resources-known.txt) of kernels known to fail a
gate (stack, spills, occupancy; none: any), with the reason after a '#'; they are shown as
"known: reason" and do not fail the gate, and one that passes again is named so that it leaves
the list. Exit status 1 when a kernel fails the gate (or no report was found), else 0."""
import argparse, glob, os, re, subprocess, sys

NOSPILL = re.compile(r"^k_(value|gradient|hvp)$")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# per SM (cuda_occupancy.h's inputs): registers, their sub-partitions and allocation unit, warps,
# blocks, shared memory (bytes usable by blocks) and what each block reserves of it
SM = {"sm_80": dict(regs=65536, parts=4, unit=256, warps=64, blocks=32, smem=167936, smem_block=1024),
      "sm_90": dict(regs=65536, parts=4, unit=256, warps=64, blocks=32, smem=233472, smem_block=1024)}


def launch_sizes():
    """(MFAD_CUDA_THREADS, {kernel name: block size} of the kernels not launched at it, [kernels
    without launch bounds]) from the sources: every __global__ must say MFAD_CUDA_BOUNDS[_SERIAL]"""
    common = open(os.path.join(ROOT, "include", "mfad", "impl", "cuda_common.h")).read()
    threads = int(re.search(r"#define MFAD_CUDA_THREADS (\d+)", common).group(1))
    special, unbounded = {}, []
    files = [os.path.join(ROOT, "include", "mfad", "impl", "loop_cuda.h")] + sorted(glob.glob(os.path.join(ROOT, "src", "cuda", "*.cu*")))
    for f in files:
        for m in re.finditer(r"__global__\s+void\s+(MFAD_CUDA_BOUNDS(?:_SERIAL)?\s+)?([A-Za-z_]\w*(?:\([^)]*\))?)", open(f).read()):
            name = re.sub(r"^MFAD_CUDA_FN\((\w+)\)$", r"\1", m.group(2))
            if not m.group(1):
                unbounded.append(f"{os.path.relpath(f, ROOT)}: {name}")
            elif "SERIAL" in m.group(1):
                special[name] = 1
    return threads, special, unbounded


def occupancy(arch, regs, smem, block):
    """(resident blocks per SM, fraction of the SM's warps, registers a block is assumed to take)"""
    sm = SM.get(arch, SM["sm_90"])
    warps = -(-block // 32)
    per_warp = -(-regs * 32 // sm["unit"]) * sm["unit"]
    assumed = per_warp * (-(-warps // sm["parts"]) * sm["parts"])
    if assumed > sm["regs"] or regs > 255:
        return 0, 0.0, assumed
    by_regs = (sm["regs"] // sm["parts"] // per_warp) * sm["parts"] // warps if per_warp else sm["blocks"]
    by_smem = sm["smem"] // (smem + sm["smem_block"]) if smem else sm["blocks"]
    blocks = min(by_regs, by_smem, sm["blocks"], sm["warps"] // warps)
    return blocks, blocks * warps / sm["warps"], assumed


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
            cur = {"name": m.group(1), "arch": m.group(2), "regs": 0, "frame": 0, "stack": None, "spill": 0, "smem": 0}
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
            s = re.search(r"(\d+) bytes smem", line)
            cur["smem"] = int(s.group(1)) if s else 0
            cur = None
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("--max-stack", type=int, default=1024)
    ap.add_argument("--min-occupancy", type=float, default=25.0, help="percent, for the value, gradient and HVP kernels")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--known")
    a = ap.parse_args()
    known = {}  # (unit, kernel) -> (gate or None, reason)
    if a.known:
        for line in open(a.known):
            f = line.split("#")[0].split()
            if len(f) >= 2:
                known[(f[0], f[1])] = (f[2] if len(f) > 2 else None, line.split("#", 1)[1].strip() if "#" in line else "")
    reports = sorted(glob.glob(os.path.join(a.build, "**", "*.ptxas"), recursive=True))
    reports = [r for r in reports if "/bench/" not in r]  # the library's kernels, not bench programs
    if not reports:
        print(f"cuda-resources: no ptxas reports under {a.build} (configure with -DMFAD_CUDA_RESOURCE_REPORT=ON)", file=sys.stderr)
        return 1
    threads, special, unbounded = launch_sizes()
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
        d = re.sub(r"^void ", "", names[k["name"]].split("(")[0])
        m = re.match(r"mfad_cuda_(k_[a-z_]+?)_" + re.escape(k["unit"]) + r"$", d)
        short = m.group(1) if m else d
        block = special.get(re.sub(r"<.*", "", short), threads)
        blocks, occ, assumed = occupancy(k["arch"], k["regs"], k["smem"], block)
        fails = []  # (gate, message)
        if assumed > 65536 or not blocks:
            fails.append(("registers", f"{k['regs']} registers x {block} threads > 64 K"))
        if k["stack"] > a.max_stack:
            fails.append(("stack", f"stack > {a.max_stack}"))
        if k["spill"] and NOSPILL.match(short):
            fails.append(("spills", "spills"))
        if NOSPILL.match(short) and 100 * occ < a.min_occupancy:
            fails.append(("occupancy", f"occupancy {100 * occ:.1f}% < {a.min_occupancy:g}%"))
        verdict = "ok"
        kn = known.get((k["unit"], short))
        for gate, msg in fails:
            if kn and kn[0] in (None, gate):
                verdict = f"known ({msg}): {kn[1]}" if verdict == "ok" else verdict
            else:
                verdict = "FAIL: " + msg
                break
        bad += verdict.startswith("FAIL")
        table.append((k["unit"], short, k["arch"], k["regs"], k["smem"], k["stack"], k["spill"], block, f"{100 * occ:.1f}", verdict))
    for u in unbounded:
        print(f"cuda-resources: FAIL: {u} has no launch bounds (MFAD_CUDA_BOUNDS: the block size it is launched with)")
    bad += len(unbounded)
    table.sort()
    head = ("unit", "kernel", "arch", "registers", "smem", "stack", "spill", "block", "occupancy %", "gate")
    if a.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + " --- |" * len(head))
        for t in table:
            print("| " + " | ".join(str(x) for x in t) + " |")
    else:
        print(f"{'unit':26} {'kernel':28} {'arch':6} {'regs':>5} {'smem':>5} {'stack':>6} {'spill':>6} {'block':>5} {'occ%':>5}  gate")
        for t in table:
            print(f"{t[0]:26} {t[1]:28} {t[2]:6} {t[3]:5d} {t[4]:5d} {t[5]:6d} {t[6]:6d} {t[7]:5d} {t[8]:>5}  {t[9]}")
    failing = {(t[0], t[1]) for t in table if t[9] != "ok"}
    for u, k in sorted(set(known) - failing):
        if any(t[0] == u and t[1] == k for t in table):
            print(f"cuda-resources: {u} {k} passes now: take it off the known list")
    nknown = sum(t[9].startswith("known") for t in table)
    print(f"cuda-resources: {len(table)} kernels in {len(reports)} reports; {nknown} known to exceed (--known), {bad} fail the gate "
          f"(launch bounds on every kernel, registers x block <= 64 K at {threads} threads, stack <= {a.max_stack} bytes, "
          f"no spills and occupancy >= {a.min_occupancy:g}% in value/gradient/HVP kernels)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
