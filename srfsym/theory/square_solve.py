"""The square loss's structured solve at one kappa rule, and the spectral back end by name.

The core of :func:`srfsym.theory.fixed_point.solve_srf` (docs/theory.md (f)): given the
channel data on a kappa rule and a spectral side, Newton on the closed (V1, V2) subsystem,
the affine completion and a verifying sweep.  The convex-loss solver uses it for its warm
start, so it lives below both.

>>> spec = make_spectrum("mp", beta=1.0, c=1.0)
>>> res = _solve_at("sin", "sin", 0.0, 1.0, 0.0, 0.1, 2.0, 1.0, spec, 60, 1e-10,
...                 "structured", None, None, 1000)
>>> res.test_error > 0 and res.residual < 1e-10
True
"""
from __future__ import annotations

import math
import time

import mpmath
import numpy as np

from .channels.kappa_quadrature import channel_data, group_channel_data
from .engine import (_START, _Problem, _anderson, _complete, _residual, _solve_v_iterate,  # noqa: F401
                     _solve_v_newton, _v_map, _validate, _validate_solver)
from .result import FixedPointResult
from .spectral.priors import make_spectrum  # noqa: F401 (the one spectral back-end factory)
from .state import ConvergenceError, State
from ..core.precision import workdps

__all__ = ["make_spectrum"]


def _solve_at(student, teacher, r, c, gamma, lam, alpha, beta, spec, K, tol, method, dps,
              start, max_iter, cuts=(), channel=None):
    t0 = time.perf_counter()
    if channel is not None:   # multi-index hook (issue 28): teacher arrays built by the caller
        ch = channel
    elif cuts:    # a large spike strength: the rule cut at the student's transitions
        ch = group_channel_data(student, teacher, r, c, gamma, nodes=K, dps=dps,
                                extra_cuts=cuts).groups[0]
    else:
        ch = channel_data(student, teacher, r, c, gamma, nodes=K, dps=dps)
    P = _Problem(ch, spec, alpha, lam, beta)
    start = State(*start) if start is not None else _START
    notes = []
    iterations = 0
    if method == "structured" and dps is None:
        try:
            V, iterations = _solve_v_newton(P, (start.V1, start.V2), tol)
        except ConvergenceError as exc:
            notes.append(f"Newton failed ({exc}); Anderson iteration on (V1, V2)")
            try:
                V, iterations = _solve_v_iterate(P, (start.V1, start.V2), tol, max_iter)
            except ConvergenceError:
                V = _solve_v_scipy(P, (start.V1, start.V2), tol)
                notes.append("scipy.optimize.root on (V1, V2)")
        state = _complete(P, float(V[0]), float(V[1]))
    elif method == "structured":
        with workdps(dps + 10):
            V1s, V2s = (mpmath.mpf(float(start.V1)), mpmath.mpf(float(start.V2)))
            f = lambda a, b: [x - y for x, y in zip(_v_map(P, (a, b)), (a, b))]
            V1, V2 = mpmath.findroot(f, (V1s, V2s), tol=mpmath.mpf(10) ** (-2 * dps))
            state = _complete(P, V1, V2)
    elif method in ("anderson", "damped"):
        if dps is not None:
            raise ValueError("the mpmath mode uses the structured method")
        G = lambda x: np.asarray(P.sweep(State(*x)), dtype=float)
        x, iterations, _ = _anderson(G, np.asarray(start, dtype=float), tol * 0.1, max_iter,
                                     memory=5 if method == "anderson" else 0)
        state = State(*x)
    else:
        raise ValueError(f"unknown method {method!r}")
    with workdps((dps or 15) + 10):    # the verifying sweep, its hats and errors formed once
        hat, w, eps = P.channel.hats_and_eps(state)
        res, new = _residual(P, state, P.prior.overlaps(hat, P.channel.m_update(state.theta, w)))
        test, train = P.channel.errors(state, eps)
    if not res < tol:
        raise ConvergenceError(f"fixed point not verified: final sweep moves the order "
                               f"parameters by {res:.3e} > tol = {tol:g}", residual=res,
                               iterate=state)
    mp_test = test if dps is not None else None
    out = FixedPointResult(
        test_error=float(test), train_error=float(train), state=state, hats=hat,
        alpha=float(alpha), lam=float(lam), beta=float(beta), r=float(r), c=float(c),
        gamma=float(gamma), spectrum="", nodes=K, residual=res, method=method,
        iterations=iterations, seconds=time.perf_counter() - t0,
        precision="double" if dps is None else f"mpmath:{dps}", mp_test_error=mp_test,
        notes=notes)
    out.rule_size = len(ch.kappa)   # the nodes the rule really has (climb_nodes)
    return out


def _solve_v_scipy(P, start, tol):
    from scipy.optimize import root
    f = lambda u: np.log(np.maximum(np.asarray(_v_map(P, np.exp(u)), float), 1e-300)) - u
    sol = root(f, np.log(np.asarray(start, float)), method="hybr", tol=tol * 1e-3)
    if not sol.success:
        raise ConvergenceError(f"scipy.optimize.root failed: {sol.message}",
                               residual=float(np.max(np.abs(sol.fun))), iterate=np.exp(sol.x))
    return np.exp(sol.x)


#: Below this spike strength an odd student's fixed point is taken on the ``r -> 0+`` branch,
#: extrapolated from ``r = SMALL_SPIKE`` and ``2 SMALL_SPIKE`` (docs/theory.md (f), *the limit
#: eta -> 0*): there ``m ~ 1/r`` and ``mu0(kappa) ~ r`` lose ``log10(1/r)`` digits.
SMALL_SPIKE = 1e-4


def small_spike_branch(solve, student, r):
    """For an odd ``student`` and ``0 < |r| < SMALL_SPIKE``: the fixed point on the ``r -> 0+``
    branch, ``solve(r')`` at ``r' = SMALL_SPIKE`` and ``2 SMALL_SPIKE`` (sign of ``r``), the errors
    extrapolated in ``r^2`` to ``r`` and ``m`` rescaled by ``r'/r`` (``m mu0(kappa)`` is what the
    channel sees); ``None`` when the spike is not small (solve at ``r`` itself).

    >>> from srfsym.theory.fixed_point import solve_srf
    >>> f = lambda x: solve_srf("tanh", "sin", x, 1.0, 0.8, 0.1, 1.0)
    >>> tiny, small = small_spike_branch(f, "tanh", 1e-9), f(1e-3)
    >>> bool(abs(tiny.test_error - small.test_error) < 1e-6), bool(tiny.state.m > 1e8)
    (True, True)
    >>> small_spike_branch(f, "relu", 1e-9) is None     # a non-odd student has no such branch
    True
    """
    from ..symbolic.activations import activation
    r = float(r)
    if not (0.0 < abs(r) < SMALL_SPIKE) or not activation(student).is_odd:
        return None
    r1 = math.copysign(SMALL_SPIKE, r)
    one, two = solve(r1), solve(2.0 * r1)
    weight = (r1 * r1 - r * r) / (3.0 * r1 * r1)       # v(r) = v1 - (v2 - v1)(r1^2 - r^2)/(r2^2 - r1^2)
    one.test_error -= (two.test_error - one.test_error) * weight
    one.train_error -= (two.train_error - one.train_error) * weight
    one.state = one.state._replace(m=one.state.m * r1 / r)
    one.r = r
    one.notes.append(
        f"spike strength r = {r:.3g} below {SMALL_SPIKE:g}: the r -> 0+ branch of an odd student "
        f"(the mean direction carries the spike's linear signal unpenalised, m ~ 1/r), "
        f"extrapolated in r^2 from r = {r1:g}, {2 * r1:g} (change {two.test_error - one.test_error:.1e}); "
        "at r = 0 exactly the test error is that of plain random features, docs/theory.md (f)")
    return one
