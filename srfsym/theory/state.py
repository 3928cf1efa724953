"""The order parameters and conjugates of the fixed point, and its failure type.

Shared by every part of the engine (:mod:`srfsym.theory.interfaces`): the channel side
reads a :class:`State` and returns :class:`Hats`; the spectral side reads :class:`Hats`
and returns a :class:`State`.  For the uniform readout (K = 1) every field is a scalar; with
a readout vocabulary of K letters ``V1`` and ``q1`` are K x K matrices and the others
K-vectors (docs/theory.md (k.7)).

>>> State(0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 1.5).V1
3.0
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["State", "Hats", "ConvergenceError"]


class State(NamedTuple):
    """Order parameters (overlaps)."""
    q1: object
    q2: object
    V1: object
    V2: object
    theta: object
    psi: object
    m: object


class Hats(NamedTuple):
    """Conjugate parameters (theta_hat, psi_hat are those of the p-normalised overlaps)."""
    q1hat: object
    q2hat: object
    V1hat: object
    V2hat: object
    thetahat: object
    psihat: object


class ConvergenceError(RuntimeError):
    """The fixed point was not reached; carries the last residual and iterate.

    >>> ConvergenceError("no", residual=1.0).residual
    1.0
    """

    def __init__(self, message, residual=None, iterate=None):
        super().__init__(message)
        self.residual = residual
        self.iterate = iterate
