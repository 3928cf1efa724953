"""What a grid solve returns: :class:`GridResult` (values, residuals, how each point was
obtained, the points that failed), and the check of a grid axis.

>>> _grid_axis("alphas", [0.5, 1.0], 0.0, True).tolist()
[0.5, 1.0]
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .state import State

_FIELDS = State._fields

__all__ = ["GridResult"]


@dataclass
class GridResult:
    """The fixed point on a grid: arrays of shape ``(len(alphas), len(lams))``.

    ``converged[i, j]`` says whether point ``(alphas[i], lams[j])`` was solved and verified
    (final sweep moves every order parameter by less than ``tol``); ``residual`` holds that
    final change (or the last residual of a failed point), ``method`` how each point was
    solved (``"grid-newton"``, or ``"single-point"`` when the batch handed it to
    :func:`srfsym.solve`).  ``failures`` lists the points that were not solved, with the
    solver's message; their entries are NaN.  All values are ``numeric`` (double precision,
    ``nodes`` Gauss-Hermite kappa nodes; ``node_error`` the change of the test error at the
    grid's corners when the node count was raised).
    """

    alphas: np.ndarray
    lams: np.ndarray
    beta: float
    test_error: np.ndarray
    train_error: np.ndarray
    state: State
    residual: np.ndarray
    converged: np.ndarray
    method: np.ndarray
    r: float
    c: float
    gamma: float
    nodes: int
    tol: float
    seconds: float
    iterations: int
    node_error: float | None = None
    failures: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    mapping: object = None
    precision: str = "double"
    spectrum: str = "mp"

    @property
    def shape(self):
        return self.test_error.shape

    @property
    def order_parameters(self) -> dict:
        """``{"q1": array, "q2": ..., "m": ...}``, each of the grid's shape."""
        return self.state._asdict()

    def __getstate__(self):            # the mapping holds closures: not sent between processes
        return {**self.__dict__, "mapping": None}

    def __getattr__(self, name):       # g.q1, g.V2, ... for the order parameters
        if name in _FIELDS:
            return getattr(self.__dict__["state"], name)
        raise AttributeError(name)

    def optimal_lambda(self):
        """Per alpha, the grid's lambda of least test error and that error (NaN points
        ignored; an optimum at either end of ``lams`` is at the edge of the grid).

        >>> from srfsym.theory.grid import solve_grid
        >>> g = solve_grid("tanh", "sin", 20, 3, [1.0], np.geomspace(1e-3, 10, 9))
        >>> lam, err = g.optimal_lambda()
        >>> bool(err[0] == np.nanmin(g.test_error[0]))
        True
        """
        err = np.where(np.isfinite(self.test_error), self.test_error, np.inf)
        j = np.argmin(err, axis=1)
        best = err[np.arange(len(self.alphas)), j]
        found = np.isfinite(best)
        return np.where(found, self.lams[j], np.nan), np.where(found, best, np.nan)

    def to_rows(self):
        """One dict per point (alpha, lam, test_error, train_error, order parameters,
        residual, converged, method)."""
        rows = []
        for i, a in enumerate(self.alphas):
            for j, lam in enumerate(self.lams):
                rows.append({"alpha": float(a), "lam": float(lam), "beta": self.beta,
                             "test_error": float(self.test_error[i, j]),
                             "train_error": float(self.train_error[i, j]),
                             **{k: float(v[i, j]) for k, v in self.order_parameters.items()},
                             "residual": float(self.residual[i, j]),
                             "converged": bool(self.converged[i, j]),
                             "method": str(self.method[i, j]), "kappa_nodes": self.nodes,
                             "precision": self.precision})
        return rows

    def __str__(self):
        n_ok = int(self.converged.sum())
        text = (f"fixed point on a {self.shape[0]} x {self.shape[1]} (alpha, lambda) grid, "
                f"beta = {self.beta:g}: {n_ok}/{self.converged.size} points converged in "
                f"{self.seconds:.3g} s [{self.spectrum} spectrum, {self.nodes} kappa nodes, "
                f"tol {self.tol:g}, {self.precision}]")
        for fail in self.failures:
            text += (f"\n  not converged: alpha = {fail['alpha']:g}, lambda = {fail['lam']:g}"
                     f" (last residual {fail['residual']:.3g}): {fail['message']}")
        return text


# ======================================================================================
# the solver

def _grid_axis(name, values, minimum, strict):
    try:
        arr = None if isinstance(values, str) else np.atleast_1d(np.asarray(values, dtype=float))
    except (TypeError, ValueError):
        arr = None
    if arr is None or arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-d list of numbers, got {values!r}")
    if arr.size == 0:
        raise ValueError(f"{name} must contain at least one value")
    for v in arr:
        if not math.isfinite(v) or (v <= minimum if strict else v < minimum):
            raise ValueError(f"{name} must be finite and {'>' if strict else '>='} {minimum}, "
                             f"got {v}")
    return arr
