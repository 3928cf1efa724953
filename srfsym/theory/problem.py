r"""The problem value: what one fixed-point solve is asked, validated once.

Every entry point (:func:`srfsym.solve`, :func:`~srfsym.theory.fixed_point.solve_srf`,
:func:`~srfsym.theory.fixed_point.learning_curve`,
:func:`~srfsym.theory.fixed_point.optimal_lambda`, :func:`~srfsym.theory.grid.solve_grid`,
the convex grid, the sweep tasks and the command line) builds a :class:`Problem`; the
dispatch table of :mod:`srfsym.theory.dispatch` reads the channel and the prior off its
:attr:`Problem.key` and runs the one engine.  The fields say *what* is asked:

- the network: ``student``, ``teacher``; the step as ``(alpha0, eta)`` (mapped by
  :func:`~srfsym.step.mapping.srf_mapping`, docs/theory.md (b)) or ``(r, c, gamma)``
  given directly;
- the readout: ``lam``, ``alpha``, ``beta``, the vocabulary (docs/theory.md (k.7)), the loss
  with ``noise``, ``bias`` and ``label_rule`` (docs/theory.md (m));
- the bulk: ``"isotropic"`` with ``spectrum`` ``"mp"``, ``"sample"`` (at ``d``, ``seed``) or
  a spectrum object; ``"step"`` (the first layer realised at ``d``, ``seed``,
  docs/theory.md (g.4)); ``"exact"`` (its d -> infinity law, (g.5));
- the precision: ``dps`` (``None``: double precision);
- the target: the ``teacher`` is a single-index activation, or a multi-index target (text in
  ``z1..zk`` or a :class:`~srfsym.symbolic.targets.MultiIndexTarget`, docs/theory.md (n)):
  :attr:`Problem.target` is ``"single"`` or ``"multi"``, :attr:`Problem.k` its number of
  directions.
- the number of giant steps ``steps`` (default 1; ``T > 1``: the T-step map of
  docs/theory.md (p.2) and the vector-kappa channel of (p.4)).

``alpha`` and ``lam`` may be ``None`` for a family of problems over those axes (a grid, a
learning curve): each point is validated when it is solved.  Numbers may be given as
decimal strings everywhere (they are kept as given, for the mpmath solve).  How the solve
is run (``nodes``, ``tol``, ``method``, ``max_iter``) is a :class:`Options` value.

>>> p = Problem("tanh", "sin", lam=0.1, alpha="1", alpha0=20, eta=3, noise="0")
>>> p.key
('uniform', 'square', 'mp', 'double', 'single', 'one')
>>> q = Problem("tanh", "z1 + z1*z2", lam=0.1, alpha=1, alpha0=4, eta=2, steps=2)
>>> q.target, q.k, q.step_kind
('multi', 2, 'several')
>>> Problem("tanh", "sin", lam=0.1, alpha=1, alpha0=20, eta=3, dps=0)
Traceback (most recent call last):
...
ValueError: dps (decimal digits) must be an integer from 5 to 300, got 0
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from ..core.checks import real_scalar, scalar_like
from ..core.values import MAX_SOLVER_DPS, check_dps

__all__ = ["Problem", "Options", "Prior", "BULKS", "check_readout_options", "check_solver_options",
           "step_bulk_mapping"]

BULKS = ("isotropic", "step", "exact")
METHODS = ("structured", "anderson", "damped")


def check_solver_options(tol, max_iter):
    """``tol`` a positive number, ``max_iter`` a positive integer (clear errors otherwise).

    >>> check_solver_options(0, 10)
    Traceback (most recent call last):
    ...
    ValueError: tol must be a positive number, got 0
    """
    if not (isinstance(tol, (int, float)) and math.isfinite(tol) and tol > 0):
        raise ValueError(f"tol must be a positive number, got {tol!r}")
    if isinstance(max_iter, bool) or not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")


def check_readout_options(noise, bias) -> float:
    """The label noise (a variance; decimal strings accepted) as a float, and ``bias`` a
    bool.

    >>> check_readout_options("0.1", False)
    0.1
    >>> check_readout_options(-1, False)
    Traceback (most recent call last):
    ...
    ValueError: the label noise is a variance: it must be >= 0, got -1.0
    """
    if isinstance(noise, str):
        try:
            noise = float(noise)
        except ValueError:
            raise ValueError(f"the label noise must be a finite number >= 0, got {noise!r}") \
                from None
    if isinstance(noise, np.ndarray) and noise.ndim == 0:
        noise = noise.item()
    if isinstance(noise, (bool, np.bool_)) or not isinstance(noise, (int, float, np.floating,
                                                                     np.integer)) \
            or not math.isfinite(noise):
        raise ValueError(f"the label noise must be a finite number >= 0, got {noise!r}")
    if noise < 0:
        raise ValueError(f"the label noise is a variance: it must be >= 0, got {float(noise)}")
    if not isinstance(bias, (bool, np.bool_)):
        raise ValueError(f"bias must be True or False, got {bias!r}")
    return float(noise)


def check_readout_point(alpha, lam, beta):
    """alpha > 0, lambda >= 0, beta > 0 (decimal strings accepted), in the supported range;
    lambda = 0 needs alpha >= beta.

    >>> check_readout_point(1.0, -1, 1.0)
    Traceback (most recent call last):
    ...
    ValueError: lambda (ridge penalty) must be >= 0, got -1
    """
    for name, v in (("alpha", alpha), ("lambda", lam), ("beta", beta)):
        real_scalar(name, v, allow_str=True)    # a real number: not a symbol, NaN or inf
    if float(alpha) <= 0:
        raise ValueError(f"alpha (readout samples per dimension) must be > 0, got {alpha}")
    if float(lam) < 0:
        raise ValueError(f"lambda (ridge penalty) must be >= 0, got {lam}")
    if float(beta) <= 0:
        raise ValueError(f"beta = p/d must be > 0, got {beta}")
    if float(lam) == 0 and float(alpha) < float(beta):
        raise ValueError(f"lambda = 0 with alpha = {alpha} < beta = {beta}: fewer samples than "
                         "features, the ridgeless readout interpolates and the fixed point has no "
                         "unique solution; use lambda > 0 (or alpha > beta)")
    # beyond these the double-precision spectral formulas overflow
    for name, v, lo, hi in (("alpha", alpha, 1e-100, 1e100), ("lambda", lam, 0.0, 1e100),
                            ("beta", beta, 1e-100, 1e100)):
        if not lo <= float(v) <= hi:
            raise ValueError(f"{name} = {v} is outside the supported range [{lo:g}, {hi:g}]")


class Prior(NamedTuple):
    """The spectral side of a problem: ``params = (r, c, gamma)`` on the channel side, the
    spectrum object (``None``: the solver's own block-Wishart equivalent), a note for the
    result and the spectrum's name in the result (``None``: the solver names it)."""

    params: tuple
    spec: object
    note: object = None
    name: object = None


@dataclass(frozen=True)
class Options:
    """How a problem is solved (not what is asked): kappa ``nodes`` (an int or ``"auto"``,
    certified up the node ladder), the verification ``tol``, the ``method`` and the
    iteration cap ``max_iter``.

    >>> Options(nodes="auto").tol
    1e-10
    """

    nodes: object = "auto"
    tol: float = 1e-10
    method: str = "structured"
    max_iter: int = 20000

    def __post_init__(self):
        check_solver_options(self.tol, self.max_iter)


@dataclass(frozen=True)
class Problem:
    """One fixed-point problem (see the module docstring for the fields)."""

    student: object
    teacher: object
    lam: object = None
    alpha: object = None
    beta: object = 1.0
    alpha0: object = None
    eta: object = None
    r: object = None
    c: object = None
    gamma: object = None
    vocabulary: object = None
    bulk: str = "isotropic"
    spectrum: object = "mp"
    d: object = None
    seed: object = 0
    loss: object = "square"
    noise: object = 0.0
    bias: bool = False
    label_rule: str = "teacher"
    dps: object = None
    mu0_correction: bool = True
    steps: object = 1

    def __post_init__(self):
        _validate(self)

    # ---- the axes of the dispatch table --------------------------------------------------
    @property
    def readout(self) -> str:
        """``"uniform"`` or ``"groups"`` (a vocabulary with K > 1, or a spectral side split by
        letter)."""
        from .interfaces import GroupSpectralSide
        return ("groups" if self.vocabulary is not None
                or isinstance(self.spectrum, GroupSpectralSide) else "uniform")

    @property
    def loss_kind(self) -> str:
        """``"square"`` for the plain ridge (no noise, no bias, teacher labels), else
        ``"convex"``."""
        plain = (isinstance(self.loss, str) and self.loss.strip() == "square"
                 and self.noise == 0 and not self.bias and self.label_rule == "teacher")
        return "square" if plain else "convex"

    @property
    def bulk_kind(self) -> str:
        """``"mp"``, ``"sample"``, ``"given"`` (a spectrum object), ``"step"`` or ``"exact"``
        (also for a spectral side split by letter that the caller built)."""
        from .interfaces import GroupSpectralSide
        if self.bulk != "isotropic":
            return self.bulk
        if isinstance(self.spectrum, str):
            return self.spectrum
        return self.spectrum.name if isinstance(self.spectrum, GroupSpectralSide) else "given"

    @property
    def precision(self) -> str:
        return "double" if self.dps is None else "mpmath"

    @property
    def target(self) -> str:
        """``"single"`` (a single-index teacher) or ``"multi"`` (a multi-index target in
        ``z1..zk``, docs/theory.md (n))."""
        return "multi" if _multi_index(self.teacher) else "single"

    @property
    def k(self) -> int:
        """The target's number of directions (1 for a single-index teacher)."""
        if self.target == "single":
            return 1
        from ..symbolic.targets import multi_index_target
        return multi_index_target(self.teacher).k

    @property
    def key(self) -> tuple:
        """``(readout, loss, bulk, precision, target, steps)``: the row of the dispatch
        table (computed once, when the problem is validated)."""
        return self._key

    @property
    def step_kind(self) -> str:
        """``"one"`` giant step (the sRF mapping) or ``"several"`` (``steps > 1``, the T-step
        map)."""
        return "one" if self.steps == 1 else "several"

    def at(self, **changes) -> "Problem":
        """A copy with some fields changed (validated again).

        >>> Problem("tanh", "sin", 0.1, 1.0, alpha0=20, eta=3).at(alpha=2.0).alpha
        2.0
        """
        return dataclasses.replace(self, **changes)

    def mapping(self):
        """The step's :func:`~srfsym.step.mapping.srf_mapping` (``None`` when ``r, c, gamma``
        are given directly); after ``steps > 1`` the T-step map
        (:func:`~srfsym.theory.steps_mapping.steps_mapping`)."""
        if self.alpha0 is None:
            return None
        if self.steps != 1:
            from .steps_mapping import steps_mapping
            return steps_mapping(self)
        if self.target == "multi":     # the alignment vector, docs/theory.md (n)
            from ..step.multi_index import multi_index_mapping, no_step_mapping
            if float(self.alpha0) == 0 or float(self.eta) == 0:
                return no_step_mapping(self.student, self.teacher)
            return multi_index_mapping(self.student, self.teacher, self.eta, self.alpha0,
                                       mu0_correction=self.mu0_correction)
        if self.bulk == "step":     # the realised layer's measured values, not the mapping's
            return step_bulk_mapping(self)
        from ..step.mapping import srf_mapping
        return srf_mapping(self.student, self.teacher, self.eta, self.alpha0,
                           mu0_correction=self.mu0_correction)


def step_bulk_mapping(problem):
    """The step's mapping for a ``bulk="step"`` problem, its notes saying what that bulk does:
    the channel takes the realised layer's measured ``r, c, gamma`` (with a vocabulary every
    letter's ``r_j, c_j``), so for a non-odd student the mapping's ``y - mu0`` corrections
    (docs/theory.md (c)) and the per-letter formulas of (k.1) do not enter (the first layer is
    the network's own step, whose residual is ``y - f0(x)``); the mapping's note on them is
    replaced (also in its warning).

    >>> p = Problem("relu", "sin", 0.1, 1.0, alpha0=2, eta=1, bulk="step", d=50,
    ...             vocabulary=[1, -1])
    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     m = step_bulk_mapping(p)
    >>> print(m.notes[0])   # doctest: +ELLIPSIS
    student relu is not odd: on the step bulk ... measured r_j, c_j and gamma ...
    >>> m.notes[0] in [str(x.message) for x in w]      # the same text, as a warning
    True
    """
    import dataclasses
    import warnings
    from ..step.mapping import NonOddActivationWarning, srf_mapping
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonOddActivationWarning)
        m = srf_mapping(problem.student, problem.teacher, problem.eta, problem.alpha0,
                        mu0_correction=problem.mu0_correction)
    old = [n for n in m.notes if n.startswith(f"student {m.student.name} is not odd")]
    if not old:
        return m
    what = ("each letter's measured r_j, c_j and gamma (the layer split by letter, "
            "docs/theory.md (g.4)): neither the mapping's y - mu0 corrections (docs/theory.md (c)) "
            "nor the per-letter formulas r omega_j, 1 + omega_j^2 (c - 1) of (k.1) enter"
            if problem.vocabulary is not None else
            "its measured r, c, gamma (docs/theory.md (g.4)): the mapping's y - mu0 corrections "
            "(docs/theory.md (c)) do not enter")
    note = (f"student {m.student.name} is not odd: on the step bulk the first layer is the "
            "network's own step (residual y - f0(x), f0 the output before the step) and the "
            f"channel takes {what}; the mapping's r, c, gamma are shown for comparison only")
    warnings.warn(note, NonOddActivationWarning, stacklevel=2)
    return dataclasses.replace(m, notes=tuple(note if n in old else n for n in m.notes))


def _set(p, name, value):
    object.__setattr__(p, name, value)


def _validate(p: Problem):
    """All the checks, in the order users met them before the problem value existed."""
    if p.alpha is not None and p.lam is not None:
        check_readout_point(p.alpha, p.lam, p.beta)
    else:
        real_scalar("beta", p.beta, allow_str=True)
        if float(p.beta) <= 0:
            raise ValueError(f"beta = p/d must be > 0, got {p.beta}")
    if p.dps is not None:
        _set(p, "dps", check_dps(p.dps, MAX_SOLVER_DPS))
    if (p.alpha0 is None) == (p.r is None):
        raise ValueError("a problem needs the step as (alpha0, eta) or as (r, c, gamma)")
    if p.alpha0 is None:     # (alpha0, eta): checked by the mapping, with its messages
        if _multi_index(p.teacher):
            raise ValueError(
                f"solve_srf takes a single-index teacher and a scalar gamma; for the "
                f"multi-index target {getattr(p.teacher, 'name', p.teacher)!r} use "
                "srfsym.theory.multi_index.solve_multi_index_srf (an alignment vector) or "
                "solve (docs/theory.md (n))")
        from .channels.kappa_quadrature import validate_srf_parameters
        validate_srf_parameters(p.r, p.c, p.gamma)
    _validate_bulk(p)
    _validate_steps(p)
    _set(p, "noise", check_readout_options(p.noise, p.bias))
    if p.label_rule not in ("teacher", "bernoulli"):
        raise ValueError(f"label_rule must be one of ('teacher', 'bernoulli'), "
                         f"got {p.label_rule!r}")
    if p.vocabulary is not None:
        from ..step.vocabulary import vocabulary as make_vocabulary
        voc = make_vocabulary(p.vocabulary)
        _set(p, "vocabulary", None if voc.is_uniform else voc)
    if p.loss_kind == "convex":
        from .channels.losses import loss as make_loss
        make_loss(p.loss)
    _set(p, "_key", (p.readout, p.loss_kind, p.bulk_kind, p.precision, p.target,
                     p.step_kind))


def _multi_index(teacher) -> bool:
    """A multi-index target (text in ``z1..zk`` or the object; docs/theory.md (n))."""
    if isinstance(teacher, str):
        return _multi_index_text(teacher)
    from ..symbolic.targets import MultiIndexTarget
    return isinstance(teacher, MultiIndexTarget)


@lru_cache(maxsize=1024)
def _multi_index_text(text: str) -> bool:
    from ..symbolic.targets import is_multi_index
    return is_multi_index(text)


def _validate_steps(p: Problem):
    """``steps`` an integer >= 1; several steps need the step itself (``alpha0 > 0``, ``eta``)
    and the full residual (the T-step map has no uncorrected variant)."""
    T = p.steps
    if isinstance(T, float) and T.is_integer():
        T = int(T)
    if isinstance(T, (bool, np.bool_)) or not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"steps (the number of giant steps) must be an integer >= 1, got "
                         f"{p.steps!r}")
    _set(p, "steps", int(T))
    if T == 1:
        return
    if p.alpha0 is None:
        raise ValueError(f"steps = {T}: several steps are taken by the network, give the step "
                         "as (alpha0, eta), not (r, c, gamma) (docs/theory.md (p))")
    if not real_scalar("alpha0", p.alpha0, allow_str=True) > 0:
        raise ValueError(f"steps = {T} needs alpha0 > 0 (n0 = alpha0 d fresh samples per "
                         f"step), got {p.alpha0!r}")
    if not p.mu0_correction:
        raise ValueError(f"steps = {T}: the T-step map uses the full residual y - f_(t-1)(x) "
                         "(docs/theory.md (p.2)); mu0_correction=False has no several-step "
                         "counterpart")


def _validate_bulk(p: Problem):
    if p.bulk not in BULKS:
        raise ValueError(f"bulk must be one of {BULKS}, got {p.bulk!r}")
    if p.bulk == "isotropic":
        if isinstance(p.spectrum, str) and p.spectrum not in ("mp", "sample"):
            raise ValueError(f"unknown spectrum {p.spectrum!r}: use 'mp' or 'sample'")
        return
    own = ("the realised first layer" if p.bulk == "step" else
           "the exact law of the step's bulk, docs/theory.md (g.5)")
    if not (isinstance(p.spectrum, str) and p.spectrum == "mp"):
        raise ValueError(f"bulk={p.bulk!r} is its own spectral back end ({own}): "
                         f"leave spectrum at 'mp', got {p.spectrum!r}")
    if p.alpha0 is None:
        raise ValueError(f"bulk={p.bulk!r} is the bulk of a step: give alpha0 and eta")
    if p.bulk == "exact":
        if p.dps is not None:
            raise ValueError("bulk='exact' is solved in double precision only (its law comes "
                             "from a numerical fixed point): drop dps")
        if p.d is not None:
            raise ValueError("bulk='exact' is the d -> infinity law: it takes no d (use "
                             "bulk='step' for a first layer realised at dimension d)")
        if not real_scalar("alpha0", p.alpha0, allow_str=True) > 0:
            raise ValueError(f"bulk='exact' needs a step with alpha0 > 0, got {p.alpha0!r}: at "
                             "alpha0 = 0 the bulk is the isotropic one (use bulk='isotropic')")
        return
    if p.d is None:
        raise ValueError("bulk='step' needs the dimension d of the realised first layer")
    _set(p, "d", _dimension(p.d))


def _dimension(d):
    d = scalar_like("d", d)
    if isinstance(d, float) and d.is_integer():
        d = int(d)
    return d
