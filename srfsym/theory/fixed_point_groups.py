r"""The ridge fixed point with a finite readout vocabulary: one set of order parameters
per letter (docs/theory.md (k.7)).

Group ``j`` (the neurons with letter ``omega_j``, weight ``pi_j``) has the cGET
coefficients ``mu0^(j), mu1^(j), mu*^(j)`` of spike ``r omega_j`` and bulk variance
``c_j`` (:func:`srfsym.theory.channels.kappa_quadrature.group_channel_data`).  The order parameters are K x K
symmetric matrices ``V1, Q1`` (cross-group overlaps) and K-vectors ``V2, q2, m, theta,
psi``; the conjugates have the same shapes.  The engine (:mod:`srfsym.theory.engine`) runs
the channel :class:`~srfsym.theory.channels.square.GroupSquareLossChannel` (its docstring
states the per-group conjugates, docs/theory.md (k.7))
and the prior :class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior` (block-Wishart
deterministic equivalent) with ``B = C^1/2 V1^ C^1/2``,
``Lambda = diag(pi_j r_j)``::

    r_j = 1 / (lambda + V2^_j + [B (I + beta Lambda B)^-1]_jj)      (K unknowns r_j)
    V2_j = pi_j r_j,   V1 = C^1/2 (I + beta Lambda B)^-1 Lambda C^1/2
    theta_j = sqrt(beta) c_j V2_j th^_j,   psi = sqrt(beta) V1 psi^
    (Q1, q2) = -J[Q1^, q2^] - grad G,  G = sum_j c_j th^_j^2 V2_j + psi^T V1 psi^

where ``J = d(V1, V2)/d(V1^, V2^)`` is obtained exactly by differentiating the
r-equation implicitly (``BlockWishartPrior.prior_derivative``).  For the uniform readout
(K = 1, omega = 1) this is the system of :mod:`srfsym.theory.fixed_point` with the
Marchenko-Pastur closed forms; ``derivations/12_vocabulary_test_error.py`` states and
checks each step.

**Solver.** As for the uniform readout: Newton on the closed (V1, V2) subsystem (exact
Jacobian: channel derivatives times the implicit prior derivative; fallback Anderson),
then the affine parts (m, theta), psi and (Q1, q2) by linear solves read off the same
sweep, then one verifying full sweep.

>>> from srfsym.theory.fixed_point import solve_srf
>>> from srfsym.theory.bounds import bounds
>>> res = solve_srf("tanh", "sin", 1.134, 1.019, 1.0, lam=0.1, alpha=1.0, vocabulary=[1, 2])
>>> res.state.V1.shape, res.state.m.shape
((2, 2), (2,))
>>> bounds("tanh", "sin", 1.134, 1.019, 1.0, vocabulary=[1, 2]).lower < res.test_error
True

For an odd student ``{+1, -1}`` is the uniform readout (docs/theory.md (k.7.7)):

>>> sym = solve_srf("tanh", "sin", 1.134, 1.019, 1.0, 0.1, 1.0, vocabulary=[1, -1])
>>> uni = solve_srf("tanh", "sin", 1.134, 1.019, 1.0, 0.1, 1.0)
>>> abs(sym.test_error - uni.test_error) < 1e-12
True
"""
from __future__ import annotations

import math
import time

import numpy as np

from .channels.kappa_quadrature import group_channel_data, node_rule, validate_srf_parameters
from .engine import (Engine, _NODE_LADDER, _anderson, _complete_full, _validate,
                     _validate_solver, newton)
from .result import FixedPointResult
from .spectral.block_wishart import GroupPrior, BlockWishartPrior
from .channels.square import GroupMultiIndexSquareChannel, GroupSquareLossChannel, PINV_RTOL as _PINV_RTOL, _sym_index  # noqa: F401
from .state import ConvergenceError, Hats, State, climb_nodes  # noqa: F401
from ..step.vocabulary import check_student, vocabulary as make_vocabulary

__all__ = ["solve_srf_groups", "GroupPrior"]


class _GroupProblem(Engine):
    """The K-group engine: :class:`GroupSquareLossChannel` and :class:`BlockWishartPrior`
    at ``(alpha, lam, beta)``; the attributes of both sides read through (``P.mu1``,
    ``P.prior(...)``), and (V1, V2) packed into one vector for the solvers."""

    conditional_error = GroupSquareLossChannel.conditional_error
    mean_part = GroupSquareLossChannel.mean_part

    def __init__(self, gch, alpha, lam, beta, spectrum=None, h1=None):
        channel = GroupSquareLossChannel(gch, alpha, beta) if h1 is None else \
            GroupMultiIndexSquareChannel(gch, alpha, beta, h1)   # multi-index hook (issue 28)
        prior = BlockWishartPrior(gch.group_c, gch.vocabulary.weights, beta, lam) \
            if spectrum is None else spectrum.group_prior(lam, beta)
        super().__init__(channel, prior)
        self.K = gch.K
        self.sym = _sym_index(self.K)

    def __getattr__(self, name):
        if name in ("channel", "prior"):     # not yet set (copy, unpickling)
            raise AttributeError(name)
        for side in (self.channel, self.prior):
            try:
                return getattr(side, name)
            except AttributeError:
                pass
        raise AttributeError(name)

# ======================================================================================
# solver

def _v_map(P: _GroupProblem, x, with_jacobian=False):
    """(V1, V2) -> hats -> prior -> (V1, V2), packed; optionally its exact Jacobian."""
    V1, V2 = P.unpack(x)
    V1hat, V2hat, w = P.v_hats(V1, V2)
    if not np.all(w > 0):
        raise ConvergenceError("1 + V(kappa) <= 0: the variance matrix left its domain",
                               residual=float("inf"), iterate=x)
    pr = P.prior.prior(V1hat, V2hat)
    G = P.pack(pr.V1, pr.V2)
    if not with_jacobian:
        return G
    w2 = w * w
    cols = []
    for i in range(len(x)):
        e = np.zeros(len(x))
        e[i] = 1.0
        dV1, dV2 = P.unpack(e)
        dV = P.variance(dV1, dV2)                        # linear in (V1, V2)
        dV1hat = -P.a_b * P.outer_E(P.mu1, P.mu1, w2 * dV)
        dV2hat = -P.a_b * P.E(P.mus2 * (w2 * dV))
        g1, g2 = P.prior_linear(pr, dV1hat, dV2hat)
        cols.append(P.pack((g1 + g1.T) / 2, g2))
    return G, np.array(cols).T


def _to_log_cholesky(P: _GroupProblem, x):
    """Packed (V1, V2) -> u: the Cholesky factor of V1 with log diagonal, log V2.

    Newton in u keeps V1 positive definite and V2 positive (for K = 1, ``u`` is
    ``(log V1 / 2, log V2)``: the uniform solver's log variables)."""
    V1, V2 = P.unpack(x)
    L = np.linalg.cholesky(V1)
    return np.concatenate([[math.log(L[j, j]) if j == l else L[l, j] for j, l in P.sym],
                           np.log(V2)])


def _from_log_cholesky(P: _GroupProblem, u, with_jacobian=False):
    """u -> packed (V1, V2) and, optionally, its Jacobian dx/du."""
    K, nsym = P.K, len(P.sym)
    L = np.zeros((K, K))
    for v, (j, l) in zip(u, P.sym):
        if j == l:
            L[j, j] = math.exp(v)
        else:
            L[l, j] = v
    V2 = np.exp(u[nsym:])
    x = P.pack(L @ L.T, V2)
    if not with_jacobian:
        return x
    D = np.zeros((len(u), len(u)))
    for i, (j, l) in enumerate(P.sym):
        dL = np.zeros((K, K))
        if j == l:
            dL[j, j] = L[j, j]
        else:
            dL[l, j] = 1.0
        D[:nsym, i] = P.pack(dL @ L.T + L @ dL.T, np.zeros(K))[:nsym]
    D[nsym:, nsym:] = np.diag(V2)
    return x, D


def _solve_v_newton(P: _GroupProblem, x, max_iter=80):
    """Newton (the engine's :func:`~srfsym.theory.engine.newton`) on the log-Cholesky
    variables of (V1, V2) with the exact Jacobian: F(u) = phi(G(psi(u))) - u with psi the
    log-Cholesky map, phi = psi^-1."""
    n = len(x)

    def F(u):
        return _to_log_cholesky(P, _v_map(P, _from_log_cholesky(P, u))) - u

    def jacobian(u):
        xu, Dpsi = _from_log_cholesky(P, u, with_jacobian=True)
        G, JG = _v_map(P, xu, with_jacobian=True)
        _, Dpsi_G = _from_log_cholesky(P, _to_log_cholesky(P, G), with_jacobian=True)
        return np.linalg.solve(Dpsi_G, JG @ Dpsi) - np.eye(n)

    try:
        u, it = newton(F, jacobian, _to_log_cholesky(P, x), 1e-13, max_iter, catch=True)
    except ConvergenceError as exc:
        exc.iterate = _from_log_cholesky(P, exc.iterate)
        raise
    return _from_log_cholesky(P, u), it


def _complete(P: _GroupProblem, V1, V2):
    """Given (V1, V2): (m, theta), psi, (Q1, q2) by the engine's affine solves
    (:func:`srfsym.theory.engine.complete`); returns the state and the prior's solution."""
    state, _, _, pr = _complete_full(P, V1, V2)
    return state, pr


def _residual(P: _GroupProblem, s: State):
    new = P.sweep(s)
    res = 0.0
    for a, b in zip(new, s):
        a, b = np.asarray(a, float), np.asarray(b, float)
        res = max(res, float(np.max(np.abs(a - b) / np.maximum(1.0, np.abs(b)))))
    return res, new


def _start_vector(P: _GroupProblem, start):
    """A warm start of matching shape, else one application of the (V1, V2) map at 0."""
    if start is not None:
        V1, V2 = np.asarray(start.V1, dtype=float), np.asarray(start.V2, dtype=float)
        if V1.shape == (P.K, P.K) and V2.shape == (P.K,):
            return P.pack(V1, V2)
    return _v_map(P, np.zeros(len(P.sym) + P.K))


def _solve_at(student, teacher, r, c, gamma, lam, alpha, beta, voc, nodes, tol, start,
              max_iter, cuts=(), spectrum=None, teacher_data=None):
    t0 = time.perf_counter()
    values = None if spectrum is None else (spectrum.group_r, spectrum.group_c)
    gch = group_channel_data(student, teacher, r, c, gamma, voc, nodes=nodes, extra_cuts=cuts,
                             group_values=values)
    h1 = None
    if teacher_data is not None:    # multi-index hook (issue 28): (h, h1, h2) on gch's nodes
        gch, h1 = teacher_data(gch)
    P = _GroupProblem(gch, alpha, lam, beta, spectrum, h1)
    notes = []
    x0 = _start_vector(P, start)
    try:
        x, iterations = _solve_v_newton(P, x0)
    except (ConvergenceError, np.linalg.LinAlgError) as exc:
        notes.append(f"Newton failed ({exc}); Anderson iteration on (V1, V2)")
        try:
            x, iterations, _ = _anderson(lambda v: _v_map(P, v), _start_vector(P, None),
                                         tol * 1e-2, max_iter)
        except ConvergenceError as exc2:
            hint = ("; with lambda = 0 and alpha <= beta the ridgeless (interpolating) limit may "
                    "have no finite fixed point: use lambda > 0") if P.lam == 0 else ""
            raise ConvergenceError(f"no fixed point for (V1, V2): Newton failed ({exc}), then "
                                   f"the Anderson iteration failed ({exc2}){hint}",
                                   residual=exc2.residual, iterate=exc2.iterate) from None
    V1, V2 = P.unpack(x)
    state, pr = _complete(P, V1, V2)
    res, _ = _residual(P, state)
    cond = P.mean_condition()
    ill = (f"the letters' mean functions mu0^(j) are nearly linearly dependent (Gram condition "
           f"number {cond:.1e}): the unregularised m_j are large and ill-conditioned "
           "(nearly coinciding letters)") if cond > 1e8 else ""
    if not res < tol:
        raise ConvergenceError(f"fixed point not verified: final sweep moves the order "
                               f"parameters by {res:.3e} > tol = {tol:g}"
                               + (f"; {ill}" if ill else ""), residual=res, iterate=state)
    if ill:
        notes.append(ill)
    test, train = (float(v) for v in P.errors(state))
    hat, _ = P.hats(state)
    out = FixedPointResult(
        test_error=test, train_error=train, state=state, hats=hat, alpha=float(alpha),
        lam=float(lam), beta=float(beta), r=float(r), c=float(c), gamma=float(gamma),
        spectrum="block-mp" if spectrum is None else spectrum.name, nodes=nodes, residual=res, method="structured-groups",
        iterations=iterations, seconds=time.perf_counter() - t0, notes=notes)
    out.vocabulary = voc
    out.rule_size = len(gch.groups[0].kappa)   # the nodes the rule really has (climb_nodes)
    out.groups = {"spike_strength": [float(v) for v in gch.group_r],
                  "bulk_variance": [float(v) for v in gch.group_c]}
    if spectrum is None:
        out.groups["resolvent"] = pr.r.tolist()
    else:
        out.groups["V2"] = pr.V2.tolist()
    return out


def solve_srf_groups(student, teacher, r, c, gamma, lam, alpha, beta=1.0, *, vocabulary=None,
                     nodes="auto", tol=1e-10, start=None, max_iter=20000, spectrum=None):
    """The K-group fixed point of docs/theory.md (k.7) at sRF parameters (r, c, gamma).

    Always runs the K-group equations, also for the uniform readout (that is the check
    against :func:`srfsym.theory.fixed_point.solve_srf`, which runs today's uniform code for
    ``vocabulary=None`` or ``[1]`` and calls this function otherwise).  The spectrum is
    the deterministic block-Wishart equivalent (``d -> infinity``), or, with ``spectrum=`` a
    :class:`~srfsym.theory.spectral.step_bulk_groups.StepGroupBulk`, the sums of a realised first layer
    (its measured ``r_j, c_j, gamma`` on the channel side; ``r, c, gamma`` are then ignored:
    docs/theory.md (g.4)); double precision.

    Non-odd students are refused unless the vocabulary is uniform: the ``mu0 != 0``
    correction of the step (``f0 -> mu0 E omega``, docs/theory.md (k.1)) is not derived.

    >>> res = solve_srf_groups("tanh", "sin", 1.134, 1.019, 1.0, 0.1, 1.0, vocabulary=[1])
    >>> from srfsym.theory.fixed_point import solve_srf
    >>> abs(res.test_error - solve_srf("tanh", "sin", 1.134, 1.019, 1.0, 0.1, 1.0).test_error) < 1e-12
    True
    """
    t0 = time.perf_counter()
    _validate(alpha, lam, beta)
    _validate_solver(tol, max_iter)
    validate_srf_parameters(r, c, gamma)
    voc = make_vocabulary(vocabulary)
    check_student(student, voc, measured=getattr(spectrum, "name", None) == "step")
    r, c, gamma = float(r), float(c), float(gamma)
    rs, cs = voc.group_spike_strengths(r), voc.group_bulk_variances(c)
    if spectrum is not None:
        if tuple(spectrum.vocabulary.letters) != voc.letters:
            raise ValueError(f"the realised layer's letters {spectrum.vocabulary.letters} are not "
                             f"the vocabulary's {voc.letters}")
        r, c, gamma = spectrum.r, spectrum.c, spectrum.gamma
        rs, cs = spectrum.group_r, spectrum.group_c
    # large r: the rule cut at every group's transitions, nodes counted over the pieces
    cuts, ladder = node_rule(student, rs, cs, _NODE_LADDER)
    if nodes == "auto":
        res = climb_nodes(lambda n, prev: _solve_at(
            student, teacher, r, c, gamma, lam, alpha, beta, voc, n, tol,
            start if prev is None else prev.state, max_iter, cuts, spectrum), ladder,
            "solve_srf_groups")
    else:
        if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)):
            raise ValueError(f"nodes must be an integer or 'auto', got {nodes!r}")
        res = _solve_at(student, teacher, r, c, gamma, lam, alpha, beta, voc, int(nodes), tol,
                        start, max_iter, cuts, spectrum)
    res.seconds = time.perf_counter() - t0
    return res
