"""Every step-by-step derivation script in ``derivations/`` runs to completion.

The scripts assert their own identities (symbolic zeros, 40-digit agreements, numerical checks
against independent computations), so running one as ``__main__`` is the test.  The list is a
glob: scripts added later are picked up automatically.
"""
from __future__ import annotations

import runpy
from pathlib import Path

import pytest

DERIVATIONS = sorted((Path(__file__).resolve().parent.parent / "derivations").glob("*.py"))


def test_derivations_exist():
    assert DERIVATIONS, "no derivation scripts found"


@pytest.mark.parametrize("path", DERIVATIONS, ids=[p.name for p in DERIVATIONS])
def test_derivation_runs(path, capsys):
    namespace = runpy.run_path(str(path), run_name="__main__")
    out = capsys.readouterr().out
    assert "main" in namespace and callable(namespace["main"])
    assert out.strip(), f"{path.name} printed nothing"
    # the scripts' plain asserts vanish under python -O: require their closing line too
    assert "All identities asserted." in out, f"{path.name} did not reach its end"
