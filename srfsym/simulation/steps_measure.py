r"""What several giant steps do to the first layer, measured (docs/theory.md (p)).

After step t the first layer ``W_t`` is read against ``W0``: the top singular values of
``(W_t - W0)/sqrt(p)`` and the overlaps of the top right singular vectors with the target
directions ``e_1 .. e_k``; per readout letter ``omega`` the *spike vector* (the mean row of the
letter's neurons, whose coordinates along ``e_1 .. e_k`` are the theory's target components),
its norm, and the bulk variance (the mean squared row norm minus the squared spike norm).

>>> rng = np.random.default_rng(0)
>>> W0 = rng.standard_normal((400, 50)) / np.sqrt(50)
>>> Wt = W0.copy(); Wt[:200, 0] += 0.5; Wt[200:, 0] -= 0.5
>>> m = step_measurements(W0, Wt, np.repeat([1.0, -1.0], 200), k=1)
>>> comps, sv = m["spike_components"], m["singular_values"]
>>> comps[:, 0].round(1).tolist(), round(float(sv.max()), 2)
([0.5, -0.5], 0.5)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["step_measurements", "STEP_KEYS"]

#: The per-step measurements (each an array with a leading axis over steps once stacked).
STEP_KEYS = ("singular_values", "overlaps", "spike_components", "spike_norms",
             "bulk_variances")


def _top_singular(D: np.ndarray, n: int):
    """Top ``n`` singular values and right singular vectors (rows of ``vt``) of ``D``."""
    p, d = D.shape
    if min(p, d) <= max(64, 2 * n + 2):
        _, s, vt = np.linalg.svd(D, full_matrices=False)
        return s[:n], vt[:n]
    from scipy.sparse.linalg import svds
    v0 = np.random.default_rng(2024).standard_normal(min(p, d))   # fixed start: reproducible
    _, s, vt = svds(D, k=n, v0=v0)
    order = np.argsort(s)[::-1]
    return s[order], vt[order]


def step_measurements(W0: np.ndarray, Wt: np.ndarray, omega, k: int, n_singular: int = 3) -> dict:
    """The measurements of :data:`STEP_KEYS` on the first layer ``Wt`` after some steps.

    ``omega``: the letter of each neuron (``None``: the uniform readout); ``k``: the number of
    target directions ``e_1 .. e_k``.  ``spike_components`` is letters x k, ``overlaps`` is
    ``n_singular`` x k (absolute values), the others are vectors.

    >>> W0 = np.eye(4); m = step_measurements(W0, 2 * W0, None, k=2, n_singular=2)
    >>> m["bulk_variances"].tolist(), m["singular_values"].tolist()
    ([3.0], [0.5, 0.5])
    """
    W0 = np.asarray(W0, dtype=float)
    Wt = np.asarray(Wt, dtype=float)
    p, d = Wt.shape
    om = np.ones(p) if omega is None else np.asarray(omega, dtype=float)
    D = (Wt - W0) / math.sqrt(p)
    s, vt = _top_singular(D, min(n_singular, min(p, d)))
    overlaps = np.abs(vt[:, :k])
    letters = list(dict.fromkeys(om.tolist()))
    comps, norms, bulks = [], [], []
    sq = np.einsum("ij,ij->i", Wt, Wt)
    for w in letters:
        rows = om == w
        mean = Wt[rows].mean(axis=0)
        comps.append(mean[:k])
        norms.append(float(np.linalg.norm(mean)))
        bulks.append(float(np.mean(sq[rows]) - mean @ mean))
    return {"singular_values": s, "overlaps": overlaps, "spike_components": np.array(comps),
            "spike_norms": np.array(norms), "bulk_variances": np.array(bulks)}
