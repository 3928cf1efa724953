"""Convex losses after several giant steps (docs/theory.md (p.4)): the vector-kappa convex
channel at T = 1 against the one-step convex fixed point, and at T = 2 against the ridge."""
import warnings

import pytest

from srfsym.step.mapping import srf_mapping
from srfsym.step.several_steps import several_steps
from srfsym.theory.channels.subspace import subspace_channel_data
from srfsym.theory.convex_fixed_point import solve_convex_srf
from srfsym.theory.dispatch import solve_problem
from srfsym.theory.problem import Problem
from srfsym.theory.several_steps_convex import solve_convex_subspace


@pytest.mark.parametrize("teacher,kw", [("sign", dict(loss="logistic")),
                                        ("sin", dict(loss="square", noise=0.1))])
def test_one_step_is_the_one_step_convex_fixed_point(teacher, kw):
    # conditioning on the target direction (sign: a rule split at z1 = 0) instead of the label
    # law in (kappa, gamma): the same fixed point
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = srf_mapping("tanh", teacher, 1, 2)
        want = solve_convex_srf("tanh", teacher, m.r, m.c, m.gamma, 0.05, 2.0, **kw)
        st = several_steps("tanh", teacher, 1, 2, 1).states[1]
        got = solve_convex_subspace(subspace_channel_data("tanh", st, teacher, 32), teacher,
                                    0.05, 2.0, **kw)
    assert abs(got.test_error - want.test_error) < 1e-8 * want.test_error
    assert abs(got.train_loss - want.train_loss) < 1e-8 * want.train_loss
    if teacher == "sign":
        assert abs(got.classification_error - want.classification_error) < 1e-9


def test_the_square_loss_through_the_convex_channel_is_the_ridge():
    p = Problem("tanh", "z1 + z1*z2", 0.1, 1.0, alpha0=2, eta=1, steps=2)
    ridge = solve_problem(p)
    convex = solve_problem(p.at(loss="(y - yhat)**2"))
    assert convex.method == "anderson" and convex.node_error is not None
    assert abs(convex.test_error - ridge.test_error) < max(3 * convex.node_error, 1e-8)
    assert abs(convex.train_error - ridge.train_error) < max(3 * convex.node_error, 1e-8)


def test_bernoulli_labels_after_several_steps_are_refused():
    p = Problem("tanh", "tanh", 0.1, 1.0, alpha0=2, eta=1, steps=2, loss="logistic",
                label_rule="bernoulli")
    with pytest.raises(ValueError, match="bernoulli.*not derived"):
        solve_problem(p)


def test_a_sign_target_is_integrated_across_its_jump():
    # the rule along theta_1 is split at z1 = 0: the map's node error drops from ~6e-3 (plain
    # Gauss-Hermite across the jump) to round-off
    from srfsym.step.several_steps import split_gaussian_rule
    m = several_steps("tanh", "sign", 1, 2, 2)
    assert m.node_error < 1e-10
    x, w = split_gaussian_rule(20)
    assert abs(w @ (x > 0) - 0.5) < 1e-13 and abs(w @ x**4 - 3) < 1e-10
