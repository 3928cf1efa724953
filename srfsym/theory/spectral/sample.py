"""The finite-``d`` sample back end: one draw of ``W``, sums through Sherman--Morrison.

Only ``W W^T`` is diagonalised, once; every sum then costs ``O(p)`` through the
Sherman--Morrison reduction of docs/theory.md (h), whose scalar form is derived once in
SymPy (:func:`sherman_morrison_expressions`: rank-one algebra on scalar sums, the ``1/S^2``
sums by differentiation in ``lambda'`` and ``Vhat_1``).

>>> SampledSpectrum(100, seed=0).moments(2.0, 0.0).inv
0.5
"""
from __future__ import annotations

import math
from functools import lru_cache

import mpmath
import numpy as np
import scipy.linalg
import sympy as sp

from ...symbolic.activations import lambdify_mpmath
from ..interfaces import SpectralSide
from .moments import (LAM_PRIME, V1HAT, SpectralMoments, _check_positive, _to_mpf,
                      allowed_points)
from ...core.precision import workdps

__all__ = ["SampledSpectrum", "SwSum", "sherman_morrison_expressions", "sw_sums_in",
           "KIND_ONE", "KIND_BB", "KIND_BZ", "KIND_ZZ"]

_FIELDS = SpectralMoments._fields

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


class SampledSpectrum(SpectralSide):
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
        lam_prime, v1hat, ok, out = allowed_points(lam_prime, v1hat)
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

    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(E 1/S, E D/S)`` at complex arguments, from the explicit ``Omega`` eigenvalues
        (:meth:`omega_spectrum`, computed once).

        >>> s = SampledSpectrum(40, seed=1)
        >>> inv, rho = s.stieltjes_pair(0.5, 1.2)
        >>> bool(abs(inv - s.moments(0.5, 1.2).inv) < 1e-12)
        True
        """
        from .eigenvalues import EigenvalueSpectrum
        if getattr(self, "_eig_backend", None) is None:
            self._eig_backend = EigenvalueSpectrum(*self.omega_spectrum())
        return self._eig_backend.stieltjes_pair(lam_prime, v1hat, previous, dps)

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
