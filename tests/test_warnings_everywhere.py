"""A warning reaches every output a result goes to, and no output drops a result (issue 31,
items 3 and 8): ``--json`` "warnings", a ``warnings`` column of ``--csv``, the figure caption,
the note column (and the figure) of a sweep; list and dict columns in ``--csv``; a sweep file
whose ``d`` no point uses, a foreign line inside a results table and a sweep whose points all
failed are refused or reported, never silently kept or drawn.

The isotropic-bulk check fires at erf / sin, alpha0 = 0.5, eta = 5 (the step's bulk has
normalised variance ~2.9 against 1 for c MP: +190 %, docs/theory.md (g.4)); tanh / sin at
alpha0 = 20, eta = 3 is a point where it holds (no warning).
"""
import csv
import io
import json

import pytest

from cli_run import run_cli
from srfsym.sweep.run import parse_spec, read_results, run_sweep
from srfsym.sweep.spec import SweepError

OFF = ["--student", "erf", "--teacher", "sin", "--alpha0", "0.5", "--eta", "5", "--lam", "0.01"]
FINE = ["--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta", "3", "--lam", "0.1"]


def test_json_carries_the_isotropic_bulk_warning():
    proc = run_cli("-q", "error", *OFF, "--alpha", "1", "--json")
    assert proc.returncode == 0, proc.stderr
    warns = json.loads(proc.stdout)["warnings"]
    assert any("isotropic bulk" in w and "+190%" in w for w in warns), warns
    assert "isotropic bulk" in proc.stderr               # and still on stderr


def test_csv_and_figure_carry_the_warning(tmp_path):
    fig = tmp_path / "c.svg"
    proc = run_cli("-q", "curve", *OFF, "--alpha", "0.5", "1", "--csv", "--plot", fig)
    assert proc.returncode == 0, proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    assert len(rows) == 2 and all("isotropic bulk" in r["warnings"] for r in rows)
    svg = fig.read_text()                                # SVG text stays text
    assert "isotropic bulk" in svg and "Warning:" in svg


def test_csv_keeps_list_and_dict_columns():
    """``--vocabulary 1 2 --csv`` is told from the uniform readout: the columns of ``--json``,
    a list or dict as its JSON text (no warning here: no ``warnings`` column)."""
    proc = run_cli("-q", "mapping", "--student", "tanh", "--teacher", "sin", "--alpha0", "20",
                   "--eta", "3", "--vocabulary", "1", "2", "--csv")
    assert proc.returncode == 0, proc.stderr
    row = next(csv.DictReader(io.StringIO(proc.stdout)))
    assert json.loads(row["vocabulary"]) == {"letters": [1.0, 2.0], "weights": [0.5, 0.5]}
    c1, c2 = json.loads(row["bulk_variance_groups"])      # c_j = 1 + omega_j^2 (c - 1)
    assert c2 - 1 == pytest.approx(4 * (c1 - 1), rel=1e-12) and c1 == float(row["c"])
    assert json.loads(row["spike_strength"])["method"] == "numeric"
    assert "warnings" not in row


def test_sweep_refuses_a_d_no_point_uses():
    base = {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3, "lam": 0.1,
            "alpha": 1}
    for bulk in ("exact", ["isotropic", "exact"]):
        with pytest.raises(SweepError, match="d = \\[500\\] is used by no point"):
            parse_spec({"theory": {**base, "bulk": bulk, "d": 500}})
    parse_spec({"theory": {**base, "bulk": ["exact", "step"], "d": 60}})    # d: the step's


def _small_sweep(tmp_path):
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
                                  "lam": 0.1, "alpha": [0.5, 1.0, 2.0]}})
    out = tmp_path / "r.csv"
    run_sweep(spec, out, workers=1, progress=False)
    return spec, out


def test_a_foreign_line_inside_the_table_is_named_not_kept(tmp_path):
    spec, out = _small_sweep(tmp_path)
    lines = out.read_text().splitlines(keepends=True)
    out.write_text("".join(lines[:2] + ["garbage,1,2\n"] + lines[2:]))
    with pytest.raises(SweepError, match="line 3 of .* is not a row of this table"):
        run_sweep(spec, out, workers=1, progress=False)
    assert out.read_text().count("garbage") == 1        # nothing removed for the user


def test_sweep_notes_warnings_and_per_point_notes(tmp_path):
    """The isotropic-bulk warning ends every theory row's note and reaches the figure; a
    convergence note of one point stays on that point's row."""
    toml = tmp_path / "g.toml"
    toml.write_text('[theory]\nstudent = "erf"\nteacher = "sin"\nalpha0 = 0.5\neta = 5\n'
                    'lam = 0.01\nalpha = [0.5, 1, 2]\n')
    fig = tmp_path / "g.svg"
    proc = run_cli("-q", "sweep", toml, "--out", tmp_path / "g.csv", "--workers", "1",
                   "--plot", fig)
    assert proc.returncode == 0, proc.stderr
    rows = read_results(tmp_path / "g.csv")
    assert all("warning: the isotropic bulk" in r["note"] for r in rows)
    for r in rows:
        for other in {"0.5", "1", "2"} - {f"{float(r['alpha']):g}"}:
            assert f"at alpha = {other}, lambda" not in r["note"]
    assert "isotropic bulk" in fig.read_text()


def test_all_failed_sweep_draws_no_figure(tmp_path):
    toml = tmp_path / "f.toml"
    toml.write_text('[theory]\nstudent = "tanh"\nteacher = "sin"\nalpha0 = 20\neta = 1e6\n'
                    'lam = 0.1\nalpha = [1, 2]\n')
    fig = tmp_path / "f.png"
    proc = run_cli("-q", "sweep", toml, "--out", tmp_path / "f.csv", "--workers", "1",
                   "--plot", fig)
    assert proc.returncode == 0, proc.stderr
    assert not fig.exists() and "plot:" not in proc.stdout
    assert "every point of the sweep failed" in proc.stderr
