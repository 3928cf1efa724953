"""A convex readout after T giant steps: the network against the vector-kappa convex theory
(docs/theory.md (p.4)).

The network of ``simulate(..., steps=T, loss=...)`` (fresh batch per step, full residual, then
the convex readout) beside :func:`srfsym.solve` with ``steps=T`` and the same loss: test
classification error, test MSE and training loss, mean +- standard error over seeds.

    PYTHONPATH=. nice -n 10 python benchmarks/several_steps_convex_check.py 1000 8 tanh sign 2 logistic
"""
import sys
import time
import warnings

import numpy as np

from srfsym.simulation.simulate import simulate
from srfsym.theory.fixed_point import solve


def main(d, seeds, student, teacher, T, loss, lam=0.05, alphas=(1.0, 2.0), alpha0=2.0, eta=1.0):
    t0 = time.time()
    sim = simulate(student, teacher, alpha0, eta, lam, list(alphas), d=d, seeds=seeds,
                   n_test=10000, workers=1, steps=T, loss=loss)
    print(f"simulation: {time.time() - t0:.0f} s", flush=True)
    per = sim.convex_per_seed
    print("| student | target | T | loss | alpha | quantity | network (d, seeds) | theory "
          "(node error) | (sim - th)/s.e. |")
    print("|---|---|---|---|---|---|---|---|---|")
    for j, a in enumerate(alphas):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            th = solve(student, teacher, alpha0, eta, lam, a, steps=T, loss=loss)
        rows = [("test MSE", sim.test_error_per_seed[:, j], th.test_error),
                ("training loss", [s[j] for s in per["train_loss"]], th.train_loss)]
        if th.classification_error is not None:
            rows.insert(0, ("classification error",
                            [s[j] for s in per["classification_error"]],
                            th.classification_error))
        node = "n/a" if th.node_error is None else f"{th.node_error:.0e}"
        for name, vals, theory in rows:
            v = np.asarray(vals, float)
            m, se = v.mean(), v.std(ddof=1) / np.sqrt(len(v))
            print(f"| {student} | {teacher} | {T} | {loss} | {a:g} | {name} | {m:.4f} ± "
                  f"{se:.4f} ({d}, {seeds}) | {theory:.4f} ({node}) | "
                  f"{(m - theory) / se:+.1f} |", flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4], int(sys.argv[5]),
         sys.argv[6])
