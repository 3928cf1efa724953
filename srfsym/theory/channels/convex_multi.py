r"""The convex-loss channel for a multi-index target (docs/theory.md (n.8)).

Conditionally on the spike coordinate ``kappa`` the target is ``g(z)``, ``z = B u``,
``u_1 = |gamma| kappa + rho xi_1``, ``u_j = xi_j`` (:mod:`srfsym.symbolic.multi_teacher`), with
``xi ~ N(0, I_k)`` the coordinates of ``x`` orthogonal to the spike.  The student's bulk has
one overlap vector ``psi = |psi| e`` with them (the isotropic bulk is rotation invariant in the
complement of the spike), so its cavity field sees ``xi_e = e . xi`` only:
``omega = b + mu1 |psi| xi_e + s t``.  The label depends on ``xi_e`` **and** on the ``k - 1``
coordinates ``eta`` orthogonal to ``e``; the channel of :class:`ConvexChannel` carries over with
the label law averaged over ``eta`` (a tensor Gauss-Hermite rule), at a **fixed** ``e``:

* **labels +-1** (a target with values +-1, e.g. ``sign(z1 + z1*z2)``: ``y = g(z)``): for every
  ``(kappa, eta)`` node the set ``{xi_e : g > 0}`` is a union of intervals, found once per ``e``
  (sign changes on a grid of step 0.025, then bisection to round-off).  Given the cavity field's ``u``,
  ``xi_e ~ N(varrho u, 1 - varrho^2)``, so ``P(y = 1 | kappa, u)`` and ``E[xi_e 1{y=1} | kappa, u]``
  are sums of Gaussian CDF and density differences over the intervals, exact in ``xi_e``
  (a target that depends on ``xi_e`` only -- a rotated single-index ``sign`` -- gives the
  closed-form probit law of the single-index channel);
* **real labels** ``y = g(z) (+ sqrt(noise) xi0)``: the rule in the teacher's orthogonal ``z`` of
  the single-index channel in ``xi_e``, times the ``eta`` rule.

The conjugate ``psi^`` is a k-vector: along ``e`` the channel's scalar ``psi^``, orthogonal to it
``(alpha/sqrt beta) E_kappa[mu1 E[eta f]]`` (:meth:`MultiIndexConvexChannel.psi_hat_vector`); the
solver (:func:`srfsym.theory.multi_index.solve_multi_index_convex`) iterates ``e = psi^/|psi^|``.

>>> import numpy as np
>>> from srfsym.symbolic.targets import multi_index_target
>>> from srfsym.theory.channels.kappa_quadrature import channel_data
>>> ch = channel_data("tanh", "x", 1.0, 1.1, 0.0, nodes=60)
>>> C = MultiIndexConvexChannel(ch, "logistic", alpha=2.0, beta=1.0,
...                             target=multi_index_target("sign(z1 + z1*z2)"),
...                             gamma=(0.8, 0.0), direction=(0.6, 0.8))
>>> C.pm1, C.eta_nodes.shape[2]
(True, 1)
>>> bool(np.all(np.abs(C.h) <= 1))
True
"""
from __future__ import annotations

import math

import numpy as np
from scipy.special import ndtr

from ...symbolic.multi_teacher import rotation, teacher_arrays
from .convex import ConvexChannel, _phi
from .convex_groups import GroupConvexChannel
from ..state import State  # noqa: F401  (the doctest's state)

__all__ = ["MultiIndexConvexChannel", "GroupMultiIndexConvexChannel", "ETA_NODES", "pm1_target",
           "check_labels"]

#: Gauss-Hermite nodes per coordinate orthogonal to e, by k.
ETA_NODES = {1: 1, 2: 48, 3: 16, 4: 8}
#: the xi_e grid on which the sign changes of a +-1 target are looked for (then bisected)
_ROOT_HALF_WIDTH, _ROOT_STEP = 12.0, 0.025


def pm1_target(target, samples=4000) -> bool:
    """True when the target takes the values +-1 only (0 on a null set allowed), probed on
    Gaussian points: a label +-1 target such as ``sign(z1 + z1*z2)``.

    >>> from srfsym.symbolic.targets import multi_index_target
    >>> pm1_target(multi_index_target("sign(z1)*sign(1 + z2)")), pm1_target(multi_index_target("z1*z2"))
    (True, False)
    """
    Z = np.random.default_rng(20281).standard_normal((samples, target.k))
    with np.errstate(all="ignore"):
        v = target.numpy(Z)
    return bool(np.all(np.isfinite(v)) and np.all(np.isin(v, (-1.0, 0.0, 1.0)))
                and np.mean(v == 0) < 0.01)


def check_labels(target, loss, noise=0.0) -> bool:
    """The labels ``y = g(z)`` of ``target`` checked against ``loss`` (a classification loss
    needs a target with values +-1) and ``noise`` (none with labels +-1); True for labels +-1.

    >>> from srfsym.symbolic.targets import multi_index_target
    >>> check_labels(multi_index_target("z1*z2"), "logistic")
    Traceback (most recent call last):
    ...
    srfsym.theory.channels.losses.LossError: the logistic loss is a classification loss: it needs labels +-1, but the multi-index target 'z1*z2' takes other values; write a target with values +-1, e.g. sign(z1 + z1*z2) (labels y = g(z); docs/theory.md (n.8)), or use a regression loss such as 'square'
    """
    from .losses import LossError, loss as make_loss
    pm1 = pm1_target(target)
    lo = make_loss(loss)
    if lo.margin and not pm1:
        raise LossError(
            f"the {lo.name} loss is a classification loss: it needs labels +-1, but the "
            f"multi-index target {target.name!r} takes other values; write a target with values "
            "+-1, e.g. sign(z1 + z1*z2) (labels y = g(z); docs/theory.md (n.8)), or use a "
            "regression loss such as 'square'")
    if pm1 and noise:
        raise ValueError("labels +-1 of a multi-index target with label noise are not "
                         "implemented (the target's values are the labels; docs/theory.md (n.8))")
    return pm1


def _gauss_hermite(n):
    x, w = np.polynomial.hermite_e.hermegauss(n) if n > 1 else (np.zeros(1), np.ones(1))
    return x, w / np.sum(w)


class MultiIndexConvexChannel(ConvexChannel):
    """:class:`~srfsym.theory.channels.convex.ConvexChannel` of a multi-index target at the
    alignment vector ``gamma`` (k entries) with the bulk's overlap along the unit k-vector
    ``direction`` (``e``, in the coordinates xi).  ``ch``: channel data on the kappa rule (its
    teacher functions are replaced).  Labels +-1 when the target takes the values +-1
    (:func:`pm1_target`), else real.  ``nodes_eta``: Gauss-Hermite nodes per coordinate
    orthogonal to ``e`` (default :data:`ETA_NODES`)."""

    def __init__(self, ch, loss="square", *, alpha, beta, target, gamma, direction,
                 noise=0.0, bias=False, method=None, nodes_u=16, nodes_eta=None, **kw):
        self.target = target
        self.gamma_vector = np.asarray(gamma, float).ravel()
        e = np.asarray(direction, float).ravel()
        if self.gamma_vector.shape != (target.k,) or e.shape != (target.k,):
            raise ValueError(f"the alignment vector and the direction need k = {target.k} entries")
        if not abs(np.linalg.norm(e) - 1) < 1e-9:
            raise ValueError(f"the direction e must be a unit vector, got |e| = {np.linalg.norm(e)}")
        self.e = e / np.linalg.norm(e)
        self.complement = rotation(self.e)[:, 1:]          # k x (k - 1), orthonormal, _|_ e
        self._B = rotation(self.gamma_vector)
        n_eta = ETA_NODES[target.k] if nodes_eta is None else int(nodes_eta)
        x, w = _gauss_hermite(n_eta if target.k > 1 else 1)
        grids = np.meshgrid(*([x] * (target.k - 1)), indexing="ij")
        self.eta_nodes = np.stack([a.ravel() for a in grids], axis=1) if target.k > 1 \
            else np.zeros((1, 0))
        wt = np.ones(1)
        for _ in range(target.k - 1):
            wt = np.multiply.outer(wt, w)
        self.eta_weights = wt.ravel()
        pm1 = check_labels(target, loss, noise)
        self._ready = False
        norm = float(np.linalg.norm(self.gamma_vector))
        from dataclasses import replace
        if ch.gamma != min(norm, 1.0):      # (a vocabulary's channel data is built at it)
            ch = replace(ch, gamma=min(norm, 1.0))
        super().__init__(ch, loss, alpha=alpha, beta=beta, teacher="sign" if pm1 else "x",
                         noise=noise, bias=bias, method=method, nodes_u=nodes_u, **kw)
        self.norm, self.rho = norm, math.sqrt(max(0.0, 1 - norm * norm))
        self._ready = True
        K = len(self.k)
        self.eta_nodes = np.broadcast_to(self.eta_nodes, (K,) + self.eta_nodes.shape)
        self.eta_weights = np.broadcast_to(self.eta_weights, (K, len(self.eta_weights)))
        if self.pm1:
            if target.k == 2 and nodes_eta is None:
                self._eta_rule_with_breaks()
            self._intervals()
        self._label_moments()

    # --- the target on (kappa, xi_e, eta) -------------------------------------------
    def _g(self, kappa, xe, eta):
        """``g`` at broadcastable ``kappa``, ``xi_e`` and ``eta`` (last axis k - 1)."""
        xi = xe[..., None] * self.e + eta @ self.complement.T
        u = xi.copy()
        u[..., 0] = self.norm * kappa + self.rho * xi[..., 0]
        z = u @ self._B.T
        with np.errstate(all="ignore"):
            v = np.asarray(self.target.numpy._f(*[z[..., j] for j in range(self.target.k)]),
                           float)
        return np.broadcast_to(v, z.shape[:-1])

    def _signature(self, kap, eta):
        """Per row of ``eta`` (shape (R, 1)): the number of sign changes of ``g`` along the
        ``xi_e`` grid and the sign at its left end (the combinatorial form of the + set)."""
        grid = np.arange(-_ROOT_HALF_WIDTH, _ROOT_HALF_WIDTH + 0.025, 0.05)
        pos = self._g(np.reshape(kap, (-1, 1)), grid[None, :], eta[:, None, :]) > 0
        return np.sum(pos[:, 1:] != pos[:, :-1], axis=1) * 2 + pos[:, 0]

    def _eta_rule_with_breaks(self, half_width=8.0, piece=1.0, n_gl=8):
        """k = 2, labels +-1: per kappa, a composite Gauss-Legendre rule in ``eta`` on
        [-8, 8] (Gaussian weight, pieces of at most 1, 8 nodes each) split where the + set along ``xi_e``
        changes form (a boundary parallel to ``xi_e``, e.g. ``z2 = -1`` when ``e = e_1``: there
        ``P(y = 1 | kappa, eta)`` jumps, which a Gauss-Hermite rule in ``eta`` does not
        resolve); the breaks are located by bisection on the form to 1e-12."""
        t, wt = np.polynomial.legendre.leggauss(n_gl)
        scan = np.linspace(-half_width, half_width, 321)
        brackets = []
        for i, kap in enumerate(self.k):
            sig = self._signature(kap, scan[:, None])
            idx = np.nonzero(sig[1:] != sig[:-1])[0]
            brackets.append((np.full(idx.size, i), scan[idx], scan[idx + 1], sig[idx]))
        which, a, b, sa = (np.concatenate(x) for x in zip(*brackets))
        kap = self.k[which][:, None]
        for _ in range(40):          # all kappa at once
            mid = 0.5 * (a + b)
            same = self._signature(kap, mid[:, None]) == sa
            a, b = np.where(same, mid, a), np.where(same, b, mid)
        rules = []
        for i in range(len(self.k)):
            a_i, b_i = a[which == i], b[which == i]
            edges = np.unique(np.concatenate([[-half_width, half_width], 0.5 * (a_i + b_i)]))
            nodes, weights = [], []
            for x0, x1 in zip(edges[:-1], edges[1:]):
                m = max(1, int(math.ceil((x1 - x0) / piece)))
                for j in range(m):
                    lo, hi = x0 + (x1 - x0) * j / m, x0 + (x1 - x0) * (j + 1) / m
                    x = 0.5 * (hi + lo) + 0.5 * (hi - lo) * t
                    nodes.append(x)
                    weights.append(0.5 * (hi - lo) * wt * _phi(x))
            rules.append((np.concatenate(nodes), np.concatenate(weights)))
        E = max(len(r[0]) for r in rules)
        self.eta_nodes = np.zeros((len(self.k), E, 1))
        self.eta_weights = np.zeros((len(self.k), E))
        for i, (x, w) in enumerate(rules):
            self.eta_nodes[i, :len(x), 0] = x
            self.eta_weights[i, :len(x)] = w / np.sum(w)

    def _intervals(self):
        """For each (kappa, eta) node the intervals of ``xi_e`` where ``g > 0``: arrays
        ``lo, hi`` of shape (kappa, eta, M), unused slots ``(inf, inf)``."""
        grid = np.arange(-_ROOT_HALF_WIDTH, _ROOT_HALF_WIDTH + _ROOT_STEP / 2, _ROOT_STEP)
        E = self.eta_nodes.shape[1]
        found = []
        for i, (kap, nodes) in enumerate(zip(self.k, self.eta_nodes)):
            pos = self._g(kap, grid[None, :], nodes[:, None, :]) > 0    # (eta, grid)
            ch = np.nonzero(pos[:, 1:] != pos[:, :-1])
            found.append((pos[:, 0], np.full(ch[0].size, i), ch[0], grid[ch[1]],
                          grid[ch[1] + 1], pos[ch[0], ch[1]]))
        kk, jj, a, b, pa = (np.concatenate([f[n] for f in found]) for n in range(1, 6))
        kap, ea = self.k[kk], self.eta_nodes[kk, jj]
        for _ in range(48):       # bisection to round-off (step 0.02 / 2^48), all rows at once
            mid = 0.5 * (a + b)
            same = (self._g(kap, mid, ea) > 0) == pa
            a, b = np.where(same, mid, a), np.where(same, b, mid)
        roots = 0.5 * (a + b)
        rows = [(found[i][0], jj[kk == i], roots[kk == i]) for i in range(len(self.k))]
        M = max(1, max((np.bincount(r[1], minlength=E).max(initial=0)
                        for r in rows), default=0) // 2 + 1)
        lo = np.full((len(self.k), E, M), np.inf)
        hi = np.full_like(lo, np.inf)
        for i, (first, which, roots) in enumerate(rows):
            for j in range(E):
                edges = np.concatenate([[-np.inf], roots[which == j], [np.inf]])
                start = 0 if first[j] else 1          # segments alternate in sign
                seg = [(edges[s], edges[s + 1]) for s in range(start, len(edges) - 1, 2)]
                for m, (x0, x1) in enumerate(seg):
                    lo[i, j, m], hi[i, j, m] = x0, x1
        self._lo, self._hi = lo, hi

    # --- the label law ----------------------------------------------------------------
    def _law_pm1(self, uu, vr):
        """``P(y = 1 | kappa, u)``, ``E[xi_e 1{y=1} | kappa, u]`` and ``E[eta 1{y=1} | kappa, u]``
        (last axis k - 1) at ``uu`` of shape (..., kappa, n)."""
        m = vr * uu
        sig = np.broadcast_to(np.sqrt(np.maximum(1 - vr * vr, 0.0)), m.shape)
        sig = np.maximum(sig, 1e-150)[..., None, None]
        lo, hi = self._lo[:, None], self._hi[:, None]           # (kappa, 1, eta, M)
        with np.errstate(invalid="ignore"):
            a_lo = (lo - m[..., None, None]) / sig
            a_hi = (hi - m[..., None, None]) / sig
        p_row = np.sum(ndtr(a_hi) - ndtr(a_lo), axis=-1)        # (..., kappa, n, eta)
        z_row = m[..., None] * p_row + sig[..., 0] * np.sum(_phi(a_lo) - _phi(a_hi), axis=-1)
        w = self.eta_weights
        return (np.einsum("...kne,ke->...kn", p_row, w), np.einsum("...kne,ke->...kn", z_row, w),
                np.einsum("...kne,ke,kej->...knj", p_row, w, self.eta_nodes))

    def _pm1_law(self, uu, vr, shared=False):
        vr = np.asarray(vr, float)
        key = (uu.shape, uu.tobytes(), vr.shape, vr.tobytes())
        cached = getattr(self, "_law_cache", None)
        if cached is not None and cached[0] == key:   # the Newton steps on m at one state
            P, Z, Zeta = cached[1]
        else:
            P, Z, Zeta = self._law_pm1(uu, vr)
            self._law_cache = (key, (P, Z, Zeta))
        self._zeta = Zeta
        return P, Z

    def _label_moments(self):
        """``h = E[y | kappa]``, ``h1 = E[y xi_e | kappa]`` (along e), ``h2 = E[y^2 | kappa]``."""
        if not getattr(self, "_ready", False):
            return
        if self.pm1:
            P, Z, _ = self._law_pm1(np.zeros((len(self.k), 1)), np.zeros((len(self.k), 1)))
            self.h, self.h1 = 2 * P[:, 0] - 1, 2 * Z[:, 0]
            self.h2_train = self.h2_test = np.ones_like(self.k)
            return
        h, h1v, h2, self.teacher_quadrature_error = teacher_arrays(
            self.target, self.gamma_vector, self.k)
        self.h, self.h1, self.h2_test = h, h1v @ self.e, h2
        self.h2_train = h2 + self.noise

    def _real_table(self):
        """The single-index rule in ``xi_e`` times the Gauss-Hermite rule in ``eta``, flattened;
        the labels ``g`` on it (and the ``eta`` of each node, kept for :meth:`_extra_moments`)."""
        z, Wz = self._z_rule()
        K, n = z.shape
        E = self.eta_weights.shape[1]
        Z = np.repeat(z[:, :, None], E, axis=2).reshape(K, n * E)
        W = (Wz[:, :, None] * self.eta_weights[:, None, :]).reshape(K, n * E)
        eta = np.broadcast_to(self.eta_nodes[:, None], (K, n, E, self.target.k - 1)
                              ).reshape(K, n * E, -1)
        y = self._g(self.k[:, None], Z, eta)
        if not np.all(np.isfinite(y)):
            raise FloatingPointError("the target is not finite at some quadrature node")
        self._eta_flat = eta
        return Z, W, np.asarray(y, float)

    def _extra_moments(self, out, W, f):
        """``E[eta f]`` per kappa (shape (kappa, k - 1))."""
        if self.pm1:
            Zeta = self._zeta                  # (1 or 2, kappa, n, k - 1): the label y = +1
            zp, zm = Zeta[0], Zeta[-1]
            out["Eetaf"] = (np.einsum("kn,kn,knj->kj", W[0], f[0], zp)
                            - np.einsum("kn,kn,knj->kj", W[1], f[1], zm))
        else:
            Wf = (W * f).reshape(W.shape[0], W.shape[1], -1).sum(axis=2)
            out["Eetaf"] = np.einsum("kz,kzj->kj", Wf, self._eta_flat)

    def psi_hat_vector(self, state, b0=0.0):
        """The k-vector conjugate ``psi^`` at ``state``: ``psi^ e`` of the scalar channel plus
        ``(alpha/sqrt beta) E_kappa[mu1 E[eta f]]`` along the complement of ``e``."""
        pt = self.point(*state, b0)
        mom = self.moments(pt)
        scalar = self.hats(mom, state.psi).psihat
        perp = self.alpha / math.sqrt(self.beta) * (self.w * self.mu1) @ mom["Eetaf"]
        return scalar * self.e + self.complement @ perp


class GroupMultiIndexConvexChannel(GroupConvexChannel, MultiIndexConvexChannel):
    """The K-group convex channel (docs/theory.md (m.8)) with the multi-index label law of
    :class:`MultiIndexConvexChannel` at one learned direction ``e`` shared by the letters
    (docs/theory.md (n.8)): every letter's overlap is ``psi_j e`` (the state's K-vector
    ``psi``), so the cavity field sees ``xi_e`` only and the channel's per-kappa totals are
    those of :class:`~srfsym.theory.channels.convex_groups.GroupConvexChannel`.  ``gch``: the
    vocabulary's channel data built at ``gamma = min(|gamma|, 1)``.

    >>> from srfsym.symbolic.targets import multi_index_target
    >>> from srfsym.theory.channels.kappa_quadrature import group_channel_data
    >>> g = group_channel_data("tanh", "sign", 1.0, 1.1, 0.8, [1, 2], nodes=40)
    >>> C = GroupMultiIndexConvexChannel(g, "logistic", alpha=2.0, beta=1.0,
    ...         target=multi_index_target("sign(z1 + z1*z2)"), gamma=(0.8, 0.0),
    ...         direction=(1.0, 0.0), nodes_u=8)
    >>> s = State(0.5 * np.eye(2), np.full(2, 0.3), 0.5 * np.eye(2), np.full(2, 0.5),
    ...           np.full(2, 0.2), np.full(2, 0.1), np.zeros(2))
    >>> C.psi_hat_matrix(s).shape
    (2, 2)
    """

    def psi_hat_matrix(self, state, b0=0.0):
        """The K x k conjugate: row ``j`` is letter ``j``'s ``psi^_j e`` plus
        ``(alpha/sqrt beta) E_kappa[mu1_j E[eta f]]`` along the complement of ``e``."""
        pt = self.point(*state, b0)
        mom = self.moments(pt)
        along = np.asarray(self.hats(mom, state.psi).psihat, float)
        perp = self.alpha / math.sqrt(self.beta) * (self.gmu1 * self.w) @ mom["Eetaf"]
        return along[:, None] * self.e[None, :] + perp @ self.complement.T
