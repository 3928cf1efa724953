"""The logistic readout with probit label noise on the sRF model (docs/theory.md (m)): theory
against simulation at several sizes d, to tell a finite-size effect (a trend in d towards the
theory) from a bias that stays (a theory or simulation bug).  tanh student, sign teacher,
eta = 2, alpha0 = 2 (through the mapping), lambda = 0.05, alpha = 2, beta = 1, noise 0.25
(default).  Seeds are those of ``simulate_convex(seed=0)`` at every d (the first four at d = 1000
are the draws of benchmarks/convex_simulation_study.py; ``simulate_convex`` is now a wrapper of
``simulate(model="srf")``, whose draws differ from those of the tables in docs/theory.md (m.5)).  Prints, per d, the simulation mean +- standard error over seeds and the z-score
against the theory for the test classification error, training loss, q2 and m, and the
fit ``m(d) = m_inf + a / d`` (weighted least squares) with its z-score against the theory.

    python benchmarks/convex_noise_study.py [--d 500 1000 2000] [--seeds 12 12 6]
        [--noise 0.25] [--n-test 10000]
"""
import argparse
import math
import time

import numpy as np

import srfsym
from srfsym.simulation.simulate import simulate_convex
from srfsym.step.mapping import srf_mapping

KEYS = ("classification_error", "train_loss", "q2", "m")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, nargs="+", default=[500, 1000, 2000])
    ap.add_argument("--seeds", type=int, nargs="+", default=[12, 12, 6])
    ap.add_argument("--noise", type=float, default=0.25)
    ap.add_argument("--loss", default="logistic")
    ap.add_argument("--n-test", type=int, default=10000)
    a = ap.parse_args()
    seeds = a.seeds if len(a.seeds) == len(a.d) else a.seeds[:1] * len(a.d)
    mp = srf_mapping("tanh", "sign", 2, 2)
    th = srfsym.solve("tanh", "sign", 2, 2, 0.05, 2.0, loss=a.loss, noise=a.noise)
    theory = {"classification_error": th.classification_error, "train_loss": th.train_loss,
              "q2": th.state.q2, "m": th.state.m}
    print(f"{a.loss}, noise {a.noise}, tanh/sign, r = {mp.r:.4f}, c = {mp.c:.4f}, "
          f"gamma = {mp.gamma:.4f}, lambda = 0.05, alpha = 2, beta = 1, {a.n_test} test points")
    print("theory: " + ", ".join(f"{k} {v:.5f}" for k, v in theory.items()))
    fit = {k: [] for k in KEYS}
    for d, ns in zip(a.d, seeds):
        t = time.perf_counter()
        s = simulate_convex("tanh", "sign", mp.r, mp.c, mp.gamma, 0.05, 2.0, d, loss=a.loss,
                            noise=a.noise, seeds=ns, n_test=a.n_test, seed=0)
        print(f"d = {d}, {ns} seeds ({time.perf_counter() - t:.0f} s)")
        for k in KEYS:
            mean, sem = s[k], s[k + "_sem"]
            v = np.array([row[k] for row in s["rows"]])
            fit[k].append((d, mean, sem))
            print(f"  {k:22s} {mean:.5f} +- {sem:.5f} (sd {v.std(ddof=1):.4f})   rel. diff "
                  f"{mean / theory[k] - 1:+.4f}   z = {(mean - theory[k]) / sem:+.1f}")
            if ns > 4:   # the first four seeds are those of convex_simulation_study.py
                m4, s4 = v[:4].mean(), v[:4].std(ddof=1) / 2
                print(f"  {'':22s} first 4 seeds: {m4:.5f} +- {s4:.5f}   "
                      f"z = {(m4 - theory[k]) / s4:+.1f}")
    if len(a.d) >= 2:
        print("weighted fit  value(d) = value_inf + a / d:")
        for k in KEYS:
            d, y, e = (np.array(v, float) for v in zip(*fit[k]))
            A = np.stack([np.ones_like(d), 1 / d], axis=1) / e[:, None]
            coef, *_ = np.linalg.lstsq(A, y / e, rcond=None)
            cov = np.linalg.inv(A.T @ A)
            se = math.sqrt(cov[0, 0])
            print(f"  {k:22s} value_inf {coef[0]:.5f} +- {se:.5f} (theory {theory[k]:.5f}, "
                  f"z = {(coef[0] - theory[k]) / se:+.1f}), a = {coef[1]:+.2f}")


if __name__ == "__main__":
    main()
