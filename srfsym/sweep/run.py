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
an existing file is only ever appended to.

>>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
...                               "eta": 3, "lam": [0.01, 0.1], "alpha": [1, 2]}})
>>> [len(t["alpha"]) * len(t["lam"]) for t in theory_tasks(spec)]
[4]
"""
from __future__ import annotations

import csv
import hashlib
import io
import itertools
import json
import math
import os
import sys
import textwrap
import time
from dataclasses import dataclass

__all__ = ["SweepError", "COLUMNS", "parse_spec", "load_spec", "grid_id", "theory_tasks",
           "simulation_tasks", "check_simulation_tasks", "run_task", "run_sweep",
           "read_results", "keys_help"]


class SweepError(ValueError):
    """A sweep description, an output file or a scheduler that cannot be used."""


# ======================================================================================
# the sweep description

_NUMBER = "number"
_VOCABULARY = "vocabulary"
#: per table: key -> (type, default); a default of ``...`` means the key is required
_THEORY_KEYS = {"student": (str, ...), "teacher": (str, ...), "alpha0": (_NUMBER, ...),
                "eta": (_NUMBER, ...), "lam": (_NUMBER, ...), "alpha": (_NUMBER, ...),
                "beta": (_NUMBER, 1.0), "vocabulary": (_VOCABULARY, "1.0"),
                "spectrum": (str, "mp"), "d": (int, None), "seed": (int, 0)}
_SIMULATION_KEYS = {"student": (str, ...), "teacher": (str, ...), "alpha0": (_NUMBER, ...),
                    "eta": (_NUMBER, ...), "lam": (_NUMBER, ...), "alpha": (_NUMBER, ...),
                    "d": (int, ...), "beta": (_NUMBER, 1.0), "vocabulary": (_VOCABULARY, "1.0"),
                    "seeds": (int, 3),
                    "seed": (int, 0), "model": (str, "network"), "n_test": (int, 5000),
                    "shared_first_layer": (bool, False)}
_TABLES = {"theory": _THEORY_KEYS, "simulation": _SIMULATION_KEYS}
_CHOICES = {"spectrum": ("mp", "sample"), "model": ("network", "srf")}

#: the columns of the results table, in order: the leading columns are those of every srfsym
#: table (``srfsym.cli.common.INPUT_COLUMNS + SRF_COLUMNS``: ``source``, the inputs, r, c, gamma)
COLUMNS = ("source", "student", "teacher", "alpha0", "eta", "lam", "alpha", "beta", "r", "c",
           "gamma", "vocabulary", "spectrum", "d", "model", "n_test", "shared_first_layer", "seed",
           "test_error", "train_error", "residual", "method", "seconds", "note", "grid_id")
#: the columns that identify a row (a point, and a seed for simulations; r, c, gamma are
#: computed from them)
KEY_COLUMNS = tuple(c for c in COLUMNS[:COLUMNS.index("test_error")] if c not in ("r", "c",
                                                                                  "gamma"))


def keys_help() -> str:
    """The keys of each table, their types and defaults (for ``srfsym sweep --help``).

    >>> print(keys_help().splitlines()[0])
    [theory]      student (string), teacher (string), alpha0 (number), eta (number), lam
    """
    lines = []
    for table, keys in _TABLES.items():
        parts = []
        for key, (kind, default) in keys.items():
            what = (" or ".join(map(repr, _CHOICES[key])) if key in _CHOICES else
                    {_NUMBER: "number", int: "integer", str: "string", bool: "true/false",
                     _VOCABULARY: "readout letters [1, 2], or {letters = [1, 3], weights = "
                                  "[0.7, 0.3]}; a list of these sweeps them"}[kind])
            if default is None:
                what += ", optional"
            elif default is not ...:
                what += f", default {_fmt(default)}"
            parts.append(f"{key} ({what})")
        lines += textwrap.wrap(", ".join(parts), 88, initial_indent=f"[{table}]".ljust(14),
                               subsequent_indent=" " * 14)
    return "\n".join(lines)


def _type_ok(kind, v):
    if kind is _NUMBER:
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    if kind is int:
        return isinstance(v, int) and not isinstance(v, bool)
    return isinstance(v, kind)


def _vocabularies(table, v) -> list:
    """The readout vocabularies of a ``vocabulary`` entry as canonical text (``"1,2"`` or
    ``"1,3;0.7,0.3"``): one list of letters, an inline table with ``letters`` and
    ``weights``, or a list of those (swept).

    >>> _vocabularies("theory", [1, 2]), _vocabularies("theory", [[1], {"letters": [1, 3],
    ...                                                   "weights": [0.7, 0.3]}])
    (['1.0,2.0'], ['1.0', '1.0,3.0;0.7,0.3'])
    """
    from ..step.vocabulary import vocabulary
    where = f"[{table}] vocabulary"
    if isinstance(v, (dict, str)) or (isinstance(v, list) and v and all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in v)):
        items = [v]
    elif isinstance(v, list):
        items = v
    else:
        raise SweepError(f"{where} must be a list of letters, a table {{letters, weights}} or a "
                         f"list of these, got {v!r}")
    if not items:
        raise SweepError(f"{where} is an empty list: give at least one vocabulary")
    out = []
    for item in items:
        if isinstance(item, str) and item == "1":
            item = [1]
        if isinstance(item, dict):
            extra = set(item) - {"letters", "weights"}
            if extra or "letters" not in item:
                raise SweepError(f"{where}: a table needs 'letters' (and may have 'weights'), "
                                 f"got {item!r}")
            letters, weights = item["letters"], item.get("weights")
        else:
            letters, weights = item, None
        if not isinstance(letters, list) or any(isinstance(x, bool) or not isinstance(
                x, (int, float)) for x in letters) or (weights is not None and (
                not isinstance(weights, list) or any(isinstance(x, bool) or not isinstance(
                    x, (int, float)) for x in weights))):
            raise SweepError(f"{where}: letters and weights must be lists of numbers, "
                             f"got {item!r}")
        try:
            voc = vocabulary(letters, weights)
        except ValueError as exc:
            raise SweepError(f"{where}: {exc}") from None
        text = ",".join(repr(w) for w in voc.letters)
        if weights is not None:
            text += ";" + ",".join(repr(w) for w in voc.weights)
        out.append(text)
    return out


def vocabulary_of(text):
    """The :class:`~srfsym.step.vocabulary.Vocabulary` of a canonical ``vocabulary`` column
    (``None`` for the uniform readout)."""
    from ..step.vocabulary import vocabulary
    letters, _, weights = str(text).partition(";")
    voc = vocabulary([float(w) for w in letters.split(",")],
                     [float(p) for p in weights.split(",")] if weights else None)
    return None if voc.is_uniform else voc


def _type_name(kind):
    return {_NUMBER: "a number", int: "an integer", str: "a string", bool: "true or false"}[kind]


def _check_value(table, key, v):
    """Range checks with the library's wording (raised before any work starts)."""
    where = f"[{table}] {key}"
    if key in ("alpha0", "eta", "lam", "alpha", "beta") and not math.isfinite(float(v)):
        raise SweepError(f"{where} must be finite, got {v}")
    if key in ("alpha", "beta") and v <= 0:
        raise SweepError(f"{where} must be > 0, got {v}")
    if key in ("lam", "alpha0") and v < 0:
        raise SweepError(f"{where} must be >= 0, got {v}")
    if key == "d" and v < 2:
        raise SweepError(f"{where} must be an integer >= 2, got {v}")
    if key in ("seeds", "n_test") and v < 1:
        raise SweepError(f"{where} must be a positive integer, got {v}")
    if key == "seed" and v < 0:
        raise SweepError(f"{where} must be >= 0, got {v}")
    if key in _CHOICES and v not in _CHOICES[key]:
        raise SweepError(f"{where} must be one of {', '.join(map(repr, _CHOICES[key]))}, "
                         f"got {v!r}")
    if key in ("student", "teacher"):
        from ..symbolic.activations import activation
        try:
            activation(v)
        except ValueError as exc:
            raise SweepError(f"{where}: {exc}") from None


def parse_spec(raw: dict) -> dict:
    """Validate a sweep description (the parsed TOML) and return ``{table: {key: [values]}}``
    with defaults filled in and every value a non-empty list.

    >>> parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
    ...                        "lam": 0.1, "alpha": [1, 2], "gamma": 1}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.sweep.run.SweepError: [theory] unknown key 'gamma'; allowed: student, teacher, ..., seed
    """
    if not isinstance(raw, dict):
        raise SweepError("a sweep description is a table with [theory] and/or [simulation]")
    unknown = [k for k in raw if k not in _TABLES]
    if unknown:
        raise SweepError(f"unknown table {unknown[0]!r}: a sweep has [theory] and/or "
                         "[simulation] tables")
    if not raw:
        raise SweepError("the sweep description has neither a [theory] nor a [simulation] table")
    spec = {}
    for table, allowed in _TABLES.items():
        if table not in raw:
            continue
        body = raw[table]
        if not isinstance(body, dict):
            raise SweepError(f"[{table}] must be a table of parameters")
        for key in body:
            if key not in allowed:
                raise SweepError(f"[{table}] unknown key {key!r}; allowed: {', '.join(allowed)}")
        out = {}
        for key, (kind, default) in allowed.items():
            if key not in body:
                if default is ...:
                    raise SweepError(f"[{table}] needs {key!r}")
                out[key] = [default]
                continue
            v = body[key]
            if kind is _VOCABULARY:
                values = _vocabularies(table, v)
                if len(set(values)) != len(values):
                    raise SweepError(f"[{table}] vocabulary lists a vocabulary twice: {v!r}")
                out[key] = values
                continue
            values = v if isinstance(v, list) else [v]
            if not values:
                raise SweepError(f"[{table}] {key} is an empty list: give at least one value")
            for x in values:
                if not _type_ok(kind, x):
                    raise SweepError(f"[{table}] {key} must be {_type_name(kind)} or a list of "
                                     f"them, got {x!r}")
                _check_value(table, key, x)
            if len(set(map(repr, values))) != len(values):
                raise SweepError(f"[{table}] {key} lists a value twice: {v!r}")
            out[key] = [float(x) if kind is _NUMBER else x for x in values]
        if table == "theory" and "sample" in out["spectrum"] and out["d"] == [None]:
            raise SweepError("[theory] spectrum = 'sample' needs d")
        spec[table] = out
    return spec


def load_spec(path) -> dict:
    """Read and validate a sweep TOML file (:func:`parse_spec`)."""
    try:
        import tomllib
    except ModuleNotFoundError:            # Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as exc:
        raise SweepError(f"{path} is not valid TOML: {exc}") from None
    except OSError as exc:
        raise SweepError(f"cannot read {path}: {exc.strerror or exc}") from None
    return parse_spec(raw)


def grid_id(spec: dict) -> str:
    """A short hash of the expanded parameter tables: equal for equal grids.

    >>> s = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...                            "eta": 3, "lam": 0.1, "alpha": 1}})
    >>> grid_id(s) == grid_id(parse_spec({"theory": {"student": "tanh", "teacher": "sin",
    ...     "alpha0": 20.0, "eta": [3], "lam": 0.1, "alpha": [1.0], "beta": 1}}))
    True
    """
    text = json.dumps(spec, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


# ======================================================================================
# tasks

def _product(table: dict, keys):
    for values in itertools.product(*(table[k] for k in keys)):
        yield dict(zip(keys, values))


def theory_tasks(spec: dict) -> list:
    """One task per combination of the theory parameters other than ``alpha`` and ``lam``."""
    if "theory" not in spec:
        return []
    t = spec["theory"]
    outer = [k for k in t if k not in ("alpha", "lam")]
    tasks, seen = [], set()
    for combo in _product(t, outer):
        if combo["spectrum"] == "mp":     # d and seed do not enter the deterministic limit
            combo.update(d=None, seed=None)
        task = {"source": "theory", **combo, "alpha": list(t["alpha"]), "lam": list(t["lam"])}
        key = json.dumps(task, sort_keys=True)
        if key not in seen:
            seen.add(key)
            tasks.append(task)
    return tasks


def simulation_tasks(spec: dict) -> list:
    """One task per simulation point (all ``alpha``) and seed; with ``shared_first_layer``,
    one task per point and root seed (its readouts share the first layer).  A list of
    ``seeds`` counts acts as its largest."""
    if "simulation" not in spec:
        return []
    s = spec["simulation"]
    outer = [k for k in s if k not in ("alpha", "seeds", "seed")]
    n = max(s["seeds"])
    tasks, seen = [], set()
    for combo in _product(s, outer):
        if combo["shared_first_layer"]:
            runs = [(root, n) for root in s["seed"]]
        else:
            runs = [(seed, 1) for seed in sorted({root + i for root in s["seed"]
                                                  for i in range(n)})]
        for seed, seeds in runs:
            task = {"source": "simulation", **combo, "seed": seed, "seeds": seeds,
                    "alpha": list(s["alpha"])}
            key = json.dumps(task, sort_keys=True)
            if key not in seen:
                seen.add(key)
                tasks.append(task)
    return tasks


def check_simulation_tasks(tasks, max_memory_gb=8.0):
    """Refuse, before any work, simulation tasks that :func:`srfsym.simulation.simulate` would refuse
    for their size: fewer than one readout or step sample, or more memory than
    ``max_memory_gb`` (its default) per task.

    >>> spec = parse_spec({"simulation": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...     "eta": 3, "lam": 0.1, "alpha": 1.0, "d": 100000, "seeds": 1}})
    >>> check_simulation_tasks(simulation_tasks(spec))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.sweep.run.SweepError: [simulation] d = 100000, ... would need about ... GB, more than 8 GB
    """
    from ..simulation.simulate import estimate_memory_gb
    for t in tasks:
        if t["source"] != "simulation":
            continue
        where = f"[simulation] d = {t['d']}, alpha0 = {t['alpha0']!r}"
        if math.floor(min(t["alpha"]) * t["d"]) < 1:
            raise SweepError(f"{where}: alpha = {min(t['alpha'])!r} gives no readout sample "
                             "(n = floor(alpha d) must be >= 1)")
        if t["alpha0"] > 0 and math.floor(t["alpha0"] * t["d"]) < 1:
            raise SweepError(f"{where}: no step sample (n0 = floor(alpha0 d) must be >= 1)")
        gb = estimate_memory_gb(t["model"], t["alpha0"], t["alpha"], t["d"], t["beta"],
                                t["n_test"], t["lam"], 1)
        if gb > max_memory_gb:
            raise SweepError(f"{where}, alphas up to {max(t['alpha'])!r}: the simulation would "
                             f"need about {gb:.0f} GB, more than {max_memory_gb:g} GB")


def _seed_labels(task):
    """The ``seed`` column of a simulation task's rows: the seed, or ``root:i`` for the i-th
    readout of a first layer shared from seed ``root``."""
    if task["shared_first_layer"]:
        return [f"{task['seed']}:{i}" for i in range(task["seeds"])]
    return [str(task["seed"])]


def _fmt(v):
    """Canonical text of a parameter in the CSV (floats with repr: they read back exactly)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)


def _row(task, **values):
    row = {c: "" for c in COLUMNS}
    for k in KEY_COLUMNS:
        if k in task and k not in ("alpha", "lam"):
            row[k] = _fmt(task[k])
    for k, v in values.items():
        row[k] = _fmt(v)
    return row


def task_keys(task) -> list:
    """The row keys (values of ``KEY_COLUMNS``) a task produces."""
    if task["source"] == "theory":
        pairs = [(a, lam) for a in task["alpha"] for lam in task["lam"]]
        rows = [_row(task, alpha=a, lam=lam) for a, lam in pairs]
    else:
        rows = [_row(task, alpha=a, lam=task["lam"], seed=label)
                for label in _seed_labels(task) for a in task["alpha"]]
    return [tuple(r[k] for k in KEY_COLUMNS) for r in rows]


def _theory_rows(task):
    import warnings

    from ..theory.grid import solve_grid
    t0 = time.perf_counter()
    voc = vocabulary_of(task.get("vocabulary", "1.0"))
    if voc is not None:
        return _theory_rows_vocabulary(task, voc, t0)
    sample = {} if task["spectrum"] == "mp" else {"d": task["d"], "seed": task["seed"]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # what they say is in the notes below
        g = solve_grid(task["student"], task["teacher"], task["alpha0"], task["eta"],
                       task["alpha"], task["lam"], beta=task["beta"],
                       spectrum=task["spectrum"], **sample)
    each = (time.perf_counter() - t0) / g.converged.size
    # caveats (the mapping's notes, e.g. a non-odd activation) go into every row's note,
    # a failure into its own row's
    caveats = list(dict.fromkeys(g.notes))
    failed = {(f["alpha"], f["lam"]): f["message"] for f in g.failures}
    where = "" if task["spectrum"] == "mp" else ", sampled spectrum"
    rows = []
    for i, a in enumerate(task["alpha"]):
        for j, lam in enumerate(task["lam"]):
            how = g.method[i, j]
            rows.append(_row(task, alpha=a, lam=lam, r=g.r, c=g.c, gamma=g.gamma,
                             test_error=float(g.test_error[i, j]),
                             train_error=float(g.train_error[i, j]),
                             residual=float(g.residual[i, j]),
                             method=how if how == "failed" else
                             f"{how} ({g.nodes} kappa nodes{where})", seconds=each,
                             note="; ".join(([failed[a, lam]] if (a, lam) in failed else [])
                                            + caveats)))
    return rows


def _theory_rows_vocabulary(task, voc, t0):
    """Theory rows with a readout vocabulary: the per-letter fixed point point by point
    (:func:`srfsym.solve` with ``vocabulary=``; the batched grid solve is uniform only)."""
    import warnings

    from ..theory.fixed_point import ConvergenceError, solve
    if task["spectrum"] != "mp":
        raise SweepError("[theory] a readout vocabulary needs spectrum = 'mp'")
    rows = []
    for a in task["alpha"]:
        for lam in task["lam"]:
            t1 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = solve(task["student"], task["teacher"], task["alpha0"], task["eta"],
                                lam, a, beta=task["beta"], vocabulary=voc)
                rows.append(_row(task, alpha=a, lam=lam, r=res.r, c=res.c, gamma=res.gamma,
                                 test_error=res.test_error,
                                 train_error=res.train_error, residual=res.residual,
                                 method=f"{res.method} ({res.nodes} kappa nodes)",
                                 seconds=time.perf_counter() - t1,
                                 note="; ".join(dict.fromkeys(res.notes))))
            except (ConvergenceError, ArithmeticError, ValueError) as exc:
                rows.append(_row(task, alpha=a, lam=lam, test_error=float("nan"),
                                 train_error=float("nan"),
                                 residual=getattr(exc, "residual", float("nan")),
                                 method="failed", seconds=time.perf_counter() - t1,
                                 note=str(exc)))
    return rows


def _simulation_rows(task):
    from ..simulation.simulate import simulate
    t0 = time.perf_counter()
    res = simulate(task["student"], task["teacher"], task["alpha0"], task["eta"], task["lam"],
                   task["alpha"], d=task["d"], beta=task["beta"], seeds=task["seeds"],
                   seed=task["seed"], n_test=task["n_test"], model=task["model"], workers=1,
                   progress=False, shared_first_layer=task["shared_first_layer"],
                   vocabulary=vocabulary_of(task.get("vocabulary", "1.0")))
    each = (time.perf_counter() - t0) / (len(task["alpha"]) * task["seeds"])
    method = f"simulation ({task['model']}, p = {res.p}" + (
        ", one first layer per root seed)" if task["shared_first_layer"] else ")")
    if res.r is None:
        from ..step.mapping import srf_mapping
        m = srf_mapping(task["student"], task["teacher"], task["eta"], task["alpha0"])
        res.r, res.c, res.gamma = m.r, m.c, m.gamma
    return [_row(task, alpha=a, lam=task["lam"], seed=label, r=res.r, c=res.c, gamma=res.gamma,
                 test_error=float(res.test_error_per_seed[i, j]),
                 train_error=float(res.train_error_per_seed[i, j]), method=method, seconds=each)
            for i, label in enumerate(_seed_labels(task)) for j, a in enumerate(task["alpha"])]


def run_task(task: dict) -> list:
    """Compute one task; returns its rows (dicts of CSV text).  Runs in worker processes
    (local pool or Dask): it takes and returns plain data only."""
    return _theory_rows(task) if task["source"] == "theory" else _simulation_rows(task)


# ======================================================================================
# the results file

def read_results(path) -> list:
    """The rows of a results CSV (dicts of text); a row cut short by an interrupted write is
    skipped."""
    with open(path, newline="") as fh:
        reader = csv.DictReader(fh)
        if reader.fieldnames is None:
            return []
        if reader.fieldnames and reader.fieldnames[0] == "kind":
            raise SweepError(f"{path} was written by an earlier srfsym (column 'kind', now "
                             "'source', with r, c, gamma added): use a new --out")
        if tuple(reader.fieldnames) != COLUMNS:
            raise SweepError(f"{path} is not an srfsym sweep table (its columns are "
                             f"{', '.join(reader.fieldnames[:6])}...)")
        return [r for r in reader if None not in r and None not in r.values()]


def _open_results(path, gid):
    """Check ``path`` (refusing a different grid), make sure it ends with a newline, and
    return the keys already computed.  Never truncates."""
    done = set()
    if os.path.isdir(path):
        raise SweepError(f"--out {path} is a directory")
    exists = os.path.exists(path) and os.path.getsize(path) > 0
    if exists:
        try:
            rows = read_results(path)
        except UnicodeDecodeError:
            raise SweepError(f"{path} is not an srfsym sweep table") from None
        other = {r["grid_id"] for r in rows} - {gid}
        if other:
            raise SweepError(f"{path} holds results of a different grid (grid id "
                             f"{sorted(other)[0]}, this sweep {gid}); use another --out or "
                             "the sweep file that produced it")
        done = {tuple(r[k] for k in KEY_COLUMNS) for r in rows}
    fh = open(path, "a", newline="")        # OSError (unwritable) reaches the caller
    if exists:
        with open(path, "rb") as check:
            check.seek(-1, os.SEEK_END)
            if check.read(1) != b"\n":
                fh.write("\n")              # the cut row stays, unread; new rows start clean
    else:
        fh.write(",".join(COLUMNS) + "\n")
    fh.flush()
    return fh, done


def _append(fh, rows, gid):
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, lineterminator="\n")
    for r in rows:
        w.writerow({**r, "grid_id": gid})
    fh.write(buf.getvalue())                # one write per task
    fh.flush()
    os.fsync(fh.fileno())


# ======================================================================================
# running

@dataclass
class SweepSummary:
    """What a sweep did: points in the grid, skipped (already in the file), computed,
    failed (NaN rows, with the reason in their ``note``), and the wall time."""

    out: str
    grid_id: str
    points: int
    skipped: int
    computed: int
    failed: int
    seconds: float
    where: str

    def __str__(self):
        return (f"{self.points} rows in the sweep: {self.skipped} already in {self.out}, "
                f"{self.computed} computed ({self.failed} not converged: see their note) in "
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


def _start(pending, workers, client):
    """Start the tasks; return an iterator over each task's rows as it finishes and a
    function that stops what is left (in-process, local pool or Dask)."""
    if not pending:
        return iter(()), lambda: None
    if client is not None:
        from distributed import as_completed
        futures = [client.submit(run_task, t, pure=False) for t in pending]
        return ((f.result() for f in as_completed(futures, loop=client.loop)),
                lambda: client.cancel(futures))
    if workers == 1 or len(pending) == 1:
        return (run_task(t) for t in pending), lambda: None
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor, as_completed
    # fork (workers inherit what this process derived already) only from a single-threaded
    # process; otherwise a fresh forkserver (a fork could copy a lock held by another thread)
    methods = multiprocessing.get_all_start_methods()
    method = ("fork" if "fork" in methods and threading.active_count() == 1 else
              "forkserver" if "forkserver" in methods else None)
    pool = ProcessPoolExecutor(max_workers=min(workers, len(pending)),
                               mp_context=multiprocessing.get_context(method))
    futures = [pool.submit(run_task, t) for t in pending]    # the workers start here

    def stop():
        pool.shutdown(wait=True, cancel_futures=True)
    return (f.result() for f in as_completed(futures)), stop


def run_sweep(spec: dict, out, *, workers=None, scheduler=None, progress=True,
              timeout=10) -> SweepSummary:
    """Run the sweep ``spec`` (from :func:`parse_spec` / :func:`load_spec`), appending to the
    CSV ``out``; tasks whose rows are all in ``out`` already are skipped.

    ``workers``: processes of the local pool (default: the cores available; 1 runs in this
    process).  ``scheduler``: address of a Dask scheduler (``tcp://host:port``) to run on
    instead; ``timeout`` seconds to reach it.

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
    gid = grid_id(spec)
    tasks = theory_tasks(spec) + simulation_tasks(spec)
    check_simulation_tasks(tasks)
    keys = [task_keys(t) for t in tasks]
    total = sum(len(k) for k in keys)
    client = _dask_client(scheduler, timeout) if scheduler is not None else None
    try:
        fh, done = _open_results(out, gid)
    except BaseException:
        if client is not None:
            client.close()
        raise
    try:
        pending = [t for t, k in zip(tasks, keys) if not set(k) <= done]
        skipped = sum(key in done for k in keys for key in k)
        where = (f"Dask scheduler {scheduler}" if scheduler else
                 f"{min(workers, max(1, len(pending)))} local process(es)")
        results, stop = _start(pending, workers, client)   # before the progress bar's thread
        bar = None
        if progress:
            from tqdm.auto import tqdm
            bar = tqdm(total=total, initial=skipped, unit="pt", desc="sweep", file=sys.stderr,
                       dynamic_ncols=True)
        computed = failed = 0
        try:
            for rows in results:
                rows = [r for r in rows if tuple(r[k] for k in KEY_COLUMNS) not in done]
                _append(fh, rows, gid)
                done |= {tuple(r[k] for k in KEY_COLUMNS) for r in rows}
                computed += len(rows)
                failed += sum(r["method"] == "failed" or r["test_error"] == "nan" for r in rows)
                if bar is not None:
                    bar.update(len(rows))
        finally:
            stop()
            if bar is not None:
                bar.close()
    finally:
        fh.close()
        if client is not None:
            client.close()
    return SweepSummary(str(out), gid, total, skipped, computed, failed,
                        time.perf_counter() - t0, where)
