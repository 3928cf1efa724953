"""The dimension-free deterministic equivalent of random-feature ridge regression (docs/theory.md
(o)): its limits against independent computations, its power-law sums against direct sums, its
exponents against the numeric slopes, the sphere spectrum against its identities and srfsym's
r = 0 fixed point, and simulations within their standard errors."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.simulation.random_features import simulate_linear_features, simulate_sphere_features
from srfsym.theory.dimension_free.equivalent import deterministic_equivalent, equivalent_values
from srfsym.theory.dimension_free.scaling import A, L, Q, R, gamma_expression, optimum
from srfsym.theory.dimension_free.spectra import EigenSpectrum, PowerLawSpectrum
from srfsym.theory.dimension_free.sphere import (gegenbauer, harmonic_dimension,
                                                 hermite_block_weights, sphere_coefficients,
                                                 sphere_spectrum)

SPEC = EigenSpectrum(np.arange(1, 301.0) ** -1.5, np.arange(1, 301.0) ** -1.6)


def _krr_independent(lam_k, th2, n, lam, noise):
    """Kernel ridge regression's equivalent written out by hand (mpmath, 30 digits)."""
    with mpmath.workdps(30):
        lam_k = [mpmath.mpf(float(v)) for v in lam_k]
        th2 = [mpmath.mpf(float(v)) for v in th2]
        t1 = lambda nu: mpmath.fsum(l / (l + nu) for l in lam_k)          # noqa: E731
        nu = mpmath.findroot(lambda nu: nu * (n - t1(nu)) - lam, (1e-6, 10), solver="anderson")
        t2 = mpmath.fsum((l / (l + nu)) ** 2 for l in lam_k)
        bias = nu**2 * mpmath.fsum(t / (l + nu) ** 2 for l, t in zip(lam_k, th2)) / (1 - t2 / n)
        return float(nu), float(bias), float(noise * t2 / (n - t2))


@pytest.mark.parametrize("n,lam", [(50, 1e-2), (200, 1.0), (1000, 1e-3)])
def test_kernel_limit_against_independent_krr(n, lam):
    eq = deterministic_equivalent(SPEC, n, np.inf, lam, noise=0.3)
    nu, bias, var = _krr_independent(SPEC.eigenvalues, SPEC.target2, n, lam, 0.3)
    assert float(eq.nu2) == pytest.approx(nu, rel=1e-12)
    assert float(eq.bias) == pytest.approx(bias, rel=1e-10)
    assert float(eq.variance) == pytest.approx(var, rel=1e-10)
    big = deterministic_equivalent(SPEC, n, 1e9, lam, noise=0.3)      # p -> oo continuously
    assert float(big.excess_risk) == pytest.approx(float(eq.excess_risk), rel=1e-6)


def test_ridgeless_branches_and_noise():
    for n, p in ((200, 80), (80, 200)):
        e0 = deterministic_equivalent(SPEC, n, p, 0.0, noise=0.5)
        e1 = deterministic_equivalent(SPEC, n, p, 1e-9, noise=0.5)
        assert float(e0.excess_risk) == pytest.approx(float(e1.excess_risk), rel=1e-6)
        assert float(e0.nu2) == pytest.approx(float(e1.nu2), rel=1e-6)
    under = deterministic_equivalent(SPEC, 200, 80, 0.0, noise=0.5)
    assert float(under.variance) == pytest.approx(0.5 * 80 / (200 - 80), rel=1e-10)
    assert float(under.nu1) == 0.0
    assert float(deterministic_equivalent(SPEC, 200, 80, 0.1, noise=0.0).variance) == 0.0
    with pytest.raises(ValueError, match="interpolation peak"):
        deterministic_equivalent(SPEC, 100, 100, 0.0)
    with pytest.raises(ValueError, match="more features"):
        deterministic_equivalent(SPEC, 400, 500, 0.0)


def test_fixed_point_equations_hold_on_a_grid():
    n, p, lam = np.meshgrid([30, 300, 3000], [10, 100, 1e4], [1e-4, 1.0], indexing="ij")
    spec = PowerLawSpectrum(1.8, 0.7, head=300)
    eq = deterministic_equivalent(spec, n, p, lam, noise=0.1)
    s, _ = spec.sums(eq.nu2)
    assert np.allclose(n - lam / eq.nu1, s["T1"], rtol=1e-9)
    assert np.allclose(p * (1 - eq.nu1 / eq.nu2), s["T1"], rtol=1e-9)
    assert eq.excess_risk.shape == (3, 3, 2) and np.all(eq.sums_error < 1e-9)


def test_power_law_sums_against_direct_sums():
    spec = PowerLawSpectrum(1.5, 0.3, head=100)
    nu = np.array([1e-2, 1e-4])
    s, err = spec.sums(nu)
    k = np.arange(1, 4 * 10**6, dtype=float)
    lam_k, th2 = k**-1.5, k ** -(2 * 1.5 * 0.3 + 1)
    for j, v in enumerate(nu):
        t1 = (lam_k / (lam_k + v)).sum() + 2 / v / (4e6) ** 0.5      # + the far tail (bound)
        st = (th2 / (lam_k + v) ** 2).sum() + (4e6) ** -0.9 / 0.9 / v**2    # + the far tail
        assert s["T1"][j] == pytest.approx(t1, rel=2e-7)
        assert s["S_theta"][j] == pytest.approx(st, rel=2e-7)
        assert err["T1"][j] < 1e-9 * s["T1"][j]


def test_mpmath_path_matches_double():
    v = equivalent_values(PowerLawSpectrum(2.0, 0.6, head=100), 500, 200, 0.05, noise=0.1, dps=30)
    d = deterministic_equivalent(PowerLawSpectrum(2.0, 0.6, head=100), 500, 200, 0.05, noise=0.1)
    assert float(v["test_error"]) == pytest.approx(float(d.test_error), rel=1e-11)
    assert v["nu2"].method == "numeric" and "Euler-Maclaurin" in v["nu2"].how


@pytest.mark.parametrize("bad,match", [(dict(n=-1), "n "), (dict(p=0), "p "),
                                       (dict(lam=float("nan")), "lam"),
                                       (dict(noise=-1.0), "noise")])
def test_bad_input_is_refused(bad, match):
    kw = dict(n=10, p=10, lam=0.1, noise=0.0) | bad
    with pytest.raises(ValueError, match=match):
        deterministic_equivalent(SPEC, **kw)


def test_linear_random_features_simulation_within_two_standard_errors():
    m = 600
    k = np.arange(1, m + 1.0)
    lam_k, theta = k**-1.5, k ** -(1.5 * 0.4 + 0.5)
    spec = EigenSpectrum(lam_k, theta**2)
    for n, p, lam in ((200, 100, 1e-2), (100, 300, 0.3)):
        sim = simulate_linear_features(lam_k, theta, n, p, lam, noise=0.05, seeds=24)
        eq = float(deterministic_equivalent(spec, n, p, lam, noise=0.05).excess_risk)
        assert abs(sim["excess_risk"] - eq) < 2.5 * sim["sem"] + 0.02 * eq, (n, p, sim, eq)


def test_exponents_against_numeric_slopes():
    rng = np.random.default_rng(3)
    checked = 0
    while checked < 5:
        a, r, q, l = rng.uniform(1.4, 3), rng.uniform(0.1, 1.4), rng.uniform(0.3, 1.5), \
            rng.uniform(0.2, 3)
        if abs(r - 0.5) < 0.1 or abs(r - 1) < 0.1 or min(abs(l - a), abs(l - a * q),
                                                        abs(q - 1)) < 0.15:
            continue                       # log factors at the boundaries slow the slopes
        gam = float(gamma_expression(True).subs({A: a, R: r, Q: q, L: l}))
        n = np.array([1e8, 1e10])
        e = deterministic_equivalent(PowerLawSpectrum(a, r, head=500), n, n**q, n ** (1 - l),
                                     noise=1.0).excess_risk
        slope = -np.log(e[1] / e[0]) / np.log(100)
        assert slope == pytest.approx(gam, abs=0.03), (a, r, q, l)
        checked += 1


def test_optimum_is_the_kernel_rate_with_the_fewest_features():
    o = optimum(2, sp.Rational(3, 4))
    assert o["kernel_rate"] == sp.Rational(3, 4)            # 2ar/(2ar+1) at a=2, r=3/4
    assert o["q_min"] == sp.Rational(1 + 2 * (sp.Rational(3, 2) - 1), 4)   # (1+a(2r-1))/(2ar+1)
    g = gamma_expression(True).subs({A: 2, R: sp.Rational(3, 4)})
    assert g.subs({Q: o["q_min"], L: o["l_at_q_min"]}) == o["kernel_rate"]
    assert g.subs({Q: o["q_min"] - sp.Rational(1, 100), L: o["l_at_q_min"]}) < o["kernel_rate"]


def test_sphere_identities():
    d = 15
    c = sphere_coefficients("tanh", d, 40)
    assert c.block_weights.sum() == pytest.approx(c.second_moment, abs=1e-10)   # trace
    t = np.linspace(-1, 1, 7)
    x = mpmath.quad(lambda s: (1 - s * s) ** ((d - 3) / 2), [-1, 1])
    for k in range(5):    # E P_k^2 = 1/N_k against mpmath quadrature
        with mpmath.workdps(30):
            num = mpmath.quad(lambda s: float(gegenbauer(np.array([float(s)]), d, k)[k][0]) ** 2
                              * (1 - s * s) ** ((d - 3) / 2), [-1, 0, 1])
        assert float(num / x) == pytest.approx(1 / harmonic_dimension(d, k), rel=1e-9)
    assert harmonic_dimension(d, 2) == d * (d + 1) // 2 - 1
    assert gegenbauer(t, d, 4)[:, -1].tolist() == pytest.approx([1.0] * 5)
    h = hermite_block_weights("tanh", 5)
    w = sphere_coefficients("tanh", 2000, 5).block_weights
    assert np.allclose(w, h, atol=2e-4) and not np.allclose(c.block_weights[:6], h, atol=2e-4)


def test_proportional_limit_approaches_srfsym_r0():
    from srfsym.theory.fixed_point import solve_srf
    ref = solve_srf("tanh", "sin", 0.0, 1.0, 1.0, 0.1, 2.0, 1.5).test_error
    gaps = [float(deterministic_equivalent(sphere_spectrum("tanh", "sin", d, kmax=6), 2 * d,
                                           1.5 * d, 0.1).test_error) / ref - 1
            for d in (100, 400)]
    assert abs(gaps[1]) < 0.006 and abs(gaps[1]) < 0.3 * abs(gaps[0])       # O(1/d)


def test_sphere_simulation_within_error():
    d, n, p, lam = 12, 300, 150, 0.05
    sim = simulate_sphere_features(np.tanh, lambda x: np.sin(x[:, 0]), d, n, p, lam,
                                   seeds=6, n_test=3000)
    eq = float(deterministic_equivalent(sphere_spectrum("tanh", "sin", d, kmax=8), n, p,
                                        lam).excess_risk)
    assert abs(sim["excess_risk"] - eq) < 2.5 * sim["sem"] + 0.02 * eq, (sim, eq)
