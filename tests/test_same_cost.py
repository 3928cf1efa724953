"""One point costs the same through every door (issue 31, item 6): ``error --bulk exact`` and a
``sweep`` of the same point choose their kappa nodes the same way (climbed on the isotropic
bulk at the same r, c, gamma, then one solve on the exact law), and ``curve --workers N``
spreads a curve over the sweeps' local pool with the serial answer."""
import csv
import io
import warnings

import pytest

from cli_run import run_cli
from srfsym.theory.fixed_point import solve
from srfsym.theory.grid import solve_grid
from srfsym.theory.spectral import exact_bulk

POINT = dict(student="erf", teacher="sin", alpha0=0.5, eta=5.0)


@pytest.fixture
def stieltjes_calls(monkeypatch):
    """The number of Stieltjes solves of the exact law (the costly part of a solve)."""
    calls = [0]
    orig = exact_bulk.ExactBulk.stieltjes

    def counted(self, *a, **k):
        calls[0] += 1
        return orig(self, *a, **k)
    monkeypatch.setattr(exact_bulk.ExactBulk, "stieltjes", counted)
    return calls


def test_exact_bulk_point_costs_what_the_grid_costs(stieltjes_calls):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        single = solve(POINT["student"], POINT["teacher"], POINT["alpha0"], POINT["eta"], 0.01,
                       1.0, bulk="exact")
        n_single, stieltjes_calls[0] = stieltjes_calls[0], 0
        grid = solve_grid(POINT["student"], POINT["teacher"], POINT["alpha0"], POINT["eta"],
                          [1.0], [0.01], bulk="exact")
        n_grid = stieltjes_calls[0]
    # the same digits (the sweep's value of the point, after the cross sums of (g.5))
    assert single.test_error == pytest.approx(float(grid.test_error[0, 0]), rel=1e-12)
    assert single.test_error == pytest.approx(0.7537595429, abs=1e-10)
    assert single.nodes == grid.nodes
    # before: the single solve climbed the node ladder on the exact law, 114 solves against 14
    assert n_single <= 1.5 * n_grid, (n_single, n_grid)


def rows(text):
    return list(csv.DictReader(io.StringIO(text)))


def test_curve_workers_gives_the_serial_curve():
    argv = ["-q", "curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "20", "--eta",
            "3", "--lam", "0.1", "--alpha-min", "0.5", "--alpha-max", "3", "--points", "5",
            "--csv"]
    serial = run_cli(*argv)
    parallel = run_cli(*argv, "--workers", "2")
    assert serial.returncode == 0 and parallel.returncode == 0, parallel.stderr
    a, b = rows(serial.stdout), rows(parallel.stdout)
    assert [r["alpha"] for r in a] == [r["alpha"] for r in b] and len(a) == 5
    for x, y in zip(a, b):
        assert float(y["test_error"]) == pytest.approx(float(x["test_error"]), rel=1e-12)
        assert float(y["r"]) == pytest.approx(float(x["r"]), rel=1e-14)
        assert x["kappa_nodes"] == y["kappa_nodes"]
    bad = run_cli(*argv, "--workers", "0")
    assert bad.returncode == 2 and "--workers must be a positive integer" in bad.stderr


def test_a_huge_curve_is_refused_up_front():
    """Issue 31, item 9: ``curve --points 100000000`` is refused before any work (as sweep's
    > 1e6 rows), with or without --workers."""
    for extra in ([], ["--workers", "2"]):
        res = run_cli("-q", "curve", "--student", "tanh", "--teacher", "sin", "--alpha0", "20",
                      "--eta", "3", "--lam", "0.1", "--points", "100000000", *extra, timeout=60)
        assert res.returncode == 2 and "more than the 10,000 a curve computes" in res.stderr
