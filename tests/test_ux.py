"""Issue 22: finished work is never thrown away, every output has one shape (see also
tests/test_output_schema.py), figures a referee accepts.  One section per item."""
import json
import os

import pytest

from srfsym.cli import main

PAIR = ["--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta", "3"]


def run(capsys, *argv):
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


# 1. a plot never costs the result; no empty or partial output file ----------------------

def test_spectrum_with_a_vocabulary_plots_and_prints(capsys, tmp_path):
    png = tmp_path / "s.png"
    code, out, err = run(capsys, "-q", "spectrum", *PAIR, "--vocabulary", "1", "2",
                         "--simulate", "--d", "60", "--seeds", "2", "--plot", str(png))
    assert code == 0, err
    assert "giant outliers (leading order)" in out and "network: d = 60" in out
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize("argv", [
    ["curve", *PAIR, "--lam", "0.1", "--alpha", "1", "2"],
    ["spectrum", *PAIR, "--z", "0.6+0.1j"],
])
def test_a_failing_figure_costs_only_the_figure(capsys, tmp_path, monkeypatch, argv):
    import matplotlib.figure
    png = tmp_path / "f.png"
    png.write_bytes(b"an older figure")

    def broken(self, *a, **k):
        raise RuntimeError("no renderer")
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", broken)
    code, out, err = run(capsys, "-q", *argv, "--plot", str(png))
    assert code == 0
    assert "test error" in out or "s(z)" in out                   # the result is printed
    assert "srfsym: note: the figure was not written" in err and "no renderer" in err
    assert png.read_bytes() == b"an older figure"                 # untouched, not emptied
    assert os.listdir(tmp_path) == ["f.png"]                       # no temporary left over


def test_the_result_comes_before_the_figure(capsys, tmp_path, monkeypatch):
    """--json output is complete even when the figure fails."""
    from srfsym.cli import theory
    monkeypatch.setattr(theory, "curve_figure",
                        lambda *a, **k: (_ for _ in ()).throw(KeyError("outlier_correction")))
    png = tmp_path / "c.png"
    code, out, err = run(capsys, "-q", "curve", *PAIR, "--lam", "0.1", "--alpha", "1", "--json",
                         "--plot", str(png))
    assert code == 0 and json.loads(out)["rows"][0]["alpha"] == 1.0
    assert "outlier_correction" in err and not png.exists()


# 2. every check that can fail runs before any work -------------------------------------

SIM_TWO = """[simulation]
student = "tanh"
teacher = "sin"
alpha0 = 20
eta = [2, 3]
lam = 0.1
alpha = [0.5, 1.0]
d = 40
seeds = 1
n_test = 200
"""


def test_sweep_plot_of_two_simulation_parameters_is_refused_before_work(capsys, tmp_path):
    grid, out = tmp_path / "g.toml", tmp_path / "o.csv"
    grid.write_text(SIM_TWO)
    code, _, err = run(capsys, "sweep", str(grid), "--out", str(out), "--plot",
                       str(tmp_path / "o.png"), "-q", "--workers", "1")
    assert code == 2 and "--plot draws one swept parameter" in err and "eta, alpha" in err
    assert not out.exists() and not (tmp_path / "o.png").exists()


def test_sweep_figure_failure_keeps_the_csv_and_exits_0(capsys, tmp_path, monkeypatch):
    import srfsym.sweep.plot as plot
    monkeypatch.setattr(plot, "plot_sweep", lambda *a, **k: 1 / 0)
    grid, out = tmp_path / "g.toml", tmp_path / "o.csv"
    grid.write_text(SIM_TWO.replace("eta = [2, 3]", "eta = 3"))
    code, stdout, err = run(capsys, "sweep", str(grid), "--out", str(out), "--plot",
                            str(tmp_path / "o.png"), "-q", "--workers", "1")
    assert code == 0 and f"results: {out}" in stdout and "figure was not written" in err
    assert len(out.read_text().splitlines()) == 3 and not (tmp_path / "o.png").exists()


# 3. a value below its own error bound is 0 (|x| < e), not digits of round-off ----------

def test_bounds_below_their_error_print_as_zero(capsys):
    argv = ["bounds", "--student", "sin", "--teacher", "sin", "--r", "1", "--c", "1.2",
            "--dps", "30"]
    code, out, _ = run(capsys, "-q", *argv)
    assert code == 0
    assert "upper = 0 (|x| < " in out and "lower = 0 (|x| < " in out
    assert "1.2215" not in out                                    # no digits of noise
    assert "kernel_baseline        = 0.06445291721025133245747648235" in out
    code, out, _ = run(capsys, "-q", *argv, "--json")
    row = json.loads(out)["rows"][0]
    assert row["upper_bound"] == 0.0 and row["decimal"]["upper_bound"] == "0"
    assert row["kappa_node_error"] < 1e-35


# 6. theory against a small simulation: say where they disagree --------------------------

SMALL = ["--student", "tanh", "--teacher", "tanh", "--alpha0", "0.5", "--eta", "1", "--lam",
         "0.01"]


def test_simulate_says_where_the_simulation_is_off_by_more_than_3_se(capsys):
    argv = ["simulate", *SMALL, "--alpha", "1.5", "3", "--d", "300", "--seeds", "2",
            "--workers", "1", "--n-test", "2000"]
    code, out, _ = run(capsys, "-q", *argv)
    assert code == 0
    assert "<- > 3 s.e." in out
    assert "lies more than 3 standard errors from the theory at alpha = 1.5" in out
    assert "shrinks roughly like 1/d, so d >= 500" in out
    assert "with fewer than 5 the standard error is itself unreliable" in out
    code, out, _ = run(capsys, "-q", *argv, "--json")
    data = json.loads(out)
    row = data["rows"][0]
    assert row["z_score"] == pytest.approx(
        (row["test_error"] - row["theory_test_error"]) / row["test_error_sem"])
    assert row["z_score"] > 3
    assert len(data["warnings"]) == 2 and "1/d" in data["warnings"][0]


def test_curve_caption_carries_the_disagreement(capsys, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from types import SimpleNamespace

    from srfsym.cli.theory import curve_figure
    from srfsym.sweep.agreement import agreement_warnings
    from srfsym.theory.bounds import bounds
    from srfsym.theory.fixed_point import learning_curve
    lc = learning_curve("tanh", "tanh", 0.5, 1, 0.01, [1.5, 3])
    m = lc.results[0].mapping
    b = bounds("tanh", "tanh", m.r, m.c, m.gamma)
    rows = [{"alpha": 1.5, "d": 300, "seeds": 2, "test_error": 0.27, "test_error_sem": 0.01,
             "theory_test_error": 0.216}]
    args = SimpleNamespace(lam=0.01, alpha0=0.5, eta=1.0, log_alpha=False, vocabulary=None,
                           weights=None, shared_first_layer=False)
    fig = curve_figure(args, lc, b, None, agreement_warnings(rows))
    text = " ".join(t.get_text() for t in fig.texts).replace("\n", " ")
    assert "more than 3 standard errors from the theory at alpha = 1.5 (+5.4 s.e.)" in text
    assert "d >= 1000" in text and "standard error is itself unreliable" in text
