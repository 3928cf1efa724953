"""The test command's own set-up: ``python -m pytest`` runs one worker per core, and the suite
also runs in one process (``-p no:xdist``, ``-n 0``) for a debugger or a profiler."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _pytest(*args):
    env = dict(os.environ, PYTHONPATH=ROOT)
    return subprocess.run([sys.executable, "-m", "pytest", "tests/test_docs.py",
                           "-k", "the_files_are_found", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)


def test_runs_without_xdist():
    proc = _pytest("-p", "no:xdist")
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout and "workers" not in proc.stdout


def test_default_is_one_worker_per_core():
    pytest.importorskip("xdist")
    proc = _pytest()
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "workers [" in proc.stdout          # "created: N/N workers", N = cores
