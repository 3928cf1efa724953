r"""Gaussian smoothing of a bounded teacher: the label law of Bernoulli labels
(docs/theory.md (m.6)).

Bernoulli labels draw ``y = +-1`` with ``P(y = 1 | h) = (1 + sigma*(h))/2``; given the cavity
field the teacher's field is Gaussian, ``h = nu + delta t``, so the channel needs, at every
(kappa, u) node and every sweep (``nu`` and ``delta`` depend on the state through the
correlation ``varrho`` of the prediction with the teacher),

    S0(nu, delta) = E_t sigma*(nu + delta t),      S1(nu, delta) = E_t[t sigma*(nu + delta t)]

(``S1 = delta E_t sigma*'(nu + delta t)`` by Stein's lemma: the derivative costs no second
evaluation of the teacher).  Both come from one evaluation of the teacher on a trapezoidal
rule in ``t`` on [-8.5, 8.5] (Gaussian mass beyond: 2e-17), whose step is **chosen per teacher
and spread**: the largest step ``h = 0.8 * 0.85^k`` at which the rule agrees with the rule of
step ``h/2`` to ``tol`` (default 1e-14) in ``S0`` and ``S1`` at 401 points ``nu`` in [-20, 20]
and the spreads ``delta_max``, ``delta_max/2``, 0.  For a teacher analytic in a strip the
trapezoidal error falls geometrically in ``1/h`` (the error of ``h/2`` is about the square of
that of ``h``), so the difference is the error of ``h``.  For tanh (poles at ``+-i pi/2``) this
gives ``h delta ~ 0.25`` where the old fixed rule had 0.12: 41 nodes at ``delta = 0.6``, 61 at
``delta = 1`` instead of 151.

>>> from srfsym.symbolic.activations import activation
>>> law = TeacherSmoothing(activation("tanh"), 1.0)
>>> s0, s1 = law(np.array([0.3]), np.array([0.7]))
>>> from scipy.integrate import quad
>>> from scipy.stats import norm
>>> ref = quad(lambda t: np.tanh(0.3 + 0.7 * t) * norm.pdf(t), -12, 12, epsabs=1e-15)[0]
>>> bool(abs(s0[0] - ref) < 1e-13), law.nodes < 80
(True, True)
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["TeacherSmoothing", "HALF_WIDTH", "bayes_classification_error"]

#: The t-rule runs over [-HALF_WIDTH, HALF_WIDTH] (Gaussian mass beyond: 2e-17, and
#: E|t| beyond: 2e-16).
HALF_WIDTH = 8.5
_MAX_NODES = 200_000
#: values of the teacher per block of :meth:`TeacherSmoothing.__call__` (~0.25 MB)
_BLOCK_VALUES = 1 << 15
_CACHE: dict = {}


def _rule(h):
    J = int(math.ceil(HALF_WIDTH / h))
    t = h * np.arange(-J, J + 1, dtype=float)
    w = h * np.exp(-t * t / 2) / math.sqrt(2 * math.pi)
    return t, w


def _values(fn, x):
    with np.errstate(all="ignore"):
        v = np.asarray(fn(x), float)
    return v if v.shape == x.shape else np.broadcast_to(v, x.shape)


def _moments(fn, nu, delta, h):
    t, w = _rule(h)
    v = _values(fn, nu[:, None] + delta * t)
    return v @ w, v @ (t * w)


def choose_step(fn, spread, tol=1e-14):
    """The largest step ``0.8 * 0.85^k`` of the trapezoidal rule whose difference from the
    rule of half the step is at most ``tol`` (see the module doc); ``ValueError`` when even
    the finest allowed rule does not get there (a teacher too rough for the rule)."""
    nu = np.linspace(-20.0, 20.0, 401) + 0.0137      # off the lattice of the rule
    h = 0.8
    while 2 * HALF_WIDTH / h < _MAX_NODES / 2:
        worst = 0.0
        for delta in (spread, spread / 2, 0.0):
            a, b = _moments(fn, nu, delta, h), _moments(fn, nu, delta, h / 2)
            worst = max(worst, float(np.max(np.abs(a[0] - b[0]))),
                        float(np.max(np.abs(a[1] - b[1]))))
        if worst <= tol:
            return h
        h *= 0.85
    raise ValueError(f"the Gaussian smoothing of this teacher does not converge to {tol:g} "
                     f"with {2 * HALF_WIDTH / h:.0f} nodes at spread {spread:g}: the teacher is "
                     "too rough for Bernoulli labels (docs/theory.md (m.6))")


class TeacherSmoothing:
    """``(S0, S1)`` of the module doc for one teacher (an
    :class:`~srfsym.symbolic.activations.Activation`) and spreads up to ``spread``; the step
    is chosen once per (teacher, spread) and cached.  ``h``, ``nodes``: the rule."""

    def __init__(self, teacher, spread, tol=1e-14):
        self.fn = teacher.numpy
        # the step for a spread rounded up to 1/32 (one search for nearby spreads)
        spread = math.ceil(max(float(spread), 0.0) * 32) / 32
        key = (str(teacher.expr), spread, tol)
        if key not in _CACHE:
            _CACHE[key] = choose_step(self.fn, spread, tol)
        self.h = _CACHE[key]
        t, w = _rule(self.h)
        self.t, self.nodes = t, t.size
        self._w = np.stack([w, t * w], axis=1)

    def __call__(self, nu, delta):
        """``S0, S1`` at arrays ``nu`` and ``delta`` (broadcast together); one evaluation of
        the teacher on ``nu.shape + (nodes,)`` points."""
        nu, delta = np.broadcast_arrays(np.asarray(nu, float), np.asarray(delta, float))
        shape = nu.shape
        nu, delta = nu.reshape(-1), delta.reshape(-1)
        out = np.empty((nu.size, 2))
        # in blocks that stay in cache (whole-array temporaries of a few MB cost more in page
        # faults and memory traffic than the teacher's evaluation itself)
        block = max(1, _BLOCK_VALUES // self.nodes)
        buf = np.empty((min(block, nu.size), self.nodes))
        for lo in range(0, nu.size, block):
            rows = slice(lo, lo + block)
            x = buf[:len(nu[rows])]
            np.multiply(delta[rows, None], self.t, out=x)
            x += nu[rows, None]
            np.matmul(_values(self.fn, x), self._w, out=out[rows])
        return out[:, 0].reshape(shape), out[:, 1].reshape(shape)


def bayes_classification_error(teacher, noise=0.0, label_rule="teacher"):
    """The Bayes error of labels +-1 (docs/theory.md (m.6)): the classification error of the
    best classifier of ``x``, ``E_u[(1 - |g(u)|) / 2]`` with ``u = <theta*, x> ~ N(0, 1)`` and
    ``g(u) = E[y | u]``: ``E_xi teacher(u + sqrt(noise) xi)`` for Bernoulli labels
    (``label_rule="bernoulli"``, :class:`TeacherSmoothing`), ``erf(u / sqrt(2 noise))`` for
    the teacher sign with a probit flip (``label_rule="teacher"``; 0 without noise).  A
    baseline no readout can beat.  Returns ``(value, error estimate)`` (scipy ``quad`` on
    each side of u = 0, where |g| has its kink for an odd teacher).

    >>> from srfsym.symbolic.activations import activation
    >>> v, err = bayes_classification_error(activation("sign"), 0.25)
    >>> bool(abs(v - math.atan(0.5) / math.pi) < 1e-10)            # arctan(sigma) / pi
    True
    """
    from scipy.integrate import quad
    from scipy.special import erf
    noise = float(noise)
    if not (math.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise must be a finite number >= 0, got {noise}")
    if label_rule == "teacher":
        if noise == 0:
            return 0.0, 0.0
        def g(u):
            return erf(u / math.sqrt(2 * noise))
    elif label_rule == "bernoulli":
        law = TeacherSmoothing(teacher, math.sqrt(noise))

        def g(u):
            return float(law(np.array([u]), np.array([math.sqrt(noise)]))[0][0])
    else:
        raise ValueError(f"label_rule must be 'teacher' or 'bernoulli', got {label_rule!r}")

    def f(u):
        return (1.0 - min(1.0, abs(g(u)))) / 2 * math.exp(-u * u / 2) / math.sqrt(2 * math.pi)
    total, error = 0.0, 0.0
    for a, b in ((-math.inf, 0.0), (0.0, math.inf)):
        v, e = quad(f, a, b, epsabs=1e-13, epsrel=1e-12, limit=200)
        total, error = total + v, error + e
    return total, error
