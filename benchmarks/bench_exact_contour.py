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

The last case, alpha0 = 0.01, is the log-mapped rule's (docs/theory.md (g.5.2)): the step
batch's spectrum has an atom of mass 0.99 at 0 and reaches ~127, the rule's class pole
``-1/b = -0.0114`` sits next to the atom, and the ellipse in ``z`` (the rule before) squeezed to
Joukowski radius 1.0096 and needed 32768 nodes.  For it, old and new in one run: the rule on
the ellipse in ``z`` (forced) and the log-mapped one (default), their nodes and build times,
and the test error of a solve on each at the same kappa node count; and one call of the
batch's forms with the residual law's averages as a complex-by-real ``@`` (a threaded BLAS
``zgemv``, the code before) against ``einsum`` (now): on a busy machine (load ~8 on 2 cores)
the ``@`` took ~10 ms per call at any size, 1000 times the arithmetic; idle, ``@`` is as fast
at 64 points and ~4 times faster at 4096 (its threads then help).  Before both changes the command
``srfsym error --student tanh --teacher sin --alpha0 0.01 --eta 3 --lam 0.1 --alpha 1 --bulk
exact`` ran for more than 7 minutes on the loaded machine.

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
         ("relu", "sin", 2.0, 1.0, 0.05, 2.0),
         ("tanh", "sin", 0.01, 3.0, 0.1, 1.0)]


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


def old_and_new(case):
    """The alpha0 << 1 case on the ellipse in z (the rule before) and on the log-mapped rule."""
    from srfsym import solve
    from srfsym.theory.spectral import exact_bulk_batch as batch
    from srfsym.theory.spectral import exact_bulk_groups as groups
    from srfsym.theory.spectral.exact_bulk import ExactBulk
    st, te, a0, eta, lam, alpha = case
    law = ExactBulk(st, te, a0, eta)
    for size in (64, 4096):
        tau = np.full(size, 0.3 + 0.2j)
        calls = {}
        for name, mean in (("@ (BLAS)", lambda x, w: x @ w), ("einsum", batch._mean)):
            saved, batch._mean = batch._mean, mean
            try:
                calls[name] = min(_timed(lambda: batch.batch_forms(
                    tau, law.e, law.w, law.xi, law.alpha0))[0] for _ in range(5))
            finally:
                batch._mean = saved
        print(f"  one batch_forms call at {size} points (load {os.getloadavg()[0]:.1f}): "
              + ", ".join(f"{k} {v * 1e3:.2f} ms" for k, v in calls.items()), flush=True)
    nodes = solve(*case, bulk="exact").nodes
    out = {}
    for name, below in (("ellipse in z (before)", 0.0), ("log-mapped (now)", batch.LOG_RULE_BELOW)):
        saved, batch.LOG_RULE_BELOW = batch.LOG_RULE_BELOW, below
        groups._CACHE.clear()
        try:
            t_rule, spec = _timed(lambda: groups.exact_group_bulk(st, te, a0, eta, [1]))
            t_solve, res = _timed(lambda: solve(*case, bulk="exact", nodes=nodes))
        finally:
            batch.LOG_RULE_BELOW = saved
            groups._CACHE.clear()
        out[name] = res.test_error
        print(f"  {name}: {spec.rule.nodes} nodes (radius {spec.rule.radius:.4f}, rule error "
              f"{spec.rule.error:.1e}) built in {t_rule:.2f} s; solve {t_solve:.2f} s, test "
              f"error {res.test_error:.12f}", flush=True)
    a, b = out.values()
    print(f"  relative difference {abs(a / b - 1):.1e}")


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
    print(f"{'/'.join(map(str, CASES[-1]))}: old and new rule")
    old_and_new(CASES[-1])


if __name__ == "__main__":
    main()
