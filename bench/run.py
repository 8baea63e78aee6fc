#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark driver: runs every bench program and peer on this machine in one run and writes
bench/RESULTS.md (tables, ratios), bench/results.json (raw figures) and bench/plot_<workload>.png
(time per element vs mesh size). RESULTS.md's sections below its KEEP line (measured by hand) are kept.

    python3 bench/run.py            # full sizes (10k..1M elements), 5 repetitions, ~30-40 min
    python3 bench/run.py --quick    # small sizes, 3 repetitions, for development (~5 min)
    python3 bench/run.py --quick --only lanes,threads   # some sections (names: --help)

Runs with the system python3 (standard library only). It builds, in ./build, the bench programs
and examples it runs that are missing, ./build-valgrind (-DMFAD_NATIVE=OFF) for the callgrind
counts, and creates .venv/ with numpy, matplotlib, jax and torch from PyPI and .venv/sys (Debian's
petsc4py beside jax 0.4.30) for bench/python_overhead.py; a package that cannot be installed and
a program that cannot run are reported in their table as "not installed: <reason>" or
"not run: <reason>", never silently dropped. Medians are over >= 5 repetitions after one warm-up
(3 with --quick), with min-max beside them."""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BENCH = os.path.join(ROOT, "bench")
ENV1 = dict(os.environ, OMP_NUM_THREADS="1", OMP_WAIT_POLICY="PASSIVE")
MPIENV = dict(ENV1, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMPI_MCA_rmaps_base_oversubscribe="1")

# (workload, size options, elements) per size; elements are computed by the program and read back
FULL = {
    "neohookean": [["-n", "10", "-m", "17"], ["-n", "20", "-m", "42"], ["-n", "40", "-m", "105"]],  # 10k, 101k, 1.01M tets
    "cloth": [["-n", "100"], ["-n", "317"], ["-n", "1000"]],  # 10k, 100k, 1M vertices
    "dirichlet": [["-n", "71"], ["-n", "224"], ["-n", "708"]],  # 10k, 100k, 1M triangles
}
QUICK = {
    "neohookean": [["-n", "6", "-m", "8"], ["-n", "10", "-m", "17"]],
    "cloth": [["-n", "30"], ["-n", "100"]],
    "dirichlet": [["-n", "20"], ["-n", "71"]],
}
LOG = []


def log(msg):
    print(msg, flush=True)
    LOG.append(msg)


def run(cmd, env=ENV1, timeout=900, check=True):
    """Runs cmd, returns its stdout; a failure is logged and returns None (check=False) or raises."""
    t0 = time.time()
    try:
        p = subprocess.run(cmd, env=env, cwd=ROOT, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        log(f"  timed out after {timeout} s: {' '.join(cmd)}")
        if check:
            raise
        return None
    if p.returncode != 0:
        log(f"  failed (rc {p.returncode}): {' '.join(cmd)}\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
        if check:
            raise RuntimeError(f"{cmd[0]} failed")
        return None
    log(f"  {time.time() - t0:6.1f} s  {' '.join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)}")
    return p.stdout


def parse(out):
    """RESULT <op> <elements> <median> <min> <max>, ERROR <what> <value>, INFO key value ..."""
    res, err, info = {}, {}, {}
    for line in (out or "").splitlines():
        f = line.split()
        if not f:
            continue
        if f[0] == "RESULT" and f[1].startswith("stream_"):  # GB/s: median min max
            res[f[1]] = dict(med=float(f[2]), min=float(f[3]), max=float(f[4]))
        elif f[0] == "RESULT":
            res[f[1]] = dict(n=int(f[2]), med=float(f[3]), min=float(f[4]), max=float(f[5]))
        elif f[0] == "ERROR":
            err[f[1]] = float(f[2])
        elif f[0] == "INFO":
            for k, v in zip(f[1::2], f[2::2]):
                info[k] = v
    return res, err, info


def loadavg():
    with open("/proc/loadavg") as fp:
        return " ".join(fp.read().split()[:3])


def machine():
    model = platform.processor() or "unknown"
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    mem = ""
    with open("/proc/meminfo") as fp:
        for line in fp:
            if line.startswith("MemTotal"):
                mem = f"{int(line.split()[1]) / 2**20:.0f} GiB"
    return f"{model}, {os.cpu_count()} cores, {mem} memory, {platform.system()} {platform.release()}"


def commit():
    try:
        h = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        # this driver's own outputs (a previous run's, not yet committed) do not make the measured tree another
        own = [":!bench/RESULTS.md", ":!bench/results.json", ":!bench/plot_*.png"]
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--", ".", *own], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return h + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


# every program the driver runs; a target this configuration does not define (bench_spmv_eigen without
# Eigen, bench_cuda_cached_mult without CUDA) fails to build and its section says "not run"
TARGETS = ["bench_ops", "bench_stream", "bench_loops", "bench_hessian_forms", "bench_lanes", "bench_threads", "bench_spmv",
           "bench_spmv_eigen", "bench_psd", "bench_port", "bench_contact", "bench_lsq", "bench_residual_pde", "bench_scaling",
           "bench_gpu_estimate", "bench_cuda_cached_mult", "bench_dynamic", "elastic", "cloth", "sphere", "param", "mfad_python"]
WHERE = {"bench_dynamic": "tests", "elastic": "petsc-examples", "cloth": "petsc-examples", "sphere": "petsc-examples",
         "param": "petsc-examples"}


def built(b, t):
    if t == "mfad_python":  # the extension module, named by Python's suffix
        d = os.path.join(b, "python", "mfad")
        return os.path.isdir(d) and any(f.startswith("_mfad.") for f in os.listdir(d))
    return os.path.exists(os.path.join(b, WHERE.get(t, "bench"), t))


def ensure_build(build, extra, targets=("bench_ops", "bench_stream")):
    """Configures build if it has no cache, then builds the targets whose outputs are missing (only those:
    others build on this machine too); returns bench_ops's path."""
    b = os.path.join(ROOT, build)
    if not os.path.exists(os.path.join(b, "CMakeCache.txt")):
        log(f"configuring {build}")
        run(["cmake", "-S", ROOT, "-B", b, "-DCMAKE_BUILD_TYPE=Release"] + extra, timeout=600)
    missing = [t for t in targets if not built(b, t)]
    known = subprocess.run(["cmake", "--build", b, "--target", "help"], capture_output=True, text=True).stdout
    if known:  # the generator lists its targets: leave out those this configuration does not define
        missing = [t for t in missing if re.search(rf"\b{t}\b", known)]
    if missing:
        log(f"building {build}: {' '.join(missing)}")
        if run(["cmake", "--build", b, "-j2"] + [a for t in missing for a in ("--target", t)], timeout=3600, check=False) is None:
            for t in missing:  # one by one: a target this configuration lacks must not stop the others
                run(["cmake", "--build", b, "-j2", "--target", t], timeout=3600, check=False)
    return os.path.join(b, "bench", "bench_ops")


def ensure_venv(quick):
    """.venv with numpy, matplotlib, jax, torch; returns (python or None, {package: status})."""
    py = os.path.join(ROOT, ".venv", "bin", "python")
    status = {}
    if not os.path.exists(py):
        log("creating .venv")
        if run([sys.executable, "-m", "venv", os.path.join(ROOT, ".venv")], check=False) is None:
            return None, {p: "not installed: python3 -m venv failed" for p in ("numpy", "matplotlib", "jax", "torch")}
    for pkg, spec, limit in (("numpy", "numpy", 600), ("matplotlib", "matplotlib", 600), ("jax", "jax[cpu]", 900), ("torch", "torch", 1500)):
        mod = pkg
        if subprocess.run([py, "-c", f"import {mod}"], capture_output=True).returncode == 0:
            ver = subprocess.run([py, "-c", f"import {mod}; print({mod}.__version__)"], capture_output=True, text=True).stdout.strip()
            status[pkg] = f"installed {ver}"
            continue
        log(f"pip install {spec} (limit {limit} s)")
        try:
            p = subprocess.run([py, "-m", "pip", "install", "-q", spec], capture_output=True, text=True, timeout=limit)
            ok = p.returncode == 0
            reason = (p.stderr.strip().splitlines() or ["pip failed"])[-1][:160]
        except subprocess.TimeoutExpired:
            ok, reason = False, f"pip install took longer than {limit} s"
        status[pkg] = "installed" if ok else f"not installed: {reason}"
        log(f"  {pkg}: {status[pkg]}")
    return py, status


def stream(build, reps):
    out = run([os.path.join(ROOT, build, "bench", "bench_stream"), "-reps", str(reps)], env=dict(ENV1, OMP_NUM_THREADS="2"))
    res, _, _ = parse(out)
    return {t: res[f"stream_triad_{t}"] for t in (1, 2)}


def ops(exe, wl, size, reps, threads=1, ranks=1, extra=()):
    cmd = [exe, "-workload", wl, *size, "-reps", str(reps), "-threads", str(threads), *extra]
    if ranks > 1:
        cmd = ["mpiexec", "--oversubscribe", "-n", str(ranks)] + cmd
    out = run(cmd, env=dict(MPIENV, OMP_NUM_THREADS=str(threads)), check=False)
    return parse(out) if out is not None else None


def peers(py, status, dump, reps, threads):
    """Both peers on a dump; each returns its RESULT/ERROR dict or {'failed': reason}."""
    out = {}
    for peer, script in (("jax", "jax_peer.py"), ("torch", "torch_peer.py")):
        if py is None or not status.get(peer, "").startswith("installed"):
            out[peer] = {"failed": status.get(peer, "not installed")}
            continue
        cmd = [py, os.path.join(BENCH, "peers", script), dump, str(reps), str(threads)]
        env = dict(ENV1, OMP_NUM_THREADS=str(threads), PYTHONWARNINGS="ignore")
        if threads == 1 and shutil.which("taskset"):  # XLA's thread pool has no simple switch: one core
            cmd = ["taskset", "-c", "0"] + cmd
        if peer == "jax":
            env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=" + ("false" if threads == 1 else "true")
        o = run(cmd, env=env, timeout=900, check=False)
        if o is None:
            out[peer] = {"failed": "run failed or disagreed with mfad (see the log)"}
        else:
            res, err, _ = parse(o)
            out[peer] = {"res": res, "err": err}
    return out


def newton(quick):
    """One full Newton solve of petsc-examples/elastic (Neo-Hookean cantilever under gravity) to
    |grad| / |grad_0| < 1e-8, CG to 1e-3 per step, with each Hessian form."""
    exe = os.path.join(ROOT, "build", "petsc-examples", "elastic")
    size = ["-n", "4", "-m", "16"] if quick else ["-n", "8", "-m", "32"]
    common = size + ["-snes_rtol", "1e-8", "-snes_atol", "0", "-ksp_rtol", "1e-3", "-snes_max_funcs", "10000000", "-ksp_converged_reason"]
    rows = []
    for label, opts in (("mfad shell (fused HVP), Jacobi", ["-mfad_hessian", "shell"]),
                        ("mfad shell (fused HVP), no PC", ["-mfad_hessian", "shell", "-pc_type", "none"]),
                        ("mfad cached element Hessians, Jacobi", ["-mfad_hessian", "cached"]),
                        ("mfad assembled AIJ, Jacobi", ["-mfad_hessian", "aij"]),
                        ("PETSc -snes_mf (MatMFFD of mfad's gradient), no PC", ["-snes_mf", "-pc_type", "none"])):
        o = run([exe] + common + opts, check=False, timeout=600)
        if o is None:
            rows.append((label, None))
            continue
        kits = sum(int(m.group(1)) for m in re.finditer(r"Linear solve \w+ due to \w+ iterations (\d+)", o))
        m = re.search(r"solve ([\d.]+) s", o)
        s = re.search(r"elements (\d+) .* residual (\S+) iterations (\d+) reason (-?\d+) (\S+)", o)
        rows.append((label, dict(time=float(m.group(1)), elements=int(s.group(1)), residual=s.group(2), its=int(s.group(3)), reason=s.group(5), kits=kits)))
    return size, rows


def callgrind(quick):
    """Instructions of one gradient and one HVP (mfad and hand-written) on fixed meshes, counted by
    callgrind in a -DMFAD_NATIVE=OFF build (valgrind has no AVX-512)."""
    if not shutil.which("valgrind"):
        return "valgrind not found"
    exe = ensure_build("build-valgrind", ["-DMFAD_NATIVE=OFF", "-DMFAD_ENABLE_CUDA=OFF"])
    rows = []
    for wl, size in (("neohookean", ["-n", "6", "-m", "8"]), ("cloth", ["-n", "30"]), ("dirichlet", ["-n", "20"])):
        outf = f"/tmp/mfad_bench_callgrind.{os.getpid()}.{wl}"
        fns = ["CountMfadGradient", "CountMfadHVP", "CountHandGradient", "CountHandHVP"]
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={outf}", "--collect-atstart=no"]
        cmd += [f"--toggle-collect={f}" for f in fns] + [exe, "-workload", wl, *size, "-count"]
        o = run(cmd, check=False, timeout=900)
        if o is None:
            return "callgrind run failed (see the log)"
        _, _, info = parse(o)
        ann = subprocess.run(["callgrind_annotate", "--inclusive=yes", outf], capture_output=True, text=True).stdout
        counts = {}
        for line in ann.splitlines():
            m = re.match(r"\s*([\d,]+)\s.*\b(Count\w+)\b", line)
            if m and m.group(2) in fns and m.group(2) not in counts:
                counts[m.group(2)] = int(m.group(1).replace(",", ""))
        os.remove(outf)
        rows.append((wl, int(info["elements"]), counts))
    return rows


# bytes each operation must move at least (every array entry read or written once, perfect cache
# reuse of vertex data, no write-allocate: the STREAM convention): per element the connectivity
# (4 bytes a vertex) and parameters (8 each), per unknown x read and y written (8 + 8), and:
#   gradient: + nothing;  fused HVP: + v read (8 a unknown);  cached HVP: packed symmetric element
#   Hessian N(N+1)/2 * 8 instead of parameters, v instead of x;  assembled SpMV (AIJ): 12 bytes a
#   nonzero (value + column) + 4 a row + v read + y written;  cache build: parameters and x read,
#   the packed element Hessian written.
SHAPE = {"neohookean": (4, 3, 12), "cloth": (2, 3, 2), "dirichlet": (3, 2, 5)}


def bytes_moved(wl, op, nelem, nunk, nnz):
    nv, dof, npar = SHAPE[wl]
    N = nv * dof
    if op in ("gradient", "hand_gradient"):
        return nelem * (4 * nv + 8 * npar) + 16 * nunk
    if op in ("hvp_shell", "hand_hvp"):
        return nelem * (4 * nv + 8 * npar) + 24 * nunk
    if op == "hvp_cached":
        return nelem * (4 * nv + 4 * N * (N + 1)) + 16 * nunk
    if op == "spmv" and nnz:
        return 12 * nnz + 4 * nunk + 16 * nunk
    if op == "cache_build":
        return nelem * (4 * nv + 8 * npar + 4 * N * (N + 1)) + 8 * nunk
    return None


def ms(r):
    return f"{1e3 * r['med']:.3f}" if r else "—"


def rng(r):
    return f"{1e3 * r['min']:.3f}–{1e3 * r['max']:.3f}" if r else "—"


# ---- the other bench programs: one section each, a table of what each row measures --------------
# Each returns dict(title, cmd, intro, head, rows, notes) or dict(title, notrun=reason); a program
# that is not built, fails or prints nothing we can read is "not run: <reason>", never dropped.


def num(s):
    try:
        return float(s)
    except ValueError:
        return None


def numrows(out, nnum, keep=lambda label: True):
    """Lines whose last nnum tokens are numbers: [label, token...]; the label is the words before."""
    rows = []
    for line in (out or "").splitlines():
        f = line.split()
        if len(f) <= nnum or any(num(t) is None for t in f[-nnum:]) or not keep(" ".join(f[:-nnum])):
            continue
        rows.append([" ".join(f[:-nnum])] + f[-nnum:])
    return rows


def bexe(build, name, sub="bench"):
    return os.path.join(ROOT, build, sub, name)


def program(title, cmd, env=ENV1, timeout=900):
    """Runs a bench program; (stdout, None) or (None, 'not run: ...')."""
    if os.path.isabs(cmd[0]) and not os.path.exists(cmd[0]):
        return None, f"not run: {os.path.relpath(cmd[0], ROOT)} is not built"
    out = run(cmd, env=env, timeout=timeout, check=False)
    if out is None:
        return None, "not run: the program failed or timed out (the driver's log has its output)"
    return out, None


def section(title, cmd, intro, head, rows, notes=""):
    shown = " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd)
    if not rows:
        return dict(title=title, cmd=shown, notrun="not run: its output had no rows this driver can read (see the log)")
    return dict(title=title, cmd=shown, intro=intro, head=head, rows=rows, notes=notes)


def x_loops(b, quick):
    size = ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]
    cmd = [bexe(b, "bench_loops"), *size, "-reps", "3" if quick else "7"]
    out, why = program("loops", cmd, env=dict(ENV1, OMP_NUM_THREADS="2"))
    t = "Element loops and scatter strategies (`bench_loops`)"
    if why:
        return dict(title=t, notrun=why)
    rows = numrows(out, 5, lambda s: "thread" in s)
    notes = "\n".join(line for line in out.splitlines() if line.startswith(("Neo-Hookean", "Hessian diagonal", "2-thread", "coloured", "gather vs")))
    return section(t, cmd, "Neo-Hookean tets; each row one scatter strategy at 1 or 2 threads: the value, the gradient and the fused HVP "
                   "over the whole mesh (median ms), the HVP over the gradient, and HVP elements per second.",
                   ["configuration", "value ms", "gradient ms", "HVP ms", "HVP / gradient", "HVP M elements/s"], rows, notes)


def x_hessian_forms(b, quick):
    size = ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]
    cmd = [bexe(b, "bench_hessian_forms"), *size, "-reps", "3" if quick else "7", "-threads", "1,2"]
    out, why = program("forms", cmd, env=dict(ENV1, OMP_NUM_THREADS="2"))
    t = "Hessian forms on Neo-Hookean tets, 1 and 2 threads (`bench_hessian_forms`)"
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        left, _, right = line.partition("|")
        f = left.split()
        if right and len(f) == 9 and all(num(x) is not None for x in f):
            rows.append(f + [right.strip()])
    notes = "\n".join(line for line in out.splitlines() if line.startswith(("Neo-Hookean", "matrix", "cache+", "PSD+")))
    return section(t, cmd, "Per thread count: the fused HVP, the cache build (element Hessians computed and packed), the cached product, "
                   "the assembly (element Hessians + MatSetValuesCOO; COO's fill alone beside it), the assembled SpMV, the cache build "
                   "and the assembly with `-mfad_psd_project clamp`, all median ms; and the CG iterations k per Newton step above "
                   "which each form beats another (cached vs fused, aij vs fused, aij vs cached).",
                   ["threads", "HVP ms", "cache build ms", "cached HVP ms", "assembly ms", "(COO ms)", "SpMV ms", "PSD cache build ms",
                    "PSD assembly ms", "k where: cached > fused, aij > fused, aij > cached"], rows, notes)


def x_lanes(b, quick):
    t = "SIMD lanes across elements (`bench_lanes`, `-mfad_lanes`)"
    allrows, notes, cmds = [], [], []
    for wl, size in (("neohookean", ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]), ("cloth", ["-n", "30"] if quick else ["-n", "317"])):
        cmd = [bexe(b, "bench_lanes"), "-workload", wl, *size, "-reps", "5" if quick else "15"]
        out, why = program("lanes", cmd)
        cmds.append(cmd)
        if why:
            return dict(title=t, notrun=why)
        notes += [line for line in out.splitlines() if line.startswith(("workload", "energy", "FP64"))]
        allrows += [[wl] + r for r in numrows(out, 12, lambda s: s in ("scalar", "lanes4", "lanes8", "hand"))]
    s = section(t, cmds[0], "Gradient, fused HVP and value of one kernel through its scalar loop, its 4- and 8-lane loops (the energy compiled "
                "again at each width) and the hand-written scalar C, interleaved in one process, 1 thread, the fastest of the "
                "repetitions of the thread's CPU time: ns and cycles per element, speed-up over the scalar loop, and the largest "
                "difference from the scalar results (relative to their largest entry); the value too.",
                ["workload", "loop", "gradient ns/element", "cycles", "speed-up", "difference", "HVP ns/element", "cycles", "speed-up",
                 "difference", "value ns/element", "cycles", "speed-up", "difference"], allrows, "\n".join(notes))
    s["cmd"] += "; and " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmds[1])
    return s


def x_lanes_psd(b, quick):
    t = "PSD-projected element Hessians on lanes (`bench_lanes -hessian -psd clamp`)"
    allrows, cmds = [], []
    for energy, wl, size in (("symmetric_dirichlet", "cloth", ["-n", "30"] if quick else ["-n", "317"]),
                             ("neohookean_tet", "neohookean", ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"])):
        cmd = [bexe(b, "bench_lanes"), "-energy", energy, "-workload", wl, *size, "-reps", "3" if quick else "9", "-hessian", "-psd", "clamp"]
        out, why = program("lanes_psd", cmd)
        cmds.append(cmd)
        if why:
            return dict(title=t, notrun=why)
        part = out[out.find("element Hessians of"):] if "element Hessians of" in out else ""
        allrows += [[energy] + r for r in numrows(part, 4, lambda s: s in ("scalar", "lanes4", "lanes8"))]
    s = section(t, cmds[0], "The element Hessians with their feature Hessians projected (`clamp`, as src/hessian.c asks), 1 thread, the fastest "
                "of the repetitions: the scalar loop (mfad/impl/psd.h's Householder + QL per element) against the lanes "
                "(mfad/impl/psd_lanes.h's cyclic Jacobi on 4 or 8 elements at once): ns and cycles per element, speed-up over the "
                "scalar loop, the largest difference from the scalar results (relative to their largest entry).",
                ["energy", "loop", "ns/element", "cycles", "speed-up", "difference"], allrows, "")
    s["cmd"] += "; and " + " ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmds[1])
    return s


def x_threads(b, quick):
    size = ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]
    cmd = [bexe(b, "bench_threads"), *size, "-reps", "3" if quick else "9", "-rounds", "1" if quick else "2"]
    # the default thread count is what is measured, in the environment a user has: without ENV1's OMP_WAIT_POLICY=PASSIVE,
    # under which this VM's scheduler put the woken thread on the caller's core (docs/threads.md: 2 threads 1.00x on 100k tets)
    env = {k: v for k, v in ENV1.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    out, why = program("threads", cmd, env=env)
    t = "Threads under contention (`bench_threads`, docs/threads.md)"
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        f = line.split()
        if f and f[0] in ("idle", "busy") and len(f) >= 11:
            rows.append([f[0], " ".join(f[1:-9])] + f[-9:])
    notes = "\n".join(line for line in out.splitlines() if line.startswith("Neo-Hookean"))
    return section(t, cmd, "Neo-Hookean tets; each operation on three energies called in turn (1 thread, 2 threads, the default thread "
                   "count), on the idle machine and beside a spinning process the program starts (`busy`): median ms of each, "
                   "default / 1 thread (busy: goal <= 1.1), 1 thread / default (idle: goal >= 1.7 on 2 cores), 1 / 2 threads, "
                   "the ratio of the means (the default's probes count), the most threads the default used, the load average.",
                   ["phase", "operation", "1 thread ms", "2 threads ms", "default ms", "default / 1", "1 / default", "1 / 2",
                    "default / 1 (means)", "threads used", "load average"], rows, notes)


def x_spmv(b, quick):
    size = ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]
    cmd = [bexe(b, "bench_spmv"), *size, "-reps", "5" if quick else "20"]
    out, why = program("spmv", cmd)
    t = "The assembled Hessian's product by storage format (`bench_spmv`)"
    if why:
        return dict(title=t, notrun=why)
    rows = numrows(out, 8, lambda s: s in ("aij", "baij", "sbaij", "sell"))
    notes = "\n".join(line for line in out.splitlines() if line.startswith("Neo-Hookean"))
    return section(t, cmd, "One assembly of Neo-Hookean tets converted to each PETSc format, products timed in turn (median): ms, ns per "
                   "stored nonzero, MB read and the time at the triad rate, measured over that bound, speed-up over aij, the "
                   "difference from aij's product, and the conversion's time.",
                   ["format", "product ms", "ns/nonzero", "MB read", "bound ms", "over bound", "vs aij", "|y - y_aij| / |y|",
                    "from aij ms"], rows, notes)


def x_spmv_eigen(b, quick):
    size = ["-n", "6", "-m", "8"] if quick else ["-n", "20", "-m", "42"]
    cmd = [bexe(b, "bench_spmv_eigen"), *size, "-reps", "5" if quick else "20"]
    t = "The assembled Hessian's product against Eigen (`bench_spmv_eigen`)"
    if not os.path.exists(cmd[0]):
        return dict(title=t, notrun="not run: bench_spmv_eigen is not built (CMake builds it only where it finds a C++ compiler and "
                    "Eigen 3: Debian's libeigen3-dev)")
    out, why = program("spmv_eigen", cmd)
    if why:
        return dict(title=t, notrun=why)
    rows = numrows(out, 3, lambda s: s.startswith(("PETSc", "Eigen", "default operator")))
    notes = "\n".join(line for line in out.splitlines() if line.startswith(("Neo-Hookean", "default operator:", "largest")))
    return section(t, cmd, "PETSc's MatMult on mfad's aij and baij(3) assemblies, and on the operator the library hands a Krylov method "
                   "(`default operator`: its format by MfadEnergyGetOperatorMatType_Private, sbaij on one rank), against Eigen's row- "
                   "and column-major sparse products of the same matrix, one thread each, taken in turn (median): ms, ns per nonzero, "
                   "and the fastest Eigen product's time over this one's (above 1: faster than Eigen).",
                   ["format", "ms", "ns/nonzero", "fastest Eigen / this"], rows, notes)


def x_psd(b, quick):
    cmd = [bexe(b, "bench_psd"), "-samples", "200" if quick else "2000", "-reps", "3" if quick else "5"]
    out, why = program("psd", cmd)
    t = "PSD projection of element Hessians (`bench_psd`)"
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        m = re.match(r"(.*?)\s+N\s+(\d+)\s*\|(.*)", line)
        if not m:
            continue
        cells = {}
        for part in m.group(3).split("|"):
            mm = re.match(r"\s*(.*?)\s+([\d.]+) us(?: \(err (\S+)\))?", part)
            if mm:
                cells[mm.group(1)] = f"{mm.group(2)}" + (f" ({mm.group(3)})" if mm.group(3) else "")
        rows.append([m.group(1), m.group(2)] + [cells.get(k, "—") for k in ("jacobi", "tridiag-QL", "LAPACK dsyev", "psd_project")])
    notes = "\n".join(line for line in out.splitlines() if "Hessians" in line and "|" not in line)
    return section(t, cmd, "Microseconds per matrix (median), the reconstruction error |V diag V^T - H|_max / |H|_max in brackets: "
                   "cyclic Jacobi (the old default), Householder + QL (the default), LAPACK dsyev (where CMake found LAPACK), "
                   "and the whole projection (`mfad_psd_project_work`, with its Cholesky shortcut for definite blocks).",
                   ["matrices", "N", "Jacobi us", "Householder + QL us", "LAPACK dsyev us", "whole projection us"], rows, notes)


def x_port(b, quick):
    cmd = [bexe(b, "bench_port"), "-elements", "2000" if quick else "20000", "-reps", "3" if quick else "9"]
    out, why = program("port", cmd)
    t = "The plain-C energies against the bodies they replaced (`bench_port`)"
    if why:
        return dict(title=t, notrun=why)
    rows = numrows(out, 12, lambda s: not s.startswith("energy"))
    return section(t, cmd, "Per built-in energy, microseconds per element through the CPU loops, 1 thread, medians of interleaved "
                   "repetitions: the translated plain-C energy (new; forward-over-reverse at features where it has a reverse sweep) "
                   "against the pointer-dialect body it replaced (old, tests/oracle), and new / old, for the gradient, the fused HVP, "
                   "the element Hessian and the PSD-projected element Hessian.",
                   ["energy", "gradient new", "old", "new/old", "HVP new", "old", "new/old", "Hessian new", "old", "new/old", "PSD new",
                    "old", "new/old"], rows)


def x_contact(b, quick):
    cmd = [bexe(b, "bench_contact"), "-reps", "3"] + (["-n", "60"] if quick else [])
    out, why = program("contact", cmd)
    t = "Contact on stacked cloth sheets (`bench_contact`)"
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s+(detection|step bound|HVP membrane|HVP barriers|HVP both)\s+([\d.]+) s(?:\s+\(([\d.]+) membrane HVPs\))?", line)
        if m:
            rows.append([m.group(1), f"{1e3 * float(m.group(2)):.1f}", m.group(3) or ""])
    notes = "\n".join(line.strip() for line in out.splitlines() if line.startswith(("bench_contact", "  pairs")))
    return section(t, cmd, "Stacked sheets, a random step: the time of contact detection (pairs within the activation distance), of the "
                   "step bound (the largest safe fraction of the step), and of the HVPs of the membrane, of the barriers and of both.",
                   ["operation", "ms", "in membrane HVPs"], rows, notes)


def x_lsq(b, quick):
    cmd = [bexe(b, "bench_lsq"), "-n", "40" if quick else "224", "-reps", "3" if quick else "9"]
    out, why = program("lsq", cmd)
    t = "ARAP as least squares against the energy (`bench_lsq`)"
    if why:
        return dict(title=t, notrun=why)
    res, _, _ = parse(out)
    what = {"mfad_gn_fused": "Gauss-Newton product J^T (J v), fused", "mfad_gn_two_pass": "Gauss-Newton product, two passes (J v, then J^T)",
            "mfad_residual": "the residual r(x)", "mfad_arap_tri_hvp": "arap_tri's fused HVP (the energy's Newton product)",
            "mfad_arap_tri_gradient": "arap_tri's gradient"}
    rows = [[what.get(k, k), str(r["n"]), ms(r), rng(r)] for k, r in res.items()]
    return section(t, cmd, "ARAP on a lifted grid, 1 thread, median (min–max) ms of one operation on the whole mesh.",
                   ["operation", "elements", "ms", "min–max ms"], rows)


def x_residual_pde(b, quick):
    cmd = [bexe(b, "bench_residual_pde"), "-n", "60" if quick else "360", "-reps", "3" if quick else "5", "-solve"]
    out, why = program("residual_pde", cmd)
    t = "A nonlinear system: exact Jacobian and JVP against finite differences (`bench_residual_pde`)"
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        m = re.match(r"\s{2}(\S.*?)\s{2,}([\d.]+) ms$", line)
        if m:
            rows.append([m.group(1), m.group(2) + " ms", "", "", ""])
        m = re.match(r"\s{2}(\S.*?)\s{2,}([\d.]+) s\s+newton\s+(\d+)\s+linear\s+(\d+)\s+l2_error (\S+)\s+(\S+)", line)
        if m:
            rows.append([f"Newton solve: {m.group(1)}", m.group(2) + " s", m.group(3), m.group(4), m.group(6)])
    notes = "\n".join(line.strip() for line in out.splitlines() if line.startswith(("residual_pde", "ratios", "  |", "  ||", "  FD colouring")))
    return section(t, cmd, "P1 advection-diffusion-reaction on triangles, 1 thread: the exact assembled Jacobian against the coloured FD "
                   "Jacobian, the exact JVP against MatMFFD and the SpMV (median), and Newton solves from u = 0 each way.",
                   ["operation", "time", "Newton its", "linear its", "reason"], rows, notes)


def x_scaling(b, quick):
    t = "Fused HVP over MPI ranks (`bench_scaling`)"
    exe = bexe(b, "bench_scaling")
    if not os.path.exists(exe):
        return dict(title=t, notrun="not run: bench_scaling is not built")
    if not shutil.which("mpiexec"):
        return dict(title=t, notrun="not run: mpiexec not found")
    strong = ["-n", "10", "-m", "10"] if quick else ["-n", "40", "-m", "40"]
    weak = ["-n", "10", "-m", "5"] if quick else ["-n", "40", "-m", "20"]
    rows, cmds = [], []
    for label, size in (("strong", strong), ("weak", weak + ["-weak"])):
        for np_ in (1, 2):
            cmd = ["mpiexec", "-n", str(np_), exe, *size, "-reps", "10" if quick else "30"]
            cmds.append(" ".join(c if not c.startswith(ROOT) else os.path.relpath(c, ROOT) for c in cmd))
            out = run(cmd, env=MPIENV, check=False, timeout=900)
            m = re.search(r"ranks (\d+): (\d+) tets \((\d+) per rank\).*?total ([\d.]+) ms: elements ([\d.]+) ms, ghost exchange ([\d.]+) ms.*?"
                          r"([\d.]+) kB sent.*?ghost vertices max (\d+)", out or "", re.S)
            rows.append([label, str(np_), m.group(3), m.group(4), m.group(5), m.group(6), m.group(7), m.group(8)] if m else
                        [label, str(np_), "not run: failed (see the log)", "", "", "", "", ""])
    s = section(t, ["mpiexec"], "A DMPlex-distributed box of Neo-Hookean tets, one thread per rank: the fused HVP (the slowest rank's "
                "time), its element loops and its ghost exchange (log events), kB sent per product, the most ghost vertices on a rank.",
                ["run", "ranks", "tets per rank", "HVP ms", "elements ms", "ghost exchange ms", "kB sent", "ghost vertices (max)"], rows)
    s["cmd"] = "; ".join(cmds)
    return s


def x_gpu_estimate(b, quick):
    cmd = [bexe(b, "bench_gpu_estimate")]
    out, why = program("gpu_estimate", cmd)
    t = "Paper estimate of the fused HVP on an H100 (`bench_gpu_estimate`)"
    if why:
        return dict(title=t, notrun=why)
    lines = [line for line in out.splitlines() if line.startswith("|")]
    if len(lines) < 3:
        return dict(title=t, notrun="not run: no table in its output")
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in lines[2:]]
    return section(t, cmd, "Per built-in energy: flops and bytes per element of the HVP and the lower bound for 1M elements (gpu_estimate.md); "
                   "no GPU is used.", head, rows)


def x_cuda(b, quick):
    t = "The cached product on the GPU (`bench_cuda_cached_mult`)"
    exe = bexe(b, "bench_cuda_cached_mult")
    if not os.path.exists(exe):
        return dict(title=t, notrun="not run: not built (CMake builds it only with CUDA on; this build has none)")
    if subprocess.run(["sh", "-c", "nvidia-smi -L"], capture_output=True).returncode != 0:
        return dict(title=t, notrun="not run: no GPU on this machine (nvidia-smi -L fails)")
    out, why = program("cuda", [exe])
    if why:
        return dict(title=t, notrun=why)
    return section(t, [exe], "Its output, line by line.", ["line"], [[line] for line in out.splitlines() if line.strip()])


def x_pattern(b, quick):
    t = "Pattern set-up against one assembly (`bench/pattern.sh`, `bench_dynamic`)"
    if not os.path.exists(bexe(b, "bench_dynamic", "tests")):
        return dict(title=t, notrun=f"not run: {b}/tests/bench_dynamic is not built")
    args = ["-n", "10", "-pairs", "500"] if quick else ["-n", "26", "-pairs", "5000"]
    cmd = ["sh", os.path.join(BENCH, "pattern.sh"), *args]
    out, why = program("pattern", cmd, env=dict(MPIENV, BIN=os.path.join(ROOT, b, "tests"), REPS="3" if quick else "9"))
    if why:
        return dict(title=t, notrun=why)
    rows = [r[0].split() + r[1:] for r in numrows(out, 3, lambda s: s.endswith(("CSR", "COO")))]
    return section(t, cmd, "The assembled Hessian's re-preallocation for new pairs against one assembly at fixed elements, per rank count, "
                   "matrix type and path (mfad's CSR, the default, or PETSc's COO): median ms and their ratio (goal: <= 1).",
                   ["ranks", "type", "path", "set-up ms", "assembly ms", "set-up / assembly"], rows)


def x_forms(b, quick):
    t = "Whole Newton solves in each Hessian form and `-mfad_hessian auto` (`bench/forms.sh`)"
    cases = ["bar", "cloth"] if quick else ["bar", "dynamics", "cloth", "projected", "big"]
    cmd = ["sh", os.path.join(BENCH, "forms.sh"), *cases]
    out, why = program("forms", cmd, env=dict(MPIENV, BIN=os.path.join(ROOT, b, "petsc-examples"), REPS="1" if quick else "3"), timeout=1500)
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        m = re.match(r"(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s+load (\S+)\s+energies: (.*)", line)
        if m and m.group(1) != "case":
            rows.append(list(m.groups()[:7]) + [m.group(8).strip()])
    return section(t, cmd, "SNESSolve seconds (median of runs taken in turn) of petsc-examples' elastic (statics, dynamics, a projected "
                   "then exact solve, a larger bar) and cloth in each fixed form (`-` where the form does not apply), auto's, and auto "
                   "over the best fixed form (goal <= 1.2); every form must reach the same energy.",
                   ["case", "shell s", "cached s", "aij s", "auto s", "auto / best", "load", "energies reached"], rows)


def x_threads_sh(b, quick):
    t = "Example runs, 1 thread against the default (`bench/threads.sh`)"
    cases = ["demo", "param"] if quick else ["demo", "big", "sphere", "param"]
    cmd = ["sh", os.path.join(BENCH, "threads.sh"), *cases]
    env = {k: v for k, v in MPIENV.items() if k != "OMP_NUM_THREADS"}
    out, why = program("threads_sh", cmd, env=dict(env, BIN=os.path.join(ROOT, b, "petsc-examples"), REPS="1" if quick else "3"), timeout=1500)
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        m = re.match(r"(.*?)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+load (\S+)", line)
        if m:
            rows.append(list(m.groups()))
    return section(t, cmd, "Wall seconds of whole example runs with `-mfad_num_threads 1` and with the default thread count (medians of "
                   "runs taken alternately), their ratio, and the load average over the row.",
                   ["example", "1 thread s", "default s", "default / 1", "load"], rows)


def x_python(b, quick):
    t = "Driving mfad from Python (`bench/python_overhead.py`)"
    if not os.path.isdir(os.path.join(ROOT, b, "python", "mfad")):
        return dict(title=t, notrun=f"not run: {b}/python/mfad is not built (the mfad_python target: Cython, numpy, mpi4py, petsc4py)")
    # Debian's petsc4py is the system python's; JAX beside it from a venv over the system packages
    py, jaxnote = "/usr/bin/python3", ""
    vsys = os.path.join(ROOT, ".venv", "sys", "bin", "python")
    if not os.path.exists(vsys):
        log("creating .venv/sys (system packages + jax[cpu]==0.4.30, for python_overhead.py's JAX rows)")
        if run(["/usr/bin/python3", "-m", "venv", "--system-site-packages", os.path.join(ROOT, ".venv", "sys")], check=False) is not None:
            # numpy as Debian's petsc4py was built for (1.24): newer ml_dtypes and scipy would pull numpy 2
            run([vsys, "-m", "pip", "install", "-q", "jax[cpu]==0.4.30", "numpy<1.25", "ml_dtypes<0.5", "scipy<1.12"], check=False, timeout=900)
    if os.path.exists(vsys) and subprocess.run([vsys, "-c", "import jax; from petsc4py import PETSc"], capture_output=True).returncode == 0:
        py = vsys
    else:
        jaxnote = "JAX rows not run: jax[cpu]==0.4.30 could not be installed beside Debian's petsc4py (.venv/sys; see the log)"
    sizes = "1,6,12" if quick else "1,6,12,55"
    cmd = [py, os.path.join(BENCH, "python_overhead.py"), "-sizes", sizes, "-seconds", "0.2" if quick else "1"]
    env = dict(ENV1, PYTHONPATH=os.path.join(ROOT, b, "python"), MFAD_PYTHON_CACHE=os.path.join(ROOT, b, "python-cache"))
    out, why = program("python", cmd, env=env, timeout=1500)
    if why:
        return dict(title=t, notrun=why)
    rows = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 9 and f[1] in ("gradient", "hvp"):
            rows.append(["mfad from Python", f[0], f[1], f[2], f[3], f"{f[4]} ({f[5]})", f[6], f"{f[7]} ({f[8]})", "", ""])
        elif len(f) == 6 and f[1] in ("gradient", "hvp"):
            rows.append(["JAX, same script", f[0], f[1], "", f[2], "", "", "", f[3], f"{f[4]} (difference {f[5]})"])
    notes = "\n".join([line for line in out.splitlines() if line.startswith("(")] + ([jaxnote] if jaxnote else []))
    return section(t, cmd, "A Neo-Hookean box at 6 tets (the fixed cost alone) and about 1k, 10k (and 1M) tets, 1 thread, best of 5: "
                   "microseconds per call of the C function in a C loop inside the extension, from a Python loop with the output Vec "
                   "reused (`out=`) and with a new Vec per call, and Python's overhead; JAX's gradient and HVP (jit, vmap, jvp(grad)) "
                   "from the same script, checked against mfad's to 1e-10 first, and JAX over mfad-from-Python.",
                   ["who", "tets", "operation", "C call us", "Python out= us", "overhead us (%)", "Python new Vec us", "overhead us (%)",
                    "JAX us", "JAX / mfad"], rows, notes)


def x_param_time(b, quick):
    t = "param's time to its minimum (`bench/param_time.py`)"
    exe = bexe(b, "param", "petsc-examples")
    if not os.path.exists(exe):
        return dict(title=t, notrun=f"not run: {b}/petsc-examples/param is not built")
    rows, cmds = [], []
    own = re.compile(r"set-up ([\d.]+) s; own stop: (\d+) steps, ([\d.]+) s, energy (\S+), \|g\| (\S+)")
    for mesh in ("spot_patch.obj",) if quick else ("spot_patch.obj", "spot_jitter.obj"):
        path = os.path.join(ROOT, "tests", "meshes", mesh)
        base = [sys.executable, os.path.join(BENCH, "param_time.py"), path, "--exe", exe, "--reps", "1" if quick else "3"]
        # the default stop (the Newton decrement's), then the gradient stop -gatol 1e-8: the minimum
        d = own.search(run(base, check=False) or "")
        g = own.search(run(base + ["--", "-gatol", "1e-8"], check=False) or "")
        if not d or not g:
            rows.append([mesh, "not run: param_time.py failed (see the log)"] + [""] * 9)
            continue
        e = float(g.group(4))
        # the time to within 1e-3 and 1e-6 (relative) of the minimum, from one run to it (another tool's stop: give its energy)
        cmd = base + ["--energy", repr(e + 1e-3 * abs(e)), "--energy", repr(e + 1e-6 * abs(e)), "--", "-gatol", "1e-8"]
        cmds.append(" ".join(os.path.relpath(c, ROOT) if c.startswith(ROOT) else c for c in cmd))
        o = run(cmd, check=False)
        hits = re.findall(r"\) (?:at step (\d+): ([\d.]+) s|not reached)", o or "")
        cells = [f"{t} s (step {k})" if k else "not reached" for k, t in hits] if len(hits) == 2 else ["not run: see the log"] * 2
        gap = f"{(float(d.group(4)) - e) / abs(e):.1e}"
        rows.append([mesh, d.group(1), d.group(2), d.group(3), gap, g.group(2), g.group(3), g.group(4), g.group(5)] + cells)
    s = section(t, ["param_time.py"], "petsc-examples/param (symmetric Dirichlet from a Tutte start, every default), 1 thread, median of "
                "the runs (by solve time): the set-up (reading, the Tutte start); its default stop (the Newton decrement's, "
                "-mfad_decrement_rtol 1e-4: Newton steps, seconds of SNESSolve, its energy above the minimum, relative); the gradient stop "
                "(-gatol 1e-8: steps, seconds, the minimum's energy, |grad|); and, in one more median run to that stop, the time at which its "
                "steps first reach an energy within 1e-3 and 1e-6 (relative) of the minimum. For another tool's stop, give its final energy and "
                "gradient norm: `bench/param_time.py MESH --energy E --gnorm G`.",
                ["mesh", "set-up s", "steps", "solve s", "above the minimum", "steps (-gatol 1e-8)", "solve s", "energy", "|grad|", "within 1e-3",
                 "within 1e-6"], rows)
    s["cmd"] = cmds[0] if cmds else "bench/param_time.py"
    return s


EXTRAS = [x_lanes, x_lanes_psd, x_threads, x_spmv_eigen, x_spmv, x_psd, x_python, x_param_time, x_loops, x_hessian_forms, x_port, x_contact, x_lsq,
          x_residual_pde, x_scaling, x_gpu_estimate, x_cuda, x_pattern, x_forms, x_threads_sh]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (default 5; 3 with --quick)")
    ap.add_argument("--no-peers", action="store_true", help="skip JAX and PyTorch (the table says so)")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts (the report says so)")
    ap.add_argument("--only", default=None, help="comma-separated sections to run besides nothing else: ops (bench_ops, peers, "
                    "Newton, callgrind) and the names of the others (" + ", ".join(f.__name__[2:] for f in EXTRAS) + "); for development")
    ap.add_argument("--out", default=os.path.join(BENCH, "RESULTS.md"))
    a = ap.parse_args()
    reps = a.reps or (3 if a.quick else 5)
    sizes = QUICK if a.quick else FULL
    t_start = time.time()
    meta = dict(machine=machine(), date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit=commit(),
                load_before=loadavg(), reps=reps, mode="quick" if a.quick else "full")
    log(f"mfad bench: {meta['machine']}; load average {meta['load_before']}")
    only = set(a.only.split(",")) if a.only else None
    exe = ensure_build("build", [], TARGETS)
    if a.no_peers:
        py, pstat = None, {p: "not run: --no-peers" for p in ("jax", "torch")}
        pyplot = os.path.join(ROOT, ".venv", "bin", "python")
        pyplot = pyplot if os.path.exists(pyplot) else None
    else:
        py, pstat = ensure_venv(a.quick)
        pyplot = py
    meta["peers"] = pstat
    st = stream("build", 10)
    log(f"STREAM triad: {st[1]['med']:.1f} GB/s (1 thread), {st[2]['med']:.1f} GB/s (2 threads)")

    data = {}
    for wl, szs in (sizes.items() if only is None or "ops" in only else ()):
        for size in szs:
            key = f"{wl} {' '.join(size)}"
            log(f"{key}")
            dump = f"/tmp/mfad_bench_dump.{os.getpid()}.bin"
            d = {"wl": wl}
            d["t1"] = ops(exe, wl, size, reps, 1, extra=["-dump", dump])
            d["t2"] = ops(exe, wl, size, reps, 2, extra=["-skip_mffd"])
            d["r2"] = ops(exe, wl, size, reps, 1, ranks=2, extra=["-skip_mffd"])
            if d["t1"] is not None and os.path.exists(dump):
                d["p1"] = peers(py, pstat, dump, reps, 1)
                d["p2"] = peers(py, pstat, dump, reps, 2)
            if os.path.exists(dump):
                os.remove(dump)
            data[key] = d
    nsize, nrows = newton(a.quick) if only is None or "ops" in only else ([], [])
    cg = "not run: --no-callgrind" if a.no_callgrind else ("not run: --only" if only is not None and "ops" not in only else callgrind(a.quick))
    extras = []
    for f in EXTRAS:
        if only is not None and f.__name__[2:] not in only:
            continue
        log(f.__name__[2:])
        t0 = time.time()
        try:
            x = f("build", a.quick)
        except Exception as e:  # a program whose output changed: say so in its section, run the rest
            x = dict(title=f.__name__[2:], notrun=f"not run: the driver could not read it ({type(e).__name__}: {e})")
        x["seconds"] = round(time.time() - t0, 1)
        extras.append(x)
    meta["load_after"] = loadavg()
    meta["minutes"] = (time.time() - t_start) / 60
    # the raw figures and plots beside the Markdown: a run with --out elsewhere leaves the committed ones alone
    results = os.path.join(os.path.dirname(os.path.abspath(a.out)), "results.json")
    with open(results, "w") as fp:
        json.dump(dict(meta=meta, stream=st, data=data, newton=[nsize, nrows], callgrind=cg, extras=extras), fp, indent=1)
    plots = plot(pyplot, results)
    write(a.out, meta, st, data, nsize, nrows, cg, plots, extras)
    log(f"wrote {os.path.relpath(a.out, ROOT)} in {meta['minutes']:.1f} min; load average {meta['load_after']}")


def plot(py, results):
    if py is None:
        return "no plots: the .venv python (matplotlib) is not available"
    o = run([py, os.path.join(BENCH, "plot.py"), results], check=False)
    return o.strip() if o is not None else "no plots: bench/plot.py failed (see the log)"


def get(d, part, op):
    r = d.get(part)
    return r[0].get(op) if r else None


def peer_get(d, part, peer, op):
    p = (d.get(part) or {}).get(peer) or {}
    return p.get("res", {}).get(f"{peer}_{op}")


def peer_note(d, part, peer):
    p = (d.get(part) or {}).get(peer) or {}
    return p.get("failed")


def ratio(x, y):
    return f"{x['med'] / y['med']:.2f}" if x and y else "—"


# RESULTS.md's sections measured by hand follow this line; the driver keeps them as they are
KEEP = "<!-- bench/run.py writes everything above this line and keeps everything below it -->"


def write(path, meta, st, data, nsize, nrows, cg, plots, extras):
    L = []
    w = L.append
    w("# mfad benchmark results\n")
    w(f"Written by `python3 bench/run.py{' --quick' if meta['mode'] == 'quick' else ''}` (the one command that reproduces it); "
      f"raw figures in `bench/results.json`.\n")
    w("| | |\n| --- | --- |")
    w(f"| machine | {meta['machine']} |")
    w(f"| date | {meta['date']} |")
    w(f"| commit | {meta['commit']} |")
    w(f"| load average (1, 5, 15 min) | before {meta['load_before']}, after {meta['load_after']} (shared machine: ratios within one run are what count) |")
    w(f"| repetitions | median of {meta['reps']} after one warm-up; min–max beside it |")
    w(f"| STREAM triad | {st[1]['med']:.1f} GB/s 1 thread (min–max {st[1]['min']:.1f}–{st[1]['max']:.1f}), {st[2]['med']:.1f} GB/s 2 threads ({st[2]['min']:.1f}–{st[2]['max']:.1f}) |")
    for p, s in meta["peers"].items():
        w(f"| {p} | {s} |")
    w(f"| run time | {meta['minutes']:.1f} min |\n")
    w("Times are ms per operation on the whole mesh, 1 OpenMP thread, 1 rank unless said. mfad's gradient and HVP are its "
      "defaults: forward-over-reverse at the energy's features (the HVP fused, through its MATSHELL's `MatMult`), on SIMD "
      "lanes where the energy has them (`neohookean_tet` and `mass_spring`: `-mfad_lanes`, on by default; the Dirichlet "
      "workload's `symmetric_dirichlet` runs the scalar loop). The hand-written kernels are scalar C run through mfad's own "
      "element loops (bench/handkernel.h). Every peer's gradient and HVP was checked against mfad's to 1e-10 relative before "
      "it was timed (the ERROR columns in results.json). The sections after the plots are the other bench programs, one "
      "each, in this run; a program or peer that could not run says `not run` and why.\n")

    w("## Gradient and HVP: mfad against the hand-written bound and the peers (1 thread)\n")
    w("| workload | elements | op | mfad ms (min–max) | hand-written ms | JAX ms | PyTorch ms | hand / mfad | JAX / mfad | PyTorch / mfad |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, d in data.items():
        if not d.get("t1"):
            w(f"| {key} | | | run failed (see the driver's log) | | | | | | |")
            continue
        for op, mop in (("gradient", "gradient"), ("hvp", "hvp_shell")):
            m = get(d, "t1", mop)
            h = get(d, "t1", f"hand_{op}" if op == "gradient" else "hand_hvp")
            j = peer_get(d, "p1", "jax", op)
            t = peer_get(d, "p1", "torch", op)
            jn = peer_note(d, "p1", "jax")
            tn = peer_note(d, "p1", "torch")
            w(f"| {d['wl']} | {m['n'] if m else ''} | {op} | {ms(m)} ({rng(m)}) | {ms(h) if h else 'n/a'} | {ms(j) if j else (jn or '—')} | "
              f"{ms(t) if t else (tn or '—')} | {ratio(h, m) if h else 'n/a'} | {ratio(j, m)} | {ratio(t, m)} |")
    w("\nA ratio above 1 means mfad is faster by that factor.\n")

    w("## Hessian forms (1 thread)\n")
    w("| workload | elements | fused HVP ms | cached HVP ms | cache build ms | assembled SpMV ms | assembly ms | nonzeros | products per Newton step above which assembling beats fused |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, d in data.items():
        if not d.get("t1"):
            continue
        h, c, cb, s, asm = (get(d, "t1", o) for o in ("hvp_shell", "hvp_cached", "cache_build", "spmv", "assemble"))
        be = f"{asm['med'] / (h['med'] - s['med']):.1f}" if h and s and asm and h["med"] > s["med"] else "—"
        w(f"| {d['wl']} | {h['n'] if h else ''} | {ms(h)} | {ms(c)} | {ms(cb)} | {ms(s)} | {ms(asm)} | {d['t1'][2].get('nonzeros', '')} | {be} |")

    w("\n## PETSc's MatMFFD (-snes_mf) against mfad's exact HVP (1 thread)\n")
    w("MatMFFD with mfad's gradient as its function and the base residual given (as in -snes_mf): one gradient per product. "
      "Error: |y_mffd - y_exact| / |y_exact|.\n")
    w("| workload | elements | mfad HVP ms | MatMFFD default h ms (error) | -mat_mffd_err 1e-6 ms (error) | -mat_mffd_err 1e-10 ms (error) | MatMFFD / mfad time |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for key, d in data.items():
        if not d.get("t1"):
            continue
        h = get(d, "t1", "hvp_shell")
        e = d["t1"][1]
        cells = [f"{ms(get(d, 't1', f'mffd_err_{x}'))} ({e.get(f'mffd_err_{x}', float('nan')):.1e})" for x in ("default", "1e-6", "1e-10")]
        w(f"| {d['wl']} | {h['n'] if h else ''} | {ms(h)} | {' | '.join(cells)} | {ratio(get(d, 't1', 'mffd_err_default'), h)} |")

    w("\n## Memory-bandwidth bound (1 thread, STREAM triad of this run)\n")
    w("Bytes each operation must move at least (bench/run.py, `bytes_moved`: connectivity 4 B a vertex, parameters 8 B, "
      "x/v read and y written once each, packed element Hessians N(N+1)/2 x 8 B, AIJ 12 B a nonzero), divided by the "
      "1-thread triad rate. measured / bound near 1: memory-bound; far above: compute-bound.\n")
    w("| workload | elements | op | MB moved | bound ms | measured ms | measured / bound |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for key, d in data.items():
        if not d.get("t1"):
            continue
        nnz = float(d["t1"][2].get("nonzeros", 0))
        nunk = int(d["t1"][2]["vertices"]) * SHAPE[d["wl"]][1]
        for op in ("gradient", "hvp_shell", "hand_hvp", "hvp_cached", "cache_build", "spmv"):
            r = get(d, "t1", op)
            if not r:
                continue
            b = bytes_moved(d["wl"], op, r["n"], nunk, nnz)
            bt = b / (st[1]["med"] * 1e9)
            w(f"| {d['wl']} | {r['n']} | {op} | {b / 1e6:.1f} | {1e3 * bt:.3f} | {ms(r)} | {r['med'] / bt:.1f} |")

    w("\n## Threads and ranks (mfad; peers with 1 and 2 threads)\n")
    w("| workload | elements | op | 1 thread ms | 2 threads ms | speed-up | 2 ranks x 1 thread ms | speed-up | JAX 1 / 2 threads ms | PyTorch 1 / 2 threads ms |")
    w("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for key, d in data.items():
        if not d.get("t1"):
            continue
        for op, pop in (("gradient", "gradient"), ("hvp_shell", "hvp"), ("hand_hvp", None), ("hvp_cached", None), ("spmv", None)):
            a1, a2, r2 = get(d, "t1", op), get(d, "t2", op), get(d, "r2", op)
            if not a1:
                continue
            jp = f"{ms(peer_get(d, 'p1', 'jax', pop))} / {ms(peer_get(d, 'p2', 'jax', pop))}" if pop else ""
            tp = f"{ms(peer_get(d, 'p1', 'torch', pop))} / {ms(peer_get(d, 'p2', 'torch', pop))}" if pop else ""
            w(f"| {d['wl']} | {a1['n']} | {op} | {ms(a1)} | {ms(a2)} | {ratio(a1, a2)} | {ms(r2)} | {ratio(a1, r2)} | {jp} | {tp} |")
    w("\nPETSc's SpMV (AIJ) is single-threaded: its 2-thread column shows no gain by construction; 2 ranks split it.\n")

    w("## One full Newton solve\n")
    w(f"`build/petsc-examples/elastic {' '.join(nsize)} -snes_rtol 1e-8 -snes_atol 0 -ksp_rtol 1e-3 -snes_max_funcs 10000000` "
      "(Neo-Hookean cantilever under gravity, SNES newtonls + CG), 1 thread:\n")
    w("| Hessian | elements | solve s | Newton iterations | CG iterations (total) | final relative residual | reason |")
    w("| --- | --- | --- | --- | --- | --- | --- |")
    for label, r in nrows:
        if r is None:
            w(f"| {label} | | failed (see the log) | | | | |")
        else:
            w(f"| {label} | {r['elements']} | {r['time']:.3f} | {r['its']} | {r['kits']} | {r['residual']} | {r['reason']} |")

    w("\n## Instruction counts (callgrind)\n")
    if isinstance(cg, str):
        w(cg + "\n")
    else:
        w("`valgrind --tool=callgrind --collect-atstart=no --toggle-collect=Count...` on `build-valgrind/bench/bench_ops -count` "
          "(-DMFAD_NATIVE=OFF, 1 thread): one operation each, inclusive instructions (loop, gather, scatter, PETSc Vec calls). "
          "They do not drift with the load: track regressions by these.\n")
        w("| workload | elements | mfad gradient Ir/element | mfad HVP Ir/element | hand gradient Ir/element | hand HVP Ir/element |")
        w("| --- | --- | --- | --- | --- | --- |")
        for wl, ne, c in cg:
            cells = [f"{c[f] / ne:.0f}" if f in c else "n/a" for f in ("CountMfadGradient", "CountMfadHVP", "CountHandGradient", "CountHandHVP")]
            w(f"| {wl} | {ne} | {' | '.join(cells)} |")
    w("\n## Plots\n")
    w(plots + "\n")
    for x in extras:
        w(f"## {x['title']}\n")
        if "notrun" in x:
            w(x["notrun"] + "\n")
            continue
        w(f"`{x['cmd']}` ({x['seconds']:.0f} s). {x['intro']}\n")
        w("| " + " | ".join(h.replace("|", "\\|") for h in x["head"]) + " |")
        w("|" + " --- |" * len(x["head"]))
        for r in x["rows"]:
            w("| " + " | ".join(str(c).replace("|", "\\|") for c in r) + " |")
        if x.get("notes"):
            w("\n" + "".join(f"    {line}\n" for line in x["notes"].splitlines()))
        w("")
    kept = ""
    if os.path.exists(path):
        with open(path) as fp:
            old = fp.read()
        if KEEP in old:
            kept = old[old.index(KEEP) + len(KEEP):].lstrip("\n")
    w(KEEP + "\n")
    with open(path, "w") as fp:
        fp.write("\n".join(L) + "\n" + kept)


if __name__ == "__main__":
    main()
