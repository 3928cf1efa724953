"""The realised step bulk with a readout vocabulary (srfsym.theory.spectral.step_bulk_groups,
docs/theory.md (g.4)): K = 1 written as a vocabulary against the uniform step bulk, K = 2
against an independent dense computation of the same fixed point on the realised layer."""
import math

import numpy as np
import pytest

from srfsym.step.realised import seed_children, network_first_layer
from srfsym.theory.channels.kappa_quadrature import group_channel_data
from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.theory.spectral.step_bulk import StepBulkSpectrum, StepEigenData
from srfsym.theory.channels.square import GroupSquareLossChannel
from srfsym.theory.state import State
from srfsym.theory.spectral.step_bulk_groups import StepGroupBulk, StepGroupData, step_group_bulk

CASE = ("tanh", "sin", 2.0, 3.0)


def _layers(d, seed, vocabulary=None, case=CASE):
    ss = seed_children(np.random.SeedSequence(seed), 1)[0]
    return network_first_layer(*case, d, 1.0, seed=ss, workers=None, vocabulary=vocabulary)


@pytest.mark.parametrize("case", [CASE, ("relu", "sin", 2.0, 1.0)])
def test_one_letter_is_the_uniform_step_bulk(case):
    """K = 1 through the K-group engine on the dense realised sums = the uniform step bulk
    (eigen-data, plain means) to rounding, the cross sums of the spike and teacher directions
    included (docs/theory.md (g.4), (g.4.1)); for relu they do not vanish."""
    d = 300
    uni = solve(*case, 0.1, 1.0, bulk="step", d=d, seed=1, nodes=108)
    W0, W1 = _layers(d, 1, case=case)
    spec = StepGroupBulk(StepGroupData.from_layers(W0, W1, np.ones(d)))
    grp = solve_srf(case[0], case[1], 0.0, 1.0, 0.0, 0.1, 1.0, 1.0, spec, nodes=108)
    assert grp.method == "structured-groups" and grp.spectrum == "step"
    assert abs(grp.test_error / uni.test_error - 1) < 1e-10
    for name in ("V1", "V2", "q1", "q2", "theta", "psi", "m"):
        a = float(np.ravel(getattr(grp.state, name))[0])
        b = float(getattr(uni.state, name))
        assert abs(a - b) <= 1e-9 * max(1.0, abs(b)), name
    # the measured channel parameters are those of the uniform back end
    assert abs(spec.group_c[0] - uni.c) < 1e-12 and abs(spec.group_r[0] - uni.r) < 1e-12
    # the cross sums are in: the K = 1 prior's X is the uniform back end's <X/S>
    pr = spec.group_prior(0.1, 1.0).prior(np.array([[1.3]]), np.array([0.3]))
    x1 = StepBulkSpectrum(StepEigenData.from_layers(W0, W1)).cross_moments(0.4, 1.3)[0]
    assert abs(pr.X[0, 0] - x1) < 1e-12 * max(1.0, abs(x1)) and abs(x1) > 1e-3


def _dense_fixed_point(W0, W1, omega, lam, alpha, beta, nodes, case=CASE):
    """The K-group fixed point on a realised layer, written directly with p x p matrices
    (projectors, explicit N Qhat N, damped iteration); shares only the channel with srfsym."""
    p, d = W1.shape
    update = omega @ (W1 - W0)
    vhat = update / np.linalg.norm(update)
    gamma = vhat[0]
    zeta = np.eye(1, d)[0] - gamma * vhat
    zeta *= math.sqrt(d) / np.linalg.norm(zeta)
    letters = sorted(set(omega.tolist()), key=omega.tolist().index)
    along = W1 @ vhat
    r = [along[omega == w].mean() for w in letters]
    Wpi = W1 - np.outer(along, vhat)
    c = [np.mean(np.sum(Wpi[omega == w] ** 2, axis=1)) for w in letters]
    Wv = math.sqrt(d) * (along - np.select([omega == w for w in letters], r))
    Wz = W1 @ zeta
    Om = Wpi @ Wpi.T
    K = len(letters)
    gch = group_channel_data(case[0], case[1], 1.0, 1.0, gamma, letters, nodes=nodes,
                             group_values=(r, c))
    ch = GroupSquareLossChannel(gch, alpha, beta)

    idx = [np.flatnonzero(omega == w) for w in letters]
    g = np.concatenate([np.full(len(i), j) for j, i in enumerate(idx)])
    order = np.concatenate(idx)                      # the groups as consecutive blocks
    Om, Wv, Wz = Om[np.ix_(order, order)], Wv[order], Wz[order]
    blk = [slice(int(np.sum(g < j)), int(np.sum(g <= j))) for j in range(K)]

    def prior(hat, m):
        M = hat.V1hat[np.ix_(g, g)] * Om + np.diag(lam + hat.V2hat[g])
        N = np.linalg.inv(M)
        st = hat.thetahat[g] * Wv
        sp = hat.psihat[g] * Wz
        Qhat = hat.q1hat[np.ix_(g, g)] * Om + np.diag(hat.q2hat[g])
        y = N @ (st + sp)                            # the cross sums: st and sp together
        C = N @ Qhat @ N + np.outer(y, y)

        def tr(A, a, b, B):                          # (1/p) tr(P_a A P_b B)
            return float(np.trace(A[blk[a], blk[b]] @ B[blk[b], blk[a]])) / p

        eye = np.eye(p)
        return State(
            q1=np.array([[tr(Om, a, b, C) for b in range(K)] for a in range(K)]),
            q2=np.array([tr(eye, a, a, C) for a in range(K)]),
            V1=np.array([[tr(Om, a, b, N) for b in range(K)] for a in range(K)]),
            V2=np.array([tr(eye, a, a, N) for a in range(K)]),
            theta=math.sqrt(beta) * np.array([Wv[blk[a]] @ y[blk[a]] for a in range(K)]) / p,
            psi=math.sqrt(beta) * np.array([Wz[blk[a]] @ y[blk[a]] for a in range(K)]) / p,
            m=m)

    s = State(0.1 * np.eye(K), 0.1 * np.ones(K), np.eye(K), np.ones(K), np.zeros(K),
              np.zeros(K), np.zeros(K))
    for _ in range(3000):
        step = ch.conjugates(s)
        new = prior(step.hats, step.m)
        change = max(float(np.max(np.abs(np.asarray(a) - np.asarray(b)))) for a, b in zip(new, s))
        s = State(*(0.5 * np.asarray(a) + 0.5 * np.asarray(b) for a, b in zip(new, s)))
        if change < 1e-13:
            break
    else:
        raise AssertionError(f"the dense iteration did not converge ({change:.1e})")
    return ch.observables(s)["test_error"], s


def _against_dense(case, voc, lam, alpha, d=120, nodes=72):
    """The K-group solve on a realised layer (simulate's layout of the letters) against the
    direct dense computation of the same layer: test error to 1e-9, every state to 1e-8."""
    W0, W1 = _layers(d, 2, voc, case)
    omega = np.repeat(voc, d // 2)           # simulate's layout (group_sizes)
    ref, state = _dense_fixed_point(W0, W1, omega, lam, alpha, 1.0, nodes, case)
    spec = StepGroupBulk(StepGroupData.from_layers(W0, W1, omega))
    res = solve_srf(case[0], case[1], 0.0, 1.0, 0.0, lam, alpha, 1.0, spec, vocabulary=voc,
                    nodes=nodes)
    assert abs(res.test_error / ref - 1) < 1e-9
    for name in ("V1", "V2", "q1", "q2", "theta", "psi", "m"):
        assert np.allclose(getattr(res.state, name), getattr(state, name), rtol=1e-8,
                           atol=1e-10), name
    return res, spec


def test_two_letters_match_a_direct_dense_computation():
    voc, nodes = [1.0, 2.0], 72
    res, _ = _against_dense(CASE, voc, 0.1, 1.0, nodes=nodes)
    # the realised layer moves the error away from the block-Wishart (isotropic) value
    iso = solve(*CASE, 0.1, 1.0, vocabulary=voc, nodes=nodes)
    assert abs(res.test_error / iso.test_error - 1) > 1e-3


def test_a_non_odd_student_with_opposite_letters():
    """relu with {+1, -1} on the realised layer: every letter's (r_j, c_j) is measured, no group
    formula of (k.1) is used, so the non-odd student is allowed on bulk='step' (docs/theory.md
    (g.4.1)); the K-group solve with its cross sums equals the direct dense computation."""
    voc = [1.0, -1.0]
    _, spec = _against_dense(("relu", "sin", 2.0, 1.0), voc, 0.05, 2.0)
    # the cross sums are not zero here, and the groups' spikes have opposite signs
    pr = spec.group_prior(0.05, 1.0).prior(np.eye(2), np.zeros(2))
    assert np.max(np.abs(pr.X)) > 1e-3 and spec.group_r[0] * spec.group_r[1] < 0
    # the isotropic and exact bulks still need an odd student (group formulas of (k.1))
    with pytest.raises(ValueError, match="odd student"):
        solve("relu", "sin", 2.0, 1.0, 0.05, 2.0, vocabulary=voc)


def test_the_vocabulary_step_is_the_simulated_one():
    """bulk='step' with a vocabulary draws the first layer of simulate(vocabulary=, seed=s), and
    the simulation reports the very (r_j, c_j, gamma) the back end measures on it (one
    definition, docs/theory.md (g.4.1)): equal to the last bit, while the seed-to-seed spread is
    above 1 %."""
    from srfsym.simulation.simulate import simulate
    d, voc = 120, [1.0, 2.0]
    sims = [simulate(*CASE, 0.1, [1.0], d=d, seeds=1, seed=s, vocabulary=voc, n_test=200)
            for s in (3, 4)]
    specs = [step_group_bulk(*CASE, d, 1.0, s, voc) for s in (3, 4)]
    for sim, spec in zip(sims, specs):
        assert np.ravel(sim.c_emp_groups).tolist() == list(spec.group_c)
        assert np.ravel(sim.r_emp_groups).tolist() == list(spec.group_r)
        assert sim.gamma_emp.tolist() == [abs(spec.gamma)]
    spread = abs(specs[0].group_c[1] - specs[1].group_c[1]) / specs[0].group_c[1]
    assert spread > 1e-2


@pytest.mark.parametrize("case, voc", [(("relu", "sin", 2.0, 1.0), [1.0, -1.0]),
                                       (CASE, [1.0, 2.0])])
def test_letters_measured_once_and_as_defined(case, voc):
    """On one realised layer the simulation's per-letter parameters and the step bulk's are the
    same numbers, and they are the definition of docs/theory.md (g.4.1) computed here row by row:
    vhat the direction of sum_k omega_k (w1_k - w0_k), r_j the group mean of <w1_k, vhat> (not of
    the update's <w1_k - w0_k, vhat>: that differs here by more than 1e-3), c_j the group mean
    of |w1_k - <w1_k, vhat> vhat|^2, gamma = <vhat, e1>."""
    from srfsym.simulation.result import empirical_group_parameters
    from srfsym.step.vocabulary import vocabulary
    d = 100
    v = vocabulary(voc)
    W0, W1 = _layers(d, 0, v, case=case)
    om = v.neuron_letters(W1.shape[0])
    sim = empirical_group_parameters(W0, W1, om)
    data = StepGroupData.from_layers(W0, W1, om)
    assert sim["letters"] == list(data.letters) == voc
    assert sim["r"] == list(data.group_r) and sim["c"] == list(data.group_c)
    assert sim["gamma"] == abs(data.gamma)
    # the definition, row by row in exact-rounding sums
    u = [math.fsum(w * (a - b) for w, a, b in zip(om, W1[:, i], W0[:, i])) for i in range(d)]
    norm = math.sqrt(math.fsum(x * x for x in u))
    vhat = [x / norm for x in u]
    for j, letter in enumerate(voc):
        rows = [k for k in range(len(om)) if om[k] == letter]
        along = [math.fsum(a * b for a, b in zip(W1[k], vhat)) for k in rows]
        r = math.fsum(along) / len(rows)
        c = math.fsum(math.fsum((a - t * b) ** 2 for a, b in zip(W1[k], vhat))
                      for k, t in zip(rows, along)) / len(rows)
        update = math.fsum(math.fsum((a - b) * e for a, b, e in zip(W1[k], W0[k], vhat))
                           for k in rows) / len(rows)
        assert abs(sim["r"][j] - r) < 1e-12 and abs(sim["c"][j] - c) < 1e-12, letter
        assert abs(update - r) > 1e-3, letter       # the other definition is told apart
    assert abs(data.gamma - vhat[0]) < 1e-12
    assert np.allclose(sim["vhat"], vhat, atol=1e-13)
