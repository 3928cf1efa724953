r"""A convex readout loss with a readout vocabulary of K letters (docs/theory.md (m.8)).

The channel of :mod:`srfsym.theory.channels.convex` sees the order parameters only through
four numbers per kappa node: the mean ``b(kappa)``, the variance ``Q(kappa)`` and the
replica variance ``V(kappa)`` of the cavity field and its covariance ``s(kappa)`` with the
teacher's ``z``.  With K groups (docs/theory.md (k.7)) these are sums over the groups::

    b = b0 + sum_j (mu0_j m_j + kappa mu1_j theta_j),   s = sum_j mu1_j psi_j
    Q = mu1^T Q1 mu1 + sum_j mu*_j^2 q2_j,              V = mu1^T V1 mu1 + sum_j mu*_j^2 V2_j

so the proximal step and the four per-kappa expectations ``E f, E f^2, E g, E[z f]`` are
those of the uniform readout at these totals (one proximal pass per sweep, whatever K), and
the conjugates are the derivatives of the channel potential ``Psi = E_kappa E M_V(y, omega)``
through ``dQ/dQ1_jl = mu1_j mu1_l``, ``dV/dV2_j = mu*_j^2``, ...::

    V1^_jl = (alpha/beta) E_k mu1_j mu1_l E g        V2^_j = (alpha/beta) E_k mu*_j^2 E g
    Q1^_jl = (alpha/beta) E_k mu1_j mu1_l E f^2      q2^_j = (alpha/beta) E_k mu*_j^2 E f^2
    th^_j  = (alpha/sqrt beta) E_k kappa mu1_j E f
    psi^_j = (alpha/sqrt beta) E_k mu1_j (E[z f] + s E g)
    m : E_k mu0_j E f = 0 (j = 1..K, minimum norm),   b0 : E_k E f = 0.

For the square loss ``E f = (h - b) w``, ``E f^2 = eps w^2``, ``E g = w``,
``E[z f] = (h1 - s) w`` and these are the conjugates of
:class:`~srfsym.theory.channels.square.GroupSquareLossChannel`.  The prior is the ridge's
block-Wishart side (:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`); the
engine's sweep is iterated as for the uniform convex readout
(:func:`srfsym.theory.convex_fixed_point._solve_engine`).

The solver (the unknowns packed as one vector, the warm start, the iteration) is
:func:`srfsym.theory.convex_groups.solve_convex_groups`, beside the engine.
"""
from __future__ import annotations

import math

import numpy as np

from .convex import ConvexChannel, _channel_point
from .square import PINV_RTOL, _sym_index
from ..state import Hats, State

__all__ = ["GroupConvexChannel"]


class GroupConvexChannel(ConvexChannel):
    """:class:`~srfsym.theory.channels.convex.ConvexChannel` on the channel data of a readout
    vocabulary (:class:`~srfsym.theory.channels.kappa_quadrature.GroupChannelData`, any K, also K = 1): the
    same labels, rules and proximal step; the state has K x K ``V1, q1`` and K-vectors
    ``V2, q2, theta, psi, m`` (docs/theory.md (m.8)).

    >>> from srfsym.theory.channels.kappa_quadrature import group_channel_data
    >>> g = group_channel_data("tanh", "sign", 1.0, 1.1, 0.8, [1, 2], nodes=40)
    >>> C = GroupConvexChannel(g, "logistic", alpha=2.0, beta=1.0, teacher="sign", nodes_u=8)
    >>> s = State(0.5 * np.eye(2), np.full(2, 0.3), 0.5 * np.eye(2), np.full(2, 0.5),
    ...           np.full(2, 0.2), np.full(2, 0.1), np.zeros(2))
    >>> step = C.conjugates(s)
    >>> step.hats.V1hat.shape, bool(np.allclose(step.hats.q1hat, step.hats.q1hat.T))
    ((2, 2), True)
    """

    def __init__(self, gch, loss="square", **kwargs):
        super().__init__(gch, loss, **kwargs)
        self.K = gch.K
        self.gmu0, self.gmu1, self.gmus2 = (
            np.asarray(getattr(gch, n), float).reshape(self.K, -1)[:, self._live]
            for n in ("mu0", "mu1", "mustar2"))          # the live kappa nodes of the channel
        self.kmu1 = self.k * self.gmu1
        self.sym = _sym_index(self.K)
        # the uniform readout's rows are not used here (an accidental use fails loudly)
        self.mu0 = self.mu1 = self.mus2 = self.mu1sq = None
        # the directions of (m, b0) the data see: E[a a^T] on the rows a = mu0_j (and 1)
        rows = [*self.gmu0] + ([np.ones_like(self.k)] if self.trained_bias else [])
        self._mean_rows = np.array(rows)
        gram = np.einsum("jn,ln,n->jl", self._mean_rows, self._mean_rows, self.w)
        ev, U = np.linalg.eigh(gram)
        keep = ev > max(PINV_RTOL * max(float(np.max(np.abs(ev))), 0.0), 1e-24)
        self._mean_basis = U[:, keep]

    # --- state -> per-kappa Gaussian ------------------------------------------------
    def point(self, q1, q2, V1, V2, theta, psi, m, b0=0.0):
        mu1, mus2 = self.gmu1, self.gmus2
        b = b0 + np.asarray(m, float) @ self.gmu0 + self.theta_part(theta)
        Q = np.maximum(np.einsum("jn,jl,ln->n", mu1, np.asarray(q1, float), mu1)
                       + np.asarray(q2, float) @ mus2, 0.0)
        V = np.maximum(np.einsum("jn,jl,ln->n", mu1, np.asarray(V1, float), mu1)
                       + np.asarray(V2, float) @ mus2, 0.0)
        psi = np.asarray(psi, float)
        return _channel_point(b, Q, V, psi @ mu1, psi)

    def theta_part(self, theta):
        """``sum_j kappa mu1_j theta_j`` per node (a vector kappa overrides it)."""
        return np.asarray(theta, float) @ self.kmu1

    # --- the channel equations ------------------------------------------------------
    def hats(self, mom, psi):
        """The K-group conjugates from the per-kappa moments (module text)."""
        a_b, a_sb = self.alpha / self.beta, self.alpha / math.sqrt(self.beta)
        mu1, w = self.gmu1, self.w
        s = np.asarray(psi, float) @ mu1
        outer = lambda v: np.einsum("jn,ln,n->jl", mu1, mu1, w * v)   # noqa: E731
        return Hats(a_b * outer(mom["Ef2"]), a_b * (self.gmus2 @ (w * mom["Ef2"])),
                    a_b * outer(mom["Eg"]), a_b * (self.gmus2 @ (w * mom["Eg"])),
                    a_sb * (self.kmu1 @ (w * mom["Ef"])),
                    a_sb * (mu1 @ (w * (mom["Ezf"] + s * mom["Eg"]))))

    def bias_step(self, mom, m, b0, bias):
        """One Newton step on the convex potential in ``(m, b0)`` restricted to the
        directions the data see (the minimum-norm ``m`` of the ridge: components along
        ``sum_j c_j mu0_j = 0`` stay 0); the same cap on wild steps as the uniform readout."""
        x = np.concatenate([np.asarray(m, float), [b0] if bias else []])
        U = self._mean_basis
        A, w = self._mean_rows, self.w
        if U.shape[1] == 0:
            new = np.zeros_like(x)
        else:
            grad = U.T @ (A @ (w * mom["Ef"]))
            hess = U.T @ np.einsum("jn,ln,n->jl", A, A, w * mom["Eg"]) @ U
            try:
                step = U @ np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:
                step = U @ (grad / np.maximum(np.diag(hess), 1e-12))
            cap = 2.0 + 0.5 * float(np.sum(np.abs(x)))
            step *= min(1.0, cap / max(float(np.max(np.abs(step))), 1e-300))
            new = U @ (U.T @ (x + step))
        return new[:self.K], (float(new[self.K]) if bias else 0.0)

    _m_of = staticmethod(lambda m: np.asarray(m, float))     # one m_j per letter
