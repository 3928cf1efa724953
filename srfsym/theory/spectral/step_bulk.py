r"""The bulk of the trained first layer as the step really makes it, at finite d (``bulk="step"``).

The isotropic model of docs/theory.md (c), (g) replaces the bulk of ``W1`` by rows uniform on a
sphere of radius ``sqrt(c)``, so that the eigenvalues of ``Omega = W Pi W^T`` follow
``c MP_beta``.  The bulk the step really makes has rank-``n0`` structure and its own law (docs/theory.md
(g.4)).  This back end draws ``W0`` and the step data, forms ``W1`` exactly as the network does
(:func:`srfsym.step.realised.network_first_layer`, the same random streams as
:func:`srfsym.simulation.simulate.simulate`: seed ``s`` here is the network of seed ``s`` there) and
hands the eigen-data of its bulk to the fixed point of docs/theory.md (f) and to the feature
spectrum of (j.3).

Decomposition of the realised layer (uniform readout).  ``vhat`` is the direction of the mean
update ``(1/p) sum_k (w1_k - w0_k)`` (as :func:`srfsym.simulation.result.empirical_srf_parameters`
measures it), ``r = (1/p) sum_k <w1_k, vhat>`` the spike, ``W = W1 - r 1 vhat^T`` the bulk (its
component along ``vhat`` centred), ``gamma = <vhat, e1>`` (signed), ``zeta`` the part of ``e1``
orthogonal to ``vhat`` scaled to norm ``sqrt(d)``, ``v = sqrt(d) vhat`` and
``c = (1/p) tr Omega`` (the measured bulk variance).  With ``Omega = sum_i D_i u_i u_i^T``:

``D_i``  the eigenvalues of ``Omega = W1 Pi W1^T`` (the spike drops out: ``1 vhat^T Pi = 0``);
``F_i = <u_i, W v>^2``  the weights of the bulk's component along the spike direction;
``H_i = <u_i, W zeta>^2``  the weights of the teacher's orthogonal direction;
``X_i = <u_i, W v> <u_i, W zeta>``  their cross weights (signed; mean zero for an isotropic bulk,
not for the step of a student with ``E sigma'' != 0``, docs/theory.md (g.4));

and the prior's sums are their plain means, ``<g> = (1/p) sum_i g_i`` (docs/theory.md (f)).  The
channel side uses the measured ``(r, c, gamma)`` of the same layer.  Cost: one step
(``4 n0 d p`` flops) and one symmetric eigen-decomposition of a ``p x p`` matrix; every
evaluation of the sums afterwards is ``O(p)``.

>>> data = StepEigenData.from_layers(*_two_layers())
>>> data.eigenvalues.shape, bool(abs(data.eigenvalues.mean() - data.c) < 1e-12)
((30,), True)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import mpmath
import numpy as np
import scipy.linalg

from .moments import allowed_points
from ..spectrum import SpectralMoments, _FIELDS

__all__ = ["StepEigenData", "StepBulkSpectrum", "step_eigen_data", "step_eigen",
           "step_bulk_spectrum", "bulk_departure", "isotropic_bulk_warning",
           "IsotropicBulkWarning", "BULK_WARNING_THRESHOLD", "BULKS"]

#: The bulks of the trained first layer srfsym knows: ``"isotropic"`` (``c MP_beta``, docs/theory.md
#: (g)), ``"step"`` (the realised step at finite d, docs/theory.md (g.4)) and ``"exact"`` (its
#: d -> infinity law, docs/theory.md (g.5)).
BULKS = ("isotropic", "step", "exact")

#: Relative excess of the normalised variance ``m2/m1^2 - 1`` of the step's bulk over
#: ``c MP_beta``'s (which is ``beta``) above which srfsym warns that the isotropic bulk is off
#: (docs/theory.md (g.4)).
BULK_WARNING_THRESHOLD = 0.10


def _two_layers():
    """A tiny pair ``(W0, W1)`` for the examples (a hand-made rank-one update plus noise)."""
    rng = np.random.default_rng(0)
    W0 = rng.standard_normal((30, 30)) / math.sqrt(30)
    v = rng.standard_normal(30)
    W1 = W0 + 0.8 * np.outer(np.ones(30), v / np.linalg.norm(v)) \
        + 0.3 * rng.standard_normal((30, 30)) / math.sqrt(30)
    return W0, W1


def spike_and_teacher_directions(vhat, theta=None):
    """``(vhat, gamma, zeta)``: the spike direction, the alignment ``gamma = <vhat, theta*>``
    and the teacher's part orthogonal to the spike, ``zeta = sqrt(d) (theta* - gamma vhat) /
    |.|`` (zero if ``theta*`` is the spike), ``theta*`` the first axis unless given.

    >>> v, g, z = spike_and_teacher_directions(np.array([0.6, 0.8]))
    >>> round(g, 12), [round(float(x), 12) for x in z]
    (0.6, [1.131370849898, -0.848528137424])
    """
    d = vhat.size
    theta = np.eye(1, d)[0] if theta is None else np.asarray(theta, dtype=float)
    theta = theta / np.linalg.norm(theta)
    gamma = float(vhat @ theta)
    zeta = theta - gamma * vhat
    zn = float(np.linalg.norm(zeta))
    return vhat, gamma, (math.sqrt(d) * zeta / zn if zn > 0 else np.zeros(d))


@dataclass
class StepEigenData:
    r"""Eigen-data of the bulk of one realised first layer (see the module doc for the definitions).

    Attributes
    ----------
    eigenvalues : ndarray (p,)
        ``D_i``, eigenvalues of ``Omega = W Pi W^T`` (ascending, clipped at 0).
    spike_weights : ndarray (p,)
        ``F_i = <u_i, W v>^2`` (``v = sqrt(d) vhat``); ``mean(F) -> c`` for an isotropic bulk.
    teacher_weights : ndarray (p,)
        ``H_i = <u_i, W zeta>^2`` (``zeta`` of norm ``sqrt(d)``); ``mean(H g(D)) -> mean(D g(D))``
        for an isotropic bulk (docs/theory.md (g), item 2).
    d, p : int
    r, c, gamma : float
        Measured spike strength, bulk variance ``(1/p) tr Omega`` and signed alignment.
    seconds : float
        Wall time of the step and of the eigen-decomposition.
    cross_weights : ndarray (p,) or None
        ``X_i = <u_i, W v> <u_i, W zeta>`` (signed), the cross weights of the two directions
        (docs/theory.md (g.4), *the cross sums*); ``None`` leaves them out.
    """

    eigenvalues: np.ndarray
    spike_weights: np.ndarray
    teacher_weights: np.ndarray
    d: int
    p: int
    r: float
    c: float
    gamma: float
    seconds: float = float("nan")
    settings: dict = field(default_factory=dict)
    cross_weights: np.ndarray | None = None

    @classmethod
    def from_layers(cls, W0, W1, theta=None) -> "StepEigenData":
        """The eigen-data of ``W1``'s bulk, the spike direction read off the mean update ``W1 - W0``.

        >>> W0, W1 = _two_layers()                  # spike 0.8 along a random direction
        >>> data = StepEigenData.from_layers(W0, W1)
        >>> bool(abs(data.r - 0.8) < 0.15), data.p, data.d
        (True, 30, 30)
        """
        W0 = np.asarray(W0, dtype=float)
        W1 = np.asarray(W1, dtype=float)
        if W0.shape != W1.shape or W1.ndim != 2:
            raise ValueError(f"W0 and W1 must be matrices of one shape, got {W0.shape}, {W1.shape}")
        p, d = W1.shape
        mean_update = W1.mean(axis=0) - W0.mean(axis=0)
        norm = float(np.linalg.norm(mean_update))
        if not norm > 0:
            raise ValueError("the mean update W1 - W0 vanishes (no step, alpha0 = 0): the step "
                             "bulk needs a spike direction; use the isotropic bulk")
        vhat, gamma, zeta = spike_and_teacher_directions(mean_update / norm, theta)
        along = W1 @ vhat
        r = float(along.mean())
        Wv = math.sqrt(d) * (along - r)              # W v with the bulk W = W1 - r 1 vhat^T
        Wz = W1 @ zeta                               # the spike drops out: <vhat, zeta> = 0
        W_pi = W1 - np.outer(along, vhat)
        if p <= d:
            D, U = scipy.linalg.eigh(W_pi @ W_pi.T, driver="evd", check_finite=False)
            del W_pi
            D = np.clip(D, 0.0, None)
            uv, uz = U.T @ Wv, U.T @ Wz
            return cls(eigenvalues=D, spike_weights=uv ** 2, teacher_weights=uz ** 2,
                       d=d, p=p, r=r, c=float(D.mean()), gamma=gamma, cross_weights=uv * uz)
        return cls._from_thin_svd(W_pi, Wv, Wz, r, gamma)

    @classmethod
    def _from_thin_svd(cls, W_pi, Wv, Wz, r, gamma) -> "StepEigenData":
        """``p > d``: the ``d`` singular values of ``W_pi`` (``O(p d^2)``, not the ``O(p^3)``
        eigendecomposition of the ``p x p`` Gram matrix); the other ``p - d`` eigenvalues are 0 and
        share the weights left outside the singular vectors' span equally (every sum over the
        eigenvalues sees only their total at ``D = 0``, so this is exact).

        >>> rng = np.random.default_rng(0)
        >>> W, a, b = rng.standard_normal((40, 10)), rng.standard_normal(40), rng.standard_normal(40)
        >>> data = StepEigenData._from_thin_svd(W, a, b, 0.0, 1.0)
        >>> D, U = np.linalg.eigh(W @ W.T)
        >>> f = lambda x, w: float(np.sum(w / (0.3 + x)))      # a sum the solver takes
        >>> bool(abs(f(data.eigenvalues, data.spike_weights) - f(D.clip(0), (U.T @ a)**2)) < 1e-10)
        True
        """
        p, d = W_pi.shape
        U, S, _ = scipy.linalg.svd(W_pi, full_matrices=False, check_finite=False)
        uv, uz = U.T @ Wv, U.T @ Wz
        rest = p - d
        fill = lambda total: np.full(rest, total / rest)          # noqa: E731
        D = np.concatenate([np.zeros(rest), (S**2)[::-1]])
        F = np.concatenate([fill(max(Wv @ Wv - uv @ uv, 0.0)), (uv**2)[::-1]])
        H = np.concatenate([fill(max(Wz @ Wz - uz @ uz, 0.0)), (uz**2)[::-1]])
        X = np.concatenate([fill(Wv @ Wz - uv @ uz), (uv * uz)[::-1]])
        return cls(eigenvalues=D, spike_weights=F, teacher_weights=H, d=d, p=p, r=r,
                   c=float(D.mean()), gamma=gamma, cross_weights=X)

    @property
    def beta(self) -> float:
        return self.p / self.d

    @property
    def normalised_variance(self) -> float:
        """``m2/m1^2 - 1`` of the eigenvalues of ``Omega`` (``beta`` for ``c MP_beta``).

        >>> data = StepEigenData.from_layers(*_two_layers())
        >>> D = data.eigenvalues
        >>> bool(abs(data.normalised_variance - (D.size * (D**2).sum() / D.sum()**2 - 1)) < 1e-12)
        True
        """
        D = self.eigenvalues
        return float(np.mean(D * D) / np.mean(D) ** 2 - 1)


def _check_step_arguments(student, alpha0, d, beta):
    """Refuse arguments without a realisable step (before any work); returns the student."""
    from ...step.realised import layer_width
    from ...symbolic.activations import activation
    if isinstance(d, bool) or not isinstance(d, (int, np.integer)) or d < 2:
        raise ValueError(f"the step bulk needs an integer dimension d >= 2, got {d!r}")
    if not (isinstance(alpha0, (int, float, np.floating)) and alpha0 > 0
            and math.isfinite(alpha0)):
        raise ValueError(f"the step bulk needs a step, alpha0 > 0 (finite), got {alpha0!r}")
    if math.floor(alpha0 * d) < 1:
        raise ValueError(f"alpha0 * d must be >= 1 (n0 = floor(alpha0 d) step samples), got "
                         f"alpha0={alpha0}, d={d}")
    if layer_width(int(d), float(beta)) < 1:
        raise ValueError(f"beta * d must give a width p >= 1, got beta={beta}, d={d}")
    student_act = activation(student)
    if student_act.has_dirac_derivative:
        raise ValueError(f"student {student_act.name!r} has a Dirac mass in sigma' and cannot "
                         "take the gradient step: no step bulk")
    return student_act


def step_eigen_data(student, teacher, alpha0, eta, d, beta=1.0, seed=0, *,
                    step_dtype="float32", workers=None) -> StepEigenData:
    """Draw the network's first layer and return the eigen-data of its bulk (:class:`StepEigenData`).

    ``seed`` (an int) gives the first layer of ``simulate(..., seed=seed, seeds=1)``
    (:func:`srfsym.simulation.simulate.simulate`; ``srfsym simulate --seed S --seeds 1``), the
    network this theory is then paired with; a ``numpy.random.SeedSequence`` is used as the
    per-seed stream itself (seed k of ``simulate(seed=S, seeds=N)`` is child k of
    ``SeedSequence(S)``).

    Refuses, before any work, a size whose matrices would not fit in memory.

    >>> data = step_eigen_data("tanh", "sin", 2.0, 3.0, d=60)
    >>> data.p, bool(data.c > 1)
    (60, True)
    """
    from ...core.checks import check_memory
    from ...step.realised import seed_children, layer_width, network_first_layer
    student_act = _check_step_arguments(student, alpha0, d, beta)
    p = layer_width(int(d), float(beta))
    # W0, W1, their transposed float32 copy, the chunk buffers; then p x p Omega, U, workspace
    check_memory(8.0 * (3 * p * d + 3 * p * p) + 4.0 * 8192 * (d + 5 * p),
                 f"the step bulk at d = {d}, p = {p}")
    ss = seed if isinstance(seed, np.random.SeedSequence) else \
        seed_children(np.random.SeedSequence(seed), 1)[0]
    t0 = time.perf_counter()
    W0, W1 = network_first_layer(student, teacher, float(alpha0), float(eta), int(d),
                                 float(beta), seed=ss, step_dtype=step_dtype, workers=workers)
    if not np.all(np.isfinite(W1)):
        raise FloatingPointError("the trained first layer W1 is not finite (the step overflowed: "
                                 "eta too large for this activation/teacher?)")
    t1 = time.perf_counter()
    data = StepEigenData.from_layers(W0, W1)
    data.seconds = time.perf_counter() - t0
    data.settings = {"student": student_act.name, "alpha0": float(alpha0), "eta": float(eta),
                     "seed": seed if isinstance(seed, (int, np.integer)) else str(seed),
                     "step_seconds": t1 - t0, "eigh_seconds": data.seconds - (t1 - t0)}
    return data


def step_eigen(student, teacher, alpha0, eta, d, beta=1.0, seed=0):
    r"""The step bulk's eigen-data as plain arrays, for comparison with a deterministic law.

    Returns ``(D, F, H)``: the eigenvalues ``D_i`` of ``Omega = W Pi W^T`` for the realised
    ``W1`` of seed ``seed`` (ascending), and the projection weights ``F_i = <u_i, W v>^2``,
    ``H_i = <u_i, W zeta>^2`` (``|v| = |zeta| = sqrt(d)``).  The prior's spectral sums are
    ``<g(D)> = mean(g(D))``, ``<F g(D)> = mean(F * g(D))``, ``<H g(D)> = mean(H * g(D))``
    (docs/theory.md (f)); e.g. the Stieltjes transform of the bulk at ``z`` is
    ``mean(1 / (D - z))``.  Under the isotropic model ``D ~ c MP_beta``, ``F ~ c`` and
    ``H ~ D`` in every average (docs/theory.md (g)).

    >>> D, F, H = step_eigen("tanh", "sin", 2.0, 3.0, d=40)
    >>> D.shape == F.shape == H.shape == (40,)
    True
    """
    data = step_eigen_data(student, teacher, alpha0, eta, d, beta, seed)
    return data.eigenvalues, data.spike_weights, data.teacher_weights


class StepBulkSpectrum:
    r"""Spectral back end of the fixed point from the eigen-data of a realised step bulk.

    Gives the eleven normalised sums of docs/theory.md (f) (:class:`SpectralMoments`) as plain
    means over the ``p`` eigenvalues with the realised weights ``F``, ``H``; the same interface
    as :class:`srfsym.theory.spectrum.SampledSpectrum` (``moments``, ``moments_array``,
    ``moments_mpmath``) plus ``stieltjes_pair`` for the feature spectrum.

    >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
    >>> m = spec.moments(0.5, 1.0)
    >>> bool(abs(m.inv - np.mean(1 / (0.5 + spec.D))) < 1e-15)
    True
    """

    def __init__(self, data: StepEigenData):
        self.data = data
        self.D = np.asarray(data.eigenvalues, dtype=float)
        self.F = np.asarray(data.spike_weights, dtype=float)
        self.H = np.asarray(data.teacher_weights, dtype=float)
        self.p, self.d = data.p, data.d
        self.beta, self.c = data.beta, data.c
        # rows g_i for the eleven sums: <g / S^k>, k = 1 for the first four, 2 for the rest
        D, F, H = self.D, self.F, self.H
        self._rows1 = np.array([np.ones_like(D), D, F, H]) / self.p
        self._rows2 = np.array([np.ones_like(D), D, D * D, F, D * F, H, D * H]) / self.p
        X = data.cross_weights
        self.X = None if X is None else np.asarray(X, dtype=float)
        if self.X is None:        # the prior then leaves the cross sums out
            self.cross_moments = self.cross_moments_array = self.cross_moments_mpmath = None

    def __repr__(self):
        return (f"StepBulkSpectrum(d={self.d}, p={self.p}, r={self.data.r:.6g}, "
                f"c={self.c:.6g}, gamma={self.data.gamma:.6g})")

    @staticmethod
    def _check(lam_prime, v1hat):
        if not (0.0 < lam_prime < math.inf):
            raise ValueError(f"lam_prime must be > 0 and finite for a finite bulk "
                             f"(Omega has zero eigenvalues when p >= d), got {lam_prime!r}")
        if not (0.0 <= v1hat < math.inf):
            raise ValueError(f"v1hat must be >= 0 and finite, got {v1hat!r}")

    def moments(self, lam_prime: float, v1hat: float) -> SpectralMoments:
        """The eleven sums at one ``(lambda', Vhat_1)``, ``O(p)``.

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> round(spec.moments(2.0, 0.0).inv, 15)
        0.5
        """
        lam_prime, v1hat = float(lam_prime), float(v1hat)
        self._check(lam_prime, v1hat)
        inv = 1.0 / (lam_prime + v1hat * self.D)
        s1 = self._rows1 @ inv
        s2 = self._rows2 @ (inv * inv)
        # field order: inv rho F H | inv2 rho2 rhosq2 F2 DF2 H2 DH2
        return SpectralMoments._make(float(x) for x in np.concatenate([s1, s2]))

    def moments_array(self, lam_prime, v1hat) -> SpectralMoments:
        """The sums at arrays of ``(lambda', Vhat_1)``; entries outside the allowed arguments are NaN.

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> m = spec.moments_array(np.array([0.5, -1.0]), np.array([1.2, 1.0]))
        >>> bool(abs(m.F2[0] / spec.moments(0.5, 1.2).F2 - 1) < 1e-13), bool(np.isnan(m.inv[1]))
        (True, True)
        """
        lam_prime, v1hat, ok, out = allowed_points(lam_prime, v1hat)
        if ok.any():
            inv = 1.0 / (lam_prime[ok][None, :] + v1hat[ok][None, :] * self.D[:, None])
            vals = np.concatenate([self._rows1 @ inv, self._rows2 @ (inv * inv)])
            for i in range(len(_FIELDS)):
                out[i][ok] = vals[i]
        return SpectralMoments._make(out)

    def moments_mpmath(self, lam_prime, v1hat, dps: int = 30) -> SpectralMoments:
        """The sums in mpmath on the (double-precision) eigen-data.

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> a, b = spec.moments(0.5, 1.2), spec.moments_mpmath(0.5, 1.2)
        >>> max(abs(float(y) / x - 1) for x, y in zip(a, b)) < 1e-13
        True
        """
        with mpmath.workdps(dps):
            lam, v = mpmath.mpf(lam_prime), mpmath.mpf(v1hat)
            self._check(float(lam), float(v))
            D = [mpmath.mpf(float(x)) for x in self.D]
            F = [mpmath.mpf(float(x)) for x in self.F]
            H = [mpmath.mpf(float(x)) for x in self.H]
            inv = [1 / (lam + v * x) for x in D]
            inv2 = [s * s for s in inv]
            one = [mpmath.mpf(1)] * len(D)
            g1 = (one, D, F, H)
            g2 = (one, D, [x * x for x in D], F, [x * y for x, y in zip(D, F)], H,
                  [x * y for x, y in zip(D, H)])
            p = mpmath.mpf(self.p)
            vals = [mpmath.fsum(a * s for a, s in zip(g, inv)) / p for g in g1]
            vals += [mpmath.fsum(a * s for a, s in zip(g, inv2)) / p for g in g2]
            return SpectralMoments._make(vals)

    def cross_moments(self, lam_prime: float, v1hat: float) -> tuple:
        """The cross sums ``(<X/S>, <X/S^2>, <D X/S^2>)`` of the spike and teacher directions
        (docs/theory.md (g.4)), ``O(p)``.

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> x1, x2, dx2 = spec.cross_moments(0.5, 1.2)
        >>> S = 0.5 + 1.2 * spec.D
        >>> bool(abs(x1 - np.mean(spec.X / S)) < 1e-15), bool(abs(dx2 - np.mean(spec.D * spec.X / S**2)) < 1e-15)
        (True, True)
        """
        lam_prime, v1hat = float(lam_prime), float(v1hat)
        self._check(lam_prime, v1hat)
        inv = 1.0 / (lam_prime + v1hat * self.D)
        xi = self.X * inv
        return (float(xi.mean()), float((xi * inv).mean()), float((self.D * xi * inv).mean()))

    def cross_moments_array(self, lam_prime, v1hat) -> tuple:
        """:meth:`cross_moments` at arrays of points (NaN outside the allowed arguments).

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> x1, x2, dx2 = spec.cross_moments_array(np.array([0.5, -1.0]), np.array([1.2, 1.0]))
        >>> bool(abs(dx2[0] - spec.cross_moments(0.5, 1.2)[2]) < 1e-15), bool(np.isnan(x1[1]))
        (True, True)
        """
        lam_prime, v1hat, ok, out = allowed_points(lam_prime, v1hat)
        out = out[:3]
        if ok.any():
            inv = 1.0 / (lam_prime[ok][None, :] + v1hat[ok][None, :] * self.D[:, None])
            xi = self.X[:, None] * inv
            for i, vals in enumerate((xi.mean(0), (xi * inv).mean(0),
                                      (self.D[:, None] * xi * inv).mean(0))):
                out[i][ok] = vals
        return tuple(out)

    def cross_moments_mpmath(self, lam_prime, v1hat, dps: int = 30) -> tuple:
        """:meth:`cross_moments` in mpmath on the (double-precision) eigen-data.

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> a, b = spec.cross_moments(0.5, 1.2), spec.cross_moments_mpmath(0.5, 1.2)
        >>> max(abs(float(y) - x) for x, y in zip(a, b)) < 1e-15
        True
        """
        with mpmath.workdps(dps):
            lam, v = mpmath.mpf(lam_prime), mpmath.mpf(v1hat)
            self._check(float(lam), float(v))
            D = [mpmath.mpf(float(x)) for x in self.D]
            X = [mpmath.mpf(float(x)) for x in self.X]
            inv = [1 / (lam + v * x) for x in D]
            p = mpmath.mpf(self.p)
            return (mpmath.fsum(x * s for x, s in zip(X, inv)) / p,
                    mpmath.fsum(x * s * s for x, s in zip(X, inv)) / p,
                    mpmath.fsum(a * x * s * s for a, x, s in zip(D, X, inv)) / p)

    def stieltjes_pair(self, lam_prime, v1hat, previous=None, dps=None):
        """``(<1/S>, <D/S>)`` at a complex ``lambda'`` (the feature spectrum's bulk sums).

        >>> spec = StepBulkSpectrum(StepEigenData.from_layers(*_two_layers()))
        >>> a, b = spec.stieltjes_pair(1.0 + 0.1j, 0.5)
        >>> bool(abs(a - np.mean(1 / (1.0 + 0.1j + 0.5 * spec.D))) < 1e-15)
        True
        """
        if dps is None:
            S = lam_prime + v1hat * self.D
            return np.mean(1 / S), np.mean(self.D / S)
        with mpmath.workdps(dps):
            S = [lam_prime + v1hat * mpmath.mpf(float(x)) for x in self.D]
            return (mpmath.fsum(1 / s for s in S) / len(S),
                    mpmath.fsum(mpmath.mpf(float(x)) / s for x, s in zip(self.D, S)) / len(S))


_CACHE: dict = {}
_CACHE_SIZE = 8


def _key(act) -> str:
    from ...symbolic.activations import activation
    return str(activation(act).expr)


def step_bulk_spectrum(student, teacher, alpha0, eta, d, beta=1.0, seed=0) -> StepBulkSpectrum:
    """The back end of ``bulk="step"``: :class:`StepBulkSpectrum` on :func:`step_eigen_data`,
    kept for the last few argument sets (a learning curve draws its step once).

    >>> spec = step_bulk_spectrum("tanh", "sin", 2.0, 3.0, d=50)
    >>> spec is step_bulk_spectrum("tanh", "sin", 2.0, 3.0, d=50)
    True
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    key = (_key(student), _key(teacher), float(alpha0), float(eta), d, float(beta), int(seed))
    if key not in _CACHE:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = StepBulkSpectrum(step_eigen_data(student, teacher, alpha0, eta, d, beta,
                                                       int(seed)))
    return _CACHE[key]


def bulk_departure(student, teacher, alpha0, eta, beta=1.0, d=400, seed=0) -> dict:
    r"""How far the isotropic bulk ``c MP_beta`` is from the bulk the step makes (docs/theory.md (g.4)).

    Draws one step at a modest ``d`` (the normalised variance of the step's bulk is not a
    finite-size effect: it is stable from d = 500 to 1500 within ~2 %) and compares
    ``m2/m1^2 - 1`` of ``Omega``'s eigenvalues with ``beta``, the value for ``c MP_beta``.

    Returns a dict: ``normalised_variance_step``, ``normalised_variance_isotropic`` (= beta),
    ``relative_excess`` (step / isotropic - 1), ``d``, ``seed``, ``seconds``, ``warn``
    (``relative_excess > BULK_WARNING_THRESHOLD``).

    >>> out = bulk_departure("tanh", "sin", 2.0, 3.0, d=100)
    >>> out["normalised_variance_isotropic"], bool(out["normalised_variance_step"] > 0)
    (1.0, True)
    """
    data = step_eigen_data(student, teacher, alpha0, eta, d, beta, seed)
    iso = data.p / data.d
    nv = data.normalised_variance
    excess = nv / iso - 1
    return {"normalised_variance_step": nv, "normalised_variance_isotropic": iso,
            "relative_excess": excess, "d": int(d), "seed": seed, "seconds": data.seconds,
            "warn": bool(excess > BULK_WARNING_THRESHOLD)}


class IsotropicBulkWarning(UserWarning):
    """The isotropic bulk ``c MP_beta`` is far from the bulk the step makes (docs/theory.md (g.4))."""


#: Work (flops of the step) of the check behind :func:`isotropic_bulk_warning`.
_CHECK_FLOPS = 2e9


def isotropic_bulk_warning(student, teacher, alpha0, eta, beta=1.0, advice=None):
    """Warn (:class:`IsotropicBulkWarning`) when the isotropic bulk is off; return the check's dict.

    ``advice``: what the warning recommends (default ``"use --bulk step (docs/theory.md
    (g.4))"``); the command line passes the bulk its own command accepts.

    Runs :func:`bulk_departure` on one step at a dimension chosen so that the step costs at most
    about 2e9 flops (``d <= 400``; skipped, returning ``None``, when that leaves ``d < 100``:
    ``alpha0 beta`` above ~500, where the step's bulk is the isotropic one, docs/theory.md (g.4)).
    Also skipped (``None``, no verdict) without a step (``alpha0`` or ``eta`` zero) and outside
    the model's domain (``alpha0 < 0``, ``eta < 0``, ``beta <= 0``): the solver the check
    precedes refuses those with the reason.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     out = isotropic_bulk_warning("tanh", "sin", 0.5, 5.0, beta=2.0)
    >>> out["warn"], issubclass(w[0].category, IsotropicBulkWarning)
    (True, True)
    """
    import warnings
    from ...symbolic.activations import activation
    if activation(student).has_dirac_derivative or not (
            float(alpha0) > 0 and float(eta) > 0 and float(beta) > 0):
        return None
    d = int(min(400, (_CHECK_FLOPS / (4 * float(alpha0) * float(beta))) ** (1 / 3)))
    if d < 100:
        return None
    from ...core.budget import BudgetExceeded
    try:
        out = bulk_departure(student, teacher, alpha0, eta, beta, d=d)
    except BudgetExceeded:
        raise
    except (ValueError, ArithmeticError, MemoryError):   # a step that overflows: no verdict
        return None
    if out["warn"]:
        warnings.warn(IsotropicBulkWarning(
            f"the isotropic bulk (c MP_beta, the papers' model) is off here: the trained first "
            f"layer's bulk has normalised variance m2/m1^2 - 1 = "
            f"{out['normalised_variance_step']:.3g} against {out['normalised_variance_isotropic']:.3g}"
            f" for c MP_beta ({out['relative_excess']:+.0%}, one step at d = {d}); the test "
            f"error and the feature spectrum's tail move with it: "
            + (advice or "use --bulk step (docs/theory.md (g.4))")), stacklevel=2)
    return out
