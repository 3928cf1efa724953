"""One time budget for the work an activation can cause: symbolic integration,
simplification and numeric quadrature.

A budget is a wall-clock deadline set by :func:`time_budget` (the CLI sets it from
``--time-limit``).  Long symbolic steps run under :func:`limited` (an interval timer in
the main thread: past their share they are interrupted and the caller falls back to a
cheaper method it names); quadrature loops call :func:`check` from the integrand, so
``mpmath.quad`` (which has no timeout of its own) stops with :class:`BudgetExceeded`.

>>> with time_budget(5):
...     remaining() <= 5
True
>>> remaining() is None            # no budget outside the context
True
>>> import sympy as sp
>>> limited(lambda: sp.simplify(sp.sin(sp.Symbol("y"))**2 + sp.cos(sp.Symbol("y"))**2), 5)
1
"""
from __future__ import annotations

import signal
import sys
import threading
import time
from contextlib import contextmanager

__all__ = ["BudgetExceeded", "time_budget", "remaining", "check", "limited", "LimitReached",
           "simplify_limited", "SIMPLIFY_SECONDS"]


class BudgetExceeded(ValueError):
    """The time budget ran out before a result could be obtained."""


class LimitReached(Exception):
    """Internal: a :func:`limited` call was interrupted (callers fall back or re-raise)."""


_STATE = {"deadline": None, "seconds": None, "fired": 0}

#: Longest single ``sympy.simplify`` (seconds) before its input is used unsimplified.
SIMPLIFY_SECONDS = 4.0


def _budget_alarm(deadline, outer_handler, outer_at):
    """The budget's SIGALRM handler; an enclosing timer that was due earlier (a test
    runner's time-out) gets its own handler called at its time."""
    def handler(signum, frame):
        now = time.monotonic()
        if outer_at is not None and now >= outer_at - 1e-3 and now < deadline \
                and callable(outer_handler):
            outer_handler(signum, frame)
            signal.setitimer(signal.ITIMER_REAL, max(deadline - time.monotonic(), 1e-3), 0.5)
            return
        _STATE["fired"] += 1
        raise BudgetExceeded(_expired_message())
    return handler


def _expired_message(what="the computation"):
    return (f"{what} gave no answer within the time limit of "
            f"{_STATE['seconds']:g} s (raise it with --time-limit)")


@contextmanager
def time_budget(seconds):
    """Run the body under a deadline ``seconds`` from now (nested budgets: the tighter wins).

    ``None`` means no limit.  Steps that check the budget (quadrature loops, :func:`limited`
    symbolic steps) stop with their own message; in the main thread an interval timer also
    interrupts any other step at the deadline (:class:`BudgetExceeded`), so no step runs on
    past it (except a single long C-level operation, which is interrupted when it returns).
    The timer repeats every 0.5 s past the deadline until the body gives up control.
    """
    if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, (int, float))
                                or not seconds > 0):
        raise ValueError(f"the time budget must be a positive number of seconds, got {seconds!r}")
    old = dict(_STATE)
    fired_before = _STATE["fired"]
    armed = False
    if seconds is not None:
        deadline = time.monotonic() + float(seconds)
        if old["deadline"] is None or deadline < old["deadline"]:
            _STATE["deadline"], _STATE["seconds"] = deadline, float(seconds)
            if threading.current_thread() is threading.main_thread():
                t0 = time.monotonic()
                pending = signal.getitimer(signal.ITIMER_REAL)[0]     # an enclosing timer
                old_handler = signal.signal(signal.SIGALRM, _budget_alarm(
                    deadline, signal.getsignal(signal.SIGALRM), t0 + pending if pending else None))
                # repeats: code that catches Exception (sympy does) gets it again
                first = min(float(seconds), pending) if pending else float(seconds)
                old_delay, _ = signal.setitimer(signal.ITIMER_REAL, first, 0.5)
                armed = True
    try:
        yield
    except Exception as exc:
        # the alarm's BudgetExceeded is a ValueError: code that catches ValueError (a number
        # check, a conversion) may have turned it into another error; name the time limit
        if _STATE["fired"] > fired_before and not isinstance(exc, BudgetExceeded):
            raise BudgetExceeded(_expired_message()) from exc
        raise
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, old_handler)
            if old_delay > 0:       # an enclosing budget's timer
                signal.setitimer(signal.ITIMER_REAL,
                                 max(old_delay - (time.monotonic() - t0), 1e-3))
        fired = _STATE["fired"]
        _STATE.update(old)
        _STATE["fired"] = fired


def remaining():
    """Seconds left in the current budget (``None`` without a budget)."""
    if _STATE["deadline"] is None:
        return None
    return _STATE["deadline"] - time.monotonic()


def check(what="the computation"):
    """Raise :class:`BudgetExceeded` if the budget is spent (cheap: call it from integrands)."""
    d = _STATE["deadline"]
    if d is not None and time.monotonic() > d:
        raise BudgetExceeded(_expired_message(what))


class _Alarm(BaseException):
    """Raised by the interval timer.  A BaseException, so that library code catching
    ``Exception`` (sympy does, in places) cannot swallow it."""


def _quiet_alarm_hook(previous):
    """An unraisable-exception hook that drops the alarms of :func:`limited` (an alarm raised
    inside a weakref callback or ``__del__`` cannot propagate; the repeating timer raises it
    again where it can) and hands every other unraisable exception to ``previous``.  Without it
    Python prints "Exception ignored in ..." with a traceback on stderr, which a notebook shows
    as a cell's stderr output."""
    def hook(unraisable):
        if isinstance(unraisable.exc_value, _Alarm):
            return
        previous(unraisable)
    return hook


def limited(fn, seconds):
    """``fn()`` interrupted after ``min(seconds, remaining budget)`` seconds.

    Raises :class:`LimitReached` when interrupted (also when no time is left, or when not in
    the main thread, where no interval timer can be used and ``fn`` is not attempted).
    Exceptions of ``fn`` propagate.
    """
    left = remaining()
    if left is not None:
        seconds = min(seconds, left)
    if seconds <= 0 or threading.current_thread() is not threading.main_thread():
        raise LimitReached("no time left" if seconds <= 0 else "not in the main thread")
    token = object()
    armed = [True]

    def handler(signum, frame):
        if armed[0]:            # not after fn has returned or given up
            raise _Alarm(token)

    t0 = time.monotonic()
    old_handler = signal.signal(signal.SIGALRM, handler)
    old_hook = sys.unraisablehook
    sys.unraisablehook = _quiet_alarm_hook(old_hook)
    running = signal.getitimer(signal.ITIMER_REAL)[0]   # an enclosing limited() call
    if running > 0:
        seconds = min(seconds, running)
    # the timer repeats (every 0.1 s) until fn gives up: an alarm raised where Python cannot
    # propagate it (a weakref callback or __del__ during garbage collection: "Exception
    # ignored in ...") would otherwise be lost and fn run on unbounded
    old_delay, old_interval = signal.setitimer(signal.ITIMER_REAL, seconds, 0.1)
    try:
        return fn()
    except _Alarm:
        armed[0] = False
        raise LimitReached(f"interrupted after {seconds:.3g} s") from None
    except RecursionError:
        armed[0] = False
        raise LimitReached("expression too deeply nested") from None
    finally:
        armed[0] = False
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old_handler)
        sys.unraisablehook = old_hook
        if old_delay > 0:           # an enclosing timer (limited() or the budget): re-arm it
            signal.setitimer(signal.ITIMER_REAL, max(old_delay - (time.monotonic() - t0), 1e-3),
                             old_interval)


def simplify_limited(expr, seconds=None, measure=None):
    """``sympy.simplify(expr)`` within ``seconds`` (default :data:`SIMPLIFY_SECONDS`), else
    ``expr`` unchanged.  With ``measure`` (e.g. ``sympy.count_ops``) the simpler of the two
    is returned."""
    import sympy as sp
    try:
        out = limited(lambda: sp.simplify(expr), SIMPLIFY_SECONDS if seconds is None else seconds)
    except LimitReached:
        return expr
    except Exception:  # noqa: BLE001 - sympy raises many kinds on hard input: keep expr
        return expr
    if measure is not None and measure(out) > measure(expr):
        return expr
    if out.has(sp.Piecewise) and not expr.has(sp.Piecewise):
        return expr            # a case split is not simpler for a reader (or for the rules)
    return out
