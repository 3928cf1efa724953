"""Benchmark: the convex-loss fixed point (docs/theory.md (m)) with a logistic readout,
tanh student, sign teacher, one step eta = 2, alpha0 = 2 (the L1 point of the theory page).

Prints, after warm-up, the median time of one logistic point (default nodes, and 60 kappa /
12 u nodes), the same point by the plain damped iteration (damping 0.5, no Anderson mixing)
in the same process, the number of sweeps of each, the quadrature error of each node setting
(against 240 kappa / 48 u nodes), and the time of a G x G grid of (alpha, lambda) points
(default G = 8; ``--grid 40`` for the issue's 40 x 40 target) at 60 kappa / 12 u and at
40 kappa / 8 u nodes (with the difference between the two: the quadrature error), extrapolated
to 40 x 40.
Targets (issue #20): a logistic point <= 20 ms, a 40 x 40 grid <= 10 s.

    python benchmarks/bench_logistic.py [--grid 40]
"""
import argparse
import statistics
import time

import numpy as np

from srfsym.step.mapping import srf_mapping
from srfsym.theory.convex_fixed_point import convex_grid, solve_convex_srf


def timed(f, repeat=5):
    out, res = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        res = f()
        out.append(time.perf_counter() - t)
    return statistics.median(out), res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", type=int, default=8)
    G = ap.parse_args().grid
    m = srf_mapping("tanh", "sign", 2, 2)
    args = ("tanh", "sign", m.r, m.c, m.gamma)
    point = (0.05, 2.0, 1.0)
    ref = solve_convex_srf(*args, *point, loss="logistic", nodes=240, nodes_u=48, tol=1e-12)
    print(f"logistic, tanh/sign, r = {m.r:.4f}, c = {m.c:.4f}, gamma = {m.gamma:.4f}, "
          f"lambda = 0.05, alpha = 2, beta = 1")
    for label, kw in (("default (120 kappa, 16 u per piece)", {}),
                      ("60 kappa, 12 u per piece", dict(nodes=60, nodes_u=12))):
        for method in ("anderson", "damped"):
            t, res = timed(lambda: solve_convex_srf(*args, *point, loss="logistic",
                                                    method=method, **kw))
            err = abs(res.classification_error - ref.classification_error)
            print(f"  {label:38s} {method:8s}: {1e3 * t:8.1f} ms, {res.iterations:3d} sweeps, "
                  f"class. error {res.classification_error:.12f} (quadrature error {err:.1e})")
    alphas, lams = np.linspace(0.5, 4.0, G), np.geomspace(0.01, 1.0, G)
    convex_grid("tanh", "sign", 2, 2, alphas[:2], lams[:1], loss="logistic", nodes=40,
                nodes_u=8)                                   # warm-up (rules, mapping)
    grids = {}
    for nodes, nodes_u in ((60, 12), (40, 8)):
        t0 = time.perf_counter()
        g = convex_grid("tanh", "sign", 2, 2, alphas, lams, loss="logistic", nodes=nodes,
                        nodes_u=nodes_u)
        t = time.perf_counter() - t0
        grids[nodes] = g["classification_error"]
        qerr = ""
        if nodes != 60:
            qerr = (f", quadrature error vs 60/12 "
                    f"{np.nanmax(np.abs(grids[nodes] - grids[60])):.1e}")
        print(f"  {G} x {G} grid ({nodes} kappa / {nodes_u} u nodes, secant warm starts along "
              f"alpha): {t:.2f} s ({1e3 * t / G**2:.1f} ms per point, {len(g['failures'])} "
              f"failed{qerr}); 40 x 40 extrapolated: {t * 1600 / G**2:.1f} s")
    print("targets: <= 20 ms per point, <= 10 s for 40 x 40")


if __name__ == "__main__":
    main()
