"""Spectrum of the learned features: the deterministic equivalent (docs/theory.md (j.3)-(j.4)).

``X = Phi^T Phi / n``, ``s(z) = tr (X - z)^{-1} / p``.  The equivalent features are
``phi_i = mu0(kappa_i) 1 + kappa_i mu1(kappa_i) b + chi_i`` with ``chi_i ~ N(0, C(kappa_i))``,
``C(kappa) = mu1(kappa)^2 A + mu_star(kappa)^2 I`` and ``A = W Pi W^T``.  The script

1. derives the rank-one update of the resolvent (Sherman-Morrison) and the change of the
   normalised trace, which is O(1/p): the two rank-one terms do not move the bulk;
2. uses the same identity for the leave-one-out step and the self-consistent resolvent
   ``Gbar = (Vhat_2 - z + Vhat_1 A)^{-1}``;
3. derives the Marchenko-Pastur quadratic for ``g2 = tr Gbar / p`` from its continued
   fraction, shows that it is :mod:`srfsym.theory.spectrum`'s quadratic, and the ``g1`` relation;
4. derives the co-resolvent identity ``nu s - (1 - nu)/z = -E 1/(z (1 + delta))``;
5. at r = 0 the system is the plain random-features one; checked against an independent
   solution (MP density by adaptive quadrature, plain iteration);
6. the numeric link with the ridge fixed point: ``s(z) = (n/p) V2`` at ``lambda = -(n/p) z``,
   and the co-resolvent identity at a complex z.
"""
from functools import partial
import math

import numpy as np
import sympy as sp
from scipy import integrate

from srfsym import cget_coefficients
from srfsym.core.derive_tools import is_zero, print_step
from srfsym.theory.feature.spectrum import feature_spectrum
from srfsym.theory.fixed_point import solve_srf
from srfsym.theory.spectrum import BETA, C, LAM_PRIME, V1HAT, mp_stieltjes_root

TITLE = "The spectrum of the learned features: deterministic equivalent"

Z, TAU, NU = sp.symbols("z tau nu")
G1, G2, VH1, VH2 = sp.symbols("g1 g2 Vhat1 Vhat2")
RHO = sp.Symbol("varrho", positive=True)
LATEX_NAMES = {TAU: r"\tau", NU: r"\nu", VH1: r"\hat V_1", VH2: r"\hat V_2", RHO: r"\varrho"}
_step = partial(print_step, latex_names=LATEX_NAMES)


def rank_one(n):
    """Steps 1-2: Sherman-Morrison on explicit 3 x 3 matrices."""
    M = sp.Matrix(3, 3, lambda i, j: sp.Symbol(f"m{min(i, j)}{max(i, j)}"))
    u = sp.Matrix(sp.symbols("u0:3"))
    Minv = M.inv()
    q = (u.T * Minv * u)[0]
    sm = Minv - Minv * u * u.T * Minv / (1 + q)
    assert sp.simplify((M + u * u.T) * sm - sp.eye(3)) == sp.zeros(3, 3)
    _step(n, "Sherman-Morrison: (M + u u^T)^{-1} = M^{-1} - M^{-1} u u^T M^{-1} / (1 + u^T M^{-1} u)"
             "   [asserted on a symbolic 3 x 3 matrix]")
    # trace change: tr(M + uu^T)^{-1} - tr M^{-1} = -u^T M^{-2} u / (1 + u^T M^{-1} u)
    dtr = sp.simplify((sm - Minv).trace() + (u.T * Minv * Minv * u)[0] / (1 + q))
    assert dtr == 0
    _step(n, "Normalised trace change of a rank-one update: (1/p)[tr(X + uu^T - z)^{-1} - "
             "tr(X - z)^{-1}] = -(1/p) u^T R^2 u / (1 + u^T R u), R = (X - z)^{-1}; "
             "|.| <= 1/(p Im z): the two rank-one terms of phi_i move s(z) by O(1/p)   [asserted]")
    _step(n, "Leave-one-out (the same identity with u = chi_i / sqrt(n)): Q chi_i = Q_{-i} chi_i / "
             "(1 + chi_i^T Q_{-i} chi_i / n); conditionally on kappa_i the quadratic form "
             "concentrates on delta(kappa_i) = nu (mu1^2 g1 + mu*^2 g2); averaging "
             "-z Q + (1/n) sum_i Q chi_i chi_i^T = I gives Gbar = (Vhat2 - z + Vhat1 A)^{-1}, "
             "Vhat_l = E_kappa mu_l^2 / (1 + delta(kappa))")


def mp_quadratic(n):
    """Step 3: the MP continued fraction -> the library's quadratic; the g1 relation."""
    cont = 1 / (TAU + C * VH1 / (1 + BETA * C * VH1 * G2))
    quad = sp.expand(sp.numer(sp.together(G2 - cont)))
    target = BETA * C * VH1 * TAU * G2**2 + (TAU + C * VH1 - BETA * C * VH1) * G2 - 1
    assert sp.expand(quad - target) == 0 or sp.expand(quad + target) == 0
    _step(n, "MP continued fraction g2 = 1/(tau + c Vhat1/(1 + beta c Vhat1 g2)), tau = Vhat2 - z,"
             " is the quadratic", sp.Eq(target, 0))
    r = mp_stieltjes_root()
    lib = r["quadratic"].subs({r["mt"]: G2, LAM_PRIME: TAU, V1HAT: VH1})
    assert sp.expand(lib - target) == 0
    _step(n, "= srfsym.theory.spectrum's quadratic for E 1/S with lambda' -> tau, Vhat_1 -> Vhat1 "
             "(the ridge fixed point's, continued to complex tau)   [asserted]", lib)
    g1 = C * G2 / (1 + BETA * C * VH1 * G2)
    num = sp.expand(sp.numer(sp.together(g1 - (1 - TAU * G2) / VH1)))
    assert sp.rem(num, target, G2) == 0
    _step(n, "g1 = E varrho/(tau + Vhat1 varrho) = (1 - tau g2)/Vhat1 = c g2/(1 + beta c Vhat1 g2) "
             "on the quadratic (finite at Vhat1 = 0)   [asserted: remainder 0]", g1)


def co_resolvent(n):
    """Step 4: nu s - (1 - nu)/z = -E_kappa 1/(z (1 + delta))."""
    integrand = (VH1 * RHO + VH2) / (VH2 - Z + VH1 * RHO)
    assert is_zero(integrand - 1 - Z / (VH2 - Z + VH1 * RHO))
    _step(n, "Inside E_varrho: (Vhat1 varrho + Vhat2)/(tau + Vhat1 varrho) = 1 + z/(tau + Vhat1 "
             "varrho), so Vhat1 g1 + Vhat2 g2 = 1 + z g2   [asserted]")
    # E delta/(1 + delta) = nu E[(mu1^2 g1 + mu*^2 g2)/(1 + delta)] = nu (Vhat1 g1 + Vhat2 g2)
    E_w = 1 - NU * (1 + Z * G2)         # E 1/(1 + delta) = 1 - E delta/(1 + delta)
    sK = -E_w / Z
    assert is_zero(sK - (NU * G2 - (1 - NU) / Z))
    _step(n, "E 1/(1 + delta) = 1 - nu (Vhat1 g1 + Vhat2 g2) = 1 - nu (1 + z g2); the per-sample "
             "diagonal of (K - z)^{-1} is -1/(z (1 + delta_i)), so s_K = -E 1/(z (1 + delta)) "
             "= nu s - (1 - nu)/z   [asserted]", sp.Eq(sp.Symbol("s_K"), NU * G2 - (1 - NU) / Z))


def plain_rf(n):
    """Step 5: r = 0 against an independent solution of the plain RF system."""
    mu1, mus2 = (float(v) for v in cget_coefficients("tanh").numpy()(0.0, 0.0, 1.0)[1:])
    beta, nu, z = 1.0, 1.0, 0.8 + 0.2j
    lo, hi = (1 - math.sqrt(beta)) ** 2, (1 + math.sqrt(beta)) ** 2

    def E_mp(f):     # MP_beta density, adaptive quadrature of real and imaginary parts
        dens = lambda x: math.sqrt(max((hi - x) * (x - lo), 0.0)) / (2 * math.pi * beta * x)  # noqa
        re = integrate.quad(lambda x: (f(x) * dens(x)).real, lo, hi, limit=400, epsabs=1e-14)[0]
        im = integrate.quad(lambda x: (f(x) * dens(x)).imag, lo, hi, limit=400, epsabs=1e-14)[0]
        return re + 1j * im

    g1, g2 = -1 / z, -1 / z
    for _ in range(400):     # plain damped iteration of the r = 0 equations (c = 1)
        delta = nu * (mu1 ** 2 * g1 + mus2 * g2)
        v1, v2 = mu1 ** 2 / (1 + delta), mus2 / (1 + delta)
        n2 = E_mp(lambda x: 1 / (v2 - z + v1 * x))
        n1 = E_mp(lambda x: x / (v2 - z + v1 * x))
        if abs(n2 - g2) < 1e-13:
            break
        g1, g2 = 0.5 * g1 + 0.5 * n1, 0.5 * g2 + 0.5 * n2
    lib = feature_spectrum("tanh", r=0.0, c=1.0, beta=beta, p_over_n=nu).stieltjes(z)
    assert abs(lib - g2) < 1e-10 * abs(g2)
    _step(n, f"r = 0: mu1(kappa), mu*(kappa) are the constants mu1 = {mu1:.10f}, mu*^2 = "
             f"{mus2:.10f}; delta is constant and the system is the plain RF one.  tanh, "
             f"z = {z}: independent (MP density by adaptive quadrature, damped iteration) "
             f"{g2:.12f}, srfsym {lib:.12f}   [asserted to 1e-10]")


def numeric_links(n):
    """Step 6: the ridge fixed point at lambda = -(n/p) z, the co-resolvent at complex z."""
    student, r, c, beta, nu = "tanh", 1.134, 1.019, 1.5, 0.5
    fs = feature_spectrum(student, r=r, c=c, beta=beta, p_over_n=nu)
    x = 0.8
    res = solve_srf(student, "sin", r, c, 0.97, lam=x / nu, alpha=beta / nu, beta=beta,
                    tol=1e-13)
    s = fs.stieltjes(-x)
    assert abs(s - res.state.V2 / nu) < 1e-10 * abs(s)
    _step(n, f"Ridge link (beta = {beta}, p/n = {nu}): s(-{x}) = {s.real:.13f}; the ridge fixed "
             f"point (srfsym.solve_srf at lambda = {x / nu}, alpha = n/d = {beta / nu}) gives "
             f"(n/p) V2 = {res.state.V2 / nu:.13f}   [asserted to 1e-10]")
    z = 0.6 + 0.1j
    v = fs.stieltjes_value(z)
    kq, wq = np.polynomial.hermite_e.hermegauss(150)
    wq = wq / wq.sum()
    _, mu1, mus2 = cget_coefficients(student).numpy()(kq, r, c)
    rhs = -np.sum(wq / (z * (1 + nu * (mu1 ** 2 * v.g1 + mus2 * v.s))))
    lhs = fs.co_resolvent(z)
    assert abs(lhs - rhs) < 1e-9 * abs(rhs)
    _step(n, f"Co-resolvent at z = {z}: nu s - (1 - nu)/z = {complex(lhs):.10f}, "
             f"-E 1/(z (1 + delta)) on 150 Gauss-Hermite nodes = {complex(rhs):.10f}   "
             "[asserted to 1e-9]")


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    rank_one(n)
    mp_quadratic(n)
    co_resolvent(n)
    plain_rf(n)
    numeric_links(n)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
