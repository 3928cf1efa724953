r"""The kernel spectrum of random features ``sigma(<w, x>)`` on the sphere (docs/theory.md (o.4)).

``w`` uniform on the unit sphere ``S^(d-1)``, ``x`` uniform on the sphere of radius ``sqrt(d)``.
With ``t = <w, x>/sqrt(d)`` (density ``~ (1 - t^2)^((d-3)/2)`` on ``[-1, 1]``) and the Gegenbauer
(Legendre) polynomials of dimension ``d``, normalised ``P_k(1) = 1``
(``P_(k+1) = ((2k + d - 2) t P_k - k P_(k-1))/(k + d - 2)``, ``E_t P_k^2 = 1/N_k``),
the Funk--Hecke formula gives the exact finite-``d`` Mercer decomposition

    K(x, x') = E_w sigma(<w, x>) sigma(<w, x'>) = sum_k xi_k^2 N_k P_k(<x, x'>/d),
    xi_k = E_t[sigma(sqrt(d) t) P_k(t)],

so the degree-``k`` spherical harmonics (``N_k = (2k + d - 2)/k binom(k + d - 3, k - 1)`` of them)
share the eigenvalue ``Lam_k = xi_k^2``, and ``sum_k N_k Lam_k = E_t sigma(sqrt(d) t)^2`` (the
trace; source: the Funk--Hecke formula, e.g. Ghorbani, Mei, Misiakiewicz, Montanari, *Ann. Statist.*
2021, Sec. 2 and App. A; Atkinson--Han, *Spherical Harmonics*, Ch. 2).  As ``d -> oo``,
``N_k xi_k^2 -> mu_k^2/k!`` with ``mu_k = E[sigma(z) He_k(z)]``: the leading-order spectrum
``Lam_k ~ mu_k^2/(k! N_k) ~ mu_k^2/d^k`` (:func:`hermite_block_weights`, srfsym's Hermite engine).

A target ``sigma_star(<theta, x>)`` (``|theta| = 1``) has energy ``N_k xi_k(sigma_star)^2`` in
degree ``k``.

>>> c = sphere_coefficients("tanh", d=30, kmax=5)
>>> bool(abs(c.block_weights.sum() - c.second_moment) < 2e-3)     # most energy in k <= 5
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ...symbolic.activations import activation
from ...symbolic.hermite import hermite_constants
from .spectra import EigenSpectrum

__all__ = ["harmonic_dimension", "gegenbauer", "sphere_coefficients", "SphereCoefficients",
           "hermite_block_weights", "sphere_spectrum"]

#: Gauss-Legendre nodes per smooth piece of the t-integral
_NODES = 400


def harmonic_dimension(d: int, k: int) -> int:
    """``N_k``: the number of degree-``k`` spherical harmonics in dimension ``d``.

    >>> [harmonic_dimension(3, k) for k in range(4)]      # 2k + 1 on S^2
    [1, 3, 5, 7]
    """
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 3:
        raise ValueError(f"dimension d must be an integer >= 3, got {d!r}")
    if k == 0:
        return 1
    return (2 * k + d - 2) * math.comb(k + d - 3, k - 1) // k


def gegenbauer(t, d: int, kmax: int) -> np.ndarray:
    """``P_0..P_kmax`` at ``t`` (rows), normalised ``P_k(1) = 1``.

    >>> gegenbauer(np.array([0.5]), 3, 2)[:, 0].tolist()     # Legendre: 1, t, (3t^2 - 1)/2
    [1.0, 0.5, -0.125]
    """
    t = np.asarray(t, dtype=float)
    out = np.empty((kmax + 1,) + t.shape)
    out[0] = 1.0
    if kmax >= 1:
        out[1] = t
    for k in range(1, kmax):
        out[k + 1] = ((2 * k + d - 2) * t * out[k] - k * out[k - 1]) / (k + d - 2)
    return out


@dataclass(frozen=True)
class SphereCoefficients:
    """``xi_k`` (``k = 0..kmax``), multiplicities ``N_k``, the trace ``E sigma(sqrt(d) t)^2``
    and the quadrature used."""
    d: int
    xi: np.ndarray
    multiplicity: np.ndarray
    second_moment: float
    how: str

    @property
    def block_weights(self) -> np.ndarray:
        """``N_k xi_k^2``: the energy of sigma in degree ``k`` (sums to ``second_moment``)."""
        return self.multiplicity * self.xi**2


def _t_rule(d, kinks):
    """Gauss-Legendre nodes and weights of the law of t on its effective support, split at
    the activation's kinks (``t = kink/sqrt(d)``)."""
    half = min(1.0, 16.0 / math.sqrt(d))
    kinks = [float(k) for k in kinks]
    cuts = sorted({-half, half, *[k / math.sqrt(d) for k in kinks if abs(k) < half * math.sqrt(d)]})
    x, w = np.polynomial.legendre.leggauss(_NODES)
    ts, ws = [], []
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        ts.append(0.5 * (hi - lo) * x + 0.5 * (hi + lo))
        ws.append(0.5 * (hi - lo) * w)
    t, w = np.concatenate(ts), np.concatenate(ws)
    w = w * np.exp(0.5 * (d - 3) * np.log1p(-t**2))
    return t, w / w.sum()


def sphere_coefficients(sigma, d: int, kmax: int) -> SphereCoefficients:
    """``xi_k = E_t[sigma(sqrt(d) t) P_k(t)]`` for ``k <= kmax`` by Gauss--Legendre quadrature of
    the law of ``t`` (split at the kinks; two rules, the difference is checked).

    >>> c = sphere_coefficients("x**2", d=10, kmax=3)  # x^2 = d t^2: degrees 0, 2; E = 3d/(d+2)
    >>> np.round(c.block_weights, 10).tolist()[:2], round(c.second_moment, 10)
    ([1.0, 0.0], 2.5)
    """
    act = activation(sigma)
    if isinstance(kmax, bool) or not isinstance(kmax, (int, np.integer)) or not 0 <= kmax <= 60:
        raise ValueError(f"kmax must be an integer from 0 to 60, got {kmax!r}")
    n_k = np.array([float(harmonic_dimension(d, k)) for k in range(kmax + 1)])
    t, w = _t_rule(d, act.kinks)
    with np.errstate(over="raise", invalid="raise"):
        s = np.asarray(act.numpy(math.sqrt(d) * t), dtype=float) * np.ones_like(t)
    if not np.all(np.isfinite(s)):
        raise ValueError(f"{act.name} is not finite on the sphere of radius sqrt({d})")
    xi = gegenbauer(t, d, kmax) @ (w * s)
    second = float(w @ s**2)
    return SphereCoefficients(int(d), xi, n_k, second,
                              f"Gauss-Legendre, {_NODES} nodes per piece, split at the kinks")


def hermite_block_weights(sigma, kmax: int) -> np.ndarray:
    """``mu_k^2/k!`` for ``k <= kmax`` from srfsym's Hermite engine: the ``d -> oo`` limit of the
    block weights ``N_k xi_k^2``.

    >>> hermite_block_weights("He2", 3).tolist()     # He2 = x^2 - 1: mu_2 = 2, 2^2/2! = 2
    [0.0, 0.0, 2.0, 0.0]
    """
    hc = hermite_constants(activation(sigma))
    return np.array([float(hc.mu_k(k)) ** 2 / math.factorial(k) for k in range(kmax + 1)])


def sphere_spectrum(student, teacher, d: int, kmax: int = 6) -> EigenSpectrum:
    """The :class:`EigenSpectrum` of ``student`` random features on the sphere with the target
    ``teacher(<theta, x>)``: degrees ``k <= kmax`` exactly (eigenvalue ``xi_k^2``, multiplicity
    ``N_k``), the rest as the flat remainder (valid while ``n, p << N_(kmax+1)``).

    >>> s = sphere_spectrum("tanh", "x", d=20, kmax=4)
    >>> bool(s.target2[1] > 0.999)                       # the linear target lives in degree 1
    True
    """
    st = sphere_coefficients(student, d, kmax)
    te = sphere_coefficients(teacher, d, kmax)
    keep = st.xi**2 > 1e-300
    flat_trace = max(st.second_moment - st.block_weights.sum(), 0.0)
    flat_target = max(te.second_moment - te.block_weights.sum(), 0.0)
    return EigenSpectrum(st.xi[keep]**2, te.block_weights[keep], st.multiplicity[keep],
                         flat_trace=flat_trace if flat_trace > 1e-14 * st.second_moment else 0.0,
                         flat_target=flat_target + te.block_weights[~keep].sum())
