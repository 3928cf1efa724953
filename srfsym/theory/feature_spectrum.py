r"""Spectrum of the learned features: the deterministic equivalent of the p x p feature
covariance ``X = Phi^T Phi / n`` after the step, its giant outlier and its bulk moments
(docs/theory.md (j); Dandi et al. 2410.18938).

One system, two uses.  The Stieltjes transform ``s(z) = tr (X - z)^{-1} / p`` is the ridge
fixed point's ``V``-system at a complex penalty (docs/theory.md (j.3)):

.. math::
    s(z) = \frac{n}{p} V_2\Big|_{\lambda = -\frac{n}{p} z},\qquad
    \hat V_{1,2} = \frac{n}{p}\,\mathbb E_\kappa \frac{\mu_{1,\star}(\kappa)^2}{1 + V(\kappa)},\quad
    V_2 = \mathbb E_\varrho \frac{1}{\lambda + \hat V_2 + \hat V_1\varrho},\quad
    V_1 = \mathbb E_\varrho \frac{\varrho}{\lambda + \hat V_2 + \hat V_1\varrho},

``V(kappa) = mu1(kappa)^2 V_1 + mu_star(kappa)^2 V_2``, ``varrho ~ c MP_beta``.  So this
module evaluates the channel side with the fixed point's own code
(:class:`srfsym.theory.fixed_point._Problem` ``.v_hats`` on :func:`srfsym.theory.channel.channel_data`: the
kappa rule and the generated cGET evaluators) and the spectral side with the Marchenko-Pastur
closed form of :mod:`srfsym.theory.spectrum` continued to complex arguments
(:func:`srfsym.theory.spectrum.mp_stieltjes_pair`), or with a given list of bulk eigenvalues.

The kappa rule (trapezoidal, :data:`NODE_LADDER`) is refined until two node counts agree to
the requested relative tolerance; that difference is reported as the error estimate.

>>> fs = feature_spectrum("tanh", r=0.0, c=1.0)       # untrained: the plain RF spectrum
>>> s = fs.stieltjes(1 + 0.1j)
>>> round(s.real, 4), round(s.imag, 4)
(-0.9283, 0.6491)
>>> round(fs.bulk_mean, 4), fs.outlier_per_p
(0.3943, 0.0)
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property, lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..symbolic.activations import activation
from .channel import channel_data, group_channel_data
from .fixed_point import ConvergenceError, _anderson, _Problem
from ..step.mapping import srf_mapping
from .spectrum import EigenvalueSpectrum, MarchenkoPastur
from ..step.vocabulary import vocabulary as make_vocabulary

__all__ = ["FeatureSpectrum", "feature_spectrum", "StieltjesValue", "spectrum_moment_expressions"]

#: kappa node ladder of the double-precision evaluation (trapezoidal rule on [-9.5, 9.5]:
#: the weights 1/(1 + V(kappa)) have poles near the real kappa axis when Im z is small and
#: the spike is strong, where Gauss-Hermite stalls: at eta = 8, z = 0.1 + 0.01i, 200
#: Gauss-Hermite nodes err by 1e-3, 3200 by 1e-8; 400 trapezoid nodes by 1e-13).
NODE_LADDER = (150, 225, 340, 500, 750, 1100, 1700, 2500, 3800, 5600, 8400)

# --------------------------------------------------------------------------------------
# the closed forms in kappa-moments, written once (docs/theory.md (j.5), (j.6))

EM0SQ, EKM0M1, EM0SQ_T, EMU1SQ, EMUS2, ET2 = sp.symbols(
    "E_mu0sq E_kappa_mu0_mu1 E_mu0sq_t E_mu1sq E_mustar2 E_tsq", real=True)
C_, BETA_, NU_ = sp.symbols("c beta nu", positive=True)
#: Variance of the bulk law of ``W Pi W^T`` (``beta c^2`` for ``c MP_beta``; the sample
#: variance of the eigenvalues for a finite-d bulk such as the step's, docs/theory.md (g.4)).
VAR_RHO = sp.Symbol("Var_varrho", positive=True)


@lru_cache(maxsize=None)
def spectrum_moment_expressions() -> dict:
    r"""Bulk mean, normalised bulk variance and the giant-outlier correction Delta in
    kappa-moments (``t(kappa) = c mu1^2 + mu_star^2``, the conditional variance of one
    feature).

    >>> e = spectrum_moment_expressions()
    >>> e["bulk_mean"]
    E_mu1sq*c + E_mustar2
    >>> e["outlier_correction"].subs(EKM0M1, 0).subs(EM0SQ_T, EM0SQ * e["bulk_mean"])
    E_mu1sq*c + E_mustar2 + nu*(E_mu1sq*c + E_mustar2)
    """
    Et = C_ * EMU1SQ + EMUS2
    var_t = ET2 - Et**2
    return {
        "bulk_mean": Et,
        # m2/m1^2 - 1 of the bulk law (docs/theory.md (j.6)); Var_varrho = beta c^2 for c MP_beta
        "bulk_normalised_variance": NU_ * (1 + var_t / Et**2) + VAR_RHO * EMU1SQ**2 / Et**2,
        # lambda_1 = p M2hat + Delta (docs/theory.md (j.5))
        "outlier_correction": Et + (C_ * BETA_ * EKM0M1**2 + NU_ * EM0SQ_T) / EM0SQ,
    }


@lru_cache(maxsize=None)
def _moment_functions():
    e = spectrum_moment_expressions()
    args = (EM0SQ, EKM0M1, EM0SQ_T, EMU1SQ, EMUS2, ET2, C_, BETA_, NU_, VAR_RHO)
    return {k: sp.lambdify(args, v, modules="math") for k, v in e.items()}


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


class FeatureSpectrum:
    """Deterministic equivalent of the spectrum of ``X = Phi^T Phi / n`` for a student at sRF
    parameters ``(r, c)``, width ratio ``beta = p/d`` and ``nu = p/n``.

    Build it with :func:`feature_spectrum`.  ``spectrum="mp"`` averages over ``varrho ~ c
    MP_beta``; an array of eigenvalues of ``W Pi W^T`` gives the finite-d variant.

    With a readout vocabulary (K letters, docs/theory.md (k.5)) the features of group j have
    the coefficients of spike ``r omega_j`` and bulk variance ``c_j``; ``s(z)`` then solves the
    block-Wishart system for the K group traces ``R_j`` (:meth:`_group_map`), and the K giant
    outliers are :meth:`giant_outliers` (leading order).
    """

    def __init__(self, student, r, c, beta=1.0, p_over_n=1.0, spectrum="mp", tol=1e-10,
                 vocabulary=None):
        self.voc = make_vocabulary(vocabulary)
        if not self.voc.is_uniform:
            from ..step.vocabulary import check_student
            check_student(student, self.voc)
            if not isinstance(spectrum, str):
                raise ValueError("a finite-d bulk (an eigenvalue list) is not available with a "
                                 "readout vocabulary: the groups' bulks differ; use 'mp'")
        self._use_groups = not self.voc.is_uniform
        self.student = activation(student)
        self.r, self.c = float(r), float(c)
        if not math.isfinite(self.r):
            raise ValueError(f"spike strength r must be finite, got {r!r}")
        _check_ratio("bulk variance c", c)
        self.beta = _check_ratio("beta = p/d", beta)
        self.nu = _check_ratio("p/n", p_over_n)
        if not (isinstance(tol, float) and 1e-14 <= tol < 1e-2):
            raise ValueError(f"tol must be a float in [1e-14, 1e-2), got {tol!r}")
        self.tol = tol
        if isinstance(spectrum, str):
            if spectrum != "mp":
                raise ValueError(f"spectrum must be 'mp' or an array of eigenvalues, got "
                                 f"{spectrum!r}")
            self.bulk = MarchenkoPastur(self.beta, self.c)
        else:
            self.bulk = EigenvalueSpectrum(spectrum)
        self._warm = None

    def __repr__(self):
        voc = "" if self.voc.is_uniform else f", {self.voc}"
        return (f"FeatureSpectrum({self.student.name}, r={self.r:.6g}, c={self.c:.6g}, "
                f"beta={self.beta:g}, p/n={self.nu:g}, {self.bulk!r}{voc})")

    @property
    def K(self) -> int:
        """Number of letters of the readout vocabulary (1 for the uniform readout)."""
        return self.voc.K

    # ----------------------------------------------------------------------------------
    # the system
    def _problem(self, nodes, dps=None):
        rc = (self.r, self.c) if dps is None else (repr(self.r), repr(self.c))
        # the channel needs a teacher only for the test error: gamma = 0 makes it inert
        ch = channel_data(self.student, self.student, *rc, 0.0 if dps is None else "0",
                          nodes=nodes, dps=dps, kind="trapezoid")
        # hats carry alpha / beta = n / p
        return _Problem(ch, None, self.beta / self.nu, 0.0, self.beta)

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
        # relative accuracy: the iterates grow like 1/|z| near the hard edge at 0
        tol = 1e-14 * max(1.0, float(np.max(np.abs(cold))), float(np.max(np.abs(start))))
        for x0, memory, damping, iters in ((start, 5, 0.5, 400), (cold, 3, 0.3, 400),
                                           (cold, 0, 0.5, 20000)):
            try:
                V, it, _ = _anderson(G, np.asarray(x0, dtype=complex), tol, iters,
                                     memory=memory, damping=damping)
                return V, it
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

        The iterate is (R, Ctilde), so that the map is a function of the iterate alone."""
        ch = self._group_channel(nodes)
        K = self.K
        pi = np.asarray(self.voc.weights)
        cj = np.asarray(ch.group_c, dtype=float)
        v = np.sqrt(cj)[:, None] * ch.mu1
        mus2 = ch.mustar2
        I = np.eye(K)

        def G(x, z):
            R, Ct = x[:K], x[K:].reshape(K, K)
            Lam = np.diag(pi * R)
            M = Lam @ np.linalg.inv(I + self.beta * Ct @ Lam)
            delta = self.nu * (np.einsum("jn,jk,kn->n", v, M, v)
                               + np.einsum("j,jn->n", pi * R, mus2))
            w = 1 / (1 + delta)
            Ct_new = np.einsum("jn,kn,n,n->jk", v, v, w, ch.weights)
            D = np.einsum("jn,n,n->j", mus2, w, ch.weights)
            B = Ct_new @ np.linalg.inv(I + self.beta * Lam @ Ct_new)
            R_new = 1 / (D - z + np.diag(B))
            return np.concatenate([R_new, Ct_new.ravel()])

        def run(x0, zz):
            x0 = np.asarray(x0, dtype=complex)
            tol = 1e-14 * max(1.0, float(np.max(np.abs(x0))))
            last = None
            for memory, damping, iters in ((5, 0.5, 400), (3, 0.3, 400), (0, 0.5, 20000)):
                try:
                    return _anderson(lambda x: G(x, zz), x0, tol, iters, memory=memory,
                                     damping=damping)[:2]
                except (ConvergenceError, ValueError, ZeroDivisionError,
                        np.linalg.LinAlgError) as exc:
                    last = exc
            residual = getattr(last, "residual", float("nan"))
            raise ConvergenceError(f"feature spectrum with the {self.voc} at z = {zz}: the "
                                   f"group iteration did not converge (last change "
                                   f"{residual:.3e}; {last})", residual=residual, iterate=None)

        def physical(x, zz):
            # a Stieltjes transform of a positive measure per group: Im R_j >= 0 above the
            # axis (R_j > 0 on the negative axis)
            R = x[:K]
            return bool(np.all(R.imag >= -1e-10 * np.abs(R)) and
                        (zz.imag > 0 or np.all(R.real > 0)))

        x, it = run(start, z)
        if physical(x, z):
            return x, it
        # the iteration found another branch: continuation from far above the axis, where
        # the map contracts, down to Im z
        y = max(1.0, abs(z.real), 4 * z.imag)
        x = self._cold(complex(z.real, y))
        total = 0
        while True:
            zz = complex(z.real, max(y, z.imag)) if z.imag > 0 else z
            x, it = run(x, zz)
            total += it
            if zz == z or z.imag <= 0:
                break
            y /= 4
        if not physical(x, z):
            raise ConvergenceError(f"feature spectrum with the {self.voc} at z = {z}: the group "
                                   "iteration converged to a non-physical branch (Im R_j < 0) "
                                   "even by continuation from Im z = 1", residual=float("nan"),
                                   iterate=x)
        return x, total

    def _group_g1(self, x):
        K = self.K
        pi = np.asarray(self.voc.weights)
        cj = np.asarray(self.voc.group_bulk_variances(self.c))
        R, Ct = x[:K], x[K:].reshape(K, K)
        Lam = np.diag(pi * R)
        M = Lam @ np.linalg.inv(np.eye(K) + self.beta * Ct @ Lam)
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

    def _start(self, z):
        if self._warm is not None:
            return self._warm
        g2 = -1 / z
        return (self.nu * self.c * g2, self.nu * g2)

    def stieltjes_value(self, z, warm_start=True, tol=None) -> StieltjesValue:
        """``s(z)`` with its provenance (:class:`StieltjesValue`); the kappa rule is refined
        until two node counts agree to ``tol`` relative (default: the spectrum's ``tol``).
        A warm start (the previous point's solution) that does not settle is retried cold.

        >>> v = feature_spectrum("tanh", r=1.134, c=1.019).stieltjes_value(0.6 + 0.1j)
        >>> bool(v.node_error < 1e-10), v.nodes
        (True, 225)
        """
        z0 = _check_z(z)
        z = z0.conjugate() if z0.imag < 0 else z0
        tol = self.tol if tol is None else tol
        cold = self._cold(z)
        starts = ([self._warm] if warm_start and self._warm is not None else []) + [cold]
        for i, start in enumerate(starts):
            try:
                V, K, err, it = self._ladder(z, start, tol)
                break
            except ConvergenceError:
                if i == len(starts) - 1:
                    raise
        if warm_start:
            self._warm = tuple(V)
        s, g1 = self._s_g1(V)
        if z0.imag < 0:
            s, g1 = s.conjugate(), g1.conjugate()
        return StieltjesValue(z0, complex(s), complex(g1), K, float(err), it)

    def _ladder(self, z, start, tol):
        prev, err = None, math.inf
        for K in NODE_LADDER:
            V, it = self._solve_at_nodes(K, z, start)
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

        >>> fs = feature_spectrum("tanh", r=1.0, c=1.0, p_over_n=0.5)
        >>> z = 0.7 + 0.2j
        >>> bool(abs(fs.co_resolvent(z) - (0.5 * fs.stieltjes(z) - 0.5 / z)) < 1e-15)
        True
        """
        s = self.stieltjes(z)
        return self.nu * s - (1 - self.nu) / np.asarray(z, dtype=complex)[()]

    def density(self, x, eps=1e-4, tol=1e-6):
        """Density of the bulk, ``Im s(x + i eps) / pi``, on the points ``x`` (solved from
        the right with warm starts; ``tol``: relative accuracy of each value).

        >>> fs = feature_spectrum("tanh", r=0.0, c=1.0)
        >>> rho = fs.density(np.array([0.5, 1.0, 2.0, 3.0]))
        >>> [round(float(v), 3) for v in rho]            # the bulk ends at 2.558
        [0.386, 0.191, 0.064, 0.0]
        """
        x = np.asarray(x, dtype=float)
        order = np.argsort(-x.ravel())
        out = np.empty(x.size)
        self._warm = None
        for i in order:
            out[i] = self.stieltjes_value(complex(x.ravel()[i], eps), tol=tol).s.imag / math.pi
        self._warm = None
        return out.reshape(x.shape)

    def stieltjes_mpmath(self, z, dps=30):
        """``s(z)`` at ``dps`` digits: mpmath nodes of the kappa rule (raised until two node
        counts agree to ``dps - 3`` digits) and the MP closed form in mpmath, Newton on the
        ``V``-system from the double-precision solution.

        >>> fs = feature_spectrum("sin", r=0.5, c=1.0)
        >>> s30 = fs.stieltjes_mpmath(1 + 0.1j, dps=25)
        >>> bool(abs(complex(s30) - fs.stieltjes(1 + 0.1j)) < 1e-9)
        True
        """
        from ..core.values import check_dps
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
        with mpmath.workdps(dps + 10):
            zm = mpmath.mpc(z.real, z.imag)
            while True:
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

    # ----------------------------------------------------------------------------------
    # moments, outlier, edge
    @cached_property
    def _moments(self):
        """kappa-moments of the coefficients, the node count raised until 1e-13 relative."""
        prev = None
        for K in NODE_LADDER:
            P = self._problem(K)
            mu0, mu1sq, mus2, kap = P.mu0, P.mu1sq, P.mus2, P.kappa
            t = self.c * mu1sq + mus2
            cur = np.array([P.E(mu0 * mu0), P.E(kap * mu0 * P.mu1), P.E(mu0 * mu0 * t),
                            P.E(mu1sq), P.E(mus2), P.E(t * t)])
            if prev is not None and np.all(np.abs(cur - prev) <= 1e-13 * (np.abs(cur) + 1e-300)
                                           + 1e-300):
                break
            prev = cur
        return tuple(float(v) for v in cur)

    def _formula(self, name):
        return float(_moment_functions()[name](*self._moments, self.c, self.beta, self.nu,
                                               self._bulk_variance))

    @property
    def _bulk_variance(self) -> float:
        """Variance of the bulk law of ``W Pi W^T``: ``beta c^2`` (MP), or of the given eigenvalues."""
        if isinstance(self.bulk, EigenvalueSpectrum):
            return float(np.var(self.bulk.D))
        return self.beta * self.c ** 2

    @cached_property
    def _group_moments(self):
        """Per group: E mu1_j^2, E mu*_j^2, and the Gram matrix E mu0_j mu0_l (node count
        raised until 1e-13 relative)."""
        prev = None
        for K in NODE_LADDER:
            ch = self._group_channel(K)
            cur = (ch.E(ch.mu1 ** 2), ch.E(ch.mustar2),
                   np.einsum("jn,kn,n->jk", ch.mu0, ch.mu0, ch.weights))
            flat = np.concatenate([cur[0], cur[1], cur[2].ravel()])
            if prev is not None and np.all(np.abs(flat - prev) <= 1e-13 * (np.abs(flat) + 1e-300)
                                           + 1e-300):
                break
            prev = flat
        return cur

    def _not_for_groups(self, what):
        if self._use_groups:
            raise ValueError(f"{what} is derived for the uniform readout only (K = 1); with "
                             f"the {self.voc} srfsym gives the leading order of the K outliers "
                             "(giant_outliers) and the bulk mean")

    @property
    def outliers_per_p(self) -> np.ndarray:
        """Leading order of the giant outliers divided by p, largest first: the eigenvalues
        of ``Pi^1/2 Gamma0 Pi^1/2``, ``Gamma0_jl = E mu0_j mu0_l`` (docs/theory.md (k.4));
        ``[E mu0^2]`` for the uniform readout.

        >>> fs = feature_spectrum("tanh", r=1.13406, c=1.018973, vocabulary=[1, 2])
        >>> [round(float(v), 4) for v in fs.outliers_per_p]
        [0.3973, 0.0027]
        """
        if not self._use_groups:
            return np.array([self._moments[0]])
        root = np.sqrt(np.asarray(self.voc.weights))
        ev = np.linalg.eigvalsh(root[:, None] * self._group_moments[2] * root[None, :])
        return np.clip(ev[::-1], 0.0, None)

    def giant_outliers(self, p, kappa=None) -> np.ndarray:
        """The K giant outliers to leading order, ``p eig(Pi^1/2 Gamma0 Pi^1/2)``; with the
        realised spike coordinates ``kappa`` the sample Gram matrix over them (which the
        eigenvalues follow).  For the uniform readout: ``[giant_outlier(p, kappa)]``, which
        includes the O(1) correction; for K > 1 that correction is not derived."""
        if not self._use_groups:
            return np.array([self.giant_outlier(p, kappa) or 0.0])
        if kappa is None:
            return float(p) * self.outliers_per_p
        from ..symbolic.cget import cget_coefficients
        kap = np.asarray(kappa, float)
        f = cget_coefficients(self.student).numpy()
        rows = [np.asarray(f(kap, rj, cj)[0]) for rj, cj in
                zip(self.voc.group_spike_strengths(self.r), self.voc.group_bulk_variances(self.c))]
        gram = np.array(rows) @ np.array(rows).T / kap.size
        root = np.sqrt(np.asarray(self.voc.weights))
        ev = np.linalg.eigvalsh(root[:, None] * gram * root[None, :])
        return float(p) * np.clip(ev[::-1], 0.0, None)

    @property
    def outlier_per_p(self) -> float:
        """Leading order of the (largest) giant outlier divided by p: ``E mu0(kappa)^2`` (0
        when it vanishes to rounding, e.g. an odd student at r = 0)."""
        if self._use_groups:
            return float(self.outliers_per_p[0]) if self.has_outlier else 0.0
        return self._moments[0] if self.has_outlier else 0.0

    @property
    def has_outlier(self) -> bool:
        """Whether ``E mu0^2 > 0`` (to rounding): an odd student at r = 0 has no spike."""
        top = float(self.outliers_per_p[0]) if self._use_groups else self._moments[0]
        return top > 1e-12 * self.bulk_mean

    @property
    def outlier_correction(self) -> float | None:
        """The O(1) correction Delta of the giant outlier ``lambda_1 = p M2hat + Delta``
        (docs/theory.md (j.5)); ``None`` when there is no outlier."""
        self._not_for_groups("the O(1) outlier correction Delta")
        if not self.has_outlier:
            return None
        return self._formula("outlier_correction")

    def giant_outlier(self, p, kappa=None) -> float | None:
        """Predicted top eigenvalue ``p M2 + Delta``: with the realised spike coordinates
        ``kappa`` of the n inputs, ``M2 = mean mu0(r kappa_i; c)^2`` (the sample mean the
        eigenvalue actually follows); without them, the population value ``E mu0^2``.
        ``None`` when there is no outlier.  (With a vocabulary: :meth:`giant_outliers`.)

        >>> fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
        >>> round(fs.giant_outlier(1000), 2)          # population value; docs/theory.md (j.7)
        275.72
        """
        self._not_for_groups("giant_outlier (with its correction Delta)")
        if not self.has_outlier:
            return None
        if kappa is None:
            M2 = self.outlier_per_p
        else:
            from ..symbolic.cget import cget_coefficients
            mu0, _, _ = cget_coefficients(self.student).numpy()(np.asarray(kappa, float),
                                                                 self.r, self.c)
            M2 = float(np.mean(np.asarray(mu0) ** 2))
        return float(p) * M2 + self.outlier_correction

    @property
    def bulk_mean(self) -> float:
        """Mean of the bulk law, ``E t(kappa)``, ``t = c mu1^2 + mu_star^2``; with a
        vocabulary the pi-weighted mean of the groups' values (the trace is additive)."""
        if self._use_groups:
            f = _moment_functions()["bulk_mean"]
            mu1sq, mus2, _ = self._group_moments
            return float(sum(pj * f(0, 0, 0, a, b, 0, cj, self.beta, self.nu, 0) for pj, a, b, cj in
                             zip(self.voc.weights, mu1sq, mus2,
                                 self.voc.group_bulk_variances(self.c))))
        return self._formula("bulk_mean")

    @property
    def bulk_normalised_variance(self) -> float:
        """``m2 / m1^2 - 1`` of the bulk law (docs/theory.md (j.6))."""
        self._not_for_groups("the bulk variance formula")
        return self._formula("bulk_normalised_variance")

    @cached_property
    def right_edge(self) -> float:
        """Right edge of the bulk support: the largest x where the density at ``eps = 1e-7``
        exceeds ``1e-6`` of the bulk's typical density, located by bisection (about 4
        digits)."""
        m = self.bulk_mean
        scale = 1.0 / m
        if isinstance(self.bulk, EigenvalueSpectrum):
            return self._right_edge_scan(m)

        def inside(x):
            self._warm = None
            v = self.stieltjes_value(complex(x, 1e-7 * m), warm_start=False, tol=1e-6)
            return v.s.imag / math.pi > 1e-6 * scale
        hi = m * (1 + self.nu) * (1 + math.sqrt(self.beta)) ** 2 * 2
        while inside(hi):
            hi *= 2
            if hi > 1e6 * m:
                raise ConvergenceError("no right edge found below 1e6 times the bulk mean "
                                       "(unbounded support?)", residual=hi, iterate=None)
        lo = m * 1e-3
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if inside(mid):
                lo = mid
            else:
                hi = mid
            if hi - lo < 1e-5 * hi:
                break
        self._warm = None
        return 0.5 * (lo + hi)

    def _density_continued(self, x, eps):
        """``Im s(x + i eps) / pi`` at each ``x``, each reached by continuation in ``eps`` from
        ``Im z`` = the bulk mean (where the physical root is the only one) down to ``eps``: a finite-d
        bulk (an eigenvalue array) has other roots near the real axis that warm starts along
        ``x`` or cold starts can settle on."""
        m = self.bulk_mean
        ladder = np.geomspace(m, eps, max(2, int(round(math.log10(m / eps))) + 1))
        out = np.empty(len(x))
        for i, xi in enumerate(x):
            self._warm = None
            for e in ladder:
                v = self.stieltjes_value(complex(xi, e), tol=1e-6)
            out[i] = v.s.imag / math.pi
        self._warm = None
        return out

    def _right_edge_scan(self, m) -> float:
        """Right edge for a finite-d bulk (an eigenvalue array): the density at ``eps = 1e-4``
        times the bulk mean (:meth:`_density_continued`) on a grid from the right, then on a
        finer grid inside the last cell (about 3-4 digits)."""
        top = float(np.max(self.bulk.D))
        hi = max(m * (1 + self.nu) * (1 + math.sqrt(self.beta)) ** 2,
                 (1 + self.nu) * (top * float(self._moments[3]) + float(self._moments[4]))) * 2
        grid = np.linspace(hi, 0.0, 201)[:-1]
        rho = self._density_continued(grid, 1e-4 * m)
        inside = np.nonzero(rho > 1e-6 / m)[0]
        if inside.size == 0:
            raise ConvergenceError("no bulk density found for the given eigenvalues",
                                   residual=float("nan"), iterate=None)
        k = int(inside[0])
        if k == 0:
            raise ConvergenceError(f"the bulk extends beyond {hi:.3g}: no right edge found",
                                   residual=hi, iterate=None)
        fine = np.linspace(grid[k - 1], grid[k], 41)
        rho = self._density_continued(fine, 1e-4 * m)
        j = int(np.nonzero(rho > 1e-6 / m)[0][0])
        return float(0.5 * (fine[j] + fine[max(j - 1, 0)]))

    def summary(self) -> dict:
        """The scalar characteristics as a dict (JSON-ready)."""
        if self._use_groups:
            return {"student": self.student.name, "r": self.r, "c": self.c, "beta": self.beta,
                    "p_over_n": self.nu, "vocabulary": self.voc.to_dict(),
                    "r_groups": list(self.voc.group_spike_strengths(self.r)),
                    "c_groups": list(self.voc.group_bulk_variances(self.c)),
                    "outlier_per_p": self.outlier_per_p,
                    "outliers_per_p": [float(v) for v in self.outliers_per_p],
                    "outlier_correction": None, "bulk_mean": self.bulk_mean,
                    "bulk_normalised_variance": None, "right_edge": self.right_edge}
        return {"student": self.student.name, "r": self.r, "c": self.c, "beta": self.beta,
                "p_over_n": self.nu, "outlier_per_p": self.outlier_per_p,
                "outlier_correction": self.outlier_correction, "bulk_mean": self.bulk_mean,
                "bulk_normalised_variance": self.bulk_normalised_variance,
                "right_edge": self.right_edge}


def feature_spectrum(student, teacher=None, *, alpha0=None, eta=None, r=None, c=None,
                     beta=1.0, p_over_n=1.0, spectrum="mp", tol=1e-10,
                     mu0_correction=True, vocabulary=None) -> FeatureSpectrum:
    """The feature spectrum after one step (``teacher``, ``alpha0``, ``eta`` through the
    mapping) or at given sRF parameters (``r``, ``c``).

    Parameters
    ----------
    student, teacher : str or Activation
    alpha0, eta : float
        The step (through :func:`srfsym.srf_mapping`); or give ``r`` and ``c`` instead.
    beta, p_over_n : float
        ``p/d`` and ``p/n``.
    spectrum : "mp" or array
        Marchenko-Pastur bulk, or the eigenvalues of ``W Pi W^T`` (finite-d variant).
    tol : float
        Relative accuracy of ``s(z)`` targeted by the kappa node ladder.
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout vocabulary before the step (docs/theory.md (k.4), (k.5)); ``r, c`` are the
        uniform parameters, group j has ``r omega_j`` and ``1 + omega_j^2 (c - 1)``.

    Examples
    --------
    >>> fs = feature_spectrum("tanh", "sin", alpha0=20, eta=8)
    >>> round(fs.r, 3), round(fs.outlier_per_p, 3), round(fs.bulk_mean, 4)
    (3.024, 0.619, 0.1418)
    """
    if r is not None or c is not None:
        if r is None or c is None or alpha0 is not None or eta is not None:
            raise ValueError("give either r and c, or teacher, alpha0 and eta")
        return FeatureSpectrum(student, r, c, beta, p_over_n, spectrum, tol, vocabulary)
    if teacher is None or alpha0 is None or eta is None:
        raise ValueError("give either r and c, or teacher, alpha0 and eta")
    m = srf_mapping(student, teacher, eta, alpha0, mu0_correction=mu0_correction,
                    vocabulary=vocabulary)
    return FeatureSpectrum(student, m.r, m.c, beta, p_over_n, spectrum, tol, vocabulary)
