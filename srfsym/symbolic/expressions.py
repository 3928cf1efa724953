"""The variable of activation expressions, their error type, and the generated evaluators.

One place for ``lambdify`` settings (explicit modules, ``cse=True``, overflow-safe forms), shared by
every module that turns a SymPy expression into numbers.

>>> f = lambdify_numpy((X,), X**2 + 1)
>>> float(f(2.0))
5.0
>>> g = lambdify_mpmath((X,), X / 3)
>>> str(g(1))[:6]
'0.3333'
"""
from __future__ import annotations

import sympy as sp

__all__ = ["X", "ActivationError", "lambdify_numpy", "lambdify_mpmath"]

#: The one real variable of every activation expression.
X = sp.Symbol("x", real=True)


class ActivationError(ValueError):
    """An activation specification that cannot be used (unparseable, unsafe, unknown)."""


# --------------------------------------------------------------------------------------
# code generation helpers shared by every module (one place for lambdify settings)

def lambdify_numpy(args, expr):
    """``sympy.lambdify`` to numpy + scipy with explicit modules and ``cse=True``.

    Heaviside(0) is 1/2 (SymPy's convention since 1.9) in both back ends.  Softplus and
    logistic sub-expressions are generated in forms that cannot overflow
    (:func:`srfsym.symbolic.special.stable_forms`).
    """
    from .special import NUMPY_FUNCTIONS, stable_forms
    expr = [stable_forms(e) for e in expr] if isinstance(expr, (list, tuple)) \
        else stable_forms(expr)
    return sp.lambdify(args, expr, modules=[NUMPY_FUNCTIONS, "numpy", "scipy"], cse=True)


def lambdify_mpmath(args, expr):
    """``sympy.lambdify`` to mpmath (exact Rationals stay exact at any precision)."""
    from .special import MPMATH_FUNCTIONS, stable_forms
    expr = [stable_forms(e) for e in expr] if isinstance(expr, (list, tuple)) \
        else stable_forms(expr)
    return sp.lambdify(args, expr, modules=[MPMATH_FUNCTIONS, "mpmath"], cse=True)
