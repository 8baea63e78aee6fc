#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Time to a given map: petsc-examples/param (symmetric Dirichlet from a Tutte start, every default)
on a disk mesh, and the time at which its Newton steps first reach a target energy and gradient
norm, for comparing with another tool's stop (issue 50, item 2: TinyAD's recipe stops at a Newton
decrement of 1e-2; give its final energy and gradient norm here). Runs the solve to its own stop and
reads -mfad_monitor's lines (`step k energy E |g| g ... time t`: t is the time since SNESSolve began
when step k's Hessian was formed, so the time given for a step counts that step's Hessian too: an
upper bound). Prints one line per mesh:

    python3 bench/param_time.py MESH.obj [--energy E]... [--gnorm G] [--reps 3] [-- param options]

Each --energy is a target of its own; --gnorm adds one at the last energy (if any) and that gradient
norm together (a tool's stop: its energy and its |g|). Set-up (reading, the Tutte start) is reported
apart, as param's process wall time minus the solve's. 1 thread, 1 rank; every figure comes from
one of the --reps runs, the median by solve time.

--fast-mpi-init runs param with Open MPI's singleton set up for one process (OMPI_MCA_pml=ob1: no
probe of UCX's devices; OMPI_MCA_ess_singleton_isolated=1: no orted started), what a user's
~/.openmpi/mca-params.conf can say (pml = ob1, ess_singleton_isolated = 1). MPI_Init is most of
the start: PetscInitialize + PetscFinalize of an empty program took 0.38-0.41 s, 0.09-0.10 s with
both (Open MPI 4.1.4, measured 2026-12-03); another MPI, or variables already set, are left alone."""
import argparse
import os
import re
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEP = re.compile(r"^mfad: step (\d+) energy (\S+) \|g\| (\S+).* time (\S+) s")


def once(exe, mesh, extra, targets, fast_mpi_init):
    env = dict(os.environ, OMP_NUM_THREADS="1", OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    if fast_mpi_init:
        for k, v in (("OMPI_MCA_pml", "ob1"), ("OMPI_MCA_ess_singleton_isolated", "1")):
            env.setdefault(k, v)
    t0 = time.perf_counter()
    p = subprocess.run([exe, "-mesh", mesh, "-mfad_monitor", *extra], env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"param_time: param failed on {mesh} (exit {p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-2000:]}")
    steps = [(int(m[1]), float(m[2]), float(m[3]), float(m[4])) for m in map(STEP.match, p.stdout.splitlines()) if m]
    last = [line for line in p.stdout.splitlines() if line.startswith("param:")][-1]
    final_t = steps[-1][3]
    hits = [next(((k, e, g, t) for k, e, g, t in steps if (te is None or e <= te) and (tg is None or g <= tg)), None) for te, tg in targets]
    return wall, final_t, steps[-1], hits, last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh")
    ap.add_argument("--energy", type=float, action="append", default=[], help="target energy (reached when E <= it); may be repeated")
    ap.add_argument("--gnorm", type=float, help="target |grad E| (reached when |g| <= it)")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--exe", default=os.path.join(ROOT, "build", "petsc-examples", "param"))
    ap.add_argument("--fast-mpi-init", action="store_true", help="Open MPI's singleton set up for one process (see above)")
    # the param options after `--` are split off by hand: argparse fills the optional positional
    # `extra` with [] when it reads MESH, and then refuses a `-- ...` that comes after --energy
    argv = sys.argv[1:]
    cut = argv.index("--") if "--" in argv else len(argv)
    a = ap.parse_args(argv[:cut])
    a.extra = argv[cut + 1 :]
    # targets: each energy alone; with --gnorm, the last energy (or none) and the gradient norm together
    targets = [(e, None) for e in a.energy] + ([(a.energy[-1] if a.energy else None, a.gnorm)] if a.gnorm is not None else [])
    runs = [once(a.exe, a.mesh, a.extra, targets, a.fast_mpi_init) for _ in range(a.reps)]
    # every figure from one run, the median by solve time: medians taken apart could put a tighter
    # target before a looser one
    wall, final_t, (k, e, g, _), hits, last = sorted(runs, key=lambda r: r[1])[len(runs) // 2]
    line = f"param_time {os.path.basename(a.mesh)}: set-up {wall - final_t:.3f} s{' (fast MPI init)' if a.fast_mpi_init else ''}; own stop: {k} steps, {final_t:.3f} s, energy {e:.12g}, |g| {g:.3e}"
    for (te, tg), hit in zip(targets, hits):
        if hit is None:
            line += f"; target (energy <= {te}, |g| <= {tg}) not reached"
        else:
            line += f"; target (energy <= {te}, |g| <= {tg}) at step {hit[0]}: {hit[3]:.3f} s (energy {hit[1]:.12g}, |g| {hit[2]:.3e})"
    print(line)
    print("  " + last)


if __name__ == "__main__":
    main()
