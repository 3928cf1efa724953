"""Hermite expansion of an activation and the constants mu0, mu1, mu_star (docs/theory.md (b), (i)).

For ``z ~ N(0, 1)`` the probabilists' Hermite polynomials ``He_k`` are orthogonal,
``E[He_j He_k] = k! delta_jk``, so every ``sigma`` with ``E sigma^2 < oo`` expands as

    sigma = sum_k mu_k He_k / k!,     mu_k = E[sigma(z) He_k(z)]   (:meth:`HermiteConstants.mu_k`).

This script walks through what :func:`srfsym.hermite_constants` computes:

1. orthogonality of ``He_k`` under the library's Gaussian-expectation engine;
2. ``mu0 = E sigma``, ``mu1 = E z sigma = E sigma'`` (Stein's lemma, ``z phi = -phi'``), checked
   for sin, relu, sign (``sigma' = 2 delta``) and tanh (40-digit quadrature);
3. the Hermite coefficients of sin in closed form, ``mu_k = sin(k pi/2) e^{-1/2}``, from the
   generating function ``e^{tz - t^2/2} = sum_k He_k t^k / k!`` at ``t = i``;
4. Parseval: ``sum_k mu_k^2 / k! = E sigma^2`` -- for sin exactly (``e^{-1} sinh 1``) and as a
   40-digit convergence study of the partial sums;
5. ``mu_star^2 = E sigma^2 - mu0^2 - mu1^2`` is the energy above degree 1, and so is the error
   of the best linear predictor: the kernel baseline for ``g = sin`` equals ``mu_star^2(sin)``
   (:func:`srfsym.theory.bounds.bounds`);
6. the same bookkeeping for ``sigma'``: ``check-mu1^2 = sum_{k >= 2} mu_k^2/(k-1)!``.
"""
from functools import partial
import mpmath
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step

from srfsym import activation, gaussian_expectation, hermite_constants
from srfsym.symbolic.activations import X
from srfsym.theory.bounds import bounds
from srfsym.symbolic.gaussian import A, S

TITLE = "Hermite expansion of an activation: mu0, mu1 (Stein), Parseval, mu_star^2"

DPS = 40
Z, T = sp.symbols("z t", real=True)
K = sp.Symbol("k", integer=True, nonnegative=True)
E_HH = sp.Symbol("E[He_j*He_k]")
PHI = sp.Function("phi")
LATEX_NAMES = {E_HH: r"\mathbb{E}[\mathrm{He}_j\mathrm{He}_k]"}
J = sp.Symbol("j", integer=True, nonnegative=True)


_step = partial(print_step, latex_names=LATEX_NAMES)


_is_zero = is_zero


def _poly_gauss(poly):
    """``E p(z)`` for a polynomial from the moments ``E z^m = (m - 1)!!`` (independent side)."""
    coeffs = sp.Poly(sp.expand(poly), Z).all_coeffs()[::-1]
    return sp.Add(*[c * (sp.factorial2(m - 1) if m % 2 == 0 else 0) for m, c in enumerate(coeffs)])


def _standard(expectation):
    """An :class:`~srfsym.symbolic.gaussian.Expectation` at ``a = 0, s = 1`` (closed form)."""
    return sp.simplify(expectation.expr.subs({A: 0, S: 1}))


def _mp_gauss(f, dps=DPS):
    """``E f(z)`` by direct mpmath quadrature against the Gaussian density (independent side)."""
    with mpmath.workdps(dps + 10):
        return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2), [-mpmath.inf, 0, mpmath.inf]
                           ) / mpmath.sqrt(2 * mpmath.pi)


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))

    # 1. orthogonality --------------------------------------------------------------------
    he = [sp.hermite_prob(k, Z) for k in range(9)]
    _step(n, "Probabilists' Hermite polynomials He_0 .. He_5", sp.Tuple(*he[:6]))
    for j in range(9):
        for k in range(j, 9):
            val = _poly_gauss(he[j] * he[k])
            assert val == (sp.factorial(k) if j == k else 0), (j, k, val)
    _step(n, "Orthogonality (Gaussian moments E z^m = (m-1)!!): E[He_j He_k] = k! delta_jk  "
             "(j, k <= 8)", sp.Eq(E_HH, sp.factorial(K) * sp.KroneckerDelta(J, K)))
    gen = sp.exp(T * Z - T**2 / 2)
    ser = sp.series(gen, T, 0, 8).removeO()
    assert sp.expand(ser - sum(sp.hermite_prob(k, Z) * T**k / sp.factorial(k)
                               for k in range(8))) == 0
    _step(n, "Generating function: e^{tz - t^2/2} = sum_k He_k(z) t^k / k!  (checked to t^7)",
          sp.Eq(gen, sp.Sum(sp.Function("He_k")(Z) * T**K / sp.factorial(K), (K, 0, sp.oo))))

    # 2. Stein's lemma -------------------------------------------------------------------
    phi = sp.exp(-Z**2 / 2) / sp.sqrt(2 * sp.pi)
    assert _is_zero(sp.diff(phi, Z) + Z * phi)
    _step(n, "Stein: z phi(z) = -phi'(z), so E[z f(z)] = -int f phi' = int f' phi = E f'(z)",
          sp.Eq(Z * PHI(Z), -sp.Derivative(PHI(Z), Z)))
    for name in ("sin", "relu"):
        act = activation(name)
        hc = hermite_constants(name)
        e_deriv = _standard(gaussian_expectation(act.derivative))
        assert _is_zero(hc.mu1.expr - e_deriv), name
        assert _is_zero(hc.mu0.expr - hc.mu_k(0).expr), name
        assert _is_zero(hc.mu1.expr - hc.mu_k(1).expr), name
        _step(n, f"{name}: mu0 = E sigma = mu_0, mu1 = E z sigma (library) = E sigma' with "
                 f"sigma' = {act.derivative}", sp.Tuple(hc.mu0.expr, hc.mu1.expr))
    # sign: sigma' = 2 delta, the engine refuses E[sigma'] (Dirac mass); integrate by hand
    sign = activation("sign")
    e_delta = sp.integrate(sign.derivative.subs(X, Z) * phi, (Z, -sp.oo, sp.oo))
    assert _is_zero(hermite_constants("sign").mu1.expr - e_delta)
    _step(n, "sign: sigma' = 2 delta, E sigma' = 2 phi(0) = sqrt(2/pi) = mu1 (library)", e_delta)
    # tanh: no closed form, 40-digit quadrature on both sides
    tanh = activation("tanh")
    mu1_lib = hermite_constants("tanh").mu1.mpmath(DPS)
    e_dtanh = gaussian_expectation(tanh.derivative, known_closed_form=False).mpmath(0, 1, dps=DPS)
    direct = _mp_gauss(lambda z: z * mpmath.tanh(z))
    with mpmath.workdps(DPS):
        assert abs(mu1_lib - e_dtanh) < mpmath.mpf(10)**(-DPS + 2)
        assert abs(mu1_lib - direct) < mpmath.mpf(10)**(-DPS + 2)
    _step(n, f"tanh: mu1 (library) = E[1 - tanh^2] (engine) = E[z tanh z] (direct quadrature) "
             f"= {mpmath.nstr(mu1_lib, 30)}  ({DPS} digits)")

    # 3. Hermite coefficients of sin --------------------------------------------------------
    hs = hermite_constants("sin")
    e_tz = sp.simplify(sp.integrate(sp.exp(T * Z) * sp.exp(sp.Symbol("u") * Z
                                                            - sp.Symbol("u")**2 / 2) * phi,
                                    (Z, -sp.oo, sp.oo)))
    _step(n, "E[e^{tz} e^{uz - u^2/2}] = e^{t^2/2} e^{tu}: the coefficient of u^k/k! gives "
             "E[e^{tz} He_k(z)] = t^k e^{t^2/2}", e_tz)
    assert _is_zero(e_tz - sp.exp(T**2 / 2 + T * sp.Symbol("u")))
    mu_k_sin = sp.im(sp.I**K) * sp.exp(-sp.Rational(1, 2))
    closed = sp.sin(K * sp.pi / 2) * sp.exp(-sp.Rational(1, 2))
    _step(n, "sin z = Im e^{iz}, so mu_k(sin) = Im(i^k) e^{-1/2} = sin(k pi/2) e^{-1/2}", closed)
    for k in range(4):
        lib = hs.mu_k(k).expr
        assert _is_zero(lib - closed.subs(K, k)), (k, lib)
        assert _is_zero(lib - mu_k_sin.subs(K, k)), (k, lib)
    with mpmath.workdps(DPS + 10):
        for k in (7, 8, 11):
            hek = sp.lambdify(Z, sp.hermite_prob(k, Z), "mpmath")
            quad = _mp_gauss(lambda z: mpmath.sin(z) * hek(z))
            assert abs(quad - mpmath.mpf(sp.N(closed.subs(K, k), DPS + 5))) < mpmath.mpf(10)**-DPS
    print("    library mu_k(sin) for k = 0..3 (symbolic) and direct 40-digit quadrature for "
          "k = 7, 8, 11 agree   [asserted]")

    # 4. Parseval ----------------------------------------------------------------------------
    series = sp.summation(sp.exp(-1) / sp.factorial(2 * J + 1), (J, 0, sp.oo))
    _step(n, "Parseval for sin: sum_k mu_k^2/k! = e^{-1} sum_j 1/(2j+1)! = e^{-1} sinh 1", series)
    assert _is_zero(series.rewrite(sp.exp) - hs.second_moment.expr)
    print(f"    = (1 - e^-2)/2 = E sin^2 (library second_moment = {hs.second_moment.expr})   [asserted, symbolic]")
    print("    partial sums S_K = sum_{k<=K} mu_k^2/k!  vs  E sin^2 (40 digits):")
    with mpmath.workdps(DPS + 10):
        target = hs.second_moment.mpmath(DPS + 5)
        partial = mpmath.mpf(0)
        prev_err = None
        for k in range(0, 32):
            mk = mpmath.sin(k * mpmath.pi / 2) * mpmath.exp(-mpmath.mpf(1) / 2)
            partial += mk * mk / mpmath.factorial(k)
            if k % 2 == 1:
                err = target - partial
                # the tail is e^{-1} sum_{odd j > k} 1/j!, between e^{-1}/(k+2)! and twice that
                lead = mpmath.exp(-1) / mpmath.factorial(k + 2)
                assert lead <= err <= 2 * lead, (k, err)
                if prev_err is not None:
                    assert err < prev_err
                prev_err = err
                if k in (1, 3, 7, 11, 15, 21, 31):
                    print(f"      K = {k:2d}: E sin^2 - S_K = {mpmath.nstr(err, 6)}")
        assert abs(target - partial) < mpmath.mpf(10)**-35
    print("    the tail is e^{-1}/(K+2)! (1 + O(1/K^2)): the expansion converges "
          "super-exponentially   [asserted]")

    # 5. mu_star^2 = energy above degree 1 ----------------------------------------------------
    above1 = sp.summation(sp.exp(-1) / sp.factorial(2 * J + 1), (J, 1, sp.oo))
    _step(n, "mu_star^2 = E sigma^2 - mu0^2 - mu1^2 = sum_{k >= 2} mu_k^2/k!; for sin "
             "e^{-1}(sinh 1 - 1)", above1)
    assert _is_zero(above1.rewrite(sp.exp) - hs.mustar2.expr)
    assert _is_zero(hs.mustar2.expr - (hs.second_moment.expr - hs.mu0.expr**2 - hs.mu1.expr**2))
    print(f"    = library mustar2 = {hs.mustar2.expr} = {hs.mustar2.decimal(30)}   [asserted]")
    assert hs.mustar2.decimal(30) == "0.0644529172102513324574764823523"
    kern = bounds("sin", "sin", r=0.0, c=1.0, gamma=1.0, nodes=60).kernel
    assert abs(kern - float(hs.mustar2)) < 1e-15
    _step(n, "Kernel baseline (best linear predictor error) E g^2 - mu0*^2 - mu1*^2 is the "
             f"same energy: bounds('sin', ...).kernel = {kern!r} = mu_star^2(sin)   [asserted]")

    # 6. check-mu1 ---------------------------------------------------------------------------
    dsq = sp.summation(sp.exp(-1) / sp.factorial(2 * J), (J, 1, sp.oo))
    _step(n, "sigma' = sum_k mu_{k+1} He_k/k!, so check-mu1^2 = E sigma'^2 - mu1^2 = "
             "sum_{k>=2} mu_k^2/(k-1)!; for sin e^{-1}(cosh 1 - 1)", dsq)
    assert _is_zero(dsq.rewrite(sp.exp) - hs.checkmu1_sq.expr)
    print(f"    = library checkmu1_sq = {hs.checkmu1_sq.expr}   [asserted]")
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
