"""Finite-size simulation: the one-giant-step network and the sRF model it maps to.

This module runs the experiment of docs/theory.md (a) on actual random
matrices and measures, from the trained first layer, the spiked-RF parameters
of section (c).  The pieces live beside it: :mod:`srfsym.simulation.first_layer` (W0, the
giant step, the sRF weights), :mod:`srfsym.simulation.readout` (features and the ridge readout),
:mod:`srfsym.simulation.result` (:class:`SimulationResult`, the measured sRF parameters); this
module checks the arguments, runs the seeds and assembles the result (and re-exports the public
names of the pieces).

Two models share one ridge readout:

``model="network"`` (docs/theory.md (a))
    Rows ``w0_k`` i.i.d. uniform on the unit sphere, ``a0 = 1/sqrt(p)``,
    teacher ``theta* = e1``, noiseless labels ``y = sigma_star(x_1)``,
    ``x ~ N(0, I_d)``.  One step on ``n0 = floor(alpha0 d)`` fresh samples::

        w1_k = w0_k + (eta/n0) sum_i (y_i - f(x_i; a0, W0)) sigma'(<w0_k, x_i>) x_i

    (``eta`` is the tilde-eta of docs/theory.md (a); ``alpha0 = 0`` means no step, ``W1 = W0``).
``model="srf"`` (docs/theory.md (c))
    Frozen weights ``W + r 1 vhat^T`` with rows of ``W`` uniform on the sphere
    of radius ``sqrt(c)`` and ``vhat = gamma e1 + sqrt(1 - gamma^2) e_perp``.

Readout: on ``n = floor(alpha d)`` fresh samples, features ``phi = sigma(W1 x)``
and ``hat a = argmin sum_i (y_i - <a, phi_i>/sqrt(p))^2 + lam |a|^2`` (a sum
loss, no 1/2), solved by a Cholesky factorisation of the smaller of the primal
``p x p`` and dual ``n x n`` Gram matrices (:func:`ridge_readout`).  ``lam = 0``
is the ridgeless limit ``lam -> 0+``, i.e. the minimum-norm least-squares
solution, computed by ``scipy.linalg.lstsq`` (well defined for every ``n, p``;
Cholesky would break down at ``n = p`` and for rank-deficient features).

Randomness and reproducibility
------------------------------
``numpy.random.SeedSequence(seed).spawn(seeds)`` gives one independent stream
per seed; inside a seed, separate child sequences draw the initial layer, the
step data (in fixed blocks of :data:`BLOCK_ROWS` rows, one generator per block,
so the data do not depend on chunk sizes or on the number of threads), the
test set and, for each ``alpha``, a fresh readout training set.  The first
layer (and the test set) of a seed is re-used for every ``alpha``; the readout
training data are drawn afresh for each ``alpha``.  With
``shared_first_layer=True`` every seed uses seed 0's first layer (the reference
notebook's protocol: one step, fresh readout and test data per seed), which
separates readout/test sampling noise from the first layer's fluctuations.
Results are bitwise
reproducible for fixed ``(seed, workers, parallel, step_dtype)``; changing
``workers`` only changes the order of floating-point sums (differences at
rounding level).

Precision: the step (sample matrix, preactivations, the two big matrix
products per chunk) runs in ``step_dtype`` (float32 by default, twice as fast
as float64) and is accumulated across chunks in float64; everything from
``W1`` on (readout, errors, measured sRF parameters) is float64.  The float32
rounding of ``W1 - W0`` is ~1e-6 relative, far below the O(d^-1/2) finite-size
fluctuations that the simulation measures.

Parallelism: BLAS is single-threaded in both modes of ``parallel`` (OpenBLAS's own threads,
spinning at every small call, doubled the wall time on a loaded 2-core machine).  Measured on a
shared 2-core machine (d = 2000, 3 seeds, other jobs running): ``"chunks"`` and ``"seeds"`` were
within 5-25 % of each other, ``"seeds"`` ahead.

Examples
--------
>>> from srfsym.simulation.simulate import simulate
>>> res = simulate("tanh", "sin", alpha0=2.0, eta=1.0, lam=0.1, alpha=1.0, d=50, seeds=2,
...                n_test=200, workers=1)
>>> res.test_error.shape, bool(res.test_error[0] > 0)
((1,), True)
"""
from __future__ import annotations

import math
import sys
import threading
import time
import types
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..symbolic.activations import Activation, activation
from ..step import realised as _realised_step
from .first_layer import (BLOCK_ROWS, _as_seed_sequence, _blas_threads, _children, _chunk_rows,
                          _cores, _current_blas_threads, _network_step, _width, giant_step,
                          network_first_layer, sphere_rows, srf_first_layer)
from .readout import _FEATURE_CHUNK_ROWS, _features_and_labels, ridge_readout
from .result import (SimulationResult, empirical_group_parameters, empirical_srf_parameters)

__all__ = [
    "SimulationResult", "simulate", "ridge_readout", "giant_step", "network_first_layer",
    "srf_first_layer", "empirical_srf_parameters", "estimate_memory_gb", "sphere_rows",
    "BLOCK_ROWS",
]

#: Rough resident size of the interpreter with numpy, scipy and sympy imported.
_BASELINE_BYTES = 0.35 * 2**30
#: Tunables that live in :mod:`srfsym.step.realised`; setting one here sets it there.
_FORWARDED = ("_CHUNK_BYTES",)


class _ForwardingModule(types.ModuleType):
    """This module, with the step's tunables (:data:`_FORWARDED`) read and set in
    :mod:`srfsym.step.realised` (where the step reads them)."""

    def __getattr__(self, name):
        if name in _FORWARDED:
            return getattr(_realised_step, name)
        raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")

    def __setattr__(self, name, value):
        if name in _FORWARDED:
            setattr(_realised_step, name, value)
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _ForwardingModule


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
    p = _width(d, beta)
    s = np.dtype(step_dtype).itemsize
    alphas = np.atleast_1d(np.asarray(alphas, dtype=float))
    n_max = int(math.floor(float(alphas.max()) * d)) if alphas.size else 0
    pd = p * d
    threads = 1 if parallel == "seeds" else max(1, workers)
    procs = max(1, workers) if parallel == "seeds" else 1
    if model == "network" and alpha0 > 0:
        n0 = int(math.floor(alpha0 * d))
        rows = min(_chunk_rows(d, p, s), -(-n0 // BLOCK_ROWS) * BLOCK_ROWS)
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




# --------------------------------------------------------------------------------------
# one seed

def _first_layer(task: dict, ss: np.random.SeedSequence, student: Activation,
                 teacher: Activation):
    """The first layer of one seed and its measured sRF parameters: ``(W1, emp)``."""
    ss_init, ss_step = _children(ss, 2)
    d, p = task["d"], task["p"]
    omega = task.get("omega")
    if task["model"] == "network":
        W0 = sphere_rows(np.random.default_rng(ss_init), p, d)
        W1 = _network_step(student, teacher, W0, task["n0"], task["eta"], ss_step,
                           task["step_dtype"], task["threads"], task.get("tick"), omega)
    else:
        W0, W1, _ = srf_first_layer(task["r"], task["c"], task["gamma"], d, p / d, ss, omega)
    if not np.all(np.isfinite(W1)):
        raise FloatingPointError("the trained first layer W1 is not finite (the step overflowed: "
                                 "eta too large for this activation/teacher?)")
    with _blas_threads(task.get("serial_blas_threads", 1)):   # ARPACK: BLAS-2, memory bound
        emp = empirical_srf_parameters(W0, W1)
        out = {k: emp[k] for k in ("r", "c", "gamma", "singular_values")}
        if omega is not None:
            grp = empirical_group_parameters(W0, W1, omega)
            out.update(r_groups=grp["r"], c_groups=grp["c"], gamma=grp["gamma"])
    return W1, out


def _run_seed(task: dict) -> dict:
    """Everything for one seed: first layer (unless ``task["first_layer"]`` is given), measured
    sRF parameters, one readout per alpha."""
    student = _rebuild(task["student"])
    teacher = _rebuild(task["teacher"])
    ss = task["seed_sequence"]
    _, _, ss_read, ss_test, _ = _children(ss, 5)
    threads, tick = task["threads"], task.get("tick")
    with _blas_threads(task.get("blas_threads")):
        if task.get("first_layer") is None:
            W1, emp = _first_layer(task, ss, student, teacher)
        else:
            W1, emp = task["first_layer"]
        phi_test, y_test = _features_and_labels(student.numpy, teacher.numpy, W1, ss_test,
                                                task["n_test"], threads)
        sqp = math.sqrt(task["p"])
        test, train = [], []
        for n, ss_a in zip(task["ns"], _children(ss_read, len(task["ns"]))):
            phi, y = _features_and_labels(student.numpy, teacher.numpy, W1, ss_a, n, threads)
            for arr in (phi, y, phi_test, y_test):
                if not np.all(np.isfinite(arr)):
                    raise FloatingPointError(
                        "features or labels are not finite (sigma(W1 x) or sigma_star(x_1) "
                        "overflows float64): no readout can be fitted")
            # one big Gram product and Cholesky: BLAS threads, never more than the caller allowed
            # (serial_blas_threads = min(workers, BLAS threads when simulate was called))
            with _blas_threads(task.get("serial_blas_threads", 1)):
                a_hat = ridge_readout(phi, y, task["lam"])
            train.append(float(np.mean((y - phi @ a_hat / sqp) ** 2)))
            test.append(float(np.mean((y_test - phi_test @ a_hat / sqp) ** 2)))
            del phi, y
            if tick is not None:
                tick()
    return {"test": test, "train": train, "r": emp["r"], "c": emp["c"], "gamma": emp["gamma"],
            "sv": emp["singular_values"], "r_groups": emp.get("r_groups"),
            "c_groups": emp.get("c_groups")}


def _portable(act: Activation):
    return (act.name, act.expr, act.known_closed_form, act.description)


def _rebuild(spec) -> Activation:
    if isinstance(spec, Activation):
        return spec
    name, expr, known, description = spec
    return Activation(name=name, expr=expr, known_closed_form=known, description=description)


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
    p = a["p"] = _width(d, beta)
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
    a["workers"] = _positive_int("workers", _cores() if a["workers"] is None else a["workers"], 1)
    if a["parallel"] not in ("chunks", "seeds"):
        raise ValueError(f"parallel must be 'chunks' or 'seeds', got {a['parallel']!r}")
    if not isinstance(a["shared_first_layer"], (bool, np.bool_)):
        raise ValueError(f"shared_first_layer must be True or False, got {a['shared_first_layer']!r}")
    if np.dtype(a["step_dtype"]) not in (np.float32, np.float64):
        raise ValueError(f"step_dtype must be float32 or float64, got {a['step_dtype']!r}")
    a["max_memory_gb"] = _finite_real("max_memory_gb", a["max_memory_gb"])


def _check_model(a: dict) -> None:
    """Activations, vocabulary, ``n0`` and the sRF parameters of :func:`simulate`, in place."""
    from ..step.vocabulary import vocabulary as make_vocabulary, check_student
    voc = a["voc"] = make_vocabulary(a["vocabulary"])
    check_student(a["student"], voc)
    a["omega"] = None if voc.is_uniform else voc.neuron_letters(a["p"])
    student_act, teacher_act = a["student_act"], a["teacher_act"] = (activation(a["student"]),
                                                                    activation(a["teacher"]))
    _require_second_moment(teacher_act)
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
    if est > a["max_memory_gb"]:
        raise ValueError(f"estimated peak memory {est:.2f} GB exceeds max_memory_gb="
                         f"{a['max_memory_gb']:g}; reduce d, alpha, n_test or workers, or raise "
                         "max_memory_gb")
    alpha0, d = a["alpha0"], a["d"]
    flops = alpha0 * d * 4.0 * d * a["p"] * seeds
    if a["model"] == "network" and flops > MAX_STEP_FLOPS:
        raise ValueError(f"the gradient step with alpha0 = {alpha0:g} uses n0 = alpha0 d = "
                         f"{alpha0 * d:.3g} samples: about {flops:.2g} floating-point operations "
                         f"({flops / 1e10 / 3600:.2g} core-hours at 10 GFLOP/s) over {seeds} "
                         f"seed(s); refused up front (limit {MAX_STEP_FLOPS:.0e}): reduce alpha0 or d")


# --------------------------------------------------------------------------------------
# running the seeds and assembling the result

def _progress_bar(a: dict):
    """A tqdm bar counting step chunks and readouts (``"chunks"``) or seeds (``"seeds"``)."""
    from tqdm.auto import tqdm
    if a["parallel"] != "chunks":
        return tqdm(total=a["seeds"], desc="simulate", unit="seed")
    rows = _chunk_rows(a["d"], a["p"], np.dtype(a["step_dtype"]).itemsize)
    n0 = a["n0"]
    n_chunks = -(-n0 // rows) if (a["model"] == "network" and n0 > 0) else 0
    layers = 1 if a["shared_first_layer"] else a["seeds"]
    return tqdm(total=layers * n_chunks + a["seeds"] * len(a["ns"]), desc="simulate", unit="step")


def _run_seeds(a: dict, base: dict, seed_seqs: list, bar) -> list:
    """One :func:`_run_seed` per seed, in processes (``parallel="seeds"``) or in turn."""
    workers, seeds = a["workers"], a["seeds"]
    lock = threading.Lock()

    def tick():
        with lock:
            bar.update(1)

    chunk_tick = tick if (bar is not None and a["parallel"] == "chunks") else None
    if a["shared_first_layer"]:
        with _blas_threads(1):
            base["first_layer"] = _first_layer(dict(base, threads=workers, tick=chunk_tick),
                                               seed_seqs[0], a["student_act"], a["teacher_act"])
    if a["parallel"] == "seeds" and workers > 1 and seeds > 1:
        tasks = [dict(base, seed_sequence=s, threads=1, blas_threads=1, serial_blas_threads=1)
                 for s in seed_seqs]
        out = [None] * seeds
        with ProcessPoolExecutor(min(workers, seeds)) as pool:
            futures = {pool.submit(_run_seed, t): i for i, t in enumerate(tasks)}
            from concurrent.futures import as_completed
            for fut in as_completed(futures):
                out[futures[fut]] = fut.result()
                if bar is not None:
                    bar.update(1)
        return out
    out = []
    for s in seed_seqs:
        task = dict(base, student=a["student_act"], teacher=a["teacher_act"], seed_sequence=s,
                    threads=workers, blas_threads=1, tick=chunk_tick)
        out.append(_run_seed(task))
        if bar is not None and a["parallel"] == "seeds":
            bar.update(1)
    return out


def _sem(a: np.ndarray) -> np.ndarray:
    if a.shape[0] < 2:
        return np.full(a.shape[1:], np.nan)
    return a.std(axis=0, ddof=1) / math.sqrt(a.shape[0])


def _result(a: dict, out: list, wall_time: float) -> SimulationResult:
    """The :class:`SimulationResult` of the per-seed outputs ``out``."""
    layers = out[:1] if a["shared_first_layer"] else out    # one entry per distinct first layer
    test = np.array([o["test"] for o in out])
    train = np.array([o["train"] for o in out])
    voc = a["voc"]
    return SimulationResult(
        model=a["model"], student=a["student_act"].name, teacher=a["teacher_act"].name, d=a["d"],
        p=a["p"], beta=a["beta"], alpha0=a["alpha0"], eta=a["eta"], lam=a["lam"], n0=a["n0"],
        alphas=a["alphas"], n=a["ns"], n_test=a["n_test"], seeds=a["seeds"], seed=int(a["seed"]),
        test_error=test.mean(axis=0), test_error_sem=_sem(test),
        train_error=train.mean(axis=0), train_error_sem=_sem(train),
        test_error_per_seed=test, train_error_per_seed=train,
        r_emp=np.array([o["r"] for o in layers]), c_emp=np.array([o["c"] for o in layers]),
        gamma_emp=np.array([o["gamma"] for o in layers]),
        singular_values=np.array([o["sv"] for o in layers]),
        r=a["r"], c=a["c"], gamma=a["gamma"], wall_time=wall_time,
        vocabulary=None if voc.is_uniform else voc.to_dict(),
        r_emp_groups=None if voc.is_uniform else np.array([o["r_groups"] for o in layers]),
        c_emp_groups=None if voc.is_uniform else np.array([o["c_groups"] for o in layers]),
        settings={"workers": a["workers"], "parallel": a["parallel"],
                  "step_dtype": np.dtype(a["step_dtype"]).name,
                  "memory_estimate_gb": a["memory_estimate"],
                  "shared_first_layer": bool(a["shared_first_layer"]),
                  "first_layer_reused_across_alpha": True, "test_set_reused_across_alpha": True})


def simulate(student, teacher, alpha0: float, eta: float, lam: float, alpha, d: int,
             beta: float = 1.0, seeds: int = 3, n_test: int = 5000, model: str = "network",
             r: float | None = None, c: float | None = None, gamma: float | None = None,
             seed: int = 0, workers: int | None = None, progress: bool = False,
             max_memory_gb: float = 8.0, parallel: str = "chunks",
             step_dtype="float32", shared_first_layer: bool = False,
             vocabulary=None) -> SimulationResult:
    r"""Simulate one giant step + ridge readout (or the sRF model) at finite ``d``.

    Parameters
    ----------
    student, teacher : str or Activation
        sigma and sigma_star (registry names or expressions in ``x``).
    alpha0 : float
        ``n0 = floor(alpha0 d)`` step samples (``0``: no step, plain RF).
    eta : float
        the tilde-eta of docs/theory.md (a) (the row update above).
    lam : float
        Ridge penalty of the sum loss (``0``: minimum-norm least squares, see module doc).
    alpha : float or sequence of float
        ``n = floor(alpha d)`` readout samples; one readout (fresh training data, same first
        layer and test set) per value.
    d : int
        Input dimension; width ``p = round(beta d)``.
    beta : float
        ``p/d``.
    seeds : int
        Independent repetitions (first layer, step data, readout and test data all re-drawn,
        unless ``shared_first_layer``).
    n_test : int
        Fresh test points per seed.
    model : {"network", "srf"}
    r, c, gamma : float, optional
        sRF parameters for ``model="srf"``; each one left ``None`` is taken from
        ``srfsym.step.mapping.srf_mapping(student, teacher, eta, alpha0)``.
    seed : int
        Root of ``numpy.random.SeedSequence``.
    workers : int, optional
        Cores to use (default: all available).  BLAS is never given more threads than it
        had when ``simulate`` was called.  BLAS thread settings are process-wide: do not run
        ``simulate`` in several threads of one process at once.
    progress : bool
        Show a tqdm bar.
    max_memory_gb : float
        Refuse (``ValueError``) if :func:`estimate_memory_gb` exceeds this.
    parallel : {"chunks", "seeds"}
        ``"chunks"`` (default): seeds one after another, the step's sample chunks and the
        feature blocks spread over ``workers`` threads (least memory).  ``"seeds"``: seeds in
        ``min(workers, seeds)`` processes, one thread each (no serial part; wins when ``seeds`` is
        a multiple of ``workers``).  BLAS is single-threaded in both; both give the same numbers
        up to the order of float sums (see the module doc for measured timings).
    step_dtype : {"float32", "float64"}
        Floating type of the step's matrix products (accumulated in float64 either way).
    shared_first_layer : bool
        ``False`` (default): every seed draws its own ``W0`` and step data.  ``True``: one first
        layer (seed 0's: the same as seed 0 of the default mode, bit for bit with the same
        ``parallel`` and ``workers``, else up to rounding) is trained once and every seed
        re-draws only the readout and test data -- the protocol of the reference notebook
        (``Simulations.ipynb``), ``seeds`` times cheaper in the step.  The standard errors then
        measure the readout/test sampling given that one ``W1``, not the first layer's
        fluctuations, and ``r_emp`` etc. have a single entry.
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout before the step ``a0_k = omega_k / sqrt(p)`` (docs/theory.md (k.1)); group j
        is a block of ``round(pi_j p)`` neurons (:meth:`Vocabulary.group_sizes`).  For
        ``model="srf"`` group j gets spike ``r omega_j`` and bulk variance ``1 + omega_j^2
        (c - 1)`` with the given (uniform) ``r, c``.  ``r_emp_groups``, ``c_emp_groups`` are
        then measured per letter along the top singular direction of ``W1 - W0``.

    Returns
    -------
    SimulationResult

    Examples
    --------
    >>> res = simulate("tanh", "tanh", 2.0, 1.0, 0.1, [0.5, 1.0], d=40, seeds=2, n_test=100,
    ...                workers=1)
    >>> res.alphas.tolist(), res.n.tolist(), res.r_emp.shape
    ([0.5, 1.0], [20, 40], (2,))
    >>> shared = simulate("tanh", "tanh", 2.0, 1.0, 0.1, [0.5, 1.0], d=40, seeds=2, n_test=100,
    ...                   workers=1, shared_first_layer=True)
    >>> bool(np.array_equal(shared.test_error_per_seed[0], res.test_error_per_seed[0]))
    True
    >>> shared.r_emp.shape
    (1,)
    """
    t_start = time.perf_counter()
    a = dict(student=student, teacher=teacher, alpha0=alpha0, eta=eta, lam=lam, alpha=alpha, d=d,
             beta=beta, seeds=seeds, n_test=n_test, model=model, r=r, c=c, gamma=gamma, seed=seed,
             workers=workers, max_memory_gb=max_memory_gb, parallel=parallel,
             step_dtype=step_dtype, shared_first_layer=shared_first_layer, vocabulary=vocabulary)
    _check_sizes(a)
    _check_model(a)
    _check_cost(a)
    # never raise BLAS above what the caller set (e.g. OPENBLAS_NUM_THREADS=1 on a shared node)
    base = {"model": a["model"], "student": _portable(a["student_act"]),
            "teacher": _portable(a["teacher_act"]), "d": a["d"], "p": a["p"], "n0": a["n0"],
            "eta": a["eta"], "lam": a["lam"], "ns": [int(v) for v in a["ns"]],
            "n_test": a["n_test"], "r": a["r"], "c": a["c"], "gamma": a["gamma"],
            "step_dtype": np.dtype(a["step_dtype"]).name,
            "serial_blas_threads": min(a["workers"], _current_blas_threads() or 1),
            "omega": a["omega"]}
    bar = _progress_bar(a) if progress else None
    try:
        out = _run_seeds(a, base, _children(np.random.SeedSequence(a["seed"]), a["seeds"]), bar)
    finally:
        if bar is not None:
            bar.close()
    return _result(a, out, time.perf_counter() - t_start)
