r"""The fixed point on a whole (alpha, lambda) grid at once.

:func:`solve_grid` solves the fixed point of :mod:`srfsym.theory.fixed_point` (docs/theory.md (f))
at every pair of a grid of readout sample ratios ``alpha`` and ridge penalties ``lambda``
in one batched computation.  The equations are not written again here: the batch is the
engine of :mod:`srfsym.theory.engine` whose scalars (alpha, lambda, the order parameters)
are columns with one row per point, so the same ``v_hats``, ``hats``, ``overlaps`` and
``m_update`` run on ``(points, kappa nodes)`` arrays; the Marchenko-Pastur sums come from
:meth:`srfsym.theory.spectrum.MarchenkoPastur.moments_array` (or ``SampledSpectrum.moments_array``
for one finite-``d`` sample), numpy code generated from the same expressions as the
single-point evaluators.

The solver is the structured one of :func:`srfsym.theory.fixed_point.solve`, batched: Newton on
``(log V1, log V2)`` with the exact Jacobian and a per-point backtracking line search,
then the exact affine solves for ``(m, theta)`` and ``(q1, q2)``, then one full sweep of
the original equations per point as verification.  A point the batch does not settle is
handed to the single-point solver (with its Anderson and ``scipy`` fallbacks); a point
that fails there too is reported by name with its last residual, and its entries are NaN.

>>> g = solve_grid("tanh", "sin", alpha0=20, eta=3, alphas=[0.5, 1.0], lams=[0.01, 0.1])
>>> g.test_error.shape, bool(g.converged.all())
((2, 2), True)
>>> round(float(g.test_error[1, 1]), 6)     # the same point as the solve() example
0.041604
"""
from __future__ import annotations

import copy
import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .channels.kappa_quadrature import group_channel_data, node_rule
from .dispatch import build_prior
from .engine import (_NODE_LADDER, _START, Engine, MomentPrior, _complete_with_dets,
                     _v_map_jacobian)
from .fixed_point import solve_srf
from .grid_points import point_grid
from .channels.square import SquareLossChannel
from .problem import Options, Problem, check_readout_point
from .state import ConvergenceError, State, climb_nodes

from .grid_result import GridResult, _grid_axis  # noqa: E402

__all__ = ["GridResult", "solve_grid"]


# ======================================================================================
# the batch: the equations of fixed_point._Problem on columns of points

class _GridChannel(SquareLossChannel):
    """The square-loss channel with ``alpha`` (and every order parameter) as ``(N, 1)``
    columns: kappa-expectations of ``(N, K)`` arrays are ``(N, 1)`` columns."""

    def __init__(self, ch, alphas, beta):
        super().__init__(ch, 1.0, beta)     # scalar set-up (E h2, mu1^2, ...)
        w = np.asarray(ch.weights, dtype=float)

        def E(values):
            v = values @ w
            return v[:, None] if np.ndim(v) == 1 else v
        self.E = E
        self._memo = None
        self._set_alpha(alphas[:, None])

    def v_hats(self, V1, V2):
        """``SquareLossChannel.v_hats``, remembered for the last (V1, V2) objects: the affine
        completion evaluates the sweep seven times at the same (V1, V2)."""
        memo = self._memo
        if memo is not None and memo[0] is V1 and memo[1] is V2:
            return memo[2]
        out = self._v_hats(V1, V2)
        self._memo = (V1, V2, out)     # holds V1, V2: their ids cannot be reused meanwhile
        return out


class _GridProblem(Engine):
    """The engine with ``alpha``, ``lambda`` (and every order parameter) as ``(N, 1)``
    columns: the same channel and prior code on a batch of points."""

    def __init__(self, ch, spectrum, alphas, lams, beta):
        alphas, lams = np.asarray(alphas, float), np.asarray(lams, float)
        super().__init__(_GridChannel(ch, alphas, beta),
                         MomentPrior(spectrum, lams[:, None], beta, batch=True))
        self.alpha = alphas[:, None]

    def take(self, idx):
        """The sub-batch of the points ``idx``."""
        sub = copy.copy(self)
        sub.channel = copy.copy(self.channel)
        sub.channel._memo = None
        sub.channel._set_alpha(self.channel.alpha[idx, 0][:, None])
        sub.prior = copy.copy(self.prior)
        sub.prior.lam = self.prior.lam[idx, 0][:, None]
        sub.alpha = sub.channel.alpha
        sub._bind()
        return sub


def _log_map(P, u):
    """``F(u) = log G(e^u) - u`` of the (V1, V2) map G and its Jacobian
    ``dF/du = diag(1/G) dG/dV diag(V) - I`` (fixed_point._v_map_jacobian), on a batch."""
    with np.errstate(all="ignore"):
        V = np.exp(u)
        G, dG = _v_map_jacobian(P, V)
        J = dG * V[None, :] / G[:, None]
        J[0, 0] -= 1
        J[1, 1] -= 1
        return np.log(np.maximum(G, 1e-300)) - u, J


def _newton_batch(P, V_start, tol, max_iter=60):
    """Batched Newton on log(V1), log(V2) (as fixed_point._solve_v_newton, per point).

    The Jacobian is evaluated with the residual at every trial point, so an accepted step
    brings the next iteration's Jacobian along.  Returns ``(V, ok, residual, iterations)``:
    V of shape (2, N, 1), ``ok`` the points that converged, ``residual`` the last max |F|
    per point."""
    N = P.alpha.shape[0]
    u = np.log(np.broadcast_to(np.asarray(V_start, float).reshape(2, 1, 1), (2, N, 1))).copy()
    f, J = _log_map(P, u)
    nf = np.max(np.abs(f), axis=0)[:, 0]
    nf[~np.isfinite(nf)] = np.inf
    done = nf < 1e-15
    stuck = np.zeros(N, bool)
    iterations = 0
    for it in range(1, max_iter + 1):
        act = np.flatnonzero(~done & ~stuck)
        if act.size == 0:
            break
        iterations = it
        Pa = P.take(act)
        ua, fa, Ja, nfa = u[:, act], f[:, act], J[:, :, act], nf[act]
        with np.errstate(all="ignore"):      # J step = -f, 2 x 2 per point (Cramer)
            det = Ja[0, 0] * Ja[1, 1] - Ja[0, 1] * Ja[1, 0]
            step = np.array([(Ja[0, 1] * fa[1] - Ja[1, 1] * fa[0]) / det,
                             (Ja[1, 0] * fa[0] - Ja[0, 0] * fa[1]) / det])
        bad = ~np.all(np.isfinite(step), axis=0)[:, 0] | (det[:, 0] == 0)
        t = np.ones(act.size)
        accepted = np.zeros(act.size, bool)
        searching = ~bad
        while searching.any():
            s = np.flatnonzero(searching)
            trial = ua[:, s] + t[s][None, :, None] * step[:, s]
            ft, Jt = _log_map(Pa.take(s) if s.size < act.size else Pa, trial)
            nft = np.max(np.abs(ft), axis=0)[:, 0]
            good = np.isfinite(nft) & (nft < (1 - 1e-4 * t[s]) * nfa[s])
            gi = act[s[good]]
            u[:, gi], f[:, gi], J[:, :, gi] = trial[:, good], ft[:, good], Jt[:, :, good]
            nf[gi] = nft[good]
            accepted[s[good]] = True
            searching[s[good]] = False
            t[s[~good]] /= 2
            searching &= t > 1e-4
        # points whose line search failed stop here (as the single-point solver's "break")
        stuck[act[~accepted]] = True
        done |= nf < 1e-15
    ok = done | (nf < tol * 1e-2)
    return np.exp(u), ok, nf, iterations


def _solve_block(P, tol, values, residual, ok):
    """Solve the points of the batch ``P``; fill ``values`` (order parameters, test and
    train error), ``residual`` and ``ok`` in place; return the Newton iterations."""
    # 1. (V1, V2) by batched Newton
    V, settled, nf, iterations = _newton_batch(P, (_START.V1, _START.V2), tol)
    residual[:] = nf
    # 2. the affine completions and 3. the verifying sweep, on the points Newton settled
    idx = np.flatnonzero(settled)
    if idx.size:
        Pk = P.take(idx) if idx.size < settled.size else P
        with np.errstate(all="ignore"):
            state, det_mt, det_q = _complete_with_dets(Pk, V[0][idx], V[1][idx], check=False)
            change = _relative_change(Pk.sweep(state), state)
            test, train = Pk.errors(state)
        good = (np.isfinite(change) & (change < tol) & (np.abs(det_mt[:, 0]) >= 1e-300)
                & (det_q[:, 0] > 0))
        residual[idx] = change
        ok[idx] = good
        for k, arr in enumerate((*state, test, train)):
            values[k, idx] = np.broadcast_to(arr, (idx.size, 1))[:, 0]
    values[:, ~ok] = np.nan
    return iterations


def _relative_change(new: State, old: State):
    """Largest change of any order parameter, relative above 1 (fixed_point._residual)."""
    return np.max([np.abs(a - b) / np.maximum(1.0, np.abs(b)) for a, b in zip(new, old)],
                  axis=0)[:, 0]


# ======================================================================================
# results

_FIELDS = State._fields


class _CornerFailed(Exception):
    """A grid corner the single-point solver could not solve (skipped by the node choice)."""


def _choose_nodes(student, teacher, r, c, gamma, alphas, lams, beta, tol):
    """The node count ``solve(nodes="auto")`` picks, at each corner of the grid (the largest
    is used): up the same ladder (cut at the student's transitions at large r) until the test
    error moves by less than 1e-11; a corner whose last change stays above 1e-6 relative
    raises :class:`ConvergenceError`, between the two a note says so.  The choice depends on
    the arguments only, never on earlier calls."""
    _, ladder = node_rule(student, [float(r)], [float(c)], _NODE_LADDER)
    nodes, node_error, notes = [], [], []
    for a in sorted({alphas.min(), alphas.max()}):
        for lam in sorted({lams.min(), lams.max()}):
            def solve_at(K, prev, a=a, lam=lam):
                try:
                    return solve_srf(student, teacher, r, c, gamma, lam, a, beta, nodes=K,
                                     tol=tol)
                except (ConvergenceError, ValueError, ArithmeticError) as exc:
                    raise _CornerFailed() from exc
            try:
                res = climb_nodes(solve_at, ladder,
                                  f"solve_grid (corner alpha = {a:g}, lambda = {lam:g})")
            except _CornerFailed:
                continue
            notes += [f"{n} at alpha = {a:g}, lambda = {lam:g}" for n in res.notes
                      if n.startswith("kappa quadrature")]
            nodes.append(res.nodes)
            node_error.append(res.node_error)
    if not nodes:
        notes.append(f"no corner of the grid converged; {ladder[2]} kappa nodes used")
        return ladder[2], None, notes
    return max(nodes), max(node_error), notes


def _single_point_fallback(student, teacher, r, c, gamma, beta, spec, K, tol, max_iter, A, L,
                           values, residual, ok, method):
    """Hand the points the batch did not settle to the single-point solver (filling the
    arrays in place); return the list of points that failed there too."""
    failures = []
    for n in np.flatnonzero(~ok):
        a, lam = float(A.flat[n]), float(L.flat[n])
        try:
            res = solve_srf(student, teacher, r, c, gamma, lam, a, beta, spec, nodes=K,
                            tol=tol, max_iter=max_iter)
        except (ConvergenceError, ValueError) as exc:
            # ValueError: a point the single-point solver refuses outright (lambda = 0 with
            # alpha < beta has no unique solution); the grid's own inputs were checked above
            last = getattr(exc, "residual", None)
            last = last if last is not None else residual[n]
            residual[n] = float(last) if last is not None else np.nan
            failures.append({"alpha": a, "lam": lam, "residual": residual[n],
                             "message": str(exc)})
            method[n] = "failed"
            continue
        values[:, n] = (*res.state, res.test_error, res.train_error)
        residual[n], ok[n], method[n] = res.residual, True, "single-point"
    return failures


def solve_grid(student, teacher, alpha0, eta, alphas, lams, beta=1.0, spectrum="mp", *,
               d=None, seed=0, nodes="auto", tol=1e-10, mu0_correction=True,
               on_failure="report", max_iter=20000, chunk=65536, bulk="isotropic",
               loss="square", noise=0.0, bias=False, label_rule="teacher", vocabulary=None,
               dps=None, steps=1) -> GridResult:
    """Test and train error on every point of the grid ``alphas x lams`` at once.

    Same model and answer as :func:`srfsym.solve` (each entry equals the single-point
    solve to ~1e-13); the step (``alpha0``, ``eta``), the width ratio ``beta = p/d`` and
    the spectrum are fixed over the grid.  A thin wrapper: builds the
    :class:`~srfsym.theory.problem.Problem` family over (alpha, lambda); the square loss with
    the uniform readout in double precision is solved in one batch, every other problem
    the single solve takes point by point (:func:`~srfsym.theory.grid_points.point_grid`).

    Parameters
    ----------
    student, teacher : str or Activation
    alpha0, eta : float
        Step samples per dimension and learning rate of the giant step.
    alphas : sequence of float > 0
        Readout samples per dimension n/d (first axis of the result).
    lams : sequence of float >= 0
        Ridge penalties (second axis).
    beta : float
        Width ratio p/d.
    spectrum : "mp" or "sample"
        Deterministic Marchenko-Pastur back end, or one finite-``d`` sample drawn from
        ``seed`` (as :func:`srfsym.solve`; needs ``d``).
    nodes : int or "auto"
        kappa nodes; "auto" takes the largest count ``solve(nodes="auto")`` picks at the
        grid's corners.
    tol : float
        Verification tolerance of the final sweep, per point.
    on_failure : "report" or "raise"
        Points not solved are NaN and listed in ``failures`` (with a warning), or raise a
        :class:`ConvergenceError` naming them.
    max_iter : int
        Iteration cap of the single-point fallback (as in :func:`srfsym.solve`).
    chunk : int
        Points are solved in blocks of about ``chunk / nodes`` (speed only: the answer
        does not depend on it).
    bulk : "isotropic", "step" or "exact"
        ``"step"``: the bulk of the first layer realised at ``d`` from ``seed`` (with its
        measured r, c, gamma), as :func:`srfsym.solve` (docs/theory.md (g.4)); ``"exact"``:
        its d -> infinity law (docs/theory.md (g.5); ``ExactBulk.moments_array``, one
        vectorised Stieltjes solve per sweep of the grid).
    loss, noise, bias, label_rule :
        A readout loss, label noise, a trained bias, Bernoulli labels (docs/theory.md (m)):
        the grid is then solved point by point by the convex-loss fixed point
        (``nodes="auto"`` means 120 there), and the result also has
        ``classification_error`` and ``train_loss``.
    vocabulary, dps :
        A readout vocabulary (docs/theory.md (k.7)) or mpmath precision: point by point.
    steps :
        Giant steps T (docs/theory.md (p)); T > 1 is solved point by point.

    Examples
    --------
    >>> g = solve_grid("tanh", "sin", 20, 3, [0.5, 1.0, 2.0], [0.1], beta=2.0)
    >>> bool(np.all(np.diff(g.test_error[:, 0]) < 0))
    True
    """
    t0 = time.perf_counter()
    family = Problem(student, teacher, None, None, beta, alpha0=alpha0, eta=eta,
                     spectrum=spectrum, d=d, seed=seed, bulk=bulk, loss=loss, noise=noise,
                     bias=bias, label_rule=label_rule, vocabulary=vocabulary, dps=dps,
                     mu0_correction=mu0_correction, steps=steps)
    readout, loss_kind, _, precision, target, step_kind = family.key
    if (readout, loss_kind, precision, target, step_kind) != ("uniform", "square", "double",
                                                              "single", "one"):
        convex = loss_kind == "convex"
        options = Options(nodes=120 if convex and nodes == "auto" else nodes, tol=tol,
                          method="anderson" if convex else "structured",
                          max_iter=1000 if convex else max_iter)
        return point_grid(family, alphas, lams, options, on_failure=on_failure, t0=t0)
    return _batched_grid(family, alphas, lams, Options(nodes=nodes, tol=tol,
                                                       max_iter=max_iter), on_failure, chunk,
                         t0)


def _batched_grid(family, alphas, lams, options, on_failure, chunk, t0):
    """The square loss with the uniform readout in double precision, in one batch."""
    alphas = _grid_axis("alphas", alphas, 0.0, True)
    lams = _grid_axis("lams", lams, 0.0, False)
    beta = float(family.beta)
    for a in (alphas.min(), alphas.max()):
        for lam in (lams.min(), lams.max()):
            # lambda = 0 below the interpolation threshold is a point that fails (reported in
            # `failures`), not an invalid grid
            check_readout_point(a, lam if lam > 0 else 1.0, beta)
    if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
        raise ValueError(f"chunk must be a positive integer, got {chunk!r}")
    if on_failure not in ("report", "raise"):
        raise ValueError(f"on_failure must be 'report' or 'raise', got {on_failure!r}")
    mp = family.mapping()
    prior = build_prior(family, mp)     # the bulk does not depend on (alpha, lambda)
    (r, c, gamma), spec = prior.params, prior.spec
    notes = list(mp.notes) + ([prior.note] if prior.note is not None else [])
    node_error, nodes, tol = None, options.nodes, options.tol
    if nodes == "auto":
        nodes, node_error, more = _choose_nodes(family.student, family.teacher, r, c, gamma,
                                                alphas, lams, beta, tol)
        notes += more
    cuts, _ = node_rule(family.student, [float(r)], [float(c)], _NODE_LADDER)
    ch = group_channel_data(family.student, family.teacher, r, c, gamma, nodes=nodes,
                            extra_cuts=cuts).groups[0]
    if not hasattr(spec, "moments_array"):
        raise ValueError(f"solve_grid needs spectrum 'mp' or 'sample', got {family.spectrum!r}")
    A, L = np.meshgrid(alphas, lams, indexing="ij")
    values, residual, ok, method, iterations = _solve_batches(
        _GridProblem(ch, spec, A.ravel(), L.ravel(), beta), tol, chunk, ch.nodes)
    # the points the batch did not settle: the single-point solver, else a failure
    failures = _single_point_fallback(family.student, family.teacher, r, c, gamma, beta, spec,
                                      ch.nodes, tol, options.max_iter, A, L, values, residual,
                                      ok, method)
    shape = A.shape
    out = GridResult(
        alphas=alphas, lams=lams, beta=beta,
        test_error=values[-2].reshape(shape), train_error=values[-1].reshape(shape),
        state=State(*(values[k].reshape(shape) for k in range(len(_FIELDS)))),
        residual=residual.reshape(shape), converged=ok.reshape(shape),
        method=method.reshape(shape), r=float(r), c=float(c), gamma=float(gamma),
        nodes=ch.nodes, tol=tol, seconds=0.0, iterations=iterations, node_error=node_error,
        failures=failures, notes=notes, mapping=mp, spectrum=_spectrum_name(family, prior))
    out.seconds = time.perf_counter() - t0
    _report_failures(failures, on_failure)
    return out


def _spectrum_name(family, prior):
    d, seed = family.d, family.seed
    if prior.name == "exact":
        return "exact"
    if prior.name == "step":
        return f"step (d = {int(d)}, seed = {seed})"
    return family.spectrum if family.spectrum == "mp" else f"sample (d = {int(d)}, seed = {seed})"


def _solve_batches(P, tol, chunk, K):
    """Every point of the batch ``P`` in blocks (their ``(points, nodes)`` arrays stay in
    cache): ``(values, residual, ok, method, iterations)``."""
    N = P.alpha.shape[0]
    values = np.full((len(_FIELDS) + 2, N), np.nan)
    residual = np.full(N, np.nan)
    ok = np.zeros(N, bool)
    iterations = 0
    size = max(1, chunk // K)
    for lo in range(0, N, size):
        sl = slice(lo, min(N, lo + size))
        it = _solve_block(P.take(np.arange(sl.start, sl.stop)), tol, values[:, sl],
                          residual[sl], ok[sl])
        iterations = max(iterations, it)
    return values, residual, ok, np.where(ok, "grid-newton", "").astype(object), iterations


def _report_failures(failures, on_failure):
    if not failures:
        return
    where = ", ".join(f"(alpha={f['alpha']:g}, lambda={f['lam']:g}: last residual "
                      f"{f['residual']:.3g})" for f in failures[:5])
    more = f" and {len(failures) - 5} more" if len(failures) > 5 else ""
    message = f"{len(failures)} grid point(s) not converged: {where}{more}"
    if on_failure == "raise":
        raise ConvergenceError(message, residual=max(f["residual"] for f in failures))
    warnings.warn(message + "; their entries are NaN", RuntimeWarning, stacklevel=4)
