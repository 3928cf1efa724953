"""Finite-size study: simulated test error (network and sRF model) against the deterministic
theory at d = 500, 1000, 2000 (issue #4).  Prints a table of mean +- standard error, the
relative gap to the theory, and the measured sRF parameters against the mapping.

    python benchmarks/finite_size_study.py            # d = 500, 1000, 2000
    python benchmarks/finite_size_study.py --quick    # d = 250, 500
"""
import argparse
import time
import warnings

from srfsym.theory.fixed_point import solve
from srfsym.step.mapping import srf_mapping
from srfsym.simulation.simulate import simulate

CASES = [("tanh", "tanh", 0.5, 1.0, 0.01, 1.0), ("tanh", "sin", 20.0, 3.0, 0.1, 1.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    dims = (250, 500) if args.quick else (500, 1000, 2000)
    warnings.simplefilter("ignore")
    for st, te, a0, eta, lam, alpha in CASES:
        th = solve(st, te, a0, eta, lam, alpha)
        m = srf_mapping(st, te, eta, a0)
        print(f"\n{st}/{te}, alpha0 = {a0}, eta = {eta}, lambda = {lam}, alpha = {alpha}: "
              f"theory {th.test_error:.5f}  (r = {m.r:.5f}, c = {m.c:.6f}, gamma = {m.gamma:.5f})")
        print(f"{'model':8s} {'d':>5s} {'test error':>20s} {'gap':>8s} {'r_emp':>8s} "
              f"{'c_emp':>9s} {'gamma_emp':>9s} {'time':>7s}")
        for model in ("srf", "network"):
            for d in dims:
                t = time.perf_counter()
                sim = simulate(st, te, a0, eta, lam, alpha, d=d, seeds=args.seeds, model=model,
                               n_test=4000, seed=2024)
                mean, sem = float(sim.test_error[0]), float(sim.test_error_sem[0])
                gap = (mean - th.test_error) / th.test_error
                emp = ""
                if model == "network":
                    emp = f"{sim.r_emp_mean:8.5f} {sim.c_emp_mean:9.6f} {sim.gamma_emp_mean:9.5f}"
                print(f"{model:8s} {d:5d} {mean:12.5f} +- {sem:.5f} {100 * gap:7.2f}% {emp:>28s} "
                      f"{time.perf_counter() - t:6.1f}s", flush=True)


if __name__ == "__main__":
    main()
