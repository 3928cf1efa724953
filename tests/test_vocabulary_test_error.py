"""The test error with a finite readout vocabulary (docs/theory.md (k.7)).

The K-group fixed point of :mod:`srfsym.theory.fixed_point_groups` is checked against the uniform
solver (K = 1 through the general path, {+1, -1} for odd students, one letter omega != 1,
identical groups), against the bounds of docs/theory.md (k.3) (lambda -> infinity gives
U_K; the test error never falls below L_K) and against an independent plain iteration of
its own equations.  The derivation and the random-matrix check of the block-Wishart prior
are in ``derivations/12_vocabulary_test_error.py``.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from srfsym.theory.bounds import bounds
from srfsym.theory.channels.kappa_quadrature import group_channel_data, transition_cuts
from srfsym.theory.fixed_point import (ConvergenceError, State, _anderson, learning_curve,
                                optimal_lambda, solve, solve_srf)
from srfsym.theory.fixed_point_groups import _GroupProblem, solve_srf_groups
from srfsym.step.mapping import srf_mapping
from srfsym.step.vocabulary import vocabulary

NODES = 108
_MAP = srf_mapping("tanh", "sin", 3.0, 20.0)          # alpha0 = 20, eta = 3 (docs/theory.md (k.6))
R, C, GAMMA = _MAP.spike_strength, _MAP.bulk_variance, _MAP.alignment


def _max_rel(u, g):
    """Largest relative difference (relative above 1 for order parameters) between a uniform
    result and a K = 1 group result: test/train error, all order parameters and hats."""
    out = max(abs(u.test_error - g.test_error) / u.test_error,
              abs(u.train_error - g.train_error) / u.train_error)
    for mine, theirs in ((u.order_parameters, g.order_parameters), (u.conjugates, g.conjugates)):
        for k, a in mine.items():
            b = float(np.ravel(theirs[k])[0])
            out = max(out, abs(a - b) / max(1.0, abs(a)))
    return out


K1_POINTS = [  # student, teacher, r, c, gamma, lambda, alpha, beta
    ("tanh", "sin", R, C, 1.0, 0.1, 1.3, 1.0),
    ("tanh", "sin", R, C, GAMMA, 1e-3, 0.4, 0.5),
    ("tanh", "sin", R, C, 0.8, 3.0, 4.0, 2.0),
    ("erf", "erf", 0.9, 1.2, 1.0, 0.05, 2.0, 1.0),
    ("erf", "erf", 0.9, 1.2, 0.7, 0.5, 0.7, 0.5),
    ("erf", "erf", 1.5, 1.05, 0.95, 0.01, 3.0, 2.0),
    ("sin", "tanh", 0.7, 1.3, 0.9, 0.2, 1.5, 1.0),
]


@pytest.mark.parametrize("point", K1_POINTS, ids=[f"{p[0]}-{p[1]}-beta{p[7]}-gamma{p[4]:.2g}"
                                                  for p in K1_POINTS])
def test_one_letter_through_the_general_path_is_the_uniform_solver(point):
    st, te, r, c, g, lam, alpha, beta = point
    u = solve_srf(st, te, r, c, g, lam, alpha, beta, nodes=NODES)
    k = solve_srf_groups(st, te, r, c, g, lam, alpha, beta, vocabulary=[1], nodes=NODES)
    assert k.method == "structured-groups" and k.state.V1.shape == (1, 1)
    assert _max_rel(u, k) < 1e-12


def test_uniform_vocabulary_keeps_todays_code_path():
    a = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.0, nodes=NODES)
    b = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.0, nodes=NODES, vocabulary=[1])
    assert b.method == "structured" and b.test_error == a.test_error and b.state == a.state


def test_single_letter_omega_is_the_uniform_model_at_the_group_parameters():
    # one letter omega = 2: spike 2 r, bulk variance 1 + 4 (c - 1) (docs/theory.md (k.1))
    k = solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.3, nodes=NODES, vocabulary=[2.0])
    u = solve_srf("tanh", "sin", 2 * R, 1 + 4 * (C - 1), 1.0, 0.1, 1.3, nodes=NODES)
    assert _max_rel(u, k) < 1e-12


@pytest.mark.parametrize("st, te, g, beta", [("tanh", "sin", GAMMA, 1.0), ("erf", "erf", 1.0, 2.0),
                                              ("tanh", "tanh", 0.8, 0.5)])
def test_symmetric_vocabulary_is_the_uniform_readout_for_odd_students(st, te, g, beta):
    u = solve_srf(st, te, R, C, g, 0.1, 1.3, beta, nodes=NODES)
    s = solve_srf(st, te, R, C, g, 0.1, 1.3, beta, nodes=NODES,
                  vocabulary=vocabulary([1, -1], [0.3, 0.7]))
    assert abs(s.test_error - u.test_error) < 1e-12 * u.test_error
    assert abs(s.train_error - u.train_error) < 1e-12 * u.train_error
    # minimum-norm mean coefficients: m_2 = -m_1, and the mean part b(kappa) is the uniform one
    assert abs(s.state.m[0] + s.state.m[1]) < 1e-12
    assert abs(s.state.m[0] - s.state.m[1] - u.state.m) < 1e-10


def test_identical_groups_split_the_uniform_readout():
    # r = 0, c = 1: every letter has the same coefficients, so {1, 2} is {1} split in two
    u = solve_srf("tanh", "sin", 0.0, 1.0, 0.0, 0.1, 1.3, nodes=NODES)
    s = solve_srf("tanh", "sin", 0.0, 1.0, 0.0, 0.1, 1.3, nodes=NODES,
                  vocabulary=vocabulary([1, 2], [0.4, 0.6]))
    assert abs(s.test_error - u.test_error) < 1e-12 * u.test_error
    assert np.allclose(s.state.V2, np.array([0.4, 0.6]) * u.state.V2, rtol=1e-12)
    assert abs(s.state.V1.sum() - u.state.V1) < 1e-12 * u.state.V1


@pytest.mark.parametrize("beta", [0.5, 2.0])
def test_without_spike_the_alignment_does_not_matter(beta):
    """r = 0: nothing distinguishes the spike direction, so the test error cannot depend on
    gamma.  At gamma = 1 the teacher is reached through theta (the signal traces
    ``(P_j W v)^T R (P_l W v)/p -> delta_jl c_j V2_j``), at gamma = 0 through psi
    (``(P_j W zeta)^T R (P_l W zeta)/p -> V1_jl``): two different parts of the K-group
    equations that must give the same number."""
    voc = vocabulary([1, 3, 0.5], [0.2, 0.3, 0.5])
    errs = [solve_srf("tanh", "sin", 0.0, 1.5, g, 0.1, 1.5, beta, nodes=64,
                      vocabulary=voc).test_error for g in (0.0, 0.6, 1.0)]
    assert max(errs) - min(errs) < 1e-13 * errs[0]


def test_vanishing_weight_of_a_letter():
    """{1, 2} with weights (1 - 1e-9, 1e-9).

    Without mean directions (r = 0) the second group only enters through its weight: the
    test error is the uniform one up to O(pi_2).  With a spike the variance part is still
    uniform to O(pi_2), but the second letter's mean direction stays unregularised however
    small its weight (its signal grows like p): the asymptotic test error is *not* the
    uniform one (docs/theory.md (k.3), (k.7)) and is continuous in pi_2 > 0."""
    tiny = vocabulary([1, 2], [1 - 1e-9, 1e-9])
    u = solve_srf("tanh", "sin", 0.0, 1.3, 1.0, 0.1, 1.3, nodes=NODES)
    s = solve_srf("tanh", "sin", 0.0, 1.3, 1.0, 0.1, 1.3, nodes=NODES, vocabulary=tiny)
    assert abs(s.test_error - u.test_error) < 1e-9 * u.test_error       # O(pi_2) = 1e-9 x 0.08
    assert abs(s.test_error - u.test_error) > 1e-12 * u.test_error      # ... and not zero
    u = solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.3, nodes=NODES)
    s = solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.3, nodes=NODES, vocabulary=tiny)
    assert abs(s.state.V1[0, 0] / u.state.V1 - 1) < 1e-8
    assert abs(s.state.V2[0] / u.state.V2 - 1) < 1e-8
    assert s.state.V2[1] < 1e-8 and abs(s.state.V1[1, 1]) < 1e-8
    assert s.test_error < u.test_error                 # the extra mean direction helps
    s6 = solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.3, nodes=NODES,
                   vocabulary=vocabulary([1, 2], [1 - 1e-6, 1e-6]))
    assert abs(s6.test_error - s.test_error) < 1e-5 * s.test_error


def test_nearly_coinciding_letters_keep_a_derivative_direction():
    """{1, 1 + e}: as e -> 0 the two unregularised mean directions span mu0 and the difference
    quotient (mu0^(2) - mu0^(1))/e -> d mu0/d omega, so the asymptotic test error tends to a
    limit (at rate e) *below* the uniform readout's, with m_1 = -m_2 ~ 1/e; the exact
    splitting {1, 1} (identical groups) is the uniform readout.  Like the vanishing weight,
    this is the p -> infinity-first order of limits of docs/theory.md (k.7)."""
    u = solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.3, nodes=NODES)
    res = [solve_srf("tanh", "sin", R, C, GAMMA, 0.1, 1.3, nodes=NODES,
                     vocabulary=vocabulary([1, 1 + e], [0.3, 0.7])) for e in (1e-3, 1e-4)]
    assert abs(res[0].test_error / res[1].test_error - 1) < 1e-3
    assert res[1].test_error < 0.8 * u.test_error
    assert abs(res[1].state.m[0]) > 1e3 and abs(res[1].state.m[0] + res[1].state.m[1]) < 1
    assert any("nearly linearly dependent" in n for n in res[1].notes)
    assert not res[0].notes


# the (k.7.7) table: tanh/sin, alpha0 = 20, eta = 3, gamma = 1, eps_g(lambda = 1e6)
UPPER_TABLE = {(1.0,): 0.0202587, (1.0, 2.0): 0.0089544, (1.0, 3.0): 0.0115271,
               (1.0, 2.0, 3.0): 0.0053077}


@pytest.mark.parametrize("letters", list(UPPER_TABLE), ids=str)
def test_large_lambda_gives_the_vocabulary_upper_bound(letters):
    b = bounds("tanh", "sin", R, C, 1.0, vocabulary=list(letters))
    res = solve_srf_groups("tanh", "sin", R, C, 1.0, 1e6, 0.5, vocabulary=list(letters))
    assert abs(res.test_error - b.upper) < 1e-6 * b.upper
    assert abs(res.test_error - UPPER_TABLE[letters]) < 1e-7


@pytest.mark.parametrize("letters, weights, gamma", [((1, 2), (0.7, 0.3), 1.0),
                                                     ((1, 3), (0.5, 0.5), 1.0),
                                                     ((1, 2, 3), (0.2, 0.3, 0.5), 1.0),
                                                     ((1, 2), (0.7, 0.3), 0.6),
                                                     ((1, -2), (0.5, 0.5), GAMMA)])
def test_test_error_stays_above_the_lower_bound(letters, weights, gamma):
    # at gamma < 1 the lower bound includes the z mu1^(j) directions (docs/theory.md (l.4))
    b = bounds("tanh", "sin", R, C, gamma, vocabulary=list(letters))
    voc = vocabulary(letters, weights)
    errs = [solve_srf("tanh", "sin", R, C, gamma, lam, alpha, beta, nodes=NODES,
                      vocabulary=voc).test_error
            for alpha in (0.5, 4.0) for lam in (1e-3, 0.1, 10.0) for beta in (0.5, 2.0)]
    assert min(errs) >= b.lower
    assert np.all(np.isfinite(errs))


def test_solver_against_a_plain_iteration_of_the_equations():
    """The structured solver (Newton + affine solves) against an Anderson iteration of the
    full sweep from an unrelated start, at beta != 1 and gamma < 1."""
    voc = vocabulary([1, 2], [0.6, 0.4])
    res = solve_srf("tanh", "sin", R, C, GAMMA, 0.3, 1.5, 2.0, nodes=NODES, vocabulary=voc)
    # the solver's own rule: at group spike 2R > 2 it is cut at the student's transitions
    cuts = transition_cuts("tanh", voc.group_spike_strengths(R), voc.group_bulk_variances(C))
    P = _GroupProblem(group_channel_data("tanh", "sin", R, C, GAMMA, voc, nodes=NODES,
                                         extra_cuts=cuts), 1.5, 0.3, 2.0)

    def pack(s):
        return np.concatenate([np.ravel(s.q1), s.q2, np.ravel(s.V1), s.V2, s.theta, s.psi, s.m])

    def unpack(x):
        return State(x[:4].reshape(2, 2), x[4:6], x[6:10].reshape(2, 2), x[10:12], x[12:14],
                     x[14:16], x[16:18])

    start = State(np.eye(2) * 0.1, np.full(2, 0.2), np.eye(2), np.ones(2), np.full(2, 0.5),
                  np.full(2, 0.5), np.ones(2))
    x, _, _ = _anderson(lambda v: pack(P.sweep(unpack(v))), pack(start), 1e-13, 5000)
    it = unpack(x)
    assert abs(P.errors(it)[0] - res.test_error) < 1e-10
    assert np.allclose(x, pack(res.state), rtol=1e-8, atol=1e-10)


def test_result_shapes_symmetry_and_json():
    res = solve("tanh", "sin", 20, 3, 0.1, 1.0, vocabulary=vocabulary([1, 2, 3]))
    s = res.state
    assert s.V1.shape == s.q1.shape == (3, 3) and s.m.shape == s.q2.shape == (3,)
    assert np.array_equal(s.V1, s.V1.T) and np.array_equal(s.q1, s.q1.T)
    assert np.all(np.linalg.eigvalsh(s.V1) > 0) and np.all(np.linalg.eigvalsh(s.q1) > 0)
    d = json.loads(json.dumps(res.to_dict()))
    assert d["vocabulary"] == {"letters": [1.0, 2.0, 3.0], "weights": [1 / 3] * 3}
    assert len(d["V1"]) == 3 and len(d["m"]) == 3 and isinstance(d["test_error"], float)
    assert d["group_spike_strength"] == pytest.approx([R, 2 * R, 3 * R], rel=1e-14)
    # the steep mu0 of the letter 3 (spike 3 r) needs the top of the node ladder; a node
    # error above 1e-11 is reported in the notes
    assert res.node_error < 1e-9 and res.residual < 1e-10
    assert res.node_error < 1e-11 or any("not converged" in n for n in res.notes)
    assert "q1 = [[" in str(res)


def test_learning_curve_and_optimal_lambda_take_a_vocabulary():
    voc = vocabulary([1, 2], [0.7, 0.3])
    lc = learning_curve("tanh", "sin", 20, 3, 0.1, [0.5, 2.0], vocabulary=voc, nodes=NODES)
    assert np.all(np.diff(lc.test_error) < 0)
    for a, r in zip((0.5, 2.0), lc.results):
        direct = solve("tanh", "sin", 20, 3, 0.1, a, vocabulary=voc, nodes=NODES)
        assert abs(r.test_error - direct.test_error) < 1e-12
    lam, best = optimal_lambda("tanh", "sin", 20, 3, 1.0, vocabulary=voc, nodes=NODES)
    for other in (0.5 * lam, 2 * lam):
        assert solve("tanh", "sin", 20, 3, other, 1.0, vocabulary=voc,
                     nodes=NODES).test_error >= best.test_error


def test_bad_input_is_refused_clearly():
    with pytest.raises(ValueError, match="not odd"):
        solve_srf("relu", "sin", R, C, 1.0, 0.1, 1.0, vocabulary=[1, 2])
    with pytest.raises(ValueError, match="deterministic spectrum"):
        solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.0, vocabulary=[1, 2], dps=30)
    with pytest.raises(ValueError, match="deterministic spectrum"):
        solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.0, vocabulary=[1, 2], spectrum="sample", d=50)
    with pytest.raises(ValueError, match="sum to 1"):
        solve_srf("tanh", "sin", R, C, 1.0, 0.1, 1.0, vocabulary=vocabulary([1, 2], [0.5, 0.6]))
    with pytest.raises(ValueError, match="lambda"):
        solve_srf("tanh", "sin", R, C, 1.0, -1.0, 1.0, vocabulary=[1, 2])
    with pytest.raises(ConvergenceError, match="resolvent diverges") as exc:
        solve_srf("x", "sin", R, C, 1.0, 0.0, 1.0, vocabulary=[1, 2])   # no mu_star, lambda = 0
    assert exc.value.residual == math.inf
    with pytest.raises(ValueError, match="no unique solution"):   # refused before any work
        solve_srf("tanh", "sin", R, C, 1.0, 0.0, 0.2, 1.0, nodes=48, vocabulary=[1, 2])
