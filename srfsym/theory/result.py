"""The result of one fixed-point solve (:class:`FixedPointResult`) and its plain-number views.

>>> from srfsym.theory.state import Hats, State
>>> r = FixedPointResult(0.1, 0.05, State(1, 2, 3, 4, 5, 6, 7), Hats(1, 2, 3, 4, 5, 6), 1.0, 0.1,
...                      1.0, 1.0, 1.0, 1.0, "mp", 48, 1e-12, "structured", 5, 0.01)
>>> r.order_parameters["m"]
7.0
"""
from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import numpy as np

from .state import Hats, State

__all__ = ["FixedPointResult"]


@dataclass
class FixedPointResult:
    """Solution of the fixed point at one (alpha, lambda) and how it was obtained."""

    test_error: float
    train_error: float
    state: State
    hats: Hats
    alpha: float
    lam: float
    beta: float
    r: float
    c: float
    gamma: float
    spectrum: str
    nodes: int
    residual: float
    method: str
    iterations: int
    seconds: float
    node_error: float | None = None
    precision: str = "double"
    mp_test_error: object = None
    mapping: object = None
    notes: list = field(default_factory=list)
    vocabulary: object = None   # a readout vocabulary: per-group order parameters (arrays)
    groups: dict | None = None  # per-group spike strengths, bulk variances, resolvents

    @property
    def order_parameters(self) -> dict:
        """Floats; with a vocabulary, lists (K x K nested lists for V1 and Q1 = ``q1``)."""
        return {k: _plain(v) for k, v in self.state._asdict().items()}

    @property
    def conjugates(self) -> dict:
        return {k: _plain(v) for k, v in self.hats._asdict().items()}

    def to_dict(self, dps: int = 30) -> dict:
        out = {"alpha": self.alpha, "lam": self.lam, "beta": self.beta,
               "r": self.r, "c": self.c, "gamma": self.gamma,
               "test_error": self.test_error, "train_error": self.train_error,
               **self.order_parameters, **self.conjugates,
               "spectrum": self.spectrum, "kappa_nodes": self.nodes,
               "kappa_node_error": self.node_error, "residual": self.residual,
               "method": self.method, "iterations": self.iterations,
               "precision": self.precision, "notes": list(self.notes)}
        if self.mp_test_error is not None:
            out["test_error_decimal"] = mpmath.nstr(self.mp_test_error, dps)
        if self.vocabulary is not None:
            out["vocabulary"] = self.vocabulary.to_dict()
            out.update({f"group_{k}": v for k, v in (self.groups or {}).items()})
        return out

    def __str__(self):
        op = ", ".join(f"{k} = {_fmt(v)}" for k, v in self.order_parameters.items())
        return (f"alpha = {self.alpha:g}, lambda = {self.lam:g}, beta = {self.beta:g}: "
                f"test error = {self.test_error:.10g}, train error = {self.train_error:.10g}\n"
                f"  {op}\n  [{self.method}, {self.spectrum} spectrum, {self.nodes} kappa nodes"
                + (f" (node error {self.node_error:.1e})" if self.node_error is not None else "")
                + f", residual {self.residual:.1e}, {self.precision}]")


def _plain(v):
    """A float, or (per-group order parameters) a possibly nested list of floats."""
    return float(v) if np.ndim(v) == 0 else np.asarray(v, dtype=float).tolist()


def _fmt(v):
    if isinstance(v, list):
        return "[" + ", ".join(_fmt(x) for x in v) + "]"
    return f"{v:.6g}"
