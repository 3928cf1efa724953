r"""The ridge test error after several giant steps: the K-group channel with a vector kappa
(docs/theory.md (p.4)).

After T steps (:func:`srfsym.step.several_steps.several_steps`) a neuron of letter j has the
pre-activation ``b + u_j(zeta)``, ``u_j = m_j . zeta``, with ``zeta`` the input's coordinates
in the low-dimensional subspace that holds the target directions and the spikes, and ``b`` the
bulk field of variance ``c_j``.  Conditionally on ``zeta`` the features are Gaussian-equivalent
to ``mu0_j(zeta) + mu1_j(zeta) (bulk field) + mu*_j(zeta) xi`` with the one-step coefficients
of docs/theory.md (d) at ``r kappa -> u_j(zeta)``; the label ``g(z(zeta))`` is a function of
``zeta`` (``h = g``, ``h1 = 0``, ``h2 = g^2``).  The kappa rule of the K-group channel becomes
a tensor Gauss-Hermite rule over ``zeta`` (the span of the target directions and the spikes),
and the bulk-linear overlap ``theta_j`` becomes a vector (one entry per direction of
``zeta``, the bulk being isotropic): ``b(zeta) = sum_j mu0_j m_j + sum_{j,a} zeta_a mu1_j
theta_{j,a}``, ``th^_{j,a} = (alpha/sqrt beta) E zeta_a mu1_j (h - b) w``.  The prior is the
block-Wishart prior of (k.7) unchanged (its ``theta`` rule applied per direction).

>>> from srfsym.step.several_steps import several_steps
>>> ch = subspace_channel_data("tanh", several_steps("tanh", "sin", 1, 2, 1).states[1], "sin")
>>> ch.K, ch.zeta.shape[0]
(1, 2)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .convex_groups import GroupConvexChannel
from .square import GroupSquareLossChannel

__all__ = ["SubspaceChannelData", "subspace_channel_data", "SubspaceSquareLossChannel",
           "SubspaceConvexChannel"]


@dataclass(frozen=True)
class SubspaceChannelData:
    """cGET coefficients of every letter at the nodes of a tensor rule over ``zeta``."""

    zeta: np.ndarray          # (r, N) node coordinates
    weights: np.ndarray       # (N,)
    mu0: np.ndarray           # (K, N)
    mu1: np.ndarray
    mustar2: np.ndarray
    h: np.ndarray             # (N,)
    h1: np.ndarray
    h2: np.ndarray
    vocabulary: object
    group_c: tuple
    nodes: int
    theta_metric: np.ndarray = None   # (K, r, r): the bulk's covariance along the directions
    precision: str = "double"
    target_map: np.ndarray = None     # (k, r): z = target_map @ zeta

    @property
    def K(self) -> int:
        return self.mu0.shape[0]

    @property
    def kappa(self):
        """The first coordinate of the nodes (the K-group channel's scalar kappa; the vector
        channel replaces what it builds from it)."""
        return self.zeta[0]


def subspace_channel_data(student, state, target, nodes: int = 24,
                          isotropic: bool = True, shrink: int = 0,
                          max_points: int | None = None) -> SubspaceChannelData:
    """The channel data of a T-step state (:class:`~srfsym.step.several_steps.StepState`).

    The bulk's covariance along the subspace is the map's ``bulk_in_subspace`` (``isotropic``:
    ``c_j`` times the identity, the one-step theory's assumption).

    ``nodes`` Gauss-Hermite nodes per dimension of ``span(theta_1..theta_k, m_j)`` (fewer in
    high dimension: at most :data:`~srfsym.step.several_steps.MAX_POINTS` points), minus
    ``shrink`` (the node-error twin); ``max_points`` a smaller cap on the rule's points (the
    convex channel's inner integrals multiply them).
    """
    from ...symbolic.cget import cget_coefficients
    from ...step.several_steps import MAX_POINTS, has_jump, subspace_rule
    from ...step.step_target import Z, step_target
    from ...step.vocabulary import vocabulary
    from ...symbolic.activations import lambdify_numpy
    tgt = step_target(target)
    spikes, c = np.asarray(state.spikes, float), np.asarray(state.bulk_variances, float)
    K, D = spikes.shape
    Q, Y, w, n = subspace_rule(state.k, spikes, nodes, shrink, has_jump(tgt), wide_1d=False,
                               max_points=MAX_POINTS if max_points is None else max_points)
    r = Q.shape[1]
    z = Y @ Q[:state.k].T
    u = Y @ (Q.T @ spikes.T)                                  # (N, K)
    co = cget_coefficients(student).numpy()
    rows = [co(u[:, j], 1.0, c[j]) for j in range(K)]
    mu0, mu1, mus2 = (np.array([np.broadcast_to(np.asarray(row[i], float), u[:, 0].shape)
                                for row in rows]) for i in range(3))
    g = np.broadcast_to(np.asarray(lambdify_numpy(Z[:tgt.k], tgt.expr)(*z.T), float),
                        (Y.shape[0],))
    voc = vocabulary(list(state.letters), list(state.weights))
    metric = np.einsum("da,jde,eb->jab", Q, state.bulk_in_subspace, Q) if isotropic is False \
        else np.array([cj * np.eye(r) for cj in c])
    return SubspaceChannelData(np.ascontiguousarray(Y.T), w, mu0, mu1, mus2, g.copy(),
                               np.zeros_like(g), g * g, voc, tuple(float(v) for v in c), n,
                               metric, target_map=np.ascontiguousarray(Q[:state.k]))


class SubspaceSquareLossChannel(GroupSquareLossChannel):
    """:class:`GroupSquareLossChannel` with a vector kappa: ``theta`` is K x r (see the
    module doc); everything else is the K-group channel."""

    def __init__(self, sch: SubspaceChannelData, alpha, beta):
        super().__init__(sch, alpha, beta)
        self.r = sch.zeta.shape[0]
        self.kmu1 = sch.zeta[None, :, :] * self.mu1[:, None, :]      # (K, r, N)

    def _theta(self, theta):
        theta = np.asarray(theta, dtype=float)
        return np.broadcast_to(theta[:, None], (self.K, self.r)) if theta.ndim == 1 else theta

    def pack_mean(self, m, theta):
        return np.concatenate([m, np.ravel(self._theta(theta))])

    def unpack_mean(self, x):
        x = np.asarray(x, dtype=float)
        return x[:self.K], x[self.K:].reshape(self.K, self.r)

    def mean_part(self, m, theta):
        return m @ self.mu0 + np.einsum("ja,jan->n", self._theta(theta), self.kmu1)

    def m_update(self, theta, w):
        G = self.outer_E(self.mu0, self.mu0, w)
        u = self.E(self.mu0 * ((self.h - self.mean_part(0 * self.mu0[:, 0], theta)) * w))
        ev, Q = np.linalg.eigh(G)
        keep = ev > self._mean_cut(ev)
        return Q[:, keep] @ ((Q[:, keep].T @ u) / ev[keep])


class SubspaceConvexChannel(GroupConvexChannel):
    """:class:`~srfsym.theory.channels.convex_groups.GroupConvexChannel` with a vector kappa
    (docs/theory.md (p.4)): the convex channel's proximal step and label integrals on the
    tensor rule over ``zeta``, the bulk-linear overlap ``theta`` K x r as in
    :class:`SubspaceSquareLossChannel`.

    Given ``zeta`` the label is a function of the node: the convex channel's label law is used
    with ``gamma = 1``, ``rho = 0`` and its "kappa" set to the label's field ``t(zeta)``: the
    target itself (real labels, teacher ``x``: ``y = t + sqrt(noise) xi0``) or, for a target
    ``sign(t)``, its argument (labels +-1, teacher ``sign``: ``y = sign(t)``, probit flips of
    variance ``noise``).  No part of the label is orthogonal to ``zeta``, so ``psi`` stays 0.

    >>> from srfsym.step.several_steps import several_steps
    >>> st = several_steps("tanh", "sign", 1, 2, 2).states[2]
    >>> C = SubspaceConvexChannel(subspace_channel_data("tanh", st, "sign", 16), "logistic",
    ...                           "sign", alpha=2.0, beta=1.0)
    >>> C.teacher.name, C.kmu1.shape[:2]
    ('sign', (1, 2))
    """

    def __init__(self, sch: SubspaceChannelData, loss, target, *, alpha, beta, noise=0.0,
                 bias=False, nodes_u=16):
        from types import SimpleNamespace
        from ...step.step_target import Z, step_target
        from ...symbolic.activations import lambdify_numpy
        tgt = step_target(target)
        expr = tgt.expr
        sign = expr.func.__name__ == "sign"
        field = expr.args[0] if sign else expr
        r = sch.zeta.shape[0]
        z = sch.zeta.T[:, :r] if sch.target_map is None else sch.zeta.T @ sch.target_map.T
        t = np.broadcast_to(np.asarray(lambdify_numpy(Z[:tgt.k], field)(*z.T), float),
                            sch.weights.shape).copy()
        data = SimpleNamespace(precision="double", weights=sch.weights, kappa=t, gamma=1.0,
                               mu0=sch.mu0, mu1=sch.mu1, mustar2=sch.mustar2, h=sch.h,
                               h1=sch.h1, h2=sch.h2, K=sch.K)
        super().__init__(data, loss, alpha=alpha, beta=beta, teacher="sign" if sign else "x",
                         noise=noise, bias=bias, nodes_u=nodes_u)
        # real labels: nothing of the label is left outside zeta (rho = 0), one z node
        one = np.ones((len(self.k), 1))
        self._zr = (0 * one, one, self.k[:, None].copy())
        self.r = r
        self.kmu1 = sch.zeta[None, :, self._live] * self.gmu1[:, None, :]   # (K, r, N)

    def theta_part(self, theta):
        theta = np.asarray(theta, float)
        theta = np.broadcast_to(theta[:, None], (self.K, self.r)) if theta.ndim == 1 else theta
        return np.einsum("ja,jan->n", theta, self.kmu1)
