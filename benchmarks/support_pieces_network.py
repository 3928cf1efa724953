"""The pieces of the feature spectrum's bulk support (docs/theory.md (j.8)) against the network's
histogram: for each piece of the deterministic equivalent (on the exact law of the step's bulk,
docs/theory.md (g.5)) its mass beside the fraction of the network's bulk eigenvalues of
``Phi^T Phi / n`` that fall in it (mean +- standard error over first layers; the giant outlier
left out), and the fraction in the gaps; then the pieces' first two moments against the closed
forms of the bulk mean and normalised variance, and the time the pieces and masses took.

Case: tanh/sin, eta = 3, beta = p/d = 1, p = n, where a tiny step batch (alpha0 = 0.01, 0.02)
makes a far piece of about 3 % of the mass (issue 32, item 2).

    python benchmarks/support_pieces_network.py --alpha0 0.01 0.02 --d 1000 --seeds 6
"""
import argparse
import time

import numpy as np


def theory(alpha0, eta):
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.exact_bulk import exact_bulk_spectrum
    t0 = time.perf_counter()
    fs = feature_spectrum("tanh", "sin", alpha0=alpha0, eta=eta,
                          spectrum=exact_bulk_spectrum("tanh", "sin", alpha0, eta, 1.0))
    pieces = fs.support_pieces
    t1 = time.perf_counter()
    (mass, m1, m2), err = fs.piece_moments(order=2)
    t2 = time.perf_counter()
    print(f"alpha0 = {alpha0:g}, eta = {eta:g}: {len(pieces)} pieces in {t1 - t0:.1f} s, "
          f"masses and moments in {t2 - t1:.1f} s (error estimate {err:.1e})")
    nv = m2.sum() / m1.sum()**2 - 1
    print(f"  sum of masses {mass.sum():.6f}; mean {m1.sum():.6g} (closed form "
          f"{fs.bulk_mean:.6g}); m2/m1^2 - 1 {nv:.5g} (closed form "
          f"{fs.bulk_normalised_variance:.5g})")
    return fs, pieces, mass


def network(alpha0, eta, d, seeds):
    from srfsym.simulation.spectrum_simulation import simulate_feature_spectrum
    sim = simulate_feature_spectrum("tanh", "sin", alpha0, eta, d, 1.0, 1.0, seeds)
    return [lam[:-1] for lam in sim.eigenvalues]           # the giant outlier left out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--alpha0", type=float, nargs="+", default=[0.01, 0.02])
    ap.add_argument("--eta", type=float, default=3.0)
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=6)
    args = ap.parse_args()
    for a0 in args.alpha0:
        fs, pieces, mass = theory(a0, args.eta)
        bulks = network(a0, args.eta, args.d, args.seeds)
        print(f"  network: d = p = n = {args.d}, {args.seeds} first layers")
        print(f"  {'piece':>24s} {'mass':>9s} {'network fraction':>22s} {'z':>6s}")
        edges = [0.0] + [v for p in pieces for v in p] + [np.inf]
        for i, (a, b) in enumerate(pieces):
            f = np.array([np.mean((lam >= (a if i else -np.inf)) & (lam <= b)) for lam in bulks])
            se = f.std(ddof=1) / np.sqrt(len(f)) if len(f) > 1 else np.nan
            print(f"  [{a:9.4g}, {b:9.4g}] {mass[i]:9.5f} {f.mean():12.5f} +- {se:.5f} "
                  f"{(f.mean() - mass[i]) / se:+6.2f}")
        gaps = np.array([np.mean(np.any([(lam > lo) & (lam < hi) for lo, hi in
                                         zip(edges[2::2], edges[3::2])], axis=0))
                         for lam in bulks])
        print(f"  {'in the gaps':>24s} {0.0:9.5f} {gaps.mean():12.5f} +- "
              f"{gaps.std(ddof=1) / np.sqrt(len(gaps)):.5f}; largest eigenvalue "
              f"{max(lam.max() for lam in bulks):.4g} (right edge {fs.right_edge:.4g})")


if __name__ == "__main__":
    main()
