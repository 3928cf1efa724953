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
    data = json.loads(run(capsys, "mapping", *PAIR, "--json"))["rows"][0]
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
    assert data["details"]["simulation"]["d"] == 60
    for row, a in zip(data["rows"], (1.0, 2.0)):
        ref = srfsym.solve("tanh", "sin", alpha0=20, eta=3, lam=0.1, alpha=a)
        assert row["alpha"] == a
        assert row["theory_test_error"] == pytest.approx(ref.test_error, rel=1e-12)
        assert row["test_error_sem"] > 0 and row["seeds"] == 2 and row["d"] == 60
    text = run(capsys, *argv)
    assert "theory (d -> infinity" in text and "standard error over 2 seeds" in text
    assert f"{data['rows'][0]['theory_test_error']:.6f}" in text


# ---------------------------------------------------------------------------------------
# one documented schema (srfsym/cli/output_schema.json) for every subcommand and the sweep

SMALL_SIM = ["--d", "60", "--seeds", "2", "--n-test", "300", "--workers", "1"]
COMMANDS = {
    "mapping": ["mapping", *PAIR],
    "error": ["error", *PAIR, "--lam", "0.1", "--alpha", "1", "2"],
    "bounds": ["bounds", "--student", "sin", "--teacher", "sin", "--r", "1", "--c", "1.2"],
    "bounds-step": ["bounds", "--student", "tanh", "--teacher", "sin", "--alpha0", "2",
                    "--eta", "3"],
    "bounds-optimize": ["bounds", "--student", "tanh", "--teacher", "sin", "--alpha0", "2",
                        "--optimize-eta", "--eta-max", "5"],
    "curve": ["curve", *PAIR, "--lam", "0.1", "--alpha", "1", "2", "--simulate",
              "--d-sim", "60", "--seeds", "2", "--sim-alpha", "1"],
    "simulate": ["simulate", *PAIR, "--lam", "0.1", "--alpha", "1", *SMALL_SIM],
    "curve-hinge": ["curve", "--student", "tanh", "--teacher", "sign", "--alpha0", "4", "--eta",
                    "2", "--lam", "0.1", "--alpha", "1", "--loss", "hinge", "--simulate",
                    "--d-sim", "60", "--seeds", "2", "--sim-alpha", "1"],
    "simulate-logistic": ["simulate", "--student", "tanh", "--teacher", "tanh", "--alpha0", "4",
                          "--eta", "2", "--lam", "0.1", "--alpha", "1", "--loss", "logistic",
                          "--label-rule", "bernoulli", *SMALL_SIM],
    "spectrum": ["spectrum", *PAIR, "--z", "0.6+0.1j", "1+0.1j", "--simulate", "--d", "60",
                 "--seeds", "2"],
    "scaling": ["scaling", "--student", "tanh", "--teacher", "sin", "--d", "12", "--n", "100",
                "--p", "50", "inf", "--lam", "0.1"],
    "error-multi-index": ["error", "--student", "tanh", "--teacher", "z1 + z1*z2", "--alpha0",
                          "4", "--eta", "2", "--lam", "0.1", "--alpha", "1"],
    "simulate-multi-index": ["simulate", "--student", "tanh", "--teacher", "z1 + z1*z2",
                             "--alpha0", "4", "--eta", "2", "--lam", "0.1", "--alpha", "1",
                             *SMALL_SIM],
}


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    from srfsym.cli.common import schema_path
    schema = json.loads(schema_path().read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_subcommand_json_validates_against_the_schema(name, capsys, validator):
    argv = COMMANDS[name]
    data = json.loads(run(capsys, *argv, "--json"))
    errors = sorted(validator.iter_errors(data), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])
    meta = data["meta"]
    assert meta["srfsym_version"] == srfsym.__version__ and meta["subcommand"] == argv[0]
    assert meta["command"].startswith(f"srfsym --quiet {argv[0]} --student")
    assert meta["parameters"]["student"] == argv[argv.index("--student") + 1]
    for row in data["rows"]:
        assert list(row)[:len(LEADING)] == LEADING, name
        assert not {"upper", "lower", "kernel", "kind"} & set(row), name   # one name each
    # the CSV has the same rows under the same names (spectrum has --csv too)
    header = run(capsys, *argv, "--csv").splitlines()[0].split(",")
    assert header[:len(LEADING)] == LEADING
    # ... and a "warnings" column exactly when the JSON has warnings
    assert set(header) - {"warnings"} <= {k for row in data["rows"] for k in row}
    assert ("warnings" in header) == bool(data["warnings"])


def test_the_same_quantity_has_the_same_name_in_bounds_and_curve(capsys):
    bounds = json.loads(run(capsys, "bounds", "--student", "tanh", "--teacher", "sin",
                            "--alpha0", "20", "--eta", "3", "--json"))["rows"][0]
    curve = json.loads(run(capsys, "curve", *PAIR, "--lam", "0.1", "--alpha", "1",
                           "--json"))["rows"][0]
    for key in ("upper_bound", "lower_bound", "kernel_baseline", "r", "c", "gamma"):
        assert curve[key] == pytest.approx(bounds[key], rel=1e-12), key


def test_sweep_table_has_the_leading_columns_and_its_rows_validate(tmp_path, validator):
    from srfsym.sweep.run import COLUMNS, parse_spec, read_results, run_sweep
    assert list(COLUMNS[:len(LEADING)]) == LEADING
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
                                  "eta": 3, "lam": 0.1, "alpha": [1.0, 2.0]},
                       "simulation": {"student": "tanh", "teacher": "sin", "alpha0": 20,
                                      "eta": 3, "lam": 0.1, "alpha": 1.0, "d": 40,
                                      "seeds": 1, "n_test": 200}})
    out = tmp_path / "s.csv"
    run_sweep(spec, out, workers=1, progress=False)
    rows = read_results(out)
    assert {r["source"] for r in rows} == {"theory", "simulation"}
    row_schema = {**validator.schema["$defs"]["row"], "$defs": validator.schema["$defs"]}
    import jsonschema
    for r in rows:
        typed = {k: (None if v == "" else v if k in ("source", "student", "teacher", "model",
                                                        "method", "note", "grid_id",
                                                        "vocabulary", "spectrum", "seed", "loss",
                                                        "label_rule")
                     else int(v) if k in ("d", "n_test") else
                     (v == "true") if k in ("shared_first_layer", "bias") else float(v))
                 for k, v in r.items()}
        jsonschema.validate(typed, row_schema)
        ref = srfsym.srf_mapping("tanh", "sin", 3, 20)      # r, c, gamma of the step
        assert typed["r"] == pytest.approx(ref.r, rel=1e-12)
        assert typed["gamma"] == pytest.approx(ref.gamma, rel=1e-12)


def test_the_schema_file_ships_with_the_package():
    try:
        import tomllib
    except ImportError:                     # Python 3.10
        import tomli as tomllib
    from pathlib import Path
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "output_schema.json" in project["tool"]["setuptools"]["package-data"]["srfsym.cli"]
    assert any(x.startswith("jsonschema") for x in project["project"]["optional-dependencies"]
               ["test"])


@pytest.mark.parametrize("argv", [["activation", "x**3 - 3*x", "--dps", "20"],
                                  ["activation", "sign"],
                                  ["coefficients", "tanh", "--r", "0.9", "--c", "1",
                                   "--kappa", "0.7"]])
def test_activation_and_coefficients_use_the_schema(argv, capsys, validator):
    """activation and coefficients print the same envelope (schema, meta, rows, notes,
    warnings); their rows lead with source, activation, kappa, r, c."""
    from srfsym.cli.common import ACTIVATION_COLUMNS
    data = json.loads(run(capsys, *argv, "--json"))
    errors = sorted(validator.iter_errors(data), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])
    assert data["meta"]["subcommand"] == argv[0]
    row = data["rows"][0]
    assert list(row)[:len(ACTIVATION_COLUMNS)] == list(ACTIVATION_COLUMNS)
    assert row["source"] == argv[0]
    import mpmath
    if argv[1] == "sign":                   # sigma' has a Dirac mass: E[sigma'^2] = inf
        assert row["checkmu1_sq"] == "inf" and row["mu1"] == pytest.approx(
            float(mpmath.sqrt(2 / mpmath.pi)), rel=1e-15)
    elif argv[0] == "activation":           # x^3 - 3x = He_3: mu1 = 0, E sigma^2 = 3! = 6
        assert row["mu1"] == 0 and row["second_moment"] == 6.0 and row["method"] == "exact"
    else:                                   # mu0(kappa) = E tanh(r kappa + sqrt(c) z)
        with mpmath.workdps(30):
            ref = mpmath.quad(lambda z: mpmath.tanh(mpmath.mpf("0.63") + z)
                              * mpmath.npdf(z), [-mpmath.inf, 0, mpmath.inf])
        assert row["mu0"] == pytest.approx(float(ref), rel=1e-14) and row["kappa"] == 0.7
    header = run(capsys, *argv, "--csv").splitlines()[0].split(",")
    assert header[:len(ACTIVATION_COLUMNS)] == list(ACTIVATION_COLUMNS)


def test_target_uses_the_schema(capsys, validator):
    data = json.loads(run(capsys, "target", "z1 + z1*z2", "--order", "2", "--student", "relu",
                          "--json"))
    errors = sorted(validator.iter_errors(data), key=str)
    assert not errors, "\n".join(e.message for e in errors[:5])
    assert data["meta"]["subcommand"] == "target"
    coeff = {tuple(row["multi_index"]): row["value"] for row in data["rows"]}
    assert coeff[(1, 0)] == 1.0 and coeff[(1, 1)] == 1.0 and coeff[(0, 2)] == 0.0
    info = data["details"]["target"]
    assert info["leap"] == 1 and info["information_exponent"] == 1
    assert info["second_step"]["relu"]["new_direction"] == pytest.approx([0.0, 1.0], abs=1e-9)
