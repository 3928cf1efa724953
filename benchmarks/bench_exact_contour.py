"""Benchmark: the uniform exact-bulk solve on the step batch's contour rule against the
Stieltjes fixed point of the uniform law, in one run (issue #27, docs/theory.md (g.5.2)).

An odd student's ``solve(..., bulk="exact")`` runs on the contour rule of the one-letter
vocabulary (built once per step: ``alpha0, eta``); before the K-letter law had the cross sums of
the spike and teacher directions it ran the uniform law's fixed point, a Stieltjes solve per
sweep ("fixed point" below: ``solve_srf`` with the ``ExactBulk`` object, which never takes the
contour).  Per case, each at the node count the contour route certified:

* the one-off cost of the step's law (mapping, residual law, contour rule);
* the contour route: the first ``solve`` at the point (with its node ladder) and then the
  median of warm solves at ``--points`` other values of lambda (target <= 0.5 s);
* the fixed point at the same points, and the largest relative difference of the test errors.

A non-odd student (relu) is never put on the contour (its rows' covariance ``(I + a S1)^2 + b
S2`` is not a function of the batch matrix ``S2`` alone): its line shows the fixed point only.

    python benchmarks/bench_exact_contour.py [--points 3]
"""
import argparse
import os
import statistics
import time
import warnings

import numpy as np

#: (student, teacher, alpha0, eta, lam, alpha)
CASES = [("tanh", "sin", 20.0, 3.0, 0.1, 1.0),
         ("tanh", "sin", 2.0, 1.0, 0.1, 1.0),
         ("tanh", "sin", 2.0, 3.0, 0.1, 1.0),
         ("relu", "sin", 2.0, 1.0, 0.05, 2.0)]


def _timed(f):
    t = time.perf_counter()
    out = f()
    return time.perf_counter() - t, out


def run_case(case, points):
    from srfsym import solve
    from srfsym.theory.fixed_point import solve_srf
    from srfsym.theory.spectral.exact_bulk import exact_bulk_spectrum
    from srfsym.theory.spectral.exact_bulk_groups import exact_group_bulk
    st, te, a0, eta, lam, alpha = case
    odd = st != "relu"
    t_law, law = _timed(lambda: exact_bulk_spectrum(st, te, a0, eta))
    if odd:
        t_rule, _ = _timed(lambda: exact_group_bulk(st, te, a0, eta, [1]).rule)  # lazy: build
        t_law += t_rule
    t_first, first = _timed(lambda: solve(*case, bulk="exact"))
    on_contour = any("contour rule" in n for n in first.notes)
    lams = lam * np.geomspace(0.5, 2.0, points)
    warm, fixed, diff = [], [], 0.0
    for lm in lams:
        t_c, res = _timed(lambda: solve(st, te, a0, eta, lm, alpha, bulk="exact",
                                        nodes=first.nodes))
        t_f, ref = _timed(lambda: solve_srf(st, te, res.r, res.c, res.gamma, lm, alpha, 1.0,
                                            law, nodes=first.nodes))
        warm.append(t_c)
        fixed.append(t_f)
        diff = max(diff, abs(res.test_error / ref.test_error - 1))
    return dict(case=case, law=t_law, first=t_first, warm=statistics.median(warm),
                fixed=statistics.median(fixed), diff=diff, contour=on_contour,
                nodes=first.nodes, error=first.test_error)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--points", type=int, default=3)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    print(f"load average {os.getloadavg()[0]:.2f} (2-core machine)")
    for case in CASES:
        o = run_case(case, a.points)
        route = ("contour" if o["contour"] else "fixed point (non-odd student)")
        print(f"{'/'.join(map(str, case))}: route {route}, nodes {o['nodes']}, error "
              f"{o['error']:.6f}; law built {o['law']:.2f} s, first solve {o['first']:.2f} s, "
              f"warm solve {o['warm']:.3f} s; fixed point {o['fixed']:.3f} s "
              f"({o['fixed'] / o['warm']:.1f}x); max rel. diff {o['diff']:.1e}", flush=True)


if __name__ == "__main__":
    main()
