"""A classifier's outputs lead with its classification error, beside its baselines (issue 31,
item 4): the same readout without the step (eta = 0), the Bayes error of the labels; the
ridge's upper bound is not printed or drawn for another loss; every compared quantity of a
simulation is judged (a classification error 3.2 s.e. off gets its warning)."""
import json
import math

import mpmath
import pytest

from cli_run import run_cli
from srfsym.cli.classification import CLASSIFICATION_COLUMNS
from srfsym.sweep.agreement import agreement_warnings
from srfsym.symbolic.activations import activation
from srfsym.theory.channels.label_law import bayes_classification_error

POINT = ["--student", "tanh", "--teacher", "sign", "--alpha0", "2", "--eta", "2", "--lam", "0.1",
         "--alpha", "1", "2", "--loss", "logistic"]


def test_json_rows_lead_with_the_classification_error_and_its_baselines():
    proc = run_cli("-q", "curve", *POINT, "--noise", "0.25", "--json")
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)["rows"]
    for row in rows:
        assert tuple(list(row)[11:14]) == CLASSIFICATION_COLUMNS
        # probit flip of the teacher sign: Bayes error arctan(sigma) / pi
        assert row["bayes_classification_error"] == pytest.approx(math.atan(0.5) / math.pi,
                                                                  abs=1e-10)
        assert (row["bayes_classification_error"] < row["classification_error"]
                < row["no_step_classification_error"])     # the step helps here


def test_text_and_figure_lead_with_classification(tmp_path):
    fig = tmp_path / "c.svg"
    proc = run_cli("-q", "curve", *POINT, "--plot", fig)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    head = next(line for line in lines if line.strip().startswith("alpha"))
    assert head.split()[:4] == ["alpha", "class.", "error", "no"]
    assert not any(line.startswith("bounds:") for line in lines)   # the ridge's, not shown
    svg = fig.read_text()
    assert "Bayes error of the labels" in svg and "no step" in svg
    assert "upper bound" not in svg          # the ridge's lambda -> infinity limit


def test_bayes_error_of_bernoulli_labels_against_mpmath():
    """E_u[(1 - |E_xi tanh(u + sqrt(noise) xi)|)/2], u ~ N(0, 1): nested mpmath quadrature."""
    v, err = bayes_classification_error(activation("tanh"), 0.5, "bernoulli")
    s = mpmath.sqrt(mpmath.mpf("0.5"))

    def g(u):
        return mpmath.quad(lambda t: mpmath.tanh(u + s * t) * mpmath.npdf(t),
                           [-mpmath.inf, -u / s, mpmath.inf])
    with mpmath.workdps(15):
        ref = 2 * mpmath.quad(lambda u: (1 - abs(g(u))) / 2 * mpmath.npdf(u), [0, mpmath.inf])
    assert v == pytest.approx(float(ref), abs=1e-11) and err < 1e-10
    assert bayes_classification_error(activation("sign"), 0.0) == (0.0, 0.0)


def test_every_compared_quantity_is_warned_on():
    row = {"source": "simulation", "alpha": 1.0, "d": 400, "seeds": 8,
           "test_error": 2.1, "test_error_sem": 0.1, "theory_test_error": 2.15,
           "classification_error": 0.168, "classification_error_sem": 0.01,
           "theory_classification_error": 0.2}
    warns = agreement_warnings([row])
    assert len(warns) == 1 and "test classification error" in warns[0] and "-3.2 s.e." in warns[0]


def test_an_identically_zero_predictor_prints_no_spurious_digit():
    """A loss even in yhat (2^yhat + 2^-yhat) is minimised by yhat = 0 whatever the label:
    sign(yhat) is a tie, 1/2 -- it printed 0.5000000373 (issue 31, item 9)."""
    proc = run_cli("-q", "error", "--student", "tanh", "--teacher", "sign", "--alpha0", "2",
                   "--eta", "2", "--lam", "0.1", "--alpha", "1", "--loss", "2**yhat + 2**(-yhat)")
    assert proc.returncode == 0, proc.stderr
    assert "test classification error = 0.5," in proc.stdout
    assert "the predictor is zero to within the solver's tolerance" in proc.stdout
