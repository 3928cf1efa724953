"""The library against the committed 30-digit reference values (tests/reference/*.json).

After an intended change of a result, regenerate with `srfsym regen-reference` and commit
the diff.  `test_quick_subset_does_not_drift` recomputes part of the grid and requires the
same decimal strings, so any unintended change of a formula or a quadrature fails here.
"""
from pathlib import Path
import warnings

import mpmath
import numpy as np
import pytest

from srfsym import reference
from srfsym.theory.bounds import bounds
from srfsym.symbolic.cget import cget_coefficients
from srfsym.theory.fixed_point import solve
from srfsym.symbolic.hermite import hermite_constants
from srfsym.step.mapping import srf_mapping

REF = Path(__file__).parent / "reference"


def table(name):
    return reference.load(REF, name)


def close(value, ref_str, rel):
    ref = float(ref_str)
    assert abs(value - ref) <= rel * max(1.0, abs(ref)), (value, ref_str)


def test_files_carry_version_and_settings():
    for name in reference.GRID:
        t = table(name)
        assert t["dps"] == reference.DPS and t["srfsym_version"] and t["settings"]


def test_constants_double_precision():
    for name, row in table("constants")["values"].items():
        hc = hermite_constants(name).as_dict()
        for key, entry in row.items():
            assert hc[key].method == entry["method"]
            if entry["value"] == "inf":
                assert float(hc[key]) == float("inf")
            else:
                close(float(hc[key]), entry["value"], 1e-14)


def test_cget_numpy_against_reference():
    for name, rows in table("cget")["values"].items():
        f = cget_coefficients(name).numpy()
        for row in rows:
            vals = f(float(row["kappa"]), float(row["r"]), float(row["c"]))
            for n, v in zip(("mu0", "mu1", "mustar2"), vals):
                close(float(v), row[n], 1e-12)


def test_mapping_against_reference():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row in table("mapping")["values"]:
            m = srf_mapping(row["student"], row["teacher"], row["eta"], row["alpha0"])
            for key, v in m.values().items():
                assert v.method == row[key]["method"]
                close(float(v), row[key]["value"], 1e-14)


def test_bounds_double_against_reference():
    for row in table("bounds")["values"]:
        b = bounds(row["student"], row["teacher"], float(row["r"]), float(row["c"]),
                   float(row["gamma"]))
        close(b.upper, row["upper_bound"], 1e-12)
        close(b.lower, row["lower_bound"], 1e-12)
        close(b.kernel, row["kernel_baseline"], 1e-14)


def test_fixed_point_double_against_reference():
    for row in table("fixed_point")["values"]:
        res = solve(row["student"], row["teacher"], float(row["alpha0"]), float(row["eta"]),
                    float(row["lam"]), float(row["alpha"]))
        close(res.test_error, row["test_error"], 1e-9)
        for k in ("q1", "q2", "V1", "V2", "theta", "psi", "m"):
            close(getattr(res.state, k), row[k], 1e-8)
        assert float(row["kappa_node_error"]) <= 1e-27


def test_quick_subset_does_not_drift():
    fresh = reference.compute(quick=True)
    for name, content in fresh.items():
        committed = table(name)["values"]
        new = content["values"]
        if isinstance(new, dict):
            for key, val in new.items():
                assert val == committed[key], (name, key)
        else:
            for row in new:
                match = [r for r in committed if all(r[k] == row[k] for k in row
                                                     if k in ("student", "teacher", "eta",
                                                              "alpha0", "alpha", "lam", "r",
                                                              "c", "gamma"))]
                assert match and match[0] == row, (name, row)
