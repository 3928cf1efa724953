"""A readout vocabulary with a non-odd student on the realised step bulk (docs/theory.md (g.4.1)):
the K-group fixed point on each first layer, cross sums of the spike and teacher directions
included, against the network's readout on that same layer (a paired comparison).

Case: relu student, sin teacher, alpha0 = 2, eta = 1, lambda = 0.05, alpha = 2, beta = 1,
vocabulary {+1, -1} (weights 1/2, 1/2).  For each first layer s the network is
``simulate(..., vocabulary=, seed=s, seeds=R, shared_first_layer=True)`` (R readout/test draws on
the first layer of seed s) and the step theory ``solve(..., bulk="step", d=d, seed=s,
vocabulary=)`` the K-group fixed point on that same W1, with the letters' measured ``(r_j, c_j)``
(no group formula of (k.1) is used, so the non-odd student is allowed there).  The isotropic and
exact bulks of a vocabulary need an odd student (the group formulas of (k.1) and the commuting
covariances of (g.5.2)): not printed.

    python benchmarks/bench_vocabulary_nonodd.py --d 1000 --seeds 8 --readouts 2
"""
import argparse
import math
import time
import warnings

import numpy as np

CASE = ("relu", "sin", 2.0, 1.0, 0.05, 2.0)
VOCABULARY = [1.0, -1.0]


def run(d, seeds, readouts, n_test, first_seed=0):
    from srfsym import solve
    from srfsym.simulation.simulate import simulate
    net, step, paired_sem = [], [], []
    for s in range(first_seed, first_seed + seeds):
        t0 = time.perf_counter()
        sim = simulate(*CASE, d=d, seeds=readouts, seed=s, n_test=n_test,
                       shared_first_layer=readouts > 1, vocabulary=VOCABULARY, workers=1)
        t1 = time.perf_counter()
        res = solve(*CASE, bulk="step", d=d, seed=s, vocabulary=VOCABULARY)
        t2 = time.perf_counter()
        err = np.asarray(sim.test_error_per_seed, dtype=float).ravel()
        net.append(err.mean())
        paired_sem.append(err.std(ddof=1) / math.sqrt(err.size) if err.size > 1 else math.nan)
        step.append(res.test_error)
        print(f"  layer {s}: network {net[-1]:.5f} ({t1 - t0:.0f} s), step theory {step[-1]:.5f}"
              f" ({t2 - t1:.0f} s); c_j {np.round(np.ravel(sim.c_emp_groups), 4)} / "
              f"{np.round(res.groups['bulk_variance'], 4)}", flush=True)
    net, step = np.array(net), np.array(step)
    diff = net - step
    sem_net = net.std(ddof=1) / math.sqrt(seeds)
    sem_diff = diff.std(ddof=1) / math.sqrt(seeds)
    print(f"{'/'.join(map(str, CASE))}, vocabulary {{+1, -1}}, d = {d}, {seeds} first layers x "
          f"{readouts} readouts (n_test = {n_test}): network {net.mean():.5f} +- {sem_net:.5f} "
          f"({sem_net / net.mean():.1%}), step {step.mean():.5f}; network - step (paired) "
          f"{diff.mean():+.5f} +- {sem_diff:.5f} ({diff.mean() / sem_diff:+.2f} s.e.)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--readouts", type=int, default=2)
    ap.add_argument("--n-test", type=int, default=5000)
    a = ap.parse_args()
    warnings.simplefilter("ignore")
    run(a.d, a.seeds, a.readouts, a.n_test, a.first_seed)


if __name__ == "__main__":
    main()
