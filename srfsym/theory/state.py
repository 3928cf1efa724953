"""The order parameters and conjugates of the fixed point, and its failure type.

Shared by every part of the engine (:mod:`srfsym.theory.interfaces`): the channel side
reads a :class:`State` and returns :class:`Hats`; the spectral side reads :class:`Hats`
and returns a :class:`State`.  For the uniform readout (K = 1) every field is a scalar; with
a readout vocabulary of K letters ``V1`` and ``q1`` are K x K matrices and the others
K-vectors (docs/theory.md (k.7)).

>>> State(0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 1.5).V1
3.0
"""
from __future__ import annotations

from typing import NamedTuple

__all__ = ["State", "Hats", "ConvergenceError", "climb_nodes"]


class State(NamedTuple):
    """Order parameters (overlaps)."""
    q1: object
    q2: object
    V1: object
    V2: object
    theta: object
    psi: object
    m: object


class Hats(NamedTuple):
    """Conjugate parameters (theta_hat, psi_hat are those of the p-normalised overlaps)."""
    q1hat: object
    q2hat: object
    V1hat: object
    V2hat: object
    thetahat: object
    psihat: object


class ConvergenceError(RuntimeError):
    """The fixed point was not reached; carries the last residual and iterate.

    >>> ConvergenceError("no", residual=1.0).residual
    1.0
    """

    def __init__(self, message, residual=None, iterate=None):
        super().__init__(message)
        self.residual = residual
        self.iterate = iterate


#: a kappa ladder is converged when two node counts give test errors within NODES_CONVERGED
#: (absolute); one that ends with its last change above NODES_REFUSE (relative) is refused
NODES_CONVERGED, NODES_REFUSE = 1e-11, 1e-6


def climb_nodes(solve_at, ladder, what):
    """Up the kappa node ``ladder`` until two counts give test errors within 1e-11.

    ``solve_at(K, prev)`` solves at ``K`` nodes (``prev``: the result at the count before, or
    None).  Returns the result at the lower of the two agreeing counts, with ``node_error``
    set; a count that gives the same rule as the one before (``rule_size``, the nodes the
    rule really has) is not a second count.  If the ladder ends first, the last result is returned with a note when its last
    change is at most 1e-6 relative, and :class:`ConvergenceError` is raised above that
    (its digits are contradicted by a node change).  The answer depends on the arguments
    only, never on earlier calls.

    >>> class R:
    ...     def __init__(self, K): self.test_error, self.notes, self.nodes = 1 + 1 / K**9, [], K
    >>> climb_nodes(lambda K, prev: R(K), (10, 100, 1000), "x").nodes
    100
    >>> climb_nodes(lambda K, prev: R(K), (2, 3), "x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    srfsym.theory.state.ConvergenceError: x: the kappa quadrature did not converge...
    """
    prev = change = None
    for K in ladder:
        cur = solve_at(K, prev)
        size = getattr(cur, "rule_size", None)
        if prev is not None and size is not None and size == getattr(prev, "rule_size", None):
            continue    # the same rule again (a piecewise rule's floor of 16 nodes a piece)
        if prev is not None:
            change = abs(cur.test_error - prev.test_error)
            if change < NODES_CONVERGED:
                prev.node_error = change
                return prev
        prev = cur
    if change is None:
        return prev
    rel = change / max(abs(prev.test_error), 1e-300)
    if not rel <= NODES_REFUSE:
        raise ConvergenceError(
            f"{what}: the kappa quadrature did not converge: the test error at {prev.nodes} "
            f"nodes and at the count before differ by {change:.1e} ({rel:.1e} relative, above "
            f"{NODES_REFUSE:g}); give more nodes explicitly (nodes=...) and compare two counts, "
            "or report this point", residual=change)
    prev.notes.append(f"kappa quadrature not converged to {NODES_CONVERGED:g} with {prev.nodes} "
                      f"nodes (last change {change:.1e}, {rel:.1e} relative): trust the test "
                      "error to that level")
    prev.node_error = change
    return prev
