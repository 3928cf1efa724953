"""What one call leaves behind for the next one in the same process: nothing.

The CLI's ``main()`` runs in-process in tests and notebooks: its settings are scoped to the call.
"""
import mpmath

from srfsym.cli import main
from srfsym.symbolic import gaussian
from srfsym.core import budget


def test_cli_integrate_timeout_is_scoped_to_the_call(capsys):
    before = gaussian.INTEGRATE_TIMEOUT
    assert main(["--integrate-timeout", "0", "activation", "relu"]) == 0
    assert "relu" in capsys.readouterr().out
    assert gaussian.INTEGRATE_TIMEOUT == before


def test_cli_time_limit_and_precision_are_scoped_to_the_call(capsys):
    import signal
    import time
    # the test runner may hold its own interval timer (pytest-timeout): the call must leave
    # it as it found it, counting down, and leave no timer of its own
    before, t0 = signal.getitimer(signal.ITIMER_REAL), time.monotonic()
    assert main(["--time-limit", "30", "activation", "sin", "--dps", "40"]) == 0
    capsys.readouterr()
    assert budget.remaining() is None and mpmath.mp.dps == 15
    after, elapsed = signal.getitimer(signal.ITIMER_REAL), time.monotonic() - t0
    if before == (0.0, 0.0):
        assert after == (0.0, 0.0)
    else:
        assert after[1] == before[1] and abs(after[0] - (before[0] - elapsed)) < 1.0
