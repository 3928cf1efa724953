"""srfsym sweep: the description, resumable CSV, local pool and Dask, bad input."""
import math
import os
import shutil

import numpy as np
import pytest

from srfsym.cli import main
from srfsym.theory.fixed_point import solve
from srfsym.simulation.simulate import simulate
from srfsym.sweep.run import (COLUMNS, KEY_COLUMNS, SweepError, grid_id, parse_spec, read_results, run_sweep,
                          simulation_tasks, theory_tasks)

THEORY = {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": [2, 3],
          "lam": [0.01, 0.5], "alpha": [0.5, 2.0]}
SIMULATION = {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3, "lam": 0.1,
              "alpha": [0.5, 2.0], "d": 40, "seeds": 2, "n_test": 200}
TOML = """
[theory]
student = "tanh"
teacher = "sin"
alpha0 = 20
eta = [2, 3]
lam = [0.01, 0.5]
alpha = [0.5, 2.0]

[simulation]
student = "tanh"
teacher = "sin"
alpha0 = 20
eta = 3
lam = 0.1
alpha = [0.5, 2.0]
d = 40
seeds = 2
n_test = 200
"""


def _table(path):
    """The rows without the wall time, in a fixed order."""
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in read_results(path)]
    return sorted(rows, key=lambda r: tuple(r.values()))


def test_tasks_are_the_cartesian_product():
    spec = parse_spec({"theory": THEORY, "simulation": SIMULATION})
    th, sim = theory_tasks(spec), simulation_tasks(spec)
    assert [t["eta"] for t in th] == [2.0, 3.0] and th[0]["alpha"] == [0.5, 2.0]
    assert [t["seed"] for t in sim] == [0, 1] and sim[0]["d"] == 40
    assert grid_id(spec) != grid_id(parse_spec({"theory": THEORY}))


@pytest.fixture(scope="module")
def full_sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep") / "full.csv"
    spec = parse_spec({"theory": THEORY, "simulation": SIMULATION})
    summary = run_sweep(spec, out, workers=1, progress=False)
    assert summary.computed == summary.points == 8 + 4 and summary.failed == 0
    return spec, out


def test_rows_hold_the_library_values(full_sweep):
    spec, out = full_sweep
    rows = read_results(out)
    assert len(rows) == 12 and len({tuple(r[k] for k in KEY_COLUMNS) for r in rows}) == 12
    th = [r for r in rows if r["source"] == "theory" and r["eta"] == "3.0" and r["lam"] == "0.5"
          and r["alpha"] == "2.0"]
    assert len(th) == 1 and th[0]["method"].startswith("grid-newton")
    ref = solve("tanh", "sin", 20, 3, 0.5, 2.0)
    assert abs(float(th[0]["test_error"]) - ref.test_error) < 1e-10
    assert abs(float(th[0]["train_error"]) - ref.train_error) < 1e-10
    sim = sorted((r for r in rows if r["source"] == "simulation" and r["seed"] == "1"),
                 key=lambda r: float(r["alpha"]))
    res = simulate("tanh", "sin", 20, 3, 0.1, [0.5, 2.0], d=40, seeds=1, seed=1, n_test=200,
                   workers=1)
    assert [float(r["test_error"]) for r in sim] == res.test_error_per_seed[0].tolist()


def test_an_interrupted_sweep_resumes_without_duplicates(full_sweep, tmp_path):
    spec, full = full_sweep
    cut = tmp_path / "cut.csv"
    lines = open(full).read().splitlines(keepends=True)
    kept = lines[:6] + [lines[6][:25]]          # five rows, then a row cut by the kill
    cut.write_text("".join(kept))
    summary = run_sweep(spec, cut, workers=1, progress=False)
    assert summary.skipped == 5 and summary.computed == 7
    assert open(cut).read().startswith("".join(kept[:6]))   # nothing rewritten
    assert _table(cut) == _table(full)                     # identical values, no duplicates
    again = run_sweep(spec, cut, workers=1, progress=False)
    assert again.computed == 0 and again.skipped == 12


def test_local_pool_gives_the_same_table(full_sweep, tmp_path):
    spec, full = full_sweep
    out = tmp_path / "pool.csv"
    theory_only = {"theory": spec["theory"]}      # two tasks, one per worker process
    run_sweep(theory_only, out, workers=2, progress=False)
    expected = [{**r, "grid_id": grid_id(theory_only)} for r in _table(full)
                if r["source"] == "theory"]
    assert _table(out) == expected


def test_dask_cluster_gives_the_same_table(full_sweep, tmp_path):
    distributed = pytest.importorskip("distributed")
    spec, full = full_sweep
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        summary = run_sweep(spec, out, scheduler=cluster.scheduler_address, progress=False)
    assert summary.where.startswith("Dask scheduler tcp://127.0.0.1:")
    assert _table(out) == _table(full)


def test_cli_sweep_and_errors(full_sweep, tmp_path, capsys):
    spec, full = full_sweep
    grid = tmp_path / "grid.toml"
    grid.write_text(TOML)
    out = tmp_path / "r.csv"
    shutil.copy(full, out)
    before = out.read_bytes()
    assert main(["sweep", str(grid), "--out", str(out), "--quiet"]) == 0
    assert out.read_bytes() == before                   # everything was there already
    assert "12 already in" in capsys.readouterr().err
    # a different grid into the same file: refused, file untouched
    other = tmp_path / "other.toml"
    other.write_text(TOML.replace("eta = [2, 3]", "eta = [2, 4]"))
    assert main(["sweep", str(other), "--out", str(out), "--quiet"]) == 2
    assert "holds results of a different grid" in capsys.readouterr().err
    assert out.read_bytes() == before

    def error(text, *extra, out_path=None):
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        code = main(["sweep", str(bad), "--out", str(out_path or tmp_path / "x.csv"),
                     "--quiet", *extra])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("srfsym: error: "), err
        return err

    assert "unknown key 'gamma'" in error(TOML + "gamma = 1\n")
    assert "alpha is an empty list" in error(TOML.replace("alpha = [0.5, 2.0]\nd", "alpha = []\nd"))
    assert "d must be an integer" in error(TOML.replace("d = 40", "d = 40.5"))
    # a decimal string is a number, as in the library (one validation); a word is not
    assert "eta must be a number" in error(TOML.replace("eta = 3", 'eta = "three"'))
    assert "unknown table 'theroy'" in error("[theroy]\nstudent = 'tanh'\n")
    assert "needs 'alpha'" in error("[theory]\nstudent='tanh'\nteacher='sin'\nalpha0=1\n"
                                    "eta=1\nlam=0.1\n")
    assert "not valid TOML" in error("[theory\n")
    assert "must be one of 'network', 'srf'" in error(TOML + "model = 'nn'\n")
    unsafe = TOML.replace('student = "tanh"\nteacher = "sin"\nalpha0 = 20\neta = 3',
                          'student = "__import__(1)"\nteacher = "sin"\nalpha0 = 20\neta = 3')
    assert "[simulation] student" in error(unsafe)
    assert "cannot write --out" in error(TOML, out_path=tmp_path / "no" / "such" / "dir.csv")
    assert "is a directory" in error(TOML, out_path=tmp_path)
    assert "cannot reach the Dask scheduler at tcp://127.0.0.1:9" in error(
        TOML, "--scheduler", "tcp://127.0.0.1:9", "--timeout", "1",
        out_path=tmp_path / "never.csv")
    assert "--workers must be a positive integer" in error(TOML, "--workers", "0")
    assert "would need about" in error(TOML.replace("d = 40", "d = 100000"),
                                       out_path=tmp_path / "never.csv")
    assert "gives no readout sample" in error(TOML.replace("alpha = [0.5, 2.0]\nd = 40",
                                                           "alpha = [0.01, 2.0]\nd = 40"),
                                              out_path=tmp_path / "never.csv")
    assert "--timeout must be a positive number" in error(TOML, "--timeout", "-1")
    assert "does not exist" in error(TOML, "--plot", str(tmp_path / "no" / "p.png"),
                                          out_path=tmp_path / "never.csv")
    assert not (tmp_path / "never.csv").exists()         # both refused before any work
    foreign = tmp_path / "foreign.csv"
    foreign.write_text("a,b\n1,2\n")
    assert "not an srfsym sweep table" in error(TOML, out_path=foreign)
    assert foreign.read_text() == "a,b\n1,2\n"


def test_failed_theory_points_are_rows_with_their_reason(tmp_path):
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
                                  "eta": 3, "lam": [0.0, 0.1], "alpha": [2.0, 0.5]}})
    summary = run_sweep(spec, tmp_path / "f.csv", workers=1, progress=False)
    rows = {(r["alpha"], r["lam"]): r for r in read_results(tmp_path / "f.csv")}
    assert summary.failed == 1
    bad = rows[("0.5", "0.0")]          # ridgeless below the interpolation threshold
    assert bad["method"] == "failed" and math.isnan(float(bad["test_error"]))
    assert bad["note"] and float(bad["residual"]) > 1e-3
    assert np.isfinite(float(rows[("2.0", "0.0")]["test_error"]))


def test_plot_curves_optimal_lambda_and_error_bars(tmp_path, capsys):
    import statistics

    import matplotlib.pyplot as plt

    from srfsym.theory.grid import solve_grid
    from srfsym.sweep.plot import plot_sweep, simulation_means
    grid, out, png = tmp_path / "grid.toml", tmp_path / "plot.csv", tmp_path / "plot.png"
    grid.write_text(TOML.replace("eta = [2, 3]", "eta = 3")
                    .replace("lam = [0.01, 0.5]", "lam = [0.01, 0.1, 1.0, 10.0]")
                    .replace("alpha = [0.5, 2.0]\n\n", "alpha = [0.5, 1.0, 3.0]\n\n"))
    assert main(["sweep", str(grid), "--out", str(out), "--quiet", "--workers", "1",
                 "--plot", str(png)]) == 0
    assert png.stat().st_size > 20000
    rows = read_results(out)
    fig = plot_sweep(rows)
    by_lam, curve = fig.axes[0], fig.axes[1]    # one curve per alpha over lambda (few alphas)
    g = solve_grid("tanh", "sin", 20, 3, [0.5, 1.0, 3.0], [0.01, 0.1, 1.0, 10.0])
    stars = [line.get_xydata()[0] for line in by_lam.lines
             if line.get_marker() == "*" and len(line.get_xydata())]
    assert [s[0] for s in stars] == g.optimal_lambda()[0].tolist()   # each curve's minimum
    assert [s[1] for s in stars] == g.optimal_lambda()[1].tolist()
    sims = [r for r in rows if r["source"] == "simulation"]
    for a, mean, sem, n in simulation_means(sims, "alpha"):
        errs = [float(r["test_error"]) for r in sims if float(r["alpha"]) == a]
        assert n == 2 and mean == pytest.approx(statistics.fmean(errs), rel=1e-14)
        assert sem == pytest.approx(statistics.stdev(errs) / math.sqrt(2), rel=1e-12)
    assert "standard error over 2 seed(s)" in curve.get_legend().get_texts()[1].get_text()
    theory_line = curve.lines[0].get_xydata()          # the theory at the simulations' lambda
    assert theory_line[:, 1].tolist() == g.test_error[:, 1].tolist()
    plt.close(fig)
    # three swept theory parameters: the plot is refused with a reason before any work
    grid.write_text(TOML)
    assert main(["sweep", str(grid), "--out", str(tmp_path / "r3.csv"), "--quiet",
                 "--workers", "1", "--plot", str(png)]) == 2
    assert "this sweep varies eta, lam, alpha: drop --plot" in capsys.readouterr().err
    assert not (tmp_path / "r3.csv").exists()


def test_sampled_spectrum_theory_rows(tmp_path):
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
                                  "lam": 0.1, "alpha": [0.5, 2.0], "spectrum": "sample",
                                  "d": 60, "seed": [0, 1]}})
    run_sweep(spec, tmp_path / "s.csv", workers=1, progress=False)
    rows = read_results(tmp_path / "s.csv")
    assert len(rows) == 4 and {r["seed"] for r in rows} == {"0", "1"}
    for r in rows:
        nodes = int(r["method"].split("(")[1].split()[0])
        ref = solve("tanh", "sin", 20, 3, 0.1, float(r["alpha"]), spectrum="sample", d=60,
                    seed=int(r["seed"]), nodes=nodes)
        assert abs(float(r["test_error"]) - ref.test_error) < 1e-12
    # the two seeds are two different samples of the spectrum
    by_seed = {r["seed"]: float(r["test_error"]) for r in rows if r["alpha"] == "2.0"}
    assert abs(by_seed["0"] - by_seed["1"]) > 1e-6


def test_shared_first_layer_rows_are_the_readouts_of_one_first_layer(tmp_path):
    spec = parse_spec({"simulation": {**SIMULATION, "seeds": 3, "shared_first_layer": True}})
    assert [(t["seed"], t["seeds"]) for t in simulation_tasks(spec)] == [(0, 3)]
    run_sweep(spec, tmp_path / "s.csv", workers=1, progress=False)
    rows = read_results(tmp_path / "s.csv")
    res = simulate("tanh", "sin", 20, 3, 0.1, [0.5, 2.0], d=40, seeds=3, seed=0, n_test=200,
                   shared_first_layer=True, workers=1)
    for r in rows:
        i, j = int(r["seed"].split(":")[1]), [0.5, 2.0].index(float(r["alpha"]))
        assert r["seed"].startswith("0:") and r["shared_first_layer"] == "true"
        assert float(r["test_error"]) == res.test_error_per_seed[i, j]
    assert len(rows) == 6


def test_vocabulary_is_a_swept_parameter(tmp_path):
    """``vocabulary = [[1], [1, 2], {letters = [1, 3], weights = [0.7, 0.3]}]``: theory rows
    equal the per-letter fixed point, simulation rows equal ``simulate(vocabulary=...)``."""
    from srfsym.step.vocabulary import vocabulary
    spec = parse_spec({
        "theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3, "lam": 0.1,
                   "alpha": [1.0, 2.0],
                   "vocabulary": [[1], [1, 2], {"letters": [1, 3], "weights": [0.7, 0.3]}]},
        "simulation": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
                       "lam": 0.1, "alpha": [1.0], "d": 40, "seeds": 1, "n_test": 100,
                       "vocabulary": [1, -1]}})
    run_sweep(spec, tmp_path / "v.csv", workers=1, progress=False)
    rows = read_results(tmp_path / "v.csv")
    assert {r["vocabulary"] for r in rows} == {"1.0", "1.0,2.0", "1.0,3.0;0.7,0.3", "1.0,-1.0"}
    for r in rows:
        if r["source"] != "theory":
            continue
        letters, _, weights = r["vocabulary"].partition(";")
        voc = vocabulary([float(x) for x in letters.split(",")],
                         [float(x) for x in weights.split(",")] if weights else None)
        ref = solve("tanh", "sin", 20, 3, 0.1, float(r["alpha"]), vocabulary=voc)
        assert float(r["test_error"]) == pytest.approx(ref.test_error, rel=1e-9)
    (sim,) = [r for r in rows if r["source"] == "simulation"]
    res = simulate("tanh", "sin", 20, 3, 0.1, [1.0], d=40, seeds=1, n_test=100, workers=1,
                   vocabulary=[1, -1], seed=0)
    assert float(sim["test_error"]) == pytest.approx(res.test_error[0], rel=1e-12)
    with pytest.raises(SweepError, match="sum to 1"):
        parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
                               "lam": 0.1, "alpha": 1,
                               "vocabulary": {"letters": [1, 2], "weights": [0.5, 0.6]}}})


def test_label_rule_is_a_swept_parameter(tmp_path):
    """``label_rule = ["teacher", "bernoulli"]`` in [theory] and [simulation]: the table gains a
    ``label_rule`` column, theory rows equal the single-point fixed point, simulation rows equal
    ``simulate(label_rule=...)``; a sweep at the default keeps its grid id, tasks and columns,
    and a file of the other layout is refused as another grid."""
    import srfsym
    base = {"student": "tanh", "teacher": "tanh", "alpha0": 4, "eta": 2, "lam": 0.1,
            "loss": "logistic"}
    spec = parse_spec({"theory": {**base, "alpha": [1.0], "label_rule": "bernoulli"},
                       "simulation": {**base, "alpha": [1.0], "d": 60, "seeds": 1,
                                      "n_test": 200, "label_rule": "bernoulli",
                                      "teacher": ["tanh", "sign"]}})
    out = tmp_path / "l.csv"
    summary = run_sweep(spec, out, workers=1, progress=False)
    assert summary.points == 1 + 2 and summary.failed == 0
    rows = read_results(out)
    header = open(out).readline().strip().split(",")
    assert header[header.index("bias") + 1] == "label_rule" and len(header) == len(COLUMNS) + 1
    by = {(r["source"], r["teacher"], r["label_rule"]): r for r in rows}
    # the teacher tanh's own (real) labels with a logistic loss: refused before any work
    with pytest.raises(SweepError, match="needs labels"):
        run_sweep(parse_spec({"theory": {**base, "alpha": [1.0],
                                         "label_rule": ["teacher", "bernoulli"]}}),
                  tmp_path / "refused.csv", workers=1, progress=False)
    assert not (tmp_path / "refused.csv").exists()
    ref = srfsym.solve("tanh", "tanh", 4, 2, 0.1, 1.0, loss="logistic", label_rule="bernoulli")
    th = by["theory", "tanh", "bernoulli"]
    assert float(th["classification_error"]) == pytest.approx(ref.classification_error, rel=1e-9)
    for teacher in ("tanh", "sign"):
        res = simulate("tanh", teacher, 4, 2, 0.1, [1.0], d=60, seeds=1, n_test=200, workers=1,
                       loss="logistic", label_rule="bernoulli")
        r = by["simulation", teacher, "bernoulli"]
        assert float(r["classification_error"]) == res.classification_error[0]
    # the default: no column, the same id and tasks as a sweep that does not name it
    plain = {"theory": {**base, "teacher": "sign", "alpha": [1.0]}}
    named = {"theory": {**plain["theory"], "label_rule": "teacher"}}
    assert grid_id(parse_spec(plain)) == grid_id(parse_spec(named))
    assert theory_tasks(parse_spec(plain)) == theory_tasks(parse_spec(named))
    run_sweep(parse_spec(named), tmp_path / "p.csv", workers=1, progress=False)
    assert open(tmp_path / "p.csv").readline().strip().split(",") == list(COLUMNS)
    with pytest.raises(SweepError, match="label_rule column"):
        run_sweep(parse_spec(named), out, workers=1, progress=False)
    with pytest.raises(SweepError, match="label_rule must be one of"):
        parse_spec({"theory": {**base, "alpha": 1.0, "label_rule": "probit"}})


def test_bulk_is_a_swept_parameter(tmp_path):
    """[theory] bulk = ['isotropic', 'step', 'exact']: the step bulk's rows are those of
    solve(bulk='step', d, seed), the exact bulk's those of solve(bulk='exact'), recorded in the
    spectrum column; the default keeps an older sweep's id."""
    th = {"student": "tanh", "teacher": "sin", "alpha0": 2, "eta": 3, "lam": 0.1,
          "alpha": [1.0], "d": 60, "seed": 1}
    assert grid_id(parse_spec({"theory": {**th, "bulk": "isotropic"}})) == \
        grid_id(parse_spec({"theory": th}))
    spec = parse_spec({"theory": {**th, "bulk": ["isotropic", "step", "exact"]}})
    run_sweep(spec, tmp_path / "b.csv", workers=1, progress=False)
    rows = {r["spectrum"]: r for r in read_results(tmp_path / "b.csv")}
    assert sorted(rows) == ["exact", "mp", "step"]
    assert rows["mp"]["d"] == "" and rows["step"]["d"] == "60" and rows["exact"]["d"] == ""
    for bulk, kw in (("step", dict(d=60, seed=1)), ("exact", {})):
        ref = solve("tanh", "sin", 2, 3, 0.1, 1.0, bulk=bulk, **kw)
        assert float(rows[bulk]["test_error"]) == pytest.approx(ref.test_error, rel=1e-9)
    with pytest.raises(SweepError, match="bulk = 'step' needs d"):
        parse_spec({"theory": {**{k: v for k, v in th.items() if k != "d"}, "bulk": "step"}})
    with pytest.raises(SweepError, match="leave spectrum"):
        parse_spec({"theory": {**th, "bulk": "exact", "spectrum": "sample"}})


def test_dps_is_a_sweep_key(tmp_path):
    """[theory] dps = 10: the rows are the mpmath solve's (each against solve(dps=10), which
    differs from the double-precision value at 1e-13 or so), the method says the digits;
    the default keeps an older sweep's id; one value per sweep, checked like solve's."""
    th = {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3, "lam": 0.1,
          "alpha": [1.0]}
    assert grid_id(parse_spec({"theory": th})) == "4942ba62ab58a1b4"     # as before dps
    spec = parse_spec({"theory": {**th, "dps": 10}})
    run_sweep(spec, tmp_path / "p.csv", workers=1, progress=False)
    (row,) = read_results(tmp_path / "p.csv")
    ref = solve("tanh", "sin", 20, 3, 0.1, 1.0, dps=10)
    assert float(row["test_error"]) == float(ref.mp_test_error)
    assert "10 digits" in row["method"]
    with pytest.raises(SweepError, match="dps takes one value"):
        parse_spec({"theory": {**th, "dps": [20, 30]}})
    with pytest.raises(SweepError, match="from 5 to 300"):
        parse_spec({"theory": {**th, "dps": 0}})


def test_a_multi_index_target_is_a_theory_sweep(tmp_path):
    """[theory] teacher = 'z1 + z1*z2' (docs/theory.md (n)): the rows are solve's, through the
    dispatch table's multi-index rows (with and without a vocabulary)."""
    th = {"student": "tanh", "teacher": "z1 + z1*z2", "alpha0": 4, "eta": 2, "lam": 0.1,
          "alpha": [1.0], "vocabulary": [[1], [1, 2]]}
    run_sweep(parse_spec({"theory": th}), tmp_path / "m.csv", workers=1, progress=False)
    rows = {r["vocabulary"]: r for r in read_results(tmp_path / "m.csv")}
    for text, voc in (("1.0", None), ("1.0,2.0", [1, 2])):
        ref = solve("tanh", "z1 + z1*z2", 4, 2, 0.1, 1.0, vocabulary=voc)
        assert float(rows[text]["test_error"]) == ref.test_error
    with pytest.raises(SweepError, match="unknown name 'z1'"):    # simulations: single-index
        parse_spec({"simulation": {**SIMULATION, "teacher": "z1*z2"}})


def test_a_readout_the_sweep_cannot_run_is_refused_before_any_work(tmp_path, capsys):
    # hinge + bias in [simulation], a margin loss on real labels in [theory]: refused up front
    # (before: every point ran and came back as a failed row of NaN)
    cases = [("[simulation]\nstudent='tanh'\nteacher='sign'\nalpha0=2\neta=3\nlam=0.1\n"
              "alpha=[1.0]\nd=40\nseeds=1\nloss='hinge'\nbias=true\n", "cannot hold a trained bias"),
             ("[theory]\nstudent='tanh'\nteacher='sin'\nalpha0=2\neta=3\nlam=0.1\nalpha=[1.0]\n"
              "loss='logistic'\n", "needs labels +-1")]
    for text, message in cases:
        spec, out = tmp_path / "s.toml", tmp_path / "s.csv"
        spec.write_text(text)
        assert main(["sweep", str(spec), "--out", str(out), "--quiet"]) == 2
        err = capsys.readouterr().err
        assert message in err and ("[simulation]" in err or "[theory]" in err)
        assert not out.exists()


def _plot_rows(source, alphas, errors, **kw):
    base = {c: "" for c in COLUMNS}
    base.update(source=source, student="tanh", teacher="sign", alpha0="2.0", eta="3.0",
                lam="0.1", beta="1.0", vocabulary="1.0", spectrum="mp", **kw)
    return [{**base, "alpha": repr(a), "test_error": repr(e)} for a, e in zip(alphas, errors)]


def test_plot_keeps_the_readouts_apart():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from srfsym.sweep.plot import plot_sweep
    # a theory table sweeping the loss: one curve per loss (it was one zigzag through both)
    rows = (_plot_rows("theory", [0.5, 1.0], [0.66, 0.65], loss="square", noise="0.0",
                       bias="false")
            + _plot_rows("theory", [0.5, 1.0], [1.80, 1.84], loss="logistic", noise="0.0",
                         bias="false"))
    fig = plot_sweep(rows)
    lines = fig.axes[0].get_lines()
    assert sorted(tuple(ln.get_ydata()) for ln in lines) == [(0.66, 0.65), (1.80, 1.84)]
    assert "loss swept" in fig._suptitle.get_text()
    plt.close(fig)
    # square-loss theory beside a logistic simulation: not paired, no "finite-size gap" note
    rows = (_plot_rows("theory", [0.5, 1.0], [0.66, 0.65], loss="square", noise="0.0",
                       bias="false")
            + _plot_rows("simulation", [0.5, 1.0], [1.9, 0.90], loss="logistic", seed="0",
                         d="60")
            + _plot_rows("simulation", [0.5, 1.0], [2.0, 0.95], loss="logistic", seed="1",
                         d="60"))
    fig = plot_sweep(rows)
    assert not any("standard errors from the theory" in t.get_text() for t in fig.texts)
    assert all(ln.get_label() != "theory" for ln in fig.axes[0].get_lines())
    plt.close(fig)
