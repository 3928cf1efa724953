r"""The step batch's weighted Wishart matrix in the limit (docs/theory.md (g.5), (g.5.2)).

For an odd student the rows of the trained first layer's bulk have covariance
``d Sigma = I + b S2`` with ``S2 = X^T diag(e^2) X / n0`` (the step batch ``X``, residuals
``e = sigma_star(xi) - mu0``), and the spike direction is ``vhat = s/|s|``, ``s = X^T e / n0``,
built from the same batch.  Everything the exact bulk needs of the batch is the resolvent of
``S2`` along ``vhat`` and along ``zeta`` (the teacher direction ``e1`` with ``vhat`` taken out):
with ``R = (S2 + tau)^-1``,

    m = (1/d) tr R = 1/(tau (1 + delta)),   delta = E[e^2/(tau + theta e^2)],
    theta = 1/(alpha0 (1 + delta)),
    s^T R s = 1 - tau (A - P^2/(1 + G)),   e1^T R s = P/(1 + G),   e1^T R e1 = 1/(tau (1 + G)),
    A = E[1/(tau + theta e^2)]  (1 - tau A = E[theta e^2/(tau + theta e^2)] in the code),  P = E[e xi/(tau + theta e^2)],  G = E[e^2 xi^2/(tau + theta e^2)]

(Woodbury on the batch, the teacher column split off; derived in docs/theory.md (g.5)), the
averages over the residual law ``(xi, e(xi))``; ``delta`` by Newton.

:func:`batch_contour` turns these into quadrature rules for ``E h(varsigma)`` and
``x^T h(S2) y`` (``x, y`` in ``{vhat, zeta}``) for any ``h`` holomorphic on a neighbourhood of
the spectrum of ``S2``: the trapezoidal rule on an ellipse around that spectrum of

    x^T h(S2) y = -(1/(2 pi i)) oint h(z) x^T (S2 - z)^-1 y dz,

which converges geometrically (the ellipse sits halfway, in the Joukowski variable, between the
spectrum and the nearest singularity ``-pole`` of ``h``).

>>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
>>> e, w, xi = residual_law("sin", 0.0, 48)
>>> rule = batch_contour(e, w, xi, alpha0=2.0, pole=0.5)
>>> round(float(rule.plain.sum().real), 12), round(float((rule.plain * rule.z).sum().real), 12)
(1.0, 0.432332358382)
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...core.budget import check as _budget_check

from ..state import ConvergenceError

__all__ = ["BatchForms", "BatchContour", "ContourEllipse", "batch_forms", "batch_contour",
           "batch_contour_variant", "contour_ellipse", "batch_alignment"]


class BatchForms(NamedTuple):
    """``m = (1/d) tr (S2 + tau)^-1`` and the forms ``x^T (S2 + tau)^-1 y`` along the unit
    directions ``vhat`` and ``zeta``; ``delta`` the solved fixed point (a warm start)."""
    m: np.ndarray
    qvv: np.ndarray
    qvz: np.ndarray
    qzz: np.ndarray
    delta: np.ndarray


def batch_alignment(e, w, xi, alpha0):
    """``(E[e xi], |s|^2, gamma)``: ``|s|^2 = E[e xi]^2 + E[e^2]/alpha0`` and the alignment
    ``gamma = <vhat, e1> = E[e xi]/|s|`` of the spike direction in the limit.

    >>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
    >>> s1, s2, g = batch_alignment(*residual_law("sin", 0.0, 48), 2.0)
    >>> round(s1, 12) == round(math.exp(-0.5), 12)             # E[sin(xi) xi]
    True
    """
    s1 = float(w @ (e * xi))
    s2 = s1 * s1 + float(w @ e**2) / float(alpha0)
    return s1, s2, s1 / math.sqrt(s2)


def _mean(x, w):
    """``x @ w`` over the residual law's last axis, without BLAS: a complex-by-real ``@`` goes
    to a threaded ``zgemv`` whose threads cost ~10 ms per call on a busy machine (thousands of
    calls per contour rule; ``einsum``'s own loop takes microseconds)."""
    return np.einsum("...j,j->...", x, w)


def _solve_delta(tau, e2, w, alpha0, delta, tol=1e-15, maxit=100):
    """Newton on ``f(delta) = delta - E[e^2/(tau + e^2/(alpha0 (1 + delta)))]`` (vectorised);
    returns ``(delta, converged)``."""
    with np.errstate(all="ignore"):
        for _ in range(maxit):
            _budget_check("the exact bulk's fixed point")
            den = tau + e2 / (alpha0 * (1.0 + delta))
            f = delta[:, 0] - _mean(e2 / den, w)
            fp = 1.0 - _mean(e2 * e2 / (alpha0 * (1.0 + delta)**2 * den**2), w)
            step = f / fp
            delta = delta - step[:, None]
            if np.all(np.abs(step) <= tol * (1.0 + np.abs(delta[:, 0]))):
                return delta, True
    return delta, False


def batch_forms(tau, e, w, xi, alpha0, delta=None) -> BatchForms:
    """The resolvent of ``S2`` at ``-tau`` (complex array, off ``(-inf, 0]``) in the limit
    (module doc).  ``delta``: a warm start (e.g. from a nearby ``tau``).

    >>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
    >>> f = batch_forms(np.array([1e6]), *residual_law("sin", 0.0, 48), alpha0=2.0)
    >>> bool(abs(f.m[0] * 1e6 - 1) < 1e-5 and abs(f.qvv[0] * 1e6 - 1) < 1e-5)   # ~ 1/tau
    True
    """
    tau = np.atleast_1d(np.asarray(tau, dtype=complex))[:, None]
    e2 = e * e
    if delta is None:
        delta = _mean(e2 / tau, w)
    delta, ok = _solve_delta(tau, e2, w, float(alpha0), np.asarray(delta, complex)[:, None])
    if not ok:           # the Stieltjes iteration (on the physical branch), then Newton again
        m = _stieltjes(-tau[:, 0], e2, w, float(alpha0))
        delta, ok = _solve_delta(tau, e2, w, float(alpha0), (1.0 / (tau[:, 0] * m) - 1.0)[:, None])
        if not ok:
            raise ConvergenceError("the step batch's resolvent fixed point did not converge at "
                                   f"tau = {tau[:3, 0]!r}...", residual=float("nan"))
    theta = 1.0 / (alpha0 * (1.0 + delta))
    den = tau + theta * e2
    P, G = _mean(e * xi / den, w), _mean(e2 * xi**2 / den, w)
    tau, delta = tau[:, 0], delta[:, 0]
    # 1 - tau A = E[theta e^2 / den] (the weights sum to 1): no cancellation at large tau
    s_Rs = _mean(theta * e2 / den, w) + tau * P**2 / (1.0 + G)
    e1_Rs, e1_Re1 = P / (1.0 + G), 1.0 / (tau * (1.0 + G))
    _, s2, g = batch_alignment(e, w, xi, alpha0)
    qvv, qv1 = s_Rs / s2, e1_Rs / math.sqrt(s2)
    qvz = (qv1 - g * qvv) / math.sqrt(1.0 - g * g)
    qzz = (e1_Re1 - 2.0 * g * qv1 + g * g * qvv) / (1.0 - g * g)
    return BatchForms(1.0 / (tau * (1.0 + delta)), qvv, qvz, qzz, delta)


class BatchContour(NamedTuple):
    """Quadrature rules on a contour around the spectrum of ``S2``: ``E h(varsigma) =
    sum(plain * h(z))``, ``x^T h(S2) y = sum(w_xy * h(z))`` (complex nodes ``z`` in conjugate
    pairs; the sums are real up to rounding), ``pole``: ``h`` may be singular only left of
    ``-pole``; ``nodes``, ``error``: the node count and the self-check's error; the ellipse is
    ``centre + half (u + 1/u)/2``, ``|u| = radius``, and :meth:`inside` tells which points lie
    within it (in its Joukowski radius).  ``shift``: ``None`` for an ellipse in ``z``; else
    the ellipse lies in ``t = log(z + shift)`` (the log-mapped rule of :func:`batch_contour`)
    and every radius is measured there."""
    z: np.ndarray
    plain: np.ndarray
    vv: np.ndarray
    vz: np.ndarray
    zz: np.ndarray
    pole: float
    nodes: int
    error: float
    centre: float = 0.0
    half: float = 1.0
    radius: float = 1.0
    shift: float | None = None

    def joukowski_radius(self, x):
        """``|u| >= 1`` of the points ``x`` (1 on the foci's segment, ``radius`` on the
        ellipse; for the log-mapped rule ``x`` on ``(-inf, -shift]`` lie at least at
        :meth:`largest_radius`, ``-shift`` itself at infinity)."""
        return _joukowski_radius(x, self.centre, self.half, self.shift)

    def largest_radius(self):
        """The largest Joukowski radius whose ellipse is a contour in ``z``: infinite for an
        ellipse in ``z``; for the log-mapped rule that of the ellipse touching ``Im t = +-pi``
        (the image of ``(-inf, -shift)``)."""
        return math.inf if self.shift is None else _touching_radius(self.half)


class ContourEllipse(NamedTuple):
    """The ellipse of :func:`batch_contour`'s rule without its nodes (:func:`contour_ellipse`:
    no resolvent evaluated): ``centre + half (u + 1/u)/2``, ``|u| = radius`` (in
    ``t = log(z + shift)`` for the log-mapped rule); ``pole`` as in :class:`BatchContour`.

    >>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
    >>> e, w, xi = residual_law("sin", 0.0, 48)
    >>> for a0, pole in ((2.0, 0.5), (0.01, 0.0114)):      # an ellipse in z; log-mapped
    ...     ell, rule = contour_ellipse(e, a0, pole), batch_contour(e, w, xi, a0, pole)
    ...     print(ell == (rule.centre, rule.half, rule.radius, rule.pole, rule.shift))
    True
    True
    """
    centre: float
    half: float
    radius: float
    pole: float
    shift: float | None = None

    def joukowski_radius(self, x):
        """As :meth:`BatchContour.joukowski_radius`."""
        return _joukowski_radius(x, self.centre, self.half, self.shift)

    def largest_radius(self):
        """As :meth:`BatchContour.largest_radius`."""
        return math.inf if self.shift is None else _touching_radius(self.half)


def _joukowski_radius(x, centre, half, shift=None):
    x = np.asarray(x, dtype=complex)
    with np.errstate(all="ignore"):
        if shift is not None:
            x = np.log(x + shift)
        w = (x - centre) / half
        u = w + np.sqrt(w - 1.0) * np.sqrt(w + 1.0)
        out = np.maximum(np.abs(u), 1.0 / np.abs(u))
    return np.where(np.isfinite(out), out, np.inf)


def _touching_radius(half):
    """Joukowski radius of the ellipse with foci ``+-half`` that touches ``Im t = +-pi``."""
    q = math.pi / half
    return q + math.sqrt(q * q + 1.0)


def _radius(top, pole):
    """Joukowski radius of the ellipse with foci ``0, top`` halfway to ``-pole`` (at most 4,
    where the rule's error is already ``4^-n``)."""
    wp = (-pole - top / 2.0) / (top / 2.0)                # < -1
    return min(math.sqrt(-wp + math.sqrt(wp * wp - 1.0)), 4.0)


def _ellipse(centre, half, rho, n, shift=None):
    """Nodes and ``dz`` of the trapezoidal rule on ``centre + half (u + 1/u)/2``, ``|u| = rho``
    (with ``shift``: that ellipse in ``t``, mapped by ``z = exp(t) - shift``)."""
    u = rho * np.exp(2j * np.pi * (np.arange(n) + 0.5) / n)
    z = centre + half * (u + 1.0 / u) / 2.0
    dz = half * (u - 1.0 / u) / 2.0 * 1j * (2.0 * np.pi / n)
    if shift is not None:
        z = np.exp(z)
        z, dz = z - shift, z * dz
    return z, dz


def _forms_on(z, e, w, xi, alpha0):
    """The forms at ``-z`` on the ellipse, by continuation from a copy of it 64 times as large
    (where ``delta ~ E e^2 / tau``) in steps of ``2^(1/8)`` (coarser steps can land on another
    root of the ``delta`` equation near the spectrum's edge); the physical branch
    (``Im m Im z >= 0``) is checked."""
    centre = (z.real.max() + z.real.min()) / 2.0
    delta = None
    for k in range(48, -1, -1):
        f = batch_forms(-(centre + (z - centre) * 2.0**(k / 8)), e, w, xi, alpha0, delta)
        delta = f.delta
    bad = f.m.imag * np.sign(z.imag) < -1e-12 * np.abs(f.m)
    if np.any(bad):                       # near the spectrum's edge: the Stieltjes iteration
        delta = f.delta.copy()
        delta[bad] = 1.0 / (-z[bad] * _stieltjes(z[bad], e * e, w, alpha0)) - 1.0
        f = batch_forms(-z, e, w, xi, alpha0, delta)
        if np.any(f.m.imag * np.sign(z.imag) < -1e-12 * np.abs(f.m)):
            raise ConvergenceError("the step batch's resolvent left its physical branch on "
                                   "the contour", residual=float("nan"))
    return f


def _stieltjes(z, e2, w, alpha0, tol=1e-14, maxit=200000):
    """``m(z) = E 1/(varsigma - z)`` by the damped iteration ``m <- 1/(-z + E[e^2/(1 + e^2
    m/alpha0)])`` from the upper half-plane (it stays on the physical branch; slow near the
    spectrum); ``conj`` for ``Im z < 0``."""
    lower = z.imag < 0
    zu = np.where(lower, np.conj(z), z)[:, None]
    m = 1j * np.ones_like(zu)
    for _ in range(maxit):
        _budget_check("the exact bulk's fixed point")
        new = 1.0 / (-zu + _mean(e2 / (1.0 + e2 * m / alpha0), w)[:, None])
        done = np.max(np.abs(new - m) / np.abs(new)) < tol
        m = 0.5 * new + 0.5 * m
        if done:
            break
    else:
        raise ConvergenceError("the step batch's Stieltjes transform did not converge",
                               residual=float("nan"))
    return np.where(lower, np.conj(m[:, 0]), m[:, 0])


#: below this Joukowski radius of the ellipse in ``z`` (about 2400 nodes for 1e-13) the rule
#: is log-mapped where that is wider (:func:`batch_contour`)
LOG_RULE_BELOW = 1.02


def batch_contour(e, w, xi, alpha0, pole, tol=1e-13) -> BatchContour:
    """Quadrature rules on the contour for functions holomorphic right of ``-pole < 0``
    (module doc); the node count doubles from 64 until the rule integrates ``1/(varsigma +
    pole)`` (the hardest function of that class) along ``vhat`` and in the plain law to
    ``tol`` against its direct value (the log-mapped rule below: or to ``10 tol`` where a
    doubling no longer gains a digit, its rounding floor).

    Where ``-pole`` sits next to the spectrum's left end ``0`` on the scale of its width
    (``alpha0 << 1``: an atom of mass ``1 - alpha0`` at 0 and eigenvalues up to ``~ 1/alpha0``)
    the ellipse in ``z`` squeezes onto the spectrum (radius ``1 + sqrt(pole/top)``, thousands
    of nodes); the rule is then an ellipse in ``t = log(z + pole)`` around ``[log pole,
    log(top + pole)]``, halfway to ``Im t = +-pi`` (the image of the class's singular set
    ``(-inf, -pole]``): ``h(z) dz = h(z) (z + pole) dt``, a radius set by ``log(top/pole)``
    alone (docs/theory.md (g.5.2)); its self-check function ``1/(varsigma + pole +
    exp(centre))`` has its pole at the image of the ellipse that touches ``Im t = pi``.

    >>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
    >>> rule = batch_contour(*residual_law("sin", 0.0, 48), alpha0=0.5, pole=0.2)
    >>> rule.error < 1e-13, round(float(rule.vv.sum().real), 12)
    (True, 1.0)
    >>> tiny = batch_contour(*residual_law("sin", 0.0, 48), alpha0=0.01, pole=0.0114)
    >>> tiny.shift, tiny.nodes <= 512, round(float(tiny.plain.sum().real), 12)   # log-mapped
    (0.0114, True, 1.0)
    """
    ell = contour_ellipse(e, alpha0, pole)
    if ell.shift is None:
        return _rule_at(e, w, xi, float(alpha0), ell.centre, ell.half, ell.radius, ell.pole, 64,
                        tol)
    return _rule_at(e, w, xi, float(alpha0), ell.centre, ell.half, ell.radius,
                    ell.pole + math.exp(ell.centre), 64, tol, pole=ell.pole, shift=ell.shift)


def contour_ellipse(e, alpha0, pole) -> ContourEllipse:
    """The ellipse of :func:`batch_contour`'s rule (around the spectrum of ``S2``, halfway to
    ``-pole``), from the residuals ``e`` alone: no node, no resolvent (see
    :class:`ContourEllipse`)."""
    if not (math.isfinite(pole) and pole > 0):
        raise ValueError(f"pole must be > 0 and finite, got {pole!r}")
    alpha0, pole = float(alpha0), float(pole)
    top = 1.05 * (1.0 + 1.0 / math.sqrt(alpha0))**2 * float(np.max(e * e)) + 1e-12
    rho = _radius(top, pole)
    if rho < LOG_RULE_BELOW:
        left, right = math.log(pole), math.log(top + pole)
        centre, half = (left + right) / 2.0, (right - left) / 2.0
        wide = _touching_radius(half)
        if math.sqrt(wide) > rho:
            return ContourEllipse(centre, half, min(math.sqrt(wide), 4.0), pole, pole)
    return ContourEllipse(top / 2.0, top / 2.0, rho, pole)


def _rule_at(e, w, xi, alpha0, centre, half, rho, check, n, tol, pole=None, shift=None):
    """The rule on one ellipse (in ``t = log(z + shift)`` with ``shift``); ``n`` doubles until
    ``1/(varsigma + check)`` is integrated to ``tol`` (``-check`` outside the contour; complex
    for a confocal log-mapped rule); ``pole``: the class's (default ``check``)."""
    exact = batch_forms(np.array([check]), e, w, xi, alpha0)
    err = prev = float("inf")
    while n <= 1 << 15:
        z, dz = _ellipse(centre, half, rho, n, shift)
        f = _forms_on(z, e, w, xi, alpha0)
        k = -dz / (2j * np.pi)
        rule = BatchContour(z, k * f.m, k * f.qvv, k * f.qvz, k * f.qzz,
                            float(abs(check) if pole is None else pole), n, err, centre, half,
                            rho, shift)
        h = 1.0 / (z + check)
        err = max(abs((rule.plain @ h) / exact.m[0] - 1), abs((rule.vv @ h) / exact.qvv[0] - 1))
        # the log-mapped rule's nodes pass at ~pole/5 from the atom at 0, where the forms
        # carry a few 1e-13 of rounding: a doubling that no longer gains is converged there
        if err < tol or (shift is not None and err < 10 * tol and err > prev / 10):
            return rule._replace(error=float(err))
        n, prev = 2 * n, err
    top = 2 * half if shift is None else math.exp(centre + half) - shift
    raise ConvergenceError(f"the contour rule did not reach {tol:g} with {n // 2} nodes (error "
                           f"{err:.3g}; spectrum of S2 within [0, {top:.6g}], singularity "
                           f"at {-abs(check) if pole is None else -pole:.6g}: a large letter "
                           "omega_j^2 b or a teacher whose "
                           "residuals are unbounded brings the singularity too close to the "
                           "spectrum; use bulk='step' or 'isotropic')", residual=float(err))


def batch_contour_variant(rule: BatchContour, e, w, xi, alpha0, factor, tol=1e-13, nodes=None):
    """The rule on the confocal ellipse of Joukowski radius ``rule.radius ** factor`` (for
    integrands whose poles may sit near the first one; the poles inside are the caller's:
    :class:`~srfsym.theory.spectral.exact_bulk_groups.ExactGroupPrior` adds their residues);
    ``nodes``: at least this many (default: half the first rule's); with ``nodes`` given,
    ``rule`` may be the first rule's :class:`ContourEllipse` (the rule itself not built).  A
    log-mapped rule has no confocal ellipse at or beyond :meth:`BatchContour.largest_radius`
    (ConvergenceError).

    >>> from srfsym.theory.spectral.exact_bulk_moments import residual_law
    >>> law = residual_law("sin", 0.0, 48)
    >>> rule = batch_contour(*law, alpha0=2.0, pole=0.5)
    >>> wide = batch_contour_variant(rule, *law, 2.0, 1.5)
    >>> bool(abs(wide.radius - rule.radius**1.5) < 1e-14 and wide.error < 1e-13)
    True
    """
    rho = float(rule.radius) ** float(factor)
    n = max(64, rule.nodes // 2) if nodes is None else int(nodes)
    if rule.shift is None:
        # a check singularity outside the new ellipse, on the negative axis at radius rho^2
        u = rho * rho
        check = -(rule.centre - rule.half * (u + 1.0 / u) / 2.0)
        return _rule_at(e, w, xi, float(alpha0), rule.centre, rule.half, rho, check, n, tol)
    wide = rule.largest_radius()
    if rho >= wide:
        raise ConvergenceError(f"the log-mapped contour rule has no confocal ellipse of radius "
                               f"{rho:.4g} (at most {wide:.4g})", residual=float("nan"))
    if rho * rho >= wide:       # the check on (-inf, -shift): real, radius `wide`
        check = rule.shift + math.exp(rule.centre)
    else:                       # radius rho^2 towards Im t = pi: complex
        u = rho * rho
        check = rule.shift - np.exp(rule.centre + 1j * rule.half * (u - 1.0 / u) / 2.0)
    return _rule_at(e, w, xi, float(alpha0), rule.centre, rule.half, rho, check, n, tol,
                    pole=rule.pole, shift=rule.shift)
