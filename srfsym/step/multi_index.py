r"""One giant step on a multi-index target (docs/theory.md (n)): spike, bulk and the alignment vector.

Every neuron moves along ``s = (1/n0) sum_i (y_i - mu0) x_i`` (to leading order), whose mean is
``Theta^T c1`` (``c1 = E[g(z) z]``, the target's first Hermite coefficients) and whose squared norm
tends to ``|c1|^2 + E(g - mu0)^2 / alpha0``: the single-index computation of docs/theory.md (c)
with ``mu1_star -> |c1|``.  Hence

.. math::
    r = \tilde\eta\,\mu_1\sqrt{|c_1|^2 + E(g-\mu_0)^2/\alpha_0},\qquad
    \gamma_j = \frac{c_{1,j}}{\sqrt{|c_1|^2 + E(g-\mu_0)^2/\alpha_0}},

and the bulk variance c of (c) with ``mu0_star = E g``, ``mu2_star = E g^2`` (including its
``mu0 != 0`` corrections).  The spike direction is ``v = (Theta^T c1 + noise)/|.|``: a unit vector
of the span of the first-order directions plus the batch fluctuation; the alignment *vector*
``gamma = Theta v`` is parallel to c1 and only the first-order subspace is learned.

The expressions are those of :func:`srfsym.step.mapping.mapping_expressions` with
``mu1_star`` replaced by ``sqrt(c1_1^2 + ... + c1_k^2)`` (one formula, substituted, never re-typed).

>>> m = multi_index_mapping("tanh", "z1 + z1*z2", eta=2, alpha0=4)
>>> tuple(round(float(g), 6) for g in m.alignment_vector)
(0.816497, 0.0)
>>> m.alignment_vector[0].expr
sqrt(6)/3
>>> round(m.spike_strength, 6) == round(2 * float(m.constants["mu1"]) * (1.5) ** 0.5, 6)
True
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import sympy as sp

from ..core.values import Value
from ..symbolic.activations import activation
from ..symbolic.hermite import hermite_constants
from ..symbolic.targets import multi_index_target
from .mapping import (ALPHA0, CHECKMU1_SQ, ETA, MU0, MU0_STAR, MU1, MU1_STAR, MU2_STAR, MU_HE2,
                      _as_number, mapping_expressions)

__all__ = ["MultiIndexMapping", "multi_index_mapping", "multi_index_mapping_expressions",
           "no_step_mapping", "C1"]

#: Symbols of the first-order vector c1 = (c1_1, ..., c1_4).
C1 = sp.symbols("c1_1:5", real=True)


def multi_index_mapping_expressions(k: int, mu0_correction: bool = True) -> dict:
    """r, c and the alignment vector as SymPy expressions in the student constants, ``eta``,
    ``alpha0``, ``mu0_star = E g``, ``mu2_star = E g^2`` and ``c1_1..c1_k``.

    >>> gamma = multi_index_mapping_expressions(2)["alignment_vector"]
    >>> gamma[1]
    c1_2/sqrt(c1_1**2 + c1_2**2 + (mu0**2 - 2*mu0*mu0_star + mu2_star)/alpha0)
    """
    base = mapping_expressions(mu0_correction)
    norm_c1 = sp.sqrt(sum(C1[j] ** 2 for j in range(k)))
    sub = {MU1_STAR: norm_c1}
    out = {key: v.subs(sub) for key, v in base.items() if key != "alignment"}
    # gamma_j = c1_j / |s|: the single-index alignment mu1_star/|s| times c1_j/|c1|
    norm_s = (MU1_STAR / base["alignment"]).subs(sub)     # |s| of docs/theory.md (c)
    out["alignment_vector"] = tuple(C1[j] / norm_s for j in range(k))
    out["alignment"] = sp.sqrt(sum(a**2 for a in out["alignment_vector"]))
    return out


@dataclass(frozen=True)
class MultiIndexMapping:
    """r, c, |gamma| and the alignment vector after one step on a multi-index target."""

    student: object
    target: object
    eta: float
    alpha0: float
    spike_strength_value: Value
    bulk_variance_value: Value
    alignment_vector: tuple
    constants: dict = field(default_factory=dict)
    notes: tuple = ()

    spike_strength = property(lambda self: float(self.spike_strength_value))
    bulk_variance = property(lambda self: float(self.bulk_variance_value))

    r = spike_strength
    c = bulk_variance
    teacher = property(lambda self: self.target)

    @property
    def gamma(self) -> float:
        return self.alignment

    @property
    def alignment(self) -> float:
        """``|gamma|``, the overlap of the spike with the target subspace."""
        return float(sum(float(g) ** 2 for g in self.alignment_vector) ** 0.5)

    def to_dict(self, dps: int = 30) -> dict:
        return {"student": self.student.name, "teacher": self.target.name, "eta": self.eta,
                "alpha0": self.alpha0,
                "spike_strength": self.spike_strength_value.to_dict(dps),
                "bulk_variance": self.bulk_variance_value.to_dict(dps),
                "alignment": self.alignment,
                "alignment_vector": [g.to_dict(dps) for g in self.alignment_vector],
                "notes": list(self.notes)}

    def __str__(self):
        lines = [f"one step on the multi-index target {self.target.name} (k = {self.target.k}): "
                 f"student {self.student.name}, eta = {self.eta}, alpha0 = {self.alpha0}",
                 f"  {self.spike_strength_value}", f"  {self.bulk_variance_value}"]
        lines += [f"  {g}" for g in self.alignment_vector]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def multi_index_mapping(student, target, eta, alpha0, *, mu0_correction: bool = True):
    """The one-step map of a student on a multi-index target (module docstring).

    >>> m = multi_index_mapping("tanh", "z1*z2", eta=1, alpha0=2)    # c1 = 0: nothing learned
    >>> m.alignment, round(m.spike_strength, 6) > 0
    (0.0, True)
    """
    eta_n = _as_number(eta, "eta (learning rate)")
    alpha0_n = _as_number(alpha0, "alpha0")
    if eta_n < 0 or alpha0_n <= 0:
        raise ValueError(f"the multi-index step needs eta >= 0 and alpha0 > 0, got eta = {eta}, "
                         f"alpha0 = {alpha0}")
    return _mapping(activation(student), multi_index_target(target), eta_n, alpha0_n,
                    bool(mu0_correction))


@lru_cache(maxsize=128)
def _mapping(st, tg, eta_n, alpha0_n, mu0_correction):
    if st.has_dirac_derivative:
        raise ValueError(f"student {st.name} has sigma' = {st.derivative}: check-mu1 is "
                         "infinite and the one-step mapping does not exist")
    hs = hermite_constants(st)
    k = tg.k
    consts = {MU0: hs.mu0, MU1: hs.mu1, CHECKMU1_SQ: hs.checkmu1_sq, MU_HE2: hs.mu_k(2),
              MU0_STAR: tg.mean, MU2_STAR: tg.second_moment}
    consts.update({C1[j]: tg.first_order[j] for j in range(k)})
    exprs = multi_index_mapping_expressions(k, mu0_correction)
    at = {ETA: sp.nsimplify(eta_n), ALPHA0: sp.nsimplify(alpha0_n)}

    def value(name, expr):
        expr = expr.subs(at)
        used = {s: consts[s] for s in consts if expr.has(s)}
        if all(v.is_exact for v in used.values()):
            closed = sp.simplify(expr.subs({s: v.expr for s, v in used.items()}))
            return Value(name, "exact", expr=closed, how="mapping formula on exact constants")
        f = sp.lambdify(tuple(used), expr, modules="mpmath")

        def compute(dps, f=f, used=tuple(used.values())):
            return f(*[v.mpmath(dps + 5) for v in used])
        return Value(name, "numeric", how="mapping formula on quadrature constants",
                     compute=compute)

    notes = []
    if st.parity != "odd":
        notes.append(f"student {st.name} is not odd: the y - mu0 corrections of docs/theory.md "
                     "(c) are applied")
    if all(float(consts[C1[j]]) == 0 for j in range(k)):
        notes.append("c1 = 0: the step learns no direction of the target (spike = batch noise)")
    gam = tuple(value(f"alignment_{j + 1}", e) for j, e in enumerate(exprs["alignment_vector"]))
    names = {s.name: v for s, v in consts.items()}
    return MultiIndexMapping(st, tg, eta_n, alpha0_n,
                             value("spike_strength", exprs["spike_strength"]),
                             value("bulk_variance", exprs["bulk_variance"]), gam,
                             constants=names, notes=tuple(notes))


def no_step_mapping(student, target) -> MultiIndexMapping:
    """No step (``alpha0 = 0`` or ``eta = 0``): r = 0, c = 1, gamma = 0 (plain random features).

    >>> no_step_mapping("tanh", "z1*z2").c
    1.0
    """
    tg = multi_index_target(target)
    zero = lambda name: Value(name, "exact", expr=sp.S.Zero, how="no step (plain RF)")  # noqa: E731
    return MultiIndexMapping(activation(student), tg, 0.0, 0.0, zero("spike_strength"),
                             Value("bulk_variance", "exact", expr=sp.S.One, how="no step"),
                             tuple(zero(f"alignment_{j + 1}") for j in range(tg.k)),
                             notes=("alpha0 = 0 or eta = 0: no step, W1 = W0",))
