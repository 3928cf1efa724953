"""Benchmark: build the cGET coefficients of each registry activation and evaluate them.

Prints, per activation: time to build (symbolic derivation + checks, caches cleared),
numpy evaluation of mu0, mu1, mu_star^2 on 10^5 kappa values, and one mpmath evaluation
at 30 digits.  Targets (issue #2): build < 2 s, numpy 10^5 points < 50 ms.

    python benchmarks/bench_coefficients.py
"""
import statistics
import sys
import time

import numpy as np

from srfsym import activations, cget, gaussian, hermite
from srfsym.symbolic.activations import registry_names


def clear_caches():
    gaussian._cached.cache_clear()
    cget._cget.cache_clear()
    cget._teacher.cache_clear()
    hermite._hermite_constants.cache_clear()
    activations._ACTIVATION_CACHE.clear()


def main(names=None):
    names = names or registry_names()
    kappa = np.linspace(-5, 5, 100_000)
    print(f"{'activation':12s} {'method':8s} {'build [s]':>10s} {'numpy 1e5 [ms]':>15s} "
          f"{'mpmath 30d [ms]':>16s}")
    for name in names:
        clear_caches()
        t = time.perf_counter()
        co = cget.cget_coefficients(name)
        f = co.numpy()
        build = time.perf_counter() - t
        f(kappa[:10], 0.9, 1.1)   # warm-up (lambdify on first call)
        times = []
        for _ in range(5):
            t = time.perf_counter()
            f(kappa, 0.9, 1.1)
            times.append(time.perf_counter() - t)
        g = co.mpmath(30)
        g("0.7", "0.9", "1.1")
        t = time.perf_counter()
        g("0.3", "0.9", "1.1")
        mp = time.perf_counter() - t
        print(f"{name:12s} {co.method:8s} {build:10.3f} {1e3 * statistics.median(times):15.2f} "
              f"{1e3 * mp:16.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or None)
