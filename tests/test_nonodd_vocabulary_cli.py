"""A non-odd student with a readout vocabulary after one step, on the command line: the step
bulk (the realised layer split by letter, every letter's r_j, c_j measured, docs/theory.md
(g.4)) is the theory ``simulate`` shows beside the network, and its note says that neither the
y - mu0 corrections of (c) nor the per-letter formulas of (k.1) enter; the isotropic and exact
bulks are refused by the dispatch table, and ``simulate`` prints that reason where the theory
would be (text heading and stderr announcement, JSON, CSV); likewise a multi-index target on the
step's bulks.

relu / sin, alpha0 = 2, eta = 1, {+1, -1}, lambda = 0.1, alpha = 1, d = 100 (small: the layer of
seed 0 is the same in the simulation, the CLI's theory and the API's solve).
"""
import csv
import io
import json

import pytest

from cli_run import run_cli
from srfsym import solve
from srfsym.step.mapping import NonOddActivationWarning
from srfsym.theory.dispatch import refusal
from srfsym.theory.problem import Problem
from srfsym.theory.spectral.step_bulk_groups import step_group_bulk

@pytest.fixture(scope="module")
def ref():
    """The API's solve of the same problem on the layer of seed 0 (its one warning: the note on
    the step bulk, not the mapping's "corrections are applied")."""
    with pytest.warns(NonOddActivationWarning) as rec:
        res = solve("relu", "sin", 2, 1, 0.1, 1.0, bulk="step", d=100, seed=0,
                    vocabulary=[1, -1])
    assert [str(w.message) for w in rec if issubclass(w.category, NonOddActivationWarning)] \
        == [n for n in res.notes if "is not odd" in n]
    return res


CASE = ["--student", "relu", "--teacher", "sin", "--alpha0", "2", "--eta", "1", "--lam", "0.1",
        "--alpha", "1", "--d", "100", "--vocabulary", "1", "-1"]


def test_simulate_step_bulk_shows_the_theory_of_that_layer(ref):
    proc = run_cli("-q", "simulate", *CASE, "--seeds", "1", "--bulk", "step", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    (row,) = data["rows"]
    assert row["theory_test_error"] == pytest.approx(ref.test_error, rel=1e-10)
    assert row["theory_train_error"] == pytest.approx(ref.train_error, rel=1e-10)
    assert row["theory_refused"] is None and row["theory_bulk"] == "step"
    assert row["z_score"] is None                     # one seed: no standard error
    # the letters' r_j, c_j the simulation reports are the step bulk's own on that layer
    spec = step_group_bulk("relu", "sin", 2, 1, 100, 1.0, 0, [1, -1])
    sim = data["details"]["simulation"]
    assert sim["r_emp_groups"] == [list(spec.group_r)]
    assert sim["c_emp_groups"] == [list(spec.group_c)]
    # the note (and warning) says what the step bulk does; no "corrections are applied"
    said = [w for w in data["warnings"] if w.startswith("student relu is not odd")]
    assert len(said) == 1 and "measured r_j, c_j and gamma" in said[0]
    assert "neither the mapping's y - mu0 corrections" in said[0]
    assert not any("corrections are applied" in w for w in data["warnings"])
    assert said[0] in ref.notes


def test_error_step_bulk_header_and_note(ref):
    proc = run_cli("-q", "error", *CASE, "--bulk", "step")
    assert proc.returncode == 0, proc.stderr
    assert "corrections are applied" not in proc.stdout + proc.stderr
    assert "r_j = r omega_j" not in proc.stdout      # the per-letter formulas are not used here
    assert "sRF parameters of the mapping" in proc.stdout and "not used on the step bulk" \
        in proc.stdout
    assert f"test error = {ref.test_error:.10g}" in proc.stdout


@pytest.mark.parametrize("bulk, output", [("isotropic", "--json"), ("exact", "--csv")])
def test_simulate_prints_the_refusal_where_the_theory_would_be(bulk, output):
    why = refusal(Problem("relu", "sin", 0.1, 1.0, alpha0=2, eta=1, bulk=bulk,
                          vocabulary=[1, -1]))
    assert why is not None and "needs an odd student" in why
    with pytest.raises(ValueError) as exc:          # the API refuses with the same reason
        solve("relu", "sin", 2, 1, 0.1, 1.0, bulk=bulk, vocabulary=[1, -1])
    assert str(exc.value) == why
    proc = run_cli("-q", "simulate", *CASE, "--seeds", "2", "--bulk", bulk, output)
    assert proc.returncode == 0, proc.stderr
    if output == "--json":
        data = json.loads(proc.stdout)
        jsonschema = pytest.importorskip("jsonschema")
        from srfsym.cli.common import schema_path
        schema = json.loads(schema_path().read_text())
        assert not list(jsonschema.Draft202012Validator(schema).iter_errors(data))
        assert schema["$defs"]["row"]["properties"]["theory_refused"]["type"] == ["string",
                                                                                   "null"]
        (row,) = data["rows"]
        assert row["theory_test_error"] is None and row["theory_refused"] == why
        assert row["test_error"] > 0                  # the network itself is simulated
    else:
        (row,) = list(csv.DictReader(io.StringIO(proc.stdout)))
        assert row["theory_refused"] == why and row["theory_test_error"] == ""
        assert float(row["test_error"]) > 0


def test_simulate_text_names_the_refusal():
    """The table's heading says which theory is refused and why (no "beside the simulation"
    heading over a refused column)."""
    from srfsym.cli.simulation import simulation_table, theory_label
    why = "a readout vocabulary needs an odd student (relu is not odd: ...)"
    row = {"alpha": 1.0, "test_error": 0.2, "test_error_sem": 0.01, "theory_test_error": None,
           "theory_refused": why}
    label = theory_label({"bulk": "exact"})
    text = simulation_table([row], 2, label)
    assert f"no theory beside this simulation: the {label} is refused: {why}" \
        in " ".join(text.split())
    assert "beside the simulation (mean" not in text
    assert "refused" in text.splitlines()[-1]


def test_simulate_status_says_the_theory_is_refused():
    """Without -q, simulate announces the theory it computes; a refused one is announced as
    refused, with the reason, never as "the theory ... at the same parameters"."""
    why = refusal(Problem("relu", "sin", 0.1, 1.0, alpha0=2, eta=1, bulk="exact",
                          vocabulary=[1, -1]))
    proc = run_cli("simulate", *CASE, "--seeds", "2", "--bulk", "exact")
    assert proc.returncode == 0, proc.stderr
    err = " ".join(proc.stderr.split())
    assert "exact law of the step bulk, docs/theory.md (g.5)) is refused here: " + why in err
    assert "at the same parameters" not in err
    assert "is refused: " + why in " ".join(proc.stdout.split())


@pytest.mark.parametrize("bulk", ["step", "exact"])
def test_simulate_multi_index_target_on_the_step_bulks_shows_the_refusal(bulk):
    """A multi-index target on the step's bulks: the dispatch table's refusal (the one place
    that refuses it) is the theory column, the network still simulated."""
    teacher = "z1 + z1*z2"
    why = refusal(Problem("tanh", teacher, 0.1, 1.0, alpha0=2, eta=1, bulk=bulk,
                          **({"d": 60, "seed": 0} if bulk == "step" else {})))
    assert why is not None and "multi-index target is solved with the isotropic bulk" in why
    proc = run_cli("-q", "simulate", "--student", "tanh", "--teacher", teacher, "--alpha0", "2",
                   "--eta", "1", "--lam", "0.1", "--alpha", "1", "--d", "60", "--seeds", "1",
                   "--bulk", bulk, "--json")
    assert proc.returncode == 0, proc.stderr
    (row,) = json.loads(proc.stdout)["rows"]
    assert row["theory_refused"] == why and row["theory_test_error"] is None
    assert row["test_error"] > 0
