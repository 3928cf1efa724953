"""``srfsym scaling``: the exponents and regions SymPy derives, the equivalent's curve, the one
output schema, and bad input refused with exit code 2."""
import json

import numpy as np
import pytest
import sympy as sp

from srfsym.cli import main
from srfsym.theory.dimension_free.equivalent import deterministic_equivalent
from srfsym.theory.dimension_free.spectra import PowerLawSpectrum


def run(capsys, *argv, code=0):
    assert main(["--quiet", *argv]) == code
    return capsys.readouterr()


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    from srfsym.cli.common import schema_path
    return jsonschema.Draft202012Validator(json.loads(schema_path().read_text()))


def test_exponent_regions_and_curve_in_the_schema(capsys, validator):
    data = json.loads(run(capsys, "scaling", "--a", "2", "--r", "0.75", "--n", "1000", "1e5",
                          "--p", "300", "--lam", "0.1", "--noise", "0.05", "--json").out)
    assert not list(validator.iter_errors(data))
    rows = data["rows"]
    exp = [r for r in rows if r.get("kind_of_row") == "exponent"][0]
    assert sp.sympify(exp["decimal"]["kernel_rate"]) == sp.Rational(3, 4)     # 2ar/(2ar+1)
    assert sp.sympify(exp["decimal"]["q_min"]) == sp.Rational(1, 2)            # (1+a(2r-1))/(2ar+1)
    assert {r["regime"] for r in rows if r.get("kind_of_row") == "region"} == \
        {"ridge", "samples", "features"}
    curve = [r for r in rows if r["source"] == "theory"]
    ref = deterministic_equivalent(PowerLawSpectrum(2.0, 0.75), np.array([1000.0, 1e5]), 300.0,
                                   0.1, noise=0.05)
    assert [r["test_error"] for r in curve] == pytest.approx(ref.test_error.tolist(), rel=1e-12)
    assert curve[0]["excess_risk"] == pytest.approx(curve[0]["bias_term"]
                                                    + curve[0]["variance_term"], rel=1e-14)


def test_text_output_names_the_rate(capsys):
    text = run(capsys, "scaling", "--a", "2", "--r", "0.75", "--noiseless").out
    assert "kernel rate 3" in text and "gamma(l, q) =" in text


@pytest.mark.parametrize("argv,match", [
    (["--a", "0.9", "--r", "1"], "a must be > 1"),
    (["--a", "2"], "both --a"),
    (["--a", "2", "--r", "1", "--student", "tanh"], "not both"),
    (["--a", "2", "--r", "1", "--n", "10", "--p", "10", "--lam", "0"], "interpolation peak"),
    (["--a", "2", "--r", "1", "--n", "10", "--p", "ten", "--lam", "1"], "--p takes numbers"),
    (["--a", "2", "--r", "1", "--n", "10", "--p", "5", "--lam", "1", "--noise", "-1"], "--noise"),
    (["--student", "tanh", "--teacher", "sin"], "--d"),
])
def test_bad_input_exits_2_with_a_clear_message(capsys, argv, match):
    err = run(capsys, "scaling", *argv, code=2).err
    assert match in err and "Traceback" not in err
