"""Symbols and the result type shared by the spectral back ends.

The prior equations of docs/theory.md (f) need eleven normalised sums over the
eigen-decomposition ``Omega = sum_i D_i u_i u_i^T`` with ``S_i = lambda' + Vhat_1 D_i``
(``lambda' = lambda + Vhat_2``), ``F_i = <u_i, W v>^2`` and ``H_i = <u_i, W zeta>^2``;
every back end returns them as :class:`SpectralMoments`.

>>> SpectralMoments._fields[:2]
('inv', 'rho')
"""
from __future__ import annotations

import math
from fractions import Fraction
from typing import NamedTuple

import mpmath
import sympy as sp

__all__ = ["SpectralMoments", "LAM_PRIME", "V1HAT", "C", "BETA", "S_VAR", "M_VAR", "VARRHO",
           "spectrum_latex", "check_positive", "to_mpf"]

# --------------------------------------------------------------------------------------
# symbols

#: lambda' = lambda + Vhat_2, the constant part of S.
LAM_PRIME = sp.Symbol("lambda'", positive=True)
#: Vhat_1, the coefficient of D in S.
V1HAT = sp.Symbol("Vhat_1", positive=True)
#: bulk variance c (rows of W have norm sqrt(c)).
C = sp.Symbol("c", positive=True)
#: width ratio beta = p / d.
BETA = sp.Symbol("beta", positive=True)
#: Stieltjes variable s and unknown m of the MP quadratic.
S_VAR = sp.Symbol("s", positive=True)
M_VAR = sp.Symbol("m")
#: the eigenvalue variable varrho of c MP_beta.
VARRHO = sp.Symbol("varrho", positive=True)

_LATEX_NAMES = {LAM_PRIME: r"\lambda'", V1HAT: r"\hat V_1"}


def spectrum_latex(expr) -> str:
    r"""``sympy.latex`` with this module's symbol names (``\lambda'``, ``\hat V_1``).

    >>> spectrum_latex(1 / (LAM_PRIME + V1HAT * VARRHO))
    "\\frac{1}{\\hat V_1 \\varrho + \\lambda'}"
    """
    return sp.latex(expr, symbol_names=_LATEX_NAMES)


class SpectralMoments(NamedTuple):
    """The eleven spectral sums of docs/theory.md (f), each normalised by ``1/p``.

    ``S_i = lam_prime + v1hat * D_i``; ``F_i = <u_i, W v>^2``, ``H_i = <u_i, W zeta>^2``.
    In the notation of (f): ``V_2 = inv``, ``V_1 = rho``, ``theta = thetahat * F``,
    ``psi = psihat * H``, ``q_2 = qhat_1 rho2 + qhat_2 inv2 + thetahat^2 F2 + psihat^2 H2``
    and ``q_1 = qhat_1 rhosq2 + qhat_2 rho2 + thetahat^2 DF2 + psihat^2 DH2``.

    >>> SpectralMoments._fields[:4]
    ('inv', 'rho', 'F', 'H')
    """

    inv: float     #: <1/S>  (= V_2)
    rho: float     #: <D/S>  (= V_1)
    F: float       #: <F/S>
    H: float       #: <H/S>
    inv2: float    #: <1/S^2>
    rho2: float    #: <D/S^2>
    rhosq2: float  #: <D^2/S^2>
    F2: float      #: <F/S^2>
    DF2: float     #: <D F/S^2>
    H2: float      #: <H/S^2>
    DH2: float     #: <D H/S^2>


_FIELDS = SpectralMoments._fields
_new_moments = tuple.__new__          # SpectralMoments from an 11-sequence, without checks


def check_positive(name, value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not (0.0 < x < math.inf):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return x


def to_mpf(x):
    """Exact conversion to mpf at the current precision (sympy Rationals, str, numbers)."""
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, (sp.Rational, Fraction)):
        return mpmath.mpf(int(x.numerator)) / int(x.denominator)
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.Float(x, mpmath.mp.dps + 10))
    return mpmath.mpf(x)


_check_positive = check_positive
_to_mpf = to_mpf


def allowed_points(lam_prime, v1hat):
    """Array arguments of ``moments_array``: ``(lambda', Vhat_1)`` broadcast as floats, the mask of
    the points where the sums exist (``0 < lambda' < oo``, ``0 <= Vhat_1 < oo``) and the NaN-filled
    output array ``(fields, *shape)`` that the back ends fill at those points.

    >>> import numpy as np
    >>> lp, v, ok, out = allowed_points(np.array([0.5, -1.0]), 1.0)
    >>> ok.tolist(), out.shape
    ([True, False], (11, 2))
    """
    import numpy as np
    lam_prime, v1hat = np.broadcast_arrays(np.asarray(lam_prime, dtype=float),
                                           np.asarray(v1hat, dtype=float))
    with np.errstate(invalid="ignore"):
        ok = (lam_prime > 0.0) & (lam_prime < math.inf) & (v1hat >= 0.0) & (v1hat < math.inf)
    return lam_prime, v1hat, ok, np.full((len(_FIELDS),) + lam_prime.shape, np.nan)
