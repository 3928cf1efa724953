"""Simulation against theory: where a finite-size simulation and the d -> infinity theory
disagree by more than their error bar, and whether that error bar can be trusted.

Used by ``srfsym simulate``, ``srfsym curve --simulate`` and the sweep figures; the rows are
those of the shared output schema (``test_error``, ``test_error_sem``, ``theory_test_error``,
``d``, ``seeds``, ``alpha``).
"""
from __future__ import annotations

import math

__all__ = ["Z_LIMIT", "FEW_SEEDS", "z_score", "agreement_warnings"]

#: |simulation - theory| beyond this many standard errors is reported
Z_LIMIT = 3.0
#: fewer seeds than this: the standard error itself is too rough to judge by
FEW_SEEDS = 5


def z_score(row, key="test_error"):
    """(simulation - theory) / standard error of a simulation row (``None`` without an error
    bar: one seed, or zero spread), for the column ``key`` (``theory_<key>``, ``<key>_sem``).

    >>> round(z_score({"test_error": 0.3, "test_error_sem": 0.01, "theory_test_error": 0.25}), 9)
    5.0
    """
    sem = row.get(key + "_sem")
    theory = row.get("theory_" + key)
    if sem is None or not sem == sem or sem <= 0 or theory is None:
        return None
    return (row[key] - theory) / sem


#: the quantities a simulation row compares with the theory (``<key>``, ``<key>_sem``,
#: ``theory_<key>``), with their names in a warning
COMPARED = (("test_error", "test error"), ("classification_error", "test classification error"),
            ("train_loss", "training loss"),
            ("train_classification_error", "training classification error"))


def _nice_up(x):
    """The smallest of 1, 2, 5 times a power of ten that is >= x."""
    e = 10 ** math.floor(math.log10(x))
    return int(next(m * e for m in (1, 2, 5, 10) if m * e >= x))


def agreement_warnings(rows, model_caveat=None):
    """Warnings on simulation rows against the theory: where |sim - theory| > 3 standard
    errors, why -- ``model_caveat`` when the theory compared with is known to be off (e.g. the
    isotropic bulk where the step's bulk departs from it), else a finite-size gap with the
    size d at which a gap falling like 1/d would be inside 3 s.e. (the s.e. as it is now);
    with fewer than 5 seeds, that the standard error is itself rough.

    >>> row = {"alpha": 1.0, "d": 300, "seeds": 2, "test_error": 0.30,
    ...        "test_error_sem": 0.01, "theory_test_error": 0.25}
    >>> for w in agreement_warnings([row]): print(w)  # doctest: +NORMALIZE_WHITESPACE
    the simulation (d = 300) lies more than 3 standard errors from the theory at alpha = 1
    (+5.0 s.e.): a finite-size gap; it shrinks roughly like 1/d, so d >= 500 would bring it
    within 3 s.e. (more seeds alone do not)
    the standard errors come from 2 seeds: with fewer than 5 the standard error is itself
    unreliable (use --seeds 5 or more before judging the agreement)
    """
    out, seeds = [], None
    rows = [r for r in rows if r.get("source") in (None, "simulation")]
    for row in rows:
        seeds = row.get("seeds", seeds)
    # a classifier's rows lead with its classification error; every compared quantity is judged
    keys = COMPARED if not rows or rows[0].get("classification_error") is None else (
        COMPARED[1:2] + COMPARED[:1] + COMPARED[2:])
    for key, name in keys:
        bad = [(row, z) for row in rows if key in row
               for z in [z_score(row, key)] if z is not None and abs(z) > Z_LIMIT]
        if not bad:
            continue
        d = bad[0][0]["d"]
        worst = max(abs(z) for _, z in bad)
        where = ", ".join(f"{r['alpha']:.4g} ({z:+.1f} s.e.)" for r, z in bad)
        why = model_caveat or (
            f"a finite-size gap; it shrinks roughly like 1/d, so d >= "
            f"{_nice_up(d * worst / Z_LIMIT)} would bring it within {Z_LIMIT:g} s.e. (more "
            "seeds alone do not)")
        what = "the simulation" if key == "test_error" else f"the simulation's {name}"
        out.append(f"{what} (d = {d}) lies more than {Z_LIMIT:g} standard errors from "
                   f"the theory at alpha = {where}: {why}")
    if seeds is not None and 1 < seeds < FEW_SEEDS:
        out.append(f"the standard errors come from {seeds} seeds: with fewer than {FEW_SEEDS} "
                   f"the standard error is itself unreliable (use --seeds {FEW_SEEDS} or more "
                   "before judging the agreement)")
    return out
