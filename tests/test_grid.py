"""solve_grid: every entry against the single-point solve, failures reported, bad input."""
import math

import numpy as np
import pytest

from srfsym.theory.fixed_point import ConvergenceError, solve
from srfsym.theory.grid import solve_grid
from srfsym.theory.spectrum import MarchenkoPastur


@pytest.mark.parametrize("case", [("tanh", "sin", 20, 3, 1.5),     # smooth teacher, beta > 1
                                  ("tanh", "relu", 2, 1.5, 0.5)],  # kinked teacher, beta < 1
                         ids=["tanh-sin-beta1.5", "tanh-relu-beta0.5"])
def test_every_entry_equals_single_point_solve(case):
    st, te, alpha0, eta, beta = case
    alphas, lams = [0.3, 1.2, 3.0], [1e-3, 0.05, 0.5]
    g = solve_grid(st, te, alpha0, eta, alphas, lams, beta=beta)
    assert g.test_error.shape == g.q1.shape == g.residual.shape == (3, 3)
    checked = 0
    for i, a in enumerate(alphas):
        for j, lam in enumerate(lams):
            try:
                ref = solve(st, te, alpha0, eta, lam, a, beta=beta, nodes=g.nodes)
            except ConvergenceError:
                assert not g.converged[i, j] and math.isnan(g.test_error[i, j])
                continue
            assert g.converged[i, j] and g.residual[i, j] < 1e-10
            assert abs(g.test_error[i, j] - ref.test_error) < 1e-10
            assert abs(g.train_error[i, j] - ref.train_error) < 1e-10
            for name, x in ref.state._asdict().items():
                assert abs(getattr(g, name)[i, j] - x) < 1e-10 * max(1, abs(x)), name
            checked += 1
    assert checked == 9
    # with its automatic node choice the single solve agrees too (node error < 1e-11)
    auto = solve(st, te, alpha0, eta, lams[1], alphas[1], beta=beta)
    assert abs(g.test_error[1, 1] - auto.test_error) < 1e-10


def test_result_travels_between_processes():
    import pickle
    g = solve_grid("tanh", "sin", 20, 3, [1.0, 2.0], [0.1], nodes=48)
    h = pickle.loads(pickle.dumps(g))
    assert h.q1.tolist() == g.q1.tolist() and h.test_error.tolist() == g.test_error.tolist()
    assert h.mapping is None and g.mapping is not None


def test_answer_does_not_depend_on_blocks():
    kw = dict(alphas=np.linspace(0.2, 3, 7), lams=[1e-3, 0.1, 1.0], nodes=48)
    a = solve_grid("tanh", "sin", 20, 3, chunk=48, **kw)      # one point per block
    b = solve_grid("tanh", "sin", 20, 3, **kw)
    assert np.max(np.abs(a.test_error - b.test_error)) < 1e-13


def test_failed_points_are_reported_not_silent():
    # lambda = 0 at alpha < beta: V ~ 1/lambda, no finite fixed point (at alpha > beta the
    # ridgeless limit exists); max_iter keeps the single-point fallback short
    with pytest.warns(RuntimeWarning, match=r"1 grid point\(s\) not converged: \(alpha=0.5, "
                                            r"lambda=0: last residual"):
        g = solve_grid("tanh", "sin", 20, 3, [2.0, 0.5], [0.0, 0.1], nodes=48, max_iter=50)
    assert g.converged.tolist() == [[True, True], [False, True]]
    assert math.isnan(g.test_error[1, 0]) and math.isnan(g.q1[1, 0])
    assert g.residual[1, 0] > 1e-3
    assert g.method[1, 0] == "failed" and g.failures[0]["alpha"] == 0.5
    assert "not converged: alpha = 0.5, lambda = 0" in str(g)
    ridgeless = solve("tanh", "sin", 20, 3, 0.0, 2.0, nodes=48)
    assert abs(g.test_error[0, 0] - ridgeless.test_error) < 1e-10
    with pytest.raises(ConvergenceError, match="alpha=0.5, lambda=0"):
        solve_grid("tanh", "sin", 20, 3, [0.5], [0.0], nodes=48, max_iter=50,
                   on_failure="raise")


def test_optimal_lambda_along_the_grid():
    lams = np.geomspace(1e-3, 10, 13)
    g = solve_grid("tanh", "sin", 20, 3, [0.5, 2.0], lams, nodes=72)
    lam_opt, err = g.optimal_lambda()
    for i in range(2):
        j = int(np.argmin(g.test_error[i]))
        assert lam_opt[i] == lams[j] and err[i] == g.test_error[i, j]
        # the grid minimum is a minimum of the single-point solve too
        assert solve("tanh", "sin", 20, 3, lams[j], g.alphas[i], nodes=72).test_error <= min(
            solve("tanh", "sin", 20, 3, lams[k], g.alphas[i], nodes=72).test_error
            for k in (max(j - 1, 0), min(j + 1, 12)))


def test_sampled_moments_array_equals_scalar_moments():
    from srfsym.theory.spectrum import SampledSpectrum
    rng = np.random.default_rng(1)
    for beta in (0.5, 2.0):
        s = SampledSpectrum(70, beta=beta, c=1.3, seed=3)
        lam, v1 = 10 ** rng.uniform(-1, 1, 20), np.r_[0.0, 10 ** rng.uniform(-1, 1, 19)]
        arr = s.moments_array(lam, v1)
        for k in range(20):   # (beyond this range of Vhat_1 c / lambda' the F sums cancel)
            for x, y in zip(arr, s.moments(lam[k], v1[k])):
                assert abs(x[k] - y) <= 1e-11 * abs(y)


def test_moments_array_equals_scalar_moments_in_every_regime():
    rng = np.random.default_rng(0)
    for beta in (0.3, 1.0, 2.5):
        mp = MarchenkoPastur(beta=beta, c=1.7)
        lam = 10 ** rng.uniform(-4, 2, 40)
        v1 = np.concatenate([[0.0], 10 ** rng.uniform(-3, 4, 39)])
        arr = mp.moments_array(lam, v1)
        for k in range(40):
            ref = mp.moments(lam[k], v1[k])
            for x, y in zip(arr, ref):
                assert abs(x[k] - y) <= 1e-14 * abs(y)
    bad = MarchenkoPastur(beta=1.0).moments_array(np.array([0.0, -1.0, 1.0]),
                                                  np.array([1.0, 1.0, np.inf]))
    assert np.all(np.isnan(bad.inv))


@pytest.mark.parametrize("kwargs, message", [
    (dict(alphas=[], lams=[0.1]), "alphas must contain at least one value"),
    (dict(alphas=[1.0], lams=[-0.1]), "lams must be finite and >= 0"),
    (dict(alphas=[0.0, 1.0], lams=[0.1]), "alphas must be finite and > 0"),
    (dict(alphas=[1.0, float("nan")], lams=[0.1]), "alphas must be finite"),
    (dict(alphas=[[1.0, 2.0]], lams=[0.1]), "alphas must be a 1-d list"),
    (dict(alphas="1.0", lams=[0.1]), "alphas must be a 1-d list"),
    (dict(alphas=[1.0], lams=["small"]), "lams must be a 1-d list"),
    (dict(alphas=[1.0], lams=[0.1], beta=-1), "beta = p/d must be > 0"),
    (dict(alphas=[1.0], lams=[0.1], on_failure="ignore"), "on_failure must be"),
    (dict(alphas=[1.0], lams=[0.1], chunk=0), "chunk must be a positive integer"),
])
def test_bad_input(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solve_grid("tanh", "sin", 20, 3, **kwargs)


def test_sampled_spectrum_grid_equals_single_point_solve():
    alphas, lams = [0.5, 2.0], [0.01, 0.3]
    g = solve_grid("tanh", "sin", 20, 3, alphas, lams, beta=1.5, spectrum="sample", d=60,
                   seed=4)
    assert g.spectrum == "sample (d = 60, seed = 4)" and g.converged.all()
    for i, a in enumerate(alphas):
        for j, lam in enumerate(lams):
            ref = solve("tanh", "sin", 20, 3, lam, a, beta=1.5, spectrum="sample", d=60, seed=4,
                        nodes=g.nodes)
            assert abs(g.test_error[i, j] - ref.test_error) < 1e-10
            for name, x in ref.state._asdict().items():
                assert abs(getattr(g, name)[i, j] - x) < 1e-10 * max(1, abs(x)), name
    mp = solve_grid("tanh", "sin", 20, 3, alphas, lams, beta=1.5, nodes=g.nodes)
    assert np.max(np.abs(mp.test_error - g.test_error)) > 1e-4   # a finite sample differs
    with pytest.raises(ValueError, match="needs the dimension d"):
        solve_grid("tanh", "sin", 20, 3, alphas, lams, spectrum="sample")
