"""Theory against simulation for convex readouts on the sRF model (docs/theory.md (m)):
tanh student, sign teacher, one step eta = 2, alpha0 = 2 (through the mapping), lambda = 0.05,
alpha = 2, beta = 1; logistic (with and without probit noise 0.25) and hinge.  Prints the
theory, the simulation mean +- standard error over seeds and the z-score per quantity.

    python benchmarks/convex_simulation_study.py [--d 1000] [--seeds 4] [--n-test 10000]
"""
import argparse
import time

import srfsym
from srfsym.simulation.convex_readout import simulate_convex
from srfsym.step.mapping import srf_mapping

CASES = [("logistic", 0.0), ("logistic", 0.25), ("hinge", 0.0)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--n-test", type=int, default=10000)
    a = ap.parse_args()
    m = srf_mapping("tanh", "sign", 2, 2)
    print(f"tanh/sign, r = {m.r:.4f}, c = {m.c:.4f}, gamma = {m.gamma:.4f}, lambda = 0.05, "
          f"alpha = 2, beta = 1, d = {a.d}, {a.seeds} seeds, {a.n_test} test points")
    for loss, noise in CASES:
        t = time.perf_counter()
        th = srfsym.solve("tanh", "sign", 2, 2, 0.05, 2.0, loss=loss, noise=noise)
        s = simulate_convex("tanh", "sign", m.r, m.c, m.gamma, 0.05, 2.0, a.d, loss=loss,
                            noise=noise, seeds=a.seeds, n_test=a.n_test)
        print(f"{loss}, noise {noise} ({time.perf_counter() - t:.0f} s)")
        for key, val in (("classification_error", th.classification_error),
                         ("train_loss", th.train_loss), ("q2", th.state.q2), ("m", th.state.m)):
            mean, sem = s[key], s[key + "_sem"]
            print(f"  {key:22s} theory {val:.4f}   simulation {mean:.4f} +- {sem:.4f}   "
                  f"z = {(mean - val) / sem:+.1f}")


if __name__ == "__main__":
    main()
