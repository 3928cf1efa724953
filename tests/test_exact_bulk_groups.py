"""The exact law of the step's bulk with a readout vocabulary (docs/theory.md (g.5.2);
srfsym.theory.spectral.exact_bulk_batch, srfsym.theory.spectral.exact_bulk_groups): the contour
rules against closed-form moments, K = 1 against the uniform exact back end, a small step
against the block-Wishart prior, {1, -1} against the uniform readout, the derivatives against
finite differences, and the sums against realised first layers."""

import numpy as np
import pytest
from cli_run import run_cli

from srfsym.theory.state import Hats
from srfsym.theory.convex_groups import solve_convex_groups
from srfsym.theory.fixed_point import solve
from srfsym.theory.fixed_point_groups import solve_srf_groups
from srfsym.theory.spectral.block_wishart import BlockWishartPrior
from srfsym.theory.spectral.exact_bulk import ExactBulk
from srfsym.theory.spectral.exact_bulk_batch import batch_alignment, batch_contour, batch_forms
from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk
from srfsym.theory.spectral.exact_bulk_moments import residual_law
from srfsym.theory.spectral.step_bulk_groups import RealisedGroupPrior, step_group_data

CASE = ("tanh", "sin", 2.0, 3.0)
V1HAT, V2HAT = np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.2, 0.3])


@pytest.mark.parametrize("alpha0", [0.5, 2.0])
def test_contour_rules_integrate_the_batch_law(alpha0):
    """The rules' moments against free-probability and Wick closed forms, and a resolvent
    squared along vhat against the derivative of the forms."""
    e, w, xi = residual_law("sin", 0.0, 64)
    rule = batch_contour(e, w, xi, alpha0, pole=0.3)
    z = rule.z
    E2, E4 = w @ e**2, w @ e**4
    assert rule.error < 1e-13
    assert abs(rule.plain.sum() - 1) < 1e-13
    assert abs(rule.plain @ z - E2) < 1e-13
    assert abs(rule.plain @ z**2 - (E4 / alpha0 + E2**2)) < 1e-12      # kappa_2 = E e^4 / alpha0
    s1, s2, _ = batch_alignment(e, w, xi, alpha0)
    wick = (E4 / alpha0**2 + E2**2 / alpha0 + s1**2 * (w @ (e**2 * xi**2))
            + 2 * s1 * (w @ (e**3 * xi)) / alpha0) / s2                  # vhat^T S2 vhat
    assert abs(rule.vv @ z - wick) < 1e-12
    assert abs(rule.vv.sum() - 1) < 1e-13 and abs(rule.zz.sum() - 1) < 1e-13
    assert abs(rule.vz.sum()) < 1e-13
    tau, h = 0.7, 1e-4
    fd = -(batch_forms(np.array([tau + h]), e, w, xi, alpha0).qvv
           - batch_forms(np.array([tau - h]), e, w, xi, alpha0).qvv)[0] / (2 * h)
    assert abs((rule.vv @ (1 / (z + tau)**2)) / fd - 1) < 1e-8


@pytest.mark.parametrize("alpha0, eta, beta", [(2.0, 3.0, 1.0), (0.5, 5.0, 2.0),
                                               (0.25, 2.0, 0.5)])
def test_one_letter_is_the_uniform_exact_bulk(alpha0, eta, beta):
    """K = 1 on the contour = the closed forms of the uniform exact back end (docs/theory.md
    (g.5)), sums (the cross sums <X/S> of the spike and teacher directions included) and fixed
    point."""
    bulk = ExactGroupBulk("tanh", "sin", alpha0, eta, vocabulary=[1])
    uni = ExactBulk("tanh", "sin", alpha0, eta, beta)
    for lam, v1h, v2h in [(0.1, 1.3, 0.3), (0.05, 0.2, 0.0)]:
        pr = bulk.group_prior(lam, beta).prior(np.array([[v1h]]), np.array([v2h]))
        mo = uni.moments(lam + v2h, v1h)
        x1 = uni.cross_moments(lam + v2h, v1h)[0]
        for got, want in [(pr.V2[0], mo.inv), (pr.V1[0, 0], mo.rho), (pr.F[0, 0], mo.F),
                          (pr.H[0, 0], mo.H), (pr.X[0, 0], x1)]:
            assert abs(got / want - 1) < 1e-10
        assert abs(x1) > 1e-3                     # an odd student's cross sum is not zero
    if alpha0 == 2.0:
        grp = solve_srf_groups("tanh", "sin", bulk.r, bulk.c, bulk.gamma, 0.1, 1.0, beta,
                               vocabulary=[1], spectrum=bulk, nodes=120)
        ref = solve(*CASE, 0.1, 1.0, beta, bulk="exact", nodes=120)
        assert grp.spectrum == "exact" and abs(grp.test_error / ref.test_error - 1) < 1e-10
        for name in ("V1", "V2", "q1", "q2", "theta", "psi", "m"):
            a = float(np.ravel(getattr(grp.state, name))[0])
            b = float(getattr(ref.state, name))
            assert abs(a - b) <= 1e-8 * max(1.0, abs(b)), name


def test_a_small_step_is_the_block_wishart_prior():
    """eta -> 0: every ell_j concentrates at c_j and the prior becomes the isotropic
    block-Wishart one (F_ab -> delta_ab c_a V2_a, H -> V1), an independent code."""
    bulk = ExactGroupBulk("tanh", "sin", 2.0, 0.02, vocabulary=[1, 2])
    lam, beta = 0.1, 1.5
    ex = bulk.group_prior(lam, beta).prior(V1HAT, V2HAT)
    bw = BlockWishartPrior(bulk.group_c, [0.5, 0.5], beta, lam).prior(V1HAT, V2HAT)
    assert np.allclose(ex.V2, bw.V2, rtol=1e-5) and np.allclose(ex.V1, bw.V1, rtol=1e-5)
    assert np.allclose(ex.F, np.diag(np.asarray(bulk.group_c) * bw.V2), rtol=1e-4, atol=1e-6)
    assert np.allclose(ex.H, bw.V1, rtol=1e-4, atol=1e-6)
    assert abs(ex.F[0, 1]) < 1e-6 < abs(ex.V1[0, 1])


def test_opposite_letters_are_the_uniform_readout():
    """{1, -1} for an odd student: the groups differ by a sign that the prior does not see and
    the channel absorbs, so the K = 2 solve on the exact law equals the uniform one."""
    two = solve(*CASE, 0.1, 1.0, bulk="exact", vocabulary=[1, -1], nodes=120)
    one = solve(*CASE, 0.1, 1.0, bulk="exact", nodes=120)
    assert two.spectrum == "exact" and abs(two.test_error / one.test_error - 1) < 1e-9


def test_the_derivatives_are_exact():
    """prior_units (implicit differentiation) against central differences of the prior."""
    P = ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_prior(0.1, 1.0)
    pr = P.prior(V1HAT, V2HAT)
    units = P.prior_units(pr)
    h = 1e-5
    for u in range(6):
        d1 = np.zeros((2, 2))
        d2 = np.zeros(2)
        if u < 4:
            j, l = divmod(u, 2)
            d1[j, l] += 0.5
            d1[l, j] += 0.5
        else:
            d2[u - 4] = 1.0
        up, dn = P.prior(V1HAT + h * d1, V2HAT + h * d2), P.prior(V1HAT - h * d1, V2HAT - h * d2)
        for k, name in enumerate(("V1", "V2", "F", "H", "X")):
            fd = (getattr(up, name) - getattr(dn, name)) / (2 * h)
            assert np.allclose(units[k][u], fd, rtol=1e-6, atol=1e-8), (u, name)


def test_second_moments_are_minus_the_gradients():
    """The signal part of (Q1, q2) is -grad(th^ F th^ + psi^ H psi^ + 2 th^ X psi^), the noise
    part -J[Q1^, q2^]: against central differences of G and of (V1, V2)."""
    P = ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_prior(0.1, 1.0)
    th, ps = np.array([0.4, -0.2]), np.array([0.3, 0.5])
    q1h, q2h = np.array([[0.5, 0.1], [0.1, 0.8]]), np.array([0.2, 0.4])
    hat = Hats(q1h, q2h, V1HAT, V2HAT, th, ps)
    Q1, q2 = P.second_moments(P.prior(V1HAT, V2HAT), hat)
    h = 1e-5

    def parts(d1, d2):
        a, b = P.prior(V1HAT + h * d1, V2HAT + h * d2), P.prior(V1HAT - h * d1, V2HAT - h * d2)
        G = [th @ x.F @ th + ps @ x.H @ ps + 2 * th @ x.X @ ps for x in (a, b)]
        return (G[0] - G[1]) / (2 * h), (a.V1 - b.V1) / (2 * h), (a.V2 - b.V2) / (2 * h)

    gq, dV1, dV2 = parts(q1h, q2h)
    for j in range(2):
        e2 = np.eye(2)[j]
        g2, _, _ = parts(np.zeros((2, 2)), e2)
        assert abs(q2[j] - (-dV2[j] - g2)) < 1e-7
    g_sym, _, _ = parts(np.array([[0.0, 0.5], [0.5, 0.0]]), np.zeros(2))
    assert abs(Q1[0, 1] - (-dV1[0, 1] - g_sym)) < 1e-7     # the ordered entry: a symmetric G
    g11, _, _ = parts(np.array([[1.0, 0.0], [0.0, 0.0]]), np.zeros(2))
    assert abs(Q1[0, 0] - (-dV1[0, 0] - g11)) < 1e-7


def test_the_sums_follow_realised_first_layers():
    """V1, V2 of the realised K-group prior (docs/theory.md (g.4.1)) on two first layers at
    d = 500 against the limit (finite-size error ~ 1/d: 0.1-0.5 % here)."""
    P = ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_prior(0.1, 1.0)
    ex = P.prior(V1HAT, V2HAT)
    got = [RealisedGroupPrior(step_group_data(*CASE, 500, 1.0, s, [1, 2]), 0.1, 1.0)
           .prior(V1HAT, V2HAT) for s in (0, 1)]
    V2 = np.mean([g.V2 for g in got], 0)
    V1 = np.mean([g.V1 for g in got], 0)
    assert np.allclose(V2, ex.V2, rtol=1.5e-2) and np.allclose(V1, ex.V1, rtol=1.5e-2)
    c_j = ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_c
    iso = BlockWishartPrior(c_j, P.pi, 1.0, 0.1).prior(V1HAT, V2HAT)
    assert np.max(np.abs(V2 / ex.V2 - 1)) < np.max(np.abs(V2 / iso.V2 - 1)) / 3   # iso ~ 5 % off


def test_a_convex_loss_on_the_exact_groups():
    """The logistic readout with the exact K-group prior: K = 1 as a vocabulary = the uniform
    exact back end (a different prior code) to the solver's tolerance."""
    spec = ExactGroupBulk("tanh", "sign", 2.0, 3.0, vocabulary=[1])
    grp = solve_convex_groups("tanh", "sign", spec.r, spec.c, spec.gamma, 0.1, 1.0, 1.0,
                              vocabulary=[1], loss="logistic", spectrum=spec, nodes=80)
    uni = solve("tanh", "sign", 2.0, 3.0, 0.1, 1.0, bulk="exact", loss="logistic", nodes=80)
    assert grp.spectrum == "exact"
    assert abs(grp.classification_error / uni.classification_error - 1) < 1e-8


def test_refusals():
    with pytest.raises(ValueError, match="needs an odd student"):
        ExactGroupBulk("relu", "sin", 1.0, 3.0, vocabulary=[1, 2])
    with pytest.raises(ValueError, match="moves the bulk"):
        ExactGroupBulk("tanh", "sin", 1.0, 0.0, vocabulary=[1, 2])
    with pytest.raises(ValueError, match="double precision"):
        solve(*CASE, 0.1, 1.0, bulk="exact", vocabulary=[1, 2], dps=20)
    with pytest.raises(ValueError, match="pole must be > 0"):
        batch_contour(*residual_law("sin", 0.0, 16), 2.0, pole=-1.0)
    with pytest.raises(ValueError, match="beta must be > 0"):
        ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_prior(0.1, -1.0)
    from srfsym.theory.feature.spectrum import feature_spectrum
    with pytest.raises(ValueError, match="beta = p/d must be positive"):
        feature_spectrum("tanh", "sin", alpha0=2.0, eta=3.0, beta=-1.0,
                         spectrum=ExactGroupBulk(*CASE, vocabulary=[1, 2]))


def test_the_batch_forms_fall_back_to_the_stieltjes_iteration(monkeypatch):
    """Where Newton on delta fails (near the spectrum's edge), the forms come from the Stieltjes
    iteration's m (delta = 1/(tau m) - 1) polished by Newton: the same values."""
    import srfsym.theory.spectral.exact_bulk_batch as eb
    law = residual_law("sin", 0.0, 48)
    tau = np.array([0.05 + 0.2j, 0.3, 2.0 - 0.1j])
    ref = eb.batch_forms(tau, *law, 2.0)
    real, calls = eb._solve_delta, []

    def fails_once(*args, **kwargs):
        calls.append(1)
        out = real(*args, **kwargs)
        return (out[0], False) if len(calls) == 1 else out

    monkeypatch.setattr(eb, "_solve_delta", fails_once)
    got = eb.batch_forms(tau, *law, 2.0)
    assert len(calls) == 2
    for a, b in zip(got[:4], ref[:4]):
        assert np.allclose(a, b, rtol=1e-12)


def test_the_feature_spectrum_on_the_exact_groups():
    """The feature spectrum's K-group system on the exact law (docs/theory.md (k.5), (g.5.2)):
    {1} through the group code = the uniform exact feature spectrum (a different code), also
    near the right edge where the integrand's poles come inside the contour (residues) or near
    it (confocal rules); {1, -1} = the uniform readout."""
    from srfsym.theory.feature.spectrum import feature_spectrum
    a0, eta, beta = 0.5, 5.0, 2.0
    uni = feature_spectrum("tanh", "sin", alpha0=a0, eta=eta, beta=beta,
                           spectrum=ExactBulk("tanh", "sin", a0, eta, beta))
    one = feature_spectrum("tanh", "sin", alpha0=a0, eta=eta, beta=beta,
                           spectrum=ExactGroupBulk("tanh", "sin", a0, eta, vocabulary=[1]))
    pm = feature_spectrum("tanh", "sin", alpha0=a0, eta=eta, beta=beta,
                          spectrum=ExactGroupBulk("tanh", "sin", a0, eta, vocabulary=[1, -1]))
    assert one._use_groups and pm.K == 2
    for z in (0.5 + 0.1j, -1.0 + 0j, 4.0 + 0.01j, 4.0 + 1e-4j, 4.3 + 1e-3j):
        ref = uni.stieltjes_value(z, warm_start=False).s
        assert abs(one.stieltjes_value(z, warm_start=False).s / ref - 1) < 1e-10, z
    for z in (0.5 + 0.1j, 2.0 + 0.05j):
        ref = uni.stieltjes_value(z, warm_start=False).s
        assert abs(pm.stieltjes_value(z, warm_start=False).s / ref - 1) < 1e-10, z
    with pytest.raises(ValueError, match="exact law split by letter"):
        feature_spectrum("tanh", "sin", alpha0=a0, eta=eta, beta=beta, vocabulary=[1, 2],
                         spectrum=np.linspace(0.1, 2, 50))


def test_the_isotropic_bulk_warning_of_a_vocabulary():
    """Each letter's excess over c MP_beta (the uniform closed form at learning rate |omega| eta)
    equals Var ell_j / (E ell_j)^2 of the exact law's contour rule (an independent computation);
    `srfsym error` with the isotropic bulk says so and names --bulk exact."""
    import warnings

    from srfsym.theory.spectral.exact_bulk_groups import vocabulary_bulk_warning
    from srfsym.theory.spectral.step_bulk import IsotropicBulkWarning
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        excess = vocabulary_bulk_warning(*CASE, 1.0, [1, 2])
    assert issubclass(w[0].category, IsotropicBulkWarning) and "--bulk exact" in str(w[0].message)
    bulk = ExactGroupBulk(*CASE, vocabulary=[1, 2])
    ell = bulk.group_prior(0.1, 1.0).ell
    m1, m2 = (bulk.rule.plain @ ell).real, (bulk.rule.plain @ ell**2).real
    assert np.allclose([excess[1.0], excess[2.0]], m2 / m1**2 - 1, rtol=1e-10)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        vocabulary_bulk_warning(*CASE, 1.0, [1, -1])          # one learning rate: fine here
    assert not w
    out = run_cli("error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "3",
                  "--alpha", "1", "--lam", "0.1", "--vocabulary", "1", "2", timeout=300)
    assert out.returncode == 0 and "letter 2" in out.stderr and "--bulk exact" in out.stderr


def test_an_indefinite_v1hat_is_refused_as_a_convergence_error():
    """phi is holomorphic right of -pole only for V1^ >= 0 (docs/theory.md (g.5.2)); an
    indefinite V1^ (a trial step of the engine) used to end in a RuntimeError of the batch's
    resolvent at a pole on its spectrum, or a singular matrix: now a ConvergenceError that the
    engine's line search catches, naming the eigenvalue."""
    from srfsym.theory.state import ConvergenceError
    P = ExactGroupBulk(*CASE, vocabulary=[1, 2]).group_prior(0.1, 1.0)
    for V1h in ([[0.1, 0.5], [0.5, 0.1]], [[-0.3, 0.0], [0.0, 1.0]]):
        with pytest.raises(ConvergenceError, match="V1hat >= 0: its smallest eigenvalue is -0.[34]"):
            P.prior(np.array(V1h), V2HAT)
    pr = P.prior(np.zeros((2, 2)), V2HAT)              # the boundary V1^ = 0: V2_j = pi_j/(lam + V2^_j)
    assert np.allclose(pr.V2, 0.5 / (0.1 + V2HAT), rtol=1e-13)


def test_a_large_letter_is_the_uniform_law_at_a_larger_step_without_confocal_rules():
    """One letter omega scales every row update by omega: the law of {4} at eta is the uniform
    exact law at 4 eta (closed forms of ExactBulk, a different code).  The fixed point's
    expectations use the first rule when it is good enough: no confocal rule is built (they
    cost 4x the nodes each, and near the spectrum - a big letter, a small alpha0 - their
    radius rho^0.5 could not be built at all: a RuntimeError out of a valid solve)."""
    bulk = ExactGroupBulk("tanh", "sin", 0.5, 5.0, vocabulary=[4])
    uni = ExactBulk("tanh", "sin", 0.5, 20.0, 1.0)
    P = bulk.group_prior(0.1, 1.0)
    pr = P.prior(np.array([[1.3]]), np.array([0.3]))
    mo = uni.moments(0.4, 1.3)
    for got, want in [(pr.V2[0], mo.inv), (pr.V1[0, 0], mo.rho), (pr.F[0, 0], mo.F),
                      (pr.H[0, 0], mo.H)]:
        assert abs(got / want - 1) < 1e-12
    assert P._variants == [None] * 5          # no confocal or wide rule built


def test_a_contour_rule_that_does_not_converge_is_a_convergence_error():
    """The batch's contour rule out of nodes (erf/relu at alpha0 = 0.25, eta = 10 with {1, 2}
    reaches only 8e-12 with 32768 nodes) was a bare RuntimeError, which the CLI shows as a
    traceback: now a ConvergenceError naming the cause, with the rule's error as residual."""
    from srfsym.theory.spectral.exact_bulk_batch import batch_contour_variant
    from srfsym.theory.state import ConvergenceError
    law = residual_law("sin", 0.0, 6)
    rule = batch_contour(*law, alpha0=2.0, pole=0.5)
    with pytest.raises(ConvergenceError, match="did not reach 0 with 32768 nodes") as info:
        batch_contour_variant(rule, *law, 2.0, 1.5, tol=0.0, nodes=1 << 15)
    assert 0 < info.value.residual < 1e-13           # the rule itself is fine: only tol = 0 fails


def test_cli_bulk_exact_refuses_a_dimension(capsys):
    """`--bulk exact --d 500` used to drop --d silently (the API refuses d with bulk='exact');
    the refusal names the alternative (before any work)."""
    from srfsym.cli import main
    base = ["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "3",
            "--alpha", "1", "--lam", "0.1", "--bulk", "exact", "--vocabulary", "1", "-1"]
    assert main([*base, "--d", "500"]) != 0
    err = capsys.readouterr().err
    assert "takes no --d (got 500; --bulk step" in err and "contour nodes" not in err


def test_the_feature_spectrum_refuses_an_exact_bulk_of_another_step():
    """An ExactGroupBulk built for another student, teacher or alpha0 was taken silently (the
    mapping's r, c of one step on the bulk law of another); the mapping's r, c must match."""
    from srfsym.theory.feature.spectrum import feature_spectrum
    bulk = ExactGroupBulk(*CASE, vocabulary=[1, 2])
    fs = feature_spectrum("tanh", "sin", alpha0=2.0, eta=3.0, spectrum=bulk, vocabulary=[1, 2])
    assert fs.K == 2 and abs(fs.r / bulk.r - 1) < 1e-12
    for student, teacher, alpha0 in [("erf", "sin", 2.0), ("tanh", "tanh", 2.0),
                                     ("tanh", "sin", 0.5)]:
        with pytest.raises(ValueError, match="the exact bulk was built for another step"):
            feature_spectrum(student, teacher, alpha0=alpha0, eta=3.0, spectrum=bulk)


def test_the_uniform_exact_feature_spectrum_refuses_a_bulk_of_another_step():
    """The uniform exact bulk's mean E D is the mapping's c (docs/theory.md (g.5)): a bulk built
    for another step is refused, as for the law split by letter."""
    from srfsym.theory.feature.spectrum import feature_spectrum
    bulk = ExactBulk("tanh", "sin", 2.0, 3.0, 1.0)
    fs = feature_spectrum("tanh", "sin", alpha0=2.0, eta=3.0, spectrum=bulk)
    assert abs(fs.c / bulk.bulk_moments()[0] - 1) < 1e-9
    with pytest.raises(ValueError, match="the exact bulk was built for another step"):
        feature_spectrum("tanh", "sin", alpha0=0.5, eta=3.0, spectrum=bulk)


def test_the_right_edge_retries_a_value_that_does_not_converge(monkeypatch):
    """The right edge's bisection smooths a little more where a value fails (as the density
    does; the exact law's contour rules can fail near crowded poles): a solver that fails at the
    smallest eps gives the same edge to its 4 digits."""
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.state import ConvergenceError
    ref = feature_spectrum("tanh", r=0.0, c=1.0).right_edge
    fs = feature_spectrum("tanh", r=0.0, c=1.0)
    real = type(fs).stieltjes_value
    calls = []

    def flaky(self, z, *args, **kwargs):
        if z.imag < 2e-7 * self.bulk_mean:
            calls.append(z)
            raise ConvergenceError("a test failure at the smallest eps", residual=1.0)
        return real(self, z, *args, **kwargs)

    monkeypatch.setattr(type(fs), "stieltjes_value", flaky)
    assert calls == [] and abs(fs.right_edge / ref - 1) < 1e-4 and len(calls) > 5
