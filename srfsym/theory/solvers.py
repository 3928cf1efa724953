r"""The solvers of the dispatch table, one per ``(readout, loss, precision)``.

Each takes ``(problem, prior, options, start)`` (:mod:`srfsym.theory.dispatch`) and runs the
engine (:mod:`srfsym.theory.engine`) with its channel:

- :func:`ridge`: the square loss, uniform readout, double precision: the structured solve of
  :mod:`srfsym.theory.square_solve` up the kappa node ladder (docs/theory.md (f));
- :func:`ridge_mpmath`: the same, then the mpmath solve at ``dps`` digits from it;
- :func:`ridge_groups`: the K-group equations (:mod:`srfsym.theory.fixed_point_groups`,
  docs/theory.md (k.7));
- :func:`convex`: any convex loss, label noise, a bias or Bernoulli labels
  (:mod:`srfsym.theory.convex_fixed_point`, docs/theory.md (m));
- :func:`convex_groups`: the same with a vocabulary (:mod:`srfsym.theory.convex_groups`,
  docs/theory.md (m.8));
- :func:`multi_index_ridge`, :func:`multi_index_groups`, :func:`multi_index_convex`: a
  multi-index target (:mod:`srfsym.theory.multi_index`, docs/theory.md (n)).

>>> from srfsym.theory.problem import Options, Problem
>>> from srfsym.theory.spectral.priors import isotropic_prior
>>> p = Problem("sin", "sin", 0.1, 2.0, r=0.0, c=1.0, gamma=0.0)
>>> res = ridge(p, isotropic_prior(p, None), Options(), None)
>>> res.state.theta == 0.0 and res.test_error > 0
True
"""
from __future__ import annotations

import mpmath
import numpy as np

from .channels.kappa_quadrature import node_rule
from .convex_fixed_point import NoUniqueSolution, solve_convex_srf
from .convex_groups import solve_convex_groups
from .engine import _START, NODE_LADDER
from .fixed_point_groups import solve_srf_groups
from .multi_index import (solve_multi_index_convex, solve_multi_index_convex_groups,
                          solve_multi_index_groups,
                          solve_multi_index_noisy, solve_multi_index_srf)
from .square_solve import _solve_at, small_spike_branch
from .spectral.priors import make_spectrum
from .spectral.exact_bulk_groups import exact_group_bulk
from .state import NODES_REFUSE, ConvergenceError, Hats, State, climb_nodes

__all__ = ["ridge", "ridge_mpmath", "ridge_groups", "convex", "convex_groups",
           "multi_index_ridge", "multi_index_groups", "multi_index_convex",
           "multi_index_convex_groups"]


def ridge(problem, prior, options, start):
    """The square loss with the uniform readout in double precision (with the exact bulk of
    a moving step and an odd student: on the exact law's contour rule, :func:`_ridge_contour`).
    An odd student's spike below ``SMALL_SPIKE`` is solved on its ``r -> 0+`` branch
    (:func:`~srfsym.theory.square_solve.small_spike_branch`, docs/theory.md (f))."""
    if options.method == "structured":
        r0 = prior.params[0]
        branch = small_spike_branch(
            lambda x: ridge(problem, prior._replace(params=(x, *prior.params[1:])), options,
                            start), problem.student, r0)
        if branch is not None:
            return branch
    if _on_contour(problem, prior, options):
        return _ridge_contour(problem, prior, options, start)
    p, (r, c, gamma) = problem, (float(v) for v in prior.params)
    spec = prior.spec
    # large r: the rule cut at the student's transitions, nodes counted over the pieces
    cuts, ladder = node_rule(p.student, [r], [c], NODE_LADDER)

    def solve_at(K, prev=None, warm=None):
        return _solve_at(p.student, p.teacher, r, c, gamma, p.lam, p.alpha, p.beta, spec, K,
                         options.tol, options.method, None, start if warm is None else warm,
                         options.max_iter, cuts)
    if options.nodes == "auto" and prior.name == "exact":
        res = _nodes_from_isotropic(problem, prior, options, start, solve_at, ladder, cuts)
    elif options.nodes == "auto":
        res = _certified(problem, prior, options, start, solve_at, ladder, cuts)
    else:
        res = solve_at(int(options.nodes))
    res.spectrum = p.spectrum if isinstance(p.spectrum, str) else type(p.spectrum).__name__
    res._cuts = cuts
    return res


ridge.label = "ridge"


def _on_contour(problem, prior, options):
    """``bulk="exact"`` whose law has a contour rule: an odd student (``a = 0``) and a step
    that moves the bulk (``b > 0``), the structured method.  A non-odd student's rows have
    covariance ``(I + a S1)^2 + b S2``, not a function of the one batch matrix ``S2`` the
    rule integrates over: it is solved on the uniform law's own sums (docs/theory.md (g.5.2))."""
    law = prior.spec
    return (problem.bulk == "exact" and options.method == "structured"
            and getattr(law, "a", None) == 0.0 and getattr(law, "b", 0.0) > 0.0)


def _ridge_contour(problem, prior, options, start):
    """The uniform readout on the exact bulk, solved as the one-letter vocabulary ``[1]`` of
    docs/theory.md (g.5.2): the same law (K = 1 is the uniform law, to ~1e-14), its sums by
    the step batch's contour rule, built once per step (:func:`exact_group_bulk`), instead of
    a Stieltjes solve per sweep.  The result is the uniform readout's (scalars)."""
    p = problem
    spec = exact_group_bulk(p.student, p.teacher, float(p.alpha0), float(p.eta), [1])
    if start is not None:
        q1, q2, V1, V2, th, ps, m = (float(np.ravel(v)[0]) for v in start)
        start = State(np.array([[q1]]), np.array([q2]), np.array([[V1]]), np.array([V2]),
                      np.array([th]), np.array([ps]), np.array([m]))
    res = solve_srf_groups(p.student, p.teacher, *prior.params, p.lam, p.alpha, p.beta,
                           vocabulary=[1], nodes=options.nodes, tol=options.tol, start=start,
                           max_iter=options.max_iter, spectrum=spec)
    res.state = State(*(float(np.ravel(v)[0]) for v in res.state))
    res.hats = Hats(*(float(np.ravel(v)[0]) for v in res.hats))
    res.vocabulary, res.groups = None, None
    res.method = "structured"
    res.notes.append(f"the exact law's sums on its contour rule ({spec.rule.nodes} nodes, "
                     f"rule error {spec.rule.error:.1e}; docs/theory.md (g.5.2) with K = 1)")
    return res

#: The node counts certified by climbing the ladder, per point (:func:`_node_key`): the
#: count ``nodes="auto"`` picks, its node error, the ladder's notes and the certified
#: solution's (V1, V2).  The climb is a function of the point alone, so a count found here
#: is the count a new climb would find; a point not seen before climbs.  The one solve at
#: the remembered count starts Newton at the remembered (V1, V2): where they still solve
#: the (V1, V2) equations to 1e-15 (always, but for a solve that ended on Newton's looser
#: acceptance) Newton takes no step and returns them as they are, so the answer is the
#: first call's, bit for bit (the answer never depends on earlier calls); the solution is
#: verified by the final sweep as every solve is.
_CERTIFIED: dict = {}
_CERTIFIED_SIZE = 4096


def _node_key(problem, prior, options, ladder, cuts):
    """The arguments the climb depends on (the point, the options, the ladder and the rule's
    cuts), or ``None`` when one of them cannot be a key (a spectrum object given by the
    caller)."""
    p = problem
    if not isinstance(p.spectrum, str):
        return None
    try:
        key = (p.student, p.teacher, *(float(v) for v in prior.params), float(p.lam),
               float(p.alpha), float(p.beta), p.spectrum, p.bulk, p.d, p.seed, p.alpha0,
               p.eta, p.mu0_correction, options.tol, options.method, options.max_iter,
               tuple(ladder), tuple(float(x) for x in np.ravel(cuts)))
        hash(key)
    except TypeError:
        return None
    return key


def _nodes_from_isotropic(problem, prior, options, start, solve_at, ladder, cuts):
    """The exact bulk: the kappa node count climbed on the isotropic bulk ``c MP_beta`` at the
    same ``r, c, gamma`` (the count is set by the channel side, whose coefficients are the
    same; each rung there costs a closed form, on the exact law a Stieltjes solve per
    sweep), then one solve on the exact law at that count: the choice
    :func:`srfsym.theory.grid.solve_grid` makes, so ``error`` and a ``sweep`` of the same
    point cost the same and give the same digits."""
    p, (r, c, gamma) = problem, (float(v) for v in prior.params)
    iso = make_spectrum("mp", beta=p.beta, c=c)

    def iso_at(K, prev=None, warm=None):
        return _solve_at(p.student, p.teacher, r, c, gamma, p.lam, p.alpha, p.beta, iso, K,
                         options.tol, options.method, None, start if warm is None else warm,
                         options.max_iter, cuts)
    chosen = _certified(p, prior._replace(spec=iso), options, start, iso_at, ladder, cuts)
    res = solve_at(chosen.nodes)
    res.node_error = chosen.node_error
    res.notes += [f"{n} (the count climbed on the isotropic bulk at the same r, c, gamma)"
                  for n in chosen.notes if n.startswith("kappa quadrature")]
    return res


def _certified(problem, prior, options, start, solve_at, ladder, cuts):
    """``climb_nodes`` up the ladder, or one solve at the count it certified for this very
    point before (same count, same numbers; the node error and notes reported again)."""
    key = None if start is not None else _node_key(problem, prior, options, ladder, cuts)
    hit = _CERTIFIED.get(key) if key is not None else None
    if hit is not None:
        nodes, node_error, notes, V = hit
        res = solve_at(nodes, warm=None if V is None else _START._replace(V1=V[0], V2=V[1]))
        res.node_error = node_error
        res.notes.extend(notes)
        return res
    res = climb_nodes(solve_at, ladder, "solve_srf")
    if key is not None:
        if len(_CERTIFIED) >= _CERTIFIED_SIZE:
            _CERTIFIED.pop(next(iter(_CERTIFIED)))
        _CERTIFIED[key] = (res.nodes, res.node_error,
                           [n for n in res.notes if n.startswith("kappa quadrature")],
                           (res.state.V1, res.state.V2) if options.method == "structured"
                           else None)
    return res


def ridge_mpmath(problem, prior, options, start):
    """The double-precision solve, then the mpmath solve at ``dps`` digits from it: the kappa
    nodes raised until two counts agree to ``dps - 3`` digits; above 1000 nodes it stops with
    a note when they agree to 1e-6 relative, and raises :class:`ConvergenceError` if not."""
    p, dps = problem, int(problem.dps)
    res = ridge(problem, prior, options, start)
    r_mp, c_mp, g_mp = (v if isinstance(v, (str, mpmath.mpf)) else repr(float(v))
                        for v in prior.params)
    spec_mp = (make_spectrum(p.spectrum, beta=str(p.beta), c=c_mp, d=p.d, seed=p.seed,
                             gamma=float(g_mp))
               if isinstance(p.spectrum, str) and p.spectrum == "mp" and p.bulk == "isotropic"
               else prior.spec)
    K, prev = max(res.nodes, _mp_nodes(dps)), None
    while True:
        mp_res = _solve_at(p.student, p.teacher, r_mp, c_mp, g_mp, str(p.lam), str(p.alpha),
                           p.beta, spec_mp, K, options.tol, "structured", dps, res.state,
                           options.max_iter, res._cuts)
        if prev is not None:
            change = abs(mp_res.mp_test_error - prev.mp_test_error)
            if change < mpmath.mpf(10) ** (-(dps - 3)):
                break
            if K > 1000:
                _mp_ladder_end(mp_res, change, K, dps)
                break
        prev = mp_res
        K = int(K * 1.5)
    mp_res.node_error = float(change)
    from .spectrum import SampledSpectrum
    if isinstance(spec_mp, SampledSpectrum):
        mp_res.notes.append(
            f"{type(spec_mp).__name__}: the sampled matrix's eigen-data are double precision; "
            f"the {dps}-digit value is exact for those data, but describes the sampled "
            "matrix itself only to ~1e-12 relative")
    mp_res.spectrum = res.spectrum
    return mp_res


ridge_mpmath.label = "ridge (mpmath)"


def _mp_ladder_end(mp_res, change, K, dps):
    rel = float(change / max(abs(mp_res.mp_test_error), mpmath.mpf(10) ** -300))
    if not rel <= NODES_REFUSE:
        raise ConvergenceError(
            f"solve_srf at {dps} digits: the kappa quadrature did not converge: "
            f"the test error at {K} nodes and at the count before differ by "
            f"{mpmath.nstr(change, 2)} ({rel:.1e} relative, above {NODES_REFUSE:g});"
            " the double-precision result (no dps) may still be available",
            residual=float(change))
    mp_res.notes.append(
        f"kappa quadrature at {dps} digits: two node counts agree to "
        f"{mpmath.nstr(change, 2)} only; trust the test error to that level")


def _mp_nodes(dps):
    return int(60 + 4 * dps)


def ridge_groups(problem, prior, options, start):
    """The square loss with a readout vocabulary (K groups), double precision."""
    p = problem
    spec = prior.spec
    if options.method != "structured":
        raise ValueError(f"the {spec.name} step bulk with a vocabulary is solved in double "
                         "precision (no dps) by the structured method" if spec is not None else
                         "with a readout vocabulary the fixed point is solved with the "
                         "deterministic spectrum ('mp'), in double precision (no dps), by the "
                         "structured method")
    voc = p.vocabulary if p.vocabulary is not None else spec.vocabulary
    return solve_srf_groups(p.student, p.teacher, *prior.params, p.lam, p.alpha, p.beta,
                            vocabulary=voc, nodes=options.nodes, tol=options.tol, start=start,
                            max_iter=options.max_iter, spectrum=spec)


ridge_groups.label = "ridge, K groups"


def _convex_args(problem, options):
    p = problem
    return dict(loss=p.loss, noise=p.noise, bias=p.bias, label_rule=p.label_rule,
                nodes=120 if options.nodes == "auto" else options.nodes, tol=options.tol,
                method="anderson" if options.method == "structured" else options.method)


def convex(problem, prior, options, start, context=None, nodes_u=16):
    """A convex loss (or noise, a bias, Bernoulli labels) with the uniform readout
    (``context``: shared by the points of a grid; ``nodes_u``: the inner integrals' nodes)."""
    p = problem
    named = isinstance(p.spectrum, str) and p.bulk == "isotropic"

    def at(alpha, start, max_iter):
        return solve_convex_srf(p.student, p.teacher, *prior.params, p.lam, alpha, p.beta,
                                p.spectrum if named else prior.spec, start=start,
                                max_iter=max_iter, d=p.d, seed=p.seed, context=context,
                                nodes_u=nodes_u, **_convex_args(p, options))
    if start is not None or context is not None:
        return at(p.alpha, start, options.max_iter)
    try:        # from the ridge start: a point that converges at all does so in a few hundred
        return at(p.alpha, None, min(options.max_iter, FIRST_SWEEPS))
    except NoUniqueSolution:
        raise
    except ConvergenceError:
        pass
    res = _alpha_continuation(at, float(p.alpha), options.max_iter)
    return res if res is not None else at(p.alpha, None, options.max_iter)


convex.label = "convex"


#: sweeps from the ridge start before a convex point tries the continuation in alpha (the
#: full ``max_iter`` from the ridge start is the last resort)
FIRST_SWEEPS = 2000
#: where the continuation of :func:`_alpha_continuation` may start, as fractions of alpha
CONTINUATION_STARTS = (1 / 4, 1 / 16)


def _alpha_continuation(at, alpha, max_iter):
    """A convex-loss point whose iteration from the ridge start did not converge, reached
    from a smaller alpha (where the iteration from the ridge start converges) by doubling
    alpha, each point warm-started from the one before: the fixed point is unique (a
    strictly convex objective), so the path changes the route, not the answer.  ``None`` if
    no start converges."""
    for frac in CONTINUATION_STARTS:
        a = alpha * frac
        try:
            res = at(a, None, max_iter)
            while a < alpha:
                a = min(2.0 * a, alpha)
                res = at(a, (*res.state, res.bias or 0.0), max_iter)
        except (ConvergenceError, ValueError, ArithmeticError):
            continue
        res.notes.append(f"reached by continuation in alpha from alpha = {alpha * frac:.4g} "
                         "(the iteration from the ridge start did not converge here)")
        return res
    return None


def convex_groups(problem, prior, options, start):
    """A convex loss with a readout vocabulary (K groups), double precision."""
    p, spec = problem, prior.spec
    voc = p.vocabulary if p.vocabulary is not None else spec.vocabulary
    return solve_convex_groups(p.student, p.teacher, *prior.params, p.lam, p.alpha, p.beta,
                               vocabulary=voc, start=start,
                               max_iter=min(options.max_iter, 1000), spectrum=spec,
                               **_convex_args(p, options))


convex_groups.label = "convex, K groups"


# ---- multi-index targets (docs/theory.md (n)): the alignment vector in prior.params[2] ------
def _multi_index_options(options):
    """The multi-index solvers' keywords from the options (``nodes="auto"``: their fixed
    rule, :data:`~srfsym.theory.multi_index.MULTI_INDEX_NODES`)."""
    if options.method != "structured":
        raise ValueError("a multi-index target is solved by the structured method (Newton on "
                         f"(V1, V2), docs/theory.md (n.4)), got method = {options.method!r}")
    return dict(tol=options.tol, **({} if options.nodes == "auto" else
                                    {"nodes": int(options.nodes)}))


def multi_index_ridge(problem, prior, options, start):
    """The square loss with the uniform readout for a multi-index target
    (:func:`~srfsym.theory.multi_index.solve_multi_index_srf`; ``start`` is not used)."""
    p = problem
    return solve_multi_index_srf(p.student, p.teacher, *prior.params, p.lam, p.alpha, p.beta,
                                 p.spectrum, max_iter=options.max_iter, d=p.d, seed=p.seed,
                                 **_multi_index_options(options))


multi_index_ridge.label = "multi-index ridge"


def multi_index_groups(problem, prior, options, start):
    """The square loss with a readout vocabulary for a multi-index target
    (:func:`~srfsym.theory.multi_index.solve_multi_index_groups`, docs/theory.md (n.7))."""
    p = problem
    return solve_multi_index_groups(p.student, p.teacher, *prior.params, p.lam, p.alpha,
                                    p.beta, vocabulary=p.vocabulary, max_iter=options.max_iter,
                                    **_multi_index_options(options))


multi_index_groups.label = "multi-index ridge, K groups"


def multi_index_convex(problem, prior, options, start):
    """A convex loss for a multi-index target: the square loss with label noise or a trained
    bias (:func:`~srfsym.theory.multi_index.solve_multi_index_noisy`), any other convex loss
    (:func:`~srfsym.theory.multi_index.solve_multi_index_convex`), docs/theory.md (n.8)."""
    p = problem
    nodes = {} if options.nodes == "auto" else {"nodes": int(options.nodes)}
    args = (p.student, p.teacher, *prior.params, p.lam, p.alpha, p.beta, p.spectrum)
    if isinstance(p.loss, str) and p.loss.strip() == "square":
        return solve_multi_index_noisy(*args, noise=p.noise, bias=p.bias,
                                       max_iter=min(options.max_iter, 1000), d=p.d, seed=p.seed,
                                       **_multi_index_options(options))
    return solve_multi_index_convex(*args, loss=p.loss, noise=p.noise, bias=p.bias,
                                    tol=options.tol, max_iter=min(options.max_iter, 1000),
                                    d=p.d, seed=p.seed, **nodes)


multi_index_convex.label = "multi-index, convex"


def multi_index_convex_groups(problem, prior, options, start):
    """A convex loss (also the square loss with label noise or a bias) with a readout
    vocabulary for a multi-index target
    (:func:`~srfsym.theory.multi_index.solve_multi_index_convex_groups`, docs/theory.md (n.8))."""
    p = problem
    if p.spectrum != "mp":
        raise ValueError("with a readout vocabulary the multi-index fixed point is solved with "
                         "the deterministic block-Wishart spectrum: spectrum='mp'")
    nodes = {} if options.nodes == "auto" else {"nodes": int(options.nodes)}
    return solve_multi_index_convex_groups(p.student, p.teacher, *prior.params, p.lam, p.alpha,
                                           p.beta, vocabulary=p.vocabulary, loss=p.loss,
                                           noise=p.noise, bias=p.bias, tol=options.tol,
                                           max_iter=min(options.max_iter, 1000), **nodes)


multi_index_convex_groups.label = "multi-index, convex, K groups"
