"""``srfsym target --student S --steps T --vocabulary ...``: the directions each giant step
reaches, from the T-step map and the expressions' parities (docs/theory.md (p.3))."""
import json

from cli_run import run_cli


def test_target_steps_say_which_directions_the_steps_learn():
    res = run_cli("-q", "target", "z1 + z1*z2", "--student", "relu", "--student", "tanh",
                  "--steps", "2", "--vocabulary", "1", "-1", "--eta", "1", "--alpha0", "2",
                  "--order", "2", "--json", timeout=300)
    assert res.returncode == 0, res.stderr
    learned = json.loads(res.stdout)["details"]["target"]["learned_directions"]
    assert learned["relu"]["verdict"] == "a second direction"
    assert learned["tanh"]["verdict"] == "no second direction"
    relu2 = learned["relu"]["steps"][1]
    assert relu2["rank"] == 2 and "theta2" in relu2["reached"]
    assert "parity" in learned["tanh"]["steps"][1]["reasons"]["theta2"]


def test_target_steps_need_a_student_and_a_positive_count():
    res = run_cli("-q", "target", "z1 + z1*z2", "--steps", "2")
    assert res.returncode == 2 and "give --student" in res.stderr
    res = run_cli("-q", "target", "z1 + z1*z2", "--student", "relu", "--steps", "0")
    assert res.returncode == 2 and "--steps must be an integer >= 1" in res.stderr
