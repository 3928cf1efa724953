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

__all__ = ["DensityMixin", "pieces_agree"]


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

    def _inside(self, x):
        """Whether the density at ``x`` (``eps = 1e-7`` times the bulk mean) exceeds ``1e-6`` of
        the bulk's typical density and is a density, not the Lorentzian tail of a piece
        nearby: a tail shrinks with ``eps`` (at ``eps / 16`` to less than a quarter), a density
        does not (a piece far below the bulk mean, within about ``0.1`` mean of ``x``, has
        such a tail above the threshold).  Where a value does not converge, ``eps`` grows by
        4 up to 64 times (as in :meth:`density`); ``None`` if it never converges (the check
        at ``eps / 16`` is skipped if it does not).  Checks the time budget
        (``--time-limit``)."""
        from ...core.budget import check
        check("the right edge of the feature spectrum")
        m = self.bulk_mean
        self._warm = None
        eps = 1e-7 * m
        while True:
            try:
                v = self.stieltjes_value(complex(x, eps), warm_start=False, tol=1e-6)
                break
            except ConvergenceError:
                self._warm = None
                if eps >= 64e-7 * m:
                    return None
                eps *= 4
        value = v.s.imag / math.pi
        if value <= 1e-6 / m:
            return False
        try:
            finer = self.stieltjes_value(complex(x, eps / 16), warm_start=False, tol=1e-6)
        except ConvergenceError:
            self._warm = None
            return True
        return finer.s.imag / math.pi > value / 4

    def _edge(self, lo, hi, lo_inside):
        """Bisection of the support's boundary in ``[lo, hi]`` to ``1e-4`` relative."""
        for _ in range(60):
            if hi - lo < 1e-4 * hi:
                break
            mid = 0.5 * (lo + hi)
            if bool(self._inside(mid)) == lo_inside:
                lo = mid
            else:
                hi = mid
        return 0.5 * (lo + hi)

    @cached_property
    def support_pieces(self) -> list:
        """The pieces ``[(a, b), ...]`` of the bulk's support (density at ``eps = 1e-7`` above
        ``1e-6`` of the bulk's typical density, and not a tail that shrinks with ``eps``: see
        :meth:`_inside`), ascending.  Found on a geometric grid of
        ratio 1.6 from ``1e-3`` times the bulk mean up to where the second moment leaves at
        most ``1e-4`` of the mass above (``m1 sqrt(1 + nv) 100``; ``1000 m1`` with K > 1 letters,
        which have no variance formula); each boundary bisected to
        ``1e-4`` relative.  Gaps narrower than 60 % of their position can be missed; a piece
        reaching down to the grid's start is reported from 0.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", r=0.0, c=1.0, spectrum=np.r_[np.full(50, 1.0),
        ...                        np.full(50, 40.0)], p_over_n=0.05)
        >>> [(round(a, 2), round(b, 2)) for a, b in fs.support_pieces]   # two clusters, a gap
        [(0.27, 0.52), (10.43, 19.73)]
        """
        m = self.bulk_mean
        try:
            spread = math.sqrt(1.0 + max(self.bulk_normalised_variance, 0.0))
        except ValueError:          # K > 1 letters: no variance formula; a wide bound
            spread = 10.0
        top = m * spread * 100.0
        grid = m * 1e-3 * 1.6 ** np.arange(int(math.log(top / (m * 1e-3)) / math.log(1.6)) + 2)
        flags, last = [], False
        for x in grid:
            f = self._inside(float(x))
            last = last if f is None else f          # an unconverged point: as its neighbour
            flags.append(last)
        if not any(flags):
            raise ConvergenceError("no bulk support found on the grid up to "
                                   f"{grid[-1]:.3g} (the density solve failed everywhere?)",
                                   residual=float("nan"), iterate=None)
        pieces, left = [], (0.0 if flags[0] else None)
        for i in range(1, len(grid)):
            if flags[i] and not flags[i - 1]:
                left = self._edge(float(grid[i - 1]), float(grid[i]), False)
            elif flags[i - 1] and not flags[i]:
                pieces.append((left, self._edge(float(grid[i - 1]), float(grid[i]), True)))
        if flags[-1]:
            raise ConvergenceError(f"the bulk support reaches beyond {grid[-1]:.3g}, where its "
                                   "second moment leaves no mass: the density solve is off",
                                   residual=float(grid[-1]), iterate=None)
        self._warm = None
        return pieces

    def piece_moments(self, order=2, nodes=24):
        """``[(mass, m1, ..., m_order), ...]``: the mass and the raw moments ``int x^k rho`` of
        every piece of :attr:`support_pieces` (an atom at 0 counts in the first piece), with the
        largest change from ``nodes`` to ``2 nodes`` (the error estimate).

        Each piece's integrals are ``(1/pi) Im int x^k s(x + i0) dx`` over the piece; ``s`` is
        analytic in the upper half-plane and real on the gaps, so the path is moved onto the
        half-ellipse over the piece from the middle of the gap on its left (a point left of 0
        for a piece that starts there) to the middle of the gap on its right (half a piece
        width beyond the last one): Gauss--Legendre in the angle, far from the real axis but
        near the ends, where ``s`` is analytic across the gap.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", r=0.0, c=1.0)
        >>> (mass, m1), err = fs.piece_moments(order=1)
        >>> (round(float(mass[0]), 8), round(float(m1[0] / fs.bulk_mean), 8)), err < 1e-8
        ((1.0, 1.0), True)
        """
        pieces = self.support_pieces
        ends = []
        for i, (a, b) in enumerate(pieces):
            left = -0.25 * (b - a) if i == 0 and a == 0.0 else (
                0.5 * (pieces[i - 1][1] + a) if i else 0.5 * a)
            right = 0.5 * (b + pieces[i + 1][0]) if i + 1 < len(pieces) else b + 0.5 * (b - a)
            ends.append((left, right))
        out, err = [], 0.0
        for left, right in ends:
            coarse = self._half_ellipse_moments(left, right, order, nodes)
            fine = self._half_ellipse_moments(left, right, order, 2 * nodes)
            scale = np.maximum(np.abs(fine), 1e-300)
            err = max(err, float(np.max(np.abs(fine - coarse) / np.maximum(scale, scale[0]))))
            out.append(fine)
        self._warm = None
        return tuple(np.array([row[k] for row in out]) for k in range(order + 1)), err

    def _half_ellipse_moments(self, left, right, order, nodes):
        """``(1/pi) Im int_left^right x^k s(x + i0) dx``, k = 0..order, on the half-ellipse
        over ``[left, right]`` (height its half-width), Gauss--Legendre in the angle."""
        t, w = np.polynomial.legendre.leggauss(nodes)
        theta = 0.5 * np.pi * (t + 1.0)                 # from the right end (0) to the left (pi)
        centre, half = 0.5 * (left + right), 0.5 * (right - left)
        z = centre + half * np.cos(theta) + 1j * half * np.sin(theta)
        dz = (-half * np.sin(theta) + 1j * half * np.cos(theta)) * 0.5 * np.pi * w
        self._warm = None
        s = np.array([self.stieltjes_value(complex(x), warm_start=False).s for x in z])
        # the path runs right to left: int_left^right = -sum
        return np.array([-(np.sum(z**k * s * dz)).imag / math.pi for k in range(order + 1)])

    @cached_property
    def right_edge(self) -> float:
        """Right edge of the bulk support: the right end of the last of :attr:`support_pieces`
        (a support with gaps has several pieces; this is where the last one ends)."""
        return self.support_pieces[-1][1]


def pieces_agree(a, b, rel: float = 0.02) -> bool:
    """Whether two lists of support pieces are the same: as many pieces, every boundary within
    ``rel`` of the larger end of its piece.

    >>> pieces_agree([(0, 1.0), (5.0, 9.0)], [(0, 1.005), (5.05, 9.0)])
    True
    >>> pieces_agree([(0, 1.575), (5.44, 9.57)], [(0, 1.001), (3.16, 5.94)])   # 64 vs 128 nodes
    False
    """
    if len(a) != len(b):
        return False
    return all(abs(x - y) <= rel * max(abs(hi_a), abs(hi_b))
               for (lo_a, hi_a), (lo_b, hi_b) in zip(a, b)
               for x, y in ((lo_a, lo_b), (hi_a, hi_b)))
