r"""Parameter sweeps: theory grids and network simulations, resumable, local or on Dask.

A sweep is described by a TOML file with a ``[theory]`` and/or a ``[simulation]`` table
whose keys are the parameters of ``srfsym error`` / ``srfsym simulate``, each a scalar or a
list; the sweep is the cartesian product of the lists::

    [theory]
    student = "tanh"
    teacher = "sin"
    alpha0 = 20
    eta = 3
    lam = [0.01, 0.1, 1.0]
    alpha = [0.5, 1.0, 2.0]

    [simulation]
    student = "tanh"
    teacher = "sin"
    alpha0 = 20
    eta = 3
    lam = 0.1
    alpha = [0.5, 1.0, 2.0]
    d = 200
    seeds = 3

Results form one tidy CSV table, one row per theory point and one per simulation point and
seed (``source`` says which), with the parameters and the sRF parameters ``r, c, gamma`` as
columns (the leading columns are those of every srfsym table) and ``test_error``,
``train_error``, ``residual``, ``method`` (how the value was obtained), ``seconds`` and
``note``.  Theory points sharing everything but ``(alpha, lam)`` are one task, solved by
:func:`srfsym.solve_grid` (the Marchenko-Pastur limit, or with ``spectrum = "sample"`` one
sampled spectrum per ``d`` and ``seed``); a simulation task is one seed of one parameter
point with all its ``alpha`` (one first layer, one readout per alpha, as ``srfsym simulate
--seeds 1 --seed S``; the repetitions of a point use the seeds ``seed, seed + 1, ...``).
With ``shared_first_layer = true`` a task is all the seeds of a point (one first layer, the
readouts re-drawn, as ``srfsym simulate --shared-first-layer``), its rows labelled
``seed:i``.

Nothing is lost: each finished task's rows are appended to the CSV and flushed at once; a
rerun with the same output skips the points already there (the values of a rerun are
identical: every task is deterministic).  The CSV records the grid it belongs to
(``grid_id``, a hash of the expanded parameter tables) and a different grid is refused;
an existing file is only ever appended to, by one sweep at a time (a second sweep on the same
file is refused while the first runs), and a last record cut by an interrupted write is removed
(and named) before anything is appended (:mod:`srfsym.sweep.results`).  The modules:
:mod:`~srfsym.sweep.spec` (the TOML description), :mod:`~srfsym.sweep.tasks` (what is
computed), :mod:`~srfsym.sweep.results` (the CSV), this one (running them).

>>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
...                               "eta": 3, "lam": [0.01, 0.1], "alpha": [1, 2]}})
>>> [len(t["alpha"]) * len(t["lam"]) for t in theory_tasks(spec)]
[4]
"""
from __future__ import annotations

import asyncio
import math
import os
import sys
import time
from dataclasses import dataclass, field

from .results import (COLUMNS, KEY_COLUMNS, LABEL_RULE_COLUMNS, _append,  # noqa: F401
                      _open_results, read_results, row_key, table_columns)
from .spec import (SweepError, grid_id, keys_help, load_spec, parse_spec,  # noqa: F401
                   uses_label_rule, uses_steps, vocabulary_of)
from .tasks import (check_simulation_tasks, check_size, run_task, simulation_tasks, task_keys,
                    theory_tasks)

__all__ = ["SweepError", "COLUMNS", "parse_spec", "load_spec", "grid_id", "theory_tasks",
           "simulation_tasks", "check_simulation_tasks", "run_task", "run_sweep",
           "read_results", "keys_help", "SweepInterrupted", "process_map"]



# ======================================================================================
# running

@dataclass
class SweepSummary:
    """What a sweep did: points in the grid, skipped (already in the file), computed,
    failed (NaN rows, with the reason in their ``note``), the wall time, and the repairs
    made to the file before appending (a torn last record removed)."""

    out: str
    grid_id: str
    points: int
    skipped: int
    computed: int
    failed: int
    seconds: float
    where: str
    repairs: list = field(default_factory=list)

    def __str__(self):
        return "".join(f"repaired: {r}\n" for r in self.repairs) + (
                f"{self.points} rows in the sweep: {self.skipped} already in {self.out}, "
                f"{self.computed} computed ({self.failed} failed or not converged: see their "
                f"note) in "
                f"{self.seconds:.1f} s on {self.where}")


def _default_workers():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:                   # pragma: no cover (not Linux)
        return os.cpu_count() or 1


def _dask_client(address, timeout):
    try:
        from distributed import Client
    except ImportError:
        raise SweepError("--scheduler needs Dask: pip install 'dask[distributed]'") from None
    try:
        return Client(address, timeout=timeout, set_as_default=False)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SweepError(f"cannot reach the Dask scheduler at {address} within {timeout} s "
                         f"({type(exc).__name__}: {exc})") from None


#: seconds one finished task's rows may take to arrive before the sweep looks at the cluster
#: again (its data may have been on a worker that died after the task finished)
_FETCH_WAIT = 1.0


def _dask_results(client, futures, timeout):
    """Each future's rows as it finishes; a cluster left without a worker for ``timeout``
    seconds (the last one died), a lost scheduler or a failed task stop the sweep with a
    :class:`SweepError` instead of waiting forever.  A finished task's rows are fetched with
    a time limit: when its worker dies between the end of the task and the fetch, the data
    is gone and the fetch would wait for a recomputation that no worker will run; the
    future goes back to the waiting list and the no-worker clock decides."""
    address = client.scheduler.address
    left, alone, polled = list(futures), None, 0.0
    while left:
        done = [f for f in left if f.done()]
        if not done:
            time.sleep(0.1)
        left = [f for f in left if f not in done]
        fetched = False
        for f in done:
            try:
                rows = f.result(timeout=_FETCH_WAIT)
            except (TimeoutError, asyncio.TimeoutError):
                left.append(f)              # not here yet: wait for it with the others
                continue
            except Exception as exc:    # noqa: BLE001 - KilledWorker, CancelledError, ...
                raise SweepError(f"a task failed on the Dask cluster at {address} "
                                 f"({type(exc).__name__}: {exc}); the finished rows are kept, "
                                 "a rerun resumes") from None
            fetched = True
            yield rows
        if fetched:
            alone = None
            continue
        if time.monotonic() - polled < 1.0:
            continue
        polled = time.monotonic()
        try:
            workers = len(client.nthreads())
        except (OSError, TimeoutError) as exc:
            raise SweepError(f"lost the Dask scheduler at {address} ({type(exc).__name__}); "
                             "the finished rows are kept, a rerun resumes") from None
        if workers:
            alone = None
        elif alone is None:
            alone = time.monotonic()
        elif time.monotonic() - alone > timeout:
            raise SweepError(f"the Dask cluster at {address} has had no worker for "
                             f"{timeout:g} s (--timeout): {len(left)} task(s) unfinished; the "
                             "finished rows are kept, a rerun resumes")


def _close_client(client, timeout):
    """Close the Dask client within ``timeout`` seconds (a scheduler that stopped answering
    must not keep the sweep from reporting)."""
    try:
        client.close(timeout=timeout)
    except (OSError, TimeoutError, asyncio.TimeoutError):
        pass


def _start(pending, workers, client, timeout=10):
    """Start the tasks; return an iterator over each task's rows as it finishes and a
    function that stops what is left (in-process, local pool or Dask)."""
    if not pending:
        return iter(()), lambda interrupted=False: None
    if client is not None:
        futures = [client.submit(run_task, t, pure=False) for t in pending]
        return (_dask_results(client, futures, timeout),
                lambda interrupted=False: client.cancel(futures))
    if workers == 1 or len(pending) == 1:
        return (run_task(t) for t in pending), lambda interrupted=False: None
    from concurrent.futures import as_completed
    pool = _process_pool(min(workers, len(pending)))
    futures = [pool.submit(run_task, t) for t in pending]    # the workers start here

    def stop(interrupted=False):
        if interrupted:             # Ctrl-C: the running tasks are lost anyway, end them now
            for proc in list(getattr(pool, "_processes", {}).values()):
                proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
    return (f.result() for f in as_completed(futures)), stop


def _process_pool(workers):
    """The local pool of the sweeps: ``workers`` processes that leave Ctrl-C to the parent;
    forked (workers inherit what this process derived already) only from a single-threaded
    process, otherwise a fresh forkserver (a fork could copy a lock held by another thread)."""
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor
    methods = multiprocessing.get_all_start_methods()
    method = ("fork" if "fork" in methods and threading.active_count() == 1 else
              "forkserver" if "forkserver" in methods else None)
    return ProcessPoolExecutor(max_workers=workers,
                               mp_context=multiprocessing.get_context(method),
                               initializer=_ignore_interrupt)


def process_map(fn, items, workers) -> list:
    """``[fn(x) for x in items]`` on the sweeps' local pool of ``workers`` processes (in this
    process when ``workers == 1`` or there is one item), in the order of ``items``; Ctrl-C
    ends the workers at once.  ``fn`` must be a module-level function (pickled by name).

    >>> process_map(abs, [-1, 2, -3], workers=1)
    [1, 2, 3]
    """
    items = list(items)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ValueError(f"workers must be a positive integer, got {workers!r}")
    if workers == 1 or len(items) <= 1:
        return [fn(x) for x in items]
    pool = _process_pool(min(workers, len(items)))
    try:
        futures = [pool.submit(fn, x) for x in items]
        return [f.result() for f in futures]
    except BaseException:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ignore_interrupt():
    """Workers leave Ctrl-C (SIGINT, sent to the whole process group) to the parent, which
    stops them and reports what was saved (no traceback per worker)."""
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class SweepInterrupted(SweepError):
    """The sweep was interrupted (Ctrl-C): the rows written so far are kept, a rerun resumes."""


def run_sweep(spec: dict, out, *, workers=None, scheduler=None, progress=True,
              timeout=10) -> SweepSummary:
    """Run the sweep ``spec`` (from :func:`parse_spec` / :func:`load_spec`), appending to the
    CSV ``out``; tasks whose rows are all in ``out`` already are skipped.

    ``workers``: processes of the local pool (default: the cores available; 1 runs in this
    process).  ``scheduler``: address of a Dask scheduler (``tcp://host:port``) to run on
    instead; ``timeout`` seconds to reach it, and to wait while it has no worker (the sweep
    stops with :class:`SweepError` when its last worker has gone for that long).

    >>> import tempfile, os
    >>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...                               "eta": 3, "lam": [0.1, 1.0], "alpha": [0.5, 1.0]}})
    >>> out = os.path.join(tempfile.mkdtemp(), "results.csv")
    >>> print(run_sweep(spec, out, workers=1, progress=False).computed)
    4
    >>> run_sweep(spec, out, workers=1, progress=False).skipped   # a rerun: nothing to do
    4
    """
    t0 = time.perf_counter()
    if workers is None:
        workers = _default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise SweepError(f"--workers must be a positive integer, got {workers!r}")
    if not (isinstance(timeout, (int, float)) and 0 < timeout < math.inf):
        raise SweepError(f"--timeout must be a positive number of seconds, got {timeout!r}")
    if scheduler is not None and not (isinstance(scheduler, str) and "://" in scheduler):
        raise SweepError(f"--scheduler must be an address like tcp://HOST:PORT, got "
                         f"{scheduler!r}")
    check_size(spec)                     # before anything is expanded
    gid = grid_id(spec)
    tasks = theory_tasks(spec) + simulation_tasks(spec)
    check_simulation_tasks(tasks)
    keys = [task_keys(t) for t in tasks]
    total = sum(len(k) for k in keys)
    client = _dask_client(scheduler, timeout) if scheduler is not None else None
    try:
        columns = table_columns(uses_label_rule(spec), uses_steps(spec))
        fh, done, repairs = _open_results(out, gid, columns)
    except BaseException:
        if client is not None:
            client.close()
        raise
    try:
        pending = [t for t, k in zip(tasks, keys) if not set(k) <= done]
        skipped = sum(key in done for k in keys for key in k)
        where = (f"Dask scheduler {scheduler}" if scheduler else
                 f"{min(workers, max(1, len(pending)))} local process(es)")
        results, stop = _start(pending, workers, client, timeout)   # before the progress bar's thread
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=total, initial=skipped, unit="pt", desc="sweep", file=sys.stderr,
                       dynamic_ncols=True)
        computed = failed = 0
        interrupted = False
        try:
            for rows in results:
                rows = [r for r in rows if row_key(r) not in done]
                _append(fh, rows, gid, columns)
                done |= {row_key(r) for r in rows}
                computed += len(rows)
                failed += sum(r["method"] == "failed" or r["test_error"] == "nan" for r in rows)
                if bar is not None:
                    bar.update(len(rows))
        except KeyboardInterrupt:
            interrupted = True
            raise SweepInterrupted(
                f"interrupted; {computed} rows saved by this run ({skipped + computed} of "
                f"{total} in {out}); rerun the same command to resume") from None
        finally:
            try:
                stop(interrupted)
            finally:
                if bar is not None:
                    bar.close()
    finally:
        fh.close()
        if client is not None:
            _close_client(client, timeout)
    return SweepSummary(str(out), gid, total, skipped, computed, failed,
                        time.perf_counter() - t0, where, repairs)

