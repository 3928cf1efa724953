r"""Which target directions giant steps learn (docs/theory.md (p.3)), decided from the expressions.

A direction ``theta_j`` that no spike has reached yet enters the step-t update of a neuron of
letter omega with the coefficient (Stein's lemma in ``z_j``; the output ``f`` and the
neuron's field ``u = m_omega . zeta`` do not depend on ``z_j``)

.. math::
    \tilde\eta\,\omega\,\mathbb E[(g - f)\,S_1(u)\,z_j] = \tilde\eta\,\omega\,
    \mathbb E[\partial_j g(z)\,\sigma'(b + u)] .

The unreached variables are integrated out of the polynomial ``d g / d z_j`` (SymPy); what is
left, ``P``, is a polynomial in the reached variables, which are Gaussian and correlated with
``u`` only.  Under ``(b, z) -> (-b, -z)`` the expectation is multiplied by the parities of
``P`` and ``sigma'``: split both into even and odd parts; the coefficient is
``E[P_even sigma'_even] + E[P_odd sigma'_odd]`` and is **zero exactly** when each product has a
vanishing factor (tanh, erf: ``sigma'`` even, so an odd ``P`` such as ``z1`` for
``g = z1 + z1 z2`` gives no second direction), or when ``sigma'_even`` is a constant and the
Gaussian mean of ``P_even`` vanishes (relu: ``sigma' = 1/2 + sign(x)/2``, so ``P = z1 z2`` for
the third direction of ``z1 + z1 z2 + z1 z2 z3`` is never reached).  Otherwise the
coefficient is the T-step map's number (:func:`~srfsym.step.several_steps.several_steps`).
The directions *learned* are the span of the letters' spike vectors along the target: its
rank is one with the uniform readout whatever the coefficients (every neuron moves the same
way), and two for relu with {+1, -1} on ``z1 + z1 z2`` (the first spike carries the letter's
sign, the new component does not).

>>> r = learned_directions("tanh", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1])
>>> r.verdict
'no second direction'
>>> r.steps[1].get("reasons").get("theta2")
"zero by parity: d g/d z2 -> z1 is odd, sigma' = 1 - tanh(x)**2 is even"
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

__all__ = ["learned_directions", "LearnedDirections", "parity_zero"]

#: Relative size below which a numeric component or singular value counts as zero.
ZERO_TOL = 1e-8


def _integrate_out(poly_expr, variables):
    """Expectation of a polynomial over independent standard Gaussian ``variables``
    (``E z^n = (n - 1)!!`` for even n); ``None`` if it is not polynomial in them."""
    expr = sp.expand(poly_expr)
    if not variables:
        return expr
    if not expr.is_polynomial(*variables):
        return None
    poly = sp.Poly(expr, *variables)
    out = sp.S.Zero
    for powers, coeff in poly.terms():
        moment = sp.S.One
        for n in powers:
            moment *= 0 if n % 2 else sp.factorial2(n - 1)
        out += coeff * moment
    return sp.expand(out)


def parity_zero(student, target_expr, j: int, reached, variables) -> str | None:
    """Why the coefficient of the unreached direction ``theta_j`` (variable index ``j``) in
    the next step vanishes exactly, or ``None`` when no symmetry makes it vanish.

    ``reached``: indices of the variables the spikes already have components along.

    >>> from srfsym.step.step_target import Z
    >>> parity_zero("relu", Z[0] + Z[0] * Z[1], 1, [0], Z[:2]) is None
    True
    >>> parity_zero("tanh", Z[0] + (Z[0]**2 - 1) * Z[1], 1, [0], Z[:2]) is None
    True
    """
    from ..symbolic.activations import X, activation
    act = activation(student)
    zj = variables[j]
    dg = sp.diff(target_expr, zj)
    unreached = [v for i, v in enumerate(variables) if i not in reached]
    P = _integrate_out(dg, unreached)
    if P is None:
        return None
    if P == 0:
        return f"zero: d g/d z{j + 1} = {dg} averages to 0 over the unreached variables"
    reached_vars = [variables[i] for i in reached]
    flip = {v: -v for v in reached_vars}
    P_even = sp.expand((P + P.subs(flip, simultaneous=True)) / 2)
    P_odd = sp.expand(P - P_even)
    d1 = act.derivative.rewrite(sp.sign)      # Heaviside(x) = 1/2 + sign(x)/2
    s_even = sp.simplify((d1 + d1.subs(X, -X)) / 2)
    s_odd = sp.simplify(d1 - s_even)
    if P_odd != 0 and s_odd != 0:          # the odd-odd part survives
        return None
    # the even-even part vanishes when a factor is zero, or when the even part of sigma' is a
    # constant kappa and the Gaussian mean of P_even is zero (the part is kappa E[P_even])
    if P_even != 0 and s_even != 0 and (s_even.free_symbols
                                        or _integrate_out(P_even, reached_vars) != 0):
        return None
    if P_odd != 0:      # sigma' even: the classical parity statement
        return f"zero by parity: d g/d z{j + 1} -> {P} is odd, sigma' = {d1} is even"
    if s_even == 0:
        return f"zero by parity: d g/d z{j + 1} -> {P} is even, sigma' = {d1} is odd"
    return (f"zero by parity: d g/d z{j + 1} -> {P} is even and sigma' = {d1} is the constant "
            f"{s_even} plus an odd function, with E[{P}] = 0")


@dataclass(frozen=True)
class LearnedDirections:
    """Per step: which target directions the spikes reach (``reached``), why the others
    vanish (``reasons``), the singular values of the letters' target components and their
    rank (``rank``); ``verdict`` says whether a second direction is learned."""

    student: str
    target: str
    steps: tuple
    verdict: str

    def __str__(self):
        lines = [f"directions learned: student {self.student}, target {self.target}: "
                 f"{self.verdict}"]
        for s in self.steps:
            sv = ", ".join(f"{v:.6g}" for v in s["singular_values"])
            lines.append(f"  after step {s['step']}: reached {', '.join(s['reached']) or 'none'}"
                         f"; rank {s['rank']} (singular values {sv})")
            for name, why in s["reasons"].items():
                lines.append(f"    {name}: {why}")
        return "\n".join(lines)


def learned_directions(student, target, eta, alpha0, steps: int = 2, vocabulary=None,
                       nodes: int = 24) -> LearnedDirections:
    """The target directions learned after each of ``steps`` giant steps.

    Exact zeros come from :func:`parity_zero` (the expressions); the other coefficients and
    the rank of the spikes' target components from the T-step map.

    >>> r = learned_directions("relu", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1])
    >>> r.verdict, r.steps[1].get("rank")
    ('a second direction', 2)
    >>> learned_directions("relu", "z1 + z1*z2", 1, 2, steps=2).verdict
    'no second direction'
    """
    from .several_steps import several_steps
    from .step_target import Z, step_target
    tgt = step_target(target)
    m = several_steps(student, tgt, eta, alpha0, steps, vocabulary, nodes)
    variables = Z[:tgt.k]
    reached: list = []
    out = []
    for state in m.states[1:]:
        comps = np.array(state.target_components, dtype=float)
        scale = max(1.0, float(np.max(np.abs(comps))))
        reasons = {}
        for j in range(tgt.k):
            if j in reached:
                continue
            why = parity_zero(student, tgt.expr, j, reached, variables)
            if why is not None:
                comps[:, j] = 0.0
                reasons[f"theta{j + 1}"] = why
            elif np.max(np.abs(comps[:, j])) <= ZERO_TOL * scale:
                reasons[f"theta{j + 1}"] = "numerically zero (no symmetry found)"
            else:
                reasons[f"theta{j + 1}"] = (f"reached: components {np.round(comps[:, j], 6).tolist()}"
                                            " per letter")
        reached = sorted(set(reached) | {j for j in range(tgt.k)
                                         if np.max(np.abs(comps[:, j])) > ZERO_TOL * scale})
        sv = np.linalg.svd(np.sqrt(np.asarray(state.weights))[:, None] * comps,
                           compute_uv=False)
        rank = int(np.sum(sv > ZERO_TOL * max(1.0, float(sv.max(initial=0.0)))))
        out.append({"step": state.step, "reached": [f"theta{j + 1}" for j in reached],
                    "reasons": reasons, "singular_values": sv.tolist(), "rank": rank})
    top = max(s["rank"] for s in out)
    verdict = "no second direction" if top < 2 else ("a second direction" if top == 2 else
                                                      f"{top} directions")
    return LearnedDirections(m.student, tgt.name, tuple(out), verdict)
