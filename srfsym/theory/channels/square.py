r"""The square-loss channel: the conjugates of docs/theory.md (f) and (k.7) in closed form.

For the square loss the proximal step is linear, ``f = (y - omega) w`` with
``w = 1/(1 + V(kappa))``, so every kappa-expectation of :mod:`srfsym.theory.interfaces` is a
closed form in the teacher moments ``h, h1, h2``::

    V(k)   = mu1^2 V1 + mu*^2 V2,  w = 1/(1+V),  b = mu0 m + mu1 k theta
    eps(k) = h2 - 2 b h - 2 mu1 psi h1 + b^2 + mu1^2 q1 + mu*^2 q2
    V1^ = (alpha/beta) E mu1^2 w            V2^ = (alpha/beta) E mu*^2 w
    q1^ = (alpha/beta) E mu1^2 eps w^2      q2^ = (alpha/beta) E mu*^2 eps w^2
    th^ = (alpha/sqrt beta) E k mu1 (h-b) w  psi^ = (alpha/sqrt beta) E mu1 h1 w
    m   : E mu0 (h - b) w = 0

(:class:`SquareLossChannel`, the uniform readout; one set per letter and the K x K
cross-group conjugates in :class:`GroupSquareLossChannel`).  The V-conjugates depend on
``(V1, V2)`` only and the rest is affine: ``closed_variance = True``.

The uniform channel runs in double precision on scalars, in mpmath on tuples of mpf, or
on columns of points (the batched grid, :mod:`srfsym.theory.grid`): the same methods.

>>> from srfsym.theory.channels.kappa_quadrature import channel_data
>>> ch = SquareLossChannel(channel_data("sin", "sin", 0.0, 1.0, 1.0, nodes=40), 2.0, 1.0)
>>> V1hat, V2hat, w = ch.v_hats(0.0, 0.0)          # w = 1: V1hat = alpha E mu1^2
>>> abs(V1hat - 2.0 * ch.E(ch.mu1sq)) < 1e-15
True
"""
from __future__ import annotations

import contextlib
import math

import mpmath
import numpy as np

from ..interfaces import Channel, ChannelStep
from ..state import Hats, State
from ...core.precision import workdps

__all__ = ["SquareLossChannel", "GroupSquareLossChannel", "PINV_RTOL"]

#: relative eigenvalue cut of the pseudo-inverse for the mean directions m (the mu0^(j)
#: are linearly dependent for symmetric vocabularies, e.g. {+1, -1}, exactly).
PINV_RTOL = 1e-12


class SquareLossChannel(Channel):
    """The square-loss channel of the uniform readout (K = 1) at one point.

    ``ch`` is a :class:`~srfsym.theory.channels.kappa_quadrature.ChannelData` (double or mpmath); ``alpha``,
    ``beta`` the sample and width ratios.
    """

    closed_variance = True
    K = 1

    def __init__(self, ch, alpha, beta):
        self.ch = ch
        self.precision = ch.precision
        self.mp = ch.precision != "double"
        if self.mp:
            conv = lambda t: np.array(t, dtype=object)   # noqa: E731
            self.sqrt = mpmath.sqrt
            self._dps = int(ch.precision.split(":")[1])
            with workdps(self._dps + 10):   # convert at working precision, not 53 bits
                self.alpha, self.beta = (mpmath.mpf(str(v)) if not isinstance(v, mpmath.mpf)
                                         else v for v in (alpha, beta))
        else:
            conv = lambda t: np.asarray(t, dtype=float)   # noqa: E731
            self.sqrt = math.sqrt
            self.alpha, self.beta = float(alpha), float(beta)
        self.kappa = conv(ch.kappa)
        self.mu0, self.mu1, self.mus2 = conv(ch.mu0), conv(ch.mu1), conv(ch.mustar2)
        self.h, self.h1, self.h2 = conv(ch.h), conv(ch.h1), conv(ch.h2)
        if self.mp:
            self.E = ch.E
        else:   # ch.E without its per-call type checks: float, or complex for complex integrands
            w = np.asarray(ch.weights, dtype=float)
            self.E = lambda values: np.dot(w, values).item()
        self._v_memo = None
        with (workdps(self._dps + 10) if self.mp else contextlib.nullcontext()):
            self.mu1sq = self.mu1 * self.mu1
            self.kmu1 = self.kappa * self.mu1
            # products the sweep uses at every call, formed once (the same operands in the
            # same order: the same numbers as forming them each time)
            self.mu1sq_mu1sq = self.mu1sq * self.mu1sq
            self.mu1sq_mus2 = self.mu1sq * self.mus2      # = mus2 * mu1sq (IEEE: commutes)
            self.mus2_mus2 = self.mus2 * self.mus2
            self.two_mu1 = 2 * self.mu1
            self.mu1_h1 = self.mu1 * self.h1
            self.mu0sq = self.mu0 * self.mu0
            self.E_h2 = self.E(self.h2)
            self._set_alpha(self.alpha)

    def _set_alpha(self, alpha):
        self.alpha = alpha
        self.a_b = self.alpha / self.beta
        self.a_sb = self.alpha / self.sqrt(self.beta)

    # --- the closed (V1, V2) part --------------------------------------------------------
    def weights(self, V1, V2):
        """``w(kappa) = 1/(1 + V(kappa))``."""
        return 1 / (1 + self.mu1sq * V1 + self.mus2 * V2)

    def v_hats(self, V1, V2):
        # remembered for the last (V1, V2) in double precision (scalars, compared by value):
        # Newton and the affine completion evaluate it repeatedly at the same point
        scalar = (not self.mp and isinstance(V1, (float, complex))
                  and isinstance(V2, (float, complex)))
        memo = self._v_memo
        if scalar and memo is not None and memo[0] == V1 and memo[1] == V2:
            return memo[2]
        out = self._v_hats(V1, V2)
        if scalar:
            self._v_memo = (V1, V2, out)
        return out

    def _v_hats(self, V1, V2):
        w = self.weights(V1, V2)
        return self.a_b * self.E(self.mu1sq * w), self.a_b * self.E(self.mus2 * w), w

    def v_hats_jacobian(self, w):
        """``d(V1hat, V2hat)/d(V1, V2)`` at the weights ``w``: kappa-expectations of
        ``-mu^4 w^2`` (nested tuples, so that it also applies entrywise to a batch)."""
        w2 = w * w
        a = -self.a_b
        cross = a * self.E(self.mu1sq_mus2 * w2)
        return ((a * self.E(self.mu1sq_mu1sq * w2), cross),
                (cross, a * self.E(self.mus2_mus2 * w2)))

    # --- means and the other conjugates -----------------------------------------------
    def m_update(self, theta, w):
        """m from E[mu0 (h - b) w] = 0 (0 when mu0 vanishes: no signal along 1)."""
        den = self.E(self.mu0sq * w)
        vanishing = den <= 1e-24 * (self.E_h2 + 1)
        if vanishing is True or (vanishing is not False and np.all(vanishing)):  # (batch: grid.py)
            return 0 * den
        return self.E(self.mu0 * (self.h - self.kmu1 * theta) * w) / den

    def conditional_error(self, s: State, b=None):
        """``eps(kappa)``: the conditional test error at each node (``b``: the mean
        ``mu0 m + mu1 kappa theta`` if already formed)."""
        if b is None:
            b = self.mu0 * s.m + self.kmu1 * s.theta
        return (self.h2 - 2 * b * self.h - self.two_mu1 * s.psi * self.h1 + b * b
                + self.mu1sq * s.q1 + self.mus2 * s.q2)

    def hats(self, s: State):
        """``(Hats, w)`` at the state ``s``."""
        hat, w, _ = self.hats_and_eps(s)
        return hat, w

    def mean_hats(self, s: State):
        """``(Hats, w)`` without the second-moment conjugates (``q1hat = q2hat = 0``): the
        mean conjugates, as the affine completion in (m, theta) reads them."""
        V1hat, V2hat, w = self.v_hats(s.V1, s.V2)
        b = self.mu0 * s.m + self.kmu1 * s.theta
        return Hats(0 * V1hat, 0 * V1hat, V1hat, V2hat,
                    self.a_sb * self.E(self.kmu1 * (self.h - b) * w),
                    self.a_sb * self.E(self.mu1_h1 * w)), w

    def hats_and_eps(self, s: State):
        """``(Hats, w, eps)``: :meth:`hats` and the conditional error it is built from."""
        V1hat, V2hat, w = self.v_hats(s.V1, s.V2)
        b = self.mu0 * s.m + self.kmu1 * s.theta
        eps = self.conditional_error(s, b)
        w2eps = w * w * eps
        return Hats(self.a_b * self.E(self.mu1sq * w2eps), self.a_b * self.E(self.mus2 * w2eps),
                    V1hat, V2hat, self.a_sb * self.E(self.kmu1 * (self.h - b) * w),
                    self.a_sb * self.E(self.mu1_h1 * w)), w, eps

    def errors(self, s: State, eps=None):
        """(test error, train error) = (E eps, E eps w^2) (``eps``: the conditional error
        at ``s``, if already formed)."""
        w = self.weights(s.V1, s.V2)
        if eps is None:
            eps = self.conditional_error(s)
        return self.E(eps), self.E(eps * w * w)

    # --- the shapes of the order parameters, for the engine's affine solves ------------
    def zeros(self, V1):
        """Zeros shaped like ``(V1, V2)`` and the scalar zero of the linear solves."""
        z = 0 * V1
        return z, z, z

    def pack_pair(self, a, b):
        return [a, b]

    def unpack_pair(self, x):
        return x[0], x[1]

    pack_mean = pack_second = pack_pair
    unpack_mean = unpack_second = unpack_pair

    def mean_vanishes(self):
        """No signal along the mean direction (``E mu0^2 = 0``): m is 0."""
        return self.E(self.mu0sq) == 0

    # --- the Channel interface ---------------------------------------------------------
    def conjugates(self, state, b0=None):
        hat, w = self.hats(state)
        return ChannelStep(hat, self.m_update(state.theta, w), None)

    def observables(self, state, b0=None):
        test, train = self.errors(state)
        return {"test_error": test, "train_error": train}


def _sym_index(K):
    """Ordered list of (j, l), j <= l: the coordinates of a symmetric K x K matrix."""
    return [(j, l) for j in range(K) for l in range(j, K)]


class GroupSquareLossChannel(Channel):
    """The square-loss channel of a readout vocabulary of K letters (docs/theory.md (k.7)),
    vectorised over the groups (double precision)::

        V(k)   = mu1^T V1 mu1 + sum_j mu*_j^2 V2_j,   w = 1/(1+V)
        b(k)   = sum_j (mu0_j m_j + k mu1_j theta_j),  s(k) = sum_j mu1_j psi_j
        eps(k) = h2 - 2 b h - 2 s h1 + b^2 + mu1^T Q1 mu1 + sum_j mu*_j^2 q2_j
        V1^_jl = (alpha/beta) E mu1_j mu1_l w          V2^_j = (alpha/beta) E mu*_j^2 w
        Q1^_jl = (alpha/beta) E mu1_j mu1_l eps w^2    q2^_j = (alpha/beta) E mu*_j^2 eps w^2
        th^_j  = (alpha/sqrt beta) E k mu1_j (h-b) w    psi^_j = (alpha/sqrt beta) E mu1_j h1 w
        m      : E mu0_j (h - b) w = 0  (j = 1..K; minimum-norm solution)
    """

    closed_variance = True

    def __init__(self, gch, alpha, beta):
        self.ch = gch
        self.K = gch.K
        self.precision = gch.precision
        self.alpha, self.beta = float(alpha), float(beta)
        self.a_b = self.alpha / self.beta
        self.a_sb = self.alpha / math.sqrt(self.beta)
        self.wq = np.asarray(gch.weights, dtype=float)
        self.kappa = np.asarray(gch.kappa, dtype=float)
        self.mu0 = np.asarray(gch.mu0, dtype=float)
        self.mu1 = np.asarray(gch.mu1, dtype=float)
        self.mus2 = np.asarray(gch.mustar2, dtype=float)
        self.h, self.h1, self.h2 = (np.asarray(getattr(gch, k), dtype=float)
                                    for k in ("h", "h1", "h2"))
        self.kmu1 = self.kappa * self.mu1
        self.E_h2 = self.E(self.h2)
        self.sym = _sym_index(self.K)

    # --- the shapes of the order parameters --------------------------------------------
    def zeros(self, V1):
        """Zeros shaped like ``(V1, V2)`` and the scalar zero of the linear solves."""
        return np.zeros((self.K, self.K)), np.zeros(self.K), 0.0

    def pack(self, M, v):
        """A symmetric K x K matrix and a K-vector as one vector (upper triangle first)."""
        return np.concatenate([[M[j, l] for j, l in self.sym], v])

    def unpack(self, x):
        K = self.K
        M = np.zeros((K, K))
        for v, (j, l) in zip(x, self.sym):
            M[j, l] = M[l, j] = v
        return M, np.asarray(x[len(self.sym):], dtype=float)

    pack_second, unpack_second = pack, unpack

    def pack_mean(self, m, theta):
        return np.concatenate([m, theta])

    def unpack_mean(self, x):
        x = np.asarray(x, dtype=float)
        return x[:self.K], x[self.K:]

    def mean_vanishes(self):
        return False      # the minimum-norm m of m_update handles vanishing directions

    # --- kappa expectations ----------------------------------------------------------
    def E(self, values):
        """kappa-expectation along the last axis."""
        return np.asarray(values) @ self.wq

    def outer_E(self, f, g, weight):
        """``E[f_j g_l weight]`` (a K x K matrix)."""
        return np.einsum("jn,ln,n->jl", f, g, weight * self.wq)

    # --- channel ---------------------------------------------------------------------
    def variance(self, V1, V2):
        """``V(kappa) = mu1^T V1 mu1 + sum_j mu*_j^2 V2_j``."""
        return np.einsum("jn,jl,ln->n", self.mu1, V1, self.mu1) + V2 @ self.mus2

    def weights(self, V1, V2):
        return 1 / (1 + self.variance(V1, V2))

    def v_hats(self, V1, V2):
        w = self.weights(V1, V2)
        return self.a_b * self.outer_E(self.mu1, self.mu1, w), self.a_b * self.E(self.mus2 * w), w

    def mean_part(self, m, theta):
        """``b(kappa) = sum_j mu0_j m_j + kappa mu1_j theta_j``."""
        return m @ self.mu0 + theta @ self.kmu1

    def _mean_cut(self, ev):
        return max(PINV_RTOL * max(float(np.max(np.abs(ev))), 0.0), 1e-24 * (self.E_h2 + 1))

    def m_update(self, theta, w):
        """m from ``E[mu0_j (h - b) w] = 0`` (minimum-norm solution)."""
        G = self.outer_E(self.mu0, self.mu0, w)
        u = self.E(self.mu0 * ((self.h - theta @ self.kmu1) * w))
        ev, Q = np.linalg.eigh(G)
        keep = ev > self._mean_cut(ev)
        return Q[:, keep] @ ((Q[:, keep].T @ u) / ev[keep])

    def mean_condition(self):
        """Condition number of the Gram matrix ``E[mu0_j mu0_l]`` on the directions the
        minimum-norm m keeps (1 without mean directions).  Nearly coinciding letters make it
        large: the unregularised ``m_j`` then fit a difference quotient of ``mu0``."""
        ev = np.linalg.eigvalsh(self.outer_E(self.mu0, self.mu0, np.ones_like(self.kappa)))
        kept = ev[ev > self._mean_cut(ev)]
        return float(kept.max() / kept.min()) if kept.size else 1.0

    def conditional_error(self, s: State):
        b = self.mean_part(s.m, s.theta)
        return (self.h2 - 2 * b * self.h - 2 * self.overlap_term(s.psi) + b * b
                + np.einsum("jn,jl,ln->n", self.mu1, s.q1, self.mu1) + s.q2 @ self.mus2)

    def overlap_term(self, psi):
        """``s(kappa) h1(kappa)`` with ``s = sum_j mu1_j psi_j``: the bulk's linear overlap
        with the teacher's component orthogonal to the spike."""
        return (psi @ self.mu1) * self.h1

    def psi_hat(self, w):
        """``psi^_j = (alpha/sqrt beta) E mu1_j h1 w``."""
        return self.a_sb * self.E(self.mu1 * (self.h1 * w))

    def hats(self, s: State):
        V1hat, V2hat, w = self.v_hats(s.V1, s.V2)
        eps = self.conditional_error(s)
        w2eps = w * w * eps
        b = self.mean_part(s.m, s.theta)
        return Hats(self.a_b * self.outer_E(self.mu1, self.mu1, w2eps),
                    self.a_b * self.E(self.mus2 * w2eps), V1hat, V2hat,
                    self.a_sb * self.E(self.kmu1 * ((self.h - b) * w)),
                    self.psi_hat(w)), w

    def errors(self, s: State):
        """(test error, train error) = (E eps, E eps w^2)."""
        w = self.weights(s.V1, s.V2)
        eps = self.conditional_error(s)
        return self.E(eps), self.E(eps * w * w)

    # --- the Channel interface ---------------------------------------------------------
    def conjugates(self, state, b0=None):
        hat, w = self.hats(state)
        return ChannelStep(hat, self.m_update(state.theta, w), None)

    def observables(self, state, b0=None):
        test, train = self.errors(state)
        return {"test_error": float(test), "train_error": float(train)}


class GroupMultiIndexSquareChannel(GroupSquareLossChannel):
    """:class:`GroupSquareLossChannel` for a multi-index target (docs/theory.md (n.7)): the
    teacher's component orthogonal to the spike is ``h1(kappa) . xi`` with a k-vector ``h1``
    (:mod:`srfsym.symbolic.multi_teacher`), so the overlaps are K x k matrices::

        s(k) h1 -> sum_jl mu1_j psi_jl h1_l,    psi^_jl = (alpha/sqrt beta) E mu1_j h1_l w

    (each letter learns its own direction ``psi^_j``); ``h, h2`` are the multi-index ones.

    >>> from srfsym.theory.channels.kappa_quadrature import group_channel_data
    >>> g = group_channel_data("tanh", "x", 1.0, 1.2, 0.6, [1, 2], nodes=40)
    >>> ch = GroupMultiIndexSquareChannel(g, 1.0, 1.0, np.ones((40, 3)))
    >>> ch.psi_hat(np.ones(40)).shape
    (2, 3)
    """

    def __init__(self, gch, alpha, beta, h1):
        super().__init__(gch, alpha, beta)
        h1 = np.asarray(h1, dtype=float)
        if h1.ndim != 2 or h1.shape[0] != self.kappa.shape[0]:
            raise ValueError(f"h1 must have one row per kappa node ({self.kappa.shape[0]}), "
                             f"got shape {h1.shape}")
        self.h1 = h1.T                                    # (k, nodes)
        self.k = h1.shape[1]

    def overlap_term(self, psi):
        P = np.asarray(psi, dtype=float)
        if P.ndim == 1:          # the engine's zero start (a K-vector of zeros)
            if np.any(P):
                raise ValueError("a multi-index overlap psi must be a K x k matrix")
            return np.zeros_like(self.kappa)
        return np.einsum("jl,jn,ln->n", P, self.mu1, self.h1)

    def psi_hat(self, w):
        return self.a_sb * self.outer_E(self.mu1, self.h1, w)
