r"""Simulations of random-feature ridge regression beyond the proportional regime, the ground
truth of the dimension-free deterministic equivalent (docs/theory.md (o)).

* :func:`simulate_linear_features` -- linear random features with a Gaussian design:
  ``x = Lam^(1/2) z`` in ``R^M``, ``phi_j(x) = <f_j, x>`` with ``f_j ~ N(0, I_M)`` (kernel ``<x, x'>``, eigenvalues
  ``Lam``), labels ``y = sum_k theta_k x_k/sqrt(Lam_k) + noise``; the excess risk of each draw is
  exact: ``sum_k Lam_k (beta_k - w_k)^2`` with ``beta = F a/sqrt(p)``,
  ``w_k = theta_k/sqrt(Lam_k)``.
* :func:`simulate_sphere_features` -- ``phi_j(x) = sigma(<w_j, x>)``, ``w_j`` uniform on the unit
  sphere, ``x`` uniform on the sphere of radius ``sqrt(d)``; the excess risk ``E(f - f_star)^2`` on
  ``n_test`` fresh points.

Both solve the sum-loss ridge of docs/theory.md (a) (:func:`~.readout.ridge_readout`) and return
the mean over seeds, its standard error and the per-seed values.

>>> out = simulate_linear_features(np.arange(1, 51.0)**-2, np.arange(1, 51.0)**-1.5, n=40, p=30,
...                                lam=0.1, noise=0.0, seeds=2)
>>> sorted(out)
['excess_risk', 'per_seed', 'sem']
"""
from __future__ import annotations

import math

import numpy as np

from .readout import ridge_readout

__all__ = ["simulate_linear_features", "simulate_sphere_features", "sphere_points"]


def _check(n, p, lam, noise, seeds):
    for name, v in (("n", n), ("p", p), ("seeds", seeds)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"{name} must be a positive integer, got {v!r}")
    if not (np.isfinite(lam) and lam >= 0):
        raise ValueError(f"lam must be finite and >= 0, got {lam}")
    if not (np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise (variance) must be finite and >= 0, got {noise}")


def _summary(values):
    v = np.asarray(values, dtype=float)
    sem = v.std(ddof=1) / math.sqrt(v.size) if v.size > 1 else float("nan")
    return {"excess_risk": float(v.mean()), "sem": float(sem), "per_seed": v.tolist()}


def simulate_linear_features(eigenvalues, theta, n: int, p: int, lam: float, noise: float = 0.0,
                             seeds: int = 10, seed: int = 0) -> dict:
    """Exact excess risk of linear random features (module doc), over ``seeds`` draws."""
    lam_k = np.asarray(eigenvalues, dtype=float)
    theta = np.asarray(theta, dtype=float)
    if lam_k.ndim != 1 or theta.shape != lam_k.shape or not np.all(lam_k > 0):
        raise ValueError("eigenvalues (> 0) and theta must be 1-d arrays of one length")
    _check(n, p, lam, noise, seeds)
    m = lam_k.size
    w = theta / np.sqrt(lam_k)
    out = []
    for rng in (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)):
        x = rng.standard_normal((n, m)) * np.sqrt(lam_k)
        f = rng.standard_normal((m, p))
        y = x @ w + math.sqrt(noise) * rng.standard_normal(n)
        a = ridge_readout(x @ f, y, lam)
        beta = f @ a / math.sqrt(p)
        out.append(float(np.sum(lam_k * (beta - w) ** 2)))
    return _summary(out)


def sphere_points(rng, count: int, d: int, radius: float) -> np.ndarray:
    """``count`` points uniform on the sphere of radius ``radius`` in ``R^d``.

    >>> x = sphere_points(np.random.default_rng(0), 3, 5, 2.0)
    >>> np.allclose(np.linalg.norm(x, axis=1), 2.0)
    True
    """
    g = rng.standard_normal((count, d))
    return radius * g / np.linalg.norm(g, axis=1, keepdims=True)


def simulate_sphere_features(sigma, target, d: int, n: int, p: int, lam: float,
                             noise: float = 0.0, seeds: int = 5, n_test: int = 4000,
                             seed: int = 0) -> dict:
    """Excess risk of ``sigma(<w, x>)`` random features on the sphere (module doc): ``sigma``
    a numpy function, ``target(x)`` a numpy function of the ``(count, d)`` inputs.

    >>> out = simulate_sphere_features(np.tanh, lambda x: x[:, 0], d=5, n=30, p=20, lam=0.1,
    ...                                seeds=2, n_test=200)
    >>> 0 < out["excess_risk"] < 1
    True
    """
    _check(n, p, lam, noise, seeds)
    _check(d, n_test, 0.0, 0.0, 1)
    out = []
    for rng in (np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(seeds)):
        w = sphere_points(rng, p, d, 1.0)
        x = sphere_points(rng, n, d, math.sqrt(d))
        y = target(x) + math.sqrt(noise) * rng.standard_normal(n)
        a = ridge_readout(sigma(x @ w.T), y, lam)
        xt = sphere_points(rng, n_test, d, math.sqrt(d))
        out.append(float(np.mean((sigma(xt @ w.T) @ a / math.sqrt(p) - target(xt)) ** 2)))
    return _summary(out)
