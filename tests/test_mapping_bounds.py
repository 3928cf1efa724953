"""Independent tests of the sRF mapping (srfsym.step.mapping, docs/theory.md (c)) and of the bounds /
kernel baseline (srfsym.theory.bounds, docs/theory.md (i)).

References: the formula column of the docs/theory.md (c) table, the closed forms of docs/theory.md, and
``mpmath.quad`` of the defining Gaussian integrals typed out here.
"""
from __future__ import annotations

import math
import warnings

import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.theory.bounds import bounds, optimal_learning_rate_bounds
from srfsym.step.mapping import (NonOddActivationWarning, mapping_expressions, mapping_limits,
                            srf_mapping)
from conftest import assert_mp_close

mpf = mpmath.mpf




def E(f, kinks=(), dps=40):
    """E f(z), z ~ N(0, 1), by mpmath.quad (cut at the kinks)."""
    with mpmath.workdps(dps):
        return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2),
                           [-mpmath.inf, *kinks, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)


def own_constants(sigma, dsigma, kinks=()):
    """(mu0, mu1, E sigma^2, check-mu1^2) of docs/theory.md (b) by quadrature, at 40 digits."""
    with mpmath.workdps(40):
        mu0 = E(sigma, kinks)
        mu1 = E(dsigma, kinks)
        e2 = E(lambda z: sigma(z)**2, kinks)
        check = E(lambda z: dsigma(z)**2, kinks) - mu1**2
    return mu0, mu1, e2, check


def sech2(z):
    return 1 / mpmath.cosh(z)**2


# --------------------------------------------------------------------------------------
# docs/theory.md (c): the table's formula column

TABLE_C = [  # student, teacher, alpha0, eta, r, c, gamma (as printed in the spec)
    ("tanh", "sin", 20, 3, "1.13406", "1.018973", "0.97185"),
    ("tanh", "tanh", 0.5, 1, "0.65109", "1.076906", "0.56349"),
    ("tanh", "tanh", 0.5, 1, "0.65109", "1.076906", "0.56349"),  # "same, step seed 1"
    ("tanh", "tanh", 2, 1, "0.45490", "1.019227", "0.80651"),
]


@pytest.mark.parametrize("student,teacher,alpha0,eta,r,c,gamma", TABLE_C)
def test_mapping_table_c(student, teacher, alpha0, eta, r, c, gamma):
    m = srf_mapping(student, teacher, eta=eta, alpha0=alpha0)
    for got, printed in ((m.r, r), (m.c, c), (m.gamma, gamma)):
        decimals = len(printed.split(".")[1])
        assert abs(got - float(printed)) <= 0.5 * 10**-decimals, (got, printed)
    assert m.spike_strength == m.r and m.bulk_variance == m.c and m.alignment == m.gamma


def test_mapping_tanh_sin_to_25_digits():
    # r, c, gamma at 30 digits against the formulas on constants computed here
    m = srf_mapping("tanh", "sin", eta=3, alpha0=20)
    _, mu1, _, check = own_constants(mpmath.tanh, sech2)
    with mpmath.workdps(40):
        mu1s = E(lambda z: z * mpmath.sin(z))
        mu2s = E(lambda z: mpmath.sin(z)**2)
        norm = mpmath.sqrt(mu1s**2 + mu2s / 20)
        r, c, gamma = 3 * mu1 * norm, 1 + mpf(9) / 20 * mu2s * check, mu1s / norm
    assert_mp_close(m.spike_strength_value.mpmath(30), r, 30, "r")
    assert_mp_close(m.bulk_variance_value.mpmath(30), c, 30, "c")
    assert_mp_close(m.alignment_value.mpmath(30), gamma, 30, "gamma")


def test_mapping_expressions_are_the_spec_formulas():
    e = mapping_expressions()
    syms = {s.name: s for x in e.values() for s in x.free_symbols}
    eta, a0 = syms["eta"], syms["alpha0"]
    mu0, mu1, chk = syms["mu0"], syms["mu1"], syms["checkmu1_sq"]
    mu0s, mu1s, mu2s = syms["mu0_star"], syms["mu1_star"], syms["mu2_star"]
    m2 = mu2s - 2 * mu0 * mu0s + mu0**2          # E (sigma_star - mu0)^2
    assert sp.simplify(e["spike_strength"] - eta * mu1 * sp.sqrt(mu1s**2 + m2 / a0)) == 0
    he2 = syms["mu_He2"]                           # E[sigma He_2]: row rescaling by y - mu0
    assert sp.simplify(e["bulk_variance"] - ((1 + eta * (mu0s - mu0) * he2)**2
                                             + eta**2 / a0 * m2 * chk)) == 0
    assert sp.simplify(e["alignment"] - mu1s / sp.sqrt(mu1s**2 + m2 / a0)) == 0
    # without the correction: the reference implementation's formulas
    e0 = mapping_expressions(mu0_correction=False)
    assert sp.simplify(e0["bulk_variance"] - (1 + eta**2 / a0 * mu2s * chk)) == 0


def test_mapping_limits():
    lim = mapping_limits()["alpha0->oo"]
    mu1s = [s for s in lim["alignment"].free_symbols if s.name == "mu1_star"][0]
    pos = sp.Symbol("m", positive=True)
    assert sp.simplify(lim["alignment"].subs(mu1s, pos)) == 1      # gamma -> 1 if mu1_star > 0
    he2 = [s for s in lim["bulk_variance"].free_symbols if s.name == "mu_He2"]
    # c -> 1 for odd students (mu_He2 = 0); the row rescaling of non-odd ones remains
    assert sp.simplify(lim["bulk_variance"].subs({h: 0 for h in he2})) == 1
    assert sp.simplify(lim["alignment"].subs(mu1s, -pos)) == -1
    # numerically, a very large alpha0 approaches the same limit
    m = srf_mapping("tanh", "sin", eta=1, alpha0=10**12)
    assert abs(m.gamma - 1) < 1e-11 and abs(m.c - 1) < 1e-11
    values = {"eta": 1, "mu1": 0.605705509602158825583540227556,   # tanh, docs/theory.md (b)
              "mu1_star": math.exp(-0.5)}                             # sin
    r_lim = lim["spike_strength"]
    r_inf = float(r_lim.subs({sym: values[sym.name] for sym in r_lim.free_symbols}))
    assert abs(m.r - r_inf) < 1e-10


def test_mapping_no_step():
    for student, teacher in (("tanh", "sin"), ("erf", "tanh"), ("relu", "sin")):
        m = srf_mapping(student, teacher, eta=2, alpha0=0)
        assert (m.r, m.c, m.gamma) == (0.0, 1.0, 0.0)
    # eta = 0 with alpha0 > 0: no spike, no bulk change
    m = srf_mapping("tanh", "sin", eta=0, alpha0=2)
    assert (m.r, m.c) == (0.0, 1.0)


def test_mapping_invalid_inputs():
    with pytest.raises(ValueError, match="check-mu1 is infinite"):
        srf_mapping("sign", "sin", eta=1, alpha0=2)
    with pytest.raises(ValueError):
        srf_mapping("tanh", "sin", eta=1, alpha0=-2)
    with pytest.raises(ValueError):
        srf_mapping("tanh", "sin", eta=-1, alpha0=2)


def test_mapping_he3_has_no_spike():
    m = srf_mapping("he3", "sin", eta=1.5, alpha0=2)
    assert m.r == 0.0
    # c = 1 + eta^2/alpha0 * E sin^2 * 18
    assert abs(m.c - (1 + 1.5**2 / 2 * (1 - math.exp(-2)) / 2 * 18)) < 1e-13


def test_relu_student_mu0_correction():
    eta, alpha0 = 1.3, 2.5   # values not used elsewhere (the mapping is cached)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = srf_mapping("relu", "sin", eta=eta, alpha0=alpha0)
    assert any(issubclass(w.category, NonOddActivationWarning) for w in rec)
    assert any("mu0" in n for n in m.notes)
    relu = lambda z: max(z, 0)                                   # noqa: E731
    heav = lambda z: mpf(1) if z > 0 else mpf(0)                 # noqa: E731
    mu0, mu1, _, check = own_constants(relu, heav, kinks=(0,))
    with mpmath.workdps(40):
        mu1s = E(lambda z: z * mpmath.sin(z))
        m2 = E(lambda z: (mpmath.sin(z) - mu0)**2)    # E (sigma_star - mu0)^2, typed here
        # a float argument means the decimal typed (1.3 -> 13/10), not its binary value
        eta_, alpha0_ = mpf(repr(eta)), mpf(repr(alpha0))
        norm = mpmath.sqrt(mu1s**2 + m2 / alpha0_)
        r = eta_ * mu1 * norm
        mu0s = E(lambda z: mpmath.sin(z))
        he2 = E(lambda z: relu(z) * (z * z - 1), kinks=(0,))  # E[sigma He_2], typed here
        c = (1 + eta_ * (mu0s - mu0) * he2)**2 + eta_**2 / alpha0_ * m2 * check
        gamma = mu1s / norm
    assert_mp_close(m.spike_strength_value.mpmath(30), r, 30, "relu r")
    assert_mp_close(m.bulk_variance_value.mpmath(30), c, 30, "relu c")
    assert_mp_close(m.alignment_value.mpmath(30), gamma, 30, "relu gamma")
    # the correction makes a difference here, and can be switched off
    with pytest.warns(NonOddActivationWarning):
        m_ref = srf_mapping("relu", "sin", eta=eta, alpha0=alpha0, mu0_correction=False)
    assert abs(m_ref.c - m.c) > 1e-3


def test_relu_student_warns_every_time():
    with pytest.warns(NonOddActivationWarning):
        srf_mapping("relu", "sin", eta=1.7, alpha0=3.5)
    with pytest.warns(NonOddActivationWarning):
        srf_mapping("relu", "sin", eta=1.7, alpha0=3.5)


def test_mapping_accepts_numpy_floats():
    # (raised TypeError before b2b74b5: numpy 2 reprs np.float64 as 'np.float64(0.5)')
    m = srf_mapping("tanh", "sin", eta=np.float64(0.5), alpha0=np.float64(2.0))
    m_ref = srf_mapping("tanh", "sin", eta=0.5, alpha0=2.0)
    assert (m.r, m.c, m.gamma) == (m_ref.r, m_ref.c, m_ref.gamma)


def test_mapping_infinite_alpha0():
    # (raised TypeError before b2b74b5)
    m = srf_mapping("sin", "sin", eta=2, alpha0=math.inf)
    assert abs(m.gamma - 1) < 1e-15 and abs(m.c - 1) < 1e-15
    assert abs(m.r - 2 * math.exp(-1)) < 1e-15     # eta mu1 |mu1_star| = 2 e^-1/2 e^-1/2


@pytest.mark.parametrize("eta,alpha0", [(float("nan"), 2.0), (math.inf, 2.0),
                                        (1.0, float("nan")), (1.0, -math.inf)])
def test_mapping_rejects_non_finite_inputs_with_value_error(eta, alpha0):
    with pytest.raises(ValueError):
        srf_mapping("tanh", "sin", eta=eta, alpha0=alpha0)


# --------------------------------------------------------------------------------------
# docs/theory.md (i): bounds and kernel baseline

SIN_KERNEL = (1 - math.exp(-2)) / 2 - math.exp(-1)
E_SIN2 = (1 - math.exp(-2)) / 2
E_TANH2 = 0.394294490397841174416459772444     # docs/theory.md (b)


@pytest.mark.parametrize("student,teacher,r,c,gamma", [
    ("tanh", "sin", 1.13, 1.02, 1.0), ("sin", "sin", 0.4, 1.3, 0.8),
    ("relu", "sin", 0.9, 1.1, 1.0), ("erf", "tanh", 1.5, 0.8, 0.6), ("sign", "sign", 2.0, 1.0, 1.0),
])
def test_bounds_are_ordered(student, teacher, r, c, gamma):
    b = bounds(student, teacher, r=r, c=c, gamma=gamma)
    assert 0 <= b.lower <= b.upper
    assert (b.r, b.c, b.gamma) == (r, c, gamma)
    if teacher == "sin":
        assert abs(b.kernel - SIN_KERNEL) < 1e-14
        assert b.upper <= E_SIN2 + 1e-14


def test_kernel_baseline_of_sin():
    b = bounds("tanh", "sin", r=0.5, c=1.0)
    assert abs(b.kernel - 0.0644529172102513324574764823523) < 1e-15
    # it equals mu_star^2(sin): the energy of sin above degree 1
    with mpmath.workdps(40):
        ref = E(lambda z: mpmath.sin(z)**2) - E(lambda z: z * mpmath.sin(z))**2
    assert abs(b.kernel - float(ref)) < 1e-15


@pytest.mark.parametrize("student,teacher,gamma,eg2", [
    ("tanh", "sin", 1.0, E_SIN2), ("tanh", "sin", 0.7, E_SIN2), ("relu", "sin", 1.0, E_SIN2),
    ("erf", "tanh", 0.9, E_TANH2),
])
def test_upper_bound_without_signal(student, teacher, gamma, eg2):
    # r = 0: mu0(kappa) is constant, so the mean direction carries no information about an
    # odd target: U = E g^2 (and E g^2 = E sigma_star^2 whatever gamma)
    b = bounds(student, teacher, r=0.0, c=1.2, gamma=gamma)
    assert abs(b.upper - eg2) < 1e-13, (b.upper, eg2)


def test_upper_bound_vanishes_when_mu0_is_the_target():
    # sin student, c = 1, r = 1: mu0(kappa) = e^{-1/2} sin(kappa), proportional to g = sin
    b = bounds("sin", "sin", r=1.0, c=1.0, gamma=1.0)
    assert abs(b.upper) < 1e-13 and abs(b.lower) < 1e-13
    assert abs(b.b_upper - math.exp(0.5)) < 1e-12


@pytest.mark.parametrize("student,teacher,r,c,gamma", [
    ("sin", "sin", 1.1, 1.2, 0.9), ("relu", "erf", 0.8, 1.1, 1.0),
])
def test_bounds_high_precision_agree_with_double(student, teacher, r, c, gamma):
    b = bounds(student, teacher, r=r, c=c, gamma=gamma, dps=30)
    assert b.mp_values is not None and b.precision.startswith("mpmath:30")
    for key in ("upper", "lower", "kernel"):
        assert abs(float(b.mp_values[key]) - getattr(b, key)) < 1e-12, key


def test_bounds_sin_sin_against_own_projections():
    r, c, gamma = mpf("1.1"), mpf("1.2"), mpf("0.9")
    with mpmath.workdps(40):
        r, c, gamma = mpf("1.1"), mpf("1.2"), mpf("0.9")
        rho2 = 1 - gamma**2
        e = mpmath.exp(-c / 2)
        mu0 = lambda k: mpmath.sin(r * k) * e                      # noqa: E731  docs/theory.md (d)
        kmu1 = lambda k: k * mpmath.cos(r * k) * e                 # noqa: E731
        h = lambda k: mpmath.exp(-rho2 / 2) * mpmath.sin(gamma * k)  # noqa: E731  docs/theory.md (e)
        h1 = lambda k: mpmath.sqrt(rho2) * mpmath.exp(-rho2 / 2) * mpmath.cos(gamma * k)  # noqa
        mu1 = lambda k: mpmath.cos(r * k) * e                      # noqa: E731
        h2 = lambda k: (1 - mpmath.exp(-2 * rho2) * mpmath.cos(2 * gamma * k)) / 2  # noqa: E731
        Eg2 = E(h2)
        g00, g01, g11 = E(lambda k: mu0(k)**2), E(lambda k: mu0(k) * kmu1(k)), \
            E(lambda k: kmu1(k)**2)
        u0, u1 = E(lambda k: h(k) * mu0(k)), E(lambda k: h(k) * kmu1(k))
        upper = Eg2 - u0**2 / g00
        det = g00 * g11 - g01**2
        spike = Eg2 - (g11 * u0**2 - 2 * g01 * u0 * u1 + g00 * u1**2) / det
        # + the direction z mu1(kappa) orthogonal to the spike (the bound at gamma < 1)
        lower = spike - E(lambda k: h1(k) * mu1(k))**2 / E(lambda k: mu1(k)**2)
        assert_mp_close(Eg2, (1 - mpmath.exp(-2)) / 2, 38)
    b = bounds("sin", "sin", r="1.1", c="1.2", gamma="0.9", dps=30)
    assert_mp_close(b.mp_values["upper"], upper, 30, "upper")
    assert_mp_close(b.mp_values["lower"], lower, 30, "lower")
    assert_mp_close(b.mp_values["spike_span_projection"], spike, 30, "spike span")
    with mpmath.workdps(40):
        kernel = (1 - mpmath.exp(-2)) / 2 - mpmath.exp(-1)
    assert_mp_close(b.mp_values["kernel"], kernel, 30, "kernel")


def test_bounds_invalid_parameters():
    with pytest.raises(ValueError):
        bounds("tanh", "sin", r=1.0, c=0.0)
    with pytest.raises(ValueError):
        bounds("tanh", "sin", r=1.0, c=1.0, gamma=1.5)


def test_optimal_learning_rate_for_sin_sin():
    # (always raised TypeError before b2b74b5: np.float64 grid, default alpha0 = inf)
    # alpha0 = oo: gamma = 1, c = 1, r = eta e^-1; U(r) = 0 exactly at r = 1, eta = e
    opt = optimal_learning_rate_bounds("sin", "sin", eta_max=5.0)
    assert abs(opt.eta_upper - math.e) < 1e-4 and abs(opt.upper) < 1e-8
    assert opt.lower <= opt.upper + 1e-12
