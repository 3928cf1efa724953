"""A convex readout with a readout vocabulary: theory against the network (docs/theory.md (m.8)).

The real two-layer network: readout before the step ``a0_k = omega_k / sqrt(p)`` with the
letters ``{1, 2}`` (weights 1/2 each), one giant step (tanh student, eta = 2, alpha0 = 4,
sign teacher), then a logistic (or hinge) readout at lambda = 0.05, beta = 1, fitted by
``simulate(..., loss=, vocabulary=)``.  Beside it the uniform readout (the same network with
``a0 = 1/sqrt(p)``) as a control.  Prints a markdown table: theory / network mean +-
standard error over seeds / z, for the test classification error (s.e. floored at the test
sets' binomial error), the training loss, the test MSE, ``q2 = |a|^2/p`` (total over the
letters) and the per-letter ``q2_j``, ``m_j``.

    python benchmarks/convex_vocabulary_study.py [--d 1000] [--seeds 8] [--alphas 1 2 4]
        [--loss logistic] [--n-test 10000] [--model network|srf]
"""
import argparse
import math
import time
import warnings

import numpy as np

import srfsym
from srfsym.simulation.simulate import simulate


def _row(label, quantity, theory, values, floor=0.0):
    v = np.asarray(values, float)
    mean = float(v.mean())
    sem = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")
    sem = max(sem, floor)
    z = (mean - theory) / sem if sem > 0 else float("nan")
    print(f"| {label} | {quantity} | {theory:.4f} | {mean:.4f} +- {sem:.4f} | {z:+.1f} |")
    return z


def study(d, seeds, alphas, loss, n_test, model, vocabulary=(1.0, 2.0), alpha0=4.0, eta=2.0,
          lam=0.05):
    print(f"{model}, tanh student, sign teacher, eta = {eta:g}, alpha0 = {alpha0:g}, lambda = "
          f"{lam:g}, beta = 1, {loss}; d = {d}, {seeds} seeds, {n_test} test points each\n")
    print("| readout, alpha | quantity | theory | network | z |")
    print("|---|---|---|---|---|")
    zs = []
    for voc in (list(vocabulary), None):
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ths = [srfsym.solve("tanh", "sign", alpha0, eta, lam, a, loss=loss, vocabulary=voc)
                   for a in alphas]
        t1 = time.perf_counter()
        sim = simulate("tanh", "sign", alpha0, eta, lam, alphas, d=d, seeds=seeds,
                       n_test=n_test, loss=loss, vocabulary=voc, model=model, workers=1)
        t2 = time.perf_counter()
        name = "uniform" if voc is None else "{" + ", ".join(f"{w:g}" for w in voc) + "}"
        per = sim.convex_per_seed
        for i, (a, th) in enumerate(zip(alphas, ths)):
            lab = f"{name}, {a:g}"
            ce = th.classification_error
            floor = math.sqrt(ce * (1 - ce) / (n_test * seeds))
            zs.append(_row(lab, "test class. error", ce, [s[i] for s in
                                                            per["classification_error"]], floor))
            zs.append(_row(lab, "training loss", th.train_loss, [s[i] for s in per["train_loss"]]))
            zs.append(_row(lab, "test MSE", th.test_error, sim.test_error_per_seed[:, i]))
            zs.append(_row(lab, "q2 (total)", float(np.sum(th.state.q2)),
                           [s[i] for s in per["q2"]]))
            if voc is None:
                zs.append(_row(lab, "m", float(th.state.m), [s[i] for s in per["m"]]))
                continue
            for j, w in enumerate(voc):         # the letters in the vocabulary's order
                zs.append(_row(lab, f"q2_{w:g}", float(th.state.q2[j]),
                               [s[i][j] for s in per["q2_groups"]]))
                zs.append(_row(lab, f"m_{w:g}", float(th.state.m[j]),
                               [s[i][j] for s in per["m_groups"]]))
        print(f"\n({name}: theory {t1 - t0:.1f} s, simulation {t2 - t1:.1f} s)\n")
    print(f"max |z| = {np.nanmax(np.abs(zs)):.1f} over {len(zs)} rows")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--alphas", type=float, nargs="+", default=[1.0, 2.0, 4.0])
    ap.add_argument("--loss", default="logistic")
    ap.add_argument("--n-test", type=int, default=10000)
    ap.add_argument("--model", default="network", choices=("network", "srf"))
    args = ap.parse_args()
    study(args.d, args.seeds, args.alphas, args.loss, args.n_test, args.model)


if __name__ == "__main__":
    main()
