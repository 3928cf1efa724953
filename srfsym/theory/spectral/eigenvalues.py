r"""The eigenvalue-array back end: a given spectrum of ``Omega = W Pi W^T`` and, optionally,
the projections of the spike and teacher directions on its eigenvectors.

Input (all of length p, one entry per eigenvector ``u_i`` of ``Omega``, ``||u_i|| = 1``):

* ``eigenvalues``: ``D_i >= 0``, the eigenvalues of ``Omega = W Pi W^T`` (``W`` the p x d
  first layer with rows of norm ``sqrt(c)``, ``Pi = I - vhat vhat^T``);
* ``spike`` (optional): ``F_i = <u_i, W v>^2`` with the spike direction ``v`` scaled to
  ``||v|| = sqrt(d)``;
* ``teacher`` (optional): ``H_i = <u_i, W zeta>^2`` with ``zeta`` the teacher's direction
  orthogonal to ``v``, scaled to ``||zeta|| = sqrt(d)``.

Every sum is a plain mean over i: ``<g/S> = (1/p) sum_i g_i / S_i``, ``S_i = lambda' +
Vhat_1 D_i`` (the normalisation of :class:`~srfsym.theory.spectral.sample.SampledSpectrum`,
whose ``omega_spectrum()`` returns exactly these three arrays).  Without ``spike`` and
``teacher`` the deterministic-equivalent weights are used: ``F_i = mean(D)`` (``= c`` for
the MP law, docs/theory.md (g)) and ``H_i = D_i``.

>>> from srfsym.theory.spectral.sample import SampledSpectrum
>>> s = SampledSpectrum(80, beta=1.5, c=1.2, seed=3)
>>> e = EigenvalueSpectrum(*s.omega_spectrum())
>>> abs(e.moments(0.4, 1.3).DF2 / s.moments(0.4, 1.3).DF2 - 1) < 1e-10
True
"""
from __future__ import annotations

import math

import mpmath
import numpy as np

from ..interfaces import SpectralSide
from .moments import SpectralMoments
from ...core.precision import workdps

__all__ = ["EigenvalueSpectrum"]


def _array(name, values, size=None):
    a = np.asarray(values, dtype=float).ravel()
    if a.size == 0 or not np.all(np.isfinite(a)):
        raise ValueError(f"{name} must be a non-empty list of finite numbers")
    if size is not None and a.size != size:
        raise ValueError(f"{name} must have one entry per eigenvalue ({size}), got {a.size}")
    return a


class EigenvalueSpectrum(SpectralSide):
    """A given list of eigenvalues ``D_i`` of ``Omega`` (the finite-d variant), with optional
    spike projections ``F_i`` and teacher projections ``H_i`` (see the module text).

    >>> tuple(float(x) for x in EigenvalueSpectrum([1.0, 3.0]).stieltjes_pair(1.0, 1.0))
    (0.375, 0.625)
    """

    def __init__(self, eigenvalues, spike=None, teacher=None):
        D = _array("eigenvalues", eigenvalues)
        if np.any(D < -1e-12 * max(1.0, D.max())):
            raise ValueError("eigenvalues must be a non-empty list of finite numbers >= 0")
        self.D = np.maximum(D, 0.0)
        self.has_projections = spike is not None or teacher is not None
        self.F = (np.full(D.size, float(np.mean(self.D))) if spike is None
                  else _array("spike projections", spike, D.size))
        self.H = self.D.copy() if teacher is None else _array("teacher projections", teacher,
                                                                 D.size)
        if np.any(self.F < 0) or np.any(self.H < 0):
            raise ValueError("projections are squares (<u_i, W v>^2, <u_i, W zeta>^2): >= 0")

    def __repr__(self):
        extra = ", with projections" if self.has_projections else ""
        return f"EigenvalueSpectrum({self.D.size} eigenvalues{extra})"

    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(E 1/S, E D/S)`` at complex arguments (plain means; ``previous`` unused: the
        sums are single-valued)."""
        if dps is None:
            S = lam_prime + v1hat * self.D
            return np.mean(1 / S), np.mean(self.D / S)
        with workdps(dps):
            S = [lam_prime + v1hat * mpmath.mpf(float(x)) for x in self.D]
            return (mpmath.fsum(1 / s for s in S) / len(S),
                    mpmath.fsum(mpmath.mpf(float(x)) / s for x, s in zip(self.D, S)) / len(S))

    def _check(self, lam_prime, v1hat):
        if not (0.0 < lam_prime < math.inf):
            raise ValueError(f"lam_prime must be > 0 and finite for a finite spectrum, got "
                             f"{lam_prime!r}")
        if not (0.0 <= v1hat < math.inf):
            raise ValueError(f"v1hat must be >= 0 and finite, got {v1hat!r}")

    def moments(self, lam_prime, v1hat) -> SpectralMoments:
        """The eleven sums by their definition, ``O(p)``.

        >>> m = EigenvalueSpectrum([1.0, 3.0]).moments(1.0, 0.0)
        >>> m.inv, m.rho, m.H
        (1.0, 2.0, 2.0)
        """
        lam_prime, v1hat = float(lam_prime), float(v1hat)
        self._check(lam_prime, v1hat)
        D, F, H = self.D, self.F, self.H
        inv = 1 / (lam_prime + v1hat * D)
        inv2 = inv * inv
        return SpectralMoments(*(float(np.mean(g)) for g in (
            inv, D * inv, F * inv, H * inv, inv2, D * inv2, D * D * inv2, F * inv2,
            D * F * inv2, H * inv2, D * H * inv2)))

    def moments_array(self, lam_prime, v1hat) -> SpectralMoments:
        """The eleven sums at arrays of arguments (NaN outside the domain)."""
        lam_prime, v1hat = np.broadcast_arrays(np.asarray(lam_prime, dtype=float),
                                               np.asarray(v1hat, dtype=float))
        with np.errstate(invalid="ignore"):
            ok = (lam_prime > 0) & (lam_prime < math.inf) & (v1hat >= 0) & (v1hat < math.inf)
        out = np.full((11,) + lam_prime.shape, np.nan)
        if ok.any():
            lp, v = lam_prime[ok], v1hat[ok]
            inv = 1.0 / (lp[None, :] + v[None, :] * self.D[:, None])
            inv2 = inv * inv
            D, F, H = self.D[:, None], self.F[:, None], self.H[:, None]
            for i, g in enumerate((inv, D * inv, F * inv, H * inv, inv2, D * inv2, D * D * inv2,
                                   F * inv2, D * F * inv2, H * inv2, D * H * inv2)):
                out[i][ok] = np.mean(g, axis=0)
        return SpectralMoments._make(out)

    def moments_mpmath(self, lam_prime, v1hat, dps: int = 30) -> SpectralMoments:
        """The same sums in mpmath on the (double-precision) arrays."""
        with workdps(dps):
            lam, v = mpmath.mpf(lam_prime), mpmath.mpf(v1hat)
            self._check(float(lam), float(v))
            n = len(self.D)
            cols = [[mpmath.mpf(float(x)) for x in a] for a in (self.D, self.F, self.H)]
            acc = [[] for _ in range(11)]
            for d, f, h in zip(*cols):
                i1 = 1 / (lam + v * d)
                i2 = i1 * i1
                for k, g in enumerate((i1, d * i1, f * i1, h * i1, i2, d * i2, d * d * i2,
                                       f * i2, d * f * i2, h * i2, d * h * i2)):
                    acc[k].append(g)
            return SpectralMoments._make(mpmath.fsum(a) / n for a in acc)
