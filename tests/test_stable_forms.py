"""Overflow-safe generated losses (docs/theory.md (m.5)): ``log(cosh(y - yhat))``,
``log(1 + exp(-y*yhat))`` and other two-term log-sum-exps are differentiated by SymPy in the
forms of :func:`srfsym.symbolic.special.stable_forms`, so the generated value and first two
derivatives stay finite at ``|u|`` up to 1e4 (where ``sinh/cosh`` and ``exp/(1 + exp)`` are
inf/inf) and equal the derivatives of the loss as written, evaluated in mpmath with 30 correct
digits; a solve whose labels reach |y - yhat| ~ 1000 (it stopped on a NaN derivative) gives
the same answer as the same loss written another way."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.symbolic.special import stable_forms
from srfsym.theory.channels.losses import Y, YHAT, loss
from srfsym.theory.convex_fixed_point import solve_convex_srf

U = np.array([1e-6, 1e-3, 0.3, 1.0, 5.0, 19.5, 100.0, 709.0, 711.0, 1500.0, 1e4])
U = np.concatenate([-U[::-1], [0.0], U])


def _reference(expr, y, t, order):
    """The ``order``-th yhat-derivative of ``expr`` as written (no stable form) at (y, t), in
    mpmath with 30 correct digits (the working precision covers the cancellation of e.g.
    ``1 - sinh^2/cosh^2 = sech^2``, ~ 2|u|/ln 10 digits)."""
    d = sp.diff(expr, YHAT, order)
    f = sp.lambdify((Y, YHAT), d, modules="mpmath")
    dps = 40 + int(2 * (abs(y) + abs(t)) / math.log(10))
    with mpmath.workdps(dps):
        return f(mpmath.mpf(y), mpmath.mpf(t))


def _check(spec, ys, ts):
    lo = loss(spec)
    gens = (lo.value, lo.channel_d1, lo.channel_d2)
    refs = (lo.expr, lo.channel_expr, lo.channel_expr)
    for order, (gen, ref) in enumerate(zip(gens, refs)):
        with np.errstate(over="raise", invalid="raise", divide="raise"):   # no inf/inf
            got = np.asarray(gen(ys, ts), float)
        assert np.all(np.isfinite(got)), (spec, order)
        for yi, ti, gi in zip(ys, ts, got):
            want = _reference(ref, yi, ti, order)
            assert abs(gi - want) <= 2e-14 * abs(want) + 1e-300, (spec, order, yi, ti, gi,
                                                                   want)


@pytest.mark.parametrize("spec", ["log(cosh(y-yhat))", "log(exp(y-yhat) + exp(yhat-y))",
                                  "log(2 + 3*exp(yhat - y))"])
def test_residual_losses_are_finite_and_exact_at_large_u(spec):
    y = np.full(U.size, 2.5)
    _check(spec, y, y - U)


@pytest.mark.parametrize("spec", ["log(1 + exp(-y*yhat))", "-log(1/(1 + exp(-y*yhat)))"])
def test_logistic_written_by_hand_is_finite_and_exact_at_large_margins(spec):
    y = np.concatenate([np.ones(U.size), -np.ones(U.size)])
    _check(spec, y, np.concatenate([U, U]))


def test_the_forms_recognised():
    """The rewritten loss has no ``exp`` or ``cosh`` left (nothing to overflow) and its
    derivatives are again stable functions."""
    for spec in ("log(cosh(y-yhat))", "log(1 + exp(-y*yhat))", "log(exp(y-yhat) + exp(yhat-y))",
                 "log(2*cosh(yhat - y))", "-log(exp(y*yhat)/(1 + exp(y*yhat)))",
                 "log((1 + exp(yhat - y))**2*cosh(y - yhat)**3)"):
        e = stable_forms(loss(spec).channel_expr)
        for k in range(3):
            assert not sp.diff(e, YHAT, k).has(sp.exp, sp.cosh, sp.sinh, sp.tanh), (spec, k)


def test_solve_with_large_labels_matches_another_writing():
    """Labels ``100 (gamma kappa + rho z)`` put ``|y - yhat|`` near 1000 at the quadrature's
    outer nodes: ``log(cosh(y - yhat))`` stopped there (its generated ``sinh/cosh`` is NaN).
    Now it solves, and equals ``log(1 + exp(2*(y - yhat))) - (y - yhat) - log(2)`` (generated
    as ``softplus(2u) - u``, another form) to 1e-11."""
    args = ("tanh", "100*x", 1.0, 1.1, 0.8, 0.1, 2.0)
    a = solve_convex_srf(*args, loss="log(cosh(y-yhat))", nodes=40, tol=1e-12)
    b = solve_convex_srf(*args, loss="log(1 + exp(2*(y-yhat))) - (y-yhat) - log(2)", nodes=40,
                         tol=1e-12)
    assert a.test_error > 1000          # the regime: errors of labels of size ~100
    for x, z in zip([a.test_error, a.train_error, a.train_loss, *a.state],
                    [b.test_error, b.train_error, b.train_loss, *b.state]):
        assert abs(x - z) <= 1e-11 * max(1.0, abs(z))
