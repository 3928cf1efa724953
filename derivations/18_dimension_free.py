"""Beyond proportional: the dimension-free deterministic equivalent of random-feature ridge
regression and its scaling laws (docs/theory.md (o)).

1. ``nu1`` eliminated: ``g(nu2) = n - T1 - lam/(nu2 (1 - T1/p))`` is increasing on ``T1 < p``
   (``T1 + nu T1' = T2`` and ``T2 <= T1 < p``), so the root is unique;
2. ``p -> oo`` (SymPy limits): ``nu1 = nu2``, ``lam = nu (n - T1)`` and the kernel-ridge bias and
   variance ``nu^2 S_theta/(1 - T2/n)``, ``noise T2/(n - T2)``;
3. ``lam -> 0`` with ``p < n``: ``nu1 -> 0``, ``Upsilon -> p/n``, variance ``noise p/(n - p)``;
   with ``p > n``: ``T1(nu2) = n``; numerically continuous at ``lam = 0+``; noise 0: no variance;
4. the power-law tail in closed form (incomplete beta, both forms) against mpmath quadrature at
   30 digits;
5. the exponents: sum orders, the effective regularisation, the three rates, gamma(a, r, q, l);
   the kernel's rate and the smallest q reaching it in closed form, checked against the vertex
   enumeration; the exponents against the equivalent's numeric log-log slopes at n = 1e7..1e9
   on >= 20 random (a, r, q, l) covering every region met.
"""
import numpy as np
import mpmath
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step
from srfsym.theory.dimension_free import formulas as F
from srfsym.theory.dimension_free.equivalent import deterministic_equivalent
from srfsym.theory.dimension_free.scaling import (A, L, Q, R, X, effective_exponent,
                                                  gamma_expression, optimum, sum_orders,
                                                  term_rates)
from srfsym.theory.dimension_free.spectra import (EigenSpectrum, PowerLawSpectrum, TAIL, TAIL_V,
                                                  _A, _E, _J, _X)

TITLE = "The dimension-free deterministic equivalent and its scaling laws"


def monotone_and_limits(step):
    t1, t2 = F.SUMS["T1"], F.SUMS["T2"]
    dT1 = sp.diff(F.SUMMANDS["T1"], F.NU)
    assert is_zero(F.SUMMANDS["T1"] + F.NU * dT1 - F.SUMMANDS["T2"])
    print_step(step, "summands: T1 + nu dT1/dnu = T2 (term by term)",
               sp.Eq(F.SUMMANDS["T1"] + F.NU * dT1, F.SUMMANDS["T2"]))
    nu1_prime = 1 - t2 / F.P            # d/dnu [nu (1 - T1/p)] = 1 - (T1 + nu T1')/p
    print_step(step, "d nu1/d nu2 = 1 - T2/p > 0 on T1 < p; dg/dnu2 = -T1' + lam nu1'/nu1^2 > 0",
               nu1_prime)
    for name, expr in F.kernel_limits().items():
        print_step(step, f"p -> oo: {name}", expr)
    assert F.kernel_limits()["nu1"] == F.NU
    assert is_zero(F.kernel_limits()["bias"] - F.NU**2 * F.SUMS["S_theta"] / (1 - t2 / F.N))
    assert is_zero(F.kernel_limits()["variance"] - F.NOISE * t2 / (F.N - t2))
    ridgeless = F.UPSILON.subs(F.NU * (1 - t1 / F.P), 0).subs(t1, F.P)
    ups = sp.simplify(F.UPSILON.subs(t1, F.P))
    assert is_zero(ups - F.P / F.N)
    var = sp.simplify(F.VARIANCE.subs(t1, F.P))
    assert is_zero(var - F.NOISE * F.P / (F.N - F.P))
    print_step(step, "lam -> 0, p < n (T1 = p, nu1 = 0): variance", var)
    del ridgeless
    spec = EigenSpectrum(np.arange(1, 401.0)**-1.5, np.arange(1, 401.0)**-1.6)
    for n, p in ((200, 80), (80, 200)):
        e0 = deterministic_equivalent(spec, n, p, 0.0, noise=0.3)
        e1 = deterministic_equivalent(spec, n, p, 1e-10, noise=0.3)
        assert abs(e0.excess_risk / e1.excess_risk - 1) < 1e-7
        print(f"    n = {n}, p = {p}: lam = 0 -> {float(e0.excess_risk):.10f}, "
              f"lam = 1e-10 -> {float(e1.excess_risk):.10f}")
    assert float(deterministic_equivalent(spec, 200, 80, 0.1, noise=0.0).variance) == 0.0


def _hyp2f1(upper, lower, z):
    return mpmath.hyp2f1(upper[0], upper[1], lower[0], z)


def tails(step):
    print_step(step, "tail int_X^oo k^-e (k^-a + nu)^-j dk, u0 form", TAIL)
    print_step(step, "the same, v0 = 1 - u0 form", TAIL_V)
    with mpmath.workdps(30):
        for a, e, j, nu, x in ((2, 2, 1, "1e-2", 50), (1.5, 3.1, 2, "1e-6", 100),
                               (2.5, 1.9, 2, "1e-9", 30), (1.7, 4.3, 2, "0.3", 10)):
            a, e, nu, x = (mpmath.mpf(v) for v in (a, e, nu, x))
            ref = mpmath.quad(lambda k: k**-e * (k**-a + nu)**-j, [x, 10 * x, mpmath.inf])
            for form in (TAIL, TAIL_V):
                f = sp.lambdify((_A, _E, _J, F.NU, _X), form,
                                modules=[{"hyper": _hyp2f1}, "mpmath"])
                val = f(a, e, j, nu, x)
                assert abs(val / ref - 1) < mpmath.mpf(10)**-25, (a, e, j, nu, x)
            print(f"    a={mpmath.nstr(a, 3)} e={mpmath.nstr(e, 3)} j={j} nu={mpmath.nstr(nu, 3)}: "
                  f"{mpmath.nstr(ref, 20)} (both forms agree to 1e-25)")


def exponents(step):
    for name, o in sum_orders().items():
        print_step(step, f"order of {name} (n^...) at nu2 = n^-x", o)
    pw, simple, _ = effective_exponent()
    print_step(step, "effective regularisation exponent x (three balances)", pw)
    print_step(step, "... simplified", simple)
    for name, rate in term_rates().items():
        print_step(step, f"decay rate of the {name}", rate)
    g = gamma_expression(True)
    print_step(step, "gamma(a, r, q, l), noise > 0", g)
    print_step(step, "gamma(a, r, q, l), noiseless", gamma_expression(False))
    rp = sp.Min(R, 1)
    xk = sp.solve(sp.Eq(2 * X * rp, 1 - X / A), X)[0]
    gk = sp.simplify(2 * xk * rp)
    rates = term_rates()
    q_min = sp.Max(xk / A, sp.solve(sp.Eq(rates["feature bias"].subs(X, xk), gk), Q)[0])
    print_step(step, "kernel rate (noise): 2 x r' = 1 - x/a", gk)
    print_step(step, "smallest q reaching it", sp.simplify(q_min))
    for a, r in ((2, sp.Rational(1, 4)), (2, sp.Rational(3, 4)), (3, sp.Rational(6, 5)),
                 (sp.Rational(3, 2), sp.Rational(1, 2))):
        o = optimum(a, r)
        assert o["kernel_rate"] == gk.subs({A: a, R: r}), (a, r, o)
        assert o["q_min"] == sp.simplify(q_min.subs({A: a, R: r})), (a, r, o)
        print(f"    a = {a}, r = {r}: kernel rate {o['kernel_rate']}, q_min {o['q_min']} "
              f"(l = {o['l_at_q_min']}); best {o['best_rate']} at {o['best_at']}")


def _region_of(a, r, q, l, noisy):
    """(regime, dominant term) at a point, from the numbers (the regions of ``regions``)."""
    xs = {"ridge": l, "samples": a, "features": a * q}
    regime = min(xs, key=xs.get)
    rates = {k: float(v.subs({X: xs[regime], A: a, R: r, Q: q})) for k, v in term_rates().items()
             if noisy or k != "variance"}
    return regime, min(rates, key=rates.get), sorted(rates.values())


#: every region of the (l, q) plane that is not a tie (features-limited with r < 1/2 has the
#: kernel bias and the feature bias equal: 2 a q r both)
REGIONS = {(g, t) for g in ("ridge", "samples", "features")
           for t in ("kernel bias", "feature bias", "variance")} - {("features", "kernel bias")}


def slopes(step):
    print_step(step, "gamma against log-log slopes of the equivalent (n = 1e7 .. 1e9)")
    rng = np.random.default_rng(7)
    seen, rows, worst = {}, 0, 0.0
    while rows < 20 or set(seen) != REGIONS:
        a, r = round(rng.uniform(1.4, 3), 2), round(rng.uniform(0.1, 1.4), 2)
        q, l = round(rng.uniform(0.3, 1.6), 2), round(rng.uniform(0.2, a + 0.8), 2)
        noisy = bool(rng.integers(2))
        if abs(r - 0.5) < 0.1 or abs(r - 1) < 0.1 or min(abs(l - a), abs(l - a * q),
                                                        abs(q - 1)) < 0.15:
            continue
        sub = {A: sp.nsimplify(a), R: sp.nsimplify(r), Q: sp.nsimplify(q), L: sp.nsimplify(l)}
        regime, dominant, rates = _region_of(a, r, q, l, noisy)
        region = (regime, dominant)
        if len(rates) > 1 and rates[1] - rates[0] < 0.1:
            continue                                  # two terms tie: a slow crossover
        if seen.get(region, 0) >= (2 if rows >= 20 else 4):
            continue                                  # spread the points over the regions
        gam = float(gamma_expression(noisy).subs(sub))
        assert abs(gam - rates[0]) < 1e-12             # gamma is the smallest rate
        n = np.array([1e7, 1e9])
        e = deterministic_equivalent(PowerLawSpectrum(a, r, head=400), n, n**q, n**(1 - l),
                                     noise=1.0 if noisy else 0.0).excess_risk
        slope = -np.log(e[1] / e[0]) / np.log(100)
        seen[region] = seen.get(region, 0) + 1
        worst = max(worst, abs(slope - gam))
        assert abs(slope - gam) < 0.04, (a, r, q, l, noisy, gam, slope)
        print(f"    a={a:<5} r={r:<5} q={q:<5} l={l:<5} noise={int(noisy)}  gamma={gam:.4f}  "
              f"slope={slope:.4f}  {region}")
        rows += 1
    print(f"    {rows} points, largest |slope - gamma| = {worst:.4f}; points per region: {seen}")


def main():
    print(TITLE)
    step = [0]
    monotone_and_limits(step)
    tails(step)
    exponents(step)
    slopes(step)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
