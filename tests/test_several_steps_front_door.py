"""Several giant steps through the front door (docs/theory.md (p.4)): ``steps`` on the problem,
its row of the dispatch table, the API, the command line and the sweeps."""
import csv
import json
import warnings

import numpy as np
import pytest

from srfsym.theory.dispatch import combinations, refusal, solve_problem
from srfsym.theory.fixed_point import learning_curve, solve
from srfsym.theory.grid import solve_grid
from srfsym.theory.problem import Problem
from srfsym.theory.several_steps_error import several_steps_error

RELU = dict(student="relu", teacher="z1 + z1*z2", vocabulary=[1, -1])


def test_one_step_is_todays_problem_bit_for_bit():
    p = Problem("tanh", "sin", 0.1, 1.0, alpha0=2, eta=1)
    assert p.steps == 1 and p.key == ("uniform", "square", "mp", "double", "single", "one")
    assert Problem("tanh", "sin", 0.1, 1.0, alpha0=2, eta=1, steps=1.0) == p
    a = solve("tanh", "sin", 2, 1, 0.1, 1.0)
    b = solve("tanh", "sin", 2, 1, 0.1, 1.0, steps=1)
    assert a.test_error == b.test_error and a.state == b.state
    # a multi-index target at T = 1 keeps its own (issue 28) path
    c = solve("tanh", "z1 + z1*z2", 2, 1, 0.1, 1.0, vocabulary=[1, -1])
    d = solve("tanh", "z1 + z1*z2", 2, 1, 0.1, 1.0, vocabulary=[1, -1], steps=1)
    assert c.test_error == d.test_error


def test_several_steps_run_the_vector_kappa_channel():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = solve(RELU["student"], RELU["teacher"], 2, 1, 0.1, 1.0, vocabulary=[1, -1],
                    steps=2)
        want = several_steps_error("relu", "z1 + z1*z2", 1, 2, 2, 0.1, 1.0, vocabulary=[1, -1])
    assert abs(res.test_error - want.test_error) < 1e-12
    assert abs(res.node_error - want.node_error) < 1e-12
    assert res.mapping.steps == 2 and res.method == "structured-subspace"
    assert np.allclose(res.groups["target_components"],
                       want.map.states[2].target_components, atol=1e-14)
    assert any("2 giant steps" in n for n in res.notes)
    # the curve (warm starts) and the grid (point by point) give the single solve's numbers
    lc = learning_curve("tanh", "sin", 2, 1, 0.1, [1.0, 2.0], steps=2)
    g = solve_grid("tanh", "sin", 2, 1, [1.0, 2.0], [0.1], steps=2)
    for i, a in enumerate([1.0, 2.0]):
        one = solve("tanh", "sin", 2, 1, 0.1, a, steps=2).test_error
        assert abs(lc.test_error[i] - one) < 1e-9 * one
        assert abs(g.test_error[i, 0] - one) < 1e-9 * one


def test_the_table_has_the_several_steps_rows():
    cells = combinations()
    assert cells[("groups", "square", "mp", "double", "multi", "several")]["solver"].startswith("ridge")
    assert cells[("uniform", "convex", "mp", "double", "single", "several")]["solver"].startswith("convex")
    assert "drop dps" in cells[("uniform", "square", "mp", "mpmath", "multi", "several")]["reason"]
    p = Problem("tanh", "sin", 0.1, 1.0, alpha0=2, eta=1, steps=3, bulk="exact")
    assert "T > 1 steps is not derived" in refusal(p)
    with pytest.raises(ValueError, match="not derived"):
        solve_problem(p)


@pytest.mark.parametrize("kw,match", [
    (dict(alpha0=2, eta=1, steps=0), "integer >= 1"),
    (dict(alpha0=2, eta=1, steps=True), "integer >= 1"),
    (dict(alpha0=2, eta=1, steps=2.5), "integer >= 1"),
    (dict(r=0.5, c=1.0, gamma=0.5, steps=2), r"as \(alpha0, eta\)"),
    (dict(alpha0=0, eta=1, steps=2), "alpha0 > 0"),
    (dict(alpha0=2, eta=1, steps=2, mu0_correction=False), "full residual"),
])
def test_bad_steps_are_refused_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        Problem("tanh", "sin", 0.1, 1.0, **kw)


def test_the_command_line_takes_steps(tmp_path):
    from cli_run import run_cli
    res = run_cli("error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta",
                  "1", "--lam", "0.1", "--alpha", "1", "--steps", "2", "--json")
    assert res.returncode == 0, res.stderr
    row = json.loads(res.stdout)["rows"][0]
    assert row["steps"] == 2
    assert abs(row["test_error"] - solve("tanh", "sin", 2, 1, 0.1, 1.0, steps=2).test_error) \
        < 1e-12
    res = run_cli("bounds", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta",
                  "1", "--steps", "2")
    assert res.returncode != 0 and "not derived" in res.stderr
    rows = [row]
    res = run_cli("simulate", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta",
                  "1", "--lam", "0.1", "--alpha", "1", "--d", "60", "--seeds", "2", "--steps",
                  "2", "--json", "--workers", "1")
    assert res.returncode == 0, res.stderr
    row = json.loads(res.stdout)["rows"][0]
    assert abs(row["theory_test_error"] - rows[0]["test_error"]) < 1e-9
    # a sweep over T: the steps column, each row the single solve's value
    spec = tmp_path / "s.toml"
    spec.write_text('[theory]\nstudent = "tanh"\nteacher = "sin"\nalpha0 = 2\neta = 1\n'
                    'lam = 0.1\nalpha = 1\nsteps = [1, 2]\n')
    out = tmp_path / "s.csv"
    res = run_cli("sweep", str(spec), "--out", str(out), "--workers", "1")
    assert res.returncode == 0, res.stderr
    got = {r["steps"]: float(r["test_error"]) for r in csv.DictReader(open(out))}
    assert abs(got["2"] - rows[0]["test_error"]) < 1e-9
    assert abs(got["1"] - solve("tanh", "sin", 2, 1, 0.1, 1.0).test_error) < 1e-12
