"""The giant step realised on random matrices at finite d (docs/theory.md (a)).

Rows ``w0_k`` of ``W0`` are i.i.d. uniform on the unit sphere; one step on ``n0 = floor(alpha0 d)``
fresh samples ``x ~ N(0, I_d)``, ``y = sigma_star(x_1)``::

    w1_k = w0_k + (eta/n0) sum_i (y_i - f(x_i; a0, W0)) sigma'(<w0_k, x_i>) x_i

:func:`giant_step` takes given data; :func:`network_first_layer` draws ``W0`` and the step data
from the random streams that :func:`srfsym.simulation.simulate.simulate` uses (one
``numpy.random.SeedSequence`` child per role, step data in blocks of :data:`BLOCK_ROWS` rows,
one generator per block), so the theory's step bulk (``bulk="step"``,
:mod:`srfsym.theory.spectral.step_bulk`) and the simulated network share the same ``W1`` seed by seed.
Also here: the BLAS thread control shared by the whole simulation.  (The mapping module
beside this one gives the d -> infinity limit of the same step.)

>>> W0, W1 = network_first_layer("tanh", "sin", 2.0, 1.0, d=20)
>>> W0.shape == W1.shape == (20, 20)
True
"""
from __future__ import annotations

import math
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

from ..symbolic.activations import Activation, activation

__all__ = ["BLOCK_ROWS", "sphere_rows", "giant_step", "network_first_layer",
           "one_stream_step", "step_streams"]

#: Rows of step data drawn by one generator (fixes the random stream independently of chunking).
BLOCK_ROWS = 512
#: Target size of the per-thread working set of one chunk of step samples.
_CHUNK_BYTES = 192 * 2**20


# --------------------------------------------------------------------------------------
# small helpers

def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def apply_activation(fn, z: np.ndarray) -> np.ndarray:
    """Evaluate a lambdified activation on ``z``: a fresh writeable array of z's shape and dtype.

    (Constant derivatives, e.g. of ``x``, lambdify to a Python scalar; the identity returns ``z``
    itself, which must not be modified in place.)
    """
    return _as_array_like(fn(z), z)


def _as_array_like(out, z: np.ndarray) -> np.ndarray:
    out = np.asarray(out)
    if out.shape != z.shape:
        out = np.broadcast_to(out, z.shape)
    if out.dtype != z.dtype or not out.flags.writeable or np.may_share_memory(out, z):
        out = out.astype(z.dtype)
    return out


_JOINT_CACHE: dict = {}


def value_and_derivative(act: Activation):
    """Evaluator ``z -> (sigma(z), sigma'(z))`` sharing common subexpressions (tanh once, not twice).

    Dirac masses of sigma' are dropped, as in ``Activation.numpy_derivative``.
    """
    key = (act.expr,)
    if key not in _JOINT_CACHE:
        import sympy as sp
        from ..symbolic.activations import X, lambdify_numpy
        deriv = act.derivative.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
        fn = lambdify_numpy(X, (act.expr, deriv))

        def both(z, fn=fn):
            value, slope = fn(z)
            return _as_array_like(value, z), _as_array_like(slope, z)
        _JOINT_CACHE[key] = both
    return _JOINT_CACHE[key]


def seed_children(ss: np.random.SeedSequence, k: int) -> list:
    """The first ``k`` children of ``ss``, independent of how often ``ss`` was spawned before."""
    return [np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (i,),
                                   pool_size=ss.pool_size) for i in range(k)]


def as_seed_sequence(seed) -> np.random.SeedSequence:
    return seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)


def sphere_rows(rng: np.random.Generator, p: int, d: int, radius: float = 1.0) -> np.ndarray:
    """``p`` i.i.d. rows uniform on the sphere of radius ``radius`` in R^d (float64).

    Drawn as Gaussian rows, then normalised (docs/theory.md (a)).

    >>> w = sphere_rows(np.random.default_rng(0), 3, 5, radius=2.0)
    >>> np.allclose(np.linalg.norm(w, axis=1), 2.0)
    True
    """
    w = rng.standard_normal((p, d))
    w *= radius / np.linalg.norm(w, axis=1, keepdims=True)
    return w


# --------------------------------------------------------------------------------------
# BLAS thread control (threadpoolctl)

_CONTROLLER = None
_controller_lock = threading.Lock()


def _controller():
    global _CONTROLLER
    with _controller_lock:
        if _CONTROLLER is None:      # scanning the loaded libraries once is enough
            from threadpoolctl import ThreadpoolController
            _CONTROLLER = ThreadpoolController()
    return _CONTROLLER


def current_blas_threads() -> int | None:
    """The smallest thread count of the loaded BLAS libraries now (``None`` if none found)."""
    counts = [lib["num_threads"] for lib in _controller().select(user_api="blas").info()]
    return min(counts) if counts else None


@contextmanager
def limited_blas_threads(n: int | None):
    """Temporarily set the BLAS thread pools of this process to ``n`` (no-op if ``None``).

    The setting is process-wide; nested uses on one thread restore correctly, but
    :func:`simulate` must not run in several threads of one process at once (use
    ``parallel="seeds"`` or separate processes).
    """
    if n is None:
        yield
        return
    with _controller().limit(limits=int(n), user_api="blas"):
        yield



# memory estimate

def layer_width(d: int, beta: float) -> int:
    return int(round(beta * d))


# --------------------------------------------------------------------------------------
# the giant step

def teacher_labels(sig_star, x: np.ndarray) -> np.ndarray:
    """Labels of the rows of ``x`` (n x d): ``sigma_star(x_1)`` for a single-index teacher,
    ``g(x_1..x_k)`` for a multi-index target (an evaluator with ``columns = k``; the target
    directions are e_1..e_k).

    >>> teacher_labels(np.tanh, np.zeros((2, 3))).tolist()
    [0.0, 0.0]
    """
    # multi-index hook (issue 28): the target's directions are the first k coordinates
    k = getattr(sig_star, "columns", None)
    if k is not None:
        return sig_star(np.asarray(x[:, :k], dtype=float)).astype(x.dtype, copy=False)
    return apply_activation(sig_star, np.ascontiguousarray(x[:, 0]))


def _step_chunk(sig_dsig, sig_star, w0t: np.ndarray, x: np.ndarray, y: np.ndarray | None,
                out: np.ndarray, omega: np.ndarray | None = None) -> np.ndarray:
    """``out <- sum_i (y_i - f(x_i)) sigma'(W0 x_i) x_i^T`` over the rows of ``x`` (p x d);
    with readout letters ``omega`` (one per neuron), ``f = (1/p) sum_k omega_k sigma`` (the
    caller multiplies row k by omega_k)."""
    z = x @ w0t                                           # (b, p) preactivations
    if y is None:
        y = sig_star(x)                                   # labels of the rows of x
    s, g = sig_dsig(z)
    del z
    if omega is None:
        f = s.mean(axis=1)                                # f(x; a0, W0) = (1/p) sum_k sigma
    else:
        f = s @ omega.astype(s.dtype, copy=False) / s.shape[1]
    del s
    g *= (y - f).astype(g.dtype, copy=False)[:, None]
    np.matmul(g.T, x, out=out)
    return out


def giant_step(student, W0: np.ndarray, X: np.ndarray, y: np.ndarray, eta: float,
               chunk_rows: int = 4096, omega=None) -> np.ndarray:
    r"""One giant gradient step of docs/theory.md (a) on given data; returns ``W1``.

    ``w1_k = w0_k + (eta/n0) sum_i (y_i - f(x_i; a0, W0)) sigma'(<w0_k, x_i>) x_i`` with
    ``a0 = 1/sqrt(p)`` and ``eta`` = the tilde-eta of docs/theory.md (a), computed in float64, ``chunk_rows``
    samples at a time.

    Parameters
    ----------
    student : str or Activation
        sigma (its derivative must have no Dirac mass).
    W0 : ndarray, shape (p, d)
    X : ndarray, shape (n0, d)
    y : ndarray, shape (n0,)
    eta : float
    omega : ndarray, shape (p,), optional
        Readout letters (``a0_k = omega_k / sqrt(p)``, docs/theory.md (k.1)); the default is
        the uniform readout ``omega_k = 1``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> W0, X = sphere_rows(rng, 4, 3), rng.standard_normal((10, 3))
    >>> giant_step("tanh", W0, X, np.sin(X[:, 0]), 0.0).shape
    (4, 3)
    """
    act = activation(student)
    if act.has_dirac_derivative:
        raise ValueError(f"student {act.name!r} has a Dirac mass in sigma' and cannot take a step")
    W0 = np.asarray(W0, dtype=float)
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n0 = X.shape[0]
    if n0 == 0:
        return W0.copy()
    w0t = np.ascontiguousarray(W0.T)
    acc = np.zeros_like(W0)
    buf = np.empty_like(W0)
    om = None if omega is None else np.asarray(omega, dtype=float)
    for lo in range(0, n0, chunk_rows):
        acc += _step_chunk(value_and_derivative(act), None, w0t, X[lo:lo + chunk_rows],
                           y[lo:lo + chunk_rows], buf, om)
    acc *= eta / n0
    if om is not None:
        acc *= om[:, None]
    acc += W0
    return acc


def _labels_of(teacher):
    """``x -> y`` for a teacher activation (``sigma_star(x_1)``) or a multi-index target
    (:class:`~srfsym.step.step_target.StepTarget`, ``g(x_1, .., x_k)``)."""
    if getattr(teacher, "activation", None) is not None:
        teacher = teacher.activation
    if hasattr(teacher, "labels"):
        return teacher.labels
    fn = teacher.numpy           # sigma_star of x_1, or g of x_1..x_k (issue 28)
    return lambda x: teacher_labels(fn, x)


def step_chunk_rows(d: int, p: int, itemsize: int) -> int:
    per_row = (d + 5 * p) * itemsize
    return BLOCK_ROWS * max(1, int(_CHUNK_BYTES // (per_row * BLOCK_ROWS)))


def network_step(student: Activation, teacher: Activation, W0: np.ndarray, n0: int, eta: float,
                  ss_step: np.random.SeedSequence, dtype, threads: int, tick=None,
                  omega=None) -> np.ndarray:
    """W1 from W0 with n0 fresh samples drawn blockwise from ``ss_step`` (threaded over chunks)."""
    if n0 == 0:
        return W0.copy()
    p, d = W0.shape
    dtype = np.dtype(dtype)
    n_blocks = -(-n0 // BLOCK_ROWS)
    block_seqs = seed_children(ss_step, n_blocks)
    rows = step_chunk_rows(d, p, dtype.itemsize)
    per_chunk = rows // BLOCK_ROWS
    chunks = [list(range(lo, min(lo + per_chunk, n_blocks))) for lo in range(0, n_blocks, per_chunk)]
    threads = max(1, min(threads, len(chunks)))
    w0t = np.ascontiguousarray(W0.T, dtype=dtype)
    sig_dsig, sig_star = value_and_derivative(student), _labels_of(teacher)

    def work(my_chunks):
        acc = np.zeros((p, d))
        buf = np.empty((p, d), dtype=dtype)
        x = np.empty((rows, d), dtype=dtype)
        for blocks in my_chunks:
            m = 0
            for b in blocks:
                nb = min(BLOCK_ROWS, n0 - b * BLOCK_ROWS)
                np.random.default_rng(block_seqs[b]).standard_normal(out=x[m:m + nb], dtype=dtype)
                m += nb
            acc += _step_chunk(sig_dsig, sig_star, w0t, x[:m], None, buf, omega)
            if tick is not None:
                tick()
        return acc

    if threads == 1:
        acc = work(chunks)
    else:
        # static round-robin assignment: a fixed summation order for a fixed thread count
        with limited_blas_threads(1), ThreadPoolExecutor(threads) as pool:
            parts = list(pool.map(work, [chunks[t::threads] for t in range(threads)]))
        acc = parts[0]
        for part in parts[1:]:
            acc += part
        del parts
    acc *= eta / n0
    if omega is not None:
        acc *= np.asarray(omega, dtype=float)[:, None]
    acc += W0
    return acc


def network_first_layer(student, teacher, alpha0: float, eta: float, d: int, beta: float = 1.0,
                        seed=0, step_dtype="float32", workers: int | None = 1, omega=None,
                        vocabulary=None, steps: int = 1):
    r"""Initial and trained first layers ``(W0, W1)`` of docs/theory.md (a) for one seed.

    ``steps = T > 1``: ``(W0, W_T)`` after T giant steps (docs/theory.md (p)), step t on a
    fresh batch (stream :func:`step_streams`) with the full residual ``y - f_{t-1}(x)``;
    ``teacher`` may then be a multi-index target
    (:func:`~srfsym.step.step_target.step_target`).

    Uses the same random streams as :func:`simulate` (``seed`` may be an int or a
    ``numpy.random.SeedSequence``; the latter is what :func:`simulate` passes per seed).
    ``omega``: readout letters, one per neuron (docs/theory.md (k.1)); or ``vocabulary``
    (letters, or a :class:`~srfsym.step.vocabulary.Vocabulary`), whose letters are laid out as
    :func:`simulate` lays them (``Vocabulary.neuron_letters(p)``: group j a block of
    ``group_sizes(p)[j]`` neurons).

    Examples
    --------
    >>> W0, W1 = network_first_layer("tanh", "sin", 0.0, 3.0, d=20)
    >>> bool(np.array_equal(W0, W1))
    True
    >>> from srfsym.step.vocabulary import vocabulary
    >>> _, Wa = network_first_layer("tanh", "sin", 2.0, 3.0, d=20, vocabulary=[1, 2])
    >>> _, Wb = network_first_layer("tanh", "sin", 2.0, 3.0, d=20,
    ...                             omega=vocabulary([1, 2]).neuron_letters(20))
    >>> bool(np.array_equal(Wa, Wb))
    True
    """
    from .step_target import step_target
    target = step_target(teacher)
    student = activation(student)
    teacher = target.activation if target.is_single_index else target
    ss_init = seed_children(as_seed_sequence(seed), 1)[0]
    p = layer_width(d, beta)
    if vocabulary is not None:
        if omega is not None:
            raise ValueError("give the readout letters once: omega or vocabulary, not both")
        from .vocabulary import vocabulary as make_vocabulary
        voc = make_vocabulary(vocabulary)
        omega = None if voc.is_uniform else voc.neuron_letters(p)
    W0 = sphere_rows(np.random.default_rng(ss_init), p, d)
    n0 = int(math.floor(alpha0 * d))
    if n0 > 0 and student.has_dirac_derivative:
        raise ValueError(f"student {student.name!r} has a Dirac mass in sigma' and cannot take a step")
    W1 = W0
    with limited_blas_threads(1):        # parallel over sample chunks only, as in simulate
        for ss_step in step_streams(as_seed_sequence(seed), steps):
            W1 = network_step(student, teacher, W1, n0, eta, ss_step, step_dtype,
                              workers or available_cores(), omega=omega)
    return W0, W1


def step_streams(ss: np.random.SeedSequence, steps: int) -> list:
    """The random streams of the step data of one seed: step 1 on child 1 of ``ss`` (as one
    step always was), step t >= 2 on child ``3 + t`` (children 2..4 are the readout, test and
    sRF streams of :func:`srfsym.simulation.simulate.simulate`).

    >>> ss = np.random.SeedSequence(5)
    >>> [s.spawn_key for s in step_streams(ss, 3)]
    [(1,), (5,), (6,)]
    """
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    kids = seed_children(ss, 4 + int(steps))
    return [kids[1]] + kids[5:]


def one_stream_step(student, teacher, alpha0: float, eta: float, beta: float, d: int, seed):
    """One step drawn from a single generator ``numpy.random.default_rng(seed)`` (``W0`` rows
    on the unit sphere, then the ``n0 = int(alpha0 d)`` samples), for comparisons with the
    bulk law given one batch: ``(W0, W1, W_bulk, residuals)`` with ``W_bulk = W1 (I - v v^T)``
    (``v`` the mean update's direction) and ``residuals = y - f(x; a0, W0)`` of the batch.
    (:func:`network_first_layer` draws the simulation's streams instead.)

    >>> W0, W1, Wb, e = one_stream_step("tanh", "sin", 2.0, 3.0, 1.0, 30, seed=1)
    >>> Wb.shape, e.shape, bool(np.abs(Wb @ ((W1 - W0).mean(axis=0))).max() < 1e-12)
    ((30, 30), (60,), True)
    >>> one_stream_step("tanh", "sin", 0.01, 3.0, 1.0, 30, seed=1)
    Traceback (most recent call last):
    ...
    ValueError: one_stream_step needs p = round(beta d) >= 1 and n0 = int(alpha0 d) >= 1 step samples, got p = 30, n0 = 0 (d = 30)
    """
    p, n0 = int(round(beta * d)), int(alpha0 * d)
    if p < 1 or n0 < 1 or d < 1:
        raise ValueError(f"one_stream_step needs p = round(beta d) >= 1 and n0 = int(alpha0 d) "
                         f">= 1 step samples, got p = {p}, n0 = {n0} (d = {d})")
    rng = np.random.default_rng(seed)
    W0 = sphere_rows(rng, p, d)
    X = rng.standard_normal((n0, d))
    y = activation(teacher).numpy(X[:, 0])
    W1 = giant_step(student, W0, X, y, eta)
    residuals = y - activation(student).numpy(X @ W0.T).mean(axis=1)
    del X
    mu = (W1 - W0).mean(axis=0)
    norm = float(np.linalg.norm(mu))
    if not norm > 0:
        raise ValueError("the mean update W1 - W0 vanishes (eta = 0 or no step): the bulk has no "
                         "spike direction to remove")
    v = mu / norm
    return W0, W1, W1 - np.outer(W1 @ v, v), residuals
