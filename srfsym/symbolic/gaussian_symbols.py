"""The shift ``a`` and scale ``s`` of a Gaussian argument ``a + s z``: the symbols every Gaussian
expectation (:mod:`srfsym.symbolic.gaussian`) and every formula built from them
(:mod:`srfsym.symbolic.gaussian_formulas`) is written in.

>>> A, S
(a, s)
"""
import sympy as sp

__all__ = ["A", "S"]

A = sp.Symbol("a", real=True)
S = sp.Symbol("s", positive=True)
