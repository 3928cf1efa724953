"""The exact moments of the trained first layer's bulk (docs/theory.md (g.5)): free moments
of the residual-weighted Wishart matrices, their SymPy forms, the step's constants and the law
of the residuals.  :mod:`srfsym.theory.spectral.exact_bulk` builds the limiting law on them.

>>> len(noncrossing_partitions(4))
14
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np
import sympy as sp
from numpy.polynomial.hermite_e import hermegauss

from ...symbolic.activations import activation
from ...symbolic.quadrature import GAUSSIAN_HALF_WIDTH, gaussian_piecewise_rule
from ...symbolic.hermite import hermite_constants
from ...step.mapping import ALPHA0

__all__ = ["step_bulk_parameters", "bulk_moment_expressions", "free_moment",
           "noncrossing_partitions", "residual_law", "A_STEP", "B_STEP", "ALPHA0_S", "BETA_S",
           "RES_MOMENTS"]

#: SymPy symbols of the law: the two step constants, alpha0, beta and E e^k (k = 1..4).
A_STEP, B_STEP = sp.symbols("a_step b_step", real=True)
ALPHA0_S = ALPHA0
BETA_S = sp.Symbol("beta", positive=True)
RES_MOMENTS = sp.symbols("M1:5", real=True)


# --------------------------------------------------------------------------------------
# exact moments (free cumulants of the weighted Wishart matrices)

def noncrossing_partitions(n: int) -> list:
    """All non-crossing partitions of ``range(n)`` (lists of blocks, each a tuple).

    >>> len(noncrossing_partitions(4))          # the Catalan number C_4
    14
    """
    if n == 0:
        return [[]]
    out = []
    # the block containing 0 is {0} U rest; elements between consecutive block elements
    # are partitioned independently (non-crossing)
    def blocks_with_zero(elems):
        first, others = elems[0], elems[1:]
        for mask in range(1 << len(others)):
            chosen = [x for i, x in enumerate(others) if mask >> i & 1]
            block = (first,) + tuple(chosen)
            gaps, prev = [], first
            for x in chosen + [None]:
                hi = elems[-1] + 1 if x is None else x
                gaps.append([y for y in elems if prev < y < hi])
                prev = x if x is not None else prev
            yield block, gaps

    def rec(elems):
        if not elems:
            yield []
            return
        for block, gaps in blocks_with_zero(elems):
            parts = [list(rec(g)) for g in gaps]
            def combine(i):
                if i == len(parts):
                    yield []
                    return
                for p in parts[i]:
                    for rest in combine(i + 1):
                        yield p + rest
            for tail in combine(0):
                yield [block] + tail
    out.extend(rec(list(range(n))))
    return out


def free_moment(word, alpha0=ALPHA0_S, moments=RES_MOMENTS):
    r"""``(1/d) tr(S_{k_1} ... S_{k_n})`` for ``S_k = (1/n0) X^T diag(e^k) X`` in the limit:
    the free cumulants are ``kappa_m(S_{k_1}, ..., S_{k_m}) = alpha0^{1-m} E e^{k_1+...+k_m}``.

    ``word`` is the list of exponents ``k_j``; ``moments[j-1] = E e^j``.

    >>> sp.expand(free_moment([1, 1]))
    M1**2 + M2/alpha0
    """
    total = sp.Integer(0)
    for part in noncrossing_partitions(len(word)):
        term = sp.Integer(1)
        for block in part:
            k = sum(word[i] for i in block)
            term *= alpha0 ** (1 - len(block)) * moments[k - 1]
        total += term
    return total


def _dsigma_words():
    """``d Sigma = I + 2a S1 + a^2 S1 S1 + b S2`` as (coefficient, word) pairs."""
    return [(sp.Integer(1), ()), (2 * A_STEP, (1,)), (A_STEP**2, (1, 1)), (B_STEP, (2,))]


@lru_cache(maxsize=None)
def bulk_moment_expressions() -> dict:
    r"""SymPy forms of the exact moments (docs/theory.md (g.5)).

    Keys: ``ell1 = E ell``, ``ell2 = E ell^2`` (the population law of ``d Sigma``), and for
    ``D`` (the bulk eigenvalues of ``W Pi W^T``) ``m1 = E ell``,
    ``m2 = beta E ell^2 + (E ell)^2``, ``normalised_variance = m2/m1^2 - 1``; in the symbols
    ``A_STEP, B_STEP, ALPHA0_S, BETA_S, RES_MOMENTS``.

    >>> e = bulk_moment_expressions()
    >>> sp.simplify(e["ell1"].subs(A_STEP, 0))
    M2*b_step + 1
    """
    words = _dsigma_words()
    ell1 = sum(cf * (free_moment(list(w)) if w else 1) for cf, w in words)
    ell2 = sp.Integer(0)
    for c1, w1 in words:
        for c2, w2 in words:
            w = list(w1) + list(w2)
            ell2 += c1 * c2 * (free_moment(w) if w else 1)
    ell1, ell2 = sp.expand(ell1), sp.expand(ell2)
    m2 = BETA_S * ell2 + ell1**2
    return {"ell1": ell1, "ell2": ell2, "m1": ell1, "m2": sp.expand(m2),
            "normalised_variance": BETA_S * ell2 / ell1**2}


@lru_cache(maxsize=None)
def _moment_functions():
    e = bulk_moment_expressions()
    args = (A_STEP, B_STEP, ALPHA0_S, BETA_S) + RES_MOMENTS
    return {k: sp.lambdify(args, e[k], modules="math") for k in ("m1", "m2", "ell2")}


# --------------------------------------------------------------------------------------
# the step's constants

def step_bulk_parameters(student, teacher, alpha0: float, eta: float) -> dict:
    r"""The constants of the step's bulk: ``a = eta mu_2``, ``b = eta^2 (checkmu1^2 -
    mu_2^2)/alpha0`` (``mu_2 = E sigma He_2`` of the student) and the residual offset
    ``mu0`` (the residual is ``e = sigma_star(xi) - mu0``).

    >>> p = step_bulk_parameters("relu", "sin", 1.0, 3.0)
    >>> round(p["a"], 6), round(p["b"], 6), round(p["offset"], 6)
    (1.196827, 0.817606, 0.398942)
    """
    if not (math.isfinite(alpha0) and alpha0 > 0):
        raise ValueError(f"alpha0 must be > 0 and finite for a step bulk, got {alpha0!r}")
    if not math.isfinite(eta):
        raise ValueError(f"eta must be finite, got {eta!r}")
    st = activation(student)
    if st.has_dirac_derivative:
        raise ValueError(f"student {st.name!r} has a Dirac mass in sigma' and cannot take a step")
    h = hermite_constants(st)
    mu2 = float(h.mu_k(2))
    var_rest = float(h.checkmu1_sq) - mu2 * mu2
    if not math.isfinite(var_rest):
        raise ValueError(f"student {st.name!r}: E sigma'^2 is not finite")
    var_rest = max(var_rest, 0.0)
    return {"a": eta * mu2, "b": eta * eta * var_rest / alpha0, "offset": float(h.mu0),
            "mu2": mu2, "var_rest": var_rest}


def residual_law(teacher, offset: float, n_nodes: int = 96):
    """Discrete law of ``e = sigma_star(xi) - offset``, ``xi ~ N(0,1)``: ``(e, w, xi)``.

    Gauss--Hermite for a smooth teacher; a teacher with kinks or jumps (relu, sign, ...) gets
    Gauss--Legendre pieces cut at them (``n_nodes`` per piece, the normal density in the
    weights): Gauss--Hermite across a kink converges only algebraically (relu: the law's
    ``E D`` was 0.3 % off the mapping's ``c`` with 64 nodes).

    >>> e, w, xi = residual_law("sin", 0.0, 40)
    >>> round(float(w @ e**2), 12) == round((1 - math.exp(-2)) / 2, 12)
    True
    >>> e, w, xi = residual_law("relu", 0.0, 40)       # E relu^2 = 1/2
    >>> round(float(w @ e**2), 12)
    0.5
    """
    act = activation(teacher)
    cuts = sorted(float(k) for k in act.kinks if abs(float(k)) < GAUSSIAN_HALF_WIDTH)
    if cuts:
        x, w = gaussian_piecewise_rule([-GAUSSIAN_HALF_WIDTH, *cuts, GAUSSIAN_HALF_WIDTH],
                                       int(n_nodes))
    else:
        x, w = hermegauss(int(n_nodes))
    w = w / w.sum()
    fn = act.numpy
    e = np.asarray(fn(x), dtype=float) * np.ones_like(x) - offset
    if not np.all(np.isfinite(e)):
        raise ValueError("the teacher is not finite at the quadrature nodes")
    return e, w, x
