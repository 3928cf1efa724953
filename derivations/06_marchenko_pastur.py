"""Marchenko--Pastur closed forms of the spectral moments (docs/theory.md (g), (h) "Consistency").

For ``varrho ~ c MP_beta`` (mean ``c``, atom ``(1 - 1/beta)_+`` at 0) and
``S = lambda' + Vhat_1 varrho`` the deterministic spectral sums are

    E 1/S, E varrho/S, E 1/S^2, E varrho/S^2, E varrho^2/S^2

(and ``F -> c``, ``H -> varrho`` give the other six of :class:`srfsym.theory.spectrum.SpectralMoments`).
This script walks through the derivation that :mod:`srfsym.theory.spectrum` performs once in SymPy:

1. the Stieltjes transform ``m(s) = E 1/(x + s)`` is the positive root of
   ``beta s m^2 + (s + 1 - beta) m - 1 = 0``;
2. rescaling to ``S`` gives ``beta lambda' g mt^2 + Bt mt - 1 = 0`` (``g = Vhat_1 c``), whose
   rationalised positive root ``2 / (sqrt(disc) + Bt)`` is finite at ``Vhat_1 = 0``;
3. ``E varrho/S = (1 - lambda' E 1/S)/Vhat_1``, rationalised;
4. the ``1/S^2`` moments by differentiation in ``lambda'`` and ``Vhat_1``;
5. the three cancellation-free regime forms are the same function;

and checks every closed form against 40-digit mpmath quadrature of the MP density
(``x = a + (b - a) sin^2(theta)`` removes the square-root edges) for ``beta in {0.5, 1, 2}``,
then the MP identity ``E varrho/S = c E(1/S) (1 - beta Vhat_1 E varrho/S)`` of docs/theory.md (h).
"""
import mpmath
import sympy as sp

from srfsym.core.derive_tools import is_zero

from srfsym.theory.spectrum import (
    BETA, C, LAM_PRIME, M_VAR, S_VAR, V1HAT, MarchenkoPastur, mp_density_expression,
    mp_moment_expressions, mp_stieltjes_quadratic, mp_stieltjes_root, spectrum_latex,
)

TITLE = "Marchenko-Pastur closed forms of E 1/S, E rho/S, E 1/S^2, E rho/S^2, E rho^2/S^2"

DPS = 40
BETAS = ("0.5", "1", "2")
#: (c, lambda', Vhat_1) test points: generic, small lambda', Vhat_1 = 0, large Vhat_1 c / lambda'
POINTS = (("1.3", "0.05", "1.7"), ("1", "1", "0"), ("2.5", "0.04", "4"))
MOMENTS = ("inv", "rho", "inv2", "rho2", "rhosq2")


_SPECTRUM_NAMES = {LAM_PRIME: r"\lambda'", V1HAT: r"\hat V_1"}
_LATEX_NAMES_LOCAL = {}


def _step(counter, text, expr=None):
    counter[0] += 1
    print(f"\nStep {counter[0]}. {text}")
    if expr is not None:
        print(f"    {sp.sstr(expr)}")
        latex = (sp.latex(expr, symbol_names={**_SPECTRUM_NAMES, **_LATEX_NAMES_LOCAL})
                 if _LATEX_NAMES_LOCAL else spectrum_latex(expr))
        print(f"    LaTeX: {latex}")


_is_zero = is_zero


_QUAD_CACHE = {}


def mp_quadrature(beta, c, lam, v, g, dps=DPS):
    """``E g(varrho)`` for ``varrho ~ c MP_beta`` by mpmath quadrature (atom included).

    The density is typed here from its definition (independent of the library); with
    ``x = lo + (hi - lo) sin^2 theta`` the integrand is smooth on ``[0, pi/2]``.
    """
    key = (beta, c, lam, v, g, dps)
    if key in _QUAD_CACHE:
        return _QUAD_CACHE[key]
    with mpmath.workdps(dps + 10):
        beta, c, lam, v = (mpmath.mpf(x) for x in (beta, c, lam, v))
        lo = c * (1 - mpmath.sqrt(beta))**2
        hi = c * (1 + mpmath.sqrt(beta))**2
        atom = max(mpmath.mpf(0), 1 - 1 / beta)

        def integrand(th):
            x = lo + (hi - lo) * mpmath.sin(th)**2
            # sqrt((hi - x)(x - lo)) dx = (hi - lo)^2 sin^2(th) cos^2(th) * 2 dth
            return ((hi - lo)**2 * mpmath.sin(2 * th)**2 / (4 * mpmath.pi * beta * c * x)
                    * g(x, lam, v))
        val = mpmath.quad(integrand, [0, mpmath.pi / 4, mpmath.pi / 2])
        if atom:
            val += atom * g(mpmath.mpf(0), lam, v)
    _QUAD_CACHE[key] = val
    return val


_INTEGRANDS = {
    "inv": lambda x, lam, v: 1 / (lam + v * x),
    "rho": lambda x, lam, v: x / (lam + v * x),
    "inv2": lambda x, lam, v: 1 / (lam + v * x)**2,
    "rho2": lambda x, lam, v: x / (lam + v * x)**2,
    "rhosq2": lambda x, lam, v: x * x / (lam + v * x)**2,
}


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))

    # 1. the MP quadratic and its positive root ------------------------------------------
    q = mp_stieltjes_quadratic()
    _step(n, "Stieltjes transform m(s) = E 1/(x+s), x ~ MP_beta, is a root of", sp.Eq(q, 0))
    roots = sp.solve(q, M_VAR)
    assert len(roots) == 2
    prod = sp.simplify(roots[0] * roots[1])
    assert _is_zero(prod + 1 / (BETA * S_VAR))
    _step(n, "The product of the roots is -1/(beta s) < 0: exactly one root is positive", prod)
    m_plus = [r for r in roots if r.subs({BETA: 1, S_VAR: 1}) > 0][0]
    _step(n, "Positive root m(s)", m_plus)
    m_num = sp.lambdify((S_VAR, BETA), m_plus, "mpmath")
    with mpmath.workdps(DPS):
        for beta in BETAS:
            for s in ("0.001", "0.7", "4"):
                quad = mp_quadrature(beta, 1, s, 1, lambda x, s_, _v: 1 / (x + s_))
                closed = m_num(mpmath.mpf(s), mpmath.mpf(beta))
                assert abs(closed / quad - 1) < mpmath.mpf(10)**(-DPS + 3), (beta, s)
    print(f"    checked against {DPS}-digit quadrature of the MP density at "
          f"beta in {BETAS}, s in (0.001, 0.7, 4)")

    # 2. rescaling to S = lambda' + Vhat_1 varrho ------------------------------------------
    r = mp_stieltjes_root()
    _step(n, "With m = g mt, s = lambda'/g, g = Vhat_1 c, the quadratic for mt = E 1/S",
          sp.Eq(sp.collect(r["quadratic"], r["mt"]), 0))
    _step(n, "Bt (coefficient of mt) and Ct = 2 lambda' - Bt", sp.Tuple(r["Bt"], r["Ct"]))
    assert sp.expand(r["Bt"] - r["coeffs"][1]) == 0
    _step(n, "Discriminant disc = Bt^2 + 4 beta lambda' g (a sum of non-negative terms)",
          r["disc"])
    assert sp.expand(r["disc"] - r["Ct"]**2 - 4 * LAM_PRIME * V1HAT * C) == 0
    print("    also disc = Ct^2 + 4 lambda' g   [asserted]")
    _step(n, "Raw positive root", r["root"])
    assert _is_zero(r["quadratic"].subs(r["mt"], r["root"]))
    _step(n, "Rationalised: E 1/S = 2/(sqrt(disc) + Bt)  (same function, finite at Vhat_1 = 0)",
          r["inv"])
    assert _is_zero(r["root"] - r["inv"])
    assert sp.simplify(r["inv"].subs(V1HAT, 0) - 1 / LAM_PRIME) == 0
    ser = sp.series(r["inv"], V1HAT, 0, 2).removeO()
    _step(n, "Vhat_1 -> 0: E 1/S = 1/lambda' - c Vhat_1/lambda'^2 + O(Vhat_1^2)", ser)
    assert sp.simplify(ser - (1 / LAM_PRIME - C * V1HAT / LAM_PRIME**2)) == 0

    # 3. E varrho/S -----------------------------------------------------------------------
    e0 = mp_moment_expressions("R0")
    identity = (1 - LAM_PRIME * e0["inv"]) / V1HAT
    _step(n, "E varrho/S = (1 - lambda' E 1/S)/Vhat_1 (varrho/S = (1 - lambda'/S)/Vhat_1); "
             "rationalised with disc - Ct^2 = 4 lambda' g", e0["rho"])
    assert _is_zero(e0["rho"] - identity)
    assert sp.simplify(e0["rho"].subs(V1HAT, 0) - C / LAM_PRIME) == 0

    # 4. the 1/S^2 moments --------------------------------------------------------------------
    _step(n, "E 1/S^2 = -d/dlambda' E 1/S", e0["inv2"])
    _step(n, "Implicit differentiation: -d mt/dVhat_1 = (dq/dVhat_1)/(dq/dmt), dq/dmt = sqrt(disc) "
             "at the root, and dq/dVhat_1 reduced modulo q(mt) is (1 - lambda' mt)/Vhat_1 "
             "= E varrho/S:", r["dq_dv"])
    _step(n, "Hence E varrho/S^2 = -d/dVhat_1 E 1/S = -d/dlambda' E varrho/S "
             "= E(varrho/S)/sqrt(disc) (no cancellation, unlike the differentiated forms)",
          e0["rho2"])
    assert _is_zero(e0["rho2"] + sp.diff(e0["inv"], V1HAT))
    assert _is_zero(e0["rho2"] + sp.diff(e0["rho"], LAM_PRIME))
    _step(n, "E varrho^2/S^2 = -d/dVhat_1 E varrho/S", e0["rhosq2"])
    # the forms of docs/theory.md (g), which divide by Vhat_1
    assert _is_zero(e0["rho2"] - (e0["inv"] - LAM_PRIME * e0["inv2"]) / V1HAT)
    assert _is_zero(e0["rhosq2"] - (e0["rho"] - LAM_PRIME * e0["rho2"]) / V1HAT)
    print("    docs/theory.md (g): E rho/S^2 = (E 1/S - lambda' E 1/S^2)/Vhat_1 and "
          "E rho^2/S^2 = (E rho/S - lambda' E rho/S^2)/Vhat_1   [asserted, symbolic zero]")
    at0 = {f: sp.simplify(e0[f].subs(V1HAT, 0)) for f in MOMENTS}
    _step(n, "At Vhat_1 = 0 (S = lambda'): E varrho^k / lambda'^j, MP moments 1, c, c^2(1+beta)",
          sp.Tuple(*at0.values()))
    assert at0["inv2"] == LAM_PRIME**-2 and sp.simplify(at0["rho2"] - C / LAM_PRIME**2) == 0
    assert sp.simplify(at0["rhosq2"] - C**2 * (1 + BETA) / LAM_PRIME**2) == 0

    # 5. regime forms ---------------------------------------------------------------------------
    _step(n, "Regime forms (1/(q+x) = (q-x)/(disc-x^2) when x < 0): R1 (Bt < 0, beta > 1) "
             "E 1/S =", mp_moment_expressions("R1")["inv"])
    _step(n, "R2 (Ct < 0, beta < 1): E varrho/S =", mp_moment_expressions("R2")["rho"])
    for reg in ("R1", "R2"):
        e = mp_moment_expressions(reg)
        for f in ("inv", "rho"):
            assert _is_zero(e[f] - e0[f]), (reg, f)
    print("    R1 and R2 equal R0 for E 1/S and E rho/S   [asserted, symbolic zero]; the other")
    print("    three are built from these two by the same operations "
          "(d/dlambda', d/dVhat_1, /sqrt(disc))")

    # 6. quadrature --------------------------------------------------------------------------
    _step(n, f"All five moments (library, mpmath back end) vs {DPS}-digit quadrature of the "
             "density", mp_density_expression()[0])
    worst = mpmath.mpf(0)
    for beta in BETAS:
        for c, lam, v in POINTS:
            mom = MarchenkoPastur(sp.Rational(beta), sp.Rational(c)).moments_mpmath(
                sp.Rational(lam), sp.Rational(v), dps=DPS + 5)
            with mpmath.workdps(DPS + 5):
                for f in MOMENTS:
                    quad = mp_quadrature(beta, c, lam, v, _INTEGRANDS[f])
                    err = abs(getattr(mom, f) / quad - 1)
                    worst = max(worst, err)
                    assert err < mpmath.mpf(10)**(-DPS), (beta, c, lam, v, f, err)
    print(f"    beta in {BETAS}, (c, lambda', Vhat_1) in {POINTS}: "
          f"max relative deviation {mpmath.nstr(worst, 3)}")

    # 7. MP identity of docs/theory.md (h) ------------------------------------------------------------
    lhs, rhs = e0["rho"], C * e0["inv"] * (1 - BETA * V1HAT * e0["rho"])
    e_rho_s, e_inv_s = sp.Symbol("E[varrho/S]"), sp.Symbol("E[1/S]")
    _LATEX_NAMES_LOCAL[e_rho_s] = r"\mathbb{E}\frac{\varrho}{S}"
    _LATEX_NAMES_LOCAL[e_inv_s] = r"\mathbb{E}\frac{1}{S}"
    _step(n, "docs/theory.md (h), consistency: E varrho/S = c E(1/S) (1 - beta Vhat_1 E varrho/S)",
          sp.Eq(e_rho_s, C * e_inv_s * (1 - BETA * V1HAT * e_rho_s)))
    assert _is_zero(lhs - rhs)
    print("    symbolic zero with the closed forms")
    with mpmath.workdps(DPS + 5):
        for beta in BETAS:
            for c, lam, v in POINTS:
                e_inv = mp_quadrature(beta, c, lam, v, _INTEGRANDS["inv"])
                e_rho = mp_quadrature(beta, c, lam, v, _INTEGRANDS["rho"])
                cc, bb, vv = (mpmath.mpf(x) for x in (c, beta, v))
                resid = e_rho - cc * e_inv * (1 - bb * vv * e_rho)
                assert abs(resid) < mpmath.mpf(10)**(-DPS) * abs(e_rho), (beta, c, lam, v)
    print(f"    and with {DPS}-digit quadrature at all (beta, c, lambda', Vhat_1) above")
    print("    (it is the scaled quadratic again: substitute E rho/S = (1 - lambda' E 1/S)/Vhat_1)")
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
