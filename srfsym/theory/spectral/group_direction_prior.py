"""What the K-group priors with direction sums share (the realised layer split by letter,
:mod:`srfsym.theory.spectral.step_bulk_groups`, and the exact law split by letter,
:mod:`srfsym.theory.spectral.exact_bulk_groups`; docs/theory.md (g.4.1), (g.5.2)): ``theta`` and
``psi`` from the K x K sums ``F``, ``H`` and the cross sums ``X`` of the spike and teacher
directions (``theta = sqrt(beta) (F th^ + X psi^)``, ``psi = sqrt(beta) (H psi^ + X^T th^)``,
docs/theory.md (g.4), (g.4.1)) rather than the block-Wishart rules, and the derivative of
``(V1, V2)`` as a combination of the unit derivatives.

A subclass gives ``prior(V1hat, V2hat)`` (an object with ``V1, V2, F, H, X``), ``prior_units(pr)``
(derivatives along the K^2 ordered entries of ``V1^`` and the K of ``V2^``; the first two items
those of ``V1`` and ``V2``), ``second_moments(pr, hats)`` and ``sqrt_beta``.
"""
from __future__ import annotations

import numpy as np

from ..state import Hats, State

__all__ = ["DirectionGroupPrior"]


class DirectionGroupPrior:
    """Mixin: :meth:`prior_linear` (alias ``prior_derivative``), :meth:`freeze`, :meth:`overlaps` of a K-group prior with
    direction sums (module doc)."""

    def prior_linear(self, pr, dV1hat, dV2hat):
        """The derivative of ``(V1, V2)`` along ``(dV1^, dV2^)`` (from ``prior_units``)."""
        g1, g2 = self.prior_units(pr)[:2]
        coef = np.concatenate([np.ravel(dV1hat), np.ravel(dV2hat)])
        return np.einsum("d,dab->ab", coef, g1), coef @ g2

    prior_derivative = prior_linear

    #: the cross sums couple ``psi`` to ``th^``: the engine's affine solve takes ``psi`` at the
    #: solved ``(m, theta)`` (:func:`srfsym.theory.engine.complete`)
    cross = True

    def freeze(self, hat: Hats):
        """The prior at the conjugates' ``(V1^, V2^)``."""
        return self.prior(hat.V1hat, hat.V2hat)

    def overlaps(self, hat: Hats, m_new, pr=None) -> State:
        """The order parameters: ``(Q1, q2)`` from ``second_moments``, ``theta = sqrt(beta) (F
        th^ + X psi^)``, ``psi = sqrt(beta) (H psi^ + X^T th^)``."""
        if pr is None:
            pr = self.prior(hat.V1hat, hat.V2hat)
        Q1, q2 = self.second_moments(pr, hat)
        th = np.asarray(hat.thetahat, dtype=float)
        ps = np.asarray(hat.psihat, dtype=float)
        return State(q1=Q1, q2=q2, V1=pr.V1, V2=pr.V2,
                     theta=self.sqrt_beta * (pr.F @ th + pr.X @ ps),
                     psi=self.sqrt_beta * (pr.H @ ps + pr.X.T @ th), m=m_new)
