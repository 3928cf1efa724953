"""``srfsym curve`` with a multi-index target after one step (docs/theory.md (n)): the curve is
the one ``solve`` gives point by point, without bounds (they are derived for a single-index
teacher).  It used to solve the curve and then stop on the bounds with "unknown name 'z1': the
variable is 'x'"; a command that takes no multi-index target now says what z1 is, and a
misspelt activation gets the near built-in name."""
import json

import pytest
from cli_run import run_cli

from srfsym.theory.fixed_point import solve

TARGET = "z1 + z1*z2"
POINT = ["--student", "tanh", "--teacher", TARGET, "--alpha0", "4", "--eta", "2",
         "--lam", "0.1"]


def test_curve_of_a_multi_index_target_is_solve_point_by_point():
    proc = run_cli("-q", "curve", *POINT, "--alpha", "1", "2", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    rows = [r for r in doc["rows"] if r["source"] == "theory"]
    assert [r["alpha"] for r in rows] == [1.0, 2.0]
    for row in rows:
        ref = solve("tanh", TARGET, alpha0=4, eta=2, lam=0.1, alpha=row["alpha"])
        assert row["test_error"] == pytest.approx(ref.test_error, rel=1e-9)
        assert row["train_error"] == pytest.approx(ref.train_error, rel=1e-9)
        assert row.get("upper_bound") is None and row.get("lower_bound") is None


def test_curve_text_says_why_there_are_no_bounds():
    proc = run_cli("-q", "curve", *POINT, "--alpha", "1")
    assert proc.returncode == 0, proc.stderr
    assert "bounds: not derived for a multi-index target (docs/theory.md (n))" in proc.stdout


def test_a_classifier_curve_of_a_multi_index_target_is_refused_with_the_reason():
    proc = run_cli("-q", "curve", "--student", "tanh", "--teacher", "sign(z1 + z1*z2)",
                   "--loss", "logistic", "--alpha0", "4", "--eta", "2", "--lam", "0.1",
                   "--alpha", "1")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "derived for a single-index teacher" in proc.stderr
    assert "srfsym error" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("argv", [
    ["mapping", "--student", "tanh", "--teacher", TARGET, "--alpha0", "4", "--eta", "2"],
    ["bounds", "--student", "tanh", "--teacher", TARGET, "--alpha0", "4", "--eta", "2"],
])
def test_commands_without_multi_index_targets_say_what_z1_is(argv):
    proc = run_cli("-q", *argv)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "z1 names a direction of a multi-index target" in proc.stderr, proc.stderr


def test_the_learned_direction_prints_no_negative_zero():
    """z1 + z1*z2 learns e = (1, 0) exactly; round-off printed it as [1.0, -0.0]."""
    res = solve("tanh", TARGET, alpha0=4, eta=2, lam=0.1, alpha=1.0)
    note = next(n for n in res.notes if "learns the linear part along" in n)
    assert "e = [1.0, 0.0] only" in note, note


@pytest.mark.parametrize("text,hint", [("tahn", "(did you mean 'tanh'?)"),
                                       ("sgn", "(did you mean 'sign'?)"),
                                       ("tanhh(x)", "(did you mean 'tanh'?)")])
def test_a_misspelt_activation_gets_the_near_name(text, hint):
    from srfsym.symbolic.activations import ActivationError, activation
    with pytest.raises(ActivationError) as err:
        activation(text)
    assert hint in str(err.value)
