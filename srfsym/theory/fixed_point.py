r"""The fixed point of Result 3.3: test error of the sRF model with a ridge readout.

The public entry points (:func:`solve`, :func:`solve_srf`, :func:`learning_curve`,
:func:`optimal_lambda`).  The equations (docs/theory.md (f), general width ratio
``beta = p/d``) are written **once**, in the engine (:mod:`srfsym.theory.engine`): conjugates
("hats") from the overlaps through kappa-expectations (the channel,
:mod:`srfsym.theory.channels.square`), then overlaps from the hats through the spectral sums
(the spectral back ends, :mod:`srfsym.theory.spectral`).  The channel's conjugates are stated
in :mod:`srfsym.theory.channels.square`; the overlaps from the hats::

    V1 = <D/S>, V2 = <1/S>, theta = sqrt(beta) th^ <F/S>, psi = sqrt(beta) psi^ <H/S>,
    q1 = q1^<D^2/S^2> + q2^<D/S^2> + th^2 <DF/S^2> + psi^2 <DH/S^2>
    q2 = q1^<D/S^2>   + q2^<1/S^2> + th^2 <F/S^2>  + psi^2 <H/S^2>,   S = lambda + V2^ + V1^ D.

At ``beta = 1`` this is exactly the reference system.  The ``beta`` factors follow from
normalising the overlaps by ``p`` (hats of p-normalised overlaps carry ``n/p = alpha/beta``)
while ``theta, psi`` are normalised by ``sqrt(p d)`` (derivation: ``derivations/08``).

**Solver.** (V1, V2) form a closed two-dimensional subsystem, solved by Newton's
method (fallbacks: damped Anderson iteration, then ``scipy.optimize.root``).  Given
(V1, V2), the sweep is *affine* in (m, theta) and then in (q1, q2): those fixed points
are obtained exactly by one linear solve each, with the affine maps read off the same
``sweep``.  The answer is finally verified by one full sweep of the original equations:
every order parameter, V1 and V2 included, must move by less than ``tol``.

>>> res = solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=1.0)
>>> round(res.test_error, 6)
0.041604
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from .channels.kappa_quadrature import channel_data, node_rule, validate_srf_parameters  # noqa: F401
from .dispatch import build_prior, solve_problem
from .engine import (_NODE_LADDER, _START, _Problem, _affine_fixed_point, _anderson,  # noqa: F401
                     _complete, _complete_with_dets, _residual, _solve_v_iterate,
                     _solve_v_newton, _spectral_moments, _v_map, _v_map_jacobian, sweep)
from .problem import Options, Problem
from .result import FixedPointResult, _fmt, _plain  # noqa: F401
from .state import ConvergenceError, Hats, State
from .square_solve import (_solve_at, _solve_v_scipy, _validate, _validate_solver,  # noqa: F401
                           make_spectrum)

__all__ = ["State", "Hats", "ConvergenceError", "FixedPointResult", "LearningCurve",
           "sweep", "solve", "solve_srf", "learning_curve", "optimal_lambda", "make_spectrum"]



_OPTION_NAMES = ("nodes", "tol", "method", "max_iter")
_PROBLEM_NAMES = ("vocabulary", "loss", "noise", "bias", "label_rule", "dps", "d", "seed",
                  "bulk", "mu0_correction", "steps")


def _split(kwargs):
    """Keyword arguments of the old signatures: (problem fields, :class:`Options`, start)."""
    unknown = set(kwargs) - set(_OPTION_NAMES) - set(_PROBLEM_NAMES) - {"start"}
    if unknown:
        raise TypeError(f"unexpected keyword argument {sorted(unknown)[0]!r}")
    options = Options(**{k: kwargs[k] for k in _OPTION_NAMES if k in kwargs})
    fields = {k: kwargs[k] for k in _PROBLEM_NAMES if k in kwargs}
    return fields, options, kwargs.get("start")


def solve_srf(student, teacher, r, c, gamma, lam, alpha, beta=1.0, spectrum="mp", **kwargs):
    """Solve the fixed point for given sRF parameters (r, c, gamma).

    A thin wrapper: builds a :class:`~srfsym.theory.problem.Problem` with ``r, c, gamma``
    given directly and runs :func:`~srfsym.theory.dispatch.solve_problem`.

    Parameters
    ----------
    student, teacher : str or Activation
    r, c, gamma : float
        Spike strength, bulk variance, alignment.
    lam, alpha, beta : float
        Ridge penalty (sum loss), readout samples per dimension n/d, width ratio p/d.
    spectrum : "mp", "sample" or a spectrum object
        Deterministic Marchenko-Pastur back end, or a finite-d sample (needs ``d``, ``seed``).
    **kwargs
        The keywords below (the fields of the problem and the options of the solve).

    Other Parameters
    ----------------
    nodes : int or "auto"
        kappa quadrature nodes; "auto" raises the count until the test error moves
        by less than 1e-11 and reports the node error.
    tol : float
        Largest change of any order parameter (relative above 1) in a final sweep.
    method : "structured", "anderson" or "damped"
        Exact reduction (default), Anderson-accelerated or plain damped iteration (0.5).
    dps : int or None
        Solve in mpmath at ``dps`` digits (structured method only).
    start, max_iter : State or None, int
        A warm start (it does not change the answer) and the iteration cap.
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout vocabulary (docs/theory.md (k.7)).  ``None`` or ``[1]`` is the uniform
        readout; any other vocabulary solves the K-group equations of
        :mod:`srfsym.theory.fixed_point_groups` (deterministic spectrum, double
        precision, structured method; odd students only), with per-group order parameters
        (``V1``, ``q1`` K x K, the others K-vectors) and the totals ``test_error``,
        ``train_error``.
    loss, noise, bias, label_rule : str, float, bool, str
        Readout loss (``"square"``, ``"logistic"``, ``"hinge"`` or an expression in ``y``
        and ``yhat``), label noise, a trained output bias and the label rule (``"teacher"``
        or ``"bernoulli"``: labels +-1 with ``P(y = 1) = (1 + teacher(h))/2``;
        docs/theory.md (m)); anything but the plain square loss is solved by
        :func:`srfsym.theory.convex_fixed_point.solve_convex_srf`, with a vocabulary by
        :func:`srfsym.theory.convex_groups.solve_convex_groups` (docs/theory.md (m.8)).

    Examples
    --------
    >>> res = solve_srf("sin", "sin", r=0.0, c=1.0, gamma=0.0, lam=0.1, alpha=2.0)
    >>> res.state.theta == 0.0 and res.test_error > 0
    True
    """
    fields, options, start = _split(kwargs)
    problem = Problem(student, teacher, lam, alpha, beta, r=r, c=c, gamma=gamma,
                      spectrum=spectrum, **fields)
    return solve_problem(problem, options, start=start)


def multi_index_teacher(teacher) -> bool:
    """True for a multi-index target (text in z1..zk or the object; docs/theory.md (n)).

    >>> multi_index_teacher("z1 + z1*z2"), multi_index_teacher("tanh")
    (True, False)
    """
    from .problem import _multi_index
    return _multi_index(teacher)


def solve(student, teacher, alpha0, eta, lam, alpha, beta=1.0, spectrum="mp", *,
          mu0_correction=True, **kwargs) -> FixedPointResult:
    """Test error after one giant step (``eta``, ``alpha0``) and a ridge readout.

    A thin wrapper: builds a :class:`~srfsym.theory.problem.Problem` (the step mapped to
    (r, c, gamma) by :func:`srf_mapping`) and runs
    :func:`~srfsym.theory.dispatch.solve_problem`; keyword arguments as for
    :func:`solve_srf` (e.g. ``vocabulary=[1, 2]`` for a readout vocabulary, docs/theory.md
    (k.7)).  ``bulk="step", d=D, seed=S`` (also for :func:`learning_curve`,
    :func:`optimal_lambda`) replaces the isotropic bulk ``c MP_beta`` by the bulk of the first
    layer realised at dimension ``D`` (the network of seed ``S``; its measured ``r, c, gamma``
    on the channel side): :mod:`srfsym.theory.spectral.step_bulk`, docs/theory.md (g.4); with
    a ``vocabulary`` the K-group prior on that realised layer split by letter
    (:mod:`srfsym.theory.spectral.step_bulk_groups`, docs/theory.md (g.4.1)).
    ``bulk="exact"`` uses its d -> infinity law instead
    (:mod:`srfsym.theory.spectral.exact_bulk`, the mapping's ``r, c, gamma``; double
    precision; docs/theory.md (g.5)).  ``steps=T`` (also for :func:`learning_curve`,
    :func:`optimal_lambda`) takes T giant steps on fresh batches: the T-step map of
    docs/theory.md (p.2) and the readout on the vector-kappa channel of (p.4) (any target,
    single- or multi-index; the square loss; double precision); ``steps=1`` (the default) is
    the one-step problem unchanged.

    >>> res = solve("tanh", "sin", alpha0=0, eta=3, lam=0.1, alpha=2.0)  # plain RF
    >>> round(res.state.m, 12), round(res.state.theta, 12)
    (0.0, 0.0)
    """
    fields, options, start = _split(kwargs)
    problem = Problem(student, teacher, lam, alpha, beta, alpha0=alpha0, eta=eta,
                      spectrum=spectrum, mu0_correction=mu0_correction, **fields)
    return solve_problem(problem, options, start=start)


@dataclass
class LearningCurve:
    """Fixed-point results along a list of alpha."""

    alphas: np.ndarray
    results: list

    @property
    def test_error(self):
        return np.array([r.test_error for r in self.results])

    @property
    def train_error(self):
        return np.array([r.train_error for r in self.results])

    def column(self, name):
        return np.array([r.to_dict()[name] for r in self.results])

    def to_rows(self):
        return [r.to_dict() for r in self.results]


def learning_curve(student, teacher, alpha0, eta, lam, alphas, beta=1.0, spectrum="mp", *,
                   progress=False, nodes="auto", **kwargs) -> LearningCurve:
    """:func:`solve` along ``alphas`` with warm starts (which do not change the answer:
    each point is solved to the same verified tolerance).  Keyword arguments such as
    ``vocabulary`` pass through to :func:`solve_srf`.  One
    :class:`~srfsym.theory.problem.Problem` over the ``alpha`` axis; its prior (the bulk) is
    built once.

    >>> lc = learning_curve("tanh", "sin", 20, 3, 0.1, [0.5, 1.0, 2.0])
    >>> bool(np.all(np.diff(lc.test_error) < 0))
    True
    """
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.size == 0:
        raise ValueError("alphas must contain at least one value")
    fields, options, _ = _split(dict(kwargs, nodes=nodes))
    family = Problem(student, teacher, lam, None, beta, alpha0=alpha0, eta=eta,
                     spectrum=spectrum, **fields)
    mapping = family.mapping()
    prior = build_prior(family, mapping)     # the bulk does not depend on alpha
    run = lambda a, opts, start=None: solve_problem(  # noqa: E731
        family.at(alpha=a), opts, start=start, prior=prior, mapping=mapping)
    if nodes == "auto":  # choose the kappa nodes at the ends of the curve, use the larger
        ends = {float(alphas.min()), float(alphas.max())}
        options = replace(options, nodes=max(run(a, options).nodes for a in ends))
    results, start = [], None
    iterator = alphas
    if progress:
        from tqdm.auto import tqdm
        iterator = tqdm(alphas, desc="learning curve", unit="pt")
    for a in iterator:
        try:
            res = run(a, options, start)
        except ConvergenceError:
            if start is None:
                raise
            res = run(a, options)
        results.append(res)
        start = res.state
    return LearningCurve(alphas, results)


def optimal_lambda(student, teacher, alpha0, eta, alpha, beta=1.0, spectrum="mp", *,
                   lam_range=(1e-6, 1e3), **kwargs):
    """Minimise the test error over lambda (bounded search in log lambda).

    Returns ``(lambda_opt, result)``; ``lambda_opt`` at the lower end of ``lam_range``
    means the ridgeless limit is optimal.  Keyword arguments such as ``vocabulary`` pass
    through to :func:`solve_srf`.  One :class:`~srfsym.theory.problem.Problem` over the
    ``lambda`` axis; its prior (the bulk) is built once.

    >>> lam, res = optimal_lambda("tanh", "sin", 20, 3, 1.0)
    >>> res.test_error <= solve("tanh", "sin", 20, 3, 0.1, 1.0).test_error
    True
    """
    try:
        lo_lam, hi_lam = (float(v) for v in lam_range)
    except (TypeError, ValueError):
        raise ValueError(f"lam_range must be two numbers, got {lam_range!r}") from None
    if not (0 < lo_lam < hi_lam and math.isfinite(hi_lam)):
        raise ValueError(f"lam_range must satisfy 0 < low < high < inf, got {lam_range!r}")
    fields, options, _ = _split(kwargs)
    family = Problem(student, teacher, None, alpha, beta, alpha0=alpha0, eta=eta,
                     spectrum=spectrum, **fields)
    if family.loss_kind != "square":
        raise ValueError("optimal_lambda minimises the ridge's test error (square loss, no "
                         "noise, no bias); for other losses scan lambda with solve(..., loss=)")
    mapping = family.mapping()
    prior = build_prior(family.at(dps=None), mapping)    # the bulk does not depend on lambda
    search = replace(options, nodes=108 if options.nodes == "auto" else options.nodes)

    def at(lam, search_mode=True):
        if search_mode:     # the search in double precision
            return solve_problem(family.at(lam=lam, dps=None), search, prior=prior,
                                 mapping=mapping)
        return solve_problem(family.at(lam=lam), options, mapping=mapping,
                             prior=prior if family.dps is None else None)
    return _minimise_over_lambda(at, lo_lam, hi_lam, lam_range)


def _minimise_over_lambda(at, lo_lam, hi_lam, lam_range):
    """``(lambda_opt, result)``: the test error of ``at(lambda)`` minimised over log lambda in
    ``[lo_lam, hi_lam]`` (a grid of 19, then a bounded search), the result at the optimum
    solved with ``at(lambda, search_mode=False)``."""
    from scipy.optimize import minimize_scalar

    def f(loglam):
        try:
            return at(math.exp(loglam)).test_error
        except (ConvergenceError, ArithmeticError):
            return np.inf

    lo, hi = math.log(lo_lam), math.log(hi_lam)
    grid = np.linspace(lo, hi, 19)
    vals = [f(g) for g in grid]
    i = int(np.argmin(vals))
    a, b = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    opt = minimize_scalar(f, bounds=(a, b), method="bounded", options={"xatol": 1e-6})
    if not np.isfinite(min(vals)):
        raise ConvergenceError(f"no lambda in {lam_range} gave a converged fixed point",
                               residual=float("nan"), iterate=None)
    lam = math.exp(opt.x)
    res = at(lam, search_mode=False)
    if min(opt.x - lo, hi - opt.x) < 1e-3:
        res.notes.append(f"the optimum lambda = {lam:.3g} sits at the edge of lam_range = "
                         f"{lam_range}: widen the range")
    return lam, res
