r"""Gaussian expectations in several variables: :math:`\mathbb E_z[f(z_1,\dots,z_k)]`, z ~ N(0, I_k).

The integrand is expanded into a sum of terms.  A term that is a product of univariate
factors (``tanh(2*z1) * z2**2``) factorises: its expectation is the product of one-variable
expectations from the rule table of :mod:`srfsym.symbolic.gaussian`, each ``exact`` (checked
against 30-digit quadrature) or ``numeric`` (certified quadrature).  A term odd in one of its
variables is exactly zero (parity).  Any other term (``tanh(z1 + z2/2) * z1``) is computed by
tensor Gauss-Hermite quadrature at two node counts, their difference being the error
estimate: a ``numeric`` :class:`~srfsym.core.values.Value` whose precision says so.

>>> import sympy as sp
>>> z1, z2 = MULTI_Z[:2]
>>> multi_expectation(sp.tanh(2 * z1) * z1 * z2**2, 2, "E").method
'numeric'
>>> multi_expectation((z1 + z1 * z2)**2, 2, "E").expr
2
>>> v = multi_expectation(sp.cos(z1 + z2), 2, "E")    # exp(-1): no closed form is tried
>>> v.method, round(float(v), 12) == round(float(sp.exp(-1)), 12)
('numeric', True)
"""
from __future__ import annotations

from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..core.budget import LimitReached, limited
from ..core.values import Value
from .activations import X
from .expressions import lambdify_numpy
from .gaussian import gaussian_expectation
from .hermite import _at_standard, _combine
from .tidy import tidy

__all__ = ["MULTI_Z", "MAX_INDEX", "multi_expectation", "tensor_gauss_hermite"]

#: The largest number of target directions k.
MAX_INDEX = 4
#: The variables z1..z4 of multi-index expressions.
MULTI_Z = sp.symbols(f"z1:{MAX_INDEX + 1}", real=True)

#: Gauss-Hermite nodes per dimension (two rules, for the error estimate), by dimension.
_GH_NODES = {1: (120, 160), 2: (90, 120), 3: (36, 48), 4: (18, 24)}


def tensor_gauss_hermite(f_numpy, k: int, n: int) -> float:
    """``E f(z)`` for z ~ N(0, I_k) by the tensor Gauss-Hermite rule with ``n`` nodes per axis
    (``f_numpy`` takes k arrays).

    >>> round(tensor_gauss_hermite(lambda a, b: a**2 * b**2, 2, 5), 12)
    1.0
    """
    nodes, weights = np.polynomial.hermite_e.hermegauss(n)
    weights = weights / np.sqrt(2 * np.pi)
    grids = np.meshgrid(*([nodes] * k), indexing="ij")
    w = weights
    for _ in range(k - 1):
        w = np.multiply.outer(w, weights)
    vals = np.broadcast_to(np.asarray(f_numpy(*grids), dtype=float), w.shape)
    if not np.all(np.isfinite(vals)):
        raise ValueError("the integrand is not finite on the Gauss-Hermite nodes")
    return float(np.sum(w * vals))


def _split_signs(expr):
    """``sign(a*b) -> sign(a)*sign(b)``: the sign of a factorisable argument is the product of
    the factors' signs, whose expectations separate (``sign(z1 + z1*z2)``).

    >>> z1, z2 = sp.symbols("z1 z2", real=True)
    >>> _split_signs(sp.sign(z1 + z1*z2))
    sign(z1)*sign(z2 + 1)
    """
    def split(arg):
        return sp.Mul(*[sp.sign(f) ** p for f, p in sp.factor_list(arg)[1]
                        if p % 2 == 1]) * sp.sign(sp.factor_list(arg)[0])
    return expr.replace(lambda e: isinstance(e, sp.sign) and e.args[0].is_polynomial(),
                        lambda e: split(e.args[0]))


def _expand(expr, seconds=5.0):
    try:
        return limited(lambda: sp.expand(_split_signs(expr), power_exp=True), seconds)
    except LimitReached:
        return expr


#: Probe points of the numeric zero test (several variables).
_PROBES = ((0.37, -1.13, 0.71, 2.03), (-0.52, 0.29, -1.61, 0.44), (1.27, 0.83, 0.19, -0.97),
           (-1.9, -0.41, 1.33, 0.58), (0.05, 1.71, -0.66, -1.42))


def _vanishes(expr, zs) -> bool:
    """True when ``expr`` (in the variables ``zs``) is identically zero: by expansion, else
    at 30 digits on five probe points (the test of activations' parity, in several variables)."""
    expanded = sp.expand(expr)
    if expanded == 0:
        return True
    if expanded.is_polynomial(*zs):
        return False
    import mpmath
    with mpmath.workdps(40):
        for point in _PROBES:
            v = sp.N(expr.subs(dict(zip(zs, point))), 40)
            if not v.is_number or abs(complex(v)) > 1e-30:
                return False
    return True


def _odd_in(term, zs):
    """A variable in which ``term`` is odd (then E term = 0), or None."""
    for z in zs:
        if z in term.free_symbols and _vanishes(term.subs(z, -z) + term, zs):
            return z
    return None


def _separate(term, zs):
    """(constant, {z: univariate factor}) when ``term`` is a product of univariate factors,
    else None."""
    const, parts = sp.S.One, {}
    for factor in sp.Mul.make_args(term):
        used = factor.free_symbols & set(zs)
        if not used:
            const *= factor
        elif len(used) == 1:
            z = used.pop()
            parts[z] = parts.get(z, sp.S.One) * factor
        else:
            return None
    return const, parts


def _numeric_term(term, zs, name):
    f = lambdify_numpy(tuple(zs), term)
    n1, n2 = _GH_NODES[len(zs)]

    def compute(dps, f=f, k=len(zs)):
        v1, v2 = tensor_gauss_hermite(f, k, n1), tensor_gauss_hermite(f, k, n2)
        err = abs(v1 - v2) + 1e-14 * max(abs(v2), 1e-300) + 1e-15
        return mpmath.mpf(v2), mpmath.mpf(err)
    return Value(name, "numeric", how=f"tensor Gauss-Hermite quadrature ({n1}^{len(zs)} and "
                 f"{n2}^{len(zs)} nodes; their difference is the error)", compute=compute)


def _term_value(term, zs, name):
    if _odd_in(term, zs) is not None:
        return Value(name, "exact", expr=sp.S.Zero, how="parity")
    used = [z for z in zs if z in term.free_symbols]
    if len(used) > 1 and _vanishes(term.subs({z: -z for z in used}, simultaneous=True) + term,
                                   zs):
        return Value(name, "exact", expr=sp.S.Zero, how="parity: odd under z -> -z")
    split = _separate(term, zs)
    if split is None:
        return _numeric_term(term, [z for z in zs if z in term.free_symbols], name)
    const, parts = split
    values = {}
    for i, (z, factor) in enumerate(sorted(parts.items(), key=lambda kv: str(kv[0]))):
        e = gaussian_expectation(factor.subs(z, X), 0)
        values[sp.Symbol(f"_P{i}")] = _at_standard(e, f"E[{factor}]")
    if not values:
        return Value(name, "exact", expr=const, how="constant")
    return _combine(name, const * sp.Mul(*values), values)


@lru_cache(maxsize=512)
def multi_expectation(expr: sp.Expr, k: int, name: str) -> Value:
    """``E f(z_1..z_k)``, z ~ N(0, I_k), as a :class:`~srfsym.core.values.Value`: exact when
    every term of the expanded integrand factorises into univariate expectations with closed
    forms (or vanishes by parity), otherwise numeric.

    >>> z1, z2 = MULTI_Z[:2]
    >>> multi_expectation(sp.exp(z1) * z2**2, 2, "E").expr
    exp(1/2)
    """
    if not 1 <= k <= MAX_INDEX:
        raise ValueError(f"the number of directions must be from 1 to {MAX_INDEX}, got {k}")
    zs = MULTI_Z[:k]
    extra = expr.free_symbols - set(zs)
    if extra:
        raise ValueError(f"{name}: unexpected symbols {sorted(map(str, extra))}")
    terms = sp.Add.make_args(_expand(expr))
    parts = {sp.Symbol(f"_T{i}"): _term_value(t, zs, f"{name}[term {i}]")
             for i, t in enumerate(terms)}
    if all(v.is_exact for v in parts.values()):
        total = sp.Add(*[v.expr for v in parts.values()])
        return Value(name, "exact", expr=tidy(total),
                     how="sum of products of univariate Gaussian expectations")
    if len(parts) == 1:
        only = next(iter(parts.values()))
        return Value(name, only.method, expr=only.expr, how=only.how, compute=only.compute)
    return _combine(name, sp.Add(*parts), parts)
