"""What a simulation reports: :class:`SimulationResult` and the sRF parameters measured on a first layer.

The measured parameters (docs/theory.md (c), (k.6)) are read off ``W1 - W0``: the spike ``r`` and
direction ``vhat`` from the mean update (:func:`empirical_srf_parameters`; per readout letter along
the letter-weighted update with a vocabulary, :func:`empirical_group_parameters`), the bulk variance
``c`` from the rows' norms orthogonal to ``vhat``, the alignment ``gamma = |<vhat, e1>|``.

>>> from srfsym.simulation.first_layer import srf_first_layer
>>> Wb, W, v = srf_first_layer(0.7, 1.0, 0.9, d=40, seed=1)
>>> round(empirical_srf_parameters(Wb, W)["r"], 10)
0.7
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

__all__ = ["SimulationResult", "empirical_srf_parameters", "empirical_group_parameters",
           "bulk_row_correlation", "GAUSSIAN_EQUIVALENCE_LIMIT", "gaussian_equivalence_ratio",
           "gaussian_equivalence_warning", "row_correlation_line"]


# --------------------------------------------------------------------------------------
# measured sRF parameters

def _top_singular_values(A, B, k: int = 3) -> np.ndarray:
    """Top ``k`` singular values of ``(B - A)/sqrt(p)`` (ARPACK for large matrices)."""
    p, d = A.shape
    D = B - A
    D /= math.sqrt(p)
    out = np.zeros(k)
    if min(p, d) <= max(64, 2 * k + 2):
        s = np.linalg.svd(D, compute_uv=False)
    elif not np.any(D):
        return out
    else:
        from scipy.sparse.linalg import svds
        v0 = np.random.default_rng(2024).standard_normal(min(p, d))  # fixed start: reproducible
        try:
            s = svds(D, k=k, v0=v0, return_singular_vectors=False)
        except Exception:  # pragma: no cover - ARPACK trouble; fall back to the dense SVD
            s = np.linalg.svd(D, compute_uv=False)
    s = np.sort(np.abs(s))[::-1][:k]
    out[: s.size] = s
    return out


def empirical_srf_parameters(W0: np.ndarray, W1: np.ndarray, theta=None, n_singular: int = 3) -> dict:
    r"""sRF parameters measured on a first layer, as in the verification table of docs/theory.md (c).

    ``r_emp = |(1/p) sum_k (w1_k - w0_k)|``, ``vhat_emp`` = that mean direction normalised,
    ``gamma_emp = |<vhat_emp, theta>|`` (``theta = e1`` by default),
    ``c_emp = (1/p) sum_k |(I - vhat vhat^T) w1_k|^2`` and the top singular values of
    ``(W1 - W0)/sqrt(p)``.  If the mean update vanishes (``alpha0 = 0``), ``vhat`` and
    ``gamma_emp`` are NaN and ``c_emp`` is the mean squared row norm of ``W1``.

    Returns
    -------
    dict
        keys ``r``, ``c``, ``gamma``, ``vhat`` (ndarray), ``singular_values`` (ndarray).

    Examples
    --------
    >>> from srfsym.simulation.first_layer import srf_first_layer
    >>> Wb, W, v = srf_first_layer(0.7, 1.0, 0.9, d=40, seed=1)
    >>> e = empirical_srf_parameters(Wb, W)
    >>> round(e["r"], 10), round(e["gamma"], 10)
    (0.7, 0.9)
    """
    W0 = np.asarray(W0, dtype=float)
    W1 = np.asarray(W1, dtype=float)
    p, d = W1.shape
    mean_update = W1.mean(axis=0) - W0.mean(axis=0)
    r = float(np.linalg.norm(mean_update))
    sq_norms = float(np.einsum("ij,ij->", W1, W1))
    if r > 0:
        vhat = mean_update / r
        if theta is None:
            theta = np.zeros(d)
            theta[0] = 1.0
        theta = np.asarray(theta, dtype=float)
        gamma = float(abs(vhat @ theta))
        proj = W1 @ vhat
        c = (sq_norms - float(proj @ proj)) / p
    else:
        vhat = np.full(d, np.nan)
        gamma = float("nan")
        c = sq_norms / p
    sv = _top_singular_values(W0, W1, n_singular)
    return {"r": r, "c": c, "gamma": gamma, "vhat": vhat, "singular_values": sv}


#: ``p / d_eff**2`` above which the features of a finite network are not yet Gaussian-equivalent
#: across rows (docs/theory.md (j.9)): their degree-2 parts then add eigenvalues of order one.
GAUSSIAN_EQUIVALENCE_LIMIT = 1.0


def bulk_row_correlation(W1: np.ndarray, vhat=None) -> dict:
    r"""How independent the bulk parts of a first layer's rows are (docs/theory.md (j.9)).

    The rows with their component along ``vhat`` removed (none if ``vhat`` is ``None`` or not
    finite) are normalised; ``rho2`` is the mean over pairs ``k != l`` of their squared
    overlap, ``effective_dimension = 1 / rho2`` (``d`` for rows uniform on a sphere of
    ``R^d``; ``d (E l)^2 / E l^2`` for rows of covariance ``Sigma`` with eigenvalue law ``l``
    of ``d Sigma``) and ``p_over_deff2 = p / d_eff^2``.  The theory's features are Gaussian
    equivalent across rows when ``p_over_deff2`` is small; above
    :data:`GAUSSIAN_EQUIVALENCE_LIMIT` the degree-two parts of the features add eigenvalues of
    order one to the feature spectrum.

    >>> W = np.random.default_rng(0).standard_normal((400, 200))
    >>> e = bulk_row_correlation(W)
    >>> round(e["effective_dimension"] / 200, 1), round(e["p_over_deff2"], 3)
    (1.0, 0.01)
    """
    W = np.asarray(W1, dtype=float)
    p = W.shape[0]
    if p < 2:
        raise ValueError("the row correlation needs at least two rows")
    if vhat is not None and np.all(np.isfinite(vhat)):
        v = np.asarray(vhat, dtype=float)
        v = v / np.linalg.norm(v)
        W = W - np.outer(W @ v, v)
    norms = np.linalg.norm(W, axis=1)
    if np.any(norms == 0):
        raise ValueError("a row of the first layer has no bulk part (zero after removing vhat)")
    U = W / norms[:, None]
    gram = U @ U.T if U.shape[0] <= U.shape[1] else U.T @ U   # the same Frobenius norm
    rho2 = float((np.sum(gram * gram) - p) / (p * (p - 1)))
    return {"rho2": rho2, "effective_dimension": 1.0 / rho2,
            "p_over_deff2": gaussian_equivalence_ratio(rho2, p)}


def gaussian_equivalence_ratio(rho2, p: int) -> float:
    """``p / d_eff^2 = p rho2^2`` for the mean of ``rho2`` (one value or one per layer), the
    Gaussian-equivalence ratio of docs/theory.md (j.9).

    >>> gaussian_equivalence_ratio([0.03, 0.05], 1000)
    1.6
    """
    r2 = float(np.mean(rho2))
    return p * r2 * r2


def row_correlation_line(rho2, p: int) -> str:
    """The line ``simulate`` and ``spectrum --simulate`` print for the measured ``rho2`` (one
    value per first layer; the standard error with two or more).

    >>> row_correlation_line([0.03, 0.05], 1000)
    "  rows' bulk parts: mean squared correlation 0.04 +- 0.01 (effective dimension 25, p/d_eff^2 = 1.6)"
    """
    r2 = np.asarray(rho2, dtype=float).ravel()
    sem = f" +- {np.std(r2, ddof=1) / math.sqrt(r2.size):.2g}" if r2.size > 1 else ""
    m = float(np.mean(r2))
    return (f"  rows' bulk parts: mean squared correlation {m:.4g}{sem} (effective dimension "
            f"{1 / m:.4g}, p/d_eff^2 = {gaussian_equivalence_ratio(r2, p):.3g})")


def gaussian_equivalence_warning(rho2, p: int, d: int) -> str | None:
    """The warning for first layers whose rows' bulks are too correlated for Gaussian
    equivalence (``rho2``: one value or one per layer, see :func:`bulk_row_correlation`), or
    ``None``.

    >>> print(gaussian_equivalence_warning([0.01], p=1000, d=1000))
    None
    >>> gaussian_equivalence_warning([0.12, 0.14], p=1000, d=1000)[:60]
    'at d = 1000 the bulk parts of two rows of the trained first '
    """
    r2 = float(np.mean(rho2))
    ratio = gaussian_equivalence_ratio(r2, p)
    if not ratio > GAUSSIAN_EQUIVALENCE_LIMIT:
        return None
    return (f"at d = {d} the bulk parts of two rows of the trained first layer are correlated at "
            f"rms {math.sqrt(r2):.2g} (effective dimension 1/rho2 = {1 / r2:.3g}, "
            f"p/d_eff^2 = {ratio:.3g} > {GAUSSIAN_EQUIVALENCE_LIMIT:g}): the features are not yet "
            "Gaussian-equivalent, on which the d -> infinity theory rests; their nonlinear parts "
            "add eigenvalues of order one, and the network can differ from the theory by "
            "several %, whatever bulk the theory uses (docs/theory.md (j.9))")


def empirical_group_parameters(W0: np.ndarray, W1: np.ndarray, omega, theta=None) -> dict:
    r"""Per-letter sRF parameters measured on a first layer trained with readout letters
    ``omega`` (one per neuron): those the step bulk takes, docs/theory.md (g.4.1)
    (:func:`srfsym.theory.spectral.step_bulk_groups.split_by_letter`, the one definition).

    ``vhat`` is the direction of ``sum_k omega_k (w1_k - w0_k)``; group j's spike is the mean
    over its neurons of ``<w1_k, vhat>`` (it carries the letter's sign), its bulk variance the
    mean of ``|(I - vhat vhat^T) w1_k|^2``; ``gamma = |<vhat, theta>|``.

    Returns
    -------
    dict
        ``letters``, ``r`` (per letter), ``c`` (per letter), ``gamma``, ``vhat``.

    Examples
    --------
    >>> from srfsym.simulation.first_layer import srf_first_layer
    >>> om = np.repeat([1.0, 2.0], 20)
    >>> Wb, W, v = srf_first_layer(0.7, 1.0, 0.9, d=40, seed=1, omega=om)
    >>> e = empirical_group_parameters(Wb, W, om)
    >>> [round(x, 1) for x in e["r"]], round(e["gamma"], 10)
    ([0.7, 1.4], 0.9)
    """
    from ..theory.spectral.step_bulk_groups import split_by_letter
    s = split_by_letter(W0, W1, omega, theta)
    return {"letters": list(s.letters), "r": list(s.r), "c": list(s.c),
            "gamma": abs(s.gamma), "vhat": s.vhat}


# --------------------------------------------------------------------------------------
# the result

#: The fields of a convex readout (absent from the ridge's :meth:`SimulationResult.to_dict`).
_CONVEX_FIELDS = ("loss", "noise", "bias", "label_rule", "classification_error",
                  "classification_error_sem", "train_loss", "train_loss_sem",
                  "train_classification_error", "train_classification_error_sem", "output_bias",
                  "output_bias_sem", "q2", "q2_sem", "m", "m_sem", "readout_diagnostics",
                  "convex_per_seed")


@dataclass
class SimulationResult:
    """Outcome of :func:`srfsym.simulation.simulate.simulate` (errors per alpha; measured sRF parameters per seed).

    Arrays ``*_per_seed`` have one row per seed; ``test_error`` etc. are means over seeds and
    ``*_sem`` the standard errors of those means (``std(ddof=1)/sqrt(seeds)``, NaN for one seed).
    For ``model="network"``, ``r_emp``, ``c_emp``, ``gamma_emp`` (per seed; a single entry
    with ``shared_first_layer``) and ``singular_values`` (seeds x 3, or 1 x 3) are measured on ``W1 - W0``; for ``model="srf"`` on
    ``W - W_bulk = r 1 vhat^T`` and ``W``.  ``r``, ``c``, ``gamma`` are the sRF parameters used
    (``model="srf"``) or ``None``.
    """

    model: str
    student: str
    teacher: str
    d: int
    p: int
    beta: float
    alpha0: float
    eta: float
    lam: float
    n0: int
    alphas: np.ndarray
    n: np.ndarray
    n_test: int
    seeds: int
    seed: int
    test_error: np.ndarray
    test_error_sem: np.ndarray
    train_error: np.ndarray
    train_error_sem: np.ndarray
    test_error_per_seed: np.ndarray
    train_error_per_seed: np.ndarray
    r_emp: np.ndarray
    c_emp: np.ndarray
    gamma_emp: np.ndarray
    singular_values: np.ndarray
    r: float | None = None
    c: float | None = None
    gamma: float | None = None
    wall_time: float = float("nan")
    settings: dict = field(default_factory=dict)
    vocabulary: dict | None = None
    r_emp_groups: np.ndarray | None = None
    c_emp_groups: np.ndarray | None = None
    # a convex readout (docs/theory.md (m)); None for the ridge
    loss: str = "square"
    noise: float = 0.0
    bias: bool = False
    label_rule: str = "teacher"
    classification_error: np.ndarray | None = None
    classification_error_sem: np.ndarray | None = None
    train_loss: np.ndarray | None = None
    train_loss_sem: np.ndarray | None = None
    train_classification_error: np.ndarray | None = None
    train_classification_error_sem: np.ndarray | None = None
    output_bias: np.ndarray | None = None
    output_bias_sem: np.ndarray | None = None
    q2: np.ndarray | None = None
    q2_sem: np.ndarray | None = None
    m: np.ndarray | None = None
    m_sem: np.ndarray | None = None
    readout_diagnostics: list | None = None
    convex_per_seed: dict | None = None
    # several giant steps (docs/theory.md (p)): the number of steps and, for T > 1 or a
    # multi-index target, the measurements after every step (srfsym.simulation.steps_measure)
    steps: int = 1
    step_measurements: dict | None = None
    # mean squared correlation of two rows' bulk parts, per first layer (bulk_row_correlation;
    # None after T > 1 steps)
    row_correlation: np.ndarray | None = None

    def gaussian_equivalence_warning(self) -> str | None:
        """:func:`gaussian_equivalence_warning` for these first layers (``None`` if they are
        close enough to Gaussian-equivalent, or were not measured)."""
        if self.row_correlation is None or self.model != "network":
            return None
        return gaussian_equivalence_warning(self.row_correlation, self.p, self.d)

    @property
    def r_emp_mean(self) -> float:
        return float(np.mean(self.r_emp))

    @property
    def c_emp_mean(self) -> float:
        return float(np.mean(self.c_emp))

    @property
    def gamma_emp_mean(self) -> float:
        return float(np.mean(self.gamma_emp))

    @property
    def singular_values_mean(self) -> np.ndarray:
        return np.mean(self.singular_values, axis=0)

    def to_dict(self) -> dict:
        """JSON-ready dict (arrays as lists, NaN as ``None``)."""
        def clean(v):
            if isinstance(v, np.ndarray):
                return clean(v.tolist())
            if isinstance(v, (list, tuple)):
                return [clean(u) for u in v]
            if isinstance(v, dict):
                return {k: clean(u) for k, u in v.items()}
            if isinstance(v, (float, np.floating)):
                v = float(v)
                return None if math.isnan(v) else v
            if isinstance(v, np.integer):
                return int(v)
            return v
        out = clean(asdict(self))
        if self.train_loss is None:       # the ridge: its output as before
            for k in _CONVEX_FIELDS:
                out.pop(k, None)
        if self.step_measurements is None:     # one step: the output as before
            out.pop("step_measurements", None)
            out.pop("steps", None)
        out.update(r_emp_mean=clean(self.r_emp_mean), c_emp_mean=clean(self.c_emp_mean),
                   gamma_emp_mean=clean(self.gamma_emp_mean),
                   singular_values_mean=clean(self.singular_values_mean))
        return out

    def _convex_lines(self, pm):
        lines = [f"  {self.loss} readout (noise {self.noise:g}, bias {self.bias}, labels "
                 f"{self.label_rule}); test/train error above are MSEs",
                 "  alpha     class. error           train loss             train class. error"]
        if not np.any(np.isfinite(self.classification_error)):    # real labels
            lines[1] = "  alpha     train loss             (real labels: no classification error)"
            return lines + [f"  {a:<8.4g}  {self.train_loss[j]:.6f}{pm(self.train_loss_sem[j])}"
                            for j, a in enumerate(self.alphas)]
        for j, a in enumerate(self.alphas):
            lines.append(f"  {a:<8.4g}  {self.classification_error[j]:.6f}"
                         f"{pm(self.classification_error_sem[j])}    {self.train_loss[j]:.6f}"
                         f"{pm(self.train_loss_sem[j])}    "
                         f"{self.train_classification_error[j]:.6f}"
                         f"{pm(self.train_classification_error_sem[j])}")
        return lines

    def _step_lines(self) -> list:
        """Per-step measurements (means over first layers) of several giant steps."""
        m = self.step_measurements
        if m is None:
            return []
        fmt = (lambda a: np.array2string(np.asarray(a), precision=4, separator=", "))
        lines = [f"  {self.steps} giant step(s) on fresh batches (full residual); after step t:"]
        for t in range(m["singular_values"].shape[1]):
            mean = {k: np.mean(v[:, t], axis=0) for k, v in m.items()}
            lines.append(f"    t={t + 1}: top sv of (W_t - W0)/sqrt(p) {fmt(mean['singular_values'])}"
                         f", |overlap| of the top singular vectors with e_1..e_k "
                         f"{fmt(mean['overlaps'])}")
            lines.append(f"         per letter: spike components along e_1..e_k "
                         f"{fmt(mean['spike_components'])}, spike norms "
                         f"{fmt(mean['spike_norms'])}, bulk variances "
                         f"{fmt(mean['bulk_variances'])}")
        return lines

    def summary(self) -> str:
        """A few human-readable lines."""
        head = (f"{self.model} sim: sigma={self.student}, sigma*={self.teacher}, d={self.d}, "
                f"p={self.p}, alpha0={self.alpha0:g} (n0={self.n0}), eta={self.eta:g}, "
                f"lam={self.lam:g}, {self.seeds} seed(s), n_test={self.n_test}, "
                f"{self.wall_time:.1f} s")
        lines = [head]
        if self.settings.get("shared_first_layer"):
            lines.append("  one first layer shared by all seeds: the +- are readout/test "
                         "sampling only")
        if self.model == "srf":
            lines.append(f"  sRF parameters used: r={self.r:.6g}, c={self.c:.6g}, "
                         f"gamma={self.gamma:.6g}")
        sem = (lambda a: "" if a.size < 2 else f" +- {np.std(a, ddof=1)/math.sqrt(a.size):.2g}")
        if self.vocabulary is not None:
            lines.append(f"  readout vocabulary: letters {self.vocabulary['letters']}, "
                         f"weights {self.vocabulary['weights']}")
            for j, w in enumerate(self.vocabulary["letters"]):
                lines.append(f"    letter {w:g}: spike r_j={np.mean(self.r_emp_groups[:, j]):.6f}"
                             f"{sem(self.r_emp_groups[:, j])}, bulk c_j="
                             f"{np.mean(self.c_emp_groups[:, j]):.6f}"
                             f"{sem(self.c_emp_groups[:, j])}")
        lines.append(f"  measured: r={self.r_emp_mean:.6f}{sem(self.r_emp)}, "
                     f"c={self.c_emp_mean:.6f}{sem(self.c_emp)}, "
                     + (f"gamma={self.gamma_emp_mean:.6f}{sem(self.gamma_emp)}, "
                        if np.any(np.isfinite(self.gamma_emp)) else
                        "gamma undefined (no spike direction: the step is zero), ")
                     + f"top sv of dW/sqrt(p)={np.array2string(self.singular_values_mean, precision=4)}")
        if self.row_correlation is not None:
            lines.append(row_correlation_line(self.row_correlation, self.p))
        lines += self._step_lines()
        lines.append("  alpha      n     test error             train error")
        pm = (lambda e: f" +- {e:.2g}" if np.isfinite(e) else "")   # one seed: no error bar
        for j, a in enumerate(self.alphas):
            lines.append(f"  {a:<8.4g}{self.n[j]:>6d}   {self.test_error[j]:.6f}"
                         f"{pm(self.test_error_sem[j])}    {self.train_error[j]:.6f}"
                         f"{pm(self.train_error_sem[j])}")
        if self.train_loss is not None:
            lines += self._convex_lines(pm)
        if not np.all(np.isfinite(self.test_error_sem)):
            lines.append("  (one seed: no standard error; use seeds >= 2 for error bars)")
        return "\n".join(lines)
