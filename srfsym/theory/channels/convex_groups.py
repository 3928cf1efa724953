r"""A convex readout loss with a readout vocabulary of K letters (docs/theory.md (m.8)).

The channel of :mod:`srfsym.theory.channels.convex` sees the order parameters only through
four numbers per kappa node: the mean ``b(kappa)``, the variance ``Q(kappa)`` and the
replica variance ``V(kappa)`` of the cavity field and its covariance ``s(kappa)`` with the
teacher's ``z``.  With K groups (docs/theory.md (k.7)) these are sums over the groups::

    b = b0 + sum_j (mu0_j m_j + kappa mu1_j theta_j),   s = sum_j mu1_j psi_j
    Q = mu1^T Q1 mu1 + sum_j mu*_j^2 q2_j,              V = mu1^T V1 mu1 + sum_j mu*_j^2 V2_j

so the proximal step and the four per-kappa expectations ``E f, E f^2, E g, E[z f]`` are
those of the uniform readout at these totals (one proximal pass per sweep, whatever K), and
the conjugates are the derivatives of the channel potential ``Psi = E_kappa E M_V(y, omega)``
through ``dQ/dQ1_jl = mu1_j mu1_l``, ``dV/dV2_j = mu*_j^2``, ...::

    V1^_jl = (alpha/beta) E_k mu1_j mu1_l E g        V2^_j = (alpha/beta) E_k mu*_j^2 E g
    Q1^_jl = (alpha/beta) E_k mu1_j mu1_l E f^2      q2^_j = (alpha/beta) E_k mu*_j^2 E f^2
    th^_j  = (alpha/sqrt beta) E_k kappa mu1_j E f
    psi^_j = (alpha/sqrt beta) E_k mu1_j (E[z f] + s E g)
    m : E_k mu0_j E f = 0 (j = 1..K, minimum norm),   b0 : E_k E f = 0.

For the square loss ``E f = (h - b) w``, ``E f^2 = eps w^2``, ``E g = w``,
``E[z f] = (h1 - s) w`` and these are the conjugates of
:class:`~srfsym.theory.channels.square.GroupSquareLossChannel`.  The prior is the ridge's
block-Wishart side (:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`); the
engine's sweep is iterated as for the uniform convex readout
(:func:`srfsym.theory.convex_fixed_point._solve_engine`).

>>> res = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
...                           vocabulary=[1, 2], nodes=60, nodes_u=12)
>>> res.state.V1.shape, 0 < res.classification_error < 0.5
((2, 2), True)
"""
from __future__ import annotations

import math
import time

import numpy as np

from .kappa_quadrature import group_channel_data, node_rule
from .convex import ConvexChannel, _channel_point
from ..convex_fixed_point import _check_arguments, _check_threshold, _result, _solve_engine
from ..engine import _START, Engine, _NODE_LADDER
from ..spectral.block_wishart import BlockWishartPrior
from .square import PINV_RTOL, _sym_index
from ..state import ConvergenceError, Hats, State
from ...step.vocabulary import check_student, vocabulary as make_vocabulary

__all__ = ["GroupConvexChannel", "solve_convex_groups"]


class GroupConvexChannel(ConvexChannel):
    """:class:`~srfsym.theory.channels.convex.ConvexChannel` on the channel data of a readout
    vocabulary (:class:`~srfsym.theory.channels.kappa_quadrature.GroupChannelData`, any K, also K = 1): the
    same labels, rules and proximal step; the state has K x K ``V1, q1`` and K-vectors
    ``V2, q2, theta, psi, m`` (docs/theory.md (m.8)).

    >>> from srfsym.theory.channels.kappa_quadrature import group_channel_data
    >>> g = group_channel_data("tanh", "sign", 1.0, 1.1, 0.8, [1, 2], nodes=40)
    >>> C = GroupConvexChannel(g, "logistic", alpha=2.0, beta=1.0, teacher="sign", nodes_u=8)
    >>> s = State(0.5 * np.eye(2), np.full(2, 0.3), 0.5 * np.eye(2), np.full(2, 0.5),
    ...           np.full(2, 0.2), np.full(2, 0.1), np.zeros(2))
    >>> step = C.conjugates(s)
    >>> step.hats.V1hat.shape, bool(np.allclose(step.hats.q1hat, step.hats.q1hat.T))
    ((2, 2), True)
    """

    def __init__(self, gch, loss="square", **kwargs):
        super().__init__(gch, loss, **kwargs)
        self.K = gch.K
        self.gmu0, self.gmu1, self.gmus2 = (
            np.asarray(getattr(gch, n), float).reshape(self.K, -1)[:, self._live]
            for n in ("mu0", "mu1", "mustar2"))          # the live kappa nodes of the channel
        self.kmu1 = self.k * self.gmu1
        self.sym = _sym_index(self.K)
        # the uniform readout's rows are not used here (an accidental use fails loudly)
        self.mu0 = self.mu1 = self.mus2 = self.mu1sq = None
        # the directions of (m, b0) the data see: E[a a^T] on the rows a = mu0_j (and 1)
        rows = [*self.gmu0] + ([np.ones_like(self.k)] if self.trained_bias else [])
        self._mean_rows = np.array(rows)
        gram = np.einsum("jn,ln,n->jl", self._mean_rows, self._mean_rows, self.w)
        ev, U = np.linalg.eigh(gram)
        keep = ev > max(PINV_RTOL * max(float(np.max(np.abs(ev))), 0.0), 1e-24)
        self._mean_basis = U[:, keep]

    # --- state -> per-kappa Gaussian ------------------------------------------------
    def point(self, q1, q2, V1, V2, theta, psi, m, b0=0.0):
        mu1, mus2 = self.gmu1, self.gmus2
        b = b0 + np.asarray(m, float) @ self.gmu0 + np.asarray(theta, float) @ self.kmu1
        Q = np.maximum(np.einsum("jn,jl,ln->n", mu1, np.asarray(q1, float), mu1)
                       + np.asarray(q2, float) @ mus2, 0.0)
        V = np.maximum(np.einsum("jn,jl,ln->n", mu1, np.asarray(V1, float), mu1)
                       + np.asarray(V2, float) @ mus2, 0.0)
        psi = np.asarray(psi, float)
        return _channel_point(b, Q, V, psi @ mu1, psi)

    # --- the channel equations ------------------------------------------------------
    def hats(self, mom, psi):
        """The K-group conjugates from the per-kappa moments (module text)."""
        a_b, a_sb = self.alpha / self.beta, self.alpha / math.sqrt(self.beta)
        mu1, w = self.gmu1, self.w
        s = np.asarray(psi, float) @ mu1
        outer = lambda v: np.einsum("jn,ln,n->jl", mu1, mu1, w * v)   # noqa: E731
        return Hats(a_b * outer(mom["Ef2"]), a_b * (self.gmus2 @ (w * mom["Ef2"])),
                    a_b * outer(mom["Eg"]), a_b * (self.gmus2 @ (w * mom["Eg"])),
                    a_sb * (self.kmu1 @ (w * mom["Ef"])),
                    a_sb * (mu1 @ (w * (mom["Ezf"] + s * mom["Eg"]))))

    def bias_step(self, mom, m, b0, bias):
        """One Newton step on the convex potential in ``(m, b0)`` restricted to the
        directions the data see (the minimum-norm ``m`` of the ridge: components along
        ``sum_j c_j mu0_j = 0`` stay 0); the same cap on wild steps as the uniform readout."""
        x = np.concatenate([np.asarray(m, float), [b0] if bias else []])
        U = self._mean_basis
        A, w = self._mean_rows, self.w
        if U.shape[1] == 0:
            new = np.zeros_like(x)
        else:
            grad = U.T @ (A @ (w * mom["Ef"]))
            hess = U.T @ np.einsum("jn,ln,n->jl", A, A, w * mom["Eg"]) @ U
            try:
                step = U @ np.linalg.solve(hess, grad)
            except np.linalg.LinAlgError:
                step = U @ (grad / np.maximum(np.diag(hess), 1e-12))
            cap = 2.0 + 0.5 * float(np.sum(np.abs(x)))
            step *= min(1.0, cap / max(float(np.max(np.abs(step))), 1e-300))
            new = U @ (U.T @ (x + step))
        return new[:self.K], (float(new[self.K]) if bias else 0.0)

    _m_of = staticmethod(lambda m: np.asarray(m, float))     # one m_j per letter


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
    from ..fixed_point_groups import solve_srf_groups
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
    check_student(student, voc)
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
        from ..convex_fixed_point import _separable_along_constant
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
