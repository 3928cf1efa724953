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
    from srfsym.cli import curves as theory     # the curve subcommand draws through it
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


# 4. (see tests/test_output_schema.py) an old sweep table is named as such ------------------

def test_a_sweep_table_of_the_old_layout_is_refused_with_the_reason(capsys, tmp_path):
    old = tmp_path / "old.csv"
    old.write_text("kind,student,teacher,alpha0,eta,beta\ntheory,tanh,sin,20.0,3.0,1.0\n")
    grid = tmp_path / "g.toml"
    grid.write_text(SIM_TWO.replace("eta = [2, 3]", "eta = 3"))
    code, _, err = run(capsys, "sweep", str(grid), "--out", str(old), "-q")
    assert code == 2 and "written by an earlier srfsym (column 'kind', now 'source'" in err
    assert old.read_text().startswith("kind,")


# 6. theory against a small simulation: say where they disagree --------------------------

SMALL = ["--student", "tanh", "--teacher", "tanh", "--alpha0", "0.5", "--eta", "1", "--lam",
         "0.01"]


def test_simulate_says_where_the_simulation_is_off_by_more_than_3_se(capsys):
    argv = ["simulate", *SMALL, "--alpha", "1.5", "3", "--d", "300", "--seeds", "2",
            "--workers", "1", "--n-test", "2000"]
    code, out, _ = run(capsys, "-q", *argv)
    assert code == 0
    assert "<- > 3 s.e." in out
    warning = out[out.index("  warning: "):]
    assert max(len(line) for line in warning.splitlines()) <= 100
    flat = " ".join(out.split())
    assert "lies more than 3 standard errors from the theory at alpha = 1.5" in flat
    assert "shrinks roughly like 1/d, so d >= 500" in flat
    assert "with fewer than 5 the standard error is itself unreliable" in flat
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


# 5. the readout vocabulary and the parameters in headers and titles ----------------------

def test_error_header_names_the_vocabulary_and_its_per_letter_values(capsys):
    import re

    from srfsym.step.mapping import srf_mapping
    code, out, _ = run(capsys, "-q", "error", *PAIR, "--lam", "0.1", "--alpha", "1",
                       "--vocabulary", "1", "2")
    assert code == 0
    assert "readout vocabulary {1 (pi = 0.5), 2 (pi = 0.5)}" in out
    r = srf_mapping("tanh", "sin", 3, 20).r
    rj = re.search(r"r_j = r omega_j = ([0-9.]+), ([0-9.]+)", out).groups()
    assert [float(v) for v in rj] == [pytest.approx(r, rel=1e-5), pytest.approx(2 * r, rel=1e-5)]
    code, out, _ = run(capsys, "-q", "error", *PAIR, "--lam", "0.1", "--alpha", "1")
    assert "(uniform readout)" in out


def _figure_checks(fig, needles):
    """No legend over the data or the axes; the title(s) carry the parameters."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    titles = " ".join([fig._suptitle.get_text() if fig._suptitle else ""]
                      + [ax.get_title() for ax in fig.axes])
    for needle in needles:
        assert needle in titles, (needle, titles)
    legends = 0
    for ax in fig.axes:
        leg = ax.get_legend()
        if leg is None:
            continue
        legends += 1
        box = leg.get_window_extent(renderer)
        assert not box.overlaps(ax.get_window_extent(renderer)), "legend on the axes"
        import numpy as np
        pts = [line.get_xydata() for line in ax.lines]
        pts += [c.get_offsets() for c in ax.collections if len(c.get_offsets())]
        for xy in pts:
            xy = np.asarray(xy, float)
            xy = xy[np.all(np.isfinite(xy), axis=1)]
            for x, y in ax.transData.transform(xy):
                assert not box.contains(x, y), "a data point under the legend"
    assert legends >= 1


def test_curve_figure_title_legend_and_file(capsys, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    from types import SimpleNamespace

    from srfsym.cli.theory import curve_figure
    from srfsym.theory.bounds import bounds
    from srfsym.theory.fixed_point import learning_curve
    voc = __import__("srfsym").vocabulary([1, 2])
    lc = learning_curve("tanh", "sin", 20, 3, 0.1, [0.5, 1, 2], vocabulary=voc)
    m = lc.results[0].mapping
    b = bounds("tanh", "sin", m.r, m.c, m.gamma, vocabulary=voc)
    args = SimpleNamespace(lam=0.1, alpha0=20.0, eta=3.0, log_alpha=False, vocabulary=[1, 2],
                           weights=None, shared_first_layer=False)
    fig = curve_figure(args, lc, b, None)
    _figure_checks(fig, [r"$\alpha_0$ = 20", r"$\tilde\eta$ = 3", r"$\lambda$ = 0.1",
                         r"$\omega$ = {1, 2}"])
    png = tmp_path / "c.png"
    code, _, err = run(capsys, "-q", "curve", *PAIR, "--lam", "0.1", "--alpha", "1", "2",
                       "--vocabulary", "1", "2", "--plot", str(png))
    assert code == 0 and png.stat().st_size > 10_000, err


def test_spectrum_figure_title_legend(capsys):
    import matplotlib
    matplotlib.use("Agg")
    from types import SimpleNamespace

    from srfsym.cli.spectrum import _plot
    from srfsym.theory.feature.spectrum import feature_spectrum
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
    fs0 = feature_spectrum("tanh", "sin", alpha0=20, eta=0.0)
    args = SimpleNamespace(teacher="sin", alpha0=20.0, eta=3.0, plot="x.png")
    fig = _plot(args, fs, fs0, None, None)
    _figure_checks(fig, [r"$\alpha_0$ = 20", r"$\tilde\eta$ = 3", "tanh student", "p/n = 1"])


def test_sweep_figure_titles_eta_tilde_and_legend_outside(tmp_path):
    import matplotlib
    matplotlib.use("Agg")

    from srfsym.sweep.plot import plot_sweep
    from srfsym.sweep.run import parse_spec, read_results, run_sweep
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
                                  "eta": [2, 3], "lam": 0.1, "alpha": [0.5, 1.0, 2.0]},
                       "simulation": {"student": "tanh", "teacher": "sin", "alpha0": 20,
                                      "eta": 3, "lam": 0.1, "alpha": [0.5, 1.0], "d": 40,
                                      "seeds": 2, "n_test": 200}})
    out = tmp_path / "s.csv"
    run_sweep(spec, out, workers=1, progress=False)
    rows = read_results(out)
    fig = plot_sweep(rows)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert r"theory, $\tilde\eta$ = 2" in labels                     # eta-tilde, as elsewhere
    _figure_checks(fig, ["tanh student, sin teacher", r"$\alpha_0$ = 20", r"$\lambda$ = 0.1",
                         r"$\tilde\eta$ swept", r"simulations and theory at $\tilde\eta$ = 3"])
    png = tmp_path / "s.png"
    plot_sweep(rows, png)
    assert png.stat().st_size > 10_000 and sorted(os.listdir(tmp_path)) == ["s.csv", "s.png"]


# 8. progress for long steps ----------------------------------------------------------------

def test_long_steps_say_they_still_run(monkeypatch, capsys):
    import time

    from srfsym.cli import common
    monkeypatch.setattr(common, "HEARTBEAT", 0.05)
    common.configure_feedback(False)
    with common.status("a slow step"):
        time.sleep(0.3)
    err = capsys.readouterr().err
    assert "srfsym: a slow step ..." in err
    assert "srfsym: a slow step: still running" in err and "s so far" in err
    common.configure_feedback(True)


def test_regen_reference_reports_each_table(monkeypatch, capsys, tmp_path):
    import srfsym.reference as ref
    for name in ("_constants", "_cget", "_mapping", "_bounds", "_fixed_point"):
        monkeypatch.setattr(ref, name, lambda *a, **k: {})
    code, out, err = run(capsys, "regen-reference", "--quick", "--out", str(tmp_path))
    assert code == 0 and out.count("wrote ") == 5
    for i, name in enumerate(("constants", "cget", "mapping", "bounds", "fixed_point"), 1):
        assert f"srfsym: table {i}/5: {name} at 30 digits ..." in err


def test_bounds_through_the_mapping_at_dps_reports_both_steps(capsys):
    code, _, err = run(capsys, "bounds", "--student", "sin", "--teacher", "sin", "--alpha0",
                       "2", "--eta", "1", "--dps", "15")
    assert code == 0
    assert "srfsym: step 1/2: the mapping (r, c, gamma) at 25 digits" in err
    assert "srfsym: step 2/2: bounds at 15 digits" in err


# 9. long closed forms one screen wide ------------------------------------------------------

def test_gelu_report_is_one_screen_wide_and_its_subexpressions_rebuild_the_form(capsys):
    import re

    import sympy as sp

    from srfsym.symbolic.cget import cget_coefficients
    code, out, _ = run(capsys, "-q", "activation", "gelu")
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    # the printed mustar2(kappa) with its "where" names is the library's closed form
    block = out[out.index("  mustar2(kappa) = "):].split("(LaTeX of the whole form")[0]
    main_text, _, where = block.partition("where")
    body = " ".join(main_text.split("=", 1)[1].split())
    defs = re.findall(r"([A-Z]) = (.*?)(?=\s+[A-Z] = |\s*$)", " ".join(where.split()))
    assert len(defs) >= 2
    ref = cget_coefficients("gelu").expressions()["mustar2"]
    symbols = {s.name: s for s in ref.free_symbols}                 # kappa, r, c (real)
    functions = {type(f).__name__: type(f) for f in ref.atoms(sp.Function)}   # e.g. OwensT
    local = {**symbols, **functions, **{k: sp.Symbol(k) for k, _ in defs}}
    expr = sp.sympify(body, locals=local)
    for name, text in reversed(defs):
        expr = expr.subs(sp.Symbol(name), sp.sympify(text, locals=local))
    assert not expr.free_symbols - set(symbols.values())
    for point in ((0.7, 0.9, 1.2), (-1.3, 1.4, 0.5)):
        at = {symbols[n]: sp.Float(v) for n, v in zip(("kappa", "r", "c"), point)}
        assert abs(float(sp.N(expr.subs(at), 20)) - float(sp.N(ref.subs(at), 20))) < 1e-14


# 10. help, options, names -----------------------------------------------------------------

def test_help_and_options(capsys):
    from srfsym.cli import build_parser
    ap = build_parser()
    sub = next(a for a in ap._actions if a.dest == "cmd")
    assert sub.choices["regen-reference"].description            # says what it does
    sweep_flags = [o for a in sub.choices["sweep"]._actions for o in a.option_strings]
    assert sweep_flags.count("--quiet") == 1                      # the shared -q, nothing else
    assert ap.parse_args(["sweep", "g.toml", "--out", "o.csv", "-q"]).quiet is True
    assert ap.parse_args(["-q", "sweep", "g.toml", "--out", "o.csv"]).quiet is True
    assert ap.parse_args(["sweep", "g.toml", "--out", "o.csv"]).quiet is False


def test_readme_lists_sweep_and_docs_name_the_second_moment():
    from pathlib import Path
    root = Path(__file__).resolve().parents[1]
    readme = (root / "README.md").read_text()
    block = readme[readme.index("## Command line"):readme.index("## Python")]
    assert "\nsrfsym sweep examples/sweep.toml" in block
    assert (root / "examples" / "sweep.toml").is_file()
    assert "output_schema.json" in block
    theory = (root / "docs" / "theory.md").read_text()
    assert "hermite_constants(teacher).second_moment" in theory
    src = (root / "derivations" / "02_spike_bulk.py").read_text()
    assert "step 7" not in src                                     # the rescaling is step 10
    assert "where T4 = E[(y-mu0)^2 x_1^2]" in src and "where B = O(1)" in src
