"""The combination table: every (readout, loss, bulk, precision, target) cell is run by a solver or
refused with its reason, docs/combinations.md is the table the code generates, and the
cells the table says run do run (small problems, each against the single solve)."""
import pathlib

import numpy as np
import pytest

from srfsym.theory.dispatch import combinations, combinations_markdown, refusal, solve_problem
from srfsym.theory.grid import solve_grid
from srfsym.theory.problem import Options, Problem

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_the_docs_table_is_current():
    assert (ROOT / "docs" / "combinations.md").read_text() == combinations_markdown(), (
        "docs/combinations.md is stale: regenerate it (command at the top of the page)")


def test_every_cell_is_run_or_says_why():
    for key, cell in combinations().items():
        assert (cell["solver"] is None) != (cell["reason"] is None), key
        for entry in ("solve", "solve_grid", "learning_curve", "optimal_lambda", "sweep"):
            assert (cell[entry] is None) != (cell[entry + "_reason"] is None), (key, entry)


def test_the_table_is_what_solve_problem_refuses():
    p = Problem("tanh", "sign", 0.1, 1.0, alpha0=2, eta=3, loss="logistic", dps=30)
    assert p.key == ("uniform", "convex", "mp", "mpmath", "single", "one")
    assert refusal(p) == combinations()[p.key]["reason"]
    with pytest.raises(ValueError, match="numerical proximal step"):
        solve_problem(p)
    q = Problem("tanh", "z1 + z1*z2", 0.1, 1.0, alpha0=4, eta=2, bulk="step", d=100)
    assert q.key == ("uniform", "square", "step", "double", "multi", "one")
    assert refusal(q) == combinations()[q.key]["reason"] and "isotropic bulk" in refusal(q)


def test_a_multi_index_target_runs_through_the_table():
    """The target is an axis of the key: a multi-index target is solved by the table's
    multi-index rows (the alignment vector of its own mapping), in every entry point; a cell
    that runs some of its problems names the others (a loss with a multi-index target)."""
    from srfsym.step.multi_index import multi_index_mapping
    from srfsym.theory.multi_index import solve_multi_index_srf
    t = "z1 + z1*z2"
    p = Problem("tanh", t, 0.1, 2.0, alpha0=4, eta=2)
    assert p.target == "multi" and p.k == 2
    m = multi_index_mapping("tanh", t, 2, 4)
    direct = solve_multi_index_srf("tanh", t, m.r, m.c, tuple(float(g) for g in
                                                              m.alignment_vector), 0.1, 2.0)
    res = solve_problem(p)
    assert res.test_error == direct.test_error and res.mapping.alignment_vector
    g = solve_grid("tanh", t, 4, 2, [1.0, 2.0], [0.1])
    assert g.test_error[1, 0] == direct.test_error and g.gamma == pytest.approx(m.alignment)
    cell = combinations()[("uniform", "convex", "mp", "double", "multi", "one")]
    assert cell["solver"] and "Bernoulli labels" in cell["partial"]
    with pytest.raises(ValueError, match="needs labels [+]-1, but the multi-index target"):
        solve_problem(p.at(loss="hinge"))             # a classification loss, real labels
    with pytest.raises(ValueError, match="label_rule = 'bernoulli': Bernoulli labels"):
        solve_problem(p.at(loss="logistic", label_rule="bernoulli"))


@pytest.mark.parametrize("kw", [dict(vocabulary=[1, -1]),
                                dict(loss="logistic", teacher="sign", bulk="step", d=100)])
def test_the_grid_takes_what_the_single_solve_takes(kw):
    """Cells the grid refused before (a vocabulary; a loss with a non-isotropic bulk): point
    by point, each entry the single solve's value."""
    teacher = kw.pop("teacher", "sin")
    opts = dict(nodes=60) if "loss" in kw else dict(nodes=72)
    g = solve_grid("tanh", teacher, 2, 2, [1.0, 2.0], [0.1], **kw, **opts)
    assert g.converged.all()
    for i, a in enumerate(g.alphas):
        one = solve_problem(Problem("tanh", teacher, 0.1, float(a), alpha0=2, eta=2, **kw),
                            Options(**opts))
        # the grid continues along alpha (a warm start): the same fixed point, verified to tol
        assert abs(g.test_error[i, 0] - one.test_error) <= 1e-9 * abs(one.test_error)
    if "vocabulary" in kw:
        assert np.isnan(g.q1).all() and g.results[1][0].state.V1.shape == (2, 2)
    else:
        assert np.isfinite(g.classification_error).all()


def test_one_validation_for_every_door():
    """Decimal strings are numbers everywhere (alpha, noise, the sweep's alpha0); dps 0 is
    refused everywhere (the API, and ``coefficients --dps 0`` on the command line)."""
    a = Problem("tanh", "sign", "0.1", "1", alpha0="2", eta=3, loss="logistic", noise="0.1")
    assert a.noise == 0.1 and a.key == ("uniform", "convex", "mp", "double", "single", "one")
    with pytest.raises(ValueError, match="label noise must be a finite number"):
        Problem("tanh", "sign", 0.1, 1, alpha0=2, eta=3, noise="lots")
    with pytest.raises(ValueError, match="unknown spectrum 'empirical'"):   # was a KeyError
        Problem("tanh", "sin", 0.1, 1, alpha0=2, eta=3, spectrum="empirical")
    from srfsym.sweep.spec import parse_spec
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": "20",
                                  "eta": 3, "lam": 0.1, "alpha": 1}})
    assert spec["theory"]["alpha0"] == [20.0]
    from cli_run import run_cli
    res = run_cli("coefficients", "tanh", "--r", "0.9", "--c", "1", "--kappa", "0.7",
                  "--dps", "0")
    assert res.returncode != 0 and "dps" in res.stderr
