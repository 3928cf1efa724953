"""Multi-index targets with a readout vocabulary: the K x k overlap channel on the K-group
engine (docs/theory.md (n.7))."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from srfsym.symbolic.multi_teacher import teacher_arrays
from srfsym.symbolic.targets import multi_index_target
from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.theory.fixed_point_groups import _solve_at
from srfsym.theory.multi_index import solve_multi_index_groups, solve_multi_index_srf
from srfsym.step.vocabulary import vocabulary

LAM = 0.1


@pytest.mark.parametrize("student, target, gvec", [
    ("tanh", "z1 + z1*z2", (0.8, 0.0)),
    ("relu", "tanh(z1 + z2/2) + sin(z2)/2", (0.6, 0.62)),
])
def test_one_letter_is_the_uniform_multi_index_result(student, target, gvec):
    a = solve_multi_index_groups(student, target, 1.2, 1.1, gvec, LAM, 1.0, vocabulary=[1])
    b = solve_multi_index_srf(student, target, 1.2, 1.1, gvec, LAM, 1.0)
    assert abs(a.test_error - b.test_error) < 1e-12
    assert abs(a.train_error - b.train_error) < 1e-12


@pytest.mark.parametrize("voc", [[1, 2], [0.5, 1, 3]])
@pytest.mark.parametrize("target, gvec", [
    ("tanh((z1 + z2)/sqrt(2))", (0.6 / np.sqrt(2), 0.6 / np.sqrt(2))),
    ("tanh((3*z1 - 4*z3)/5)", (0.36, 0.0, -0.48)),
])
def test_rotated_single_index_target_gives_the_vocabulary_numbers(voc, target, gvec):
    a = solve_multi_index_groups("tanh", target, 1.134, 1.019, gvec, LAM, 1.0, vocabulary=voc)
    b = solve_srf("tanh", "tanh", 1.134, 1.019, 0.6, LAM, 1.0, vocabulary=voc, nodes=120)
    assert abs(a.test_error - b.test_error) < 1e-10
    assert abs(a.train_error - b.train_error) < 1e-10


def test_columns_add_and_letters_learn_their_own_direction():
    """Independent check of the K x k channel: with (V1, V2) fixed the error is a constant
    plus a quadratic form in h1 that is a sum over its columns, so the k-column problem is
    the sum of one-column problems (each run as a k = 1 multi-index channel)."""
    target, gvec, voc = "tanh(2*z1) + z2*z1**2", np.array([0.8, 0.0]), vocabulary([1, 2])
    tg = multi_index_target(target)

    def run(cols):
        def data(gch):
            h, h1v, h2, _ = teacher_arrays(tg, gvec, np.asarray(gch.kappa))
            return replace(gch, groups=(replace(gch.groups[0], h=h, h2=h2),)
                           + tuple(gch.groups[1:])), h1v[:, cols] if cols else 0 * h1v[:, :1]
        return _solve_at("tanh", "x", 1.2, 1.1, 0.8, LAM, 1.0, 1.0, voc, 120, 1e-10, None,
                         20000, teacher_data=data)
    full = run(list(range(tg.k)))
    zero = run([])
    parts = [run([j]) for j in range(tg.k)]
    total = zero.test_error + sum(p.test_error - zero.test_error for p in parts)
    assert abs(full.test_error - total) < 1e-10
    d1, d2 = (np.array(v) for v in solve_multi_index_groups(
        "tanh", target, 1.2, 1.1, gvec, LAM, 1.0, vocabulary=voc).letter_directions)
    assert abs(d1 @ d2) < 0.999                # the two letters learn different directions
    assert all(abs(np.linalg.norm(v) - 1) < 1e-12 for v in (d1, d2))


def test_solve_routes_a_vocabulary_and_checks_its_input():
    res = solve("tanh", "z1 + z1*z2", 4, 2, LAM, 1.0, vocabulary=[1, 2])
    assert res.state.V1.shape == (2, 2) and np.asarray(res.state.psi).shape == (2, 2)
    assert res.test_error < solve("tanh", "z1 + z1*z2", 0, 0, LAM, 1.0).test_error
    with pytest.raises(ValueError, match="alignment vector must have k = 2"):
        solve_multi_index_groups("tanh", "z1*z2", 1.0, 1.0, (0.5,), LAM, 1.0, vocabulary=[1, 2])
    with pytest.raises(ValueError, match="unknown spectrum 'empirical'"):
        solve("tanh", "z1 + z1*z2", 4, 2, LAM, 1.0, vocabulary=[1, 2], spectrum="empirical")


def test_network_with_a_vocabulary_within_its_error_bar():
    from srfsym.simulation.simulate import simulate
    target, voc, alpha = "tanh(z1 + z2/2) + sin(z2)/2", [1.0, 2.0], 4.0
    sim = simulate("tanh", target, 4.0, 2.0, LAM, [alpha], d=400, seeds=6, n_test=3000,
                   workers=1, seed=5, vocabulary=voc)
    th = solve("tanh", target, 4.0, 2.0, LAM, alpha, vocabulary=voc).test_error
    e = sim.test_error_per_seed[:, 0]
    se = e.std(ddof=1) / np.sqrt(len(e))
    assert abs(e.mean() - th) < 3 * se + 0.01 * th, (e.mean(), se, th)


@pytest.mark.parametrize("noise, bias", [(0.2, False), (0.0, True), (0.3, True)])
def test_noise_and_bias_reduce_to_the_single_index_numbers(noise, bias):
    from srfsym.theory.multi_index import solve_multi_index_noisy
    one = solve_srf("tanh", "tanh", 1.0, 1.1, 0.7, LAM, 1.0, noise=noise, bias=bias)
    for target, gvec in (("tanh(z1)", (0.7,)),
                         ("tanh((z1 + z2)/sqrt(2))", (0.7 / np.sqrt(2), 0.7 / np.sqrt(2)))):
        res = solve_multi_index_noisy("tanh", target, 1.0, 1.1, gvec, LAM, 1.0, noise=noise,
                                      bias=bias)
        assert abs(res.test_error - one.test_error) < 1e-10
        assert abs(res.train_error - one.train_error) < 1e-10


def test_noise_and_bias_through_solve():
    plain = solve("relu", "z1 + z1*z2", 4, 2, LAM, 1.0)
    same = solve("relu", "z1 + z1*z2", 4, 2, LAM, 1.0, noise=0.0, bias=False)
    assert same.test_error == plain.test_error
    noisy = solve("relu", "z1 + z1*z2", 4, 2, LAM, 1.0, noise=0.5)
    assert noisy.test_error > plain.test_error          # noise in the training labels hurts
    # the noise enters through h2 of the training terms only: the direction e is unchanged
    assert noisy.learned_direction == pytest.approx(plain.learned_direction, abs=1e-10)


def test_network_with_label_noise_and_a_bias_within_its_error_bar():
    from srfsym.simulation.simulate import simulate
    target, alpha = "tanh(z1 + z2/2) + sin(z2)/2", 4.0
    sim = simulate("tanh", target, 4.0, 2.0, LAM, [alpha], d=400, seeds=6, n_test=3000,
                   workers=1, seed=3, noise=0.5, bias=True)
    th = solve("tanh", target, 4.0, 2.0, LAM, alpha, noise=0.5, bias=True).test_error
    e = sim.test_error_per_seed[:, 0]
    se = e.std(ddof=1) / np.sqrt(len(e))
    assert abs(e.mean() - th) < 3 * se + 0.01 * th, (e.mean(), se, th)


def test_learning_curve_and_optimal_lambda_take_a_multi_index_target():
    from srfsym.theory.fixed_point import learning_curve, optimal_lambda
    lc = learning_curve("tanh", "z1 + z1*z2", 4, 2, LAM, [0.5, 2.0])
    for a, e in zip((0.5, 2.0), lc.test_error):
        assert abs(e - solve("tanh", "z1 + z1*z2", 4, 2, LAM, a).test_error) < 1e-12
    # a rotated single-index target: the single-index optimum (same lambda, same error)
    lam, res = optimal_lambda("tanh", "tanh((z1 + z2)/sqrt(2))", 4, 2, 1.0)
    lam1, res1 = optimal_lambda("tanh", "tanh", 4, 2, 1.0)
    assert abs(lam - lam1) < 1e-6 * lam1 and abs(res.test_error - res1.test_error) < 1e-10
    # a genuine multi-index target: no lambda nearby does better
    lam, res = optimal_lambda("tanh", "z1 + z1*z2", 4, 2, 1.0)
    for other in (0.8 * lam, 1.25 * lam):
        assert res.test_error <= solve("tanh", "z1 + z1*z2", 4, 2, other, 1.0).test_error
