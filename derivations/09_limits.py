"""Limits of the sRF model: r -> 0 (plain random features), alpha0 -> oo, eta -> 0.

1. ``r -> 0``: the conditional coefficients of :func:`srfsym.cget_coefficients` lose their
   kappa dependence (SymPy ``limit``; for tanh on a numeric kappa grid), so the features are those
   of plain random features with bulk variance c;
2. the fixed point at ``r = 0`` (``alpha0 = 0``, ``gamma = 0``) has ``m = 0`` and ``theta = 0`` for
   an odd student and teacher: the (m, theta) equations are linear and homogeneous with an
   invertible matrix (derived here with SymPy, confirmed by :func:`srfsym.theory.fixed_point.solve_srf`);
   the test error is continuous at ``r = 0`` (``O(r^2)``) and, at ``r = 0``, does not depend on the
   alignment ``gamma`` at all (the spike direction is then an ordinary direction:
   ``theta = gamma psi_0``, ``psi = rho psi_0``), at ``beta = 1`` and ``beta = 2``;
3. ``alpha0 -> oo``: ``gamma -> sign(mu1*) = 1`` and ``c -> 1``, ``r -> eta mu1 |mu1*|``
   (:func:`srfsym.step.mapping.mapping_limits`), also numerically with :func:`srfsym.srf_mapping`;
4. ``eta -> 0``: ``r -> 0`` and ``c -> 1`` (gamma unchanged);
5. but for ``gamma != 0`` the fixed point is not continuous at ``r = 0``: for any ``r > 0`` the
   unregularised mean readout ``m mu0(kappa) ~ (r m) mu1 kappa`` fits the kappa-linear part of the
   teacher exactly (SymPy: ``r m -> gamma mu1*/mu1``, ``theta -> 0``), so :func:`srfsym.solve` at
   ``eta -> 0`` tends (like ``eta^2``) to plain RF with the teacher
   ``sigma*(x) - (1 - rho) mu1* x``, not to plain RF with ``sigma*``.
"""
from functools import partial
import math

import numpy as np
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step

from srfsym import cget_coefficients, hermite_constants, srf_mapping
from srfsym.symbolic.cget import C, KAPPA, R
from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.step.mapping import (ALPHA0, CHECKMU1_SQ, ETA, MU0, MU0_STAR, MU1, MU1_STAR, MU2_STAR,
                            mapping_expressions, mapping_limits)

TITLE = "Limits: r -> 0 (plain RF), alpha0 -> oo, eta -> 0"

STUDENT, TEACHER = "tanh", "sin"
LAM, ALPHA = 0.1, 2.0
LATEX_NAMES = {ETA: r"\tilde\eta", ALPHA0: r"\alpha_0", MU0: r"\mu_0", MU1: r"\mu_1",
               CHECKMU1_SQ: r"\check\mu_1^2", MU0_STAR: r"\mu_0^\star", MU1_STAR: r"\mu_1^\star",
               MU2_STAR: r"\mu_2^\star", KAPPA: r"\kappa"}


_step = partial(print_step, latex_names=LATEX_NAMES)


_is_zero = is_zero


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))

    # 1. r -> 0: constant coefficients ---------------------------------------------------------
    for name in ("erf", "sin"):
        co = cget_coefficients(name)
        lims = sp.Tuple(*[sp.simplify(sp.limit(e, R, 0)) for e in (co.mu0, co.mu1, co.mustar2)])
        assert not lims.has(KAPPA)
        hc = hermite_constants(name)
        for lim, const in zip(lims, (hc.mu0, hc.mu1, hc.mustar2)):
            assert _is_zero(lim.subs(C, 1) - const.expr)
        _step(n, f"{name}: lim_(r->0) (mu0, mu1, mu_star^2)(kappa) is free of kappa and equals the "
                 "RF constants (hermite_constants at c = 1)   [asserted]", lims)
    kap = np.linspace(-4.0, 4.0, 17)
    m0, m1, ms2 = cget_coefficients(STUDENT).numpy()(kap, 0.0, 1.0)
    hs = hermite_constants(STUDENT)
    assert np.all(np.abs(m0) < 1e-15)
    assert np.max(np.abs(m1 - float(hs.mu1))) < 1e-13
    assert np.max(np.abs(ms2 - float(hs.mustar2))) < 1e-13
    _step(n, f"{STUDENT} (numeric quadrature) at r = 0, c = 1 on kappa in [-4, 4]: mu0 = 0, "
             f"mu1 = {float(hs.mu1):.15f}, mu_star^2 = {float(hs.mustar2):.15f} at every node   "
             "[asserted to 1e-13]")

    # 2. the fixed point at r = 0 ---------------------------------------------------------------
    a_, w, mu1c, F = sp.symbols("alpha w mu1 <F/S>", positive=True)
    theta = sp.Symbol("theta", real=True)
    LATEX_NAMES[F] = r"\langle F/S\rangle"
    be = sp.Symbol("beta", positive=True)
    # r = 0, gamma = 0, odd sigma and sigma*: mu0 = 0, h = 0, mu1 and w = 1/(1+V) constant,
    # E k^2 = 1; thetahat = (alpha/sqrt b) E[k mu1 (h - b) w]
    thetahat = a_ / sp.sqrt(be) * mu1c * w * (0 - mu1c * theta)
    theta_eq = sp.Eq(theta, sp.sqrt(be) * thetahat * F)
    sol = sp.solve(theta_eq, theta)
    assert sol == [0]
    _step(n, "r = 0, gamma = 0, odd sigma, sigma*: mu0 = 0 and h = E sigma*(z) = 0, so thetahat = "
             "-(alpha/sqrt(beta)) mu1^2 w theta and theta = sqrt(beta) thetahat <F/S> reads",
          theta_eq)
    print("    i.e. theta (1 + alpha mu1^2 w <F/S>) = 0: theta = 0 (all factors positive); m has "
          "E[mu0 (h - b) w] = 0 with mu0 = 0: m = 0 (the library returns 0 when E mu0^2 w = 0)")
    res0 = solve_srf(STUDENT, TEACHER, 0.0, 1.0, 0.0, LAM, ALPHA, nodes=48)
    assert res0.state.theta == 0.0 and res0.state.m == 0.0
    via_map = solve(STUDENT, TEACHER, alpha0=0, eta=3, lam=LAM, alpha=ALPHA, nodes=48)
    assert via_map.r == 0.0 and via_map.c == 1.0 and via_map.gamma == 0.0
    assert via_map.test_error == res0.test_error
    print(f"    solve_srf({STUDENT}, {TEACHER}, r = 0, c = 1, gamma = 0): theta = m = 0 exactly, "
          f"test error {res0.test_error:.15f} = solve(alpha0 = 0)   [asserted]")
    errs = {r: solve_srf(STUDENT, TEACHER, r, 1.0, 0.0, LAM, ALPHA, nodes=48).test_error
            for r in (1e-2, 1e-3)}
    ratio = (errs[1e-2] - res0.test_error) / (errs[1e-3] - res0.test_error)
    assert 90 < ratio < 110
    _step(n, f"Continuity at r = 0 (gamma = 0): eps(r) - eps(0) = "
             f"{errs[1e-2] - res0.test_error:.3e} (r = 1e-2), {errs[1e-3] - res0.test_error:.3e} "
             f"(r = 1e-3), ratio {ratio:.2f} ~ 100: O(r^2)   [asserted]")
    psi0 = {}
    for beta, student in ((1.0, STUDENT), (2.0, "erf")):
        base = solve_srf(student, TEACHER, 0.0, 1.0, 0.0, LAM, ALPHA, beta, nodes=48)
        psi0[beta] = base.state.psi
        for gamma in (0.5, 0.9, 1.0):
            res = solve_srf(student, TEACHER, 0.0, 1.0, gamma, LAM, ALPHA, beta, nodes=48)
            rho = math.sqrt(1 - gamma**2)
            assert abs(res.test_error - base.test_error) < 1e-12
            assert abs(res.state.theta - gamma * base.state.psi) < 1e-12
            assert abs(res.state.psi - rho * base.state.psi) < 1e-12
    _step(n, "At r = 0 the spike direction is an ordinary direction: for gamma in {0.5, 0.9, 1} "
             "the test error equals the gamma = 0 value and theta = gamma psi_0, psi = rho psi_0 "
             f"(psi_0 = {psi0[1.0]:.6f} at beta = 1 for {STUDENT}, {psi0[2.0]:.6f} at beta = 2 for "
             "erf; MP spectrum, F -> c and H -> D treated by different equations)   [asserted to "
             "1e-12]")

    # 3. alpha0 -> oo ----------------------------------------------------------------------------
    lim = mapping_limits()
    big = lim["alpha0->oo"]
    he2 = [s for s in big["bulk_variance"].free_symbols if s.name == "mu_He2"]
    expected = {"spike_strength": ETA * MU1 * sp.Abs(MU1_STAR), "bulk_variance": sp.S.One,
                "alignment": MU1_STAR / sp.Abs(MU1_STAR)}
    for key, val in expected.items():   # odd students: mu_He2 = E sigma'' = 0
        assert _is_zero(big[key].subs({h: 0 for h in he2}) - val), key
    pos = sp.Symbol("x", positive=True)
    assert big["alignment"].subs(MU1_STAR, pos) == 1 and big["alignment"].subs(MU1_STAR, -pos) == -1
    _step(n, "alpha0 -> oo (mapping_limits): r -> eta mu1 |mu1*|, c -> 1 (odd students; a non-odd "
             "one keeps its row rescaling), gamma -> mu1*/|mu1*| = 1 for mu1* > 0", sp.Tuple(big["spike_strength"], big["bulk_variance"],
                                          big["alignment"]))
    exprs = mapping_expressions()
    series_c = sp.series(exprs["bulk_variance"].subs(ALPHA0, 1 / sp.Symbol("u", positive=True)),
                         sp.Symbol("u", positive=True), 0, 2).removeO()
    print(f"    (c - 1 = O(1/alpha0): c = {sp.sstr(series_c)} with u = 1/alpha0)")
    m_big = srf_mapping(STUDENT, TEACHER, eta=1, alpha0=10**8)
    ht = hermite_constants(TEACHER)
    assert abs(m_big.gamma - 1) < 1e-7 and abs(m_big.c - 1) < 1e-7
    assert abs(m_big.r - float(hs.mu1) * abs(float(ht.mu1))) < 1e-7
    print(f"    srf_mapping({STUDENT}, {TEACHER}, eta = 1, alpha0 = 1e8): r = {m_big.r:.10f}, "
          f"c = {m_big.c:.10f}, gamma = {m_big.gamma:.10f}   [asserted]")

    # 4. eta -> 0 ------------------------------------------------------------------------------
    small = lim["eta->0"]
    assert small["spike_strength"] == 0 and small["bulk_variance"] == 1
    assert _is_zero(small["alignment"] - exprs["alignment"])
    _step(n, "eta -> 0 (mapping_limits): r -> 0, c -> 1; gamma does not depend on eta (the spike "
             "direction s/|s| is fixed by the data)", sp.Tuple(small["spike_strength"],
                                                              small["bulk_variance"],
                                                              small["alignment"]))
    m0_ = srf_mapping(STUDENT, TEACHER, eta=0, alpha0=2)
    m1_ = srf_mapping(STUDENT, TEACHER, eta=1, alpha0=2)
    assert m0_.r == 0.0 and m0_.c == 1.0 and abs(m0_.gamma - m1_.gamma) < 1e-15
    print(f"    srf_mapping(eta = 0, alpha0 = 2): r = 0, c = 1, gamma = {m0_.gamma:.6f} = the "
          "eta = 1 value   [asserted]")

    # 5. ... but the fixed point is not continuous at r = 0 when gamma != 0 ----------------------
    co = cget_coefficients("sin")
    slope = sp.simplify(sp.diff(co.mu0, R).subs(R, 0))
    assert _is_zero(slope - KAPPA * co.mu1.subs(R, 0))
    _step(n, "Small r: d mu0/dr at r = 0 is kappa E sigma'(sqrt(c) xi) = kappa mu1 (Stein; sin "
             "shown), so mu0(kappa) = r mu1 kappa + O(r^2) and b = mu0 m + mu1 kappa theta "
             "= mu1 kappa (r m + theta)", slope)
    r_, mu1c, g1, K = sp.symbols("r mu1 gamma_mu1star K", positive=True)
    m_s, th_s = sp.symbols("m theta", real=True)
    LATEX_NAMES[g1] = r"\gamma\mu_1^\star"
    # m is unregularised: E[mu0 (h - b) w] = 0, with E[kappa h] = gamma mu1* (Stein), E kappa^2 = 1;
    # theta = sqrt(beta) thetahat <F/S> = K mu1 (E[kappa h] - mu1 (r m + theta)),
    # K = alpha w <F/S> > 0
    eqs = [sp.Eq(r_ * mu1c * (g1 - mu1c * (r_ * m_s + th_s)), 0),
           sp.Eq(th_s, K * mu1c * (g1 - mu1c * (r_ * m_s + th_s)))]
    sol = sp.solve(eqs, [m_s, th_s], dict=True)
    assert sol == [{m_s: g1 / (mu1c * r_), th_s: 0}]
    _step(n, "For r > 0 the mean direction (strength sqrt(p), not regularised) absorbs the "
             "kappa-linear part of the teacher: with gamma_mu1star = E[kappa h] = gamma mu1*,",
          sp.Tuple(*eqs, sol[0][m_s], sol[0][th_s]))
    print("    so r m -> gamma mu1*/mu1 and theta -> 0 as r -> 0+, while at r = 0 exactly mu0 = 0 "
          "and m drops out: the limit r -> 0+ is NOT plain RF when gamma != 0.")
    print("    What remains is RF on sigma*(gamma k + rho z) - gamma mu1* k: E h2 -> mu2* - "
          "gamma^2 mu1*^2, E h1 -> rho mu1*, i.e. plain RF (gamma = 0) with the teacher "
          "sigma*(x) - (1 - rho) mu1* x.")
    ht_ = hermite_constants(TEACHER)
    gam = m0_.gamma
    rho = math.sqrt(1 - gam**2)
    k_lin = (1 - rho) * float(ht_.mu1)
    reduced = f"{TEACHER}(x) - {k_lin!r}*x"
    hr = hermite_constants(reduced)
    assert abs(float(hr.mu1) - rho * float(ht_.mu1)) < 1e-15
    assert abs(float(hr.second_moment) - (float(ht_.second_moment) - (gam * float(ht_.mu1))**2)) < 1e-15
    lim0 = solve_srf(STUDENT, reduced, 0.0, 1.0, 0.0, LAM, ALPHA, nodes=48).test_error
    mu1_st = float(hs.mu1)
    diffs, mr = {}, {}
    for eta in (1e-2, 1e-3):
        res = solve(STUDENT, TEACHER, alpha0=2, eta=eta, lam=LAM, alpha=ALPHA, nodes=48)
        diffs[eta] = res.test_error - lim0
        mr[eta] = res.state.m * res.r
        assert abs(res.state.theta) < 1e-3 * eta
    ratio = diffs[1e-2] / diffs[1e-3]
    assert 90 < ratio < 110 and abs(diffs[1e-3]) < 1e-7
    assert abs(mr[1e-3] / (gam * float(ht_.mu1) / mu1_st) - 1) < 1e-6
    _step(n, f"{STUDENT}/{TEACHER}, alpha0 = 2 (gamma = {gam:.6f}): solve(eta) - "
             f"RF[{TEACHER}(x) - {k_lin:.6f} x] = {diffs[1e-2]:.3e} (eta = 1e-2), "
             f"{diffs[1e-3]:.3e} (eta = 1e-3), ratio {ratio:.2f}: O(eta^2); r m -> "
             f"{mr[1e-3]:.10f} = gamma mu1*/mu1, theta -> 0   [asserted]")
    print(f"    the plain-RF value at r = 0 is {res0.test_error:.10f}, the eta -> 0 limit "
          f"{lim0:.10f}: a jump of {res0.test_error - lim0:.4f} (the limits r -> 0 and d -> oo do "
          "not commute: m is treated as unregularised)")
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
