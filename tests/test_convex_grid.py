"""solve_grid with a convex loss (docs/theory.md (m)): every entry is the single-point
convex fixed point; the square loss without noise or bias stays the ridge grid."""
import numpy as np

from srfsym.step.mapping import srf_mapping
from srfsym.theory.convex_fixed_point import convex_grid, solve_convex_srf
from srfsym.theory.grid import solve_grid


def test_solve_grid_with_logistic_loss_equals_single_points():
    """Continuation (quadratic extrapolation along alpha from the third point on, the first
    point of a column from the column before, inherited Anderson pairs, one channel) and
    cold single-point solves give the same fixed points."""
    alphas, lams = [0.8, 1.4, 2.0, 2.6], [0.05, 0.5]
    g = solve_grid("tanh", "sign", 2, 2, alphas, lams, loss="logistic", bias=True, nodes=60)
    m = srf_mapping("tanh", "sign", 2, 2)
    assert g.converged.all() and g.loss == "logistic" and g.bias.shape == (4, 2)
    for i, a in enumerate(alphas):
        for j, lam in enumerate(lams):
            one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, lam, a, loss="logistic",
                                   bias=True, nodes=60, tol=1e-12)
            assert abs(g.classification_error[i, j] - one.classification_error) < 1e-9
            assert abs(g.test_error[i, j] - one.test_error) < 1e-9
            assert abs(g.state.q2[i, j] - one.state.q2) < 1e-9 * max(1, one.state.q2)


def test_convex_grid_warm_starts_do_not_change_the_answer():
    """The secant warm starts along alpha give the same fixed points as cold starts."""
    alphas = [0.6, 1.2, 1.8]
    g = convex_grid("tanh", "sign", 2, 2, alphas, [0.1], loss="hinge", nodes=60, nodes_u=12,
                    tol=1e-12)
    m = srf_mapping("tanh", "sign", 2, 2)
    for i, a in enumerate(alphas):
        one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, 0.1, a, loss="hinge",
                               nodes=60, nodes_u=12, tol=1e-12)
        assert abs(g["classification_error"][i, 0] - one.classification_error) < 1e-10
    assert not g["failures"] and np.all(np.diff(g["classification_error"][:, 0]) < 0)


def test_cli_curve_logistic_plot(tmp_path, capsys):
    """`curve --loss logistic --plot`: the figure has a classification-error panel whose
    line is the theory's classification error."""
    import json

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from srfsym.cli import main
    path = tmp_path / "c.png"
    figs = []
    orig = plt.Figure.savefig

    def keep(self, *a, **k):
        figs.append(self)
        return orig(self, *a, **k)

    plt.Figure.savefig = keep
    try:
        assert main(["curve", "--student", "tanh", "--teacher", "sign", "--alpha0", "2",
                     "--eta", "2", "--lam", "0.05", "--alpha", "1", "2", "--loss", "logistic",
                     "--plot", str(path), "--json"]) == 0
    finally:
        plt.Figure.savefig = orig
    rows = json.loads(capsys.readouterr().out)["rows"]
    assert path.stat().st_size > 0 and len(figs) == 1
    line = figs[0].axes[0].get_lines()[0]      # the classification panel leads (issue 31)
    assert np.allclose(line.get_ydata(), [r["classification_error"] for r in rows], rtol=0,
                       atol=1e-15)
    m = srf_mapping("tanh", "sign", 2, 2)
    one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, 0.05, 2.0, loss="logistic")
    assert abs(rows[1]["classification_error"] - one.classification_error) < 1e-9


def test_sweep_theory_rows_with_a_loss(tmp_path):
    """A [theory] table with loss / noise / bias: rows carry them and the classifier's
    numbers, equal to the single-point solver; the defaults keep the grid id of a table
    without these keys."""
    from srfsym.sweep.run import grid_id, parse_spec, read_results, run_sweep
    base = {"student": "tanh", "teacher": "sign", "alpha0": 2, "eta": 2, "lam": 0.1,
            "alpha": [1.0, 2.0]}
    spec = parse_spec({"theory": {**base, "loss": ["square", "logistic"], "noise": 0.1}})
    out = tmp_path / "s.csv"
    summary = run_sweep(spec, out, workers=1, progress=False)
    assert summary.failed == 0
    rows = [r for r in read_results(out) if r["loss"] == "logistic"]
    assert len(rows) == 2 and all(r["noise"] == "0.1" and r["bias"] == "false" for r in rows)
    m = srf_mapping("tanh", "sign", 2, 2)
    one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, 0.1, 2.0, loss="logistic",
                           noise=0.1)
    row = next(r for r in rows if float(r["alpha"]) == 2.0)
    assert abs(float(row["classification_error"]) - one.classification_error) < 1e-9
    assert grid_id(parse_spec({"theory": {**base, "loss": "square", "noise": 0.0}})) == \
        grid_id(parse_spec({"theory": base}))


def test_sweep_theory_rows_with_a_vocabulary_and_a_loss(tmp_path):
    """A [theory] table with a readout vocabulary and a convex loss (docs/theory.md (m.8)):
    its rows are the K-group convex fixed point, with the classifier's numbers."""
    from srfsym.sweep.run import parse_spec, read_results, run_sweep
    from srfsym.theory.fixed_point import solve
    spec = parse_spec({"theory": {"student": "tanh", "teacher": "sign", "alpha0": 2, "eta": 2,
                                  "lam": 0.1, "alpha": [2.0], "loss": "logistic",
                                  "vocabulary": [1, 2]}})
    out = tmp_path / "v.csv"
    summary = run_sweep(spec, out, workers=1, progress=False)
    assert summary.failed == 0
    (row,) = [r for r in read_results(out) if r["loss"] == "logistic"]
    one = solve("tanh", "sign", 2, 2, 0.1, 2.0, loss="logistic", vocabulary=[1, 2])
    assert abs(float(row["classification_error"]) - one.classification_error) < 1e-9
    assert abs(float(row["train_loss"]) - one.train_loss) < 1e-9
