"""The ridge readout of the network on its trained first layer (docs/theory.md (a)).

On ``n = floor(alpha d)`` fresh samples, features ``phi = sigma(W1 x)`` (drawn in blocks of
:data:`_FEATURE_CHUNK_ROWS` rows, one generator per block) and
``hat a = argmin sum_i (y_i - <a, phi_i>/sqrt(p))^2 + lam |a|^2`` (a sum loss, no 1/2), solved by a
Cholesky factorisation of the smaller of the primal ``p x p`` and dual ``n x n`` Gram matrices
(:func:`ridge_readout`); ``lam = 0`` is the minimum-norm least-squares solution.

>>> rng = np.random.default_rng(0)
>>> ridge_readout(rng.standard_normal((5, 3)), rng.standard_normal(5), 0.1).shape
(3,)
"""
from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import scipy.linalg as sla

from .first_layer import apply_activation, limited_blas_threads, seed_children
from ..step.realised import teacher_labels

__all__ = ["ridge_readout"]

#: Rows of readout / test samples turned into features at a time.
_FEATURE_CHUNK_ROWS = 512


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
    seqs = seed_children(ss, len(starts))

    def work(indices):
        for i in indices:
            lo = starts[i]
            hi = min(n, lo + _FEATURE_CHUNK_ROWS)
            x = np.random.default_rng(seqs[i]).standard_normal((hi - lo, d))
            phi[lo:hi] = apply_activation(sig, x @ wt)
            if hasattr(sig_star, "labels"):      # a several-steps target (StepTarget)
                y[lo:hi] = sig_star.labels(x)
            else:                                # sigma_star(x_1), or g(x_1..x_k) (issue 28)
                y[lo:hi] = teacher_labels(sig_star, x)

    threads = max(1, min(threads, len(starts)))
    if threads == 1:
        work(range(len(starts)))
    else:
        with limited_blas_threads(1), ThreadPoolExecutor(threads) as pool:
            list(pool.map(work, [range(t, len(starts), threads) for t in range(threads)]))
    return phi, y
