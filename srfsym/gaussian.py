r"""Gaussian-expectation engine: :math:`\mathbb E_z[z^k f(a + s z)]`, z ~ N(0, 1).

The symbolic path is a rule table that is *checked, not trusted*:

=============================  ========================================================
rule                           integrand class (after ``x = a + s z``)
=============================  ========================================================
``poly-exp``                   :math:`z^n e^{Q(z)}`, Q of degree <= 2 (polynomials,
                               exp, sin/cos/sinh/cosh of affine arguments, Gaussians)
``poly-exp-erf``               :math:`z^n e^{Q(z)}\,\mathrm{erf}(\alpha+\beta z)` (Stein's lemma)
``poly-exp-erf2``              :math:`z^n e^{Q(z)}\,\mathrm{erf}(\alpha+\beta z)^2` (Owen's T)
``piecewise``                  sign, Heaviside, Abs, Max, Min with polynomial arguments:
                               the line is cut at the kinks and each piece is a
                               truncated ``poly-exp`` integral (Phi and phi)
``sympy-integrate``            anything else: ``sympy.integrate`` under a time limit
``numeric``                    no closed form: quadrature
=============================  ========================================================

A closed form is accepted only after it matches mpmath quadrature at 30 digits
at two sample points ``(a, s)``; otherwise the engine falls back to numerics and
says why.  Every result is an :class:`Expectation` with ``method`` equal to
``"exact"`` or ``"numeric"``.

Examples
--------
>>> import sympy as sp
>>> from srfsym.activations import X
>>> e = gaussian_expectation(sp.sin(X))
>>> e.method, e.expr
('exact', exp(-s**2/2)*sin(a))
>>> gaussian_expectation(sp.erf(X), k=1).expr
2*s*exp(-a**2/(2*s**2 + 1))/(sqrt(pi)*sqrt(2*s**2 + 1))
>>> gaussian_expectation(sp.tanh(X)).method
'numeric'
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from .activations import (X, lambdify_mpmath, lambdify_numpy, _kinks_of, piece_point,
                          resolve_branches)
from .special import OwensT
from .values import check_dps

__all__ = [
    "A", "S", "Expectation", "gaussian_expectation", "DivergentExpectationError",
    "gauss_hermite", "gaussian_piecewise_rule", "expectation_numpy", "expectation_mpmath",
    "certified_expectation_mpmath",
]

#: Symbols of the engine: the Gaussian argument is ``a + s z``.
A = sp.Symbol("a", real=True)
S = sp.Symbol("s", positive=True)
_Z = sp.Symbol("z", real=True)
_W = sp.Dummy("w", real=True)

#: Points (a, s) at which every closed form is checked against quadrature.
CHECK_POINTS = ((sp.Rational(37, 100), sp.Rational(113, 100)),
                (sp.Rational(-71, 100), sp.Rational(64, 100)),
                (sp.Rational(29, 100), sp.Rational(31, 100)),
                (sp.Rational(-53, 100), sp.Rational(17, 100)))
CHECK_DPS = 30


class DivergentExpectationError(ValueError):
    """The Gaussian expectation does not exist (the integrand outgrows the Gaussian)."""


class _NoRule(Exception):
    pass


@dataclass(frozen=True)
class Expectation:
    r"""One Gaussian expectation :math:`\mathbb E_z[z^k f(a+sz)]` and how it was obtained.

    Attributes
    ----------
    integrand : sympy.Expr
        f as an expression in x.
    k : int
        Power of the weight z.
    expr : sympy.Expr or None
        Closed form in the symbols ``a`` and ``s`` (``None`` when numeric).
    method : str
        ``"exact"`` (closed form, checked against 30-digit quadrature) or ``"numeric"``.
    rule : str
        Which rule produced it, or why it is numeric.
    conditions : tuple
        Inequalities in (a, s) under which the closed form is finite (e.g.
        ``2*s**2 < 1`` for ``exp(x**2)``); evaluators check them.

    Examples
    --------
    >>> from srfsym.activations import X
    >>> e = gaussian_expectation(X**2)
    >>> e.expr, e.method, e.rule
    (a**2 + s**2, 'exact', 'poly-exp')
    >>> float(e.numpy(0.5, 2.0))
    4.25
    """

    integrand: sp.Expr
    k: int
    expr: sp.Expr | None
    method: str
    rule: str
    conditions: tuple = ()
    kinks: tuple = ()
    checked_to: float | None = None
    _evaluators: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def is_exact(self) -> bool:
        return self.method == "exact"

    def _f_numpy(self):
        if "fnp" not in self._evaluators:
            self._evaluators["fnp"] = lambdify_numpy(X, self.integrand)
        return self._evaluators["fnp"]

    def _f_mpmath(self):
        if "fmp" not in self._evaluators:
            self._evaluators["fmp"] = lambdify_mpmath(X, self.integrand)
        return self._evaluators["fmp"]

    def numpy(self, a, s):
        """Evaluate at arrays ``a``, ``s`` (closed form if exact, else quadrature).

        Where a closed form is not finite in double precision (overflow or ``0 * inf`` far
        in the tails) or ``s = 0`` (a point mass), the value comes from quadrature.
        """
        a, s = _finite_location_scale(a, s)
        self._check_conditions_numpy(a, s)
        if self.expr is None:
            return expectation_numpy(self._f_numpy(), self.k, a, s, self.kinks)
        if "np" not in self._evaluators:
            self._evaluators["np"] = lambdify_numpy((A, S), self.expr)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            out = np.asarray(self._evaluators["np"](a, s), dtype=float)
        shape = np.broadcast(a, s).shape
        out = np.array(np.broadcast_to(out, shape))
        bad = (s == 0) | ~np.isfinite(out)
        if np.any(bad):   # the closed forms divide by s; at s = 0 the law is a point mass
            ab, sb = np.broadcast_to(a, shape)[bad], np.broadcast_to(s, shape)[bad]
            with np.errstate(all="ignore"):     # checked for finiteness below
                out[bad] = expectation_numpy(self._f_numpy(), self.k, ab, sb, self.kinks)
            _require_finite(out, f"E[z^{self.k} ({self.integrand})(a + s z)]")
        return out

    def mpmath(self, a, s, dps=30):
        """Evaluate at one point with mpmath at ``dps`` digits (returned as an mpf)."""
        check_dps(dps)
        _finite_location_scale(float(a), float(s))
        with mpmath.workdps(dps + 10):
            a = _mpf(a)
            s = _mpf(s)
            self._check_conditions_mp(a, s)
            if self.expr is None or s == 0:
                val = expectation_mpmath(self._f_mpmath(), self.k, a, s, self.kinks, dps)
            else:
                if "mp" not in self._evaluators:
                    self._evaluators["mp"] = lambdify_mpmath((A, S), self.expr)
                val = self._evaluators["mp"](a, s)
        with mpmath.workdps(dps):
            return +val

    def certified(self, a, s, dps=30):
        """(value, absolute error estimate) at one point: a closed form at ``dps + 10``
        digits (error ``10^-(dps+5)`` relative), or two independent quadratures
        (:func:`certified_expectation_mpmath`)."""
        check_dps(dps)
        if self.expr is not None:
            v = self.mpmath(a, s, dps=dps + 10)
            return v, abs(v) * mpmath.mpf(10) ** -(dps + 5)
        _finite_location_scale(float(a), float(s))
        with mpmath.workdps(dps + 10):
            a, s = _mpf(a), _mpf(s)
            self._check_conditions_mp(a, s)
            return certified_expectation_mpmath(self._f_mpmath(), self.k, a, s, self.kinks, dps)

    def _check_conditions_numpy(self, a, s):
        for cond in self.conditions:
            ok = lambdify_numpy((A, S), cond)(a, s)
            if not np.all(ok):
                raise DivergentExpectationError(
                    f"E[z^{self.k} f(a+sz)] with f = {self.integrand} diverges unless {cond}")
        if self.expr is None and np.size(a):
            amax, smax = float(np.max(np.abs(a))), float(np.max(s))
            done = self._evaluators.get("decay_ok", (-1.0, -1.0))
            if amax > done[0] or smax > done[1]:
                _check_decay(self._f_mpmath(), self.k, amax, smax, self.integrand)
                self._evaluators["decay_ok"] = (max(amax, done[0]), max(smax, done[1]))

    def _check_conditions_mp(self, a, s):
        for cond in self.conditions:
            if not bool(cond.subs({A: sp.Float(str(a), 40), S: sp.Float(str(s), 40)})):
                raise DivergentExpectationError(
                    f"E[z^{self.k} f(a+sz)] with f = {self.integrand} diverges unless {cond}")

    def __str__(self):
        body = self.expr if self.expr is not None else "(no closed form)"
        return f"E[z^{self.k} * ({self.integrand})(a + s z)] = {body}   [{self.method}: {self.rule}]"


def _finite_location_scale(a, s):
    """``a``, ``s`` as float arrays; finite, ``s >= 0`` (``z ~ N(0, 1)``, argument ``a + s z``)."""
    try:
        a = np.asarray(a, dtype=float)
        s = np.asarray(s, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"a and s must be real numbers, got a={a!r}, s={s!r}") from None
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(s))):
        raise ValueError(f"a and s must be finite, got a={a}, s={s}")
    if np.any(s < 0):
        raise ValueError(f"the scale s must be >= 0, got {s}")
    return a, s


def _require_finite(out, what):
    if not np.all(np.isfinite(out)):
        raise FloatingPointError(f"{what} is not finite in double precision at some inputs "
                                 "(beyond the range of float64); use the mpmath evaluator")


def _mpf(v):
    if isinstance(v, mpmath.mpf):
        return v
    if isinstance(v, str):
        return mpmath.mpf(v)
    if isinstance(v, (sp.Basic,)):
        return mpmath.mpf(sp.Float(v, mpmath.mp.dps).__str__())
    return mpmath.mpf(v)


# ======================================================================================
# numeric path

@lru_cache(maxsize=None)
def gauss_hermite(n: int):
    """Probabilists' Gauss-Hermite nodes and weights normalised to sum to 1.

    >>> z, w = gauss_hermite(5)
    >>> round(float(w.sum()), 14), round(float((w * z**2).sum()), 14)
    (1.0, 1.0)
    """
    if n <= 120:
        z, w = np.polynomial.hermite_e.hermegauss(n)
        w = w / math.sqrt(2 * math.pi)
    else:  # Golub-Welsch: stable for any n (numpy's recurrence overflows near n = 180)
        from scipy.linalg import eigh_tridiagonal
        z, vec = eigh_tridiagonal(np.zeros(n), np.sqrt(np.arange(1, n, dtype=float)))
        w = vec[0, :] ** 2
        w = w / w.sum()
    z.setflags(write=False)
    w.setflags(write=False)
    return z, w


_TRAPEZOID_HS = 0.12   # step * s: error ~ exp(-2 pi tau / h) = e^-82 for tanh at any s


#: Most nodes of the double-precision trapezoidal rule (s up to ~1.3e4), and most integrand
#: values evaluated at once (rows are processed in blocks).
_MAX_TRAPEZOID_NODES = 2_000_001
_BLOCK_VALUES = 4_000_000


def _trapezoid_numpy(s_max: float):
    """Trapezoidal rule for E_z over [-9, 9] (Gaussian mass beyond: 2e-19) with step
    0.12 / max(s, 1): for f(a + s z) analytic in a strip of half-width tau/s around the
    real z axis, the error is ~ exp(-2 pi tau / (0.12)) -- below 1e-16 for tanh, softplus.
    Refuses (ValueError) a scale s that would need more than 2e6 nodes."""
    h = _TRAPEZOID_HS / max(s_max, 1.0)
    if 18.0 / h > _MAX_TRAPEZOID_NODES:
        raise ValueError(f"the Gaussian scale s = {s_max:g} is too large for quadrature "
                         f"(the rule would need {18.0 / h:.3g} nodes)")
    return _trapezoid_nodes_numpy(round(h, 12))


@lru_cache(maxsize=64)
def _trapezoid_nodes_numpy(h: float):
    J = int(math.ceil(9.0 / h))
    z = h * np.arange(-J, J + 1, dtype=float)
    w = h * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)
    z.setflags(write=False)
    w.setflags(write=False)
    return z, w


@lru_cache(maxsize=None)
def _gauss_legendre(n: int):
    t, w = np.polynomial.legendre.leggauss(n)
    return t, w


_NUMPY_GH_NODES = 160
#: Half-width of the range of the piecewise rules: the Gaussian mass beyond |z| = 12 is < 1e-32.
GAUSSIAN_HALF_WIDTH = 12.0
_SPLIT_NODES = 120


def gaussian_piecewise_rule(edges, n: int):
    """Nodes and weights for ``E g(z)``, ``z ~ N(0, 1)``, cut at ``edges``: ``n``-point
    Gauss-Legendre on each piece between consecutive edges, the normal density folded into
    the weights (double precision).

    ``edges`` are scalars or arrays broadcastable to one shape ``(m, 1)`` (one set of cuts per
    row); the result has shape ``(n * pieces,)`` or ``(m, n * pieces)``.  Used for integrands
    with jumps or kinks, both for ``E[z^k f(a + s z)]`` (cuts per row, :func:`expectation_numpy`)
    and for the kappa-expectations of the fixed point (fixed cuts).

    >>> z, w = gaussian_piecewise_rule([-12.0, 0.0, 12.0], 40)
    >>> round(float(w.sum()), 12), round(float(w[z > 0].sum()), 12)
    (1.0, 0.5)
    """
    edges = np.broadcast_arrays(*[np.asarray(e, dtype=float) for e in edges])
    t, wt = _gauss_legendre(n)
    zs, ws = [], []
    for lo, hi in zip(edges[:-1], edges[1:]):
        half = (hi - lo) / 2
        z = (hi + lo) / 2 + half * t
        zs.append(z)
        ws.append(wt * half * np.exp(-z * z / 2) / math.sqrt(2 * math.pi))
    return np.concatenate(zs, axis=-1), np.concatenate(ws, axis=-1)


def expectation_numpy(f, k, a, s, kinks=(), n=None):
    """Vectorised quadrature of E[z^k f(a + s z)] for broadcastable arrays a, s.

    Smooth integrands use the trapezoidal rule on [-9, 9] with step 0.12/max(s, 1)
    (spectrally accurate for integrands analytic near the real axis). Integrands
    with kinks or jumps are cut at the kink ``z0 = (x0 - a)/s`` and each side is
    integrated by Gauss-Legendre on [-12, 12] (the Gaussian tail beyond is < 1e-32).

    >>> import numpy as np
    >>> round(float(expectation_numpy(np.tanh, 1, 0.0, 1.0)), 14)  # mu1 of tanh
    0.60570550960216
    """
    a, s = np.broadcast_arrays(np.asarray(a, float), np.asarray(s, float))
    shape = a.shape
    a = a.reshape(-1, 1)
    s = s.reshape(-1, 1)
    if not kinks:
        z, w = _trapezoid_numpy(float(np.max(s)) if s.size else 1.0)
        weights = w * z**k if k else w
        total = np.empty(a.shape[0])
        block = max(1, _BLOCK_VALUES // z.size)
        for lo in range(0, a.shape[0], block):
            rows = slice(lo, lo + block)
            vals = np.asarray(f(a[rows] + s[rows] * z), dtype=float)
            total[rows] = np.broadcast_to(vals, (a[rows].shape[0], z.size)) @ weights
        return total.reshape(shape)
    cuts = [-GAUSSIAN_HALF_WIDTH]
    with np.errstate(divide="ignore", invalid="ignore"):
        for x0 in kinks:
            z0 = np.where(s > 0, (float(x0) - a) / np.where(s > 0, s, 1.0),
                          np.where(a < float(x0), np.inf, -np.inf))
            cuts.append(np.clip(z0, -GAUSSIAN_HALF_WIDTH, GAUSSIAN_HALF_WIDTH))
    cuts.append(GAUSSIAN_HALF_WIDTH)
    total = np.zeros(a.shape[0])
    for lo, hi in zip(cuts[:-1], cuts[1:]):   # piece by piece: memory m x n, not m x pieces n
        z, w = gaussian_piecewise_rule([lo, hi], n or _SPLIT_NODES)
        vals = np.asarray(f(a + s * z), dtype=float)
        total += np.sum(vals * (w * z**k if k else w), axis=-1)
    return total.reshape(shape)


def expectation_mpmath(f, k, a, s, kinks=(), dps=30, error=False, refine=False):
    """E[z^k f(a + s z)] by mpmath tanh-sinh quadrature, split at the kinks.

    Runs at ``dps + 10`` working digits on the finite range ``|z| <= L`` outside which the
    integrand is below ``10^-(dps+15)`` (:func:`_tail_cut`: the integrand is never evaluated
    at absurd arguments such as sin(exp(10^10))); with ``error=True`` returns
    (value, mpmath's error estimate).  ``refine=True`` cuts every piece at three more
    points: a second, independent rule (:func:`certified_expectation_mpmath`).  The
    integrand checks the time budget (:mod:`srfsym.budget`) at every call.

    >>> import mpmath
    >>> v = expectation_mpmath(mpmath.sin, 0, mpmath.mpf(0), mpmath.mpf(1), dps=20)
    >>> mpmath.nstr(v, 15)
    '0.0'
    """
    from .budget import check
    with mpmath.workdps(dps + 10):
        a = _mpf(a)
        s = _mpf(s)
        if s == 0:
            m = _gauss_moment(k)
            val = f(a) * m
            return (+val, mpmath.mpf(0)) if error else +val
        _check_kink_singularities(f, k, a, s, kinks)
        L = _tail_cut(f, k, a, s, dps)
        pts = sorted({(_mpf(sp.N(x0, dps + 10)) - a) / s for x0 in kinks})
        # panels of width <= 2 in z (one wide tanh-sinh panel can miss the bulk or stall on
        # poles near the axis, e.g. tanh(a + s z) at s = 2.5), cut at the kinks
        n = int(mpmath.ceil(L))
        grid = [-L + 2 * L * i / n for i in range(n + 1)]
        pts = sorted(set(grid) | {p for p in pts if -L < p < L})
        if refine:
            pts = sorted(set(pts) | {lo + (hi - lo) * t for lo, hi in zip(pts[:-1], pts[1:])
                                     for t in (mpmath.mpf("0.3090"), mpmath.mpf("0.5878"),
                                               mpmath.mpf("0.8090"))})
        norm = 1 / mpmath.sqrt(2 * mpmath.pi)

        def h(z):
            check("quadrature of a Gaussian expectation")
            return f(a + s * z) * z**k * mpmath.exp(-z * z / 2) * norm

        val, err = mpmath.quad(h, pts, error=True, maxdegree=8)
        if not mpmath.isfinite(val):
            raise DivergentExpectationError(f"quadrature of E[z^{k} f(a+sz)] is not finite")
    return (val, err) if error else val


def certified_expectation_mpmath(f, k, a, s, kinks=(), dps=30):
    """(value, error estimate) of E[z^k f(a + s z)] from two independent quadratures (two
    subdivisions of the line, so two sets of nodes): the estimate is the larger of their
    difference and mpmath's own estimates.  Unresolved oscillation (sin(x**20), sin(exp(x)))
    shows as a large estimate, never as confident digits.

    >>> import mpmath
    >>> v, e = certified_expectation_mpmath(mpmath.tanh, 1, 0, 1, dps=20)
    >>> mpmath.nstr(v, 15), e < 1e-20
    ('0.605705509602159', True)
    """
    v1, e1 = expectation_mpmath(f, k, a, s, kinks, dps, error=True)
    v2, e2 = expectation_mpmath(f, k, a, s, kinks, dps, error=True, refine=True)
    with mpmath.workdps(dps + 10):
        return +v2, max(abs(v1 - v2), abs(e1), abs(e2))


def _tail_cut(f, k, a, s, dps):
    """Half-width L (in z) beyond which |z^k f(a + s z)| phi(z) < 10^-(dps+15): probes at
    L0, 2 L0, 4 L0, ... (L0: where phi alone is that small); DivergentExpectationError if the
    integrand is not dominated by the Gaussian up to 64 L0."""
    target = -(dps + 15) * math.log(10)
    L0 = math.sqrt(2 * (dps + 15) * math.log(10)) + 1
    with mpmath.workdps(20):
        for m in (1, 2, 4, 8, 16, 32, 64):
            z = L0 * m
            worst = -mpmath.inf
            for zz in (z, z * 1.013, z * 1.029):
                for sign in (1, -1):
                    try:
                        v = abs(f(a + s * sign * zz)) * zz**k
                    except (OverflowError, ValueError, ZeroDivisionError):
                        v = mpmath.inf
                    worst = max(worst, mpmath.log(v) if v else -mpmath.inf)
            if worst - z * z / 2 < target:
                return mpmath.mpf(z)
    raise DivergentExpectationError(
        f"E[z^{k} f(a+sz)] does not exist at s = {mpmath.nstr(s, 6)}: the integrand is not "
        "dominated by the Gaussian density")


def _check_kink_singularities(f, k, a, s, kinks):
    """An integrand that blows up like |x - x0|^-p, p >= 1, at a kink x0 has no expectation
    (E[sigma'^2] for sigma = sqrt|x|): found by the growth between 10^-12 and 10^-24."""
    with mpmath.workdps(mpmath.mp.dps + 40):
        for x0 in kinks:
            x0 = _mpf(sp.N(x0, mpmath.mp.dps))
            for side in (1, -1):
                try:
                    g1 = abs(f(x0 + side * mpmath.mpf(10) ** -12))
                    g2 = abs(f(x0 + side * mpmath.mpf(10) ** -24))
                except (ZeroDivisionError, ValueError):
                    continue
                if g1 > 0 and g2 > 0 and mpmath.log10(g2 / g1) / 12 > mpmath.mpf("0.98"):
                    raise DivergentExpectationError(
                        f"E[z^{k} f(a+sz)] diverges: the integrand grows like |x - {x0}|^(-p) "
                        f"with p = {mpmath.nstr(mpmath.log10(g2 / g1) / 12, 3)} >= 1 at "
                        f"x = {mpmath.nstr(x0, 6)}")


def _gauss_moment(k):
    return 0 if k % 2 else math.prod(range(k - 1, 0, -2))


def _check_decay(f, k, amax, smax, integrand):
    """Refuse integrands that are not dominated by the Gaussian (no silent garbage): the
    tail probes of :func:`_tail_cut` in mpmath (no float overflow, so a polynomial of
    degree 300 is not mistaken for a divergent integrand)."""
    try:
        with mpmath.workdps(20):
            for a in {amax, -amax}:
                _tail_cut(f, k, mpmath.mpf(a), mpmath.mpf(max(smax, 1e-300)), 15)
    except DivergentExpectationError:
        raise DivergentExpectationError(
            f"E[z^{k} f(a+sz)] with f = {integrand} does not exist at s = {smax:g}: "
            "the integrand is not dominated by the Gaussian density") from None


# ======================================================================================
# symbolic path: the rule table


def _poly_coeffs(expr, var, max_degree):
    try:
        poly = sp.Poly(expr, var)
    except sp.PolynomialError:
        raise _NoRule(f"{expr} is not polynomial in {var}") from None
    if poly.degree() > max_degree:
        raise _NoRule(f"degree of {expr} exceeds {max_degree}")
    coeffs = poly.all_coeffs()[::-1]
    return coeffs + [sp.S.Zero] * (max_degree + 1 - len(coeffs))


def _moments_shifted(n, m, sig):
    """E_w[(m + sig w)^n] for w ~ N(0,1)."""
    return sp.Add(*[sp.binomial(n, j) * m**(n - j) * sig**j * _gauss_moment(j)
                    for j in range(0, n + 1, 2)])


def _complete_square(Q, conditions):
    """e^{Q(z)} phi(z) = pref * phi((z - m)/sig)/sig. Returns (pref, m, sig)."""
    q0, q1, q2 = _poly_coeffs(sp.expand(Q), _Z, 2)
    prec = sp.expand(1 - 2 * q2)
    if prec.is_number:
        if prec.has(sp.I):
            raise _NoRule("complex quadratic coefficient")
        if not prec > 0:
            raise DivergentExpectationError(
                f"E[e^(Q(z))] with Q = {Q} diverges: the quadratic term outgrows the Gaussian")
    elif not prec.is_positive:
        if prec.is_nonpositive:
            raise DivergentExpectationError(f"E[e^(Q(z))] with Q = {Q} diverges")
        conditions.append(sp.StrictGreaterThan(prec, 0))
    m = q1 / prec
    sig = 1 / sp.sqrt(prec)
    pref = sp.exp(q0 + q1**2 / (2 * prec)) / sp.sqrt(prec)
    return pref, m, sig


def _E_poly_exp(n, Q, conditions):
    """E_z[z^n e^{Q(z)}]."""
    pref, m, sig = _complete_square(Q, conditions)
    return pref * _moments_shifted(n, m, sig)


def _erf_affine(L, var):
    alpha, beta, _ = _poly_coeffs(sp.expand(L), var, 1) + [0]
    if alpha.has(sp.I) or beta.has(sp.I):
        raise _NoRule("complex erf argument")
    return alpha, beta


def _G(j, alpha, beta, conditions):
    """E_w[w^j erf(alpha + beta w)] by Stein's lemma."""
    if j < 0:
        return sp.S.Zero
    if j == 0:
        return sp.erf(alpha / sp.sqrt(1 + 2 * beta**2))
    deriv_Q = -sp.expand((alpha + beta * _Z)**2)
    stein = 2 * beta / sp.sqrt(sp.pi) * _E_poly_exp(j - 1, deriv_Q, conditions)
    return (j - 1) * _G(j - 2, alpha, beta, conditions) + stein


def _K(j, alpha, beta, conditions):
    """E_w[w^j erf(alpha + beta w)^2] (Owen's T at j = 0, Stein's lemma above)."""
    if j < 0:
        return sp.S.Zero
    if j == 0:
        return 1 - 8 * OwensT(sp.sqrt(2) * alpha / sp.sqrt(1 + 2 * beta**2),
                              1 / sp.sqrt(1 + 4 * beta**2))
    deriv_Q = -sp.expand((alpha + beta * _Z)**2)
    # d/dw erf^2 = 2 erf * (2 beta/sqrt(pi)) e^{-(alpha+beta w)^2}
    stein = 4 * beta / sp.sqrt(sp.pi) * _E_poly_exp_erf(j - 1, deriv_Q, alpha + beta * _Z,
                                                         conditions)
    return (j - 1) * _K(j - 2, alpha, beta, conditions) + stein


def _E_poly_exp_erf(n, Q, L, conditions, power=1):
    """E_z[z^n e^{Q(z)} erf(L(z))^power], power in {1, 2}."""
    pref, m, sig = _complete_square(Q, conditions)
    if m.has(sp.I):
        raise _NoRule("complex shift together with erf")
    # z = m + sig w
    alpha, beta = _erf_affine(L.subs(_Z, m + sig * _W), _W)
    base = _G if power == 1 else _K
    total = sp.Add(*[sp.binomial(n, j) * m**(n - j) * sig**j * base(j, alpha, beta, conditions)
                     for j in range(n + 1)])
    return pref * total


def _Phi(u):
    if u is sp.oo:
        return sp.S.One
    if u is sp.S.NegativeInfinity:
        return sp.S.Zero
    return (1 + sp.erf(u / sp.sqrt(2))) / 2


def _phi(u):
    if u in (sp.oo, sp.S.NegativeInfinity):
        return sp.S.Zero
    return sp.exp(-u**2 / 2) / sp.sqrt(2 * sp.pi)


def _truncated_moment(j, lo, hi):
    """int_lo^hi w^j phi(w) dw."""
    if j == 0:
        return _Phi(hi) - _Phi(lo)
    if j == 1:
        return _phi(lo) - _phi(hi)
    edge_lo = sp.S.Zero if lo is sp.S.NegativeInfinity else lo**(j - 1) * _phi(lo)
    edge_hi = sp.S.Zero if hi is sp.oo else hi**(j - 1) * _phi(hi)
    return (j - 1) * _truncated_moment(j - 2, lo, hi) + edge_lo - edge_hi


def _E_trunc_poly_exp(n, Q, lo, hi, conditions):
    """int_lo^hi z^n e^{Q(z)} phi(z) dz for real Q."""
    if sp.expand(Q).has(sp.I):
        raise _NoRule("complex exponent on a half line")
    pref, m, sig = _complete_square(Q, conditions)
    wlo = lo if lo is sp.S.NegativeInfinity else (lo - m) / sig
    whi = hi if hi is sp.oo else (hi - m) / sig
    total = sp.Add(*[sp.binomial(n, j) * m**(n - j) * sig**j * _truncated_moment(j, wlo, whi)
                     for j in range(n + 1)])
    return pref * total


def _trig_to_exp(expr):
    I = sp.I
    return expr.replace(sp.sin, lambda u: (sp.exp(I * u) - sp.exp(-I * u)) / (2 * I)) \
               .replace(sp.cos, lambda u: (sp.exp(I * u) + sp.exp(-I * u)) / 2) \
               .replace(sp.sinh, lambda u: (sp.exp(u) - sp.exp(-u)) / 2) \
               .replace(sp.cosh, lambda u: (sp.exp(u) + sp.exp(-u)) / 2)


def _classify_term(term):
    """Split one product term into (const, n, Q, erf_arg, erf_power)."""
    const, zpart = term.as_independent(_Z, as_Add=False)
    n, Q, erf_arg, erf_pow = 0, sp.S.Zero, None, 0
    for factor in sp.Mul.make_args(zpart):
        if factor is sp.S.One:
            continue
        base, exp_ = factor.as_base_exp()
        if base == _Z and exp_.is_Integer and exp_ >= 0:
            n += int(exp_)
        elif isinstance(base, sp.exp) or base is sp.E:
            arg = base.args[0] if isinstance(base, sp.exp) else sp.S.One
            Q += arg * exp_
        elif isinstance(base, sp.erf) and exp_ in (1, 2):
            if erf_arg is not None and sp.expand(base.args[0] - erf_arg) != 0:
                raise _NoRule("product of two different erf")
            erf_arg = base.args[0]
            erf_pow += int(exp_)
        else:
            raise _NoRule(f"factor {factor} has no rule")
    if erf_pow > 2:
        raise _NoRule("erf to a power above 2")
    return const, n, sp.expand(Q), erf_arg, erf_pow


def _full_line(g, conditions):
    g = sp.expand(_trig_to_exp(g), power_base=False, log=False, multinomial=True)
    total = sp.S.Zero
    used_erf = used_erf2 = False
    for term in sp.Add.make_args(g):
        const, n, Q, L, p = _classify_term(term)
        if p == 0:
            total += const * _E_poly_exp(n, Q, conditions)
        else:
            used_erf |= p == 1
            used_erf2 |= p == 2
            total += const * _E_poly_exp_erf(n, Q, L, conditions, power=p)
    rule = "poly-exp-erf2" if used_erf2 else ("poly-exp-erf" if used_erf else "poly-exp")
    return total, rule


def _piecewise(f, k, conditions):
    kinks = _kinks_of(f)
    edges = [sp.S.NegativeInfinity, *kinks, sp.oo]
    total = sp.S.Zero
    for lo, hi in zip(edges[:-1], edges[1:]):
        piece = resolve_branches(f, piece_point(lo, hi))
        g = sp.expand(_Z**k * _trig_to_exp(piece.subs(X, A + S * _Z)))
        zlo = lo if lo is sp.S.NegativeInfinity else (lo - A) / S
        zhi = hi if hi is sp.oo else (hi - A) / S
        for term in sp.Add.make_args(g):
            if term == 0:
                continue
            const, n, Q, L, p = _classify_term(term)
            if p:
                raise _NoRule("erf on a half line")
            total += const * _E_trunc_poly_exp(n, Q, zlo, zhi, conditions)
    return total


class _Timeout(Exception):
    pass


def _integrate_with_timeout(g, seconds):
    """sympy.integrate of g(z) phi(z) over R, interrupted after ``seconds`` (or when the
    time budget of :mod:`srfsym.budget` runs out; main thread only)."""
    from .budget import LimitReached, limited
    if seconds <= 0:
        raise _NoRule("sympy.integrate skipped (time limit 0)")
    try:
        res = limited(lambda: sp.integrate(g * sp.exp(-_Z**2 / 2) / sp.sqrt(2 * sp.pi),
                                           (_Z, -sp.oo, sp.oo)), seconds)
    except LimitReached as exc:
        raise _NoRule(f"sympy.integrate gave no answer ({exc}; limit {seconds} s)") from None
    except Exception as exc:  # sympy raises many kinds on hard integrals
        raise _NoRule(f"sympy.integrate failed ({type(exc).__name__})") from None
    if res.has(sp.Integral) or res.has(sp.Piecewise) or res.has(sp.oo, sp.zoo, sp.nan):
        raise _NoRule("sympy.integrate returned no usable closed form")
    return res


#: Seconds allowed for the rule table on one integrand (expansions can explode:
#: nested tanh squared has 4^10 terms); past it the integrand goes to quadrature.
RULE_SECONDS = 10.0


def _tidy(expr):
    expr = sp.expand_complex(expr) if expr.has(sp.I) else expr
    if sp.count_ops(expr) > 400:   # simplify is super-linear: large forms stay expanded
        return sp.powsimp(expr)
    from .tidy import tidy
    out = tidy(expr)
    # keep erf(...) rather than 1 - erfc(...)
    return out.rewrite(sp.erf) if out.has(sp.erfc) else out


def _check_closed_form(expr, f, k, kinks, conditions=()):
    """Largest deviation of the closed form from 30-digit quadrature at two CHECK_POINTS
    (the first two at which the finiteness conditions hold)."""
    fmp = lambdify_mpmath(X, f)
    worst = mpmath.mpf(0)
    points = [(a0, s0) for a0, s0 in CHECK_POINTS
              if all(bool(c.subs({A: a0, S: s0})) for c in conditions)][:2]
    if not points:
        return mpmath.inf
    with mpmath.workdps(CHECK_DPS + 10):
        for a0, s0 in points:
            closed = sp.N(expr.subs({A: a0, S: s0}), CHECK_DPS + 10)
            if closed.has(sp.I) and abs(sp.im(closed)) > 10**(-CHECK_DPS):
                return mpmath.inf
            closed = mpmath.mpf(str(sp.re(closed)))
            a_, s_ = mpmath.mpf(a0.p) / a0.q, mpmath.mpf(s0.p) / s0.q
            if kinks:
                quad = expectation_mpmath(fmp, k, a_, s_, kinks, CHECK_DPS)
            else:   # trapezoidal rule on R: spectrally accurate for analytic integrands
                z, w = trapezoid_mpmath(mpmath.mpf("0.1") / max(s_, 1), CHECK_DPS + 5)
                quad = mpmath.fsum(wj * zj**k * fmp(a_ + s_ * zj) for zj, wj in zip(z, w))
                if abs(closed - quad) > 10**(-CHECK_DPS + 5) * max(1, abs(quad)):
                    # slowly decaying integrand (or a near singularity): adaptive quadrature
                    quad = expectation_mpmath(fmp, k, a_, s_, kinks, CHECK_DPS)
            dev = abs(closed - quad) / max(1, abs(quad))
            worst = max(worst, dev)
    return worst


@lru_cache(maxsize=512)
def _cached(f, k, known_closed_form, integrate_timeout):
    conditions = []
    kinks = _kinks_of(f)
    rules_tried = []
    closed, rule = None, None
    if f.has(sp.DiracDelta):
        raise DivergentExpectationError(
            f"{f} has a Dirac mass: use Stein's lemma (E[z f]) instead of E[f']")
    if known_closed_form is not False:
        from .budget import LimitReached, limited
        try:
            if kinks:
                closed, rule = limited(lambda: _piecewise(f, k, conditions), RULE_SECONDS), \
                    "piecewise"
            else:
                closed, rule = limited(lambda: _full_line(_Z**k * f.subs(X, A + S * _Z),
                                                          conditions), RULE_SECONDS)
        except _NoRule as exc:
            rules_tried.append(str(exc))
            conditions = []
        except LimitReached as exc:
            rules_tried.append(f"rule table gave no answer ({exc})")
            conditions = []
        if closed is None and kinks:
            # the pieces have no rule; sympy.integrate of Abs/sign/Max forms over R does not
            # finish in practice (x/(1+|x|): 5 attempts, 10 s, nothing): not tried
            rules_tried.append("sympy.integrate not tried on a function with kinks")
        elif closed is None:
            try:
                closed = _integrate_with_timeout(_Z**k * f.subs(X, A + S * _Z), integrate_timeout)
                rule = "sympy-integrate"
            except _NoRule as exc:
                rules_tried.append(str(exc))
    else:
        rules_tried.append("known to have no Gaussian closed form")
    if closed is not None:
        closed = _tidy(closed)
        dev = _check_closed_form(closed, f, k, kinks, conditions)
        if dev < 10**(-CHECK_DPS + 5):
            return Expectation(f, k, closed, "exact", rule, tuple(conditions), kinks, float(dev))
        rules_tried.append(f"closed form from rule {rule} rejected: off by {mpmath.nstr(dev, 3)} "
                           "from 30-digit quadrature")
    return Expectation(f, k, None, "numeric", "; ".join(rules_tried) or "no rule", (), kinks)


#: Seconds allowed for the ``sympy.integrate`` attempt when no rule applies (change it with
#: :func:`set_integrate_timeout`; 0 skips the attempt).
INTEGRATE_TIMEOUT = 2.0


def set_integrate_timeout(seconds: float) -> None:
    """Set the time limit of the ``sympy.integrate`` attempt (0 skips it).

    >>> import srfsym.gaussian as engine
    >>> set_integrate_timeout(1.0); engine.INTEGRATE_TIMEOUT
    1.0
    >>> set_integrate_timeout(2.0)
    """
    global INTEGRATE_TIMEOUT
    if not seconds >= 0:
        raise ValueError(f"the integrate time limit must be >= 0 seconds, got {seconds!r}")
    INTEGRATE_TIMEOUT = float(seconds)


def gaussian_expectation(f, k=0, *, known_closed_form=None, integrate_timeout=None):
    """Closed form (checked) or numeric object for E_z[z^k f(a + s z)].

    Parameters
    ----------
    f : sympy.Expr
        Integrand in :data:`srfsym.activations.X`.
    k : int
        Power of the weight z (``k = 1`` gives Stein-type coefficients).
    known_closed_form : bool or None
        ``False`` skips the rule table and ``sympy.integrate`` (known not to have one).
    integrate_timeout : float or None
        Seconds allowed for the ``sympy.integrate`` attempt (default
        :data:`INTEGRATE_TIMEOUT`).

    Returns
    -------
    Expectation

    >>> from srfsym.activations import X
    >>> gaussian_expectation(sp.sign(X)).expr
    erf(sqrt(2)*a/(2*s))
    """
    if not isinstance(k, int) or k < 0:
        raise ValueError(f"the weight power k must be a non-negative integer, got {k!r}")
    timeout = INTEGRATE_TIMEOUT if integrate_timeout is None else integrate_timeout
    if isinstance(f, str):   # never sympify text (it calls eval): parse it safely
        from .activations import parse_activation
        f = parse_activation(f)
    elif isinstance(f, (int, float)):
        f = sp.Float(f) if isinstance(f, float) else sp.Integer(f)
    if not isinstance(f, sp.Expr):
        raise TypeError(f"the integrand must be a SymPy expression in x or a string, got "
                        f"{type(f).__name__}")
    return _cached(f, k, known_closed_form, float(timeout))


# ======================================================================================
# formulas built from Gaussian expectations, with generated numpy / mpmath evaluators


class GaussianFormula:
    """A formula in some parameters whose ingredients are Gaussian expectations.

    ``template`` is a SymPy expression in ``params`` and placeholder symbols; each
    placeholder stands for an :class:`Expectation` evaluated at ``a = a_expr(params)``,
    ``s = s_expr(params)``.  Placeholders with a checked closed form are substituted
    once; the others are filled by quadrature at evaluation time.  Both evaluators are
    generated from the same template (lambdify), so no formula is typed twice.

    Examples
    --------
    >>> from srfsym.activations import X
    >>> kap, r, c = sp.symbols("kappa r c", positive=True)
    >>> P0 = sp.Symbol("P0")
    >>> mu0 = GaussianFormula("mu0", P0, (kap, r, c), {P0: gaussian_expectation(sp.sin(X))},
    ...                       r * kap, sp.sqrt(c))
    >>> mu0.expr
    exp(-c/2)*sin(kappa*r)
    >>> round(float(mu0.numpy(0.5, 1.0, 1.0)), 12)
    0.290786288213
    """

    def __init__(self, name, template, params, table, a_expr, s_expr):
        self.name = name
        self.template = template
        self.params = tuple(params)
        self.table = dict(table)
        self.a_expr = a_expr
        self.s_expr = s_expr
        subs = {}
        self.numeric = {}
        for sym, exp_ in self.table.items():
            if exp_.is_exact:
                subs[sym] = exp_.expr.subs({A: a_expr, S: s_expr}, simultaneous=True)
            else:
                self.numeric[sym] = exp_
        body = template.subs(subs)
        self._body = body  # still contains the numeric placeholders
        self.method = "exact" if not self.numeric else "numeric"
        self.expr = _tidy_formula(body) if not self.numeric else None
        self._np = None
        self._mp = None

    @property
    def is_exact(self):
        return self.method == "exact"

    @property
    def conditions(self):
        out = []
        for exp_ in self.table.values():
            out += [c.subs({A: self.a_expr, S: self.s_expr}) for c in exp_.conditions]
        return tuple(out)

    @property
    def how(self):
        if self.is_exact:
            rules = sorted({e.rule for e in self.table.values()})
            return "closed form (rules: " + ", ".join(rules) + "; checked against 30-digit quadrature)"
        return "quadrature of " + ", ".join(
            f"E[z^{e.k} ({e.integrand})]" for e in self.numeric.values())

    def _inputs(self):
        return self.params + tuple(self.numeric)

    def numpy(self, *values):
        """Vectorised float evaluation at broadcastable parameter arrays."""
        if self._np is None:
            expr = self.expr if self.expr is not None else self._body
            self._np = (lambdify_numpy(self._inputs(), expr),
                        lambdify_numpy(self.params, self.a_expr),
                        lambdify_numpy(self.params, self.s_expr))
        f, fa, fs = self._np
        values = [np.asarray(v, dtype=float) for v in values]
        extra = []
        if self.numeric:
            a = np.asarray(fa(*values), dtype=float)
            s = np.asarray(fs(*values), dtype=float)
            extra = _numeric_placeholders(self.numeric, a, s)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = f(*values, *extra)
        shape = np.broadcast(*values).shape if values else ()
        return np.broadcast_to(np.asarray(out, dtype=float), shape)

    def mpmath(self, *values, dps=30):
        """Evaluation with mpmath at ``dps`` significant digits (inputs as str or mpf)."""
        if self._mp is None:
            expr = self.expr if self.expr is not None else self._body
            self._mp = (lambdify_mpmath(self._inputs(), expr),
                        lambdify_mpmath(self.params, self.a_expr),
                        lambdify_mpmath(self.params, self.s_expr))
        f, fa, fs = self._mp
        with mpmath.workdps(dps + 10):
            vals = [_mpf(v) for v in values]
            extra = []
            if self.numeric:
                a, s = fa(*vals), fs(*vals)
                extra = [e.mpmath(a, s, dps=dps + 5) for e in self.numeric.values()]
            out = f(*vals, *extra)
        with mpmath.workdps(dps):
            return +out

    def __repr__(self):
        return f"GaussianFormula({self.name} = {self.expr if self.is_exact else self.template}, {self.method})"


def _numeric_placeholders(numeric, a, s):
    """Quadrature for each numeric placeholder, sharing integrand evaluations per integrand."""
    out = []
    for exp_ in numeric.values():
        exp_._check_conditions_numpy(a, s)
        out.append(expectation_numpy(exp_._f_numpy(), exp_.k, a, s, exp_.kinks))
    return out


def _tidy_formula(expr):
    from .tidy import tidy
    return tidy(expr)


class FormulaSet:
    """Several :class:`GaussianFormula` sharing one table of expectations.

    The generated evaluators compute each numeric expectation once per call (the
    integrand is evaluated once on the quadrature nodes and reused for its z-weighted
    and squared versions) and return all formulas together.

    >>> from srfsym.activations import X
    >>> kap = sp.Symbol("kappa", real=True)
    >>> P0, P1 = sp.symbols("P0 P1")
    >>> fs = FormulaSet({"m0": P0, "m1": P1}, (kap,), {P0: gaussian_expectation(sp.tanh(X)),
    ...                 P1: gaussian_expectation(sp.tanh(X), 1)}, kap, sp.S.One)
    >>> [round(abs(float(v)), 12) for v in fs.numpy(0.0)]
    [0.0, 0.605705509602]
    """

    def __init__(self, templates, params, table, a_expr, s_expr):
        self.formulas = {name: GaussianFormula(name, t, params, table, a_expr, s_expr)
                         for name, t in templates.items()}
        self.params = tuple(params)
        self.table = dict(table)
        self.a_expr, self.s_expr = a_expr, s_expr
        self.numeric = {}
        for f in self.formulas.values():
            self.numeric.update(f.numeric)
        bodies = [f.expr if f.expr is not None else f._body for f in self.formulas.values()]
        inputs = self.params + tuple(self.numeric)
        self._np = lambdify_numpy(inputs, bodies)
        self._fa = lambdify_numpy(self.params, a_expr)
        self._fs = lambdify_numpy(self.params, s_expr)
        self._mp_args = (inputs, bodies)
        self._mp = None
        # the templates with every expectation as a placeholder: used where s = 0 (a point
        # mass), at which closed forms that divide by s cannot be evaluated
        templates = [f.template for f in self.formulas.values()]
        self._all = self.params + tuple(self.table)
        self._np_template = lambdify_numpy(self._all, templates)
        self._mp_template = None

    def __getitem__(self, name):
        return self.formulas[name]

    @property
    def method(self):
        return "exact" if all(f.is_exact for f in self.formulas.values()) else "numeric"

    def numpy(self, *values):
        """All formulas at broadcastable float arrays, as a tuple in template order."""
        values = [np.asarray(v, dtype=float) for v in values]
        shape = np.broadcast(*values).shape if values else ()
        extra = []
        if self.numeric:
            a = np.broadcast_to(np.asarray(self._fa(*values), dtype=float), shape)
            s = np.broadcast_to(np.asarray(self._fs(*values), dtype=float), shape)
            extra = _numeric_values(self.numeric, a, s)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            outs = self._np(*values, *extra)
        outs = [np.array(np.broadcast_to(np.asarray(o, dtype=float), shape)) for o in outs]
        s = np.broadcast_to(np.asarray(self._fs(*values), dtype=float), shape)
        bad = s == 0
        for o in outs:
            bad = bad | ~np.isfinite(o)
        if np.any(bad):
            # s = 0 (a point mass: the closed forms divide by s) or a closed form that is not
            # finite in float64 far in the tails: every expectation by quadrature there
            a = np.broadcast_to(np.asarray(self._fa(*values), dtype=float), shape)[bad]
            sb = s[bad]
            point = []
            for e in self.table.values():
                e._check_conditions_numpy(a, sb)
                with np.errstate(all="ignore"):     # checked for finiteness below
                    point.append(expectation_numpy(e._f_numpy(), e.k, a, sb, e.kinks))
            with np.errstate(all="ignore"):
                direct = self._np_template(*[np.broadcast_to(v, shape)[bad] for v in values],
                                           *point)
            for o, dv in zip(outs, direct):
                o[bad] = dv
                _require_finite(o, "a coefficient")
        return tuple(outs)

    def mpmath(self, *values, dps=30):
        """All formulas with mpmath at ``dps`` digits (inputs as str or mpf)."""
        if self._mp is None:
            self._mp = lambdify_mpmath(*self._mp_args)
            self._mpa = lambdify_mpmath(self.params, self.a_expr)
            self._mps = lambdify_mpmath(self.params, self.s_expr)
        with mpmath.workdps(dps + 10):
            vals = [_mpf(v) for v in values]
            extra = []
            a, s = self._mpa(*vals), self._mps(*vals)
            if s != 0 and self.numeric:
                extra = _trapezoid_shared(self, a, s, dps)
                if extra is not None:
                    outs = self._mp(*vals, *extra)
                    with mpmath.workdps(dps):
                        return tuple(+o for o in outs)
                extra = []
            if s == 0:
                if self._mp_template is None:
                    self._mp_template = lambdify_mpmath(
                        self._all, [f.template for f in self.formulas.values()])
                point = [e.mpmath(a, s, dps=dps + 5) for e in self.table.values()]
                outs = self._mp_template(*vals, *point)
            else:
                if self.numeric:
                    extra = [e.mpmath(a, s, dps=dps + 5) for e in self.numeric.values()]
                outs = self._mp(*vals, *extra)
        with mpmath.workdps(dps):
            return tuple(+o for o in outs)


def _shared_quadrature(numeric, a, s):
    """Numeric placeholders, evaluating each distinct smooth integrand once on the nodes
    (in blocks of rows: at most ``_BLOCK_VALUES`` integrand values held at a time)."""
    out = [None] * len(numeric)
    smooth = []
    for i, exp_ in enumerate(numeric.values()):
        exp_._check_conditions_numpy(a, s)
        if exp_.kinks:
            out[i] = expectation_numpy(exp_._f_numpy(), exp_.k, a, s, exp_.kinks)
        else:
            out[i] = np.empty(a.shape)
            smooth.append((i, exp_))
    if not smooth:
        return out
    z, w = _trapezoid_numpy(float(np.max(s)) if s.size else 1.0)
    flat_a, flat_s = a.reshape(-1, 1), s.reshape(-1, 1)
    block = max(1, _BLOCK_VALUES // z.size)
    for lo in range(0, flat_a.shape[0], block):
        rows = slice(lo, lo + block)
        cache = {}
        for i, exp_ in smooth:
            f = exp_.integrand
            base, power = f.as_base_exp()
            if f not in cache:
                if power == 2 and base in cache:
                    cache[f] = cache[base] ** 2
                else:
                    vals = np.asarray(exp_._f_numpy()(flat_a[rows] + flat_s[rows] * z),
                                      dtype=float)
                    cache[f] = np.broadcast_to(vals, (flat_a[rows].shape[0], z.size))
            weights = w * z**exp_.k if exp_.k else w
            out[i].reshape(-1)[rows] = cache[f] @ weights
    return out


# --------------------------------------------------------------------------------------
# verified fast path for high-precision quadrature of smooth integrands

def _trapezoid_shared(fset, a, s, dps):
    """All numeric placeholders of ``fset`` at (a, s) by one trapezoidal rule on R.

    For integrands analytic in a strip around R and dominated by the Gaussian, the
    trapezoidal rule converges like exp(-2 pi tau / h).  The step is fixed per (s, dps)
    by halving until two steps agree to 10^-(dps+3), and the rule is accepted only if it
    also matches adaptive ``mpmath.quad`` at that first point; otherwise ``None`` (the
    caller uses ``mpmath.quad``).  Integrand values are shared between placeholders
    (f, z f and f^2 use one evaluation of f per node).
    """
    exps = list(fset.numeric.values())
    if any(e.kinks for e in exps) or s > _MAX_TRAPEZOID_MP_SCALE:
        return None
    cache = fset.__dict__.setdefault("_trap", {})
    key = (dps, mpmath.nstr(s, 12))
    if key not in cache:
        cache[key] = _choose_trapezoid(exps, a, s, dps)
    rule = cache[key]
    if rule is None:
        return None
    return _trapezoid_eval(exps, a, s, rule, dps)


#: Above this scale the high-precision trapezoidal rule (about 40 dps s nodes) is not tried.
_MAX_TRAPEZOID_MP_SCALE = 1e4


def trapezoid_mpmath(h, dps):
    """Trapezoidal rule for E over z ~ N(0, 1) at ``dps`` digits: nodes h*j on
    [-L, L] with phi(L) < 10^-(dps+12), weights h*phi(z_j).  For integrands analytic in a
    strip of half-width tau around the real axis it converges like exp(-2 pi tau / h).

    >>> z, w = trapezoid_mpmath(mpmath.mpf("0.25"), 30)
    >>> with mpmath.workdps(30):
    ...     print(mpmath.nstr(mpmath.fsum(wj * zj**2 for zj, wj in zip(z, w)), 25))
    1.0
    """
    with mpmath.workdps(dps + 15):
        L = mpmath.sqrt(2 * (dps + 12) * mpmath.log(10)) + 2
        J = int(mpmath.ceil(L / h))
        z = [h * j for j in range(-J, J + 1)]
        norm = h / mpmath.sqrt(2 * mpmath.pi)
        w = [norm * mpmath.exp(-zj * zj / 2) for zj in z]
    return z, w


def _trapezoid_eval(exps, a, s, rule, dps):
    z, w = rule
    with mpmath.workdps(dps + 15):
        values = {}
        out = []
        for e in exps:
            f = e.integrand
            if f not in values:
                base, power = f.as_base_exp()
                if power == 2 and base in values:
                    values[f] = [v * v for v in values[base]]
                else:
                    fm = e._f_mpmath()
                    values[f] = [fm(a + s * zj) for zj in z]
            vals = values[f]
            if e.k:
                out.append(mpmath.fsum(wj * zj**e.k * v for wj, zj, v in zip(w, z, vals)))
            else:
                out.append(mpmath.fsum(wj * v for wj, v in zip(w, vals)))
    return out


def _choose_trapezoid(exps, a, s, dps):
    tol = mpmath.mpf(10) ** (-(dps + 3))
    with mpmath.workdps(dps + 15):
        h = mpmath.pi**2 / (max(s, 1) * (dps + 15) * mpmath.log(10))
        prev = _trapezoid_eval(exps, a, s, trapezoid_mpmath(h, dps), dps)
        for _ in range(4):
            h /= 2
            rule = trapezoid_mpmath(h, dps)
            cur = _trapezoid_eval(exps, a, s, rule, dps)
            if all(abs(x - y) <= tol * max(1, abs(y)) for x, y in zip(cur, prev)):
                ref = [e.mpmath(a, s, dps=dps + 3) for e in exps]
                if all(abs(x - y) <= 10 * tol * max(1, abs(y)) for x, y in zip(cur, ref)):
                    return rule
                return None
            prev = cur
    return None


# --------------------------------------------------------------------------------------
# large inputs: verified piecewise-Chebyshev interpolation in a (at fixed s)

_INTERP_MIN_SIZE = 20_000
_CHEB_N = 17          # points per piece (degree 16)
_CHEB_HALF = 0.25     # half-width of a piece in a
_INTERP_TOL = 1e-13


def _numeric_values(numeric, a, s):
    """Numeric placeholders at (a, s): direct quadrature, or for large arrays at one s a
    piecewise Chebyshev interpolant in a (a Gaussian smoothing of f is entire in a), built
    from quadrature at 17 points per piece of width 0.5 and accepted only if it matches
    direct quadrature at 64 check points to 1e-13; otherwise direct quadrature."""
    if a.size < _INTERP_MIN_SIZE or np.ptp(s) != 0 or any(e.kinks for e in numeric.values()):
        return _shared_quadrature(numeric, a, s)
    s0 = float(s.flat[0])
    lo, hi = float(a.min()), float(a.max())
    M = max(1, int(math.ceil((hi - lo) / (2 * _CHEB_HALF))))
    mids = lo + _CHEB_HALF * (2 * np.arange(M) + 1)
    i = np.arange(_CHEB_N)
    t = np.cos(np.pi * (i + 0.5) / _CHEB_N)
    pts = (mids[:, None] + _CHEB_HALF * t[None, :]).ravel()
    vals = _shared_quadrature(numeric, pts, np.full_like(pts, s0))
    k = np.arange(_CHEB_N)
    dct = np.cos(np.pi * np.outer(k, i + 0.5) / _CHEB_N) * (2.0 / _CHEB_N)
    dct[0] /= 2
    coeffs = [v.reshape(M, _CHEB_N) @ dct.T for v in vals]          # (M, N) each
    flat = a.ravel()
    idx = np.clip(((flat - lo) / (2 * _CHEB_HALF)).astype(int), 0, M - 1)
    x = (flat - mids[idx]) / _CHEB_HALF
    out = [_clenshaw(C, idx, x).reshape(a.shape) for C in coeffs]
    check = np.linspace(lo, hi, 64) + (hi - lo) * 1e-3 * np.sin(np.arange(64))
    check = np.clip(check, lo, hi)
    direct = _shared_quadrature(numeric, check, np.full_like(check, s0))
    cidx = np.clip(((check - lo) / (2 * _CHEB_HALF)).astype(int), 0, M - 1)
    cx = (check - mids[cidx]) / _CHEB_HALF
    for C, d in zip(coeffs, direct):
        if np.max(np.abs(_clenshaw(C, cidx, cx) - d) / np.maximum(1, np.abs(d))) > _INTERP_TOL:
            return _shared_quadrature(numeric, a, s)
    return out


def _clenshaw(C, idx, x):
    G = C[idx]                      # one gather of the coefficient rows
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    x2 = 2 * x
    for k in range(C.shape[1] - 1, 0, -1):
        b1, b2 = G[:, k] + x2 * b1 - b2, b1
    return G[:, 0] + x * b1 - b2
