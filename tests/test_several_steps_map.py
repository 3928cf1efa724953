"""The T-step map (docs/theory.md (p)): T = 1 is the one-step mapping, step 2 against
closed forms, the learned directions from the expressions, the network within its error bars."""
import warnings

import mpmath
import numpy as np
import pytest

from srfsym.simulation.simulate import simulate
from srfsym.step.directions import learned_directions, parity_zero
from srfsym.step.mapping import srf_mapping
from srfsym.step.several_steps import several_steps
from srfsym.step.step_target import Z
from srfsym.step.vocabulary import vocabulary


@pytest.mark.parametrize("student,teacher,eta,alpha0", [
    ("tanh", "sin", 3, 20), ("relu", "x**3 - x", 1, 2), ("erf", "tanh", 2, 0.5)])
def test_one_step_is_the_one_step_mapping(student, teacher, eta, alpha0):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mp = srf_mapping(student, teacher, eta, alpha0)
    s = several_steps(student, teacher, eta, alpha0, steps=1).states[1]
    assert abs(s.spike_norms[0] - mp.r) < 1e-12
    assert abs(s.bulk_variances[0] - mp.c) < 1e-12
    assert abs(abs(s.target_components[0, 0]) / s.spike_norms[0] - mp.gamma) < 1e-12


def test_one_step_with_a_vocabulary_is_the_group_mapping():
    voc = vocabulary([1, 2.5, -0.5], [0.5, 0.3, 0.2])
    mp = srf_mapping("tanh", "sin", 1.5, 2, vocabulary=voc)
    s = several_steps("tanh", "sin", 1.5, 2, steps=1, vocabulary=voc).states[1]
    np.testing.assert_allclose(s.target_components[:, 0] / mp.gamma,
                               mp.group_spike_strengths, rtol=0, atol=1e-12)
    np.testing.assert_allclose(s.bulk_variances, mp.group_bulk_variances, rtol=0, atol=1e-12)


def test_second_step_second_direction_is_the_closed_form():
    # relu, {+1, -1}, g = z1 + z1 z2: after step 1 m = (+-eta mu1 E[g z1], noise), c = 1 +
    # eta^2 E g^2 checkmu1^2 / alpha0; the theta2 component after step 2 is
    # eta * m1 * E[sigma''(b + u)] = eta m1 / sqrt(2 pi (c + |m|^2))   (Stein twice)
    eta, alpha0 = mpmath.mpf(1), mpmath.mpf(2)
    m1 = eta * mpmath.mpf(1) / 2                           # mu1 = 1/2, E[g z1] = 1
    Eg2 = mpmath.mpf(2)                                    # E (z1 + z1 z2)^2
    noise2 = (eta / 2) ** 2 * Eg2 / alpha0                 # (eta mu1)^2 E g^2 / alpha0
    c = 1 + eta**2 * Eg2 * mpmath.mpf(1) / 4 / alpha0      # checkmu1^2 = 1/2 - 1/4
    want = eta * m1 / mpmath.sqrt(2 * mpmath.pi * (c + m1**2 + noise2))
    st = several_steps("relu", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1]).states[2]
    np.testing.assert_allclose(st.target_components[:, 1], [float(want)] * 2, rtol=1e-9)


def test_a_symmetric_vocabulary_is_the_uniform_readout_for_an_odd_student():
    a = several_steps("tanh", "z1 + (z1**2 - 1)*z2", 1, 2, steps=2, vocabulary=[1, -1])
    b = several_steps("tanh", "z1 + (z1**2 - 1)*z2", 1, 2, steps=2)
    for sa, sb in zip(a.states[1:], b.states[1:]):
        np.testing.assert_allclose(sa.spike_norms, sb.spike_norms[0], rtol=1e-8)
        np.testing.assert_allclose(sa.bulk_variances, sb.bulk_variances[0], rtol=1e-8)
        np.testing.assert_allclose(sa.target_components[0], sb.target_components[0], rtol=1e-8)
        np.testing.assert_allclose(sa.target_components[1], -sb.target_components[0], rtol=1e-8)


def test_directions_from_the_expressions():
    assert learned_directions("tanh", "z1 + z1*z2", 1, 2, 2, [1, -1]).verdict == \
        "no second direction"
    relu = learned_directions("relu", "z1 + z1*z2", 1, 2, 2, [1, -1])
    assert relu.verdict == "a second direction" and relu.steps[1]["rank"] == 2
    assert learned_directions("relu", "z1 + z1*z2", 1, 2, 2).verdict == "no second direction"
    # tanh on z1 + (z1^2 - 1) z2: theta2 is reached, but with the letter's sign (rank one)
    weak = learned_directions("tanh", "z1 + (z1**2 - 1)*z2", 1, 2, 2, [1, -1])
    assert "theta2" in weak.steps[1]["reached"] and weak.steps[1]["rank"] == 1
    g = Z[0] + Z[0] * Z[1] + Z[0] * Z[1] * Z[2]
    assert "constant 1/2" in parity_zero("relu", g, 2, [0, 1], Z[:3])
    assert parity_zero("tanh", g, 2, [0, 1], Z[:3]) is None
    assert "is odd" in parity_zero("x**2", g, 2, [0, 1], Z[:3])


def test_two_steps_against_the_network():
    d, seeds = 500, 4
    res = simulate("relu", "z1 + z1*z2", 2.0, 1.0, 0.1, [1.0], d=d, seeds=seeds, n_test=100,
                   workers=1, vocabulary=[1, -1], steps=2)
    m = res.step_measurements
    st = several_steps("relu", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1]).states[2]
    comp = m["spike_components"][:, 1]                   # seeds x letters x k
    sem = comp.std(0, ddof=1) / np.sqrt(seeds)
    assert np.all(np.abs(comp.mean(0) - st.target_components) < 4 * sem + 0.01)
    bulk = m["bulk_variances"][:, 1]
    assert np.all(np.abs(bulk.mean(0) - st.bulk_variances) < 0.05 * st.bulk_variances)


def test_bad_input_is_refused():
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        several_steps("tanh", "sin", 1, 2, steps=0)
    with pytest.raises(ValueError, match="alpha0 must be > 0"):
        several_steps("tanh", "sin", 1, 0, steps=1)
    with pytest.raises(ValueError, match="Dirac mass"):
        several_steps("sign", "sin", 1, 2, steps=1)
