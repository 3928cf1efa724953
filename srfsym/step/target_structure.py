r"""Hermite structure of a multi-index target and what giant steps can learn of it (docs/theory.md (n)).

* Hermite tensors ``C_alpha = E[g(z) He_alpha(z)]``, ``He_alpha(z) = prod_j He_{alpha_j}(z_j)``
  (probabilists' Hermite polynomials, not normalised: ``g = sum_alpha C_alpha He_alpha / alpha!``),
  for ``|alpha| <= order``, as :class:`~srfsym.core.values.Value` s (exact for polynomials and
  products of univariate functions with closed forms; else certified or tensor-rule numerics).
* **Information exponent** (Ben Arous, Gheissari, Jagannath 2021, for several directions as in
  Dandi et al. 2023): the smallest ``l >= 1`` with a non-zero tensor of degree l.
* **Leap index** (Abbe, Boix-Adsera, Misiakiewicz 2023, "leap complexity", in its Gaussian form
  used by Dandi et al. 2023): with S the Hermite support, the smallest l such that the
  coordinates can be learned in rounds, each round adding the support of a multi-index whose
  total degree on coordinates not yet learned is at most l.  Computed in the given basis
  z1..zk and over the tensors up to ``order`` (a leap above ``order`` is reported as such);
  the rotation-invariant version (minimum over bases) is not searched.  Rounds of the leap-1
  closure are the "staircase".
* **First-order subspace**: ``span c1``, ``c1 = E[g z]``; one step with ``n0 = alpha0 d``
  samples learns the single direction ``c1/|c1|`` (plus the batch noise).
* **What a second step can reach, per student**: after the first step the spike coordinate is
  kappa and a second step moves a neuron along a direction ``xi_j`` orthogonal to the spike by
  ``eta E[(g - f1) sigma'(b + r kappa) xi_j] = eta E_kappa[mu1(kappa) h1_j(kappa)]`` (b the
  neuron's bulk preactivation, f1 a function of kappa only, mu1(kappa) = E_b sigma'(b + r kappa)
  of the cGET, h1 the vector teacher function): a Gaussian expectation computed from the
  student's r, c and the target, not a table.  Odd students have an even mu1(kappa), so the
  part of ``h1_j`` odd in kappa (``z1 z2``: ``h1_2 = gamma kappa``) gives nothing: ``tanh`` does
  not reach z2 of ``z1 + z1*z2``, ``relu`` does.

>>> s = target_structure("z1 + z1*z2", order=2)
>>> s.information_exponent, s.leap, s.staircase
(1, 1, ((1,), (2,)))
>>> {a: str(v.expr) for a, v in s.tensors.items() if v.expr != 0}
{(1, 0): '1', (1, 1): '1'}
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
import sympy as sp

from ..core.values import Value
from ..symbolic.multi_expectation import multi_expectation
from ..symbolic.multi_teacher import rotation, teacher_arrays
from ..symbolic.targets import multi_index_target

__all__ = ["TargetStructure", "target_structure", "second_step_signal", "MAX_ORDER"]

#: Highest tensor order computed.
MAX_ORDER = 6


def _is_zero(v: Value) -> bool:
    if v.is_exact:
        return v.expr == 0
    err = v.abs_error(15) or 0
    return abs(float(v)) <= 10 * err


def _multi_indices(k, order):
    return sorted((a for a in product(range(order + 1), repeat=k) if sum(a) <= order),
                  key=lambda a: (sum(a), tuple(-x for x in a)))


def _closure(support, k, leap):
    """Rounds of coordinates (1-based) learned with the given leap."""
    learned, rounds = set(), []
    while True:
        new = set()
        for a in support:
            fresh = [j for j in range(k) if a[j] and j not in learned]
            if fresh and sum(a[j] for j in fresh) <= leap:
                new |= set(fresh)
        if not new:
            return rounds, learned
        rounds.append(tuple(sorted(j + 1 for j in new)))
        learned |= new


@dataclass(frozen=True)
class TargetStructure:
    """The Hermite structure of a target (see the module docstring)."""

    target: object
    order: int
    tensors: dict
    information_exponent: int | None
    leap: int | None
    staircase: tuple
    first_order: tuple

    @property
    def support(self) -> tuple:
        """Multi-indices alpha != 0 with a non-zero tensor coefficient (up to ``order``)."""
        return tuple(a for a, v in self.tensors.items() if any(a) and not _is_zero(v))

    def to_dict(self, dps: int = 30) -> dict:
        return {"target": self.target.name, "k": self.target.k, "order": self.order,
                "tensors": [{"alpha": list(a), **v.to_dict(dps)} for a, v in self.tensors.items()],
                "support": [list(a) for a in self.support],
                "information_exponent": self.information_exponent, "leap": self.leap,
                "staircase": [list(r) for r in self.staircase],
                "first_order": [v.to_dict(dps) for v in self.first_order]}


def target_structure(target, order: int = 3) -> TargetStructure:
    """Hermite tensors up to ``order``, information exponent, leap index and the staircase.

    >>> target_structure("z1*z2*z3", order=3).leap
    3
    """
    if isinstance(order, bool) or not isinstance(order, int) or not 1 <= order <= MAX_ORDER:
        raise ValueError(f"order must be an integer from 1 to {MAX_ORDER}, got {order!r}")
    tg = multi_index_target(target)
    zs = tg.variables
    tensors = {}
    for a in _multi_indices(tg.k, order):
        he = sp.Mul(*[sp.hermite_prob(n, z) for n, z in zip(a, zs)])
        name = "C_" + "".join(map(str, a))
        tensors[a] = multi_expectation(sp.expand(tg.expr * he), tg.k, name)
    support = [a for a, v in tensors.items() if any(a) and not _is_zero(v)]
    info = min((sum(a) for a in support), default=None)
    used = set(j for a in support for j in range(tg.k) if a[j])
    leap, stairs = None, ()
    for ell in range(1, order + 1):
        rounds, learned = _closure(support, tg.k, ell)
        if used and learned == used:
            leap, stairs = ell, tuple(rounds)
            break
    first = tuple(tensors[tuple(int(i == j) for i in range(tg.k))] for j in range(tg.k))
    return TargetStructure(tg, order, tensors, info, leap, stairs, first)


def second_step_signal(student, target, eta, alpha0, nodes: int = 120) -> dict:
    """The direction a second step adds, for one student, from Gaussian expectations.

    Returns the one-step alignment vector, the signal ``S = E_kappa[mu1(kappa) h1(kappa)]`` in
    the coordinates orthogonal to the spike, its image ``B S`` in target coordinates and the
    part of that image orthogonal to c1 (``new``: a direction the first step did not learn;
    zero when the student cannot reach one).

    >>> sig = second_step_signal("relu", "z1 + z1*z2", eta=2, alpha0=4)
    >>> tuple(round(x, 6) for x in sig["new_direction"])
    (0.0, 1.0)
    >>> second_step_signal("tanh", "z1 + z1*z2", eta=2, alpha0=4)["new_norm"] < 1e-12
    True
    """
    from ..symbolic.cget import cget_coefficients
    from .multi_index import multi_index_mapping
    tg = multi_index_target(target)
    m = multi_index_mapping(student, tg, eta, alpha0)
    g = np.array([float(x) for x in m.alignment_vector])
    kappa, w = np.polynomial.hermite_e.hermegauss(nodes)
    w = w / np.sqrt(2 * np.pi)
    _mu0, mu1, _ms = cget_coefficients(m.student).numpy()(kappa, m.spike_strength,
                                                          m.bulk_variance)
    _h, h1v, _h2, err = teacher_arrays(tg, g, kappa)
    S = np.einsum("K,K,Kj->j", w, np.broadcast_to(np.asarray(mu1, float), kappa.shape), h1v)
    image = rotation(g) @ S
    c1 = np.array([float(v) for v in tg.first_order])
    c1n = np.linalg.norm(c1)
    new = image - (image @ c1) * c1 / c1n**2 if c1n > 0 else image
    nn = float(np.linalg.norm(new))
    scale = float(np.linalg.norm(image)) + 1e-300
    direction = new / nn if nn > 1e-10 * max(scale, 1.0) else np.zeros_like(new)
    return {"student": m.student.name, "alignment_vector": g.tolist(), "signal": S.tolist(),
            "signal_target_coordinates": image.tolist(), "new_norm": nn,
            "new_direction": direction.tolist(), "quadrature_error": err,
            "spike_strength": m.spike_strength, "bulk_variance": m.bulk_variance}
