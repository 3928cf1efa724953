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
(:class:`srfsym.theory.channels.square.SquareLossChannel` ``.v_hats`` on :func:`srfsym.theory.channels.kappa_quadrature.channel_data`: the
kappa rule and the generated cGET evaluators) and the spectral side with the Marchenko-Pastur
closed form of :mod:`srfsym.theory.spectrum` continued to complex arguments
(:func:`srfsym.theory.spectrum.mp_stieltjes_pair`), or with a given list of bulk eigenvalues.

The parts live in three modules: the s(z) solver on the physical branch
(:mod:`srfsym.theory.feature.solve`), the density and the right edge
(:mod:`srfsym.theory.feature.density`), the outliers and bulk moments
(:mod:`srfsym.theory.feature.outliers`); :class:`FeatureSpectrum` combines them.

>>> fs = feature_spectrum("tanh", r=0.0, c=1.0)       # untrained: the plain RF spectrum
>>> s = fs.stieltjes(1 + 0.1j)
>>> round(s.real, 4), round(s.imag, 4)
(-0.9283, 0.6491)
>>> round(fs.bulk_mean, 4), fs.outlier_per_p
(0.3943, 0.0)
"""
from __future__ import annotations

import math

import numpy as np

from ...symbolic.activations import activation
from ...step.mapping import srf_mapping
from ...step.vocabulary import vocabulary as make_vocabulary
from .density import DensityMixin
from .outliers import (BETA_, C_, EKM0M1, EM0SQ, EM0SQ_T, EMU1SQ, EMUS2, ET2,  # noqa: F401
                               NU_, OutlierMixin, _moment_functions, spectrum_moment_expressions)
from .solve import (NODE_LADDER, StieltjesSolver, StieltjesValue, _check_ratio,  # noqa: F401
                            _check_z)
from ..interfaces import GroupSpectralSide, SpectralSide
from ..spectrum import EigenvalueSpectrum, MarchenkoPastur
from ..state import ConvergenceError  # noqa: F401

__all__ = ["FeatureSpectrum", "feature_spectrum", "StieltjesValue", "spectrum_moment_expressions"]


class FeatureSpectrum(StieltjesSolver, DensityMixin, OutlierMixin):
    """Deterministic equivalent of the spectrum of ``X = Phi^T Phi / n`` for a student at sRF
    parameters ``(r, c)``, width ratio ``beta = p/d`` and ``nu = p/n``.

    Build it with :func:`feature_spectrum`.  ``spectrum="mp"`` averages over ``varrho ~ c
    MP_beta``; an array of eigenvalues of ``W Pi W^T`` gives the finite-d variant.

    With a readout vocabulary (K letters, docs/theory.md (k.5)) the features of group j have
    the coefficients of spike ``r omega_j`` and bulk variance ``c_j``; ``s(z)`` then solves the
    block-Wishart system for the K group traces ``R_j``, and the K giant
    outliers are :meth:`giant_outliers` (leading order).
    """

    def __init__(self, student, r, c, beta=1.0, p_over_n=1.0, spectrum="mp", tol=1e-10,
                 vocabulary=None):
        self.voc = make_vocabulary(vocabulary)
        self.group_law = None
        if isinstance(spectrum, GroupSpectralSide):
            spectrum = self._group_side(spectrum, vocabulary, beta, r, c)
        if not self.voc.is_uniform:
            from ...step.vocabulary import check_student
            check_student(student, self.voc)
            if not isinstance(spectrum, str):
                raise ValueError("a finite-d bulk (an eigenvalue list) is not available with a "
                                 "readout vocabulary: the groups' bulks differ; use 'mp' or "
                                 "the exact law split by letter (ExactGroupBulk)")
        self._use_groups = not self.voc.is_uniform or self.group_law is not None
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
            self.bulk = (spectrum if isinstance(spectrum, SpectralSide)
                         else EigenvalueSpectrum(spectrum))
            if hasattr(self.bulk, "bulk_moments") and self.bulk.beta != self.beta:
                raise ValueError(f"the exact bulk was built at beta = {self.bulk.beta:g}, the "
                                 f"feature spectrum asks for beta = {self.beta:g}")
            if hasattr(self.bulk, "bulk_moments") and (
                    abs(self.bulk.bulk_moments()[0] / self.c - 1) > 1e-6):   # E D = c, (g.5)
                raise ValueError(f"the exact bulk was built for another step (its mean E D = "
                                 f"{self.bulk.bulk_moments()[0]:.9g}, the feature spectrum has "
                                 f"c = {self.c:.9g}): build it with the same student, teacher, "
                                 "alpha0 and eta")
        self._warm = None

    def support_resolution(self, factor: int = 2):
        """On the exact law of the step's bulk: its support's pieces again with ``factor`` times
        the residual law's nodes, ``(agree, nodes, finer_pieces)`` (:func:`pieces_agree`); at a
        tiny batch the gaps between pieces can come from that discretisation (docs/theory.md
        (j.8)).  ``None`` on any other bulk, or with one piece.
        """
        from .density import pieces_agree
        if not hasattr(self.bulk, "refined") or getattr(self.bulk, "_law_args", None) is None \
                or len(self.support_pieces) < 2:
            return None
        finer = FeatureSpectrum(self.student, self.r, self.c, self.beta, self.nu,
                                spectrum=self.bulk.refined(factor), tol=self.tol)
        pieces = finer.support_pieces
        return pieces_agree(self.support_pieces, pieces), finer.bulk.e.size, pieces

    def _group_side(self, side, vocabulary, beta, r, c):
        """The exact law of the step's bulk split by letter (docs/theory.md (g.5.2)) as the
        K-group system's bulk; returns ``"mp"`` for the rest of the set-up."""
        if side.name != "exact":
            raise ValueError(f"the feature spectrum takes the exact law split by letter "
                             f"(ExactGroupBulk); the {side.name} bulk of a vocabulary is not "
                             "available here")
        if not (abs(float(r) - side.r) <= 1e-9 * max(1.0, abs(side.r))
                and abs(float(c) - side.c) <= 1e-9 * max(1.0, abs(side.c))):
            raise ValueError(f"the exact bulk was built for another step (its mapping gives r = "
                             f"{side.r:.9g}, c = {side.c:.9g}; the feature spectrum has r = "
                             f"{float(r):.9g}, c = {float(c):.9g}): build it with the same "
                             "student, teacher, alpha0 and eta")
        if vocabulary is not None and tuple(self.voc.letters) != tuple(side.vocabulary.letters):
            raise ValueError(f"the bulk's letters {side.vocabulary.letters} are not the "
                             f"vocabulary's {self.voc.letters}")
        self.voc = side.vocabulary
        self.group_law = side.group_prior(0.0, _check_ratio("beta = p/d", beta))
        return "mp"

    def __repr__(self):
        voc = "" if self.voc.is_uniform else f", {self.voc}"
        return (f"FeatureSpectrum({self.student.name}, r={self.r:.6g}, c={self.c:.6g}, "
                f"beta={self.beta:g}, p/n={self.nu:g}, {self.bulk!r}{voc})")

    @property
    def K(self) -> int:
        """Number of letters of the readout vocabulary (1 for the uniform readout)."""
        return self.voc.K


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
    spectrum : "mp", array or spectral back end
        Marchenko-Pastur bulk, or the eigenvalues of ``W Pi W^T`` (finite-d variant), or a
        back end such as :class:`~srfsym.theory.spectral.eigenvalues.EigenvalueSpectrum`
        (s(z) reads its eigenvalues; the projections serve the ridge fixed point), or
        :class:`~srfsym.theory.spectral.exact_bulk.ExactBulk` (the exact law of the step's bulk,
        docs/theory.md (g.5); pass the same ``beta``).
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
