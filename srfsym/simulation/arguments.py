"""The arguments of :func:`srfsym.simulation.simulate.simulate`, checked before any work, and
the estimate of its peak memory (docs/theory.md (a), (c)).

>>> round(estimate_memory_gb("network", 20, [1.0], 2000), 2) < 2.0
True
"""
from __future__ import annotations

import math

import numpy as np

from ..symbolic.activations import Activation, activation
from .first_layer import BLOCK_ROWS, step_chunk_rows, available_cores, layer_width
from .readout import _FEATURE_CHUNK_ROWS

__all__ = ["estimate_memory_gb", "MAX_STEP_FLOPS"]

#: Rough resident size of the interpreter with numpy, scipy and sympy imported.
_BASELINE_BYTES = 0.35 * 2**30


# --------------------------------------------------------------------------------------
# memory estimate

def estimate_memory_gb(model: str, alpha0: float, alphas, d: int, beta: float = 1.0,
                       n_test: int = 5000, lam: float = 1.0, workers: int = 1,
                       parallel: str = "chunks", step_dtype="float32") -> float:
    """Estimated peak resident memory (GiB) of :func:`simulate` with these arguments.

    A deliberately generous count of the big arrays alive at the same time (first layers,
    per-thread step accumulators and chunk buffers, feature matrices, Gram matrix), plus
    ~0.35 GiB for the interpreter, times the number of processes in ``parallel="seeds"`` mode.

    >>> round(estimate_memory_gb("network", 20, [1.0], 2000), 2) < 2.0
    True
    """
    p = layer_width(d, beta)
    s = np.dtype(step_dtype).itemsize
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    n_max = int(math.floor(float(alphas.max()) * d)) if alphas.size else 0
    pd = p * d
    threads = 1 if parallel == "seeds" else max(1, workers)
    procs = max(1, workers) if parallel == "seeds" else 1
    if model == "network" and alpha0 > 0:
        n0 = int(math.floor(alpha0 * d))
        rows = min(step_chunk_rows(d, p, s), -(-n0 // BLOCK_ROWS) * BLOCK_ROWS)
        threads = min(threads, max(1, -(-n0 // rows)))
        per_thread = 8 * pd + s * pd + rows * (d + 5 * p) * max(s, 4)
        step = 8 * pd + s * pd + threads * per_thread + 8 * pd      # W0, W0^T copy, threads, W1
    else:
        step = 3 * 8 * pd                                            # bulk, spiked, temporary
    stats = 3 * 8 * pd + 8 * (p + d) * 16
    rows_f = min(_FEATURE_CHUNK_ROWS, max(n_max, n_test)) * (1 if parallel == "seeds" else
                                                              max(1, workers))
    m = min(n_max, p)
    readout = 8 * (pd + n_test * p + n_max * p + m * m + rows_f * (d + 2 * p) + n_max + n_test)
    if lam == 0:
        readout += 8 * (n_max * p + max(n_max, p) * 64)
    return procs * (max(step, stats, readout) + _BASELINE_BYTES) / 2**30




def _check_multi_index(a: dict, target) -> None:
    """A multi-index target ``g(x_1..x_k)`` (docs/theory.md (n)): the network model only, and
    a finite ``E g^2``."""
    if a["model"] != "network":
        raise ValueError(f"model='srf' builds its spike from a single-index teacher's alignment; "
                         f"the multi-index target {target.name!r} is simulated with "
                         "model='network'")
    if a["d"] < target.k:
        raise ValueError(f"d = {a['d']} is smaller than the target's k = {target.k} directions")
    try:
        float(target.second_moment)
    except (ValueError, ArithmeticError) as exc:
        raise ValueError(f"target {target.name!r}: E g^2 cannot be computed ({exc})") from None


def _require_second_moment(teacher: Activation) -> None:
    """The labels ``sigma_star(x_1)``, ``x_1 ~ N(0, 1)``, need ``E sigma_star(z)^2 < oo`` (the
    theory refuses such a teacher too; a simulation would only report sampling noise)."""
    from ..symbolic.gaussian import DivergentExpectationError
    from ..symbolic.hermite import hermite_constants
    try:
        hermite_constants(teacher).second_moment
    except DivergentExpectationError as exc:
        raise ValueError(f"teacher {teacher.name!r} has an infinite second moment "
                         f"E sigma_star(z)^2 for z ~ N(0, 1): the test error does not exist "
                         f"({exc})") from None


#: Largest work (floating-point operations) of the simulated gradient steps accepted.
MAX_STEP_FLOPS = 1e16


def _finite_real(name, value):
    from ..core.checks import scalar_like
    value = scalar_like(name, value)
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a real number, got {value!r}") from None
    if not math.isfinite(v):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return v


def _positive_int(name, value, minimum):
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


# --------------------------------------------------------------------------------------
# checking the arguments (before any work)

def _check_sizes(a: dict) -> None:
    """Model, sizes, penalties and run options of :func:`simulate`, normalised in place."""
    if a["model"] not in ("network", "srf"):
        raise ValueError(f"model must be 'network' or 'srf', got {a['model']!r}")
    d = a["d"] = _positive_int("d", a["d"], 2)
    alpha0 = a["alpha0"] = _finite_real("alpha0", a["alpha0"])
    if alpha0 < 0:
        raise ValueError(f"alpha0 must be >= 0, got {alpha0}")
    eta = a["eta"] = _finite_real("eta", a["eta"])
    if abs(eta) > 1e100:
        raise ValueError(f"eta = {eta:g} is too large (limit 1e100): the stepped weights "
                         "(~eta) overflow double precision in the features and measured r, c")
    lam = a["lam"] = _finite_real("lam", a["lam"])
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    beta = a["beta"] = _finite_real("beta", a["beta"])
    if beta <= 0:
        raise ValueError(f"beta must be > 0, got {beta}")
    p = a["p"] = layer_width(d, beta)
    if p < 1:
        raise ValueError(f"beta * d must give a width p >= 1, got beta={beta}, d={d}")
    alpha = a["alpha"]
    alphas = np.atleast_1d(np.asarray(alpha, dtype=object))
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alpha must be a positive number or a non-empty list of them, got {alpha!r}")
    alphas = a["alphas"] = np.array([_finite_real("alpha", v) for v in alphas], dtype=float)
    if np.any(alphas <= 0):
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    ns = a["ns"] = np.floor(alphas * d).astype(int)
    if np.any(ns < 1):
        raise ValueError(f"alpha * d must be >= 1 (n = floor(alpha d) samples), got alpha={alpha!r}, d={d}")
    a["seeds"] = _positive_int("seeds", a["seeds"], 1)
    a["n_test"] = _positive_int("n_test", a["n_test"], 1)
    seed = a["seed"]
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    a["workers"] = _positive_int("workers", available_cores() if a["workers"] is None else a["workers"], 1)
    if a["parallel"] not in ("chunks", "seeds"):
        raise ValueError(f"parallel must be 'chunks' or 'seeds', got {a['parallel']!r}")
    if not isinstance(a["shared_first_layer"], (bool, np.bool_)):
        raise ValueError(f"shared_first_layer must be True or False, got {a['shared_first_layer']!r}")
    if np.dtype(a["step_dtype"]) not in (np.float32, np.float64):
        raise ValueError(f"step_dtype must be float32 or float64, got {a['step_dtype']!r}")
    a["max_memory_gb"] = _finite_real("max_memory_gb", a["max_memory_gb"])


def _check_model(a: dict) -> None:
    """Activations, target, vocabulary, steps, ``n0`` and the sRF parameters of
    :func:`simulate`, in place."""
    from ..step.step_target import step_target
    from ..step.vocabulary import vocabulary as make_vocabulary, check_student
    voc = a["voc"] = make_vocabulary(a["vocabulary"])
    a["steps"] = _positive_int("steps", a.get("steps", 1), 1)
    if a["model"] != "network":      # the sRF model's group formulas need an odd student
        check_student(a["student"], voc)
    a["omega"] = None if voc.is_uniform else voc.neuron_letters(a["p"])
    from ..symbolic.targets import MultiIndexTarget, teacher_object
    student_act = a["student_act"] = activation(a["student"])
    teacher_act = a["teacher_act"] = teacher_object(a["teacher"])
    a["target"] = step_target(teacher_act)       # the same target as the steps see it
    if isinstance(teacher_act, MultiIndexTarget):     # multi-index hook (issue 28)
        _check_multi_index(a, teacher_act)
    else:
        _require_second_moment(teacher_act)
    if a["steps"] > 1 and a["model"] != "network":
        raise ValueError(f"steps = {a['steps']}: several steps are taken by model='network' "
                         "only (the sRF model has no step)")
    alpha0, d = a["alpha0"], a["d"]
    n0 = a["n0"] = int(math.floor(alpha0 * d))
    if alpha0 > 0 and n0 < 1:
        raise ValueError(f"alpha0 * d must be >= 1 when alpha0 > 0 (n0 = floor(alpha0 d)), "
                         f"got alpha0={alpha0}, d={d}")
    if a["model"] == "network":
        if any(a[k] is not None for k in ("r", "c", "gamma")):
            raise ValueError("r, c, gamma are parameters of model='srf'; the network measures them")
        if n0 > 0 and student_act.has_dirac_derivative:
            raise ValueError(f"student {student_act.name!r} has a Dirac mass in its derivative: "
                             "it cannot take the gradient step (alpha0 > 0); use model='srf' or "
                             "alpha0=0")
    else:
        _srf_parameters(a)


def _srf_parameters(a: dict) -> None:
    """``r, c, gamma`` of ``model="srf"``: checked, the missing ones from the step mapping."""
    r, c, gamma = a["r"], a["c"], a["gamma"]
    for name, v in (("r", r), ("c", c), ("gamma", gamma)):
        if v is not None:
            _finite_real(name, v)
    if gamma is not None and not -1.0 <= float(gamma) <= 1.0:
        raise ValueError(f"gamma must lie in [-1, 1], got {gamma}")
    if c is not None and not float(c) > 0:
        raise ValueError(f"c must be > 0, got {c}")
    if any(v is None for v in (r, c, gamma)):
        if a["alpha0"] > 0 and a["student_act"].has_dirac_derivative:
            raise ValueError(f"student {a['student_act'].name!r} has a Dirac mass in its derivative, "
                             "so the step mapping is undefined: pass r, c and gamma explicitly")
        from ..step.mapping import srf_mapping
        mp = srf_mapping(a["student"], a["teacher"], a["eta"], a["alpha0"])
        r = mp.spike_strength if r is None else r
        c = mp.bulk_variance if c is None else c
        gamma = mp.alignment if gamma is None else gamma
    r, c, gamma = a["r"], a["c"], a["gamma"] = float(r), float(c), float(gamma)
    if not -1.0 <= gamma <= 1.0:
        raise ValueError(f"gamma must lie in [-1, 1], got {gamma}")
    if not c > 0:
        raise ValueError(f"c must be > 0, got {c}")


def _check_cost(a: dict) -> None:
    """Refuse, up front, a run over the memory limit or the step-work limit."""
    workers, seeds, parallel = a["workers"], a["seeds"], a["parallel"]
    est = a["memory_estimate"] = estimate_memory_gb(
        a["model"], a["alpha0"], a["alphas"], a["d"], a["beta"], a["n_test"], a["lam"],
        workers if parallel == "chunks" else min(workers, seeds), parallel, a["step_dtype"])
    if (a.get("readout") or {}).get("loss") == "hinge":     # the dual's n x n Gram matrices
        n_max = int(a["ns"].max())
        est = a["memory_estimate"] = est + (1 if parallel == "chunks" else min(workers, seeds)) \
            * 3 * 8 * n_max * n_max / 2**30
    if est > a["max_memory_gb"]:
        raise ValueError(f"estimated peak memory {est:.2f} GB exceeds max_memory_gb="
                         f"{a['max_memory_gb']:g}; reduce d, alpha, n_test or workers, or raise "
                         "max_memory_gb")
    alpha0, d = a["alpha0"], a["d"]
    flops = alpha0 * d * 4.0 * d * a["p"] * seeds * a.get("steps", 1)
    if a["model"] == "network" and flops > MAX_STEP_FLOPS:
        raise ValueError(f"the gradient step(s) with alpha0 = {alpha0:g} use n0 = alpha0 d = "
                         f"{alpha0 * d:.3g} samples: about {flops:.2g} floating-point operations "
                         f"({flops / 1e10 / 3600:.2g} core-hours at 10 GFLOP/s) over {seeds} "
                         f"seed(s); refused up front (limit {MAX_STEP_FLOPS:.0e}): reduce alpha0 or d")


