"""Special functions SymPy lacks, with their numpy and mpmath implementations.

Owen's T function, for the Gaussian expectation of erf squared,
``E erf(alpha + beta z)^2 = 1 - 8 T(sqrt(2) alpha / sqrt(1 + 2 beta^2), 1 / sqrt(1 + 4 beta^2))``;
and the overflow-safe forms of :func:`stable_forms` (softplus, logistic, log cosh, tanh), whose
SymPy derivatives are again overflow-safe.

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

__all__ = ["OwensT", "owens_t_mpmath", "NUMPY_FUNCTIONS", "MPMATH_FUNCTIONS", "stable_forms",
           "Softplus", "Logistic", "LogCosh", "Tanh"]


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
    its relative precision for x << 0.  SymPy differentiates it to :class:`Logistic`.

    >>> x = sp.Symbol("x")
    >>> Softplus(2 * x).diff(x)
    2*Logistic(2*x)
    """

    nargs = 1

    def fdiff(self, argindex=1):
        return Logistic(self.args[0])


class Logistic(sp.Function):
    """``e^x / (1 + e^x)`` for the generated evaluators only (scipy's ``expit``: no inf/inf).
    Its derivative is generated as ``Logistic(x) Logistic(-x)`` (not ``L (1 - L)``, which
    loses every digit where ``L`` rounds to 1).

    >>> x = sp.Symbol("x")
    >>> Logistic(x).diff(x)
    Logistic(-x)*Logistic(x)
    """

    nargs = 1

    def fdiff(self, argindex=1):
        return Logistic(self.args[0]) * Logistic(-self.args[0])


class LogCosh(sp.Function):
    """``log(cosh(x))`` for the generated evaluators only: numpy evaluates
    ``|x| + log1p(e^(-2|x|)) - log 2`` (``log1p(2 sinh(x/2)^2)`` for ``|x| < 1``, no
    cancellation), finite where ``cosh`` overflows (``|x| > 710``); its derivative is
    :class:`Tanh` (``sinh/cosh`` would be inf/inf = NaN there).

    >>> x = sp.Symbol("x")
    >>> LogCosh(-x).diff(x, 2)
    4*Logistic(-2*x)*Logistic(2*x)
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.could_extract_minus_sign():
            return cls(-u)
        return None

    def fdiff(self, argindex=1):
        return Tanh(self.args[0])


class Tanh(sp.Function):
    """``tanh(x)`` for the generated evaluators only, whose derivative is generated as
    ``sech(x)^2 = 4 Logistic(2x) Logistic(-2x)`` (SymPy's ``1 - tanh^2`` rounds to 0 at
    ``|x| > 19``).

    >>> x = sp.Symbol("x")
    >>> Tanh(-x).diff(x)
    -4*Logistic(-2*x)*Logistic(2*x)
    """

    nargs = 1

    @classmethod
    def eval(cls, u):
        if u.could_extract_minus_sign():
            return -cls(-u)
        return None

    def fdiff(self, argindex=1):
        u = self.args[0]
        return 4 * Logistic(2 * u) * Logistic(-2 * u)


def _exp_term(t):
    """``a`` with ``t = e^a`` (``t`` a positive number, ``c e^b`` with ``c > 0``, or ``e^b``),
    else ``None``."""
    if t.is_Number:
        return sp.log(t) if t.is_positive else None
    if isinstance(t, sp.exp):
        return t.args[0]
    if isinstance(t, sp.Mul):
        c, rest = t.as_coeff_Mul()
        if c.is_positive and isinstance(rest, sp.exp):
            return rest.args[0] + sp.log(c)
    return None


def _log_sum_exp(s):
    """The log of a positive two-term sum ``s = e^a + e^b`` (each term ``c e^u``, ``c > 0``,
    or a positive number): ``log 2 + (a + b)/2 + LogCosh((a - b)/2)`` where ``a + b`` is a
    number (``e^u + e^-u``: the derivative is then ``tanh`` alone, no cancellation near its
    zero), else ``a + Softplus(b - a)`` (``a``: the constant term if there is one); ``None``
    if ``s`` is not of that form."""
    if not isinstance(s, sp.Add) or len(s.args) != 2 or not s.has(sp.exp):
        return None
    terms = sorted(s.args, key=lambda t: not t.is_Number)   # a constant first
    a, b = (_exp_term(t) for t in terms)
    if a is None or b is None:
        return None
    if sp.expand(a + b).is_Number:
        return sp.log(2) + (a + b) / 2 + LogCosh((a - b) / 2)
    return a + Softplus(b - a)


def _stable_log(e):
    """``log`` of a product of positive factors, at least one of them a two-term sum of
    exponentials (:func:`_log_sum_exp`) or a ``cosh``, each to a real power (the others
    ``e^u`` or positive numbers), as the sum of the factors' logs in stable forms
    (``log(1/(1 + e^-u)) = -Softplus(-u)``, ``log(2 cosh(u)) = log 2 + LogCosh(u)``); else
    ``None``."""
    if not isinstance(e, sp.log):
        return None
    out, found = sp.S.Zero, False
    for f in sp.Mul.make_args(e.args[0]):
        if isinstance(f, sp.exp):
            out += f.args[0]
            continue
        if f.is_Number:
            if not f.is_positive:
                return None
            out += sp.log(f)
            continue
        base, ex = f.as_base_exp()
        if not ex.is_real:
            return None
        if isinstance(base, sp.cosh):
            lb = LogCosh(base.args[0])
        else:
            lb = _log_sum_exp(base)
        if lb is None:
            return None
        out, found = out + ex * lb, True
    return out if found else None


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


def _one_plus_exp(e):
    """``u`` if ``e`` is ``1 + exp(u)``, else ``None``."""
    if isinstance(e, sp.Add) and len(e.args) == 2 and sp.S.One in e.args:
        other = e.args[0] if e.args[1] is sp.S.One else e.args[1]
        if isinstance(other, sp.exp):
            return other.args[0]
    return None


def stable_forms(expr):
    """``expr`` with the sub-expressions whose generated code overflows into inf/inf replaced
    by functions whose code cannot (and whose SymPy derivatives are again such functions,
    so the derivatives of the result are generated stable as well):

    * ``log(e^a + e^b)`` (``log(1 + e^u)``, ``log(c + e^u)``, each term ``c e^u`` with
      ``c > 0``) -> ``a + Softplus(b - a)``; where ``a + b`` is a number (``log(e^u + e^-u)``)
      -> ``log 2 + (a + b)/2 + LogCosh((a - b)/2)``;
    * ``log(cosh(u))`` -> ``LogCosh(u)``;
    * the log of a product of such sums, ``cosh``, ``e^u`` and positive numbers, each to a
      real power -> the sum of their logs (``log(1/(1 + e^-u)) -> -Softplus(-u)``,
      ``log(e^u/(1 + e^u)) -> u - Softplus(u)``, ``log(2 cosh(u))``);
    * ``e^u/(1 + e^u)`` or ``1/(1 + e^-u)`` -> ``Logistic(u)``.

    Applied before differentiating (a loss's ``l'``, ``l''``: :mod:`srfsym.theory.channels.losses`)
    and by every generated evaluator (:func:`srfsym.symbolic.expressions.lambdify_numpy`).

    >>> x = sp.Symbol("x")
    >>> stable_forms(sp.log(1 + sp.exp(2 * x)) + sp.exp(x) / (sp.exp(x) + 1))
    Logistic(x) + Softplus(2*x)
    >>> stable_forms(sp.log(sp.cosh(1 - x)) + sp.log(sp.exp(x) + sp.exp(1 - x)))
    LogCosh(x - 1) + LogCosh(x - 1/2) + 1/2 + log(2)
    """
    if not isinstance(expr, sp.Basic) or not expr.has(sp.exp, sp.cosh):
        return expr
    expr = expr.replace(lambda e: _stable_log(e) is not None, _stable_log)
    return expr.replace(lambda e: _logistic_arg(e) is not None,
                        lambda e: Logistic(_logistic_arg(e)))


_LOG2 = float(np.log(2.0))


def _np_log_cosh(x):
    """``log(cosh(x))`` on arrays without overflow or cancellation (see :class:`LogCosh`)."""
    a = np.abs(np.asarray(x, dtype=float))
    s = np.sinh(0.5 * np.minimum(a, 1.0))            # cosh(a) - 1 = 2 sinh(a/2)^2
    return np.where(a < 1.0, np.log1p(2 * s * s), a + np.log1p(np.exp(-2 * a)) - _LOG2)


def _heaviside(x, h0=0.5):
    return np.heaviside(x, h0)


def _mp_heaviside(x, h0=mpmath.mpf(1) / 2):
    return mpmath.mpf(1) if x > 0 else (mpmath.mpf(0) if x < 0 else h0)


def _mp_sign(x):
    return mpmath.sign(x)


#: Extra name bindings for lambdify to numpy/scipy.
NUMPY_FUNCTIONS = {"OwensT": _sc.owens_t, "Heaviside": _heaviside, "erf": _sc.erf,
                   "erfc": _sc.erfc, "Softplus": lambda x: np.logaddexp(0, x),
                   "Logistic": _sc.expit, "LogCosh": _np_log_cosh, "Tanh": np.tanh}
#: Extra name bindings for lambdify to mpmath.
MPMATH_FUNCTIONS = {"OwensT": owens_t_mpmath, "Heaviside": _mp_heaviside, "sign": _mp_sign,
                    "Softplus": lambda x: mpmath.log1p(mpmath.exp(x)),
                    "Logistic": lambda x: 1 / (1 + mpmath.exp(-x)),
                    "LogCosh": lambda x: mpmath.log(mpmath.cosh(x)), "Tanh": mpmath.tanh}
