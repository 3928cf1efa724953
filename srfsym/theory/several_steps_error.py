r"""The ridge test error of the network after T giant steps (docs/theory.md (p.4)).

The first layer after T steps is the T-step map's state (:mod:`srfsym.step.several_steps`);
the readout's fixed point is the K-group fixed point of docs/theory.md (k.7) run on the
channel with a vector kappa (:mod:`srfsym.theory.channels.subspace`) and the block-Wishart
prior with the letters' bulk variances: the same engine and solver, a new channel.

>>> res = several_steps_error("tanh", "sin", 1, 2, 1, lam=0.1, alpha=1.0)
>>> from srfsym.theory.fixed_point import solve_srf
>>> from srfsym.step.mapping import srf_mapping
>>> m = srf_mapping("tanh", "sin", 1, 2)
>>> abs(res.test_error - solve_srf("tanh", "sin", m.r, m.c, m.gamma, 0.1, 1.0).test_error) < 1e-6
True
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from .channels.subspace import SubspaceSquareLossChannel, subspace_channel_data
from .engine import Engine, _anderson, _validate
from .fixed_point_groups import (_GroupProblem, _complete, _residual, _solve_v_newton,
                                 _start_vector, _v_map)
from .problem import Prior
from .steps_mapping import StepsMapping, steps_mapping, with_map  # noqa: F401 (re-exported)
from .result import FixedPointResult
from .spectral.block_wishart import BlockWishartPrior
from .state import ConvergenceError

__all__ = ["several_steps_error", "solve_subspace", "steps_mapping", "StepsMapping",
           "steps_prior", "ridge_steps"]


class _SubspaceProblem(_GroupProblem):
    """The K-group engine on the vector-kappa channel."""

    def __init__(self, sch, alpha, lam, beta):
        channel = SubspaceSquareLossChannel(sch, alpha, beta)
        prior = BlockWishartPrior(sch.group_c, sch.vocabulary.weights, beta, lam)
        prior.theta_metric = sch.theta_metric
        Engine.__init__(self, channel, prior)
        self.K = sch.K
        self.sym = channel.sym


def solve_subspace(sch, lam: float, alpha: float, beta: float = 1.0, tol: float = 1e-10,
                   max_iter: int = 20000, start=None, details: bool = False):
    """``(test_error, train_error, state)`` of the ridge readout on the channel data ``sch``
    (:func:`~srfsym.theory.channels.subspace.subspace_channel_data`); ``start`` a warm start
    (a state with ``V1``, ``V2`` of matching shape; it does not change the answer);
    ``details``: also ``(hats, residual, iterations, notes)``."""
    _validate(alpha, lam, beta)
    P = _SubspaceProblem(sch, alpha, lam, beta)
    notes, iterations = [], 0
    try:
        x, iterations = _solve_v_newton(P, _start_vector(P, start))
    except (ConvergenceError, np.linalg.LinAlgError) as exc:
        notes.append(f"Newton failed ({exc}); Anderson iteration on (V1, V2)")
        x, iterations, _ = _anderson(lambda v: _v_map(P, v), _start_vector(P, None),
                                     tol * 1e-2, max_iter)
    V1, V2 = P.unpack(x)
    state, _ = _complete(P, V1, V2)
    res, _ = _residual(P, state)
    if not res < tol:
        raise ConvergenceError(f"fixed point not verified: the final sweep moves the order "
                               f"parameters by {res:.3e} > tol = {tol:g}", residual=res,
                               iterate=state)
    test, train = (float(v) for v in P.errors(state))
    if details:
        return test, train, state, (P.hats(state)[0], res, iterations, notes)
    return test, train, state


def several_steps_error(student, target, eta, alpha0, steps, lam, alpha, beta: float = 1.0,
                        vocabulary=None, nodes: int = 24, map_nodes: int = 24,
                        isotropic: bool = True) -> "SubspaceResult":
    """Ridge test error after ``steps`` giant steps (theory, ``d -> infinity``).

    The node error is the change of the test error with 4 nodes fewer per dimension in the
    readout's rule (the map's own node error is ``result.map.node_error``).  ``isotropic``
    (default): the bulk has variance ``c_j`` along every direction, as the one-step theory
    assumes; ``False`` puts the map's covariance of the bulk inside the subspace
    (``StepState.bulk_in_subspace``, which matches the network) into the bulk-linear overlaps
    only -- an incomplete treatment that overshoots (docs/theory.md (p.4)).

    >>> r = several_steps_error("relu", "z1 + z1*z2", 1, 2, 2, 0.1, 1.0, vocabulary=[1, -1])
    >>> r.test_error < several_steps_error("relu", "z1 + z1*z2", 1, 2, 1, 0.1, 1.0,
    ...                                    vocabulary=[1, -1]).test_error
    True
    """
    from ..step.several_steps import several_steps
    t0 = time.perf_counter()
    m = several_steps(student, target, eta, alpha0, steps, vocabulary, map_nodes)
    state = m.states[-1]
    sch = subspace_channel_data(student, state, target, nodes, isotropic)
    test, train, st = solve_subspace(sch, lam, alpha, beta)
    coarse = subspace_channel_data(student, state, target, nodes, isotropic, shrink=4)
    test_c, _, _ = solve_subspace(coarse, lam, alpha, beta)
    return SubspaceResult(float(test), float(train), abs(float(test) - float(test_c)), m, st,
                          time.perf_counter() - t0)


def steps_prior(problem, mapping) -> Prior:
    """The prior after several steps: the map's summary ``(r, c, gamma)`` and the map itself
    (the solver builds the block-Wishart prior with the letters' ``c_j``)."""
    if mapping is None:
        mapping = steps_mapping(problem)
    return Prior((mapping.r, mapping.c, mapping.gamma), mapping, None, "block-mp")


def _steps_nodes(options) -> int:
    return 24 if options.nodes == "auto" else int(options.nodes)


def ridge_steps(problem, prior, options, start) -> FixedPointResult:
    """The square loss after ``steps > 1`` giant steps: the K-group fixed point on the
    vector-kappa channel of the map's last state (uniform readout: K = 1), double precision.
    The node error is the change of the test error with 4 nodes fewer per dimension."""
    t0 = time.perf_counter()
    p, mapping = problem, prior.spec
    nodes = _steps_nodes(options)
    lam, alpha, beta = float(p.lam), float(p.alpha), float(p.beta)
    sch = subspace_channel_data(p.student, mapping.state, p.teacher, nodes)
    try:
        test, train, state, (hats, res, its, notes) = solve_subspace(
            sch, lam, alpha, beta, options.tol, options.max_iter, start, details=True)
    except (ConvergenceError, ValueError, np.linalg.LinAlgError):
        if start is None:
            raise
        test, train, state, (hats, res, its, notes) = solve_subspace(
            sch, lam, alpha, beta, options.tol, options.max_iter, None, details=True)
    coarse = subspace_channel_data(p.student, mapping.state, p.teacher, nodes, shrink=4)
    test_c = solve_subspace(coarse, lam, alpha, beta, options.tol, options.max_iter)[0]
    out = FixedPointResult(test, train, state, hats, alpha, lam, beta, mapping.r, mapping.c,
                           mapping.gamma, prior.name, nodes, res, "structured-subspace",
                           its, time.perf_counter() - t0, node_error=abs(test - test_c),
                           notes=list(notes))
    return with_map(out, p, mapping)


ridge_steps.label = "ridge, T-step map (vector kappa)"


class SubspaceResult:
    """Test and training error after T steps, the readout rule's node error, the T-step map."""

    def __init__(self, test_error, train_error, node_error, map_, state, seconds):
        self.test_error, self.train_error, self.node_error = test_error, train_error, node_error
        self.map, self.state, self.seconds = map_, state, seconds

    def __repr__(self):
        return (f"SubspaceResult(test_error={self.test_error:.6g}, train_error="
                f"{self.train_error:.6g}, node_error={self.node_error:.1e})")
