# SPDX-License-Identifier: BSD-2-Clause
"""Plots of bench/results.json (written by bench/run.py): time per element vs mesh size, log-log,
one PNG per workload (bench/plot_<workload>.png), 1 thread. Prints the Markdown that shows them.
Run by the driver with the .venv python (matplotlib)."""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = [("t1", "gradient", "mfad gradient", "C0", "-o"), ("t1", "hvp_shell", "mfad fused HVP", "C1", "-o"),
          ("t1", "hand_gradient", "hand-written gradient", "C0", ":s"), ("t1", "hand_hvp", "hand-written HVP", "C1", ":s"),
          ("t1", "hvp_cached", "mfad cached HVP", "C2", "-^"), ("t1", "spmv", "assembled SpMV", "C3", "-v"),
          ("t1", "assemble", "Hessian assembly", "C4", "-d"), ("t1", "mffd_err_default", "MatMFFD product", "C5", "--x"),
          ("jax", "gradient", "JAX gradient", "C6", "--o"), ("jax", "hvp", "JAX HVP", "C7", "--o"),
          ("torch", "gradient", "PyTorch gradient", "C8", "-.o"), ("torch", "hvp", "PyTorch HVP", "C9", "-.o")]


def main():
    with open(sys.argv[1]) as fp:
        R = json.load(fp)
    here = os.path.dirname(os.path.abspath(sys.argv[1]))
    by_wl = {}
    for d in R["data"].values():
        by_wl.setdefault(d["wl"], []).append(d)
    for wl, ds in by_wl.items():
        fig, ax = plt.subplots(figsize=(7, 5))
        for part, op, label, color, style in SERIES:
            xs, ys = [], []
            for d in ds:
                if part in ("jax", "torch"):
                    r = (((d.get("p1") or {}).get(part) or {}).get("res") or {}).get(f"{part}_{op}")
                else:
                    r = (d.get(part) or [{}])[0].get(op)
                if r:
                    xs.append(r["n"])
                    ys.append(1e9 * r["med"] / r["n"])
            if xs:
                ax.loglog(xs, ys, style, color=color, label=label)
        ax.set_xlabel("elements")
        ax.set_ylabel("ns per element (median, 1 thread)")
        ax.set_title(f"{wl}: time per element vs mesh size ({R['meta']['date']})")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        name = f"plot_{wl}.png"
        fig.savefig(os.path.join(here, name), dpi=110)
        print(f"![{wl}]({name})")


if __name__ == "__main__":
    main()
