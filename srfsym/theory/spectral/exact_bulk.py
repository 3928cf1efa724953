r"""The deterministic (``d -> infinity``) law of the trained first layer's bulk at finite
``alpha0`` and ``eta`` (docs/theory.md (g.5)), as a spectral back end.

The giant step of docs/theory.md (a), with ``sigma'`` expanded in Hermite polynomials of the
preactivation, is ``W1 = r 1 vhat^T + W`` where, conditionally on the step batch ``X`` (with
residuals ``e_i = y_i - mu0``), the rows of the bulk ``W`` are i.i.d. with covariance

    d Sigma = (I + a S1)^2 + b S2,   S_k = (1/n0) X^T diag(e^k) X,
    a = eta mu_2,   b = eta^2 (checkmu1^2 - mu_2^2) / alpha0 .

So ``W W^T`` is a sample covariance of ``d`` directions with population law ``ell`` (the
eigenvalue law of ``d Sigma``, a function of two weighted Wishart matrices of ratio
``1/alpha0``).  Its Stieltjes transform ``s(z) = E 1/(D - z)`` solves

    s = 1 / (-z + E_ell[ell / (1 + beta ell s)]),

and the law of ``ell`` follows from a 2 x 2 matrix fixed point (a linearisation of
``d Sigma``):

    G(w) = (L0(w) + E_e[C(e) (I + G C(e)/alpha0)^{-1}])^{-1},
    L0 = [[-w, 1], [1, -1]],  C(e) = [[b e^2, a e], [a e, 0]],  G_11(w) = E 1/(ell - w).

``c MP_beta`` (docs/theory.md (g), item 1) is the case of a constant ``ell = c``.

Examples
--------
>>> bulk = ExactBulk("tanh", "sin", alpha0=2.0, eta=3.0, beta=1.0)
>>> m1, m2 = bulk.bulk_moments()
>>> round(m1, 6), round(bulk.normalised_variance(), 4)
(1.189732, 1.0209)
"""
from __future__ import annotations

import math

import numpy as np

from ...core.budget import check as _budget_check

from ...symbolic.activations import activation
from ..interfaces import SpectralSide
from ..state import ConvergenceError
from .moments import allowed_points
from ..spectrum import SpectralMoments
from .exact_bulk_batch import batch_forms
from .exact_bulk_directions import pencil_direction_forms
from .exact_bulk_resolvent import population_resolvent as _population_resolvent
from .exact_bulk_moments import (A_STEP, ALPHA0_S, B_STEP, BETA_S, RES_MOMENTS,  # noqa: F401
                                 _moment_functions, bulk_moment_expressions, free_moment,
                                 noncrossing_partitions, residual_law, step_bulk_parameters)

__all__ = ["ExactBulk", "exact_bulk_spectrum", "step_bulk_parameters", "bulk_moment_expressions", "free_moment",
           "noncrossing_partitions", "A_STEP", "B_STEP", "ALPHA0_S", "BETA_S", "RES_MOMENTS"]

class ExactBulk(SpectralSide):
    r"""Exact limiting law of the trained first layer's bulk (docs/theory.md (g.5)).

    Parameters
    ----------
    student, teacher : str or Activation
    alpha0, eta : float
        Step batch ratio ``n0/d > 0`` and learning rate (docs/theory.md (a)).
    beta : float
        ``p/d``.
    residuals : array_like, optional
        The realised residuals ``y_i - f(x_i; a0, W0)`` of one step batch: the law given that
        batch (finite-``d`` comparisons); by default the Gauss--Hermite law of
        ``sigma_star(xi) - mu0`` with ``n_nodes`` nodes (the deterministic limit).
    projections : array_like, optional
        With ``residuals``: the realised teacher coordinates ``<theta_star, x_i>`` (needed for
        the exact ``F``, ``H`` sums of a given batch).

    Notes
    -----
    ``moments`` (the eleven sums of docs/theory.md (f)) uses the exact law of ``D`` and the
    exact ``F`` and ``H`` sums of docs/theory.md (g.5) (:meth:`direction_sums`; odd students
    by a closed form, ``a != 0`` (relu, ...) through the pencil of
    :mod:`srfsym.theory.spectral.exact_bulk_directions`).  Only residuals given without projections
    keep the rules ``F -> c = E D``, ``H -> D`` of docs/theory.md (g), items 2-3, which are
    *not* exact for the step's bulk.

    Examples
    --------
    >>> bulk = ExactBulk("tanh", "sin", alpha0=0.5, eta=5.0, beta=2.0)
    >>> round(bulk.normalised_variance(), 3)          # c MP_beta gives beta = 2
    5.026
    >>> s = bulk.stieltjes(-1.0)[0]
    >>> bool(0 < s.real < 1 and abs(s.imag) < 1e-12)
    True
    """

    #: the accuracy an iteration built on :meth:`stieltjes_pair` can ask for (the feature
    #: spectrum's): ``s`` is solved to ~1e-13, and ``E D/S = (1 - lambda' E 1/S)/v1hat`` loses
    #: digits where ``-lambda'/v1hat`` lies far beyond the support
    iteration_tol = 1e-12

    def __init__(self, student, teacher, alpha0: float, eta: float, beta: float = 1.0,
                 residuals=None, n_nodes: int = 64, projections=None):
        if not (math.isfinite(beta) and beta > 0):
            raise ValueError(f"beta must be > 0 and finite, got {beta!r}")
        pars = step_bulk_parameters(student, teacher, float(alpha0), float(eta))
        self._law_args = (student, teacher, int(n_nodes)) if residuals is None else None
        self.a, self.b, self.offset = pars["a"], pars["b"], pars["offset"]
        self.alpha0, self.eta, self.beta = float(alpha0), float(eta), float(beta)
        if residuals is None:
            self.e, self.w, self.xi = residual_law(teacher, self.offset, n_nodes)
        else:
            e = np.asarray(residuals, dtype=float).ravel()
            if e.size == 0 or not np.all(np.isfinite(e)):
                raise ValueError("residuals must be a non-empty array of finite numbers")
            self.e, self.w = e, np.full(e.size, 1.0 / e.size)
            self.xi = None if projections is None else np.asarray(projections, float).ravel()
            if self.xi is not None and self.xi.shape != e.shape:
                raise ValueError("projections must have one entry per residual")
        self._C = (self.b * self.e**2, self.a * self.e)
        self._M = tuple(float(self.w @ self.e**k) for k in range(1, 5))
        self._last_directions = None          # (key, sums) of the last _direction_moments
        self._last_point = None               # (z, X) of the last one-point stieltjes call
        if not self.exact_directions:         # the prior then leaves the cross sums out
            self.cross_moments = self.cross_moments_array = None

    def __repr__(self):
        return (f"ExactBulk(a={self.a:.6g}, b={self.b:.6g}, alpha0={self.alpha0!r}, "
                f"beta={self.beta!r}, {self.e.size} residual nodes)")

    # ----------------------------------------------------------------------------------
    def bulk_moments(self) -> tuple:
        """``(m1, m2)``: the exact mean and second moment of ``D`` (closed forms of
        :func:`bulk_moment_expressions`; ``m1`` is the bulk variance ``c`` of (c)).

        >>> m1, m2 = ExactBulk("erf", "sin", 1.0, 0.0).bulk_moments()   # eta = 0: MP_1
        >>> round(m1, 12), round(m2, 12)
        (1.0, 2.0)
        """
        f = _moment_functions()
        args = (self.a, self.b, self.alpha0, self.beta) + self._M
        return f["m1"](*args), f["m2"](*args)

    def normalised_variance(self) -> float:
        """``m2/m1^2 - 1`` of ``D``; ``beta`` for ``c MP_beta``.

        >>> round(ExactBulk("tanh", "sin", 8.0, 0.5, beta=0.5).normalised_variance(), 4)
        0.5
        """
        m1, m2 = self.bulk_moments()
        return m2 / (m1 * m1) - 1.0

    def refined(self, factor: int = 2) -> "ExactBulk":
        """The same law with ``factor`` times the residual law's nodes (docs/theory.md (j.8): at
        a tiny batch the support's pieces depend on them).

        >>> b = ExactBulk("tanh", "sin", 0.5, 3.0)
        >>> f = b.refined()
        >>> f.e.size, abs(f.bulk_moments()[0] / b.bulk_moments()[0] - 1) < 1e-12
        (128, True)
        """
        if self._law_args is None:
            raise ValueError("a law of given residuals has no finer version")
        if not (isinstance(factor, (int, np.integer)) and factor >= 2):
            raise ValueError(f"factor must be an integer >= 2, got {factor!r}")
        student, teacher, n = self._law_args
        return ExactBulk(student, teacher, self.alpha0, self.eta, self.beta,
                         n_nodes=int(factor) * n)

    def effective_dimension(self, d: int) -> float:
        """``d (E l)^2 / E l^2 = beta d / (m2/m1^2 - 1)``: the effective dimension of the bulk
        rows at input dimension ``d`` (docs/theory.md (j.9)); two rows' bulk parts are
        correlated at rms ``d_eff**-0.5``, and the features of a network of that size are
        Gaussian-equivalent across rows when ``beta d / d_eff**2`` is small.

        >>> ExactBulk("tanh", "sin", 8.0, 0.0).effective_dimension(1000)   # eta = 0: isotropic
        1000.0
        >>> round(ExactBulk("tanh", "sin", 0.01, 3.0).effective_dimension(1000), 2)
        6.36
        """
        if not (isinstance(d, (int, np.integer)) and d >= 1):
            raise ValueError(f"d must be a positive integer, got {d!r}")
        return self.beta * int(d) / self.normalised_variance()

    # ----------------------------------------------------------------------------------
    def _damped(self, z, tol, maxit=20000):
        """Nested damped iteration (safe far from the support); returns ``(s, G)``."""
        s, G, bs = -1.0 / z, None, self.beta
        for _ in range(maxit):
            _budget_check("the exact bulk's fixed point")
            G, ok = _population_resolvent(-1.0 / (bs * s), self._C, self.w, self.alpha0, G,
                                          tol=tol)
            sn = 1.0 / (-z + (1.0 - G[0][:, 0] / (bs * s)) / (bs * s))
            err = np.max(np.abs(sn - s) / np.abs(sn))
            s = 0.5 * sn + 0.5 * s
            if err < tol and ok:
                return s, G
        raise ConvergenceError(f"the exact bulk's fixed point did not converge at z = {z!r} "
                               "(docs/theory.md (g.5)); try bulk='step' or 'isotropic'",
                               residual=float(err))

    def _residual(self, X, z):
        """Residual of the joint system in ``X = (s, g11, g12, g22)`` (holomorphic)."""
        s, g11, g12, g22 = X[:, 0], X[:, 1:2], X[:, 2:3], X[:, 3:4]
        w = -1.0 / (self.beta * s)
        G, _ = _population_resolvent(w, self._C, self.w, self.alpha0, (g11, g12, g22),
                                     maxit=1)
        # one undamped map: G_new = 0.7 G_map + 0.3 G  =>  G_map = (G_new - 0.3 G)/0.7
        gm = [(gn[:, 0] - 0.3 * g[:, 0]) / 0.7 for gn, g in zip(G, (g11, g12, g22))]
        sn = 1.0 / (-z + (1.0 - g11[:, 0] / (self.beta * s)) / (self.beta * s))
        return np.stack([sn - s, gm[0] - g11[:, 0], gm[1] - g12[:, 0], gm[2] - g22[:, 0]], 1)

    def _newton(self, X, z, tol, maxit=30):
        """Vectorised Newton (iterating only the points not yet converged); returns
        ``(X, converged per point)``."""
        X = X.copy()
        todo = np.ones(len(z), dtype=bool)
        with np.errstate(all="ignore"):
            for _ in range(maxit):
                _budget_check("the exact bulk's fixed point")
                Xa, za = X[todo], z[todo]
                R = self._residual(Xa, za)
                conv = np.max(np.abs(R) / (1.0 + np.abs(Xa)), axis=1) < tol
                idx = np.flatnonzero(todo)
                todo[idx[conv | ~np.all(np.isfinite(R), axis=1)]] = False
                keep = ~conv & np.all(np.isfinite(R), axis=1)
                if not keep.any():
                    break
                Xa, za, R, idx = Xa[keep], za[keep], R[keep], idx[keep]
                J = np.empty(Xa.shape + (4,), dtype=complex)
                for k in range(4):
                    h = 1e-7 * (1.0 + np.abs(Xa[:, k]))
                    Xh = Xa.copy()
                    Xh[:, k] += h
                    J[:, :, k] = (self._residual(Xh, za) - R) / h[:, None]
                X[idx] = Xa - np.linalg.solve(J, R[..., None])[..., 0]
            R = self._residual(X, z)
            ok = np.max(np.abs(R) / (1.0 + np.abs(X)), axis=1) < 1e3 * tol
        return X, ok & np.all(np.isfinite(X), axis=1)

    def stieltjes(self, z, tol: float = 1e-13) -> np.ndarray:
        r"""``s(z) = E 1/(D - z)`` at complex ``z`` off ``[0, inf)`` (array in, array out).

        Newton on the joint system ``(s, G)`` from ``Im z = 4 E D (1 + beta)`` (where
        ``s ~ -1/z``) down a geometric ladder of ``Im z`` to the requested one; ``Im s >= 0``
        and ``Im z s >= 0`` are checked at every rung, and a point that keeps leaving the
        branch is solved by the nested damped iteration instead.

        >>> b = ExactBulk("tanh", "sin", 2.0, 0.0, beta=1.0)        # MP_1
        >>> z = 1.0 + 0.5j
        >>> s = b.stieltjes(z)[0]
        >>> bool(abs(s - 1 / (-z + 1 / (1 + s))) < 1e-12)
        True
        """
        z = np.atleast_1d(np.asarray(z, dtype=complex)).ravel()
        if np.any((z.imag == 0) & (z.real >= 0)) or not np.all(np.isfinite(z)):
            raise ValueError("z must be finite and off the support [0, inf) of the law")
        if np.any(z.imag < 0):                      # s(conj z) = conj s(z)
            out = np.empty(z.shape, dtype=complex)
            neg = z.imag < 0
            out[neg] = np.conj(self.stieltjes(np.conj(z[neg]), tol))
            if np.any(~neg):
                out[~neg] = self.stieltjes(z[~neg], tol)
            return out
        if z.size == 1:
            near = self._near_last(z[0], tol)
            if near is not None:
                return near
        m1 = max(self.bulk_moments()[0], 1e-12)
        im0 = np.maximum(z.imag, 4.0 * m1 * (1.0 + self.beta))
        z0 = z.real + 1j * im0
        s0 = -1.0 / z0                               # large |z|: s ~ -1/z, G ~ (1/(1-w), 0, -1)
        X = np.stack([s0, 1.0 / (1.0 + 1.0 / (self.beta * s0)), 0 * s0, -1.0 + 0 * s0], 1)
        X, ok = self._newton(X, z0, tol)
        if not np.all(ok):
            s, G = self._damped(z0, 1e-12)
            X = np.stack([s, G[0][:, 0], G[1][:, 0], G[2][:, 0]], 1)
        im, ratio = im0.copy(), np.full(z.shape, 0.1)
        while np.any(im > z.imag):
            act = im > z.imag
            im_try = np.maximum(z.imag[act], im[act] * ratio[act])
            Xa, ok = self._newton(X[act], z.real[act] + 1j * im_try, tol)
            idx = np.flatnonzero(act)
            zs_ = (z.real[act] + 1j * im_try) * Xa[:, 0]
            good = (ok & (Xa[:, 0].imag > -1e-9 * np.abs(Xa[:, 0]))      # Im s >= 0 and
                    & (zs_.imag > -1e-9 * np.abs(zs_)))                 # Im z s >= 0 (law on [0, inf))
            X[idx[good]], im[idx[good]] = Xa[good], im_try[good]
            ratio[idx[~good]] = np.sqrt(ratio[idx[~good]])          # smaller steps there
            slow = ratio > 0.9
            if np.any(slow):                 # off the branch: the (slow, safe) damped iteration
                sd, Gd = self._damped(z[slow], 1e-13)
                X[slow] = np.stack([sd, Gd[0][:, 0], Gd[1][:, 0], Gd[2][:, 0]], 1)
                im[slow], ratio[slow] = z.imag[slow], 0.1
        if z.size == 1 and z[0].imag > 0:
            self._last_point = (complex(z[0]), X[0].copy())
        return X[:, 0]

    def forget_last_point(self):
        """Drop the warm start of one-point :meth:`stieltjes` calls (a caller starting an
        unrelated solve: each solve then depends only on its own points)."""
        self._last_point = None

    def _near_last(self, z, tol):
        """``s(z)`` by Newton from the last one-point solution when ``z`` lies within half its
        height of that point (the feature spectrum's iteration asks for nearby points, each of
        which would otherwise descend the whole ladder); the branch checks of :meth:`stieltjes`;
        ``None`` if it is not near or Newton does not settle there."""
        if self._last_point is None or not z.imag > 0:
            return None
        z_last, X_last = self._last_point
        if abs(z - z_last) > 0.5 * min(z.imag, z_last.imag):
            return None
        # to rounding (the outer iteration's tolerance sits near 1e-14: a start-dependent
        # error of tol would be noise to it); Newton's last step squares the error
        X, ok = self._newton(X_last[None, :], np.array([z]), min(tol, 1e-15), maxit=6)
        s, zs = X[0, 0], z * X[0, 0]
        if not (ok[0] and s.imag > -1e-9 * abs(s) and zs.imag > -1e-9 * abs(zs)):
            return None
        self._last_point = (z, X[0].copy())
        return X[:, 0]

    def density(self, x, eps: float = 1e-4) -> np.ndarray:
        """Density ``Im s(x + i eps)/pi`` of the continuous part (the atom ``(1 - 1/beta)_+``
        at 0 is not included).  With the default Gauss--Hermite residual law the density has
        wiggles of relative size ~1/``n_nodes`` where ``alpha0 < 1``; integrated quantities
        (Stieltjes values, CDF) converge much faster.

        >>> b = ExactBulk("tanh", "sin", 2.0, 0.0)
        >>> x = np.linspace(0.5, 3.0, 3)
        >>> np.round(b.density(x, 1e-6), 4)   # MP_1: sqrt(x(4-x))/(2 pi x)
        array([0.4211, 0.1805, 0.0919])
        """
        x = np.asarray(x, dtype=float)
        atom_part = self.atom() * eps / (x * x + eps * eps)     # Im of atom/(0 - z)
        return (self.stieltjes(x + 1j * eps).imag - atom_part) / math.pi

    def atom(self) -> float:
        """Mass of the atom at 0: ``(1 - 1/beta)_+``."""
        return max(0.0, 1.0 - 1.0 / self.beta)

    def cdf(self, x, eps: float = 1e-4, n: int = 4000) -> np.ndarray:
        """CDF of ``D`` at points ``x`` (the atom included): trapezoidal rule on
        :meth:`density` over ``n`` points of ``(0, max x]``, the first cell integrated as a
        ``1/sqrt(x)`` edge.

        >>> b = ExactBulk("tanh", "sin", 2.0, 0.0, beta=0.5)     # MP_0.5 on [0.086, 2.91]
        >>> [round(float(v), 3) for v in b.cdf([0.05, 3.0], eps=1e-6)]
        [0.0, 1.0]
        """
        x = np.asarray(x, dtype=float)
        top = max(float(x.max()), 1e-12)
        grid = np.unique(np.concatenate([np.linspace(0.0, top, n + 1)[1:], x[x > 0]]))
        dens = self.density(grid, eps)
        cum = np.concatenate([[2.0 * grid[0] * dens[0]],
                              np.diff(grid) * (dens[1:] + dens[:-1]) / 2.0])
        return self.atom() + np.interp(x, grid, np.cumsum(cum), left=0.0)

    @property
    def exact_directions(self) -> bool:
        """Whether :meth:`direction_sums` is available (teacher coordinates known, eta > 0)."""
        return self.xi is not None and (self.b > 0.0 or self.a != 0.0)

    def direction_forms(self, y):
        r"""``(q_vv, q_vz, q_zz)``: ``x^T (I + y d Sigma)^{-1} x'`` for ``x, x'`` in ``{vhat,
        zeta}`` in the limit (docs/theory.md (g.5)); ``y`` complex array.  Odd students
        (``a = 0``): ``d Sigma = I + b S2``, so these are the step batch's resolvent forms
        of :func:`~srfsym.theory.spectral.exact_bulk_batch.batch_forms` at
        ``tau = (1 + y)/(y b)``; ``a != 0`` by
        :func:`~srfsym.theory.spectral.exact_bulk_directions.pencil_direction_forms`.

        >>> b = ExactBulk("tanh", "sin", 0.5, 5.0, beta=2.0)
        >>> [round(float(q[0].real), 4) for q in b.direction_forms(np.array([1.0]))]
        [0.091, 0.0078, 0.4431]
        """
        if not self.exact_directions:
            raise ValueError("exact direction sums need eta > 0 and, with given residuals, "
                             "their projections")
        if self.a != 0.0:
            return pencil_direction_forms(self, y)
        y = np.atleast_1d(np.asarray(y, dtype=complex))
        # (I + y d Sigma)^-1 = (S2 + tau)^-1 / (y b),  tau = (1 + y)/(y b)
        f = batch_forms((1.0 + y) / (y * self.b), self.e, self.w, self.xi, self.alpha0)
        return f.qvv / (y * self.b), f.qvz / (y * self.b), f.qzz / (y * self.b)

    def direction_sums(self, z):
        r"""``(<F/(D - z)>, <H/(D - z)>)`` (docs/theory.md (g.5)):
        ``(1 - q_vv)/(beta q_vv)`` and ``(1 - q_zz + q_vz^2/q_vv)/beta`` at ``y = beta s(z)``.

        >>> b = ExactBulk("tanh", "sin", 2.0, 0.0001)          # ~ isotropic: F -> c s, H -> 1 + z s
        >>> F, H = b.direction_sums(np.array([-1.0]))
        >>> s = b.stieltjes(-1.0)[0]
        >>> bool(abs(F[0] / (b.bulk_moments()[0] * s) - 1) < 1e-5), bool(abs(H[0] / (1 - s) - 1) < 1e-5)
        (True, True)
        """
        return self.direction_triple(z)[:2]

    def direction_triple(self, z):
        r"""``(<F/(D - z)>, <H/(D - z)>, <X/(D - z)>)``: :meth:`direction_sums` and the cross sum
        ``<X/(D - z)> = -q_vz/(beta q_vv)`` of ``X_i = <u_i, W v><u_i, W zeta>`` (docs/theory.md
        (g.5), *cross sums*), at ``y = beta s(z)``.

        >>> b = ExactBulk("tanh", "sin", 2.0, 0.0001)          # ~ isotropic: no cross sum
        >>> bool(abs(b.direction_triple(np.array([-1.0]))[2][0]) < 1e-4)
        True
        """
        z = np.atleast_1d(np.asarray(z, dtype=complex))
        qvv, qvz, qzz = self.direction_forms(self.beta * self.stieltjes(z))
        return ((1.0 - qvv) / (self.beta * qvv), (1.0 - qzz + qvz**2 / qvv) / self.beta,
                -qvz / (self.beta * qvv))

    def moments(self, lam_prime: float, v1hat: float) -> SpectralMoments:
        """The eleven sums of docs/theory.md (f) with the exact law of ``D`` and, where
        :attr:`exact_directions`, the exact ``F`` and ``H`` sums (else the rules of (g); see
        the class notes): :meth:`moments_array` at one point.

        >>> m = ExactBulk("tanh", "sin", 2.0, 3.0).moments(0.3, 1.2)
        >>> bool(abs(0.3 * m.inv2 + 1.2 * m.rho2 - m.inv) < 1e-9)
        True
        """
        lp, v = float(lam_prime), float(v1hat)
        if not (0.0 < lp < math.inf and 0.0 <= v < math.inf):
            raise ValueError(f"need lam_prime > 0 and v1hat >= 0, got {lam_prime!r}, {v1hat!r}")
        return SpectralMoments._make(float(x[0]) for x in
                                     self.moments_array(np.array([lp]), np.array([v])))

    def moments_array(self, lam_prime, v1hat) -> SpectralMoments:
        """:meth:`moments` at arrays of ``(lambda', Vhat_1)`` (broadcast; NaN outside the allowed
        arguments): one vectorised :meth:`stieltjes` (and :meth:`direction_sums`) call on the
        three complex-step points of every entry, so a grid costs about one scalar call.

        The squared sums come from ``d/dz`` by a complex step (Richardson, ~1e-10).  At
        ``v1hat = 0`` the sums of ``D`` alone are closed forms; the direction sums are the
        quadratic (Richardson) extrapolation to 0 of their values at ``v1hat = (1, 2, 4) h``,
        ``h = 1e-3 lambda'/E D`` (``DF2 = (F - lambda' F2)/v1hat`` cancels as ``v1hat -> 0``:
        evaluated there directly it would have no correct digit; ``F``, ``F2``, ``H``, ``H2`` to
        ~1e-7, ``DF2``, ``DH2`` to ~1e-3 relative: the fixed point never sits at ``v1hat = 0``).

        >>> b = ExactBulk("tanh", "sin", 2.0, 3.0)
        >>> m = b.moments_array(np.array([0.3, 0.5, -1.0]), np.array([1.2, 0.0, 1.0]))
        >>> near = b.moments(0.5, 1e-4)                     # the v1hat -> 0 limit, continuous
        >>> bool(abs(m.DF2[1] / near.DF2 - 1) < 1e-2), bool(np.isnan(m.inv[2]))
        (True, True)
        """
        lam_prime, v1hat, ok, out = allowed_points(lam_prime, v1hat)
        if not ok.any():
            return SpectralMoments._make(out)
        lp, v = lam_prime[ok], v1hat[ok]
        m1, m2 = self.bulk_moments()
        zero = v == 0.0
        ve = np.where(zero, 1e-3 * lp / m1, v)
        s0, ds = self._value_and_slope(self.stieltjes, lp, ve)
        with np.errstate(divide="ignore", invalid="ignore"):
            inv = np.where(zero, 1 / lp, s0 / ve)
            inv2 = np.where(zero, 1 / lp**2, ds / ve**2)
            rho = np.where(zero, m1 / lp, (1.0 - lp * inv) / ve)
            rho2 = np.where(zero, m1 / lp**2, (inv - lp * inv2) / ve)
            rhosq2 = np.where(zero, m2 / lp**2, (rho - lp * rho2) / ve)
        if not self.exact_directions:
            vals = (inv, rho, m1 * inv, rho, inv2, rho2, rhosq2, m1 * inv2, m1 * rho2, rho2,
                    rhosq2)
        else:
            F, H, F2, DF2, H2, DH2 = self._directions_at(lp, ve, zero)[:6]
            vals = (inv, rho, F, H, inv2, rho2, rhosq2, F2, DF2, H2, DH2)
        for i, val in enumerate(vals):          # field order of SpectralMoments
            out[i][ok] = val
        return SpectralMoments._make(out)

    def cross_moments(self, lam_prime: float, v1hat: float) -> tuple:
        """The cross sums ``(<X/S>, <X/S^2>, <D X/S^2>)`` of the spike and teacher directions
        (docs/theory.md (g.5), *cross sums*); only where :attr:`exact_directions` (else the
        attribute is ``None``: the isotropic rules have no cross sum).

        >>> b = ExactBulk("relu", "sin", 2.0, 1.0)
        >>> x1, x2, dx2 = b.cross_moments(0.3, 1.2)
        >>> bool(abs(0.3 * x2 + 1.2 * dx2 - x1) < 1e-9)           # S = lambda' + v1hat D
        True
        """
        lp, v = float(lam_prime), float(v1hat)
        if not (0.0 < lp < math.inf and 0.0 <= v < math.inf):
            raise ValueError(f"need lam_prime > 0 and v1hat >= 0, got {lam_prime!r}, {v1hat!r}")
        return tuple(float(x[0]) for x in self.cross_moments_array(np.array([lp]), np.array([v])))

    def cross_moments_array(self, lam_prime, v1hat) -> tuple:
        """:meth:`cross_moments` at arrays of points (NaN outside the allowed arguments).

        >>> b = ExactBulk("relu", "sin", 2.0, 1.0)
        >>> x1, x2, dx2 = b.cross_moments_array(np.array([0.3, -1.0]), np.array([1.2, 1.0]))
        >>> bool(abs(x1[0] - b.cross_moments(0.3, 1.2)[0]) < 1e-12), bool(np.isnan(x1[1]))
        (True, True)
        """
        lam_prime, v1hat, ok, out = allowed_points(lam_prime, v1hat)
        out = out[:3]
        if ok.any():
            lp, v = lam_prime[ok], v1hat[ok]
            zero = v == 0.0
            ve = np.where(zero, 1e-3 * lp / self.bulk_moments()[0], v)
            for i, val in enumerate(self._directions_at(lp, ve, zero)[6:]):
                out[i][ok] = val
        return tuple(out)

    def _directions_at(self, lp, ve, zero):
        """The nine direction sums ``(F, H, F2, DF2, H2, DH2, X, X2, DX2)`` at ``S = lp + ve D``,
        Richardson-extrapolated to ``v1hat = 0`` where ``zero``; the last call is kept (the
        prior asks for the eleven sums and the cross sums at one point)."""
        key = (lp.tobytes(), ve.tobytes(), zero.tobytes())
        if self._last_directions is not None and self._last_directions[0] == key:
            return tuple(x.copy() for x in self._last_directions[1])
        sums = self._direction_moments(lp, ve)
        if zero.any():                      # Richardson extrapolation to v1hat = 0
            twice = self._direction_moments(lp[zero], 2.0 * ve[zero])
            four = self._direction_moments(lp[zero], 4.0 * ve[zero])
            for x, x2, x4 in zip(sums, twice, four):
                x[zero] = (8.0 * x[zero] - 6.0 * x2 + x4) / 3.0
        self._last_directions = (key, sums)
        return tuple(x.copy() for x in sums)

    @staticmethod
    def _value_and_slope(fun, lp, ve):
        """``f(x)`` and ``f'(x)`` at ``x = -lp/ve`` on the real axis: ``fun`` at ``x`` and two
        complex steps (Richardson)."""
        x = -lp / ve
        h = 1e-3 * np.abs(x)
        n = x.size
        f = fun(np.concatenate([x, x + 1j * h, x + 0.5j * h]))
        return f[:n].real, (4.0 * f[2 * n:].imag / (0.5 * h) - f[n:2 * n].imag / h) / 3.0

    def _direction_moments(self, lp, ve):
        """``(F, H, F2, DF2, H2, DH2, X, X2, DX2)`` sums at ``S = lp + ve D`` (``ve > 0``)."""
        triple = {}

        def fun(z):
            triple["F"], triple["H"], triple["X"] = self.direction_triple(z)
            return triple["F"]
        F0, dF = self._value_and_slope(fun, lp, ve)
        n = lp.size
        h = 1e-3 * np.abs(lp / ve)
        out = [F0 / ve, None, dF / ve**2]
        for name in ("H", "X"):
            vz = triple[name]
            slope = (4.0 * vz[2 * n:].imag / (0.5 * h) - vz[n:2 * n].imag / h) / 3.0
            out += [vz[:n].real / ve, slope / ve**2]
        F, F2, H, H2, X, X2 = out[0], out[2], out[3], out[4], out[5], out[6]
        return (F, H, F2, (F - lp * F2) / ve, H2, (H - lp * H2) / ve, X, X2,
                (X - lp * X2) / ve)

    # ----------------------------------------------------------------------------------
    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(E 1/S, E D/S)`` with ``S = lam_prime + v1hat D`` (the interface of
        :class:`srfsym.theory.spectrum.MarchenkoPastur`); ``lam_prime``, ``v1hat`` may be
        complex (feature spectrum) with ``S`` off zero on the support.

        >>> b = ExactBulk("tanh", "sin", 2.0, 3.0)
        >>> i, r = b.stieltjes_pair(0.5, 1.5)
        >>> abs(0.5 * i + 1.5 * r - 1) < 1e-12
        True
        """
        if dps is not None:
            raise ValueError("ExactBulk evaluates in double precision only (dps=None)")
        real = complex(lam_prime).imag == 0 and complex(v1hat).imag == 0
        lam_prime, v1hat = complex(lam_prime), complex(v1hat)
        if v1hat == 0:
            inv, rho = 1.0 / lam_prime, self.bulk_moments()[0] / lam_prime
        else:
            s = self.stieltjes(-lam_prime / v1hat)[0]
            inv = s / v1hat
            rho = (1.0 - lam_prime * inv) / v1hat
        return (float(inv.real), float(rho.real)) if real else (complex(inv), complex(rho))


_CACHE: dict = {}
_CACHE_SIZE = 8


def exact_bulk_spectrum(student, teacher, alpha0, eta, beta=1.0) -> ExactBulk:
    """The back end of ``bulk="exact"`` (docs/theory.md (g.5)): :class:`ExactBulk` with the
    deterministic residual law, kept for the last few argument sets.

    >>> b = exact_bulk_spectrum("tanh", "sin", 2.0, 3.0)
    >>> b is exact_bulk_spectrum("tanh", "sin", 2.0, 3.0), isinstance(b, SpectralSide)
    (True, True)
    """
    key = (str(activation(student).expr), str(activation(teacher).expr), float(alpha0),
           float(eta), float(beta))
    if key not in _CACHE:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = ExactBulk(student, teacher, float(alpha0), float(eta), float(beta))
    return _CACHE[key]
