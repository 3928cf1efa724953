"""The Marchenko-Pastur back end: the deterministic ``d -> infinity`` limit of docs/theory.md (g).

``D ~ c MP_beta``, ``F -> c``, ``H -> D``.  The closed forms are derived once in SymPy
(:func:`mp_moment_expressions`: the Stieltjes transform as the positive root of
``beta s m^2 + (s + 1 - beta) m - 1 = 0``, the other moments by differentiation) and
generated into a ``math``-module evaluator (a few microseconds a call), a numpy one
(batches) and an mpmath one; :func:`mp_stieltjes_pair` continues them to complex arguments.

>>> mom = MarchenkoPastur(beta=1.0, c=1.0).moments(1.0, 0.0)   # Vhat_1 = 0: S = lambda'
>>> mom.inv, mom.rho, mom.rhosq2                               # 1, E x, E x^2 = 1 + beta
(1.0, 1.0, 2.0)
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
import sympy as sp

from ...symbolic.activations import lambdify_mpmath, lambdify_numpy
from ..interfaces import SpectralSide
from .moments import (BETA, C, LAM_PRIME, M_VAR, S_VAR, V1HAT, VARRHO, SpectralMoments,
                      _check_positive, _to_mpf)
from ...core.precision import workdps

__all__ = ["MarchenkoPastur", "mp_stieltjes_quadratic", "mp_stieltjes_root",
           "mp_moment_expressions", "mp_density_expression", "mp_stieltjes_pair_expressions",
           "mp_stieltjes_pair", "select_root"]

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


class MarchenkoPastur(SpectralSide):
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


select_root = _select_root
