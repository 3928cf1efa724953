"""The step's bulk with a readout vocabulary (``bulk="step"`` and ``bulk="exact"`` with
``vocabulary=``, docs/theory.md (g.4.1), (g.5.2)): isotropic / step / exact / network table of the
test error, and the cost of one solve.

Case: tanh student, sin teacher, alpha0 = 2, eta = 3, lambda = 0.1, beta = 1, vocabulary {1, 2}
(weights 1/2, 1/2), alpha = 0.5, 1, 2.  For each first layer s the network is
``simulate(..., vocabulary=, seed=s, seeds=R, shared_first_layer=True)`` (R readout/test draws
on the first layer of seed s) and the step theory ``learning_curve(..., bulk="step", d=d,
seed=s, vocabulary=)`` is the K-group fixed point on that same W1 (a paired comparison); the
isotropic theory is the block-Wishart prior of docs/theory.md (k.7), the exact one the d -> infinity
law of the step's bulk split by letter (docs/theory.md (g.5.2)).  ``--no-step`` skips the step theory
(one p x p inverse per evaluation) for a network-vs-exact table over more first layers.

    python benchmarks/bench_step_bulk_vocabulary.py --d 2000 --seeds 3 --readouts 4 --n-test 10000
"""
import argparse
import math
import time

import numpy as np

CASE = dict(student="tanh", teacher="sin", alpha0=2.0, eta=3.0, lam=0.1)
BETA = 1.0
ALPHAS = (0.5, 1.0, 2.0)
VOCABULARY = ([1.0, 2.0], [0.5, 0.5])


def error_table(d, seeds, n_test, readouts, first_seed=0, with_step=True):
    from srfsym.simulation.simulate import simulate
    from srfsym.step.vocabulary import vocabulary
    from srfsym.theory.fixed_point import learning_curve
    voc = vocabulary(*VOCABULARY)
    args = tuple(CASE.values())
    iso = learning_curve(*args, list(ALPHAS), BETA, vocabulary=voc).test_error
    t0 = time.perf_counter()
    exact = learning_curve(*args, list(ALPHAS), BETA, vocabulary=voc, bulk="exact").test_error
    print(f"  exact theory {np.round(exact, 5)} ({time.perf_counter() - t0:.1f} s for the curve, "
          "its contour rule included)", flush=True)
    net, net_sem, step, seconds = [], [], [], []
    for s in range(first_seed, first_seed + seeds):
        t0 = time.perf_counter()
        sim = simulate(*args, list(ALPHAS), d=d, beta=BETA, seeds=readouts, seed=s,
                       n_test=n_test, shared_first_layer=readouts > 1, vocabulary=voc)
        t1 = time.perf_counter()
        if with_step:
            lc = learning_curve(*args, list(ALPHAS), BETA, bulk="step", d=d, seed=s,
                                vocabulary=voc)
            step.append(lc.test_error)
            seconds.append([r.seconds for r in lc.results])
        else:
            step.append(np.full(len(ALPHAS), np.nan))
            seconds.append([np.nan])
        t2 = time.perf_counter()
        net.append(sim.test_error)
        net_sem.append(sim.test_error_sem)
        print(f"  layer {s}: network {np.round(net[-1], 5)} +- {np.round(net_sem[-1], 5)} "
              f"({t1 - t0:.0f} s), step theory {np.round(step[-1], 5)} ({t2 - t1:.0f} s; per "
              f"solve {np.round(seconds[-1], 1)} s), isotropic {np.round(iso, 5)}", flush=True)
    net, net_sem, step = np.array(net), np.array(net_sem), np.array(step)
    sem = net.std(axis=0, ddof=1) / math.sqrt(seeds) if seeds > 1 else np.full(len(ALPHAS), np.nan)
    diff = net - step
    dsem = (np.sqrt(np.sum(net_sem**2, axis=0)) / seeds if readouts > 1 else
            diff.std(axis=0, ddof=1) / math.sqrt(seeds))
    print(f"test error, tanh/sin alpha0 = 2, eta = 3, lambda = 0.1, beta = 1, vocabulary {{1, 2}} "
          f"(1/2, 1/2), d = {d}, {seeds} first layers x {readouts} readouts (n_test = {n_test})")
    print("  alpha   isotropic   step (mean)   exact     network (mean +- sem over layers)   "
          "(network - exact)/sem   network/iso - 1   network/step - 1   paired (network - step) "
          "+- sem")
    for j, a in enumerate(ALPHAS):
        print(f"  {a:<6g}  {iso[j]:.5f}     {step[:, j].mean():.5f}       {exact[j]:.5f}   "
              f"{net[:, j].mean():.5f} +- {sem[j]:.5f}          "
              f"{(net[:, j].mean() - exact[j]) / sem[j]:+.2f}                  "
              f"{net[:, j].mean() / iso[j] - 1:+.2%}           "
              f"{net[:, j].mean() / step[:, j].mean() - 1:+.2%}            "
              f"{diff[:, j].mean():+.5f} +- {dsem[j]:.5f}")
    print(f"  time per step-theory solve: {np.mean(seconds):.1f} s (mean), "
          f"{np.max(seconds):.1f} s (max); excludes the step and Omega (per layer)")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--readouts", type=int, default=4)
    ap.add_argument("--n-test", type=int, default=10000)
    ap.add_argument("--no-step", action="store_true", help="skip the step theory")
    a = ap.parse_args()
    error_table(a.d, a.seeds, a.n_test, a.readouts, a.first_seed, not a.no_step)


if __name__ == "__main__":
    main()
