"""The step bulk (``bulk="step"``, srfsym.theory.spectral.step_bulk, docs/theory.md (g.4)): cost, and the
isotropic / step / network table of the test error and of the feature spectrum.

Cost: one step plus one ``p x p`` eigen-decomposition, wall time and peak resident memory of
``step_eigen_data`` (each size in a fresh process so that the peak is its own).

Test error: tanh student, sin teacher, alpha0 = 2, eta = 3, lambda = 0.1, beta = 1,
alpha = 0.5, 1, 2.  For each seed s the network is ``simulate(..., seed=s, seeds=1)`` and the
step theory ``solve(..., bulk="step", d=d, seed=s)`` is the fixed point on that network's own
W1 (a paired comparison: what is left is readout and test sampling); the isotropic theory is
the default ``solve``.

Spectrum: tanh/sin, alpha0 = 0.5, eta = 5, beta = 2, p = n: eigenvalues of Phi^T Phi / n of the
network (its W1 of seed s, fresh inputs) against the density of docs/theory.md (j.3) on the
isotropic bulk and on the eigenvalues of the same W1's bulk; Kolmogorov-Smirnov distance of the
bulk (the giant outlier left out; CDFs normalised from the right, docs/theory.md (j.8)), the
right edge and the normalised variance m2/m1^2 - 1 of the feature bulk and of Omega.

    python benchmarks/bench_step_bulk.py cost 2000 4000
    python benchmarks/bench_step_bulk.py error --d 2000 --seeds 3 --readouts 4 --n-test 10000
    python benchmarks/bench_step_bulk.py spectrum --d 1000 --seeds 3
"""
import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np

CASE_ERROR = dict(student="tanh", teacher="sin", alpha0=2.0, eta=3.0, lam=0.1, beta=1.0)
ALPHAS = (0.5, 1.0, 2.0)
CASE_SPECTRUM = dict(student="tanh", teacher="sin", alpha0=0.5, eta=5.0, beta=2.0)


def cost_one(d):
    import resource
    from srfsym.theory.spectral.step_bulk import step_eigen_data
    t0 = time.perf_counter()
    data = step_eigen_data("tanh", "sin", 2.0, 3.0, d)
    out = {"d": d, "p": data.p, "seconds": time.perf_counter() - t0,
           "step_seconds": data.settings["step_seconds"],
           "eigh_seconds": data.settings["eigh_seconds"],
           "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}
    print(json.dumps(out))


def cost(ds):
    print("step bulk cost (tanh/sin, alpha0 = 2, eta = 3, beta = 1; one step + one eigh; "
          "fresh process each)")
    for d in ds:
        res = subprocess.run([sys.executable, __file__, "_cost_one", str(d)], check=True,
                             capture_output=True, text=True)
        o = json.loads(res.stdout.strip().splitlines()[-1])
        print(f"  d = {o['d']:5d} (p = {o['p']}): {o['seconds']:.1f} s (step {o['step_seconds']:.1f} s, "
              f"eigen-decomposition {o['eigh_seconds']:.1f} s), peak resident memory "
              f"{o['peak_rss_gb']:.2f} GiB")


def error_table(d, seeds, n_test, readouts):
    from srfsym.simulation.simulate import simulate
    from srfsym.theory.fixed_point import learning_curve
    c = CASE_ERROR
    args = (c["student"], c["teacher"], c["alpha0"], c["eta"], c["lam"])
    iso = learning_curve(*args, list(ALPHAS), c["beta"]).test_error
    net, net_sem, step = [], [], []
    for s in range(seeds):
        t0 = time.perf_counter()
        # the first layer of simulate(seed=s, seeds=1), `readouts` readout/test draws on it
        sim = simulate(*args, list(ALPHAS), d=d, beta=c["beta"], seeds=readouts, seed=s,
                       n_test=n_test, shared_first_layer=readouts > 1)
        t1 = time.perf_counter()
        lc = learning_curve(*args, list(ALPHAS), c["beta"], bulk="step", d=d, seed=s)
        t2 = time.perf_counter()
        net.append(sim.test_error)
        net_sem.append(sim.test_error_sem)
        step.append(lc.test_error)
        print(f"  seed {s}: network {np.round(net[-1], 5)} +- {np.round(net_sem[-1], 5)} "
              f"({t1 - t0:.0f} s), step theory {np.round(step[-1], 5)} ({t2 - t1:.0f} s), "
              f"isotropic {np.round(iso, 5)}", flush=True)
    net, net_sem, step = np.array(net), np.array(net_sem), np.array(step)
    sem = net.std(axis=0, ddof=1) / math.sqrt(seeds) if seeds > 1 else np.full(len(ALPHAS), np.nan)
    diff = net - step
    # paired difference: readout/test sampling only (the first layer is common)
    dsem = (np.sqrt(np.sum(net_sem**2, axis=0)) / seeds if readouts > 1 else
            diff.std(axis=0, ddof=1) / math.sqrt(seeds))
    print(f"test error, tanh/sin alpha0 = 2, eta = 3, lambda = 0.1, beta = 1, d = {d}, "
          f"{seeds} first layers x {readouts} readouts (n_test = {n_test})")
    print("  alpha   isotropic   step (mean)   network (mean +- sem over layers)   "
          "network/iso - 1   network/step - 1   paired (network - step) +- sem")
    for j, a in enumerate(ALPHAS):
        print(f"  {a:<6g}  {iso[j]:.5f}     {step[:, j].mean():.5f}       "
              f"{net[:, j].mean():.5f} +- {sem[j]:.5f}                  "
              f"{net[:, j].mean() / iso[j] - 1:+.2%}           "
              f"{net[:, j].mean() / step[:, j].mean() - 1:+.2%}            "
              f"{diff[:, j].mean():+.5f} +- {dsem[j]:.5f}")


def _ks_bulk(eigs, fs, outliers):
    """KS distance between the empirical bulk (top ``outliers`` eigenvalues dropped) and the
    theory's density, both seen through the same Cauchy smoothing ``Im s(x + i eps) / pi``
    (``eps`` = 1e-4 bulk mean: the smoothing leaks a few % of the mass of the hard edge at 0
    below 0, equally in both) and both CDFs normalised from the right (docs/theory.md (j.8))."""
    lam = np.sort(eigs)[: len(eigs) - outliers]
    eps = 1e-4 * fs.bulk_mean
    hi = max(fs.right_edge, lam[-1]) * 1.05
    x = np.concatenate([np.geomspace(1e-6 * hi, 0.02 * hi, 200), np.linspace(0.02 * hi, hi, 1300)[1:]])
    # the density is solved on the physical branch at every point (feature_solve); close to the
    # hard edge at 0 the Lorentzian smoothing is least reliable: hence also the KS above 0.1 m1
    rho = np.asarray(fs.density(x, eps=eps, tol=1e-6))
    seg = 0.5 * (rho[1:] + rho[:-1]) * np.diff(x)
    tail_th = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    # mass of the smoothed empirical law above x: mean over eigenvalues of the Cauchy tail
    tail_emp = np.array([np.mean(0.5 - np.arctan((t - lam) / eps) / math.pi) for t in x])
    dev = np.abs(tail_th - tail_emp)
    # (all x; x >= 0.1 bulk mean, away from the hard edge at 0 where both laws put ~1/sqrt(x))
    return float(np.max(dev)), float(np.max(dev[x >= 0.1 * fs.bulk_mean]))


def spectrum_table(d, seeds):
    from srfsym.step.realised import seed_children, network_first_layer
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.step_bulk import StepEigenData
    c = CASE_SPECTRUM
    iso = feature_spectrum(c["student"], c["teacher"], alpha0=c["alpha0"], eta=c["eta"],
                           beta=c["beta"], p_over_n=1.0)
    rows = []
    for s in range(seeds):
        t0 = time.perf_counter()
        ss = seed_children(np.random.SeedSequence(s), 1)[0]
        W0, W1 = network_first_layer(c["student"], c["teacher"], c["alpha0"], c["eta"], d,
                                     c["beta"], seed=ss, workers=None)
        data = StepEigenData.from_layers(W0, W1)
        p = W1.shape[0]
        n = p
        # fresh inputs: a child of ss that network_first_layer does not use (it takes the first
        # five; ss.spawn(1)[0] would be the stream of W0 itself, so that x_i = |x_i| w0_i)
        X = np.random.default_rng(seed_children(ss, 6)[5]).standard_normal((n, d))
        Phi = np.tanh(X @ W1.T)
        del X
        lam = np.linalg.eigvalsh(Phi.T @ Phi / n)
        del Phi
        step = feature_spectrum(c["student"], r=data.r, c=data.c, beta=c["beta"], p_over_n=1.0,
                                spectrum=data.eigenvalues)
        k = 1 if iso.has_outlier else 0
        bulk = np.sort(lam)[: p - k]
        nv_net = float(np.mean(bulk**2) / np.mean(bulk) ** 2 - 1)
        (ks_iso, ks_iso_tail), (ks_step, ks_step_tail) = _ks_bulk(lam, iso, k), _ks_bulk(lam, step, k)
        row = {"seed": s, "ks_iso": ks_iso, "ks_step": ks_step, "ks_iso_tail": ks_iso_tail,
               "ks_step_tail": ks_step_tail,
               "edge_net": float(bulk[-1]), "edge_iso": iso.right_edge,
               "edge_step": step.right_edge, "nv_net": nv_net,
               "nv_iso": iso.bulk_normalised_variance, "nv_step": step.bulk_normalised_variance,
               "nv_omega": data.normalised_variance, "seconds": time.perf_counter() - t0}
        rows.append(row)
        print("  " + ", ".join(f"{k_}={v:.4g}" for k_, v in row.items()), flush=True)
    print(f"feature spectrum, tanh/sin alpha0 = 0.5, eta = 5, beta = 2, p = n, d = {d}, "
          f"{seeds} seeds")
    keys = [("KS distance of the bulk", "ks_iso", "ks_step", None),
            ("KS distance above 0.1 x bulk mean", "ks_iso_tail", "ks_step_tail", None),
            ("right edge", "edge_iso", "edge_step", "edge_net"),
            ("m2/m1^2 - 1 of the feature bulk", "nv_iso", "nv_step", "nv_net")]
    for name, ki, ks, kn in keys:
        vals = lambda k_: np.array([r[k_] for r in rows])                      # noqa: E731
        se = lambda k_: (vals(k_).std(ddof=1) / math.sqrt(seeds) if seeds > 1 else float("nan"))  # noqa: E731
        net = "" if kn is None else f", network {vals(kn).mean():.4g} +- {se(kn):.2g}"
        print(f"  {name}: isotropic {vals(ki).mean():.4g}, step {vals(ks).mean():.4g} +- "
              f"{se(ks):.2g}{net}")
    nvo = np.array([r["nv_omega"] for r in rows])
    print(f"  m2/m1^2 - 1 of Omega = W Pi W^T: step {nvo.mean():.4g}, isotropic c MP_beta "
          f"{c['beta']:g}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="what", required=True)
    p = sub.add_parser("cost")
    p.add_argument("ds", type=int, nargs="*", default=[2000, 4000])
    p = sub.add_parser("_cost_one")
    p.add_argument("d", type=int)
    for name in ("error", "spectrum"):
        p = sub.add_parser(name)
        p.add_argument("--d", type=int, default=1000)
        p.add_argument("--seeds", type=int, default=3)
        p.add_argument("--n-test", type=int, default=5000)
        p.add_argument("--readouts", type=int, default=1,
                       help="readout/test draws per first layer (error table)")
    a = ap.parse_args()
    if a.what == "cost":
        cost(a.ds)
    elif a.what == "_cost_one":
        cost_one(a.d)
    elif a.what == "error":
        error_table(a.d, a.seeds, a.n_test, a.readouts)
    else:
        spectrum_table(a.d, a.seeds)


if __name__ == "__main__":
    main()
