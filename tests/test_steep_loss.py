"""The proximal step of a user loss (docs/theory.md (m.2), (m.5)): a steep ``(y - yhat)**64``
(issue 31, item 10: it converges where ``V l'(omega)`` is astronomically large, without numpy
overflow warnings) and an exp-type loss against an independent mpmath bisection at 30
digits, and ``log(cosh(y - yhat))`` at residuals up to 1e4; the square loss written as a
user loss against the closed ridge; a loss whose generated derivative is not a number stops
at once with its reason."""
import warnings

import mpmath
import numpy as np
import pytest

from srfsym.theory.channels.losses import loss
from srfsym.theory.convex_fixed_point import solve_convex_srf


def _mp_root(G, a, b, dps=40, steps=150):
    """Root of an increasing ``G`` on ``[a, b]`` (``G(a) <= 0 <= G(b)``) by plain bisection
    in mpmath (no derivative, no start: independent of srfsym's Newton)."""
    with mpmath.workdps(dps):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        assert G(a) <= 0 <= G(b)
        for _ in range(steps):
            m = (a + b) / 2
            if G(m) > 0:
                b = m
            else:
                a = m
        return (a + b) / 2


def _check_against_mpmath(spec, l1, l2, y, omegas, Vs):
    """P, f, g of ``loss(spec)`` against the mpmath root of ``x - omega + V l1(y, x)`` at 30+
    digits; ``l1, l2``: the channel loss's first and second derivatives in mpmath."""
    lo = loss(spec)
    for V in Vs:
        for omega in omegas:
            with warnings.catch_warnings():
                warnings.simplefilter("error")          # no overflow warning may leak
                P, f, g = lo.prox(y, np.full(len(y), omega), np.full(len(y), V))
            assert np.all(np.isfinite(f)) and np.all((g >= 0) & (g <= 1 / V + 1e-12))
            with mpmath.workdps(40):
                for yi, Pi, fi, gi in zip(y, P, f, g):
                    ym, om, Vm = mpmath.mpf(yi), mpmath.mpf(omega), mpmath.mpf(V)
                    G = lambda x: x - om + Vm * l1(ym, x)  # noqa: E731
                    # l' is non-decreasing and vanishes at y: the root lies between omega and y
                    root = _mp_root(G, min(om, ym), max(om, ym))
                    assert abs(root - Pi) <= 1e-14 * (1 + abs(root)), (spec, V, omega, yi)
                    f_mp, d2 = (root - om) / Vm, l2(ym, root)
                    assert abs(f_mp - fi) <= 1e-12 * (1 + abs(f_mp)), (spec, V, omega, yi)
                    g_mp = d2 / (1 + Vm * d2)
                    assert abs(g_mp - gi) <= 1e-12 * (1 + abs(g_mp)), (spec, V, omega, yi)


def test_prox_of_a_steep_power_against_mpmath_bisection():
    # the channel loss is half the loss: l' = 32 (x - y)^63, l'' = 2016 (x - y)^62
    _check_against_mpmath("(y-yhat)**64", lambda y, x: 32 * (x - y) ** 63,
                          lambda y, x: 2016 * (x - y) ** 62,
                          np.array([0.5, -0.3, 1.0, 0.0, 2.0]), (-10.0, 0.3, 3.0, 100.0),
                          (1e-3, 1.0, 1e4))


def test_prox_of_an_exp_type_loss_against_mpmath_bisection():
    # l = (exp(yhat - y) + exp(y - yhat))/2 = cosh(yhat - y): l' = sinh, l'' = cosh
    _check_against_mpmath("exp(yhat-y) + exp(y-yhat)", lambda y, x: mpmath.sinh(x - y),
                          lambda y, x: mpmath.cosh(x - y), np.array([0.5, -1.2, 0.0]),
                          (-40.0, -2.0, 0.7, 30.0), (1e-4, 1.0, 1e6))


def test_square_loss_as_a_user_loss_is_the_closed_ridge():
    """``(y - yhat)**2`` through the generic proximal step equals the closed form
    ``P = (omega + V y)/(1 + V)``, ``f = (y - omega)/(1 + V)``, ``g = 1/(1 + V)`` to 1e-12,
    and the whole fixed point equals the built-in square loss on the same quadrature."""
    lo = loss("(y - yhat)**2")
    assert lo.name != "square"
    rng = np.random.default_rng(5)
    y, omega = rng.normal(size=2000), 30 * rng.normal(size=2000)
    V = 10.0 ** rng.uniform(-6, 6, 2000)
    P, f, g = lo.prox(y, omega, V)
    for got, want in ((P, (omega + V * y) / (1 + V)), (f, (y - omega) / (1 + V)),
                      (g, 1 / (1 + V))):
        assert np.max(np.abs(got - want) / (1 + np.abs(want))) < 1e-12
    args = ("tanh", "sin", 1.0, 1.1, 0.8, 0.1, 2.0)
    a = solve_convex_srf(*args, loss="square", channel="quadrature", nodes=60, tol=1e-13)
    b = solve_convex_srf(*args, loss="(y - yhat)**2", nodes=60, tol=1e-13)
    for x, z in zip([a.test_error, a.train_error, *a.state], [b.test_error, b.train_error,
                                                              *b.state]):
        assert abs(x - z) < 1e-12 * max(1.0, abs(z))


def test_prox_of_log_cosh_at_large_residuals_against_mpmath_bisection():
    """``log(cosh(y - yhat))`` is generated as ``LogCosh`` with derivatives ``tanh`` and
    ``sech^2`` (docs/theory.md (m.5)): its prox at ``|omega - y|`` up to 1e4 (``sinh/cosh`` is
    inf/inf beyond 710) against the mpmath bisection."""
    _check_against_mpmath("log(cosh(y - yhat))", lambda y, x: mpmath.tanh(x - y) / 2,
                          lambda y, x: mpmath.sech(x - y) ** 2 / 2, np.array([0.5, -1.2, 0.0]),
                          (-1e4, -900.0, 0.7, 750.0, 1e4), (1e-3, 1.0, 1e3))


def test_a_derivative_that_is_not_a_number_is_named():
    """``log(1 + exp(yhat - y) + exp(y - yhat))`` (three exponentials: not rewritten) generates
    a ratio of exponentials, inf/inf beyond |y - yhat| ~ 710.  The proximal step says so at
    once (before: 300 bisections, then "did not converge")."""
    with pytest.raises(ArithmeticError, match="not a number at yhat = 2000"):
        loss("log(1 + exp(yhat - y) + exp(y - yhat))").prox(np.array([0.0]),
                                                             np.array([2000.0]),
                                                             np.array([1.0]))
