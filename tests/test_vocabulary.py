"""A finite readout vocabulary through mapping, channel and bounds (docs/theory.md (k)).

Closed forms for a sin student: mu0(a; c) = exp(-c/2) sin(a) and mu1(a; c) = exp(-c/2) cos(a),
so with a sin target at gamma = 1 every Gram entry of the bounds is an explicit Gaussian
integral; they are evaluated here by mpmath.quad, independently of srfsym's kappa rules.
"""
import math

import mpmath
import numpy as np
import pytest

from srfsym import bounds, solve, srf_mapping
from srfsym.theory.bounds import optimal_learning_rate_bounds
from srfsym.theory.channels.kappa_quadrature import channel_data, group_channel_data
from srfsym.step.vocabulary import UNIFORM, vocabulary


# --------------------------------------------------------------------------- vocabulary

@pytest.mark.parametrize("letters, weights, match", [
    ([], None, "empty"),
    ([1, 0], None, "non-zero"),
    ([1, float("nan")], None, "finite"),
    ([1, float("inf")], None, "finite"),
    ([1, 2], [0.5, -0.5], "positive"),
    ([1, 2], [1.0], "one weight per letter"),
    ([1, 2], [0.5, 0.6], "sum to 1"),
    ([1, 1], None, "distinct"),
    ("12", None, "list of numbers"),
    ([1, "x"], None, "real number"),
    ([1, True], None, "real number"),
])
def test_bad_vocabularies_are_named(letters, weights, match):
    with pytest.raises(ValueError, match=match):
        vocabulary(letters, weights)


def test_uniform_is_the_default_and_weights_default_to_equal():
    assert vocabulary() == UNIFORM == vocabulary([1])
    v = vocabulary([1, 2, 3])
    assert v.weights == pytest.approx((1 / 3,) * 3, abs=1e-15)
    assert v.moment(2) == pytest.approx(14 / 3, rel=1e-15)


def test_non_odd_student_with_a_vocabulary_is_refused():
    with pytest.raises(ValueError, match="odd student"):
        srf_mapping("relu", "sin", 1.0, 2.0, vocabulary=[1, 2])
    with pytest.raises(ValueError, match="odd student"):
        bounds("relu", "sin", 1.0, 1.1, vocabulary=[1, 2])
    # the uniform readout keeps working for it
    assert srf_mapping("relu", "sin", 1.0, 2.0, vocabulary=[1]).r > 0


# --------------------------------------------------------------------------- mapping

def test_group_mapping_is_the_uniform_mapping_scaled():
    m1 = srf_mapping("tanh", "sin", eta=3, alpha0=20)
    m2 = srf_mapping("tanh", "sin", eta=3, alpha0=20, vocabulary=[1, -2, 3])
    assert (m2.r, m2.c, m2.gamma) == (m1.r, m1.c, m1.gamma)
    assert m2.group_spike_strengths == pytest.approx((m1.r, -2 * m1.r, 3 * m1.r), rel=1e-15)
    assert m2.group_bulk_variances == pytest.approx(
        tuple(1 + w * w * (m1.c - 1) for w in (1, 2, 3)), rel=1e-15)
    # the group formula is the mapping at learning rate omega * eta (odd student): the row
    # update of letter omega is omega times the uniform one
    for w, rj, cj in zip((1, -2, 3), m2.group_spike_strengths, m2.group_bulk_variances):
        mw = srf_mapping("tanh", "sin", eta=3 * abs(w), alpha0=20)
        assert abs(rj) == pytest.approx(mw.r, rel=1e-13)
        assert cj == pytest.approx(mw.c, rel=1e-13)
    d = m2.to_dict()
    assert d["vocabulary"]["letters"] == [1.0, -2.0, 3.0]
    assert len(d["spike_strength_groups"]) == 3


# --------------------------------------------------------------------------- channel

def test_uniform_group_channel_is_the_channel():
    g = group_channel_data("tanh", "sin", 1.1, 1.02, 0.9, None, nodes=60)
    assert g.groups[0] is channel_data("tanh", "sin", 1.1, 1.02, 0.9, nodes=60)
    assert g.mu0.shape == (1, 60)


def test_group_channel_rows_are_the_groups_coefficients():
    g = group_channel_data("tanh", "sin", 1.1, 1.02, 1.0, [1, -2], nodes=60)
    ch2 = channel_data("tanh", "sin", -2.2, 1 + 4 * 0.02, 1.0, nodes=60)
    assert np.max(np.abs(g.mu0[1] - ch2.mu0)) < 1e-13
    assert np.max(np.abs(g.mu1[1] - ch2.mu1)) < 1e-13
    assert g.E(g.mu1).shape == (2,)


# --------------------------------------------------------------------------- bounds

def _sin_sin_reference(r, c, letters, dps=40):
    """U_K and L_K for a sin student and a sin target at gamma = 1 by mpmath.quad of the
    explicit group functions (rank-revealing least squares in mpmath)."""
    with mpmath.workdps(dps):
        r, c = mpmath.mpf(r), mpmath.mpf(c)
        phi = lambda k: mpmath.exp(-k * k / 2) / mpmath.sqrt(2 * mpmath.pi)
        E = lambda f: mpmath.quad(lambda k: f(k) * phi(k), mpmath.linspace(-14, 14, 15))
        funcs = []
        for w in letters:
            a, cj = r * w, 1 + w * w * (c - 1)
            funcs.append(lambda k, a=a, cj=cj: mpmath.exp(-cj / 2) * mpmath.sin(a * k))
        mu0_funcs = list(funcs)
        for w in letters:
            a, cj = r * w, 1 + w * w * (c - 1)
            funcs.append(lambda k, a=a, cj=cj: k * mpmath.exp(-cj / 2) * mpmath.cos(a * k))
        energy = E(lambda k: mpmath.sin(k) ** 2)

        def dist(fs):
            G = mpmath.matrix([[E(lambda k: f(k) * g(k)) for g in fs] for f in fs])
            u = mpmath.matrix([E(lambda k: f(k) * mpmath.sin(k)) for f in fs])
            ev, Q = mpmath.eigsy(G)
            top = max(abs(x) for x in ev)
            gain = 0
            for i in range(len(fs)):
                if ev[i] > top * mpmath.mpf(10) ** (-(dps - 8)):
                    gain += (sum(Q[j, i] * u[j] for j in range(len(fs)))) ** 2 / ev[i]
            return energy - gain
        return dist(mu0_funcs), dist(funcs)


@pytest.mark.parametrize("letters", [[1, 2], [1, -1, 3]])
def test_vocabulary_bounds_against_quadrature_30_digits(letters):
    r, c = "0.7", "1.3"
    upper, lower = _sin_sin_reference(r, c, letters)
    b = bounds("sin", "sin", r, c, 1.0, dps=30, vocabulary=letters)
    assert abs(b.mp_values["upper"] - upper) < mpmath.mpf(10) ** -29
    assert abs(b.mp_values["lower"] - lower) < mpmath.mpf(10) ** -29
    # double precision: the same to ~1e-13
    d = bounds("sin", "sin", float(r), float(c), 1.0, vocabulary=letters)
    assert d.upper == pytest.approx(float(upper), abs=1e-13)
    assert d.lower == pytest.approx(float(lower), abs=1e-13)


def test_symmetric_vocabulary_equals_uniform_for_an_odd_student():
    for gamma in (1.0, 0.8):
        u = bounds("tanh", "sin", 1.13406, 1.018973, gamma)
        s = bounds("tanh", "sin", 1.13406, 1.018973, gamma, vocabulary=vocabulary([1, -1],
                                                                                [0.3, 0.7]))
        assert s.upper == pytest.approx(u.upper, rel=1e-12, abs=1e-15)
        assert s.lower == pytest.approx(u.lower, rel=1e-10, abs=1e-15)


def test_bounds_do_not_depend_on_weights_and_shrink_with_more_letters():
    args = ("tanh", "sin", 1.13406, 1.018973, 1.0)
    a = bounds(*args, vocabulary=vocabulary([1, 2], [0.5, 0.5]))
    b = bounds(*args, vocabulary=vocabulary([1, 2], [0.9, 0.1]))
    assert (a.upper, a.lower) == (b.upper, b.lower)
    one, three = bounds(*args), bounds(*args, vocabulary=[1, 2, 3])
    assert three.lower <= a.lower <= one.lower
    assert three.upper <= a.upper <= one.upper
    # with two letters the bound drops by more than half at this (r, c)  (values in the
    # spec of the vocabulary: U = 0.02026 -> 0.00895, L = 0.00405 -> 0.00049)
    assert one.upper == pytest.approx(0.02026, abs=5e-6)
    assert a.upper == pytest.approx(0.00895, abs=5e-6)
    assert a.lower == pytest.approx(0.00049, abs=5e-6)


def test_vocabulary_lower_bound_is_below_every_gamma_spike_span():
    b = bounds("tanh", "tanh", 0.65109, 1.076906, 0.56349, vocabulary=[1, 2])
    assert 0 <= b.lower < b.spike_span <= b.upper
    assert len(b.b_upper) == 2 and len(b.b_lower) == 6
    d = b.to_dict()
    assert d["vocabulary"]["letters"] == [1.0, 2.0] and len(d["r_groups"]) == 2


def test_optimised_bounds_with_a_vocabulary():
    """tanh student, sin target at gamma = 1 and alpha0 = 20 (the papers' setting of the
    optimised bounds): two letters lower U* from 8.4e-3 to 1.6e-5; the narrow minimum of
    the lower bound with {1, 3} (near eta = 0.33) is found and evaluated at 25 digits."""
    one = optimal_learning_rate_bounds("tanh", "sin", 20, eta_max=8, gamma=1.0)
    two = optimal_learning_rate_bounds("tanh", "sin", 20, eta_max=2, gamma=1.0,
                                       vocabulary=[1, 2])
    assert one.upper == pytest.approx(8.39e-3, rel=2e-3)
    assert two.upper == pytest.approx(1.64e-5, rel=1e-2)
    assert two.lower <= two.upper
    three = optimal_learning_rate_bounds("tanh", "sin", 20, eta_max=1.0, gamma=1.0,
                                         vocabulary=[1, 3], dps=25)
    assert three.eta_lower == pytest.approx(0.335, abs=0.01)
    assert 1.3e-10 < three.lower < 1.5e-10
    # the value at the optimum equals an independent 25-digit bounds() call there
    m = srf_mapping("tanh", "sin", three.eta_lower, 20)
    ref = bounds("tanh", "sin", m.r, m.c, 1.0, dps=25, vocabulary=[1, 3])
    assert three.lower == ref.lower


# --------------------------------------------------------------------------- spectrum

from srfsym.theory.feature.spectrum import feature_spectrum  # noqa: E402

ZS = (1 + 0.1j, 0.3 + 0.05j, -0.5 + 0.01j, 2.5 + 0.3j)


@pytest.mark.parametrize("beta, nu", [(1.0, 1.0), (0.5, 2.0), (2.0, 0.7)])
def test_block_system_with_one_letter_is_the_marchenko_pastur_closed_form(beta, nu):
    """The K-group block-Wishart iteration, run with the single letter 1, against the
    uniform path (MP closed form with its own root selection)."""
    uniform = feature_spectrum("tanh", r=1.5, c=1.05, beta=beta, p_over_n=nu)
    forced = feature_spectrum("tanh", r=1.5, c=1.05, beta=beta, p_over_n=nu)
    forced._use_groups = True
    for z in ZS:
        a, b = uniform.stieltjes_value(z, warm_start=False), forced.stieltjes_value(z,
                                                                                 warm_start=False)
        assert abs(a.s - b.s) <= 1e-10 * abs(a.s)
        assert abs(a.g1 - b.g1) <= 1e-10 * abs(a.g1)


def test_symmetric_vocabulary_spectrum_is_the_uniform_one():
    u = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
    s = feature_spectrum("tanh", "sin", alpha0=20, eta=3, vocabulary=vocabulary([1, -1],
                                                                                [0.3, 0.7]))
    for z in ZS:
        assert abs(u.stieltjes(z) - s.stieltjes(z)) <= 1e-12 * abs(u.stieltjes(z))
    x = np.linspace(0.05, 2.0, 7)
    assert np.max(np.abs(u.density(x) - s.density(x))) < 1e-10
    assert s.right_edge == pytest.approx(u.right_edge, rel=1e-4)
    # one outlier: p E mu0^2 (the second eigenvalue of the group Gram is zero)
    top, second = s.outliers_per_p
    assert top == pytest.approx(u.outlier_per_p, rel=1e-12) and abs(second) < 1e-12
    assert s.bulk_mean == pytest.approx(u.bulk_mean, rel=1e-12)


def test_vocabulary_density_is_physical_near_the_axis():
    fs = feature_spectrum("tanh", r=1.13406, c=1.018973, vocabulary=[1, 2])
    rho = fs.density(np.linspace(0.02, 2.5, 25))
    assert np.all(rho >= -1e-12)
    # total mass of the bulk: 1 (the hard edge at 0 carries a 1/sqrt(x) density: geometric
    # grid; what is left out below 1e-6 and the smoothing eps cost < 1 %)
    x = np.geomspace(1e-6, fs.right_edge * 1.02, 1200)
    assert np.trapezoid(fs.density(x, eps=1e-5), x) == pytest.approx(1.0, abs=0.012)
    with pytest.raises(ValueError, match="uniform readout only"):
        fs.outlier_correction


def test_vocabulary_spectrum_against_the_srf_model():
    """{1, 3} with pi = (0.7, 0.3) at eta = 6 (docs/theory.md (k.6)): the block system
    against eigenvalues of the simulated sRF features, d = 700, 2 seeds."""
    from srfsym.simulation.spectrum_simulation import simulate_feature_spectrum
    voc = vocabulary([1, 3], [0.7, 0.3])
    sim = simulate_feature_spectrum("tanh", "sin", 20, 6, d=700, seeds=2, model="srf",
                                    vocabulary=voc, seed=3)
    assert sim.max_relative_error() < 0.025
    # two outliers, the first of order p, both near the leading-order prediction
    assert sim.outliers.shape == (2, 2)
    assert np.all(np.abs(sim.outliers[:, 0] / sim.outliers_predicted[:, 0] - 1) < 0.02)


def test_docs_vocabulary_examples_run():
    import doctest
    from pathlib import Path
    path = Path(__file__).resolve().parent.parent / "docs" / "vocabulary.md"
    result = doctest.testfile(str(path), module_relative=False)
    assert result.attempted >= 3 and result.failed == 0


# --------------------------------------------------------------------------- CLI

def _run(capsys, *argv):
    from srfsym.cli import main
    try:
        code = main(list(argv))
    except SystemExit as exc:          # argparse errors
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_bounds_with_a_vocabulary_json(capsys):
    code, out, _ = _run(capsys, "bounds", "--student", "tanh", "--teacher", "sin", "--r", "1.134",
                        "--c", "1.019", "--gamma", "1", "--vocabulary", "1", "2", "--json")
    assert code == 0
    import json
    data = json.loads(out)["rows"][0]
    ref = bounds("tanh", "sin", 1.134, 1.019, 1.0, vocabulary=[1, 2])
    assert data["upper_bound"] == ref.upper and data["lower_bound"] == ref.lower
    assert data["vocabulary"] == {"letters": [1.0, 2.0], "weights": [0.5, 0.5]}
    assert len(data["b_upper"]) == 2 and len(data["r_groups"]) == 2


def test_cli_error_and_simulate_with_a_vocabulary(capsys):
    import json
    code, out, _ = _run(capsys, "error", "--student", "tanh", "--teacher", "sin", "--alpha0", "20",
                        "--eta", "3", "--lam", "0.1", "--alpha", "1", "--vocabulary", "1", "-1",
                        "--weights", "0.3", "0.7", "--json")
    assert code == 0
    uniform = solve("tanh", "sin", 20, 3, 0.1, 1.0).test_error
    row = json.loads(out)["rows"][0]
    assert row["test_error"] == pytest.approx(uniform, rel=1e-12)
    code, out, _ = _run(capsys, "simulate", "--student", "tanh", "--teacher", "sin", "--alpha0",
                        "2", "--eta", "1", "--lam", "0.1", "--alpha", "1", "--d", "60",
                        "--seeds", "2", "--vocabulary", "1", "2", "--json")
    assert code == 0


@pytest.mark.parametrize("extra, match", [
    (["--vocabulary", "1", "0"], "non-zero"),
    (["--vocabulary", "1", "2", "--weights", "0.5"], "one weight per letter"),
    (["--vocabulary", "1", "2", "--weights", "0.5", "0.6"], "sum to 1"),
    (["--vocabulary", "1", "2", "--weights", "1.5", "-0.5"], "positive"),
    (["--vocabulary", "1", "nan"], "finite"),
    (["--weights", "1"], "needs --vocabulary"),
])
def test_cli_bad_vocabulary_exits_2(capsys, extra, match):
    code, out, err = _run(capsys, "bounds", "--student", "tanh", "--teacher", "sin", "--r", "1",
                          "--c", "1.02", *extra)
    assert code == 2 and match in err and out == ""


def test_cli_empty_vocabulary_is_an_argparse_error(capsys):
    code, _, err = _run(capsys, "mapping", "--student", "tanh", "--teacher", "sin", "--eta", "1",
                        "--alpha0", "2", "--vocabulary")
    assert code == 2 and "--vocabulary" in err


def test_cli_optimised_bounds_at_fixed_gamma_with_dps(capsys):
    """`--optimize-eta --gamma 1 --dps 20`: the optimum found in double, the values at it in
    20 digits; the lower value equals a 20-digit bounds() call at the printed eta."""
    import json
    code, out, _ = _run(capsys, "bounds", "--student", "sin", "--teacher", "sin", "--alpha0",
                        "2", "--optimize-eta", "--gamma", "1", "--eta-max", "4", "--dps", "20",
                        "--json")
    assert code == 0
    row = json.loads(out)["rows"][0]
    # sin/sin at gamma = 1: U = 0 where r = 1, i.e. eta = 1 / A (docs/theory.md (l.3))
    assert row["upper_bound"] < 1e-15
    assert row["eta_upper"] == pytest.approx(2.1574, abs=2e-4)


def test_fit_uniform_parameters_recovers_r_c_and_is_the_weighted_least_squares():
    """The fit of the measured per-letter (r_j, c_j) to the group formulas: exact data give
    back (r, c); noisy data give the neuron-weighted least-squares solution, computed here
    independently with numpy's lstsq on the formulas r_j = omega_j r, c_j = 1 + omega_j^2 (c - 1)."""
    import numpy as np
    from srfsym.step.vocabulary import fit_uniform_parameters
    w, n = np.array([1.0, -2.0, 3.0]), np.array([5.0, 2.0, 1.0])
    r, c = 1.3, 1.15
    assert fit_uniform_parameters(w, n, w * r, 1 + w**2 * (c - 1)) == pytest.approx((r, c), abs=1e-14)
    rj = w * r + np.array([0.01, -0.02, 0.03])
    cj = 1 + w**2 * (c - 1) + np.array([-0.01, 0.02, 0.005])
    sw = np.sqrt(n)
    r_ls = np.linalg.lstsq((sw * w)[:, None], sw * rj, rcond=None)[0][0]
    c_ls = 1 + np.linalg.lstsq((sw * w**2)[:, None], sw * (cj - 1), rcond=None)[0][0]
    assert fit_uniform_parameters(w, n, rj, cj) == pytest.approx((r_ls, c_ls), rel=1e-13)
