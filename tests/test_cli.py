"""The srfsym command line: outputs checked against independent values, clean errors."""
import json
import math

import mpmath
import pytest

from srfsym.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_coefficients_tanh_30_digits(capsys):
    code, out, _ = run(capsys, "coefficients", "tanh", "--r", "0.9", "--c", "1", "--kappa",
                       "0.7", "--dps", "30", "--json")
    assert code == 0
    data = json.loads(out)
    mpmath.mp.dps = 45
    a = mpmath.mpf("0.9") * mpmath.mpf("0.7")
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)
    mu0 = mpmath.quad(lambda z: mpmath.tanh(a + z) * phi(z), [-mpmath.inf, mpmath.inf])
    mu1 = mpmath.quad(lambda z: z * mpmath.tanh(a + z) * phi(z), [-mpmath.inf, mpmath.inf])
    e2 = mpmath.quad(lambda z: mpmath.tanh(a + z) ** 2 * phi(z), [-mpmath.inf, mpmath.inf])
    vals = data["details"]["coefficients"]     # the 30-digit values (rows carry floats)
    assert vals["mu0"]["method"] == "numeric"
    for name, ref in (("mu0", mu0), ("mu1", mu1), ("mustar2", e2 - mu0**2 - mu1**2)):
        assert abs(mpmath.mpf(vals[name]["value"]) - ref) < mpmath.mpf(10) ** -25
    mpmath.mp.dps = 15


def test_mapping_json_matches_math_table(capsys):
    code, out, _ = run(capsys, "mapping", "--student", "tanh", "--teacher", "sin", "--eta", "3",
                       "--alpha0", "20", "--json")
    data = json.loads(out)["rows"][0]
    assert code == 0
    assert float(data["spike_strength"]["value"]) == pytest.approx(1.13406, abs=5e-6)
    assert float(data["bulk_variance"]["value"]) == pytest.approx(1.018973, abs=5e-7)
    assert float(data["alignment"]["value"]) == pytest.approx(0.97185, abs=5e-6)


def test_activation_report_user_expression(capsys):
    code, out, _ = run(capsys, "activation", "x**3 - 3*x", "--json", "--dps", "20")
    data = json.loads(out)
    assert code == 0 and data["rows"][0]["parity"] == "odd"
    assert data["rows"][0]["mustar2"] == 6.0 and data["rows"][0]["decimal"]["mustar2"].startswith("6.0")
    assert data["details"]["constants"]["mustar2"]["method"] == "exact"
    import sympy as sp   # the printed closed form, in whatever tidy form: the same expression
    assert sp.expand(sp.sympify(data["details"]["cget"]["mu1"]["expr"])) == \
        sp.expand(sp.sympify("3*c + 3*kappa**2*r**2 - 3"))


def test_error_and_bounds(capsys):
    code, out, _ = run(capsys, "error", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "3", "--lam", "0.1", "--alpha", "1", "2", "--json")
    rows = json.loads(out)["rows"]
    assert code == 0 and len(rows) == 2
    assert abs(rows[0]["test_error"] - 0.0415) / 0.0415 < 0.01
    assert rows[1]["test_error"] < rows[0]["test_error"]
    code, out, _ = run(capsys, "bounds", "--student", "sin", "--teacher", "sin", "--r", "1",
                       "--c", "1", "--json")
    b = json.loads(out)["rows"][0]
    # r = c = 1: mu0(kappa) = e^{-1/2} sin(kappa) is proportional to the target: U = L = 0
    assert abs(b["upper_bound"]) < 1e-12 and abs(b["lower_bound"]) < 1e-12
    assert b["kernel_baseline"] == pytest.approx((1 - math.exp(-2)) / 2 - math.exp(-1), rel=1e-13)


def test_curve_csv_and_plot(capsys, tmp_path):
    png = tmp_path / "c.png"
    code, out, _ = run(capsys, "curve", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "3", "--lam", "0.1", "--alpha", "0.5", "1", "2", "--csv",
                       "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000
    lines = out.strip().splitlines()
    assert lines[0].startswith("source,student,teacher,alpha0,eta,lam,alpha,beta,r,c,gamma,")
    assert len(lines) == 4


SIM_ARGS = ["--student", "tanh", "--teacher", "sin", "--alpha0", "4", "--eta", "2", "--lam",
            "0.1", "--beta", "0.75"]


def test_simulate_json_csv_and_text_are_the_library_call(capsys):
    from srfsym.simulation.simulate import simulate
    argv = ["simulate", *SIM_ARGS, "--alpha", "0.5", "1.5", "--d", "40", "--seeds", "2",
            "--seed", "3", "--n-test", "150", "--workers", "1"]
    code, out, _ = run(capsys, *argv, "--json")
    assert code == 0
    got = json.loads(out)["details"]["simulation"]
    ref = simulate("tanh", "sin", 4.0, 2.0, 0.1, [0.5, 1.5], d=40, beta=0.75, seeds=2, seed=3,
                   n_test=150, workers=1)
    assert got["p"] == 30 and got["n_test"] == 150 and got["n"] == [20, 60]
    assert got["test_error_per_seed"] == ref.test_error_per_seed.tolist()
    assert got["r_emp"] == ref.r_emp.tolist() and len(got["r_emp"]) == 2
    code, out, _ = run(capsys, *argv, "--csv")
    lines = out.strip().splitlines()
    header = lines[0].split(",")
    assert code == 0 and header[:3] == ["source", "student", "teacher"] and len(lines) == 3
    assert float(lines[2].split(",")[header.index("test_error")]) == pytest.approx(
        ref.test_error[1], rel=1e-12)
    # the reference notebook's protocol: one first layer, seed 0's
    code, out, _ = run(capsys, *argv, "--shared-first-layer", "--json")
    shared = json.loads(out)["details"]["simulation"]
    assert code == 0 and shared["settings"]["shared_first_layer"] is True
    assert shared["r_emp"] == ref.r_emp.tolist()[:1]
    assert shared["test_error_per_seed"][0] == ref.test_error_per_seed[0].tolist()
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "measured: r=" in out and "alpha0=4 (n0=160)" in out


def test_curve_with_simulation_overlay(capsys, tmp_path):
    png = tmp_path / "s.png"
    code, out, _ = run(capsys, "curve", *SIM_ARGS, "--alpha", "0.5", "1", "2", "--simulate",
                       "--sim-alpha", "1", "2", "--d-sim", "40", "--seeds", "2", "--json",
                       "--plot", str(png))
    assert code == 0 and png.stat().st_size > 1000
    got = json.loads(out)
    assert [r["alpha"] for r in got["rows"] if r["source"] == "theory"] == [0.5, 1.0, 2.0]
    assert [r["alpha"] for r in got["rows"] if r["source"] == "simulation"] == [1.0, 2.0]
    sim = got["details"]["simulation"]
    assert sim["alphas"] == [1.0, 2.0] and sim["d"] == 40 and sim["p"] == 30
    assert sim["seeds"] == 2 and len(sim["test_error_per_seed"]) == 2


def test_curve_with_shared_first_layer_and_misuse(capsys):
    code, out, _ = run(capsys, "curve", *SIM_ARGS, "--alpha", "1", "--simulate", "--d-sim",
                       "40", "--seeds", "2", "--shared-first-layer", "--json")
    sim = json.loads(out)["details"]["simulation"]
    assert code == 0 and sim["settings"]["shared_first_layer"] is True
    assert len(sim["r_emp"]) == 1 and len(sim["test_error_per_seed"]) == 2
    for flags in (["--shared-first-layer"], ["--sim-alpha", "1"]):
        with pytest.raises(SystemExit) as exc:          # argparse usage error, exit 2
            main(["curve", *SIM_ARGS, "--alpha", "1", *flags])
        assert exc.value.code == 2
        assert "only applies with --simulate" in capsys.readouterr().err


@pytest.mark.parametrize("extra, needle", [
    (["--d", "1"], "d must"),
    (["--d", "40", "--seeds", "0"], "seeds must"),
    (["--d", "40", "--n-test", "0"], "n_test must"),
    (["--d", "40", "--workers", "0"], "workers must"),
    (["--d", "300000"], "memory"),
])
def test_simulate_bad_input(capsys, extra, needle):
    code, _, err = run(capsys, "simulate", *SIM_ARGS, "--alpha", "1", *extra)
    assert code == 2 and needle in err and "Traceback" not in err


def test_derive_list_and_one_script(capsys):
    code, out, _ = run(capsys, "derive", "--list")
    assert code == 0 and "sherman_morrison" in out and "marchenko_pastur" in out
    code, out, _ = run(capsys, "derive", "sherman_morrison")
    assert code == 0 and "Step" in out


@pytest.mark.parametrize("argv, needle", [
    (["activation", "__import__('os')"], "unknown function"),
    (["activation", "exp(x**2"], "cannot parse"),
    (["activation", "exp(x**2)"], "diverges"),
    (["coefficients", "tanh", "--r", "1", "--c", "-1", "--kappa", "0"], "c must be positive"),
    (["mapping", "--student", "sign", "--teacher", "sin", "--eta", "1", "--alpha0", "2"],
     "check-mu1 is infinite"),
    (["mapping", "--student", "tanh", "--teacher", "sin", "--eta", "1", "--alpha0", "-2"],
     "alpha0"),
    (["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "1",
      "--lam", "-1", "--alpha", "1"], "lambda"),
    (["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "1",
      "--lam", "0.1", "--alpha", "0"], "alpha"),
    (["bounds", "--student", "tanh", "--teacher", "sin", "--r", "1", "--c", "1", "--gamma",
      "1.5"], "gamma"),
    (["derive", "no_such_step"], "no derivation"),
    (["coefficients", "tanh", "--r", "1", "--c", "1", "--kappa", "nan"], "kappa must be finite"),
    (["coefficients", "sin", "--r", "inf", "--c", "1", "--kappa", "0.5"], "r must be finite"),
    (["coefficients", "tanh", "--r", "1", "--c", "1", "--kappa", "0", "--dps", "-5"], "dps"),
    (["bounds", "--student", "tanh", "--teacher", "sin", "--r", "1", "--c", "1", "--dps", "0"],
     "dps"),
    (["curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "1",
      "--lam", "0.1", "--points", "0"], "alphas"),
    (["curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "1",
      "--lam", "0.1", "--alpha-min", "2", "--alpha-max", "1"], "alpha-min"),
    (["--integrate-timeout", "-1", "activation", "tanh"], "time limit"),
    (["curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "1",
      "--lam", "0.1", "--points", "3", "--plot", "/nonexistent_dir_srfsym/x.png"],
     "does not exist"),
    (["activation", "1/x"], "not defined at x = 0"),
    (["simulate", "--student", "exp(x)", "--teacher", "sin", "--alpha0", "2", "--eta", "1e3",
      "--lam", "0.1", "--alpha", "1", "--d", "40", "--seeds", "1"], "not finite"),
])
def test_bad_input_gives_clear_error(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert needle in err and "Traceback" not in err


def test_default_derive_runs_the_whole_chain(capsys):
    """The README's main job: every step prints, and its numbers are the library's."""
    code, out, _ = run(capsys, "derive")
    assert code == 0
    for step in range(1, 8):
        assert f"Step {step}." in out
    import re
    r = float(re.search(r"spike_strength\s+= ([0-9.]+)", out).group(1))
    assert abs(r - 1.13406) < 5e-6                           # docs/theory.md (c), formula column
    test = float(re.search(r"test error = ([0-9.]+)", out).group(1))
    assert abs(test - 0.0415) / 0.0415 < 0.01                # reference notebook, 1 % noise
    assert out.rstrip().endswith("`srfsym derive --list`.")
    assert ": True" in out.split("min over lambda")[1].splitlines()[0]
