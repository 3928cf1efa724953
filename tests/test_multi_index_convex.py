"""Convex readout losses with a multi-index target (docs/theory.md (n.8)): the channel
MultiIndexConvexChannel on the one engine, against the single-index convex channel (a target
of one direction written with several), against the closed square-loss multi-index solve (the
square loss through the quadrature channel), the self-consistency of the learned direction, and
the refusals."""
import math

import numpy as np
import pytest
from scipy.special import erf

from srfsym.simulation.convex_readout import check_readout
from srfsym.symbolic.targets import multi_index_target
from srfsym.theory.convex_fixed_point import solve_convex_srf
from srfsym.theory.fixed_point import solve
from srfsym.theory.multi_index import (solve_multi_index_convex, solve_multi_index_srf)

FAST = dict(nodes=60, nodes_u=12)
SOLVE = dict(nodes=60)     # solve() takes the options of every channel (no nodes_u)


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
@pytest.mark.parametrize("target,gamma,nodes_eta", [
    ("sign(z1)", (0.6,), None),
    ("sign((z1 + z2)/sqrt(2))", (0.5, 0.5), None),
    ("sign((3*z1 - 4*z3)/5) + 0*z2", (0.36, 0.0, -0.48), 4),
])
def test_a_target_of_one_direction_is_the_single_index_sign_teacher(loss, target, gamma,
                                                                    nodes_eta):
    """sign(<theta, z>) written with k directions, at an alignment vector whose projection on
    theta is gamma_1: the single-index sign teacher at gamma_1 (probit law in closed form
    there, intervals found by bisection here), to 1e-10."""
    g = np.asarray(gamma)
    theta = {1: np.array([1.0]), 2: np.array([1, 1]) / math.sqrt(2),
             3: np.array([0.6, 0.0, -0.8])}[g.size]
    # the test's alignment vectors lie along theta (the single-index setting); the single-index
    # gamma is passed as |gamma| to the last bit (the kappa rule of channel_data can change
    # with one ulp of gamma, which moves the answers by 1e-7 at 60 nodes)
    assert abs(abs(float(theta @ g)) - np.linalg.norm(g)) < 1e-12
    one_gamma = math.copysign(float(np.linalg.norm(g)), float(theta @ g))
    res = solve_multi_index_convex("tanh", target, 1.0, 1.1, gamma, 0.05, 2.0, loss=loss,
                                   nodes_eta=nodes_eta, **FAST)
    one = solve_convex_srf("tanh", "sign", 1.0, 1.1, one_gamma, 0.05, 2.0, loss=loss, **FAST)
    for key in ("classification_error", "test_error", "train_loss", "train_error"):
        assert abs(getattr(res, key) - getattr(one, key)) < 1e-10, key
    assert abs(res.state.q1 - one.state.q1) < 1e-9 * one.state.q1


def test_the_square_loss_through_the_quadrature_channel_is_the_closed_solve():
    """Real labels y = g(z): the square loss written as a user loss goes through the
    quadrature channel (rule in xi_e times Gauss-Hermite in eta, Newton proximal steps); the
    closed multi-index ridge of (n.4) is an independent computation of the same fixed point."""
    a = solve_multi_index_convex("relu", "z1 + z1*z2", 0.8, 1.1, (0.7, 0.2), 0.1, 1.5,
                                 loss="(y - yhat)**2", nodes=60, nodes_eta=12)
    b = solve_multi_index_srf("relu", "z1 + z1*z2", 0.8, 1.1, (0.7, 0.2), 0.1, 1.5, nodes=60)
    assert abs(a.test_error - b.test_error) < 1e-8
    assert np.allclose(a.learned_direction, b.learned_direction, atol=1e-6)
    assert abs(a.learned_direction[1]) > 0.1          # a direction that is not e_1


def test_the_learned_direction_is_self_consistent_and_follows_the_parity():
    """relu (mu1(kappa) not even) learns a direction with a xi_2 part for sign(z1 + z1*z2), whose
    linear part along xi_2, E[y xi_2 | kappa] = E[sign z1 | kappa] 2 phi(1), is odd in kappa;
    tanh (mu1 even) cannot (e = e_1).  At the answer psi^ (a k-vector) is parallel to e."""
    from srfsym.theory.channels.convex_multi import MultiIndexConvexChannel
    from srfsym.theory.channels.kappa_quadrature import channel_data
    from srfsym.theory.state import State
    tg = multi_index_target("sign(z1 + z1*z2)")
    res = solve_multi_index_convex("relu", tg, 0.77, 1.05, (0.71, 0.0), 0.1, 2.0,
                                   loss="logistic", nodes=40, nodes_u=8)
    e = np.asarray(res.learned_direction)
    assert abs(e[1]) > 0.1 and res.outer_iterations > 1
    C = MultiIndexConvexChannel(channel_data("relu", "sign", 0.77, 1.05, 0.71, nodes=40),
                                "logistic", alpha=2.0, beta=1.0, target=tg, gamma=(0.71, 0.0),
                                direction=e, method="quadrature", nodes_u=8)
    u = C.psi_hat_vector(State(*res.state), 0.0)
    sine = abs(u[0] * e[1] - u[1] * e[0]) / np.linalg.norm(u)
    assert sine < 1e-4
    tanh = solve_multi_index_convex("tanh", tg, 0.9, 1.1, (0.74, 0.0), 0.1, 2.0,
                                    loss="logistic", **FAST)
    assert abs(tanh.learned_direction[1]) < 1e-12


def test_the_label_moments_of_a_sign_target_are_exact():
    """h = E[y | kappa] of sign(z1)*sign(1 + z2) from the intervals: (2 Phi(gamma kappa/rho) - 1)
    (2 Phi(1) - 1) in closed form."""
    from srfsym.theory.channels.convex_multi import MultiIndexConvexChannel
    from srfsym.theory.channels.kappa_quadrature import channel_data
    g1 = 0.7
    C = MultiIndexConvexChannel(channel_data("tanh", "sign", 1.0, 1.1, g1, nodes=60),
                                "logistic", alpha=2.0, beta=1.0,
                                target=multi_index_target("sign(z1 + z1*z2)"), gamma=(g1, 0.0),
                                direction=(0.8, 0.6), method="quadrature")
    rho = math.sqrt(1 - g1 * g1)
    ref = erf(g1 * C.k / rho / math.sqrt(2)) * erf(1 / math.sqrt(2))
    # the eta rule is split where the + set changes form, not where two boundaries cross
    # (a kink of P(y = 1 | kappa, eta)): 1.2e-3 here at one kappa, 3e-4 in the kappa-mean
    assert np.max(np.abs(C.h - ref)) < 2e-3
    assert float(np.dot(C.w, np.abs(C.h - ref))) < 5e-4
    # e = e_1: the boundary z2 = -1 is parallel to xi_e, a jump in eta, split: to round-off
    C1 = MultiIndexConvexChannel(channel_data("tanh", "sign", 1.0, 1.1, g1, nodes=60),
                                 "logistic", alpha=2.0, beta=1.0,
                                 target=multi_index_target("sign(z1 + z1*z2)"), gamma=(g1, 0.0),
                                 direction=(1.0, 0.0), method="quadrature")
    assert np.max(np.abs(C1.h - ref)) < 1e-12


def test_solve_routes_a_loss_and_the_step_map_of_a_sign_target_is_exact():
    """solve(..., loss=) with a multi-index target: the one-step map of sign(z1 + z1*z2) is
    exact (the sign of a product splits), and the kernel baseline runs."""
    res = solve("tanh", "sign(z1 + z1*z2)", 4, 2, 0.1, 2.0, loss="logistic", **SOLVE)
    c10 = math.sqrt(2 / math.pi) * erf(1 / math.sqrt(2))     # E[|z1|] E[sign(1 + z2)]
    gamma = c10 / math.sqrt(c10 ** 2 + 1 / 4)
    assert abs(res.alignment_vector[0] - gamma) < 1e-12 and res.alignment_vector[1] == 0
    assert 0 < res.classification_error < 0.5
    base = solve("tanh", "sign(z1 + z1*z2)", 0, 0, 0.1, 2.0, loss="logistic", **SOLVE)
    assert base.classification_error > res.classification_error


def test_refusals_name_the_problem():
    tg = multi_index_target("z1 + z1*z2")
    with pytest.raises(ValueError, match="needs labels"):
        solve_multi_index_convex("tanh", tg, 1.0, 1.1, (0.6, 0.0), 0.1, 2.0, loss="logistic")
    with pytest.raises(ValueError, match="label_rule = 'bernoulli': Bernoulli labels: not derived"):
        solve("tanh", "tanh(z1 + z2)", 4, 2, 0.1, 2.0, loss="logistic", label_rule="bernoulli")
    with pytest.raises(ValueError, match="label noise"):
        solve("tanh", "sign(z1*z2 + z1)", 4, 2, 0.1, 2.0, loss="logistic", noise=0.1)
    sign = multi_index_target("sign(z1 + z1*z2)")
    assert check_readout("logistic", 0.0, False, "teacher", sign, 0.1)["pm1"] is True
    with pytest.raises(ValueError, match="takes other values"):
        check_readout("hinge", 0.0, False, "teacher", tg, 0.1)
    with pytest.raises(ValueError, match="Bernoulli labels are not implemented"):
        check_readout("logistic", 0.0, False, "bernoulli", sign, 0.1)
