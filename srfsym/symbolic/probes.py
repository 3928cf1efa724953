"""Numeric probes of a parsed activation at fixed points of the real line: that it is finite
and real there (:func:`_check_real_line`, run by the parser), that no value is too large to be
computed (:func:`_check_magnitude`: a tower of exponentials is refused before it is evaluated),
and its parity when SymPy cannot decide it symbolically (:func:`_numeric_parity`, never
against :func:`_provably_nonzero`).
"""
from __future__ import annotations

import sympy as sp

from ..core.precision import workdps

__all__: list = []


#: Probe points of :func:`_check_real_line` (0, integers, and irrational-looking offsets).
_PROBES = sorted({0.0} | {float(s * k) for s in (-1, 1) for k in range(1, 11)}
                 | {s * (k + 0.318309886) for s in (-1.0, 1.0) for k in range(0, 12)})


def _check_real_line(expr, text: str) -> None:
    """Reject expressions that are not finite and real on the whole real line.

    A real activation of a Gaussian argument must be defined everywhere: poles (``1/x``,
    ``1/(x - 0.3)``, found by ``sympy.singularities``) and complex or undefined values
    (``log(x)``, ``sqrt(x)``, ``x**(1/3)`` for ``x < 0``, found at probe points by mpmath)
    are refused by name instead of producing nonsense expectations.
    """
    import mpmath

    from .expressions import ActivationError, X, lambdify_mpmath
    f = lambdify_mpmath(X, expr)
    with workdps(20):
        for x0 in _PROBES:
            _check_magnitude(expr, x0, text)
            try:
                v = f(mpmath.mpf(x0))
            except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                raise ActivationError(f"{text!r} is not defined at x = {x0:g}") from None
            if isinstance(v, mpmath.mpc):
                if v.imag != 0:
                    raise ActivationError(f"{text!r} is complex at x = {x0:g} "
                                          "(an activation must be real on the whole line)")
                v = v.real
            if not mpmath.isfinite(v):
                raise ActivationError(f"{text!r} is not finite at x = {x0:g}")
    try:
        poles = sp.singularities(expr, X, sp.S.Reals)
    except Exception:  # noqa: BLE001 - sympy cannot tell; the probes above must do
        return
    if poles is not sp.S.EmptySet and not isinstance(poles, sp.ConditionSet):
        raise ActivationError(f"{text!r} is singular at x in {poles} "
                              "(an activation must be finite on the whole line)")


#: Largest binary exponent of a probe value (about 10^30000): ``exp(exp(exp(x)))`` at x = 10
#: would otherwise build an integer with 10^9000 digits and never return.
_MAX_MAGNITUDE_BITS = 100_000


def _check_magnitude(expr, x0, text):
    """Refuse values beyond 2^100000 at the probe ``x0`` before they are computed: when the
    double-precision value overflows, the subexpressions are evaluated innermost first and the
    first one beyond the limit is named (an outer ``exp`` of it is never attempted)."""
    import math

    import mpmath
    import numpy as np

    from .expressions import ActivationError, X, lambdify_mpmath, lambdify_numpy
    with np.errstate(all="ignore"):
        try:
            v = complex(lambdify_numpy(X, expr)(np.float64(x0)))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError, AttributeError):
            v = complex(math.inf)
    if math.isfinite(v.real) and math.isfinite(v.imag):
        return
    done = set()
    for node in sp.postorder_traversal(expr):
        if node in done or not node.has(X) or node.is_Atom:
            continue
        done.add(node)
        try:
            w = lambdify_mpmath(X, node)(mpmath.mpf(x0))
        except (ZeroDivisionError, ValueError, OverflowError, TypeError):
            return                  # the caller's probe names the problem
        if mpmath.isfinite(w) and w != 0 and mpmath.mag(w) > _MAX_MAGNITUDE_BITS:
            raise ActivationError(
                f"{text!r} is too large at x = {x0:g}: {node} exceeds 10^30000 there, no "
                "Gaussian expectation of it can be computed (it grows faster than the "
                "Gaussian density decays)")


def _numeric_parity(expr) -> str:
    """``'odd'`` / ``'even'`` when sigma(-x) = -+sigma(x) to 35 digits at every probe point
    (and at irrational-looking offsets of them), else ``'neither'``.

    >>> import sympy as sp
    >>> from srfsym.symbolic.activations import X
    >>> _numeric_parity(sp.Max(sp.Min(X, 1), -1)), _numeric_parity(sp.Abs(X - 1) + sp.Abs(X + 1))
    ('odd', 'even')
    """
    import mpmath

    from .expressions import X, lambdify_mpmath
    f = lambdify_mpmath(X, expr)
    found = {"odd": True, "even": True}
    with workdps(40):
        tol = mpmath.mpf(10) ** -35
        for x0 in _PROBES:
            for x in (mpmath.mpf(x0), mpmath.mpf(x0) + mpmath.mpf(1) / 7):
                try:
                    a, b = f(x), f(-x)
                except (ZeroDivisionError, ValueError, OverflowError, TypeError):
                    return "neither"
                scale = max(1, abs(a), abs(b))
                found["odd"] &= abs(a + b) <= tol * scale
                found["even"] &= abs(a - b) <= tol * scale
    return "odd" if found["odd"] else "even" if found["even"] else "neither"


def _provably_nonzero(expr: sp.Expr) -> bool:
    """True when ``expr`` is a rational function of x that is not identically zero (a proof,
    unlike a numeric probe, which cannot tell 1e-40 x**2 from 0).

    >>> from srfsym.symbolic.expressions import X
    >>> _provably_nonzero(sp.Float("1e-40") * X**2), _provably_nonzero(sp.Max(X, 0) - sp.Max(X, 0))
    (True, False)
    """
    from ..core.budget import LimitReached, limited, SIMPLIFY_SECONDS
    from .expressions import X
    try:
        e = limited(lambda: sp.cancel(sp.expand(expr)), SIMPLIFY_SECONDS)
    except LimitReached:
        return False
    except Exception:  # noqa: BLE001 - not a form SymPy can put over one denominator
        return False
    return bool(e != 0 and e.free_symbols <= {X} and e.is_rational_function(X))
