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
within 5-25 % of each other, ``"seeds"`` ahead.  ``parallel="chunks"`` (default): seeds one after another, the step's sample chunks and the
feature blocks spread over ``workers`` threads (least memory).  ``"seeds"``: seeds in
``min(workers, seeds)`` processes, one thread each (no serial part; wins when ``seeds`` is
a multiple of ``workers``).  BLAS is single-threaded in both; both give the same numbers
up to the order of float sums.

Shared first layer: ``shared_first_layer=False`` (default): every seed draws its own ``W0`` and step data.  ``True``: one first
layer (seed 0's: the same as seed 0 of the default mode, bit for bit with the same
``parallel`` and ``workers``, else up to rounding) is trained once and every seed
re-draws only the readout and test data -- the protocol of the reference notebook
(``Simulations.ipynb``), ``seeds`` times cheaper in the step.  The standard errors then
measure the readout/test sampling given that one ``W1``, not the first layer's
fluctuations, and ``r_emp`` etc. have a single entry.

Convex readouts: ``loss``, ``noise``, ``bias``, ``label_rule`` give the readout of
docs/theory.md (m): ``loss`` ``"square"`` (the ridge), ``"logistic"``,
``"hinge"`` or an expression in ``y``, ``yhat``; ``noise`` the label noise (variance
of a Gaussian on real labels, of a probit flip for the teacher ``sign``, or added to
the teacher's field of Bernoulli labels); ``bias`` an unpenalised output bias;
``label_rule="bernoulli"``: labels +-1 with ``P(y = 1 | x) = (1 + sigma_star(x_1 +
sqrt(noise) xi))/2`` (tanh-shaped labels for the teacher ``tanh``).  The step always
sees the clean ``sigma_star(x_1)`` (as the mapping (c) does); only the readout's
labels change.  The readout is :func:`~srfsym.simulation.convex_readout.fit_convex_readout`
(scipy L-BFGS-B on the primal, the hinge on its dual); the result then also has
``classification_error``, ``train_loss``, ``train_classification_error``,
``output_bias``, ``q2``, ``m`` (means and ``*_sem`` over seeds, per alpha), and
``test_error`` / ``train_error`` are the test / training MSE (test labels: the noisy
+-1 label, or the clean real target).  The square loss without noise, bias or
Bernoulli labels is the ridge path itself.

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

from ..symbolic.activations import Activation
from ..step import realised as _realised_step
from .first_layer import (BLOCK_ROWS, limited_blas_threads, seed_children, step_chunk_rows,
                          current_blas_threads, network_step, giant_step,
                          network_first_layer, sphere_rows, srf_first_layer)
from .readout import _features_and_labels, ridge_readout
from .steps_measure import STEP_KEYS, step_measurements
from .convex_readout import check_readout, convex_readout_seed, convex_result_fields
from .result import (SimulationResult, bulk_row_correlation, empirical_group_parameters,
                     empirical_srf_parameters)
from .arguments import (MAX_STEP_FLOPS, _check_cost, _check_model, _check_sizes,  # noqa: F401
                        estimate_memory_gb)

__all__ = [
    "SimulationResult", "simulate", "ridge_readout", "giant_step", "network_first_layer",
    "srf_first_layer", "empirical_srf_parameters", "estimate_memory_gb", "sphere_rows",
    "BLOCK_ROWS", "simulate_convex",
]

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
# one seed

def _first_layer(task: dict, ss: np.random.SeedSequence, student: Activation,
                 teacher: Activation):
    """The first layer of one seed and its measured sRF parameters: ``(W1, emp)``.

    With ``task["steps"] = T > 1`` the network takes T steps, step t on the fresh batch of
    the seed's child ``3 + t`` (step 1 on child 1, as one step always did), and ``emp["steps"]``
    holds the measurements of :func:`~srfsym.simulation.steps_measure.step_measurements`
    after every step."""
    ss_init = seed_children(ss, 1)[0]
    d, p = task["d"], task["p"]
    omega = task.get("omega")
    steps = task.get("steps", 1)
    per_step = []
    if task["model"] == "network":
        W0 = sphere_rows(np.random.default_rng(ss_init), p, d)
        W1 = W0
        for ss_t in _realised_step.step_streams(ss, steps):
            W1 = network_step(student, teacher, W1, task["n0"], task["eta"], ss_t,
                              task["step_dtype"], task["threads"], task.get("tick"), omega)
            if task.get("measure_steps"):
                with limited_blas_threads(task.get("serial_blas_threads", 1)):
                    per_step.append(step_measurements(W0, W1, omega, task["k"]))
    else:
        W0, W1, _ = srf_first_layer(task["r"], task["c"], task["gamma"], d, p / d, ss, omega)
    if not np.all(np.isfinite(W1)):
        raise FloatingPointError("the trained first layer W1 is not finite (the step overflowed: "
                                 "eta too large for this activation/teacher?)")
    with limited_blas_threads(task.get("serial_blas_threads", 1)):   # ARPACK: BLAS-2, memory bound
        emp = empirical_srf_parameters(W0, W1)
        out = {k: emp[k] for k in ("r", "c", "gamma", "singular_values")}
        vhat = emp["vhat"]
        if omega is not None:
            grp = empirical_group_parameters(W0, W1, omega)
            out.update(r_groups=grp["r"], c_groups=grp["c"], gamma=grp["gamma"])
            vhat = grp["vhat"]
        if steps == 1:      # after T > 1 steps the spike spans several directions: not measured
            out["rho2"] = bulk_row_correlation(W1, vhat)["rho2"]
    if per_step:
        out["steps"] = {key: np.array([m[key] for m in per_step]) for key in STEP_KEYS}
    return W1, out


def _run_seed(task: dict) -> dict:
    """Everything for one seed: first layer (unless ``task["first_layer"]`` is given), measured
    sRF parameters, one readout per alpha."""
    student = _rebuild(task["student"])
    teacher = _rebuild(task["teacher"])
    ss = task["seed_sequence"]
    _, _, ss_read, ss_test, _ = seed_children(ss, 5)
    threads, tick = task["threads"], task.get("tick")
    with limited_blas_threads(task.get("blas_threads")):
        if task.get("first_layer") is None:
            W1, emp = _first_layer(task, ss, student, teacher)
        else:
            W1, emp = task["first_layer"]
        if task.get("readout") is not None:      # a convex readout (docs/theory.md (m))
            with limited_blas_threads(task.get("serial_blas_threads", 1)):
                test, train, extra = convex_readout_seed(task, W1, student, teacher, ss_read,
                                                         ss_test)
            return {"test": test, "train": train, "r": emp["r"], "c": emp["c"],
                    "gamma": emp["gamma"], "sv": emp["singular_values"],
                    "r_groups": emp.get("r_groups"), "c_groups": emp.get("c_groups"),
                    "convex": extra, "rho2": emp.get("rho2")}
        labels = teacher if getattr(teacher, "activation", 1) is None else teacher.numpy
        phi_test, y_test = _features_and_labels(student.numpy, labels, W1, ss_test,
                                                task["n_test"], threads)
        sqp = math.sqrt(task["p"])
        test, train = [], []
        for n, ss_a in zip(task["ns"], seed_children(ss_read, len(task["ns"]))):
            phi, y = _features_and_labels(student.numpy, labels, W1, ss_a, n, threads)
            for arr in (phi, y, phi_test, y_test):
                if not np.all(np.isfinite(arr)):
                    raise FloatingPointError(
                        "features or labels are not finite (sigma(W1 x) or sigma_star(x_1) "
                        "overflows float64): no readout can be fitted")
            # one big Gram product and Cholesky: BLAS threads, never more than the caller allowed
            # (serial_blas_threads = min(workers, BLAS threads when simulate was called))
            with limited_blas_threads(task.get("serial_blas_threads", 1)):
                a_hat = ridge_readout(phi, y, task["lam"])
            train.append(float(np.mean((y - phi @ a_hat / sqp) ** 2)))
            test.append(float(np.mean((y_test - phi_test @ a_hat / sqp) ** 2)))
            del phi, y
            if tick is not None:
                tick()
    return {"test": test, "train": train, "r": emp["r"], "c": emp["c"], "gamma": emp["gamma"],
            "sv": emp["singular_values"], "r_groups": emp.get("r_groups"),
            "c_groups": emp.get("c_groups"), "steps": emp.get("steps"), "rho2": emp.get("rho2")}


def _portable(act: Activation):
    if not isinstance(act, Activation):     # multi-index hook (issue 28): rebuilt from text
        return ("multi-index", act.name, act.k)
    return (act.name, act.expr, act.known_closed_form, act.description)


def _rebuild(spec) -> Activation:
    if not isinstance(spec, tuple):      # an Activation or a MultiIndexTarget
        return spec
    if spec[0] == "multi-index":
        from ..symbolic.targets import multi_index_target
        return multi_index_target(spec[1], spec[2])
    name, expr, known, description = spec
    return Activation(name=name, expr=expr, known_closed_form=known, description=description)


# --------------------------------------------------------------------------------------
# running the seeds and assembling the result

def _progress_bar(a: dict):
    """A tqdm bar counting step chunks and readouts (``"chunks"``) or seeds (``"seeds"``)."""
    from tqdm.auto import tqdm
    if a["parallel"] != "chunks":
        return tqdm(total=a["seeds"], desc="simulate", unit="seed")
    rows = step_chunk_rows(a["d"], a["p"], np.dtype(a["step_dtype"]).itemsize)
    n0 = a["n0"]
    n_chunks = a["steps"] * (-(-n0 // rows)) if (a["model"] == "network" and n0 > 0) else 0
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
        with limited_blas_threads(1):
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


def _stacked_steps(layers: list):
    """The per-step measurements, one array per key with a leading axis over first layers
    (``None`` when they were not taken)."""
    if not layers or layers[0].get("steps") is None:
        return None
    return {key: np.array([o["steps"][key] for o in layers]) for key in STEP_KEYS}


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
        steps=a["steps"], step_measurements=_stacked_steps(layers),
        row_correlation=(None if any(o.get("rho2") is None for o in layers)
                         else np.array([o["rho2"] for o in layers])),
        settings={"workers": a["workers"], "parallel": a["parallel"],
                  "step_dtype": np.dtype(a["step_dtype"]).name,
                  "memory_estimate_gb": a["memory_estimate"],
                  "shared_first_layer": bool(a["shared_first_layer"]),
                  "first_layer_reused_across_alpha": True, "test_set_reused_across_alpha": True},
        **convex_result_fields(a["readout"], out))


def simulate(student, teacher, alpha0: float, eta: float, lam: float, alpha, d: int,
             beta: float = 1.0, seeds: int = 3, n_test: int = 5000, model: str = "network",
             r: float | None = None, c: float | None = None, gamma: float | None = None,
             seed: int = 0, workers: int | None = None, progress: bool = False,
             max_memory_gb: float = 8.0, parallel: str = "chunks",
             step_dtype="float32", shared_first_layer: bool = False,
             vocabulary=None, *, loss="square", noise: float = 0.0, bias: bool = False,
             label_rule: str = "teacher", steps: int = 1) -> SimulationResult:
    r"""Simulate one giant step + ridge (or convex) readout (or the sRF model) at finite ``d``.

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
        Seeds one after another with the step's chunks over ``workers`` threads (least
        memory), or seeds in processes (see *Parallelism* in the module docstring).
    step_dtype : {"float32", "float64"}
        Floating type of the step's matrix products (accumulated in float64 either way).
    shared_first_layer : bool
        One first layer (seed 0's) for every seed (see *Shared first layer* in the module
        docstring).
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout before the step ``a0_k = omega_k / sqrt(p)`` (docs/theory.md (k.1)); group j
        is a block of ``round(pi_j p)`` neurons (:meth:`Vocabulary.group_sizes`).  For
        ``model="srf"`` group j gets spike ``r omega_j`` and bulk variance ``1 + omega_j^2
        (c - 1)`` with the given (uniform) ``r, c``.  ``r_emp_groups``, ``c_emp_groups`` are
        then measured per letter along the direction of ``sum_k omega_k (w1_k - w0_k)``, as
        the step bulk measures them (:func:`~srfsym.simulation.result.empirical_group_parameters`).
    loss, noise, bias, label_rule
        The readout of docs/theory.md (m) (see *Convex readouts* in the module docstring);
        the square loss without noise, bias or Bernoulli labels is the ridge path itself.

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
             step_dtype=step_dtype, shared_first_layer=shared_first_layer, vocabulary=vocabulary,
             steps=steps)
    _check_sizes(a)
    _check_model(a)
    a["readout"] = check_readout(loss, noise, bias, label_rule, a["teacher_act"], a["lam"])
    _check_cost(a)
    bar = _progress_bar(a) if progress else None
    try:
        out = _run_seeds(a, _base(a), seed_children(np.random.SeedSequence(a["seed"]), a["seeds"]), bar)
    finally:
        if bar is not None:
            bar.close()
    return _result(a, out, time.perf_counter() - t_start)


def _base(a):
    """What every seed's worker needs of the checked arguments ``a`` (picklable)."""
    # never raise BLAS above what the caller set (e.g. OPENBLAS_NUM_THREADS=1 on a shared node)
    return {"model": a["model"], "student": _portable(a["student_act"]),
            "teacher": _portable(a["teacher_act"]), "d": a["d"], "p": a["p"], "n0": a["n0"],
            "eta": a["eta"], "lam": a["lam"], "ns": [int(v) for v in a["ns"]],
            "n_test": a["n_test"], "r": a["r"], "c": a["c"], "gamma": a["gamma"],
            "step_dtype": np.dtype(a["step_dtype"]).name,
            "serial_blas_threads": min(a["workers"], current_blas_threads() or 1),
            "omega": a["omega"], "readout": a["readout"], "steps": a["steps"],
            "k": a["target"].k,
            "measure_steps": a["model"] == "network" and (a["steps"] > 1
                                                          or not a["target"].is_single_index)}


def simulate_convex(student, teacher, r, c, gamma, lam, alpha, d, beta=1.0, *,
                    loss="logistic", noise=0.0, bias=False, seeds=3, n_test=20000, seed=0,
                    label_rule="teacher"):
    """The convex readout on the sRF model at one ``alpha``, as a dict: a thin wrapper of
    :func:`srfsym.simulation.simulate.simulate` with ``model="srf"`` (the same first layer,
    labels and readout; one process).  Returns the means and standard errors over ``seeds``
    of the test classification error (labels +-1), ``test_mse`` (test labels: the noisy +-1
    label, or the clean real target), the training loss (penalty excluded), ``q2 =
    ||a||^2/p``, ``m = <1, a>/sqrt(p)`` and the bias, and ``rows``, one dict per seed with the
    solver's diagnostics.  (Before it was a wrapper it drew its own samples: other draws, and
    the noisy target as the test label of real labels.)

    >>> res = simulate_convex("tanh", "sign", 1.2, 1.1, 0.8, lam=0.05, alpha=2.0, d=200,
    ...                       loss="logistic", seeds=1, n_test=2000)
    >>> 0.1 < res["classification_error"] < 0.4
    True
    """
    res = simulate(student, teacher, 0.0, 0.0, lam, [alpha], d, beta, seeds=seeds,
                   n_test=n_test, model="srf", r=r, c=c, gamma=gamma, seed=seed, workers=1,
                   loss=loss, noise=noise, bias=bias, label_rule=label_rule)
    if res.convex_per_seed is None:
        raise ValueError("simulate_convex fits a convex readout: the square loss without noise, "
                         "bias or Bernoulli labels is the ridge, use simulate(model='srf')")
    per_seed = {"classification_error": res.convex_per_seed["classification_error"],
                "test_mse": res.test_error_per_seed, "train_loss": res.convex_per_seed["train_loss"],
                "q2": res.convex_per_seed["q2"], "m": res.convex_per_seed["m"],
                "bias": res.convex_per_seed["output_bias"]}
    out = {"d": res.d, "p": res.p, "seeds": res.seeds, "loss": res.loss}
    rows = [{k: float(v[i][0]) for k, v in per_seed.items()} for i in range(res.seeds)]
    for row, diag in zip(rows, res.readout_diagnostics):
        row.update(diag[0])
    for k in per_seed:
        v = np.array([row[k] for row in rows])
        out[k] = float(v.mean())
        out[k + "_sem"] = float(v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else float("nan")
    out["rows"] = rows
    return out
