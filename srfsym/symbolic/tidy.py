"""Fast, predictable tidying of closed forms for display and code generation.

``sympy.simplify`` tries many strategies and takes seconds on the Gaussian closed forms of
GELU-like activations (and often returns ``exp(a/(2c+2) - a/(c+1))`` uncombined).  The
pipeline here is a fixed sequence of cheap canonicalisations: arguments of ``exp``, ``erf``,
and powers brought to one fraction and factored, products of exponentials merged, common
factors pulled out.  A general ``simplify`` is then tried only on small results, under a
short time limit, and kept only if it is shorter.

>>> import sympy as sp
>>> k, r, c = sp.symbols("kappa r c", positive=True)
>>> tidy(sp.exp(k**2*r**2/(2*c + 2) - k**2*r**2/(c + 1)))
exp(-kappa**2*r**2/(2*(c + 1)))
"""
from __future__ import annotations

import sympy as sp

__all__ = ["tidy"]

#: Above this many operations the final ``simplify`` attempt is skipped.
SIMPLIFY_OPS = 80
#: Above this many operations terms sharing an exponential are not merged.
COLLECT_OPS = 300


def _canonical_arg(u):
    """The shortest of the expanded, cancelled (one fraction) and factored forms of ``u``
    (ties: in that order, so ``gamma**2/2 - 1/2`` stays as it is)."""
    try:
        one = sp.cancel(sp.together(u))
        candidates = [sp.expand(u), one, sp.factor(one)]
    except (sp.PolynomialError, TypeError, ValueError):  # pragma: no cover - defensive
        return u
    return min(candidates, key=sp.count_ops)


def _canonical(expr):
    expr = expr.replace(
        lambda e: isinstance(e, (sp.exp, sp.erf, sp.erfc)) and e.args[0].free_symbols,
        lambda e: e.func(_canonical_arg(e.args[0])))
    # roots of sums of fractions: sqrt(c/(c + 1) + 1) -> sqrt((2 c + 1)/(c + 1))
    return expr.replace(
        lambda e: isinstance(e, sp.Pow) and e.exp.is_Rational and not e.exp.is_Integer
        and isinstance(e.base, sp.Add) and e.base.free_symbols,
        lambda e: sp.Pow(_canonical_arg(e.base), e.exp))


def tidy(expr, seconds: float = 1.0):
    """``expr`` in a short, readable form (see the module docstring)."""
    from ..core.budget import LimitReached, limited, simplify_limited
    if not isinstance(expr, sp.Basic) or expr.is_Number:
        return expr
    try:
        out = limited(lambda: _pipeline(expr), 4.0)
    except LimitReached:
        out = expr
    except Exception:  # noqa: BLE001 - sympy on odd input: keep what we have
        out = expr
    if sp.count_ops(out) > sp.count_ops(expr):
        out = expr
    if sp.count_ops(out) <= COLLECT_OPS:
        try:
            merged = limited(lambda: _collect_exponentials(out), 2.0)
        except Exception:  # noqa: BLE001 - LimitReached, or sympy on odd input: keep out
            merged = out
        if sp.count_ops(merged) < sp.count_ops(out):
            out = merged
    if sp.count_ops(out) <= SIMPLIFY_OPS:
        out = simplify_limited(out, seconds, measure=sp.count_ops)
    return out if out is expr or _same_value(expr, out) else expr


#: Points (one value per free symbol, in sorted order, cycled) where a tidied form must equal
#: the form it came from: tidying is display, it must never change a value.
_PROBE = ((0.3711, 1.2389, 0.5127, 2.0621), (0.8813, 0.2267, 1.7341, 0.6053))


def _same_value(before, after, digits: int = 30) -> bool:
    """``True`` when ``after`` equals ``before`` to ``digits - 10`` digits at two generic points
    (complex values compared as such); ``False`` when it differs, or cannot be evaluated where
    ``before`` can.

    >>> x = sp.Symbol("x", positive=True)
    >>> _same_value(sp.exp(x) * sp.exp(-x / 2), sp.exp(x / 2)), _same_value(x, 2 * x)
    (True, False)
    """
    symbols = sorted(before.free_symbols | after.free_symbols, key=sp.default_sort_key)
    for point in _PROBE:
        subs = {s: sp.Float(point[i % len(point)], digits) for i, s in enumerate(symbols)}
        try:
            b = complex(before.evalf(digits, subs=subs))
        except (TypeError, ValueError, ZeroDivisionError):
            continue                    # before is singular here: this point says nothing
        try:
            a = complex(after.evalf(digits, subs=subs))
        except (TypeError, ValueError, ZeroDivisionError):
            return False
        if not abs(a - b) <= 10.0 ** (10 - digits) * max(1.0, abs(b)):
            return False
    return True


def _collect_exponentials(expr):
    """Terms that share an exponential merged, their coefficients over one fraction and
    factored: ``2 A e - 4 c A e/(2c + 1)`` (A = kappa r/sqrt(2c + 1), e an exponential) is
    ``2 A e/(2c + 1)``.

    >>> k, c = sp.symbols("kappa c", positive=True)
    >>> e = sp.exp(-k**2/(2*c + 1))
    >>> _collect_exponentials(2*k*e/sp.sqrt(2*c + 1) - 4*c*k*e/(2*c + 1)**sp.Rational(3, 2))
    2*kappa*exp(-kappa**2/(2*c + 1))/(2*c + 1)**(3/2)
    """
    # grouped by hand: each term is (its exponentials) x (the rest), so the sum is unchanged
    # (``sympy.collect`` on exp atoms also matched 1/sqrt(pi) as a power of exp(-1))
    groups = {}
    for term in sp.Add.make_args(sp.expand(expr, deep=False)):
        exps = tuple(sorted((f for f in sp.Mul.make_args(term)
                             if isinstance(f, sp.exp) and f.args[0].free_symbols),
                            key=sp.default_sort_key))
        groups.setdefault(exps, []).append(term / sp.Mul(*exps))
    if all(len(rest) == 1 for exps, rest in groups.items() if exps):
        return expr                                      # no two terms share an exponential
    return sp.Add(*(sp.Mul(*exps) * (sp.factor(sp.together(sp.Add(*rest))) if exps
                                     else sp.Add(*rest))
                    for exps, rest in groups.items()))


def _pipeline(expr):
    out = _canonical(expr)
    out = sp.powsimp(out, combine="exp")
    out = _canonical(out)
    out = sp.factor_terms(out)
    return out
