"""The bounds with a trained output bias (docs/theory.md (m)): the constant function joins
both spans.  Checked against an independent 30-digit mpmath computation written here from
the definitions (relu student: mu0 = a Phi(a/s) + s phi(a/s), mu1 = Phi(a/s) with a = r kappa,
s = sqrt c; sign teacher: h = erf(gamma kappa / (rho sqrt 2)), h1 = 2 phi(gamma kappa / rho),
E sigma*^2 = 1), projections by solving the normal equations."""
import json

import mpmath
import pytest

from srfsym.cli import main
from srfsym.theory.bounds import bounds


def _independent(r, c, gamma, bias, dps=30, student="relu"):
    with mpmath.workdps(dps + 15):
        r, c, gamma = (mpmath.mpf(str(v)) for v in (r, c, gamma))
        rho, s = mpmath.sqrt(1 - gamma ** 2), mpmath.sqrt(c)
        npdf = mpmath.npdf
        if student == "relu":
            mu0 = lambda k: r * k * mpmath.ncdf(r * k / s) + s * npdf(r * k / s)   # noqa: E731
            mu1 = lambda k: mpmath.ncdf(r * k / s)                                  # noqa: E731
        else:   # erf: E erf(a + s xi) = erf(a / sqrt(1 + 2 c)), E erf'(a + s xi) likewise
            t = mpmath.sqrt(1 + 2 * c)
            mu0 = lambda k: mpmath.erf(r * k / t)                                   # noqa: E731
            mu1 = lambda k: 2 / (mpmath.sqrt(mpmath.pi) * t) * mpmath.exp(-(r * k / t) ** 2)  # noqa: E731,E501
        h = lambda k: mpmath.erf(gamma * k / (rho * mpmath.sqrt(2)))            # noqa: E731
        h1 = lambda k: 2 * npdf(gamma * k / rho)                                # noqa: E731
        E = lambda f: mpmath.quad(lambda k: f(k) * npdf(k), [-mpmath.inf, 0, mpmath.inf])  # noqa: E731,E501
        one = lambda k: mpmath.mpf(1)                                           # noqa: E731
        kmu1 = lambda k: k * mu1(k)                                             # noqa: E731

        def proj(funcs):
            G = mpmath.matrix([[E(lambda k: f(k) * g(k)) for g in funcs] for f in funcs])
            u = mpmath.matrix([E(lambda k: f(k) * h(k)) for f in funcs])
            return (u.T * mpmath.lu_solve(G, u))[0]

        extra = [one] if bias else []
        zterm = E(lambda k: h1(k) * mu1(k)) ** 2 / E(lambda k: mu1(k) ** 2)
        upper = 1 - proj([mu0] + extra)
        lower = 1 - proj([mu0, kmu1] + extra) - zterm
        return upper, lower


@pytest.mark.parametrize("gamma", [0.8])
def test_bias_bounds_equal_an_independent_30_digit_projection(gamma):
    r, c = 1.3, 1.2
    b = bounds("relu", "sign", r, c, gamma, dps=30, bias=True)
    upper, lower = _independent(r, c, gamma, bias=True)
    # 30 digits (measured: 3e-31); before the node ladder skipped counts that give the
    # same kappa rule, two equal 160-node sums passed for convergence (error 2e-17)
    tol = 1e-27
    assert abs(b.mp_values["upper"] - upper) < tol
    assert abs(b.mp_values["lower"] - lower) < tol
    # the constant is a real new direction here: both bounds go down
    u0, l0 = _independent(r, c, gamma, bias=False)
    assert upper < u0 - 1e-3 and lower < l0 - 1e-4
    plain = bounds("relu", "sign", r, c, gamma)
    assert abs(plain.upper - float(u0)) < 1e-12 and abs(plain.lower - float(l0)) < 1e-12
    assert len(b.b_upper) == 2 and len(b.b_lower) == 4


def test_30_digit_bounds_equal_an_independent_quadrature_erf_student():
    """erf student (closed-form mu0, mu1), no bias: the 30-digit path to 30 digits."""
    b = bounds("erf", "sign", 0.9, 1.1, 0.6, dps=30)
    upper, lower = _independent(0.9, 1.1, 0.6, bias=False, student="erf")
    assert b.precision == "mpmath:30"
    assert abs(b.mp_values["upper"] - upper) < 1e-27
    assert abs(b.mp_values["lower"] - lower) < 1e-27


def test_cli_bounds_bias(capsys):
    assert main(["bounds", "--student", "relu", "--teacher", "sign", "--r", "1.3", "--c", "1.2",
                 "--gamma", "0.8", "--bias", "--json"]) == 0
    row = json.loads(capsys.readouterr().out)["rows"][0]
    b = bounds("relu", "sign", 1.3, 1.2, 0.8, bias=True)
    assert row["bias"] is True and abs(row["upper_bound"] - b.upper) < 1e-15
    assert main(["bounds", "--student", "relu", "--teacher", "sign", "--alpha0", "2",
                 "--optimize-eta", "--bias"]) != 0
    assert "--bias is not available with --optimize-eta" in capsys.readouterr().err
