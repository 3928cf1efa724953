r"""The solver of a convex readout loss with a readout vocabulary (docs/theory.md (m.8)).

The channel is :class:`~srfsym.theory.channels.convex_groups.GroupConvexChannel`; the prior
the ridge's block-Wishart side (:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`)
or a realised/exact bulk split by letter.  The unknowns (the upper triangles of ``Q1, V1``,
the K-vectors, the bias) are packed into one vector and the engine's sweep is iterated as for
the uniform convex readout (:func:`srfsym.theory.convex_fixed_point._solve_engine`).

>>> res = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
...                           vocabulary=[1, 2], nodes=60, nodes_u=12)
>>> res.state.V1.shape, 0 < res.classification_error < 0.5
((2, 2), True)
"""
from __future__ import annotations

import time

import numpy as np

from .channels.convex_groups import GroupConvexChannel
from .channels.kappa_quadrature import group_channel_data, node_rule
from .channels.square import _sym_index
from .convex_fixed_point import (_check_arguments, _check_threshold, _result,
                                 _separable_along_constant, _solve_engine)
from .engine import _START, Engine, _NODE_LADDER
from .fixed_point_groups import solve_srf_groups
from .spectral.block_wishart import BlockWishartPrior
from .state import ConvergenceError, State
from ..step.vocabulary import check_student, vocabulary as make_vocabulary

__all__ = ["solve_convex_groups"]


# ======================================================================================
# the unknowns as one vector, and the solve

class _Packing:
    """``(State, b0) <-> x``: the upper triangles of ``Q1, V1``, the K-vectors, ``b0``."""

    def __init__(self, K):
        self.K, self.sym = K, _sym_index(K)

    def sym_matrix(self, v):
        M = np.zeros((self.K, self.K))
        for a, (j, l) in zip(v, self.sym):
            M[j, l] = M[l, j] = a
        return M

    def vector(self, s: State, b0):
        tri = lambda M: [np.asarray(M, float)[j, l] for j, l in self.sym]   # noqa: E731
        return np.array([*tri(s.q1), *np.ravel(s.q2), *tri(s.V1), *np.ravel(s.V2),
                         *np.ravel(s.theta), *np.ravel(s.psi), *np.ravel(s.m), float(b0)])

    def unpack(self, x):
        n, K = len(self.sym), self.K
        cuts = np.cumsum([n, K, n, K, K, K, K])
        q1, q2, V1, V2, th, ps, m, b0 = np.split(np.asarray(x, float), cuts)
        return State(self.sym_matrix(q1), q2, self.sym_matrix(V1), V2, th, ps, m), float(b0[0])

    def admissible(self, x):
        """The domain: ``Q1, V1`` positive definite, ``q2, V2 > 0`` and
        ``psi^T Q1^-1 psi <= 1`` (Cauchy-Schwarz; K = 1: ``psi^2 <= q1``)."""
        if not np.all(np.isfinite(x)):
            return False
        s, _ = self.unpack(x)
        if not (np.all(s.q2 > 0) and np.all(s.V2 > 0) and np.all(np.linalg.eigvalsh(s.V1) > 0)
                and np.all(np.linalg.eigvalsh(s.q1) > 0)):
            return False
        return bool(s.psi @ np.linalg.solve(s.q1, s.psi) <= 1)

    def summary(self, x):
        """The uniform readout's 8 unknowns that the divergence checks read (largest
        variances, total q2, largest |m|)."""
        s, b0 = self.unpack(x)
        return np.array([float(np.max(np.abs(s.q1))), float(np.sum(s.q2)),
                         float(np.max(np.abs(s.V1))), float(np.max(s.V2)), 0.0, 0.0,
                         float(np.max(np.abs(s.m), initial=0.0)), b0])


def _group_start(pack, student, teacher, r, c, gamma, lam, alpha, beta, voc, nodes, start,
                 spectrum=None):
    """Warm start: the ridge's K-group fixed point at the same point, else the reference's
    starting point on the diagonal."""
    if start is not None:
        s, b0 = (start, 0.0) if isinstance(start, State) else start
        return pack.vector(s, b0)
    try:
        sq = solve_srf_groups(student, teacher, r, c, gamma, max(lam, 1e-3), alpha, beta,
                              vocabulary=voc, nodes=int(nodes), tol=1e-8, spectrum=spectrum)
        return pack.vector(sq.state, 0.0)
    except (ConvergenceError, ValueError, ArithmeticError, np.linalg.LinAlgError):
        K = pack.K
        q1, q2, V1, V2, th, ps, m = _START
        return pack.vector(State(q1 * np.eye(K), np.full(K, q2), V1 * np.eye(K), np.full(K, V2),
                                 np.full(K, th), np.full(K, ps), np.zeros(K)), 0.0)


def solve_convex_groups(student, teacher, r, c, gamma, lam, alpha, beta=1.0, *, vocabulary=None,
                        loss="square", noise=0.0, bias=False, nodes=120, tol=1e-10,
                        method="anderson", channel=None, start=None, max_iter=1000,
                        nodes_u=16, threshold=0.0, label_rule="teacher", spectrum=None):
    """The fixed point of docs/theory.md (m) with a readout vocabulary (docs/theory.md (m.8)):
    :class:`GroupConvexChannel` and the block-Wishart prior of the ridge's K-group fixed
    point, iterated by the engine's sweep as in
    :func:`~srfsym.theory.convex_fixed_point.solve_convex_srf` (same arguments; the
    spectrum is the deterministic block-Wishart equivalent).  Always runs the K-group code,
    also for ``vocabulary=None`` / ``[1]`` (that is the check against the uniform solve).
    The kappa rule has the cuts of every group's transitions (as the ridge's K-group solve)
    except for the uniform readout, where it is the uniform convex solve's rule.

    ``start``: a :class:`~srfsym.theory.state.State` of matching shapes, or ``(state, b0)``.
    ``spectrum``: ``None`` (the block-Wishart equivalent) or a realised step bulk split by
    letter (:class:`~srfsym.theory.spectral.step_bulk_groups.StepGroupBulk`, docs/theory.md (g.4.1)):
    its prior and its measured ``r, c, gamma`` and per-letter ``r_j, c_j``, as for the ridge.

    >>> a = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
    ...                         vocabulary=[1], nodes=60, nodes_u=12)
    >>> from srfsym.theory.convex_fixed_point import solve_convex_srf
    >>> b = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
    ...                      nodes=60, nodes_u=12)
    >>> abs(a.classification_error - b.classification_error) < 1e-10
    True
    """
    t0 = time.perf_counter()
    lo = _check_arguments(loss, r, c, gamma, lam, alpha, beta, noise, bias, method, tol, max_iter)
    r, c, gamma, lam, alpha, beta = map(float, (r, c, gamma, lam, alpha, beta))
    _check_threshold(threshold, teacher)
    voc = make_vocabulary(vocabulary)
    check_student(student, voc, measured=getattr(spectrum, "name", None) == "step")
    rs, cs, values = voc.group_spike_strengths(r), voc.group_bulk_variances(c), None
    if spectrum is not None:       # a realised layer split by letter (docs/theory.md (g.4.1))
        if tuple(spectrum.vocabulary.letters) != voc.letters:
            raise ValueError(f"the realised layer's letters {spectrum.vocabulary.letters} are not "
                             f"the vocabulary's {voc.letters}")
        r, c, gamma = spectrum.r, spectrum.c, spectrum.gamma
        rs, cs = spectrum.group_r, spectrum.group_c
        values = (rs, cs)
    cuts = () if voc.is_uniform else node_rule(student, rs, cs, _NODE_LADDER)[0]
    gch = group_channel_data(student, teacher, r, c, gamma, voc, nodes=int(nodes),
                             extra_cuts=cuts, group_values=values)
    C = GroupConvexChannel(gch, lo, alpha=alpha, beta=beta, teacher=teacher, noise=noise,
                           bias=bias, method=channel, nodes_u=nodes_u, threshold=float(threshold),
                           label_rule=label_rule)
    prior = (BlockWishartPrior(gch.group_c, voc.weights, beta, lam) if spectrum is None
             else spectrum.group_prior(lam, beta))
    engine = Engine(C, prior)
    if voc.is_uniform and lo.name != "square":
        _separable_along_constant(_uniform_view(C), lo, bias)
    pack = _Packing(gch.K)
    x = _group_start(pack, student, teacher, r, c, gamma, lam, alpha, beta, voc, nodes, start,
                     spectrum)
    x, iterations, res, hat = _solve_engine(engine, x, tol, max_iter, method, lo, lam, bias,
                                            None, pack.vector, pack.unpack, pack.admissible,
                                            pack.summary)
    state, b0 = pack.unpack(x)
    obs = C.observables(state, b0)
    out = _result(obs, state, hat, lo, C, dict(
        alpha=alpha, lam=lam, beta=beta, r=r, c=c, gamma=gamma,
        spectrum="block-mp" if spectrum is None else spectrum.name,
        nodes=int(nodes), residual=res, method=method, iterations=iterations,
        seconds=time.perf_counter() - t0), noise, b0 if bias else None, label_rule)
    out.vocabulary = voc
    out.groups = {"spike_strength": [float(v) for v in gch.group_r],
                  "bulk_variance": [float(v) for v in gch.group_c]}
    return out


class _uniform_view:
    """The attributes of a K = 1 group channel that the uniform separability check reads."""

    def __init__(self, C):
        for name in ("pm1", "rho", "noise", "bernoulli", "gamma", "k", "threshold"):
            setattr(self, name, getattr(C, name))
        self.mu0 = C.gmu0[0]
