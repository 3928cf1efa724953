"""--time-limit holds for every step (the parser's probes included), and sizes that cannot run
are refused before any work.  Each case runs the CLI in a subprocess with a wall-clock limit, so
a hang fails the test instead of stalling the suite."""
import time

import pytest

from cli_run import run_cli


@pytest.mark.timeout(120)
def test_a_tower_of_exponentials_is_refused_at_parse_time():
    t0 = time.monotonic()
    res = run_cli("--time-limit", "60", "activation", "exp(exp(exp(exp(exp(x)))))", timeout=100)
    assert res.returncode == 2 and "too large" in res.stderr, res.stderr
    assert "Traceback" not in res.stderr and time.monotonic() - t0 < 60


@pytest.mark.timeout(150)
@pytest.mark.parametrize("expr", ["sign((x+1)**64 - 3)", "Abs(x**63 - x**62 + 3*x - 1/7)"])
def test_a_slow_symbolic_step_stops_at_the_time_limit(expr):
    t0 = time.monotonic()
    res = run_cli("--time-limit", "8", "activation", expr, timeout=120)
    elapsed = time.monotonic() - t0
    # an answer within the limit is fine too; running past it is not
    assert res.returncode in (0, 2) and "Traceback" not in res.stderr, res.stderr
    if res.returncode == 2:
        assert "time limit of 8 s" in res.stderr, res.stderr
    assert elapsed < 8 + 40, elapsed           # interpreter start-up and imports included


def _toml(tmp_path, body):
    grid = tmp_path / "g.toml"
    grid.write_text(body)
    return grid


@pytest.mark.timeout(120)
def test_a_ten_million_point_grid_is_refused_up_front(tmp_path):
    lam = ", ".join(str(1 + i) for i in range(1000))
    alpha = ", ".join(str(1 + i) for i in range(10000))
    grid = _toml(tmp_path, f'[theory]\nstudent = "tanh"\nteacher = "sin"\nalpha0 = 20\neta = 3\n'
                           f'lam = [{lam}]\nalpha = [{alpha}]\n')
    res = run_cli("sweep", grid, "--out", tmp_path / "o.csv", "--quiet", timeout=100)
    assert res.returncode == 2 and "10,000,000 rows" in res.stderr, res.stderr
    assert not (tmp_path / "o.csv").exists()


@pytest.mark.timeout(120)
def test_ten_million_seeds_are_refused_up_front(tmp_path):
    grid = _toml(tmp_path, '[simulation]\nstudent = "tanh"\nteacher = "sin"\nalpha0 = 20\n'
                           'eta = 3\nlam = 0.1\nalpha = 1.0\nd = 40\nseeds = 10000000\n')
    res = run_cli("sweep", grid, "--out", tmp_path / "o.csv", "--quiet", timeout=100)
    assert res.returncode == 2 and "10,000,000 rows" in res.stderr, res.stderr


@pytest.mark.timeout(120)
def test_an_alarm_inside_a_destructor_is_neither_printed_nor_lost():
    """An alarm of ``limited`` that fires inside ``__del__`` cannot propagate; Python would print
    "Exception ignored in ..." on stderr (a notebook cell showed it as output, failing nbval).
    It is dropped silently and the repeating timer still stops ``fn``; the previous hook is back."""
    import sys
    import time as _time
    from srfsym.core.budget import LimitReached, limited

    class Slow:
        def __del__(self):                      # half of fn's time is spent in here
            busy(0.01)

    def busy(seconds):
        t = _time.monotonic()
        while _time.monotonic() - t < seconds:
            pass

    def fn():
        while True:
            Slow()
            busy(0.01)

    seen = []

    def recorder(unraisable):
        seen.append(unraisable.exc_value)

    hook, sys.unraisablehook = sys.unraisablehook, recorder
    try:
        with pytest.raises(LimitReached):       # (a hang is caught by the test's timeout)
            limited(fn, 0.2)
        assert sys.unraisablehook is recorder       # limited() put back the one it found
        assert not seen, seen                       # what reaches the hook prints on stderr
    finally:
        sys.unraisablehook = hook
