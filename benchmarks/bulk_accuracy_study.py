"""Where the exact bulk (docs/theory.md (g.5)) and the network still differ: a study by parts.

``w1``: the normalised variance ``m2/m1^2 - 1`` of the network's ``D`` (eigenvalues of
``W1 Pi W1^T``, float64 step on Gaussian data as in ``bench_exact_bulk.py``) against the exact law
given the realised residuals (``cond``: its error is the finite-d part) and the deterministic law
(``det``: adds the O(n0^{-1/2}) sampling of the residuals' moments), at several d.

``features``: the bulk of ``Phi^T Phi / n`` (giant outlier left out; ``p = n``) on the first layer of
``simulate(..., seed=S)``, four ways on the same layer and the same fresh inputs:

* ``net``  the network's features ``sigma(W1 x)``;
* ``eqn``  the same with every bulk row ``Pi w_k`` rescaled to the mean norm ``sqrt(c)`` and its
  spike component set to ``r`` (row-norm and spike spread removed);
* ``lin``  the conditional Gaussian-equivalent features of docs/theory.md (j.2) on the realised
  layer, ``mu0(k) 1 + k mu1(k) b + mu1(k) W Pi x + mu_star(k) xi`` (``k = <vhat, x>``);
* ``step`` the (j.6) formula on the realised eigenvalues and (r, c) (``bulk="step"``), and
  ``exact`` the same formula on the exact law.

``spectrum``: KS distance of the network's feature bulk to the exact bulk's feature spectrum
(per layer, pooled, and each layer rescaled to the law's bulk mean).

``directions``: the exact F, H sums (any student; relu by default) against the realised layers.

``error``: paired test errors on the first layer of ``simulate(..., seed=L)`` (tanh/sin,
alpha0 = 2, eta = 3, lambda = 0.1, beta = 1, alpha = 2): the network's features against their
conditional Gaussian equivalent on the same layer and data, and against ``bulk="step"``.

    python benchmarks/bulk_accuracy_study.py w1 --d 1000 2000 4000 --seeds 3
    python benchmarks/bulk_accuracy_study.py features --d 1000 2000 --seeds 4
    python benchmarks/bulk_accuracy_study.py spectrum --d 1000 2000 --seeds 3
    python benchmarks/bulk_accuracy_study.py error --d 2000 --seeds 3 --readouts 2
    python benchmarks/bulk_accuracy_study.py directions --d 500 1000 2000 --seeds 12
"""
import argparse
import time

import numpy as np
from scipy.sparse.linalg import eigsh

from srfsym.simulation.result import empirical_srf_parameters
from srfsym.step.realised import (as_seed_sequence, seed_children, network_first_layer,
                                  one_stream_step)
from srfsym.symbolic.activations import activation
from srfsym.symbolic.cget import cget_coefficients
from srfsym.theory.spectral.exact_bulk import ExactBulk
from srfsym.theory.feature.spectrum import feature_spectrum

ST, TE = "tanh", "sin"


def normalised_variance_of_gram(W):
    """``m2/m1^2 - 1`` of the ``p`` eigenvalues of ``W W^T`` (through the smaller Gram)."""
    p = W.shape[0]
    G = W.T @ W if W.shape[1] < p else W @ W.T
    m1 = np.trace(G) / p
    m2 = np.sum(G * G) / p
    return m2 / m1**2 - 1.0, m1


def w1_study(ds, seeds, alpha0, eta, beta):
    det = ExactBulk(ST, TE, alpha0, eta, beta, n_nodes=200)
    print(f"tanh/sin alpha0={alpha0:g} eta={eta:g} beta={beta:g}: exact (det) nv = "
          f"{det.normalised_variance():.4f}, m1 = {det.bulk_moments()[0]:.5f}")
    print("     d seed |  nv net   nv cond  nv det | net-cond  | t [s]")
    for d in ds:
        rows = []
        for seed in range(seeds):
            t0 = time.perf_counter()
            _, _, Wp, e = one_stream_step(ST, TE, alpha0, eta, beta, d, 1000 * d + seed)
            nv, _ = normalised_variance_of_gram(Wp)
            cond = ExactBulk(ST, TE, alpha0, eta, beta, residuals=e).normalised_variance()
            rows.append((nv, cond))
            print(f"{d:6d} {seed:4d} | {nv:7.4f} {cond:8.4f} {det.normalised_variance():7.4f} | "
                  f"{nv - cond:+.4f}  | {time.perf_counter() - t0:.0f}", flush=True)
        a = np.array(rows)
        diff = a[:, 0] - a[:, 1]
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else float("nan")
        print(f"{d:6d} mean | {a[:, 0].mean():7.4f} {a[:, 1].mean():8.4f}          | "
              f"{diff.mean():+.4f} ± {se:.4f}", flush=True)


def bulk_nv(Phi):
    """``m2/m1^2 - 1`` of the eigenvalues of ``Phi^T Phi / n`` without the largest one."""
    n, p = Phi.shape
    K = Phi.T @ Phi / n
    top = eigsh(K, k=1, which="LA", return_eigenvectors=False)[0]
    m1 = (np.trace(K) - top) / (p - 1)
    m2 = (np.sum(K * K) - top**2) / (p - 1)
    return m2 / m1**2 - 1.0


def features_study(ds, seeds, alpha0, eta, beta):
    ex = ExactBulk(ST, TE, alpha0, eta, beta)
    exact = feature_spectrum(ST, TE, alpha0=alpha0, eta=eta, beta=beta, spectrum=ex)
    print(f"tanh/sin alpha0={alpha0:g} eta={eta:g} beta={beta:g}, p = n: feature bulk m2/m1^2 - 1, "
          f"exact {exact.bulk_normalised_variance:.4f}")
    sig = activation(ST).numpy
    coef = cget_coefficients(ST).numpy()
    print("     d seed |   net     eqn     lin    step  | net-step  lin-step | t [s]")
    for d in ds:
        rows = []
        for seed in range(seeds):
            t0 = time.perf_counter()
            ss_layer, ss_data = seed_children(seed_children(as_seed_sequence(seed), 1)[0], 2)
            W0, W1 = network_first_layer(ST, TE, alpha0, eta, d, beta=beta, seed=ss_layer)
            W1 = W1.astype(float)
            p = W1.shape[0]
            emp = empirical_srf_parameters(W0, W1, n_singular=1)
            r, c, v = emp["r"], emp["c"], emp["vhat"]
            proj = W1 @ v
            Wb = W1 - np.outer(proj, v)                       # bulk rows Pi w_k
            G = Wb.T @ Wb
            D = np.concatenate([np.zeros(max(p - d, 0)), np.linalg.eigvalsh(G)])
            step = feature_spectrum(ST, r=r, c=c, beta=p / d, spectrum=D).bulk_normalised_variance
            X = np.random.default_rng(ss_data).standard_normal((p, d))
            kap = X @ v
            net = bulk_nv(sig(X @ W1.T))
            norms = np.linalg.norm(Wb, axis=1)
            Weq = Wb * (np.sqrt(c) / norms)[:, None] + r * v[None, :]
            eqn = bulk_nv(sig(X @ Weq.T))
            m0, m1, ms2 = coef(kap, r, c)
            rng = np.random.default_rng(seed + 7)
            b = proj - proj.mean()
            Phi = (m0[:, None] + (kap * m1)[:, None] * b[None, :] + m1[:, None] * (X @ Wb.T)
                   + np.sqrt(np.maximum(ms2, 0))[:, None] * rng.standard_normal((p, p)))
            lin = bulk_nv(Phi)
            rows.append((net, eqn, lin, step))
            print(f"{d:6d} {seed:4d} | {net:.4f} {eqn:.4f} {lin:.4f} {step:.4f} | {net - step:+.4f}  "
                  f"{lin - step:+.4f} | {time.perf_counter() - t0:.0f}", flush=True)
        a = np.array(rows)
        m = a.mean(axis=0)
        se = a.std(axis=0, ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.full(4, np.nan)
        dn, dl = a[:, 0] - a[:, 3], a[:, 2] - a[:, 3]
        sdn = dn.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.nan
        sdl = dl.std(ddof=1) / np.sqrt(len(a)) if len(a) > 1 else np.nan
        print(f"{d:6d} mean | " + " ".join(f"{x:.4f}" for x in m) + f" | {dn.mean():+.4f}±{sdn:.4f} "
              f"{dl.mean():+.4f}±{sdl:.4f}   (s.e. of columns: " + " ".join(f"{x:.4f}" for x in se) + ")",
              flush=True)




def _lin_features(X, W1, v, r, c, coef, rng):
    """The conditional Gaussian-equivalent features of docs/theory.md (j.2) on a realised layer."""
    kap = X @ v
    proj = W1 @ v
    Wb = W1 - np.outer(proj, v)
    m0, m1, ms2 = coef(kap, r, c)
    b = proj - proj.mean()
    return (m0[:, None] + (kap * m1)[:, None] * b[None, :] + m1[:, None] * (X @ Wb.T)
            + np.sqrt(np.maximum(ms2, 0))[:, None] * rng.standard_normal((X.shape[0], W1.shape[0])))


def error_study(d, layers, readouts, alpha0, eta, beta, lam, alpha, n_test, first=0):
    """Paired test errors on realised layers: the network's features against their conditional
    Gaussian equivalent (same layer, same data): what the non-linear parts of the features do."""
    from srfsym.simulation.readout import ridge_readout
    from srfsym.theory.fixed_point import solve
    sig = activation(ST).numpy
    coef = cget_coefficients(ST).numpy()
    ex = solve(ST, TE, alpha0, eta, lam, alpha, beta, bulk="exact").test_error
    print(f"tanh/sin alpha0={alpha0:g} eta={eta:g} beta={beta:g} lambda={lam:g} alpha={alpha:g}, d = {d}: "
          f"exact {ex:.5f}")
    print("layer readout |  net      lin     step   | net-lin   net-step")
    diffs, dsteps, nets, lins, steps = [], [], [], [], []
    for L in range(first, first + layers):
        # the first layer of simulate(..., seed=L), as bulk="step" takes it
        W0, W1 = network_first_layer(ST, TE, alpha0, eta, d, beta=beta,
                                     seed=seed_children(as_seed_sequence(L), 1)[0])
        W1 = W1.astype(float)
        p = W1.shape[0]
        emp = empirical_srf_parameters(W0, W1, n_singular=1)
        step = solve(ST, TE, alpha0, eta, lam, alpha, beta, bulk="step", d=d, seed=L).test_error
        for R in range(readouts):
            rng = np.random.default_rng([L, R, 17])
            n = int(alpha * d)
            X, Xt = rng.standard_normal((n, d)), rng.standard_normal((n_test, d))
            y, yt = np.sin(X[:, 0]), np.sin(Xt[:, 0])
            errs = []
            for feats in (lambda Z: sig(Z @ W1.T),
                          lambda Z: _lin_features(Z, W1, emp["vhat"], emp["r"], emp["c"], coef, rng)):
                a = ridge_readout(feats(X), y, lam)
                errs.append(float(np.mean((yt - feats(Xt) @ a / np.sqrt(p))**2)))
            nets.append(errs[0]); lins.append(errs[1]); steps.append(step)
            diffs.append(errs[0] - errs[1])
            dsteps.append(errs[0] - step)
            print(f"{L:5d} {R:7d} | {errs[0]:.5f} {errs[1]:.5f} {step:.5f} | {diffs[-1]:+.5f} "
                  f"{dsteps[-1]:+.5f}", flush=True)
    k = len(diffs)
    se = lambda a: np.std(a, ddof=1) / np.sqrt(k)            # noqa: E731
    print(f"mean          | {np.mean(nets):.5f} {np.mean(lins):.5f} {np.mean(steps):.5f} | "
          f"{np.mean(diffs):+.5f} ± {se(diffs):.5f} {np.mean(dsteps):+.5f} ± {se(dsteps):.5f}   "
          f"(net - exact {np.mean(nets) - ex:+.5f} ± {se(nets):.5f})")


def _smoothed_tail(lam, x, eps):
    """Mass of the Cauchy-smoothed empirical law above each ``x``."""
    return np.array([np.mean(0.5 - np.arctan((u - lam) / eps) / np.pi) for u in x])


def spectrum_study(ds, seeds, alpha0, eta, beta):
    """KS distance of the network's feature bulk (p = n, giant outlier left out, fresh inputs)
    to the exact bulk's feature spectrum: per layer, pooled over layers, and with each layer
    rescaled to the law's bulk mean (which removes the O(n0^{-1/2}) randomness of the layer's c).
    Both laws seen through the same Cauchy smoothing (eps = 1e-4 bulk mean), CDFs from the right."""
    import warnings
    ex = ExactBulk(ST, TE, alpha0, eta, beta)
    fs = feature_spectrum(ST, TE, alpha0=alpha0, eta=eta, beta=beta, spectrum=ex)
    m1, eps = fs.bulk_mean, 1e-4 * fs.bulk_mean
    hi = 1.1 * fs.right_edge
    x = np.concatenate([np.geomspace(1e-6 * hi, 0.02 * hi, 150), np.linspace(0.02 * hi, hi, 700)[1:]])
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rho = fs.density(x, eps=eps, tol=1e-7)
    seg = 0.5 * (rho[1:] + rho[:-1]) * np.diff(x)
    tail = np.concatenate([np.cumsum(seg[::-1])[::-1], [0.0]])
    print(f"tanh/sin alpha0={alpha0:g} eta={eta:g} beta={beta:g}, p = n: exact bulk mean {m1:.4f}, "
          f"edge {fs.right_edge:.3f}, m2/m1^2 - 1 {fs.bulk_normalised_variance:.4f} "
          f"(density on {x.size} points in {time.perf_counter() - t0:.0f} s)")
    sig = activation(ST).numpy
    for d in ds:
        lams = []
        for seed in range(seeds):
            ss = seed_children(as_seed_sequence(100 + seed), 1)[0]
            W0, W1 = network_first_layer(ST, TE, alpha0, eta, d, beta=beta, seed=ss)
            p = W1.shape[0]
            X = np.random.default_rng(seed_children(ss, 6)[5]).standard_normal((p, d))   # fresh inputs
            Phi = sig(X @ W1.T.astype(float))
            lam = np.sort(np.linalg.eigvalsh(Phi.T @ Phi / p))[:-1]
            lams.append(lam)
            ks = np.abs(tail - _smoothed_tail(lam, x, eps))
            print(f"{d:6d} {seed:4d} | KS {ks.max():.4f} (x >= 0.1 m1: {ks[x >= 0.1 * m1].max():.4f}) | "
                  f"bulk mean {lam.mean():.4f} | m2/m1^2 - 1 {np.mean(lam**2) / lam.mean()**2 - 1:.4f} | "
                  f"largest {lam[-1]:.3f}", flush=True)
        pooled = np.abs(tail - _smoothed_tail(np.concatenate(lams), x, eps)).max()
        scaled = np.abs(tail - _smoothed_tail(np.concatenate([l * m1 / l.mean() for l in lams]), x, eps)).max()
        print(f"{d:6d} pooled | KS {pooled:.4f}; each layer at the law's bulk mean: KS {scaled:.4f}", flush=True)


def directions_study(ds, seeds, student, alpha0, eta, beta, pt=(0.4, 1.3)):
    """The exact F, H sums (docs/theory.md (g.5); the pencil for non-odd students) against the
    realised first layers (``bulk="step"``, seeds 100, 101, ...), as ratios ``step/exact - 1``."""
    from srfsym.theory.spectral.step_bulk import step_bulk_spectrum
    ex = ExactBulk(student, TE, alpha0, eta, beta)
    r = ex.moments(*pt)
    iso_F = ex.bulk_moments()[0] * r.inv
    print(f"{student}/sin alpha0={alpha0:g} eta={eta:g} beta={beta:g}, (lambda', V1hat) = {pt}: exact F {r.F:.4f}, "
          f"H {r.H:.4f}; isotropic rule F -> c <1/S> = {iso_F:.4f}")
    for d in ds:
        rows = []
        for seed in range(100, 100 + seeds):
            m = step_bulk_spectrum(student, TE, alpha0, eta, d, beta, seed).moments(*pt)
            rows.append([m.F / r.F - 1, m.H / r.H - 1, m.F2 / r.F2 - 1, m.DH2 / r.DH2 - 1])
        a = np.array(rows)
        mu, se = a.mean(0), a.std(0, ddof=1) / np.sqrt(len(a))
        print(f"{d:6d} ({seeds} layers) step/exact - 1: " + ", ".join(
            f"{k} {x:+.4f} ± {e:.4f}" for k, x, e in zip(("F", "H", "F2", "DH2"), mu, se)), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["w1", "features", "error", "spectrum", "directions"])
    ap.add_argument("--student", default="relu", help="directions: the student")
    ap.add_argument("--d", type=int, nargs="+", default=[1000, 2000])
    ap.add_argument("--seeds", type=int, default=3, help="layers")
    ap.add_argument("--readouts", type=int, default=2, help="error: readouts per layer")
    ap.add_argument("--first", type=int, default=0, help="error: first layer's seed")
    ap.add_argument("--case", default=None, help="alpha0:eta:beta (tanh student, sin teacher); "
                    "default 0.5:5:2 (w1, features), 2:3:1 (error)")
    args = ap.parse_args()
    case = args.case or {"error": "2:3:1", "directions": "1:3:1"}.get(args.what, "0.5:5:2")
    a0, eta, beta = (float(x) for x in case.split(":"))
    if args.what == "directions":
        directions_study(args.d, args.seeds, args.student, a0, eta, beta)
    elif args.what == "error":
        for d in args.d:
            error_study(d, args.seeds, args.readouts, a0, eta, beta, lam=0.1, alpha=2.0, n_test=10000,
                        first=args.first)
    else:
        study = {"w1": w1_study, "features": features_study, "spectrum": spectrum_study}[args.what]
        study(args.d, args.seeds, a0, eta, beta)


if __name__ == "__main__":
    main()
