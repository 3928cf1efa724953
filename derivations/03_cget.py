"""Conditional Gaussian-equivalence (cGET) coefficients and teacher functions (docs/theory.md (d), (e)).

Conditionally on the spike coordinate ``kappa``, a neuron of the sRF model sees
``sigma(a + s xi)`` with ``a = r kappa``, ``s = sqrt(c)``, ``xi ~ N(0, 1)``, and the features are
equivalent to ``mu0(kappa) 1 + mu1(kappa) W x + mu_star(kappa) xi_p`` with

    mu0 = E sigma(a + s xi),   mu1 = E[xi sigma(a + s xi)]/s = E sigma'(a + s xi),
    mu_star^2 = E sigma^2 - mu0^2 - c mu1^2 .

This script shows the closed forms that :func:`srfsym.cget_coefficients` derives for sign, erf,
relu, He3 and sin and asserts:

1. the parities in kappa for odd sigma (mu0 odd, mu1 and mu_star^2 even), symbolically, and
   their failure for relu (``mu0(k) - mu0(-k) = r k``, ``mu1(k) + mu1(-k) = 1``);
2. the Hermite expansion of ``He3(a + s xi)`` in docs/theory.md (d) and the coefficients read off it;
3. the ``r -> 0`` limit (SymPy ``limit``): kappa-independent constants equal to the random-features
   Gaussian-equivalence constants with bulk variance c (40-digit quadrature at c = 13/10, and
   :func:`srfsym.hermite_constants` at c = 1);
4. the slides' sign example (``r = c = 1``);
5. the teacher functions h, h1 = rho E sigma*' (Stein), h2 of :func:`srfsym.teacher_functions`,
   their relation to the cGET integrals at ``(r kappa, c) -> (gamma kappa, rho^2)`` and the sin
   closed forms of docs/theory.md (e).
"""
from functools import partial
import mpmath
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step

from srfsym import activation, cget_coefficients, gaussian_expectation, hermite_constants
from srfsym import teacher_functions
from srfsym.symbolic.cget import C, GAMMA, KAPPA, R
from srfsym.symbolic.gaussian import A, S

TITLE = "Conditional GET coefficients mu0(kappa), mu1(kappa), mu_star(kappa)^2 and h, h1, h2"

DPS = 40
ACTS = ("sign", "erf", "relu", "he3", "sin")
ODD = ("sign", "erf", "he3", "sin")
XI = sp.Symbol("xi", real=True)
AA = sp.Symbol("a", real=True)
SS = sp.Symbol("s", positive=True)
LATEX_NAMES = {KAPPA: r"\kappa", GAMMA: r"\gamma"}


_step = partial(print_step, latex_names=LATEX_NAMES)


_is_zero = is_zero


def _poly_gauss(poly, var):
    """``E p(xi)`` for a polynomial from the moments ``E xi^m = (m - 1)!!`` (independent side)."""
    coeffs = sp.Poly(sp.expand(poly), var).all_coeffs()[::-1]
    return sp.expand(sp.Add(*[c * (sp.factorial2(m - 1) if m % 2 == 0 else 0)
                              for m, c in enumerate(coeffs)]))


def _mp_gauss(f, dps=DPS):
    """``E f(xi)`` by direct mpmath quadrature, split at 0 (kinks of sign and relu)."""
    with mpmath.workdps(dps + 10):
        return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2),
                           [-mpmath.inf, 0, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)


def _rf_constants_quadrature(name, c, dps=DPS):
    """RF Gaussian-equivalence constants with bulk variance c, by direct quadrature."""
    f = activation(name).mpmath
    with mpmath.workdps(dps + 10):
        s = mpmath.sqrt(mpmath.mpf(c))
        m0 = _mp_gauss(lambda z: f(s * z))
        m1 = _mp_gauss(lambda z: z * f(s * z)) / s
        e2 = _mp_gauss(lambda z: f(s * z)**2)
        return m0, m1, e2 - m0**2 - s**2 * m1**2


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    cos = {name: cget_coefficients(name) for name in ACTS}

    # 1. closed forms -----------------------------------------------------------------------
    for name in ACTS:
        co = cos[name]
        assert co.method == "exact", name
        _step(n, f"{name}: (mu0, mu1, mu_star^2)(kappa) from srfsym.cget_coefficients",
              sp.Tuple(co.mu0, co.mu1, co.mustar2))

    # 2. parities ---------------------------------------------------------------------------
    _step(n, "Parity: for odd sigma, sigma(-a + s xi) = -sigma(a - s xi) and xi -> -xi leaves "
             "the law invariant, so mu0(-k) = -mu0(k); E[xi sigma] and E sigma^2 are even")
    flip = {KAPPA: -KAPPA}
    for name in ODD:
        co = cos[name]
        assert _is_zero(co.mu0.subs(flip) + co.mu0), name
        assert _is_zero(co.mu1.subs(flip) - co.mu1), name
        assert _is_zero(co.mustar2.subs(flip) - co.mustar2), name
    print(f"    mu0 odd, mu1 even, mu_star^2 even in kappa for {ODD}   [asserted, symbolic zero]")
    relu = cos["relu"]
    odd_part = sp.simplify(relu.mu0 - relu.mu0.subs(flip))
    even_part = sp.simplify(relu.mu1 + relu.mu1.subs(flip))
    assert odd_part == R * KAPPA and even_part == 1
    _step(n, "relu is not odd: relu(x) - relu(-x) = x and relu'(x) + relu'(-x) = 1 give "
             "mu0(k) - mu0(-k) = r k, mu1(k) + mu1(-k) = 1", sp.Tuple(odd_part, even_part))

    # 3. He3 expansion --------------------------------------------------------------------------
    he = [sp.hermite_prob(k, XI) for k in range(4)]
    sigma = activation("he3").expr.subs(activation("he3").expr.free_symbols.pop(), AA + SS * XI)
    coeffs = [_poly_gauss(sigma * he[k], XI) / sp.factorial(k) for k in range(4)]
    expansion = sp.Add(*[cf * h for cf, h in zip(coeffs, he)])
    assert sp.expand(expansion - sigma) == 0
    math_form = (SS**3 * he[3] + 3 * AA * SS**2 * he[2] + 3 * SS * (AA**2 + SS**2 - 1) * he[1]
                 + AA**3 + 3 * AA * (SS**2 - 1))
    assert sp.expand(math_form - sigma) == 0
    _step(n, "He3(a + s xi) in Hermite polynomials of xi (coefficients E[sigma He_k]/k!, "
             "c = s^2): s^3 He3 + 3 a s^2 He2 + 3 s (a^2 + c - 1) He1 + a^3 + 3 a (c - 1)",
          sp.Tuple(*[sp.factor(cf) for cf in coeffs]))
    mu0_h = coeffs[0]
    mu1_h = coeffs[1] / SS
    mus2_h = sum(sp.factorial(k) * coeffs[k]**2 for k in range(2, 4))
    sub = {AA: R * KAPPA, SS: sp.sqrt(C)}
    he3 = cos["he3"]
    for mine, lib in ((mu0_h, he3.mu0), (mu1_h, he3.mu1), (mus2_h, he3.mustar2)):
        assert _is_zero(mine.subs(sub) - lib)
    _step(n, "hence mu0 = a^3 + 3a(c-1), mu1 = 3(a^2 + c - 1), mu_star^2 = 3! s^6 + 2! (3 a s^2)^2 "
             "= 6c^3 + 18 a^2 c^2 (Parseval above degree 1) = library   [asserted]",
          sp.Tuple(sp.expand(mu0_h.subs(SS, sp.sqrt(C))), sp.expand(mu1_h.subs(SS, sp.sqrt(C))),
                   sp.expand(mus2_h.subs(SS, sp.sqrt(C)))))

    # 4. r -> 0 ------------------------------------------------------------------------------
    _step(n, "r -> 0 (SymPy limit): kappa drops out and the coefficients become the RF "
             "Gaussian-equivalence constants with bulk variance c")
    c_test = sp.Rational(13, 10)
    for name in ACTS:
        co = cos[name]
        lims = [sp.simplify(sp.limit(e, R, 0)) for e in (co.mu0, co.mu1, co.mustar2)]
        assert all(not lim.has(KAPPA) for lim in lims), name
        hc = hermite_constants(name)
        for lim, const in zip(lims, (hc.mu0, hc.mu1, hc.mustar2)):
            assert _is_zero(lim.subs(C, 1) - const.expr), (name, lim)
        quad = _rf_constants_quadrature(name, c_test)
        with mpmath.workdps(DPS + 5):
            for lim, q in zip(lims, quad):
                val = mpmath.mpf(str(sp.N(lim.subs(C, c_test), DPS + 10)))
                assert abs(val - q) < mpmath.mpf(10)**(-DPS + 2), (name, lim, val, q)
        print(f"    {name:5s}: {sp.sstr(sp.Tuple(*lims))}")
        print(f"           LaTeX: {sp.latex(sp.Tuple(*lims))}")
    print("    = hermite_constants at c = 1 (symbolic) and = direct 40-digit quadrature of "
          "E sigma(sqrt(c) xi), E[xi sigma]/sqrt(c), E sigma^2 - mu0^2 - c mu1^2 at c = 13/10   "
          "[asserted]")

    # 5. slides' sign example ------------------------------------------------------------------
    k = KAPPA
    slides = (sp.erf(k / sp.sqrt(2)), sp.sqrt(2 / sp.pi) * sp.exp(-k**2 / 2))
    slides = slides + (1 - slides[0]**2 - slides[1]**2,)
    sign = cos["sign"]
    at11 = [e.subs({R: 1, C: 1}) for e in (sign.mu0, sign.mu1, sign.mustar2)]
    for mine, lib in zip(slides, at11):
        assert _is_zero(mine - lib)
    _step(n, "The slides' sign example is r = c = 1: erf(k/sqrt 2), sqrt(2/pi) e^{-k^2/2}, "
             "1 - mu0^2 - mu1^2 (the slides' 'mu2(kappa)' is this variance)   [asserted]",
          sp.Tuple(*slides))

    # 6. teacher functions ---------------------------------------------------------------------
    rho = sp.sqrt(1 - GAMMA**2)
    to_teacher = {R: GAMMA, C: 1 - GAMMA**2}
    _step(n, "Teacher: <theta*, x> = gamma kappa + rho z, rho = sqrt(1 - gamma^2); h = E sigma*, "
             "h1 = E[z sigma*] = rho E sigma*' (Stein), h2 = E sigma*^2 -- the cGET integrals at "
             "(r kappa, c) -> (gamma kappa, rho^2): h = mu0, h1 = rho mu1, "
             "h2 = mu_star^2 + mu0^2 + rho^2 mu1^2")
    for name in ("sin", "erf", "relu", "he3"):
        te, co = teacher_functions(name), cos[name]
        assert _is_zero(te.h - co.mu0.subs(to_teacher)), name
        assert _is_zero(te.h1 - rho * co.mu1.subs(to_teacher)), name
        assert _is_zero(te.h2 - (co.mustar2 + co.mu0**2 + C * co.mu1**2).subs(to_teacher)), name
        stein = gaussian_expectation(activation(name).derivative).expr.subs(
            {A: GAMMA * KAPPA, S: rho}, simultaneous=True)
        assert _is_zero(te.h1 - rho * stein), name
    print("    for sin, erf, relu, he3: relations to cget_coefficients and "
          "h1 = rho E sigma*'(gamma k + rho z) (engine on sigma*')   [asserted, symbolic zero]")
    te = teacher_functions("sin")
    rho2 = 1 - GAMMA**2
    math_e = (sp.exp(-rho2 / 2) * sp.sin(GAMMA * k), rho * sp.exp(-rho2 / 2) * sp.cos(GAMMA * k),
              (1 - sp.exp(-2 * rho2) * sp.cos(2 * GAMMA * k)) / 2)
    for mine, lib in zip(math_e, (te.h, te.h1, te.h2)):
        assert _is_zero(mine - lib)
    _step(n, "sin teacher, docs/theory.md (e): h = e^{-rho^2/2} sin(gamma k), h1 = rho e^{-rho^2/2} "
             "cos(gamma k), h2 = (1 - e^{-2 rho^2} cos 2 gamma k)/2   [asserted]",
          sp.Tuple(te.h, te.h1, te.h2))
    # tanh (no closed form): the generated mpmath evaluator against direct quadrature
    tt = teacher_functions("tanh")
    g, kap = mpmath.mpf("0.8"), mpmath.mpf("0.7")
    h, h1, h2 = tt.mpmath(DPS)(kap, g)
    with mpmath.workdps(DPS + 10):
        rh = mpmath.sqrt(1 - g * g)
        qh = _mp_gauss(lambda z: mpmath.tanh(g * kap + rh * z))
        qh1 = rh * _mp_gauss(lambda z: mpmath.sech(g * kap + rh * z)**2)
        qh2 = _mp_gauss(lambda z: mpmath.tanh(g * kap + rh * z)**2)
        for lib, q in ((h, qh), (h1, qh1), (h2, qh2)):
            assert abs(lib - q) < mpmath.mpf(10)**(-DPS + 3)
    _step(n, f"tanh teacher at gamma = 0.8, kappa = 0.7: (h, h1, h2) = ({mpmath.nstr(h, 20)}, "
             f"{mpmath.nstr(h1, 20)}, {mpmath.nstr(h2, 20)}) = direct quadrature, h1 as "
             f"rho E tanh'  ({DPS} digits)   [asserted]")
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
