"""The several-steps table of docs/theory.md (p), measured on the network.

relu student, target z1 + z1*z2, d = p = 400 (or argv[1]), alpha0 = 2, eta = 1, lambda = 0.1:
top singular values of (W_T - W0)/sqrt(p) and the ridge readout's test error at alpha = 1, 2
(mean +- standard error over seeds), for the readouts {+1, -1} (T = 1, 2, 3) and uniform (T = 2).

    PYTHONPATH=. python benchmarks/several_steps_table.py 400 8
"""
import sys

import numpy as np

from srfsym.simulation.simulate import simulate


def main(d=400, seeds=8, student="relu", target="z1 + z1*z2"):
    rows = [([1, -1], 1), ([1, -1], 2), ([1, -1], 3), (None, 1), (None, 2)]
    print(f"student {student}, target {target}, d = p = {d}, alpha0 2, eta 1, lambda 0.1, "
          f"{seeds} seeds")
    print("| readout | steps | top 3 singular values of (W_T - W0)/sqrt(p) | test error alpha = 1 | alpha = 2 |")
    print("|---|---|---|---|---|")
    for voc, T in rows:
        res = simulate(student, target, 2.0, 1.0, 0.1, [1.0, 2.0], d=d, seeds=seeds,
                       n_test=5000, workers=1, vocabulary=voc, steps=T)
        sv = res.step_measurements["singular_values"][:, -1]
        svs = ", ".join(f"{m:.3f}+-{s:.3f}" for m, s in
                        zip(sv.mean(0), sv.std(0, ddof=1) / np.sqrt(seeds)))
        errs = " | ".join(f"{m:.3f}+-{s:.3f}" for m, s in zip(res.test_error, res.test_error_sem))
        name = "uniform" if voc is None else "{+1, -1}"
        print(f"| {name} | {T} | {svs} | {errs} |", flush=True)


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]), *sys.argv[3:5])
