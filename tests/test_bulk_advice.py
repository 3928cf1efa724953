"""The isotropic-bulk warning recommends only a command that runs (issue 31, item 10): with
options the exact bulk does not take (--dps, --spectrum sample, --d on error/curve) it names
them for removal, and the command it suggests succeeds."""
import json

from cli_run import run_cli

POINT = ["error", "--student", "erf", "--teacher", "sin", "--alpha0", "0.5", "--eta", "5",
         "--lam", "0.01", "--alpha", "1"]


def test_the_suggested_bulk_runs():
    res = run_cli("-q", *POINT, "--spectrum", "sample", "--d", "120", "--json", timeout=300)
    assert res.returncode == 0, res.stderr
    warns = [w for w in json.loads(res.stdout)["warnings"] if "isotropic bulk" in w]
    assert warns, res.stdout
    advice = warns[0]
    # before: "use --bulk step", refused with --spectrum sample ("drop --spectrum sample")
    assert "use --bulk exact without --spectrum sample and --d 120" in advice
    naive = run_cli("-q", *POINT, "--spectrum", "sample", "--d", "120", "--bulk", "exact")
    assert naive.returncode == 2                       # what the advice steers around
    followed = run_cli("-q", *POINT, "--bulk", "exact", "--json", timeout=300)
    assert followed.returncode == 0, followed.stderr
    row = json.loads(followed.stdout)["rows"][0]
    assert abs(row["test_error"] - 0.7537595429) < 1e-9


def test_plain_command_gets_plain_advice():
    from argparse import Namespace
    from srfsym.cli.common import bulk_advice
    assert bulk_advice(Namespace(cmd="curve", dps=None, spectrum="mp", d=None)).startswith(
        "use --bulk exact (")
    text = bulk_advice(Namespace(cmd="curve", dps=25, spectrum="mp", d=500))
    assert "without --dps and --d 500" in text


def test_a_sweep_note_names_the_key_that_runs():
    from srfsym.sweep.spec import parse_spec
    from srfsym.sweep.tasks import _bulk_warnings
    notes = _bulk_warnings("erf", "sin", 0.5, 5.0, 1.0, (1.0,))
    assert notes and "set bulk = 'exact' in the [theory] table" in notes[0]
    assert "--bulk" not in notes[0]                  # no command-line flag in a sweep's note
    parse_spec({"theory": {"student": "erf", "teacher": "sin", "alpha0": 0.5, "eta": 5,
                           "lam": 0.01, "alpha": 1, "bulk": "exact"}})   # the advice parses
