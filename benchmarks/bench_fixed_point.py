"""Benchmark: the fixed point of Result 3.3 on the default example (tanh / sin, alpha0 = 20,
eta = 3, lambda = 0.1).

Prints the median time per (alpha, lambda) point after warm-up, the time of a 50-point
learning curve, the same for a plain damped iteration (damping 0.5, no acceleration) of the
same equations in the same process, and a 30-digit bounds evaluation for tanh.
Targets (issue #3): < 1 ms per point, < 50 ms per curve, >= 5x faster than the plain
damped iteration, 30-digit bounds for tanh < 30 s.

    python benchmarks/bench_fixed_point.py
"""
import statistics
import time

import numpy as np

from srfsym.theory.bounds import bounds
from srfsym.theory.fixed_point import learning_curve, solve_srf
from srfsym.step.mapping import srf_mapping


def timed(f, repeat=5):
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        out.append(time.perf_counter() - t)
    return statistics.median(out)


def main():
    m = srf_mapping("tanh", "sin", 3, 20)
    args = ("tanh", "sin", m.r, m.c, m.gamma)
    K = solve_srf(*args, 0.1, 1.0).nodes          # warm-up, and the converged node count
    grid = [(a, lam) for a in np.linspace(0.2, 4, 10) for lam in (0.01, 0.1, 1.0)]

    def per_point(method):
        ts = []
        for a, lam in grid:
            t = time.perf_counter()
            solve_srf(*args, lam, a, nodes=K, method=method)
            ts.append(time.perf_counter() - t)
        return statistics.median(ts)

    alphas = np.linspace(0.1, 5, 50)
    fast_pt = per_point("structured")
    plain_pt = per_point("damped")
    fast_curve = timed(lambda: learning_curve("tanh", "sin", 20, 3, 0.1, alphas, nodes=K))
    plain_curve = timed(lambda: learning_curve("tanh", "sin", 20, 3, 0.1, alphas, nodes=K,
                                               method="damped"), repeat=2)
    print(f"kappa nodes: {K}")
    print(f"per point (median over {len(grid)} (alpha, lambda)): structured {1e3 * fast_pt:.3f} ms, "
          f"plain damped iteration {1e3 * plain_pt:.3f} ms, speed-up {plain_pt / fast_pt:.1f}x")
    print(f"50-point learning curve: structured {1e3 * fast_curve:.1f} ms, plain damped "
          f"{1e3 * plain_curve:.1f} ms, speed-up {plain_curve / fast_curve:.1f}x")
    t = time.perf_counter()
    b = bounds("tanh", "sin", m.r, m.c, 1.0, dps=30)
    print(f"30-digit bounds for tanh/sin: {time.perf_counter() - t:.2f} s "
          f"(upper = {b.to_dict()['decimal']['upper']})")


if __name__ == "__main__":
    main()
