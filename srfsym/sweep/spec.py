"""The sweep description: the keys of the ``[theory]`` and ``[simulation]`` tables of a sweep
TOML, their validation (:func:`parse_spec`, :func:`load_spec`) and the grid's identity
(:func:`grid_id`).

>>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
...                               "eta": 3, "lam": [0.01, 0.1], "alpha": [1, 2]}})
>>> spec["theory"]["lam"], spec["theory"]["beta"]
([0.01, 0.1], [1.0])
"""
from __future__ import annotations

import hashlib
import json
import math
import textwrap

__all__ = ["SweepError", "parse_spec", "load_spec", "grid_id", "keys_help", "vocabulary_of",
           "uses_label_rule", "uses_steps"]


class SweepError(ValueError):
    """A sweep description, an output file or a scheduler that cannot be used."""



_NUMBER = "number"
_VOCABULARY = "vocabulary"
#: per table: key -> (type, default); a default of ``...`` means the key is required
_THEORY_KEYS = {"student": (str, ...), "teacher": (str, ...), "alpha0": (_NUMBER, ...),
                "eta": (_NUMBER, ...), "lam": (_NUMBER, ...), "alpha": (_NUMBER, ...),
                "beta": (_NUMBER, 1.0), "vocabulary": (_VOCABULARY, "1.0"),
                "spectrum": (str, "mp"), "d": (int, None), "seed": (int, 0),
                "loss": (str, "square"), "noise": (_NUMBER, 0.0), "bias": (bool, False),
                "label_rule": (str, "teacher"), "bulk": (str, "isotropic"),
                "dps": (int, None), "steps": (int, 1)}
#: readout keys left out of ``grid_id`` (and of the tasks) at their default: older sweeps keep
#: their id, their tasks and their columns (same defaults in both tables)
_LOSS_KEYS = ("loss", "noise", "bias", "label_rule")
#: theory keys left out of ``grid_id`` at their default (older sweeps keep their id)
_DEFAULT_FREE_KEYS = _LOSS_KEYS + ("bulk", "dps", "steps")
_SIMULATION_KEYS = {"student": (str, ...), "teacher": (str, ...), "alpha0": (_NUMBER, ...),
                    "eta": (_NUMBER, ...), "lam": (_NUMBER, ...), "alpha": (_NUMBER, ...),
                    "d": (int, ...), "beta": (_NUMBER, 1.0), "vocabulary": (_VOCABULARY, "1.0"),
                    "seeds": (int, 3),
                    "seed": (int, 0), "model": (str, "network"), "n_test": (int, 5000),
                    "shared_first_layer": (bool, False),
                    "loss": (str, "square"), "noise": (_NUMBER, 0.0), "bias": (bool, False),
                    "label_rule": (str, "teacher"), "steps": (int, 1)}
_TABLES = {"theory": _THEORY_KEYS, "simulation": _SIMULATION_KEYS}
_CHOICES = {"spectrum": ("mp", "sample"), "model": ("network", "srf"),
            "label_rule": ("teacher", "bernoulli"), "bulk": ("isotropic", "step", "exact")}


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


def _number(v):
    """A number given as a decimal string (``alpha0 = "20"``) read as the library reads it
    (:class:`~srfsym.theory.problem.Problem` takes decimal strings everywhere); anything else
    unchanged."""
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return v
    return v


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
    if key == "dps":
        from ..core.values import MAX_SOLVER_DPS, check_dps
        try:
            check_dps(v, MAX_SOLVER_DPS)
        except ValueError as exc:
            raise SweepError(f"{where}: {exc}") from None
    if key in ("seeds", "n_test", "steps") and v < 1:
        raise SweepError(f"{where} must be a positive integer, got {v}")
    if key == "seed" and v < 0:
        raise SweepError(f"{where} must be >= 0, got {v}")
    if key == "noise" and not (math.isfinite(float(v)) and v >= 0):
        raise SweepError(f"{where} is a variance: it must be a finite number >= 0, got {v}")
    if key == "loss":
        from ..theory.channels.losses import loss as make_loss
        try:
            make_loss(v)
        except ValueError as exc:
            raise SweepError(f"{where}: {exc}") from None
    if key in _CHOICES and v not in _CHOICES[key]:
        raise SweepError(f"{where} must be one of {', '.join(map(repr, _CHOICES[key]))}, "
                         f"got {v!r}")
    if key in ("student", "teacher"):
        from ..symbolic.activations import activation
        from ..symbolic.targets import teacher_object
        try:
            # a multi-index target in [theory] (docs/theory.md (n)); the sweep's simulations
            # are of single-index teachers
            (teacher_object if (key, table) == ("teacher", "theory") else activation)(v)
        except ValueError as exc:
            raise SweepError(f"{where}: {exc}") from None


def parse_spec(raw: dict) -> dict:
    """Validate a sweep description (the parsed TOML) and return ``{table: {key: [values]}}``
    with defaults filled in and every value a non-empty list.

    >>> parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
    ...                        "lam": 0.1, "alpha": [1, 2], "gamma": 1}})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.sweep.spec.SweepError: [theory] unknown key 'gamma'; allowed: student, teacher, ..., dps, steps
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
            if kind is _NUMBER:
                values = [_number(x) for x in values]
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
        if table == "theory" and out["bulk"] != ["isotropic"]:
            _check_bulk(out)
        if table == "theory":
            _check_d_used(out)
            if len(out["dps"]) > 1:
                raise SweepError("[theory] dps takes one value: the rows of a sweep have no "
                                 "precision column (run one sweep per precision)")
        spec[table] = out
    return spec


def _check_bulk(out):
    """``bulk = 'step'`` needs ``d`` (the realised first layer, docs/theory.md (g.4)); a bulk
    other than the isotropic one is its own spectrum (``spectrum = 'mp'``); it takes any loss,
    as the single solve does."""
    if "step" in out["bulk"] and out["d"] == [None]:
        raise SweepError("[theory] bulk = 'step' needs d (the dimension of the realised first "
                         "layer, docs/theory.md (g.4))")
    if out["spectrum"] != ["mp"]:
        raise SweepError("[theory] bulk = 'step' or 'exact' is its own spectral back end: leave "
                         "spectrum at 'mp'")


def _check_d_used(out):
    """``bulk = 'exact'`` (the d -> infinity law) with a ``d`` that no point uses (only
    ``spectrum = 'sample'`` and ``bulk = 'step'`` have a dimension) is refused rather than
    silently dropped, as ``srfsym error --bulk exact --d`` is.

    >>> parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20, "eta": 3,
    ...             "lam": 0.1, "alpha": 1, "bulk": "exact", "d": 500}})
    Traceback (most recent call last):
    ...
    srfsym.sweep.spec.SweepError: [theory] d = [500] is used by no point: bulk = 'exact' is the d -> infinity law and spectrum = 'mp' the deterministic limit; only spectrum = 'sample' or bulk = 'step' have a dimension (drop d, or add one of them)
    """
    if (out["d"] == [None] or "exact" not in out["bulk"] or "sample" in out["spectrum"]
            or "step" in out["bulk"]):
        return
    raise SweepError(f"[theory] d = {out['d']} is used by no point: bulk = 'exact' is the "
                     "d -> infinity law and spectrum = 'mp' the deterministic limit; only "
                     "spectrum = 'sample' or bulk = 'step' have a dimension (drop d, or add one "
                     "of them)")


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
    except UnicodeDecodeError as exc:
        raise SweepError(f"{path} is not a TOML text file (byte {exc.start} is not UTF-8 "
                         "text)") from None
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
    spec = {table: {k: v for k, v in body.items()
                    if not (k in _DEFAULT_FREE_KEYS and k in _TABLES[table]
                            and v == [_TABLES[table][k][1]])}
            for table, body in spec.items()}
    text = json.dumps(spec, sort_keys=True, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]



def uses_steps(spec: dict) -> bool:
    """Whether a table of ``spec`` takes more than one giant step somewhere: only such a sweep's
    table has the ``steps`` column (older sweeps keep their columns).

    >>> uses_steps(parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 2,
    ...     "eta": 1, "lam": 0.1, "alpha": 1, "steps": [1, 2]}}))
    True
    """
    return any(body.get("steps", [1]) != [1] for body in spec.values())


def uses_label_rule(spec: dict) -> bool:
    """Whether a table of ``spec`` sets ``label_rule`` to other than its default: only such a
    sweep's table has the ``label_rule`` column (older sweeps keep their columns).

    >>> uses_label_rule(parse_spec({"theory": {"student": "tanh", "teacher": "tanh",
    ...     "alpha0": 4, "eta": 2, "lam": 0.1, "alpha": 1, "loss": "logistic",
    ...     "label_rule": ["teacher", "bernoulli"]}}))
    True
    """
    return any(v != ["teacher"] for body in spec.values() for k, v in body.items()
               if k == "label_rule")


def _fmt(v):
    """Canonical text of a parameter in the CSV (floats with repr: they read back exactly)."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return repr(v)
    return str(v)

