"""A convex loss with a readout vocabulary for a multi-index target: the K-group convex
channel with the multi-index label law at a learned direction shared by the letters
(docs/theory.md (n.8))."""
from __future__ import annotations

import re

import pytest

from srfsym.theory.convex_groups import solve_convex_groups
from srfsym.theory.multi_index import (solve_multi_index_convex,
                                       solve_multi_index_convex_groups)

from cli_run import run_cli

ROTATED = "sign((z1 + z2)/sqrt(2))"
FAST = dict(nodes=60, nodes_u=12)


@pytest.mark.parametrize("vocabulary", [[1, -1], [1, 2]])
def test_rotated_single_index_sign_is_the_k_group_convex_result(vocabulary):
    # the target depends on (z1 + z2)/sqrt(2) only: along the alignment vector it is the
    # single-index teacher sign at |gamma|, and the channel's interval rule is then exact
    a = solve_multi_index_convex_groups("tanh", ROTATED, 1.0, 1.1, (0.5, 0.5), 0.05, 2.0,
                                        vocabulary=vocabulary, loss="logistic", **FAST)
    b = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.5 * 2 ** 0.5, 0.05, 2.0,
                            loss="logistic", vocabulary=vocabulary, **FAST)
    assert a.state.V1.shape == (2, 2)
    assert abs(a.classification_error - b.classification_error) < 1e-8
    assert abs(a.test_error - b.test_error) < 1e-8
    assert abs(a.train_error - b.train_error) < 1e-8
    assert a.direction_spread < 1e-10


def test_one_letter_is_the_uniform_multi_index_convex_result():
    a = solve_multi_index_convex_groups("tanh", ROTATED, 1.0, 1.1, (0.6, 0.3), 0.05, 2.0,
                                        vocabulary=[1], loss="hinge", **FAST)
    b = solve_multi_index_convex("tanh", ROTATED, 1.0, 1.1, (0.6, 0.3), 0.05, 2.0,
                                 loss="hinge", **FAST)
    assert abs(a.classification_error - b.classification_error) < 1e-10
    assert abs(a.test_error - b.test_error) < 1e-10
    assert a.learned_direction == pytest.approx(b.learned_direction, abs=1e-8)


def test_letters_learning_different_directions_are_refused():
    # gamma off the target's symmetry axis: the letters weigh the kappa-dependent linear part
    # E[xi f | kappa] differently, so their rows of psi^ are not parallel
    with pytest.raises(ValueError, match="the letters learn different directions"):
        solve_multi_index_convex_groups("tanh", "sign(z1 + z1*z2)", 1.0, 1.1, (0.6, 0.4), 0.05,
                                        2.0, vocabulary=[1, 2], loss="logistic", nodes=40,
                                        nodes_u=8, max_outer=3)


def test_through_solve_and_the_table():
    from srfsym.theory.dispatch import combinations_markdown
    from srfsym.theory.fixed_point import solve
    res = solve("tanh", "sign(z1 + z1*z2)", 2, 1, 0.05, 2.0, loss="logistic", vocabulary=[1, 2])
    assert res.vocabulary.K == 2 and 0 < res.classification_error < 0.5
    assert res.direction_spread < 1e-10       # gamma on the axis z2 -> -z2 leaves alone
    assert res.mapping is not None
    out = run_cli("error", "--student", "tanh", "--teacher", "sign(z1 + z1*z2)", "--alpha0", 2,
                  "--eta", 1, "--lam", 0.05, "--alpha", 2, "--loss", "logistic", "--vocabulary",
                  1, 2)
    assert out.returncode == 0, out.stderr
    printed = re.search(r"test classification error = ([0-9.]+)", out.stdout).group(1)
    assert abs(float(printed) - res.classification_error) < 1e-9
    assert "with a readout vocabulary: label noise" not in combinations_markdown()
    with pytest.raises(ValueError, match="deterministic spectrum"):
        solve("tanh", "sign(z1 + z1*z2)", 2, 1, 0.05, 2.0, loss="logistic", vocabulary=[1, 2],
              spectrum="sample", d=100)
