"""Fixed point of Result 3.3: solvers against each other, precision, limits, bad input."""
import math

import mpmath
import numpy as np
import pytest

from srfsym.theory.bounds import bounds
from srfsym.theory.fixed_point import (ConvergenceError, learning_curve, optimal_lambda, solve,
                                solve_srf)
from srfsym.step.mapping import srf_mapping


def test_default_example_matches_reference_notebook():
    # The reference notebook's finite-d (d = 2000) value at alpha = 1 is about 0.0415,
    # with a stated sampling noise of 1 % (docs/theory.md (g), issue #3).
    res = solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=1.0)
    assert abs(res.test_error - 0.0415) / 0.0415 < 0.01
    assert res.residual < 1e-10 and res.node_error < 1e-10


@pytest.mark.parametrize("case", [("tanh", "sin", 20, 3, 0.1, 1.0),
                                  ("tanh", "tanh", 0.5, 1, 0.01, 2.0),
                                  ("erf", "sin", 2, 1.5, 0.05, 0.7)])
def test_structured_solver_equals_iterations(case):
    st, te, a0, eta, lam, alpha = case
    ref = solve(st, te, a0, eta, lam, alpha, nodes=72)
    for method in ("anderson", "damped"):
        other = solve(st, te, a0, eta, lam, alpha, nodes=72, method=method)
        for x, y in zip(ref.state, other.state):
            assert abs(x - y) < 1e-9
        assert abs(ref.test_error - other.test_error) < 1e-9


def test_mpmath_solve_agrees_with_double():
    dbl = solve("sin", "sin", 20, 3, 0.1, 1.0)
    mp = solve("sin", "sin", 20, 3, 0.1, 1.0, dps=30)
    assert mp.precision == "mpmath:30"
    assert abs(float(mp.mp_test_error) - dbl.test_error) < 1e-9
    # the mpmath answer is a fixed point at 30 digits: a sweep does not move it
    assert mp.residual < 1e-25


def test_learning_curve_warm_starts_do_not_change_the_answer():
    alphas = [0.3, 1.0, 3.0]
    lc = learning_curve("tanh", "sin", 20, 3, 0.1, alphas)
    for a, r in zip(alphas, lc.results):
        cold = solve("tanh", "sin", 20, 3, 0.1, a, nodes=r.nodes)
        assert abs(cold.test_error - r.test_error) < 1e-11


def test_plain_rf_limit_has_no_spike_terms():
    res = solve("tanh", "sin", alpha0=0, eta=3, lam=0.1, alpha=2.0)
    assert res.r == 0 and res.gamma == 0 and res.c == 1
    assert abs(res.state.theta) < 1e-14 and abs(res.state.m) < 1e-14
    # with no spike the error is the RF error: above the kernel baseline minus nothing
    b = bounds("tanh", "sin", 0.0, 1.0, 0.0)
    assert b.upper == pytest.approx(b.kernel + 0.6065306597126334**2, rel=1e-12)


def test_train_error_below_test_error_and_interpolation_trend():
    lc = learning_curve("tanh", "tanh", 0.5, 1, 0.01, [0.5, 2.0, 8.0])
    for r in lc.results:
        assert 0 <= r.train_error <= r.test_error
    assert lc.test_error[-1] < lc.test_error[0]


def test_bounds_bracket_the_optimally_regularised_error_for_large_alpha0():
    st, te, eta = "tanh", "tanh", 2.0
    m = srf_mapping(st, te, eta, 1e8)
    b = bounds(st, te, m.r, m.c, m.gamma)
    lam, res = optimal_lambda(st, te, 1e8, eta, 6.0)
    assert b.lower <= res.test_error <= b.upper + 1e-12


def test_bounds_bracket_the_slide_example_sign():
    # the slides' example: sign activation, r = c = 1, gamma = 1
    b = bounds("sign", "sign", 1.0, 1.0, 1.0)
    errs = [solve_srf("sign", "sign", 1.0, 1.0, 1.0, lam, 8.0).test_error
            for lam in np.geomspace(1e-3, 1e3, 13)]
    assert b.lower <= min(errs) <= b.upper + 1e-12
    # lambda -> infinity with m free recovers the upper bound
    assert solve_srf("sign", "sign", 1.0, 1.0, 1.0, 1e9, 8.0).test_error == \
        pytest.approx(b.upper, rel=1e-6)


def test_sampled_spectrum_scatters_around_deterministic():
    det = solve("tanh", "sin", 20, 3, 0.1, 1.0, nodes=72).test_error
    vals = [solve("tanh", "sin", 20, 3, 0.1, 1.0, spectrum="sample", d=700, seed=s,
                  nodes=72).test_error for s in range(4)]
    mean, sem = np.mean(vals), np.std(vals, ddof=1) / 2
    assert abs(mean - det) < max(3 * sem, 0.01 * det)
    assert np.std(vals) > 0  # the sample really fluctuates


def test_high_precision_with_sampled_spectrum_says_what_its_digits_mean():
    kw = dict(spectrum="sample", d=60, seed=3)
    dbl = solve("tanh", "sin", 20, 3, 0.1, 1.0, **kw)
    hp = solve("tanh", "sin", 20, 3, 0.1, 1.0, dps=20, **kw)
    # the same sampled matrix: the two precisions agree to the double solve's accuracy
    assert abs(float(hp.mp_test_error) - dbl.test_error) < 1e-11 * dbl.test_error
    assert any("eigen-data are double precision" in n for n in hp.notes)
    mp = solve("tanh", "sin", 20, 3, 0.1, 1.0, dps=20)
    assert not any("eigen-data" in n for n in mp.notes)


def test_optimal_lambda_passes_options_and_says_when_at_the_edge():
    # mu0_correction reaches the mapping (relu has mu0 != 0: the two mappings differ)
    lam_a, res_a = optimal_lambda("relu", "sin", 2, 1, 1.0, mu0_correction=False)
    lam_b, res_b = optimal_lambda("relu", "sin", 2, 1, 1.0)
    assert res_a.mapping.c != res_b.mapping.c
    assert res_a.test_error == pytest.approx(
        solve("relu", "sin", 2, 1, lam_a, 1.0, mu0_correction=False).test_error, rel=1e-9)
    # a linear problem: the ridgeless end is optimal, and the result says so
    _, res = optimal_lambda("linear", "linear", 0, 1, 2.0)
    assert any("edge of lam_range" in n for n in res.notes)
    with pytest.raises(ValueError, match="lam_range"):
        optimal_lambda("tanh", "sin", 20, 3, 1.0, lam_range=(0, 1))


@pytest.mark.parametrize("kw, msg", [
    (dict(nodes=2), "nodes"), (dict(tol=0.0), "tol"), (dict(max_iter=0), "max_iter"),
    (dict(lam=1e300), "supported range"), (dict(dps=995), "5 to 300"),
])
def test_solver_options_are_checked(kw, msg):
    args = dict(lam=0.1, alpha=1.0)
    args.update({k: v for k, v in kw.items() if k in args})
    opts = {k: v for k, v in kw.items() if k not in args}
    with pytest.raises(ValueError, match=msg):
        solve("tanh", "sin", 20, 3, args["lam"], args["alpha"], **opts)


@pytest.mark.parametrize("kw, msg", [
    (dict(alpha=0.0), "alpha"), (dict(alpha=-1.0), "alpha"), (dict(lam=-0.1), "lambda"),
    (dict(beta=0.0), "beta"), (dict(alpha=math.nan), "alpha"),
])
def test_bad_input(kw, msg):
    args = dict(lam=0.1, alpha=1.0, beta=1.0)
    args.update(kw)
    with pytest.raises(ValueError, match=msg):
        solve("tanh", "sin", 20, 3, **args)


@pytest.mark.parametrize("gamma, c", [(1.5, 1.0), (-1.01, 1.0), (0.5, 0.0), (0.5, -2.0)])
def test_bad_srf_parameters(gamma, c):
    with pytest.raises(ValueError):
        solve_srf("tanh", "sin", 1.0, c, gamma, 0.1, 1.0)


def test_non_converging_settings_raise_with_residual():
    with pytest.raises(ConvergenceError) as info:
        solve_srf("tanh", "sin", 1.0, 1.0, 0.5, 0.1, 1.0, method="damped", max_iter=3,
                  nodes=48)
    assert info.value.residual is not None and info.value.residual > 0
    with pytest.raises(ConvergenceError, match="ridgeless"):
        solve_srf("linear", "sin", 0.0, 1.0, 0.0, 0.0, 1.0, nodes=48)


def test_non_numeric_srf_parameters_are_named():
    with pytest.raises(ValueError, match="alignment gamma must be a real number"):
        solve_srf("tanh", "sin", 1.0, 1.0, "abc", 0.1, 1.0)
