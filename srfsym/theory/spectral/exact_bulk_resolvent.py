"""The 2 x 2 population resolvent of the exact bulk law (docs/theory.md (g.5)).

Given the step batch's residual law (nodes ``e`` with weights), the rows of the trained first
layer's bulk have covariance built from ``C(e) = [[b e^2, a e], [a e, 0]]``; the resolvent
``G(w)`` of that population solves the 2 x 2 matrix fixed point below.  It is shared by the
law's Stieltjes transform (:class:`srfsym.theory.spectral.exact_bulk.ExactBulk`) and by the direction
sums of non-odd students (:mod:`srfsym.theory.spectral.exact_bulk_directions`).

>>> import numpy as np
>>> w, weights = np.array([-1.0, 0.5 + 0.1j]), np.array([0.5, 0.5])
>>> C = (np.array([0.5, 2.0]), np.array([0.3, -0.1]))         # (b e^2, a e) at two nodes
>>> G, ok = population_resolvent(w, C, weights, 2.0)
>>> again, _ = population_resolvent(w, C, weights, 2.0, G, maxit=1)   # a fixed point
>>> ok, all(bool(np.abs(a - b).max() < 1e-13) for a, b in zip(G, again))
(True, True)
"""
from __future__ import annotations

import numpy as np

from ...core.budget import check as _budget_check

__all__ = ["population_resolvent"]


def population_resolvent(w, C, weights, alpha0, G=None, tol=1e-15, maxit=20000):
    """The 2 x 2 fixed point ``G(w)`` (vectorised over ``w``), kept as its three entries
    ``(g11, g12, g22)`` (``G`` is symmetric); returns ``(G, converged)``."""
    w = np.asarray(w, dtype=complex)[:, None]
    c11, c12 = C                                   # C = [[c11, c12], [c12, 0]], per node
    if G is None:
        G = (1.0 / (1.0 - w), np.zeros_like(w), -np.ones_like(w))
    g11, g12, g22 = G
    for _ in range(maxit):
        _budget_check("the exact bulk's fixed point")
        # K = I + G C / alpha0 ; Sigma(e) = C K^{-1}
        k11 = 1.0 + (g11 * c11 + g12 * c12) / alpha0
        k12 = g11 * c12 / alpha0
        k21 = (g12 * c11 + g22 * c12) / alpha0
        k22 = 1.0 + g12 * c12 / alpha0
        det = k11 * k22 - k12 * k21
        s11 = ((c11 * k22 - c12 * k21) / det) @ weights
        s12 = ((c12 * k11 - c11 * k12) / det) @ weights
        s22 = ((-c12 * k12) / det) @ weights
        a11, a12, a22 = -w[:, 0] + s11, 1.0 + s12, -1.0 + s22
        det = a11 * a22 - a12 * a12
        n11, n12, n22 = a22 / det, -a12 / det, a11 / det
        err = np.max(np.abs(n11 - g11[:, 0]) / (1.0 + np.abs(n11)), initial=0.0)
        err = max(err, np.max(np.abs(n22 - g22[:, 0]) / (1.0 + np.abs(n22)), initial=0.0))
        g11 = 0.7 * n11[:, None] + 0.3 * g11
        g12 = 0.7 * n12[:, None] + 0.3 * g12
        g22 = 0.7 * n22[:, None] + 0.3 * g22
        if err < tol:
            return (g11, g12, g22), True
    return (g11, g12, g22), False
