"""Conditional test error eps(kappa) and the L2 projections behind the bounds (docs/bounds.md).

Conditionally on the spike coordinate kappa, the test label is ``sigma*(gamma kappa + rho z)`` and
the Gaussian-equivalent predictor of docs/theory.md (f) is

    yhat = b + mu1 (psi z + sqrt(q1 - psi^2) g) + mu* sqrt(q2) g',   b = mu0 m + mu1 kappa theta,

with ``z, g, g'`` independent standard Gaussians (``z`` is the teacher's direction orthogonal to the
spike).  The script

1. derives ``eps(kappa) = E_{z,g,g'}(sigma* - yhat)^2`` with SymPy, using only the joint moments
   ``E sigma* = h``, ``E z sigma* = h1``, ``E sigma*^2 = h2`` (docs/theory.md (e)), and shows that the
   ``+- mu1^2 psi^2`` terms cancel;
2. asserts that this is the conditional error the fixed point uses
   (``srfsym.theory.channels.square.SquareLossChannel.conditional_error``, evaluated on symbols) and checks it against a
   direct Gauss--Hermite average over ``(z, g, g')`` of the squared error at one kappa;
3. derives the upper bound ``U = E g^2 - (E g mu0)^2 / E mu0^2`` (minimum over ``b`` of the
   readout reduced to the mean direction), the spike-only projection on
   ``span{mu0(kappa), kappa mu1(kappa)}`` (2x2 normal equations, ``psi = q1 = q2 = 0``) and the
   lower bound valid at every gamma, which also minimises over ``psi`` (``q1 = psi^2``):
   ``L_gamma = L - (E h1 mu1)^2 / E mu1^2``;
4. checks them against :func:`srfsym.theory.bounds.bounds` with kappa-integrals done independently by
   adaptive quadrature.
"""
from functools import partial
import math
from types import SimpleNamespace

import numpy as np
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step
from scipy import integrate

from srfsym import activation, cget_coefficients, srf_mapping, teacher_functions
from srfsym.theory.bounds import bounds
from srfsym.theory.channels.square import SquareLossChannel
from srfsym.theory.state import State

TITLE = "Conditional test error eps(kappa) and the projections behind the bounds"

SIG, Z, G, GP = sp.symbols("sigma_star z g g'", real=True)
KAP = sp.Symbol("kappa", real=True)
MU0, MU1 = sp.symbols("mu0 mu1", real=True)
MUS = sp.Symbol("mu_star", positive=True)
M, THETA, PSI = sp.symbols("m theta psi", real=True)
Q1, Q2 = sp.symbols("q1 q2", positive=True)
H, H1, H2 = sp.symbols("h h1 h2", real=True)
B = sp.Symbol("b", real=True)
#: kappa-moments for the bounds
EG2, U0, U1, G00, G01, G11 = sp.symbols("Eg2 u0 u1 Gamma00 Gamma01 Gamma11", real=True)
B1, B2 = sp.symbols("b1 b2", real=True)
#: kappa-moments of the direction z mu1(kappa) orthogonal to the spike
V11, W1 = sp.symbols("Emu1sq Eh1mu1", real=True)
M0K, K1K = sp.symbols("M0 K1", real=True)       # mu0(kappa) and kappa mu1(kappa)
LATEX_NAMES = {SIG: r"\sigma_\star", G: "g", GP: "g'", MU0: r"\mu_0", MU1: r"\mu_1",
               MUS: r"\mu_\star", THETA: r"\theta", PSI: r"\psi", Q1: "q_1", Q2: "q_2",
               H1: "h_1", H2: "h_2", KAP: r"\kappa", EG2: r"\mathbb{E}g^2",
               U0: r"\mathbb{E}[g\mu_0]", U1: r"\mathbb{E}[g\kappa\mu_1]",
               G00: r"\mathbb{E}\mu_0^2", G01: r"\mathbb{E}[\mu_0\kappa\mu_1]",
               G11: r"\mathbb{E}[\kappa^2\mu_1^2]", B1: "b_1", B2: "b_2",
               M0K: "M_0", K1K: "K_1", V11: r"\mathbb{E}\mu_1^2", W1: r"\mathbb{E}[h_1\mu_1]"}


_step = partial(print_step, latex_names=LATEX_NAMES)


_is_zero = is_zero


def _gauss_moment(k):
    return 0 if k % 2 else sp.factorial2(k - 1)


#: joint moments of (sigma*, z): z ~ N(0,1), sigma* = sigma*(gamma kappa + rho z)
_JOINT = {(0, 0): 1, (1, 0): H, (0, 1): 0, (1, 1): H1, (2, 0): H2, (0, 2): 1}


def expect(expr):
    """``E_{z,g,g'}`` of a polynomial in (sigma*, z, g, g') of degree <= 2 in (sigma*, z).

    ``(sigma*, z)`` is independent of ``g`` and ``g'``; its joint moments are h, h1, h2.
    """
    poly = sp.Poly(sp.expand(expr), SIG, Z, G, GP)
    out = sp.S.Zero
    for (a, bz, c, e), coeff in poly.terms():
        out += coeff * _JOINT[(a, bz)] * _gauss_moment(c) * _gauss_moment(e)
    return sp.expand(out)


def _to_moments(expr):
    """Replace products of kappa-functions by their kappa-moments (linear in each monomial)."""
    poly = sp.Poly(sp.expand(expr), H, H2, M0K, K1K)
    table = {(0, 1, 0, 0): EG2, (1, 0, 1, 0): U0, (1, 0, 0, 1): U1, (0, 0, 2, 0): G00,
             (0, 0, 1, 1): G01, (0, 0, 0, 2): G11}
    out = sp.S.Zero
    for mon, coeff in poly.terms():
        if mon == (0, 0, 0, 0):
            out += coeff
        else:
            out += coeff * table[mon]
    return sp.expand(out)


def _gauss_kappa(f):
    """``E_kappa f(kappa)`` by adaptive quadrature (independent of the library's nodes)."""
    val, _ = integrate.quad(lambda k: f(k) * math.exp(-k * k / 2), -np.inf, np.inf,
                            epsabs=1e-15, epsrel=1e-13, limit=400)
    return val / math.sqrt(2 * math.pi)


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))

    # 1. the conditional error -------------------------------------------------------------
    b = MU0 * M + MU1 * KAP * THETA
    yhat = B + MU1 * (PSI * Z + sp.sqrt(Q1 - PSI**2) * G) + MUS * sp.sqrt(Q2) * GP
    _step(n, "Gaussian-equivalent predictor at fixed kappa (b = mu0 m + mu1 kappa theta)", yhat)
    part_z = expect((SIG - B - MU1 * PSI * Z)**2)
    part_g = expect((MU1 * sp.sqrt(Q1 - PSI**2) * G + MUS * sp.sqrt(Q2) * GP)**2)
    _step(n, "E_z (sigma* - b - mu1 psi z)^2 with E sigma* = h, E z sigma* = h1, E sigma*^2 = h2",
          part_z)
    _step(n, "independent Gaussian part: E(mu1 sqrt(q1 - psi^2) g + mu* sqrt(q2) g')^2", part_g)
    eps_b = expect((SIG - yhat)**2)
    assert sp.expand(eps_b - part_z - part_g) == 0
    assert sp.expand(part_z.coeff(PSI, 2) + part_g.coeff(PSI, 2)) == 0
    _step(n, "Sum: the +mu1^2 psi^2 of the first part cancels the -mu1^2 psi^2 of the second",
          sp.collect(eps_b, [B, PSI]))
    eps = eps_b.subs(B, b)
    target = H2 - 2 * b * H - 2 * MU1 * PSI * H1 + b**2 + MU1**2 * Q1 + MUS**2 * Q2
    assert _is_zero(eps - target)
    _step(n, "eps(kappa) = h2 - 2 b h - 2 mu1 psi h1 + b^2 + mu1^2 q1 + mu*^2 q2", target)

    # 2. = the fixed point's conditional error --------------------------------------------
    fake = SimpleNamespace(mu0=MU0, mu1=MU1, kmu1=KAP * MU1, mu1sq=MU1**2, mus2=MUS**2, two_mu1=2 * MU1,
                           h=H, h1=H1, h2=H2)
    lib = SquareLossChannel.conditional_error(fake, State(Q1, Q2, None, None, THETA, PSI, M))
    assert _is_zero(lib - eps)
    _step(n, "srfsym.theory.channels.square.SquareLossChannel.conditional_error evaluated on these symbols is the same "
             "expression   [asserted, symbolic zero]", sp.expand(lib))

    # numeric: direct average over (z, g, g') at one kappa
    student, teacher = "erf", "sin"
    r, c, gamma, kappa = 1.1, 1.2, 0.8, 0.7
    state = dict(m=0.3, theta=0.5, psi=0.4, q1=0.6, q2=0.3)
    mu0v, mu1v, mus2v = (float(v) for v in cget_coefficients(student).numpy()(kappa, r, c))
    hv, h1v, h2v = (float(v) for v in teacher_functions(teacher).numpy()(kappa, gamma))
    zz, wz = np.polynomial.hermite_e.hermegauss(80)
    gg, wg = np.polynomial.hermite_e.hermegauss(4)
    wz, wg = wz / wz.sum(), wg / wg.sum()
    rho = math.sqrt(1 - gamma**2)
    label = activation(teacher).numpy(gamma * kappa + rho * zz)
    bv = mu0v * state["m"] + mu1v * kappa * state["theta"]
    pred = (bv + mu1v * (state["psi"] * zz[:, None, None]
                         + math.sqrt(state["q1"] - state["psi"]**2) * gg[None, :, None])
            + math.sqrt(mus2v * state["q2"]) * gg[None, None, :])
    direct = float(np.einsum("i,j,k,ijk->", wz, wg, wg, (label[:, None, None] - pred)**2))
    formula = float(target.subs({MU0: mu0v, MU1: mu1v, MUS: math.sqrt(mus2v), H: hv, H1: h1v,
                                 H2: h2v, KAP: kappa, M: state["m"], THETA: state["theta"],
                                 PSI: state["psi"], Q1: state["q1"], Q2: state["q2"]}))
    assert abs(direct - formula) < 1e-13
    _step(n, f"Check at kappa = {kappa} ({student}/{teacher}, r = {r}, c = {c}, gamma = {gamma}): "
             f"Gauss-Hermite average of (sigma*(gamma k + rho z) - yhat)^2 = {direct:.15f}, "
             f"formula with library h, h1, h2, mu's = {formula:.15f}   [asserted to 1e-13]")

    # 3. projections -------------------------------------------------------------------------
    no_noise = {PSI: 0, Q1: 0, Q2: 0}
    eps_proj = sp.expand(eps_b.subs(no_noise).subs(B, B1 * M0K + B2 * K1K))
    _step(n, "Readout reduced to the low-dimensional part (psi = q1 = q2 = 0, b = b1 M0 + b2 K1 "
             "with M0 = mu0(kappa), K1 = kappa mu1(kappa)): eps(kappa) = h2 - 2 b h + b^2",
          eps_proj)
    objective = _to_moments(eps_proj)
    _step(n, "E_kappa eps = E(g - b)^2 in kappa-moments (E_z g = h, so E[g mu0] = E[h mu0], "
             "E g^2 = E h2)", objective)
    up_obj = objective.subs(B2, 0)
    b_star = sp.solve(sp.diff(up_obj, B1), B1)[0]
    upper = sp.simplify(up_obj.subs(B1, b_star))
    assert _is_zero(b_star - U0 / G00)
    assert _is_zero(upper - (EG2 - U0**2 / G00))
    _step(n, "Upper bound: b2 = 0, d/db1 = 0 gives b* = E[g mu0]/E mu0^2 and "
             "U = E g^2 - (E g mu0)^2/E mu0^2", sp.Tuple(b_star, upper))
    normal = [sp.diff(objective, v) for v in (B1, B2)]
    sol = sp.solve(normal, [B1, B2], dict=True)[0]
    lower = sp.simplify(objective.subs(sol))
    Gam = sp.Matrix([[G00, G01], [G01, G11]])
    u = sp.Matrix([U0, U1])
    assert sp.simplify(sp.Matrix([sol[B1], sol[B2]]) - Gam.inv() * u) == sp.zeros(2, 1)
    assert _is_zero(lower - (EG2 - (u.T * Gam.inv() * u)[0]))
    _step(n, "Lower bound: the normal equations Gamma b = u (Gamma = [[E mu0^2, E mu0 k mu1], "
             "[E mu0 k mu1, E k^2 mu1^2]], u = (E g mu0, E g k mu1)) give "
             "L = E g^2 - u^T Gamma^{-1} u", sp.Tuple(sol[B1], sol[B2], lower))
    hess = sp.hessian(objective, (B1, B2))
    assert sp.simplify(hess - 2 * Gam) == sp.zeros(2, 2)
    print("    the Hessian is 2 Gamma (a Gram matrix, positive semi-definite): a minimum   "
          "[asserted]; L <= U since the span contains mu0 (asserted numerically below)")
    print("    This L ignores the direction z orthogonal to the spike: it bounds the test error "
          "only at gamma = 1 (h1 = 0).  At gamma < 1 it is the 'spike-only projection'.")

    # 3b. the lower bound at every gamma ------------------------------------------------------
    # eps(kappa) >= E_z(sigma* - b - mu1 psi z)^2 because q1 >= psi^2 and q2 >= 0; minimise it
    # over b in span{M0, K1} AND over psi (the fixed point's psi is one particular value)
    eps_z = sp.expand(part_z.subs(B, B1 * M0K + B2 * K1K))
    _step(n, "Lower bound at every gamma: eps(kappa) >= E_z(sigma* - b - mu1 psi z)^2 (q1 >= psi^2, "
             "q2 >= 0); with b = b1 M0 + b2 K1", eps_z)
    poly = sp.Poly(eps_z, H, H2, H1, M0K, K1K, MU1)
    table = {(0, 1, 0, 0, 0, 0): EG2, (1, 0, 0, 1, 0, 0): U0, (1, 0, 0, 0, 1, 0): U1,
             (0, 0, 0, 2, 0, 0): G00, (0, 0, 0, 1, 1, 0): G01, (0, 0, 0, 0, 2, 0): G11,
             (0, 0, 1, 0, 0, 1): W1, (0, 0, 0, 0, 0, 2): V11}
    objective_g = sp.expand(sum(coeff * table[mon] for mon, coeff in poly.terms()))
    assert _is_zero(objective_g - objective - PSI**2 * V11 + 2 * PSI * W1)
    _step(n, "E_kappa: the spike objective above plus psi^2 E mu1^2 - 2 psi E[h1 mu1] (no cross "
             "terms: E_z z = 0, so z mu1 is orthogonal to every function of kappa)   [asserted]",
          objective_g)
    sol_g = sp.solve([sp.diff(objective_g, v) for v in (B1, B2, PSI)], [B1, B2, PSI],
                     dict=True)[0]
    lower_g = sp.simplify(objective_g.subs(sol_g))
    assert _is_zero(lower_g - (lower - W1**2 / V11))
    assert _is_zero(sol_g[PSI] - W1 / V11)
    _step(n, "Minimum over (b1, b2, psi): L_gamma = L - (E h1 mu1)^2 / E mu1^2, psi* = "
             "E[h1 mu1]/E mu1^2   [asserted]", sp.Tuple(sol_g[PSI], lower_g))

    # 4. numbers against srfsym.theory.bounds ------------------------------------------------------------
    mp_ = srf_mapping("erf", "sin", eta=2, alpha0=5)
    r, c, gamma = mp_.r, mp_.c, mp_.gamma
    co = cget_coefficients("erf").numpy()
    te = teacher_functions("sin").numpy()

    def parts(k):
        m0, m1, _ = (float(v) for v in co(k, r, c))
        h, h1, h2 = (float(v) for v in te(k, gamma))
        return m0, k * m1, h, h2, m1, h1

    mom = {EG2: _gauss_kappa(lambda k: parts(k)[3]),
           U0: _gauss_kappa(lambda k: parts(k)[0] * parts(k)[2]),
           U1: _gauss_kappa(lambda k: parts(k)[1] * parts(k)[2]),
           G00: _gauss_kappa(lambda k: parts(k)[0]**2),
           G01: _gauss_kappa(lambda k: parts(k)[0] * parts(k)[1]),
           G11: _gauss_kappa(lambda k: parts(k)[1]**2),
           V11: _gauss_kappa(lambda k: parts(k)[4]**2),
           W1: _gauss_kappa(lambda k: parts(k)[4] * parts(k)[5])}
    U_mine, L_mine = float(upper.subs(mom)), float(lower.subs(mom))
    Lg_mine, psi_mine = float(lower_g.subs(mom)), float(sol_g[PSI].subs(mom))
    b_up, b_lo = float(b_star.subs(mom)), (float(sol[B1].subs(mom)), float(sol[B2].subs(mom)))
    lib_b = bounds("erf", "sin", r, c, gamma)
    assert L_mine <= U_mine
    assert Lg_mine < L_mine <= U_mine
    assert abs(U_mine - lib_b.upper) < 1e-10 and abs(L_mine - lib_b.spike_span) < 1e-10
    assert abs(Lg_mine - lib_b.lower) < 1e-10
    assert abs(b_up - lib_b.b_upper) < 1e-9 and abs(psi_mine - lib_b.b_lower[2]) < 1e-9
    _step(n, f"erf student, sin teacher, eta = 2, alpha0 = 5 (r = {r:.6f}, c = {c:.6f}, "
             f"gamma = {gamma:.6f}); kappa-moments by adaptive quadrature:")
    print(f"    upper: derived {U_mine:.13f}   srfsym.theory.bounds {lib_b.upper:.13f}")
    print(f"    lower (gamma): derived {Lg_mine:.13f}   srfsym.theory.bounds {lib_b.lower:.13f}")
    print(f"    spike-only:    derived {L_mine:.13f}   srfsym.theory.bounds {lib_b.spike_span:.13f}")
    print(f"    b*: {b_up:.10f} / {lib_b.b_upper:.10f};  psi*: {psi_mine:.10f} / "
          f"{lib_b.b_lower[2]:.10f}   [asserted to 1e-10 / 1e-9]")
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
