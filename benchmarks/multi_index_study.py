"""Multi-index targets: theory vs the network vs the kernel (no step) baseline (docs/theory.md (n)).

For each target and student: ``simulate`` (model="network", the step's labels and the readout's
data from g(x_1..x_k)) at dimension d over several seeds, the standard error from the seed-to-seed
spread; the theory of :func:`srfsym.theory.multi_index.solve_multi_index` (isotropic bulk) and the
kernel baseline (alpha0 = 0).  Prints one table row per (target, student, alpha) and the one-step
map (r, c, alignment vector) measured against its formula.

    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_study.py --d 1000 --seeds 8
    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_study.py --d 2000 --seeds 8 \
        --targets "z1 + z1*z2" --students tanh --alphas 1

(the table of docs/theory.md (n.6): the first line at d = 2000 took about 1 h on a shared
2-core machine, the second 7 min).
"""
from __future__ import annotations

import argparse
import time

import numpy as np

from srfsym.simulation.simulate import simulate
from srfsym.step.multi_index import multi_index_mapping
from srfsym.theory.multi_index import solve_multi_index

TARGETS = ("z1 + z1*z2", "tanh(2*z1) + (z2**2 - 1)/sqrt(2)", "tanh(z1 + z2/2) + sin(z2)/2")
STUDENTS = ("tanh", "relu")
ALPHAS = (0.5, 1.0, 2.0, 4.0)
ALPHA0, ETA, LAM = 4.0, 2.0, 0.1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--targets", nargs="*", default=TARGETS)
    ap.add_argument("--students", nargs="*", default=STUDENTS)
    ap.add_argument("--alphas", nargs="*", type=float, default=ALPHAS)
    args = ap.parse_args()
    alphas = tuple(args.alphas)
    print(f"alpha0 = {ALPHA0}, eta = {ETA}, lam = {LAM}, d = {args.d}, seeds = {args.seeds}, "
          "beta = 1, uniform readout, ridge", flush=True)
    print("| target | student | alpha | theory | network (+- s.e.) | z | kernel |", flush=True)
    print("|---|---|---|---|---|---|---|", flush=True)
    for tg in args.targets:
        for st in args.students:
            t0 = time.time()
            sim = simulate(st, tg, ALPHA0, ETA, LAM, list(alphas), d=args.d, seeds=args.seeds,
                           n_test=10000, workers=1, seed=2028)
            m = multi_index_mapping(st, tg, ETA, ALPHA0)
            for i, al in enumerate(alphas):
                th = solve_multi_index(st, tg, ALPHA0, ETA, LAM, al).test_error
                kb = solve_multi_index(st, tg, 0, 0, LAM, al).test_error
                e = sim.test_error_per_seed[:, i]
                se = e.std(ddof=1) / np.sqrt(len(e))
                print(f"| `{tg}` | {st} | {al:g} | {th:.4f} | {e.mean():.4f} +- {se:.4f} | "
                      f"{(e.mean() - th) / se:+.2f} | {kb:.4f} |", flush=True)
            print(f"<!-- {tg} / {st}: r = {m.spike_strength:.4f} (measured "
                  f"{sim.r_emp.mean():.4f} +- {sim.r_emp.std(ddof=1) / np.sqrt(len(sim.r_emp)):.4f}),"
                  f" gamma_1 = {float(m.alignment_vector[0]):.4f} (measured <v, e1> "
                  f"{sim.gamma_emp.mean():.4f}); {time.time() - t0:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
