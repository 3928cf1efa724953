"""Figures ready for a paper: legend outside the data, typeset symbols, labelled error bars,
a caption note where the curve crosses the upper bound (and only then), log alpha, PDF/SVG."""
import argparse

import numpy as np
import pytest

import srfsym
from srfsym.cli import main
from srfsym.cli.theory import curve_figure, curve_notes

CASE = dict(student="tanh", teacher="tanh", alpha0=0.5, eta=1.0, lam=0.01)


def _args(**kw):
    base = dict(CASE, log_alpha=True, shared_first_layer=False, d_sim=40, seeds=2)
    base.update(kw)
    return argparse.Namespace(**base)


@pytest.fixture(scope="module")
def curve():
    lc = srfsym.learning_curve(CASE["student"], CASE["teacher"], CASE["alpha0"], CASE["eta"],
                               CASE["lam"], np.geomspace(0.05, 4, 8))
    m = lc.results[0].mapping
    b = srfsym.bounds(CASE["student"], CASE["teacher"], m.r, m.c, m.gamma)
    return lc, b


def test_caption_note_only_where_the_curve_is_above_the_upper_bound(curve):
    lc, b = curve
    above = lc.alphas[lc.test_error > b.upper]
    assert 0 < above.size < lc.alphas.size            # this case does cross the line
    notes = curve_notes(lc.alphas, lc.test_error, b, CASE["lam"])
    assert len(notes) == 1 and "not optimal" in notes[0]
    assert f"\u2264 {above.max():.3g}" in notes[0] and "\u03bb \u2192 \u221e" in notes[0]
    below = lc.test_error <= b.upper
    assert curve_notes(lc.alphas[below], lc.test_error[below], b, CASE["lam"]) == []


def test_legend_outside_the_data_and_symbols_typeset(curve):
    lc, b = curve
    fig = curve_figure(_args(), lc, b, None)
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend()
    renderer = fig.canvas.get_renderer()
    box, frame = legend.get_window_extent(renderer), ax.get_window_extent(renderer)
    assert box.x0 >= frame.x1                          # entirely right of the axes
    assert ax.get_xscale() == "log"
    texts = [t.get_text() for t in legend.get_texts()] + [t.get_text() for t in fig.texts]
    assert any(r"\infty" in t for t in texts)
    assert not any(" oo" in t or "->" in t for t in texts)
    import matplotlib.pyplot as plt
    plt.close(fig)


@pytest.mark.parametrize("suffix, magic", [(".pdf", b"%PDF"), (".svg", b"<?xml")])
def test_cli_writes_pdf_and_svg_with_labelled_error_bars(capsys, tmp_path, suffix, magic):
    path = tmp_path / f"curve{suffix}"
    code = main(["--quiet", "curve", "--student", "tanh", "--teacher", "tanh", "--alpha0", "0.5",
                 "--eta", "1", "--lam", "0.01", "--alpha", "0.1", "1", "3", "--simulate",
                 "--sim-alpha", "1", "--d-sim", "40", "--seeds", "2", "--log-alpha",
                 "--plot", str(path)])
    assert code == 0
    data = path.read_bytes()
    assert data.startswith(magic) and len(data) > 5000
    if suffix == ".svg":                                # text is kept as text in SVG
        text = data.decode()
        assert "standard error over 2 seeds" in text
        assert "not optimal" in text
