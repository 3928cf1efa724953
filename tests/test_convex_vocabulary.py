"""A convex readout loss with a readout vocabulary (docs/theory.md (m.8)): the K-group channel
of the engine (:mod:`srfsym.theory.convex_groups`) against the ridge's K-group fixed point,
the uniform convex solve, the symmetric vocabulary and the network."""
import math

import numpy as np
import pytest

from srfsym.theory.convex_fixed_point import solve_convex_srf
from srfsym.theory.convex_groups import solve_convex_groups
from srfsym.theory.fixed_point import solve_srf
from srfsym.theory.fixed_point_groups import solve_srf_groups
from srfsym.theory.state import State


def _max_rel(a, b):
    """Largest relative (absolute below 1) difference over the order parameters and hats."""
    out = 0.0
    for x, y in zip(list(a.state) + list(a.hats), list(b.state) + list(b.hats)):
        x, y = np.asarray(x, float), np.asarray(y, float)
        assert x.shape == y.shape
        out = max(out, float(np.max(np.abs(x - y) / np.maximum(1.0, np.abs(y)))))
    return out


def _cold(K):
    """A start far from the fixed point (the reference's starting point on the diagonal), so
    that the iteration itself is tested, not one sweep at the ridge's answer."""
    return State(0.1 * np.eye(K), np.full(K, 0.2), 3 * np.eye(K), np.full(K, 3.0),
                 np.full(K, 0.5), np.full(K, 0.1), np.zeros(K))


@pytest.mark.parametrize("teacher, voc, beta, lam, alpha", [
    ("sign", [1, 2], 1.0, 0.05, 2.0),       # labels +-1: the u-integral with the label law
    ("sin", [1, 2], 0.5, 0.1, 1.5),         # real labels: the (z, xi) quadrature
    ("tanh", [1, -0.5, 2], 2.0, 0.1, 3.0),  # K = 3, beta = 2
])
def test_square_loss_through_the_generic_channel_is_the_ridge_k_group_fixed_point(
        teacher, voc, beta, lam, alpha):
    """The proximal-step channel (quadrature, square loss) with K groups, iterated from a cold
    start, equals GroupSquareLossChannel's structured solve to 1e-9 in every order parameter,
    conjugate and error (the same kappa rule)."""
    K = len(voc)
    gen = solve_convex_groups("tanh", teacher, 1.0, 1.1, 0.8, lam, alpha, beta, loss="square",
                              vocabulary=voc, nodes=60, channel="quadrature", tol=1e-12,
                              start=_cold(K))
    ridge = solve_srf_groups("tanh", teacher, 1.0, 1.1, 0.8, lam, alpha, beta, vocabulary=voc,
                             nodes=60, tol=1e-12)
    assert gen.channel == "quadrature" and gen.iterations > 5
    assert gen.state.V1.shape == (K, K)
    assert _max_rel(gen, ridge) < 1e-9
    assert abs(gen.test_error - ridge.test_error) < 1e-9
    assert abs(gen.train_error - ridge.train_error) < 1e-9


@pytest.mark.parametrize("loss, extra", [
    ("logistic", {}),
    ("hinge", {}),
    ("logistic", {"noise": 0.25, "bias": True, "threshold": 0.5}),
])
def test_one_letter_vocabulary_is_the_uniform_convex_solve(loss, extra):
    """K = 1 written as a vocabulary (the K-group channel, block-Wishart prior, packed
    iteration) equals the uniform convex solve to 1e-10."""
    kw = dict(loss=loss, nodes=60, nodes_u=12, tol=1e-12, **extra)
    g = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, 0.5, vocabulary=[1], **kw)
    u = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, 0.5, **kw)
    for a, b in zip(g.state, u.state):
        assert abs(float(np.ravel(a)[0]) - b) < 1e-10 * max(1.0, abs(b))
    for key in ("classification_error", "train_loss", "test_error", "train_error",
                "train_classification_error"):
        assert abs(getattr(g, key) - getattr(u, key)) < 1e-10, key
    if extra.get("bias"):
        assert abs(g.bias - u.bias) < 1e-10 and abs(u.bias) > 0.1


@pytest.mark.parametrize("loss", ["logistic", "hinge"])
def test_symmetric_vocabulary_of_an_odd_student_is_the_uniform_readout(loss):
    """{+1, -1} with an odd student is the uniform readout (docs/theory.md (k.7.7)): a genuine
    K = 2 fixed point (mu0, mu1 of the letters differ) that must reproduce K = 1."""
    kw = dict(loss=loss, nodes=60, nodes_u=12, tol=1e-12)
    g = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, vocabulary=[1, -1], **kw)
    u = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, **kw)
    for key in ("classification_error", "train_loss", "test_error", "train_error"):
        assert abs(getattr(g, key) - getattr(u, key)) < 1e-9, key
    assert abs(float(np.sum(g.state.q2)) - u.state.q2) < 1e-9
    # the two letters' mean functions are opposite: the minimum-norm m splits m equally
    assert abs(g.state.m[0] + g.state.m[1]) < 1e-9
    assert abs(g.state.m[0] - g.state.m[1] - u.state.m) < 1e-8


def test_solve_srf_dispatches_a_vocabulary_with_a_convex_loss():
    res = solve_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
                    vocabulary=[1, 2], nodes=60)
    direct = solve_convex_groups("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
                                 vocabulary=[1, 2], nodes=60)
    assert res.state.V1.shape == (2, 2)
    assert abs(res.classification_error - direct.classification_error) < 1e-12
    with pytest.raises(ValueError, match="deterministic spectrum"):
        solve_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, 1.0, "sample", loss="logistic",
                  vocabulary=[1, 2], d=100)
    with pytest.raises(ValueError, match="odd|mu0"):
        solve_convex_groups("relu", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
                            vocabulary=[1, 2], nodes=60)


def test_logistic_vocabulary_against_the_network():
    """Logistic readout, letters {1, 2}, tanh student after one step (eta 2, alpha0 4), sign
    labels, d = 1000, 2 seeds: the test classification error within 3.5 standard errors
    (floored at the test sets' binomial error), the readout norm q2 within 3.5 s.e. (floored
    at 2 % of the value).  The study with more seeds, alphas and the per-letter m_j, q2_j:
    ``python benchmarks/convex_vocabulary_study.py``."""
    import warnings

    import srfsym
    from srfsym.simulation.simulate import simulate
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        th = srfsym.solve("tanh", "sign", 4.0, 2.0, 0.05, 2.0, loss="logistic",
                          vocabulary=[1, 2])
    n_test = 10000
    sim = simulate("tanh", "sign", 4.0, 2.0, 0.05, [2.0], d=1000, seeds=2, n_test=n_test,
                   loss="logistic", vocabulary=[1, 2], workers=1)
    ce = th.classification_error
    se = max(float(sim.classification_error_sem[0]), math.sqrt(ce * (1 - ce) / (2 * n_test)))
    assert abs(sim.classification_error[0] - ce) < 3.5 * se
    q2 = float(np.sum(th.state.q2))
    se = max(float(sim.q2_sem[0]), 0.02 * q2)
    assert abs(sim.q2[0] - q2) < 3.5 * se
    groups = np.array(sim.convex_per_seed["q2_groups"])       # (seeds, alphas, letters)
    assert groups.shape == (2, 1, 2)
    assert np.allclose(groups.sum(axis=2), np.array(sim.convex_per_seed["q2"]), rtol=1e-12)


def test_group_conjugates_are_the_gradient_of_the_channel_potential():
    """The K-group conjugates are the derivatives of Psi = E_kappa E M_V(y, omega) with respect
    to the group order parameters (docs/theory.md (m.8)): central differences of the
    potential (the Moreau envelope evaluated by the channel's own quadrature) along every
    entry of Q1, V1 (symmetric directions), q2, V2, theta, psi (logistic, K = 2, labels +-1
    with probit noise)."""
    from srfsym.theory.channels.kappa_quadrature import group_channel_data
    from srfsym.theory.channels.convex_groups import GroupConvexChannel
    g = group_channel_data("tanh", "sign", 1.0, 1.1, 0.8, [1, 2], nodes=60)
    alpha, beta = 2.0, 0.5
    C = GroupConvexChannel(g, "logistic", alpha=alpha, beta=beta, teacher="sign", noise=0.2)
    s0 = State(np.array([[0.9, 0.2], [0.2, 0.7]]), np.array([0.4, 0.3]),
               np.array([[1.1, -0.3], [-0.3, 1.4]]), np.array([0.8, 0.6]),
               np.array([0.3, -0.1]), np.array([0.25, 0.15]), np.array([0.5, -0.2]))

    def psi_pot(s):
        return float(C.w @ C.moments(C.point(*s), observables=True)["moreau"])

    hat = C.hats(C.moments(C.point(*s0)), s0.psi)
    h = 1e-5

    def d(field, E):
        plus = s0._replace(**{field: getattr(s0, field) + h * E})
        minus = s0._replace(**{field: getattr(s0, field) - h * E})
        return (psi_pot(plus) - psi_pot(minus)) / (2 * h)

    a_b, a_sb = alpha / beta, alpha / math.sqrt(beta)
    for j, l in ((0, 0), (1, 1), (0, 1)):
        E = np.zeros((2, 2))
        E[j, l] = E[l, j] = 1.0
        k = 2.0 if j == l else 1.0          # d/dt Psi(X + tE) counts an off-diagonal entry twice
        assert abs(hat.V1hat[j, l] - k * a_b * d("q1", E)) < 1e-8
        assert abs(hat.q1hat[j, l] + k * a_b * d("V1", E)) < 1e-8
    for j in range(2):
        e = np.eye(2)[j]
        assert abs(hat.V2hat[j] - 2 * a_b * d("q2", e)) < 1e-8
        assert abs(hat.q2hat[j] + 2 * a_b * d("V2", e)) < 1e-8
        assert abs(hat.thetahat[j] + a_sb * d("theta", e)) < 1e-8
        assert abs(hat.psihat[j] + a_sb * d("psi", e)) < 1e-8


def test_square_loss_on_the_realised_step_bulk_with_letters_is_the_ridge():
    """With ``spectrum=`` a realised layer split by letter (bulk 'step', docs/theory.md (g.4.1))
    the generic channel (square loss, quadrature) equals the ridge's K-group solve on the same
    realised prior to 1e-9, and ``solve(..., loss=, vocabulary=, bulk='step')`` runs it."""
    import warnings

    import srfsym
    from srfsym.theory.spectral.step_bulk_groups import step_group_bulk
    spec = step_group_bulk("tanh", "sign", 4.0, 2.0, 120, 1.0, 0, [1, 2])
    gen = solve_convex_groups("tanh", "sign", spec.r, spec.c, spec.gamma, 0.05, 2.0,
                              loss="square", vocabulary=[1, 2], nodes=60, channel="quadrature",
                              tol=1e-12, start=_cold(2), spectrum=spec)
    ridge = solve_srf_groups("tanh", "sign", spec.r, spec.c, spec.gamma, 0.05, 2.0,
                             vocabulary=[1, 2], nodes=60, tol=1e-12, spectrum=spec)
    assert gen.spectrum == "step" and _max_rel(gen, ridge) < 1e-9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = srfsym.solve("tanh", "sign", 4.0, 2.0, 0.05, 2.0, loss="logistic",
                           vocabulary=[1, 2], bulk="step", d=120, seed=0)
    assert res.spectrum == "step" and res.state.V1.shape == (2, 2)
