r"""The bulk density of the feature spectrum, ``Im s(x + i eps) / pi``, and its right edge.

Every value comes from :meth:`~srfsym.theory.feature.solve.StieltjesSolver.stieltjes_value`,
which keeps ``s`` on the physical branch (continuation from far above the real axis, sign
checks ``Im s >= 0``, ``Im z s >= 0``): a density is never negative.

Smoothing: the density is that of the spectrum convolved with a Lorentzian of half-width
``eps`` (absolute, default 1e-4).  Near the hard edge at 0 (``p >= n`` or a mass of small
eigenvalues) this convolution moves part of the mass below ``x = 0``; where the kappa rule
cannot reach ``tol`` at ``eps`` (poles of the weights next to the real kappa axis as
``x -> 0``), the point is evaluated with the smallest of ``2 eps, 4 eps, ..., 64 eps`` that
converges and a ``RuntimeWarning`` names those points and the smoothing used.
"""
from __future__ import annotations

import math
import warnings
from functools import cached_property

import numpy as np

from ..state import ConvergenceError

__all__ = ["DensityMixin"]


class DensityMixin:
    """Density and right edge of :class:`~srfsym.theory.feature.spectrum.FeatureSpectrum`."""

    def density(self, x, eps=1e-4, tol=1e-6):
        """Density of the bulk, ``Im s(x + i eps) / pi``, on the points ``x`` (solved from
        the right with warm starts, each checked to lie on the physical branch; ``tol``:
        relative accuracy of each value).  Never negative.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", r=0.0, c=1.0)
        >>> rho = fs.density(np.array([0.5, 1.0, 2.0, 3.0]))
        >>> [round(float(v), 3) for v in rho]            # the bulk ends at 2.558
        [0.386, 0.191, 0.064, 0.0]
        """
        x = np.asarray(x, dtype=float)
        if not (isinstance(eps, (int, float)) and math.isfinite(eps) and eps > 0):
            raise ValueError(f"eps must be a positive number, got {eps!r}")
        order = np.argsort(-x.ravel())
        out = np.empty(x.size)
        smoothed = []
        self._warm = None
        for i in order:
            xi = float(x.ravel()[i])
            e = eps
            while True:
                try:
                    v = self.stieltjes_value(complex(xi, e), tol=tol).s
                    break
                except ConvergenceError:
                    self._warm = None
                    if e >= 64 * eps:
                        raise
                    e *= 2
            if e != eps:
                smoothed.append((xi, e))
            out[i] = max(v.imag, 0.0) / math.pi
        self._warm = None
        if smoothed:
            where = ", ".join(f"x = {a:.4g} (eps = {b:.2g})" for a, b in smoothed[:5])
            warnings.warn(f"density: the kappa rule did not reach {tol:g} at eps = {eps:g} near "
                          f"the hard edge; {len(smoothed)} point(s) smoothed more: {where}",
                          RuntimeWarning, stacklevel=2)
        return out.reshape(x.shape)

    @cached_property
    def right_edge(self) -> float:
        """Right edge of the bulk support: the largest x where the density at ``eps = 1e-7``
        exceeds ``1e-6`` of the bulk's typical density, located by bisection (about 4
        digits); where a value does not converge, ``eps`` grows by 4 up to 64 times (as in
        :meth:`density`)."""
        m = self.bulk_mean
        scale = 1.0 / m

        def inside(x):
            self._warm = None
            eps = 1e-7 * m
            while True:     # as the density: where the solve fails, a little more smoothing
                try:
                    v = self.stieltjes_value(complex(x, eps), warm_start=False, tol=1e-6)
                    return v.s.imag / math.pi > 1e-6 * scale
                except ConvergenceError:
                    self._warm = None
                    if eps >= 64e-7 * m:
                        raise
                    eps *= 4
        hi = m * (1 + self.nu) * (1 + math.sqrt(self.beta)) ** 2 * 2
        while inside(hi):
            hi *= 2
            if hi > 1e6 * m:
                raise ConvergenceError("no right edge found below 1e6 times the bulk mean "
                                       "(unbounded support?)", residual=hi, iterate=None)
        lo = m * 1e-3
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if inside(mid):
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-5 * hi:
                break
        self._warm = None
        return 0.5 * (lo + hi)
