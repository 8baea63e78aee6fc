#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Time to a given map: petsc-examples/param (symmetric Dirichlet from a Tutte start, every default)
on a disk mesh, and the time at which its Newton steps first reach a target energy and gradient
norm, for comparing with another tool's stop (issue 50, item 2: TinyAD's recipe stops at a Newton
decrement of 1e-2; give its final energy and gradient norm here). Runs the solve to its own stop and
reads -mfad_monitor's lines (`step k energy E |g| g ... time t`: t is the time since SNESSolve began
when step k's Hessian was formed, so the time given for a step counts that step's Hessian too: an
upper bound). Prints one line per mesh:

    python3 bench/param_time.py MESH.obj [--energy E] [--gnorm G] [--reps 3] [-- param options]

Set-up (reading, the Tutte start) is reported apart, as param's own wall time minus the solve's.
1 thread, 1 rank, the median of --reps runs.

--fast-mpi-init runs param with Open MPI's singleton set up for one process (OMPI_MCA_pml=ob1: no
probe of UCX's devices; OMPI_MCA_ess_singleton_isolated=1: no orted started), what a user's
~/.openmpi/mca-params.conf can say (pml = ob1, ess_singleton_isolated = 1). MPI_Init is most of
the start: PetscInitialize + PetscFinalize of an empty program took 0.38-0.41 s, 0.09-0.10 s with
both (Open MPI 4.1.4, measured 2026-12-03); another MPI, or variables already set, are left alone."""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STEP = re.compile(r"^mfad: step (\d+) energy (\S+) \|g\| (\S+).* time (\S+) s")


def once(exe, mesh, extra, energy, gnorm, fast_mpi_init):
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
    hits = []  # the first step at the energy, then the first at the energy and the gradient norm
    for want_g in (None, gnorm):
        if energy is None and want_g is None:
            continue
        hits.append(next(((k, e, g, t) for k, e, g, t in steps if (energy is None or e <= energy) and (want_g is None or g <= want_g)), None))
    return wall, final_t, steps[-1], hits, last


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mesh")
    ap.add_argument("--energy", type=float, help="target energy (reached when E <= it)")
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
    runs = [once(a.exe, a.mesh, a.extra, a.energy, a.gnorm, a.fast_mpi_init) for _ in range(a.reps)]
    med = lambda xs: statistics.median(xs)  # noqa: E731
    wall, final_t = med([r[0] for r in runs]), med([r[1] for r in runs])
    k, e, g, _ = runs[0][2]
    line = f"param_time {os.path.basename(a.mesh)}: set-up {wall - final_t:.3f} s{' (fast MPI init)' if a.fast_mpi_init else ''}; own stop: {k} steps, {final_t:.3f} s, energy {e:.12g}, |g| {g:.3e}"
    gnorms = ([None] if a.energy is not None else []) + ([a.gnorm] if a.gnorm is not None else [])
    for i, want_g in enumerate(gnorms):
        hit = runs[0][3][i]
        if hit is None or any(r[3][i] is None for r in runs):
            line += f"; target (energy <= {a.energy}, |g| <= {want_g}) not reached"
        else:
            line += f"; target (energy <= {a.energy}, |g| <= {want_g}) at step {hit[0]}: {med([r[3][i][3] for r in runs]):.3f} s (energy {hit[1]:.12g}, |g| {hit[2]:.3e})"
    print(line)
    print("  " + runs[0][4])


if __name__ == "__main__":
    main()
