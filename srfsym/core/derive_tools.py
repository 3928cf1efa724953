"""Small helpers shared by the step-by-step derivation scripts in ``derivations/``.

>>> import sympy as sp
>>> n = [0]
>>> print_step(n, "a symbol", sp.Symbol("x") ** 2)
<BLANKLINE>
Step 1. a symbol
    x**2
    LaTeX: x^{2}
>>> is_zero(sp.sin(sp.Symbol("t"))**2 + sp.cos(sp.Symbol("t"))**2 - 1)
True
"""
from __future__ import annotations

import sympy as sp

__all__ = ["print_step", "is_zero"]


def print_step(counter, text, expr=None, latex_names=None, latex=None):
    """Print ``Step N. text`` and, if given, the expression in plain text and LaTeX.

    ``counter`` is a one-element list holding the step number; ``latex_names`` maps symbols
    to LaTeX names, or ``latex`` is a function expr -> LaTeX string.
    """
    counter[0] += 1
    print(f"\nStep {counter[0]}. {text}")
    if expr is not None:
        print(f"    {sp.sstr(expr)}")
        tex = latex(expr) if latex is not None else sp.latex(expr, symbol_names=latex_names or {})
        print(f"    LaTeX: {tex}")


def is_zero(expr) -> bool:
    """True when SymPy simplifies ``expr`` to zero."""
    return sp.simplify(expr) == 0
