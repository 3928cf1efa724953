"""Benchmark and accuracy study of the feature spectrum (srfsym.theory.feature.spectrum,
docs/theory.md (j)).

Targets (issue #9): one s(z) <= 2 ms; a 400-point density with warm starts <= 0.5 s; the
simulated spectrum at d = 2000 within 2x of the step plus one ``eigvalsh``.  Accuracy:
theory vs network (mean of 4 seeds), max relative error of s(z) over the seven z of
(j.7) <= 1 % at d = p = n = 1000 and <= 0.5 % at 2000, also at (beta, p/n) = (1.5, 0.5) and
(0.5, 0.5); the top eigenvalue against p M2hat + Delta from the realised spike.

    python benchmarks/bench_feature_spectrum.py            # timings + d = 1000 table
    python benchmarks/bench_feature_spectrum.py --full     # + d = 2000 and beta != 1 rows
"""
import argparse
import statistics
import time

import numpy as np

from srfsym.theory.feature.spectrum import feature_spectrum
from srfsym.simulation.simulate import network_first_layer
from srfsym.simulation.spectrum_simulation import simulate_feature_spectrum

CASES = [("init", "tanh", "sin", 0.0, 0.0), ("eta=3", "tanh", "sin", 20.0, 3.0),
         ("eta=8", "tanh", "sin", 20.0, 8.0), ("tanh/tanh", "tanh", "tanh", 2.0, 2.0)]


def timings():
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
    fs.stieltjes(0.6 + 0.1j)                                  # compile / caches
    zs = [0.6 + 0.1j, 1 + 0.1j, 0.1 + 0.05j, 2.5 + 0.3j, -0.5 + 0.01j]
    t = []
    for z in zs * 4:
        t0 = time.perf_counter()
        fs.stieltjes_value(z, warm_start=False)
        t.append(time.perf_counter() - t0)
    print(f"one s(z), cold start, tanh/sin eta = 3: median {1e3 * statistics.median(t):.2f} ms, "
          f"max {1e3 * max(t):.2f} ms   (target <= 2 ms)")
    fs8 = feature_spectrum("tanh", "sin", alpha0=20, eta=8)
    fs8.stieltjes(0.6 + 0.1j)
    t0 = time.perf_counter()
    v = fs8.stieltjes_value(0.1 + 0.01j, warm_start=False)
    print(f"one s(z) at eta = 8, z = 0.1 + 0.01i: {1e3 * (time.perf_counter() - t0):.2f} ms, "
          f"{v.nodes} kappa nodes, relative error estimate {v.node_error:.1e}")
    x = np.linspace(0.01, 2.0, 400)
    t0 = time.perf_counter()
    fs.density(x)
    print(f"400-point density with warm starts: {time.perf_counter() - t0:.3f} s   "
          "(target <= 0.5 s)")
    d = 2000
    t0 = time.perf_counter()
    network_first_layer("tanh", "sin", 20, 3, d)
    step = time.perf_counter() - t0
    X = np.random.default_rng(0).standard_normal((d, d))
    t0 = time.perf_counter()
    np.linalg.eigvalsh(X.T @ X / d)
    eig = time.perf_counter() - t0
    t0 = time.perf_counter()
    simulate_feature_spectrum("tanh", "sin", 20, 3, d=d, seeds=1)
    sim = time.perf_counter() - t0
    print(f"simulated spectrum at d = {d}: {sim:.2f} s; step {step:.2f} s + eigvalsh {eig:.2f} s "
          f"= {step + eig:.2f} s; ratio {sim / (step + eig):.2f}   (target <= 2)")


def accuracy(d, beta=1.0, nu=1.0, seeds=4):
    print(f"\nd = {d}, beta = p/d = {beta}, p/n = {nu}, {seeds} seeds")
    print(f"{'case':10s} {'r':>6s} {'c':>6s} {'max rel. err':>12s} {'top eig (network)':>22s} "
          f"{'p M2hat + Delta':>22s} {'seconds':>8s}")
    for name, st, te, a0, eta in CASES:
        sim = simulate_feature_spectrum(st, te, a0, eta, d=d, beta=beta, p_over_n=nu,
                                        seeds=seeds)
        fs = sim.theory
        top = ", ".join(f"{t:.1f}" for t in sim.top[:2])
        pred = ", ".join(f"{t:.1f}" for t in sim.top_predicted[:2]) or "(no outlier)"
        print(f"{name:10s} {fs.r:6.3f} {fs.c:6.3f} {100 * sim.max_relative_error():11.2f}% "
              f"{top:>22s} {pred:>22s} {sim.seconds:8.1f}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--full", action="store_true", help="also d = 2000 and beta != 1")
    args = ap.parse_args()
    timings()
    accuracy(1000)
    if args.full:
        accuracy(2000)
        accuracy(1000, beta=1.5, nu=0.5)
        accuracy(2000, beta=0.5, nu=0.5)


if __name__ == "__main__":
    main()
