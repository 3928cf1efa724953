"""Test error with a readout vocabulary: theory (the K-group fixed point) against simulations.

Prints a table: vocabulary, model, lambda, alpha, theory, simulation mean +- standard error
over seeds, and the gap in standard errors.  Default (about 10 minutes on 2 cores): the sRF
model at d = 2000, 8 seeds, alpha in {0.5, 1, 2}, lambda in {0.01, 0.1}, vocabularies
{1, 2} and {1, 3} with pi = (0.7, 0.3), tanh student, sin target, alpha0 = 20, eta = 3; the
uniform readout as the control; and the real network with {1, 2} at d = 1000, 4 seeds.

    python benchmarks/vocabulary_study.py [--quick]
"""
import argparse
import time

import numpy as np

from srfsym import simulate, solve, srf_mapping, vocabulary

STUDENT, TEACHER, ALPHA0, ETA = "tanh", "sin", 20.0, 3.0


def row(label, model, lam, alphas, voc, res):
    for j, a in enumerate(alphas):
        th = solve(STUDENT, TEACHER, ALPHA0, ETA, lam, a, vocabulary=voc).test_error
        m, e = res.test_error[j], res.test_error_sem[j]
        print(f"{label:22s} {model:8s} {lam:6g} {a:5g}  {th:.5f}  {m:.5f} +- {e:.5f}  "
              f"{(m - th) / e:+5.1f} s.e.  {100 * (m - th) / th:+5.1f} %", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="d = 800, 4 seeds")
    args = ap.parse_args()
    d, seeds, d_net, seeds_net = (800, 4, 600, 2) if args.quick else (2000, 8, 1000, 4)
    alphas = [0.5, 1.0, 2.0]
    vocs = {"uniform {1}": None, "{1,2} pi=.7/.3": vocabulary([1, 2], [0.7, 0.3]),
            "{1,3} pi=.7/.3": vocabulary([1, 3], [0.7, 0.3])}
    m = srf_mapping(STUDENT, TEACHER, ETA, ALPHA0)
    print(f"{STUDENT}/{TEACHER}, alpha0 = {ALPHA0:g}, eta = {ETA:g}: r = {m.r:.6f}, "
          f"c = {m.c:.6f}, gamma = {m.gamma:.6f}")
    print(f"{'vocabulary':22s} {'model':8s} {'lambda':>6s} {'alpha':>5s}  theory   "
          f"simulation            gap")
    t0 = time.time()
    for lam in (0.01, 0.1):
        for label, voc in vocs.items():
            res = simulate(STUDENT, TEACHER, ALPHA0, ETA, lam, alphas, d=d, seeds=seeds,
                           model="srf", vocabulary=voc, n_test=4000, seed=17)
            row(label, f"srf d={d}", lam, alphas, voc, res)
    voc = vocabulary([1, 2])
    res = simulate(STUDENT, TEACHER, ALPHA0, ETA, 0.1, alphas, d=d_net, seeds=seeds_net,
                   vocabulary=voc, n_test=4000, seed=5)
    row("{1,2} pi=.5/.5", f"net d={d_net}", 0.1, alphas, voc, res)
    print("group spikes measured on the network:", np.round(res.r_emp_groups.mean(axis=0), 4),
          "formula:", np.round(srf_mapping(STUDENT, TEACHER, ETA, ALPHA0,
                                           vocabulary=voc).group_spike_strengths, 4))
    print(f"total {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
