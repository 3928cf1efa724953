"""Coefficients a researcher asks for from the command line: mu(kappa) over a kappa grid,
Hermite coefficients mu_k for k >= 2, and closed forms found by symmetry or merged to their
shortest form, each against an independent mpmath quadrature at 30 digits."""
import json

import mpmath
import pytest
import sympy as sp

from srfsym.cli import main
from srfsym.symbolic.cget import cget_coefficients
from srfsym.symbolic.hermite import hermite_constants
from conftest import assert_mp_close, hermite_he

mpf = mpmath.mpf


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def gauss(f, dps=45):
    """E f(z), z ~ N(0, 1), by mpmath.quad on the whole line."""
    with mpmath.workdps(dps):
        return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2),
                           [-mpmath.inf, 0, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)


def test_softplus_mu1_is_exact_by_symmetry(capsys):
    """E[z softplus(z)] = E[z^2/2] = 1/2: the odd part of z softplus(z) integrates to 0."""
    mu1 = hermite_constants("softplus").mu1
    assert mu1.is_exact and mu1.expr == sp.Rational(1, 2), mu1
    ref = gauss(lambda z: z * mpmath.log1p(mpmath.exp(z)))
    assert_mp_close(mu1.decimal(30), ref, 30, "softplus mu1")
    code, out, _ = run(capsys, "activation", "softplus", "--json")
    assert code == 0
    shown = json.loads(out)["details"]["constants"]["mu1"]
    assert shown["method"] == "exact" and "symmetry" in shown["how"]


def test_x_erf_conditional_mu1_has_one_exponential(capsys):
    """mu1(kappa) of x erf(x): the two Gaussian terms sharing exp(-a^2/(2c+1)) are one."""
    co = cget_coefficients("x*erf(x)")
    terms = [t for t in sp.Add.make_args(co.mu1) if t.has(sp.exp)]
    assert len(terms) == 1, co.mu1
    kappa, r, c = mpf("0.7"), mpf("0.9"), mpf("1.3")
    f = dict(zip(co.params, (kappa, r, c)))
    with mpmath.workdps(45):
        got = sp.N(co.mu1.subs(f), 40)
        s = mpmath.sqrt(c)
        ref = gauss(lambda z: z * (r * kappa + s * z) * mpmath.erf(r * kappa + s * z)) / s
    assert_mp_close(str(got), ref, 30, "mu1(kappa) of x*erf(x)")
    code, out, _ = run(capsys, "activation", "x*erf(x)")
    assert code == 0
    line = next(li for li in out.splitlines() if li.strip().startswith("mu1(kappa)"))
    assert line.count("exp(") == 1, line


def test_activation_order_prints_hermite_coefficients(capsys):
    """``activation sin --order 5``: mu_k = E[sin(z) He_k(z)] for k = 2..5 in JSON, CSV, text."""
    code, out, _ = run(capsys, "activation", "sin", "--order", "5", "--json")
    assert code == 0
    data = json.loads(out)
    row, detail = data["rows"][0], data["details"]["hermite_coefficients"]
    for k in range(2, 6):
        ref = gauss(lambda z, k=k: mpmath.sin(z) * hermite_he(k, z))
        assert detail[f"mu_{k}"]["method"] == "exact"
        assert_mp_close(row["decimal"][f"mu_{k}"], ref, 30, f"mu_{k} of sin")
        assert row[f"mu_{k}"] == pytest.approx(float(ref), abs=1e-15)
    code, out, _ = run(capsys, "activation", "sin", "--order", "3", "--csv")
    header, values = out.splitlines()[:2]
    assert "mu_2" in header.split(",") and "mu_3" in header.split(",")
    code, out, _ = run(capsys, "activation", "sin", "--order", "3")
    assert "mu_3" in out and "He_k" in out
    code, _, err = run(capsys, "activation", "sin", "--order", "1")
    assert code == 2 and "--order must be an integer from 2" in err


def test_coefficients_over_a_kappa_grid(capsys):
    """``coefficients erf --kappa-grid -1 2 4 --dps 30``: one row per kappa, each against
    quadrature; a list of kappas gives the same rows."""
    code, out, _ = run(capsys, "coefficients", "erf", "--r", "0.9", "--c", "1.5",
                       "--kappa-grid", "-1", "2", "4", "--dps", "30", "--json")
    assert code == 0
    data = json.loads(out)
    rows = data["rows"]
    assert [row["kappa"] for row in rows] == [-1.0, 0.0, 1.0, 2.0]
    for row, point in zip(rows, data["details"]["points"]):
        with mpmath.workdps(45):
            r, s = mpf("0.9"), mpmath.sqrt(mpf("1.5"))
            a = r * mpf(row["kappa"])
            mu0 = gauss(lambda z: mpmath.erf(a + s * z))
            mu1 = gauss(lambda z: z * mpmath.erf(a + s * z)) / s
            e2 = gauss(lambda z: mpmath.erf(a + s * z) ** 2)
            refs = (("mu0", mu0), ("mu1", mu1), ("mustar2", e2 - mu0**2 - s**2 * mu1**2))
        for name, ref in refs:
            assert_mp_close(row["decimal"][name], ref, 30, f"{name} at kappa {row['kappa']}")
            assert point["coefficients"][name]["method"] == "exact"
    code, out, _ = run(capsys, "coefficients", "erf", "--r", "0.9", "--c", "1.5",
                       "--kappa", "-1", "0", "1", "2", "--dps", "30", "--json")
    assert [row["decimal"] for row in json.loads(out)["rows"]] == [row["decimal"] for row in rows]
    code, out, _ = run(capsys, "coefficients", "erf", "--r", "0.9", "--c", "1.5",
                       "--kappa-grid", "0", "1", "3")
    assert code == 0 and len([li for li in out.splitlines() if li.strip()[:1].isdigit()]) == 3


@pytest.mark.parametrize("argv, message", [
    (["--kappa", "0", "--kappa-grid", "0", "1", "3"], "one of them"),
    ([], "one of them"),
    (["--kappa-grid", "1", "0", "3"], "MIN <= MAX"),
    (["--kappa-grid", "0", "1", "0"], "N must be from 1"),
    (["--kappa-grid", "0", "1", "x"], "MIN MAX N"),
])
def test_kappa_grid_refusals(capsys, argv, message):
    code, _, err = run(capsys, "coefficients", "erf", "--r", "1", "--c", "1", *argv)
    assert code == 2 and message in err, err


def test_merging_exponentials_keeps_the_value():
    """Terms sharing exp(-kappa^2) are merged, the rest untouched (``sympy.collect`` on exp
    atoms had read 1/sqrt(pi) as a power of exp(-1)): the value at 30 digits is unchanged."""
    from srfsym.symbolic.tidy import tidy
    k, c = sp.symbols("kappa c", positive=True)
    e = sp.exp(-k**2)
    expr = (4 * sp.exp(-1) / sp.sqrt(sp.pi) + k * e / sp.sqrt(sp.pi)
            - 2 * c * k * e / (sp.sqrt(sp.pi) * (c + 1)) + sp.erf(k))
    short = tidy(expr)
    assert len([t for t in sp.Add.make_args(short) if t.has(e)]) == 1, short
    point = {k: sp.Rational(7, 10), c: sp.Rational(13, 10)}
    assert abs(sp.N((short - expr).subs(point), 40)) < 1e-35
    assert tidy(-(-sp.sqrt(sp.pi) - 4 * sp.exp(-1) + 2 * sp.sqrt(sp.pi) * sp.erf(1))
                / sp.sqrt(sp.pi)).equals(1 + 4 * sp.exp(-1) / sp.sqrt(sp.pi) - 2 * sp.erf(1))
