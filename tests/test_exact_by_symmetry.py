"""Coefficients fixed by the symmetry of sigma where a = r kappa = 0 (mu0 = 0 for an odd sigma,
mu1 = 0 for an even one, mu0 = 1/2 for sigmoid, mu1 = 1/2 for softplus and relu) are exact and
say why, in the API and in ``coefficients`` text and --json; other values, however small,
stay as computed (numeric with their digits), each against mpmath quadrature."""
import json

import mpmath
import pytest

from srfsym.cli import main
from srfsym.symbolic.cget import cget_coefficients, teacher_functions
from srfsym.symbolic.gaussian import DivergentExpectationError
from conftest import assert_mp_close

mpf = mpmath.mpf


@pytest.fixture(autouse=True)
def digits45():
    """References at 45 working digits (the values under test carry their own precision)."""
    with mpmath.workdps(45):
        yield


def gauss(f):
    """E f(z), z ~ N(0, 1), by mpmath.quad on the whole line (at the working precision)."""
    return mpmath.quad(lambda z: f(z) * mpmath.exp(-z * z / 2),
                       [-mpmath.inf, -3, 0, 3, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)


def he3(x):
    return x**3 - 3 * x


def relu(x):
    return max(x, 0)


@pytest.mark.parametrize("name, sigma", [("tanh", mpmath.tanh), ("sin", mpmath.sin),
                                         ("he3", he3)])
@pytest.mark.parametrize("kappa, r", [("0", "0.9"), ("0.7", "0")])
def test_odd_mu0_is_exactly_zero(name, sigma, kappa, r):
    """Odd sigma, r kappa = 0: mu0 = 0 exactly, labelled by parity; mu1 and mu_star^2 as
    before (against quadrature), and the quadrature of mu0 is 0 to 40 digits."""
    c = mpf("1.3")
    co = cget_coefficients(name)
    vals = co.mpmath(30)(kappa, r, "1.3")
    assert vals[0] == 0 and vals.abs_error[0] == 0 and vals.good_digits[0] == 30
    assert list(vals.exact) == ["mu0"] and vals.exact["mu0"].startswith(f"parity: {name} is odd")
    assert co.numpy()(float(kappa), float(r), 1.3)[0] == 0.0
    s = mpmath.sqrt(c)
    assert abs(gauss(lambda z: sigma(s * z))) < mpf(10) ** -40
    assert_mp_close(vals[1], gauss(lambda z: z * sigma(s * z)) / s, 30, f"mu1 of {name}")
    e2 = gauss(lambda z: sigma(s * z) ** 2)
    assert_mp_close(vals[2], e2 - c * (gauss(lambda z: z * sigma(s * z)) / s) ** 2, 30,
                    f"mustar2 of {name}")


def test_even_mu1_is_exactly_zero():
    """cos is even: mu1 = 0 at kappa = 0 (double precision printed -0.0 before)."""
    co = cget_coefficients("cos")
    vals = co.mpmath(30)(0, 1, 1)
    assert vals[1] == 0 and "parity: cos is even" in vals.exact["mu1"]
    assert_mp_close(vals[0], mpmath.exp(-0.5), 30, "mu0 of cos")
    mu1 = co.numpy()(0.0, 1.0, 1.0)[1]
    assert mu1 == 0.0 and not mpmath.sign(float(mu1)) < 0 and str(float(mu1)) == "0.0"


@pytest.mark.parametrize("name, sigma, index, value", [
    ("relu", relu, 1, mpf(1) / 2),
    ("softplus", lambda x: mpmath.log1p(mpmath.exp(x)), 1, mpf(1) / 2),
    ("sigmoid", lambda x: 1 / (1 + mpmath.exp(-x)), 0, mpf(1) / 2)])
def test_symmetry_fixes_a_nonzero_value(name, sigma, index, value):
    """sigma minus x/2 even (relu, softplus) or minus 1/2 odd (sigmoid): that value is exact
    (the quadrature agrees to 30 digits); the other values are not fixed and agree with
    30-digit quadrature (relu mu0 = sqrt(c / (2 pi)) has no parity)."""
    c = mpf("0.8")
    s = mpmath.sqrt(c)
    vals = cget_coefficients(name).mpmath(30)(0, "1.1", "0.8")
    which = ("mu0", "mu1")[index]
    assert list(vals.exact) == [which] and vals.exact[which].startswith("symmetry: ")
    assert vals[index] == value
    refs = (gauss(lambda z: sigma(s * z)), gauss(lambda z: z * sigma(s * z)) / s)
    assert_mp_close(value, refs[index], 30, f"quadrature of {which} of {name}")
    assert_mp_close(vals[1 - index], refs[1 - index], 30, f"the other coefficient of {name}")


def test_small_value_without_symmetry_stays_numeric():
    """tanh(x) - b x with b = E[z tanh z] to 20 digits: mu1 at kappa = 0 is about 3.5e-21,
    not fixed by any symmetry: numeric, with its digits, against 45-digit quadrature."""
    b = mpf(60570550960215882558) / mpf(10) ** 20
    vals = cget_coefficients("tanh(x) - 60570550960215882558*x/10**20").mpmath(20)(0, 1, 1)
    assert "mu1" not in vals.exact and vals[0] == 0
    ref = gauss(lambda z: z * mpmath.tanh(z)) - b
    assert 1e-22 < abs(ref) < 1e-20
    assert vals.good_digits[1] == 20 and vals.abs_error[1] > 0
    assert_mp_close(vals[1], ref, 20, "small mu1")


def test_only_where_a_is_zero_and_not_for_divergent_integrals():
    """Away from r kappa = 0 nothing is fixed; a divergent expectation is still refused
    (x exp(x^2/4) is odd, but E[sigma(sqrt(c) z)^2] diverges at c = 2.5)."""
    co = cget_coefficients("tanh")
    vals = co.mpmath(20)("0.3", 1, 1)
    assert vals.exact == {} and vals[0] > mpf("0.1")
    co = cget_coefficients("x*exp(x**2/4)")
    with pytest.raises(DivergentExpectationError):
        co.numpy()(0.0, 1.0, 2.5)
    with pytest.raises(DivergentExpectationError):
        co.mpmath(20)(0, 1, "2.5")


def test_teacher_h1_of_softplus_at_zero():
    """h1 = E[z softplus(rho z)] = rho / 2 where gamma kappa = 0 (softplus - x/2 is even)."""
    t = teacher_functions("softplus")
    vals = t.mpmath(30)(0, "0.6")
    rho = mpf("0.8")
    assert "h1" in vals.exact and "h" not in vals.exact
    assert_mp_close(vals[1], rho / 2, 30, "h1 of softplus by symmetry")
    assert_mp_close(vals[1], gauss(lambda z: z * mpmath.log1p(mpmath.exp(rho * z))), 30,
                    "h1 of softplus")


def run(capsys, *argv):
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_coefficients_cli_labels_parity_zeros(capsys):
    """``srfsym coefficients tanh --kappa 0``: mu0 printed as 0, exact, with the reason, in
    text and --json (it was 1.0e-17 numeric with 0 good digits)."""
    code, out = run(capsys, "coefficients", "tanh", "--kappa", "0", "--r", "1", "--c", "1")
    assert code == 0
    line = next(li for li in out.splitlines() if li.strip().startswith("mu0"))
    assert "= 0.0   [exact]" in line and "parity: tanh is odd" in line, line
    assert "e-17" not in out
    code, out = run(capsys, "coefficients", "tanh", "--kappa", "0", "0.5", "--r", "1", "--c",
                    "1", "--json")
    data = json.loads(out)
    first, second = data["details"]["points"]
    assert first["coefficients"]["mu0"]["method"] == "exact"
    assert "parity" in first["coefficients"]["mu0"]["how"]
    assert first["coefficients"]["mu0"]["value"] == "0.0"
    assert second["coefficients"]["mu0"]["method"] == "numeric"
    assert data["rows"][0]["mu0"] == 0.0 and data["rows"][0]["method"] == "exact numeric"
    assert data["rows"][1]["method"] == "numeric"
    code, out = run(capsys, "coefficients", "cos", "--kappa", "0", "--r", "1", "--c", "1",
                    "--dps", "25", "--json")
    mu1 = json.loads(out)["details"]["coefficients"]["mu1"]
    assert mu1["value"] == "0.0" and mu1["how"].startswith("parity: cos is even"), mu1


def test_reference_case_labels_a_parity_zero_exact(tmp_path):
    """`srfsym reference` on a cGET case at kappa = 0: mu0 of tanh is the exact 0 with the
    parity reason; mu1 stays numeric and equals 40-digit quadrature of E[tanh'(g)] to 20 digits."""
    import json
    import mpmath
    from cli_run import run_cli
    f = tmp_path / "case.toml"
    f.write_text('[[cget]]\nactivation = "tanh"\nkappa = 0\nr = 1\nc = 1\n')
    res = run_cli("reference", str(f), "--dps", "20", "-q")
    assert res.returncode == 0, res.stderr
    vals = json.loads(res.stdout)["values"]["cget"][0]["values"]
    assert vals["mu0"]["value"] == "0" and vals["mu0"]["method"] == "exact"
    assert "parity" in vals["mu0"]["how"]
    assert vals["mu1"]["method"] == "numeric"
    with mpmath.workdps(40):
        want = mpmath.quad(lambda g: (1 - mpmath.tanh(g)**2) * mpmath.npdf(g), [-mpmath.inf, 0,
                                                                                  mpmath.inf])
        assert abs(mpmath.mpf(vals["mu1"]["value"]) - want) < mpmath.mpf(10)**-19 * want


def test_a_polynomial_perturbation_is_not_called_odd():
    """sigma = x + 1e-40 x^2 is not odd: sigma(x) + sigma(-x) = 2e-40 x^2 is a nonzero
    polynomial (the 40-digit probe alone called it odd and printed mu_2 = 0 [exact: parity]);
    mu_2 = E[sigma He_2] = 2e-40 exactly, and mu_3 of x**3 + 1e-50 is still 6."""
    from srfsym.symbolic.activations import activation
    from srfsym.symbolic.hermite import hermite_constants
    act = activation("x + 1e-40*x**2")
    assert act.parity == "neither"
    mu2 = hermite_constants(act).mu_k(2)
    assert "parity" not in (mu2.how or "")
    with mpmath.workdps(60):
        assert abs(mpmath.mpf(mu2.mpmath(60)) - mpmath.mpf("2e-40")) < mpmath.mpf("1e-50")
    assert activation("Max(Min(x, 1), -1)").parity == "odd"     # the probe still decides kinks
