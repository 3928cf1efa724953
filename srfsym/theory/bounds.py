r"""Upper and lower bounds on the test error at every alignment gamma, the spike-only
projections, and the kernel baseline (docs/theory.md (i), (l.4)).

The predictor of the fixed point is, conditionally on kappa (docs/theory.md (f)),
``b(kappa) + mu1(kappa) psi z + noise`` with ``b = m mu0(kappa) + theta kappa mu1(kappa)``,
where z is the teacher's direction orthogonal to the spike.  Its test error is at least the
squared L2 distance of the teacher ``sigma_star(gamma kappa + rho z)`` to the span of the
three functions ``mu0(kappa)``, ``kappa mu1(kappa)`` and ``z mu1(kappa)`` (``rho = sqrt(1 -
gamma^2)``).  The span is block-diagonal in L2(kappa, z), so with the teacher functions
``h = E_z sigma_star``, ``h1 = E_z[z sigma_star]`` of docs/theory.md (e):

* **upper bound** ``U = mu2* - (E h mu0)^2 / E mu0^2``: the error of the readout reduced to the
  mean direction, the lambda -> infinity limit of the fixed point (m is not regularised).
  An upper bound on ``inf_lambda eps_g`` at every gamma;
* **lower bound** ``L = mu2* - u^T Gamma^+ u - (E h1 mu1)^2 / E mu1^2`` with ``u = (E h mu0,
  E h kappa mu1)`` and Gamma the Gram matrix of ``{mu0, kappa mu1}``: a lower bound on the
  test error for every lambda, alpha and every gamma in [-1, 1] (docs/theory.md (l.4));
  at gamma = 1, ``h1 = 0`` and it is the bound of docs/theory.md (i);
* **spike-only projections** (:func:`spike_projections`): the distances of ``h`` to
  ``span{mu0}`` and to ``span{mu0, kappa mu1}``.  They ignore what the bulk learns of the
  teacher's orthogonal part; at gamma < 1 the second is *not* a lower bound;
* **kernel baseline** ``E sigma_star^2 - (mu1*)^2 - (mu0*)^2``: the best linear predictor.

All projections go through one least-squares routine, :func:`_project`, that runs on
double-precision or mpmath channel data alike and drops directions of a singular Gram matrix
(e.g. ``mu0 = 0`` at r = 0).

>>> b = bounds("tanh", "sin", r=1.13, c=1.02)
>>> b.lower <= b.upper
True
>>> round(b.kernel, 12)   # = mu_star^2(sin) = (1 - e^-2)/2 - e^-1
0.06445291721
"""
from __future__ import annotations

import decimal
import math
from dataclasses import dataclass, field
from functools import lru_cache

import mpmath
import numpy as np

from ..core.precision import workdps
from .channels.kappa_quadrature import group_channel_data, transition_cuts
from ..symbolic.activations import activation
from ..step.vocabulary import vocabulary as make_vocabulary
from ..symbolic.hermite import hermite_constants
from ..step.mapping import mapping_along_eta
from ..core.values import check_dps, MAX_SOLVER_DPS

__all__ = ["Bounds", "bounds", "SpikeProjections", "spike_projections", "OptimalBounds",
           "optimal_learning_rate_bounds", "OUTPUT_NAMES"]

#: The names of the bounds in every output (the command line's rows, the sweep table, the
#: reference values): ``Bounds.upper`` is ``upper_bound``, and so on.
OUTPUT_NAMES = {"upper": "upper_bound", "lower": "lower_bound", "kernel": "kernel_baseline"}


@dataclass
class Bounds:
    """Upper and lower bound (valid at the given gamma), kernel baseline, and the optimal
    coefficients of the projections.

    ``b_upper`` is the mean-direction coefficient ``b*`` of U; ``b_lower`` the coefficients
    of L on ``(mu0, kappa mu1, z mu1)``.  ``spike_span`` is the spike-only projection
    (not a bound at gamma < 1, see :func:`spike_projections`).
    """

    upper: float
    lower: float
    kernel: float
    b_upper: float
    b_lower: tuple
    spike_span: float
    r: float
    c: float
    gamma: float
    nodes: int
    node_error: float | None
    precision: str = "double"
    mp_values: dict | None = None
    vocabulary: object = None
    notes: list = field(default_factory=list)
    bias: bool = False

    def to_dict(self, dps: int = 30) -> dict:
        """JSON-ready dict; with mpmath values, each float is the decimal value rounded.
        With a vocabulary, the per-group values are lists."""
        out = {"upper": self.upper, "lower": self.lower, "kernel": self.kernel,
               "b_upper": (self.b_upper if isinstance(self.b_upper, float)
                           else list(self.b_upper)), "b_lower": list(self.b_lower),
               "spike_span_projection": self.spike_span, "r": self.r, "c": self.c,
               "gamma": self.gamma, "kappa_nodes": self.nodes,
               "kappa_node_error": self.node_error, "precision": self.precision,
               "notes": list(self.notes), "bias": self.bias}
        if self.mp_values:
            out["decimal"] = {k: mpmath.nstr(v, dps) for k, v in self.mp_values.items()}
        if self.vocabulary is not None and not self.vocabulary.is_uniform:
            out["vocabulary"] = self.vocabulary.to_dict()
            out["r_groups"] = list(self.vocabulary.group_spike_strengths(self.r))
            out["c_groups"] = list(self.vocabulary.group_bulk_variances(self.c))
        return out

    def __str__(self):
        voc = ("" if self.vocabulary is None or self.vocabulary.is_uniform
               else f" with the {self.vocabulary}")
        return (f"bounds{voc} at r = {self.r:.6g}, c = {self.c:.6g}, gamma = {self.gamma:.6g}: "
                f"lower = {self.lower:.10g}, upper = {self.upper:.10g}, "
                f"kernel baseline = {self.kernel:.10g}  [{self.precision}, {self.nodes} kappa nodes"
                + ("" if self.node_error is None else
                   f", last node change {self.node_error:.1e}") + "]")


@dataclass
class SpikeProjections:
    """Distances of the teacher's spike part ``h(kappa)`` to ``span{mu0}``
    (``mean_direction``, equal to the upper bound) and to ``span{mu0, kappa mu1}``
    (``spike_span``).  ``spike_span`` bounds the test error from below only at gamma = 1."""

    mean_direction: float
    spike_span: float
    r: float
    c: float
    gamma: float


def _project(gram, u, keep):
    """Least-squares coefficients ``G_K^+ u_K`` for the basis subset ``keep``.

    The pseudo-inverse drops the eigen-directions of the Gram matrix that are zero up to
    rounding (a basis function that vanishes identically, or two that coincide, as for a
    symmetric vocabulary), so the result is the projection on the span actually spanned.
    Works on floats and on mpmath numbers.
    """
    G = [[gram[i][j] for j in keep] for i in keep]
    v = [u[i] for i in keep]
    zero = 0 * u[0]
    mp = isinstance(zero, mpmath.mpf)
    if mp:
        lam, Q = mpmath.eigsy(mpmath.matrix(G))
        lam = [lam[i] for i in range(len(keep))]
        Q = [[Q[i, j] for j in range(len(keep))] for i in range(len(keep))]
        rtol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 6))
    else:
        lam, Q = np.linalg.eigh(np.array(G, dtype=float))
        Q = Q.tolist()
        rtol = 1e-14
    top = max(abs(x) for x in lam)
    cut = max(rtol * top, 1e-300 if not mp else mpmath.mpf(10) ** (-mpmath.mp.dps * 3))
    coef = [zero for _ in keep]
    for k, ev in enumerate(lam):
        if ev <= cut:
            continue
        a = sum(Q[i][k] * v[i] for i in range(len(keep))) / ev
        for i in range(len(keep)):
            coef[i] += a * Q[i][k]
    return coef


def _all_projections(ch, bias=False):
    """(upper, lower, spike_span, b_upper, b_lower) from (group) channel data.

    With ``bias`` (a trained output bias, docs/theory.md (m)) the constant function joins
    the functions of kappa of both spans (after them: ``b_upper`` has K + 1 entries,
    ``b_lower`` 3K + 1, the constant's coefficient last).

    The basis is ``mu0^(j)`` (j = 1..K), then ``kappa mu1^(j)``, then the ``z mu1^(j)``
    directions (docs/theory.md (k.3)); for the uniform readout (K = 1) these are the three
    functions ``mu0, kappa mu1, z mu1``.  ``b_upper`` has K entries, ``b_lower`` 3K.

    Each distance is evaluated as the mean square of the residual functions,
    ``E[h2 - h^2 - h1^2] + E[(h - sum b f)^2] + E[(h1 - sum b' mu1)^2]``, not as
    ``E h2 - u^T G^+ u``: the latter loses every digit below ``1e-16 E h2`` to
    cancellation, the former keeps tiny bounds (1e-10 with a vocabulary) to relative
    accuracy (the coefficients enter only at second order)."""
    E = ch.E
    groups = ch.groups
    K = len(groups)
    kappa = groups[0].kappa
    mu0 = [g.mu0 for g in groups]
    kmu1 = [[k * m for k, m in zip(kappa, g.mu1)] for g in groups]
    mu1 = [g.mu1 for g in groups]
    basis = mu0 + kmu1 + ([[1 + 0 * k for k in kappa]] if bias else [])
    h, h1, h2 = groups[0].h, groups[0].h1, groups[0].h2
    gram = [[E([a * b for a, b in zip(f, g)]) for g in basis] for f in basis]
    u = [E([a * g for a, g in zip(f, h)]) for f in basis]
    # the z mu1^(j)(kappa) directions: orthogonal to every function of kappa,
    # E_z[z sigma*] = h1
    zgram = [[E([a * b for a, b in zip(f, g)]) for g in mu1] for f in mu1]
    zu = [E([a * m for a, m in zip(h1, f)]) for f in mu1]
    # the part of the teacher no readout reaches: E_z-variance beyond the z-linear part
    beyond = E([c2 - a * a - b * b for c2, a, b in zip(h2, h, h1)])
    zero = 0 * beyond

    def combination(coef, funcs):
        if ch.precision == "double":
            return sum((b * np.asarray(f) for b, f in zip(coef, funcs)), np.zeros(len(h)))
        return [sum((b * f[i] for b, f in zip(coef, funcs)), zero) for i in range(len(h))]

    def distance(coef_k, coef_z):
        fit, zfit = combination(coef_k, basis), combination(coef_z, mu1)
        return (beyond + E([(a - b) ** 2 for a, b in zip(h, fit)])
                + E([(a - b) ** 2 for a, b in zip(h1, zfit)]))

    const = [2 * K] if bias else []
    b_up = _project(gram, u, list(range(K)) + const)
    b_span = _project(gram, u, list(range(2 * K)) + const)
    b_z = _project(zgram, zu, list(range(K)))
    full_up = b_up[:K] + [zero] * K + b_up[K:]      # on the whole basis, for `distance`
    upper = distance(full_up, [])
    span = distance(b_span, [])
    lower = distance(b_span, b_z)
    b_low = b_span[:2 * K] + b_z + b_span[2 * K:]
    return upper, lower, span, tuple(b_up), tuple(b_low)


def _tidy(x, ceiling=None):
    """Clamp rounding: a bound that vanishes comes out as +-1e-17; a projection on a larger
    span is never above ``ceiling`` (equal up to rounding at worst)."""
    if ceiling is not None and x > ceiling:
        x = ceiling
    if x < 0:   # a squared distance: negative only by rounding (noted by the caller)
        x = 0 * x
    return x


def _kernel(teacher, dps=None):
    """Best linear error E s*^2 - mu1*^2 - mu0*^2: the teacher's energy above degree 1,
    i.e. its mu_star^2 (docs/theory.md (b), (i))."""
    mustar2 = hermite_constants(teacher).mustar2
    return float(mustar2) if dps is None else mustar2.mpmath(dps + 5)


#: kappa node counts of the double-precision ladder (Gauss-Hermite), and nodes per piece
#: when the rule is cut at the student's transitions (:func:`~srfsym.theory.channels.kappa_quadrature.transition_cuts`)
_LADDER = (60, 90, 135, 200, 300, 450, 675, 1000)
_PIECE_LADDER = (16, 24, 36, 54, 80, 120)
#: the double-precision result is converged when two node counts agree to this; a result
#: whose last node change is above _REFUSE is refused (its digits are contradicted)
_CONVERGED, _REFUSE = 1e-13, 1e-10


def _rule(student, teacher, r, c, gamma, voc):
    """The extra kappa cuts for this point and the node ladder that goes with them."""
    cuts = transition_cuts(student, voc.group_spike_strengths(float(r)),
                           voc.group_bulk_variances(float(c)))
    if not cuts:
        return cuts, _LADDER
    pieces = len(cuts) + 1 + 2 * len(activation(student).kinks) + 2
    return cuts, tuple(per * pieces for per in _PIECE_LADDER)


def _not_converged(what, K, err, hint):
    from .fixed_point import ConvergenceError
    return ConvergenceError(
        f"bounds{what}: the kappa quadrature did not converge, two node counts ({K} nodes and "
        f"the count before) still differ by {err:.1e}; {hint}")


def _double(student, teacher, r, c, gamma, nodes, voc, bias=False):
    """Projections in double precision, up the node ladder until two counts agree to 1e-13.

    The rule is cut at the student's transitions when r is large (the coefficients become
    steps, docs/theory.md (i)); a ladder that ends with two counts still differing by more than
    1e-10 raises :class:`~srfsym.theory.fixed_point.ConvergenceError` rather than print
    digits the last node change contradicts (between 1e-13 and 1e-10 a note says so)."""
    cuts, ladder = _rule(student, teacher, r, c, gamma, voc)
    node_error, notes = None, []
    if nodes == "auto":
        prev, size = None, None
        for K in ladder:
            ch = group_channel_data(student, teacher, r, c, gamma, voc, nodes=K,
                                    extra_cuts=cuts)
            if len(ch.kappa) == size:   # the same rule (pieces at their minimum count)
                continue
            size = len(ch.kappa)
            cur = _all_projections(ch, bias)
            if prev is not None:
                node_error = float(max(abs(a - b) for a, b in zip(cur[:3], prev[:3])))
                if node_error < _CONVERGED:
                    break
            prev = cur
        else:
            if not node_error < _REFUSE:
                raise _not_converged("", K, node_error,
                                     "try dps=30 (mpmath) or report this point")
            notes.append(f"kappa quadrature converged to {node_error:.0e} only (target "
                         f"{_CONVERGED:.0e}, {K} nodes)")
    else:
        K = int(nodes)
        cur = _all_projections(group_channel_data(student, teacher, r, c, gamma, voc, nodes=K,
                                                  extra_cuts=cuts), bias)
    return cur, K, node_error, notes


def _mpmath(student, teacher, r, c, gamma, dps, voc, bias=False):
    """Projections at ``dps`` digits; kappa nodes raised until two counts agree to
    ``dps - 3`` digits (about 2000 nodes at most, then ConvergenceError)."""
    cuts, _ = _rule(student, teacher, r, c, gamma, voc)
    pieces = len(cuts) + 1 + 2 * len(activation(student).kinks) + 2 if cuts else 1
    prev, size = None, None
    K = max(60, 2 * dps, 16 * pieces)
    tol = mpmath.mpf(10) ** (-(dps - 3))
    while True:
        ch = group_channel_data(student, teacher, str(r), str(c), str(gamma), voc, nodes=K,
                                dps=dps, extra_cuts=cuts)
        if len(ch.kappa) == size:   # the same rule: a larger count must change the nodes,
            K = int(K * 1.5)        # else two equal sums pass for convergence
            continue
        size = len(ch.kappa)
        with workdps(dps + 10):
            cur = _all_projections(ch, bias)
        if prev is not None:
            err = max(abs(a - b) for a, b in zip(cur[:3], prev[:3]))
            if err < tol:
                return cur, K, err
            if K > 2000:
                raise _not_converged(f" at {dps} digits", K, float(err),
                                     "the double-precision result (no dps) may still be "
                                     "available")
        prev = cur
        K = int(K * 1.5)


def bounds(student, teacher, r, c, gamma=1.0, dps=None, nodes="auto", *,
           vocabulary=None, bias=False) -> Bounds:
    """Upper and lower bounds on the test error and the kernel baseline at sRF parameters
    (r, c, gamma); both bounds hold at every gamma (docs/theory.md (l.4)).

    Parameters
    ----------
    student, teacher : str or Activation
    r, c, gamma : float
        Spike strength, bulk variance (> 0), alignment in [-1, 1].
    dps : int or None
        Also compute at ``dps`` digits with mpmath (Gauss-Hermite nodes at that precision;
        the node count is raised until two counts agree to ``dps - 3`` digits).  The float
        fields are then the ``dps``-digit values rounded to double.
    nodes : int or "auto"
        kappa nodes for the double-precision result ("auto": converge to 1e-13).
    vocabulary : None, list of letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout vocabulary (docs/theory.md (k.3)): the bounds project on the span of every
        group's ``mu0^(j)``, ``kappa mu1^(j)`` (and ``z mu1^(j)``), group j having spike
        ``r omega_j`` and bulk variance ``1 + omega_j^2 (c - 1)``.  They do not depend on
        the weights.  ``None`` is the uniform readout.
    bias : bool
        A trained (unpenalised) output bias: the constant function joins both spans (the
        paper's eq. (132); docs/theory.md (m)), so both bounds can only go down.
        ``b_upper`` is then a tuple ending with the constant's coefficient, and so is
        ``b_lower``.

    Examples
    --------
    >>> b = bounds("sign", "sign", r=5.0, c=1.0)
    >>> round(b.upper, 10), b.lower <= b.upper, b.node_error < 1e-13
    (0.0709747694, True, True)

    At gamma < 1 the bulk learns part of the teacher's orthogonal direction: the lower bound
    lies below the spike-only projection.

    >>> b = bounds("sin", "sin", r=0.8, c=1.1, gamma=0.8)
    >>> b.lower < b.spike_span <= b.upper
    True

    Two letters give the readout a second mean direction (tanh student, sin target):

    >>> u, v = (bounds("tanh", "sin", 1.13406, 1.018973, vocabulary=w) for w in ([1], [1, 2]))
    >>> round(u.upper, 5), round(v.upper, 5), round(v.lower, 5)
    (0.02026, 0.00895, 0.00049)

    A trained bias adds the constant function (it matters when mu0 is not constant-free,
    e.g. an unbalanced target):

    >>> a, b = (bounds("relu", "relu", 1.0, 1.2, 0.9, bias=t) for t in (False, True))
    >>> b.upper <= a.upper and b.lower <= a.lower, len(b.b_upper)
    (True, 2)
    """
    if dps is not None:
        check_dps(dps, MAX_SOLVER_DPS)
    # Decimal parameters as decimal text (exact in the mpmath path, like solve accepts them)
    r, c, gamma = (str(v) if isinstance(v, decimal.Decimal) else v for v in (r, c, gamma))
    voc = make_vocabulary(vocabulary)
    (upper, lower, span, b_up, b_low), K, node_error, notes = _double(student, teacher, r, c,
                                                                      gamma, nodes, voc,
                                                                      bool(bias))
    notes += [f"the {name} projection came out at {float(v):.1e} < 0: it is zero to within "
             "double-precision rounding (use dps for its value)"
             for name, v in (("upper", upper), ("lower", lower)) if v <= -1e-12]
    upper = _tidy(upper)
    span = _tidy(span, upper)
    lower = _tidy(lower, span)
    b_up = float(b_up[0]) if len(b_up) == 1 else tuple(float(b) for b in b_up)
    out = Bounds(float(upper), float(lower), _kernel(teacher), b_up,
                 tuple(float(b) for b in b_low), float(span), float(r), float(c),
                 float(gamma), K, node_error, vocabulary=voc, notes=notes, bias=bool(bias))
    if dps is not None:
        (upper, lower, span, _, _), K, err = _mpmath(student, teacher, r, c, gamma, dps, voc,
                                                     bool(bias))
        with workdps(dps):
            upper = _tidy(+upper)
            span = _tidy(+span, upper)
            mp_values = {"upper": upper, "lower": _tidy(+lower, span),
                         "spike_span_projection": span, "kernel": +_kernel(teacher, dps)}
        out.mp_values = mp_values
        out.upper, out.lower, out.spike_span, out.kernel = (
            float(mp_values[k]) for k in ("upper", "lower", "spike_span_projection", "kernel"))
        out.precision = f"mpmath:{dps}"
        out.notes = []
        out.nodes, out.node_error = K, float(err)
    return out


def spike_projections(student, teacher, r, c, gamma=1.0, nodes="auto") -> SpikeProjections:
    """The spike-only projections of the teacher at sRF parameters (r, c, gamma).

    ``mean_direction`` is the distance of ``h(kappa)`` to ``span{mu0}`` (the upper bound);
    ``spike_span`` the distance to ``span{mu0, kappa mu1}``, which ignores the teacher's
    direction orthogonal to the spike.  At gamma = 1 it is the lower bound; at gamma < 1 it
    is *not* a bound (the bulk learns the linear part of the orthogonal direction).

    >>> p = spike_projections("tanh", "tanh", r=0.65109, c=1.076906, gamma=0.56349)
    >>> b = bounds("tanh", "tanh", r=0.65109, c=1.076906, gamma=0.56349)
    >>> p.spike_span == b.spike_span and b.lower < p.spike_span
    True
    """
    b = bounds(student, teacher, r, c, gamma, nodes=nodes)
    return SpikeProjections(b.upper, b.spike_span, b.r, b.c, b.gamma)


@dataclass
class OptimalBounds:
    """Bounds minimised over the learning rate eta at a fixed alpha0.

    ``lower <= inf over (eta, lambda) of the test error <= upper`` at this alpha0 (and
    ``lower`` bounds the test error at every eta, lambda and alpha).  ``at_upper`` and
    ``at_lower`` are the full :class:`Bounds` at the two optimal learning rates.
    """

    alpha0: float
    upper: float
    eta_upper: float
    lower: float
    eta_lower: float
    at_upper: Bounds
    at_lower: Bounds
    notes: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"alpha0": self.alpha0, "upper": self.upper, "eta_upper": self.eta_upper,
                "lower": self.lower, "eta_lower": self.eta_lower,
                "r_upper": self.at_upper.r, "c_upper": self.at_upper.c,
                "r_lower": self.at_lower.r, "c_lower": self.at_lower.c,
                "gamma": self.at_upper.gamma, "kernel": self.at_upper.kernel,
                **({"vocabulary": self.at_upper.vocabulary.to_dict()}
                   if self.at_upper.vocabulary is not None
                   and not self.at_upper.vocabulary.is_uniform else {}),
                "notes": list(self.notes)}

    def __str__(self):
        voc = self.at_upper.vocabulary
        return (f"learning-rate-optimised bounds at alpha0 = {self.alpha0:g} "
                + ("" if voc is None or voc.is_uniform else f"with the {voc} ")
                + 
                f"(gamma = {self.at_upper.gamma:.6g}): "
                f"lower = {self.lower:.10g} (eta = {self.eta_lower:.8g}), "
                f"upper = {self.upper:.10g} (eta = {self.eta_upper:.8g})")


def optimal_learning_rate_bounds(student, teacher, alpha0=math.inf, eta_max=20.0, *,
                                 grid="auto", mu0_correction=True, xtol=1e-9,
                                 vocabulary=None, gamma=None, dps=None) -> OptimalBounds:
    """Minimise the upper and the lower bound over the learning rate eta in (0, eta_max].

    For each eta the mapping gives (r, c, gamma) at ``alpha0`` (``inf``: gamma = 1, c = 1);
    the bounds are those valid at that gamma (docs/theory.md (l.1), (l.4)).  A grid of
    ``grid`` points locates the local minima, bounded Brent refines each to ``xtol`` in eta
    and the deepest is kept.  ``grid="auto"`` is 48 points for the uniform readout; with a
    vocabulary the bounds have several narrow minima (width about 0.05 in eta, where the
    group functions fit the target), so the grid spacing is at most 0.04.

    ``gamma`` fixes the alignment instead of taking the mapping's (``gamma=1`` with a finite
    ``alpha0`` is the setting of the papers' optimised bounds, docs/theory.md (l.2)).
    ``dps`` recomputes the two optimal values at that precision (the optimisation itself
    runs in double): needed when a bound is near the double-precision resolution (about
    1e-11 for the lower bound with a vocabulary).

    For sigma = sigma_star = erf the upper bound vanishes at a finite learning rate: with
    alpha0 = oo, mu0(kappa) = erf(r kappa / sqrt(3)) is proportional to the target when
    r = eta mu1^2 = sqrt(3).

    >>> opt = optimal_learning_rate_bounds("erf", "erf")
    >>> round(opt.eta_upper, 4), opt.upper < 1e-12
    (4.081, True)
    >>> import math; round(math.sqrt(3) * 3 * math.pi / 4, 4)   # sqrt(3) / mu1^2
    4.081

    With a readout vocabulary (docs/theory.md (l.5)) letter ``omega_j`` gets the spike
    ``omega_j r``; two letters lower the optimised upper bound of tanh/sin by orders of
    magnitude:

    >>> one = optimal_learning_rate_bounds("tanh", "sin", eta_max=10)
    >>> two = optimal_learning_rate_bounds("tanh", "sin", eta_max=4, vocabulary=[1, 2])
    >>> f"{one.upper:.2e}", f"{two.upper:.2e}"
    ('8.40e-03', '1.65e-05')
    """
    from scipy.optimize import minimize_scalar

    if not (isinstance(eta_max, (int, float)) and math.isfinite(eta_max) and eta_max > 0):
        raise ValueError(f"eta_max must be a positive finite number, got {eta_max!r}")

    voc = make_vocabulary(vocabulary)
    if grid == "auto":
        grid = 48 if voc.K == 1 else max(48, math.ceil(eta_max / 0.04))
    if isinstance(grid, bool) or not isinstance(grid, (int, np.integer)) or grid < 3:
        raise ValueError(f"grid must be an integer >= 3 or 'auto', got {grid!r}")
    along = mapping_along_eta(student, teacher, alpha0, mu0_correction=mu0_correction)

    if gamma is not None:
        from .channels.kappa_quadrature import validate_srf_parameters
        validate_srf_parameters(0.0, 1.0, gamma)

    @lru_cache(maxsize=None)
    def at(eta, dps=None, nodes=135):
        r, c, g = (float(v) for v in along(eta))
        g = g if gamma is None else float(gamma)
        return bounds(student, teacher, r, c, g, nodes=nodes, vocabulary=voc, dps=dps)

    etas = np.linspace(eta_max / grid, eta_max, grid)
    found, notes = {}, []
    for key in ("upper", "lower"):
        vals = [getattr(at(float(e)), key) for e in etas]
        # every local minimum of the grid is refined (with a vocabulary the bounds have
        # several, and the deepest on the grid need not be the deepest one)
        local = [i for i in range(grid) if vals[i] <= vals[max(i - 1, 0)]
                 and vals[i] <= vals[min(i + 1, grid - 1)]]
        best = None
        for i in local:
            lo, hi = etas[max(i - 1, 0)], etas[min(i + 1, grid - 1)]
            res = minimize_scalar(lambda e: getattr(at(float(e)), key), bounds=(lo, hi),
                                  method="bounded", options={"xatol": xtol})
            cand = (float(res.x), float(res.fun)) if res.fun <= vals[i] else (etas[i], vals[i])
            if best is None or cand[1] < best[1]:
                best = cand
        if best[0] >= etas[-2]:
            notes.append(f"the {key} bound is smallest at eta_max = {eta_max:g}: "
                         "the minimum may lie beyond it (raise eta_max)")
        found[key] = (float(best[0]), best[1])
    # L <= U at every eta, so L* <= U*: the lower bound at the upper optimum is a candidate
    # too (the two minimisations stop at different rounding levels)
    if at(found["upper"][0]).lower < found["lower"][1]:
        found["lower"] = (found["upper"][0], at(found["upper"][0]).lower)
    if dps is not None:
        check_dps(dps, MAX_SOLVER_DPS)
        at_up, at_low = at(found["upper"][0], dps), at(found["lower"][0], dps)
        found = {"upper": (found["upper"][0], at_up.upper),
                 "lower": (found["lower"][0], min(at_low.lower, at_up.lower))}
        notes.append(f"optimal learning rates found in double precision; the bounds at them "
                     f"computed at {dps} digits")
    else:   # the search runs on 135 nodes; the values reported are converged in the nodes
        at_up, at_low = (at(found[k][0], None, "auto") for k in ("upper", "lower"))
        found = {"upper": (found["upper"][0], at_up.upper),
                 "lower": (found["lower"][0], min(at_low.lower, at_up.lower))}
    notes.extend(at_up.notes + [n for n in at_low.notes if n not in at_up.notes])
    return OptimalBounds(float(alpha0), found["upper"][1], found["upper"][0], found["lower"][1],
                         found["lower"][0], at_up, at_low, notes)
