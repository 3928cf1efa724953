"""srfsym.solve against an independent implementation of the fixed point (docs/theory.md (f)-(g)).

``independent_fixed_point.py`` (next to this file) shares no code with srfsym: its own
activations, inner Gaussian expectations (closed forms for relu, Gauss-Hermite for the smooth
activations), Hermite constants and sRF mapping, Gauss-Hermite rule in kappa, Gauss-Legendre
quadrature of the Marchenko-Pastur density, and plain damped iteration to 1e-13. Here it is
compared with ``srfsym.solve`` (default settings) at points across students, teachers, beta,
alpha0 = 0 (no step) and finite alpha0, alpha and lambda: test and train errors must agree to
1e-9 in absolute value (the errors themselves are between 1e-5 and 1.2, so this is also a
relative agreement of 1e-9 or better wherever the error is of order one).

The remaining tests show that 1e-9 is meaningful: the independent side is converged far below
it (nodes and tolerance refined), its quadratures are checked against mpmath and closed forms,
and a perturbed parameter (beta 1.01 instead of 1) moves the result by orders of magnitude more.
"""
import functools
import math
import os
import sys
import warnings

import mpmath
import numpy as np
import pytest

import srfsym

sys.path.insert(0, os.path.dirname(__file__))
import independent_fixed_point as ind  # noqa: E402

TOL = 1e-9  # absolute, on test and train error

# (student, teacher, alpha0, eta, lam, alpha, beta)
POINTS = [
    ("tanh", "sin", 0, 0, 0.1, 2.0, 1.0),       # plain RF (no step)
    ("tanh", "sin", 20, 3, 0.05, 4.0, 0.5),     # strong spike, gamma ~ 0.97
    ("tanh", "tanh", 0.5, 1, 0.01, 1.0, 1.0),
    ("tanh", "tanh", 2, 1, 0.001, 3.0, 2.0),    # needs damping 0.1 on the independent side
    ("sin", "tanh", 1, 2, 0.01, 1.0, 0.5),
    ("sin", "sin", 0, 0, 0.1, 0.5, 2.0),
    ("erf", "erf", 3, 1.5, 0.05, 3.0, 1.0),
    ("erf", "sin", 0, 0, 0.001, 1.0, 1.0),      # alpha = beta, small lambda: interpolation peak
    ("relu", "sin", 2, 1, 0.1, 2.0, 1.0),       # mu0 != 0: m free, y - mu0 corrections
    ("relu", "tanh", 0, 0, 0.2, 1.5, 0.5),
    ("tanh", "erf", 5, 2, 0.001, 0.5, 2.0),     # train error ~ 1e-5
    ("relu", "erf", 1, 0.5, 1.0, 4.0, 2.0),
]
IDS = ["{}-{}-a0={}-eta={}-lam={}-alpha={}-beta={}".format(*p) for p in POINTS]


@functools.lru_cache(maxsize=None)
def _srfsym(point):
    st, te, alpha0, eta, lam, alpha, beta = point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the relu (non-odd student) notice
        return srfsym.solve(st, te, alpha0=alpha0, eta=eta, lam=lam, alpha=alpha, beta=beta)


@functools.lru_cache(maxsize=None)
def _independent(point, **kw):
    st, te, alpha0, eta, lam, alpha, beta = point
    return ind.solve_step(st, te, alpha0, eta, lam, alpha, beta, **kw)


@pytest.mark.parametrize("point", POINTS, ids=IDS)
def test_errors_agree_with_independent_fixed_point(point):
    ours, theirs = _independent(point), _srfsym(point)
    assert ours.last_change < 1e-13
    assert abs(ours.test_error - theirs.test_error) <= TOL, (ours.test_error, theirs.test_error)
    assert abs(ours.train_error - theirs.train_error) <= TOL, (ours.train_error, theirs.train_error)
    # the order parameters too (relative above 1)
    state = theirs.state
    for name, value in ours.state.items():
        assert abs(value - getattr(state, name)) <= TOL * max(1.0, abs(value)), name


@pytest.mark.parametrize("point", [p for p in POINTS if p[2] > 0],
                         ids=[i for p, i in zip(POINTS, IDS) if p[2] > 0])
def test_mapping_agrees(point):
    st, te, alpha0, eta = point[:4]
    r, c, gamma = ind.srf_parameters(st, te, eta, alpha0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = srfsym.srf_mapping(st, te, eta=eta, alpha0=alpha0)
    assert (r, c, gamma) == pytest.approx((m.r, m.c, m.gamma), rel=1e-12, abs=1e-14)


# The hardest points: small lambda at beta = 1 (MP edge at 0) and beta = 2 (atom), the
# interpolation peak, relu (closed forms, m != 0), a strong spike.
REFINE = (1, 4, 7, 8, 10)


@pytest.mark.parametrize("point", [POINTS[i] for i in REFINE], ids=[IDS[i] for i in REFINE])
def test_independent_side_is_converged(point):
    """More kappa, inner and MP nodes and a tighter tolerance move nothing beyond 1e-11."""
    base = _independent(point)
    fine = _independent(point, n_kappa=340, n_inner=340, mp_panel=60, tol=1e-14)
    assert abs(base.test_error - fine.test_error) < 1e-11
    assert abs(base.train_error - fine.train_error) < 1e-11


def test_perturbed_beta_is_detected():
    """beta = 1.01 instead of 1 changes the errors by far more than the 1e-9 tolerance."""
    point = POINTS[2]
    perturbed = point[:6] + (1.01,)
    shift_srfsym = abs(_srfsym(perturbed).test_error - _independent(point).test_error)
    shift_ours = abs(_independent(perturbed).test_error - _independent(point).test_error)
    shift_train = abs(_srfsym(perturbed).train_error - _independent(point).train_error)
    assert min(shift_srfsym, shift_ours, shift_train) > 1e4 * TOL
    assert abs(_srfsym(perturbed).test_error - _independent(perturbed).test_error) <= TOL


# --- the independent side's own ingredients -------------------------------------------------

def _mp_expect(f, a, s, dps=20):
    with mpmath.workdps(dps):
        g = lambda x: f(a + s * x) * mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)
        return mpmath.quad(g, [-mpmath.inf, -a / s if s else 0, mpmath.inf])


@pytest.mark.parametrize("a,s", [(0.0, 1.0), (-2.3, 0.4), (3.0, 1.15)])
def test_inner_moments_against_mpmath(a, s):
    """sqrt(c) <= 1.15 at every point above; (tanh at s = 1.6 needs more than 300 nodes)."""
    sech2 = lambda u: 1 / mpmath.cosh(u) ** 2
    cases = {
        "tanh": (mpmath.tanh, sech2),
        "erf": (mpmath.erf, lambda u: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-u * u)),
        "sin": (mpmath.sin, mpmath.cos),
        "relu": (lambda u: max(u, 0), lambda u: 1 if u > 0 else 0),
    }
    for name, (f, df) in cases.items():
        got = [float(v[0]) for v in ind.ACTIVATIONS[name].moments(np.array([a]), s)]
        ref = [_mp_expect(f, a, s), _mp_expect(df, a, s), _mp_expect(lambda u: f(u) ** 2, a, s)]
        for g_, r_ in zip(got, ref):
            assert abs(g_ - float(r_)) < 4e-15 * max(1.0, abs(float(r_))), (name, got, ref)


def test_hermite_constants_closed_forms():
    e = math.exp
    expect = {
        "sin": dict(mu0=0, mu1=e(-0.5), m2=(1 - e(-2)) / 2, he2=0),
        "erf": dict(mu0=0, mu1=2 / math.sqrt(3 * math.pi), m2=2 / math.pi * math.asin(2 / 3)),
        "relu": dict(mu0=1 / math.sqrt(2 * math.pi), mu1=0.5, m2=0.5, check_mu1_sq=0.25),
        "linear": dict(mu0=0, mu1=1, m2=1, check_mu1_sq=0),
    }
    for name, values in expect.items():
        got = ind.hermite_constants(name)
        for key, value in values.items():
            assert abs(got[key] - value) < 1e-15, (name, key)
    # tanh: E tanh'(z)^2 - mu1^2 and E tanh''(z) = E[tanh He2] against mpmath
    got = ind.hermite_constants("tanh")
    sech2 = lambda u: 1 / mpmath.cosh(u) ** 2
    assert abs(got["check_mu1_sq"] - float(_mp_expect(lambda u: sech2(u) ** 2, 0, 1)
                                           - _mp_expect(sech2, 0, 1) ** 2)) < 1e-14
    assert abs(ind.hermite_constants("erf")["he2"]) < 1e-16  # odd


@pytest.mark.parametrize("beta", [0.5, 1.0, 2.0])
def test_mp_quadrature_against_closed_form(beta):
    """Composite Gauss-Legendre on the MP density (atom included) vs the Stieltjes transform's root."""
    x, w = ind.mp_rule(beta)
    assert abs(w.sum() - 1) < 1e-15 and abs(w @ x - 1) < 1e-15  # mass 1, mean 1
    assert abs(w @ x ** 2 - (1 + beta)) < 1e-14  # second moment of MP_beta
    for s in (1e-4, 1e-3, 0.05, 0.7, 4.0):
        exact = ind.mp_stieltjes(s, beta)
        assert abs(w @ (1 / (x + s)) - exact) <= 1e-13 * exact, s
        with mpmath.workdps(30):  # the closed form is the positive root of the quadratic
            m = mpmath.mpf(exact)
            terms = (beta * s * m ** 2, (s + 1 - beta) * m, -1)
            assert abs(sum(terms)) < 1e-15 * sum(abs(t) for t in terms)
