r"""Kernel spectra for the deterministic equivalent: the five spectral sums of
:mod:`.formulas` at any ``nu2`` (numpy arrays or one mpmath number).

* :class:`EigenSpectrum` -- eigenvalues with multiplicities and the target's energy per
  eigenspace (exact finite sums), plus an optional *flat remainder*: the limit of an eigenspace
  of vanishing eigenvalue and diverging multiplicity with trace ``flat_trace`` (it adds
  ``flat_trace/nu`` to T1, ``flat_trace/nu^2`` to T3, ``flat_target/nu^2`` to S_theta).
* :class:`PowerLawSpectrum` -- ``Lam_k = k^-a``, ``theta_k^2 = k^-(2 a r + 1)``: the first ``head``
  terms summed, the tail by the midpoint Euler--Maclaurin formula
  ``sum_{k>K} g(k) = int_X^oo g + g'(X)/24 - 7 g'''(X)/5760 + 31 g^(5)(X)/967680 - ...``,
  ``X = K + 1/2`` (the coefficients are ``-B_2m(1/2)/(2m)!``), with the integral in closed form
  (an incomplete beta function, a ``2F1``) and the first omitted term ``31|g^(5)(X)|/967680``
  reported as the truncation error (an estimate: past the knee ``k_* = nu^(-1/a)`` the terms
  fall like ``X^-2m``, below it like ``k_*^-2m``).

>>> s = PowerLawSpectrum(a=2.0, r=0.5, head=200)
>>> sums, err = s.sums(np.array([1e-4]))   # T1 = sum 1/(1 + nu k^2), closed form below
>>> nu = 1e-4; exact = (np.pi / nu**0.5 / np.tanh(np.pi / nu**0.5) - 1) / 2
>>> t1, t1_err = sums["T1"], err["T1"]
>>> bool(abs(t1[0] - exact) < 1e-12 * exact), bool(t1_err[0] < 1e-12)
(True, True)
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np
import sympy as sp

from .formulas import EIG, NU, SUMMANDS, TH2, WITH_MULTIPLICITY

__all__ = ["EigenSpectrum", "PowerLawSpectrum", "tail_integral"]

_K, _X, _A, _B, _E, _J = sp.symbols("k X a b e j", positive=True)
#: ``int_X^oo k^-e (k^-a + nu)^-j dk`` in closed form (substitution u = 1/(1 + nu k^a)):
#: ``(1/a) nu^(-s) u0^A/A 2F1(A, 1 - s; A + 1; u0)``, ``s = (1 - e + a j)/a``, ``A = (e - 1)/a``
_S = (1 - _E + _A * _J) / _A
_AA = (_E - 1) / _A
_U0 = 1 / (1 + NU * _X**_A)
TAIL = NU**(-_S) / _A * _U0**_AA / _AA * sp.hyper((_AA, 1 - _S), (_AA + 1,), _U0)
#: the same with ``v0 = 1 - u0`` (accurate when ``nu X^a`` is small, where ``u0`` rounds to 1):
#: ``(1/a) nu^(-s) [Gamma(s) Gamma(A)/Gamma(s + A) - v0^s/s 2F1(s, 1 - A; s + 1; v0)]``
#: (analytic continuation in ``s``; singular at ``s = 0, -1, ...``, see ``_S_STEP``)
_V0 = NU * _X**_A / (1 + NU * _X**_A)
TAIL_V = NU**(-_S) / _A * (sp.gamma(_S) * sp.gamma(_AA) / sp.gamma(_S + _AA)
                           - _V0**_S / _S * sp.hyper((_S, 1 - _AA), (_S + 1,), _V0))
#: step in ``s`` of the symmetric average used at ``s = 0, -1, ...`` (error O(step^2 log^2))
_S_STEP = 1e-5
#: each summand as ``k^-e (k^-a + nu)^-j``: (e, j) with Lam = k^-a, theta2 = k^-b
EXPONENTS = {"T1": (_A, 1), "T2": (2 * _A, 2), "T3": (_A, 2), "S_theta": (_B, 2),
             "S_lam_theta": (_A + _B, 2)}
_LAWS = {name: SUMMANDS[name].subs({EIG: _K**-_A, TH2: _K**-_B}) for name in SUMMANDS}
_CACHE: dict = {}


def _hyp2f1_numpy(upper, lower, z):
    from scipy.special import hyp2f1
    return hyp2f1(upper[0], upper[1], lower[0], z)


def _hyp2f1_mpmath(upper, lower, z):
    return mpmath.hyp2f1(upper[0], upper[1], lower[0], z)


def _generated(name, module):
    key = (name, module)
    if key not in _CACHE:
        e, j = EXPONENTS[name]
        tail, tail_v = TAIL.subs({_E: e, _J: j}), TAIL_V.subs({_E: e, _J: j})
        law = _LAWS[name]
        monomial = _K**(_A * j - e) * (1 + NU * _K**_A)**(-j)    # the same function, short
        d1, d3, d5 = (sp.diff(monomial, _K, m) for m in (1, 3, 5))
        mods = [{"hyper": _hyp2f1_numpy}, "scipy", "numpy"] if module == "numpy" else \
            [{"hyper": _hyp2f1_mpmath}, "mpmath"]
        args = (_A, _B, NU, _X)
        em = (d1 / 24 - sp.Rational(7, 5760) * d3).subs(_K, _X)
        _CACHE[key] = (sp.lambdify(args, tail + em, modules=mods, cse=True),
                       sp.lambdify(args, sp.Rational(31, 967680) * d5.subs(_K, _X),
                                   modules=mods, cse=True),
                       sp.lambdify((_A, _B, NU, _K), law, modules=mods, cse=True),
                       sp.lambdify(args, tail_v + em, modules=mods, cse=True),
                       sp.lambdify((_A, _B), _S.subs({_E: e, _J: j}), modules=mods))
    return _CACHE[key]


def tail_integral(name: str, a, b, nu, x, module="numpy"):
    """The Euler--Maclaurin estimate of ``sum_{k > x - 1/2} g(k)`` for the summand ``g`` of sum
    ``name`` under the power law, and its error estimate.

    >>> v, e = tail_integral("T1", 2.0, 2.0, 1e-2, 100.5)
    >>> k = np.arange(101, 10**7, dtype=float)
    >>> direct = (1 / (1 + 1e-2 * k**2)).sum() + 100 / (10**7 - 0.5)    # + the far tail
    >>> bool(abs(v - direct) < 1e-12 and e < 1e-12)
    True
    """
    tail_u, err, _, tail_v, s_of = _generated(name, module)
    s = float(s_of(a, b))
    v0 = nu * x**a / (1 + nu * x**a)
    near = s <= 0.5 and abs(s - round(s)) < _S_STEP
    db = a * _S_STEP                                      # ds = -db/a
    if module == "mpmath":
        small = v0 < 0.5
    else:
        small = np.asarray(v0) < 0.5
    with np.errstate(all="ignore"):
        tv = (0.5 * (tail_v(a, b + db, nu, x) + tail_v(a, b - db, nu, x)) if near
              else tail_v(a, b, nu, x))
        tu = tail_u(a, b, nu, x)
    # the symmetric average's error ~ step^2 log(v0)^2 (the s -> 0 log), plus the cancellation
    lg = mpmath.log(v0) if module == "mpmath" else np.log(np.maximum(v0, 1e-300))
    extra = 2 * (_S_STEP**2 * lg**2 + 1e-10) * abs(tv) if near else 0 * tv
    if module == "mpmath":
        return (tv, abs(err(a, b, nu, x)) + extra) if small else (tu, abs(err(a, b, nu, x)))
    return np.where(small, tv, tu), np.abs(err(a, b, nu, x)) + np.where(small, extra, 0)


def _check_nu(nu):
    if np.any(~(np.asarray(nu, dtype=float) > 0)):
        raise ValueError(f"nu2 must be > 0, got {nu}")


@dataclass(frozen=True)
class PowerLawSpectrum:
    """``Lam_k = k^-a`` (capacity ``a > 1``), ``theta_k = k^-(a r + 1/2)`` (source ``r > 0``),
    ``k = 1, 2, ...``; ``head`` terms summed, the rest by Euler--Maclaurin (see module doc).

    >>> PowerLawSpectrum(a=1.0, r=0.5)
    Traceback (most recent call last):
    ...
    ValueError: capacity exponent a must be > 1 (the kernel's trace sum k^-a converges), got 1.0
    """
    a: float
    r: float
    head: int = 1000

    def __post_init__(self):
        if not (np.isfinite(self.a) and self.a > 1):
            raise ValueError("capacity exponent a must be > 1 (the kernel's trace sum k^-a "
                             f"converges), got {self.a}")
        if not (np.isfinite(self.r) and self.r > 0):
            raise ValueError(f"source exponent r must be > 0 (a target of finite norm), "
                             f"got {self.r}")
        if isinstance(self.head, bool) or not isinstance(self.head, (int, np.integer)) \
                or not 10 <= self.head <= 10**6:
            raise ValueError(f"head must be an integer from 10 to 10^6, got {self.head!r}")

    @property
    def b(self) -> float:
        return 2 * self.a * self.r + 1

    @property
    def size(self) -> float:
        return np.inf

    def sums(self, nu, mp: bool = False):
        """The five sums at ``nu`` (array; one mpmath number with ``mp=True``) and their error
        estimates, two dicts keyed like :data:`.formulas.SUMS`."""
        _check_nu(nu)
        if mp:
            return self._sums_mp(nu)
        nu = np.asarray(nu, dtype=float)
        k = np.arange(1, self.head + 1, dtype=float)
        x = self.head + 0.5
        out, err = {}, {}
        for name in SUMMANDS:
            law = _generated(name, "numpy")[2]
            tail, err[name] = tail_integral(name, self.a, self.b, nu, x)
            out[name] = law(self.a, self.b, nu[..., None], k).sum(-1) + tail
        return out, err

    def _sums_mp(self, nu):
        out, err = {}, {}
        a, b, x = mpmath.mpf(self.a), mpmath.mpf(self.b), mpmath.mpf(self.head) + 0.5
        for name in SUMMANDS:
            law = _generated(name, "mpmath")[2]
            tail, err[name] = tail_integral(name, a, b, nu, x, module="mpmath")
            out[name] = mpmath.fsum(law(a, b, nu, k) for k in range(1, self.head + 1)) + tail
        return out, err

    def eigen(self, size: int):
        """The first ``size`` eigenvalues and target energies as an :class:`EigenSpectrum`
        (what a simulation in dimension ``size`` uses)."""
        k = np.arange(1, size + 1, dtype=float)
        return EigenSpectrum(k**-self.a, k**-self.b)


@dataclass(frozen=True)
class EigenSpectrum:
    """Kernel eigenvalues ``eigenvalues`` (> 0) with ``multiplicity``, the target's energy
    ``target2`` in each eigenspace, and an optional flat remainder (see module doc).

    >>> s = EigenSpectrum([1.0, 0.5], [1.0, 0.0])
    >>> sums, _ = s.sums(np.array([0.5]))
    >>> t1 = sums["T1"]
    >>> round(float(t1[0]), 12)    # 1/1.5 + 0.5/1
    1.166666666667
    """
    eigenvalues: tuple
    target2: tuple
    multiplicity: tuple | None = None
    flat_trace: float = 0.0
    flat_target: float = 0.0

    def __post_init__(self):
        lam = np.asarray(self.eigenvalues, dtype=float)
        th = np.asarray(self.target2, dtype=float)
        m = np.ones_like(lam) if self.multiplicity is None else \
            np.asarray(self.multiplicity, dtype=float)
        if lam.ndim != 1 or lam.size == 0 or th.shape != lam.shape or m.shape != lam.shape:
            raise ValueError("eigenvalues, target2 (and multiplicity) must be 1-d arrays of one "
                             f"length, got shapes {lam.shape}, {th.shape}, {m.shape}")
        if not (np.all(np.isfinite(lam)) and np.all(lam > 0)):
            raise ValueError("kernel eigenvalues must be finite and > 0 (drop zero eigenvalues: "
                             "they carry no feature)")
        if not (np.all(np.isfinite(th)) and np.all(th >= 0)):
            raise ValueError("target energies theta_k^2 must be finite and >= 0")
        if not (np.all(np.isfinite(m)) and np.all(m >= 1)):
            raise ValueError("multiplicities must be finite and >= 1")
        if not (self.flat_trace >= 0 and self.flat_target >= 0
                and np.isfinite(self.flat_trace) and np.isfinite(self.flat_target)):
            raise ValueError("flat_trace and flat_target must be finite and >= 0")
        object.__setattr__(self, "eigenvalues", lam)
        object.__setattr__(self, "target2", th)
        object.__setattr__(self, "multiplicity", m)

    @property
    def size(self) -> float:
        """Number of features the spectrum has (inf with a flat remainder)."""
        return np.inf if self.flat_trace > 0 else float(self.multiplicity.sum())

    def sums(self, nu, mp: bool = False):
        """The five sums at ``nu`` and their (zero) errors."""
        from .formulas import summand
        _check_nu(nu)
        flat = {"T1": self.flat_trace / nu, "T2": 0 * nu, "T3": self.flat_trace / nu**2,
                "S_theta": self.flat_target / nu**2, "S_lam_theta": 0 * nu}
        out = {}
        for name in SUMMANDS:
            w = self.multiplicity if name in WITH_MULTIPLICITY else 1.0
            if mp:
                f = summand(name, "mpmath")
                out[name] = mpmath.fsum(mpmath.mpf(float(wk)) * f(mpmath.mpf(float(lk)),
                                                                  mpmath.mpf(float(tk)), nu)
                                        for wk, lk, tk in zip(np.broadcast_to(
                                            w, self.eigenvalues.shape),
                                                              self.eigenvalues, self.target2))
            else:
                nu_ = np.asarray(nu, dtype=float)
                out[name] = (w * summand(name)(self.eigenvalues, self.target2,
                                               nu_[..., None])).sum(-1)
            out[name] = out[name] + flat[name]
        return out, {name: 0 * nu for name in SUMMANDS}
