r"""The fixed point with any convex readout loss, label noise and a trained output bias
(docs/theory.md (m)).

Only the channel changes: :class:`~srfsym.theory.channels.convex.ConvexChannel` is a
channel of the fixed-point engine (:mod:`srfsym.theory.engine`), composed with the ridge's
spectral side (:class:`~srfsym.theory.engine.MomentPrior`).  It has no closed (V1, V2)
subsystem, so the engine's sweep is iterated on ``(q1, q2, V1, V2, theta, psi, m, b0)``
with damping 0.5 and Anderson mixing (memory 5); the channel returns ``m`` and ``b0`` at
their stationarity conditions (Newton on their convex potential).  Iterates that leave
the domain fall back to the damped step, and runaway directions (separable data) are
reported as :class:`NoUniqueSolution`.  The answer is verified by one more sweep: every
unknown moves by less than ``tol`` (relative above 1).  A readout vocabulary runs the same
iteration and verification (:func:`_solve_engine`) with the K-group channel and prior of
:mod:`srfsym.theory.convex_groups` (docs/theory.md (m.8)).

>>> res = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic")
>>> 0 < res.classification_error < 0.5, res.loss
(True, 'logistic')
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .channels.kappa_quadrature import channel_data, validate_srf_parameters
from .channels.convex import ConvexChannel
from .engine import _START, Engine, MomentPrior, anderson_candidate
from .square_solve import _solve_at, _validate, _validate_solver, make_spectrum
from .channels.losses import LossError, loss as make_loss
from .result import FixedPointResult
from .state import ConvergenceError, State

__all__ = ["ConvexResult", "solve_convex_srf", "convex_grid", "NoUniqueSolution",
           "GridContext"]
# the (alpha, lambda) grid of any loss: srfsym.theory.grid_points.convex_solve_grid


class NoUniqueSolution(ConvergenceError, ValueError):
    """The readout problem has no finite or no unique minimiser (separable data)."""


@dataclass
class ConvexResult(FixedPointResult):
    """A fixed point with a convex loss.  ``test_error`` is the test MSE and ``train_error``
    the training MSE (as for the ridge); the classifier's numbers are
    ``classification_error`` (test, labels +-1), ``train_loss`` (penalty excluded) and
    ``train_classification_error``; ``bias`` is the trained output bias (or None)."""

    loss: str = "square"
    noise: float = 0.0
    bias: float | None = None
    classification_error: float | None = None
    train_loss: float | None = None
    train_classification_error: float | None = None
    channel: str = ""
    label_rule: str = "teacher"

    def to_dict(self, dps: int = 30) -> dict:
        out = super().to_dict(dps)
        out.update(loss=self.loss, noise=self.noise, output_bias=self.bias,
                   classification_error=self.classification_error, train_loss=self.train_loss,
                   train_classification_error=self.train_classification_error,
                   channel=self.channel, label_rule=self.label_rule)
        return out

    def __str__(self):
        extra = [f"loss = {self.loss}"]
        if self.classification_error is not None:
            extra.append(f"test classification error = {self.classification_error:.10g}")
        extra.append(f"train loss = {self.train_loss:.10g}")
        if self.bias is not None:      # round-off is not printed as digits
            extra.append(f"bias = {self.bias:.6g}" if abs(self.bias) >= 1e-10
                         else "bias = 0 (|b| < 1e-10, the solver's tolerance)")
        return super().__str__() + "\n  " + ", ".join(extra)


class GridContext:
    """What the points of a grid share in :func:`solve_convex_srf`: the channel of the last
    point (reused when only ``alpha`` changes: its rules and label moments do not depend on
    it) and that point's Anderson secant pairs.  ``train_classification``: compute the
    training classification error (the grids do not report it: False there, and the
    results' ``train_classification_error`` is None).

    >>> ctx = GridContext()
    >>> a, b = (solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, al, loss="logistic",
    ...                          nodes=60, nodes_u=12, context=ctx) for al in (2.0, 2.1))
    >>> len(ctx.pairs) > 0 and a.iterations > b.iterations
    True
    """

    def __init__(self, train_classification=True):
        self.channel, self.key, self.pairs = None, None, []
        self.train_classification = bool(train_classification)


def _vector(s: State, b0):
    return np.array([s.q1, s.q2, s.V1, s.V2, s.theta, s.psi, s.m, b0], dtype=float)


def solve_convex_srf(student, teacher, r, c, gamma, lam, alpha, beta=1.0, spectrum="mp", *,
                     loss="square", noise=0.0, bias=False, nodes=120, tol=1e-10,
                     method="anderson", channel=None, start=None, max_iter=1000, d=None,
                     seed=0, nodes_u=16, threshold=0.0, label_rule="teacher",
                     context=None, teacher_data=None) -> ConvexResult:
    """Solve the fixed point of docs/theory.md (m) at sRF parameters (r, c, gamma).

    Parameters
    ----------
    loss : str or Loss
        ``"square"``, ``"logistic"``, ``"hinge"`` or an expression in ``y`` and ``yhat``
        (objective ``sum loss + lam ||a||^2``, srfsym's convention).
    noise : float
        Label noise: variance of an additive Gaussian on real labels, or of a probit flip
        ``y = sign(<theta*, x> + sqrt(noise) xi)`` for the teacher ``sign``.
    bias : bool
        Train an unpenalised output bias ``b0`` (``yhat = a.phi/sqrt(p) + b0``).
    label_rule : "teacher" or "bernoulli"
        ``"teacher"``: labels ``teacher(<theta*, x>)`` (+ noise; ``sign``: +-1 with a probit
        flip).  ``"bernoulli"``: labels +-1 with ``P(y = 1 | x) = (1 + teacher(h))/2``,
        ``h = <theta*, x> + sqrt(noise) xi`` (the teacher ``tanh`` gives the logistic-noise
        rule ``P(y = 1) = 1/(1 + exp(-2 h))``; docs/theory.md (m.6)).
    threshold : float
        Labels +-1 only: ``y = sign(<theta*, x> + threshold + sqrt(noise) xi)`` (unbalanced
        classes).
    nodes : int
        kappa nodes; ``nodes_u`` Gauss-Legendre nodes per piece of the inner integrals.
    method : "anderson" or "damped"
        Anderson mixing (memory 5) on top of damping 0.5, or the plain damped iteration.
    channel : None, "closed" or "quadrature"
        The square loss uses the closed-form channel unless "quadrature" is asked for.
    context : None or GridContext
        Shared by the points of a grid (:func:`convex_grid`): the channel (built once) and
        the last point's Anderson secant pairs, a warm start of the iteration's model.
        It changes the path, not the fixed point (verified by the final sweep).
    teacher_data : None or callable
        Replaces the channel data's teacher functions (``ch -> ch`` with other ``h, h1,
        h2`` on the same kappa nodes; real labels, the closed square-loss channel): the
        multi-index target of docs/theory.md (n.8).

    Examples
    --------
    >>> res = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="hinge",
    ...                        nodes=80)
    >>> res.train_classification_error < res.classification_error
    True
    """
    t0 = time.perf_counter()
    lo = _check_arguments(loss, r, c, gamma, lam, alpha, beta, noise, bias, method, tol, max_iter)
    r, c, gamma, lam, alpha, beta = map(float, (r, c, gamma, lam, alpha, beta))
    ch = channel_data(student, teacher, r, c, gamma, nodes=int(nodes))
    if teacher_data is not None:     # multi-index hook (issue 28): docs/theory.md (n.8)
        ch = teacher_data(ch)
    _check_threshold(threshold, teacher)
    key = (id(ch), id(lo), beta, str(teacher), float(noise), bool(bias), channel, int(nodes_u),
           float(threshold), label_rule)
    if context is not None and context.key == key:
        C = context.channel             # the same channel at another alpha
        C.alpha = alpha
    else:
        C = ConvexChannel(ch, lo, alpha=alpha, beta=beta, teacher=teacher, noise=noise,
                          bias=bias, method=channel, nodes_u=nodes_u,
                          threshold=float(threshold), label_rule=label_rule)
        if context is not None:
            context.channel, context.key, context.pairs = C, key, []
    spec = make_spectrum(spectrum, beta=beta, c=c, d=d, seed=seed, gamma=gamma)
    engine = Engine(C, MomentPrior(spec, lam, beta))
    if lo.name != "square":
        _separable_along_constant(C, lo, bias)
    x = _start(student, teacher, r, c, gamma, lam, alpha, beta, spec, nodes, start)
    x, iterations, res, hat = _solve_engine(engine, x, tol, max_iter, method, lo, lam, bias,
                                            context, _vector)
    q1, q2, V1, V2, theta, psi, m, b0 = x
    state = State(q1, q2, V1, V2, theta, psi, m)
    obs = C.observables(state, b0, train_classification=context is None
                        or context.train_classification)
    obs = _zero_predictor(obs, (q1, q2, m * m, (b0 if bias else 0.0) ** 2), tol)
    return _result(obs, state, hat, lo, C, dict(
        alpha=alpha, lam=lam, beta=beta, r=r, c=c, gamma=gamma,
        spectrum=spectrum if isinstance(spectrum, str) else type(spectrum).__name__,
        nodes=int(nodes), residual=res, method=method, iterations=iterations,
        seconds=time.perf_counter() - t0), noise, b0 if bias else None, label_rule)


def _check_arguments(loss, r, c, gamma, lam, alpha, beta, noise, bias, method, tol, max_iter):
    """The checks of :func:`solve_convex_srf` (shared with the K-group solve); the loss."""
    lo = make_loss(loss)
    if lo.margin and float(lam) == 0 and float(alpha) <= float(beta):
        raise NoUniqueSolution(
            f"at lambda = 0 with alpha = {alpha:g} <= beta = {beta:g} there are fewer samples than "
            f"features: the training labels are linearly separable and the {lo.name} minimiser "
            "is not unique (hinge) or not finite (logistic); use lambda > 0")
    _validate(alpha, lam, beta)
    _validate_solver(tol, max_iter)
    validate_srf_parameters(r, c, gamma)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not math.isfinite(noise):
        raise ValueError(f"the label noise must be a finite number >= 0, got {noise!r}")
    if noise < 0:
        raise ValueError(f"the label noise is a variance: it must be >= 0, got {noise}")
    if not isinstance(bias, (bool, np.bool_)):
        raise ValueError(f"bias must be True or False, got {bias!r}")
    if bias and not lo.allows_bias:
        raise LossError(f"a trained bias needs a loss that grows at both ends in yhat (else the "
                        f"unpenalised bias runs off to infinity); {lo.name!r} does not")
    if method not in ("anderson", "damped"):
        raise ValueError(f"method must be 'anderson' or 'damped', got {method!r}")
    return lo


def _check_threshold(threshold, teacher):
    if threshold != 0 and str(getattr(teacher, "expr", teacher)) not in ("sign", "sign(x)"):
        raise ValueError("a label threshold applies to the teacher 'sign' (labels +-1) only")


def _solve_engine(engine, x, tol, max_iter, method, lo, lam, bias, context, vector,
                  unpack=None, admissible=None, summary=None):
    """Iterate the engine's sweep on the packed unknowns ``x`` (``vector(state, b0)`` packs,
    ``unpack(x) -> (state, b0)`` unpacks; default the uniform readout's 8 numbers) and verify
    the fixed point by one more sweep.  Returns ``(x, iterations, residual, hats)``."""
    unpack = (lambda v: (State(*v[:7]), v[7])) if unpack is None else unpack
    last = {}

    def G(x):       # the engine's sweep on (State, b0)
        state, b0 = unpack(x)
        step = last["step"] = engine.channel.conjugates(state, b0)
        try:
            new = engine.prior.overlaps(step.hats, step.m)
        except ValueError as exc:
            raise ConvergenceError(f"the resolvent diverges ({exc})", residual=math.inf,
                                   iterate=x) from None
        return vector(new, step.b0 if step.b0 is not None else 0.0)

    C = engine.channel
    C.newton_steps = 1          # m, b0 take one Newton step per sweep while iterating ...
    x, iterations, pairs = _iterate(G, x, tol, max_iter, method, lo, lam, bias,
                                    pairs=context.pairs if context is not None else (),
                                    admissible=admissible, summary=summary)
    if context is not None:
        context.pairs = pairs
    C.newton_steps = None       # ... and are stationary in the verifying sweep
    gx = G(x)
    res = float(np.max(np.abs(gx - x) / np.maximum(1.0, np.abs(x))))
    if not res < tol:
        raise ConvergenceError(f"fixed point not verified: a final sweep moves the unknowns by "
                               f"{res:.3e} > tol = {tol:g}", residual=res, iterate=x)
    # the hats of the verifying sweep (at the fixed point to within tol)
    return gx, iterations, res, last["step"].hats


def _zero_predictor(obs, second_moments, tol):
    """A predictor zero to within the solver's tolerance (every second moment of yhat below
    ``tol``: e.g. a loss even in yhat, whose minimiser ignores the labels) has no sign: its
    classification errors are a tie, 1/2 exactly, with a note -- not the digits of round-off
    (it printed 0.5000000373).

    >>> _zero_predictor({"classification_error": 0.4999999995, "notes": []}, (3e-14, 0, 0, 0),
    ...                 1e-10)["classification_error"]
    0.5
    """
    if obs.get("classification_error") is None or max(second_moments) >= tol:
        return obs
    out = dict(obs)
    out["classification_error"] = 0.5
    if out.get("train_classification_error") is not None:
        out["train_classification_error"] = 0.5
    out["notes"] = list(obs.get("notes", [])) + [
        f"the predictor is zero to within the solver's tolerance (its second moments are "
        f"below {tol:g}): sign(yhat) is a tie, the classification errors are 1/2"]
    return out


def _result(obs, state, hat, lo, C, common, noise, b0, label_rule):
    """The :class:`ConvexResult` of a solved point (``common``: the FixedPointResult fields
    that do not come from the observables)."""
    notes = [] if lo.convexity == "verified" else [f"loss convexity {lo.convexity}"]
    return ConvexResult(
        test_error=obs["test_error"], train_error=obs["train_error"], state=state, hats=hat,
        notes=notes + list(lo.notes) + list(obs.get("notes", [])), loss=lo.name,
        noise=float(noise),
        bias=None if b0 is None else float(b0), label_rule=label_rule,
        classification_error=obs["classification_error"], train_loss=obs["train_loss"],
        train_classification_error=obs["train_classification_error"], channel=C.method,
        **common)


def _start(student, teacher, r, c, gamma, lam, alpha, beta, spec, nodes, start):
    """Warm start: the ridge (square loss) solution at the same point when it exists."""
    if start is not None:
        s = list(start) + [0.0] * (8 - len(start))
        return np.array(s[:8], dtype=float)
    try:
        sq = _solve_at(student, teacher, r, c, gamma, max(lam, 1e-3), alpha, beta, spec,
                       int(nodes), 1e-8, "structured", None, None, 1000)
        s = sq.state
        return _vector(s, 0.0)
    except (ConvergenceError, ValueError, ArithmeticError):
        return _vector(_START, 0.0)


def _iterate(G, x, tol, max_iter, method, lo, lam, bias, memory=8, damping=0.5, mixing=1.0,
             pairs=(), admissible=None, summary=None):
    """Damped iteration x <- x + damping (G(x) - x), or Anderson mixing (type II, mixing
    parameter ``mixing`` on the residual, memory ``memory``); Anderson iterates that leave
    the domain (q, V > 0, psi^2 <= q1) fall back to the damped step.  ``pairs``: secant
    pairs ``(dx, df)`` of a neighbouring point (most recent first), which fill the memory
    until this point's own history does.  Returns ``(x, sweeps, pairs)``, the last with
    this point's own pairs first.  ``admissible`` (default: the uniform readout's domain) and
    ``summary`` (a map to the uniform readout's 8 unknowns for the divergence checks, default
    the identity) let a K-group readout use the same iteration."""
    admissible = _admissible if admissible is None else admissible
    summary = (lambda v: v) if summary is None else summary
    X, F = [], []
    pairs = list(pairs)

    def own():
        mine = [(X[i + 1] - X[i], F[i + 1] - F[i]) for i in range(len(X) - 1)][::-1]
        return (mine + pairs)[:memory]

    for it in range(1, max_iter + 1):
        try:
            gx = G(x)
        except ArithmeticError:      # a proximal step at a runaway state
            _check_divergence(summary(x), lo, lam, bias, strict=True)
            raise
        if not np.all(np.isfinite(gx)):
            raise ConvergenceError("the iteration produced a non-finite value",
                                   residual=math.inf, iterate=x)
        _check_divergence(summary(gx), lo, lam, bias)
        if lam == 0 and lo.margin and it >= 300:
            raise NoUniqueSolution(
                f"no fixed point after {it} sweeps at lambda = 0 (q2 = {summary(gx)[1]:.3g}): "
                "the training data are most likely linearly separable at this alpha, where the "
                f"{lo.name} minimiser is " + ("not unique" if lo.name == "hinge" else "not finite")
                + "; use lambda > 0 (docs/theory.md (m))", residual=math.inf, iterate=gx)
        f = gx - x
        res = float(np.max(np.abs(f) / np.maximum(1.0, np.abs(x))))
        if method == "anderson":
            X.append(x.copy())
            F.append(f.copy())
            if len(X) > memory + 1:
                X.pop(0)
                F.pop(0)
        if res < 0.1 * tol:
            return gx, it, own()
        x_new = x + damping * f
        if method == "anderson":
            cand = anderson_candidate(X, F, x, f, mixing,
                                      extra=pairs[:max(0, memory + 1 - len(X))])
            if cand is not None and admissible(cand):
                x_new = cand
        x = x_new
    raise ConvergenceError(f"no convergence after {max_iter} sweeps (last move {res:.2e})",
                           residual=res, iterate=x)


def _admissible(x):
    q1, q2, V1, V2, theta, psi = x[:6]
    return bool(np.all(np.isfinite(x)) and q1 > 0 and q2 > 0 and V1 > 0 and V2 > 0
                and psi * psi <= q1)


def _separable_along_constant(C, lo, bias):
    """Noise-free sign labels with gamma = +-1 are y = sign(gamma kappa + t0): if the constant
    feature's coefficient mu0(kappa) (plus a bias) has that sign at every kappa, the
    unpenalised m separates the training data by itself and the saddle point is at infinity
    (logistic) or not unique (hinge)."""
    if not (C.pm1 and C.rho == 0 and C.noise == 0) or C.bernoulli:
        return
    lab = np.sign(C.gamma * C.k + C.threshold)
    mu0 = C.mu0
    if bias:
        order = np.argsort(C.k)
        d = np.diff(mu0[order])
        sep = np.all(d > 0) or np.all(d < 0)     # a threshold on mu0 reproduces the label
    else:
        sep = np.all(np.sign(mu0) * lab > 0) or np.all(np.sign(mu0) * lab < 0)
    if sep:
        raise NoUniqueSolution(
            "the labels are separable along the constant feature (gamma = 1, noise-free sign "
            "labels, and the student's mu0(kappa) "
            + ("is monotone in kappa" if bias else "has the sign of the label")
            + f"): the unpenalised projection m on the constant direction makes the {lo.name} "
            "training loss vanish by itself, so the readout has "
            + ("no unique" if lo.name == "hinge" else "no finite")
            + " saddle point (docs/theory.md (m)); use gamma < 1, label noise, or the square loss",
            residual=math.inf, iterate=None)


def _predict(done, a):
    """Warm start at ``alpha = a`` from the last converged points of a grid column: the
    polynomial through the last three (quadratic extrapolation), else the secant through
    the last two, else the last one (an extrapolation is used only if admissible); None
    without converged points.

    >>> pts = [(a, np.array([a * a, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0])) for a in (1, 2, 3)]
    >>> float(_predict(pts, 4.0)[0])
    16.0
    """
    if not done:
        return None
    for k in range(min(len(done), 3), 1, -1):
        pts = done[-k:]
        cand = np.zeros_like(pts[-1][1])
        for i, (ai, xi) in enumerate(pts):      # Lagrange form
            li = 1.0
            for j, (aj, _) in enumerate(pts):
                if j != i:
                    li *= (a - aj) / (ai - aj)
            cand = cand + li * xi
        if _admissible(cand):
            return tuple(cand)
    return tuple(done[-1][1])


def _column_start(ctx, first, done, i, a):
    """Warm start of a grid point: along a column (fixed lambda) the secant of
    :func:`_predict`; the first point of a column starts from the first point of the column
    before (the neighbour in lambda) and with its Anderson pairs."""
    if i == 0 and first is not None:
        ctx.pairs = list(first[1])
        return tuple(first[0])
    return _predict(done, a)


def _check_divergence(x, lo, lam, bias, strict=False):
    q1, q2, V1, V2, theta, psi, m, b0 = x
    big = 1e3 if strict else 1e9
    limit = big * (1e6 if strict else 1)
    if max(V1, V2, q2) > limit:
        if lam == 0 and lo.margin:
            raise NoUniqueSolution(
                f"at lambda = 0 the training data are linearly separable here (the norm of the "
                f"readout grows without bound): the {lo.name} minimiser is "
                + ("not unique" if lo.name == "hinge" else "not finite")
                + "; use lambda > 0 (docs/theory.md (m))", residual=math.inf, iterate=x)
        if lo.margin:
            raise ConvergenceError(
                f"the order parameters diverge (V or q2 pass {limit:g}) at lambda = {lam:g}: the "
                f"{lo.name} readout's norm grows as it does on linearly separable training data "
                "(no finite minimiser as lambda -> 0); use a larger lambda (docs/theory.md (m))",
                residual=math.inf, iterate=x)
        raise ConvergenceError("the order parameters diverge (V or q2 grow without bound)",
                               residual=math.inf, iterate=x)
    if max(abs(m), abs(b0)) > (1e3 if strict else 1e5):
        which = "bias b" if abs(b0) > abs(m) else "projection m on the constant direction"
        raise NoUniqueSolution(
            f"the unpenalised {which} reached {max(abs(m), abs(b0)):.3g} and is still growing: "
            f"the {lo.name} readout has no finite saddle point within reach -- the labels are "
            "separable, or nearly, along the constant feature mu0(kappa) (a sign teacher at "
            "gamma = 1, or a step so weak that mu0(kappa) is a tiny multiple of kappa, which the "
            "unpenalised coefficient scales up); use a larger learning rate, label noise or the "
            "square loss (docs/theory.md (m))", residual=math.inf, iterate=x)


def convex_grid(student, teacher, alpha0, eta, alphas, lams, beta=1.0, *, loss="logistic",
                noise=0.0, bias=False, nodes=120, nodes_u=16, tol=1e-10):
    """:func:`solve_convex_srf` on the grid ``alphas x lams`` after one step (``alpha0``,
    ``eta`` through the mapping), warm-started along ``alpha``.  Returns a dict of arrays of
    shape ``(len(alphas), len(lams))``: ``classification_error`` (NaN without labels +-1),
    ``test_error`` (MSE), ``train_loss``, ``q2``, ``m``, ``bias``, and ``failures`` (a list of
    ``(alpha, lam, message)``; those entries are NaN).

    Examples
    --------
    >>> g = convex_grid("tanh", "sign", 2, 2, [1.0, 2.0], [0.05], nodes=60, nodes_u=12)
    >>> bool(g["classification_error"][1, 0] < g["classification_error"][0, 0])
    True
    """
    from ..step.mapping import srf_mapping
    mp = srf_mapping(student, teacher, eta, alpha0)
    alphas, lams = np.atleast_1d(np.asarray(alphas, float)), np.atleast_1d(np.asarray(lams, float))
    keys = ("classification_error", "test_error", "train_loss", "q2", "m", "bias")
    out = {k: np.full((alphas.size, lams.size), np.nan) for k in keys}
    failures = []
    ctx, first = GridContext(train_classification=False), None
    for j, lam in enumerate(lams):
        done = []           # (alpha, unknowns) of the converged points of this column
        for i, a in enumerate(alphas):
            start = _column_start(ctx, first, done, i, a)
            try:
                res = solve_convex_srf(student, teacher, mp.spike_strength, mp.bulk_variance,
                                       mp.alignment, lam, a, beta, loss=loss, noise=noise,
                                       bias=bias, nodes=nodes, nodes_u=nodes_u, tol=tol,
                                       start=start, context=ctx)
            except (ConvergenceError, ValueError, ArithmeticError) as exc:
                failures.append((float(a), float(lam), str(exc)))
                done, ctx.pairs = [], []
                continue
            done = (done + [(float(a), _vector(res.state, res.bias or 0.0))])[-3:]
            if i == 0:
                first = (done[-1][1], list(ctx.pairs))
            vals = (res.classification_error, res.test_error, res.train_loss, res.state.q2,
                    res.state.m, res.bias)
            for k, v in zip(keys, vals):
                out[k][i, j] = np.nan if v is None else v
    out.update(alphas=alphas, lams=lams, failures=failures, loss=make_loss(loss).name)
    return out
