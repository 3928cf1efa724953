"""The pieces of the feature spectrum's bulk support (docs/theory.md (j.8)) against the network's
histogram, and where the network's bulk in the gaps comes from.

For each case: the pieces of the deterministic equivalent on the exact law of the step's bulk
(docs/theory.md (g.5)) with their masses, their first two moments against the closed forms; then,
per input dimension d, over first layers (mean +- standard error; the giant outlier left out):

* ``network``  the fraction of the bulk eigenvalues of ``Phi^T Phi / n`` in each piece and in the gaps;
* ``perm``     the same with the network's features split, row by row, into their part linear in the
               row's bulk preactivation (conditionally on the spike projection kappa) and the
               remainder, the remainder's rows decorrelated (each feature's remainder permuted over
               the samples): what Gaussian equivalence assumes of it;
* ``row-GE``   the realised rows' conditional Gaussian equivalent: each row's own spike component
               and bulk norm, independent noise in place of the remainder;
* ``cGET``     the theory's map (docs/theory.md (j.2)) with one (r, c), the layer's measured ones;
* the rows' bulk correlation: measured mean squared correlation rho2 and the exact law's
  1/d_eff = E l^2 / (d (E l)^2), and p/d_eff^2 (the Gaussian-equivalence ratio).

    python benchmarks/support_pieces_network.py --cases tanh:sin:0.01:3 tanh:sign:0.05:2 \\
        --d 1000 2000 4000 --seeds 3
"""
import argparse
import time

import numpy as np

from srfsym.simulation.spectrum_simulation import piece_fractions


def theory(student, teacher, alpha0, eta):
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.exact_bulk import exact_bulk_spectrum
    t0 = time.perf_counter()
    bulk = exact_bulk_spectrum(student, teacher, alpha0, eta, 1.0)
    fs = feature_spectrum(student, teacher, alpha0=alpha0, eta=eta, spectrum=bulk)
    pieces = fs.support_pieces
    (mass, m1, m2), err = fs.piece_moments(order=2)
    print(f"{student}/{teacher}, alpha0 = {alpha0:g}, eta = {eta:g}: pieces and masses in "
          f"{time.perf_counter() - t0:.0f} s (error estimate {err:.1e}); sum of masses "
          f"{mass.sum():.6f}")
    for (a, b), m in zip(pieces, mass):
        print(f"  [{a:.6g}, {b:.6g}]  mass {m:.5f}")
    print(f"  mean {m1.sum():.6g} (closed form {fs.bulk_mean:.6g}); m2/m1^2 - 1 "
          f"{m2.sum() / m1.sum()**2 - 1:.5g} (closed form {fs.bulk_normalised_variance:.5g})")
    return bulk, pieces


def one_layer(st, te, alpha0, eta, d, ss, pieces):
    """The four spectra's fractions and rho2 on one first layer (p = n = d)."""
    from srfsym.simulation.first_layer import network_first_layer, seed_children
    from srfsym.simulation.result import bulk_row_correlation, empirical_srf_parameters
    from srfsym.symbolic.cget import cget_coefficients
    sig = st.numpy
    ss_layer, ss_data = seed_children(ss, 2)
    W0, W1 = network_first_layer(st, te, alpha0, eta, d, beta=1.0, seed=ss_layer)
    emp = empirical_srf_parameters(W0, W1, n_singular=1)
    v, r, c = emp["vhat"], emp["r"], emp["c"]
    rho2 = bulk_row_correlation(W1, v)["rho2"]
    s = W1 @ v
    Wp = W1 - np.outer(s, v)
    t = np.linalg.norm(Wp, axis=1)
    n = p = d
    X = np.random.default_rng(ss_data).standard_normal((n, d))
    kap, U = X @ v, X @ Wp.T
    del X
    spec = (lambda F: piece_fractions(np.linalg.eigvalsh(F.T @ F / n), pieces))
    out = {}
    Phi = sig(kap[:, None] * s[None, :] + U)
    out["network"] = spec(Phi)
    G = U / t
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    m0, m1, m2 = (np.zeros((n, p)) for _ in range(3))
    for xk, wk in zip(x, w):                          # E_g f, E_g f g, E_g f^2 per (sample, row)
        f = sig(kap[:, None] * s[None, :] + xk * t[None, :])
        m0 += wk * f
        m1 += wk * f * xk
        m2 += wk * f * f
    L1 = m0 + m1 * G
    rng = np.random.default_rng(5)
    rem = Phi - L1
    del Phi
    rem = np.take_along_axis(rem, np.argsort(rng.random((n, p)), axis=0), axis=0)
    out["perm"] = spec(L1 + rem)
    del rem
    xi = np.random.default_rng(123).standard_normal((n, p))
    out["row-GE"] = spec(L1 + np.sqrt(np.maximum(m2 - m0**2 - m1**2, 0.0)) * xi)
    del L1, m0, m1, m2
    mu0, mu1, ms2 = (np.broadcast_to(np.asarray(q, float), kap.shape)
                     for q in cget_coefficients(st).numpy()(kap, r, c))
    u = kap[:, None] * (s - r)[None, :] + U
    out["cGET"] = spec(mu0[:, None] + mu1[:, None] * u + np.sqrt(np.maximum(ms2, 0))[:, None] * xi)
    return out, rho2


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cases", nargs="+", default=["tanh:sin:0.01:3", "tanh:sign:0.05:2"],
                    help="student:teacher:alpha0:eta")
    ap.add_argument("--d", type=int, nargs="+", default=[1000])
    ap.add_argument("--seeds", type=int, default=3)
    args = ap.parse_args()
    from srfsym.simulation.first_layer import as_seed_sequence, seed_children
    from srfsym.symbolic.activations import activation
    for case in args.cases:
        student, teacher, a0, eta = case.split(":")
        a0, eta = float(a0), float(eta)
        bulk, pieces = theory(student, teacher, a0, eta)
        st, te = activation(student), activation(teacher)
        for d in args.d:
            t0 = time.perf_counter()
            res, rho2 = {}, []
            for ss in seed_children(as_seed_sequence(0), args.seeds):
                out, r2 = one_layer(st, te, a0, eta, d, ss, pieces)
                rho2.append(r2)
                for k, v in out.items():
                    res.setdefault(k, []).append(v)
            deff = bulk.effective_dimension(d)
            r2 = np.array(rho2)
            print(f"  d = p = n = {d} (n0 = {int(a0 * d)}), {args.seeds} first layers, "
                  f"{time.perf_counter() - t0:.0f} s; rho2 {r2.mean():.4g} +- "
                  f"{r2.std(ddof=1) / np.sqrt(r2.size):.2g} (exact law 1/d_eff = {1 / deff:.4g}),"
                  f" p/d_eff^2 = {d / deff**2:.3g}")
            print(f"    {'':8s} " + " ".join(f"{'[%.4g, %.4g]' % ab:>22s}" for ab in pieces)
                  + f" {'in the gaps':>22s}")
            for k, v in res.items():
                v = np.array(v)
                m, e = v.mean(axis=0), v.std(axis=0, ddof=1) / np.sqrt(len(v))
                print(f"    {k:8s} " + " ".join(f"{a:13.5f} +- {b:.5f}" for a, b in zip(m, e)))


if __name__ == "__main__":
    main()
