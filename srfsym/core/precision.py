"""Scoped mpmath precision, safe across threads.

mpmath keeps its working precision in one process-global context (``mpmath.mp``): two threads
inside ``mpmath.workdps`` at once overwrite each other's precision (a 30-digit constant comes
back with 21 correct digits) and restore it in the wrong order (``mp.dps`` is left at 40).
Every precision change of the library goes through :func:`workdps` / :func:`workprec` here:
the same context managers, holding one process-wide re-entrant lock for their duration.

Thread safety of srfsym, in short: the library never sets ``mpmath.mp.dps`` globally; its
high-precision sections (``dps=``, ``.mpmath(dps)``, ``.decimal(dps)``) run one thread at a
time and return full digits from any thread, leaving ``mp.dps`` as it was; double-precision
work (numpy, scipy) runs in parallel as far as the GIL allows.  Caches (``lru_cache``) are
thread-safe.  A time budget (``time_budget``, ``--time-limit``) is process-wide state and its
interval timer works in the main thread only: give budgets from the main thread.  Code of
yours that changes ``mpmath.mp.dps`` while a library call runs on another thread can still
change that call's working precision: take :data:`MP_LOCK` around it, or use
:func:`workdps`.

>>> import mpmath
>>> with workdps(40):
...     mpmath.mp.dps
40
>>> mpmath.mp.dps
15
"""
from __future__ import annotations

import threading
from contextlib import contextmanager

import mpmath

__all__ = ["MP_LOCK", "workdps", "workprec"]

#: held by every precision section of the library (re-entrant: sections nest)
MP_LOCK = threading.RLock()


@contextmanager
def workdps(dps):
    """``mpmath.workdps(dps)`` under :data:`MP_LOCK`."""
    with MP_LOCK, mpmath.workdps(dps):
        yield


@contextmanager
def workprec(prec):
    """``mpmath.workprec(prec)`` under :data:`MP_LOCK`."""
    with MP_LOCK, mpmath.workprec(prec):
        yield
