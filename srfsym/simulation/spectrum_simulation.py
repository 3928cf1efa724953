r"""Eigenvalues of the feature covariance ``Phi^T Phi / n`` of a finite network after the
step (or of the sRF model), to hold the deterministic equivalent of
:mod:`srfsym.theory.feature.spectrum` against (docs/theory.md (j.7)).

The first layer comes from the same code and random streams as :func:`srfsym.simulation.simulate`
(:func:`srfsym.simulation.simulate.network_first_layer` for the network, :func:`srf_first_layer` for the
sRF model); the features are those of ``n = p / nu`` fresh inputs.  Per seed the result
holds the spectrum, the empirical Stieltjes transform at the requested ``z``, the top
eigenvalue and its prediction ``p M2hat + Delta`` from the realised spike: the measured
``(r, c)`` of that seed and ``kappa_i = <vhat, x_i>`` (``vhat`` the measured spike direction).

>>> sim = simulate_feature_spectrum("tanh", "sin", alpha0=0, eta=0, d=200, seeds=2)
>>> sim.eigenvalues[0].shape, len(sim.z)
((200,), 7)
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..symbolic.activations import activation
from ..theory.feature.spectrum import FeatureSpectrum, feature_spectrum
from .first_layer import as_seed_sequence, seed_children, network_first_layer, srf_first_layer
from .result import (bulk_row_correlation, empirical_group_parameters,
                     empirical_srf_parameters, gaussian_equivalence_warning)
from ..step.vocabulary import fit_uniform_parameters, vocabulary as make_vocabulary
from ..step.mapping import srf_mapping

__all__ = ["SpectrumSimulation", "simulate_feature_spectrum", "DEFAULT_Z", "piece_fractions",
           "empirical_stieltjes"]

#: The seven comparison points of docs/theory.md (j.7).
DEFAULT_Z = (-0.5 + 0.01j, 0.1 + 0.05j, 0.3 + 0.05j, 0.6 + 0.1j, 1 + 0.1j, 1.5 + 0.1j,
             2.5 + 0.3j)


def empirical_stieltjes(eigenvalues, z):
    """``(1/p) sum_i 1/(lambda_i - z)`` of a spectrum, at each ``z``.

    >>> complex(empirical_stieltjes([1.0, 3.0], [1j])[0])
    (0.4+0.3j)
    """
    lam = np.asarray(eigenvalues, dtype=float)[:, None]
    return np.mean(1.0 / (lam - np.asarray(z, dtype=complex)[None, :]), axis=0)


def piece_fractions(eigenvalues, pieces, outliers: int = 1) -> list:
    """The fractions of a network's bulk eigenvalues (its ``outliers`` largest left out) in each
    support piece ``(a, b)``, then in the gaps (docs/theory.md (j.8)); a piece from 0 also holds
    the eigenvalues that round-off puts just below 0.

    >>> piece_fractions([-1e-15, 0.3, 2.0, 4.5, 250.0], [(0.0, 1.0), (4.0, 6.0)])
    [0.5, 0.25, 0.25]
    """
    lam = np.sort(np.asarray(eigenvalues, dtype=float))
    bulk = lam[:lam.size - int(outliers)]
    inside = [float(np.mean((bulk >= (a if a > 0 else -np.inf)) & (bulk <= b)))
              for a, b in pieces]
    return inside + [1.0 - sum(inside)]


@dataclass
class SpectrumSimulation:
    """Spectra of ``Phi^T Phi / n`` over seeds, with the theory at the formula's (r, c)."""

    student: str
    teacher: str
    model: str
    d: int
    p: int
    n: int
    z: tuple
    eigenvalues: list             # one sorted array of p eigenvalues per seed
    stieltjes: np.ndarray         # (seeds, len(z)) complex
    top: np.ndarray               # largest eigenvalue per seed
    top_predicted: np.ndarray     # p M2hat + Delta from the realised kappa_i (empty: none)
    r_emp: np.ndarray
    c_emp: np.ndarray
    theory: FeatureSpectrum
    seconds: float
    notes: list = field(default_factory=list)
    outliers: np.ndarray | None = None            # (seeds, K) top K eigenvalues (vocabulary)
    outliers_predicted: np.ndarray | None = None  # (seeds, K) p eig(Pi^1/2 Gamma0hat Pi^1/2)
    row_correlation: np.ndarray | None = None     # per seed, result.bulk_row_correlation's rho2

    @property
    def stieltjes_mean(self) -> np.ndarray:
        return self.stieltjes.mean(axis=0)

    @property
    def stieltjes_sem(self) -> np.ndarray:
        """Standard error over seeds (of the real and imaginary parts, as a complex)."""
        k = self.stieltjes.shape[0]
        if k < 2:
            return np.full(self.stieltjes.shape[1], np.nan + 1j * np.nan)
        s = self.stieltjes
        return (s.real.std(axis=0, ddof=1) + 1j * s.imag.std(axis=0, ddof=1)) / math.sqrt(k)

    def theory_stieltjes(self) -> np.ndarray:
        return np.array([self.theory.stieltjes(z) for z in self.z])

    def max_relative_error(self) -> float:
        """max over z of |s_network - s_theory| / |s_theory| (network: mean over seeds)."""
        th = self.theory_stieltjes()
        return float(np.max(np.abs(self.stieltjes_mean - th) / np.abs(th)))

    def to_dict(self) -> dict:
        th = self.theory_stieltjes()
        return {"student": self.student, "teacher": self.teacher, "model": self.model,
                "d": self.d, "p": self.p, "n": self.n, "seeds": len(self.eigenvalues),
                "points": [{"z": [z.real, z.imag], "stieltjes": [s.real, s.imag],
                            "stieltjes_sem": [e.real, e.imag], "theory": [t.real, t.imag]}
                           for z, s, e, t in zip(self.z, self.stieltjes_mean,
                                                 self.stieltjes_sem, th)],
                "max_relative_error": self.max_relative_error(),
                "top_eigenvalue": self.top.tolist(),
                "top_predicted": self.top_predicted.tolist(),
                "r_emp": self.r_emp.tolist(), "c_emp": self.c_emp.tolist(),
                **({} if self.row_correlation is None else
                   {"row_correlation": self.row_correlation.tolist()}),
                **({} if self.outliers is None else
                   {"outliers": self.outliers.tolist(),
                    "outliers_predicted": self.outliers_predicted.tolist()}),
                "seconds": self.seconds, "notes": list(self.notes)}


def _positive_int(name, v, minimum=1):
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {v!r}")
    return int(v)


def _first_layer(model, st, te, alpha0, eta, d, p, ss_layer, omega, m):
    """One seed's first layer ``W1``, its spike direction and its (r, c): measured on the
    network (with a vocabulary, the uniform (r, c) fitted to the measured groups, docs/theory.md
    (k.1)), the formula's for the sRF model."""
    if model != "network":
        _, W1, vhat = srf_first_layer(m.r, m.c, m.gamma, d, beta=p / d, seed=ss_layer,
                                      omega=omega)
        return W1, vhat, m.r, m.c
    W0, W1 = network_first_layer(st, te, alpha0, eta, d, beta=p / d, seed=ss_layer, omega=omega)
    if omega is None:
        emp = empirical_srf_parameters(W0, W1, n_singular=1)
        return W1, emp["vhat"], emp["r"], emp["c"]
    emp = empirical_group_parameters(W0, W1, omega)
    w = np.asarray(emp["letters"])
    r_fit, c_fit = fit_uniform_parameters(w, [np.sum(omega == x) for x in w], emp["r"], emp["c"])
    return W1, emp["vhat"], r_fit, c_fit


def simulate_feature_spectrum(student, teacher, alpha0, eta, d, beta=1.0, p_over_n=1.0,
                              seeds=4, z=DEFAULT_Z, model="network", seed=0,
                              max_gb=8.0, vocabulary=None, theory=None) -> SpectrumSimulation:
    """Eigenvalues of ``Phi^T Phi / n`` for the trained network (``model="network"``) or the
    sRF model with the formula's (r, c, gamma) (``model="srf"``), over ``seeds`` seeds.

    Parameters
    ----------
    d : int
        Input dimension; ``p = round(beta d)`` features, ``n = round(p / p_over_n)`` inputs.
    z : sequence of complex
        Points where the empirical Stieltjes transform is evaluated.
    max_gb : float
        Refuse sizes whose arrays would exceed this many GiB (before any work).
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout letters of the step (docs/theory.md (k)).  The K outliers are then compared
        with ``p eig(Pi^1/2 Gamma0hat Pi^1/2)`` over the realised ``kappa_i`` (leading order),
        at the (r, c) fitted to the measured group spikes and bulk variances.
    theory : None or :class:`~srfsym.theory.feature.spectrum.FeatureSpectrum`
        The d -> infinity spectrum the simulation is compared with (``max_relative_error``,
        ``to_dict``): the one a caller displays, e.g. on the exact law of the step's bulk
        (docs/theory.md (g.5)); by default the isotropic bulk's at the same step.  Its
        ``beta`` and ``p/n`` must be those asked for.
    """
    st, te = activation(student), activation(teacher)
    d = _positive_int("d", d, 2)
    seeds = _positive_int("seeds", seeds)
    if model not in ("network", "srf"):
        raise ValueError(f"model must be 'network' or 'srf', got {model!r}")
    voc = make_vocabulary(vocabulary)
    if theory is None:
        theory = feature_spectrum(st, te, alpha0=alpha0, eta=eta, beta=beta, p_over_n=p_over_n,
                                  vocabulary=voc)
    elif not (math.isclose(theory.beta, float(beta)) and math.isclose(theory.nu, p_over_n)):
        raise ValueError(f"the theory compared with is at beta = {theory.beta:g}, p/n = "
                         f"{theory.nu:g}, the simulation at {float(beta):g}, {p_over_n:g}")
    p = max(1, int(round(theory.beta * d)))
    n = max(1, int(round(p / theory.nu)))
    n0 = int(math.floor(float(alpha0) * d))
    gb = 8 * (n * p + 2 * p * d + p * p + min(n0, 4096) * max(d, p)) / 2**30
    if gb > max_gb:
        raise MemoryError(f"d = {d}, p = {p}, n = {n} needs about {gb:.1f} GiB "
                          f"(> max_gb = {max_gb:g})")
    zs = tuple(complex(x) for x in np.atleast_1d(np.asarray(z, dtype=complex)))
    m = srf_mapping(st, te, eta, alpha0)
    sig = st.numpy
    t0 = time.perf_counter()
    omega = None if voc.is_uniform else voc.neuron_letters(p)
    eigs, S, top, pred, r_emp, c_emp = [], [], [], [], [], []
    outl, outl_pred, rho2 = [], [], []
    for ss in seed_children(as_seed_sequence(seed), seeds):
        ss_layer, ss_data = seed_children(ss, 2)
        W1, vhat, r_k, c_k = _first_layer(model, st, te, alpha0, eta, d, p, ss_layer, omega, m)
        r_emp.append(r_k)
        c_emp.append(c_k)
        if model == "network":
            rho2.append(bulk_row_correlation(W1, vhat)["rho2"])
        X = np.random.default_rng(ss_data).standard_normal((n, d))
        Phi = sig(X @ W1.T)
        lam = np.linalg.eigvalsh(Phi.T @ Phi / n)
        eigs.append(lam)
        S.append(empirical_stieltjes(lam, zs))
        top.append(lam[-1])
        if omega is not None:
            realised = FeatureSpectrum(st, r_emp[-1], c_emp[-1], p / d, p / n, vocabulary=voc)
            outl.append(lam[::-1][:voc.K])
            outl_pred.append(realised.giant_outliers(p, X @ vhat) if np.all(np.isfinite(vhat))
                             else np.full(voc.K, np.nan))    # eta = 0: no spike direction
            pred.append(outl_pred[-1][0])
        elif theory.has_outlier and np.all(np.isfinite(vhat)):
            # the spike this seed actually got: its measured (r, c) and kappa_i = <vhat, x_i>
            realised = FeatureSpectrum(st, r_emp[-1], c_emp[-1], p / d, p / n)
            pred.append(realised.giant_outlier(p, X @ vhat))
    notes = []
    if rho2 and (ge := gaussian_equivalence_warning(rho2, p, d)) is not None:
        notes.append(ge)
    if not pred:
        notes.append("no giant outlier (E mu0^2 = 0): the top eigenvalue is the bulk edge")
    if omega is not None:
        notes.append(f"{voc}: the K outliers are predicted to leading order "
                     "(p eig(Pi^1/2 Gamma0hat Pi^1/2)); the O(1) correction is not derived")
    return SpectrumSimulation(st.name, te.name, model, d, p, n, zs, eigs, np.array(S),
                              np.array(top), np.array(pred), np.array(r_emp),
                              np.array(c_emp), theory, time.perf_counter() - t0, notes,
                              np.array(outl) if outl else None,
                              np.array(outl_pred) if outl_pred else None,
                              np.array(rho2) if rho2 else None)
