"""Several giant steps simulated (docs/theory.md (p)): fresh batches, full residual, targets."""
import numpy as np
import pytest

from srfsym.simulation.simulate import simulate
from srfsym.simulation.steps_measure import step_measurements
from srfsym.step.realised import (BLOCK_ROWS, as_seed_sequence, seed_children, giant_step,
                                  network_first_layer, step_streams)
from srfsym.step.step_target import step_target
from srfsym.step.vocabulary import vocabulary


def _batch(ss, n0, d):
    """The step data of stream ``ss`` as the simulation draws it (blocks of BLOCK_ROWS)."""
    blocks = seed_children(ss, -(-n0 // BLOCK_ROWS))
    return np.vstack([np.random.default_rng(b).standard_normal(
        (min(BLOCK_ROWS, n0 - i * BLOCK_ROWS), d)) for i, b in enumerate(blocks)])


@pytest.mark.parametrize("letters", [None, [1, -1]])
def test_three_steps_are_three_giant_steps_on_fresh_batches_with_the_full_residual(letters):
    d, alpha0, eta, T = 24, 1.5, 1.3, 3
    target = step_target("z1 + z1*z2")
    omega = None if letters is None else vocabulary(letters).neuron_letters(d)
    W0, WT = network_first_layer("relu", "z1 + z1*z2", alpha0, eta, d, seed=7, steps=T,
                                 step_dtype="float64", omega=omega)
    W = W0.copy()
    n0 = int(alpha0 * d)
    for ss in step_streams(as_seed_sequence(7), T):
        X = _batch(ss, n0, d)
        W = giant_step("relu", W, X, target.labels(X), eta, omega=omega)  # f computed on W
    np.testing.assert_allclose(WT, W, rtol=0, atol=1e-12)
    # the second step really sees f_1: a step with the residual y - f_0 differs
    _, W1 = network_first_layer("relu", "z1 + z1*z2", alpha0, eta, d, seed=7,
                                step_dtype="float64", omega=omega)
    assert not np.allclose(WT, W1)


def test_one_step_is_todays_step_and_steps_keep_the_first_step():
    kw = dict(alpha0=2.0, eta=1.0, lam=0.1, alpha=[1.0], d=40, seeds=2, n_test=200, workers=1)
    one = simulate("tanh", "sin", **kw)
    same = simulate("tanh", "sin", steps=1, **kw)
    np.testing.assert_array_equal(one.test_error_per_seed, same.test_error_per_seed)
    assert one.step_measurements is None and "steps" not in one.to_dict()
    three = simulate("tanh", "sin", steps=3, **kw)
    m = three.step_measurements
    assert m["singular_values"].shape == (2, 3, 3)
    # after step 1 the layer is one step's layer
    np.testing.assert_allclose(m["singular_values"][:, 0], one.singular_values, rtol=1e-9)
    assert not np.allclose(three.test_error_per_seed, one.test_error_per_seed)


def test_a_multi_index_target_in_z1_is_the_single_index_teacher():
    kw = dict(alpha0=2.0, eta=1.0, lam=0.1, alpha=[0.5, 1.0], d=40, seeds=2, n_test=300,
              workers=1, steps=2)
    a = simulate("tanh", "x**3 - x", **kw)
    b = simulate("tanh", "z1**3 - z1", **kw)
    np.testing.assert_allclose(b.test_error_per_seed, a.test_error_per_seed, rtol=1e-6)


def test_measured_spike_vectors_match_the_layer():
    W0, W2 = network_first_layer("relu", "z1 + z1*z2", 2.0, 1.0, 60, seed=3, steps=2,
                                 vocabulary=[1, -1])
    res = simulate("relu", "z1 + z1*z2", 2.0, 1.0, 0.1, [1.0], d=60, seeds=1, n_test=100,
                   workers=1, steps=2, vocabulary=[1, -1], seed=0)
    assert res.step_measurements["spike_components"].shape == (1, 2, 2, 2)
    m = step_measurements(W0, W2, vocabulary([1, -1]).neuron_letters(60), k=2)
    om = vocabulary([1, -1]).neuron_letters(60)
    np.testing.assert_allclose(m["spike_components"][1], W2[om == -1, :2].mean(axis=0))
    np.testing.assert_allclose(m["bulk_variances"][0], np.mean(np.sum(W2[om == 1] ** 2, 1))
                               - np.sum(W2[om == 1].mean(0) ** 2))


def test_bad_steps_and_targets_are_refused():
    kw = dict(alpha0=2.0, eta=1.0, lam=0.1, alpha=[1.0], d=20, seeds=1, n_test=50, workers=1)
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        simulate("tanh", "sin", steps=0, **kw)
    with pytest.raises(ValueError, match="model='network'"):
        simulate("tanh", "z1*z2", model="srf", **kw)
    with pytest.raises(ValueError, match="needs labels [+]-1, but the multi-index target"):
        simulate("tanh", "z1*z2", loss="logistic", **kw)   # a classification loss, real labels
    with pytest.raises(ValueError, match="unknown name"):
        simulate("tanh", "z1*w", **kw)


def test_cli_simulate_steps_reports_the_steps_and_the_theory():
    import json
    from cli_run import run_cli
    args = ["simulate", "--student", "relu", "--teacher", "z1 + z1*z2", "--alpha0", "2",
            "--eta", "1", "--lam", "0.1", "--alpha", "1", "--d", "40", "--seeds", "2",
            "--n-test", "100", "--workers", "1", "--steps", "2", "--vocabulary", "1", "-1"]
    out = run_cli(*args, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    sim = simulate("relu", "z1 + z1*z2", 2.0, 1.0, 0.1, [1.0], d=40, seeds=2, n_test=100,
                   workers=1, steps=2, vocabulary=[1, -1])
    assert data["rows"][0]["test_error"] == pytest.approx(sim.test_error[0], rel=1e-12)
    from srfsym.theory.fixed_point import solve
    theory = solve("relu", "z1 + z1*z2", 2, 1, 0.1, 1.0, vocabulary=[1, -1], steps=2)
    assert data["rows"][0]["theory_test_error"] == pytest.approx(theory.test_error, rel=1e-12)
    assert len(data["details"]["simulation"]["step_measurements"]["singular_values"][0]) == 2
    text = run_cli(*args, "--quiet")
    assert text.returncode == 0 and "2 giant step(s)" in text.stdout
