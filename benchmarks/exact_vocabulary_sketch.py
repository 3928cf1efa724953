"""A check of the sketched exact law of the K-group prior with a vocabulary (docs/theory.md
(g.5.2)): the D part of the block-Wishart equation averaged over the eigenvalue law of S_2,
``l_j = 1 + omega_j^2 b s``, against the realised K-group prior
(:class:`srfsym.theory.spectral.step_bulk_groups.RealisedGroupPrior`) on the network's first layer, and
against the isotropic block-Wishart prior (``l_j = c_j``).  Not a back end: the group direction
sums are not derived, so ``bulk="exact"`` refuses a vocabulary.

The law of s: ``m(z) = 1 / (-z + E[e^2 / (1 + e^2 m(z) / alpha0)])`` (the eigenvalues of
``S_2 = X^T E^2 X / n0``), its density ``Im m(x + i eps) / pi`` on a grid.

    python benchmarks/exact_vocabulary_sketch.py --d 1000 --seeds 2
"""
import argparse

import numpy as np

from srfsym.step.vocabulary import vocabulary
from srfsym.theory.spectral.exact_bulk_moments import residual_law, step_bulk_parameters
from srfsym.theory.spectral.step_bulk_groups import RealisedGroupPrior, step_group_data


def s2_law(e, w, alpha0, n=6000):
    """Grid and weights of the eigenvalue law of S_2 (and the mass the grid catches)."""
    t = e**2
    top = (1 + 1 / np.sqrt(alpha0))**2 * t.max() * 1.2 + 1.0
    xs = np.linspace(1e-6, top, n)
    eps = 1e-4 * top
    m = 1j
    rho = np.empty(n)
    for k, x in enumerate(xs):
        z = x + 1j * eps
        for _ in range(20000):
            new = 1 / (-z + (t / (1 + t * m / alpha0)) @ w)
            done = abs(new - m) < 1e-13 * abs(new)
            m = new if done else 0.5 * new + 0.5 * m
            if done:
                break
        rho[k] = m.imag / np.pi
    wts = rho * np.gradient(xs)
    return xs, wts / wts.sum(), wts.sum()


def block_law(lam, V1h, V2h, ell, wq, pi, beta):
    """``(V1, V2)`` of the block-Wishart equation averaged over the columns ``ell[:, k]``
    (weights ``wq``): r_j = 1/(lam + V2h_j + E[B (I + beta Lam B)^-1]_jj)."""
    K = len(pi)
    r = 1 / (lam + V2h)
    for _ in range(5000):
        Lam = pi * r
        acc = np.zeros(K)
        for l_, q in zip(ell.T, wq):
            B = np.sqrt(np.outer(l_, l_)) * V1h
            acc += q * np.diag(B @ np.linalg.inv(np.eye(K) + beta * Lam[:, None] * B))
        new = 1 / (lam + V2h + acc)
        done = np.max(abs(new - r) / r) < 1e-13
        r = new if done else 0.5 * new + 0.5 * r
        if done:
            break
    Lam, V1 = pi * r, np.zeros((K, K))
    for l_, q in zip(ell.T, wq):
        B = np.sqrt(np.outer(l_, l_)) * V1h
        X = np.linalg.inv(np.eye(K) + beta * Lam[:, None] * B) * Lam[None, :]
        V1 += q * np.sqrt(np.outer(l_, l_)) * X
    return (V1 + V1.T) / 2, Lam


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d", type=int, default=1000)
    ap.add_argument("--seeds", type=int, default=2)
    a = ap.parse_args()
    alpha0, eta, lam = 2.0, 3.0, 0.1
    letters, pi = np.array([1.0, 2.0]), np.array([0.5, 0.5])
    V1h, V2h = np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.2, 0.3])
    par = step_bulk_parameters("tanh", "sin", alpha0, eta)
    e, w, _ = residual_law("sin", par["offset"], 96)
    xs, wq, mass = s2_law(e, w, alpha0)
    ell = 1 + np.outer(letters**2 * par["b"], xs)
    c = ell @ wq
    V1s, V2s = block_law(lam, V1h, V2h, ell, wq, pi, 1.0)
    V1i, V2i = block_law(lam, V1h, V2h, c[:, None], np.ones(1), pi, 1.0)
    print(f"tanh/sin, alpha0 = 2, eta = 3, {{1, 2}}, lambda = 0.1, V1hat = {V1h.tolist()}, "
          f"V2hat = {V2h.tolist()}; law of S_2 caught on the grid: {mass:.4f}; c_j = {c}")
    for seed in range(a.seeds):
        data = step_group_data("tanh", "sin", alpha0, eta, a.d, 1.0, seed, vocabulary([1, 2]))
        pr = RealisedGroupPrior(data, lam, 1.0).prior(V1h, V2h)
        print(f"  d = {a.d}, layer {seed}: V2 realised {np.round(pr.V2, 5)}; rel. error sketch "
              f"{np.round(V2s / pr.V2 - 1, 4)}, isotropic {np.round(V2i / pr.V2 - 1, 4)}; "
              f"V1 rel. error sketch {np.round((V1s / pr.V1 - 1).ravel()[[0, 1, 3]], 4)}, "
              f"isotropic {np.round((V1i / pr.V1 - 1).ravel()[[0, 1, 3]], 4)}")


if __name__ == "__main__":
    main()
