r"""The Stieltjes transform of the feature spectrum: the solver of docs/theory.md (j.3), (k.5).

``s(z)`` is the ridge fixed point's ``V``-system at a complex penalty ``lambda = -(n/p) z``:
the channel side is the square-loss channel's ``v_hats``
(:class:`~srfsym.theory.channels.square.SquareLossChannel`), the spectral side any back end's
``stieltjes_pair`` (Marchenko-Pastur continued to complex arguments, or an eigenvalue array),
and for a readout vocabulary the block-Wishart equation
(:func:`~srfsym.theory.spectral.block_wishart.block_wishart_map`, the same code as the fixed
point's prior).

**The physical branch.**  The equations have several solutions; the spectrum's is the one
that is analytic in the upper half plane and a Stieltjes transform of a positive measure on
``[0, inf)``: ``Im s >= 0`` and ``Im (z s) >= 0`` (and the same for ``g1`` and every group's
trace).  A cold value is obtained by continuation from far above the real axis (where the
map contracts to the physical solution) down to ``Im z`` in steps of a factor 8 (2 if a step
leaves the branch), and every returned value is checked against these signs; a warm start
(the previous point of a density scan) that lands elsewhere is replaced by the continuation.

The kappa rule (trapezoidal, :data:`NODE_LADDER`) is refined until two node counts agree to
the requested relative tolerance; that difference is reported as the error estimate.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from ...core.budget import BudgetExceeded, check as _budget_check

from ..channels.kappa_quadrature import channel_data, group_channel_data
from ..engine import _anderson
from ..spectral.block_wishart import block_wishart_map, block_wishart_parts
from ..channels.square import SquareLossChannel
from ..state import ConvergenceError
from ...core.precision import workdps

__all__ = ["StieltjesValue", "StieltjesSolver", "NODE_LADDER"]


#: kappa node ladder of the double-precision evaluation (trapezoidal rule on [-9.5, 9.5]:
#: the weights 1/(1 + V(kappa)) have poles near the real kappa axis when Im z is small and
#: the spike is strong, where Gauss-Hermite stalls: at eta = 8, z = 0.1 + 0.01i, 200
#: Gauss-Hermite nodes err by 1e-3, 3200 by 1e-8; 400 trapezoid nodes by 1e-13).
NODE_LADDER = (150, 225, 340, 500, 750, 1100, 1700, 2500, 3800, 5600, 8400)


@dataclass(frozen=True)
class StieltjesValue:
    """``s(z)`` with how it was obtained: kappa nodes, the change from the previous node
    count (relative; the error estimate), solver sweeps, and the companion ``g1(z) =
    tr(A Gbar)/p``."""

    z: complex
    s: complex
    g1: complex
    nodes: int
    node_error: float
    iterations: int

    def to_dict(self) -> dict:
        return {"z": [self.z.real, self.z.imag], "stieltjes": [self.s.real, self.s.imag],
                "g1": [self.g1.real, self.g1.imag], "kappa_nodes": self.nodes,
                "relative_error_estimate": self.node_error, "iterations": self.iterations}


def _check_ratio(name, v):
    try:
        x = float(v)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, got {v!r}") from None
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be positive and finite, got {v!r}")
    return x


def _check_z(z):
    """Complex z off the support: Im z > 0, or z < 0 on the real axis; Im z < 0 is answered
    by conjugate symmetry s(conj z) = conj s(z) (the caller conjugates back)."""
    try:
        z = complex(z)
    except (TypeError, ValueError):
        raise ValueError(f"z must be a complex number, got {z!r}") from None
    if not (math.isfinite(z.real) and math.isfinite(z.imag)):
        raise ValueError(f"z must be finite, got {z}")
    if z.imag == 0 and z.real >= 0:
        raise ValueError(f"z = {z.real:g} lies on the non-negative real axis, where the "
                         "spectrum lives: give Im z > 0 (or z < 0)")
    return z



class StieltjesSolver:
    """The s(z) solver of :class:`~srfsym.theory.feature.spectrum.FeatureSpectrum` (a mixin:
    reads ``student, r, c, beta, nu, bulk, voc, tol`` and the warm start ``_warm``)."""

    # the system
    def _problem(self, nodes, dps=None):
        rc = (self.r, self.c) if dps is None else (repr(self.r), repr(self.c))
        # the channel needs a teacher only for the test error: gamma = 0 makes it inert
        ch = channel_data(self.student, self.student, *rc, 0.0 if dps is None else "0",
                          nodes=nodes, dps=dps, kind="trapezoid")
        # hats carry alpha / beta = n / p
        return SquareLossChannel(ch, self.beta / self.nu, self.beta)

    def _v_map(self, P, z, V, dps=None):
        V1hat, V2hat, _ = P.v_hats(V[0], V[1])
        inv, rho = self.bulk.stieltjes_pair(-z / self.nu + V2hat, V1hat,
                                            previous=V[1], dps=dps)
        return rho, inv

    def _solve(self, P, z, start):
        """Anderson-accelerated iteration of the (V1, V2) map from ``start``; if it fails,
        again from the cold start -1/z with a smaller memory, then plain damped iteration."""
        G = lambda V: np.array(self._v_map(P, z, V), dtype=complex)   # noqa: E731
        cold = np.array([self.nu * self.c * (-1 / z), self.nu * (-1 / z)], dtype=complex)
        last = None
        # relative accuracy: the iterates grow like 1/|z| near the hard edge at 0; a bulk
        # solved by iteration itself (the exact law) sets how close its values come
        tol = getattr(self.bulk, "iteration_tol", 1e-14) * max(
            1.0, float(np.max(np.abs(cold))), float(np.max(np.abs(start))))
        for x0, memory, damping, iters in ((start, 5, 0.5, 400), (cold, 3, 0.3, 400),
                                           (cold, 0, 0.5, 20000)):
            try:
                V, it, _ = _anderson(G, np.asarray(x0, dtype=complex), tol, iters,
                                     memory=memory, damping=damping)
                return V, it
            except BudgetExceeded:
                raise
            except (ConvergenceError, ValueError, ZeroDivisionError) as exc:
                last = exc
        residual = getattr(last, "residual", float("nan"))
        raise ConvergenceError(f"feature spectrum at z = {z}: the (g1, g2) iteration did not "
                               f"converge (last change {residual:.3e}; {last})",
                               residual=residual, iterate=getattr(last, "iterate", None))

    # --- the block-Wishart system of a vocabulary (docs/theory.md (k.5)) -----------------
    def _group_channel(self, nodes):
        return group_channel_data(self.student, self.student, self.r, self.c, 0.0, self.voc,
                                  nodes=nodes, kind="trapezoid")

    def _solve_groups(self, nodes, z, start):
        """Anderson iteration of the K-group map (docs/theory.md (k.5))::

            delta(k) = nu (v^T M v + sum_j pi_j mu*_j^2 R_j),   v_j = sqrt(c_j) mu1_j(k),
                       M = Lambda (I + beta Ctilde Lambda)^-1,  Lambda = diag(pi_j R_j)
            Ctilde = E v v^T / (1 + delta),    D_j = E mu*_j^2 / (1 + delta)
            R_j' = 1 / (D_j - z + [Ctilde (I + beta Lambda Ctilde)^-1]_jj),  s = sum_j pi_j R_j

        The iterate is (R, Ctilde), so that the map is a function of the iterate alone.  On the
        exact law of the step's bulk (``group_law``, docs/theory.md (g.5.2)) the rows' variances
        ``c_j`` become ``ell_j(varsigma)`` inside the average over the batch's law: ``v_j =
        mu1_j(k)``, ``M`` and the bracket are the law's expectations."""

        ch = self._group_channel(nodes)
        K = self.K
        pi = np.asarray(self.voc.weights)
        law = self.group_law
        cj = np.ones(K) if law is not None else np.asarray(ch.group_c, dtype=float)
        v = np.sqrt(cj)[:, None] * ch.mu1
        mus2 = ch.mustar2

        def G(x):
            R, Ct = x[:K], x[K:].reshape(K, K)
            if law is None:
                Lam, _, N = block_wishart_parts(R, Ct, pi, self.beta)
                M = N * Lam[None, :]              # Lambda (I + beta Ctilde Lambda)^-1
            else:
                M = law.expectations(R, Ct)[1]
            delta = self.nu * (np.einsum("jn,jk,kn->n", v, M, v)
                               + np.einsum("j,jn->n", pi * R, mus2))
            w = 1 / (1 + delta)
            Ct_new = np.einsum("jn,kn,n,n->jk", v, v, w, ch.weights)
            D = np.einsum("jn,n,n->j", mus2, w, ch.weights)
            if law is None:
                R_new = block_wishart_map(R, D - z, Ct_new, pi, self.beta)
            else:
                R_new = 1 / (D - z + law.expectations(R, Ct_new)[0])
            return np.concatenate([R_new, Ct_new.ravel()])

        x0 = np.asarray(start, dtype=complex)
        tol = 1e-14 * max(1.0, float(np.max(np.abs(x0))))
        last = None
        for memory, damping, iters in ((5, 0.5, 400), (3, 0.3, 400), (0, 0.5, 20000)):
            try:
                return _anderson(G, x0, tol, iters, memory=memory, damping=damping)[:2]
            except BudgetExceeded:
                raise
            except (ConvergenceError, ValueError, ZeroDivisionError,
                    np.linalg.LinAlgError) as exc:
                last = exc
        residual = getattr(last, "residual", float("nan"))
        raise ConvergenceError(f"feature spectrum with the {self.voc} at z = {z}: the "
                               f"group iteration did not converge (last change "
                               f"{residual:.3e}; {last})", residual=residual, iterate=None)

    def _group_g1(self, x):
        K = self.K
        pi = np.asarray(self.voc.weights)
        R, Ct = x[:K], x[K:].reshape(K, K)
        if self.group_law is not None:            # tr(A Gbar)/p = 1^T V1 1 on the exact law
            return complex(np.sum(self.group_law.expectations(R, Ct)[1]))
        cj = np.asarray(self.voc.group_bulk_variances(self.c))
        Lam, _, N = block_wishart_parts(R, Ct, pi, self.beta)
        M = N * Lam[None, :]
        sc = np.sqrt(cj)
        return complex(sc @ M @ sc)          # tr(A Gbar)/p = sum_jl sqrt(c_j c_l) M_jl

    def _cold(self, z):
        if not self._use_groups:
            return (self.nu * self.c * (-1 / z), self.nu * (-1 / z))
        K = self.K
        return np.concatenate([np.full(K, -1 / z, dtype=complex),
                               np.zeros(K * K, dtype=complex)])

    def _s_g1(self, V):
        """(s, g1) from the solver's iterate."""
        if not self._use_groups:
            return V[1] / self.nu, V[0] / self.nu
        return complex(np.dot(self.voc.weights, V[:self.K])), self._group_g1(V)

    def _solve_at_nodes(self, K, z, start):
        if not self._use_groups:
            return self._solve(self._problem(K), z, start)
        return self._solve_groups(K, z, start)

    # --- the physical branch -----------------------------------------------------------
    def _physical(self, V, z) -> bool:
        """Whether the iterate is a Stieltjes transform of a positive measure on [0, inf):
        ``Im q >= 0`` and ``Im (z q) >= 0`` for ``q = s, g1`` and every group's trace (on the
        negative real axis: ``q > 0``)."""
        s, g1 = self._s_g1(V)
        parts = [s, g1] + (list(V[:self.K]) if self._use_groups else [])
        for q in parts:
            q = complex(q)
            if not (math.isfinite(q.real) and math.isfinite(q.imag)):
                return False
            if z.imag > 0:
                zq = z * q
                if q.imag < -1e-9 * abs(q) or zq.imag < -1e-9 * abs(zq):
                    return False
            elif q.real < 0:
                return False
        return True

    def _descend(self, z, nodes, factor=8.0):
        """The physical solution at ``z`` by continuation from ``Im z = max(|z|, scale)``
        (far above the axis) down to ``Im z``, warm-started step by step."""
        scale = max(abs(z), float(np.mean(getattr(self.bulk, "D", [self.c]))), 1.0)
        y = max(scale, z.imag)
        V = self._cold(complex(z.real, y))
        total = 0
        while True:
            _budget_check("the feature spectrum")
            zz = complex(z.real, max(y, z.imag))
            V, it = self._solve_at_nodes(nodes, zz, V)
            total += it
            if not self._physical(V, zz):
                raise ConvergenceError(f"feature spectrum at z = {z}: the continuation from "
                                       f"Im z = {scale:g} left the physical branch at {zz}",
                                       residual=float("nan"), iterate=V)
            if zz == z:
                return V, total
            y /= factor

    def stieltjes_value(self, z, warm_start=True, tol=None) -> StieltjesValue:
        """``s(z)`` with its provenance (:class:`StieltjesValue`) on the physical branch; the
        kappa rule is refined until two node counts agree to ``tol`` relative (default: the
        spectrum's ``tol``).  A warm start (the previous point's solution) that does not
        settle, or settles off the physical branch, is replaced by the continuation from far
        above the axis.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> v = feature_spectrum("tanh", r=1.134, c=1.019).stieltjes_value(0.6 + 0.1j)
        >>> bool(v.node_error < 1e-10), v.nodes
        (True, 225)
        """
        z0 = _check_z(z)
        z = z0.conjugate() if z0.imag < 0 else z0
        tol = self.tol if tol is None else tol
        if hasattr(self.bulk, "forget_last_point"):     # its warm start serves one solve
            self.bulk.forget_last_point()
        starts = (["warm"] if warm_start and self._warm is not None else []) + ["descent", "fine"]
        last = None
        for kind in starts:
            try:
                if kind == "warm":
                    start = self._warm
                elif z.imag == 0:          # the negative real axis: the cold start is physical
                    start = self._cold(z)
                else:
                    start, _ = self._descend(z, NODE_LADDER[0], 8.0 if kind == "descent" else 2.0)
                V, K, err, it = self._ladder(z, start, tol)
                if self._physical(V, z):
                    break
                last = ConvergenceError(f"feature spectrum at z = {z}: the solution left the "
                                        "physical branch (Im s < 0 or Im z s < 0)",
                                        residual=float("nan"), iterate=V)
            except ConvergenceError as exc:
                last = exc
            if kind == "descent" and z.imag == 0:
                raise last
        else:
            raise last
        if warm_start:
            self._warm = tuple(V)
        s, g1 = self._s_g1(V)
        if z0.imag < 0:
            s, g1 = s.conjugate(), g1.conjugate()
        return StieltjesValue(z0, complex(s), complex(g1), K, float(err), it)

    def _ladder(self, z, start, tol):
        """Raise the kappa nodes until two counts agree to ``tol``; every rung on the physical
        branch (a rung warm-started from the previous one that lands elsewhere is redone by
        continuation from above at its own node count: near the hard edge a coarse rule can
        carry the warm start to another solution)."""
        prev, err = None, math.inf
        for K in NODE_LADDER:
            V, it = self._solve_at_nodes(K, z, start)
            if z.imag > 0 and not self._physical(V, z):
                V, it = self._descend(z, K)
            s = self._s_g1(V)[0]
            if prev is not None:
                err = abs(s - prev) / abs(s)
                if err <= tol:
                    return V, K, err, it
            prev, start = s, V
        raise ConvergenceError(
            f"feature spectrum at z = {z}: the kappa rule did not reach relative "
            f"{tol:g} with {NODE_LADDER[-1]} nodes (last change {err:.2e})",
            residual=err, iterate=V)

    def stieltjes(self, z):
        """``s(z) = tr (X - z)^{-1} / p`` for complex ``z`` (scalar or array; arrays are solved
        in order with warm starts).  ``Im z < 0`` is answered by conjugate symmetry.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
        >>> s = fs.stieltjes(0.6 + 0.1j)
        >>> round(s.real, 4), round(s.imag, 4)
        (-1.3907, 1.1018)
        """
        if np.ndim(z) == 0:
            return self.stieltjes_value(z).s
        zs = np.asarray(z, dtype=complex)
        return np.array([self.stieltjes_value(x).s for x in zs.ravel()]).reshape(zs.shape)

    def co_resolvent(self, z):
        """``s_K(z) = tr (K - z)^{-1} / n`` of the n x n kernel ``K = Phi Phi^T / n``:
        ``nu s(z) - (1 - nu)/z``.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", r=1.0, c=1.0, p_over_n=0.5)
        >>> z = 0.7 + 0.2j
        >>> bool(abs(fs.co_resolvent(z) - (0.5 * fs.stieltjes(z) - 0.5 / z)) < 1e-15)
        True
        """
        s = self.stieltjes(z)
        return self.nu * s - (1 - self.nu) / np.asarray(z, dtype=complex)[()]


    def stieltjes_mpmath(self, z, dps=30):
        """``s(z)`` at ``dps`` digits: mpmath nodes of the kappa rule (raised until two node
        counts agree to ``dps - 3`` digits) and the MP closed form in mpmath, Newton on the
        ``V``-system from the double-precision solution.

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("sin", r=0.5, c=1.0)
        >>> s30 = fs.stieltjes_mpmath(1 + 0.1j, dps=25)
        >>> bool(abs(complex(s30) - fs.stieltjes(1 + 0.1j)) < 1e-9)
        True
        """
        from ...core.values import check_dps
        check_dps(dps, 100)
        if self._use_groups:
            raise ValueError("the high-precision s(z) is not available with a readout vocabulary "
                             "(K > 1): use stieltjes_value, whose error estimate is reported")
        z0 = _check_z(z)
        z = z0.conjugate() if z0.imag < 0 else z0
        V0 = self.stieltjes_value(z, warm_start=False)
        start = (V0.g1 * self.nu, V0.s * self.nu)
        prev = None
        K = 60 + 4 * dps
        with workdps(dps + 10):
            zm = mpmath.mpc(z.real, z.imag)
            while True:
                _budget_check("the feature spectrum")
                P = self._problem(K, dps=dps)
                f = lambda a, b: [x - y for x, y in zip(self._v_map(P, zm, (a, b), dps + 10),
                                                        (a, b))]   # noqa: E731
                V = mpmath.findroot(f, (mpmath.mpc(start[0]), mpmath.mpc(start[1])),
                                    tol=mpmath.mpf(10) ** (-2 * dps))
                s = V[1] / self.nu
                if prev is not None and abs(s - prev) < abs(s) * mpmath.mpf(10) ** (3 - dps):
                    break
                if K > 1500:
                    raise ConvergenceError(f"s(z) at {dps} digits: kappa rule not converged "
                                           f"with {K} nodes", residual=float(abs(s - prev)),
                                           iterate=None)
                prev, start, K = s, (V[0], V[1]), int(K * 1.5)
            out = +s
        return mpmath.conj(out) if z0.imag < 0 else out

