"""The deterministic theory against finite-size simulations (small d, several seeds).

Tolerance: 3 standard errors plus a finite-size allowance of 5 % (MATH.md (g): the
finite-d fluctuations are a few percent at d ~ 10^3).  Dropping the beta factors of the
width-ratio derivation moves the theory by 9-21 % at these points, so the beta tests
discriminate.
"""
import warnings

import numpy as np
import pytest

from srfsym.fixed_point import solve
from srfsym.simulate import simulate

warnings.filterwarnings("ignore", category=RuntimeWarning)


def agree(sim_mean, sim_sem, theory, allowance=0.05):
    return abs(sim_mean - theory) <= 3 * sim_sem + allowance * theory


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_srf_model_matches_theory_at_width_ratio(beta):
    st, te, a0, eta, lam, alpha = "tanh", "sin", 20, 3, 0.1, 1.0
    th = solve(st, te, a0, eta, lam, alpha, beta=beta)
    sim = simulate(st, te, a0, eta, lam, alpha, d=400, beta=beta, seeds=6, model="srf",
                   n_test=3000, seed=11)
    m, s = float(sim.test_error[0]), float(sim.test_error_sem[0])
    assert agree(m, s, th.test_error), (beta, m, s, th.test_error)
    # the p = d theory at the same alpha is excluded by the simulation
    wrong = solve(st, te, a0, eta, lam, alpha, beta=1.0).test_error
    assert abs(m - wrong) > abs(m - th.test_error)


def test_network_matches_theory():
    st, te, a0, eta, lam, alpha = "tanh", "sin", 20, 3, 0.1, 1.0
    th = solve(st, te, a0, eta, lam, alpha)
    sim = simulate(st, te, a0, eta, lam, alpha, d=400, seeds=4, model="network", n_test=3000,
                   seed=5)
    m, s = float(sim.test_error[0]), float(sim.test_error_sem[0])
    assert agree(m, s, th.test_error, allowance=0.06), (m, s, th.test_error)


def test_train_error_matches_theory_tanh_tanh():
    st, te, a0, eta, lam, alpha = "tanh", "tanh", 0.5, 1, 0.01, 2.0
    th = solve(st, te, a0, eta, lam, alpha)
    sim = simulate(st, te, a0, eta, lam, alpha, d=400, seeds=4, model="srf", n_test=2000,
                   seed=3)
    assert agree(float(sim.train_error[0]), float(sim.train_error_sem[0]), th.train_error,
                 allowance=0.08)
    assert agree(float(sim.test_error[0]), float(sim.test_error_sem[0]), th.test_error)
