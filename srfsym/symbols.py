r"""The SymPy symbols of srfsym's expressions, for ``subs``, ``diff`` and ``lambdify``.

srfsym's symbols carry assumptions (``c`` is positive, ``r`` non-negative, ``kappa`` real, ...),
so they are *not* equal to a plain ``sympy.Symbol("c")``: substituting a plain symbol silently
does nothing.  Use these objects instead, or :func:`subs`, which takes the names:

=============  ==========================================  =====================================
symbol         meaning (docs/theory.md section)            where it appears
=============  ==========================================  =====================================
``x``          argument of an activation                   ``activation(...).expr``
``kappa``      spike coordinate, N(0, 1) (d)               ``cget_coefficients(...)``
``r``          spike strength, >= 0 (c)                    ``cget_coefficients(...)``
``c``          bulk variance, > 0 (c)                      ``cget_coefficients(...)``
``gamma``      alignment of spike and teacher (e)          ``teacher_functions(...)``
``a``, ``s``   location and scale of ``E f(a + s z)``      ``gaussian_expectation(...)``
``eta``        learning rate eta-tilde, >= 0 (c)           ``mapping_expressions()``
``alpha0``     step samples per dimension, > 0 (c)         ``mapping_expressions()``
=============  ==========================================  =====================================

``cget_coefficients(act).params`` (and ``teacher_functions(act).params``) is the tuple of these
symbols in the order the generated evaluators ``.numpy()`` and ``.mpmath(dps)`` take their
arguments: ``(kappa, r, c)`` and ``(kappa, gamma)``.

>>> import srfsym
>>> from srfsym import symbols
>>> co = srfsym.cget_coefficients("erf")
>>> co.params == (symbols.kappa, symbols.r, symbols.c)
True
>>> co.mu0.subs({symbols.c: 1})
erf(sqrt(3)*kappa*r/3)
>>> symbols.subs(co.mu0, c=1, r=1)
erf(sqrt(3)*kappa/3)
"""
from __future__ import annotations

import sympy as sp

from .symbolic.activations import X as x
from .symbolic.cget import C as c, GAMMA as gamma, KAPPA as kappa, R as r
from .symbolic.gaussian import A as a, S as s
from .step.mapping import ALPHA0 as alpha0, ETA as eta

__all__ = ["x", "kappa", "r", "c", "gamma", "a", "s", "eta", "alpha0", "by_name", "subs"]

#: every public symbol by its name
by_name = {str(sym): sym for sym in (x, kappa, r, c, gamma, a, s, eta, alpha0)}


def subs(expr, **values):
    """``expr.subs`` with the parameters given by name (``c=1``, ``kappa=0.5``, ...).

    An unknown name is an error, not a silent no-op.

    >>> subs(sp.sqrt(c) * kappa, c=4)
    2*kappa
    >>> subs(kappa, k=1)
    Traceback (most recent call last):
    ...
    ValueError: unknown parameter name 'k'; the names are x, kappa, r, c, gamma, a, s, eta, alpha0
    """
    unknown = [n for n in values if n not in by_name]
    if unknown:
        raise ValueError(f"unknown parameter name {unknown[0]!r}; the names are "
                         + ", ".join(by_name))
    return sp.sympify(expr).subs({by_name[n]: v for n, v in values.items()})
