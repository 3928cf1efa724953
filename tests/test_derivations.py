"""Every step-by-step derivation script in ``derivations/`` runs to completion.

The scripts assert their own identities (symbolic zeros, 40-digit agreements, numerical checks
against independent computations), so running one as ``__main__`` is the test.  The list is a
glob: scripts added later are picked up automatically.

Each script runs in a fresh interpreter: in-process it would share SymPy's cache, the library's
caches and settings, mpmath's precision and any time budget with whatever the same test worker
ran before it, and its result could depend on the order of the suite.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DERIVATIONS = sorted((ROOT / "derivations").glob("*.py"))

#: run as __main__ through runpy, then check the script defines main()
_RUNNER = ("import runpy, sys; ns = runpy.run_path(sys.argv[1], run_name='__main__'); "
           "assert callable(ns.get('main')), 'the script defines no main()'")


def test_derivations_exist():
    assert DERIVATIONS, "no derivation scripts found"


@pytest.mark.timeout(900)
@pytest.mark.parametrize("path", DERIVATIONS, ids=[p.name for p in DERIVATIONS])
def test_derivation_runs(path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-c", _RUNNER, str(path)], capture_output=True,
                          text=True, timeout=840, cwd=str(ROOT), env=env)
    assert proc.returncode == 0, f"{path.name} failed:\n{proc.stderr[-3000:]}"
    out = proc.stdout
    assert out.strip(), f"{path.name} printed nothing"
    # the scripts' plain asserts vanish under python -O: require their closing line too
    assert "All identities asserted." in out, f"{path.name} did not reach its end"
