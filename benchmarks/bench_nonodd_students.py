"""Non-odd students (relu, softplus, gelu): the four bulks against the network, before and after
the cross sums of the spike and teacher directions (docs/theory.md (g.4), (g.5)).

For each case: the isotropic bulk, the exact law with and without the cross sums, the step bulk
on the first layer of every seed with and without them, and the network on those same layers
(``simulate(..., seeds=N)``: seed k of the network is child k of ``SeedSequence(seed)``, which is
what the step bulk draws).  Prints one line per case::

    python benchmarks/bench_nonodd_students.py --d 1000 --seeds 16
    python benchmarks/bench_nonodd_students.py --d 300 --seeds 2 --cases 0   # a quick look
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import time
import warnings

import numpy as np

#: (student, teacher, alpha0, eta, lam, alpha): the cases of issue 32 and two odd controls.
CASES = [
    ("relu", "sin", 2.0, 1.0, 0.05, 2.0),
    ("relu", "sin", 2.0, 1.0, 0.1, 1.0),
    ("relu", "tanh", 4.0, 1.5, 0.1, 2.0),
    ("softplus", "sin", 2.0, 1.0, 0.05, 2.0),
    ("gelu", "sin", 2.0, 1.0, 0.05, 2.0),
    ("relu", "relu", 2.0, 2.0, 0.1, 1.0),
    ("relu", "sin", 1.0, 3.0, 0.1, 1.0),
    ("softplus", "tanh", 2.0, 0.5, 0.05, 2.0),
    ("tanh", "tanh", 4.0, 1.5, 0.1, 2.0),
    ("tanh", "sin", 2.0, 3.0, 0.1, 1.0),
    ("relu", "relu", 2.0, 0.5, 0.05, 2.0),
    ("relu", "relu", 2.0, 3.0, 0.1, 2.0),
    ("gelu", "tanh", 4.0, 3.0, 0.1, 2.0),
    ("softplus", "relu", 2.0, 0.5, 0.05, 2.0),
    ("softplus", "sin", 2.0, 3.0, 0.1, 1.0),
]


def _mean_se(x):
    x = np.asarray(x, dtype=float)
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(x.size)) if x.size > 1 else math.nan


def run_case(case, d, seeds, n_test, seed=0):
    from srfsym import solve
    from srfsym.simulation.simulate import simulate
    from srfsym.theory.fixed_point import solve_srf
    from srfsym.theory.spectral.exact_bulk import exact_bulk_spectrum
    from srfsym.theory.spectral.step_bulk import StepBulkSpectrum, step_eigen_data
    st, te, a0, eta, lam, alpha = case
    t0 = time.perf_counter()
    iso = solve(st, te, a0, eta, lam, alpha).test_error
    exact = solve(st, te, a0, eta, lam, alpha, bulk="exact").test_error
    spec = exact_bulk_spectrum(st, te, a0, eta)
    saved = spec.cross_moments, spec.cross_moments_array
    spec.cross_moments = spec.cross_moments_array = None        # the prior before: no cross sums
    try:
        exact_before = solve(st, te, a0, eta, lam, alpha, bulk="exact").test_error
    finally:
        spec.cross_moments, spec.cross_moments_array = saved
    net = simulate(st, te, a0, eta, lam, alpha, d=d, seeds=seeds, n_test=n_test, seed=seed,
                   workers=1)
    net_err = np.asarray(net.test_error_per_seed, dtype=float).ravel()
    step, step_before = [], []
    for k, ss in enumerate(np.random.SeedSequence(seed).spawn(seeds)):
        data = step_eigen_data(st, te, a0, eta, d, seed=ss, workers=1)
        args = (st, te, data.r, data.c, data.gamma, lam, alpha, data.beta)
        step.append(solve_srf(*args, StepBulkSpectrum(data)).test_error)
        step_before.append(solve_srf(*args, StepBulkSpectrum(
            dataclasses.replace(data, cross_weights=None))).test_error)
    out = {"case": case, "d": d, "seeds": seeds, "isotropic": iso, "exact": exact,
           "exact_before": exact_before, "network": _mean_se(net_err),
           "step": _mean_se(step), "step_before": _mean_se(step_before),
           "network_minus_step": _mean_se(net_err - np.array(step)),
           "network_minus_step_before": _mean_se(net_err - np.array(step_before)),
           "seconds": time.perf_counter() - t0}
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=16)
    ap.add_argument("--n-test", type=int, default=5000)
    ap.add_argument("--cases", type=int, nargs="*", default=list(range(len(CASES))))
    ap.add_argument("--json", default=None, help="append one JSON line per case to this file")
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    for i in a.cases:
        out = run_case(CASES[i], a.d, a.seeds, a.n_test)
        n, s = out["network"], out["step"]
        print(f"{'/'.join(map(str, CASES[i]))}: isotropic {out['isotropic']:.4f}, exact "
              f"{out['exact_before']:.4f} -> {out['exact']:.4f}, step {out['step_before'][0]:.4f}"
              f" -> {s[0]:.4f}, network {n[0]:.4f} +- {n[1]:.4f}; network - step (paired) "
              f"{out['network_minus_step_before'][0]:+.4f} -> {out['network_minus_step'][0]:+.4f}"
              f" +- {out['network_minus_step'][1]:.4f} ({out['seconds']:.0f} s)", flush=True)
        if a.json:
            with open(a.json, "a") as fh:
                fh.write(json.dumps(out) + "\n")


if __name__ == "__main__":
    main()
