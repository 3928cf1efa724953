r"""The channel side: kappa-quadrature of the conditional coefficients (docs/theory.md (f), (i)).

Every kappa-expectation of the fixed point and of the bounds is a Gauss-Hermite sum
over nodes kappa_j with weights w_j (sum w_j = 1).  The conditional coefficients
mu0, mu1, mu_star^2 and the teacher functions h, h1, h2 are fixed during the
iteration, so they are evaluated **once per point** here, with the generated
evaluators of :mod:`srfsym.symbolic.cget`: numpy in double precision, mpmath (with
high-precision Gauss-Hermite nodes) for reference values.

>>> ch = channel_data("sin", "sin", r=0.0, c=1.0, gamma=1.0, nodes=40)
>>> round(float(ch.E(ch.h2)), 12)  # E sin(kappa)^2 = (1 - e^-2)/2
0.432332358382
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np

from ...core.precision import workdps
from ...symbolic.activations import activation
from ...symbolic.cget import cget_coefficients, teacher_functions
from ...symbolic.gaussian import (GAUSSIAN_HALF_WIDTH, gauss_hermite, gaussian_piecewise_rule,
                       trapezoid_mpmath)

__all__ = ["ChannelData", "channel_data", "GroupChannelData", "group_channel_data", "gauss_hermite_mpmath", "validate_srf_parameters", "transition_cuts",
           "node_rule", "PIECE_LADDER"]


def validate_srf_parameters(r, c, gamma):
    """Clear errors for sRF parameters out of range.

    >>> validate_srf_parameters(1.0, -1.0, 0.5)
    Traceback (most recent call last):
    ...
    ValueError: bulk variance c must be positive, got -1.0
    """
    for name, v in (("spike strength r", r), ("bulk variance c", c), ("alignment gamma", gamma)):
        try:
            finite = mpmath.isfinite(mpmath.mpf(v))
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a real number, got {v!r}") from None
        if not finite:
            raise ValueError(f"{name} must be finite, got {v}")
    if float(c) <= 0:
        raise ValueError(f"bulk variance c must be positive, got {c}")
    if abs(float(gamma)) > 1:
        raise ValueError(f"alignment gamma must lie in [-1, 1], got {gamma}")


def _newton_nodes(x0, recurrence, derivative, dps):
    """Polish float roots ``x0`` of an orthogonal polynomial by Newton's method at the
    current precision.  ``recurrence(x) -> (p_n(x), p_{n-1}(x))``,
    ``derivative(x, p_n, p_{n-1}) -> p_n'(x)``.  Returns the nodes and, for the weights,
    ``(p_n, p_{n-1})`` at each node."""
    nodes, last = [], []
    tol = mpmath.mpf(10) ** (-(dps + 15))
    for x in x0:
        x = mpmath.mpf(float(x))
        for _ in range(100):
            p, q = recurrence(x)
            step = p / derivative(x, p, q)
            x -= step
            if abs(step) < tol:
                break
        nodes.append(x)
        last.append(recurrence(x))
    return nodes, last


@lru_cache(maxsize=32)
def gauss_hermite_mpmath(n: int, dps: int):
    """Probabilists' Gauss-Hermite nodes/weights (sum 1) at ``dps`` digits.

    Newton refinement of numpy's nodes on the three-term recurrence of He_n.

    >>> z, w = gauss_hermite_mpmath(10, 40)
    >>> with mpmath.workdps(40):
    ...     print(mpmath.nstr(mpmath.fsum(wi * zi**4 for zi, wi in zip(z, w)), 35))
    3.0
    """
    z0, _ = gauss_hermite(n)

    def recurrence(x):      # (He_n(x), He_{n-1}(x))
        p_prev, p = mpmath.mpf(1), x
        for k in range(1, n):
            p_prev, p = p, x * p - k * p_prev
        return p, p_prev

    with workdps(dps + 20):
        nodes, last = _newton_nodes(z0, recurrence, lambda x, p, q: n * q, dps)
        weights = [mpmath.factorial(n) / (n * n * q**2) for _, q in last]
        total = mpmath.fsum(weights)
        weights = [w / total for w in weights]
    return tuple(nodes), tuple(weights)


_HALF_WIDTH = GAUSSIAN_HALF_WIDTH  # the Gaussian mass beyond |kappa| = 12 is below 1e-32


def _kappa_cuts(teacher, gamma, student=None, r=0.0, c=1.0):
    """kappa where the integrands are not smooth or change fast: the teacher's kinks x0 seen
    at kappa = x0/gamma (exact jumps at gamma = 1), and for a kinked student the centre
    x0/r of its smoothed transition (width sqrt(c)/r) with cuts at +-2 and +-6 widths."""
    cuts = set()
    g = float(gamma)
    if g != 0:
        t_width = math.sqrt(max(0.0, 1 - g * g)) / abs(g)
        for x0 in activation(teacher).kinks:
            k0 = float(x0) / g
            cuts |= ({k0 + m * t_width for m in (-6, -2, 0, 2, 6)} if 0 < t_width < 1
                     else {k0})
    if student is not None and float(r) != 0:
        width = math.sqrt(float(c)) / abs(float(r))
        for x0 in activation(student).kinks:
            k0 = float(x0) / float(r)
            if width < 1:   # only a sharp transition needs its own pieces
                cuts |= {k0 + m * width for m in (-6, -2, 0, 2, 6)}
            elif cuts:
                cuts.add(k0)
    if not cuts:
        return ()
    return tuple(sorted(k for k in cuts if abs(k) < _HALF_WIDTH))


def transition_cuts(student, rs, cs, below=0.5):
    """Graded kappa cuts for a student seen at a large spike strength.

    As r -> oo, ``mu0(kappa) = E sigma(r kappa + sqrt(c) xi)`` tends to a step at kappa = 0
    (and at each kink x0, to a step at x0/r): the coefficients change over a width
    ``w = max(1, sqrt c)/|r|``, the r -> oo limit has its kinks at those points, and a
    Gauss-Hermite rule needs O(r^2) nodes to resolve them.  Cutting at the centre and at
    ``centre +- w 2^k`` (k = -2, -1, 0, 1, ...) out to the Gaussian half-width gives pieces
    on which every coefficient is smooth on the scale of the piece, so Gauss-Legendre on each
    piece converges geometrically whatever r is.  ``rs, cs``: the spike strengths and bulk
    variances of the groups (one each for the uniform readout).  No cuts when every width is
    above ``below`` (the Gauss-Hermite rule is then fine).

    >>> cuts = transition_cuts("tanh", [30.0], [1.0])
    >>> 0.0 in cuts and min(c for c in cuts if c > 0) == 1 / 120
    True
    >>> transition_cuts("tanh", [1.0], [1.0])
    ()
    """
    act = activation(student)
    cuts = set()
    for r, c in zip(rs, cs):
        r, c = float(r), float(c)
        if r == 0:
            continue
        width = max(1.0, math.sqrt(c)) / abs(r)
        if width >= below:
            continue
        for x0 in (0.0, *(float(k) for k in act.kinks)):
            k0 = x0 / r
            cuts.add(k0)
            step = width / 4
            while step < 2 * _HALF_WIDTH:
                cuts |= {k0 - step, k0 + step}
                step *= 2
    return tuple(sorted(k for k in cuts if abs(k) < _HALF_WIDTH))


#: nodes per piece of a kappa rule cut at the student's transitions (:func:`transition_cuts`)
PIECE_LADDER = (16, 24, 36, 54, 80, 120)


def node_rule(student, rs, cs, ladder):
    """The extra kappa cuts at spike strengths ``rs`` (bulk variances ``cs``) and the node
    ladder that goes with them: ``ladder`` when there are no cuts (small r), else
    :data:`PIECE_LADDER` nodes per piece (the counts are totals over the pieces).

    >>> node_rule("tanh", [1.0], [1.0], (48, 72))
    ((), (48, 72))
    >>> cuts, ladder = node_rule("tanh", [30.0], [1.0], (48, 72))
    >>> len(ladder), ladder[0] % 16
    (6, 0)
    """
    cuts = transition_cuts(student, rs, cs)
    if not cuts:
        return cuts, tuple(ladder)
    pieces = len(cuts) + 1 + 2 * len(activation(student).kinks) + 2
    return cuts, tuple(per * pieces for per in PIECE_LADDER)


@lru_cache(maxsize=64)
def gauss_legendre_mpmath(n: int, dps: int):
    """Gauss-Legendre nodes/weights on [-1, 1] at ``dps`` digits (Newton on P_n).

    >>> t, w = gauss_legendre_mpmath(8, 30)
    >>> with mpmath.workdps(30):
    ...     print(mpmath.nstr(mpmath.fsum(wi * ti**6 for ti, wi in zip(t, w)), 25))
    0.2857142857142857142857143
    """
    t0, _ = np.polynomial.legendre.leggauss(n)

    def recurrence(x):      # (P_n(x), P_{n-1}(x))
        p_prev, p = mpmath.mpf(1), x
        for k in range(2, n + 1):
            p_prev, p = p, ((2 * k - 1) * x * p - (k - 1) * p_prev) / k
        return p, p_prev

    derivative = lambda x, p, q: n * (x * p - q) / (x * x - 1)   # noqa: E731
    with workdps(dps + 20):
        nodes, last = _newton_nodes(t0, recurrence, derivative, dps)
        weights = [2 / ((1 - x * x) * derivative(x, p, q)**2) for x, (p, q) in zip(nodes, last)]
    return tuple(nodes), tuple(weights)


@lru_cache(maxsize=32)
def _trapezoid_mpmath(n: int, dps: int):
    """Trapezoidal rule for E_kappa at ``dps`` digits with about n nodes
    (:func:`srfsym.symbolic.gaussian.trapezoid_mpmath`).  For integrands analytic in a strip of half-width tau it
    converges like exp(-2 pi tau / h), much faster than Gauss-Hermite when the integrand
    has complex poles near the real axis (1/(1 + V(kappa)) does)."""
    with workdps(dps + 15):
        h = 2 * (mpmath.sqrt(2 * (dps + 12) * mpmath.log(10)) + 2) / (n - 1)
    ks, ws = trapezoid_mpmath(h, dps)
    return tuple(ks), tuple(ws)


def _trapezoid_double(nodes: int):
    """Trapezoidal rule for E_kappa on [-9.5, 9.5] (Gaussian mass beyond: 2e-21) with
    ``nodes`` points: for integrands with poles close to the real axis (the resolvent
    weights 1/(1 + V(kappa)) at complex V) it converges geometrically where Gauss-Hermite
    stalls."""
    k = np.linspace(-9.5, 9.5, int(nodes))
    w = (k[1] - k[0]) * np.exp(-k * k / 2) / math.sqrt(2 * math.pi)
    return k, w


def kappa_rule(nodes: int, cuts=(), dps=None, kind="gauss-hermite"):
    """Quadrature for E_kappa, kappa ~ N(0, 1): Gauss-Hermite (double) or the trapezoidal
    rule (mpmath) when the integrands are smooth; with ``cuts`` (jumps or kinks), Gauss-Legendre on each piece of [-12, 12] with the
    Gaussian density folded into the weights.

    >>> k, w = kappa_rule(60, cuts=(0.0,))
    >>> round(float(np.sum(w * (k > 0))), 14)
    0.5
    """
    if not cuts:
        if dps is None:
            return gauss_hermite(nodes) if kind == "gauss-hermite" else _trapezoid_double(nodes)
        return _trapezoid_mpmath(nodes, dps)
    edges = [-_HALF_WIDTH, *cuts, _HALF_WIDTH]
    per = max(16, nodes // (len(edges) - 1))
    if dps is None:
        return gaussian_piecewise_rule(edges, per)
    t, wt = gauss_legendre_mpmath(per, dps)
    ks, ws = [], []
    with workdps(dps + 15):
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)
        for lo, hi in zip(edges[:-1], edges[1:]):
            lo, hi = mpmath.mpf(lo), mpmath.mpf(hi)
            half, mid = (hi - lo) / 2, (hi + lo) / 2
            for ti, wi in zip(t, wt):
                k = mid + half * ti
                ks.append(k)
                ws.append(wi * half * mpmath.exp(-k * k / 2) * norm)
    return tuple(ks), tuple(ws)


@dataclass(frozen=True)
class ChannelData:
    """Coefficients at the kappa nodes (numpy arrays, or tuples of mpf in mpmath mode).

    ``E(f)`` is the kappa-expectation ``sum_j w_j f_j``.
    """

    kappa: object
    weights: object
    mu0: object
    mu1: object
    mustar2: object
    h: object
    h1: object
    h2: object
    r: object
    c: object
    gamma: object
    nodes: int
    precision: str  # "double" or "mpmath:<dps>"

    def E(self, values):
        if self.precision == "double":
            v = np.dot(self.weights, values)
            return float(v) if np.isrealobj(v) else complex(v)
        return mpmath.fsum(w * v for w, v in zip(self.weights, values))


def channel_data(student, teacher, r, c, gamma, nodes=80, dps=None,
                 kind="gauss-hermite") -> ChannelData:
    """Evaluate cGET coefficients and teacher functions at Gauss-Hermite kappa nodes
    (cached: along a learning curve the channel does not change).

    Parameters
    ----------
    student, teacher : str or Activation
    r, c, gamma : float (or decimal strings in mpmath mode)
        Spike strength, bulk variance, alignment.
    nodes : int
        Number of kappa nodes.
    dps : int or None
        ``None`` for double precision (numpy); otherwise mpmath at ``dps`` digits.
    kind : "gauss-hermite" or "trapezoid"
        Rule for smooth integrands in double precision (mpmath always uses the trapezoid).
    """
    validate_srf_parameters(r, c, gamma)
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 16:
        raise ValueError(f"nodes must be an integer >= 16 (kappa quadrature), got {nodes!r}")
    key = (r, c, gamma) if dps is not None else (float(r), float(c), float(gamma))
    if kind not in ("gauss-hermite", "trapezoid"):
        raise ValueError(f"kind must be 'gauss-hermite' or 'trapezoid', got {kind!r}")
    return _channel_data(activation(student), activation(teacher), *key, int(nodes), dps, kind)


@lru_cache(maxsize=64)
def _channel_data(student, teacher, r, c, gamma, nodes, dps, kind="gauss-hermite",
                  cuts=None) -> ChannelData:
    co = cget_coefficients(student)
    te = teacher_functions(teacher)
    if cuts is None:
        cuts = _kappa_cuts(teacher, gamma, student, r, c)
    if dps is None:
        kappa, w = kappa_rule(int(nodes), cuts, kind=kind)
        mu0, mu1, mustar2 = co.numpy()(kappa, float(r), float(c))
        h, h1, h2 = te.numpy()(kappa, float(gamma))
        arrays = [np.ascontiguousarray(a, dtype=float) for a in (mu0, mu1, mustar2, h, h1, h2)]
        for name, arr in zip(("mu0", "mu1", "mustar2", "h", "h1", "h2"), arrays):
            if not np.all(np.isfinite(arr)):
                raise FloatingPointError(f"{name}(kappa) is not finite at some kappa node")
        return ChannelData(kappa, w, *arrays, float(r), float(c), float(gamma), int(nodes),
                           "double")
    kappa, w = kappa_rule(int(nodes), cuts, dps=int(dps))
    # the kappa integrals need absolute, not relative, accuracy: one working precision
    fco = co.mpmath(dps + 5, verify=False)
    fte = te.mpmath(dps + 5, verify=False)
    with workdps(dps + 10):
        r_, c_, g_ = (mpmath.mpf(str(v)) if not isinstance(v, mpmath.mpf) else v
                      for v in (r, c, gamma))
        cols = [fco(k, r_, c_) + fte(k, g_) for k in kappa]
    mu0, mu1, mustar2, h, h1, h2 = (tuple(col[i] for col in cols) for i in range(6))
    return ChannelData(kappa, w, mu0, mu1, mustar2, h, h1, h2, r_, c_, g_, int(nodes),
                       f"mpmath:{dps}")




# ======================================================================================
# one channel per letter of a readout vocabulary (docs/theory.md (k.2))

@dataclass(frozen=True)
class GroupChannelData:
    """Channel data of a readout vocabulary: the cGET coefficients of every group on one
    common kappa rule.

    ``mu0, mu1, mustar2`` have one row per letter (shape ``(K, nodes)`` in double
    precision, a tuple of K tuples in mpmath mode); ``h, h1, h2`` are the teacher functions
    (one row).  ``groups[j]`` is the :class:`ChannelData` of letter ``j`` (spike
    ``r omega_j``, bulk variance ``c_j``) and, for the uniform readout, *is* the channel of
    :func:`channel_data`.  ``E(values)`` takes the kappa-expectation along the last axis.
    """

    groups: tuple
    vocabulary: object
    r: object
    c: object
    group_r: tuple
    group_c: tuple

    @property
    def K(self) -> int:
        return len(self.groups)

    def __getattr__(self, name):
        if name in ("kappa", "weights", "h", "h1", "h2", "gamma", "nodes", "precision"):
            return getattr(self.groups[0], name)
        if name in ("mu0", "mu1", "mustar2"):
            rows = [getattr(g, name) for g in self.groups]
            return np.array(rows) if self.precision == "double" else tuple(rows)
        raise AttributeError(name)

    def E(self, values):
        if self.precision == "double":
            v = np.asarray(values) @ self.weights
            return v if np.ndim(v) else (float(v) if np.isrealobj(v) else complex(v))
        return self.groups[0].E(values)


def group_channel_data(student, teacher, r, c, gamma, vocabulary=None, nodes=80, dps=None,
                       kind="gauss-hermite", extra_cuts=(), group_values=None) -> GroupChannelData:
    """:func:`channel_data` for every letter of a readout vocabulary, on one kappa rule.

    ``r, c`` are the uniform sRF parameters; group ``j`` gets spike ``r omega_j`` and bulk
    variance ``1 + omega_j^2 (c - 1)`` (:mod:`srfsym.step.vocabulary`).  The kappa rule has the
    cuts of every group.  For the uniform readout the single group is exactly
    ``channel_data(student, teacher, r, c, gamma, nodes, dps, kind)``.  ``extra_cuts`` are
    kappa cuts added to the rule's own (e.g. :func:`transition_cuts`); with them ``nodes``
    is the total over the pieces.  ``group_values = (r_j, c_j)``, one pair of sequences with a
    value per letter, replaces the group formulas by measured per-group values (a realised
    first layer, docs/theory.md (g.4); double precision).

    >>> g = group_channel_data("tanh", "sin", 1.134, 1.019, 1.0, [1, 2], nodes=60)
    >>> g.K, g.mu0.shape, g.group_r
    (2, (2, 60), (1.134, 2.268))
    >>> u = group_channel_data("tanh", "sin", 1.134, 1.019, 1.0, nodes=60)
    >>> u.groups[0] is channel_data("tanh", "sin", 1.134, 1.019, 1.0, nodes=60)
    True
    """
    from ...step.vocabulary import vocabulary as make_vocabulary
    voc = make_vocabulary(vocabulary)
    validate_srf_parameters(r, c, gamma)
    if group_values is not None:
        return _measured_group_channel(student, teacher, gamma, voc, nodes, kind, extra_cuts,
                                       group_values)
    if voc.is_uniform and extra_cuts:
        st, te = activation(student), activation(teacher)
        cuts = tuple(sorted(set(_kappa_cuts(te, float(gamma), st, float(r), float(c)))
                            | {float(k) for k in extra_cuts}))
        key = (r, c, gamma) if dps is not None else (float(r), float(c), float(gamma))
        ch = _channel_data(st, te, *key, int(nodes), dps, kind, cuts)
        return GroupChannelData((ch,), voc, ch.r, ch.c, (ch.r,), (ch.c,))
    if voc.is_uniform:
        ch = channel_data(student, teacher, r, c, gamma, nodes=nodes, dps=dps, kind=kind)
        return GroupChannelData((ch,), voc, ch.r, ch.c, (ch.r,), (ch.c,))
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 16:
        raise ValueError(f"nodes must be an integer >= 16 (kappa quadrature), got {nodes!r}")
    if kind not in ("gauss-hermite", "trapezoid"):
        raise ValueError(f"kind must be 'gauss-hermite' or 'trapezoid', got {kind!r}")
    from ...step.vocabulary import check_student
    check_student(student, voc)
    st, te = activation(student), activation(teacher)
    if dps is None:
        rs, cs = voc.group_spike_strengths(r), voc.group_bulk_variances(c)
        g = float(gamma)
    else:
        from ...step.vocabulary import group_parameter_expressions
        e = group_parameter_expressions()
        fr, fc = (_mpmath_function(e["symbols"], e[k]) for k in ("spike_strength", "bulk_variance"))
        with workdps(int(dps) + 15):
            r_, c_ = (v if isinstance(v, mpmath.mpf) else mpmath.mpf(str(v)) for v in (r, c))
            rs = tuple(+fr(mpmath.mpf(repr(w)), r_, c_) for w in voc.letters)
            cs = tuple(+fc(mpmath.mpf(repr(w)), r_, c_) for w in voc.letters)
        g = gamma
    for cj in cs:
        validate_srf_parameters(0.0, cj, 0.0)
    cuts = set()
    for rj, cj in zip(rs, cs):
        cuts |= set(_kappa_cuts(te, float(g), st, float(rj), float(cj)))
    cuts = tuple(sorted(cuts | {float(k) for k in extra_cuts}))
    groups = tuple(_channel_data(st, te, rj, cj, g, int(nodes), dps, kind, cuts)
                   for rj, cj in zip(rs, cs))
    return GroupChannelData(groups, voc, r, c, rs, cs)


def _mpmath_function(symbols, expr):
    """An mpmath function of a SymPy expression (the group formulas at high precision)."""
    import sympy as sp
    return sp.lambdify(symbols, expr, modules="mpmath")


def _measured_group_channel(student, teacher, gamma, voc, nodes, kind, extra_cuts,
                            group_values) -> GroupChannelData:
    """:func:`group_channel_data` with measured per-group ``(r_j, c_j)`` (double precision);
    the uniform ``r, c`` recorded are the groups' fit (:func:`fit_uniform_parameters`)."""
    from ...step.vocabulary import fit_uniform_parameters
    rs, cs = (tuple(float(v) for v in np.ravel(x)) for x in group_values)
    if not len(rs) == len(cs) == voc.K:
        raise ValueError(f"group_values must give one r_j and one c_j per letter ({voc.K}), "
                         f"got {len(rs)} and {len(cs)}")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or nodes < 16:
        raise ValueError(f"nodes must be an integer >= 16 (kappa quadrature), got {nodes!r}")
    for rj, cj in zip(rs, cs):
        validate_srf_parameters(rj, cj, gamma)
    st, te = activation(student), activation(teacher)
    g = float(gamma)
    cuts = set()
    for rj, cj in zip(rs, cs):
        cuts |= set(_kappa_cuts(te, g, st, rj, cj))
    cuts = tuple(sorted(cuts | {float(k) for k in extra_cuts}))
    groups = tuple(_channel_data(st, te, rj, cj, g, int(nodes), None, kind, cuts)
                   for rj, cj in zip(rs, cs))
    r, c = fit_uniform_parameters(voc.letters, [1] * voc.K, rs, cs)
    return GroupChannelData(groups, voc, r, c, rs, cs)
