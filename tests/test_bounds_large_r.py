"""Bounds at large spike strength r: mu0(kappa) becomes a step, the kappa rule must follow it.

The references are computed here, independently of the package: the conditional coefficients
of tanh by a trapezoidal rule in the bulk noise (tanh is analytic in the strip |Im| < pi/2, so
the rule with step 1/5 is accurate to ~1e-20), the kappa-expectations by mpmath's tanh-sinh
quadrature split at the transition, and the projections by the 2 x 2 normal equations.
"""
import json
from functools import lru_cache

import mpmath
import pytest
from cli_run import run_cli

from srfsym.theory import bounds as bounds_module
from srfsym.theory.bounds import bounds
from srfsym.theory.fixed_point import ConvergenceError


def _independent_tanh_sin(r, dps=12):
    """(upper, lower) for student tanh, teacher sin, c = 1, gamma = 1."""
    with mpmath.workdps(dps + 3):
        r = mpmath.mpf(r)
        phi = lambda x: mpmath.exp(-x * x / 2) / mpmath.sqrt(2 * mpmath.pi)  # noqa: E731
        h = mpmath.mpf(1) / 5
        gs = [h * j for j in range(-50, 51)]
        wg = [h * phi(g) for g in gs]

        @lru_cache(maxsize=None)
        def mus(k):     # mu0 = E tanh(r k + g), mu1 = E tanh'(r k + g)
            t = [mpmath.tanh(r * k + g) for g in gs]
            return mpmath.fdot(t, wg), mpmath.fdot([1 - x * x for x in t], wg)

        pts = [0, 1 / r, 4 / r, 1, 4, 10]     # every integrand is even in kappa

        def E(f):
            return 2 * mpmath.quad(lambda k: f(k, *mus(k)) * phi(k), pts)

        g00 = E(lambda k, a, b: a * a)
        g01 = E(lambda k, a, b: a * k * b)
        g11 = E(lambda k, a, b: (k * b) ** 2)
        u0 = E(lambda k, a, b: mpmath.sin(k) * a)
        u1 = E(lambda k, a, b: mpmath.sin(k) * k * b)
        m2 = (1 - mpmath.exp(-2)) / 2          # E sin(kappa)^2
        upper = m2 - u0 ** 2 / g00
        lower = m2 - (g11 * u0 ** 2 - 2 * g01 * u0 * u1 + g00 * u1 ** 2) / (g00 * g11 - g01 ** 2)
        return float(upper), float(lower)


def _limit_tanh_sin():
    """r -> oo: mu0 -> sign(kappa), kappa mu1 -> 0 in L2, so both bounds tend to
    E sin^2 - (E |sin| ...) = E sin^2 - (E sin(kappa) sign(kappa))^2."""
    with mpmath.workdps(20):
        a = 2 * mpmath.quad(lambda k: mpmath.sin(k) * mpmath.npdf(k), [0, 5, mpmath.inf])
        return float((1 - mpmath.exp(-2)) / 2 - a * a)


@pytest.mark.timeout(120)
def test_tanh_sin_at_r30_against_an_independent_quadrature():
    ref_upper, ref_lower = _independent_tanh_sin(30)
    b = bounds("tanh", "sin", r=30, c=1, gamma=1)
    assert abs(b.upper - ref_upper) < 1e-10 and abs(b.lower - ref_lower) < 1e-10, (b, ref_upper,
                                                                                 ref_lower)
    assert b.node_error < 1e-12


@pytest.mark.timeout(120)
def test_the_r_to_infinity_limit():
    limit = _limit_tanh_sin()
    assert round(limit, 10) == 0.0979135635      # the value the issue quotes
    for r in (1e3, 1e6):
        b = bounds("tanh", "sin", r=r, c=1, gamma=1)
        # mu0 differs from sign(kappa) on a width 1/r: the bounds approach the limit like 1/r
        assert abs(b.upper - limit) < 1 / r and abs(b.lower - limit) < 2 / r, (r, b)
        assert b.lower <= b.upper


def test_a_ladder_that_does_not_converge_refuses_to_print(monkeypatch):
    """Without the transition cuts and with a short ladder, the node change at r = 30 is
    1e-3: the result must be refused, not returned with its contradicted digits."""
    monkeypatch.setattr(bounds_module, "transition_cuts", lambda *a, **k: ())
    monkeypatch.setattr(bounds_module, "_LADDER", (60, 90, 135))
    with pytest.raises(ConvergenceError, match="did not converge"):
        bounds("tanh", "sin", r=30, c=1, gamma=1)


@pytest.mark.timeout(150)
def test_cli_bounds_at_15_digits_large_r():
    ref_upper, ref_lower = _independent_tanh_sin(30)
    out = run_cli("bounds", "--student", "tanh", "--teacher", "sin", "--r", "30", "--c", "1",
                  "--gamma", "1", "--dps", "15", "--json", timeout=140)
    assert out.returncode == 0, out.stderr
    row = json.loads(out.stdout)["rows"][0]
    assert abs(float(row["decimal"]["upper_bound"]) - ref_upper) < 1e-11
    assert abs(float(row["decimal"]["lower_bound"]) - ref_lower) < 1e-11
