"""One output schema: the tables of mapping, error, curve and simulate carry their inputs as
numbers under the same column names and concatenate into one table; simulate puts the theory
beside the simulation."""
import csv
import io
import json

import pytest

import srfsym
from srfsym.cli import main
from srfsym.cli.common import INPUT_COLUMNS, SRF_COLUMNS

PAIR = ["--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta", "3"]
LEADING = list(INPUT_COLUMNS + SRF_COLUMNS)


def run(capsys, *argv):
    assert main(["--quiet", *argv]) == 0
    return capsys.readouterr().out


def csv_rows(text):
    return list(csv.DictReader(io.StringIO(text)))




def test_mapping_json_has_numbers_not_strings(capsys):
    data = json.loads(run(capsys, "mapping", *PAIR, "--json"))
    assert list(data)[:len(LEADING)] == LEADING
    assert data["eta"] == 3.0 and data["alpha0"] == 20.0           # numbers, not "3"
    assert data["r"] == pytest.approx(1.13406, abs=5e-6)           # docs/theory.md (c) table
    assert data["spike_strength"]["value"].startswith("1.134055509282")   # 30-digit detail kept


def test_tables_concatenate_with_the_same_columns(capsys):
    texts = {
        "mapping": run(capsys, "mapping", *PAIR, "--csv"),
        "error": run(capsys, "error", *PAIR, "--lam", "0.1", "--alpha", "1", "2", "--csv"),
        "curve": run(capsys, "curve", *PAIR, "--lam", "0.1", "--alpha", "1", "--csv"),
        "simulate": run(capsys, "simulate", *PAIR, "--lam", "0.1", "--alpha", "1", "--d", "60",
                        "--seeds", "2", "--n-test", "300", "--workers", "1", "--csv"),
    }
    rows = {}
    for name, text in texts.items():
        header = text.splitlines()[0].split(",")
        assert header[:len(LEADING)] == LEADING, name
        rows[name] = csv_rows(text)
        for row in rows[name]:
            assert row["student"] == "tanh" and row["teacher"] == "sin", name
            assert float(row["alpha0"]) == 20 and float(row["eta"]) == 3, name
            assert float(row["r"]) == pytest.approx(1.1340555, rel=1e-7), name
    # the same numbers under the same names in every table
    err = {float(r["alpha"]): float(r["test_error"]) for r in rows["error"]}
    assert float(rows["curve"][0]["test_error"]) == err[1.0]
    sim = rows["simulate"][0]
    assert float(sim["theory_test_error"]) == err[1.0]
    assert sim["source"] == "simulation" and rows["error"][0]["source"] == "theory"
    # one table: the union of the columns, every row under the same names (what pandas.concat
    # of the four CSVs gives)
    union = []
    for r in (row for name in rows for row in rows[name]):
        union += [k for k in r if k not in union]
    assert union[:len(LEADING)] == LEADING
    assert sum(len(v) for v in rows.values()) == 1 + 2 + 1 + 1
    assert {r["source"] for v in rows.values() for r in v} == {"mapping", "theory", "simulation"}


def test_simulate_shows_the_theory_beside_the_simulation(capsys):
    argv = ["simulate", *PAIR, "--lam", "0.1", "--alpha", "1", "2", "--d", "60", "--seeds", "2",
            "--n-test", "300", "--workers", "1"]
    data = json.loads(run(capsys, *argv, "--json"))
    for row, a in zip(data["rows"], (1.0, 2.0)):
        ref = srfsym.solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=a)
        assert row["alpha"] == a
        assert row["theory_test_error"] == pytest.approx(ref.test_error, rel=1e-12)
        assert row["test_error_sem"] > 0 and row["seeds"] == 2 and row["d"] == 60
    text = run(capsys, *argv)
    assert "theory (d -> infinity" in text and "standard error over 2 seeds" in text
    assert f"{data['rows'][0]['theory_test_error']:.6f}" in text
