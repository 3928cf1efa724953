"""Finite-size simulation: the one-giant-step network and the sRF model it maps to.

This module runs the experiment of docs/theory.md (a) on actual random
matrices and measures, from the trained first layer, the spiked-RF parameters
of section (c).  It imports only :mod:`srfsym.symbolic.activations` and (for the default
sRF parameters) :mod:`srfsym.step.mapping`.

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
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field

import numpy as np
import scipy.linalg as sla

from ..symbolic.activations import Activation, activation

__all__ = [
    "SimulationResult", "simulate", "ridge_readout", "giant_step", "network_first_layer",
    "srf_first_layer", "empirical_srf_parameters", "estimate_memory_gb", "sphere_rows",
    "BLOCK_ROWS",
]

#: Rows of step data drawn by one generator (fixes the random stream independently of chunking).
BLOCK_ROWS = 512
#: Target size of the per-thread working set of one chunk of step samples.
_CHUNK_BYTES = 192 * 2**20
#: Rows of readout / test samples turned into features at a time.
_FEATURE_CHUNK_ROWS = 512
#: Rough resident size of the interpreter with numpy, scipy and sympy imported.
_BASELINE_BYTES = 0.35 * 2**30


# --------------------------------------------------------------------------------------
# small helpers

def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _apply(fn, z: np.ndarray) -> np.ndarray:
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


def _value_and_derivative(act: Activation):
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


def _children(ss: np.random.SeedSequence, k: int) -> list:
    """The first ``k`` children of ``ss``, independent of how often ``ss`` was spawned before."""
    return [np.random.SeedSequence(ss.entropy, spawn_key=tuple(ss.spawn_key) + (i,),
                                   pool_size=ss.pool_size) for i in range(k)]


def _as_seed_sequence(seed) -> np.random.SeedSequence:
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


def _current_blas_threads() -> int | None:
    """The smallest thread count of the loaded BLAS libraries now (``None`` if none found)."""
    counts = [lib["num_threads"] for lib in _controller().select(user_api="blas").info()]
    return min(counts) if counts else None


@contextmanager
def _blas_threads(n: int | None):
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


# --------------------------------------------------------------------------------------
# ridge readout

def ridge_readout(features: np.ndarray, y: np.ndarray, lam: float, form: str = "auto") -> np.ndarray:
    r"""Ridge readout ``argmin_a sum_i (y_i - <a, phi_i>/sqrt(p))^2 + lam |a|^2`` (docs/theory.md (a)).

    Parameters
    ----------
    features : ndarray, shape (n, p)
        Feature matrix ``Phi`` (rows ``phi(x_i) = sigma(W1 x_i)``).
    y : ndarray, shape (n,)
        Labels.
    lam : float
        Ridge penalty (``>= 0``).  ``lam = 0`` returns the minimum-norm least-squares
        solution (the ``lam -> 0+`` limit), via ``scipy.linalg.lstsq``.
    form : {"auto", "primal", "dual"}
        ``"primal"`` solves ``(Phi^T Phi/p + lam I_p) a = Phi^T y/sqrt(p)``; ``"dual"`` solves
        ``(Phi Phi^T/p + lam I_n) u = y`` and returns ``a = Phi^T u/sqrt(p)``; ``"auto"``
        takes the smaller system (primal iff ``p <= n``).  Both by Cholesky
        (``cho_factor``/``cho_solve``), never an explicit inverse.

    Returns
    -------
    ndarray, shape (p,)
        ``hat a``.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> phi, y = rng.standard_normal((6, 4)), rng.standard_normal(6)
    >>> np.allclose(ridge_readout(phi, y, 0.3, "primal"), ridge_readout(phi, y, 0.3, "dual"))
    True
    """
    features = np.asarray(features, dtype=float)
    y = np.asarray(y, dtype=float)
    n, p = features.shape
    if y.shape != (n,):
        raise ValueError(f"y must have shape ({n},), got {y.shape}")
    if not lam >= 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    if form not in ("auto", "primal", "dual"):
        raise ValueError(f"form must be 'auto', 'primal' or 'dual', got {form!r}")
    sqp = math.sqrt(p)
    if lam == 0:
        return sla.lstsq(features / sqp, y, lapack_driver="gelsd", check_finite=False)[0]
    if form == "auto":
        form = "primal" if p <= n else "dual"
    if form == "primal":
        gram = features.T @ features
        gram /= p
        gram.flat[:: p + 1] += lam
        rhs = features.T @ y / sqp
        return sla.cho_solve(sla.cho_factor(gram, overwrite_a=True, check_finite=False), rhs,
                             check_finite=False)
    gram = features @ features.T
    gram /= p
    gram.flat[:: n + 1] += lam
    u = sla.cho_solve(sla.cho_factor(gram, overwrite_a=True, check_finite=False), y,
                      check_finite=False)
    return features.T @ u / sqp


# --------------------------------------------------------------------------------------
# the giant step

def _step_chunk(sig_dsig, sig_star, w0t: np.ndarray, x: np.ndarray, y: np.ndarray | None,
                out: np.ndarray, omega: np.ndarray | None = None) -> np.ndarray:
    """``out <- sum_i (y_i - f(x_i)) sigma'(W0 x_i) x_i^T`` over the rows of ``x`` (p x d);
    with readout letters ``omega`` (one per neuron), ``f = (1/p) sum_k omega_k sigma`` (the
    caller multiplies row k by omega_k)."""
    z = x @ w0t                                           # (b, p) preactivations
    if y is None:
        y = _apply(sig_star, np.ascontiguousarray(x[:, 0]))
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
        acc += _step_chunk(_value_and_derivative(act), None, w0t, X[lo:lo + chunk_rows],
                           y[lo:lo + chunk_rows], buf, om)
    acc *= eta / n0
    if om is not None:
        acc *= om[:, None]
    acc += W0
    return acc


def _chunk_rows(d: int, p: int, itemsize: int) -> int:
    per_row = (d + 5 * p) * itemsize
    return BLOCK_ROWS * max(1, int(_CHUNK_BYTES // (per_row * BLOCK_ROWS)))


def _network_step(student: Activation, teacher: Activation, W0: np.ndarray, n0: int, eta: float,
                  ss_step: np.random.SeedSequence, dtype, threads: int, tick=None,
                  omega=None) -> np.ndarray:
    """W1 from W0 with n0 fresh samples drawn blockwise from ``ss_step`` (threaded over chunks)."""
    if n0 == 0:
        return W0.copy()
    p, d = W0.shape
    dtype = np.dtype(dtype)
    n_blocks = -(-n0 // BLOCK_ROWS)
    block_seqs = _children(ss_step, n_blocks)
    rows = _chunk_rows(d, p, dtype.itemsize)
    per_chunk = rows // BLOCK_ROWS
    chunks = [list(range(lo, min(lo + per_chunk, n_blocks))) for lo in range(0, n_blocks, per_chunk)]
    threads = max(1, min(threads, len(chunks)))
    w0t = np.ascontiguousarray(W0.T, dtype=dtype)
    sig_dsig, sig_star = _value_and_derivative(student), teacher.numpy

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
        with _blas_threads(1), ThreadPoolExecutor(threads) as pool:
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
                        seed=0, step_dtype="float32", workers: int | None = 1, omega=None):
    r"""Initial and trained first layers ``(W0, W1)`` of docs/theory.md (a) for one seed.

    Uses the same random streams as :func:`simulate` (``seed`` may be an int or a
    ``numpy.random.SeedSequence``; the latter is what :func:`simulate` passes per seed).
    ``omega``: readout letters, one per neuron (docs/theory.md (k.1)).

    Examples
    --------
    >>> W0, W1 = network_first_layer("tanh", "sin", 0.0, 3.0, d=20)
    >>> bool(np.array_equal(W0, W1))
    True
    """
    student, teacher = activation(student), activation(teacher)
    ss_init, ss_step, _, _, _ = _children(_as_seed_sequence(seed), 5)
    p = _width(d, beta)
    W0 = sphere_rows(np.random.default_rng(ss_init), p, d)
    n0 = int(math.floor(alpha0 * d))
    if n0 > 0 and student.has_dirac_derivative:
        raise ValueError(f"student {student.name!r} has a Dirac mass in sigma' and cannot take a step")
    with _blas_threads(1):        # parallel over sample chunks only, as in simulate
        W1 = _network_step(student, teacher, W0, n0, eta, ss_step, step_dtype,
                           workers or _cores(), omega=omega)
    return W0, W1


def srf_first_layer(r: float, c: float, gamma: float, d: int, beta: float = 1.0, seed=0,
                    omega=None):
    r"""Frozen sRF weights of docs/theory.md (c): ``(W_bulk, W_bulk + r 1 vhat^T, vhat)``.

    Rows of ``W_bulk`` are uniform on the sphere of radius ``sqrt(c)``;
    ``vhat = gamma e1 + sqrt(1 - gamma^2) e_perp`` with ``e_perp`` a uniformly random unit vector
    orthogonal to ``e1``.  With readout letters ``omega`` (one per neuron, docs/theory.md
    (k.1)) row k has spike ``r omega_k`` and bulk radius ``sqrt(1 + omega_k^2 (c - 1))``.

    Examples
    --------
    >>> Wb, W, v = srf_first_layer(0.5, 1.2, 0.8, d=30)
    >>> round(float(v[0]), 12), round(float(np.linalg.norm(v)), 12)
    (0.8, 1.0)
    """
    ss_init, _, _, _, ss_misc = _children(_as_seed_sequence(seed), 5)
    p = _width(d, beta)
    Wb = sphere_rows(np.random.default_rng(ss_init), p, d, radius=math.sqrt(c))
    e_perp = np.random.default_rng(ss_misc).standard_normal(d)
    e_perp[0] = 0.0
    e_perp /= np.linalg.norm(e_perp)
    vhat = math.sqrt(max(0.0, 1.0 - gamma * gamma)) * e_perp
    vhat[0] = gamma
    if omega is None:
        W = Wb + r * vhat[None, :]
    else:
        from ..step.vocabulary import group_parameter_expressions
        import sympy as sp
        e = group_parameter_expressions()
        radius = sp.lambdify(e["symbols"], sp.sqrt(e["bulk_variance"]), modules="numpy")
        om = np.asarray(omega, dtype=float)
        Wb *= (radius(om, 0.0, c) / math.sqrt(c))[:, None]
        W = Wb + r * om[:, None] * vhat[None, :]
    return Wb, W, vhat


# --------------------------------------------------------------------------------------
# measured sRF parameters

def _top_singular_values(A, B, k: int = 3) -> np.ndarray:
    """Top ``k`` singular values of ``(B - A)/sqrt(p)`` (ARPACK for large matrices)."""
    p, d = A.shape
    D = B - A
    D /= math.sqrt(p)
    out = np.zeros(k)
    if min(p, d) <= max(64, 2 * k + 2):
        s = np.linalg.svd(D, compute_uv=False)
    elif not np.any(D):
        return out
    else:
        from scipy.sparse.linalg import svds
        v0 = np.random.default_rng(2024).standard_normal(min(p, d))  # fixed start: reproducible
        try:
            s = svds(D, k=k, v0=v0, return_singular_vectors=False)
        except Exception:  # pragma: no cover - ARPACK trouble; fall back to the dense SVD
            s = np.linalg.svd(D, compute_uv=False)
    s = np.sort(np.abs(s))[::-1][:k]
    out[: s.size] = s
    return out


def empirical_srf_parameters(W0: np.ndarray, W1: np.ndarray, theta=None, n_singular: int = 3) -> dict:
    r"""sRF parameters measured on a first layer, as in the verification table of docs/theory.md (c).

    ``r_emp = |(1/p) sum_k (w1_k - w0_k)|``, ``vhat_emp`` = that mean direction normalised,
    ``gamma_emp = |<vhat_emp, theta>|`` (``theta = e1`` by default),
    ``c_emp = (1/p) sum_k |(I - vhat vhat^T) w1_k|^2`` and the top singular values of
    ``(W1 - W0)/sqrt(p)``.  If the mean update vanishes (``alpha0 = 0``), ``vhat`` and
    ``gamma_emp`` are NaN and ``c_emp`` is the mean squared row norm of ``W1``.

    Returns
    -------
    dict
        keys ``r``, ``c``, ``gamma``, ``vhat`` (ndarray), ``singular_values`` (ndarray).

    Examples
    --------
    >>> Wb, W, v = srf_first_layer(0.7, 1.0, 0.9, d=40, seed=1)
    >>> e = empirical_srf_parameters(Wb, W)
    >>> round(e["r"], 10), round(e["gamma"], 10)
    (0.7, 0.9)
    """
    W0 = np.asarray(W0, dtype=float)
    W1 = np.asarray(W1, dtype=float)
    p, d = W1.shape
    mean_update = W1.mean(axis=0) - W0.mean(axis=0)
    r = float(np.linalg.norm(mean_update))
    sq_norms = float(np.einsum("ij,ij->", W1, W1))
    if r > 0:
        vhat = mean_update / r
        if theta is None:
            theta = np.zeros(d)
            theta[0] = 1.0
        theta = np.asarray(theta, dtype=float)
        gamma = float(abs(vhat @ theta))
        proj = W1 @ vhat
        c = (sq_norms - float(proj @ proj)) / p
    else:
        vhat = np.full(d, np.nan)
        gamma = float("nan")
        c = sq_norms / p
    sv = _top_singular_values(W0, W1, n_singular)
    return {"r": r, "c": c, "gamma": gamma, "vhat": vhat, "singular_values": sv}


def empirical_group_parameters(W0: np.ndarray, W1: np.ndarray, omega, theta=None) -> dict:
    r"""Per-letter sRF parameters measured on a first layer trained with readout letters
    ``omega`` (one per neuron; docs/theory.md (k.6)).

    ``vhat`` is the top right singular vector of ``W1 - W0`` (the mean update vanishes for a
    symmetric vocabulary), signed so that ``sum_k omega_k <w1_k - w0_k, vhat> > 0``;
    group j's spike is the mean over its neurons of ``<w1_k - w0_k, vhat>`` (it carries the
    letter's sign), its bulk variance the mean of ``|(I - vhat vhat^T) w1_k|^2``;
    ``gamma = |<vhat, theta>|``.

    Returns
    -------
    dict
        ``letters``, ``r`` (per letter), ``c`` (per letter), ``gamma``, ``vhat``.

    Examples
    --------
    >>> om = np.repeat([1.0, 2.0], 20)
    >>> Wb, W, v = srf_first_layer(0.7, 1.0, 0.9, d=40, seed=1, omega=om)
    >>> e = empirical_group_parameters(Wb, W, om)
    >>> [round(x, 10) for x in e["r"]], round(e["gamma"], 10)
    ([0.7, 1.4], 0.9)
    """
    W0 = np.asarray(W0, dtype=float)
    W1 = np.asarray(W1, dtype=float)
    om = np.asarray(omega, dtype=float)
    p, d = W1.shape
    D = W1 - W0
    _, _, vt = np.linalg.svd(D, full_matrices=False) if min(p, d) <= 2000 else (None, None, None)
    if vt is None:  # pragma: no cover - large: ARPACK
        from scipy.sparse.linalg import svds
        _, _, vt = svds(D, k=1, v0=np.random.default_rng(2024).standard_normal(min(p, d)))
    vhat = vt[0]
    proj = D @ vhat
    if float(om @ proj) < 0:
        vhat, proj = -vhat, -proj
    if theta is None:
        theta = np.zeros(d)
        theta[0] = 1.0
    gamma = float(abs(vhat @ np.asarray(theta, dtype=float)))
    w1v = W1 @ vhat
    bulk = np.einsum("ij,ij->i", W1, W1) - w1v * w1v
    letters = list(dict.fromkeys(om.tolist()))
    r = [float(np.mean(proj[om == w])) for w in letters]
    c = [float(np.mean(bulk[om == w])) for w in letters]
    return {"letters": letters, "r": r, "c": c, "gamma": gamma, "vhat": vhat}


# --------------------------------------------------------------------------------------
# memory estimate

def _width(d: int, beta: float) -> int:
    return int(round(beta * d))


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
# the simulation

@dataclass
class SimulationResult:
    """Outcome of :func:`simulate` (errors per alpha; measured sRF parameters per seed).

    Arrays ``*_per_seed`` have one row per seed; ``test_error`` etc. are means over seeds and
    ``*_sem`` the standard errors of those means (``std(ddof=1)/sqrt(seeds)``, NaN for one seed).
    For ``model="network"``, ``r_emp``, ``c_emp``, ``gamma_emp`` (per seed; a single entry
    with ``shared_first_layer``) and ``singular_values`` (seeds x 3, or 1 x 3) are measured on ``W1 - W0``; for ``model="srf"`` on
    ``W - W_bulk = r 1 vhat^T`` and ``W``.  ``r``, ``c``, ``gamma`` are the sRF parameters used
    (``model="srf"``) or ``None``.
    """

    model: str
    student: str
    teacher: str
    d: int
    p: int
    beta: float
    alpha0: float
    eta: float
    lam: float
    n0: int
    alphas: np.ndarray
    n: np.ndarray
    n_test: int
    seeds: int
    seed: int
    test_error: np.ndarray
    test_error_sem: np.ndarray
    train_error: np.ndarray
    train_error_sem: np.ndarray
    test_error_per_seed: np.ndarray
    train_error_per_seed: np.ndarray
    r_emp: np.ndarray
    c_emp: np.ndarray
    gamma_emp: np.ndarray
    singular_values: np.ndarray
    r: float | None = None
    c: float | None = None
    gamma: float | None = None
    wall_time: float = float("nan")
    settings: dict = field(default_factory=dict)
    vocabulary: dict | None = None
    r_emp_groups: np.ndarray | None = None
    c_emp_groups: np.ndarray | None = None

    @property
    def r_emp_mean(self) -> float:
        return float(np.mean(self.r_emp))

    @property
    def c_emp_mean(self) -> float:
        return float(np.mean(self.c_emp))

    @property
    def gamma_emp_mean(self) -> float:
        return float(np.mean(self.gamma_emp))

    @property
    def singular_values_mean(self) -> np.ndarray:
        return np.mean(self.singular_values, axis=0)

    def to_dict(self) -> dict:
        """JSON-ready dict (arrays as lists, NaN as ``None``)."""
        def clean(v):
            if isinstance(v, np.ndarray):
                return clean(v.tolist())
            if isinstance(v, (list, tuple)):
                return [clean(u) for u in v]
            if isinstance(v, dict):
                return {k: clean(u) for k, u in v.items()}
            if isinstance(v, (float, np.floating)):
                v = float(v)
                return None if math.isnan(v) else v
            if isinstance(v, np.integer):
                return int(v)
            return v
        out = clean(asdict(self))
        out.update(r_emp_mean=clean(self.r_emp_mean), c_emp_mean=clean(self.c_emp_mean),
                   gamma_emp_mean=clean(self.gamma_emp_mean),
                   singular_values_mean=clean(self.singular_values_mean))
        return out

    def summary(self) -> str:
        """A few human-readable lines."""
        head = (f"{self.model} sim: sigma={self.student}, sigma*={self.teacher}, d={self.d}, "
                f"p={self.p}, alpha0={self.alpha0:g} (n0={self.n0}), eta={self.eta:g}, "
                f"lam={self.lam:g}, {self.seeds} seed(s), n_test={self.n_test}, "
                f"{self.wall_time:.1f} s")
        lines = [head]
        if self.settings.get("shared_first_layer"):
            lines.append("  one first layer shared by all seeds: the +- are readout/test "
                         "sampling only")
        if self.model == "srf":
            lines.append(f"  sRF parameters used: r={self.r:.6g}, c={self.c:.6g}, "
                         f"gamma={self.gamma:.6g}")
        sem = (lambda a: "" if a.size < 2 else f" +- {np.std(a, ddof=1)/math.sqrt(a.size):.2g}")
        if self.vocabulary is not None:
            lines.append(f"  readout vocabulary: letters {self.vocabulary['letters']}, "
                         f"weights {self.vocabulary['weights']}")
            for j, w in enumerate(self.vocabulary["letters"]):
                lines.append(f"    letter {w:g}: spike r_j={np.mean(self.r_emp_groups[:, j]):.6f}"
                             f"{sem(self.r_emp_groups[:, j])}, bulk c_j="
                             f"{np.mean(self.c_emp_groups[:, j]):.6f}"
                             f"{sem(self.c_emp_groups[:, j])}")
        lines.append(f"  measured: r={self.r_emp_mean:.6f}{sem(self.r_emp)}, "
                     f"c={self.c_emp_mean:.6f}{sem(self.c_emp)}, "
                     f"gamma={self.gamma_emp_mean:.6f}{sem(self.gamma_emp)}, "
                     f"top sv of dW/sqrt(p)={np.array2string(self.singular_values_mean, precision=4)}")
        lines.append("  alpha      n     test error             train error")
        pm = (lambda e: f" +- {e:.2g}" if np.isfinite(e) else "")   # one seed: no error bar
        for j, a in enumerate(self.alphas):
            lines.append(f"  {a:<8.4g}{self.n[j]:>6d}   {self.test_error[j]:.6f}"
                         f"{pm(self.test_error_sem[j])}    {self.train_error[j]:.6f}"
                         f"{pm(self.train_error_sem[j])}")
        if not np.all(np.isfinite(self.test_error_sem)):
            lines.append("  (one seed: no standard error; use seeds >= 2 for error bars)")
        return "\n".join(lines)


def _features_and_labels(sig, sig_star, W: np.ndarray, ss: np.random.SeedSequence, n: int,
                         threads: int = 1):
    """Draw ``n`` samples x ~ N(0, I_d); return ``Phi = sigma(X W^T)`` (n x p) and ``y``.

    Rows come in blocks of :data:`_FEATURE_CHUNK_ROWS`, one generator (child of ``ss``) per block,
    so the result does not depend on ``threads`` (blocks are spread over threads, BLAS single
    threaded inside them).
    """
    p, d = W.shape
    wt = W.T
    phi = np.empty((n, p))
    y = np.empty(n)
    starts = list(range(0, n, _FEATURE_CHUNK_ROWS))
    seqs = _children(ss, len(starts))

    def work(indices):
        for i in indices:
            lo = starts[i]
            hi = min(n, lo + _FEATURE_CHUNK_ROWS)
            x = np.random.default_rng(seqs[i]).standard_normal((hi - lo, d))
            phi[lo:hi] = _apply(sig, x @ wt)
            y[lo:hi] = _apply(sig_star, np.ascontiguousarray(x[:, 0]))

    threads = max(1, min(threads, len(starts)))
    if threads == 1:
        work(range(len(starts)))
    else:
        with _blas_threads(1), ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, [range(t, len(starts), threads) for t in range(threads)]))
    return phi, y


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
        ``"chunks"`` (default): seeds one after another; the step's sample chunks and the
        readout/test feature blocks are spread over ``workers`` threads.  ``"seeds"``: seeds in
        ``min(workers, seeds)`` processes, one thread each.  BLAS is single-threaded in both
        (OpenBLAS's own threads, spinning at every small call, doubled the wall time on a loaded
        2-core machine).  Both give the same numbers (up to the order of float sums).
        ``"chunks"`` keeps every core busy whatever the number of seeds and needs the least
        memory; ``"seeds"`` has no serial part (ridge solve, ARPACK) and wins when ``seeds`` is a
        multiple of ``workers``.  Measured on a shared 2-core machine (d = 2000, 3 seeds, other
        jobs running): the two were within 5-25 % of each other, ``"seeds"`` ahead.
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
    # ---------------- validation (before any work) ----------------
    if model not in ("network", "srf"):
        raise ValueError(f"model must be 'network' or 'srf', got {model!r}")
    d = _positive_int("d", d, 2)
    alpha0 = _finite_real("alpha0", alpha0)
    if alpha0 < 0:
        raise ValueError(f"alpha0 must be >= 0, got {alpha0}")
    eta = _finite_real("eta", eta)
    if abs(eta) > 1e100:
        raise ValueError(f"eta = {eta:g} is too large (limit 1e100): the stepped weights "
                         "(~eta) overflow double precision in the features and measured r, c")
    lam = _finite_real("lam", lam)
    if lam < 0:
        raise ValueError(f"lam must be >= 0, got {lam}")
    beta = _finite_real("beta", beta)
    if beta <= 0:
        raise ValueError(f"beta must be > 0, got {beta}")
    p = _width(d, beta)
    if p < 1:
        raise ValueError(f"beta * d must give a width p >= 1, got beta={beta}, d={d}")
    alphas = np.atleast_1d(np.asarray(alpha, dtype=object))
    if alphas.ndim != 1 or alphas.size == 0:
        raise ValueError(f"alpha must be a positive number or a non-empty list of them, got {alpha!r}")
    alphas = np.array([_finite_real("alpha", a) for a in alphas], dtype=float)
    if np.any(alphas <= 0):
        raise ValueError(f"alpha must be > 0, got {alpha!r}")
    ns = np.floor(alphas * d).astype(int)
    if np.any(ns < 1):
        raise ValueError(f"alpha * d must be >= 1 (n = floor(alpha d) samples), got alpha={alpha!r}, d={d}")
    seeds = _positive_int("seeds", seeds, 1)
    n_test = _positive_int("n_test", n_test, 1)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    if workers is None:
        workers = _cores()
    workers = _positive_int("workers", workers, 1)
    if parallel not in ("chunks", "seeds"):
        raise ValueError(f"parallel must be 'chunks' or 'seeds', got {parallel!r}")
    if not isinstance(shared_first_layer, (bool, np.bool_)):
        raise ValueError(f"shared_first_layer must be True or False, got {shared_first_layer!r}")
    if np.dtype(step_dtype) not in (np.float32, np.float64):
        raise ValueError(f"step_dtype must be float32 or float64, got {step_dtype!r}")
    max_memory_gb = _finite_real("max_memory_gb", max_memory_gb)
    from ..step.vocabulary import vocabulary as make_vocabulary, check_student
    voc = make_vocabulary(vocabulary)
    check_student(student, voc)
    omega = None if voc.is_uniform else voc.neuron_letters(p)
    student_act, teacher_act = activation(student), activation(teacher)
    _require_second_moment(teacher_act)
    n0 = int(math.floor(alpha0 * d))
    if alpha0 > 0 and n0 < 1:
        raise ValueError(f"alpha0 * d must be >= 1 when alpha0 > 0 (n0 = floor(alpha0 d)), "
                         f"got alpha0={alpha0}, d={d}")
    if model == "network":
        if any(v is not None for v in (r, c, gamma)):
            raise ValueError("r, c, gamma are parameters of model='srf'; the network measures them")
        if n0 > 0 and student_act.has_dirac_derivative:
            raise ValueError(f"student {student_act.name!r} has a Dirac mass in its derivative: "
                             "it cannot take the gradient step (alpha0 > 0); use model='srf' or "
                             "alpha0=0")
    else:
        for name, v in (("r", r), ("c", c), ("gamma", gamma)):
            if v is not None:
                _finite_real(name, v)
        if gamma is not None and not -1.0 <= float(gamma) <= 1.0:
            raise ValueError(f"gamma must lie in [-1, 1], got {gamma}")
        if c is not None and not float(c) > 0:
            raise ValueError(f"c must be > 0, got {c}")
        if any(v is None for v in (r, c, gamma)):
            if alpha0 > 0 and student_act.has_dirac_derivative:
                raise ValueError(f"student {student_act.name!r} has a Dirac mass in its derivative, "
                                 "so the step mapping is undefined: pass r, c and gamma explicitly")
            from ..step.mapping import srf_mapping
            mp = srf_mapping(student, teacher, eta, alpha0)
            r = mp.spike_strength if r is None else r
            c = mp.bulk_variance if c is None else c
            gamma = mp.alignment if gamma is None else gamma
        r, c, gamma = float(r), float(c), float(gamma)
        if not -1.0 <= gamma <= 1.0:
            raise ValueError(f"gamma must lie in [-1, 1], got {gamma}")
        if not c > 0:
            raise ValueError(f"c must be > 0, got {c}")
    est = estimate_memory_gb(model, alpha0, alphas, d, beta, n_test, lam, workers if
                             parallel == "chunks" else min(workers, seeds), parallel, step_dtype)
    if est > max_memory_gb:
        raise ValueError(f"estimated peak memory {est:.2f} GB exceeds max_memory_gb={max_memory_gb:g}; "
                         "reduce d, alpha, n_test or workers, or raise max_memory_gb")
    if model == "network" and alpha0 * d * 4.0 * d * p * seeds > MAX_STEP_FLOPS:
        flops = alpha0 * d * 4.0 * d * p * seeds
        raise ValueError(f"the gradient step with alpha0 = {alpha0:g} uses n0 = alpha0 d = "
                         f"{alpha0 * d:.3g} samples: about {flops:.2g} floating-point operations "
                         f"({flops / 1e10 / 3600:.2g} core-hours at 10 GFLOP/s) over {seeds} "
                         f"seed(s); refused up front (limit {MAX_STEP_FLOPS:.0e}): reduce alpha0 or d")

    # ---------------- work ----------------
    # never raise BLAS above what the caller set (e.g. OPENBLAS_NUM_THREADS=1 on a shared node)
    serial_blas_threads = min(workers, _current_blas_threads() or 1)
    seed_seqs = _children(np.random.SeedSequence(seed), seeds)
    base = {"model": model, "student": _portable(student_act), "teacher": _portable(teacher_act),
            "d": d, "p": p, "n0": n0, "eta": eta, "lam": lam, "ns": [int(v) for v in ns],
            "n_test": n_test, "r": r, "c": c, "gamma": gamma,
            "step_dtype": np.dtype(step_dtype).name, "serial_blas_threads": serial_blas_threads,
            "omega": omega}
    bar = None
    if progress:
        from tqdm.auto import tqdm
        if parallel == "chunks":
            rows = _chunk_rows(d, p, np.dtype(step_dtype).itemsize)
            n_chunks = -(-n0 // rows) if (model == "network" and n0 > 0) else 0
            bar = tqdm(total=(1 if shared_first_layer else seeds) * n_chunks + seeds * len(ns),
                       desc="simulate", unit="step")
        else:
            bar = tqdm(total=seeds, desc="simulate", unit="seed")
    lock = threading.Lock()

    def tick():
        with lock:
            bar.update(1)

    try:
        if shared_first_layer:
            with _blas_threads(1):
                base["first_layer"] = _first_layer(
                    dict(base, threads=workers,
                         tick=tick if (bar is not None and parallel == "chunks") else None),
                    seed_seqs[0], student_act, teacher_act)
        if parallel == "seeds" and workers > 1 and seeds > 1:
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
        else:
            out = []
            for s in seed_seqs:
                task = dict(base, student=student_act, teacher=teacher_act, seed_sequence=s,
                            threads=workers,
                            blas_threads=1,
                            tick=tick if (bar is not None and parallel == "chunks") else None)
                out.append(_run_seed(task))
                if bar is not None and parallel == "seeds":
                    bar.update(1)
    finally:
        if bar is not None:
            bar.close()

    layers = out[:1] if shared_first_layer else out       # one entry per distinct first layer
    test = np.array([o["test"] for o in out])
    train = np.array([o["train"] for o in out])

    def sem(a):
        if a.shape[0] < 2:
            return np.full(a.shape[1:], np.nan)
        return a.std(axis=0, ddof=1) / math.sqrt(a.shape[0])

    return SimulationResult(
        model=model, student=student_act.name, teacher=teacher_act.name, d=d, p=p, beta=beta,
        alpha0=alpha0, eta=eta, lam=lam, n0=n0, alphas=alphas, n=ns, n_test=n_test, seeds=seeds,
        seed=int(seed), test_error=test.mean(axis=0), test_error_sem=sem(test),
        train_error=train.mean(axis=0), train_error_sem=sem(train),
        test_error_per_seed=test, train_error_per_seed=train,
        r_emp=np.array([o["r"] for o in layers]), c_emp=np.array([o["c"] for o in layers]),
        gamma_emp=np.array([o["gamma"] for o in layers]),
        singular_values=np.array([o["sv"] for o in layers]),
        r=r, c=c, gamma=gamma, wall_time=time.perf_counter() - t_start,
        vocabulary=None if voc.is_uniform else voc.to_dict(),
        r_emp_groups=None if voc.is_uniform else np.array([o["r_groups"] for o in layers]),
        c_emp_groups=None if voc.is_uniform else np.array([o["c_groups"] for o in layers]),
        settings={"workers": workers, "parallel": parallel,
                  "step_dtype": np.dtype(step_dtype).name, "memory_estimate_gb": est,
                  "shared_first_layer": bool(shared_first_layer),
                  "first_layer_reused_across_alpha": True, "test_set_reused_across_alpha": True})
