"""Bounds that hold at every alignment gamma (docs/bounds.md; srfsym.theory.bounds).

Independent checks: closed forms of the optimum for sin and erf students that are their own
teachers against the library at 30 digits (the Gaussian integrals of the closed forms by
mpmath quadrature, not by srfsym), the lower bound against the fixed point's test error
over a grid, the lambda -> infinity limit of the fixed point against the upper bound, and
the command line.
"""
from __future__ import annotations

import json
import math

import mpmath
import numpy as np
import pytest

from srfsym import solve, srf_mapping
from srfsym.theory.bounds import bounds, optimal_learning_rate_bounds, spike_projections
from srfsym.cli import main

DPS = 30


def gauss(f, dps=50):
    """E f(z), z ~ N(0, 1), by mpmath quadrature."""
    with mpmath.workdps(dps):
        return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2), [-mpmath.inf, 0, mpmath.inf]) \
            / mpmath.sqrt(2 * mpmath.pi)


def assert_digits(got, want, digits, what=""):
    with mpmath.workdps(digits + 10):
        err = abs(mpmath.mpf(got) - want)
        assert err <= mpmath.mpf(10) ** (-digits) * max(1, abs(want)), (what, got, want, err)


# ------------------------------------------------------------------------------------
# closed forms (docs/bounds.md): sigma = sigma_star in {sin, erf}, the optimum has
# mu0 proportional to h and mu1 proportional to h1, so U* = mu2* - E h^2, L* = U* - E h1^2

def _closed_sin(gamma):
    """(mu2*, E h^2, E h1^2) for the sin teacher at alignment gamma, by quadrature of
    h = E_z sin(gamma k + rho z) = exp(-rho^2/2) sin(gamma k) and h1 = rho exp(-rho^2/2)
    cos(gamma k) (Gaussian characteristic function)."""
    with mpmath.workdps(50):
        g = mpmath.mpf(gamma)
        rho2 = 1 - g * g
        mu2 = gauss(lambda z: mpmath.sin(z) ** 2)
        Eh2 = gauss(lambda k: (mpmath.exp(-rho2 / 2) * mpmath.sin(g * k)) ** 2)
        Eh12 = gauss(lambda k: rho2 * (mpmath.exp(-rho2 / 2) * mpmath.cos(g * k)) ** 2)
    return mu2, Eh2, Eh12


def _closed_erf(gamma):
    """The same for erf: E_z erf(a + s z) = erf(a / sqrt(1 + 2 s^2)); h1 = rho E erf'."""
    with mpmath.workdps(50):
        g = mpmath.mpf(gamma)
        rho2 = 1 - g * g
        q = mpmath.sqrt(1 + 2 * rho2)
        mu2 = gauss(lambda z: mpmath.erf(z) ** 2)
        Eh2 = gauss(lambda k: mpmath.erf(g * k / q) ** 2)
        Eh12 = gauss(lambda k: rho2 * (2 / mpmath.sqrt(mpmath.pi) / q
                                       * mpmath.exp(-(g * k) ** 2 / q ** 2)) ** 2)
    return mu2, Eh2, Eh12


@pytest.mark.parametrize("act,gamma,c", [("sin", "0.79365", "1.25"), ("sin", "0.6", "2.5"),
                                         ("erf", "0.8", "1.3")])
def test_bounds_at_the_closed_form_optimum_30_digits(act, gamma, c):
    with mpmath.workdps(50):
        g, cc = mpmath.mpf(gamma), mpmath.mpf(c)
        if act == "sin":      # E_xi sin(r k + sqrt(c) xi) = e^{-c/2} sin(r k): r = gamma
            r = g
            mu2, Eh2, Eh12 = _closed_sin(gamma)
        else:                 # erf(r k / sqrt(1 + 2c)) prop. to erf(gamma k / sqrt(1 + 2 rho^2))
            r = g * mpmath.sqrt((1 + 2 * cc) / (1 + 2 * (1 - g * g)))
            mu2, Eh2, Eh12 = _closed_erf(gamma)
        upper, lower = mu2 - Eh2, mu2 - Eh2 - Eh12
        r_s = mpmath.nstr(r, 45)
    b = bounds(act, act, r_s, c, gamma, dps=DPS)
    assert_digits(b.mp_values["upper"], upper, DPS - 1, "upper")
    assert_digits(b.mp_values["lower"], lower, DPS - 1, "lower")
    # the h1 term is what makes it a bound: the spike-only projection is far above it
    assert b.spike_span - b.lower > 0.01
    assert b.lower == float(b.mp_values["lower"]) and b.upper == float(b.mp_values["upper"])


def test_optimised_bounds_sin_sin_alpha0_2_closed_form():
    # docs/bounds.md: eta* = gamma / A with A = mu1 sqrt(mu1*^2 + mu2*/alpha0) (r = gamma)
    alpha0 = 2
    with mpmath.workdps(40):
        mu1 = gauss(mpmath.cos)                        # E sin' = e^{-1/2}
        mu2 = gauss(lambda z: mpmath.sin(z) ** 2)
        norm = mpmath.sqrt(mu1 ** 2 + mu2 / alpha0)
        gamma = mu1 / norm
        eta_star = gamma / (mu1 * norm)
        _, Eh2, Eh12 = _closed_sin(gamma)
        U, L = mu2 - Eh2, mu2 - Eh2 - Eh12
    opt = optimal_learning_rate_bounds("sin", "sin", alpha0=alpha0)
    assert abs(opt.eta_upper - float(eta_star)) < 1e-5 and abs(opt.eta_lower - float(eta_star)) < 1e-5
    # a minimum: never below the closed form, and equal to it up to the eta tolerance
    assert -1e-13 < opt.upper - float(U) < 1e-10 and -1e-13 < opt.lower - float(L) < 1e-10
    assert round(float(eta_star), 3) == 1.712 and round(float(U), 5) == 0.18498
    assert opt.at_upper.gamma == pytest.approx(float(gamma), abs=1e-14)


def test_optimised_bounds_erf_erf_closed_form():
    # r^2 / (1 + 2c) = gamma^2 / (1 + 2 rho^2) on the curve r = eta A, c = 1 + eta^2 B
    alpha0 = 5
    with mpmath.workdps(40):
        mu1 = gauss(lambda z: 2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-z * z))
        mu2 = gauss(lambda z: mpmath.erf(z) ** 2)
        check = gauss(lambda z: (2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-z * z) - mu1) ** 2)
        norm = mpmath.sqrt(mu1 ** 2 + mu2 / alpha0)
        gamma = mu1 / norm
        A, B = mu1 * norm, mu2 * check / alpha0
        rho2 = 1 - gamma ** 2
        eta2 = 3 * gamma ** 2 / (A ** 2 * (1 + 2 * rho2) - 2 * B * gamma ** 2)
        _, Eh2, Eh12 = _closed_erf(gamma)
        U, L = mu2 - Eh2, mu2 - Eh2 - Eh12
    opt = optimal_learning_rate_bounds("erf", "erf", alpha0=alpha0)
    assert abs(opt.eta_upper - float(mpmath.sqrt(eta2))) < 1e-5
    assert abs(opt.eta_lower - float(mpmath.sqrt(eta2))) < 1e-5
    assert -1e-13 < opt.upper - float(U) < 1e-10 and -1e-13 < opt.lower - float(L) < 1e-10


def test_optimised_bounds_order_and_limits():
    opt = optimal_learning_rate_bounds("tanh", "tanh", alpha0=0.5)
    assert 0 < opt.lower < opt.upper
    # at each optimum the bounds are the library's bounds at the mapped (r, c, gamma)
    m = srf_mapping("tanh", "tanh", opt.eta_lower, 0.5)
    assert bounds("tanh", "tanh", m.r, m.c, m.gamma).lower == pytest.approx(opt.lower, abs=1e-12)
    # gamma = 1 (alpha0 = oo): U* of tanh/tanh is tiny but not zero (docs/bounds.md)
    inf = optimal_learning_rate_bounds("tanh", "tanh", alpha0=math.inf, eta_max=8.0)
    # at alpha0 = inf the two bounds coincide (gamma = 1): two separate minimisations over
    # eta agree to their tolerance, not to the last bit
    assert 2.0e-5 < inf.upper < 3.0e-5 and inf.lower <= inf.upper * (1 + 1e-9)
    assert abs(inf.eta_upper - 4.525) < 0.01
    with pytest.raises(ValueError, match="eta_max"):
        optimal_learning_rate_bounds("tanh", "tanh", alpha0=1, eta_max=-1)


# ------------------------------------------------------------------------------------
# against the fixed point

GRID_CASES = [("tanh", "sin", 2.0), ("tanh", "tanh", 0.5), ("sin", "sin", 2.0),
              ("erf", "tanh", 5.0), ("relu", "sin", 2.0)]


@pytest.mark.parametrize("student,teacher,alpha0", GRID_CASES)
def test_lower_bound_below_the_test_error_on_a_grid(student, teacher, alpha0):
    worst_gap, spike_violated = math.inf, False
    for eta in (0.5, 1.5, 3.0):
        m = srf_mapping(student, teacher, eta, alpha0)
        b = bounds(student, teacher, m.r, m.c, m.gamma)
        assert b.lower <= b.spike_span <= b.upper
        for alpha in (0.5, 4.0, 64.0):
            for lam in (1e-4, 1e-2, 1.0):
                err = solve(student, teacher, alpha0, eta, lam, alpha).test_error
                worst_gap = min(worst_gap, err - b.lower)
                spike_violated |= err < b.spike_span
    assert worst_gap > 0, worst_gap
    # the spike-only projection alone is *not* a bound here: the test would fail with it
    assert spike_violated


@pytest.mark.parametrize("student,teacher,alpha0,eta", [("tanh", "sin", 2.0, 3.0),
                                                        ("tanh", "tanh", 0.5, 1.0),
                                                        ("erf", "tanh", 5.0, 2.0)])
def test_upper_bound_is_the_lambda_to_infinity_limit(student, teacher, alpha0, eta):
    m = srf_mapping(student, teacher, eta, alpha0)
    U = bounds(student, teacher, m.r, m.c, m.gamma).upper
    d6 = solve(student, teacher, alpha0, eta, 1e6, 2.0).test_error - U
    d8 = solve(student, teacher, alpha0, eta, 1e8, 2.0).test_error - U
    assert abs(d8) < 1e-8
    # the approach is O(1/lambda) to U itself: a limit elsewhere would break the ratio
    assert d6 / d8 == pytest.approx(100, rel=1e-3)


def test_spike_projections_are_the_bounds_at_gamma_one():
    b = bounds("tanh", "sin", 1.13, 1.02, 1.0)
    p = spike_projections("tanh", "sin", 1.13, 1.02, 1.0)
    assert p.mean_direction == b.upper and p.spike_span == b.lower   # h1 = 0 at gamma = 1
    p = spike_projections("tanh", "tanh", 0.65109, 1.076906, 0.56349)
    assert p.spike_span > 0.27 > bounds("tanh", "tanh", 0.65109, 1.076906, 0.56349).lower


def test_no_signal_direction_is_dropped_not_inverted():
    # r = 0: mu0 is constant, E[h mu0] = 0 for an odd teacher; the projections must not
    # divide by a vanishing Gram entry (the He3 student has mu1 = 0 at r = 0, c = 1)
    b = bounds("he3", "sin", 0.0, 1.0, 0.7)
    assert np.isfinite([b.upper, b.lower, b.spike_span]).all()
    assert b.lower == pytest.approx(b.upper, abs=1e-14)


# ------------------------------------------------------------------------------------
# command line

def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_cli_bounds_through_the_mapping(capsys):
    code, out, _ = run(capsys, "bounds", "--student", "tanh", "--teacher", "tanh", "--alpha0",
                       "0.5", "--eta", "1", "--json")
    row = json.loads(out)["rows"][0]
    m = srf_mapping("tanh", "tanh", 1, 0.5)
    b = bounds("tanh", "tanh", m.r, m.c, m.gamma)
    assert code == 0 and row["lower_bound"] == b.lower and row["upper_bound"] == b.upper
    assert row["gamma"] == pytest.approx(0.56349, abs=1e-5) and row["lower_bound"] < 0.05


def test_cli_bounds_optimize_eta(capsys):
    code, out, _ = run(capsys, "bounds", "--student", "sin", "--teacher", "sin", "--alpha0", "2",
                       "--optimize-eta", "--json")
    row = json.loads(out)["rows"][0]
    assert code == 0 and {"upper_bound", "lower_bound", "eta_upper", "eta_lower"} <= set(row)
    assert row["eta_upper"] == pytest.approx(1.712, abs=1e-3)
    assert row["upper_bound"] == pytest.approx(0.18498, abs=1e-5)
    assert row["lower_bound"] == pytest.approx(0.02090, abs=1e-5)


def test_cli_bounds_float_equals_its_decimal_twin(capsys):
    code, out, _ = run(capsys, "bounds", "--student", "sin", "--teacher", "sin", "--r", "1.13",
                       "--c", "1.02", "--gamma", "0.9", "--dps", "30", "--json")
    row = json.loads(out)["rows"][0]
    assert code == 0
    for key in ("upper_bound", "lower_bound", "kernel_baseline"):
        assert row[key] == float(row["decimal"][key]), key


@pytest.mark.parametrize("argv,needle", [
    (["--r", "1", "--c", "1", "--alpha0", "2", "--eta", "1"], "not both"),
    (["--alpha0", "2"], "exactly one of --eta and --optimize-eta"),
    (["--r", "1"], "both --r and --c"),
    ([], "give --r --c"),
    (["--alpha0", "2", "--eta", "1", "--gamma", "0.5"], "with --eta the mapping gives gamma"),
])
def test_cli_bounds_bad_options(capsys, argv, needle):
    code, _, err = run(capsys, "bounds", "--student", "tanh", "--teacher", "sin", *argv)
    assert code == 2 and needle in err


def test_cli_curve_text_and_json_report_gamma_valid_bounds(capsys):
    # tanh/tanh at alpha0 = 0.5 (gamma = 0.56): the old spike-only "lower bound" 0.277 was
    # above the curve's own test error 0.098 at alpha = 100
    argv = ["curve", "--student", "tanh", "--teacher", "tanh", "--alpha0", "0.5", "--eta", "1",
            "--lam", "0.001", "--alpha", "1", "10", "100"]
    code, out, _ = run(capsys, *argv)
    assert code == 0
    import re
    lower = float(re.search(r"bounds: lower ([0-9.e-]+)", out).group(1))
    lines = out.splitlines()
    head = next(i for i, line in enumerate(lines) if "test error" in line)
    errors = [float(line.split()[1]) for line in lines[head + 1:head + 4]]
    assert len(errors) == 3 and lower <= min(errors) < 0.1
    code, out, _ = run(capsys, *argv, "--json")
    rows = [r for r in json.loads(out)["rows"] if r["source"] == "theory"]
    assert all(r["lower_bound"] <= r["test_error"] for r in rows)
    assert rows[0]["lower_bound"] == pytest.approx(lower, rel=1e-7)
