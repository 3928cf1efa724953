"""Theory against simulation for convex readouts (docs/theory.md (m)).

Default: the sRF model, tanh student, sign teacher, one step eta = 2, alpha0 = 2 (through the
mapping), lambda = 0.05, alpha = 2, beta = 1; logistic (with and without probit noise 0.25)
and hinge.  Prints the theory, the simulation mean +- standard error over seeds and the
z-score per quantity.

``--network``: the real two-layer network (one giant step at alpha0 = 4, then the readout
fitted by ``simulate(..., loss=, label_rule=)``), tanh (eta = 2) and relu (eta = 1) students,
sign and Bernoulli (tanh-shaped) labels, logistic (alpha = 1, 2, 4) and hinge (alpha = 1, 2),
lambda = 0.05; a markdown table of theory / network +- s.e. / z for the test classification
error, training loss, test and training MSE.

    python benchmarks/convex_simulation_study.py [--d 1000] [--seeds 4] [--n-test 10000]
    python benchmarks/convex_simulation_study.py --network [--d 2000] [--seeds 4]
    python benchmarks/convex_simulation_study.py --noise-bias [--d 2000] [--seeds 4]
"""
import argparse
import math
import time

import srfsym
from srfsym.simulation.simulate import simulate_convex
from srfsym.step.mapping import srf_mapping

CASES = [("logistic", 0.0), ("logistic", 0.25), ("hinge", 0.0)]


#: (student, eta, teacher, label rule, loss, alphas) of the network study
NETWORK_CASES = [(st, eta, te, rule, loss, alphas, {})
                 for st, eta in (("tanh", 2.0), ("relu", 1.0))
                 for te, rule in (("sign", "teacher"), ("tanh", "bernoulli"))
                 for loss, alphas in (("logistic", [1.0, 2.0, 4.0]), ("hinge", [1.0, 2.0]))]
#: ``--noise-bias``: label noise 0.25 and a trained output bias (logistic)
NOISE_BIAS_CASES = [(st, eta, te, rule, "logistic", [2.0], {"noise": 0.25, "bias": True})
                    for st, eta in (("tanh", 2.0), ("relu", 1.0))
                    for te, rule in (("sign", "teacher"), ("tanh", "bernoulli"))]
QUANTITIES = (("classification_error", "classification_error", "test class. error"),
              ("train_loss", "train_loss", "training loss"),
              ("test_error", "test_error", "test MSE"),
              ("train_error", "train_error", "training MSE"))


def network_study(d, seeds, n_test, alpha0=4.0, lam=0.05, cases=NETWORK_CASES):
    """The network against the theory, one markdown row per case, alpha and quantity."""
    import warnings

    from srfsym.simulation.simulate import simulate
    print(f"network, alpha0 = {alpha0:g}, lambda = {lam:g}, beta = 1, d = {d}, {seeds} seeds, "
          f"{n_test} test points per seed; mean +- standard error over seeds (classification "
          "error: floored at the test sets' binomial error)\n")
    print("| loss | student | labels | alpha | quantity | theory | network | z |")
    print("|---|---|---|---|---|---|---|---|")
    for st, eta, te, rule, loss, alphas, extra in cases:
        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ths = [srfsym.solve(st, te, alpha0, eta, lam, a, loss=loss, label_rule=rule, **extra)
                   for a in alphas]
        sim = simulate(st, te, alpha0, eta, lam, alphas, d=d, seeds=seeds, n_test=n_test,
                       workers=1, loss=loss, label_rule=rule, **extra)
        labels = ("sign" if rule == "teacher" else f"Bernoulli {te}") + "".join(
            f", {k} {v}" for k, v in extra.items())
        if extra.get("bias"):
            quantities = QUANTITIES + (("output_bias", "bias", "bias"),)
        else:
            quantities = QUANTITIES
        for j, (a, th) in enumerate(zip(alphas, ths)):
            for key, tkey, name in quantities:
                mean, sem = getattr(sim, key)[j], getattr(sim, key + "_sem")[j]
                val = getattr(th, tkey)
                if key == "classification_error":   # 4 seeds: floor at the binomial error
                    sem = max(sem, math.sqrt(val * (1 - val) / (seeds * n_test)))
                print(f"| {loss} | {st} (eta {eta:g}) | {labels} | {a:g} | {name} | {val:.4f} "
                      f"| {mean:.4f} ± {sem:.4f} | {(mean - val) / sem:+.1f} |", flush=True)
        print(f"<!-- {st} {te} {rule} {loss}: {time.perf_counter() - t:.0f} s -->", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--d", type=int, default=None)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--n-test", type=int, default=10000)
    ap.add_argument("--network", action="store_true", help="the real network (see above)")
    ap.add_argument("--noise-bias", action="store_true",
                    help="the network with label noise 0.25 and a trained bias (logistic)")
    a = ap.parse_args()
    if a.network or a.noise_bias:
        network_study(a.d or 2000, a.seeds, a.n_test,
                      cases=NOISE_BIAS_CASES if a.noise_bias else NETWORK_CASES)
        return
    a.d = a.d or 1000
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
