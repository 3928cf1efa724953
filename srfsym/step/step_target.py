r"""The target of several giant steps: ``y = g(z_1, .., z_k)``, ``z_j = <theta_j, x>`` with
``theta_j = e_j`` (docs/theory.md (p)).

A target is given as a teacher activation (the single-index ``g(z1) = sigma_star(z1)``), a
SymPy expression in symbols named ``z1 .. zk``, text in ``z1 .. z9`` (parsed by the safe
parser, never ``eval``) or any object with an ``expr`` attribute holding such an expression
(the multi-index targets of :mod:`srfsym.symbolic`).  Numbers come from the expression
lambdified to numpy.

>>> t = step_target("z1 + z1*z2")
>>> t.k, t.expr
(2, z1*z2 + z1)
>>> import numpy as np
>>> t.labels(np.array([[1.0, 2.0, 5.0]])).tolist()
[3.0]
>>> step_target("tanh").expr
tanh(z1)
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

__all__ = ["StepTarget", "step_target", "Z"]

#: The target's variables ``z1 .. z9`` (``z_j = <e_j, x>``).
Z = tuple(sp.Symbol(f"z{j}", real=True) for j in range(1, 10))


@lru_cache(maxsize=64)
def _numpy_function(expr: sp.Expr, k: int):
    from ..symbolic.activations import lambdify_numpy
    return lambdify_numpy(Z[:k], expr)


@dataclass(frozen=True)
class StepTarget:
    """``g(z_1..z_k)`` with its name; :meth:`labels` evaluates it on samples ``x``."""

    expr: sp.Expr
    k: int
    name: str
    activation: object = None      # the teacher Activation of a single-index target

    @property
    def is_single_index(self) -> bool:
        return self.activation is not None

    def labels(self, x: np.ndarray) -> np.ndarray:
        """``g(x[:, 0], .., x[:, k-1])`` as float64 (one label per row of ``x``)."""
        x = np.asarray(x)
        cols = [np.ascontiguousarray(x[:, j]) for j in range(self.k)]
        out = np.asarray(_numpy_function(self.expr, self.k)(*cols), dtype=x.dtype)
        return np.array(np.broadcast_to(out, (x.shape[0],)))

    def __str__(self):
        return self.name


def _from_expression(expr: sp.Expr, name: str) -> StepTarget:
    by_name = {s.name: s for s in expr.free_symbols}
    unknown = sorted(n for n in by_name if n not in {z.name for z in Z})
    if unknown:
        raise ValueError(f"a target is an expression in z1 .. z9, got the symbols {unknown}")
    expr = expr.subs({by_name[z.name]: z for z in Z if z.name in by_name})
    used = [j for j, z in enumerate(Z) if expr.has(z)]
    if not used:
        raise ValueError(f"the target {expr} does not depend on z1 .. z9")
    k = max(used) + 1
    return StepTarget(expr=expr, k=k, name=name)


def step_target(target) -> StepTarget:
    """A checked :class:`StepTarget` from an activation, an expression or text.

    Text containing ``z`` followed by a digit is a multi-index expression; other text is a
    teacher activation (a registry name or an expression in ``x``), read as ``g(z1)``.

    >>> step_target("z1 + (z1**2 - 1)*z2").k
    2
    >>> step_target("z1 + y")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: cannot read the target 'z1 + y': unknown name 'y' in the target expression: ...
    """
    import re
    from ..symbolic.activations import Activation, ActivationError, activation
    if isinstance(target, StepTarget):
        return target
    if isinstance(target, sp.Expr):
        return _from_expression(target, str(target))
    if isinstance(target, str) and re.search(r"z[1-9]", target):
        from ..symbolic.targets import multi_index_target     # the one parser of targets
        try:
            parsed = multi_index_target(target)
        except (ActivationError, ValueError) as exc:
            raise ValueError(f"cannot read the target {target!r}: {exc}") from None
        return _from_expression(parsed.expr, target)
    if hasattr(target, "expr") and not isinstance(target, Activation):
        return _from_expression(sp.sympify(target.expr, strict=True), str(target))
    act = activation(target)
    from ..symbolic.activations import X
    return StepTarget(expr=act.expr.subs(X, Z[0]), k=1, name=act.name, activation=act)
