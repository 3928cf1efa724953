"""Benchmark: the fixed point on a whole grid (issue #12, item 1).

Prints

* the amortised time per point of ``solve_grid`` on a 40 x 40 (alpha, lambda) grid
  (tanh / sin, alpha0 = 20, eta = 3; alpha in [0.2, 4], lambda in [1e-3, 10] log-spaced),
  with the kappa nodes chosen once (warm-up) and then fixed, best and median of 5 runs;
  the same with ``nodes="auto"`` (corner solves included);
* the largest difference from the single-point ``solve`` on a 6 x 6 sub-grid;
* the single-point ``solve`` (structured method) against a plain damped iteration
  (damping 0.5, no acceleration) of the same equations in the same process: median over
  30 (alpha, lambda) points of the time per point, and the ratio of the medians.

Targets: <= 0.1 ms per point amortised on 40 x 40; single solve >= 5x faster than the
plain damped iteration.  Timings depend on the machine's load: the script prints the
load average it ran at.

    python benchmarks/bench_grid.py
"""
import os
import statistics
import time
import warnings

import numpy as np

from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.theory.grid import solve_grid
from srfsym.step.mapping import srf_mapping


def best_and_median(f, repeat=5):
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    return min(ts), statistics.median(ts)


def main():
    warnings.simplefilter("ignore", RuntimeWarning)
    args = ("tanh", "sin", 20, 3)
    alphas, lams = np.linspace(0.2, 4, 40), np.geomspace(1e-3, 10, 40)
    g = solve_grid(*args, alphas, lams)            # warm-up; node choice at the corners
    K = g.nodes
    n = alphas.size * lams.size
    best, med = best_and_median(lambda: solve_grid(*args, alphas, lams, nodes=K))
    print(f"load average at start: {os.getloadavg()[0]:.2f}")
    print(f"solve_grid 40 x 40, {K} kappa nodes: {1e3 * best / n:.3f} ms per point (best of 5), "
          f"{1e3 * med / n:.3f} ms median; {int(g.converged.sum())}/{n} converged, "
          f"methods {sorted(set(g.method.ravel()))}")
    best_auto, _ = best_and_median(lambda: solve_grid(*args, alphas, lams), repeat=3)
    print(f"solve_grid 40 x 40, nodes='auto' (corner solves included): "
          f"{1e3 * best_auto / n:.3f} ms per point")

    worst = 0.0
    for i in range(0, 40, 7):
        for j in range(0, 40, 7):
            ref = solve(*args, lams[j], alphas[i], nodes=K)
            worst = max(worst, abs(ref.test_error - g.test_error[i, j]),
                        *(abs(x - y[i, j]) for x, y in zip(ref.state, g.state)))
    print(f"largest difference from the single-point solve on a 6 x 6 sub-grid: {worst:.1e}")

    m = srf_mapping("tanh", "sin", 3, 20)
    sargs = ("tanh", "sin", m.r, m.c, m.gamma)
    points = [(a, lam) for a in np.linspace(0.2, 4, 10) for lam in (0.01, 0.1, 1.0)]

    def per_point(method, repeat):
        ts = []
        for a, lam in points:
            solve_srf(*sargs, lam, a, nodes=K, method=method)
            ts.append(best_and_median(lambda: solve_srf(*sargs, lam, a, nodes=K, method=method),
                                      repeat)[0])
        return statistics.median(ts)

    fast = per_point("structured", 5)
    plain = per_point("damped", 3)
    print(f"single point, median over {len(points)} (alpha, lambda), {K} nodes: structured "
          f"{1e3 * fast:.3f} ms, plain damped iteration {1e3 * plain:.3f} ms, "
          f"speed-up {plain / fast:.1f}x")
    print(f"grid vs single structured solve per point: {fast / (best / n):.0f}x")


if __name__ == "__main__":
    main()
