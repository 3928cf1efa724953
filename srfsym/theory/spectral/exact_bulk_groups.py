r"""The exact law of the step's bulk with a readout vocabulary: the K-group prior in the limit
(``bulk="exact"`` with ``vocabulary=``, docs/theory.md (g.5.2)).

With letters ``omega_j`` every row update is ``omega_j`` times the uniform one, so for an odd
student group j's bulk rows have covariance ``d Sigma_j = I + omega_j^2 b S2``: functions of
the one batch matrix ``S2`` (:mod:`srfsym.theory.spectral.exact_bulk_batch`).  The realised
K-group prior (:mod:`srfsym.theory.spectral.step_bulk_groups`) then has, in the limit, at every
eigenvalue ``varsigma`` of ``S2`` the K x K matrix

    phi(varsigma) = (I + H V1^)^-1 H,   H = diag(beta pi_j r_j ell_j),
    ell_j = 1 + omega_j^2 b varsigma,

and with ``E`` over the eigenvalue law of ``S2`` and ``t_xy = x^T phi(S2) y`` (K x K) along
``vhat`` and ``zeta``:

    r_j = 1 / (lambda + V2^_j + E[ell_j (V1^ (I + H V1^)^-1)_jj]),   V2_j = pi_j r_j,
    V1 = E[phi] / beta,
    F = t_vv (I - V1^ t_vv)^-1 / beta,
    H = (t_zz + t_vz^T V1^ (I - t_vv V1^)^-1 t_vz) / beta,
    X = (I - t_vv V1^)^-1 t_vz / beta

(Woodbury: the rows' components along ``vhat``, which ``Omega = W Pi W^T`` leaves out, are a
rank-K change of the full Gram matrix; ``X`` are the cross sums of the spike and teacher
directions, docs/theory.md (g.4), (g.5.2)).  For K = 1 these are the exact sums of
:class:`~srfsym.theory.spectral.exact_bulk.ExactBulk`; with ``ell_j = c_j`` the block-Wishart
prior of docs/theory.md (k.7.4).  The expectations are contour rules
(:func:`~srfsym.theory.spectral.exact_bulk_batch.batch_contour`): ``phi`` is holomorphic right of
``-1/(b max omega_j^2)`` for every admissible ``(V1^, V2^)``, so one rule serves the whole
solve.  The derivatives (the noise and signal parts of ``Q1, q2``) are exact: implicit
differentiation of the r-equation.

>>> bulk = ExactGroupBulk("tanh", "sin", 2.0, 3.0, vocabulary=[1, 2])
>>> [round(c, 6) for c in bulk.group_c]                       # E ell_j = 1 + omega_j^2 (c - 1)
[1.189732, 1.758928]
>>> pr = bulk.group_prior(0.1, 1.0).prior(np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.2, 0.3]))
>>> [round(float(v), 6) for v in pr.V2]
[0.478156, 0.216121]
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ...core.budget import BudgetExceeded, check as _budget_check
import scipy.linalg

from ..interfaces import GroupSpectralSide
from .group_direction_prior import DirectionGroupPrior
from ..state import ConvergenceError, Hats
from .exact_bulk_batch import (BatchContour, batch_contour, batch_contour_variant, batch_forms,
                               contour_ellipse)

__all__ = ["ExactGroupPrior", "ExactGroupBulk", "exact_group_bulk", "vocabulary_bulk_warning"]

#: Joukowski radii of the wide contours of the feature spectrum's sums (docs/theory.md (g.5.2))
WIDE_RADII = (1.7, 2.5, 4.0)


class ExactGroupState(NamedTuple):
    """The exact K-group prior at one ``(V1^, V2^)``: ``r``, per contour node ``ell``, ``N =
    (I + H V1^)^-1``, ``Nt = (I + V1^ H)^-1``, ``phi = N H``, ``T = V1^ N``; the order parameters
    ``V1, V2``, the direction sums ``F, H`` and the forms ``tvv, tvz, tzz``; ``Phi_r_inv`` the
    inverse Jacobian of the r-equation; a cache for the derivatives; the cross sums ``X`` (row
    the spike direction's group, column the teacher direction's)."""
    r: np.ndarray
    N: np.ndarray
    Nt: np.ndarray
    phi: np.ndarray
    T: np.ndarray
    V1: np.ndarray
    V2: np.ndarray
    F: np.ndarray
    H: np.ndarray
    tvv: np.ndarray
    tvz: np.ndarray
    tzz: np.ndarray
    V1hat: np.ndarray
    Phi_r_inv: np.ndarray
    cache: dict
    X: np.ndarray


def _sym(X):
    return (X + np.swapaxes(X, -1, -2)) / 2


class ExactGroupPrior(DirectionGroupPrior):
    r"""The K-group prior of docs/theory.md (k.7.4) with the exact law of the step's bulk (module
    doc); the interface of :class:`~srfsym.theory.spectral.block_wishart.BlockWishartPrior`.

    >>> bulk = ExactGroupBulk("tanh", "sin", 2.0, 3.0, vocabulary=[1])
    >>> pr = bulk.group_prior(0.1, 1.0).prior(np.array([[1.3]]), np.array([0.3]))
    >>> from srfsym.theory.spectral.exact_bulk import ExactBulk
    >>> mo = ExactBulk("tanh", "sin", 2.0, 3.0).moments(0.4, 1.3)
    >>> bool(abs(pr.V2[0] / mo.inv - 1) < 1e-12 and abs(pr.F[0, 0] / mo.F - 1) < 1e-12)
    True
    >>> x1 = ExactBulk("tanh", "sin", 2.0, 3.0).cross_moments(0.4, 1.3)[0]   # <X/S>
    >>> bool(abs(pr.X[0, 0] / x1 - 1) < 1e-10)
    True
    """

    def __init__(self, rule, ell_slope, pi, beta, lam, law=None, variants=None, ellipse=None):
        # ``rule``: the first contour rule, or a function building it on first use (then
        # ``ellipse``, its ContourEllipse, places the poles without it: the feature spectrum's
        # wide rules may never need it)
        self._rule = rule if isinstance(rule, BatchContour) else None
        self._build_rule = None if self._rule is not None else rule
        self.ellipse = rule if ellipse is None else ellipse
        if self._rule is None and (ellipse is None or not callable(rule)):
            raise ValueError("rule: give a BatchContour, or a function building it with its "
                             "ellipse (ContourEllipse)")
        # the batch's residual law (for m at a pole inside the contour, feature spectrum)
        self.law_e, self.law_w, self.law_xi, self.alpha0 = law if law is not None else (
            None, None, None, None)
        self._variants = variants if variants is not None else [None] * 5
        if not (math.isfinite(beta) and beta > 0 and math.isfinite(lam) and lam >= 0):
            raise ValueError(f"beta must be > 0 and lam >= 0, both finite, got beta = {beta!r}, "
                             f"lam = {lam!r}")
        self.slope = np.asarray(ell_slope, dtype=float)          # omega_j^2 b
        self.pi = np.asarray(pi, dtype=float)
        self.K = len(self.pi)
        self.beta, self.lam = float(beta), float(lam)
        self.sqrt_beta = math.sqrt(self.beta)
        self._ell = None
        self._last_root = None                   # (root, delta) of the last residue

    @property
    def rule(self) -> BatchContour:
        """The first contour rule (built on first use when given as a function)."""
        if self._rule is None:
            self._rule = self._build_rule()
        return self._rule

    @property
    def ell(self):
        """``ell_j`` at the first rule's nodes, ``(nodes, K)``."""
        if self._ell is None:
            self._ell = 1.0 + self.rule.z[:, None] * self.slope[None, :]
        return self._ell

    def _parts(self, r, V1hat, ell=None):
        ell = self.ell if ell is None else ell
        h = self.beta * self.pi * r * ell                        # diag of H at every node
        eye = np.eye(self.K)
        N = np.linalg.inv(eye + h[:, :, None] * V1hat[None])
        Nt = np.linalg.inv(eye + V1hat[None] * h[:, None, :])
        return N, Nt, N * h[:, None, :], V1hat[None] @ N

    def expectations(self, r, B):
        """``(E[ell_j (B (I + H B)^-1)_jj], E[phi]/beta)`` at any (complex) ``r`` and ``B``
        (``V1^`` of the fixed point, ``Ctilde`` of the feature spectrum, docs/theory.md (k.5)):
        the r-map's sum and the order parameter ``V1``, real parts not taken.

        The integrand's only singularities are the K roots of ``det(I + H(varsigma) B)``
        (``H`` is linear in ``varsigma``).  For the fixed point (``r > 0``, ``B >= 0``) they lie
        left of the rule's ``-pole``; the feature spectrum's complex ``r`` can bring them inside
        the ellipse (outside the batch's spectrum): their residues are added, and a root too
        close to the ellipse moves the sum to a confocal one: first the wide ellipses of
        Joukowski radius 1.7, 2.5 and 4 (the roots that crowd next to the spectrum then lie well
        inside, their residues added), then radius ``rho^0.5`` or ``rho^1.5`` with four times
        the nodes: the first rule with ``nodes |log(radius of the root / radius)| >= 36`` (the
        trapezoid's error is ``exp`` of minus that), else the refusal names the letter.

        >>> P = ExactGroupBulk("tanh", "sin", 2.0, 3.0, vocabulary=[1, 2]).group_prior(0.1, 1.0)
        >>> pr = P.prior(np.eye(2), np.zeros(2))
        >>> e, V1 = P.expectations(pr.r, np.eye(2))
        >>> bool(np.allclose(1 / (0.1 + e.real), pr.r) and np.allclose(V1.real, pr.V1))
        True
        """
        roots = self._roots(r, B)
        finite = np.isfinite(roots[0])
        best, score = 0, math.inf
        # complex arguments (the feature spectrum) try the wide rules first: few nodes, and
        # every root of the integrand is a pole whose residue is added
        wide_first = self.law_e is not None and (np.iscomplexobj(r) or np.iscomplexobj(B))
        if wide_first or not self._far(roots[0], finite):  # the first rule far from the roots
            scores, unbuilt = {}, None
            order = (3, 4, 5, 0, 1, 2) if wide_first else (0, 3, 4, 5, 1, 2)
            for k in order if self.law_e is not None else (0,):
                try:
                    rule = self.rule if k == 0 else self._variant(k)
                except ConvergenceError as exc:  # the first rule cannot be built: others may
                    unbuilt = exc
                    continue
                if rule is None:             # this confocal rule could not be built
                    continue
                rad = rule.joukowski_radius(roots[0][finite])
                scores[k] = (rule.nodes * np.min(np.abs(np.log(rad / rule.radius)))
                             if finite.any() else math.inf)
                if scores[k] >= 36.0:        # no further rule built
                    break
            if not scores:
                raise unbuilt
            best = max(scores, key=scores.get)
            score = scores[best]
        if score < 36.0:                     # trapezoid error ~ exp(-nodes |log(rad/radius)|)
            raise ConvergenceError(self._pole_message(roots, finite, score),
                                   residual=float("nan"))
        rule = self.rule if best == 0 else self._variant(best)
        ell = self.ell if best == 0 else 1.0 + rule.z[:, None] * self.slope[None, :]
        _, _, phi, T = self._parts(r, B, ell)
        e_diag = np.einsum("q,qj,qjj->j", rule.plain, ell, T)
        e_phi = np.tensordot(rule.plain, phi, 1)
        if finite.any():
            inside = np.flatnonzero(finite)[rule.joukowski_radius(roots[0][finite]) < rule.radius]
            if len(inside) and self.law_e is None:
                raise ConvergenceError("a pole of the exact law's integrand lies inside the "
                                       "contour and the prior has no batch law for its residue "
                                       "(build it with ExactGroupBulk.group_prior)",
                                       residual=float("nan"))
            for i in inside:                                     # E f = sum + m(root) Res f
                m, res_diag, res_phi = self._residue(roots, i, r, B)
                e_diag, e_phi = e_diag + m * res_diag, e_phi + m * res_phi
        return e_diag, e_phi / self.beta

    def _far(self, roots, finite):
        """No root of the integrand within the first rule's ellipse of Joukowski radius
        ``0.999 radius^2`` (where the rule's own self-check puts ``-pole``)."""
        ell = self.ellipse
        return (not finite.any()
                or np.min(ell.joukowski_radius(roots[finite])) >= 0.999 * ell.radius**2)

    def _pole_message(self, roots, finite, score):
        """Which group's pole sits on the contour rules, and why (the refusal's message)."""
        idx = np.flatnonzero(finite)
        near = idx[np.argmin(np.abs(np.log(self.ellipse.joukowski_radius(roots[0][idx])
                                            / self.ellipse.radius)))]
        j = int(np.argmax(np.abs(roots[2][:, near])))     # the null vector's largest entry
        return (f"the exact law's integrand has a pole at varsigma = {complex(roots[0][near]):.4g}, "
                f"carried by letter group {j + 1} of the vocabulary (its rows' variance factor "
                f"ell_{j + 1} = 1 + varsigma omega_{j + 1}^2 b, omega_{j + 1}^2 b = "
                f"{self.slope[j]:.4g}), too close to every contour rule (the best keeps "
                f"{score / 2.303:.0f} of the 16 digits): a large letter times a large step puts "
                "this pole next to the step batch's spectrum; use bulk='step' (the realised "
                "layer) or a smaller eta")

    def _variant(self, k):
        """The confocal rules of :meth:`expectations` (built once, on first need; ``None`` if
        the rule does not converge, e.g. radius ``rho^0.5`` of a rule already near the
        spectrum): k = 1, 2 the radii ``rho^0.5``, ``rho^1.5`` with four times the nodes; k = 3,
        4, 5 the wide ellipses of Joukowski radius 1.7, 2.5 and 4 (128 nodes: between them every
        root radius but one window is 0.28 away in log, error ``exp(-36)``), whose nodes sit far
        from the spectrum and which enclose the roots that crowd next to it (a large letter times
        a large step puts ``-1/(omega_j^2 b)`` there): their residues are added."""
        if self._variants[k - 1] is None:
            if k <= 2:
                base, factor, nodes = self.rule, (0.5, 1.5)[k - 1], 4 * self.rule.nodes
            else:              # the wide ellipses need only the first one's geometry
                base, nodes = self.ellipse, 128
                factor = math.log(WIDE_RADII[k - 3]) / math.log(base.radius)
            try:
                self._variants[k - 1] = batch_contour_variant(
                    base, self.law_e, self.law_w, self.law_xi, self.alpha0, factor,
                    nodes=nodes)
            except RuntimeError:
                self._variants[k - 1] = False
        return self._variants[k - 1] or None

    def _roots(self, r, B):
        """The roots of ``det(P0 + varsigma P1)``, ``P0 = I + beta Lambda B``, ``P1 = beta
        Lambda diag(omega^2 b) B``, with left and right null vectors."""
        A0 = self.beta * self.pi * np.asarray(r)
        P0 = np.eye(self.K) + A0[:, None] * B
        P1 = (A0 * self.slope)[:, None] * B
        with np.errstate(all="ignore"):
            x, vl, vr = scipy.linalg.eig(P0, -P1, left=True, right=True)
        return x, vl, vr, A0, P1

    def _residue(self, roots, i, r, B):
        """``m`` at root ``i`` and the residues there of ``ell_j T_jj`` and ``phi``:
        ``Res (P0 + varsigma P1)^-1 = u v^T / (v^T P1 u)``."""
        x, vl, vr, A0, P1 = roots
        u, v = vr[:, i], vl[:, i].conj()
        resN = np.outer(u, v) / (v @ P1 @ u)
        Hx = A0 * (1.0 + self.slope * x[i])
        ell = 1.0 + self.slope * x[i]
        last = self._last_root
        start = last[1] if last is not None and abs(x[i] - last[0]) < 0.1 * abs(x[i]) else None
        try:
            f = batch_forms(np.array([-x[i]]), self.law_e, self.law_w, self.law_xi, self.alpha0,
                            start)
            if start is not None and f.m[0].imag * x[i].imag < -1e-12 * abs(f.m[0]):
                f = batch_forms(np.array([-x[i]]), self.law_e, self.law_w, self.law_xi,
                                self.alpha0)      # the warm start left the physical branch
            m = complex(f.m[0])
            self._last_root = (x[i], f.delta)       # a warm start for the next nearby root
        except RuntimeError as exc:          # a pole on the batch's spectrum: no expectation
            raise ConvergenceError(f"the exact law's integrand has a pole at {x[i]} on the "
                                   f"step batch's spectrum ({exc})",
                                   residual=float("nan")) from exc
        return m, ell * np.diag(B @ resN), resN * Hx[None, :]

    def _phi_r(self, r, T):
        """Jacobian of ``1/r - lambda - V2^ - E[ell diag T]`` in ``r``."""
        w = self.rule.plain[:, None, None] * self.ell[:, :, None] * self.ell[:, None, :]
        return (-np.diag(1 / r**2)
                + self.beta * np.sum(w * T * np.swapaxes(T, 1, 2), axis=0).real * self.pi)

    def _solve_r(self, V1hat, base):
        r = 1 / base
        for _ in range(60):                       # monotone iteration, then Newton
            _budget_check("the exact bulk's fixed point")
            new = 1 / (base + self.expectations(r, V1hat)[0].real)
            change, r = np.max(np.abs(new - r) / r), new
            if change < 1e-3:
                break
        for _ in range(60):
            _budget_check("the exact bulk's fixed point")
            _, _, _, T = self._parts(r, V1hat)
            res = 1 / r - base - self.expectations(r, V1hat)[0].real
            step = -np.linalg.solve(self._phi_r(r, T), res)
            t = 1.0
            while np.any(r + t * step <= 0):
                t /= 2
            r = r + t * step
            if t == 1.0 and np.max(np.abs(step) / r) < 1e-14:
                return r
        raise ConvergenceError("the exact K-group r-equation did not converge",
                               residual=float(np.max(np.abs(res))), iterate=r)

    def prior(self, V1hat, V2hat) -> ExactGroupState:
        """The r-equation's solution and the sums at ``(V1^, V2^)`` (module doc)."""
        K = self.K
        V1hat = np.asarray(V1hat, dtype=float).reshape(K, K)
        V2hat = np.asarray(V2hat, dtype=float).reshape(K)
        base = self.lam + V2hat
        if not (np.all(base > 0) and np.all(np.isfinite(base)) and np.all(np.isfinite(V1hat))):
            raise ConvergenceError(f"the resolvent diverges: lambda + V2hat = {base.tolist()} "
                                   "must be > 0 and finite for every group", residual=float("inf"))
        low = float(np.linalg.eigvalsh(_sym(V1hat))[0])
        if low < -1e-12 * max(1.0, float(np.max(np.abs(V1hat)))):
            # phi is holomorphic right of -pole only for V1^ >= 0 (docs/theory.md (g.5.2)):
            # else a pole of the integrand can sit on or inside the contour
            raise ConvergenceError(f"the exact K-group prior needs V1hat >= 0: its smallest "
                                   f"eigenvalue is {low:.6g}", residual=float("inf"))
        r = self._solve_r(V1hat, base)
        N, Nt, phi, T = self._parts(r, V1hat)
        rule = self.rule
        tvv, tvz, tzz = (_sym(np.tensordot(wq, phi, 1).real)
                         for wq in (rule.vv, rule.vz, rule.zz))
        V1 = _sym(np.tensordot(rule.plain, phi, 1).real) / self.beta
        F, H, X = self._directions(V1hat, tvv, tvz, tzz)
        Phi_r_inv = np.linalg.inv(self._phi_r(r, T))
        return ExactGroupState(r, N, Nt, phi, T, V1, self.pi * r, F, H, tvv, tvz, tzz, V1hat,
                               Phi_r_inv, {}, X)

    def _directions(self, V1hat, tvv, tvz, tzz):
        """``F``, ``H`` and the cross sums ``X = (I - t_vv V1^)^-1 t_vz / beta`` (module doc)."""
        eye = np.eye(self.K)
        Z = np.linalg.inv(eye - tvv @ V1hat)
        F = tvv @ np.linalg.inv(eye - V1hat @ tvv) / self.beta
        H = (tzz + tvz.T @ V1hat @ Z @ tvz) / self.beta
        return _sym(F), _sym(H), Z @ tvz / self.beta

    def derivatives(self, pr: ExactGroupState, dV1hat, dV2hat):
        """``(dV1, dV2, dF, dH, dX)`` along symmetric ``(dV1^, dV2^)`` (a leading batch axis):
        ``dT = Nt dV1^ N - T dH T``, ``dphi = N dH Nt - phi dV1^ phi``, the r-equation
        differentiated implicitly, and the Woodbury forms of ``F``, ``H``, ``X`` differentiated."""
        dV1hat = np.asarray(dV1hat, dtype=float)
        dV2hat = np.asarray(dV2hat, dtype=float)
        rule, ell, eye = self.rule, self.ell, np.eye(self.K)
        # r: Phi_r dr = dV2^ + E[ell diag(Nt dV1^ N)]
        src = np.einsum("qjk,...kl,qlj->...qj", pr.Nt, dV1hat, pr.N)
        rhs = dV2hat + np.einsum("q,qj,...qj->...j", rule.plain, ell, src).real
        dr = np.einsum("jk,...k->...j", pr.Phi_r_inv, rhs)
        dh = self.beta * self.pi * dr[..., None, :] * ell                  # (..., nodes, K)
        dphi = (pr.N * dh[..., None, :]) @ pr.Nt - pr.phi @ dV1hat[..., None, :, :] @ pr.phi
        dt = [_sym(np.einsum("q,...qab->...ab", wq, dphi).real)
              for wq in (rule.plain, rule.vv, rule.vz, rule.zz)]
        dV1, dtvv, dtvz, dtzz = dt[0] / self.beta, dt[1], dt[2], dt[3]
        V1h, tvv, tvz = pr.V1hat, pr.tvv, pr.tvz
        Y = np.linalg.inv(eye - V1h @ tvv)
        dF = (dtvv @ Y + tvv @ Y @ (dV1hat @ tvv + V1h @ dtvv) @ Y) / self.beta
        Z = np.linalg.inv(eye - tvv @ V1h)
        Kc = V1h @ Z
        dKc = dV1hat @ Z + V1h @ Z @ (dtvv @ V1h + tvv @ dV1hat) @ Z
        tT = np.swapaxes(dtvz, -1, -2)
        dH = (dtzz + tT @ Kc @ tvz + tvz.T @ dKc @ tvz + tvz.T @ Kc @ dtvz) / self.beta
        dZ = Z @ (dtvv @ V1h + tvv @ dV1hat) @ Z              # d (I - t_vv V1^)^-1
        dX = (dZ @ tvz + Z @ dtvz) / self.beta
        return dV1, self.pi * dr, _sym(dF), _sym(dH), dX

    def prior_units(self, pr: ExactGroupState):
        """The derivatives along the K^2 ordered entries of ``V1^`` (m-major; entry ``(j, l)``
        as the symmetric direction ``(E_jl + E_lj)/2``, which the engine's symmetric use
        needs) and then the K entries of ``V2^``: ``(dV1, dV2, dF, dH, dX)`` stacked."""
        if "units" not in pr.cache:
            K = self.K
            d1 = np.zeros((K * K + K, K, K))
            for j in range(K):
                for l in range(K):
                    d1[j * K + l, j, l] += 0.5
                    d1[j * K + l, l, j] += 0.5
            d2 = np.zeros((K * K + K, K))
            d2[K * K:] = np.eye(K)
            pr.cache["units"] = self.derivatives(pr, d1, d2)
        return pr.cache["units"]

    def second_moments(self, pr: ExactGroupState, hat: Hats):
        """``(Q1, q2) = -J[Q1^, q2^] - grad G``, ``G = th^ F th^ + psi^ H psi^ + 2 th^ X psi^``
        (the last term: the cross sums)."""
        K = self.K
        _, _, gF, gH, gX = self.prior_units(pr)
        th, ps = np.asarray(hat.thetahat, float), np.asarray(hat.psihat, float)
        dV1, dV2 = self.prior_linear(pr, hat.q1hat, hat.q2hat)
        grad = (np.einsum("a,dab,b->d", th, gF, th) + np.einsum("a,dab,b->d", ps, gH, ps)
                + 2 * np.einsum("a,dab,b->d", th, gX, ps))
        Q1 = -dV1 - grad[:K * K].reshape(K, K)
        return _sym(Q1), -dV2 - grad[K * K:]


class ExactGroupBulk(GroupSpectralSide):
    r"""The spectral back end of ``bulk="exact"`` with a vocabulary (module doc): the step
    batch's contour rule (built on first use), the mapping's deterministic ``r, c, gamma`` and
    letters' ``r_j, c_j``, and :meth:`group_prior` for the K-group engine.  Odd students only
    (as every vocabulary).

    >>> ExactGroupBulk("relu", "sin", 2.0, 3.0, vocabulary=[1, 2])
    Traceback (most recent call last):
    ...
    ValueError: bulk='exact' with a vocabulary needs an odd student (sigma' even, a = eta mu_2 = 0): relu has a = 1.19...
    """

    name = "exact"

    def __init__(self, student, teacher, alpha0, eta, vocabulary=None, n_nodes: int = 64,
                 mapping=None):
        from ...step.mapping import srf_mapping
        from ...step.vocabulary import vocabulary as make_vocabulary
        from .exact_bulk import ExactBulk
        self.vocabulary = make_vocabulary(vocabulary)
        self.law = ExactBulk(student, teacher, alpha0, eta, 1.0, n_nodes=n_nodes)
        if self.law.a != 0.0:
            raise ValueError("bulk='exact' with a vocabulary needs an odd student (sigma' even, "
                             f"a = eta mu_2 = 0): {student} has a = {self.law.a:.6g} (the groups' "
                             "covariances then do not commute; use bulk='step' with d and seed)")
        if not self.law.b > 0.0:
            raise ValueError("bulk='exact' needs a step that moves the bulk (eta > 0 and a "
                             "student with checkmu1^2 > mu_2^2); use bulk='isotropic'")
        self.K = self.vocabulary.K
        mp = srf_mapping(student, teacher, eta, alpha0) if mapping is None else mapping
        self.r, self.c = float(mp.spike_strength), float(mp.bulk_variance)
        self.gamma = float(mp.alignment)
        self.group_r = self.vocabulary.group_spike_strengths(self.r)
        self.group_c = self.vocabulary.group_bulk_variances(self.c)
        self.slope = np.asarray(self.vocabulary.letters, dtype=float)**2 * self.law.b
        mean_ell = 1.0 + self.slope * float(self.law.w @ self.law.e**2)
        if np.max(np.abs(mean_ell / np.asarray(self.group_c) - 1)) > 1e-6:
            raise ValueError(f"bulk='exact': the law's group means E ell_j = {mean_ell.tolist()} "
                             f"differ from the mapping's c_j = {list(self.group_c)} (keep the "
                             "mapping's mu0 correction)")
        # the first contour rule is built on first use (the fixed point's sums need it; the
        # feature spectrum's wide rules need only its ellipse, which costs nothing)
        self.ellipse = contour_ellipse(self.law.e, self.law.alpha0, 1.0 / float(self.slope.max()))
        self._rule = self._rule_error = None
        self._variants = [None] * 5                     # confocal rules, shared by the priors

    @property
    def rule(self) -> BatchContour:
        """The step batch's first contour rule (built on first use, then kept)."""
        return self._first_rule()

    def _first_rule(self) -> BatchContour:
        if self._rule is None:
            if self._rule_error is not None:     # it failed once: it fails again, at no cost
                raise self._rule_error
            try:
                self._rule = self._build_rule()
            except ConvergenceError as exc:
                self._rule_error = exc
                raise
        return self._rule

    def _build_rule(self) -> BatchContour:
        try:
            return batch_contour(self.law.e, self.law.w, self.law.xi, self.law.alpha0,
                                 self.ellipse.pole)
        except ConvergenceError as exc:
            j = int(np.argmax(self.slope))
            raise ConvergenceError(
                f"bulk='exact' with the {self.vocabulary}: letter {self.vocabulary.letters[j]:g} "
                f"puts the pole of its rows' variance factor ell = 1 + varsigma omega^2 b at "
                f"varsigma = {-1.0 / self.slope[j]:.3g} (omega^2 b = {self.slope[j]:.4g}), "
                "so close to the step batch's spectrum, which starts at 0, that no contour rule "
                f"around that spectrum resolves it ({exc}); use bulk='step' (the realised layer), "
                "a smaller eta or smaller letters", residual=float("nan")) from exc

    def __repr__(self):
        nodes = ("contour rule not built yet" if self._rule is None
                 else f"{self._rule.nodes} contour nodes")
        return (f"ExactGroupBulk(letters={self.vocabulary.letters}, b={self.law.b:.6g}, "
                f"alpha0={self.law.alpha0!r}, {nodes})")

    def group_prior(self, lam, beta) -> ExactGroupPrior:
        """The K-group prior at ``(lam, beta)``; it builds the first contour rule through this
        bulk (once for all its priors) when it first needs it."""
        return ExactGroupPrior(self._first_rule, self.slope, self.vocabulary.weights, beta,
                               lam, (self.law.e, self.law.w, self.law.xi, self.law.alpha0),
                               self._variants, ellipse=self.ellipse)


_CACHE: dict = {}


def exact_group_bulk(student, teacher, alpha0, eta, vocabulary=None) -> ExactGroupBulk:
    """:class:`ExactGroupBulk`, kept for the last few argument sets (a learning curve builds
    its contour rule once).

    >>> exact_group_bulk("tanh", "sin", 2.0, 3.0, [1, 2]) is exact_group_bulk("tanh", "sin", 2.0, 3.0, [1, 2])
    True
    """
    from ...step.vocabulary import vocabulary as make_vocabulary
    from .step_bulk import _key
    voc = make_vocabulary(vocabulary)
    key = (_key(student), _key(teacher), float(alpha0), float(eta), voc.letters, voc.weights)
    if key not in _CACHE:
        while len(_CACHE) >= 4:
            _CACHE.pop(next(iter(_CACHE)))
        _CACHE[key] = ExactGroupBulk(student, teacher, alpha0, eta, voc)
    return _CACHE[key]


def vocabulary_bulk_warning(student, teacher, alpha0, eta, beta=1.0, vocabulary=None,
                            advice=None):
    """Warn (:class:`~srfsym.theory.spectral.step_bulk.IsotropicBulkWarning`) when the isotropic
    (block-Wishart) bulk of a vocabulary is off; return ``{letter: relative excess}``.

    Letter ``omega_j``'s rows are those of the uniform step at learning rate ``|omega_j| eta``
    (docs/theory.md (k.1)), so their bulk's normalised variance is the exact law's closed form
    there (:meth:`~srfsym.theory.spectral.exact_bulk.ExactBulk.normalised_variance`, no step
    drawn); the warning fires when a letter's exceeds ``beta`` by more than
    ``BULK_WARNING_THRESHOLD`` (docs/theory.md (g.4), (g.5.2)).  Odd students only (as every
    vocabulary); ``None`` otherwise.  ``advice``: what the warning recommends (default
    ``"use --bulk exact (docs/theory.md (g.5.2))"``; the command line passes what its own
    command accepts).

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     out = vocabulary_bulk_warning("tanh", "sin", 2.0, 3.0, 1.0, [1, 2])
    >>> [round(v, 3) for v in out.values()], len(w)           # letter 2: the step at eta = 6
    ([0.021, 0.153], 1)
    """
    import warnings
    from ...step.vocabulary import vocabulary as make_vocabulary
    from .exact_bulk import ExactBulk
    from .step_bulk import BULK_WARNING_THRESHOLD, IsotropicBulkWarning
    voc = make_vocabulary(vocabulary)
    if not alpha0 or not eta:
        return None
    try:
        excess = {w: ExactBulk(student, teacher, alpha0, abs(w) * eta, beta)
                  .normalised_variance() / beta - 1 for w in voc.letters}
    except BudgetExceeded:
        raise
    except (ValueError, ArithmeticError):
        return None
    worst = max(excess, key=excess.get)
    if excess[worst] > BULK_WARNING_THRESHOLD:
        warnings.warn(IsotropicBulkWarning(
            f"the isotropic bulk (block-Wishart rows of variance c_j, the papers' model) is off "
            f"here: letter {worst:g}'s rows (the step at learning rate {abs(worst) * eta:g}) have "
            f"a bulk of normalised variance {excess[worst]:+.0%} above c MP_beta's; the test error "
            "and the feature spectrum's tail move with it: "
            + (advice or "use --bulk exact (docs/theory.md (g.5.2))")), stacklevel=2)
    return excess
