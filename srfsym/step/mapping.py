r"""The sRF mapping (docs/theory.md (c)): one giant step -> spike strength, bulk variance, alignment.

.. math::
    r = \tilde\eta\,\mu_1\sqrt{(\mu_1^\star)^2 + \mu_2^\star/\alpha_0},\qquad
    c = 1 + \frac{\tilde\eta^2}{\alpha_0}\,\mu_2^\star\,\check\mu_1^2,\qquad
    \gamma = \frac{\mu_1^\star}{\sqrt{(\mu_1^\star)^2 + \mu_2^\star/\alpha_0}},

and ``r = 0, c = 1, gamma = 0`` at ``alpha0 = 0`` (no step: plain random features).
For a student with ``mu0 != 0`` the residual of the step is ``y - mu0``: ``mu2_star``
becomes ``E(sigma_star - mu0)^2`` (the correction of docs/theory.md (c)), and the mean of the
residual rescales every row by ``1 + eta (mu0_star - mu0) E[sigma He_2]``, so
``c = (1 + eta (mu0_star - mu0) mu_He2)^2 + eta^2 E(sigma_star - mu0)^2 checkmu1^2 / alpha0``.
The rescaling term is in neither the papers nor the reference implementation; it is
confirmed by simulation (relu/sin, alpha0 = 2, eta = 1: measured c = 0.780 +- 0.004, this
formula 0.781, without it 1.074; ``derivations/02_spike_bulk.py``).  Both corrections
vanish for odd students; ``mu0_correction=False`` switches them off.

The formulas are built once as SymPy expressions in generic constants
(:data:`GENERIC`), then the constants of the chosen student and teacher are
substituted: exact constants give exact r, c, gamma.

>>> m = srf_mapping("tanh", "sin", eta=3, alpha0=20)
>>> round(m.spike_strength, 5), round(m.bulk_variance, 6), round(m.alignment, 5)
(1.13406, 1.018973, 0.97185)
>>> srf_mapping("erf", "sin", eta=1, alpha0=2).alignment_value.expr
2*exp(1/2)/sqrt(-1 + exp(2) + 4*E)
"""
from __future__ import annotations

import decimal
import fractions
import math
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache

import sympy as sp

from ..symbolic.activations import activation
from ..symbolic.hermite import hermite_constants
from ..core.values import Value

__all__ = ["SRFMapping", "srf_mapping", "mapping_along_eta", "mapping_expressions", "mapping_limits",
           "NonOddActivationWarning", "GENERIC"]

ETA = sp.Symbol("eta", nonnegative=True)
ALPHA0 = sp.Symbol("alpha0", positive=True)
MU0, MU1, CHECKMU1_SQ = sp.symbols("mu0 mu1 checkmu1_sq", real=True)
#: E[sigma He_2] = E sigma'' of the student (zero for odd students).
MU_HE2 = sp.Symbol("mu_He2", real=True)
MU0_STAR, MU1_STAR, MU2_STAR = sp.symbols("mu0_star mu1_star mu2_star", real=True)
#: Generic symbols of the mapping formulas.
GENERIC = {"eta": ETA, "alpha0": ALPHA0, "mu0": MU0, "mu1": MU1, "checkmu1_sq": CHECKMU1_SQ,
           "mu_He2": MU_HE2,
           "mu0_star": MU0_STAR, "mu1_star": MU1_STAR, "mu2_star": MU2_STAR}


class NonOddActivationWarning(UserWarning):
    """The theory (or this step of it) assumes an odd activation."""


def mapping_expressions(mu0_correction: bool = True) -> dict:
    """r, c, gamma as SymPy expressions in the generic constants.

    With ``mu0_correction`` the teacher second moment is that of the residual
    ``sigma_star - mu0`` (it reduces to ``mu2_star`` when ``mu0 = 0``).

    >>> e = mapping_expressions()
    >>> e["alignment"]
    mu1_star/sqrt(mu1_star**2 + (mu0**2 - 2*mu0*mu0_star + mu2_star)/alpha0)
    >>> e["bulk_variance"]
    (eta*mu_He2*(-mu0 + mu0_star) + 1)**2 + checkmu1_sq*eta**2*(mu0**2 - 2*mu0*mu0_star + mu2_star)/alpha0
    """
    m2 = MU2_STAR - 2 * MU0 * MU0_STAR + MU0**2 if mu0_correction else MU2_STAR
    norm_s = sp.sqrt(MU1_STAR**2 + m2 / ALPHA0)       # |(1/n0) sum_i y_i x_i|
    # with mu0 != 0 the residual y - mu0 has mean mu0_star - mu0, and each row update has
    # the mean eta (mu0_star - mu0) E[sigma'(u) u] w0_k = eta (mu0_star - mu0) E[sigma''] w0_k
    # (Stein): every row is rescaled by 1 + eta (mu0_star - mu0) mu_He2.
    scale = (1 + ETA * (MU0_STAR - MU0) * MU_HE2) if mu0_correction else 1
    return {
        "spike_strength": ETA * MU1 * norm_s,
        "bulk_variance": scale**2 + ETA**2 / ALPHA0 * m2 * CHECKMU1_SQ,
        "alignment": MU1_STAR / norm_s,
    }


def mapping_limits() -> dict:
    """Limits of the mapping derived by SymPy.

    ``alpha0 -> oo`` (infinitely many step samples): the spike aligns with the teacher.
    ``eta -> 0`` (vanishing step): plain random features, r = 0 and c = 1.

    >>> lim = mapping_limits()
    >>> lim["alpha0->oo"]["alignment"]
    mu1_star/Abs(mu1_star)
    >>> lim["eta->0"]["bulk_variance"]
    1
    """
    exprs = mapping_expressions()
    return {
        "alpha0->oo": {k: sp.simplify(sp.limit(v, ALPHA0, sp.oo)) for k, v in exprs.items()},
        "eta->0": {k: sp.limit(v, ETA, 0) for k, v in exprs.items()},
        "alpha0->0+": {k: sp.limit(v, ALPHA0, 0, "+") for k, v in exprs.items()},
    }


@dataclass(frozen=True)
class SRFMapping:
    """Result of :func:`srf_mapping`: the sRF parameters with their provenance.

    Attributes
    ----------
    spike_strength, bulk_variance, alignment : float
        r, c and gamma.
    spike_strength_value, bulk_variance_value, alignment_value : Value
        The same as exact closed forms or numeric values.
    """

    student: object
    teacher: object
    eta: object
    alpha0: object
    spike_strength_value: Value
    bulk_variance_value: Value
    alignment_value: Value
    constants: dict = field(default_factory=dict)
    notes: tuple = ()
    vocabulary: object = None

    @property
    def group_spike_strengths(self) -> tuple:
        """Spike ``r omega_j`` of each letter's group (``(r,)`` for the uniform readout)."""
        return self._voc.group_spike_strengths(self.spike_strength)

    @property
    def group_bulk_variances(self) -> tuple:
        """Bulk variance ``1 + omega_j^2 (c - 1)`` of each letter's group (``(c,)`` for the
        uniform readout)."""
        return self._voc.group_bulk_variances(self.bulk_variance)

    @property
    def _voc(self):
        from .vocabulary import UNIFORM
        return self.vocabulary or UNIFORM

    @property
    def spike_strength(self) -> float:
        return float(self.spike_strength_value)

    @property
    def bulk_variance(self) -> float:
        return float(self.bulk_variance_value)

    @property
    def alignment(self) -> float:
        return float(self.alignment_value)

    # short aliases matching the paper's letters
    r = spike_strength
    c = bulk_variance
    gamma = alignment

    def values(self) -> dict:
        return {"spike_strength": self.spike_strength_value,
                "bulk_variance": self.bulk_variance_value,
                "alignment": self.alignment_value}

    def to_dict(self, dps: int = 30) -> dict:
        out = {"student": self.student.name, "teacher": self.teacher.name,
               "eta": str(self.eta), "alpha0": str(self.alpha0),
               **{k: v.to_dict(dps) for k, v in self.values().items()},
               "notes": list(self.notes)}
        if not self._voc.is_uniform:
            out["vocabulary"] = self._voc.to_dict()
            out["spike_strength_groups"] = list(self.group_spike_strengths)
            out["bulk_variance_groups"] = list(self.group_bulk_variances)
        return out

    def __str__(self):
        lines = [f"sRF mapping: student {self.student.name}, teacher {self.teacher.name}, "
                 f"eta = {self.eta}, alpha0 = {self.alpha0}"]
        lines += [f"  {v}" for v in self.values().values()]
        if not self._voc.is_uniform:
            lines.append(f"  {self._voc}: per group (letter omega_j) spike r omega_j, bulk "
                         "variance 1 + omega_j^2 (c - 1)")
            for w, rj, cj in zip(self._voc.letters, self.group_spike_strengths,
                                 self.group_bulk_variances):
                lines.append(f"    omega = {w:g}: spike_strength = {rj:.15g}, "
                             f"bulk_variance = {cj:.15g}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


#: Largest learning rate accepted (c grows like eta^2; float64 ends near 1e308).
MAX_ETA = 1e100


def _as_number(x, name, allow_inf=False):
    from ..core.checks import scalar_like
    x = scalar_like(name, x)
    if hasattr(x, "item") and not isinstance(x, sp.Basic):   # numpy scalars
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        if allow_inf and x == math.inf:
            return sp.oo
        raise ValueError(f"{name} must be a finite real number, got {x}")
    if allow_inf and (x == float("inf") or x == sp.oo or (isinstance(x, str) and
                                                           x.strip().lower() in ("inf", "oo"))):
        return sp.oo
    if isinstance(x, str):
        try:
            x = sp.Rational(x)
        except (TypeError, ValueError):
            raise ValueError(f"{name} must be a number, got {x!r}") from None
    elif isinstance(x, float):
        x = sp.Rational(repr(x))
    elif isinstance(x, int):
        x = sp.Integer(x)
    elif isinstance(x, decimal.Decimal):           # exact: every digit kept
        if not x.is_finite():
            raise ValueError(f"{name} must be a finite real number, got {x}")
        x = sp.Rational(str(x))
    elif isinstance(x, fractions.Fraction):
        x = sp.Rational(x.numerator, x.denominator)
    else:
        x = sp.sympify(x, strict=True) if isinstance(x, sp.Basic) else sp.Float(float(x), 30)
    if not x.is_finite or not x.is_real:
        raise ValueError(f"{name} must be a finite real number, got {x}")
    return x


def srf_mapping(student, teacher, eta, alpha0, *, mu0_correction: bool = True,
                vocabulary=None) -> SRFMapping:
    """Spike strength r, bulk variance c and alignment gamma after one giant step.

    Parameters
    ----------
    student, teacher : str or Activation
        Activations (registry names or expressions in ``x``).
    eta : float
        Learning rate eta-tilde (>= 0).
    alpha0 : float
        Step samples per dimension n0/d (>= 0; 0 means no step; ``inf`` takes the limit).
    mu0_correction : bool
        Use the residual ``y - mu0`` for students with ``mu0 != 0``.
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout vocabulary before the step (docs/theory.md (k.1)): ``r, c, gamma`` are then
        the uniform formulas and ``group_spike_strengths``, ``group_bulk_variances`` the
        per-letter values ``r omega_j``, ``1 + omega_j^2 (c - 1)`` (odd students only).

    Examples
    --------
    >>> m = srf_mapping("tanh", "tanh", eta=1, alpha0=0.5)
    >>> round(m.r, 5), round(m.c, 6), round(m.gamma, 5)
    (0.65109, 1.076906, 0.56349)
    >>> srf_mapping("tanh", "sin", eta=3, alpha0=0).r
    0.0
    >>> srf_mapping("sign", "sin", eta=1, alpha0=2)
    Traceback (most recent call last):
    ...
    ValueError: student sign has sigma' = 2*DiracDelta(x): check-mu1 is infinite ...
    >>> m = srf_mapping("tanh", "sin", eta=3, alpha0=20, vocabulary=[1, 2])
    >>> [round(v, 5) for v in m.group_spike_strengths + m.group_bulk_variances]
    [1.13406, 2.26811, 1.01897, 1.07589]
    """
    from .vocabulary import UNIFORM, vocabulary as make_vocabulary, check_student
    voc = UNIFORM if vocabulary is None else make_vocabulary(vocabulary)
    check_student(student, voc)
    if all(type(v) in (int, float, str) for v in (eta, alpha0)):
        eta_n, alpha0_n = _step_numbers_cached(eta, alpha0)   # the same checks, remembered
    else:
        eta_n, alpha0_n = _step_numbers(eta, alpha0)
    te = activation(teacher)
    if te.expr == 0:
        raise ValueError(f"the teacher {te.name} is identically zero: the labels carry no "
                         "signal, and the alignment gamma (the step's correlation with the "
                         "teacher direction) is undefined; give a nonzero teacher")
    out = _mapping(activation(student), te, eta_n, alpha0_n, mu0_correction)
    if not voc.is_uniform:
        out = replace(out, vocabulary=voc)
    for note in out.notes:   # warn on every call, not only the first (the result is cached)
        if "not odd" in note:
            warnings.warn(note, NonOddActivationWarning, stacklevel=2)
    return out


def _step_numbers(eta, alpha0):
    """``(eta, alpha0)`` as exact SymPy numbers, checked (clear errors otherwise)."""
    eta_n = _as_number(eta, "eta (learning rate)")
    alpha0_n = _as_number(alpha0, "alpha0", allow_inf=True)
    if eta_n < 0:
        raise ValueError(f"eta (learning rate) must be >= 0, got {eta}")
    if eta_n > MAX_ETA:
        raise ValueError(f"eta = {eta} is above {MAX_ETA:g}: the bulk variance c ~ eta^2 "
                         "overflows double precision")
    if alpha0_n < 0:
        raise ValueError(f"alpha0 (step samples per dimension) must be >= 0, got {alpha0}")
    return eta_n, alpha0_n


#: :func:`_step_numbers` of plain numbers and strings, remembered (a failed check raises
#: again on every call: exceptions are not cached)
_step_numbers_cached = lru_cache(maxsize=256, typed=True)(_step_numbers)


@lru_cache(maxsize=256)
def _mapping(st, te, eta_n, alpha0_n, mu0_correction):
    notes = []
    if alpha0_n == 0 or eta_n == 0:
        zero = Value("spike_strength", "exact", expr=sp.S.Zero, how="no step (plain RF)")
        one = Value("bulk_variance", "exact", expr=sp.S.One, how="no step (plain RF)")
        gam = Value("alignment", "exact", expr=sp.S.Zero if alpha0_n == 0 else None,
                    how="no step (plain RF)")
        if alpha0_n != 0:
            gam = _mapping(st, te, sp.S.One, alpha0_n, mu0_correction).alignment_value
        return SRFMapping(st, te, eta_n, alpha0_n, zero, one, gam,
                          notes=("alpha0 = 0 or eta = 0: no step, W1 = W0",))
    if st.has_dirac_derivative:
        raise ValueError(
            f"student {st.name} has sigma' = {st.derivative}: check-mu1 is infinite and the "
            "one-step mapping does not exist (it can still be used directly as an sRF activation)")
    hs, ht = hermite_constants(st), hermite_constants(te)
    consts = {MU0: hs.mu0, MU1: hs.mu1, CHECKMU1_SQ: hs.checkmu1_sq, MU_HE2: hs.mu_k(2),
              MU0_STAR: ht.mu0, MU1_STAR: ht.mu1, MU2_STAR: ht.second_moment}
    if st.parity != "odd":
        notes.append(f"student {st.name} is not odd: the theory assumes an odd student"
                     + ("; the y - mu0 corrections are applied (docs/theory.md (c) and the row "
                        "rescaling of srfsym.step.mapping; not in the reference implementation; "
                        "checked against simulation in derivations/02_spike_bulk.py)"
                        if mu0_correction and float(hs.mu0) != 0 else ""))
    if te.parity != "odd":
        notes.append(f"teacher {te.name} is not odd: the bulk-variance derivation assumes it")
    exprs = mapping_expressions(mu0_correction)
    if alpha0_n is sp.oo:   # infinitely many step samples: the SymPy limit alpha0 -> oo
        exprs = {k: sp.limit(v, ALPHA0, sp.oo) for k, v in exprs.items()}
        notes.append("alpha0 = inf: the limit alpha0 -> infinity of the mapping")
    out = {}
    for key, expr in exprs.items():
        expr = expr.subs({ETA: eta_n, ALPHA0: alpha0_n})
        if all(v.is_exact for v in consts.values()):
            closed = sp.simplify(expr.subs({k: v.expr for k, v in consts.items()}))
            out[key] = Value(key, "exact", expr=closed, how="mapping formula on exact constants")
        else:
            used = [k for k in consts if expr.has(k)]
            f = sp.lambdify(used, expr, modules="mpmath")

            def compute(dps, f=f, used=used):
                return f(*[consts[k].mpmath(dps + 5) for k in used])

            out[key] = Value(key, "numeric", how="mapping formula on quadrature constants",
                             compute=compute)
    return SRFMapping(st, te, eta_n, alpha0_n, out["spike_strength"], out["bulk_variance"],
                      out["alignment"], constants=consts, notes=tuple(notes))


def mapping_along_eta(student, teacher, alpha0, *, mu0_correction: bool = True):
    """``eta -> (r, c, gamma)`` in double precision at a fixed ``alpha0``, for scans and
    optimisations over the learning rate.

    The same formulas as :func:`srf_mapping` (:func:`mapping_expressions`), with the student
    and teacher constants substituted as floats once, lambdified to numpy (no SymPy work per
    eta).  ``eta`` may be a scalar or an array.

    Examples
    --------
    >>> f = mapping_along_eta("tanh", "sin", alpha0=20)
    >>> [round(float(v), 6) for v in f(3.0)]
    [1.134056, 1.018973, 0.971854]
    >>> m = srf_mapping("tanh", "sin", eta=3, alpha0=20)
    >>> abs(float(f(3.0)[0]) - m.r) < 1e-14
    True
    """
    alpha0_n = _as_number(alpha0, "alpha0", allow_inf=True)
    if alpha0_n < 0:
        raise ValueError(f"alpha0 (step samples per dimension) must be >= 0, got {alpha0}")
    return _along_eta(activation(student), activation(teacher), alpha0_n, mu0_correction)


@lru_cache(maxsize=64)
def _along_eta(st, te, alpha0_n, mu0_correction):
    import numpy as np
    if alpha0_n == 0:
        return lambda eta: (0 * np.asarray(eta, dtype=float), 1 + 0 * np.asarray(eta, float),
                            0 * np.asarray(eta, dtype=float))
    # validation, notes and warnings of the exact path (eta = 1 only fixes the constants)
    _mapping(st, te, sp.S.One, alpha0_n, mu0_correction)
    hs, ht = hermite_constants(st), hermite_constants(te)
    consts = {MU0: float(hs.mu0), MU1: float(hs.mu1), CHECKMU1_SQ: float(hs.checkmu1_sq),
              MU_HE2: float(hs.mu_k(2)), MU0_STAR: float(ht.mu0), MU1_STAR: float(ht.mu1),
              MU2_STAR: float(ht.second_moment)}
    exprs = mapping_expressions(mu0_correction)
    if alpha0_n is sp.oo:
        exprs = {k: sp.limit(v, ALPHA0, sp.oo) for k, v in exprs.items()}
    fs = [sp.lambdify([ETA], exprs[k].subs(ALPHA0, alpha0_n).subs(consts), modules="numpy")
          for k in ("spike_strength", "bulk_variance", "alignment")]

    def along(eta):
        e = np.asarray(eta, dtype=float)
        return tuple(np.broadcast_to(np.asarray(f(e), dtype=float), e.shape)[()] for f in fs)
    return along
