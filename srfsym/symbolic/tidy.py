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
    if sp.count_ops(out) <= SIMPLIFY_OPS:
        out = simplify_limited(out, seconds, measure=sp.count_ops)
    return out


def _pipeline(expr):
    out = _canonical(expr)
    out = sp.powsimp(out, combine="exp")
    out = _canonical(out)
    out = sp.factor_terms(out)
    return out
