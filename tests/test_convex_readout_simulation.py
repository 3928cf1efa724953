"""Logistic readout on the simulated sRF model against the convex-loss theory
(docs/theory.md (m)); the fuller comparison (hinge, label noise, more seeds) is
benchmarks/convex_simulation_study.py."""
import math

import numpy as np
import pytest

import srfsym
from srfsym.simulation.convex_readout import fit_convex_readout
from srfsym.simulation.simulate import simulate_convex
from srfsym.step.mapping import srf_mapping


def test_logistic_readout_simulation_matches_theory_at_d_1000():
    m = srf_mapping("tanh", "sign", 2, 2)
    th = srfsym.solve("tanh", "sign", 2, 2, 0.05, 2.0, loss="logistic")
    sim = simulate_convex("tanh", "sign", m.r, m.c, m.gamma, 0.05, 2.0, 1000, loss="logistic",
                          seeds=2, n_test=5000)
    for row in sim["rows"]:
        assert row["gradient"] < 1e-6
    # binomial error of 2 x 5000 test points (0.004) and seed-to-seed spread at d = 1000
    assert abs(sim["classification_error"] - th.classification_error) < 0.015
    assert abs(sim["train_loss"] - th.train_loss) < 0.02
    assert abs(sim["q2"] / th.state.q2 - 1) < 0.06        # lambda off by 2 moves q2 by 2x
    assert abs(sim["m"] / th.state.m - 1) < 0.08


def test_hinge_dual_solves_the_primal():
    """Duality gap of the box-constrained dual, and the primal optimality of its a."""
    rng = np.random.default_rng(1)
    Phi = rng.normal(size=(200, 30))
    y = np.sign(Phi[:, 0] + 0.5 * rng.normal(size=200))
    a, b, info = fit_convex_readout(Phi, y, "hinge", 0.1)
    assert info["duality_gap_per_sample"] < 1e-6
    P = lambda v: np.maximum(0, 1 - y * (Phi @ v) / math.sqrt(30)).sum() + 0.1 * v @ v  # noqa
    for _ in range(20):
        assert P(a + 1e-3 * rng.normal(size=30)) >= P(a) - 1e-9


def test_bad_input():
    Phi = np.ones((10, 3))
    with pytest.raises(ValueError, match="\\+-1"):
        fit_convex_readout(Phi, np.linspace(-1, 1, 10), "logistic", 0.1)
    with pytest.raises(ValueError, match="bias"):
        fit_convex_readout(Phi, np.ones(10), "hinge", 0.1, bias=True)
