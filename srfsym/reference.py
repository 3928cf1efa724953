"""Regenerable 30-digit reference values (``srfsym regen-reference``), and reference values
of a user's own cases (``srfsym reference CASES.toml``, :func:`compute_cases`).

A fixed grid of activations and parameters is evaluated at :data:`DPS` digits and written
to ``tests/reference/*.json`` with the srfsym version and the settings used; values are
decimal strings with their method (``exact``/``numeric``).  The output is deterministic,
so regenerating on a clean checkout reproduces the committed files bit for bit.

Key names: the values carry the names of every other output (the command line's rows, the
sweep table).  *Migration*: files written before srfsym 0.1.0's bounds table format 2 named
the bounds ``upper``, ``lower``, ``kernel``; they are now ``upper_bound``, ``lower_bound``,
``kernel_baseline`` (:data:`RENAMED`), and :func:`load` reads the old files under the new
names.

>>> sorted(GRID)
['bounds', 'cget', 'constants', 'fixed_point', 'mapping']
>>> RENAMED["upper"]
'upper_bound'
"""
from __future__ import annotations

import json
from pathlib import Path

import mpmath

__all__ = ["DPS", "GRID", "QUICK", "RENAMED", "CASE_KEYS", "compute", "regenerate", "load",
           "compute_cases", "load_cases", "parse_cases"]

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
    from .theory.bounds import OUTPUT_NAMES, bounds
    rows = []
    for st, te, r, c, g in cases:
        b = bounds(st, te, r, c, g, dps=DPS)
        rows.append({"student": st, "teacher": te, "r": r, "c": c, "gamma": g,
                     **{OUTPUT_NAMES.get(k, k): _s(v) for k, v in b.mp_values.items()}})
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


#: Keys renamed in the reference values (old name -> the name of every other output).
RENAMED = {"upper": "upper_bound", "lower": "lower_bound", "kernel": "kernel_baseline"}


def _renamed(row):
    return {RENAMED.get(k, k): v for k, v in row.items()} if isinstance(row, dict) else row


def load(ref_dir, name) -> dict:
    """Read one committed reference table (a file with the old key names of
    :data:`RENAMED` is read under the new ones)."""
    table = json.loads((Path(ref_dir) / f"{name}.json").read_text())
    if isinstance(table.get("values"), list):
        table["values"] = [_renamed(row) for row in table["values"]]
    return table


#: The tables of a cases file and the keys of each case (``srfsym reference``).
CASE_KEYS = {"constants": ("activation",),
             "cget": ("activation", "kappa", "r", "c"),
             "mapping": ("student", "teacher", "eta", "alpha0"),
             "bounds": ("student", "teacher", "r", "c", "gamma"),
             "fixed_point": ("student", "teacher", "alpha0", "eta", "lam", "alpha")}
_TEXT_KEYS = ("activation", "student", "teacher")


def _case(table, i, case):
    """One case of a cases file, checked: its keys, its numbers as decimal strings (a TOML
    float is taken at its shortest repr, ``0.1`` -> ``"0.1"``)."""
    keys = CASE_KEYS[table]
    where = f"[[{table}]] case {i + 1}"
    if not isinstance(case, dict):
        raise ValueError(f"{where}: a case is a table of {', '.join(keys)}, got {case!r}")
    missing = [k for k in keys if k not in case]
    unknown = sorted(set(case) - set(keys))
    if missing or unknown:
        raise ValueError(f"{where}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else [])
            + ([f"unknown key(s) {', '.join(unknown)}"] if unknown else []))
            + f" (the keys are {', '.join(keys)})")
    out = {}
    for k in keys:
        v = case[k]
        if k in _TEXT_KEYS:
            if not isinstance(v, str) or not v.strip():
                raise ValueError(f"{where}: {k} must be an activation name or expression, "
                                 f"got {v!r}")
            out[k] = v
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float, str)):
            raise ValueError(f"{where}: {k} must be a number (or a decimal string), got {v!r}")
        text = repr(v) if isinstance(v, float) else str(v).strip()
        try:
            if not mpmath.isfinite(mpmath.mpf(text)) and not (k == "alpha0"):
                raise ValueError
        except (ValueError, TypeError):
            raise ValueError(f"{where}: {k} = {v!r} is not a finite number") from None
        out[k] = text
    return out


def load_cases(path) -> dict:
    """Read a cases file (TOML, or JSON by the ``.json`` suffix): arrays of tables named as
    :data:`CASE_KEYS`, e.g. ``[[bounds]]`` with ``student``, ``teacher``, ``r``, ``c``,
    ``gamma``.  Returns the checked cases, the numbers as decimal strings."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"cannot read {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file") from None
    if path.suffix == ".json":
        try:
            raw = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path} is not valid JSON: {exc}") from None
    else:
        try:
            import tomllib
        except ModuleNotFoundError:        # Python 3.10
            import tomli as tomllib
        try:
            raw = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{path} is not valid TOML: {exc}") from None
    return parse_cases(raw)


def parse_cases(raw) -> dict:
    """The checked cases of a parsed cases file (see :func:`load_cases`).

    >>> parse_cases({"bounds": [{"student": "tanh", "teacher": "sin", "r": 1, "c": 1.2,
    ...                          "gamma": 1}]})["bounds"][0]["c"]
    '1.2'
    """
    if not isinstance(raw, dict) or not raw:
        raise ValueError("the cases file has no table: give one or more of "
                         + ", ".join(f"[[{t}]]" for t in CASE_KEYS))
    unknown = sorted(set(raw) - set(CASE_KEYS))
    if unknown:
        raise ValueError(f"unknown table(s) {', '.join(unknown)}: the tables are "
                         + ", ".join(CASE_KEYS))
    cases = {}
    for table, items in raw.items():
        items = items if isinstance(items, list) else [items]
        cases[table] = [_case(table, i, c) for i, c in enumerate(items)]
    return cases


def _user_case(table, case, dps):
    """The values of one case, each with how it was obtained."""
    if table == "constants":
        from .symbolic.hermite import hermite_constants
        return {k: v.to_dict(dps) for k, v in hermite_constants(case["activation"])
                .as_dict().items()}
    if table == "cget":
        from .symbolic.cget import cget_coefficients
        co = cget_coefficients(case["activation"])
        vals = co.mpmath(dps)(case["kappa"], case["r"], case["c"])
        how = ("closed form (checked against quadrature), evaluated at "
               f"{dps} digits" if co.method == "exact" else f"quadrature at {dps} digits")
        exact = getattr(vals, "exact", None) or {}      # fixed by the symmetry of sigma
        return {n: ({"value": _s(v, dps), "method": "exact", "how": exact[n]} if n in exact else
                    {"value": _s(v, dps), "method": co.method, "how": how})
                for n, v in zip(co.names, vals)}
    if table == "mapping":
        from .step.mapping import srf_mapping
        m = srf_mapping(case["student"], case["teacher"], case["eta"], case["alpha0"])
        return {k: v.to_dict(dps) for k, v in m.values().items()}
    if table == "bounds":
        from .theory.bounds import OUTPUT_NAMES, bounds
        b = bounds(case["student"], case["teacher"], case["r"], case["c"], case["gamma"],
                   dps=dps)
        how = (f"projections by kappa quadrature in mpmath at {dps} digits, {b.nodes} nodes "
               f"(node change {_bound(b.node_error)})")
        return {OUTPUT_NAMES.get(k, k): {"value": _s(v, dps), "method": "numeric",
                                         "how": how, "abs_error": _bound(b.node_error)}
                for k, v in b.mp_values.items()}
    from .theory.fixed_point import solve
    res = solve(case["student"], case["teacher"], case["alpha0"], case["eta"], case["lam"],
                case["alpha"], dps=dps)
    how = (f"fixed point in mpmath at {dps} digits, {res.nodes} kappa nodes (node change "
           f"{_bound(res.node_error)})")
    values = {"test_error": res.mp_test_error, **res.state._asdict()}
    return {k: {"value": _s(v, dps), "method": "numeric", "how": how,
                **({"abs_error": _bound(res.node_error)} if k == "test_error" else {})}
            for k, v in values.items()}


def compute_cases(cases: dict, dps: int = DPS, step=None) -> dict:
    """Reference values of a user's own cases (:func:`parse_cases`) at ``dps`` digits: per
    table, one entry per case with its inputs and its values, each a decimal string with
    its ``method`` (``exact``: a closed form checked against quadrature; ``numeric``) and
    how it was obtained (precision, nodes, the error bound where there is one).  ``step``:
    as in :func:`compute`.

    >>> out = compute_cases(parse_cases({"constants": [{"activation": "erf"}]}), dps=20)
    >>> v = out["values"]["constants"][0]["values"]["mu1"]
    >>> v["value"], v["method"]
    ('0.65147001587055989545', 'exact')
    """
    import contextlib
    import warnings

    from .core.values import check_dps
    from .core.version import __version__
    dps = check_dps(dps, 300)
    values = {}
    for table, items in cases.items():
        rows = []
        for i, case in enumerate(items):
            with (step(f"{table} {i + 1}/{len(items)} at {dps} digits") if step
                  else contextlib.nullcontext()), warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                rows.append({**case, "values": _user_case(table, case, dps),
                             "warnings": list(dict.fromkeys(str(x.message) for x in w))})
        values[table] = rows
    return {"schema": "srfsym-reference/2", "srfsym_version": __version__, "dps": dps,
            "renamed": dict(RENAMED), "values": values}
