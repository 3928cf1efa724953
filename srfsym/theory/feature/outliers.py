r"""The giant outliers and the bulk moments of the feature spectrum (docs/theory.md (j.5), (j.6),
(k.4)): closed forms in kappa-moments, written once in SymPy.

>>> e = spectrum_moment_expressions()
>>> e["bulk_mean"]
E_mu1sq*E_varrho + E_mustar2
"""
from __future__ import annotations

from functools import cached_property, lru_cache

import numpy as np
import sympy as sp

__all__ = ["spectrum_moment_expressions", "OutlierMixin"]

#: kappa node ladder of the kappa-moments (shared with the s(z) solver)
from .solve import NODE_LADDER  # noqa: E402

# the closed forms in kappa-moments, written once (docs/theory.md (j.5), (j.6))

EM0SQ, EKM0M1, EM0SQ_T, EMU1SQ, EMUS2, ET2 = sp.symbols(
    "E_mu0sq E_kappa_mu0_mu1 E_mu0sq_t E_mu1sq E_mustar2 E_tsq", real=True)
C_, BETA_, NU_ = sp.symbols("c beta nu", positive=True)
#: Variance of the bulk law of ``W Pi W^T`` (``beta c^2`` for ``c MP_beta``; the sample
#: variance of the eigenvalues for a finite-d bulk such as the step's, docs/theory.md (g.4)).
VAR_RHO = sp.Symbol("Var_varrho", positive=True)
#: Mean of the bulk law of ``W Pi W^T`` (``c`` for ``c MP_beta``; the mean of the eigenvalues
#: for a given list, which need not be c).
MEAN_RHO = sp.Symbol("E_varrho", positive=True)


@lru_cache(maxsize=None)
def spectrum_moment_expressions() -> dict:
    r"""Bulk mean, normalised bulk variance and the giant-outlier correction Delta in
    kappa-moments: ``t(kappa) = E_varrho mu1^2 + mu_star^2`` is the conditional variance of
    one feature, averaged over the bulk law ``varrho`` of ``W Pi W^T`` (``E_varrho = c`` for
    ``c MP_beta``; ``E_tsq`` is ``E t^2`` with the same ``t``).  Delta (derived for the
    isotropic bulk) keeps ``c`` (``E_mu0sq_t = E[mu0^2 (c mu1^2 + mu_star^2)]``).

    >>> e = spectrum_moment_expressions()
    >>> e["bulk_mean"]
    E_mu1sq*E_varrho + E_mustar2
    >>> e["outlier_correction"].subs(EKM0M1, 0).subs(EM0SQ_T, EM0SQ * e["bulk_mean"]).subs(
    ...     MEAN_RHO, C_)
    E_mu1sq*c + E_mustar2 + nu*(E_mu1sq*c + E_mustar2)
    """
    Et = MEAN_RHO * EMU1SQ + EMUS2
    var_t = ET2 - Et**2
    return {
        "bulk_mean": Et,
        # m2/m1^2 - 1 of the bulk law (docs/theory.md (j.6)); Var_varrho = beta c^2 for c MP_beta
        "bulk_normalised_variance": NU_ * (1 + var_t / Et**2) + VAR_RHO * EMU1SQ**2 / Et**2,
        # lambda_1 = p M2hat + Delta (docs/theory.md (j.5))
        "outlier_correction": (C_ * EMU1SQ + EMUS2
                               + (C_ * BETA_ * EKM0M1**2 + NU_ * EM0SQ_T) / EM0SQ),
    }


@lru_cache(maxsize=None)
def _moment_functions():
    e = spectrum_moment_expressions()
    args = (EM0SQ, EKM0M1, EM0SQ_T, EMU1SQ, EMUS2, ET2, C_, BETA_, NU_, MEAN_RHO, VAR_RHO)
    return {k: sp.lambdify(args, v, modules="math") for k, v in e.items()}




class OutlierMixin:
    """Outliers and bulk moments of :class:`~srfsym.theory.feature.spectrum.FeatureSpectrum`
    (kappa-moments of the cGET coefficients; no s(z) solve)."""

    # ----------------------------------------------------------------------------------
    # moments, outlier, edge
    @cached_property
    def _moments(self):
        """kappa-moments of the coefficients, the node count raised until 1e-13 relative."""
        prev = None
        for K in NODE_LADDER:
            P = self._problem(K)
            mu0, mu1sq, mus2, kap = P.mu0, P.mu1sq, P.mus2, P.kappa
            t = self.c * mu1sq + mus2                    # (Delta, docs/theory.md (j.5))
            t_bulk = self._bulk_law[0] * mu1sq + mus2    # averaged over the bulk law
            cur = np.array([P.E(mu0 * mu0), P.E(kap * mu0 * P.mu1), P.E(mu0 * mu0 * t),
                            P.E(mu1sq), P.E(mus2), P.E(t_bulk * t_bulk)])
            if prev is not None and np.all(np.abs(cur - prev) <= 1e-13 * (np.abs(cur) + 1e-300)
                                           + 1e-300):
                break
            prev = cur
        return tuple(float(v) for v in cur)

    def _formula(self, name):
        try:
            return float(_moment_functions()[name](*self._moments, self.c, self.beta, self.nu,
                                                   *self._bulk_law))
        except ZeroDivisionError:
            t = self._bulk_law[0] * self._moments[3] + self._moments[4]
            raise ValueError(f"the features' bulk scale E[mu1^2] E[varrho] + E[mu_star^2] = "
                             f"{t:.3g} (at r = {self.r:g}, c = {self.c:g}) is too small for double "
                             "precision (its square underflows to 0): the bulk is degenerate "
                             "here; use a larger c") from None

    @cached_property
    def _bulk_law(self) -> tuple:
        """Mean and variance of the bulk law ``varrho`` of ``W Pi W^T`` that the s(z) solver
        uses: ``(c, beta c^2)`` (MP), those of the given eigenvalues (a list, or a sampled
        layer's ``Omega``), or the exact law's (docs/theory.md (g.5))."""
        from ..spectral.eigenvalues import EigenvalueSpectrum
        bulk = self.bulk
        if hasattr(bulk, "omega_spectrum"):           # a sampled layer: its Omega's eigenvalues
            bulk = EigenvalueSpectrum(bulk.omega_spectrum()[0])
        if isinstance(bulk, EigenvalueSpectrum):
            return float(np.mean(bulk.D)), float(np.var(bulk.D))
        if hasattr(bulk, "bulk_moments"):        # the exact law, docs/theory.md (g.5)
            m1, m2 = bulk.bulk_moments()
            return float(m1), float(m2 - m1 * m1)
        return self.c, self.beta * self.c ** 2

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

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
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
        from ...symbolic.cget import cget_coefficients
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

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
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
            from ...symbolic.cget import cget_coefficients
            mu0, _, _ = cget_coefficients(self.student).numpy()(np.asarray(kappa, float),
                                                                 self.r, self.c)
            M2 = float(np.mean(np.asarray(mu0) ** 2))
        return float(p) * M2 + self.outlier_correction

    @property
    def bulk_mean(self) -> float:
        """Mean of the bulk law, ``E t(kappa)``, ``t = E_varrho mu1^2 + mu_star^2`` with
        ``E_varrho`` the mean of the spectral side (``c`` for MP, the mean of a given
        eigenvalue list); with a vocabulary the pi-weighted mean of the groups' values (the
        trace is additive).

        >>> from srfsym.theory.feature.spectrum import feature_spectrum
        >>> fs = feature_spectrum("tanh", r=1.0, c=1.0, spectrum=[1.0, 3.0])   # mean 2, not c
        >>> round(fs.bulk_mean, 6), round(2 * fs._moments[3] + fs._moments[4], 6)
        (0.531947, 0.531947)
        """
        if self._use_groups:
            f = _moment_functions()["bulk_mean"]
            mu1sq, mus2, _ = self._group_moments
            return float(sum(pj * f(0, 0, 0, a, b, 0, cj, self.beta, self.nu, cj, 0)
                             for pj, a, b, cj in
                             zip(self.voc.weights, mu1sq, mus2,
                                 self.voc.group_bulk_variances(self.c))))
        return self._formula("bulk_mean")

    @property
    def bulk_normalised_variance(self) -> float:
        """``m2 / m1^2 - 1`` of the bulk law (docs/theory.md (j.6))."""
        self._not_for_groups("the bulk variance formula")
        return self._formula("bulk_normalised_variance")
