"""Regenerable 30-digit reference values (``srfsym regen-reference``).

A fixed grid of activations and parameters is evaluated at :data:`DPS` digits and written
to ``tests/reference/*.json`` with the srfsym version and the settings used; values are
decimal strings with their method (``exact``/``numeric``).  The output is deterministic,
so regenerating on a clean checkout reproduces the committed files bit for bit.

>>> sorted(GRID)
['bounds', 'cget', 'constants', 'fixed_point', 'mapping']
"""
from __future__ import annotations

import json
from pathlib import Path

import mpmath

__all__ = ["DPS", "GRID", "QUICK", "compute", "regenerate", "load"]

#: Digits of every reference value.
DPS = 30

#: The grid: what is computed for each file.
GRID = {
    "constants": {"activations": ["tanh", "erf", "sign", "relu", "sin", "he3", "softplus"]},
    "cget": {"activations": ["tanh", "erf", "sign", "relu", "sin", "he3", "softplus"],
             "points": [["0.7", "0.9", "1"], ["-1.3", "0.5", "1.7"], ["0.4", "0", "1.2"]]},
    "mapping": {"cases": [["tanh", "sin", "3", "20"], ["tanh", "tanh", "1", "0.5"],
                          ["tanh", "tanh", "1", "2"], ["erf", "sin", "1", "2"],
                          ["relu", "sin", "1", "2"]]},
    "bounds": {"cases": [["tanh", "sin", "1.13", "1.02", "1"], ["sin", "sin", "0.8", "1.3", "1"],
                         ["erf", "erf", "1.5", "1", "0.9"],
                         ["tanh", "tanh", "0.65109", "1.076906", "0.56349"]]},
    "fixed_point": {"cases": [["tanh", "sin", "20", "3", "0.1", "1"],
                              ["sin", "sin", "20", "3", "0.1", "0.5"],
                              ["erf", "sin", "2", "1", "0.05", "2"]]},
}

#: The subset recomputed by the test suite to detect drift.
QUICK = {"constants": ["tanh", "sin"], "cget": ["sign", "tanh"], "mapping": [0, 3],
         "bounds": [1], "fixed_point": [1]}


def _s(x, dps=DPS):
    return mpmath.nstr(x, dps, strip_zeros=False) if x != 0 else "0"


def _bound(x) -> str:
    """An upper bound 1e-N on a small positive number (e.g. 2.7e-38 -> '1e-37')."""
    import math
    if x == 0:
        return "0"
    return f"1e{math.ceil(math.log10(float(x)))}"


def _constants(names):
    from .symbolic.hermite import hermite_constants
    out = {}
    for name in names:
        hc = hermite_constants(name)
        out[name] = {k: {"value": v.decimal(DPS), "method": v.method}
                     for k, v in hc.as_dict().items()}
    return out


def _cget(names, points):
    from .symbolic.cget import cget_coefficients
    out = {}
    for name in names:
        co = cget_coefficients(name)
        f = co.mpmath(DPS)
        rows = []
        for kappa, r, c in points:
            vals = f(kappa, r, c)
            rows.append({"kappa": kappa, "r": r, "c": c, "method": co.method,
                         **{n: _s(v) for n, v in zip(co.names, vals)}})
        out[name] = rows
    return out


def _mapping(cases):
    import warnings
    from .step.mapping import srf_mapping
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for st, te, eta, a0 in cases:
            m = srf_mapping(st, te, eta, a0)
            rows.append({"student": st, "teacher": te, "eta": eta, "alpha0": a0,
                         **{k: {"value": v.decimal(DPS), "method": v.method}
                            for k, v in m.values().items()}})
    return rows


def _bounds(cases):
    from .theory.bounds import bounds
    rows = []
    for st, te, r, c, g in cases:
        b = bounds(st, te, r, c, g, dps=DPS)
        rows.append({"student": st, "teacher": te, "r": r, "c": c, "gamma": g,
                     **{k: _s(v) for k, v in b.mp_values.items()}})
    return rows


def _fixed_point(cases):
    from .theory.fixed_point import solve
    rows = []
    for st, te, a0, eta, lam, alpha in cases:
        res = solve(st, te, a0, eta, lam, alpha, dps=DPS)
        rows.append({"student": st, "teacher": te, "alpha0": a0, "eta": eta, "lam": lam,
                     "alpha": alpha, "beta": "1", "spectrum": "mp",
                     "kappa_nodes": res.nodes,
                     # the change between two node counts is rounding-level noise: store
                     # its order of magnitude as a bound, which is reproducible
                     "kappa_node_error": _bound(res.node_error),
                     "notes": res.notes,
                     "test_error": _s(res.mp_test_error),
                     **{k: _s(v) for k, v in res.state._asdict().items()}})
    return rows


def compute(quick: bool = False, step=None) -> dict:
    """All reference tables (or the :data:`QUICK` subset) as JSON-ready dicts.  ``step``, if
    given, is a context manager factory ``step(text)`` wrapped around each table (progress)."""
    import contextlib

    from .core.version import __version__
    g = GRID
    sel = (lambda key, items: [items[i] for i in QUICK[key]]) if quick else (lambda k, x: x)
    jobs = {
        "constants": lambda: _constants(QUICK["constants"] if quick
                                        else g["constants"]["activations"]),
        "cget": lambda: _cget(QUICK["cget"] if quick else g["cget"]["activations"],
                              g["cget"]["points"]),
        "mapping": lambda: _mapping(sel("mapping", g["mapping"]["cases"])),
        "bounds": lambda: _bounds(sel("bounds", g["bounds"]["cases"])),
        "fixed_point": lambda: _fixed_point(sel("fixed_point", g["fixed_point"]["cases"])),
    }
    tables = {}
    for i, (name, job) in enumerate(jobs.items(), 1):
        with (step(f"table {i}/{len(jobs)}: {name} at {DPS} digits") if step
              else contextlib.nullcontext()):
            tables[name] = job()
    return {name: {"srfsym_version": __version__, "dps": DPS, "settings": g[name],
                   "values": table} for name, table in tables.items()}


def _dump(obj) -> str:
    return json.dumps(obj, indent=1, sort_keys=True) + "\n"


def regenerate(out_dir, quick: bool = False, step=None) -> list:
    """Write ``<out_dir>/<name>.json`` for every table (each file complete or untouched:
    written under a temporary name and renamed); returns the paths written."""
    from .core.files import atomic_write
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, content in compute(quick, step).items():
        p = out_dir / f"{name}.json"
        atomic_write(p, lambda tmp, text=_dump(content): Path(tmp).write_text(text))
        paths.append(p)
    return paths


def load(ref_dir, name) -> dict:
    """Read one committed reference table."""
    return json.loads((Path(ref_dir) / f"{name}.json").read_text())
