"""The logistic readout after one step on a multi-index target with labels +-1: theory
(docs/theory.md (n.8), ``solve(..., loss="logistic")``) against the network (``simulate(...,
loss="logistic")``), mean +- standard error over seeds, z = (network - theory)/s.e.; the learned
direction e of the theory beside.

    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_convex_check.py --d 1000 --seeds 8

(alpha0 = 4, eta = 2, lambda = 0.1, beta = 1, uniform readout; about 15 min on a shared 2-core
machine.)  ``--vocabulary 1 2``: the readout initialised with that vocabulary, theory
``solve(..., vocabulary=...)`` (docs/theory.md (n.8), the K-group solver):

    PYTHONPATH=$PWD nice -n 10 python benchmarks/multi_index_convex_check.py --d 500 --seeds 8 \
        --students tanh --targets "sign(z1 + z1*z2)" --vocabulary 1 2
"""
from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from srfsym.simulation.simulate import simulate
from srfsym.theory.fixed_point import solve

TARGETS = ("sign(z1 + z1*z2)", "sign(z1*(100*z2**2 - 9))")
STUDENTS = ("tanh", "relu")
ALPHAS = (1.0, 4.0)
ALPHA0, ETA, LAM = 4.0, 2.0, 0.1
QUANTITIES = (("classification_error", "test class. error"), ("train_loss", "training loss"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--targets", nargs="*", default=TARGETS)
    ap.add_argument("--students", nargs="*", default=STUDENTS)
    ap.add_argument("--alphas", nargs="*", type=float, default=ALPHAS)
    ap.add_argument("--vocabulary", nargs="*", type=float, default=None)
    args = ap.parse_args()
    voc = args.vocabulary or None
    print(f"alpha0 = {ALPHA0}, eta = {ETA}, lam = {LAM}, d = {args.d}, seeds = {args.seeds}, "
          f"beta = 1, vocabulary {voc or 'uniform'}, logistic loss, labels y = g(z) in {{-1, 1}}",
          flush=True)
    print("| target | student | alpha | quantity | theory | network (+- s.e.) | z | e |",
          flush=True)
    print("|---|---|---|---|---|---|---|---|", flush=True)
    for tg in args.targets:
        for st in args.students:
            t0 = time.time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ths = [solve(st, tg, ALPHA0, ETA, LAM, a, loss="logistic", vocabulary=voc)
                       for a in args.alphas]
            sim = simulate(st, tg, ALPHA0, ETA, LAM, list(args.alphas), d=args.d,
                           seeds=args.seeds, n_test=10000, workers=1, seed=2029, loss="logistic",
                           vocabulary=voc)
            per_seed = sim.convex_per_seed
            for i, (a, th) in enumerate(zip(args.alphas, ths)):
                for key, label in QUANTITIES:
                    v = np.array([s[i] for s in per_seed[key]], float)
                    se = v.std(ddof=1) / np.sqrt(len(v))
                    t = getattr(th, key)
                    print(f"| `{tg}` | {st} | {a:g} | {label} | {t:.4f} | {v.mean():.4f} +- "
                          f"{se:.4f} | {(v.mean() - t) / se:+.2f} | "
                          f"{np.round(th.learned_direction, 3).tolist()} |", flush=True)
            print(f"<!-- {tg} / {st}: {time.time() - t0:.0f} s -->", flush=True)


if __name__ == "__main__":
    main()
