r"""A finite readout vocabulary: the second layer initialised from letters ``omega_j``.

The readout before the step is ``a0_k = omega_k / sqrt(p)`` with ``omega_k`` drawn from the
letters ``omega_1 .. omega_K`` with weights ``pi_j`` (docs/theory.md (k.1)).  The uniform
readout of the rest of srfsym is the one-letter vocabulary ``{1}``: every function that takes
a ``vocabulary=`` argument gives today's uniform numbers for ``None`` or ``{1}``, through the
same code.

Every row update of the step is ``omega_k`` times the uniform row update, so group ``j``
(the neurons with letter ``omega_j``) has spike ``r omega_j`` and, for an odd student, bulk
variance ``c_j = 1 + omega_j^2 (c - 1)`` with the uniform ``r, c``; the alignment ``gamma`` is
common.  Those two group formulas are written once, as SymPy expressions, in
:func:`group_parameter_expressions`; :mod:`srfsym.step.mapping` derives the general form (with
the ``mu0 != 0`` corrections) and ``derivations/11_vocabulary.py`` checks that it reduces
to these.

>>> v = vocabulary([1, 2], [0.7, 0.3])
>>> v.K, v.letters, v.weights
(2, (1.0, 2.0), (0.7, 0.3))
>>> [round(x, 6) for x in v.group_bulk_variances(1.018973)]
[1.018973, 1.075892]
>>> vocabulary([1, -1]).is_symmetric
True
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import sympy as sp

__all__ = ["Vocabulary", "vocabulary", "UNIFORM", "group_parameter_expressions", "OMEGA",
           "check_student", "fit_uniform_parameters"]

#: A letter of the vocabulary (the readout value of one group before the step).
OMEGA = sp.Symbol("omega", real=True, nonzero=True)
_R = sp.Symbol("r", real=True)
_C = sp.Symbol("c", positive=True)

_WEIGHT_TOL = 1e-9


@lru_cache(maxsize=1)
def group_parameter_expressions() -> dict:
    """Spike strength and bulk variance of the group with letter ``omega`` in terms of the
    uniform ``r, c`` (odd student; docs/theory.md (k.1)).

    >>> e = group_parameter_expressions()
    >>> e["spike_strength"], e["bulk_variance"]
    (omega*r, omega**2*(c - 1) + 1)
    """
    return {"spike_strength": OMEGA * _R, "bulk_variance": 1 + OMEGA**2 * (_C - 1),
            "symbols": (OMEGA, _R, _C)}


@lru_cache(maxsize=1)
def _group_functions():
    e = group_parameter_expressions()
    return tuple(sp.lambdify([OMEGA, _R, _C], e[k], modules="numpy")
                 for k in ("spike_strength", "bulk_variance"))


@lru_cache(maxsize=1)
def _fit_basis():
    """Each group formula is affine in its uniform parameter (spike strength in r, bulk
    variance in c): slope and offset in omega, from :func:`group_parameter_expressions`."""
    e = group_parameter_expressions()
    out = []
    for key, sym in (("spike_strength", _R), ("bulk_variance", _C)):
        slope = sp.diff(e[key], sym)
        if sp.diff(slope, sym) != 0:
            raise AssertionError(f"the group {key} is not affine in {sym}")
        offset = sp.expand(e[key] - slope * sym)
        out.append((sp.lambdify([OMEGA], slope, modules="numpy"),
                    sp.lambdify([OMEGA], offset, modules="numpy")))
    return tuple(out)


def fit_uniform_parameters(letters, counts, group_spikes, group_bulk_variances):
    """The uniform ``(r, c)`` that best explains measured per-letter spike strengths and bulk
    variances: the group formulas of :func:`group_parameter_expressions` (affine in r and c)
    fitted by least squares, each letter weighted by its number of neurons.

    >>> r, c = fit_uniform_parameters([1, 2], [3, 1], [1.1, 2.2], [1.2, 1.8])
    >>> round(r, 6), round(c, 6)
    (1.1, 1.2)
    """
    w = np.asarray(letters, dtype=float)
    n = np.asarray(counts, dtype=float)
    fitted = []
    for (slope, offset), y in zip(_fit_basis(), (group_spikes, group_bulk_variances)):
        b = np.broadcast_to(np.asarray(slope(w), dtype=float), w.shape)
        a = np.broadcast_to(np.asarray(offset(w), dtype=float), w.shape)
        fitted.append(float(np.sum(n * b * (np.asarray(y, dtype=float) - a)) / np.sum(n * b * b)))
    return tuple(fitted)


@dataclass(frozen=True)
class Vocabulary:
    """Letters ``omega_j`` and their weights ``pi_j`` (summing to 1).

    Build it with :func:`vocabulary`, which checks the input.  ``K`` is the number of
    letters; ``is_uniform`` says whether this is the uniform readout ``{1}``.
    """

    letters: tuple
    weights: tuple

    @property
    def K(self) -> int:
        return len(self.letters)

    @property
    def is_uniform(self) -> bool:
        return self.letters == (1.0,)

    @property
    def is_symmetric(self) -> bool:
        """Every letter's negative is a letter too (degenerate for odd students:
        ``{+1, -1}`` is the uniform readout, docs/theory.md (k.2))."""
        return all(-w in self.letters for w in self.letters)

    def moment(self, k: int) -> float:
        """``E omega^k`` under the weights.

        >>> vocabulary([1, 3], [0.5, 0.5]).moment(2)
        5.0
        """
        return float(sum(p * w**k for w, p in zip(self.letters, self.weights)))

    def group_spike_strengths(self, r):
        """``r omega_j`` for each letter (the spike carries the letter's sign).

        >>> vocabulary([1, -2]).group_spike_strengths(1.5)
        (1.5, -3.0)
        """
        f = _group_functions()[0]
        return tuple(float(f(w, float(r), 1.0)) for w in self.letters)

    def group_bulk_variances(self, c):
        """``1 + omega_j^2 (c - 1)`` for each letter (odd student).

        >>> vocabulary([1, 2]).group_bulk_variances(1.5)
        (1.5, 3.0)
        """
        f = _group_functions()[1]
        return tuple(float(f(w, 1.0, float(c))) for w in self.letters)

    def group_sizes(self, p: int) -> tuple:
        """Neurons per letter in a network of width ``p``: ``p pi_j`` rounded by largest
        remainders (so they sum to p; every letter gets at least one neuron).

        >>> vocabulary([1, 3], [0.7, 0.3]).group_sizes(1000)
        (700, 300)
        """
        p = int(p)
        if p < self.K:
            raise ValueError(f"a width p = {p} cannot hold the {self.K} letters of the vocabulary")
        raw = [p * w for w in self.weights]
        sizes = [max(1, int(math.floor(x))) for x in raw]
        order = sorted(range(self.K), key=lambda j: raw[j] - math.floor(raw[j]), reverse=True)
        i = 0
        while sum(sizes) < p:
            sizes[order[i % self.K]] += 1
            i += 1
        while sum(sizes) > p:
            j = max(range(self.K), key=lambda j: sizes[j])
            sizes[j] -= 1
        return tuple(sizes)

    def neuron_letters(self, p: int) -> np.ndarray:
        """The letter ``omega_k`` of each of ``p`` neurons: group j is a block of
        ``group_sizes(p)[j]`` consecutive neurons (the simulation's readout; the groups'
        proportions are then ``p_j / p``, not a random draw).

        >>> vocabulary([1, -1]).neuron_letters(4).tolist()
        [1.0, 1.0, -1.0, -1.0]
        """
        return np.repeat(np.asarray(self.letters, dtype=float), self.group_sizes(p))

    def to_dict(self) -> dict:
        return {"letters": list(self.letters), "weights": list(self.weights)}

    def __str__(self):
        if self.is_uniform:
            return "uniform readout {1}"
        pairs = ", ".join(f"{w:g} (pi = {p:g})" for w, p in zip(self.letters, self.weights))
        return f"vocabulary {{{pairs}}}"


def _number(x, what):
    if isinstance(x, bool) or x is None:
        raise ValueError(f"{what} must be a real number, got {x!r}")
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a real number, got {x!r}") from None
    if isinstance(x, complex) or not math.isfinite(v):
        raise ValueError(f"{what} must be a finite real number, got {x!r}")
    return v


#: Most letters in a vocabulary, and the largest |letter| (omega^2 (c - 1) must stay in the
#: range of the coefficient quadratures; larger letters overflow the moments E omega^k).
MAX_LETTERS = 64
MAX_LETTER = 1000.0


def vocabulary(letters=None, weights=None) -> Vocabulary:
    """A checked :class:`Vocabulary`; ``None`` (or ``[1]``) is the uniform readout.

    Weights default to equal.  They must be positive, one per letter and sum to 1
    (within 1e-9; they are *not* silently normalised: weights that do not sum to 1 are
    an error).  Letters must be finite, non-zero and distinct.

    >>> vocabulary() == UNIFORM
    True
    >>> vocabulary([1, 3], [0.7, 0.3]).weights
    (0.7, 0.3)
    >>> vocabulary([1, 2], [0.5, 0.6])
    Traceback (most recent call last):
    ...
    ValueError: vocabulary weights must sum to 1, got 1.1 (they are not normalised for you)
    """
    if isinstance(letters, Vocabulary):
        if weights is not None:
            raise ValueError("weights given twice (the vocabulary already has weights)")
        return letters
    if letters is None:
        letters = (1.0,)
    if isinstance(letters, (str, bytes)) or not hasattr(letters, "__len__"):
        raise ValueError(f"vocabulary letters must be a list of numbers, got {letters!r}")
    letters = tuple(_number(w, "a vocabulary letter") for w in np.ravel(np.asarray(letters,
                                                                                     dtype=object)))
    if not letters:
        raise ValueError("the vocabulary is empty: give at least one letter")
    if len(letters) > MAX_LETTERS:
        raise ValueError(f"the vocabulary has {len(letters)} letters, more than the "
                         f"{MAX_LETTERS} srfsym solves for (the K-group equations hold K^2 x "
                         "K^2 matrices)")
    big = [w for w in letters if not abs(w) <= MAX_LETTER]
    if big:
        raise ValueError(f"vocabulary letters must lie in [-{MAX_LETTER:g}, {MAX_LETTER:g}] "
                         f"(a letter scales the spike r and the bulk variance c - 1 by omega "
                         f"and omega^2), got {big[0]!r}")
    if any(w == 0 for w in letters):
        raise ValueError(f"vocabulary letters must be non-zero (a zero letter is a neuron "
                         f"without readout), got {list(letters)}")
    if len(set(letters)) != len(letters):
        raise ValueError(f"vocabulary letters must be distinct (merge repeated letters and add "
                         f"their weights), got {list(letters)}")
    if weights is None:
        weights = tuple(1.0 / len(letters) for _ in letters)
    else:
        if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__"):
            raise ValueError(f"vocabulary weights must be a list of numbers, got {weights!r}")
        weights = tuple(_number(p, "a vocabulary weight") for p in np.ravel(np.asarray(
            weights, dtype=object)))
        if len(weights) != len(letters):
            raise ValueError(f"{len(weights)} weights for {len(letters)} letters: give one weight "
                             "per letter")
        if any(p <= 0 for p in weights):
            raise ValueError(f"vocabulary weights must be positive, got {list(weights)}")
        total = math.fsum(weights)
        if abs(total - 1) > _WEIGHT_TOL:
            raise ValueError(f"vocabulary weights must sum to 1, got {total:.6g} (they are not "
                             "normalised for you)")
    return Vocabulary(letters, weights)


#: The uniform readout ``a0 = 1/sqrt(p)``: one letter, ``omega = 1``.
UNIFORM = Vocabulary((1.0,), (1.0,))


def check_student(student, voc, measured=False) -> None:
    """Refuse a non-odd student with a non-uniform vocabulary.

    With ``mu0 != 0`` the network output before the step tends to ``mu0 E omega`` and the
    group formulas change (docs/theory.md (k.1), remark (i)); srfsym has not derived the
    consequences for the bounds and the fixed point, so it says so instead of using the odd
    formulas.  ``measured=True`` (a realised layer split by letter, ``bulk="step"``: every
    letter's ``r_j, c_j`` measured, no group formula used, docs/theory.md (g.4.1)) lets any
    student through.

    >>> check_student("relu", vocabulary([1, 2]))
    Traceback (most recent call last):
    ...
    ValueError: a readout vocabulary needs an odd student (relu is not odd: ...
    """
    if voc.is_uniform or measured:
        return
    from ..symbolic.activations import activation
    act = activation(student)
    if act.parity != "odd":
        raise ValueError(
            f"a readout vocabulary needs an odd student ({act.name} is not odd: with mu0 != 0 "
            "the output before the step is mu0 E[omega] and the per-group formulas "
            "r omega_j, 1 + omega_j^2 (c - 1) do not hold; this case is not derived in srfsym; "
            "the realised step bulk, bulk='step' with d and seed, measures every letter's r_j, "
            "c_j and takes it)")
