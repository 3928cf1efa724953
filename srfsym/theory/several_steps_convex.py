r"""A convex readout loss after T giant steps (docs/theory.md (p.4)).

The channel is :class:`~srfsym.theory.channels.subspace.SubspaceConvexChannel` (the convex
channel's proximal step on the tensor rule over the subspace ``zeta``, a vector ``theta``
per letter), the prior the block-Wishart side of the ridge after T steps
(:class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior` with the map's ``c_j``),
and the engine's sweep is iterated as for the K-group convex readout
(:func:`srfsym.theory.convex_groups.solve_convex_groups`), started from the ridge's
vector-kappa fixed point at the same point.

>>> from srfsym.theory.problem import Problem
>>> from srfsym.theory.dispatch import solve_problem
>>> res = solve_problem(Problem("tanh", "sign", 0.05, 2.0, alpha0=2, eta=1, steps=2,
...                             loss="logistic"))
>>> 0 < res.classification_error < 0.5
True
"""
from __future__ import annotations

import time

import numpy as np

from .channels.subspace import SubspaceConvexChannel, subspace_channel_data
from .convex_fixed_point import _check_arguments, _result, _solve_engine
from .convex_groups import _Packing
from .engine import Engine
from .several_steps_error import _steps_nodes, solve_subspace
from .steps_mapping import with_map
from .spectral.block_wishart import BlockWishartPrior
from .state import ConvergenceError, State

__all__ = ["solve_convex_subspace", "convex_steps", "MAX_CONVEX_POINTS"]

#: Most points of the convex channel's rule over zeta (each carries an inner label integral
#: of ~100 points and a proximal step per sweep): memory of order 100 MB.
MAX_CONVEX_POINTS = 20_000


class _SubspacePacking(_Packing):
    """:class:`~srfsym.theory.convex_groups._Packing` with ``theta`` K x r."""

    def __init__(self, K, r):
        super().__init__(K)
        self.r = r

    def unpack(self, x):
        n, K = len(self.sym), self.K
        cuts = np.cumsum([n, K, n, K, K * self.r, K, K])
        q1, q2, V1, V2, th, ps, m, b0 = np.split(np.asarray(x, float), cuts)
        return (State(self.sym_matrix(q1), q2, self.sym_matrix(V1), V2,
                      th.reshape(K, self.r), ps, m), float(b0[0]))


def solve_convex_subspace(sch, target, lam, alpha, beta=1.0, *, loss="logistic", noise=0.0,
                          bias=False, tol=1e-10, method="anderson", max_iter=1000,
                          nodes_u=16, start=None):
    """The convex readout's fixed point on the vector-kappa channel data ``sch``
    (:func:`~srfsym.theory.channels.subspace.subspace_channel_data`) of the target
    ``target``: a :class:`~srfsym.theory.convex_fixed_point.ConvexResult` (test MSE,
    classification error for labels +-1, training loss, ...).  ``start``: ``(state, b0)`` of
    matching shapes; else the ridge's fixed point at the same point."""
    t0 = time.perf_counter()
    lo = _check_arguments(loss, 1.0, 1.0, 1.0, lam, alpha, beta, noise, bias, method, tol,
                          max_iter)
    lam, alpha, beta = float(lam), float(alpha), float(beta)
    C = SubspaceConvexChannel(sch, lo, target, alpha=alpha, beta=beta, noise=noise, bias=bias,
                              nodes_u=nodes_u)
    prior = BlockWishartPrior(sch.group_c, sch.vocabulary.weights, beta, lam)
    prior.theta_metric = sch.theta_metric
    pack = _SubspacePacking(sch.K, C.r)
    if start is None:
        try:
            start = (solve_subspace(sch, max(lam, 1e-3), alpha, beta, 1e-8)[2], 0.0)
        except (ConvergenceError, ValueError, ArithmeticError, np.linalg.LinAlgError):
            K = sch.K
            start = (State(0.5 * np.eye(K), np.full(K, 0.5), np.eye(K), np.ones(K),
                           np.zeros((K, C.r)), np.zeros(K), np.zeros(K)), 0.0)
    x, iterations, res, hat = _solve_engine(Engine(C, prior), pack.vector(*start), tol,
                                            max_iter, method, lo, lam, bias, None, pack.vector,
                                            pack.unpack, pack.admissible, pack.summary)
    state, b0 = pack.unpack(x)
    obs = C.observables(state, b0)
    return _result(obs, state, hat, lo, C, dict(
        alpha=alpha, lam=lam, beta=beta, r=float("nan"), c=float("nan"), gamma=float("nan"),
        spectrum="block-mp", nodes=sch.nodes, residual=res, method=method,
        iterations=iterations, seconds=time.perf_counter() - t0), noise, b0 if bias else None,
        "teacher")


def convex_steps(problem, prior, options, start):
    """A convex loss (or label noise, a bias) after ``steps > 1`` giant steps, double
    precision (the dispatch table's solver).  The node error is the change of the test error
    (and of the classification error) with 4 nodes fewer per dimension."""
    p, mapping = problem, prior.spec
    if p.label_rule != "teacher":
        raise ValueError("several giant steps with label_rule='bernoulli' are not derived: the "
                         "vector-kappa convex channel takes the target's own labels (or sign "
                         "labels with probit flips) (docs/theory.md (p.4))")
    nodes = _steps_nodes(options)
    kw = dict(loss=p.loss, noise=p.noise, bias=p.bias, tol=options.tol,
              method="anderson" if options.method == "structured" else options.method,
              max_iter=min(options.max_iter, 1000))
    lam, alpha, beta = float(p.lam), float(p.alpha), float(p.beta)
    sch = subspace_channel_data(p.student, mapping.state, p.teacher, nodes,
                                max_points=MAX_CONVEX_POINTS)
    warm = (start, 0.0) if isinstance(start, State) and np.ndim(start.theta) == 2 else None
    res = solve_convex_subspace(sch, p.teacher, lam, alpha, beta, start=warm, **kw)
    coarse = subspace_channel_data(p.student, mapping.state, p.teacher, nodes, shrink=4,
                                   max_points=MAX_CONVEX_POINTS)
    twin = solve_convex_subspace(coarse, p.teacher, lam, alpha, beta,
                                 start=(res.state, res.bias or 0.0), **kw)
    errs = [abs(res.test_error - twin.test_error)]
    if res.classification_error is not None:
        errs.append(abs(res.classification_error - twin.classification_error))
    res.node_error = max(errs)
    res.r, res.c, res.gamma, res.nodes = mapping.r, mapping.c, mapping.gamma, nodes
    return with_map(res, p, mapping)


convex_steps.label = "convex, T-step map (vector kappa)"
