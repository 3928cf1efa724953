"""Convergence study of the exact law of the step's bulk (srfsym.theory.spectral.exact_bulk,
docs/theory.md (g.5)) against the realised network.

For each case (student, sin teacher, alpha0, eta, beta) and each d: one step as the network
takes it (``giant_step`` on ``n0 = alpha0 d`` Gaussian samples, rows of ``W0`` on the sphere),
the eigenvalues ``D`` of ``W1 Pi W1^T`` (``Pi`` removes the mean update), and

* ``m1``, ``m2``: relative errors against the law *given the realised residuals* (``cond``,
  whose deviations are O(1/d)) and against the deterministic law (``det``, which adds the
  O(n0^{-1/2}) sampling of the residuals' moments);
* ``s(z)``: max relative error over four ``z`` (conditional law);
* ``KS``: Kolmogorov--Smirnov distance of the empirical CDF of ``D`` to the deterministic CDF.

    python benchmarks/bench_exact_bulk.py                       # d = 250 ... 2000, 2 cases
    python benchmarks/bench_exact_bulk.py --full                # all cases, d up to 4000
    python benchmarks/bench_exact_bulk.py --d 4000 --cases tanh:0.5:5:2
    python benchmarks/bench_exact_bulk.py --grid 8             # solve_grid(bulk="exact"), 8 x 8
"""
import argparse
import time

import numpy as np

from srfsym.step.realised import one_stream_step
from srfsym.theory.spectral.exact_bulk import ExactBulk

ZS = np.array([-0.5, 0.5 + 0.5j, 1.5 + 0.4j, 3.0 + 1.0j])
DEFAULT = ["tanh:0.5:5:2", "tanh:2:3:1"]
FULL = ["tanh:0.5:5:2", "tanh:2:3:1", "tanh:0.25:2:1", "tanh:8:5:0.5", "relu:1:3:1",
        "relu:0.5:2:2", "relu:4:5:0.5", "erf:2:5:1", "erf:0.25:3:0.5", "erf:8:3:2"]


def network_bulk(student, alpha0, eta, beta, d, seed):
    _, _, Wp, e = one_stream_step(student, "sin", alpha0, eta, beta, d, seed)
    p = Wp.shape[0]
    if p <= d:
        D = np.linalg.eigvalsh(Wp @ Wp.T)
    else:                                   # same non-zero spectrum, p - d extra zeros
        D = np.concatenate([np.zeros(p - d), np.linalg.eigvalsh(Wp.T @ Wp)])
    return np.sort(D), e


def ks_distance(D, bulk, n_grid=1500):
    """sup |F_emp - F_th| over the right and left limits at every eigenvalue (the atom at 0
    of ``beta > 1`` included: eigenvalues below 1e-9 max D count as 0)."""
    D = np.where(D < 1e-9 * D.max(), 0.0, D)
    # quadratic spacing: fine near 0, where beta = 1 has a 1/sqrt(x) hard edge
    grid = 1.05 * D.max() * np.linspace(0.0, 1.0, n_grid + 1)[1:]**2
    F = bulk.cdf(grid, eps=1e-5 * D.max(), n=2)
    x = np.unique(D)
    right = np.interp(x, np.concatenate([[0.0], grid]), np.concatenate([[bulk.atom()], F]))
    left = np.where(x > 0, right, 0.0)          # the theory CDF is continuous off 0
    n = D.size
    emp_right = np.searchsorted(D, x, side="right") / n
    emp_left = np.searchsorted(D, x, side="left") / n
    return float(max(np.max(np.abs(emp_right - right)), np.max(np.abs(emp_left - left))))


def run_case(spec, ds, seeds, ks_from):
    st, a0, eta, beta = spec.split(":")
    a0, eta, beta = float(a0), float(eta), float(beta)
    det = ExactBulk(st, "sin", a0, eta, beta, n_nodes=200)
    dm1, dm2 = det.bulk_moments()
    print(f"\n{st}/sin alpha0={a0:g} eta={eta:g} beta={beta:g}: exact m1 = {dm1:.5f}, "
          f"normalised variance {det.normalised_variance():.4f} (c MP_beta: {beta:g})")
    print("     d  seed | m1 cond   m2 cond  | m1 det    m2 det   | s(z) cond |   KS   | nv net | t [s]")
    for d in ds:
        for seed in range(seeds):
            t0 = time.perf_counter()
            D, e = network_bulk(st, a0, eta, beta, d, seed)
            cond = ExactBulk(st, "sin", a0, eta, beta, residuals=e)
            m1, m2 = cond.bulk_moments()
            e1, e2 = D.mean() / m1 - 1, np.mean(D**2) / m2 - 1
            f1, f2 = D.mean() / dm1 - 1, np.mean(D**2) / dm2 - 1
            s_emp = np.array([np.mean(1.0 / (D - z)) for z in ZS])
            es = np.max(np.abs(s_emp / cond.stieltjes(ZS) - 1))
            ks = ks_distance(D, det) if d >= ks_from else float("nan")
            nv = np.mean(D**2) / D.mean()**2 - 1
            print(f"{d:6d} {seed:4d}  | {e1:+.2e} {e2:+.2e} | {f1:+.2e} {f2:+.2e} | {es:.2e}  | "
                  f"{ks:.4f} | {nv:.3f} | {time.perf_counter() - t0:.0f}", flush=True)


def grid_timing(n):
    """Time per point of ``solve_grid(..., bulk="exact")`` on an ``n x n`` grid against single
    ``solve(..., bulk="exact")`` calls (tanh/sin, alpha0 = 2, eta = 3), and their largest
    relative difference on the corners."""
    from srfsym.theory.fixed_point import solve
    from srfsym.theory.grid import solve_grid
    alphas, lams = np.geomspace(0.25, 4.0, n), np.geomspace(1e-3, 1.0, n)
    solve("tanh", "sin", 2.0, 3.0, 0.1, 1.0, bulk="exact")          # warm the caches
    t0 = time.perf_counter()
    g = solve_grid("tanh", "sin", 2.0, 3.0, alphas, lams, bulk="exact")
    t_grid = time.perf_counter() - t0
    t0 = time.perf_counter()
    worst = 0.0
    for i in (0, n - 1):
        for j in (0, n - 1):
            one = solve("tanh", "sin", 2.0, 3.0, lams[j], alphas[i], bulk="exact", nodes=g.nodes)
            worst = max(worst, abs(g.test_error[i, j] / one.test_error - 1))
    t_one = (time.perf_counter() - t0) / 4
    print(f"solve_grid(bulk='exact'), {n} x {n} points: {t_grid:.1f} s, {t_grid / n**2:.2f} s per "
          f"point ({len(g.failures)} failed; {g.nodes} kappa nodes); single solve: {t_one:.1f} s "
          f"per point; largest relative difference at the corners {worst:.1e}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grid", type=int, help="time solve_grid(bulk='exact') on an n x n grid")
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--d", type=int, nargs="*")
    ap.add_argument("--cases", nargs="*")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--ks-from", type=int, default=1000, help="smallest d with a KS distance")
    args = ap.parse_args()
    if args.grid:
        grid_timing(args.grid)
        return
    ds = args.d or ([250, 500, 1000, 2000, 4000] if args.full else [250, 500, 1000, 2000])
    cases = args.cases or (FULL if args.full else DEFAULT)
    for spec in cases:
        run_case(spec, ds, args.seeds, args.ks_from)


if __name__ == "__main__":
    main()
