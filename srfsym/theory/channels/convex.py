r"""The channel of a convex readout loss: per-kappa Gaussian expectations of the proximal
step, the conjugates, the bias / ``m`` conditions and the observables (docs/theory.md (m)).

Conditionally on ``kappa`` the cavity field of a sample is Gaussian,
``omega = b + sqrt(Q) u`` with ``b = b0 + mu0 m + mu1 kappa theta`` and
``Q = mu1^2 q1 + mu*^2 q2``; the teacher's orthogonal Gaussian ``z`` has correlation
``varrho = mu1 psi / sqrt(Q)`` with ``u``, and ``V = mu1^2 V1 + mu*^2 V2``.  With
``f, g`` the proximal quantities of :mod:`srfsym.theory.channels.losses` at ``(y, omega, V)``,
the channel needs four numbers per kappa node, ``E f``, ``E f^2``, ``E g`` and ``E[z f]``:

    V1^ = (alpha/beta) E_k mu1^2 E g          V2^ = (alpha/beta) E_k mu*^2 E g
    q1^ = (alpha/beta) E_k mu1^2 E f^2        q2^ = (alpha/beta) E_k mu*^2 E f^2
    th^ = (alpha/sqrt beta) E_k kappa mu1 E f
    psi^ = (alpha/sqrt beta) E_k mu1 (E[z f] + mu1 psi E g)
    m : E_k mu0 E f = 0,      b0 : E_k E f = 0 (only with a trained bias).

They are computed, for all kappa nodes and all inner nodes at once (one vectorised
proximal step per sweep), by

* **labels +-1** (teacher ``sign``, probit flips ``noise``): a one-dimensional integral over
  ``u`` per label with the closed-form label law
  ``P(y = 1 | kappa, u) = Phi(tau)``, ``tau = (gamma kappa + rho varrho u) / delta``,
  ``delta = sqrt(rho^2 (1 - varrho^2) + noise)``, and
  ``E[z 1{y=1} | u] = varrho u Phi(tau) + rho (1 - varrho^2) phi(tau) / delta``:
  composite Gauss-Legendre on [-10, 10] split where the integrands are not smooth (the
  loss's kinks and the sign change of the prediction);
* **real labels** ``y = teacher(gamma kappa + rho z) + sqrt(noise) xi0``: ``omega = b +
  mu1 psi z + s xi`` (``s^2 = Q - mu1^2 psi^2``), composite Gauss-Legendre in ``z`` (split
  at the teacher's kinks) times Gauss-Hermite in ``xi`` (and in ``xi0``; for a loss of
  ``y - yhat`` the two noises merge into one Gaussian of variance ``s^2 + noise``);
* **the square loss in closed form** (``E f = (h - b) w`` etc., ``w = 1/(1 + V)``), the
  fast channel: it is today's ridge channel with ``h2 + noise`` in the training terms.

>>> from srfsym.theory.channels.kappa_quadrature import channel_data
>>> ch = channel_data("tanh", "sign", 1.0, 1.1, 0.8, nodes=60)
>>> C = ConvexChannel(ch, "logistic", alpha=2.0, beta=1.0, teacher="sign")
>>> mom = C.moments(C.point(0.5, 0.6, 1.0, 1.2, 0.3, 0.2, 0.5))
>>> sorted(mom)[:4], mom["Ef"].shape == C.k.shape
(['Ef', 'Ef2', 'Eg', 'Ezf'], True)
>>> step = C.conjugates(State(0.5, 0.6, 1.0, 1.2, 0.3, 0.2, 0.5))   # the engine's contract
>>> abs(float(np.dot(C.w, C.mu0 * C.moments(C.point(0.5, 0.6, 1.0, 1.2, 0.3, 0.2,
...                                                  step.m))["Ef"]))) < 1e-12
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.special import ndtr

from ...symbolic.activations import activation
from ...symbolic.quadrature import gauss_hermite
from ..interfaces import Channel, ChannelStep
from .label_law import TeacherSmoothing
from .losses import LossError, loss as make_loss
from ..state import Hats, State

__all__ = ["ConvexChannel", "ChannelPoint", "LABEL_HALF_WIDTH", "LABEL_RULES"]

#: Inner Gaussian integrals run over [-L, L] (mass beyond: 1.5e-23).
LABEL_HALF_WIDTH = 10.0
#: kappa nodes lighter than this (relative to the heaviest) are left out of the channel: their
#: terms are below 1e-30 of the kappa-averages, nothing in double precision.
_DEAD_WEIGHT = 1e-30
_SQ2PI = math.sqrt(2 * math.pi)


@lru_cache(maxsize=None)
def _leggauss(n):
    """Gauss-Legendre nodes and weights on [-1, 1] (cached: numpy takes ~1 ms each)."""
    return np.polynomial.legendre.leggauss(n)


#: Label rules: ``"teacher"`` (y = sigma*(h) + noise; sign labels with a probit flip for the
#: teacher sign) and ``"bernoulli"`` (y = +-1 with P(y = 1 | h) = (1 + sigma*(h + sqrt(noise)
#: xi))/2, E[y | h] = sigma*(h); the teacher tanh gives P(y = 1) = 1/(1 + exp(-2h))).
LABEL_RULES = ("teacher", "bernoulli")


def check_label_rule(rule, teacher):
    """The label rule, checked: Bernoulli labels need a teacher with values in [-1, 1]."""
    if rule not in LABEL_RULES:
        raise ValueError(f"label_rule must be one of {LABEL_RULES}, got {rule!r}")
    if rule == "bernoulli" and str(teacher.expr) != "sign(x)":
        if teacher.kinks:
            raise ValueError(f"label_rule 'bernoulli' needs a smooth teacher (or sign), got "
                             f"{teacher.name!r} with kinks at {teacher.kinks}")
        grid = np.linspace(-60.0, 60.0, 24001)
        with np.errstate(all="ignore"):
            vals = np.asarray(teacher.numpy(grid), float) * np.ones_like(grid)
        if not (np.all(np.isfinite(vals)) and np.all(np.abs(vals) <= 1 + 1e-12)):
            raise ValueError(
                f"label_rule 'bernoulli' draws y = +-1 with P(y = 1) = (1 + sigma*(h))/2: the "
                f"teacher {teacher.name!r} must take values in [-1, 1] (e.g. tanh, erf, sign); "
                f"it reaches {np.nanmax(np.abs(vals)):.3g}")
    return rule


def _channel_point(b, Q, V, s, psi):
    """The :class:`ChannelPoint` of per-kappa ``b, Q, V`` and ``s`` (``varrho = s/sqrt Q``)."""
    sq = np.sqrt(Q)
    with np.errstate(divide="ignore", invalid="ignore"):
        varrho = np.where(sq > 1e-150, s / sq, 0.0)
    return ChannelPoint(b, Q, V, np.clip(varrho, -1.0, 1.0), psi, s)


def _phi(t):
    return np.exp(-0.5 * t * t) / _SQ2PI


@dataclass
class ChannelPoint:
    """Per-kappa quantities at one state: mean ``b``, variance ``Q``, replica variance
    ``V``, correlation ``varrho`` of the prediction with the teacher's ``z`` and the
    covariance ``s = mu1 psi`` (K groups: ``sum_j mu1_j psi_j``) behind it."""

    b: np.ndarray
    Q: np.ndarray
    V: np.ndarray
    varrho: np.ndarray
    psi: object
    s: np.ndarray


class ConvexChannel(Channel):
    """The channel of one (student, teacher, loss, noise) on the kappa rule of ``ch``
    (a :class:`~srfsym.theory.channels.kappa_quadrature.ChannelData` in double precision), a
    :class:`~srfsym.theory.interfaces.Channel` of the fixed-point engine (uniform readout,
    ``K = 1``; ``trained_bias`` with ``bias=True``).

    ``method``: "closed" (square loss only, the default for it) or "quadrature".
    ``nodes_u``: Gauss-Legendre nodes per piece of the label integral (labels +-1);
    ``nodes_z``, ``nodes_xi``: the same for real labels.
    """

    K = 1
    closed_variance = False

    def __init__(self, ch, loss="square", *, alpha, beta, teacher, noise=0.0, bias=False,
                 method=None, nodes_u=16,
                 nodes_z=24, nodes_xi=32, nodes_xi0=16, threshold=0.0,
                 u_pieces=(-4.0, 0.0, 4.0), label_rule="teacher"):
        if ch.precision != "double":
            raise ValueError("the convex-loss channel works in double precision (no dps)")
        self.ch, self.loss = ch, make_loss(loss)
        self.alpha, self.beta = float(alpha), float(beta)
        self.trained_bias = bool(bias)
        self.noise, self.threshold = float(noise), float(threshold)
        if not (math.isfinite(self.noise) and self.noise >= 0):
            raise ValueError(f"the label noise must be a number >= 0, got {noise!r}")
        act = activation(teacher)
        self.teacher = act
        self.label_rule = check_label_rule(label_rule, act)
        self.pm1 = str(act.expr) == "sign(x)" or self.label_rule == "bernoulli"
        # Bernoulli labels of a smooth teacher: P(y = 1 | h) = (1 + sigma*(h))/2 (a sign
        # teacher is the probit law below, with nothing random left at noise = 0)
        self.bernoulli = self.label_rule == "bernoulli" and str(act.expr) != "sign(x)"
        if self.loss.margin and not self.pm1:
            raise LossError(
                f"the {self.loss.name} loss is a classification loss: it needs labels +-1, but "
                f"the teacher {str(teacher)!r} gives real labels; use the teacher 'sign' "
                "(labels sign(<theta*, x>), docs/theory.md (m)) or a regression loss such as "
                "'square'")
        if method is None:
            method = "closed" if self.loss.name == "square" else "quadrature"
        if method not in ("closed", "quadrature"):
            raise ValueError(f"method must be 'closed' or 'quadrature', got {method!r}")
        if method == "closed" and self.loss.name != "square":
            raise ValueError("the closed-form channel exists for the square loss only")
        self.method = method
        # the kappa nodes whose weight counts in double precision (the rule is built for the
        # 30-digit ridge: with a smooth teacher a third of its nodes weigh < 1e-30)
        w = np.asarray(ch.weights, float)
        self._live = w > _DEAD_WEIGHT * np.max(w)
        self.k = np.asarray(ch.kappa, float)[self._live]
        self.w = w[self._live]
        self.mu0, self.mu1 = (np.asarray(ch.mu0, float)[..., self._live],
                              np.asarray(ch.mu1, float)[..., self._live])
        self.mus2 = np.asarray(ch.mustar2, float)[..., self._live]   # (K, nodes) with groups
        self.mu1sq = self.mu1 ** 2
        self.gamma = float(ch.gamma)
        self.rho = math.sqrt(max(0.0, 1 - self.gamma ** 2))
        if self.bernoulli:   # the spread of the teacher's field given the cavity field
            self._smooth = TeacherSmoothing(act, math.sqrt(self.rho ** 2 + self.noise))
        self._label_moments()
        self.u_pieces = tuple(u_pieces)
        t, wt = _leggauss(int(nodes_u))
        self._gl_u = (t, wt)
        self._gl_z = _leggauss(int(nodes_z))
        self._gh_xi = gauss_hermite(int(nodes_xi))
        self._gh_xi0 = gauss_hermite(int(nodes_xi0))

    # --- labels ---------------------------------------------------------------------
    def _label_moments(self):
        """h = E[y|k], h1 = E[y z|k], h2 = E[y^2|k]: for training (noisy labels) and test
        (labels +-1: the noisy label; real labels: the clean target, srfsym's convention)."""
        if self.bernoulli:
            s = math.sqrt(self.rho ** 2 + self.noise)
            S0, S1 = self._smooth(self.gamma * self.k, s)
            self.h, self.h1 = S0, (self.rho / s * S1 if s > 0 else np.zeros_like(S1))
            self.h2_train = self.h2_test = np.ones_like(self.k)
        elif self.pm1:
            s = math.sqrt(self.rho ** 2 + self.noise)
            if s == 0:
                h = np.sign(self.gamma * self.k + self.threshold)
                h1 = np.zeros_like(self.k)
            else:
                a = (self.gamma * self.k + self.threshold) / s
                h, h1 = 2 * ndtr(a) - 1, 2 * self.rho / s * _phi(a)
            self.h, self.h1 = h, h1
            self.h2_train = self.h2_test = np.ones_like(self.k)
        else:
            self.h, self.h1 = (np.asarray(self.ch.h, float)[self._live],
                               np.asarray(self.ch.h1, float)[self._live])
            self.h2_test = np.asarray(self.ch.h2, float)[self._live]
            self.h2_train = self.h2_test + self.noise

    def _label_law(self, num, delta, vr):
        """Bernoulli labels: ``P(y = 1 | .) = E_t (1 + sigma*(num + delta t))/2`` and the
        term ``rho (1 - varrho^2) E_t sigma*'(num + delta t)/2`` of
        ``E[z 1{y=1} | u] = varrho u P + rho (1 - varrho^2) E_t sigma*'/2``, t ~ N(0, 1) (the
        teacher's local field given the cavity field is Gaussian, mean ``num``, spread
        ``delta``); the derivative by Stein's lemma, ``E sigma*' = E[t sigma*]/delta``, whose
        factor ``rho (1 - varrho^2)/delta <= sqrt(1 - varrho^2)`` stays bounded (0 at
        ``delta = 0``).  :class:`~srfsym.theory.channels.label_law.TeacherSmoothing`: one trapezoidal
        rule in t, its step chosen for the teacher (docs/theory.md (m.6))."""
        S0, S1 = self._smooth(num, delta)
        with np.errstate(divide="ignore", invalid="ignore"):
            coef = np.where(delta > 0, self.rho * (1 - vr ** 2) / np.where(delta > 0, delta, 1.0),
                            0.0)
        return 0.5 + 0.5 * S0, 0.5 * coef * S1

    def _bernoulli_law(self, num, delta, vr, fixed_u):
        """:meth:`_label_law` on the u-nodes of the sweep; on the state-independent rule of a
        smooth loss it is kept while ``varrho`` stays the same (the Newton steps on ``m``,
        ``b0`` and the observables at one state)."""
        key = (id(self._fixed_u[0]), vr.tobytes()) if fixed_u else None
        cached = getattr(self, "_law_cache", None)
        if key is not None and cached is not None and cached[0] == key:
            return cached[1]
        law = self._label_law(num, delta, vr)
        if key is not None:
            self._law_cache = (key, law)
        return law

    # --- state -> per-kappa Gaussian ------------------------------------------------
    def point(self, q1, q2, V1, V2, theta, psi, m, b0=0.0) -> ChannelPoint:
        b = b0 + self.mu0 * m + self.mu1 * self.k * theta
        Q = np.maximum(self.mu1sq * q1 + self.mus2 * q2, 0.0)
        V = np.maximum(self.mu1sq * V1 + self.mus2 * V2, 0.0)   # mu*^2 ~ -1e-16 in the tails
        return _channel_point(b, Q, V, self.mu1 * psi, float(psi))

    # --- the four expectations per kappa --------------------------------------------
    def moments(self, pt: ChannelPoint, observables=False) -> dict:
        """``E f, E f^2, E g, E[z f]`` per kappa node (and, with ``observables``, the
        training loss ``E loss(y, P)``, training MSE and the
        Moreau envelope ``E M_V(y, omega)`` of the channel loss, whose kappa-average is the
        channel potential)."""
        if self.method == "closed":
            return self._closed(pt, observables)
        if self.pm1:
            return self._labels_pm1(pt, observables)
        return self._labels_real(pt, observables)

    def _closed(self, pt, observables):
        w = 1 / (1 + pt.V)
        eps = (self.h2_train - 2 * pt.b * self.h - 2 * pt.s * self.h1
               + pt.b ** 2 + pt.Q)
        out = {"Ef": (self.h - pt.b) * w, "Ef2": eps * w * w, "Eg": w,
               "Ezf": (self.h1 - pt.s) * w}
        if observables:
            out["loss"] = out["mse"] = eps * w * w
        return out

    def _u_rule(self, pt, y):
        """Per-kappa composite Gauss-Legendre in u for label ``y``: nodes and Gaussian
        weights, shape (K, n), split at the loss's kinks."""
        L = LABEL_HALF_WIDTH
        sq = np.sqrt(pt.Q)
        splits = [np.broadcast_to(s, pt.V.shape) for s in self.loss.kinks(y, pt.V)]
        with np.errstate(divide="ignore", invalid="ignore"):
            us = [np.where(sq > 1e-150, (s - pt.b) / sq, 0.0) for s in splits]
        us += [np.full_like(pt.b, e) for e in self.u_pieces]   # fixed pieces in the bulk
        edges = np.sort(np.clip(np.stack([np.full_like(pt.b, -L), *us, np.full_like(pt.b, L)],
                                        axis=1), -L, L), axis=1)
        t, wt = self._gl_u
        lo, hi = edges[:, :-1], edges[:, 1:]
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        u = (mid[:, :, None] + half[:, :, None] * t).reshape(len(pt.b), -1)
        W = (half[:, :, None] * wt).reshape(len(pt.b), -1) * _phi(u)
        return u, W

    def _u_rules(self, pt):
        """Nodes and weights in u for both labels, shape (2, K, n); for a smooth loss the
        rule does not depend on the state (computed once)."""
        fixed = not self.loss.kinks(1.0, pt.V)
        if fixed and getattr(self, "_fixed_u", None) is not None:
            return self._fixed_u
        rules = [self._u_rule(pt, y) for y in (1.0, -1.0)]
        n = max(r[0].shape[1] for r in rules)
        u = np.stack([np.pad(r[0], ((0, 0), (0, n - r[0].shape[1]))) for r in rules])
        W = np.stack([np.pad(r[1], ((0, 0), (0, n - r[1].shape[1]))) for r in rules])
        if fixed:
            self._fixed_u = (u, W)
        return u, W

    def _warm_prox(self, y, omega, V):
        """``(P, f, g)`` of the loss on the node arrays of a sweep, started from the previous
        sweep's ``P`` where the arrays have the same shape (a guess only: the proximal step
        keeps it inside its bracket and iterates to the same root)."""
        last = getattr(self, "_last_P", None)
        start = last if (last is not None and last.shape == omega.shape) else None
        P, f, g = self.loss.prox(y, omega, V, start=start)
        self._last_P = P
        return P, f, g

    def _labels_pm1(self, pt, observables):
        u, W = self._u_rules(pt)
        y = np.array([1.0, -1.0])[:, None, None]
        sq = np.sqrt(pt.Q)[None, :, None]
        omega = pt.b[None, :, None] + sq * u
        V = np.broadcast_to(pt.V[None, :, None], omega.shape)
        P, f, g = self._warm_prox(np.broadcast_to(y, omega.shape), omega, V)
        # label law given (kappa, u) in closed form (probit flips of variance `noise`)
        # (one row when both labels share the state-independent rule of a smooth loss)
        shared = getattr(self, "_fixed_u", None) is not None and u is self._fixed_u[0]
        uu = u[:1] if shared else u
        vr = pt.varrho[None, :, None]
        Pp, Zp = self._pm1_law(uu, vr, shared)
        Py = np.where(y > 0, Pp, 1 - Pp)
        Zy = np.where(y > 0, Zp, vr * uu - Zp)
        WP = W * Py
        out = {"Ef": np.einsum("lkn,lkn->k", WP, f), "Ef2": np.einsum("lkn,lkn->k", WP, f * f),
               "Eg": np.einsum("lkn,lkn->k", WP, g),
               "Ezf": np.einsum("lkn,lkn->k", W * Zy, f)}
        self._extra_moments(out, W, f)
        if observables:
            yb = np.broadcast_to(y, P.shape)
            value = self.loss.value(yb, P)
            out["loss"] = np.einsum("lkn,lkn->k", WP, value)
            out["mse"] = np.einsum("lkn,lkn->k", WP, (yb - P) ** 2)
            out["moreau"] = np.einsum("lkn,lkn->k", WP, (P - omega) ** 2 / (2 * np.where(
                V > 0, V, np.inf)) + 0.5 * value)
        return out

    def _pm1_law(self, uu, vr, shared=False):
        """The label law of labels +-1 at the nodes ``uu`` (shape (..., kappa, n)) given the
        correlation ``vr`` (broadcastable): ``P(y = 1 | kappa, u)`` and
        ``E[z 1{y=1} | kappa, u]`` (closed form: probit flips; or the Bernoulli smoothing)."""
        delta = np.sqrt(self.rho ** 2 * (1 - vr ** 2) + self.noise)
        num = self.gamma * self.k[:, None] + self.threshold + self.rho * vr * uu
        if self.bernoulli:
            Pp, zterm = self._bernoulli_law(num, delta, vr, shared)
        elif np.all(delta > 0):       # the usual case: no masks over the node arrays
            tau = num / delta
            zterm = (self.rho * (1 - vr ** 2) / delta) * _phi(tau)
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                tau = np.where(delta > 0, num / np.where(delta > 0, delta, 1.0),
                               np.sign(num) * np.inf)
                zterm = np.where(delta > 0, self.rho * (1 - vr ** 2)
                                 / np.where(delta > 0, delta, 1.0)
                                 * _phi(np.where(np.isfinite(tau), tau, 0.0)), 0.0)
        if not self.bernoulli:
            Pp = ndtr(tau)
        return Pp, vr * uu * Pp + zterm

    def _z_rule(self):
        """Per-kappa composite Gauss-Legendre in z on [-L, L] (8 pieces, plus the teacher's
        kinks at z = (x0 - gamma kappa)/rho): nodes and Gaussian weights, shape (K, n)."""
        L = LABEL_HALF_WIDTH
        K = len(self.k)
        base = [np.full(K, e) for e in np.linspace(-L, L, 9)]
        if self.rho > 0:
            base += [(float(x0) - self.gamma * self.k) / self.rho for x0 in self.teacher.kinks]
        edges = np.sort(np.clip(np.stack(base, axis=1), -L, L), axis=1)
        t, wt = self._gl_z
        lo, hi = edges[:, :-1], edges[:, 1:]
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        z = (mid[:, :, None] + half[:, :, None] * t).reshape(K, -1)
        W = (half[:, :, None] * wt).reshape(K, -1) * _phi(z)
        return z, W

    def _real_table(self):
        """The rule in the teacher's orthogonal ``z`` and the clean labels on it: ``(z, Wz,
        y)``, each of shape (kappa, n)."""
        z, Wz = self._z_rule()
        return z, Wz, np.asarray(self.teacher.numpy(self.gamma * self.k[:, None]
                                                    + self.rho * z), float)

    def _extra_moments(self, out, W, f):
        """Hook: more per-kappa moments from the weights ``W`` and ``f`` of a sweep (none here;
        the multi-index channel adds ``E[eta f]``)."""

    def _labels_real(self, pt, observables):
        if not hasattr(self, "_zr"):
            self._zr = self._real_table()
        z, Wz, yclean = self._zr
        xi, wxi = self._gh_xi
        s2 = np.maximum(pt.Q - pt.s ** 2, 0.0)
        merge = self.loss.residual or self.noise == 0
        s = np.sqrt(s2 + (self.noise if merge else 0.0))
        # axes: (kappa, z, xi[, xi0])
        omega = (pt.b[:, None, None] + pt.s[:, None, None] * z[:, :, None]
                 + s[:, None, None] * xi[None, None, :])
        W = Wz[:, :, None] * wxi[None, None, :]
        y = np.broadcast_to(yclean[:, :, None], omega.shape)
        zz = z[:, :, None]
        if not merge:
            x0, w0 = self._gh_xi0
            omega = np.broadcast_to(omega[..., None], omega.shape + (len(x0),))
            y = y[..., None] + math.sqrt(self.noise) * x0
            W = W[..., None] * w0
            zz = zz[..., None]
        V = np.broadcast_to(pt.V.reshape((-1,) + (1,) * (omega.ndim - 1)), omega.shape)
        P, f, g = self._warm_prox(y, omega, V)
        axes = tuple(range(1, omega.ndim))
        out = {"Ef": np.sum(W * f, axis=axes), "Ef2": np.sum(W * f * f, axis=axes),
               "Eg": np.sum(W * g, axis=axes), "Ezf": np.sum(W * zz * f, axis=axes)}
        self._extra_moments(out, W, f)
        if observables:
            out["loss"] = np.sum(W * self.loss.value(y, P), axis=axes)
            out["mse"] = np.sum(W * (y - P) ** 2, axis=axes)
            out["moreau"] = np.sum(W * ((P - omega) ** 2 / (2 * np.where(V > 0, V, np.inf))
                                        + 0.5 * self.loss.value(y, P)), axis=axes)
        return out

    # --- the channel equations ------------------------------------------------------
    # --- the engine's contract (srfsym.theory.interfaces.Channel) ----------------------
    def conjugates(self, state, b0=None) -> ChannelStep:
        """The conjugates and the stationary ``m`` (and ``b0``): Newton on the convex
        potential in (m, b0) at the other order parameters fixed, then the hats there."""
        mom, m, b = self.stationary(state, 0.0 if b0 is None else float(b0))
        return ChannelStep(self.hats(mom, state.psi), m, b if self.trained_bias else None)

    def observables(self, state, b0=None, train_classification=True) -> dict:
        """``test_error`` (test MSE), ``train_error`` (training MSE), ``train_loss``
        (penalty excluded), ``classification_error`` and ``train_classification_error``
        (labels +-1, else None; also None with ``train_classification=False``, which
        saves its integral where it is not reported, as on a grid)."""
        pt = self.point(*state, 0.0 if b0 is None else float(b0))
        obs = self._observables(pt, self.moments(pt, observables=True),
                                train_classification)
        return {"test_error": obs["test_mse"], "train_error": obs["train_mse"],
                "train_loss": obs["train_loss"],
                "classification_error": obs["test_classification_error"],
                "train_classification_error": obs["train_classification_error"]}

    #: Newton steps on (m, b0) per call of :meth:`conjugates`: ``None`` solves the
    #: stationarity conditions (the engine's contract); an iteration that re-solves them at
    #: every sweep may set 1 (same fixed point, a third of the proximal steps).
    newton_steps = None

    #: the unknown ``m`` as the solver holds it (a number; a K-vector with letters)
    _m_of = staticmethod(float)

    def stationary(self, state, b0, tol=1e-14, max_steps=60):
        """(moments, m, b0) with ``E_k mu0 E f = 0`` (and ``E_k E f = 0`` with a trained
        bias; one condition per letter with a vocabulary) at the other order parameters of
        ``state``."""
        m, b = self._m_of(state.m), float(b0)
        if self.newton_steps is not None:
            max_steps = self.newton_steps
        # a twice-differentiable loss: Newton converges quadratically, so after a step below
        # 1e-8 the next one would be below the tolerance (one proximal pass saved)
        final = 1e-8 if self.method == "closed" or not self.loss.kinks(1.0, 1.0) else tol
        for _ in range(max_steps):
            pt = self.point(state.q1, state.q2, state.V1, state.V2, state.theta, state.psi,
                            m, b)
            mom = self.moments(pt)
            m_new, b_new = self.bias_step(mom, m, b, self.trained_bias)
            move = max(float(np.max(np.abs(np.subtract(m_new, m)), initial=0.0)),
                       abs(b_new - b))
            done = move <= final * (1 + float(np.sum(np.abs(m))) + abs(b))
            m, b = m_new, b_new
            if done or not (np.all(np.abs(m) < 1e6) and abs(b) < 1e6):
                break
        return mom, m, b

    def hats(self, mom, psi):
        """Hats from the per-kappa moments."""
        E = lambda v: float(np.dot(self.w, v))   # noqa: E731
        a_b, a_sb = self.alpha / self.beta, self.alpha / math.sqrt(self.beta)
        return Hats(a_b * E(self.mu1sq * mom["Ef2"]), a_b * E(self.mus2 * mom["Ef2"]),
                a_b * E(self.mu1sq * mom["Eg"]), a_b * E(self.mus2 * mom["Eg"]),
                a_sb * E(self.k * self.mu1 * mom["Ef"]),
                a_sb * E(self.mu1 * (mom["Ezf"] + self.mu1 * psi * mom["Eg"])))

    def bias_step(self, mom, m, b0, bias):
        """One Newton step on the convex potential in (m, b0): the roots of
        ``E_k mu0 E f = 0`` (and ``E_k E f = 0`` with a trained bias).  ``m`` stays 0 when
        ``mu0`` vanishes (no signal along the constant direction)."""
        E = lambda v: float(np.dot(self.w, v))   # noqa: E731
        has_m = E(self.mu0 ** 2) > 1e-24
        gm, gb = E(self.mu0 * mom["Ef"]), E(mom["Ef"])
        hmm, hmb, hbb = E(self.mu0 ** 2 * mom["Eg"]), E(self.mu0 * mom["Eg"]), E(mom["Eg"])
        if has_m and bias:
            det = hmm * hbb - hmb * hmb
            if det > 1e-14 * max(hmm * hbb, 1e-300):
                dm, db = (hbb * gm - hmb * gb) / det, (hmm * gb - hmb * gm) / det
            else:
                dm, db = gm / max(hmm, 1e-12), gb / max(hbb, 1e-12)
        elif has_m:
            dm, db = gm / max(hmm, 1e-12), 0.0
        elif bias:
            dm, db = -m, gb / max(hbb, 1e-12)
        else:
            dm, db = -m, 0.0
        cap = 2.0 + 0.5 * (abs(m) + abs(b0))   # no wild steps where the loss is flat (hinge)
        scale = min(1.0, cap / max(abs(dm), abs(db), 1e-300))
        return m + scale * dm, b0 + scale * db

    def _observables(self, pt, mom, train_classification=True):
        """Test MSE, test classification error (labels +-1), training loss (penalty
        excluded, srfsym's convention), training MSE and classification error."""
        E = lambda v: float(np.dot(self.w, v))   # noqa: E731
        eps = (self.h2_test - 2 * pt.b * self.h - 2 * pt.s * self.h1
               + pt.b ** 2 + pt.Q)
        out = {"test_mse": E(eps), "train_loss": E(mom["loss"]), "train_mse": E(mom["mse"]),
               "test_classification_error": None, "train_classification_error": None}
        if self.pm1:
            out["test_classification_error"] = E(self._test_cl(pt))
            if train_classification:
                out["train_classification_error"] = E(self._train_cl(pt))
        return out

    def _test_cl(self, pt):
        """P(sign yhat != y | kappa): E_u[P(y=1|u) 1{omega<0} + P(y=-1|u) 1{omega>0}], the
        u-integral split at omega = 0 (the label law is smooth in u)."""
        zero = np.zeros_like(pt.b)
        return self._error_rate(pt, zero, zero)

    def _train_cl(self, pt):
        """Training classification error P(y P < 0 | kappa) of the proximal point: P is
        increasing in omega and vanishes at omega = V l'(y, 0), so the error is
        E_u[P(y=1|u) 1{omega < V l'(1, 0)} + P(y=-1|u) 1{omega > V l'(-1, 0)}], a half-line
        integral of the label law (no proximal step)."""
        zero = np.zeros_like(pt.V)
        t = [pt.V * self.loss.channel_d1(np.full_like(zero, y), zero) for y in (1.0, -1.0)]
        return self._error_rate(pt, *t)

    def _error_rate(self, pt, t_plus, t_minus):
        """E_u[P(y=1|u) 1{omega < t_plus} + P(y=-1|u) 1{omega > t_minus}] per kappa, the
        two u-integrals split at their thresholds (64 Gauss-Legendre nodes per side; 48 for
        Bernoulli labels, whose smooth law costs more per node: the same to 1e-15)."""
        L = LABEL_HALF_WIDTH
        sq = np.sqrt(pt.Q)
        u0 = []
        for t in (t_plus, t_minus):
            with np.errstate(divide="ignore", invalid="ignore"):
                u0.append(np.clip(np.where(sq > 1e-150, (t - pt.b) / sq,
                                           np.sign(t - pt.b) * L), -L, L))
        t, wt = _leggauss(48 if self.bernoulli else 64)   # 48: 1e-15 for the smooth law
        out = np.zeros_like(pt.b)
        for lo, hi, neg in ((np.full_like(pt.b, -L), u0[0], True),
                            (u0[1], np.full_like(pt.b, L), False)):
            half, mid = (hi - lo) / 2, (hi + lo) / 2
            u = mid[:, None] + half[:, None] * t
            W = half[:, None] * wt * _phi(u)
            Pp = self._pm1_law(u, pt.varrho[:, None])[0]
            # omega < 0 below u0: wrong when y = +1; above u0 wrong when y = -1
            wrong = Pp if neg else 1 - Pp
            out += np.sum(W * wrong, axis=1)
        degenerate = sq <= 1e-150     # omega = b exactly
        if np.any(degenerate):
            s = self.h       # E[y | kappa] (the label law at Q = 0)
            exact = (1 + s) / 2 * (pt.b < t_plus) + (1 - s) / 2 * (pt.b > t_minus)
            out = np.where(degenerate, exact, out)
        return out
