"""Inputs that used to end in a traceback or a wrong or unclear message: each now gives the
right numbers or a message that names the problem.  Values are checked against independent
mpmath quadratures."""
import decimal

import mpmath
import re

import pytest

from srfsym.cli import main
from srfsym.symbolic.activations import activation
from srfsym.symbolic.hermite import hermite_constants


def _gauss(f, points=(0,)):
    """E f(z), z ~ N(0, 1), by mpmath quadrature at 40 digits (split at ``points``)."""
    with mpmath.workdps(40):
        pts = [-mpmath.inf, *sorted(mpmath.mpf(p) for p in points), mpmath.inf]
        return mpmath.quad(lambda z: f(z) * mpmath.npdf(z), pts)


def _close(value, ref, digits=25):
    with mpmath.workdps(40):
        return abs(value.mpmath(30) - ref) <= mpmath.mpf(10) ** -digits * max(1, abs(ref))


def _cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------------------------------
# item 6: tracebacks

@pytest.mark.timeout(300)
def test_kink_at_an_algebraic_point_heaviside():
    hc = hermite_constants("Heaviside(x-sqrt(2))*x")
    with mpmath.workdps(40):
        s2 = mpmath.sqrt(2)
    assert _close(hc.mu0, _gauss(lambda z: z * (z > s2), [s2]))
    assert _close(hc.mu1, _gauss(lambda z: z * z * (z > s2), [s2]))
    assert [float(k) for k in activation("Heaviside(x-sqrt(2))*x").kinks] == [float(s2)]


@pytest.mark.timeout(300)
def test_kink_at_an_algebraic_point_abs_cubed():
    hc = hermite_constants("Abs(x - sqrt(3))**3")
    with mpmath.workdps(40):
        s3 = mpmath.sqrt(3)
    assert _close(hc.mu0, _gauss(lambda z: abs(z - s3) ** 3, [s3]), 20)


# ---------------------------------------------------------------------------------------
# item 7: labels

@pytest.mark.timeout(300)
def test_sqrt_abs_prints_what_exists_and_names_what_diverges(capsys):
    code, out, err = _cli(capsys, "activation", "sqrt(abs(x))")
    assert code == 0, err
    assert re.search(r"mu0 +?= 0\.82217895866", out), out
    assert re.search(r"checkmu1_sq +?= inf", out) and "diverges" in out
    assert _close(hermite_constants("sqrt(abs(x))").mu0, _gauss(lambda z: mpmath.sqrt(abs(z))))


@pytest.mark.timeout(300)
def test_sin_and_cos_of_x_squared_have_closed_forms():
    for name, f in (("sin(x**2)", mpmath.sin), ("cos(x**2)", mpmath.cos)):
        hc = hermite_constants(name)
        assert hc.mu0.is_exact and hc.second_moment.is_exact, name
        # E e^{i z^2} = 1/sqrt(1 - 2i): an independent closed form
        with mpmath.workdps(40):
            ref = 1 / mpmath.sqrt(1 - 2j)
            ref = ref.imag if name.startswith("sin") else ref.real
        assert _close(hc.mu0, ref), name
        assert _close(hc.second_moment, _gauss(lambda z: f(z * z) ** 2), 20), name
    assert round(float(hermite_constants("sin(x**2)").mu0.mpmath(15)), 10) == 0.3515775843


def test_hard_tanh_is_odd():
    assert activation("Max(Min(x, 1), -1)").parity == "odd"
    assert activation("Max(Min(x, 1), -1) + 1/10").parity == "neither"
    assert activation("Max(Min(x**2, 1), -1)").parity == "even"


def test_tower_of_exponentials_message(capsys):
    code, _, err = _cli(capsys, "activation", "exp(exp(exp(x)))")
    assert code == 2 and "too large" in err and "memory" not in err


def test_vocabulary_out_of_range(capsys):
    base = ["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta", "3",
            "--lam", "0.1", "--alpha", "1", "--vocabulary"]
    code, _, err = _cli(capsys, *base, "1e300", "1")
    assert code == 2 and "letters must lie in" in err and "out of range" not in err
    code, _, err = _cli(capsys, *base, *map(str, range(1, 1001)))
    assert code == 2 and "1000 letters" in err


def test_usage_errors_name_the_option_in_one_line(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["simulate", "--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta",
              "3", "--lam", "0.1", "--alpha", "1", "--d", "20", "--seed", "-1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "--seed" in err and "non-negative" in err
    with pytest.raises(SystemExit) as exc:
        main(["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta",
              "abc", "--lam", "0.1", "--alpha", "1"])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and "error: error" not in err and "usage" not in err
    assert len(err.strip().splitlines()) == 1 and "--eta" in err and "'abc'" in err


def test_sweep_with_one_bad_learning_rate_names_it(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text('[theory]\nstudent = "tanh"\nteacher = "sin"\nalpha0 = 20\n'
                    'eta = [2, 30000]\nlam = [0.1]\nalpha = [0.5, 1.0]\n')
    out = tmp_path / "o.csv"
    code, _, err = _cli(capsys, "sweep", str(grid), "--out", str(out), "--workers", "1",
                        "--quiet")
    assert code == 0, err
    from srfsym.sweep.run import read_results
    rows = read_results(out)
    assert len(rows) == 4
    bad = [r for r in rows if r["eta"] == "30000.0"]
    assert len(bad) == 2 and all(r["method"] == "failed" and "eta = 30000.0" in r["note"]
                                 for r in bad)
    assert all(float(r["test_error"]) > 0 for r in rows if r["eta"] == "2.0")


def test_binary_toml(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_bytes(bytes(range(256)))
    code, _, err = _cli(capsys, "sweep", str(grid), "--out", str(tmp_path / "o.csv"))
    assert code == 2 and "not a TOML text file" in err and "codec" not in err


def test_decimal_parameters_are_exact_everywhere():
    from srfsym.step.mapping import srf_mapping
    from srfsym.theory.bounds import bounds
    D = decimal.Decimal
    a = srf_mapping("tanh", "sin", D("0.1"), 20).values()["spike_strength"].mpmath(40)
    b = srf_mapping("tanh", "sin", "0.1", 20).values()["spike_strength"].mpmath(40)
    with mpmath.workdps(40):
        assert a == b
    assert bounds("tanh", "sin", D("1.1"), D("1.0")).upper == bounds("tanh", "sin", 1.1, 1.0).upper
