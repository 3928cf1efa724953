"""``srfsym curve`` options researchers asked for: the optimally regularised curve against
the bounds (``--optimize-lambda``) and several curves on one figure (a list of alpha0, eta or
lambda, or several bulks)."""
import json

import pytest

from srfsym.cli import main
from srfsym.theory.fixed_point import solve

PAIR = ["--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta", "3"]


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_curve_optimize_lambda_is_the_minimum_and_within_the_bounds(capsys, tmp_path):
    """Each row is the test error at its lambda, no larger than at lambda * (1 +- 10 %) or on
    a coarse scan (independent solves), and between the lower and upper bounds (the upper bound
    bounds the test error minimised over lambda, docs/theory.md (l.4))."""
    fig = tmp_path / "opt.png"
    code, out, _ = run(capsys, "curve", *PAIR, "--alpha", "0.5", "2", "--optimize-lambda",
                       "--json", "--plot", str(fig))
    assert code == 0
    rows = json.loads(out)["rows"]
    assert [r["alpha"] for r in rows] == [0.5, 2.0]
    for row in rows:
        lam, err = row["lam"], row["test_error"]
        assert solve("tanh", "sin", 20, 3, lam, row["alpha"]).test_error == pytest.approx(
            err, rel=1e-8)
        for other in (0.9 * lam, 1.1 * lam, 1e-3, 1e-2, 0.1, 1.0, 10.0):
            assert solve("tanh", "sin", 20, 3, other, row["alpha"]).test_error >= err - 1e-10
        assert row["lower_bound"] <= err <= row["upper_bound"]
    assert rows[0]["lam"] != pytest.approx(rows[1]["lam"], rel=1e-2)   # lambda* moves with alpha
    assert fig.stat().st_size > 0
    code, out, _ = run(capsys, "curve", *PAIR, "--alpha", "1", "--optimize-lambda")
    assert code == 0 and "optimal lambda" in out


def test_curve_optimize_lambda_with_a_vocabulary(capsys):
    """Two readout letters: the optimum is the vocabulary's fixed point at its lambda, no
    larger at lambda * (1 +- 10 %) (independent solves with the same vocabulary)."""
    from srfsym.step.vocabulary import vocabulary
    code, out, _ = run(capsys, "curve", *PAIR, "--alpha", "1", "--optimize-lambda",
                       "--vocabulary", "1", "2", "--json")
    assert code == 0
    row = json.loads(out)["rows"][0]
    voc = vocabulary([1, 2])
    lam, err = row["lam"], row["test_error"]
    assert solve("tanh", "sin", 20, 3, lam, 1.0, vocabulary=voc).test_error == pytest.approx(
        err, rel=1e-8)
    for other in (0.9 * lam, 1.1 * lam):
        assert solve("tanh", "sin", 20, 3, other, 1.0, vocabulary=voc).test_error >= err - 1e-10
    assert row["lower_bound"] <= err <= row["upper_bound"]


@pytest.mark.parametrize("extra, message", [
    (["--loss", "logistic"], "minimises the ridge's test error"),
    (["--simulate"], "its own lambda at each alpha"),
    ([], "give --lam, or --optimize-lambda"),
])
def test_curve_optimize_lambda_refusals(capsys, extra, message):
    argv = ["curve", *PAIR, "--alpha", "1", *extra]
    if extra:
        argv.append("--optimize-lambda")
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err, err


def test_several_etas_on_one_figure(capsys, tmp_path):
    """``curve --eta 1 3``: one curve per eta, each row the fixed point at its own eta (an
    independent solve), labelled in the figure and the text."""
    fig = tmp_path / "etas.png"
    code, out, _ = run(capsys, "curve", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "1", "3", "--lam", "0.1", "--alpha", "0.5", "2", "--json",
                       "--plot", str(fig))
    assert code == 0
    data = json.loads(out)
    rows = data["rows"]
    assert [(r["eta"], r["alpha"]) for r in rows] == [(1.0, 0.5), (1.0, 2.0), (3.0, 0.5),
                                                      (3.0, 2.0)]
    for row in rows:
        assert row["test_error"] == pytest.approx(
            solve("tanh", "sin", 20, row["eta"], 0.1, row["alpha"]).test_error, rel=1e-9)
    assert rows[0]["upper_bound"] != rows[2]["upper_bound"]     # bounds follow the step
    assert data["details"]["varied"] == "eta" and fig.stat().st_size > 0
    code, out, _ = run(capsys, "curve", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "3", "--lam", "0.01", "1", "--alpha", "1")
    assert code == 0 and "curve 1/2: lambda = 0.01" in out and "curve 2/2: lambda = 1" in out


def test_several_curves_figure_labels(capsys):
    """The figure of ``--alpha0 2 20``: a labelled line per alpha0."""
    import argparse

    import matplotlib.pyplot as plt

    from srfsym.cli.curves import several_figure, variant
    from srfsym.cli.theory import curve_results
    args = argparse.Namespace(student="tanh", teacher="sin", alpha0=None, eta=3.0, lam=0.1,
                              beta=1.0, vocabulary=None, weights=None, spectrum="mp", d=None,
                              seed=0, bulk="isotropic", optimize_lambda=False, simulate=False,
                              json=True, csv=False, quiet=True, log_alpha=False, loss="square",
                              noise=0.0, bias=False, label_rule="teacher")
    variants = [variant(args, "alpha0", v) for v in (2.0, 20.0)]
    curves = [curve_results(v, [0.5, 1.0]) for v in variants]
    fig = several_figure(args, "alpha0", [2.0, 20.0], variants, curves, [])
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels[:2] == [r"sRF theory, $\alpha_0$ = 2", r"sRF theory, $\alpha_0$ = 20"]
    assert fig.axes[0].lines[0].get_ydata().tolist() == curves[0].lc.test_error.tolist()
    plt.close(fig)


def test_several_bulks_share_one_simulation(capsys):
    """``--bulk isotropic step --simulate``: one network, compared with each bulk's theory;
    the step bulk's row is the fixed point on the first layer realised at d, seed 0."""
    code, out, _ = run(capsys, "curve", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "3", "--lam", "0.1", "--alpha", "1", "--bulk",
                       "isotropic", "step", "--d", "100", "--simulate", "--sim-alpha", "1",
                       "--d-sim", "100", "--seeds", "2", "--json")
    assert code == 0
    rows = json.loads(out)["rows"]
    theory = {r["bulk"]: r for r in rows if r["source"] == "theory"}
    sims = {r["bulk"]: r for r in rows if r["source"] == "simulation"}
    assert set(theory) == set(sims) == {"isotropic", "step"}
    assert theory["isotropic"]["test_error"] == pytest.approx(
        solve("tanh", "sin", 20, 3, 0.1, 1.0).test_error, rel=1e-9)
    step = solve("tanh", "sin", 20, 3, 0.1, 1.0, bulk="step", d=100, seed=0).test_error
    assert theory["step"]["test_error"] == pytest.approx(step, rel=1e-9)
    assert sims["step"]["test_error"] == sims["isotropic"]["test_error"]     # one network
    assert sims["step"]["theory_test_error"] == pytest.approx(step, rel=1e-9)


@pytest.mark.parametrize("extra, message", [
    (["--eta", "1", "3", "--lam", "0.1", "1"], "one figure varies one of"),
    (["--eta", "1", "1", "--lam", "0.1"], "lists a value twice"),
    (["--eta", "3", "--lam", "0.1", "1", "--optimize-lambda"], "drop the list of --lam"),
    (["--eta", "3", "--lam", "0.1", "--bulk", "isotropic", "step"], "--bulk step needs --d"),
])
def test_several_curves_refusals(capsys, extra, message):
    code, _, err = run(capsys, "curve", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--alpha", "1", *extra)
    assert code == 2 and message in err, err


def _rows(alphas, lams):
    """Sweep-table rows of a synthetic test error over (alpha, lam)."""
    from srfsym.sweep.plot import PARAMETERS
    base = {p: "" for p in PARAMETERS}
    base.update(student="tanh", teacher="sin", alpha0="20.0", eta="3.0", beta="1.0")
    return [{**base, "source": "theory", "method": "structured", "note": "",
             "alpha": str(a), "lam": str(lam), "test_error": str(0.1 / (1 + a) + 0.01 * lam)}
            for a in alphas for lam in lams]


def test_two_parameter_sweep_is_curves_unless_both_axes_are_long():
    """A sweep over alpha and three etas or lambdas is three curves; a heat map only when
    both parameters have many values."""
    import numpy as np
    from matplotlib.collections import QuadMesh

    import matplotlib.pyplot as plt

    from srfsym.sweep.plot import MAX_CURVES, plot_sweep
    fig = plot_sweep(_rows(np.linspace(0.5, 4, 12), [0.01, 0.1, 1.0]))
    ax = fig.axes[0]
    assert not [c for c in ax.collections if isinstance(c, QuadMesh)]
    drawn = [line for line in ax.lines if line.get_marker() == "o"]
    assert len(drawn) == 3 and drawn[0].get_xdata().tolist() == np.linspace(0.5, 4, 12).tolist()
    assert drawn[1].get_ydata() == pytest.approx(0.1 / (1 + np.linspace(0.5, 4, 12)) + 0.001)
    plt.close(fig)
    many = MAX_CURVES + 1
    fig = plot_sweep(_rows(np.linspace(0.5, 4, many), np.geomspace(0.01, 1, many)))
    assert [c for c in fig.axes[0].collections if isinstance(c, QuadMesh)]
    plt.close(fig)
