"""The convex readout through the CLI: options refused before any work, and learning-curve
figures that draw a bound only where it bounds the plotted test MSE (docs/theory.md (i), (m))."""
import argparse

import numpy as np
import pytest

import srfsym
from srfsym.cli import main
from srfsym.cli.theory import curve_figure

SIGN = ["--student", "tanh", "--teacher", "sign", "--alpha0", "2", "--eta", "3", "--lam", "0.1",
        "--alpha", "1"]


@pytest.mark.parametrize("argv, message", [
    (["error", *SIGN, "--loss", "logistic", "--noise", "nan"], "finite number >= 0, got nan"),
    (["error", *SIGN, "--loss", "hinge", "--dps", "20"], "drop --dps"),
    (["error", *SIGN, "--loss", "logistic", "--optimize-lambda"], "without --loss"),
    (["curve", *SIGN, "--loss", "hinge", "--bias", "--simulate", "--d-sim", "4000"],
     "cannot hold a trained bias"),
])
def test_readout_options_are_refused_before_any_work(argv, message, capsys, monkeypatch):
    # neither the isotropic-bulk check (a realised step) nor the theory may run first
    import srfsym.cli.theory as cli_theory
    monkeypatch.setattr(cli_theory, "warn_if_isotropic_is_off",
                        lambda args: pytest.fail("work started before the options were checked"))
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def _figure(loss, noise=0.0):
    lc = srfsym.learning_curve("tanh", "sign", 2.0, 3.0, 0.1, [1.0], loss=loss, noise=noise)
    m = lc.results[0].mapping
    b = srfsym.bounds("tanh", "sign", m.r, m.c, m.gamma)
    args = argparse.Namespace(student="tanh", teacher="sign", alpha0=2.0, eta=3.0, lam=0.1,
                              log_alpha=False, shared_first_layer=False, d_sim=40, seeds=2,
                              loss=loss, noise=noise, label_rule="teacher", bulk="isotropic")
    fig = curve_figure(args, lc, b, None)
    labels = [t.get_text() for ax in fig.axes if ax.get_legend()
              for t in ax.get_legend().get_texts()]
    captions = " ".join(t.get_text() for t in fig.texts)
    import matplotlib.pyplot as plt
    plt.close(fig)
    return lc, b, labels, captions


def test_hinge_curve_has_no_ridge_upper_bound():
    # the upper bound is the ridge's lambda -> infinity limit: the hinge's test MSE lies above
    # it here, which says nothing about lambda (the caption must not claim it does)
    lc, b, labels, captions = _figure("hinge")
    assert np.all(lc.test_error > b.upper)
    assert not any("upper bound" in t for t in labels) and "upper bound" not in captions
    assert any("lower bound" in t for t in labels)     # any readout in the span: still a bound


def test_noisy_labels_draw_no_bound():
    # with label noise the +-1 test label is the drawn one: the teacher's bounds do not apply
    lc, b, labels, _ = _figure("logistic", noise=0.3)
    assert np.all(lc.test_error > 1.0) and b.lower < 0.5     # the MSE includes the flips
    assert not any("bound" in t or "baseline" in t for t in labels)


def test_figures_name_a_non_isotropic_bulk():
    # the label logic only (a cheap isotropic spectrum stands in for the exact one)
    import matplotlib.pyplot as plt

    from srfsym.cli.spectrum import _plot
    from srfsym.theory.feature.spectrum import feature_spectrum
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
    args = argparse.Namespace(teacher="sin", alpha0=20.0, eta=3.0, plot="x.png", bulk="exact")
    fig = _plot(args, fs, None, None, None)
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert any("exact bulk" in t for t in labels)
    plt.close(fig)
