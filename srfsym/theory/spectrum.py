"""Spectral side of the fixed point: the sums over the spectrum of ``Omega = W Pi W^T``.

The prior ("spectral") equations of docs/theory.md (f) need eleven normalised sums over the
eigen-decomposition ``Omega = sum_i D_i u_i u_i^T`` with
``S_i = lambda' + Vhat_1 D_i`` (``lambda' = lambda + Vhat_2``),
``F_i = <u_i, W v>^2`` and ``H_i = <u_i, W zeta>^2``; they are collected in
:class:`SpectralMoments`.  Two back ends compute them and return the same object:

* :class:`MarchenkoPastur` -- the deterministic ``d -> infinity`` limit of docs/theory.md (g):
  ``D ~ c MP_beta``, ``F -> c``, ``H -> D``.  The closed forms are derived once in SymPy
  (:func:`mp_moment_expressions`: the Stieltjes transform as the positive root of
  ``beta s m^2 + (s + 1 - beta) m - 1 = 0``, the other moments by differentiation) and
  generated into a ``math``-module evaluator (a few microseconds a call) and an mpmath one.
* :class:`SampledSpectrum` -- one finite-``d`` sample as the reference implementation
  draws it.  Only ``W W^T`` is diagonalised, once; every sum then costs ``O(p)`` through
  the Sherman--Morrison reduction of docs/theory.md (h), whose scalar form is derived once in
  SymPy (:func:`sherman_morrison_expressions`: rank-one algebra on scalar sums, the
  ``1/S^2`` sums by differentiation in ``lambda'`` and ``Vhat_1``).

Examples
--------
>>> from srfsym.theory.spectrum import MarchenkoPastur
>>> mom = MarchenkoPastur(beta=1.0, c=1.0).moments(1.0, 0.0)   # Vhat_1 = 0: S = lambda'
>>> mom.inv, mom.rho, mom.rhosq2                               # 1, E x, E x^2 = 1 + beta
(1.0, 1.0, 2.0)
"""
from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import NamedTuple

import mpmath
import numpy as np
import scipy.linalg
import sympy as sp

from ..core.precision import workdps
from ..symbolic.activations import lambdify_mpmath, lambdify_numpy

__all__ = [
    "SpectralMoments", "MarchenkoPastur", "SampledSpectrum",
    "LAM_PRIME", "V1HAT", "C", "BETA", "SwSum",
    "mp_stieltjes_quadratic", "mp_stieltjes_root", "mp_moment_expressions",
    "mp_density_expression", "mp_stieltjes_pair_expressions", "sherman_morrison_expressions",
    "sw_sums_in", "spectrum_latex", "EigenvalueSpectrum",
    "KIND_ONE", "KIND_BB", "KIND_BZ", "KIND_ZZ",
]

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


# --------------------------------------------------------------------------------------
# Marchenko-Pastur: symbolic derivation

def mp_stieltjes_quadratic(m=M_VAR, s=S_VAR, beta=BETA):
    """The MP quadratic ``beta s m^2 + (s + 1 - beta) m - 1`` whose positive root is
    ``m(s) = E 1/(x + s)``, ``x ~ MP_beta`` (mean 1, atom ``(1 - 1/beta)_+`` at 0).

    >>> mp_stieltjes_quadratic()
    beta*m**2*s + m*(-beta + s + 1) - 1
    """
    return beta * s * m**2 + (s + 1 - beta) * m - 1


def _flip(sq, x):
    """Rationalise ``sq - x`` (``sq = sqrt(disc)``): return ``(disc - x^2) / (sq + x)``.

    The numerator ``disc - x^2`` is expanded and factored, so no cancellation is left in
    it; the denominator adds two terms of the same sign when ``x >= 0``.  Hence
    ``1/_flip(sq, -x) = (sq - x)/(disc - x^2)`` is the cancellation-free form of
    ``1/(sq + x)`` when ``x < 0``.
    """
    disc = sq**2
    return sp.factor(sp.expand(disc - x**2)) / (sq + x)


@lru_cache(maxsize=None)
def mp_stieltjes_root():
    """Derivation of ``E 1/S`` for ``S = lambda' + Vhat_1 varrho``, ``varrho ~ c MP_beta``.

    Substituting ``m = g mt`` and ``s = lambda'/g`` (``g = Vhat_1 c``) in the MP quadratic
    gives ``beta lambda' g mt^2 + Bt mt - 1 = 0`` with ``Bt = lambda' + (1 - beta) g``, whose
    positive root is ``mt = E 1/S``.  Returns a dict with the scaled quadratic
    ``quadratic``, its coefficients, the discriminant ``disc = Bt^2 + 4 beta lambda' g``,
    ``Bt`` and ``Ct = 2 lambda' - Bt``, the raw positive root ``root`` and its rationalised
    form ``inv = 2 / (sqrt(disc) + Bt)`` (finite at ``Vhat_1 = 0``, where it is ``1/lambda'``),
    and for implicit differentiation ``dq_dm`` (``d quad/dmt`` at the root, ``= sqrt(disc)``)
    and ``dq_dv`` (``d quad/dVhat_1`` reduced modulo ``quad``, ``= (1 - lambda' mt)/Vhat_1``).

    >>> r = mp_stieltjes_root()
    >>> r["inv"].subs(V1HAT, 0)
    1/lambda'
    """
    g = V1HAT * C
    mt = sp.Symbol("mt")
    quad = sp.expand(mp_stieltjes_quadratic(g * mt, LAM_PRIME / g, BETA))
    a2, a1, a0 = sp.Poly(quad, mt).all_coeffs()
    # Bt = a1 = lambda' + (1 - beta) g, kept factored: (beta - 1) is formed first, so that
    # beta = 1 gives Bt = lambda' exactly even when g >> lambda'
    bt = LAM_PRIME + sp.factor(a1 - LAM_PRIME)
    ct = LAM_PRIME - sp.factor(a1 - LAM_PRIME)          # Ct = 2 lambda' - Bt
    disc = bt**2 - 4 * a2 * a0
    sq = sp.sqrt(disc)
    root = (-bt + sq) / (2 * a2)            # a0/a2 < 0: exactly one positive root
    # rationalise (sq - Bt) / (2 a2) = (disc - Bt^2) / (2 a2 (sq + Bt)), disc - Bt^2 = -4 a2 a0
    inv = sp.cancel(sp.expand(disc - bt**2) / (2 * a2)) / (sq + bt)
    # implicit differentiation: d quad/dmt at the root is sqrt(disc) ...
    assert sp.expand(sp.diff(quad, mt).subs(mt, root) - sq) == 0
    dq_dm = sq
    # ... and d quad/dVhat_1 modulo quad is (1 - lambda' mt)/Vhat_1
    dq_dv = sp.rem(sp.expand(sp.diff(quad, V1HAT)), quad, mt)
    assert sp.simplify(dq_dv - (1 - LAM_PRIME * mt) / V1HAT) == 0
    return {"quadratic": quad, "coeffs": (a2, a1, a0), "disc": disc, "sqrt": sq,
            "Bt": bt, "Ct": ct, "root": root, "inv": inv, "g": g, "mt": mt,
            "dq_dm": dq_dm, "dq_dv": dq_dv}


@lru_cache(maxsize=None)
def mp_moment_expressions(regime: str = "R0") -> dict:
    """Closed forms of the eleven MP moments, as SymPy expressions in
    ``(lambda', Vhat_1, c, beta)``.

    With ``q = sqrt(disc)``, ``P = 1/(q + Bt)`` and ``Q = 1/(q + Ct)``:
    ``E 1/S = 2 P`` and ``E varrho/S = (1 - lambda' E 1/S)/Vhat_1 = 4 lambda' c P Q``
    (the numerator ``q - Ct`` is rationalised with ``disc - Ct^2 = 4 lambda' g``).
    Then ``E 1/S^2 = -d/dlambda' E 1/S``, ``E varrho/S^2 = -d/dlambda' E varrho/S
    = E varrho/S / q`` (the derivative reduced with the quadratic; it has no cancellation)
    and ``E varrho^2/S^2 = -d/dVhat_1 E varrho/S`` -- no division by ``Vhat_1`` anywhere.
    ``F -> c`` and ``H -> varrho`` give the other six (docs/theory.md (g)).

    ``regime`` picks the cancellation-free form of ``P`` and ``Q``; all three are the same
    function:

    * ``"R0"``: ``Bt >= 0`` and ``Ct >= 0`` (contains ``Vhat_1 = 0``): ``P = 1/(q + Bt)``,
      ``Q = 1/(q + Ct)``;
    * ``"R1"``: ``Bt < 0`` (``beta > 1``, large ``Vhat_1 c / lambda'``):
      ``P = (q - Bt)/(4 beta lambda' g)``;
    * ``"R2"``: ``Ct < 0`` (``beta < 1``, large ``Vhat_1 c / lambda'``):
      ``lambda' Q = (q - Ct)/(4 g)`` (finite at ``lambda' = 0``).

    >>> e = mp_moment_expressions("R0")
    >>> sp.simplify(e["inv"].subs(V1HAT, 0)), sp.simplify(e["rhosq2"].subs(V1HAT, 0))
    (1/lambda', c**2*(beta + 1)/lambda'**2)
    """
    if regime not in ("R0", "R1", "R2"):
        raise ValueError(f"regime must be 'R0', 'R1' or 'R2', not {regime!r}")
    r = mp_stieltjes_root()
    sq, bt, ct = r["sqrt"], r["Bt"], r["Ct"]
    p_plus = 1 / (sq + bt)
    q_plus = 1 / (sq + ct)
    # 1/(sq + x) = (sq - x)/(disc - x^2) = 1/_flip(sq, -x): no cancellation when x < 0
    if regime == "R1":
        p_form, q_form = 1 / _flip(sq, -bt), q_plus
    elif regime == "R2":
        p_form, q_form = p_plus, 1 / _flip(sq, -ct)
    else:
        p_form, q_form = p_plus, q_plus
    four_lam_g = sp.factor(sp.expand(r["disc"] - ct**2))          # 4 lambda' Vhat_1 c
    inv = 2 * p_form
    rho = (four_lam_g / V1HAT) * p_form * q_form
    inv2 = -sp.diff(inv, LAM_PRIME)
    # E varrho/S^2 = -d/dVhat_1 E 1/S.  Implicit differentiation of the quadratic
    # quad(mt) = 0: -d mt/dVhat_1 = (d quad/dVhat_1) / (d quad/dmt), with d quad/dmt = sqrt(disc)
    # at the root and d quad/dVhat_1 reduced modulo quad to (1 - lambda' mt)/Vhat_1 = E varrho/S.
    # The differentiated closed forms would cancel instead: the atom (1 - 1/beta)/lambda' of
    # E 1/S drops out of d/dVhat_1, and d/dlambda' E varrho/S cancels at the hard edge.
    rho2 = rho / sq
    rhosq2 = -sp.diff(rho, V1HAT)
    return {"inv": inv, "rho": rho, "F": C * inv, "H": rho,
            "inv2": inv2, "rho2": rho2, "rhosq2": rhosq2,
            "F2": C * inv2, "DF2": C * rho2, "H2": rho2, "DH2": rhosq2}


@lru_cache(maxsize=None)
def mp_density_expression():
    """Density of the continuous part of ``varrho ~ c MP_beta`` and its support ``(lo, hi)``.

    ``sqrt((hi - varrho)(varrho - lo)) / (2 pi beta c varrho)`` on
    ``[c (1 - sqrt beta)^2, c (1 + sqrt beta)^2]``; the atom ``(1 - 1/beta)_+`` at 0 is
    not included.

    >>> dens, (lo, hi) = mp_density_expression()
    >>> hi.subs({C: 1, BETA: 1})
    4
    """
    lo = C * (1 - sp.sqrt(BETA))**2
    hi = C * (1 + sp.sqrt(BETA))**2
    dens = sp.sqrt((hi - VARRHO) * (VARRHO - lo)) / (2 * sp.pi * BETA * C * VARRHO)
    return dens, (lo, hi)


@lru_cache(maxsize=None)
def mp_stieltjes_pair_expressions() -> dict:
    """``E 1/S`` and ``E varrho/S`` for **complex** ``lambda'`` and ``Vhat_1`` (the feature
    spectrum evaluates the ridge system at ``lambda = -(n/p) z``, docs/theory.md (j.3)).

    Off the positive axis neither root of the scaled quadratic of :func:`mp_stieltjes_root`
    is "the positive one": both roots are returned, in the cancellation-free pair
    ``q / a2`` and ``-1 / q`` with ``q = -(a1 + sqrt(disc)) / 2`` (``a0 = -1``), and the
    caller selects the physical one (``Im > 0`` when ``Im S < 0``).  ``E varrho/S`` follows
    from the root by ``c mt / (1 + beta g mt)`` (``g = Vhat_1 c``), which equals
    ``(1 - lambda' mt) / Vhat_1`` on the quadratic (asserted here) and stays finite at
    ``Vhat_1 = 0``.

    >>> e = mp_stieltjes_pair_expressions()
    >>> e["rho_of_root"]
    c*mt/(Vhat_1*beta*c*mt + 1)
    """
    r = mp_stieltjes_root()
    mt, g = r["mt"], r["g"]
    a2, a1, a0 = r["coeffs"]
    assert a0 == -1
    rho = C * mt / (1 + BETA * g * mt)
    # rho = (1 - lambda' mt)/Vhat_1 on the quadratic: the difference times its denominators
    # is a multiple of the quadratic in mt
    num = sp.expand(sp.numer(sp.together(rho - (1 - LAM_PRIME * mt) / V1HAT)))
    assert sp.rem(num, r["quadratic"], mt) == 0
    return {"a2": a2, "a1": a1, "disc": sp.expand(a1**2 + 4 * a2), "rho_of_root": rho,
            "mt": mt}


@lru_cache(maxsize=None)
def _mp_pair_functions():
    e = mp_stieltjes_pair_expressions()
    args = (LAM_PRIME, V1HAT, C, BETA)
    coeffs = sp.lambdify(args, [e["a2"], e["a1"]], modules="numpy")
    coeffs_mp = lambdify_mpmath(args, [e["a2"], e["a1"]])
    rho = sp.lambdify((e["mt"], V1HAT, C, BETA), e["rho_of_root"], modules="numpy")
    rho_mp = lambdify_mpmath((e["mt"], V1HAT, C, BETA), e["rho_of_root"])
    return coeffs, rho, coeffs_mp, rho_mp


def _select_root(r1, r2, previous):
    """The root with ``Im > 0`` (the Stieltjes transform of a positive measure at
    ``Im S < 0``); if both or neither qualify, the one closest to ``previous``."""
    if r1.imag == 0 and r2.imag == 0:     # real S > 0: the positive root (product -1/a2 < 0)
        if (r1.real > 0) != (r2.real > 0):
            return r1 if r1.real > 0 else r2
    up1, up2 = r1.imag > 0, r2.imag > 0
    if up1 != up2:
        return r1 if up1 else r2
    if previous is None:
        raise ValueError("Marchenko-Pastur root selection is ambiguous (both or neither "
                         f"root in the upper half plane: {r1}, {r2}) and no previous iterate")
    return r1 if abs(r1 - previous) <= abs(r2 - previous) else r2


def mp_stieltjes_pair(lam_prime, v1hat, c, beta, previous=None, dps=None):
    """``(E 1/S, E varrho/S)`` for ``S = lambda' + Vhat_1 varrho``, ``varrho ~ c MP_beta``,
    at complex ``lambda'`` and ``Vhat_1`` (double precision, or mpmath at ``dps``).

    On the positive axis it is the real closed form of :class:`MarchenkoPastur`:

    >>> inv, rho = mp_stieltjes_pair(0.5, 1.0, 1.0, 1.0)
    >>> m = MarchenkoPastur(1.0, 1.0).moments(0.5, 1.0)
    >>> bool(abs(inv - m.inv) < 1e-14 and abs(rho - m.rho) < 1e-14)
    True
    """
    coeffs, rho_f, coeffs_mp, rho_mp = _mp_pair_functions()
    if dps is None:
        lam_prime, v1hat = complex(lam_prime), complex(v1hat)
        if v1hat == 0:
            return 1 / lam_prime, c / lam_prime
        a2, a1 = (complex(x) for x in coeffs(lam_prime, v1hat, c, beta))
        sq = np.sqrt(a1 * a1 + 4 * a2)
        if (a1.conjugate() * sq).real < 0:
            sq = -sq
        q = -(a1 + sq) / 2
        mt = _select_root(q / a2, -1 / q, previous)
        return mt, complex(rho_f(mt, v1hat, c, beta))
    with workdps(dps):
        lam_prime, v1hat = mpmath.mpc(lam_prime), mpmath.mpc(v1hat)
        if v1hat == 0:
            return 1 / lam_prime, c / lam_prime
        a2, a1 = coeffs_mp(lam_prime, v1hat, c, beta)
        sq = mpmath.sqrt(a1 * a1 + 4 * a2)
        if (mpmath.conj(a1) * sq).real < 0:
            sq = -sq
        q = -(a1 + sq) / 2
        mt = _select_root(q / a2, -1 / q, previous)
        return mt, rho_mp(mt, v1hat, c, beta)


class EigenvalueSpectrum:
    """A given list of bulk eigenvalues ``D_i`` (the finite-d variant): the averages
    ``E 1/S``, ``E D/S`` are plain means.

    >>> [float(x) for x in EigenvalueSpectrum([1.0, 3.0]).stieltjes_pair(1.0, 1.0)]
    [0.375, 0.625]
    """

    def __init__(self, eigenvalues):
        D = np.asarray(eigenvalues, dtype=float).ravel()
        if D.size == 0 or not np.all(np.isfinite(D)) or np.any(D < -1e-12 * max(1.0, D.max())):
            raise ValueError("eigenvalues must be a non-empty list of finite numbers >= 0")
        self.D = np.maximum(D, 0.0)

    def __repr__(self):
        return f"EigenvalueSpectrum({self.D.size} eigenvalues)"

    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        if dps is None:
            S = lam_prime + v1hat * self.D
            return np.mean(1 / S), np.mean(self.D / S)
        with workdps(dps):
            S = [lam_prime + v1hat * mpmath.mpf(float(x)) for x in self.D]
            return (mpmath.fsum(1 / s for s in S) / len(S),
                    mpmath.fsum(mpmath.mpf(float(x)) / s for x, s in zip(self.D, S)) / len(S))


_MP_ARGS = (LAM_PRIME, V1HAT, C, BETA)


@lru_cache(maxsize=None)
def _mp_math_functions():
    """Scalar (``math`` module) evaluators, one per regime, each returning 11 floats."""
    return {reg: sp.lambdify(_MP_ARGS, [mp_moment_expressions(reg)[f] for f in _FIELDS],
                             modules="math", cse=True)
            for reg in ("R0", "R1", "R2")}


@lru_cache(maxsize=None)
def _mp_mpmath_functions():
    return {reg: lambdify_mpmath(_MP_ARGS, [mp_moment_expressions(reg)[f] for f in _FIELDS])
            for reg in ("R0", "R1", "R2")}


@lru_cache(maxsize=None)
def _mp_numpy_functions():
    """Array (numpy) evaluators of the same closed forms, one per regime (batches of points)."""
    return {reg: sp.lambdify(_MP_ARGS, [mp_moment_expressions(reg)[f] for f in _FIELDS],
                             modules="numpy", cse=True)
            for reg in ("R0", "R1", "R2")}


@lru_cache(maxsize=None)
def _mp_density_numpy():
    dens, (lo, hi) = mp_density_expression()
    return lambdify_numpy((VARRHO, C, BETA), dens), lambdify_numpy((C, BETA), [lo, hi])


def _check_positive(name, value):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not (0.0 < x < math.inf):
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return x


def _to_mpf(x):
    """Exact conversion to mpf at the current precision (sympy Rationals, str, numbers)."""
    if isinstance(x, mpmath.mpf):
        return +x
    if isinstance(x, (sp.Rational, Fraction)):
        return mpmath.mpf(int(x.numerator)) / int(x.denominator)
    if isinstance(x, sp.Basic):
        return mpmath.mpf(sp.Float(x, mpmath.mp.dps + 10))
    return mpmath.mpf(x)


class MarchenkoPastur:
    r"""Deterministic (``d -> infinity``) back end: ``D ~ c MP_beta``, ``F -> c``, ``H -> D``.

    Parameters
    ----------
    beta : float
        Width ratio ``p/d > 0``; for ``beta > 1`` the law has an atom ``1 - 1/beta`` at 0.
    c : float
        Bulk variance ``c > 0`` (squared row norm of ``W``).

    Notes
    -----
    ``moments`` evaluates the closed forms of :func:`mp_moment_expressions`, generated with
    ``lambdify(modules="math", cse=True)``; it picks the regime form free of cancellation
    from the signs of ``Bt = lambda' + (1 - beta) Vhat_1 c`` and ``Ct = lambda' - (1 - beta)
    Vhat_1 c``.  Allowed arguments: ``v1hat >= 0`` and ``lam_prime > 0``, or
    ``lam_prime == 0`` when ``v1hat > 0`` and ``beta < 1`` (then ``D >= c (1 - sqrt beta)^2 > 0``).

    Examples
    --------
    >>> mp = MarchenkoPastur(beta=0.5, c=1.3)
    >>> m = mp.moments(0.2, 1.7)
    >>> abs(m.rho - (1 - 0.2 * m.inv) / 1.7) < 1e-14        # D/S = (1 - lambda'/S)/Vhat_1
    True
    >>> MarchenkoPastur(beta=0.25, c=1.0).support()
    (0.25, 2.25)
    """

    def __init__(self, beta=1.0, c=1.0):
        self._beta_exact = beta
        self._c_exact = c
        self.beta = _check_positive("beta", beta)
        self.c = _check_positive("c", c)
        self._fns = _mp_math_functions()
        self._f0, self._f1, self._f2 = self._fns["R0"], self._fns["R1"], self._fns["R2"]
        self._c1mb = self.c * (1.0 - self.beta)

    def __repr__(self):
        return f"MarchenkoPastur(beta={self.beta!r}, c={self.c!r})"

    # ----------------------------------------------------------------------------------
    def _regime(self, lam_prime, v1hat):
        """Validate (raising ValueError) and return the regime name."""
        if not (0.0 <= v1hat < math.inf):
            raise ValueError(f"v1hat must be >= 0 and finite, got {v1hat!r}")
        if not (0.0 < lam_prime < math.inf):
            if lam_prime == 0.0:
                if v1hat == 0.0:
                    raise ValueError("lam_prime must be > 0 when v1hat == 0 (S = lam_prime "
                                     "would vanish)")
                if self.beta >= 1.0:
                    raise ValueError("lam_prime == 0 needs beta < 1: for beta >= 1 the MP law "
                                     f"reaches 0 and <1/S> diverges (beta={self.beta!r})")
            else:
                raise ValueError(f"lam_prime must be >= 0 and finite, got {lam_prime!r}")
        gb = v1hat * self._c1mb
        if lam_prime + gb < 0.0:
            return "R1"
        if lam_prime - gb < 0.0:
            return "R2"
        return "R0"

    def moments(self, lam_prime: float, v1hat: float) -> SpectralMoments:
        """The eleven moments in double precision (generated ``math`` code, ~2 us).

        Parameters
        ----------
        lam_prime : float
            ``lambda' = lambda + Vhat_2``.
        v1hat : float
            ``Vhat_1 >= 0``.

        Returns
        -------
        SpectralMoments
            ``inv = E 1/S``, ``rho = E D/S``, ..., ``DH2 = E D^2/S^2``.

        Examples
        --------
        >>> m = MarchenkoPastur(beta=2.0).moments(0.1, 0.0)
        >>> round(m.inv, 12), round(m.H2, 12)      # 1/lambda', E x / lambda'^2
        (10.0, 100.0)
        """
        lam_prime = float(lam_prime)
        v1hat = float(v1hat)
        if lam_prime > 0.0 and 0.0 <= v1hat < math.inf and lam_prime < math.inf:
            gb = v1hat * self._c1mb                      # (inlined self._regime, for speed)
            fn = self._f1 if lam_prime + gb < 0.0 else (self._f2 if lam_prime < gb else self._f0)
        else:
            fn = self._fns[self._regime(lam_prime, v1hat)]
        return _new_moments(SpectralMoments, fn(lam_prime, v1hat, self.c, self.beta))

    def moments_array(self, lam_prime, v1hat) -> SpectralMoments:
        """The eleven moments at arrays of ``(lambda', Vhat_1)`` (numpy code generated from
        the closed forms of :meth:`moments`, the same regime choice per entry).

        Entries outside the allowed arguments (see the class notes) are NaN, for the caller
        to report point by point; nothing is raised, so one bad point of a batch does not
        stop the others.

        >>> mp = MarchenkoPastur(beta=0.5, c=1.3)
        >>> m = mp.moments_array(np.array([0.2, 0.0, -1.0]), np.array([1.7, 1.0, 1.0]))
        >>> bool(abs(m.rho[0] - mp.moments(0.2, 1.7).rho) < 1e-15), bool(np.isnan(m.inv[2]))
        (True, True)
        """
        lam_prime, v1hat = np.broadcast_arrays(np.asarray(lam_prime, dtype=float),
                                               np.asarray(v1hat, dtype=float))
        with np.errstate(invalid="ignore"):
            ok = ((v1hat >= 0.0) & (v1hat < math.inf) & (lam_prime < math.inf)
                  & ((lam_prime > 0.0) | ((lam_prime == 0.0) & (v1hat > 0.0)
                                         & (self.beta < 1.0))))
            gb = v1hat * self._c1mb
            regime = np.where(lam_prime + gb < 0.0, 1, np.where(lam_prime < gb, 2, 0))
        out = np.full((len(_FIELDS),) + lam_prime.shape, np.nan)
        fns = _mp_numpy_functions()
        for k, reg in enumerate(("R0", "R1", "R2")):
            sel = ok & (regime == k)
            if sel.any():
                vals = fns[reg](lam_prime[sel], v1hat[sel], self.c, self.beta)
                for i, v in enumerate(vals):
                    out[i][sel] = v
        return SpectralMoments._make(out)

    def moments_mpmath(self, lam_prime, v1hat, dps: int = 30) -> SpectralMoments:
        """The eleven moments as mpmath numbers computed at ``dps`` digits.

        Arguments may be strings, Python numbers, mpf or SymPy numbers; they are converted
        exactly.  The global mpmath precision is left unchanged.

        Examples
        --------
        >>> m = MarchenkoPastur(beta=1, c=1).moments_mpmath("0.5", 0, dps=40)
        >>> mpmath.nstr(m.inv, 30)
        '2.0'
        """
        with workdps(dps):
            lam = _to_mpf(lam_prime)
            v = _to_mpf(v1hat)
            reg = self._regime(float(lam), float(v))
            c, beta = _to_mpf(self._c_exact), _to_mpf(self._beta_exact)
            return SpectralMoments._make(_mp_mpmath_functions()[reg](lam, v, c, beta))

    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(E 1/S, E D/S)`` at complex ``lam_prime``, ``v1hat`` (:func:`mp_stieltjes_pair`)."""
        if dps is None:
            return mp_stieltjes_pair(lam_prime, v1hat, self.c, self.beta, previous)
        with workdps(dps):
            return mp_stieltjes_pair(lam_prime, v1hat, _to_mpf(self._c_exact),
                                     _to_mpf(self._beta_exact), previous, dps)

    # ----------------------------------------------------------------------------------
    @property
    def atom(self) -> float:
        """Weight ``(1 - 1/beta)_+`` of the atom of ``D`` at 0."""
        return max(0.0, 1.0 - 1.0 / self.beta)

    def support(self) -> tuple:
        """Support ``(c (1 - sqrt beta)^2, c (1 + sqrt beta)^2)`` of the continuous part.

        >>> MarchenkoPastur(beta=1.0, c=2.0).support()
        (0.0, 8.0)
        """
        lo, hi = _mp_density_numpy()[1](self.c, self.beta)
        return (float(lo), float(hi))

    def density(self, x):
        """Density of the continuous part of ``D ~ c MP_beta`` (numpy, vectorised).

        Zero outside the support; the atom ``self.atom`` at 0 is not included, so the
        density integrates to ``1 - self.atom``.

        Examples
        --------
        >>> import numpy as np
        >>> x = np.linspace(0, 6, 600001)
        >>> round(float(np.trapezoid(MarchenkoPastur(2.0).density(x) , x)), 4)
        0.5
        """
        x = np.asarray(x, dtype=float)
        lo, hi = self.support()
        out = np.zeros_like(x)
        inside = (x > lo) & (x < hi)
        out[inside] = _mp_density_numpy()[0](x[inside], self.c, self.beta)
        return out


# --------------------------------------------------------------------------------------
# Sherman-Morrison: symbolic derivation

#: kinds of weights in the W W^T eigenbasis: 1, b_i^2, b_i z_i, z_i^2 (b = W vhat, z = W zeta).
KIND_ONE, KIND_BB, KIND_BZ, KIND_ZZ = sp.symbols("one bb bz zz")
_KINDS = (KIND_ONE, KIND_BB, KIND_BZ, KIND_ZZ)


class SwSum(sp.Function):
    r"""``SwSum(kind, a, k, lambda', Vhat_1) = sum_i varrho_i^a w_i / (S^w_i)^k``.

    ``S^w_i = lambda' + Vhat_1 varrho_i`` with ``varrho_i`` the eigenvalues of ``W W^T``
    and ``w_i`` the weight of ``kind``: ``one`` (1), ``bb`` (``b_i^2``), ``bz``
    (``b_i z_i``) or ``zz`` (``z_i^2``), where ``b_i, z_i`` are the coordinates of
    ``W vhat`` and ``W zeta`` in the eigenbasis.  Derivatives close on the family:
    ``d/dlambda' SwSum(a, k) = -k SwSum(a, k+1)``, ``d/dVhat_1 SwSum(a, k) = -k SwSum(a+1, k+1)``.

    >>> t = SwSum(KIND_BB, 0, 1, LAM_PRIME, V1HAT)
    >>> sp.diff(t, V1HAT), sp.diff(t, LAM_PRIME)
    (-Sigma_bb[1,2], -Sigma_bb[0,2])
    """

    nargs = 5

    def fdiff(self, argindex=1):
        kind, a, k, lam, v = self.args
        if argindex == 4:
            return -k * SwSum(kind, a, k + 1, lam, v)
        if argindex == 5:
            return -k * SwSum(kind, a + 1, k + 1, lam, v)
        raise sp.ArgumentIndexError(self, argindex)

    def _latex(self, printer, exp=None):
        kind, a, k = self.args[:3]
        tex = r"\Sigma^{%s}_{%s,%s}" % (kind, a, k)
        return tex if exp is None else r"\left(%s\right)^{%s}" % (tex, exp)

    def _sympystr(self, printer):
        kind, a, k = self.args[:3]
        return f"Sigma_{kind}[{a},{k}]"


def _sw(kind, a, k):
    return SwSum(kind, a, k, LAM_PRIME, V1HAT)


def _pair_kind(x, y):
    return {("b", "b"): KIND_BB, ("b", "z"): KIND_BZ, ("z", "b"): KIND_BZ,
            ("z", "z"): KIND_ZZ}[(x, y)]


def _rank_one_coefficient():
    """``kk = Vhat_1 / (1 - Vhat_1 t)``: ``M^{-1} = A^{-1} + kk A^{-1} b b^T A^{-1}``."""
    return V1HAT / (1 - V1HAT * _sw(KIND_BB, 0, 1))


def _trace_rule(a):
    """``tr(X^a M^{-1}) = tr(X^a A^{-1}) + kk b^T A^{-1} X^a A^{-1} b`` (``X = W W^T``)."""
    return _sw(KIND_ONE, a, 1) + _rank_one_coefficient() * _sw(KIND_BB, a, 2)


def _qform_rule(x, y):
    """``x^T M^{-1} y = x^T A^{-1} y + kk (x^T A^{-1} b)(b^T A^{-1} y)`` for ``x, y in {b, z}``."""
    xb, by = _sw(_pair_kind(x, "b"), 0, 1), _sw(_pair_kind("b", y), 0, 1)
    return _sw(_pair_kind(x, y), 0, 1) + _rank_one_coefficient() * xb * by


@lru_cache(maxsize=None)
def sherman_morrison_expressions() -> dict:
    """Un-normalised spectral sums through Sherman--Morrison, in terms of :class:`SwSum`.

    ``M = lambda' I + Vhat_1 Omega = A - Vhat_1 b b^T`` with ``A = lambda' I + Vhat_1 W W^T``
    diagonal in the ``W W^T`` eigenbasis.  First order (docs/theory.md (h)):

    * ``sum 1/S = tr M^{-1}``,  ``sum D/S = tr(W W^T M^{-1}) - b^T M^{-1} b``,
    * ``sum F/S = d b^T M^{-1} b``,  ``sum H/S = z^T M^{-1} z``;

    second order because ``M`` is linear in ``(lambda', Vhat_1)`` with ``Omega`` fixed:
    ``sum g/S^2 = -d/dlambda' sum g/S`` and ``sum D g/S^2 = -d/dVhat_1 sum g/S``.
    The ``F`` entries are given without the factor ``d``.

    >>> e = sherman_morrison_expressions()
    >>> e["F"]
    Vhat_1*Sigma_bb[0,1]**2/(-Vhat_1*Sigma_bb[0,1] + 1) + Sigma_bb[0,1]
    """
    inv = _trace_rule(0)
    bmb = _qform_rule("b", "b")
    rho = _trace_rule(1) - bmb
    zmz = _qform_rule("z", "z")
    out = {"inv": inv, "rho": rho, "F": bmb, "H": zmz}
    dl = lambda e: -sp.diff(e, LAM_PRIME)          # noqa: E731
    dv = lambda e: -sp.diff(e, V1HAT)              # noqa: E731
    out.update(inv2=dl(inv), rho2=dv(inv), rhosq2=dv(rho), F2=dl(bmb), DF2=dv(bmb),
               H2=dl(zmz), DH2=dv(zmz))
    return {f: out[f] for f in _FIELDS}


def sw_sums_in(exprs) -> list:
    """The distinct ``(kind, a, k)`` of the :class:`SwSum` appearing in ``exprs``.

    Sorted by the power ``k`` first (the order :class:`SampledSpectrum` evaluates them in).

    >>> sw_sums_in([sherman_morrison_expressions()["F2"]])
    [('bb', 0, 1), ('bb', 0, 2)]
    """
    found = set()
    for e in exprs:
        for f in e.atoms(SwSum):
            kind, a, k = f.args[:3]
            found.add((str(kind), int(a), int(k)))
    return sorted(found, key=lambda t: (t[2], [str(s) for s in _KINDS].index(t[0]), t[1]))


def _sw_symbol(kind, a, k):
    return sp.Symbol(f"{kind}_{a}_{k}")


@lru_cache(maxsize=None)
def _sm_generated():
    """(list of (kind, a, k), math evaluator, mpmath evaluator) for the 11 sums."""
    exprs = sherman_morrison_expressions()
    keys = sw_sums_in(exprs.values())
    syms = [_sw_symbol(*key) for key in keys]
    rep = {_sw(sp.Symbol(kind), a, k): s for (kind, a, k), s in zip(keys, syms)}
    plain = [exprs[f].xreplace(rep) for f in _FIELDS]
    for e in plain:
        assert not e.atoms(SwSum)
    args = [V1HAT, *syms]
    return (keys, sp.lambdify(args, plain, modules="math", cse=True),
            lambdify_mpmath(args, plain))


@lru_cache(maxsize=None)
def _sm_numpy():
    """Array (numpy) evaluator of the same 11 sums as :func:`_sm_generated` (batches)."""
    exprs = sherman_morrison_expressions()
    keys = sw_sums_in(exprs.values())
    syms = [_sw_symbol(*key) for key in keys]
    rep = {_sw(sp.Symbol(kind), a, k): s for (kind, a, k), s in zip(keys, syms)}
    return sp.lambdify([V1HAT, *syms], [exprs[f].xreplace(rep) for f in _FIELDS],
                       modules="numpy", cse=True)


def _eigh(a):
    """Symmetric eigen-decomposition (LAPACK ``syevd``; faster than numpy's at p ~ 2000)."""
    return scipy.linalg.eigh(a, driver="evd", check_finite=False)


class SampledSpectrum:
    r"""Finite-``d`` spectral back end, one random sample as the reference draws it.

    ``p = round(beta d)``; ``W = sqrt(c) x`` (Gaussian rows normalised to unit norm);
    ``v`` a random vector of norm ``sqrt(d)`` (``vhat = v / sqrt(d)``); ``zeta`` a random vector
    of norm ``sqrt(d)`` orthogonal to ``v``.  ``Omega = W Pi W^T``, ``Pi = I - vhat vhat^T``.

    Only ``W W^T`` (or ``W^T W`` when ``p > d``) is diagonalised, once, in the
    constructor; :meth:`moments` then costs ``O(p)`` through the generated
    Sherman--Morrison reduction (:func:`sherman_morrison_expressions`).

    Parameters
    ----------
    d : int
        Input dimension.
    beta : float
        ``p / d``; ``p = round(beta * d)``.
    c : float
        Bulk variance (rows of ``W`` have norm ``sqrt(c)``).
    seed : int or numpy.random.Generator
        Random source for ``W``, ``v``, ``zeta`` (drawn in this order).
    zeta : {"random", "e1"} or array_like
        ``"random"``: uniform direction orthogonal to ``v``, norm ``sqrt(d)``;
        ``"e1"``: ``sqrt(d) e_1`` (plain RF, ``alpha_0 = 0``; a random ``v`` is then drawn
        orthogonal to ``e_1``; a ``v`` given by the caller makes ``zeta`` not exactly
        orthogonal to ``v``, which the reduction does not need); or an explicit vector.
    v : array_like, optional
        Explicit spike vector (rescaled to norm ``sqrt(d)``); drawn at random if omitted.

    Notes
    -----
    Accuracy: for ``p >= d``, ``Omega`` has a zero eigenvalue whose ``F`` weight is not
    zero.  When ``Vhat_1 c >> lambda'`` the ``F`` and ``D F`` sums then lose about
    ``2 log10(Vhat_1 c / lambda')`` digits, in this reduction and in the explicit
    eigen-decomposition (:meth:`moments_direct`) alike; at ``Vhat_1 c / lambda' ~ 3`` both
    agree with a 40-digit evaluation to ``1e-14``.

    Examples
    --------
    >>> sample = SampledSpectrum(200, beta=1.5, c=1.3, seed=1)
    >>> sample.p
    300
    >>> m, md = sample.moments(0.3, 1.7), sample.moments_direct(0.3, 1.7)
    >>> max(abs(a / b - 1) for a, b in zip(m, md)) < 1e-12
    True
    """

    def __init__(self, d, beta=1.0, c=1.0, seed=0, zeta="random", v=None):
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
            raise ValueError(f"d must be an integer >= 2, got {d!r}")
        self.d = int(d)
        self.beta = _check_positive("beta", beta)
        self.c = _check_positive("c", c)
        self.p = int(round(self.beta * self.d))
        if self.p < 1:
            raise ValueError(f"p = round(beta * d) = {self.p} must be >= 1 "
                             f"(beta={beta!r}, d={d!r})")
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        p, d = self.p, self.d
        g = rng.standard_normal((p, d))
        self.W = math.sqrt(self.c) * g / np.linalg.norm(g, axis=1, keepdims=True)
        if v is None:
            v = rng.standard_normal(d)
            if isinstance(zeta, str) and zeta == "e1":
                v[0] = 0.0   # the spike orthogonal to zeta = sqrt(d) e1, as docs/theory.md (f) assumes
        v = np.asarray(v, dtype=float)
        if v.shape != (d,) or not np.linalg.norm(v) > 0:
            raise ValueError(f"v must be a nonzero vector of length d={d}")
        self.v = math.sqrt(d) * v / np.linalg.norm(v)
        vhat = self.v / math.sqrt(d)
        if isinstance(zeta, str):
            if zeta == "random":
                z = rng.standard_normal(d)
                z -= (z @ vhat) * vhat
            elif zeta == "e1":
                z = np.zeros(d)
                z[0] = 1.0
            else:
                raise ValueError(f"zeta must be 'random', 'e1' or a vector, got {zeta!r}")
        else:
            z = np.asarray(zeta, dtype=float)
            if z.shape != (d,) or not np.linalg.norm(z) > 0:
                raise ValueError(f"zeta must be a nonzero vector of length d={d}")
        self.zeta = math.sqrt(d) * z / np.linalg.norm(z)
        self._diagonalise()
        self._omega = None
        self._keys, self._fn, self._fn_mp = _sm_generated()
        self._prepare_weights()

    def __repr__(self):
        return f"SampledSpectrum(d={self.d}, p={self.p}, beta={self.beta!r}, c={self.c!r})"

    # ----------------------------------------------------------------------------------
    def _diagonalise(self):
        """Eigenvalues ``varrho`` of ``W W^T`` and the coordinates ``b_i = e_i^T W vhat``,
        ``z_i = e_i^T W zeta`` (``e_i`` its eigenvectors), from the smaller Gram matrix."""
        W, p, d = self.W, self.p, self.d
        vhat = self.v / math.sqrt(d)
        if p <= d:
            rho, E = _eigh(W @ W.T)
            b = E.T @ (W @ vhat)
            z = E.T @ (W @ self.zeta)
        else:
            # W^T W = F diag(rho) F^T; e_i = W f_i / s_i, so e_i^T W x = s_i <f_i, x>
            rho, Fm = _eigh(W.T @ W)
            s = np.sqrt(np.clip(rho, 0.0, None))
            b = np.concatenate([s * (Fm.T @ vhat), np.zeros(p - d)])
            z = np.concatenate([s * (Fm.T @ self.zeta), np.zeros(p - d)])
            rho = np.concatenate([rho, np.zeros(p - d)])
        self.rho_w = np.clip(rho, 0.0, None)     #: eigenvalues of W W^T (length p)
        self.b_w = b                             #: coordinates of W vhat
        self.z_w = z                             #: coordinates of W zeta

    def _prepare_weights(self):
        weight = {"one": np.ones(self.p), "bb": self.b_w**2, "bz": self.b_w * self.z_w,
                  "zz": self.z_w**2}
        kmax = max(k for _, _, k in self._keys)
        assert [k for _, _, k in self._keys] == sorted(k for _, _, k in self._keys)
        self._rows = []      # per power k = 1, 2, ...: matrix of rows varrho^a w
        for k in range(1, kmax + 1):
            mat = np.array([self.rho_w ** a * weight[kind] for kind, a, kk in self._keys
                            if kk == k]).reshape(-1, self.p)
            self._rows.append((k, mat))
        self._weight = weight
        self._nargs = len(self._keys)

    def _check(self, lam_prime, v1hat):
        if not (0.0 < lam_prime < math.inf):
            raise ValueError(f"lam_prime must be > 0 and finite for a finite sample "
                             f"(Omega has zero eigenvalues when p >= d), got {lam_prime!r}")
        if not (0.0 <= v1hat < math.inf):
            raise ValueError(f"v1hat must be >= 0 and finite, got {v1hat!r}")

    def _sums(self, lam_prime, v1hat):
        """The SwSum values, in the order of ``self._keys`` (sorted by the power k)."""
        inv = 1.0 / (lam_prime + v1hat * self.rho_w)
        power = inv
        parts = []
        for k, mat in self._rows:
            parts.append(mat @ power)
            power = power * inv
        return np.concatenate(parts).tolist()

    def _normalise(self, raw):
        ip, dp = 1.0 / self.p, self.d / self.p
        scale = {"F": dp, "F2": dp, "DF2": dp}
        return SpectralMoments._make(r * scale.get(f, ip) for f, r in zip(_FIELDS, raw))

    def moments(self, lam_prime: float, v1hat: float) -> SpectralMoments:
        """The eleven normalised sums through Sherman--Morrison, ``O(p)`` per call.

        Examples
        --------
        >>> m = SampledSpectrum(100, seed=0).moments(2.0, 0.0)
        >>> m.inv                    # S = lambda' = 2 for every eigenvalue
        0.5
        """
        lam_prime = float(lam_prime)
        v1hat = float(v1hat)
        self._check(lam_prime, v1hat)
        raw = self._fn(v1hat, *self._sums(lam_prime, v1hat))
        return self._normalise(raw)

    def moments_array(self, lam_prime, v1hat) -> SpectralMoments:
        """The eleven normalised sums at arrays of ``(lambda', Vhat_1)`` (the same reduction,
        numpy code generated from the same expressions), ``O(p)`` per entry.  Entries outside
        the allowed arguments are NaN (nothing is raised).

        >>> s = SampledSpectrum(50, beta=1.5, seed=1)
        >>> m = s.moments_array(np.array([0.5, -1.0]), np.array([1.2, 1.0]))
        >>> bool(abs(m.F2[0] / s.moments(0.5, 1.2).F2 - 1) < 1e-13), bool(np.isnan(m.inv[1]))
        (True, True)
        """
        lam_prime, v1hat = np.broadcast_arrays(np.asarray(lam_prime, dtype=float),
                                               np.asarray(v1hat, dtype=float))
        with np.errstate(invalid="ignore"):
            ok = (lam_prime > 0.0) & (lam_prime < math.inf) & (v1hat >= 0.0) & (v1hat < math.inf)
        out = np.full((len(_FIELDS),) + lam_prime.shape, np.nan)
        if ok.any():
            lp, v = lam_prime[ok], v1hat[ok]
            inv = 1.0 / (lp[None, :] + v[None, :] * self.rho_w[:, None])      # (p, points)
            power, parts = inv, []
            for _, mat in self._rows:
                parts.append(mat @ power)
                power = power * inv
            raw = _sm_numpy()(v, *np.concatenate(parts))
            ip, dp = 1.0 / self.p, self.d / self.p
            scale = {"F": dp, "F2": dp, "DF2": dp}
            for i, (f, r) in enumerate(zip(_FIELDS, raw)):
                out[i][ok] = r * scale.get(f, ip)
        return SpectralMoments._make(out)

    def moments_mpmath(self, lam_prime, v1hat, dps: int = 30) -> SpectralMoments:
        """Same reduction in mpmath (on the float eigen-data), for precision checks.

        Examples
        --------
        >>> s = SampledSpectrum(20, seed=3)
        >>> a, b = s.moments(0.5, 1.2), s.moments_mpmath(0.5, 1.2, dps=30)
        >>> max(abs(float(y) / x - 1) for x, y in zip(a, b)) < 1e-13
        True
        """
        with workdps(dps):
            lam = _to_mpf(lam_prime)
            v = _to_mpf(v1hat)
            self._check(float(lam), float(v))
            rho = [mpmath.mpf(float(r)) for r in self.rho_w]
            w = {kind: [mpmath.mpf(float(x)) for x in arr] for kind, arr in self._weight.items()}
            sw = [lam + v * r for r in rho]
            vals = [mpmath.fsum(r**a * x / s**k for r, x, s in zip(rho, w[kind], sw))
                    for kind, a, k in self._keys]
            raw = self._fn_mp(v, *vals)
            p, d = mpmath.mpf(self.p), mpmath.mpf(self.d)
            scale = {"F": d / p, "F2": d / p, "DF2": d / p}
            return SpectralMoments._make(r * scale.get(f, 1 / p) for f, r in zip(_FIELDS, raw))

    def omega_spectrum(self):
        """Explicit ``Omega = W Pi W^T`` eigen-data ``(D, F, H)`` (``O(p^3)``, for tests/plots).

        >>> D, F, H = SampledSpectrum(50, seed=0).omega_spectrum()
        >>> D.shape, bool(D.min() > -1e-12)
        ((50,), True)
        """
        if self._omega is None:
            self._omega = self._omega_eigh()
        return self._omega

    def _omega_eigh(self):
        vhat = self.v / math.sqrt(self.d)
        W_pi = self.W - np.outer(self.W @ vhat, vhat)
        D, U = np.linalg.eigh(W_pi @ self.W.T)
        F = (U.T @ (self.W @ self.v))**2
        H = (U.T @ (self.W @ self.zeta))**2
        return D, F, H

    def moments_direct(self, lam_prime: float, v1hat: float) -> SpectralMoments:
        """The sums by their definition in the explicit ``Omega`` eigenbasis (tests only).

        >>> s = SampledSpectrum(60, beta=0.5, seed=2)
        >>> abs(s.moments_direct(1.0, 0.5).inv / s.moments(1.0, 0.5).inv - 1) < 1e-12
        True
        """
        lam_prime = float(lam_prime)
        v1hat = float(v1hat)
        self._check(lam_prime, v1hat)
        D, F, H = self.omega_spectrum()
        S = lam_prime + v1hat * D
        S2 = S * S
        vals = {"inv": 1 / S, "rho": D / S, "F": F / S, "H": H / S, "inv2": 1 / S2,
                "rho2": D / S2, "rhosq2": D * D / S2, "F2": F / S2, "DF2": D * F / S2,
                "H2": H / S2, "DH2": D * H / S2}
        return SpectralMoments._make(float(np.mean(vals[f])) for f in _FIELDS)
