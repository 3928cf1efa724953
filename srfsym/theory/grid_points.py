r"""The (alpha, lambda) grid point by point: every problem the batch does not vectorise.

:func:`srfsym.theory.grid.solve_grid` solves the square loss with the uniform readout in one
batched computation; every other problem of the dispatch table (a convex loss, label noise,
a bias, Bernoulli labels; a readout vocabulary; mpmath precision; with any bulk the single
solve takes) is solved here, point by point, by :func:`~srfsym.theory.dispatch.solve_problem`
with the prior (the bulk) built once.  A convex loss with the uniform readout is continued
along ``alpha`` (:func:`~srfsym.theory.convex_fixed_point._column_start`: extrapolation
through the last points, inherited Anderson pairs); the warm start changes the path, not
the fixed point (each point is verified by its final sweep).

With a vocabulary (K > 1) the order parameters are per group: the grid's ``state`` arrays
are NaN and ``results[i][j]`` holds each point's result (totals ``test_error``,
``train_error`` in the arrays as usual).

>>> g = convex_solve_grid("tanh", "sign", 2, 2, [1.0, 2.0], [0.05], loss="logistic",
...                       nodes=60, nodes_u=12)
>>> g.classification_error.shape, bool(g.converged.all())
((2, 1), True)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .convex_fixed_point import GridContext, _column_start, _vector
from .dispatch import build_prior, refusal, solve_problem
from .grid_result import GridResult, _grid_axis
from .problem import Options, Problem
from .solvers import convex
from .state import ConvergenceError, State

__all__ = ["ConvexGridResult", "convex_solve_grid", "point_grid"]

_STATE = ("q1", "q2", "V1", "V2", "theta", "psi", "m")
_VALUES = ("test_error", "train_error", "classification_error", "train_loss", "bias",
           "residual")


@dataclass
class ConvexGridResult(GridResult):
    """A :class:`~srfsym.theory.grid.GridResult` with a convex loss: also
    ``classification_error`` (labels +-1, else NaN), ``train_loss`` (penalty excluded) and
    ``bias`` (the trained output bias, or None), arrays of the grid's shape."""

    classification_error: np.ndarray = None
    train_loss: np.ndarray = None
    bias: np.ndarray | None = None
    loss: str = "square"
    noise: float = 0.0
    results: list | None = None


def convex_solve_grid(student, teacher, alpha0, eta, alphas, lams, beta=1.0, spectrum="mp", *,
                      loss="square", noise=0.0, bias=False, nodes=120, nodes_u=16, tol=1e-10,
                      mu0_correction=True, on_failure="report", d=None, seed=0,
                      label_rule="teacher", bulk="isotropic", vocabulary=None):
    """:func:`srfsym.theory.grid.solve_grid` with a loss, label noise or a trained bias
    (it calls this): a thin wrapper building the problem family for :func:`point_grid`.
    Returns a :class:`ConvexGridResult`.

    >>> g = convex_solve_grid("tanh", "sign", 2, 2, [1.0], [0.05], loss="hinge",
    ...                       nodes=60, nodes_u=12)
    >>> bool(g.converged.all()), g.loss
    (True, 'hinge')
    """
    family = Problem(student, teacher, None, None, beta, alpha0=alpha0, eta=eta,
                     spectrum=spectrum, d=d, seed=seed, loss=loss, noise=noise, bias=bias,
                     label_rule=label_rule, mu0_correction=mu0_correction, bulk=bulk,
                     vocabulary=vocabulary)
    return point_grid(family, alphas, lams, Options(nodes=nodes, tol=tol, method="anderson",
                                                    max_iter=1000),
                      on_failure=on_failure, nodes_u=nodes_u)


def point_grid(family: Problem, alphas, lams, options: Options, *, on_failure="report",
               nodes_u=16, mapping=None, prior=None, t0=None) -> ConvexGridResult:
    """Every point of ``alphas x lams`` of the problem ``family`` (its ``alpha`` and ``lam``
    unset) by :func:`~srfsym.theory.dispatch.solve_problem`, the prior built once."""
    t0 = time.perf_counter() if t0 is None else t0
    if on_failure not in ("report", "raise"):
        raise ValueError(f"on_failure must be 'report' or 'raise', got {on_failure!r}")
    alphas = _grid_axis("alphas", alphas, 0.0, True)
    lams = _grid_axis("lams", lams, 0.0, False)
    reason = refusal(family, options)
    if reason is not None:
        raise ValueError(reason)
    mapping = family.mapping() if mapping is None else mapping
    prior = build_prior(family, mapping) if prior is None else prior   # one bulk for all
    shape = (alphas.size, lams.size)
    vals = {k: np.full(shape, np.nan) for k in _STATE + _VALUES}
    ok = np.zeros(shape, bool)
    method = np.full(shape, "failed", dtype=object)
    results = [[None] * lams.size for _ in alphas]
    failures, notes, iterations, nodes = [], list(mapping.notes if mapping else []), 0, None
    if prior.note is not None:
        notes.append(prior.note)
    continued = family.key[:2] == ("uniform", "convex") and family.target == "single"
    ctx, first = GridContext(train_classification=False), None
    for j, lam in enumerate(lams):
        done = []
        for i, a in enumerate(alphas):
            point = family.at(alpha=float(a), lam=float(lam))
            try:
                if continued:
                    start = _column_start(ctx, first, done, i, a)
                    res = convex(point, prior, options, start, context=ctx,
                                 nodes_u=nodes_u)
                else:
                    res = solve_problem(point, options, prior=prior, mapping=mapping)
            except (ConvergenceError, ValueError, ArithmeticError) as exc:
                last = getattr(exc, "residual", None)
                failures.append({"alpha": float(a), "lam": float(lam),
                                 "residual": np.nan if last is None else float(last),
                                 "message": str(exc)})
                done, ctx.pairs = [], []
                continue
            if continued:
                done = (done + [(float(a), _vector(res.state, res.bias or 0.0))])[-3:]
                if i == 0:
                    first = (done[-1][1], list(ctx.pairs))
            _store(vals, i, j, res)
            results[i][j] = res
            ok[i, j] = True
            method[i, j] = (f"single-point ({res.loss}, {res.channel})"
                            if hasattr(res, "channel") else f"single-point ({res.method})")
            iterations, nodes = max(iterations, res.iterations), res.nodes
            notes += [n for n in res.notes if n not in notes]
    if failures and on_failure == "raise":
        raise ConvergenceError("grid points not solved: " + "; ".join(
            f"(alpha={f['alpha']:g}, lambda={f['lam']:g}): {f['message']}" for f in failures),
            residual=math.inf)
    return _result(family, prior, alphas, lams, vals, ok, method, results, failures, notes,
                   iterations, nodes if nodes is not None else options.nodes, options, mapping,
                   t0)


def _store(vals, i, j, res):
    if np.ndim(res.state.V1) == 0:
        for k, v in zip(_STATE, res.state):
            vals[k][i, j] = v
    for k in _VALUES:
        v = getattr(res, k, None)
        vals[k][i, j] = np.nan if v is None else v


def _result(family, prior, alphas, lams, vals, ok, method, results, failures, notes,
            iterations, nodes, options, mapping, t0):
    r, c, gamma = prior.params
    r, c = float(r), float(c)
    gamma = (float(np.linalg.norm(np.asarray(gamma, dtype=float))) if isinstance(gamma, tuple)
             else float(gamma))      # |gamma| of an alignment vector (a multi-index target)
    p = family
    spectrum = (prior.name if prior.name is not None else
                p.spectrum if p.spectrum == "mp" else f"sample (d = {int(p.d)}, seed = {p.seed})")
    if prior.name == "step":
        spectrum = f"step (d = {int(p.d)}, seed = {p.seed})"
    convex_loss = p.loss_kind == "convex"
    from .channels.losses import loss as make_loss
    return ConvexGridResult(
        alphas=alphas, lams=lams, beta=float(p.beta), test_error=vals["test_error"],
        train_error=vals["train_error"], state=State(*(vals[k] for k in _STATE)),
        residual=vals["residual"], converged=ok, method=method, r=r, c=c, gamma=gamma,
        nodes=int(nodes) if nodes != "auto" else 0, tol=options.tol,
        seconds=time.perf_counter() - t0, iterations=iterations, failures=failures,
        notes=notes, mapping=mapping, spectrum=spectrum,
        precision="double" if p.dps is None else f"mpmath:{p.dps}",
        classification_error=vals["classification_error"] if convex_loss else None,
        train_loss=vals["train_loss"] if convex_loss else None,
        bias=vals["bias"] if p.bias else None,
        loss=make_loss(p.loss).name if convex_loss else "square", noise=float(p.noise),
        results=results if p.readout == "groups" else None)
