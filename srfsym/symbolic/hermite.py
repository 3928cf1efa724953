r"""Hermite-type constants of an activation (docs/theory.md (b)).

For z ~ N(0, 1):

* ``mu0 = E sigma(z)``, ``mu1 = E z sigma(z) = E sigma'(z)``,
* ``second_moment = E sigma(z)^2`` (not a Hermite coefficient; the old name ``mu2`` still works
  and warns),
* ``mustar2 = E sigma^2 - mu0^2 - mu1^2`` (energy above degree 1),
* ``checkmu1_sq = E sigma'(z)^2 - mu1^2`` (infinite when sigma jumps, e.g. sign),
* ``mu_k(k) = E[sigma(z) He_k(z)]`` (probabilists' Hermite polynomials).

Each is a :class:`~srfsym.core.values.Value`: ``exact`` with its closed form, or
``numeric`` (mpmath quadrature at the requested precision).

>>> hc = hermite_constants("sin")
>>> hc.mu1.expr
exp(-1/2)
>>> hc.mustar2.expr
-exp(-1) + (1 - exp(-2))/2
>>> hermite_constants("sign").checkmu1_sq.expr
oo
"""
from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..core.precision import MP_LOCK, workdps
from .activations import X, Activation, activation, _is_zero
from .gaussian import A, S, DivergentExpectationError, Expectation, gaussian_expectation
from ..core.budget import LimitReached, limited
from .tidy import tidy
from ..core.values import Value

__all__ = ["HermiteConstants", "hermite_constants", "mustar2_from_moments"]


def _at_standard(exp_: Expectation, name: str) -> Value:
    """The expectation at a = 0, s = 1 as a Value."""
    for cond in exp_.conditions:
        if not bool(cond.subs({A: 0, S: 1})):
            raise DivergentExpectationError(
                f"{name}: E[z^{exp_.k} ({exp_.integrand})] diverges for a standard Gaussian "
                f"z: the integrand outgrows the Gaussian density (E[z^k f(a + s z)] exists "
                f"only where {cond}, not at a = 0, s = 1)")
    if exp_.is_exact:
        expr = tidy(exp_.expr.subs({A: 0, S: 1}))
        return Value(name, "exact", expr=expr, how=f"rule {exp_.rule}")
    exp_.numpy(0.0, 1.0)  # raises DivergentExpectationError for non-integrable integrands
    weighted = exp_.integrand * X**exp_.k
    if _is_zero(weighted.subs(X, -X) + weighted):     # only once the integral exists
        return Value(name, "exact", expr=sp.S.Zero,
                     how=f"parity: z^{exp_.k} ({exp_.integrand}) is odd in z")
    by_symmetry = _even_part_value(name, weighted)
    if by_symmetry is not None:
        return by_symmetry
    return Value(name, "numeric", how="mpmath tanh-sinh quadrature, two subdivisions",
                 compute=lambda dps, e=exp_: e.certified(0, 1, dps=dps))


def _even_part_value(name, weighted, seconds=2.0):
    """``E[w(z)]`` for a standard Gaussian z from the even part ``(w(z) + w(-z))/2`` of
    ``w``, when that part simplifies to a form with a checked closed form (the odd part
    integrates to 0): softplus has ``E[z softplus(z)] = E[z^2/2] = 1/2``.  ``None`` when the
    even part is not simpler or has no closed form either.

    >>> from srfsym.symbolic.activations import X
    >>> _even_part_value("mu1", X * sp.log(1 + sp.exp(X))).expr
    1/2
    """
    from ..core.budget import simplify_limited
    if weighted.subs(X, -X) == weighted:   # already even (x tanh x): nothing to gain
        return None
    even = simplify_limited((weighted + weighted.subs(X, -X)) / 2, seconds,
                            measure=sp.count_ops)
    if sp.count_ops(even) >= sp.count_ops(weighted):
        return None            # no simpler: the rule table already had its chance
    try:
        e = gaussian_expectation(even, 0)
    except DivergentExpectationError:
        return None
    if not e.is_exact:
        return None
    value = _at_standard(e, name)
    return Value(name, "exact", expr=value.expr,
                 how=f"symmetry: the odd part of {weighted} integrates to 0, its even part is "
                 f"{even} ({value.how})")


def _infinite(name, exc):
    """An infinite Value for an expectation that diverges, with the reason."""
    return Value(name, "exact", expr=sp.oo, how=f"diverges: {exc}")


def _infinite_if_divergent(value, what):
    """``value``, or +oo when computing it finds that ``what`` diverges (the divergence of
    E[sigma'^2] at an integrable singularity of sigma', sqrt|x|, shows only in the
    quadrature): the other constants are still printed, this one names the divergence."""
    def compute(dps, inner=value.compute):
        try:
            return inner(dps)
        except DivergentExpectationError:
            return mpmath.inf
    return Value(value.name, "numeric", how=f"{value.how}; +oo where {what} diverges",
                 compute=compute)


def _expand_limited(expr, seconds=3.0):
    """``sympy.expand(expr)`` (a sum of terms for the rule table), or ``expr`` itself when the
    expansion takes too long (nested tanh squared: 4^levels terms)."""
    try:
        return limited(lambda: sp.expand(expr), seconds)
    except LimitReached:
        return expr


def mustar2_from_moments(E0, E1, E2):
    """``mu_star^2 = E2 - E0^2 - E1^2``: the energy of sigma above degree 1 (docs/theory.md (b), (d)).

    ``E0 = E sigma(u)``, ``E1 = E z sigma(u)``, ``E2 = E sigma(u)^2`` for ``u = a + s z``,
    ``z ~ N(0, 1)``; the one definition used for the constants here (``a = 0, s = 1``) and
    for the conditional coefficients of :mod:`srfsym.symbolic.cget`.  Works on SymPy symbols and numbers.

    >>> mustar2_from_moments(*sp.symbols("E0 E1 E2"))
    -E0**2 - E1**2 + E2
    """
    return E2 - E0**2 - E1**2


def _combine(name, template, parts: dict) -> Value:
    """A Value from a template in placeholder symbols and the Values they stand for."""
    if all(v.is_exact for v in parts.values()):
        expr = tidy(template.subs({k: v.expr for k, v in parts.items()}))
        return Value(name, "exact", expr=expr, how="combination of exact expectations")
    f = sp.lambdify(tuple(parts), template, modules="mpmath")

    def compute(dps, f=f, parts=parts):
        # the error estimates of the parts carried through by interval arithmetic
        vals = [v.mpmath(dps + 5) for v in parts.values()]
        errs = [v.abs_error(dps + 5) or abs(x) * mpmath.mpf(10) ** -(dps + 5)
                for v, x in zip(parts.values(), vals)]
        with MP_LOCK:     # mpmath.iv has one process-global precision too
            iv_dps = mpmath.iv.dps
            try:
                mpmath.iv.dps = dps + 10
                box = f(*[mpmath.iv.mpf([x - e, x + e]) for x, e in zip(vals, errs)])
            finally:
                mpmath.iv.dps = iv_dps
        with workdps(dps + 10):
            width = mpmath.mpf(box.b) - mpmath.mpf(box.a)
            return f(*vals), max(width, mpmath.mpf(10) ** -(dps + 8))

    return Value(name, "numeric", how="from quadrature of " + ", ".join(
        v.name for v in parts.values() if not v.is_exact), compute=compute)


@dataclass(frozen=True)
class HermiteConstants:
    """The constants of docs/theory.md (b) for one activation (see module docstring).

    One meaning per name: ``second_moment`` is ``E sigma(z)^2``; ``mu_k(k)`` is the Hermite
    coefficient ``E[sigma(z) He_k(z)]``.

    >>> hc = hermite_constants("relu")
    >>> hc.second_moment.expr, hc.mu_k(2).expr
    (1/2, sqrt(2)/(2*sqrt(pi)))
    """

    activation: Activation
    mu0: Value
    mu1: Value
    second_moment: Value
    mustar2: Value
    checkmu1_sq: Value

    @property
    def mu2(self) -> Value:
        """Deprecated name of :attr:`second_moment` (``E sigma^2``, not the Hermite coefficient
        ``mu_k(2)``)."""
        warnings.warn("HermiteConstants.mu2 is E[sigma^2]; it is now called second_moment "
                      "(the Hermite coefficient of order 2 is mu_k(2))", DeprecationWarning,
                      stacklevel=2)
        return self.second_moment

    def mu_k(self, k: int) -> Value:
        """``E[sigma(z) He_k(z)]`` for the probabilists' Hermite polynomial He_k.

        >>> hermite_constants("he3").mu_k(3).expr
        6
        """
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
            raise ValueError(f"Hermite index must be an integer, got {k!r}")
        return _mu_k(self.activation, int(k))

    def as_dict(self) -> dict:
        return {"mu0": self.mu0, "mu1": self.mu1, "second_moment": self.second_moment,
                "mustar2": self.mustar2, "checkmu1_sq": self.checkmu1_sq}

    def __str__(self):
        lines = [f"Hermite constants of {self.activation.name} (sigma(x) = {self.activation.expr}):"]
        lines += [f"  {v}" for v in self.as_dict().values()]
        return "\n".join(lines)


#: Largest Hermite index accepted by :meth:`HermiteConstants.mu_k`.
MAX_HERMITE_INDEX = 400
#: Up to this index the rule table is tried for a closed form; above, quadrature directly
#: (the symbolic route expands He_k sigma into k terms and slows down like k^3).
SYMBOLIC_HERMITE_INDEX = 12


@lru_cache(maxsize=None)
def _mu_k(act: Activation, k: int) -> Value:
    if k < 0:
        raise ValueError(f"Hermite index must be >= 0, got {k}")
    if k > MAX_HERMITE_INDEX:
        raise ValueError(
            f"Hermite index k = {k} is above {MAX_HERMITE_INDEX}: the quadrature of "
            f"E[sigma He_k] needs nodes finer than the {k} zeros of He_k on |z| < "
            f"{2 * k ** 0.5:.0f}, about {int(4 * k):,} evaluations of a {k}-step recurrence "
            "per rule; refused up front")
    name = f"mu_{k}"
    if (act.parity == "odd" and k % 2 == 0) or (act.parity == "even" and k % 2 == 1):
        return Value(name, "exact", expr=sp.S.Zero,
                     how=f"parity: sigma is {act.parity}, He_{k} is {'odd' if k % 2 else 'even'}")
    if k > SYMBOLIC_HERMITE_INDEX and act.kinks:
        raise ValueError(
            f"mu_{k} of {act.name}: for activations with kinks or jumps srfsym computes mu_k "
            f"up to k = {SYMBOLIC_HERMITE_INDEX} (closed forms); the quadrature of larger k is "
            "implemented for smooth activations only")
    if k > SYMBOLIC_HERMITE_INDEX:
        gaussian_expectation(act.expr, 0, known_closed_form=False).numpy(0.0, 1.0)  # exists?
        return Value(name, "numeric", how="trapezoidal rule with a He_k recurrence, two step "
                     "sizes", compute=lambda dps: hermite_coefficient_mpmath(act.mpmath, k, dps))
    hek = sp.hermite_prob(k, X)
    e = gaussian_expectation(sp.expand(hek * act.expr), 0,
                             known_closed_form=act.known_closed_form)
    return _at_standard(e, f"mu_{k}")


def _he_times(f, k):
    """z -> f(z) He_k(z) phi(z), He_k by its three-term recurrence (stable, no expansion)."""
    norm = 1 / mpmath.sqrt(2 * mpmath.pi)

    def g(z):
        h0, h1 = mpmath.mpf(1), z
        if k == 0:
            h1 = h0
        for n in range(1, k):
            h0, h1 = h1, z * h1 - n * h0
        return f(z) * h1 * mpmath.exp(-z * z / 2) * norm
    return g


def hermite_coefficient_mpmath(f, k, dps=30):
    """(value, error estimate) of ``E[f(z) He_k(z)]``, z ~ N(0, 1), for large k and f
    analytic near the real axis (no kinks).

    A first pass at low precision measures the cancellation (the sum of |terms| over the
    result) and sets the working precision; then the trapezoidal rule on R (spectrally
    accurate) at two step sizes h and 0.8 h, h halved until they agree.

    >>> import mpmath
    >>> v, e = hermite_coefficient_mpmath(lambda z: z**3, 3, dps=20)   # E[z^3 He_3] = 3!
    >>> mpmath.nstr(v, 12), e < 1e-15
    ('6.0', True)
    """
    from ..core.budget import check
    g = _he_times(f, k)

    def rule(h, wd, L):
        with workdps(wd):
            n = int(mpmath.ceil(L / h))
            total = absolute = mpmath.mpf(0)
            for j in range(-n, n + 1):
                check(f"quadrature of mu_{k}")
                v = g(h * j)
                total += v
                absolute += abs(v)
            return total * h, absolute * h

    def cut(wd):
        # |He_k(z)| phi(z) <= z^k phi(z) beyond the zeros: the range where z^k phi(z) is
        # within 10^-wd of its peak (at z = sqrt k), widened by the growth of f
        with workdps(20):
            peak = k / 2 * (mpmath.log(k) - 1) if k else 0
            L = 2 * mpmath.sqrt(k) + 5
            while (k * mpmath.log(L) - L * L / 2 + mpmath.log(abs(f(L)) + abs(f(-L)) + 1)
                   > peak - wd * mpmath.log(10)):
                L += 1
            return L

    wd = 25
    with workdps(wd):
        L = cut(wd)
        v, absolute = rule(mpmath.pi / (mpmath.sqrt(k) + 12), wd, L)
        extra = 0 if v == 0 else max(0, int(mpmath.ceil(mpmath.log10(absolute / abs(v)))))
    wd = dps + extra + 10
    for _attempt in range(3):   # cancellation beyond the first pass's digits: raise wd
        L = cut(wd)
        with workdps(wd):
            tol = mpmath.mpf(10) ** -(dps + 2)
            h = mpmath.pi / (mpmath.sqrt(k) + mpmath.sqrt(2 * wd * mpmath.log(10)))
            for _ in range(3):
                v1, absolute = rule(h, wd, L)
                v2, _a = rule(h * mpmath.mpf("0.8"), wd, L)
                if abs(v1 - v2) <= tol * abs(v2):
                    break
                h /= 2
            if abs(v1 - v2) <= tol * abs(v2) or v2 == 0:
                break
            wd += int(mpmath.ceil(mpmath.log10(absolute / abs(v2)))) + 10
    with workdps(wd):
        return +v2, abs(v1 - v2) + mpmath.mpf(10) ** -(wd - 5) * absolute


@lru_cache(maxsize=None)
def _hermite_constants(act: Activation) -> HermiteConstants:
    kcf = act.known_closed_form
    mu0 = _at_standard(gaussian_expectation(act.expr, 0, known_closed_form=kcf), "mu0")
    mu1 = _at_standard(gaussian_expectation(act.expr, 1, known_closed_form=kcf), "mu1")
    mu2 = _at_standard(gaussian_expectation(act.expr**2, 0, known_closed_form=kcf),
                       "second_moment")
    P0, P1, P2, Q = sp.symbols("P0 P1 P2 Q")
    mustar2 = _combine("mustar2", mustar2_from_moments(P0, P1, P2), {P0: mu0, P1: mu1, P2: mu2})
    if act.has_dirac_derivative:
        check = Value("checkmu1_sq", "exact", expr=sp.oo,
                      how=f"sigma' = {act.derivative} has a Dirac mass, so E[sigma'^2] = oo")
    else:
        try:
            dsq = _at_standard(gaussian_expectation(_expand_limited(act.derivative**2), 0,
                                                    known_closed_form=kcf), "E[sigma'^2]")
        except DivergentExpectationError as exc:
            dsq = _infinite("E[sigma'^2]", exc)
        check = _combine("checkmu1_sq", Q - P1**2, {Q: dsq, P1: mu1})
        if not check.is_exact:
            check = _infinite_if_divergent(check, "E[sigma'^2]")
    return HermiteConstants(act, mu0, mu1, mu2, mustar2, check)


def hermite_constants(act) -> HermiteConstants:
    """Hermite-type constants (docs/theory.md (b)) of an activation name, expression or object.

    >>> hc = hermite_constants("erf")
    >>> hc.mu1.expr
    2*sqrt(3)/(3*sqrt(pi))
    >>> hc.second_moment.expr   # E erf(z)^2 = (2/pi) asin(2/3)
    (pi - 4*atan(sqrt(5)/5))/pi
    >>> hermite_constants("tanh").mu1.decimal(30)
    '0.605705509602158825583540227556'
    """
    return _hermite_constants(activation(act))
