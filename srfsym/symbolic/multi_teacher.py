r"""Teacher functions of a multi-index target, conditionally on the spike coordinate (docs/theory.md (n)).

With ``kappa = <v, x>`` (v the unit spike direction) and the alignment vector
``gamma = Theta v`` (``|gamma| <= 1``), the target coordinates are

.. math::
    z = B\,u,\qquad u_1 = |\gamma|\kappa + \rho\,\xi_1,\quad u_j = \xi_j\ (j \ge 2),\qquad
    \rho = \sqrt{1 - |\gamma|^2},\quad \xi \sim N(0, I_k),

where B is an orthogonal k x k matrix whose first column is ``gamma/|gamma|`` (the identity when
``gamma = 0``).  The xi_j are the coordinates of x along k orthonormal directions orthogonal to
v, so conditionally on kappa the teacher splits into

* ``h(kappa) = E[g | kappa]``,
* the linear part ``h1(kappa) . xi`` with the **vector** ``h1_j(kappa) = E[g xi_j | kappa]``
  (its direction turns with kappa when k > 1),
* the second moment ``h2(kappa) = E[g^2 | kappa]``.

At k = 1 these are the single-index ``h, h1, h2`` of :mod:`srfsym.symbolic.cget`.  They are
computed by a tensor Gauss-Hermite rule in xi (exact for polynomial targets up to rounding),
with more nodes along xi_1 (the axis that carries kappa); :func:`teacher_arrays` also returns
the largest change against a rule with about 3/4 of the nodes, the error estimate.

>>> import numpy as np
>>> from srfsym.symbolic.targets import multi_index_target
>>> h, h1, h2, err = teacher_arrays(multi_index_target("z1 + z1*z2"), (0.6, 0.0),
...                                 np.array([0.5, -1.0]))
>>> np.round(h, 12).tolist(), np.round(h1, 12).tolist()      # h = 0.6 kappa, h1 = (0.8, 0.6 kappa)
([0.3, -0.6], [[0.8, 0.3], [0.8, -0.6]])
"""
from __future__ import annotations

import numpy as np

__all__ = ["teacher_arrays", "rotation", "XI_NODES"]

#: Gauss-Hermite nodes along (xi_1, the other xi_j), by k.
XI_NODES = {1: (200, 1), 2: (160, 48), 3: (80, 24), 4: (48, 14)}


def rotation(gamma) -> np.ndarray:
    """An orthogonal k x k matrix whose first column is ``gamma/|gamma|`` (Householder; the
    identity for ``gamma = 0``).

    >>> B = rotation([0.3, 0.4])
    >>> np.allclose(B @ B.T, np.eye(2)), np.allclose(B[:, 0], [0.6, 0.8])
    (True, True)
    """
    g = np.asarray(gamma, dtype=float)
    k = g.size
    norm = np.linalg.norm(g)
    if norm == 0:
        return np.eye(k)
    e = g / norm
    w = e.copy()
    w[0] -= 1.0
    if np.linalg.norm(w) < 1e-15:
        return np.eye(k)
    w /= np.linalg.norm(w)
    return np.eye(k) - 2 * np.outer(w, w)     # reflection mapping e_1 to e


def _rule(n):
    if n == 1:
        return np.zeros(1), np.ones(1)
    x, w = np.polynomial.hermite_e.hermegauss(n)
    return x, w / np.sqrt(2 * np.pi)


def _moments(g_numpy, gamma, kappa, n1, n_rest):
    g = np.asarray(gamma, dtype=float)
    k = g.size
    norm = float(np.linalg.norm(g))
    rho = np.sqrt(max(0.0, 1.0 - norm * norm))
    B = rotation(g)
    x1, w1 = _rule(n1)
    xr, wr = _rule(n_rest)
    axes = [x1] + [xr] * (k - 1)
    grids = np.meshgrid(*axes, indexing="ij")
    xi = np.stack([a.ravel() for a in grids])                 # (k, N)
    w = w1
    for _ in range(k - 1):
        w = np.multiply.outer(w, wr)
    w = w.ravel()
    kap = np.asarray(kappa, dtype=float).reshape(-1, 1, 1)
    u = np.broadcast_to(xi, (kap.shape[0],) + xi.shape).copy()   # (K, k, N)
    u[:, 0, :] = norm * kap[:, 0] + rho * xi[0]
    z = np.einsum("ij,Kjn->Kin", B, u)
    vals = np.asarray(g_numpy(*[z[:, j, :] for j in range(k)]), dtype=float)
    vals = np.broadcast_to(vals, z[:, 0, :].shape)
    if not np.all(np.isfinite(vals)):
        raise FloatingPointError("the target is not finite at some quadrature node")
    h = vals @ w
    h1 = np.einsum("Kn,jn,n->Kj", vals, xi, w)
    h2 = (vals * vals) @ w
    return h, h1, h2


def teacher_arrays(target, gamma, kappa, nodes=None):
    """``(h, h1, h2, error)`` at the points ``kappa``: ``h, h2`` of shape (K,), ``h1`` of shape
    (K, k) in the orthonormal coordinates xi of the module docstring, and the largest absolute
    change of any of them against a coarser rule (the quadrature error estimate).

    >>> from srfsym.symbolic.targets import multi_index_target
    >>> h, h1, h2, err = teacher_arrays(multi_index_target("z1**2"), (0.0,), [0.0])
    >>> round(float(h[0]), 12), round(float(h2[0]), 12), err < 1e-12
    (1.0, 3.0, True)
    """
    g = np.asarray(gamma, dtype=float).ravel()
    if g.size != target.k:
        raise ValueError(f"the alignment vector has {g.size} entries, the target {target.name!r}"
                         f" has k = {target.k} directions")
    if not np.all(np.isfinite(g)) or np.linalg.norm(g) > 1 + 1e-12:
        raise ValueError(f"the alignment vector must be finite with |gamma| <= 1, got {g}")
    n1, nr = nodes or XI_NODES[target.k]
    f = target.numpy._f
    fine = _moments(f, g, kappa, n1, nr)
    coarse = _moments(f, g, kappa, max(2, (3 * n1) // 4), max(1, (3 * nr) // 4) if nr > 1 else 1)
    err = max(float(np.max(np.abs(a - b))) for a, b in zip(fine, coarse))
    return (*fine, err)
