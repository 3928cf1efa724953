"""The first layer of the simulated network: the realised giant step and the frozen sRF weights.

The network's ``W0`` and ``W1`` (docs/theory.md (a)) come from :mod:`srfsym.step.realised`
(:func:`network_first_layer`, :func:`giant_step`, re-exported here); the frozen weights of the
sRF model of docs/theory.md (c) from :func:`srf_first_layer`.

>>> Wb, W, v = srf_first_layer(0.5, 1.2, 0.8, d=30)
>>> W.shape
(30, 30)
"""
from __future__ import annotations

import math

import numpy as np

from ..step.realised import (BLOCK_ROWS, apply_activation, as_seed_sequence, limited_blas_threads,  # noqa: F401
                             seed_children, step_chunk_rows, available_cores, current_blas_threads,
                             network_step, value_and_derivative, layer_width, giant_step,
                             network_first_layer, sphere_rows)

__all__ = ["BLOCK_ROWS", "sphere_rows", "giant_step", "network_first_layer", "srf_first_layer"]


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
    ss_init, _, _, _, ss_misc = seed_children(as_seed_sequence(seed), 5)
    p = layer_width(d, beta)
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
