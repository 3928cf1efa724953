r"""Multi-index targets ``y = g(<theta_1, x>, ..., <theta_k, x>)`` (docs/theory.md (n)).

A target is an expression in the variables ``z1 .. zk`` (k <= 4), parsed from text by the same
safe ``ast`` parser and function whitelist as activations (never ``eval``).  The directions
theta_j are orthonormal, so ``z = (z1..zk) ~ N(0, I_k)``.  A text in the single variable ``x``
(a single-index teacher) is read as the target ``g(z1)`` with k = 1.

k is the largest index named in the text (``"tanh(z1) + 0*z2"`` has k = 2 although SymPy folds
``0*z2`` away), or larger when given.

The object holds the SymPy expression and derives from it a numpy evaluator ``g(Z)`` for ``Z``
of shape (n, k), and, as :class:`~srfsym.core.values.Value` s, ``E g``, ``E g^2`` and the
first-order vector ``c1 = E[g(z) z]`` (the Hermite coefficients of degree one).

>>> t = multi_index_target("z1 + z1*z2")
>>> t.k, t.expr
(2, z1*z2 + z1)
>>> tuple(v.expr for v in t.first_order)
(1, 0)
>>> t.second_moment.expr
2
>>> import numpy as np
>>> t.numpy(np.array([[1.0, 2.0], [0.5, -1.0]]))
array([3., 0.])
>>> multi_index_target("tanh(2*z1) + (z2**2 - 1)/sqrt(2)").mean.expr
0
"""
from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

import numpy as np
import sympy as sp

from ..core.values import Value
from .activations import X, parse_expression
from .expressions import ActivationError, lambdify_numpy
from .multi_expectation import MAX_INDEX, MULTI_Z, multi_expectation

__all__ = ["MultiIndexTarget", "multi_index_target", "is_multi_index", "teacher_object",
           "MULTI_Z", "MAX_INDEX"]

_VARIABLE = re.compile(r"^z([1-9][0-9]*)$")


def _named_indices(text: str) -> set:
    """Indices j of the names ``zj`` in ``text`` (empty when it does not parse: the safe
    parser then reports the problem)."""
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except (SyntaxError, RecursionError, MemoryError, ValueError):
        return set()
    return {int(m.group(1)) for node in ast.walk(tree) if isinstance(node, ast.Name)
            for m in [_VARIABLE.match(node.id)] if m}


def is_multi_index(text) -> bool:
    """True when a teacher text names a variable ``z1, z2, ...`` (a multi-index target), False
    for a single-index teacher in ``x`` or a registry name.

    >>> is_multi_index("z1 + z1*z2"), is_multi_index("tanh(x)"), is_multi_index("relu")
    (True, False, False)
    """
    return isinstance(text, str) and bool(_named_indices(text))


class _TargetEvaluator:
    """``Z (n, k) -> g(Z)``, marked with ``columns = k``."""

    def __init__(self, name, k, f):
        self.name, self.columns, self._f = name, k, f

    def __call__(self, Z):
        Z = np.asarray(Z, dtype=float)
        if Z.ndim != 2 or Z.shape[1] != self.columns:
            raise ValueError(f"target {self.name!r} takes an array of shape (n, {self.columns}),"
                             f" got shape {Z.shape}")
        out = np.asarray(self._f(*Z.T), dtype=float)
        return np.broadcast_to(out, (Z.shape[0],)).copy()


@dataclass(frozen=True)
class MultiIndexTarget:
    """A target ``g(z1..zk)`` of k orthonormal directions (immutable).

    Attributes
    ----------
    name : str
        The user's text.
    expr : sympy.Expr
        The expression in ``z1..zk`` (:data:`MULTI_Z`).
    k : int
        The number of directions.

    >>> t = multi_index_target("sin(z1)*z2")
    >>> t.first_order[0].expr, t.first_order[1].expr
    (0, 0)
    >>> t.variables
    (z1, z2)
    """

    name: str
    expr: sp.Expr
    k: int
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def variables(self) -> tuple:
        """The symbols ``z1..zk``."""
        return MULTI_Z[:self.k]

    @cached_property
    def numpy(self):
        """``g`` at the rows of ``Z`` (shape (n, k)): an array of n labels (a callable with the
        attribute ``columns = k``: the network takes the first k coordinates of x).

        >>> multi_index_target("z1*z2", k=3).numpy(np.ones((2, 3)))
        array([1., 1.])
        """
        return _TargetEvaluator(self.name, self.k, lambdify_numpy(self.variables, self.expr))

    @cached_property
    def mean(self) -> Value:
        """``E g(z)``."""
        return multi_expectation(self.expr, self.k, "E[g]")

    @cached_property
    def second_moment(self) -> Value:
        """``E g(z)^2``."""
        return multi_expectation(self.expr**2, self.k, "E[g^2]")

    @cached_property
    def first_order(self) -> tuple:
        """``c1 = (E[g z_1], ..., E[g z_k])``: the direction one giant step learns."""
        return tuple(multi_expectation(self.expr * z, self.k, f"c1_{j + 1}")
                     for j, z in enumerate(self.variables))

    def __str__(self):
        return f"g(z1..z{self.k}) = {self.expr}"


@lru_cache(maxsize=128)
def _target(text: str, k) -> MultiIndexTarget:
    indices = _named_indices(text)
    if indices:
        top = max(indices)
        if top > MAX_INDEX:
            raise ActivationError(f"target {text!r} names z{top}: at most {MAX_INDEX} "
                                  f"directions z1..z{MAX_INDEX} are supported")
        k = top if k is None else k
        if k < top:
            raise ActivationError(f"target {text!r} names z{top} but k = {k} was given")
        # all of z1..z{MAX_INDEX} (none above z{top} occurs): an unknown name such as 'zz2' is
        # then reported against every variable a target may use, not only those it uses
        names = {f"z{j + 1}": z for j, z in enumerate(MULTI_Z)}
        expr = parse_expression(text, names, what="target")
    else:
        from .activations import activation     # a registry name or an expression in x
        k = 1 if k is None else k
        expr = activation(text).expr.subs(X, MULTI_Z[0])
    return MultiIndexTarget(text, expr, k)


def teacher_object(spec):
    """The teacher of a solver or simulation: a :class:`MultiIndexTarget` for text in
    ``z1..zk`` (or the object), else the single-index :class:`~srfsym.symbolic.activations.Activation`.

    >>> type(teacher_object("z1*z2")).__name__, type(teacher_object("sin")).__name__
    ('MultiIndexTarget', 'Activation')
    """
    if isinstance(spec, MultiIndexTarget) or is_multi_index(spec):
        return multi_index_target(spec)
    from .activations import activation
    return activation(spec)


def multi_index_target(spec, k: int | None = None) -> MultiIndexTarget:
    """A :class:`MultiIndexTarget` from text in ``z1..zk`` (or ``x``, read as ``z1``), or the
    object itself.  ``k`` (optional) adds directions the expression does not use.

    >>> multi_index_target("tanh(x)").expr, multi_index_target("relu").expr
    (tanh(z1), Max(0, z1))
    >>> multi_index_target("z5")
    Traceback (most recent call last):
    ...
    srfsym.symbolic.expressions.ActivationError: target 'z5' names z5: at most 4 directions z1..z4 are supported
    """
    if isinstance(spec, MultiIndexTarget):
        if k is not None and k != spec.k:
            raise ValueError(f"target {spec.name!r} has k = {spec.k}, not {k}")
        return spec
    if not isinstance(spec, str):
        raise ActivationError(f"a target must be text in z1..z{MAX_INDEX}, got "
                              f"{type(spec).__name__}")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int)
                          or not 1 <= k <= MAX_INDEX):
        raise ValueError(f"k must be an integer from 1 to {MAX_INDEX}, got {k!r}")
    return _target(spec, k)
