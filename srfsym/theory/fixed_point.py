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
import time
from dataclasses import dataclass

import mpmath
import numpy as np

from .channels.kappa_quadrature import channel_data, node_rule, validate_srf_parameters  # noqa: F401
from .engine import (_NODE_LADDER, _START, _Problem, _affine_fixed_point, _anderson,  # noqa: F401
                     _complete, _complete_with_dets, _residual, _solve_v_iterate,
                     _solve_v_newton, _spectral_moments, _v_map, _v_map_jacobian, sweep)
from .result import FixedPointResult, _fmt, _plain  # noqa: F401
from .state import NODES_REFUSE, ConvergenceError, Hats, State, climb_nodes
from .square_solve import (_solve_at, _solve_v_scipy, _validate, _validate_solver,  # noqa: F401
                           make_spectrum)
from ..step.mapping import srf_mapping
from ..core.values import MAX_SOLVER_DPS, check_dps
from ..core.precision import workdps

__all__ = ["State", "Hats", "ConvergenceError", "FixedPointResult", "LearningCurve",
           "sweep", "solve", "solve_srf", "learning_curve", "optimal_lambda", "make_spectrum"]



def solve_srf(student, teacher, r, c, gamma, lam, alpha, beta=1.0, spectrum="mp", *,
              d=None, seed=0, nodes="auto", tol=1e-10, method="structured", dps=None,
              start=None, max_iter=20000, vocabulary=None, loss="square", noise=0.0,
              bias=False, label_rule="teacher"):
    """Solve the fixed point for given sRF parameters (r, c, gamma).

    Parameters
    ----------
    student, teacher : str or Activation
    r, c, gamma : float
        Spike strength, bulk variance, alignment.
    lam, alpha, beta : float
        Ridge penalty (sum loss), readout samples per dimension n/d, width ratio p/d.
    spectrum : "mp", "sample" or a spectrum object
        Deterministic Marchenko-Pastur back end, or a finite-d sample (needs ``d``).
    nodes : int or "auto"
        kappa quadrature nodes; "auto" raises the count until the test error moves
        by less than 1e-11 and reports the node error.
    tol : float
        Largest change of any order parameter (relative above 1) in a final sweep.
    method : "structured", "anderson" or "damped"
        Exact reduction (default), Anderson-accelerated or plain damped iteration (0.5).
    dps : int or None
        Solve in mpmath at ``dps`` digits (structured method only).
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout vocabulary (docs/theory.md (k.7)).  ``None`` or ``[1]`` is the uniform
        readout (this function's own code); any other vocabulary solves the K-group
        equations of :mod:`srfsym.theory.fixed_point_groups` (deterministic spectrum, double
        precision, structured method; odd students only), with per-group order parameters
        (``V1``, ``q1`` K x K, the others K-vectors) and the totals ``test_error``,
        ``train_error``.
    loss, noise, bias, label_rule :
        Readout loss (``"square"``, ``"logistic"``, ``"hinge"`` or an expression in ``y``
        and ``yhat``), label noise, a trained output bias and the label rule (``"teacher"``
        or ``"bernoulli"``: labels +-1 with ``P(y = 1) = (1 + teacher(h))/2``;
        docs/theory.md (m)); anything
        but the plain square loss is solved by
        :func:`srfsym.theory.convex_fixed_point.solve_convex_srf`, with a vocabulary by
        :func:`srfsym.theory.channels.convex_groups.solve_convex_groups` (docs/theory.md (m.8)).

    Examples
    --------
    >>> res = solve_srf("sin", "sin", r=0.0, c=1.0, gamma=0.0, lam=0.1, alpha=2.0)
    >>> res.state.theta == 0.0 and res.test_error > 0
    True
    """
    if multi_index_teacher(teacher):     # multi-index hook (issue 28)
        raise ValueError(f"solve_srf takes a single-index teacher and a scalar gamma; for the "
                         f"multi-index target {getattr(teacher, 'name', teacher)!r} use "
                         "srfsym.theory.multi_index.solve_multi_index_srf (an alignment vector) "
                         "or solve (docs/theory.md (n))")
    if (not (isinstance(loss, str) and loss.strip() == "square") or noise != 0 or bias
            or label_rule != "teacher"):
        from .convex_fixed_point import solve_convex_srf
        if dps is not None:
            raise ValueError(
                "a loss other than the plain square loss (or label noise, or a bias) is solved "
                "in double precision (numerical proximal step): drop dps (docs/theory.md (m))")
        if vocabulary is not None:
            from ..step.vocabulary import vocabulary as make_vocabulary
            voc = make_vocabulary(vocabulary)
        from .interfaces import GroupSpectralSide
        if isinstance(spectrum, GroupSpectralSide) or (vocabulary is not None
                                                       and not voc.is_uniform):
            if not (isinstance(spectrum, GroupSpectralSide) or spectrum == "mp"):
                raise ValueError("with a readout vocabulary the fixed point is solved with the "
                                 "deterministic spectrum ('mp'), the realised step bulk "
                                 "(bulk='step') or its exact law (bulk='exact')")
            from .channels.convex_groups import solve_convex_groups
            realised = isinstance(spectrum, GroupSpectralSide)    # the step's bulk by letter
            return solve_convex_groups(
                student, teacher, r, c, gamma, lam, alpha, beta,
                vocabulary=spectrum.vocabulary if realised and vocabulary is None else voc,
                loss=loss, noise=noise, bias=bias, label_rule=label_rule,
                nodes=120 if nodes == "auto" else nodes, tol=tol,
                method="anderson" if method == "structured" else method, start=start,
                max_iter=min(max_iter, 1000), spectrum=spectrum if realised else None)
        return solve_convex_srf(student, teacher, r, c, gamma, lam, alpha, beta, spectrum,
                                loss=loss, noise=noise, bias=bias, label_rule=label_rule,
                                nodes=120 if nodes == "auto" else nodes, tol=tol,
                                method="anderson" if method == "structured" else method,
                                start=start, max_iter=max_iter, d=d, seed=seed)
    from .interfaces import GroupSpectralSide
    if isinstance(spectrum, GroupSpectralSide):   # the step's bulk split by letter (g.4, g.5.2)
        if dps is not None or method != "structured":
            raise ValueError(f"the {spectrum.name} step bulk with a vocabulary is solved in "
                             "double precision (no dps) by the structured method")
        from .fixed_point_groups import solve_srf_groups
        return solve_srf_groups(student, teacher, r, c, gamma, lam, alpha, beta,
                                vocabulary=spectrum.vocabulary if vocabulary is None
                                else vocabulary, nodes=nodes, tol=tol, start=start,
                                max_iter=max_iter, spectrum=spectrum)
    if vocabulary is not None:
        from ..step.vocabulary import vocabulary as make_vocabulary
        voc = make_vocabulary(vocabulary)
        if not voc.is_uniform:
            if spectrum != "mp" or dps is not None or method != "structured":
                raise ValueError("with a readout vocabulary the fixed point is solved with the "
                                 "deterministic spectrum ('mp'), in double precision (no dps), "
                                 "by the structured method")
            from .fixed_point_groups import solve_srf_groups
            return solve_srf_groups(student, teacher, r, c, gamma, lam, alpha, beta,
                                    vocabulary=voc, nodes=nodes, tol=tol, start=start,
                                    max_iter=max_iter)
    t0 = time.perf_counter()
    _validate(alpha, lam, beta)
    _validate_solver(tol, max_iter)
    validate_srf_parameters(r, c, gamma)
    if dps is not None:
        dps = check_dps(dps, MAX_SOLVER_DPS)
    if dps is None and method == "structured":       # an odd student's r -> 0+ branch
        from .square_solve import small_spike_branch
        branch = small_spike_branch(lambda x: solve_srf(
            student, teacher, x, c, gamma, lam, alpha, beta, spectrum, nodes=nodes, tol=tol,
            d=d, seed=seed, start=start, max_iter=max_iter), student, r)
        if branch is not None:
            return branch
    exact = (r, c, gamma)   # kept as given (decimal strings / mpf) for the mpmath solve
    r, c, gamma = float(r), float(c), float(gamma)
    spec = make_spectrum(spectrum, beta=float(beta), c=c, d=d, seed=seed, gamma=gamma)
    # large r: the rule cut at the student's transitions, nodes counted over the pieces
    cuts, ladder = node_rule(student, [r], [c], _NODE_LADDER)
    if nodes == "auto":
        res = climb_nodes(lambda K, prev: _solve_at(student, teacher, r, c, gamma, lam, alpha,
                                                    beta, spec, K, tol, method, None, start,
                                                    max_iter, cuts), ladder, "solve_srf")
    else:
        res = _solve_at(student, teacher, r, c, gamma, lam, alpha, beta, spec, int(nodes), tol,
                        method, None, start, max_iter, cuts)
    if dps is not None:
        res = _solve_mpmath(student, teacher, exact, lam, alpha, beta, spectrum, spec, d, seed,
                            gamma, res, tol, int(dps), max_iter, cuts)
    res.spectrum = spectrum if isinstance(spectrum, str) else type(spectrum).__name__
    res.seconds = time.perf_counter() - t0
    return res


def _solve_mpmath(student, teacher, exact, lam, alpha, beta, spectrum, spec, d, seed, gamma,
                  res, tol, dps, max_iter, cuts=()):
    """The mpmath solve at ``dps`` digits from the double-precision result ``res``: the kappa
    nodes raised until two counts agree to ``dps - 3`` digits; above 1000 nodes it stops with
    a note when they agree to 1e-6 relative, and raises :class:`ConvergenceError` if not."""
    r_mp, c_mp, g_mp = (v if isinstance(v, (str, mpmath.mpf)) else repr(float(v))
                        for v in exact)
    spec_mp = make_spectrum(spectrum, beta=str(beta), c=c_mp, d=d, seed=seed,
                            gamma=gamma) if spectrum == "mp" else spec
    K = max(res.nodes, _mp_nodes(dps))
    prev = None
    while True:
        mp_res = _solve_at(student, teacher, r_mp, c_mp, g_mp, str(lam), str(alpha), beta,
                           spec_mp, K, tol, "structured", int(dps), res.state, max_iter, cuts)
        if prev is not None:
            change = abs(mp_res.mp_test_error - prev.mp_test_error)
            if change < mpmath.mpf(10) ** (-(int(dps) - 3)):
                break
            if K > 1000:
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
    res = mp_res
    return res


def _mp_nodes(dps):
    return int(60 + 4 * dps)



def multi_index_teacher(teacher) -> bool:
    """True for a multi-index target (text in z1..zk or the object; docs/theory.md (n)).

    >>> multi_index_teacher("z1 + z1*z2"), multi_index_teacher("tanh")
    (True, False)
    """
    from ..symbolic.targets import MultiIndexTarget, is_multi_index
    return isinstance(teacher, MultiIndexTarget) or is_multi_index(teacher)


def solve(student, teacher, alpha0, eta, lam, alpha, beta=1.0, spectrum="mp", *,
          mu0_correction=True, **kwargs) -> FixedPointResult:
    """Test error after one giant step (``eta``, ``alpha0``) and a ridge readout.

    Maps (student, teacher, eta, alpha0) to (r, c, gamma) with :func:`srf_mapping`
    and solves the fixed point with :func:`solve_srf` (keyword arguments pass through,
    e.g. ``vocabulary=[1, 2]`` for a readout vocabulary, docs/theory.md (k.7)).
    ``bulk="step", d=D, seed=S`` (also for :func:`learning_curve`, :func:`optimal_lambda`)
    replaces the isotropic bulk ``c MP_beta`` by the bulk of the first layer realised at
    dimension ``D`` (the network of seed ``S``; its measured ``r, c, gamma`` on the channel
    side): :mod:`srfsym.theory.spectral.step_bulk`, docs/theory.md (g.4); with a ``vocabulary`` the
    K-group prior on that realised layer split by letter (:mod:`srfsym.theory.spectral.step_bulk_groups`,
    docs/theory.md (g.4.1)).  ``bulk="exact"`` uses its
    d -> infinity law instead (:mod:`srfsym.theory.spectral.exact_bulk`, the mapping's ``r, c, gamma``;
    uniform readout, double precision; docs/theory.md (g.5)).

    >>> res = solve("tanh", "sin", alpha0=0, eta=3, lam=0.1, alpha=2.0)  # plain RF
    >>> round(res.state.m, 12), round(res.state.theta, 12)
    (0.0, 0.0)
    """
    _validate(alpha, lam, beta)     # before the mapping's work
    if multi_index_teacher(teacher):     # multi-index hook (issue 28): docs/theory.md (n)
        from .multi_index import solve_multi_index_checked
        return solve_multi_index_checked(student, teacher, alpha0, eta, lam, alpha, beta,
                                         spectrum, mu0_correction=mu0_correction, **kwargs)
    mp = srf_mapping(student, teacher, eta, alpha0, mu0_correction=mu0_correction)
    dps = kwargs.get("dps")
    if dps is not None:
        check_dps(dps, MAX_SOLVER_DPS)
    step = _step_bulk(student, teacher, alpha0, eta, beta, spectrum, kwargs, mp)
    if step is not None:
        params, spectrum, note, name = step
    elif dps is None:
        params = (mp.spike_strength, mp.bulk_variance, mp.alignment)
    else:  # the mapping at the working precision, not its double-precision image
        params = tuple(v.decimal(int(dps) + 10) for v in mp.values().values())
    res = solve_srf(student, teacher, *params, lam, alpha, beta, spectrum, **kwargs)
    res.mapping = mp
    res.notes.extend(mp.notes)
    if step is not None:
        res.notes.append(note)
        res.spectrum = name
    return res


def _step_bulk(student, teacher, alpha0, eta, beta, spectrum, kwargs, mapping=None):
    """``((r, c, gamma), spectrum, note, name)`` for ``bulk="step"`` (docs/theory.md (g.4)) or
    ``bulk="exact"`` ((g.5)), ``None`` for the isotropic bulk; pops ``bulk`` (and, for the step,
    ``d`` and ``seed``) from ``kwargs``.  ``mapping``: the :func:`srf_mapping` result whose
    deterministic ``(r, c, gamma)`` the exact bulk uses on the channel side."""
    from .spectral.step_bulk import BULKS, step_bulk_spectrum
    bulk = kwargs.pop("bulk", "isotropic")
    if bulk not in BULKS:
        raise ValueError(f"bulk must be one of {BULKS}, got {bulk!r}")
    if bulk == "isotropic":
        return None
    own = ("the realised first layer" if bulk == "step" else
           "the exact law of the step's bulk, docs/theory.md (g.5)")
    if not (isinstance(spectrum, str) and spectrum == "mp"):
        raise ValueError(f"bulk={bulk!r} is its own spectral back end ({own}): "
                         f"leave spectrum at 'mp', got {spectrum!r}")
    voc = None
    if kwargs.get("vocabulary") is not None:
        from ..step.vocabulary import vocabulary as make_vocabulary
        voc = make_vocabulary(kwargs["vocabulary"])
        voc = None if voc.is_uniform else voc
    if bulk == "exact":
        return _exact_bulk(student, teacher, alpha0, eta, beta, kwargs, mapping, voc)
    d, seed = kwargs.pop("d", None), kwargs.pop("seed", 0)
    if d is None:
        raise ValueError("bulk='step' needs the dimension d of the realised first layer")
    from ..core.checks import scalar_like
    d = scalar_like("d", d)
    if isinstance(d, float) and d.is_integer():
        d = int(d)
    if voc is not None:
        return _step_group_bulk(student, teacher, alpha0, eta, beta, d, seed, voc)
    spec = step_bulk_spectrum(student, teacher, float(alpha0), float(eta), d, float(beta), seed)
    data = spec.data
    note = (f"bulk 'step': the realised first layer at d = {data.d}, p = {data.p}, seed = {seed} "
            f"(its measured r = {data.r:.6g}, c = {data.c:.6g}, gamma = {data.gamma:.6g}; "
            "docs/theory.md (g.4))")
    return (data.r, data.c, data.gamma), spec, note, "step"


def _step_group_bulk(student, teacher, alpha0, eta, beta, d, seed, voc):
    """The ``bulk="step"`` branch of :func:`_step_bulk` with a vocabulary: the realised layer
    split by letter (:mod:`srfsym.theory.spectral.step_bulk_groups`), its measured group parameters."""
    from .spectral.step_bulk_groups import step_group_bulk
    spec = step_group_bulk(student, teacher, float(alpha0), float(eta), d, float(beta), seed,
                           voc)
    rj = ", ".join(f"{v:.6g}" for v in spec.group_r)
    cj = ", ".join(f"{v:.6g}" for v in spec.group_c)
    note = (f"bulk 'step': the realised first layer with {voc} at d = {spec.d}, p = {spec.p}, "
            f"seed = {seed}, split by letter (measured r_j = {rj}, c_j = {cj}, gamma = "
            f"{spec.gamma:.6g}; the K-group sums on the realised Omega, docs/theory.md (g.4))")
    return (spec.r, spec.c, spec.gamma), spec, note, "step"


def _exact_bulk(student, teacher, alpha0, eta, beta, kwargs, mapping, voc=None):
    """The ``bulk="exact"`` branch of :func:`_step_bulk`: the mapping's deterministic
    ``(r, c, gamma)`` on the channel side (``c = E D`` of the exact law, docs/theory.md (g.5));
    with a vocabulary the exact K-group prior of docs/theory.md (g.5.2)."""
    from .spectral.exact_bulk import exact_bulk_spectrum
    if kwargs.get("dps") is not None:
        raise ValueError("bulk='exact' is solved in double precision only (its law comes from "
                         "a numerical fixed point): drop dps")
    if kwargs.get("d") is not None:
        raise ValueError("bulk='exact' is the d -> infinity law: it takes no d (use "
                         "bulk='step' for a first layer realised at dimension d)")
    kwargs.pop("d", None), kwargs.pop("seed", None)
    if not float(alpha0) > 0:
        raise ValueError(f"bulk='exact' needs a step with alpha0 > 0, got {alpha0!r}: at "
                         "alpha0 = 0 the bulk is the isotropic one (use bulk='isotropic')")
    if mapping is None:
        mapping = srf_mapping(student, teacher, eta, alpha0)
    _check_exact_variances(student, teacher, alpha0, eta, mapping, voc)
    if voc is not None:
        from .spectral.exact_bulk_groups import exact_group_bulk
        spec = exact_group_bulk(student, teacher, float(alpha0), float(eta), voc)
        cj = ", ".join(f"{v:.6g}" for v in spec.group_c)
        note = (f"bulk 'exact': the d -> infinity law of the step's bulk with {voc} "
                f"(docs/theory.md (g.5.2)), E ell_j = c_j = {cj}; the mapping's r, c, gamma on "
                f"the channel side; {spec.rule.nodes} contour nodes (rule error "
                f"{spec.rule.error:.1e})")
        return (spec.r, spec.c, spec.gamma), spec, note, "exact"
    spec = exact_bulk_spectrum(student, teacher, float(alpha0), float(eta), float(beta))
    r, c, gamma = (float(mapping.spike_strength), float(mapping.bulk_variance),
                   float(mapping.alignment))
    # E D = c (docs/theory.md (g.5)); the law's residual quadrature is good to ~1e-9, a wrong
    # mapping (mu0_correction=False) is off by percents
    if abs(spec.bulk_moments()[0] / c - 1) > 1e-6:
        raise ValueError(f"bulk='exact': the law's mean E D = {spec.bulk_moments()[0]:.12g} "
                         f"differs from the mapping's c = {c:.12g}; the law is derived with the "
                         "mu0 correction of the residuals (keep mu0_correction=True)")
    note = (f"bulk 'exact': the d -> infinity law of the step's bulk (docs/theory.md (g.5)), "
            f"E D = {spec.bulk_moments()[0]:.12g} = c; the mapping's r, c, gamma on the channel "
            "side")
    if not spec.exact_directions:
        note += ("; the F, H sums keep the isotropic rules F -> c, H -> D of docs/theory.md (g) "
                 "(the exact direction sums of (g.5) need eta > 0)")
    return (r, c, gamma), spec, note, "exact"


def _check_exact_variances(student, teacher, alpha0, eta, mapping, voc):
    """Refuse, before the exact law's work, a bulk variance the channel's coefficients cannot
    take (the isotropic bulk's message): ``c``, or with a vocabulary each letter's ``c_j`` (the
    uniform step's at learning rate ``|omega_j| eta``, docs/theory.md (k.1))."""
    from ..symbolic.cget import cget_coefficients
    cs = [float(mapping.bulk_variance)]
    if voc is not None:
        cs = [float(srf_mapping(student, teacher, abs(float(w)) * float(eta), alpha0)
                    .bulk_variance) for w in voc.letters]
    cget_coefficients(student)._validate(0.0, 0.0, np.array(cs))


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
    ``vocabulary`` pass through to :func:`solve_srf`.

    >>> lc = learning_curve("tanh", "sin", 20, 3, 0.1, [0.5, 1.0, 2.0])
    >>> bool(np.all(np.diff(lc.test_error) < 0))
    True
    """
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    if alphas.size == 0:
        raise ValueError("alphas must contain at least one value")
    if multi_index_teacher(teacher):     # multi-index hook (issue 28): docs/theory.md (n)
        from .multi_index import solve_multi_index_checked
        return LearningCurve(alphas, [solve_multi_index_checked(
            student, teacher, alpha0, eta, lam, float(a), beta, spectrum,
            **dict(kwargs, nodes=nodes)) for a in alphas])
    mp = srf_mapping(student, teacher, eta, alpha0, mu0_correction=kwargs.pop("mu0_correction",
                                                                             True))
    args = (student, teacher, mp.spike_strength, mp.bulk_variance, mp.alignment, lam)
    step = _step_bulk(student, teacher, alpha0, eta, beta, spectrum, kwargs, mp)
    if step is not None:
        args, spectrum = (student, teacher, *step[0], lam), step[1]
    if nodes == "auto":  # choose the kappa nodes at the ends of the curve, use the larger
        ends = {float(alphas.min()), float(alphas.max())}
        nodes = max(solve_srf(*args, a, beta, spectrum, nodes="auto", **kwargs).nodes
                    for a in ends)
    results, start = [], None
    iterator = alphas
    if progress:
        from tqdm.auto import tqdm
        iterator = tqdm(alphas, desc="learning curve", unit="pt")
    for a in iterator:
        try:
            res = solve_srf(*args, a, beta, spectrum, nodes=nodes, start=start, **kwargs)
        except ConvergenceError:
            if start is None:
                raise
            res = solve_srf(*args, a, beta, spectrum, nodes=nodes, **kwargs)
        res.mapping = mp
        if step is not None:
            res.notes.append(step[2])
            res.spectrum = step[3]
        results.append(res)
        start = res.state
    return LearningCurve(alphas, results)


def optimal_lambda(student, teacher, alpha0, eta, alpha, beta=1.0, spectrum="mp", *,
                   lam_range=(1e-6, 1e3), **kwargs):
    """Minimise the test error over lambda (bounded search in log lambda).

    Returns ``(lambda_opt, result)``; ``lambda_opt`` at the lower end of ``lam_range``
    means the ridgeless limit is optimal.  Keyword arguments such as ``vocabulary`` pass
    through to :func:`solve_srf`.

    >>> lam, res = optimal_lambda("tanh", "sin", 20, 3, 1.0)
    >>> res.test_error <= solve("tanh", "sin", 20, 3, 0.1, 1.0).test_error
    True
    """
    from scipy.optimize import minimize_scalar
    try:
        lo_lam, hi_lam = (float(v) for v in lam_range)
    except (TypeError, ValueError):
        raise ValueError(f"lam_range must be two numbers, got {lam_range!r}") from None
    if not (0 < lo_lam < hi_lam and math.isfinite(hi_lam)):
        raise ValueError(f"lam_range must satisfy 0 < low < high < inf, got {lam_range!r}")
    if str(kwargs.get("loss", "square")).strip() != "square" or kwargs.get("noise") \
            or kwargs.get("bias"):
        raise ValueError("optimal_lambda minimises the ridge's test error (square loss, no "
                         "noise, no bias); for other losses scan lambda with solve(..., loss=)")
    mu0_correction = kwargs.pop("mu0_correction", True)
    search = dict(kwargs, nodes=kwargs.get("nodes", 108), dps=None)   # the search in double
    mp = step = None
    if multi_index_teacher(teacher):     # multi-index hook (issue 28): docs/theory.md (n)
        from .multi_index import solve_multi_index_checked

        def solve_at(lam, kw):
            return solve_multi_index_checked(student, teacher, alpha0, eta, lam, alpha, beta,
                                             spectrum, mu0_correction=mu0_correction, **kw)
    else:
        mp = srf_mapping(student, teacher, eta, alpha0, mu0_correction=mu0_correction)
        args = (student, teacher, mp.spike_strength, mp.bulk_variance, mp.alignment)
        step = _step_bulk(student, teacher, alpha0, eta, beta, spectrum, kwargs, mp)
        if step is not None:
            args, spectrum = (student, teacher, *step[0]), step[1]

        def solve_at(lam, kw):
            return solve_srf(*args, lam, alpha, beta, spectrum, **kw)

    def f(loglam):
        try:
            return solve_at(math.exp(loglam), dict(search)).test_error
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
    res = solve_at(lam, dict(kwargs))
    if mp is not None:
        res.mapping = mp
    if step is not None:
        res.notes.append(step[2])
        res.spectrum = step[3]
    if min(opt.x - lo, hi - opt.x) < 1e-3:
        res.notes.append(f"the optimum lambda = {lam:.3g} sits at the edge of lam_range = "
                         f"{lam_range}: widen the range")
    return lam, res
