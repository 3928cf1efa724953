"""The tasks of a sweep: theory tasks (one grid solve per combination of the parameters other
than alpha and lambda), simulation tasks (one seed of one point, or all the seeds of a point with
a shared first layer), the row keys they produce and :func:`run_task`, which computes one.

>>> from srfsym.sweep.spec import parse_spec
>>> spec = parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
...                               "eta": 3, "lam": [0.01, 0.1], "alpha": [1, 2]}})
>>> [len(t["alpha"]) * len(t["lam"]) for t in theory_tasks(spec)]
[4]
"""
from __future__ import annotations

import functools
import itertools
import json
import math
import time

from .results import COLUMNS, KEY_COLUMNS, row_key
from .spec import _LOSS_KEYS, _THEORY_KEYS, SweepError, _fmt, vocabulary_of

__all__ = ["theory_tasks", "simulation_tasks", "check_simulation_tasks", "task_keys", "run_task",
           "count_rows", "check_size", "MAX_ROWS"]


def _product(table: dict, keys):
    for values in itertools.product(*(table[k] for k in keys)):
        yield dict(zip(keys, values))


#: Most rows one sweep computes: beyond it the task list and the rows alone take gigabytes
#: (about 2 kB per row in memory) before the first point is solved.
MAX_ROWS = 1_000_000


def count_rows(spec: dict) -> int:
    """Rows of the sweep ``spec``, counted from the list lengths (nothing is expanded).

    >>> from srfsym.sweep.spec import parse_spec
    >>> count_rows(parse_spec({"simulation": {"student": "tanh", "teacher": "sin",
    ...     "alpha0": 20, "eta": 3, "lam": 0.1, "alpha": [1, 2], "d": 40, "seeds": 5}}))
    10
    """
    n = 0
    t = spec.get("theory")
    if t is not None:
        for spectrum in t["spectrum"]:
            for bulk in t.get("bulk", ["isotropic"]):
                finite = spectrum != "mp" or bulk == "step"      # d and seed enter
                skip = {"spectrum", "bulk"} | (set() if finite else {"d", "seed"})
                n += math.prod(len(v) for k, v in t.items() if k not in skip)
    s = spec.get("simulation")
    if s is not None:
        outer = math.prod(len(v) for k, v in s.items() if k not in ("seeds", "seed"))
        n += outer * len(s["seed"]) * max(s["seeds"])
    return n


def check_size(spec: dict, max_rows=MAX_ROWS):
    """Refuse a sweep of more than ``max_rows`` rows before expanding it.

    >>> from srfsym.sweep.spec import parse_spec
    >>> check_size(parse_spec({"theory": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...     "eta": 3, "lam": [0.1, 1.0], "alpha": list(range(1, 1001))}}), max_rows=1000)
    Traceback (most recent call last):
    ...
    srfsym.sweep.spec.SweepError: the sweep has 2,000 rows, more than the 1,000 one sweep computes (the tasks and rows alone would take about 0.004 GB of memory): split it into several sweep files
    """
    n = count_rows(spec)
    if n > max_rows:
        raise SweepError(f"the sweep has {n:,} rows, more than the {max_rows:,} one sweep "
                         f"computes (the tasks and rows alone would take about "
                         f"{n * 2e-6:.3g} GB of memory): split it into several sweep files")


def theory_tasks(spec: dict) -> list:
    """One task per combination of the theory parameters other than ``alpha`` and ``lam``."""
    if "theory" not in spec:
        return []
    t = spec["theory"]
    outer = [k for k in t if k not in ("alpha", "lam")]
    tasks, seen = [], set()
    for combo in _product(t, outer):
        if combo["spectrum"] == "mp" and combo.get("bulk", "isotropic") != "step":
            combo.update(d=None, seed=None)   # d and seed do not enter the deterministic limit
        for k in ("label_rule", "steps"):   # the tasks (and failure notes) of earlier sweeps
            if combo.get(k) == _THEORY_KEYS[k][1]:
                combo.pop(k)
        if combo.get("dps", 0) is None:
            combo.pop("dps")
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
        for k in _LOSS_KEYS + ("steps",):  # the one-step ridge's tasks (and rows) as before
            if combo.get(k) == _THEORY_KEYS[k][1]:
                combo.pop(k)
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

    >>> from srfsym.sweep.spec import parse_spec
    >>> spec = parse_spec({"simulation": {"student": "tanh", "teacher": "sin", "alpha0": 20,
    ...     "eta": 3, "lam": 0.1, "alpha": 1.0, "d": 100000, "seeds": 1}})
    >>> check_simulation_tasks(simulation_tasks(spec))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.sweep.spec.SweepError: [simulation] d = 100000, ... would need about ... GB, more than 8 GB
    """
    from ..simulation.simulate import estimate_memory_gb
    for t in tasks:
        if t["source"] == "theory":
            _check_simulated_readout(t, "[theory]", theory=True)
        if t["source"] != "simulation":
            continue
        where = f"[simulation] d = {t['d']}, alpha0 = {t['alpha0']!r}"
        if math.floor(min(t["alpha"]) * t["d"]) < 1:
            raise SweepError(f"{where}: alpha = {min(t['alpha'])!r} gives no readout sample "
                             "(n = floor(alpha d) must be >= 1)")
        if t["alpha0"] > 0 and math.floor(t["alpha0"] * t["d"]) < 1:
            raise SweepError(f"{where}: no step sample (n0 = floor(alpha0 d) must be >= 1)")
        _check_simulated_readout(t, where)
        gb = estimate_memory_gb(t["model"], t["alpha0"], t["alpha"], t["d"], t["beta"],
                                t["n_test"], t["lam"], 1)
        if gb > max_memory_gb:
            raise SweepError(f"{where}, alphas up to {max(t['alpha'])!r}: the simulation would "
                             f"need about {gb:.0f} GB, more than {max_memory_gb:g} GB")


def _check_simulated_readout(t, where, theory=False):
    """A readout (loss, noise, bias) the simulation (or the theory: a margin loss on labels
    that are not +-1, a bias the loss does not allow) would refuse, refused before any work."""
    from ..symbolic.targets import is_multi_index
    if not any(k in t for k in _LOSS_KEYS) or is_multi_index(t["teacher"]):
        return      # a multi-index target's loss: the dispatch table's rows say (failed rows)
    from ..simulation.convex_readout import check_readout
    from ..symbolic.activations import activation
    from ..theory.channels.losses import loss as make_loss
    bias = t.get("bias", False)
    try:
        if theory:      # the theory takes lam = 0 (where not separable) and the hinge's bias
            if bias and not make_loss(t.get("loss", "square")).allows_bias:
                raise ValueError("a trained bias needs a loss that grows at both ends in yhat")
            bias, lam = False, 1.0
        else:
            lam = t["lam"]
        check_readout(t.get("loss", "square"), t.get("noise", 0.0), bias,
                      t.get("label_rule", "teacher"), activation(t["teacher"]), lam)
    except ValueError as exc:
        raise SweepError(f"{where}, teacher {t['teacher']!r}, loss {t.get('loss', 'square')!r}: "
                         f"{exc}") from None


def _seed_labels(task):
    """The ``seed`` column of a simulation task's rows: the seed, or ``root:i`` for the i-th
    readout of a first layer shared from seed ``root``."""
    if task["shared_first_layer"]:
        return [f"{task['seed']}:{i}" for i in range(task["seeds"])]
    return [str(task["seed"])]



def _row(task, **values):
    row = {c: "" for c in COLUMNS}
    for k in KEY_COLUMNS:
        if k in task and k not in ("alpha", "lam"):
            row[k] = _fmt(task[k])
    if task.get("bulk", "isotropic") != "isotropic":    # the bulk is the spectral back end
        row["spectrum"] = _fmt(task["bulk"])
    for k, v in values.items():
        row[k] = _fmt(v)
    row["label_rule"] = task.get("label_rule", "teacher")   # its column where the sweep has one
    row["steps"] = _fmt(task.get("steps", 1))                # its column where the sweep has one
    return row


def task_keys(task) -> list:
    """The row keys (values of ``KEY_COLUMNS``) a task produces."""
    if task["source"] == "theory":
        pairs = [(a, lam) for a in task["alpha"] for lam in task["lam"]]
        rows = [_row(task, alpha=a, lam=lam) for a, lam in pairs]
    else:
        rows = [_row(task, alpha=a, lam=task["lam"], seed=label)
                for label in _seed_labels(task) for a in task["alpha"]]
    return [row_key(r) for r in rows]


@functools.lru_cache(maxsize=64)
def _bulk_warnings(student, teacher, alpha0, eta, beta, letters):
    """The isotropic-bulk check of ``srfsym error`` (docs/theory.md (g.4)) at one step, as
    ``warning: ...`` notes (none when the isotropic bulk holds, or the check has no verdict);
    cached per worker process: the points of one step share it."""
    import warnings

    from ..theory.spectral.exact_bulk_groups import vocabulary_bulk_warning
    from ..theory.spectral.step_bulk import isotropic_bulk_warning
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if len({abs(w) for w in letters}) > 1:     # letter j: the step at |omega_j| eta
            vocabulary_bulk_warning(student, teacher, alpha0, eta, beta, list(letters),
                                    advice=SWEEP_BULK_ADVICE)
        else:
            isotropic_bulk_warning(student, teacher, alpha0, eta, beta,
                                   advice=SWEEP_BULK_ADVICE)
    return tuple(dict.fromkeys("warning: " + " ".join(str(w.message).split())
                               for w in caught))


#: what a sweep's isotropic-bulk warning recommends (a key of the [theory] table that runs)
SWEEP_BULK_ADVICE = ("set bulk = 'exact' in the [theory] table (the d -> infinity law of the "
                     "step's bulk, docs/theory.md (g.5); with spectrum = 'mp' and no d)")


def bulk_warnings(task, voc=None) -> list:
    """The isotropic-bulk warnings of a theory task on the isotropic bulk (the same check as
    ``srfsym error``): every row of the task carries them at the end of its note."""
    from ..symbolic.targets import is_multi_index
    if task.get("bulk", "isotropic") != "isotropic" or not task["alpha0"] or not task["eta"] \
            or is_multi_index(task["teacher"]):     # the check is the single-index step's
        return []
    letters = (1.0,) if voc is None else tuple(float(w) for w in voc.letters)
    return list(_bulk_warnings(str(task["student"]), str(task["teacher"]),
                               float(task["alpha0"]), float(task["eta"]), float(task["beta"]),
                               letters))


def _theory_rows(task):
    import warnings

    from ..theory.grid import solve_grid
    t0 = time.perf_counter()
    voc = vocabulary_of(task.get("vocabulary", "1.0"))
    if voc is not None or task.get("steps", 1) != 1:     # point by point (docs/theory.md (p))
        return _theory_rows_vocabulary(task, voc, t0)
    sample = {} if task["spectrum"] == "mp" else {"d": task["d"], "seed": task["seed"]}
    if task.get("dps") is not None:      # mpmath precision: point by point (the table's cell)
        sample["dps"] = task["dps"]
    bulk = task.get("bulk", "isotropic")
    if bulk != "isotropic":
        sample = {"bulk": bulk, **({"d": task["d"], "seed": task["seed"]} if bulk == "step"
                                   else {}), **({"dps": task["dps"]} if "dps" in sample else {})}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")           # what they say is in the notes below
        g = solve_grid(task["student"], task["teacher"], task["alpha0"], task["eta"],
                       task["alpha"], task["lam"], beta=task["beta"],
                       spectrum=task["spectrum"], **sample,
                       **{k: task[k] for k in _LOSS_KEYS if k in task})
    each = (time.perf_counter() - t0) / g.converged.size
    # caveats (the mapping's notes, e.g. a non-odd activation) go into every row's note,
    # a failure into its own row's
    caveats = list(dict.fromkeys(g.notes))
    warns = bulk_warnings(task)           # at the end of every note
    failed = {(f["alpha"], f["lam"]): f["message"] for f in g.failures}
    where = ("" if task["spectrum"] == "mp" else ", sampled spectrum") + (
        "" if bulk == "isotropic" else f", {bulk} bulk") + (
        f", {task['dps']} digits" if task.get("dps") is not None else "")
    rows = []
    for i, a in enumerate(task["alpha"]):
        for j, lam in enumerate(task["lam"]):
            how = g.method[i, j]
            rows.append(_row(task, alpha=a, lam=lam, r=g.r, c=g.c, gamma=g.gamma,
                             test_error=float(g.test_error[i, j]),
                             train_error=float(g.train_error[i, j]),
                             **_classifier_values(g, i, j),
                             residual=float(g.residual[i, j]),
                             method=how if how == "failed" else
                             f"{how} ({g.nodes} kappa nodes{where})", seconds=each,
                             note="; ".join(([failed[a, lam]] if (a, lam) in failed else [])
                                            + _point_notes(caveats, a, lam) + warns)))
    return rows


def _point_notes(notes, a, lam):
    """The grid's notes that concern the point (alpha, lambda): those of the whole grid, and
    a note of one point (``... at alpha = A, lambda = L``) on that point's row only.

    >>> _point_notes(["odd", "x at alpha = 1, lambda = 0.1"], 1.0, 0.1)
    ['odd', 'x at alpha = 1, lambda = 0.1']
    >>> _point_notes(["odd", "x at alpha = 1, lambda = 0.1"], 2.0, 0.1)
    ['odd']
    """
    import re
    here = f" at alpha = {a:g}, lambda = {lam:g}"
    return [n for n in notes
            if n.endswith(here) or not re.search(r" at alpha = \S+, lambda = \S+$", n)]


def _classifier_values(g, i, j):
    """``classification_error`` and ``train_loss`` of a convex-loss grid (else none)."""
    out = {}
    for key in ("classification_error", "train_loss"):
        v = getattr(g, key, None)
        if v is not None and math.isfinite(v[i, j]):
            out[key] = float(v[i, j])
    return out


def _theory_rows_vocabulary(task, voc, t0):
    """Theory rows with a readout vocabulary or several steps: the per-letter fixed point
    point by point (:func:`srfsym.solve` with ``vocabulary=``, ``steps=`` and the task's loss,
    noise, bias; the batched grid solve is one-step and uniform only)."""
    import warnings

    from ..theory.fixed_point import ConvergenceError, solve
    if task["spectrum"] != "mp":
        raise SweepError("[theory] a readout vocabulary needs spectrum = 'mp'")
    bulk = task.get("bulk", "isotropic")
    extra = {} if bulk == "isotropic" else {"bulk": bulk, **(
        {"d": task["d"], "seed": task["seed"]} if bulk == "step" else {})}
    if task.get("dps") is not None:
        extra["dps"] = task["dps"]
    if task.get("steps", 1) != 1:
        extra["steps"] = task["steps"]
    rows, caveats = [], [] if task.get("steps", 1) != 1 else bulk_warnings(task, voc)
    for a in task["alpha"]:
        for lam in task["lam"]:
            t1 = time.perf_counter()
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    res = solve(task["student"], task["teacher"], task["alpha0"], task["eta"],
                                lam, a, beta=task["beta"], vocabulary=voc, **extra,
                                **{k: task[k] for k in _LOSS_KEYS if k in task})
                classifier = {k: getattr(res, k) for k in ("classification_error", "train_loss")
                              if getattr(res, k, None) is not None}
                rows.append(_row(task, alpha=a, lam=lam, r=res.r, c=res.c, gamma=res.gamma,
                                 test_error=res.test_error, **classifier,
                                 train_error=res.train_error, residual=res.residual,
                                 method=f"{res.method} ({res.nodes} kappa nodes)",
                                 seconds=time.perf_counter() - t1,
                                 note="; ".join(dict.fromkeys(res.notes + caveats))))
            except (ConvergenceError, ArithmeticError, ValueError) as exc:
                rows.append(_row(task, alpha=a, lam=lam, test_error=float("nan"),
                                 train_error=float("nan"),
                                 residual=getattr(exc, "residual", float("nan")),
                                 method="failed", seconds=time.perf_counter() - t1,
                                 note="; ".join([str(exc)] + caveats)))
    return rows


def _simulation_rows(task):
    from ..simulation.simulate import simulate
    t0 = time.perf_counter()
    res = simulate(task["student"], task["teacher"], task["alpha0"], task["eta"], task["lam"],
                   task["alpha"], d=task["d"], beta=task["beta"], seeds=task["seeds"],
                   seed=task["seed"], n_test=task["n_test"], model=task["model"], workers=1,
                   progress=False, shared_first_layer=task["shared_first_layer"],
                   vocabulary=vocabulary_of(task.get("vocabulary", "1.0")),
                   steps=task.get("steps", 1), **{k: task[k] for k in _LOSS_KEYS if k in task})
    each = (time.perf_counter() - t0) / (len(task["alpha"]) * task["seeds"])
    method = f"simulation ({task['model']}, p = {res.p}" + (
        ", one first layer per root seed)" if task["shared_first_layer"] else ")")
    if res.r is None:
        from ..step.mapping import srf_mapping
        m = srf_mapping(task["student"], task["teacher"], task["eta"], task["alpha0"])
        res.r, res.c, res.gamma = m.r, m.c, m.gamma
    return [_row(task, alpha=a, lam=task["lam"], seed=label, r=res.r, c=res.c, gamma=res.gamma,
                 test_error=float(res.test_error_per_seed[i, j]),
                 train_error=float(res.train_error_per_seed[i, j]), method=method, seconds=each,
                 **_classifier_per_seed(res, i, j))
            for i, label in enumerate(_seed_labels(task)) for j, a in enumerate(task["alpha"])]


def _classifier_per_seed(res, i, j):
    """``classification_error`` and ``train_loss`` of seed ``i`` at alpha ``j`` of a convex
    readout (else none)."""
    per_seed = getattr(res, "convex_per_seed", None) or {}
    out = {}
    for key in ("classification_error", "train_loss"):
        if key in per_seed and math.isfinite(per_seed[key][i][j]):
            out[key] = float(per_seed[key][i][j])
    return out


def run_task(task: dict) -> list:
    """Compute one task; returns its rows (dicts of CSV text).  Runs in worker processes
    (local pool or Dask): it takes and returns plain data only.

    A task the library refuses (a learning rate whose mapping leaves the supported range, a
    point that does not converge) gives rows marked ``failed`` whose note names the task's
    parameters and the reason; the other tasks go on.
    """
    from ..theory.fixed_point import ConvergenceError
    t0 = time.perf_counter()
    try:
        return _theory_rows(task) if task["source"] == "theory" else _simulation_rows(task)
    except SweepError:
        raise
    except (ConvergenceError, ValueError, ArithmeticError, MemoryError) as exc:
        return _failed_rows(task, exc, time.perf_counter() - t0)


def _failed_rows(task, exc, seconds):
    """The rows of a task that failed as a whole, its parameters named in the note."""
    skip = ("source", "alpha", "lam", "seeds", "student", "teacher")
    where = ", ".join(f"{k} = {_fmt(v)}" for k, v in task.items()
                      if k not in skip and v is not None and _fmt(v) != "")
    note = f"failed at {where}: {' '.join(str(exc).split()) or type(exc).__name__}"
    nan = float("nan")
    if task["source"] == "theory":
        pairs = [(a, lam, None) for a in task["alpha"] for lam in task["lam"]]
    else:
        pairs = [(a, task["lam"], label) for label in _seed_labels(task) for a in task["alpha"]]
    return [_row(task, alpha=a, lam=lam, **({} if label is None else {"seed": label}),
                 test_error=nan, train_error=nan, residual=nan, method="failed",
                 seconds=seconds / len(pairs), note=note) for a, lam, label in pairs]

