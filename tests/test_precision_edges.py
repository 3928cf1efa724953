"""Digits that are really there, and edges of the parameter range (issue #11, items 4, 5).

References are independent: ``mpmath.quad`` of the defining Gaussian integrals at high
precision, written here from the definitions (never the package's own output).
"""
from __future__ import annotations

import json
import warnings

import mpmath
import numpy as np
import pytest

from srfsym.symbolic.cget import PrecisionWarning, cget_coefficients
from srfsym.cli import main

mpf = mpmath.mpf


def quad_gauss(g, cuts=(), dps=60):
    """E g(z), z ~ N(0, 1), by mpmath.quad split at ``cuts`` (in z) at ``dps`` digits."""
    with mpmath.workdps(dps):
        pts = [-mpmath.inf, *sorted(mpf(c) for c in cuts), mpmath.inf]
        return mpmath.quad(lambda z: g(z) * mpmath.exp(-z * z / 2), pts) \
            / mpmath.sqrt(2 * mpmath.pi)


def cget_by_quadrature(f, kappa, r, c, cuts=(), dps=60):
    """mu0, mu1, mu_star^2 from their definitions at ``dps`` working digits."""
    with mpmath.workdps(dps):
        a, s = mpf(r) * mpf(kappa), mpmath.sqrt(mpf(c))
        e0 = quad_gauss(lambda z: f(a + s * z), cuts, dps)
        e1 = quad_gauss(lambda z: z * f(a + s * z), cuts, dps)
        e2 = quad_gauss(lambda z: f(a + s * z) ** 2, cuts, dps)
        return e0, e1 / s, e2 - e0**2 - e1**2


def rel_err(got, ref):
    with mpmath.workdps(80):
        return abs(mpf(got) - ref) / abs(ref)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


# --------------------------------------------------------------------------------------
# item 4: digits that are really there


def relu_reference_kappa10():
    # mu_star^2 ~ 1.45e-25 is a difference of O(100) terms: 80 working digits leave 50
    relu = lambda x: x if x > 0 else mpf(0)
    return cget_by_quadrature(relu, 10, 1, 1, cuts=(-10,), dps=80)


def test_relu_tail_mustar2_has_all_30_digits():
    # before: one working precision (40 digits) gave 14 correct digits of mu_star^2
    ref = relu_reference_kappa10()
    got = cget_coefficients("relu").mpmath(30)(10, 1, 1)
    assert got.good_digits == (30, 30, 30)
    for g, f, name in zip(got, ref, ("mu0", "mu1", "mustar2")):
        assert rel_err(g, f) < mpf(10) ** -29, name


def test_erf_far_tail_variance_is_positive_and_right():
    # before: mu_star^2 of erf at kappa = -20 came out exactly 0 (at -46: negative for x erf x)
    # reference free of cancellation: erf(x) = erfc(-x) - 1, and mu_star^2 = Var(t) - Cov(t, z)^2
    # is unchanged by the constant shift, so it is computed from t(z) = erfc(20 - z)
    # (tanh-sinh at 120 digits: at 80 the peaked integrand gave only 18 digits)
    with mpmath.workdps(120):
        t = lambda z: mpmath.erfc(20 - z)
        cuts = (10, 15, 18, 20, 25)
        m0 = quad_gauss(t, cuts, 120)
        m1 = quad_gauss(lambda z: z * t(z), cuts, 120)
        var = quad_gauss(lambda z: (t(z) - m0) ** 2, cuts, 120)
        ref = var - m1**2
    got = cget_coefficients("erf").mpmath(30)(-20, 1, 1)
    assert got[2] > 0 and got.good_digits[2] == 30
    assert rel_err(got[2], ref) < mpf(10) ** -29


def test_precision_cap_reports_good_digits():
    # with the working precision capped at 40 digits, mu_star^2 of relu at kappa = 10 cannot
    # have 30 digits: the evaluator warns and says how many agree -- and those are right
    ref = relu_reference_kappa10()
    with pytest.warns(PrecisionWarning, match="mustar2"):
        got = cget_coefficients("relu").mpmath(30, max_dps=40)(10, 1, 1)
    good = got.good_digits[2]
    assert 5 <= good < 30 and got.working_dps == 40
    assert rel_err(got[2], ref[2]) < mpf(10) ** -(good - 1)
    assert rel_err(got[2], ref[2]) > mpf(10) ** -30        # it really is short of 30 digits


def test_cli_coefficients_prints_only_good_digits(capsys):
    ref = relu_reference_kappa10()
    code, out, _ = run(capsys, "coefficients", "relu", "--kappa", "10", "--r", "1", "--c", "1",
                       "--dps", "30", "--json")
    assert code == 0
    vals = json.loads(out)["details"]["coefficients"]
    assert all(vals[n]["good_digits"] == 30 for n in ("mu0", "mu1", "mustar2"))
    assert rel_err(vals["mustar2"]["value"], ref[2]) < mpf(10) ** -29
    # double precision: mu_star^2 = 1.45e-25 is below the rounding of mu0^2 = 100; the
    # value is flagged, not printed as if it were right
    code, out, _ = run(capsys, "coefficients", "relu", "--kappa", "10", "--r", "1", "--c", "1",
                       "--json")
    vals = json.loads(out)["details"]["coefficients"]
    assert vals["mu1"]["good_digits"] >= 15
    assert vals["mustar2"]["good_digits"] == 0
    code, out, _ = run(capsys, "coefficients", "relu", "--kappa", "10", "--r", "1", "--c", "1")
    line = [ln for ln in out.splitlines() if "mustar2" in ln][0]
    checked = line.split("checked value ")[1].split(":")[0]
    assert "only 0 significant digits" in line and len(checked) >= 8
    assert rel_err(checked, ref[2]) < mpf(10) ** -(len(checked.split("e")[0]) - 3)


# --------------------------------------------------------------------------------------
# item 5: edges


def test_softplus_does_not_overflow_near_710():
    from srfsym.symbolic.activations import activation
    act = activation("softplus")
    x = [-800.0, -30.0, 0.3, 700.0, 709.5, 710.0, 750.0, 1e5]
    with mpmath.workdps(40):
        ref = [mpmath.log(1 + mpmath.exp(mpf(v))) for v in x]
        dref = [1 / (1 + mpmath.exp(-mpf(v))) for v in x]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # no overflow warning either
        got, dgot = act.numpy(np.array(x)), act.numpy_derivative(np.array(x))
    for g, f, dg, df in zip(got, ref, dgot, dref):
        assert abs(g - float(f)) <= 1e-15 * float(f)
        assert abs(dg - float(df)) <= 1e-15 * float(df)
    # mpmath keeps relative precision far left (log(1 + e^-100) is not 0)
    with mpmath.workdps(30):
        assert rel_err(act.mpmath(mpf(-100)), mpmath.exp(mpf(-100))) < mpf(10) ** -25


def test_softplus_coefficients_far_right():
    # before: E softplus(700 + z) was refused as "not dominated by the Gaussian" (inf on the
    # nodes beyond x = 709)
    f = lambda x: mpmath.log(1 + mpmath.exp(x))
    ref = cget_by_quadrature(f, 700, 1, 1, dps=40)
    mu0, mu1, mustar2 = cget_coefficients("softplus").numpy()(700.0, 1.0, 1.0)
    assert abs(mu0 - float(ref[0])) <= 1e-13 * float(ref[0])
    assert abs(mu1 - float(ref[1])) <= 1e-13
    # true value ~ e^-1400; double precision leaves the rounding of E sigma^2 - mu0^2 ~ 5e5
    assert abs(mustar2) <= 1e-15 * float(ref[0]) ** 2


def test_simulate_refuses_teacher_with_infinite_second_moment(capsys):
    # E exp(z^2/4)^2 = E exp(z^2/2) = oo: the theory refuses this teacher; before, the
    # simulation ran and reported a finite "test error"
    from srfsym.symbolic.gaussian import DivergentExpectationError
    from srfsym.step.mapping import srf_mapping
    from srfsym.simulation.simulate import simulate
    with pytest.raises(DivergentExpectationError):
        srf_mapping("tanh", "exp(x**2/4)", 1.0, 1.0)
    with pytest.raises(ValueError, match="infinite second moment"):
        simulate("tanh", "exp(x**2/4)", 1.0, 1.0, 0.1, [1.0], d=40, seeds=1, n_test=50,
                 workers=1)
    code, _, err = run(capsys, "simulate", "--student", "tanh", "--teacher", "exp(x**2/4)",
                       "--alpha0", "1", "--eta", "1", "--lam", "0.1", "--alpha", "1", "--d", "40")
    assert code == 2 and "infinite second moment" in err
    # E exp(z^2/5)^2 = E exp(2 z^2/5) = sqrt(5) is finite: accepted
    res = simulate("tanh", "exp(x**2/5)", 1.0, 1.0, 0.1, [1.0], d=40, seeds=1, n_test=50,
                   workers=1)
    assert np.all(np.isfinite(res.test_error_per_seed))


def test_tiny_bulk_variance(capsys):
    # before: tanh at (kappa, r) = (0.7, 0.9) gave mu1 = 0.68718 at c = 1e-30 and 3.5e132 at
    # c = 1e-300 (E[z sigma]/sqrt(c) cancels); true: sigma'(0.63) + O(c) = 0.688578
    co = cget_coefficients("tanh")
    with mpmath.workdps(60):
        a = mpf("0.63")
        t = mpmath.tanh(a)
        limit = 1 - t**2                              # mu1 -> E sigma'(a) = sigma'(a) + O(c)
    for c in (1e-30, 1e-300):
        mu0, mu1, mustar2 = co.numpy()(0.7, 0.9, c)
        assert abs(mu0 - float(t)) < 1e-15
        assert abs(mu1 - float(limit)) < 1e-15
        assert abs(mustar2) < 1e-15                # cancellation: absolute accuracy only
    # 20 digits at c = 1e-8 (mu_star^2 ~ 3e-17 costs 17 digits to cancellation)
    ref = cget_by_quadrature(mpmath.tanh, "0.7", "0.9", "1e-8", dps=60)
    got = co.mpmath(20)("0.7", "0.9", "1e-8")
    assert got.good_digits == (20, 20, 20)
    for g, f in zip(got, ref):
        assert rel_err(g, f) < mpf(10) ** -19
    # the CLI example of the issue: mu1 was printed as -4.79e+131
    code, out, _ = run(capsys, "coefficients", "tanh", "--r", "0.9", "--c", "1e-300",
                       "--kappa", "0.7", "--json")
    vals = json.loads(out)["details"]["coefficients"]
    assert code == 0 and abs(float(vals["mu1"]["value"]) - float(limit)) < 1e-15
    assert vals["mu1"]["good_digits"] >= 15 and vals["mustar2"]["good_digits"] == 0


def test_saturated_variance_is_not_reported_as_good():
    # relu at kappa = 0.7, c = 1e-30: mu_star^2 ~ exp(-a^2/2c) is far below any working
    # precision and the closed form's cancellation leaves a negative number: 0 good digits
    with pytest.warns(PrecisionWarning, match="mustar2"):
        got = cget_coefficients("relu").mpmath(20)("0.7", "0.9", "1e-30")
    assert got.good_digits[:2] == (20, 20) and got.good_digits[2] == 0


def test_huge_bulk_variance():
    # before: c = 1e14 for tanh exhausted memory (a trapezoidal rule with 1.5e9 nodes)
    with pytest.raises(ValueError, match="bulk variance c = 1e\\+14 is above 10000"):
        cget_coefficients("tanh").numpy()(0.7, 0.9, 1e14)
    with pytest.raises(ValueError, match="bulk variance c"):
        cget_coefficients("softplus").mpmath(20)("0.7", "0.9", "1e14")
    from srfsym.symbolic.gaussian import gaussian_expectation
    from srfsym.symbolic.activations import X
    import sympy as sp
    with pytest.raises(ValueError, match="too large for quadrature"):
        gaussian_expectation(sp.tanh(X)).numpy(0.0, 1e7)
    # closed forms have no such limit: relu against quadrature of its definition
    relu = lambda x: x if x > 0 else mpf(0)
    ref = cget_by_quadrature(relu, "0.7", "0.9", "1e14", cuts=(mpf("-0.63") / mpf(10) ** 7,),
                             dps=40)
    got = cget_coefficients("relu").numpy()(0.7, 0.9, 1e14)
    for g, f in zip(got, ref):
        assert abs(g - float(f)) <= 1e-13 * abs(float(f))


def test_large_bulk_variance_in_row_blocks():
    # c = 1e4: 150000 nodes per point; 60 points are evaluated in blocks of rows
    co = cget_coefficients("tanh")
    kappa = np.linspace(-3, 3, 60)
    mu0, mu1, mustar2 = co.numpy()(kappa, 0.9, 1e4)
    for i in (0, 37):
        ref = cget_by_quadrature(mpmath.tanh, repr(float(kappa[i])), "0.9", "1e4",
                                 cuts=(mpf(-0.9) * mpf(float(kappa[i])) / 100,), dps=25)
        assert abs(mu0[i] - float(ref[0])) < 1e-14
        assert abs(mu1[i] - float(ref[1])) < 1e-14
        assert abs(mustar2[i] - float(ref[2])) < 1e-14
