"""The sweep's results file: one writer at a time, torn last records repaired, odd outputs.

Two real ``srfsym sweep`` processes on one CSV: the first is paused (SIGSTOP) while it holds
the file, the second must be refused with a message, and after both the table holds every
point once.
"""
import csv
import os
import shutil
import signal
import subprocess
import sys
import time

import pytest

from cli_run import ROOT, run_cli
from srfsym.sweep.run import KEY_COLUMNS, parse_spec, read_results, run_sweep

THEORY = {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": [2, 3], "lam": [0.1],
          "alpha": [0.5, 1.0, 2.0], "spectrum": "sample", "d": 40}
TOML = """
[theory]
student = "tanh"
teacher = "sin"
alpha0 = 20
eta = [2, 3]
lam = [0.1]
alpha = [0.5, 1.0, 2.0]
spectrum = "sample"
d = 40
"""


def _table(path):
    rows = [{k: v for k, v in r.items() if k != "seconds"} for r in read_results(path)]
    return sorted(rows, key=lambda r: tuple(r.values()))


def _records(path):
    """Every CSV record of the file (strict parse), header included."""
    with open(path, newline="") as fh:
        return list(csv.reader(fh, strict=True))


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweepfiles") / "full.csv"
    spec = parse_spec({"theory": THEORY})
    run_sweep(spec, out, workers=1, progress=False)
    return spec, out


def test_a_cut_inside_a_quoted_field_is_repaired(full, tmp_path):
    spec, out = full
    lines = open(out).read().splitlines(keepends=True)
    assert len(lines) == 7 and '"grid-newton' in lines[-1]
    cut = tmp_path / "cut.csv"
    last = lines[-1]
    torn = last[:last.index('"grid-newton') + 8]             # inside the quoted method
    cut.write_text("".join(lines[:-1]) + torn)
    summary = run_sweep(spec, cut, workers=1, progress=False)
    assert summary.computed == 1 and summary.skipped == 5
    assert any("line 7" in r and "interrupted write" in r for r in summary.repairs)
    assert len(_records(cut)) == 7                            # header + 6, none swallowed
    assert _table(cut) == _table(out)


@pytest.mark.parametrize("newline", ["", "\n"])
def test_a_cut_inside_the_grid_id_is_named_not_another_grid(full, tmp_path, newline):
    """Cut inside grid_id; with "\\n", as an earlier version left it (it closed the line)."""
    spec, out = full
    lines = open(out).read().splitlines(keepends=True)
    cut = tmp_path / "cut.csv"
    cut.write_text("".join(lines[:-1]) + lines[-1][:-8] + newline)
    summary = run_sweep(spec, cut, workers=1, progress=False)
    assert any("line 7" in r for r in summary.repairs), summary.repairs
    assert summary.computed == 1
    assert _table(cut) == _table(out)
    again = run_sweep(spec, cut, workers=1, progress=False)   # nothing left to do
    assert again.computed == 0 and all("skipped" in r for r in again.repairs)


def test_a_torn_header_is_completed_and_a_foreign_file_is_left_alone(full, tmp_path):
    spec, out = full
    cut = tmp_path / "header.csv"
    cut.write_text("source,student,tea")
    run_sweep(spec, cut, workers=1, progress=False)
    assert _table(cut) == _table(out)
    foreign = tmp_path / "notes.csv"
    foreign.write_text("a,b\n1,2")
    with pytest.raises(ValueError, match="not an srfsym sweep table"):
        run_sweep(spec, foreign, workers=1, progress=False)
    assert foreign.read_text() == "a,b\n1,2"                 # not truncated


def _wait_for(path, text, proc, seconds=60):
    t0 = time.monotonic()
    while time.monotonic() - t0 < seconds:
        if os.path.exists(path) and open(path).read().startswith(text):
            return
        if proc.poll() is not None:
            raise AssertionError(f"the first sweep ended early: {proc.communicate()}")
        time.sleep(0.05)
    raise AssertionError("the first sweep never wrote its header")


@pytest.mark.timeout(240)
def test_a_second_sweep_on_the_same_file_is_refused(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text(TOML)
    out = tmp_path / "o.csv"
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg")
    first = subprocess.Popen([sys.executable, "-c", "import sys; from srfsym.cli import main; "
                              "sys.exit(main())", "sweep", str(grid), "--out", str(out),
                              "--workers", "1", "--quiet"], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _wait_for(out, "source,", first)
        first.send_signal(signal.SIGSTOP)                     # it holds the file, paused
        second = run_cli("sweep", grid, "--out", out, "--workers", "1", "--quiet",
                         timeout=120)
        assert second.returncode == 2, second
        assert "another sweep is writing" in second.stderr and "Traceback" not in second.stderr
    finally:
        first.send_signal(signal.SIGCONT)
    stdout, stderr = first.communicate(timeout=180)
    assert first.returncode == 0, stderr
    keys = [tuple(r[k] for k in KEY_COLUMNS) for r in read_results(out)]
    assert len(keys) == 6 == len(set(keys))
    third = run_cli("sweep", grid, "--out", out, "--workers", "1", "--quiet", timeout=120)
    assert third.returncode == 0 and "6 already in" in third.stderr


@pytest.mark.timeout(240)
def test_two_sweeps_started_together_write_each_point_once(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text(TOML)
    out = tmp_path / "o.csv"
    env = dict(os.environ, PYTHONPATH=ROOT, MPLBACKEND="Agg")
    cmd = [sys.executable, "-c", "import sys; from srfsym.cli import main; sys.exit(main())",
           "sweep", str(grid), "--out", str(out), "--workers", "1", "--quiet"]
    procs = [subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(2)]
    results = [p.communicate(timeout=200) for p in procs]
    codes = [p.returncode for p in procs]
    assert 0 in codes, results
    for code, (_, err) in zip(codes, results):
        assert code == 0 or (code == 2 and "another sweep is writing" in err), err
    keys = [tuple(r[k] for k in KEY_COLUMNS) for r in read_results(out)]
    assert len(keys) == 6 == len(set(keys))


def test_sweep_to_dev_null(tmp_path):
    if not os.path.exists("/dev/null"):
        pytest.skip("no /dev/null")
    grid = tmp_path / "g.toml"
    grid.write_text(TOML)
    res = run_cli("sweep", grid, "--out", "/dev/null", "--workers", "1", "--quiet",
                  timeout=120)
    assert res.returncode == 0, res.stderr
    assert "6 computed" in res.stderr


def test_shutil_copy_keeps_a_locked_file_readable(full, tmp_path):
    """Reading (plots, copies) is never blocked by a running sweep's lock."""
    spec, out = full
    copy = tmp_path / "copy.csv"
    from srfsym.sweep.results import _open_results
    from srfsym.sweep.run import grid_id
    fh, done, _ = _open_results(str(out), grid_id(spec))
    try:
        shutil.copy(out, copy)
        assert len(read_results(copy)) == 6 and len(done) == 6
    finally:
        fh.close()


@pytest.mark.timeout(120)
def test_a_dask_cluster_without_workers_stops_the_sweep(tmp_path):
    """The last worker gone (here: none at all): a message after --timeout, not a hang."""
    distributed = pytest.importorskip("distributed")
    spec = parse_spec({"theory": THEORY})
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp",
                                  host="127.0.0.1", dashboard_address=None) as cluster:
        t0 = time.monotonic()
        with pytest.raises(ValueError, match="has had no worker for 3 s"):
            run_sweep(spec, out, scheduler=cluster.scheduler_address, progress=False,
                      timeout=3)
        assert time.monotonic() - t0 < 60
    assert len(_records(out)) == 1          # the header; a rerun resumes


@pytest.mark.timeout(180)
def test_a_dask_worker_that_dies_mid_sweep_stops_it(tmp_path):
    distributed = pytest.importorskip("distributed")
    spec = parse_spec({"theory": THEORY})
    out = tmp_path / "dask.csv"
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        import threading

        def kill():                          # the worker process dies while tasks run
            time.sleep(1.0)
            for w in list(cluster.workers.values()):
                os.kill(w.process.process.pid, signal.SIGKILL)
            cluster.scale(0)
        threading.Thread(target=kill, daemon=True).start()
        with pytest.raises(ValueError, match="no worker|task failed"):
            run_sweep(spec, out, scheduler=cluster.scheduler_address, progress=False,
                      timeout=3)


def test_a_file_with_every_row_twice_reads_and_resumes_once(full, tmp_path):
    """What two unlocked sweeps left behind: each point once on reading, nothing recomputed."""
    spec, out = full
    lines = open(out).read().splitlines(keepends=True)
    doubled = tmp_path / "doubled.csv"
    doubled.write_text(lines[0] + "".join(lines[1:]) + "".join(lines[1:]))
    assert _table(doubled) == _table(out)
    assert run_sweep(spec, doubled, workers=1, progress=False).computed == 0


class _LostResultFuture:
    """A task that finished on a worker that then died: ``done()``, but its rows can never be
    fetched (the fetch waits for a recomputation no worker runs)."""

    def done(self):
        return True

    def result(self, timeout=None):
        time.sleep(min(timeout if timeout is not None else 60.0, 60.0))
        raise TimeoutError("no worker holds the result")


class _EmptyCluster:
    """A client whose scheduler answers but has no worker left ("Lost all workers")."""

    class scheduler:
        address = "tcp://127.0.0.1:0"

    def nthreads(self):
        return {}


@pytest.mark.timeout(60)
def test_a_result_lost_with_its_worker_does_not_hang_the_sweep():
    """Issue 31 item 9: --timeout holds when the only worker dies between the end of a task
    and the fetch of its rows (before: ``Future.result()`` without a limit waited forever)."""
    from srfsym.sweep.run import SweepError, _dask_results
    t0 = time.monotonic()
    with pytest.raises(SweepError, match="has had no worker for 2 s"):
        list(_dask_results(_EmptyCluster(), [_LostResultFuture()], timeout=2))
    assert time.monotonic() - t0 < 15
