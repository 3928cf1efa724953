"""``spectrum --density`` exports the bulk density the figure draws, with the support's pieces,
in --json and --csv; ``spectrum --log`` draws it on logarithmic axes (issue 31)."""
import csv
import io
import json

import numpy as np
import pytest

from cli_run import run_cli
from srfsym.cli import build_parser
from srfsym.cli.spectrum import _plot, _spectra

# p < n and p < d: a bulk away from 0 (no hard edge), all of its mass inside the grid
POINT = ["spectrum", "--student", "tanh", "--r", "1", "--c", "1", "--beta", "0.5",
         "--p-over-n", "0.5", "--z", "1+0.1j"]


def test_density_grid_in_json_carries_the_whole_mass_and_the_support():
    res = run_cli("-q", *POINT, "--density", "400", "--json")
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    jsonschema = pytest.importorskip("jsonschema")
    from srfsym.cli.common import schema_path
    jsonschema.validate(data, json.loads(schema_path().read_text()))
    dens = [r for r in data["rows"] if r["source"] == "density"]
    supp = [r for r in data["rows"] if r["source"] == "support"]
    assert len(dens) == 400 and len(supp) >= 1
    x = np.array([r["x"] for r in dens])
    rho = np.array([r["density"] for r in dens])
    assert np.all(np.diff(x) > 0) and np.all(rho >= 0)
    # a probability density: the bulk's mass is 1 (the outlier's 1/p vanishes), to the
    # trapezoid rule's error at 400 points with square-root edges
    assert np.trapezoid(rho, x) == pytest.approx(1.0, abs=5e-3)
    pieces = [(r["support_left"], r["support_right"]) for r in supp]
    assert data["details"]["spectrum"]["support_pieces"] == [list(p) for p in pieces]
    assert pieces[-1][1] == pytest.approx(data["details"]["spectrum"]["right_edge"], rel=1e-12)
    # inside a piece the density is of the bulk's size; outside, only the smoothing's tail:
    # Im s(x + i eps) / pi = int rho(y) eps / ((y - x)^2 + eps^2) dy / pi <= eps / (pi dist^2),
    # dist the distance of x to the support (a mass of at most 1)
    inside = np.array([r["support_piece"] is not None for r in dens])
    eps = dens[0]["density_eps"]
    dist = np.min([np.maximum(a - x, x - b) for a, b in pieces], axis=0)
    assert inside.sum() > 300 and np.all(dist[~inside] > 0)
    assert np.all(rho[~inside] <= eps / (np.pi * dist[~inside] ** 2))


def test_density_grid_in_csv_and_refusals():
    res = run_cli("-q", *POINT, "--density", "20", "--csv")
    assert res.returncode == 0, res.stderr
    rows = list(csv.DictReader(io.StringIO(res.stdout)))
    assert [r["source"] for r in rows].count("density") == 20
    assert {"x", "density", "support_left", "support_right"} <= set(rows[0])
    alone = run_cli("-q", *POINT, "--density", "20")
    assert alone.returncode == 2 and "--json or --csv" in alone.stderr
    tiny = run_cli("-q", *POINT, "--density", "1", "--json")
    assert tiny.returncode == 2 and "between 2 and" in tiny.stderr


@pytest.mark.parametrize("log, xscale, yscale", [("density", "linear", "log"),
                                                 ("eigenvalue", "log", "linear"),
                                                 ("both", "log", "log")])
def test_log_axes_of_the_figure(log, xscale, yscale):
    args = build_parser().parse_args(POINT + ["--plot", "x.png", "--log", log])
    fs, fs0 = _spectra(args)
    fig = _plot(args, fs, fs0, None, None)
    ax = fig.axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == (xscale, yscale)
    line = ax.get_lines()[0]
    x, y = line.get_data()
    if xscale == "log":         # a geometric grid (evenly spaced on the log axis), with the
        step = np.log(x[1] / x[0])     # support's pieces resolved by points of their own
        grid = np.exp(np.log(x[0]) + step * np.arange(300))
        assert np.allclose(grid[-1], x[-1]) and np.all(np.isin(np.round(np.log(grid), 9),
                                                               np.round(np.log(x), 9)))
    if yscale == "log":         # the axis reaches down to the edges' small densities
        assert ax.get_ylim()[0] < 1e-3 * np.max(y)


def test_log_alone_means_the_density_axis():
    assert build_parser().parse_args(POINT + ["--log"]).log == "density"
