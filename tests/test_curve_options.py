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
