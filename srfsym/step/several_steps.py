r"""The T-step map (docs/theory.md (p)): what T giant steps on fresh batches do to the first layer.

State after step t, per readout letter ``omega`` (weight ``pi_omega``): the *spike vector*
``m_omega`` (coordinates in an orthonormal basis of the low-dimensional subspace ``S_t`` spanned
by the target directions ``theta_1..theta_k`` and the noise directions the earlier steps
added) and the *bulk variance* ``c_omega`` (squared norm of a row orthogonal to ``S_t``).  A
neuron of letter omega has the pre-activation ``h = b + m_omega . zeta`` on a fresh input, with
``zeta = P_S x ~ N(0, I)`` and ``b ~ N(0, c_omega)`` independent; the network output is
``f(zeta) = sum_omega pi_omega omega S0(m_omega . zeta; c_omega)`` with the smoothed activation
``S0(u; c) = E sigma(u + sqrt(c) xi)``.  With the residual ``e = g(z) - f(zeta)`` one step gives
(Stein's lemma in ``b`` and in ``zeta``; the rules are :func:`step_rule_expressions`):

* spike: ``m_omega <- m_omega + eta omega E[e S1(u_omega) zeta]``, plus ``eta omega L_omega``
  along new noise directions with ``L L^T = E[G_omega G_omega'] / alpha0``,
  ``G_omega = e S1(u_omega)`` (the batch fluctuation shared by a letter's neurons);
* bulk: ``c_omega <- (1 + eta omega E[e S2(u_omega)])^2 c_omega
  + eta^2 omega^2 (E[e^2 S1sq(u_omega)] - E[G_omega^2]) / alpha0`` (row rescaling along the
  neuron's own weight, then the neuron-specific batch fluctuation),

with ``S1 = E sigma'``, ``S1sq = E sigma'^2``, ``S2 = E sigma''`` smoothed the same way.  At
T = 1 this is the one-step mapping of :mod:`srfsym.step.mapping` (docs/theory.md (c), (k.1)).

The smoothed functions are closed forms where :func:`~srfsym.symbolic.gaussian.gaussian_expectation`
finds them (relu, erf...), else 1-D quadrature tabulated on a fine grid and interpolated
(tanh); the expectations over ``zeta`` are tensor Gauss-Hermite rules on the span of the
target directions and the spike vectors, and :attr:`SeveralStepsMap.node_error` is the
largest change of the spikes' Gram matrix, their target components or the bulk variances when
the rule loses 4 nodes per dimension.

>>> m = several_steps("tanh", "sin", eta=3, alpha0=20, steps=1)
>>> s = m.states[1]
>>> round(float(s.spike_norms[0]), 5), round(float(s.bulk_variances[0]), 6)
(1.13406, 1.018973)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import sympy as sp

__all__ = ["several_steps", "SeveralStepsMap", "StepState", "step_rule_expressions",
           "smoothed_functions"]

ETA = sp.Symbol("eta", nonnegative=True)
ALPHA0 = sp.Symbol("alpha0", positive=True)
OMEGA = sp.Symbol("omega", real=True, nonzero=True)
#: A spike coordinate, the bulk variance, and the expectations a step needs.
M_J, C_OLD = sp.Symbol("m_j", real=True), sp.Symbol("c", positive=True)
E_GRAD_J = sp.Symbol("E_eS1zeta_j", real=True)      # E[e S1(u) zeta_j]
E_STEIN = sp.Symbol("E_eS2", real=True)             # E[e S2(u)]
E_SQ = sp.Symbol("E_e2S1sq", nonnegative=True)      # E[e^2 S1sq(u)]
E_SHARED = sp.Symbol("E_G2", nonnegative=True)      # E[G^2], G = e S1(u)
L_J = sp.Symbol("L_j", real=True)                   # a row of the Cholesky-like factor of E[G G']/alpha0

#: Largest number of tensor Gauss-Hermite points of one expectation.
MAX_POINTS = 400_000
#: Relative eigenvalue below which a noise direction of a step is dropped (rank deficiency).
RANK_TOL = 1e-9
#: Points of the grid on which a numeric smoothed function is tabulated.
GRID_POINTS = 4001


@lru_cache(maxsize=1)
def step_rule_expressions() -> dict:
    """The step's update rules for one letter as SymPy expressions in generic symbols.

    >>> e = step_rule_expressions()
    >>> e["spike"], e["noise"]
    (E_eS1zeta_j*eta*omega + m_j, L_j*eta*omega)
    >>> e["bulk_variance"]
    c*(E_eS2*eta*omega + 1)**2 + eta**2*omega**2*(-E_G2 + E_e2S1sq)/alpha0
    """
    return {"spike": M_J + ETA * OMEGA * E_GRAD_J,
            "noise": ETA * OMEGA * L_J,
            "bulk_variance": (1 + ETA * OMEGA * E_STEIN)**2 * C_OLD
            + ETA**2 * OMEGA**2 * (E_SQ - E_SHARED) / ALPHA0}


@lru_cache(maxsize=1)
def _rules():
    e = step_rule_expressions()
    return {"spike": sp.lambdify([M_J, ETA, OMEGA, E_GRAD_J], e["spike"], modules="numpy"),
            "noise": sp.lambdify([ETA, OMEGA, L_J], e["noise"], modules="numpy"),
            "bulk_variance": sp.lambdify([C_OLD, ETA, OMEGA, E_STEIN, E_SQ, E_SHARED, ALPHA0],
                                         e["bulk_variance"], modules="numpy", cse=True)}


@lru_cache(maxsize=32)
def smoothed_functions(student) -> dict:
    """``S0, S1, S1sq, S2`` of a student: Gaussian expectations ``E f(u + s xi)`` of sigma,
    sigma', sigma'^2 and (Stein) ``E[xi sigma'(u + s xi)] / s = E sigma''(u + s xi)``, as
    :class:`~srfsym.symbolic.gaussian.Expectation` objects (exact or numeric).

    >>> f = smoothed_functions("relu")
    >>> f["S1"].expr, f["S1"].method
    ((erf(sqrt(2)*a/(2*s)) + 1)/2, 'exact')
    """
    from ..symbolic.activations import activation
    from ..symbolic.gaussian import gaussian_expectation
    act = activation(student)
    if act.has_dirac_derivative:
        raise ValueError(f"student {act.name!r} has a Dirac mass in sigma': it cannot take a "
                         "giant step")
    d1 = act.derivative
    return {"S0": gaussian_expectation(act.expr), "S1": gaussian_expectation(d1),
            "S1sq": gaussian_expectation(sp.expand(d1**2)),
            "S2_times_s": gaussian_expectation(d1, 1)}


def _evaluator(expectation, c: float, divide_by_s: bool = False):
    """``u -> E f(u + sqrt(c) xi)`` (divided by sqrt(c) for the Stein form): the closed form,
    or quadrature tabulated on :data:`GRID_POINTS` points and interpolated (cubic)."""
    s = math.sqrt(c)
    scale = 1 / s if divide_by_s else 1.0
    if expectation.is_exact:
        return lambda u: scale * expectation.numpy(u, np.full_like(u, s))

    def tabulated(u):
        from scipy.interpolate import CubicSpline
        lo, hi = float(u.min()) - 1e-9, float(u.max()) + 1e-9
        grid = np.linspace(lo, hi, GRID_POINTS)
        return scale * CubicSpline(grid, expectation.numpy(grid, np.full_like(grid, s)))(u)
    return tabulated


def gauss_hermite_rule(r: int, n: int, split_first: bool = False):
    """Tensor Gauss-Hermite rule for N(0, I_r): points (N, r) and weights (N,).
    ``split_first``: the first coordinate on :func:`split_gaussian_rule` instead (a target
    with a jump across ``zeta_1 = 0``, such as ``sign(z1)``)."""
    x, w = np.polynomial.hermite_e.hermegauss(n)
    w = w / w.sum()
    rules = [split_gaussian_rule(n) if split_first else (x, w)] + [(x, w)] * (r - 1)
    grids = np.meshgrid(*[q[0] for q in rules], indexing="ij")
    weights = np.prod(np.meshgrid(*[q[1] for q in rules], indexing="ij"), axis=0)
    return np.stack([g.ravel() for g in grids], axis=1), weights.ravel()


#: Edges of the pieces of :func:`split_gaussian_rule` (mass beyond +-10: 1.5e-23).
SPLIT_EDGES = (-10.0, -5.0, -2.5, 0.0, 2.5, 5.0, 10.0)


def split_gaussian_rule(n: int):
    """A rule for ``N(0, 1)`` exact for piecewise smooth integrands with a jump at 0:
    Gauss-Legendre on the pieces :data:`SPLIT_EDGES` (``max(8, n // 2)`` nodes each: 3n points,
    Gaussian moments to ~1e-14 at n = 24) times the Gaussian density.

    >>> x, w = split_gaussian_rule(24)
    >>> round(float(w @ (x > 0)), 12), round(float(w @ x**2), 12)
    (0.5, 1.0)
    """
    t, wt = np.polynomial.legendre.leggauss(max(8, n // 2))
    lo, hi = np.array(SPLIT_EDGES[:-1]), np.array(SPLIT_EDGES[1:])
    x = ((hi + lo)[:, None] + (hi - lo)[:, None] * t) / 2
    w = (hi - lo)[:, None] / 2 * wt * np.exp(-x * x / 2) / math.sqrt(2 * math.pi)
    return x.ravel(), w.ravel()


def has_jump(target) -> bool:
    """A single-index target with a jump across ``z1 = 0`` (``sign`` in its expression): its
    expectations are taken on :func:`split_gaussian_rule` along ``theta_1``."""
    return target.k == 1 and target.expr.has(sp.sign)


def subspace_rule(k: int, spikes, nodes: int, shrink: int = 0, split: bool = False,
                  wide_1d: bool = True, max_points: int = MAX_POINTS):
    """An orthonormal basis ``Q`` (D x r) of ``span(theta_1..theta_k, spikes)`` (its first
    column ``theta_1`` when ``split``) and the tensor rule over it: ``(Q, Y, w, n)``
    (:func:`hermite_rule_size` nodes per dimension; in one dimension ``nodes - shrink``
    unless ``wide_1d``; at most about ``max_points`` points)."""
    D = spikes.shape[1]
    A = np.hstack([np.eye(D)[:, :k], spikes.T])
    if split:      # theta_1 first: the jump of the target lies on zeta_1 = 0
        Q, R = np.linalg.qr(A)
        keep = np.abs(np.diag(R)) > 1e-12 * max(float(np.max(np.abs(R))), 1e-300)
        Q = Q[:, keep] * np.sign(np.diag(R)[keep])
    else:
        U, sv, _ = np.linalg.svd(A, full_matrices=False)
        Q = U[:, sv > 1e-12 * sv.max()]
    r = Q.shape[1]
    n = (hermite_rule_size(int(nodes), r, shrink, max_points) if (r > 1 or wide_1d)
         else int(nodes) - shrink)
    Y, w = gauss_hermite_rule(r, n, split)
    return Q, Y, w, n


@dataclass(frozen=True)
class StepState:
    """The state after ``step`` steps: per letter the spike vector (coordinates along
    :attr:`basis`) and the bulk variance."""

    step: int
    basis: tuple
    letters: tuple
    weights: tuple
    spikes: np.ndarray
    bulk_variances: np.ndarray
    k: int
    subspace_bulk: np.ndarray = None

    @property
    def bulk_in_subspace(self) -> np.ndarray:
        """Letters x D x D: the covariance (times d) of a neuron's own small components along
        the basis of the subspace; ``c_omega I`` if the bulk were isotropic."""
        if self.subspace_bulk is not None:
            return self.subspace_bulk
        return np.array([cj * np.eye(self.spikes.shape[1]) for cj in self.bulk_variances])

    @property
    def spike_norms(self) -> np.ndarray:
        """``|m_omega|`` per letter."""
        return np.linalg.norm(self.spikes, axis=1)

    @property
    def target_components(self) -> np.ndarray:
        """Letters x k: the coordinates of the spike vectors along ``theta_1..theta_k``."""
        return self.spikes[:, :self.k]

    @property
    def target_singular_values(self) -> np.ndarray:
        """Singular values of ``diag(sqrt(pi)) [m_omega . theta_j]``: how many target
        directions the letters' spikes span, and how strongly."""
        return np.linalg.svd(np.sqrt(np.asarray(self.weights))[:, None]
                             * self.target_components, compute_uv=False)

    @property
    def spike_singular_values(self) -> np.ndarray:
        """Singular values of ``diag(sqrt(pi)) [m_omega]`` (the rank-K spike part of
        ``(W_t - W0)/sqrt(p)`` without the bulk)."""
        return np.linalg.svd(np.sqrt(np.asarray(self.weights))[:, None] * self.spikes,
                             compute_uv=False)


@dataclass(frozen=True)
class SeveralStepsMap:
    """Result of :func:`several_steps`: ``states[t]`` after t steps (``states[0]`` the
    initial layer), how the numbers were obtained, and the quadrature's node error."""

    student: str
    target: str
    eta: float
    alpha0: float
    states: tuple
    method: str
    node_error: float
    notes: tuple = field(default=())

    def __str__(self):
        lines = [f"T-step map: student {self.student}, target {self.target}, eta = {self.eta:g}, "
                 f"alpha0 = {self.alpha0:g} ({self.method}; node error {self.node_error:.1e})"]
        for s in self.states[1:]:
            lines.append(f"  after step {s.step}:")
            for j, w in enumerate(s.letters):
                comps = ", ".join(f"{round(v, 6) + 0.0:.6f}" for v in s.target_components[j])  # no -0
                lines.append(f"    omega = {w:g}: |m| = {s.spike_norms[j]:.6f}, along "
                             f"theta_1..theta_{s.k}: ({comps}), c = {s.bulk_variances[j]:.6f}")
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)


def _outer_moment(Q, Y, weights, scale):
    """``scale * E[f zeta zeta^T]`` in the subspace basis from ``weights = w f`` at the nodes
    (directions of the basis outside ``span Q`` are independent of f: ``E[f]`` there)."""
    D = Q.shape[0]
    inside = Q @ ((Y.T * weights) @ Y) @ Q.T
    P_out = np.eye(D) - Q @ Q.T
    return scale * (inside + float(np.sum(weights)) * P_out)


def hermite_rule_size(nodes: int, r: int, shrink: int = 0, max_points: int = MAX_POINTS) -> int:
    """Gauss-Hermite nodes per dimension of an r-dimensional rule (8 times more in one
    dimension, at most ``max_points`` points), minus ``shrink`` (the node-error twin)."""
    n = 8 * nodes if r == 1 else max(8 + shrink, min(nodes, int(max_points ** (1 / r))))
    return n - shrink


def _one_step(state: StepState, fns, g, eta, alpha0, nodes, t, shrink=0, split=False):
    """The state after one more step (see the module doc)."""
    spikes, c = state.spikes, state.bulk_variances
    K, D = spikes.shape
    om, pi = np.asarray(state.letters), np.asarray(state.weights)
    # basis of span(theta, m_omega) and the rule over it
    Q, Y, w, _ = subspace_rule(state.k, spikes, nodes, shrink, split)
    z = Y @ Q[:state.k].T                                # target variables
    u = Y @ (Q.T @ spikes.T)                             # u_omega = m_omega . zeta
    S = [{key: _evaluator(fns[key], cj, key == "S2_times_s") for key in fns} for cj in c]
    f = sum(pi[j] * om[j] * S[j]["S0"](u[:, j]) for j in range(K))
    e = g(z) - f
    rule = _rules()
    new_spikes, new_bulk, G, new_sub = [], [], [], []
    sub = state.bulk_in_subspace
    for j in range(K):
        s1 = S[j]["S1"](u[:, j])
        s2 = S[j]["S2_times_s"](u[:, j])
        s1sq = S[j]["S1sq"](u[:, j])
        Gj = e * s1
        grad = Q @ (Y.T @ (w * Gj))                       # E[e S1 zeta] in the basis
        new_spikes.append(rule["spike"](spikes[j], eta, om[j], grad))
        shared = float(w @ (Gj * Gj))
        new_bulk.append(float(rule["bulk_variance"](
            c[j], eta, om[j], float(w @ (e * s2)), float(w @ (e * e * s1sq)), shared, alpha0)))
        G.append(Gj)
        # the neuron's own components along the subspace (the bulk inside it): linear response
        # J = I + eta omega E[e S2 zeta zeta^T] and the neuron-specific batch fluctuation
        # eta^2 omega^2 E[e^2 (S1sq - S1^2) zeta zeta^T] / alpha0 (docs/theory.md (p.2))
        J = np.eye(D) + eta * om[j] * _outer_moment(Q, Y, w * e * s2, 1.0)
        fluct = eta**2 * om[j]**2 / alpha0 * _outer_moment(Q, Y, w * e * e * (s1sq - s1 * s1),
                                                           1.0)
        new_sub.append(J @ sub[j] @ J.T + fluct)
    G = np.array(G)
    lam, V = np.linalg.eigh((G * w) @ G.T / alpha0)      # E[G G'] / alpha0
    keep = lam > RANK_TOL * max(lam.max(), 1e-300)
    L = V[:, keep] * np.sqrt(lam[keep])
    noise = np.array([rule["noise"](eta, om[j], L[j]) for j in range(K)]).reshape(K, -1)
    extra = noise.shape[1]
    subs = np.array([np.block([[Cj, np.zeros((D, extra))],
                               [np.zeros((extra, D)), cj * np.eye(extra)]])
                     for Cj, cj in zip(new_sub, new_bulk)])
    names = tuple(f"noise{t}_{i + 1}" for i in range(noise.shape[1]))
    return StepState(t, state.basis + names, state.letters, state.weights,
                     np.hstack([np.array(new_spikes), noise]), np.array(new_bulk), state.k, subs)


def _run(student, target, eta, alpha0, steps, voc, nodes, shrink=0):
    fns = smoothed_functions(student)
    from ..symbolic.activations import lambdify_numpy
    from .step_target import Z
    g_raw = lambdify_numpy(Z[:target.k], target.expr)

    def g(z):
        return np.broadcast_to(np.asarray(g_raw(*z.T), dtype=float), (z.shape[0],))
    K = voc.K
    state = StepState(0, tuple(f"theta{j + 1}" for j in range(target.k)), voc.letters,
                      voc.weights, np.zeros((K, target.k)), np.ones(K), target.k)
    states = [state]
    for t in range(1, steps + 1):
        state = _one_step(state, fns, g, eta, alpha0, nodes, t, shrink, has_jump(target))
        states.append(state)
    return states, fns


def _node_gap(a: StepState, b: StepState) -> float:
    """Largest difference of the basis-free parts of two states: the spikes' Gram matrix, their
    target components and the bulk variances (the noise directions' basis is not unique)."""
    return max(float(np.max(np.abs(a.spikes @ a.spikes.T - b.spikes @ b.spikes.T))),
               float(np.max(np.abs(a.target_components - b.target_components))),
               float(np.max(np.abs(a.bulk_variances - b.bulk_variances))))


def several_steps(student, target, eta: float, alpha0: float, steps: int = 1, vocabulary=None,
                  nodes: int = 24) -> SeveralStepsMap:
    """The T-step map: the state of the first layer after each of ``steps`` giant steps.

    Parameters
    ----------
    student : str or Activation
        sigma (no Dirac mass in sigma'; odd or not).
    target : str, SymPy expression or activation
        ``g(z1..zk)`` (:func:`~srfsym.step.step_target.step_target`).
    eta, alpha0 : float
        Learning rate (tilde eta) and step samples per dimension ``n0/d`` of every step.
    steps : int
        T >= 1.
    vocabulary : None, letters or :class:`~srfsym.step.vocabulary.Vocabulary`
        Readout letters, fixed during the steps.
    nodes : int
        Gauss-Hermite nodes per dimension, 12 to 40 (8 times more in one dimension, fewer in high
        dimension: at most :data:`MAX_POINTS` points); the node error compares with 4 fewer.

    Examples
    --------
    >>> m = several_steps("relu", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1])
    >>> m.states[2].target_components.round(3).tolist()
    [[0.875, 0.151], [-0.875, 0.151]]
    """
    from .step_target import step_target
    from .vocabulary import vocabulary as make_vocabulary
    from .mapping import _as_number
    target = step_target(target)
    voc = make_vocabulary(vocabulary)
    eta_f = float(_as_number(eta, "eta (learning rate)"))
    alpha0_f = float(_as_number(alpha0, "alpha0"))
    if not alpha0_f > 0:
        raise ValueError(f"alpha0 must be > 0 for a step (n0 = alpha0 d samples), got {alpha0}")
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)) or steps < 1:
        raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
    if isinstance(nodes, bool) or not isinstance(nodes, (int, np.integer)) or not \
            12 <= nodes <= 40:     # 8 * 40 one-dimensional Gauss-Hermite nodes: beyond ~360
        # numpy's rule overflows (NaN weights)
        raise ValueError(f"nodes must be an integer from 12 to 40, got {nodes!r}")
    states, fns = _run(student, target, eta_f, alpha0_f, int(steps), voc, int(nodes))
    coarse, _ = _run(student, target, eta_f, alpha0_f, int(steps), voc, int(nodes), shrink=4)
    err = max(_node_gap(a, b) for a, b in zip(states, coarse))
    exact = all(f.is_exact for f in fns.values())
    method = ("smoothed student exact (closed forms), Gaussian expectations over the subspace "
              "by tensor Gauss-Hermite" if exact else
              "numeric: smoothed student by quadrature tabulated and interpolated, Gaussian "
              "expectations over the subspace by tensor Gauss-Hermite")
    from ..symbolic.activations import activation
    return SeveralStepsMap(activation(student).name, target.name, eta_f, alpha0_f,
                           tuple(states), method, err)
