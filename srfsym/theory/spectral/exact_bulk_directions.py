r"""The spike and teacher directions of the step's bulk for any student (docs/theory.md (g.5)):
the three quadratic forms ``q_xy = x^T (I + y d Sigma)^{-1} x'``, ``x, x' in {vhat, zeta}``, with
``d Sigma = (I + a S1)^2 + b S2`` (``a = eta mu_2`` may be non-zero: relu and other non-odd
students).

Derivation (the linearisation of :mod:`srfsym.theory.spectral.exact_bulk`).  With ``w = -1/y``,
``(I + y d Sigma)^{-1} = (d Sigma - w)^{-1} / y`` is the ``(1, 1)`` block of the inverse of the
``2d x 2d`` pencil ``L = L0(w) (x) I_d + (1/n0) sum_i C(e_i) (x) x_i x_i^T``,
``L0 = [[-w, 1], [1, -1]]``, ``C(e) = [[b e^2, a e], [a e, 0]]``.  Split off the teacher
coordinate (``x_i = (xi_i, x~_i)``, ``e_i = e(xi_i)``, ``x~`` independent of both): ``L`` has the
``2 x 2`` corner ``L0 + E[xi^2 C]``, the cross term ``B = (1/n0) sum_i xi_i C_i (x) x~_i`` and the
rest ``L~`` (the same pencil on ``x~``).  A vector ``(1/n0) sum_i g(e_i, xi_i) (x) x~_i`` meets
``L~^{-1}`` only through the diagonal blocks of ``X~^T L~^{-1} X~`` (the blocks ``i != j`` change
sign with ``x~_i`` alone), which by one leave-one-out are ``d Q(e_i)``,
``Q(e) = G (I + C(e) G / alpha0)^{-1}``, ``G`` the ``2 x 2`` fixed point of ``ExactBulk``.  So, with
``f = (1, 0)``, the spike vector ``s = X^T e / n0 = (m, s~)``, ``m = E[e xi]``:

    K  = L0 + E[xi^2 C (I + G C / alpha0)^{-1}],      t = E[xi e C Q f] / alpha0,
    u0 = E[e^2 Q_11] / alpha0,                        h = m f - t,
    e1^T (d Sigma - w)^{-1} e1 = (K^{-1})_11,   e1^T (...)^{-1} s = (K^{-1} h)_1,
    s^T (...)^{-1} s = h^T K^{-1} h + u0 .

At ``a = 0`` these are the odd-student closed forms of docs/theory.md (g.5) (checked in
``derivations/14_step_bulk.py`` and ``tests/test_exact_bulk_directions.py``).

>>> import numpy as np
>>> from srfsym.theory.spectral.exact_bulk import ExactBulk
>>> b = ExactBulk("tanh", "sin", 0.5, 5.0, beta=2.0)
>>> q = pencil_direction_forms(b, np.array([1.0]))
>>> [round(float(x[0].real), 4) for x in q]          # the odd closed forms: 0.091, 0.0078, 0.4431
[0.091, 0.0078, 0.4431]
"""
from __future__ import annotations

import math

import numpy as np

from ..state import ConvergenceError
from .exact_bulk_resolvent import population_resolvent

__all__ = ["pencil_direction_forms"]


def _inv2(m11, m12, m21, m22):
    det = m11 * m22 - m12 * m21
    return m22 / det, -m12 / det, -m21 / det, m11 / det


def pencil_direction_forms(bulk, y):
    """``(q_vv, q_vz, q_zz)`` at complex ``y`` (array) for the law of ``bulk`` (an
    :class:`~srfsym.theory.spectral.exact_bulk.ExactBulk` with teacher coordinates), any ``a``."""
    y = np.atleast_1d(np.asarray(y, dtype=complex))
    w = -1.0 / y
    e, wt, xi, a0 = bulk.e, bulk.w, bulk.xi, bulk.alpha0
    c11, c12 = bulk.b * e**2, bulk.a * e                    # C = [[c11, c12], [c12, 0]]
    G, ok = population_resolvent(w, (c11, c12), wt, a0)
    if not ok:
        raise ConvergenceError("the 2 x 2 population fixed point of the exact bulk did not "
                               "converge (docs/theory.md (g.5)); try bulk='step' or 'isotropic'",
                               residual=float("nan"))
    g11, g12, g22 = G                                       # (nz, 1) each
    # M = I + G C / alpha0 and its inverse, per node
    m11 = 1.0 + (g11 * c11 + g12 * c12) / a0
    m12 = g11 * c12 / a0
    m21 = (g12 * c11 + g22 * c12) / a0
    m22 = 1.0 + g12 * c12 / a0
    i11, i12, i21, i22 = _inv2(m11, m12, m21, m22)
    # C M^{-1} (the self-energy per node) and Q = G (I + C G/alpha0)^{-1} = M^{-1} G
    s11 = c11 * i11 + c12 * i21
    s12 = c11 * i12 + c12 * i22
    s22 = c12 * i12
    q11 = i11 * g11 + i12 * g12
    q21 = i21 * g11 + i22 * g12
    x2 = xi**2
    k11, k12, k22 = -w + s11 @ (wt * x2), 1.0 + s12 @ (wt * x2), -1.0 + s22 @ (wt * x2)
    # t = E[xi e C Q f] / alpha0 with Q f = (q11, q21)
    cq1, cq2 = c11 * q11 + c12 * q21, c12 * q11
    t1, t2 = (cq1 @ (wt * xi * e)) / a0, (cq2 @ (wt * xi * e)) / a0
    u0 = (q11 @ (wt * e**2)) / a0
    m = float(wt @ (e * xi))
    r11, r12, _, r22 = _inv2(k11, k12, k12, k22)
    h1, h2 = m - t1, -t2
    e1e1 = r11
    e1s = r11 * h1 + r12 * h2
    ss = h1 * (r11 * h1 + r12 * h2) + h2 * (r12 * h1 + r22 * h2) + u0
    e1e1, e1s, ss = e1e1 / y, e1s / y, ss / y              # (I + y d Sigma)^{-1} = (...)^{-1}/y
    s2 = m * m + float(wt @ e**2) / a0                      # |s|^2
    g = m / math.sqrt(s2)
    qvv, qv1 = ss / s2, e1s / math.sqrt(s2)
    qvz = (qv1 - g * qvv) / math.sqrt(1.0 - g * g)
    qzz = (e1e1 - 2.0 * g * qv1 + g * g * qvv) / (1.0 - g * g)
    return qvv, qvz, qzz
