r"""The block-Wishart spectral side of a readout vocabulary (docs/theory.md (k.5), (k.7)).

K groups of features (letter ``omega_j``, weight ``pi_j``, bulk variance ``c_j``) share one
first layer; their resolvent traces ``r_j`` solve the block-Wishart equation, written
**once** here (:func:`block_wishart_map`) and used by both the ridge fixed point (real
``base_j = lambda + V2hat_j``, ``B = C^1/2 V1hat C^1/2``) and the feature spectrum (complex
``base_j = D_j - z``, ``B = Ctilde``)::

    r_j = 1 / (base_j + [B (I + beta Lambda B)^-1]_jj),   Lambda = diag(pi_j r_j).

For the fixed point, :class:`BlockWishartPrior` turns the conjugates into the order
parameters::

    V2_j = pi_j r_j,   V1 = C^1/2 (I + beta Lambda B)^-1 Lambda C^1/2
    theta_j = sqrt(beta) c_j V2_j th^_j,   psi = sqrt(beta) V1 psi^
    (Q1, q2) = -J[Q1^, q2^] - grad G,  G = sum_j c_j th^_j^2 V2_j + tr(psi^T V1 psi^)

where ``J = d(V1, V2)/d(V1^, V2^)`` is obtained exactly by differentiating the
r-equation implicitly (:meth:`BlockWishartPrior.prior_derivative`).  For a multi-index
target psi^ and psi are K x k matrices, one column per teacher direction orthogonal to the
spike (docs/theory.md (n.7)); the bulk is isotropic, so the columns add in G.  For K = 1 this is the
Marchenko-Pastur system (``derivations/12_vocabulary_test_error.py``).

>>> pr = BlockWishartPrior([1.0], [1.0], beta=1.0, lam=0.5).prior(np.array([[1.0]]), np.zeros(1))
>>> from srfsym.theory.spectral.marchenko_pastur import MarchenkoPastur
>>> bool(abs(pr.V2[0] - MarchenkoPastur(1.0, 1.0).moments(0.5, 1.0).inv) < 1e-14)
True
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..state import ConvergenceError, Hats, State

__all__ = ["GroupPrior", "BlockWishartPrior", "block_wishart_parts", "block_wishart_map"]


def block_wishart_parts(r, B, pi, beta):
    """``(Lambda, T, N)`` with ``Lambda = pi r`` (a vector), ``N = (I + beta Lambda B)^-1``,
    ``T = B N`` (real or complex; ``X = N Lambda = Lambda (I + beta B Lambda)^-1``).

    >>> Lam, T, N = block_wishart_parts(np.array([2.0]), np.array([[1.0]]), np.ones(1), 1.0)
    >>> float(T[0, 0])                                     # 1 / (1 + 2)
    0.3333333333333333
    """
    Lam = pi * r
    M = np.eye(len(r)) + beta * Lam[:, None] * B          # I + beta Lambda B
    N = np.linalg.inv(M)
    return Lam, B @ N, N


def block_wishart_map(r, base, B, pi, beta):
    """One application of the block-Wishart equation:
    ``r_j <- 1 / (base_j + [B (I + beta Lambda B)^-1]_jj)``.

    >>> block_wishart_map(np.array([1.0]), np.array([1.0]), np.array([[0.0]]), np.ones(1), 1.0)
    array([1.])
    """
    _, T, _ = block_wishart_parts(r, B, pi, beta)
    return 1 / (base + np.diag(T))


class GroupPrior(NamedTuple):
    """Solution of the block-Wishart prior at given (V1hat, V2hat).

    ``r`` the K resolvent values, ``Lam = pi r``, ``T = B (I + beta Lambda B)^-1``,
    ``N = (I + beta Lambda B)^-1``, ``X = N Lambda``, ``V1 = C^1/2 X C^1/2``, ``V2 = pi r``
    and ``Phi_r_inv`` the inverse Jacobian of the r-equation (for implicit derivatives).
    """
    r: np.ndarray
    Lam: np.ndarray
    B: np.ndarray
    T: np.ndarray
    N: np.ndarray
    X: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    Phi_r_inv: np.ndarray
    iterations: int
    cache: dict   # the derivatives along the unit directions, computed once (prior_units)



class BlockWishartPrior:
    """The prior side of the K-group fixed point: bulk variances ``c``, weights ``pi``, width
    ratio ``beta``, ridge ``lam``."""

    def __init__(self, c, pi, beta, lam):
        self.c = np.asarray(c, dtype=float)
        self.K = len(self.c)
        self.sqc = np.sqrt(self.c)
        self.pi = np.asarray(pi, dtype=float)
        self.beta, self.lam = float(beta), float(lam)

    def _prior_parts(self, r, B):
        return block_wishart_parts(r, B, self.pi, self.beta)

    def _r_map(self, r, B, V2hat):
        return block_wishart_map(r, self.lam + V2hat, B, self.pi, self.beta)

    def _phi_r(self, r, Lam, T):
        """Jacobian of Phi(r) = 1/r - lambda - V2hat - diag T(r) with respect to r."""
        return -np.diag(1 / r**2) + self.beta * (T * T.T) * self.pi[None, :]

    def prior(self, V1hat, V2hat) -> GroupPrior:
        """Solve the K r-equations: monotone iteration from the upper bound, then Newton."""
        V1hat = np.asarray(V1hat, dtype=float)
        V2hat = np.asarray(V2hat, dtype=float)
        base = self.lam + V2hat
        if not np.all(base > 0) or not np.all(np.isfinite(base)):
            raise ConvergenceError(
                f"the resolvent diverges: lambda + V2hat = {base.tolist()} must be > 0 for "
                "every group (with a vocabulary the ridgeless limit needs mu_star != 0)",
                residual=float("inf"))
        B = self.sqc[:, None] * V1hat * self.sqc[None, :]
        upper = 1 / base
        r = upper.copy()
        it = 0
        # monotone (decreasing) iteration from the upper bound: a safe start for Newton
        for it in range(1, 60):
            new = self._r_map(r, B, V2hat)
            change = np.max(np.abs(new - r) / r)
            r = new
            if change < 1e-3:   # close enough for Newton
                break
        polished = False
        for k in range(1, 100):
            Lam, T, N = self._prior_parts(r, B)
            phi = 1 / r - base - np.diag(T)
            step = -np.linalg.solve(self._phi_r(r, Lam, T), phi)
            if not np.all(np.isfinite(step)):
                break
            t = 1.0
            while np.any(r + t * step <= 0):
                t /= 2
            r = r + t * step
            if polished:            # one Newton step after the 1e-12 level: rounding level
                break
            polished = t == 1.0 and np.max(np.abs(step) / r) < 1e-12
        else:
            polished = False
        if not polished:
            raise ConvergenceError("the block-Wishart r-equation did not converge",
                                   residual=float(np.max(np.abs(phi))), iterate=r)
        Lam, T, N = self._prior_parts(r, B)
        X = N * Lam[None, :]                                        # N Lambda
        X = (X + X.T) / 2                                           # symmetric (rounding)
        V1 = self.sqc[:, None] * X * self.sqc[None, :]
        V2 = self.pi * r
        Phi_r_inv = np.linalg.inv(self._phi_r(r, Lam, T))
        return GroupPrior(r, Lam, B, T, N, X, V1, V2, Phi_r_inv, it + k, {})

    def prior_derivative(self, pr: GroupPrior, dV1hat, dV2hat):
        """Directional derivative ``(dV1, dV2)`` of the prior map along ``(dV1hat, dV2hat)``
        (any K x K direction, symmetric or not; leading axes are a batch of directions):
        implicit differentiation of the r-equation,
        ``dT = (I - beta T Lambda) dB N - beta T dLambda T``,
        ``dX = N dLambda - N beta (dLambda B + Lambda dB) X``."""
        dV1hat, dV2hat = np.asarray(dV1hat, dtype=float), np.asarray(dV2hat, dtype=float)
        dB = self.sqc[:, None] * dV1hat * self.sqc[None, :]
        left = np.eye(self.K) - self.beta * pr.T * pr.Lam[None, :]     # I - beta T Lambda
        dphi = -dV2hat - np.einsum("jk,...kl,lj->...j", left, dB, pr.N)
        dr = -np.einsum("jk,...k->...j", pr.Phi_r_inv, dphi)
        dLam = self.pi * dr
        dX = (pr.N * dLam[..., None, :]
              - self.beta * pr.N @ (dLam[..., :, None] * pr.B + pr.Lam[:, None] * dB) @ pr.X)
        return self.sqc[:, None] * dX * self.sqc[None, :], self.pi * dr

    def prior_units(self, pr: GroupPrior):
        """``(g1, g2)``: the derivatives of ``(V1, V2)`` along the K^2 ordered entries of
        ``V1hat`` (m-major) and then the K entries of ``V2hat``; shapes ``(K^2 + K, K, K)``
        and ``(K^2 + K, K)``.  Every other derivative is a linear combination of these."""
        if "units" not in pr.cache:
            K = self.K
            d1 = np.zeros((K * K + K, K, K))
            d1[:K * K] = np.eye(K * K).reshape(K * K, K, K)
            d2 = np.zeros((K * K + K, K))
            d2[K * K:] = np.eye(K)
            pr.cache["units"] = self.prior_derivative(pr, d1, d2)
        return pr.cache["units"]

    def prior_linear(self, pr: GroupPrior, dV1hat, dV2hat):
        """:meth:`prior_derivative` as a combination of :meth:`prior_units` (same numbers up
        to rounding; cheap once the units are known)."""
        g1, g2 = self.prior_units(pr)
        coef = np.concatenate([np.ravel(dV1hat), dV2hat])
        return np.einsum("d,dab->ab", coef, g1), coef @ g2

    def second_moments(self, pr: GroupPrior, hat: Hats):
        """``(Q1, q2) = -J[Q1hat, q2hat] - grad G`` (G with thetahat, psihat fixed)."""
        K = self.K
        g1, g2 = self.prior_units(pr)
        dV1, dV2 = self.prior_linear(pr, hat.q1hat, hat.q2hat)
        th = np.asarray(hat.thetahat)
        if th.ndim == 2:      # a vector kappa (docs/theory.md (p.4)): c_j th_j^2 -> th_j^T C_j th_j
            cth2 = np.einsum("ja,jab,jb->j", th, _metric(self, th.shape[1]), th)
        else:
            cth2 = self.c * th**2
        # a K x k matrix for a multi-index target (one column per orthogonal direction, (n.7))
        psihat = np.asarray(hat.psihat, dtype=float).reshape(K, -1)
        grad = (g2 @ cth2
                + np.einsum("al,dab,bl->d", psihat, g1, psihat))   # dG along each unit
        Q1 = -dV1 - grad[:K * K].reshape(K, K)
        q2 = -dV2 - grad[K * K:]
        return (Q1 + Q1.T) / 2, q2

    def freeze(self, hat: Hats) -> GroupPrior:
        """The r-equation's solution at the conjugates' (V1hat, V2hat)."""
        return self.prior(hat.V1hat, hat.V2hat)

    def overlaps(self, hat: Hats, m_new, pr: GroupPrior | None = None) -> State:
        if pr is None:
            pr = self.prior(hat.V1hat, hat.V2hat)
        sb = math.sqrt(self.beta)
        Q1, q2 = self.second_moments(pr, hat)
        return State(q1=Q1, q2=q2, V1=pr.V1, V2=pr.V2,
                     theta=_per_group(self, sb * pr.V2, hat.thetahat),
                     psi=sb * pr.V1 @ hat.psihat,
                     m=m_new)


def _metric(prior, r):
    """Per group the bulk's covariance along the r directions of a vector kappa
    (``theta_metric``, set by the caller, docs/theory.md (p.4)), else ``c_j`` times the
    identity."""
    metric = getattr(prior, "theta_metric", None)
    if metric is not None:
        return metric
    return np.asarray(prior.c, dtype=float)[:, None, None] * np.eye(r)


def _per_group(prior, factor, thetahat):
    """``c_j factor_j thetahat_j``; with a vector kappa (K x r thetahat) ``factor_j C_j
    thetahat_j``, ``C_j`` the group's bulk covariance along the directions."""
    thetahat = np.asarray(thetahat)
    if thetahat.ndim == 2:
        return factor[:, None] * np.einsum("jab,jb->ja", _metric(prior, thetahat.shape[1]), thetahat)
    return factor * prior.c * thetahat
