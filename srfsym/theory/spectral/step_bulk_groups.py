r"""The realised step bulk with a readout vocabulary: the K-group prior on the real ``W1``
(``bulk="step"`` with ``vocabulary=``, docs/theory.md (g.4), (k.7)).

With readout letters ``omega_k`` the rows of ``W1`` fall into K groups (the neurons of each
letter).  The K-group prior of docs/theory.md (k.7.4) replaces the rows by isotropic ones of
variance ``c_j`` (the block-Wishart law); on the realised layer its sums are resolvent traces
of one ``p x p`` matrix that couples the groups::

    M = diag(lambda + V2^_g(k)) + sum_jl V1^_jl P_j Omega P_l,     N = M^-1,
    V1_ab = (1/p) tr(P_a Omega P_b N),   V2_a = (1/p) tr(P_a N),
    theta = sqrt(beta) (F th^ + X psi^),  psi = sqrt(beta) (H psi^ + X^T th^),
    F_ab = (1/p) (Wv)_a^T N (Wv)_b,     H_ab = (1/p) (W zeta)_a^T N (W zeta)_b,
    X_ab = (1/p) (Wv)_a^T N (W zeta)_b    (the cross sums, docs/theory.md (g.4), (g.4.1)),

``P_j`` the projector on group j's neurons, ``Omega = W1 Pi W1^T``; the second moments are
``(Q1, q2) = -J[Q1^, q2^] + (1/p) (y^T P_a Omega P_b y, |P_a y|^2)`` at
``y = N sum_b (th^_b (Wv)_b + psi^_b (W zeta)_b)``, ``J`` the exact derivative of
``(V1, V2)`` in ``(V1^, V2^)`` (traces of products of blocks of ``Omega`` and ``N``).  For K = 1
these are the plain means of :class:`~srfsym.theory.spectral.step_bulk.StepBulkSpectrum` (``M`` is then
diagonal in the eigenbasis of ``Omega``), its cross sums ``<X g(D)>`` included; for K > 1 the
groups' blocks do not share an eigenbasis, and each evaluation costs one ``p x p`` inverse (and
``2 p^3`` flops more for the derivatives).

Decomposition of the realised layer: ``vhat`` is the direction of ``sum_k omega_k (w1_k -
w0_k)`` (the mean update for the uniform readout; every row update is ``omega_k`` times the
uniform one, docs/theory.md (k.1)), group j's spike ``r_j`` the mean of ``<w1_k, vhat>`` over its
neurons, ``Wv = sqrt(d) (<w1_k, vhat> - r_g(k))``, ``c_j`` the mean of ``|Pi w1_k|^2`` over group
j, ``gamma = <vhat, e1>`` (:func:`split_by_letter`, which the simulation's per-letter
measurement uses too).  The channel takes the measured ``(r_j, c_j, gamma)``.

>>> data = StepGroupData.from_layers(*_two_layers(), omega=np.repeat([1.0, 2.0], 15))
>>> data.K, data.sizes, bool(abs(np.trace(data.Omega) / 30 - np.dot(data.pi, data.group_c)) < 1e-12)
(2, (15, 15), True)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from scipy.linalg import lapack

from ..interfaces import GroupSpectralSide
from .group_direction_prior import DirectionGroupPrior
from ..state import ConvergenceError, Hats
from .step_bulk import _two_layers, spike_and_teacher_directions

__all__ = ["LetterSplit", "split_by_letter", "StepGroupData", "RealisedGroupPrior",
           "StepGroupBulk", "step_group_data", "step_group_bulk"]


class LetterSplit(NamedTuple):
    """A first layer split by readout letter (:func:`split_by_letter`, docs/theory.md (g.4.1)):
    ``letters`` in order of first appearance, ``sizes`` their neurons, ``order`` the neurons
    group by group, the spike direction ``vhat``, the signed alignment ``gamma = <vhat,
    theta>``, the teacher's part ``zeta`` orthogonal to ``vhat`` (norm ``sqrt(d)``),
    ``along = <w1_k, vhat>`` (neurons in ``order``), and per letter the spike ``r`` and the
    bulk variance ``c``."""
    letters: tuple
    sizes: tuple
    order: np.ndarray
    vhat: np.ndarray
    gamma: float
    zeta: np.ndarray
    along: np.ndarray
    r: tuple
    c: tuple


def split_by_letter(W0, W1, omega, theta=None) -> LetterSplit:
    r"""The measured per-letter sRF parameters of a first layer with readout letters ``omega``
    (one per neuron; docs/theory.md (g.4.1)) -- the one definition, used by the step bulk and
    reported by the simulation (:func:`srfsym.simulation.result.empirical_group_parameters`).

    ``vhat`` is the direction of ``sum_k omega_k (w1_k - w0_k)`` (every row update is
    ``omega_k`` times the uniform one, docs/theory.md (k.1); for ``{1}`` the mean update),
    group j's spike ``r_j`` the mean of ``<w1_k, vhat>`` over its neurons (so that the bulk
    ``W1 - r_j(k) vhat^T`` has its component along ``vhat`` centred in every group), its bulk
    variance ``c_j`` the mean of ``|(I - vhat vhat^T) w1_k|^2``, ``gamma = <vhat, theta>``
    (``theta = e1`` unless given).  If the letter-weighted update vanishes (no step), ``vhat``,
    ``zeta`` and ``gamma`` are NaN, every ``r_j`` is 0 and ``c_j`` the mean of ``|w1_k|^2``.

    >>> rng = np.random.default_rng(0)
    >>> om, W0 = np.repeat([1.0, -1.0], 20), rng.standard_normal((40, 40)) / math.sqrt(40)
    >>> W1 = W0 + 0.5 * np.outer(om, np.eye(40)[1])        # spike 0.5 omega_k along e_2
    >>> s = split_by_letter(W0, W1, om)
    >>> s.letters, s.sizes, float(s.vhat[1]), s.gamma
    ((1.0, -1.0), (20, 20), 1.0, 0.0)
    >>> [round(float(x - 0.5 * w - W0[om == w, 1].mean()), 12) for x, w in zip(s.r, s.letters)]
    [0.0, 0.0]
    """
    W0 = np.asarray(W0, dtype=float)
    W1 = np.asarray(W1, dtype=float)
    om = np.asarray(omega, dtype=float).ravel()
    if W0.shape != W1.shape or W1.ndim != 2:
        raise ValueError(f"W0 and W1 must be matrices of one shape, got {W0.shape}, {W1.shape}")
    p, d = W1.shape
    if om.shape != (p,) or not np.all(np.isfinite(om)) or np.any(om == 0):
        raise ValueError(f"omega must give one non-zero finite letter per neuron ({p}), got "
                         f"shape {om.shape}")
    letters = tuple(dict.fromkeys(om.tolist()))
    order = np.concatenate([np.flatnonzero(om == w) for w in letters])
    sizes = tuple(int(np.sum(om == w)) for w in letters)
    edges = np.concatenate([[0], np.cumsum(sizes)])
    sq = np.einsum("ij,ij->i", W1, W1)[order]
    update = om @ (W1 - W0)
    norm = float(np.linalg.norm(update))
    if norm > 0:
        vhat, gamma, zeta = spike_and_teacher_directions(update / norm, theta)
        along = W1[order] @ vhat
    else:
        vhat, zeta, gamma, along = np.full(d, np.nan), np.full(d, np.nan), float("nan"), \
            np.zeros(p)
    bulk = sq - along * along
    r = tuple(float(along[a:b].mean()) for a, b in zip(edges[:-1], edges[1:]))
    c = tuple(float(bulk[a:b].mean()) for a, b in zip(edges[:-1], edges[1:]))
    return LetterSplit(letters, sizes, order, vhat, gamma, zeta, along, r, c)


@dataclass
class StepGroupData:
    r"""A realised first layer split by readout letter (see the module doc).

    ``Omega`` is ``W1 Pi W1^T`` with the neurons reordered so that group j is the slice
    ``slices[j]``; ``Wv``, ``Wz`` the vectors ``W v``, ``W zeta`` (``|v| = |zeta| = sqrt(d)``) in
    that order; ``letters`` the letter of each group, ``sizes`` its neurons, ``pi = sizes/p``.
    """

    Omega: np.ndarray
    Wv: np.ndarray
    Wz: np.ndarray
    letters: tuple
    sizes: tuple
    group_r: tuple
    group_c: tuple
    gamma: float
    d: int
    p: int
    seconds: float = float("nan")
    settings: dict = field(default_factory=dict)

    @property
    def K(self) -> int:
        return len(self.letters)

    @property
    def pi(self) -> np.ndarray:
        return np.asarray(self.sizes, dtype=float) / self.p

    @property
    def slices(self) -> tuple:
        edges = np.concatenate([[0], np.cumsum(self.sizes)])
        return tuple(slice(int(a), int(b)) for a, b in zip(edges[:-1], edges[1:]))

    @property
    def beta(self) -> float:
        return self.p / self.d

    @classmethod
    def from_layers(cls, W0, W1, omega, theta=None) -> "StepGroupData":
        """The groups of ``W1`` by readout letter ``omega`` (one per neuron), the spike direction
        read off ``sum_k omega_k (w1_k - w0_k)``.

        >>> W0, W1 = _two_layers()
        >>> data = StepGroupData.from_layers(W0, W1, np.ones(30))
        >>> data.letters, data.sizes
        ((1.0,), (30,))
        """
        s = split_by_letter(W0, W1, omega, theta)
        if not np.isfinite(s.gamma):
            raise ValueError("the letter-weighted update sum_k omega_k (w1_k - w0_k) vanishes "
                             "(no step, alpha0 = 0): the step bulk needs a spike direction")
        W1 = np.asarray(W1, dtype=float)[s.order]
        p, d = W1.shape
        Wv = math.sqrt(d) * (s.along - np.repeat(s.r, s.sizes))
        Wz = W1 @ s.zeta
        W_pi = W1 - np.outer(s.along, s.vhat)
        Omega = W_pi @ W_pi.T
        del W_pi
        return cls(Omega=Omega, Wv=Wv, Wz=Wz, letters=s.letters, sizes=s.sizes, group_r=s.r,
                   group_c=s.c, gamma=s.gamma, d=d, p=p)


class RealisedPrior(NamedTuple):
    """The realised group prior at one ``(V1^, V2^)``: ``N = M^-1``, the order parameters
    ``V1, V2``, the direction sums ``F, H`` (K x K), ``NU = N [(Wv)_b]_b``, ``NZ`` likewise,
    a cache for the derivatives, and the cross sums ``X`` (K x K, not symmetric: row the
    spike direction's group, column the teacher direction's)."""
    N: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    F: np.ndarray
    H: np.ndarray
    NU: np.ndarray
    NZ: np.ndarray
    cache: dict
    X: np.ndarray


class RealisedGroupPrior(DirectionGroupPrior):
    r"""The K-group prior of docs/theory.md (k.7.4) on a realised layer (:class:`StepGroupData`):
    the same interface as :class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`
    (``prior``, ``prior_units``, ``prior_linear``, ``second_moments``, ``freeze``,
    ``overlaps``), the sums of the module doc.

    >>> data = StepGroupData.from_layers(*_two_layers(), omega=np.ones(30))
    >>> pr = RealisedGroupPrior(data, lam=0.5, beta=1.0).prior(np.array([[1.0]]), np.zeros(1))
    >>> D = np.linalg.eigvalsh(data.Omega)
    >>> bool(abs(pr.V2[0] - np.mean(1 / (0.5 + D))) < 1e-13)
    True
    """

    def __init__(self, data: StepGroupData, lam, beta):
        self.data = data
        self.K, self.p = data.K, data.p
        self.c = np.asarray(data.group_c, dtype=float)
        self.pi = data.pi
        self.lam, self.beta = float(lam), float(beta)
        self.sqrt_beta = math.sqrt(self.beta)
        self._sl = data.slices
        U = np.zeros((self.p, self.K))
        Z = np.zeros((self.p, self.K))
        for b, sb in enumerate(self._sl):
            U[sb, b], Z[sb, b] = data.Wv[sb], data.Wz[sb]
        self._U, self._Z = U, Z
        self._memo: dict = {}

    def prior(self, V1hat, V2hat) -> RealisedPrior:
        """``N = M^-1`` and the sums at ``(V1^, V2^)`` (one Cholesky inverse of ``M``)."""
        K, p, sl = self.K, self.p, self._sl
        V1hat = np.asarray(V1hat, dtype=float).reshape(K, K)
        V2hat = np.asarray(V2hat, dtype=float).reshape(K)
        key = (V1hat.tobytes(), V2hat.tobytes())
        if key in self._memo:
            return self._memo[key]
        base = self.lam + V2hat
        if not (np.all(base > 0) and np.all(np.isfinite(base)) and np.all(np.isfinite(V1hat))):
            raise ConvergenceError(f"the resolvent diverges: lambda + V2hat = {base.tolist()} "
                                   "must be > 0 and finite for every group", residual=float("inf"))
        Om = self.data.Omega
        M = np.empty((p, p))
        for a, sa in enumerate(sl):
            for b, sb in enumerate(sl):
                np.multiply(Om[sa, sb], V1hat[a, b], out=M[sa, sb])
        M[np.diag_indices(p)] += np.repeat(base, self.data.sizes)
        chol, info = lapack.dpotrf(M, lower=0, overwrite_a=1)
        if info != 0:
            raise ConvergenceError("M = lambda' + sum V1hat_jl P_j Omega P_l is not positive "
                                   "definite (V1hat left its domain)", residual=float("inf"))
        N, info = lapack.dpotri(chol, lower=0, overwrite_c=1)
        if info != 0:
            raise ConvergenceError("the inverse of M failed", residual=float("inf"))
        N = np.triu(N)
        N += np.triu(N, 1).T
        ON = Om * N
        V1 = np.array([[ON[sa, sb].sum() for sb in sl] for sa in sl]) / p
        V1 = (V1 + V1.T) / 2
        V2 = np.array([np.trace(N[sa, sa]) for sa in sl]) / p
        NU, NZ = N @ self._U, N @ self._Z
        F, H = self._U.T @ NU / p, self._Z.T @ NZ / p
        out = RealisedPrior(N, V1, V2, (F + F.T) / 2, (H + H.T) / 2, NU, NZ, {},
                            self._U.T @ NZ / p)
        if len(self._memo) >= 4:
            self._memo.pop(next(iter(self._memo)))
        self._memo[key] = out
        return out

    def prior_units(self, pr: RealisedPrior):
        """``(g1, g2)``: derivatives of ``(V1, V2)`` along the K^2 ordered entries of ``V1^``
        (m-major), then the K entries of ``V2^``; shapes ``(K^2 + K, K, K)``, ``(K^2 + K, K)``::

            dV1_ab/dV1^_jl = -(1/p) tr(P_a Om P_b N P_j Om P_l N),  dV2_a/dV1^_jl = -(1/p) tr(P_a N P_j Om P_l N)
            dV1_ab/dV2^_j  = -(1/p) tr(P_a Om P_b N P_j N),         dV2_a/dV2^_j  = -(1/p) tr(P_a N P_j N)
        """
        if "units" in pr.cache:
            return pr.cache["units"]
        K, p, sl, Om, N = self.K, self.p, self._sl, self.data.Omega, pr.N
        Z = [Om[:, sb] @ N[sb, :] for sb in sl]          # Z_b = Omega P_b N
        g1 = np.zeros((K * K + K, K, K))
        g2 = np.zeros((K * K + K, K))

        def tr(A, B):                                    # tr(A B) for blocks A (x, y), B (y, x)
            return float(np.einsum("xy,yx->", A, B))

        for j, sj in enumerate(sl):
            for a, sa in enumerate(sl):
                g2[K * K + j, a] = -tr(N[sa, sj], N[sj, sa]) / p
                for b in range(K):
                    g1[K * K + j, a, b] = -tr(Z[b][sa, sj], N[sj, sa]) / p
                for l in range(K):
                    g2[j * K + l, a] = -tr(N[sa, sj], Z[l][sj, sa]) / p
                    for b in range(K):
                        g1[j * K + l, a, b] = -tr(Z[b][sa, sj], Z[l][sj, sa]) / p
        pr.cache["units"] = (g1, g2)
        return g1, g2

    def _signal(self, y):
        """``(1/p) (y^T P_a Omega P_b y)_ab`` and ``(1/p) (|P_a y|^2)_a``."""
        sl, p, Om = self._sl, self.p, self.data.Omega
        cols = [Om[:, sb] @ y[sb] for sb in sl]
        Q = np.array([[y[sa] @ cols[b][sa] for b in range(self.K)] for sa in sl]) / p
        return (Q + Q.T) / 2, np.array([y[sa] @ y[sa] for sa in sl]) / p

    def second_moments(self, pr: RealisedPrior, hat: Hats):
        """``(Q1, q2)``: the noise part ``-J[Q1^, q2^]`` plus the signal part at ``y = N
        sum_b (th^_b (Wv)_b + psi^_b (W zeta)_b)`` (its cross terms are the cross sums)."""
        dV1, dV2 = self.prior_linear(pr, hat.q1hat, hat.q2hat)
        Qs, qs = self._signal(pr.NU @ np.asarray(hat.thetahat, dtype=float)
                              + pr.NZ @ np.asarray(hat.psihat, dtype=float))
        Q1 = -dV1 + Qs
        return (Q1 + Q1.T) / 2, -dV2 + qs


class StepGroupBulk(GroupSpectralSide):
    """The spectral back end of ``bulk="step"`` with a vocabulary: a :class:`StepGroupData`,
    its measured group parameters, and :meth:`group_prior` for the K-group engine.

    >>> spec = StepGroupBulk(StepGroupData.from_layers(*_two_layers(), np.repeat([1., 2.], 15)))
    >>> spec.K, type(spec.group_prior(0.1, 1.0)).__name__
    (2, 'RealisedGroupPrior')
    """

    name = "step"

    def __init__(self, data: StepGroupData, vocabulary=None):
        from ...step.vocabulary import fit_uniform_parameters, vocabulary as make_vocabulary
        self.data = data
        self.K, self.d, self.p = data.K, data.d, data.p
        self.group_r, self.group_c, self.gamma = data.group_r, data.group_c, data.gamma
        self.vocabulary = make_vocabulary(list(data.letters), list(data.pi)) \
            if vocabulary is None else make_vocabulary(vocabulary)
        if tuple(self.vocabulary.letters) != tuple(data.letters):
            raise ValueError(f"the layer's groups {data.letters} are not the vocabulary's letters "
                             f"{self.vocabulary.letters}")
        self.r, self.c = fit_uniform_parameters(data.letters, data.sizes, data.group_r,
                                                data.group_c)

    def __repr__(self):
        return (f"StepGroupBulk(d={self.d}, p={self.p}, letters={self.data.letters}, "
                f"r_j={tuple(round(v, 6) for v in self.group_r)}, "
                f"c_j={tuple(round(v, 6) for v in self.group_c)}, gamma={self.gamma:.6g})")

    def group_prior(self, lam, beta) -> RealisedGroupPrior:
        return RealisedGroupPrior(self.data, lam, beta)


def step_group_data(student, teacher, alpha0, eta, d, beta=1.0, seed=0, vocabulary=None, *,
                    step_dtype="float32", workers=None) -> StepGroupData:
    """Draw the network's first layer with readout letters (as ``simulate(..., vocabulary=,
    seed=seed, seeds=1)`` does: group j is a block of ``vocabulary.group_sizes(p)[j]``
    neurons) and split it by letter (:class:`StepGroupData`).

    >>> data = step_group_data("tanh", "sin", 2.0, 3.0, d=40, vocabulary=[1, 2])
    >>> data.sizes, bool(data.group_c[1] > data.group_c[0] > 1)
    ((20, 20), True)
    """
    from ...core.checks import check_memory
    from ...step.realised import seed_children, layer_width, network_first_layer
    from ...step.vocabulary import vocabulary as make_vocabulary
    from .step_bulk import _check_step_arguments
    voc = make_vocabulary(vocabulary)
    _check_step_arguments(student, alpha0, d, beta)
    p = layer_width(int(d), float(beta))
    check_memory(8.0 * (3 * p * d + (voc.K + 4) * p * p) + 4.0 * 8192 * (d + 5 * p),
                 f"the step bulk with a vocabulary at d = {d}, p = {p}")
    ss = seed if isinstance(seed, np.random.SeedSequence) else \
        seed_children(np.random.SeedSequence(seed), 1)[0]
    t0 = time.perf_counter()
    W0, W1 = network_first_layer(student, teacher, float(alpha0), float(eta), int(d),
                                 float(beta), seed=ss, step_dtype=step_dtype, workers=workers,
                                 vocabulary=voc)
    if not np.all(np.isfinite(W1)):
        raise FloatingPointError("the trained first layer W1 is not finite (the step overflowed: "
                                 "eta too large for this activation/teacher?)")
    data = StepGroupData.from_layers(W0, W1, voc.neuron_letters(p))
    data.seconds = time.perf_counter() - t0
    data.settings = {"alpha0": float(alpha0), "eta": float(eta), "vocabulary": voc.to_dict(),
                     "seed": seed if isinstance(seed, (int, np.integer)) else str(seed)}
    return data


_CACHE: dict = {}
_CACHE_SIZE = 4


def step_group_bulk(student, teacher, alpha0, eta, d, beta=1.0, seed=0,
                    vocabulary=None) -> StepGroupBulk:
    """The back end of ``bulk="step"`` with a vocabulary, kept for the last few argument sets.

    >>> spec = step_group_bulk("tanh", "sin", 2.0, 3.0, d=40, vocabulary=[1, 2])
    >>> spec is step_group_bulk("tanh", "sin", 2.0, 3.0, d=40, vocabulary=[1, 2])
    True
    """
    from ...step.vocabulary import vocabulary as make_vocabulary
    from .step_bulk import _key
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    voc = make_vocabulary(vocabulary)
    key = (_key(student), _key(teacher), float(alpha0), float(eta), d, float(beta), int(seed),
           voc.letters, voc.weights)
    if key not in _CACHE:
        while len(_CACHE) >= _CACHE_SIZE:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = StepGroupBulk(step_group_data(student, teacher, alpha0, eta, d, beta,
                                                    int(seed), voc), voc)
    return _CACHE[key]
