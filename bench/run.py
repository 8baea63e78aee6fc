#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The benchmark driver: runs every bench program and peer on this machine in one run and writes
bench/RESULTS.md (tables, ratios) and bench/plot_<workload>.png (time per element vs mesh size).

    python3 bench/run.py            # full sizes (10k..1M elements), 5 repetitions, ~15-25 min
    python3 bench/run.py --quick    # small sizes, 3 repetitions, for development

Runs with the system python3 (standard library only). It builds ./build if bench_ops is missing,
./build-valgrind (-DMFAD_NATIVE=OFF) for the callgrind counts, and creates .venv/ with numpy,
matplotlib, jax and torch from PyPI; a package that cannot be installed is reported in the table as
"not installed: <reason>", never silently dropped. Medians are over >= 5 repetitions after one
warm-up (3 with --quick), with min-max beside them."""
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
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
        return h + (" (with uncommitted changes)" if dirty else "")
    except OSError:
        return "unknown"


def ensure_build(build, extra):
    exe = os.path.join(ROOT, build, "bench", "bench_ops")
    if not os.path.exists(exe) or not os.path.exists(os.path.join(ROOT, build, "bench", "bench_stream")):
        log(f"building {build}")
        run(["cmake", "-S", ROOT, "-B", os.path.join(ROOT, build), "-DCMAKE_BUILD_TYPE=Release"] + extra, timeout=600)
        run(["cmake", "--build", os.path.join(ROOT, build), "-j2", "--target", "bench_ops", "bench_stream"] + (["elastic"] if build == "build" else []), timeout=1800)
    return exe


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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes, 3 repetitions")
    ap.add_argument("--reps", type=int, default=None, help="timed repetitions (default 5; 3 with --quick)")
    ap.add_argument("--no-peers", action="store_true", help="skip JAX and PyTorch (the table says so)")
    ap.add_argument("--no-callgrind", action="store_true", help="skip the instruction counts (the report says so)")
    ap.add_argument("--out", default=os.path.join(BENCH, "RESULTS.md"))
    a = ap.parse_args()
    reps = a.reps or (3 if a.quick else 5)
    sizes = QUICK if a.quick else FULL
    t_start = time.time()
    meta = dict(machine=machine(), date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), commit=commit(),
                load_before=loadavg(), reps=reps, mode="quick" if a.quick else "full")
    log(f"mfad bench: {meta['machine']}; load average {meta['load_before']}")
    exe = ensure_build("build", [])
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
    for wl, szs in sizes.items():
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
    nsize, nrows = newton(a.quick)
    cg = "not run: --no-callgrind" if a.no_callgrind else callgrind(a.quick)
    meta["load_after"] = loadavg()
    meta["minutes"] = (time.time() - t_start) / 60
    with open(os.path.join(BENCH, "results.json"), "w") as fp:
        json.dump(dict(meta=meta, stream=st, data=data, newton=[nsize, nrows], callgrind=cg), fp, indent=1)
    plots = plot(pyplot, os.path.join(BENCH, "results.json"))
    write(a.out, meta, st, data, nsize, nrows, cg, plots)
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


def write(path, meta, st, data, nsize, nrows, cg, plots):
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
    w("Times are ms per operation on the whole mesh, 1 OpenMP thread, 1 rank unless said. mfad's HVP is the fused "
      "forward-over-forward product through its MATSHELL (`MatMult`). The hand-written kernels run through mfad's own "
      "element loops (bench/handkernel.h), so their ratio isolates the derivative code. Every peer's gradient and HVP was "
      "checked against mfad's to 1e-10 relative before it was timed (the ERROR columns in results.json).\n")

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
    with open(path, "w") as fp:
        fp.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
