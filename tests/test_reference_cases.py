"""``srfsym reference CASES``: a user's own cases at high precision, each value with how it
was obtained, under the names of every other output (issue 31)."""
import json

import mpmath
import pytest

from cli_run import run_cli
from srfsym import reference
from srfsym.cli.reference import EXAMPLE_CASES as CASES   # the help's example


def committed(name, **inputs):
    rows = reference.load(reference.Path(__file__).parent / "reference", name)["values"]
    return next(r for r in rows if all(r[k] == v for k, v in inputs.items()))


def test_user_cases_at_30_digits(tmp_path):
    path = tmp_path / "cases.toml"
    path.write_text(CASES)
    res = run_cli("-q", "reference", path, "--out", tmp_path / "values.json", timeout=300)
    assert res.returncode == 0, res.stderr
    data = json.loads((tmp_path / "values.json").read_text())
    assert data["dps"] == 30 and data["srfsym_version"]
    mu1 = data["values"]["constants"][0]["values"]["mu1"]
    with mpmath.workdps(40):                 # independent: E[erf(z) z] = 2 / sqrt(3 pi)
        truth = 2 / mpmath.sqrt(3 * mpmath.pi)
        assert abs(mpmath.mpf(mu1["value"]) - truth) < mpmath.mpf(10) ** -29
    assert mu1["method"] == "exact"
    ref = committed("mapping", student="tanh", teacher="sin", eta="3")
    got = data["values"]["mapping"][0]["values"]["spike_strength"]
    assert got["value"] == ref["spike_strength"]["value"] and got["method"] == "numeric"
    b = data["values"]["bounds"][0]
    assert (b["student"], b["r"], b["c"], b["gamma"]) == ("sin", "0.8", "1.3", "1")
    ref = committed("bounds", student="sin", r="0.8", c="1.3")
    for key in ("upper_bound", "lower_bound", "kernel_baseline"):
        assert b["values"][key]["value"] == ref[key], key       # the committed 30 digits
        assert b["values"][key]["method"] == "numeric" and "digits" in b["values"][key]["how"]
    fp = data["values"]["fixed_point"][0]["values"]
    ref = committed("fixed_point", student="sin", alpha="0.5")
    assert fp["test_error"]["value"] == ref["test_error"]
    assert "kappa nodes" in fp["test_error"]["how"] and fp["test_error"]["abs_error"]
    # one name per quantity: none of the old keys anywhere
    text = json.dumps(data["values"])
    assert not any(f'"{old}"' in text for old in ("upper", "lower", "kernel"))


def test_cases_file_refusals(tmp_path):
    bad = {"nope.toml": ("[[bogus]]\nx = 1\n", "unknown table(s) bogus"),
           "missing.toml": ('[[bounds]]\nstudent = "sin"\nteacher = "sin"\nr = 1\nc = 1\n',
                            "[[bounds]] case 1: missing gamma"),
           "text.json": ('{"cget": [{"activation": "tanh", "kappa": "x", "r": 1, "c": 1}]}',
                         "kappa = 'x' is not a finite number"),
           "broken.json": ("{", "is not valid JSON")}
    for name, (text, message) in bad.items():
        path = tmp_path / name
        path.write_text(text)
        res = run_cli("-q", "reference", path)
        assert res.returncode == 2 and message in res.stderr, (name, res.stderr)
    res = run_cli("-q", "reference", tmp_path / "nope.toml", "--dps", "2")
    assert res.returncode == 2


def test_old_files_load_under_the_new_names(tmp_path):
    old = {"dps": 30, "values": [{"student": "sin", "upper": "0.1", "lower": "0.01",
                                  "kernel": "0.2"}]}
    (tmp_path / "bounds.json").write_text(json.dumps(old))
    row = reference.load(tmp_path, "bounds")["values"][0]
    assert (row["upper_bound"], row["lower_bound"], row["kernel_baseline"]) == ("0.1", "0.01",
                                                                                "0.2")
    assert reference.RENAMED == {"upper": "upper_bound", "lower": "lower_bound",
                                 "kernel": "kernel_baseline"}


def test_parse_cases_takes_decimal_strings_and_refuses_booleans():
    cases = reference.parse_cases({"mapping": [{"student": "tanh", "teacher": "sin",
                                                "eta": "3", "alpha0": 20.5}]})
    assert cases["mapping"][0]["eta"] == "3" and cases["mapping"][0]["alpha0"] == "20.5"
    with pytest.raises(ValueError, match="must be a number"):
        reference.parse_cases({"mapping": [{"student": "tanh", "teacher": "sin",
                                            "eta": True, "alpha0": 1}]})
