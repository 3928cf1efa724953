r"""Numeric Gaussian expectations :math:`\mathbb E_z[z^k f(a + s z)]`, z ~ N(0, 1).

Double precision: the trapezoidal rule on [-9, 9] for smooth integrands, Gauss-Legendre
pieces cut at the kinks otherwise (:func:`expectation_numpy`).  High precision: mpmath
tanh-sinh in panels on a finite range cut where the integrand is negligible
(:func:`expectation_mpmath`), and a certified value from two independent subdivisions
(:func:`certified_expectation_mpmath`).  Integrands not dominated by the Gaussian, or
blowing up like ``|x - x0|^-1`` at a kink, are refused (:class:`DivergentExpectationError`).

The symbolic rule table is in :mod:`srfsym.symbolic.gaussian`; formulas built from expectations in
:mod:`srfsym.symbolic.gaussian_formulas`.
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..core.precision import workdps

__all__ = ["DivergentExpectationError", "gauss_hermite", "gaussian_piecewise_rule",
           "expectation_numpy", "expectation_mpmath", "certified_expectation_mpmath",
           "trapezoid_mpmath", "GAUSSIAN_HALF_WIDTH"]

class DivergentExpectationError(ValueError):
    """The Gaussian expectation does not exist (the integrand outgrows the Gaussian)."""


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
    integrand checks the time budget (:mod:`srfsym.core.budget`) at every call.

    >>> import mpmath
    >>> v = expectation_mpmath(mpmath.sin, 0, mpmath.mpf(0), mpmath.mpf(1), dps=20)
    >>> abs(v) < 1e-25       # E sin(z) = 0 (odd integrand) to the working precision
    True
    """
    from ..core.budget import check
    with workdps(dps + 10):
        a = _mpf(a)
        s = _mpf(s)
        if s == 0:
            m = _gauss_moment(k)
            val = f(a) * m
            return (+val, mpmath.mpf(0)) if error else +val
        _check_kink_singularities(f, k, a, s, kinks)
        L = _tail_cut(f, k, a, s, dps)
        pts = sorted({(_mpf(sp.N(x0, dps + 10)) - a) / s for x0 in kinks})
        # panels of width ~2 in z (one wide tanh-sinh panel can miss the bulk or stall on
        # poles near the axis, e.g. tanh(a + s z) at s = 2.5), cut at the kinks
        n = min(int(mpmath.ceil(L)), 24)    # (wide ranges of growing integrands: <= 24 panels)
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
    with workdps(dps + 10):
        return +v2, max(abs(v1 - v2), abs(e1), abs(e2))


def _tail_cut(f, k, a, s, dps):
    """Half-width L (in z) beyond which |z^k f(a + s z)| phi(z) < 10^-(dps+15): probes at
    L0, 2 L0, 4 L0, ... (L0: where phi alone is that small); DivergentExpectationError if the
    integrand is not dominated by the Gaussian up to 64 L0."""
    target = -(dps + 15) * math.log(10)
    L0 = math.sqrt(2 * (dps + 15) * math.log(10)) + 1
    with workdps(20):
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
    with workdps(mpmath.mp.dps + 40):
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
        with workdps(20):
            for a in {amax, -amax}:
                _tail_cut(f, k, mpmath.mpf(a), mpmath.mpf(max(smax, 1e-300)), 15)
    except DivergentExpectationError:
        raise DivergentExpectationError(
            f"E[z^{k} f(a+sz)] with f = {integrand} does not exist at s = {smax:g}: "
            "the integrand is not dominated by the Gaussian density") from None


def trapezoid_mpmath(h, dps):
    """Trapezoidal rule for E over z ~ N(0, 1) at ``dps`` digits: nodes h*j on
    [-L, L] with phi(L) < 10^-(dps+12), weights h*phi(z_j).  For integrands analytic in a
    strip of half-width tau around the real axis it converges like exp(-2 pi tau / h).

    >>> z, w = trapezoid_mpmath(mpmath.mpf("0.25"), 30)
    >>> with mpmath.workdps(30):
    ...     print(mpmath.nstr(mpmath.fsum(wj * zj**2 for zj, wj in zip(z, w)), 25))
    1.0
    """
    with workdps(dps + 15):
        L = mpmath.sqrt(2 * (dps + 12) * mpmath.log(10)) + 2
        J = int(mpmath.ceil(L / h))
        z = [h * j for j in range(-J, J + 1)]
        norm = h / mpmath.sqrt(2 * mpmath.pi)
        w = [norm * mpmath.exp(-zj * zj / 2) for zj in z]
    return z, w
