"""Special functions SymPy lacks, with their numpy and mpmath implementations.

Only Owen's T function is needed: the Gaussian expectation of erf squared,
``E erf(alpha + beta z)^2 = 1 - 8 T(sqrt(2) alpha / sqrt(1 + 2 beta^2), 1 / sqrt(1 + 4 beta^2))``.

>>> import sympy as sp
>>> OwensT(0, 1)
1/8
>>> float(OwensT(sp.Rational(1, 2), sp.Rational(1, 3)).evalf(20))  # doctest: +ELLIPSIS
0.04...
"""
from __future__ import annotations

import mpmath
import numpy as np
import sympy as sp
from scipy import special as _sc

from ..core.precision import workprec

__all__ = ["OwensT", "owens_t_mpmath", "NUMPY_FUNCTIONS", "MPMATH_FUNCTIONS", "stable_forms"]


def owens_t_mpmath(h, a):
    """Owen's T(h, a) = 1/(2 pi) int_0^a exp(-h^2 (1+t^2)/2) / (1+t^2) dt, in mpmath.

    >>> import mpmath
    >>> with mpmath.workdps(20):
    ...     owens_t_mpmath(0, 1)  # atan(1)/(2 pi) = 1/8
    mpf('0.125')
    """
    h = mpmath.mpf(h)
    a = mpmath.mpf(a)
    if h == 0:
        return mpmath.atan(a) / (2 * mpmath.pi)
    f = lambda t: mpmath.exp(-h * h * (1 + t * t) / 2) / (1 + t * t)
    return mpmath.quad(f, [0, a]) / (2 * mpmath.pi)


class OwensT(sp.Function):
    """Owen's T function as a SymPy function (numeric through mpmath / scipy)."""

    nargs = 2

    @classmethod
    def eval(cls, h, a):
        if h.is_zero:
            return sp.atan(a) / (2 * sp.pi)
        if a.is_zero:
            return sp.S.Zero
        if h.could_extract_minus_sign():
            return cls(-h, a)
        return None

    def _eval_evalf(self, prec):
        h, a = self.args
        if not (h.is_number and a.is_number):
            return None
        with workprec(prec + 10):
            val = owens_t_mpmath(mpmath.mpf(h.evalf(prec + 10)), mpmath.mpf(a.evalf(prec + 10)))
        return sp.Float(val, precision=prec)

    def fdiff(self, argindex=1):
        h, a = self.args
        if argindex == 1:
            return -sp.exp(-h**2 / 2) * sp.erf(a * h / sp.sqrt(2)) / (2 * sp.sqrt(2 * sp.pi))
        if argindex == 2:
            return sp.exp(-h**2 * (1 + a**2) / 2) / (2 * sp.pi * (1 + a**2))
        raise sp.ArgumentIndexError(self, argindex)

    def _latex(self, printer):
        h, a = self.args
        return r"T\left(%s, %s\right)" % (printer._print(h), printer._print(a))


class Softplus(sp.Function):
    """``log(1 + e^x)`` for the generated evaluators only (:func:`stable_forms`): numpy's
    ``logaddexp(0, x)`` does not overflow at x > 709 and mpmath's ``log1p(e^x)`` keeps
    its relative precision for x << 0."""

    nargs = 1


class Logistic(sp.Function):
    """``e^x / (1 + e^x)`` for the generated evaluators only (scipy's ``expit``: no inf/inf)."""

    nargs = 1


def _one_plus_exp(e):
    """``u`` if ``e`` is ``1 + exp(u)``, else ``None``."""
    if isinstance(e, sp.Add) and len(e.args) == 2 and sp.S.One in e.args:
        other = e.args[0] if e.args[1] is sp.S.One else e.args[1]
        if isinstance(other, sp.exp):
            return other.args[0]
    return None


def _logistic_arg(e):
    """``u`` if ``e`` is ``exp(u) / (1 + exp(u))`` or ``1 / (1 + exp(-u))``, else ``None``."""
    if not isinstance(e, sp.Mul):
        return None
    num, den = [], []
    for f in e.args:
        base, ex = f.as_base_exp()
        (den if ex == -1 else num).append(base if ex == -1 else f)
    if len(den) != 1:
        return None
    u = _one_plus_exp(den[0])
    if u is None:
        return None
    if not num:
        return -u
    if len(num) == 1 and isinstance(num[0], sp.exp) and sp.expand(num[0].args[0] - u) == 0:
        return u
    return None


def stable_forms(expr):
    """``expr`` with ``log(1 + e^u)`` and ``e^u/(1 + e^u)`` (or ``1/(1 + e^-u)``) replaced by
    :class:`Softplus` and :class:`Logistic`, whose generated code cannot overflow.

    >>> x = sp.Symbol("x")
    >>> stable_forms(sp.log(1 + sp.exp(2 * x)) + sp.exp(x) / (sp.exp(x) + 1))
    Logistic(x) + Softplus(2*x)
    """
    if not isinstance(expr, sp.Basic) or not expr.has(sp.exp):
        return expr
    expr = expr.replace(lambda e: isinstance(e, sp.log) and _one_plus_exp(e.args[0]) is not None,
                        lambda e: Softplus(_one_plus_exp(e.args[0])))
    return expr.replace(lambda e: _logistic_arg(e) is not None,
                        lambda e: Logistic(_logistic_arg(e)))


def _heaviside(x, h0=0.5):
    return np.heaviside(x, h0)


def _mp_heaviside(x, h0=mpmath.mpf(1) / 2):
    return mpmath.mpf(1) if x > 0 else (mpmath.mpf(0) if x < 0 else h0)


def _mp_sign(x):
    return mpmath.sign(x)


#: Extra name bindings for lambdify to numpy/scipy.
NUMPY_FUNCTIONS = {"OwensT": _sc.owens_t, "Heaviside": _heaviside, "erf": _sc.erf,
                   "erfc": _sc.erfc, "Softplus": lambda x: np.logaddexp(0, x),
                   "Logistic": _sc.expit}
#: Extra name bindings for lambdify to mpmath.
MPMATH_FUNCTIONS = {"OwensT": owens_t_mpmath, "Heaviside": _mp_heaviside, "sign": _mp_sign,
                    "Softplus": lambda x: mpmath.log1p(mpmath.exp(x)),
                    "Logistic": lambda x: 1 / (1 + mpmath.exp(-x))}
