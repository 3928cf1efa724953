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
``"exact"`` or ``"numeric"``.  The quadratures live in :mod:`srfsym.symbolic.quadrature` and the
formulas built from expectations in :mod:`srfsym.symbolic.gaussian_formulas`; their public names
are importable from here as well.

Examples
--------
>>> import sympy as sp
>>> from srfsym.symbolic.activations import X
>>> e = gaussian_expectation(sp.sin(X))
>>> e.method, e.expr
('exact', exp(-s**2/2)*sin(a))
>>> gaussian_expectation(sp.erf(X), k=1).expr
2*s*exp(-a**2/(2*s**2 + 1))/(sqrt(pi)*sqrt(2*s**2 + 1))
>>> gaussian_expectation(sp.tanh(X)).method
'numeric'
"""
from __future__ import annotations

import logging
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..core.precision import workdps
from .activations import (X, lambdify_mpmath, lambdify_numpy, _kinks_of, piece_point,
                          resolve_branches)
from .quadrature import (  # noqa: F401 - the numeric path, re-exported from here as before
    GAUSSIAN_HALF_WIDTH, DivergentExpectationError, _check_decay, _finite_location_scale,
    _gauss_moment,
    _mpf, _require_finite, _tail_cut, _trapezoid_numpy, certified_expectation_mpmath,
    expectation_mpmath, expectation_numpy, gauss_hermite, gaussian_piecewise_rule,
    trapezoid_mpmath)
from .special import OwensT
from ..core.values import check_dps

__all__ = [
    "A", "S", "Expectation", "gaussian_expectation", "DivergentExpectationError",
    "gauss_hermite", "gaussian_piecewise_rule", "expectation_numpy", "expectation_mpmath",
    "certified_expectation_mpmath",
]

#: Symbols of the engine: the Gaussian argument is ``a + s z``.
from .gaussian_symbols import A, S  # noqa: E402 - the shift and scale symbols, shared
_Z = sp.Symbol("z", real=True)
_W = sp.Dummy("w", real=True)

#: Points (a, s) at which every closed form is checked against quadrature.
CHECK_POINTS = ((sp.Rational(37, 100), sp.Rational(113, 100)),
                (sp.Rational(-71, 100), sp.Rational(64, 100)),
                (sp.Rational(29, 100), sp.Rational(31, 100)),
                (sp.Rational(-53, 100), sp.Rational(17, 100)))
CHECK_DPS = 30


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
    >>> from srfsym.symbolic.activations import X
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
        with workdps(dps + 10):
            a = _mpf(a)
            s = _mpf(s)
            self._check_conditions_mp(a, s)
            if self.expr is None or s == 0:
                val = expectation_mpmath(self._f_mpmath(), self.k, a, s, self.kinks, dps)
            else:
                if "mp" not in self._evaluators:
                    self._evaluators["mp"] = lambdify_mpmath((A, S), self.expr)
                val = self._evaluators["mp"](a, s)
        with workdps(dps):
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
        with workdps(dps + 10):
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
    if prec.has(sp.I):
        # e^{i b z^2} (sin z^2 = Im e^{i z^2}): the Gaussian integral continues analytically
        # in q2 with the principal square root while Re(1 - 2 q2) > 0
        if sp.re(prec).is_positive is not True:
            raise _NoRule("complex quadratic coefficient without a positive real part")
    elif prec.is_number:
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
    time budget of :mod:`srfsym.core.budget` runs out; main thread only)."""
    from ..core.budget import LimitReached, limited
    if seconds <= 0:
        raise _NoRule("sympy.integrate skipped (time limit 0)")
    text = str(g)
    logging.getLogger(__name__).info(
        "trying sympy.integrate on E[%s] (time limit %g s)",
        text if len(text) <= 60 else text[:57] + "...", seconds)
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
    with workdps(CHECK_DPS + 10):
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
        from ..core.budget import LimitReached, limited
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

    >>> import srfsym.symbolic.gaussian as engine
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
        Integrand in :data:`srfsym.symbolic.activations.X`.
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

    >>> from srfsym.symbolic.activations import X
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
    return _cached_on_disk(f, k, known_closed_form, float(timeout))


@lru_cache(maxsize=512)
def _cached_on_disk(f, k, known_closed_form, integrate_timeout):
    """:func:`_cached`, stored on disk (:mod:`srfsym.core.diskcache`): the rule table, the
    ``sympy.integrate`` attempt and the 30-digit check run once per expression, srfsym version
    and source of the derivation, across processes."""
    from ..core.diskcache import cached_on_disk, code_key
    key = (sp.srepr(f), k, known_closed_form, integrate_timeout, code_key("symbolic"))
    return cached_on_disk("gaussian_expectation", key,
                          lambda: _cached(f, k, known_closed_form, integrate_timeout))


# formulas built from expectations (a module of their own; importable from here as before)
from .gaussian_formulas import FormulaSet, GaussianFormula  # noqa: E402
