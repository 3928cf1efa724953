r"""Upper and lower bounds on the test error, and the kernel baseline (MATH.md (i)).

With ``g`` the target along the spike (for alignment ``gamma``, the teacher restricted to
kappa: ``E[g mu] = E[h mu]`` and ``E g^2 = E h2``; ``g = sigma_star`` at ``gamma = 1``):

* upper bound (readout reduced to the mean direction, lambda -> infinity with m free)
  ``U = E g^2 - (E g mu0)^2 / E mu0^2``;
* lower bound (projection on span{mu0(kappa), kappa mu1(kappa)})
  ``L = E g^2 - u^T Gamma^{-1} u``; it bounds the test error from below at ``gamma = 1``
  (MATH.md (i)).  For ``gamma < 1`` both numbers are the errors of predictors restricted
  to the spike; the bulk then also learns the linear part of the teacher's orthogonal
  component, so ``lower`` is *not* a lower bound there (``upper`` still is one);
* kernel baseline (best linear predictor in the proportional regime)
  ``E sigma_star^2 - (mu1_star)^2 - (mu0_star)^2``.

All three are L2(N(0,1)) projections written once in :func:`_projections`, which runs on
double-precision or mpmath channel data alike.

>>> b = bounds("tanh", "sin", r=1.13, c=1.02)
>>> b.lower <= b.upper
True
>>> round(b.kernel, 12)   # = mu_star^2(sin) = (1 - e^-2)/2 - e^-1
0.06445291721
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import mpmath
import numpy as np

from .channel import channel_data
from .hermite import hermite_constants
from .mapping import srf_mapping
from .values import check_dps, MAX_SOLVER_DPS

__all__ = ["Bounds", "bounds", "optimal_learning_rate_bounds"]


@dataclass
class Bounds:
    """Upper / lower bound, kernel baseline and the optimal projection coefficients."""

    upper: float
    lower: float
    kernel: float
    b_upper: float
    b_lower: tuple
    r: float
    c: float
    gamma: float
    nodes: int
    node_error: float | None
    precision: str = "double"
    mp_values: dict | None = None

    def to_dict(self, dps: int = 30) -> dict:
        out = {"upper": self.upper, "lower": self.lower, "kernel": self.kernel,
               "b_upper": self.b_upper, "b_lower": list(self.b_lower), "r": self.r,
               "c": self.c, "gamma": self.gamma, "kappa_nodes": self.nodes,
               "kappa_node_error": self.node_error, "precision": self.precision}
        if self.mp_values:
            out["decimal"] = {k: mpmath.nstr(v, dps) for k, v in self.mp_values.items()}
        return out

    def __str__(self):
        return (f"bounds at r = {self.r:.6g}, c = {self.c:.6g}, gamma = {self.gamma:.6g}: "
                f"lower = {self.lower:.10g}, upper = {self.upper:.10g}, "
                f"kernel baseline = {self.kernel:.10g}  [{self.precision}, {self.nodes} nodes]")


def _projections(ch):
    """(U, L, b_upper, (b1, b2)) from channel data (works for float and mpmath data)."""
    E = ch.E
    mu0, kmu1, h = ch.mu0, [k * m for k, m in zip(ch.kappa, ch.mu1)], ch.h
    Eg2 = E(ch.h2)
    g00 = E([a * a for a in mu0])
    g01 = E([a * b for a, b in zip(mu0, kmu1)])
    g11 = E([b * b for b in kmu1])
    u0 = E([a * g for a, g in zip(mu0, h)])
    u1 = E([b * g for b, g in zip(kmu1, h)])
    zero = 0 * Eg2
    # a coefficient that vanishes identically comes out of quadrature as ~1e-17, not 0
    tiny = 1e-24 * (abs(Eg2) + 1)
    if abs(g00) <= tiny:
        g00 = g01 = zero
    if abs(g11) <= tiny:
        g11 = g01 = zero
    if g00 == 0:
        upper, b_up = Eg2, zero
    else:
        b_up = u0 / g00
        upper = Eg2 - u0 * b_up
    det = g00 * g11 - g01 * g01
    if det == 0 or abs(det) <= 1e-28 * abs(g00 * g11):
        # span is one-dimensional (e.g. r = 0): project on whichever direction is non-zero
        if g11 != 0 and (g00 == 0 or abs(g11) > 0):
            b1, b2 = (zero, u1 / g11) if g00 == 0 else (b_up, zero)
            lower = Eg2 - (u1 * u1 / g11 if g00 == 0 else u0 * b_up)
        else:
            b1, b2, lower = b_up, zero, upper
    else:
        b1 = (g11 * u0 - g01 * u1) / det
        b2 = (g00 * u1 - g01 * u0) / det
        lower = Eg2 - (u0 * b1 + u1 * b2)
    return upper, lower, b_up, (b1, b2)


def _kernel(teacher, dps=None):
    """Best linear error E s*^2 - mu1*^2 - mu0*^2: the teacher's energy above degree 1,
    i.e. its mu_star^2 (MATH.md (b), (i))."""
    mustar2 = hermite_constants(teacher).mustar2
    return float(mustar2) if dps is None else mustar2.mpmath(dps + 5)


_LADDER = (60, 90, 135, 200, 300)


def bounds(student, teacher, r, c, gamma=1.0, dps=None, nodes="auto") -> Bounds:
    """Upper and lower bounds and the kernel baseline at sRF parameters (r, c, gamma).

    Parameters
    ----------
    student, teacher : str or Activation
    r, c, gamma : float
        Spike strength, bulk variance (> 0), alignment in [-1, 1].
    dps : int or None
        Also compute at ``dps`` digits with mpmath (Gauss-Hermite nodes at that precision;
        the node count is raised until two counts agree to ``dps - 3`` digits).
    nodes : int or "auto"
        kappa nodes for the double-precision result ("auto": converge to 1e-13).

    >>> b = bounds("sign", "sign", r=5.0, c=1.0)
    >>> round(b.upper, 10), b.lower <= b.upper, b.node_error < 1e-13
    (0.0709747694, True, True)
    """
    node_error = None
    if dps is not None:
        check_dps(dps, MAX_SOLVER_DPS)
    if nodes == "auto":
        prev = None
        for K in _LADDER:
            ch = channel_data(student, teacher, r, c, gamma, nodes=K)
            cur = _projections(ch)
            if prev is not None:
                node_error = max(abs(cur[0] - prev[0]), abs(cur[1] - prev[1]))
                if node_error < 1e-13:
                    break
            prev = cur
    else:
        K = int(nodes)
        cur = _projections(channel_data(student, teacher, r, c, gamma, nodes=K))
    upper, lower, b_up, b_low = cur
    lower = min(lower, upper)  # a projection on a larger span; equal up to rounding at worst
    if -1e-12 < lower < 0:     # rounding of a vanishing bound
        lower = 0.0
    if -1e-12 < upper < 0:
        upper = 0.0
    out = Bounds(float(upper), float(lower), _kernel(teacher), float(b_up),
                 tuple(float(b) for b in b_low), float(r), float(c), float(gamma), K, node_error)
    if dps is not None:
        prev = None
        K = max(60, 2 * dps)
        while True:
            ch = channel_data(student, teacher, str(r), str(c), str(gamma), nodes=K, dps=dps)
            with mpmath.workdps(dps + 10):
                cur = _projections(ch)
            if prev is not None:
                err = max(abs(cur[0] - prev[0]), abs(cur[1] - prev[1]))
                if err < mpmath.mpf(10) ** (-(dps - 3)):
                    break
                if K > 800:
                    raise RuntimeError(f"bounds at {dps} digits: kappa quadrature not converged "
                                       f"with {K} nodes (last change {mpmath.nstr(err, 3)})")
            prev = cur
            K = int(K * 1.5)
        with mpmath.workdps(dps):
            out.mp_values = {"upper": +cur[0], "lower": +min(cur[1], cur[0]), "kernel": +_kernel(teacher, dps)}
        out.precision = f"mpmath:{dps} ({K} nodes)"
    return out


def optimal_learning_rate_bounds(student, teacher, alpha0=math.inf, eta_max=20.0):
    """Minimise the upper and lower bounds over the learning rate eta (open derivation 4).

    For each eta the mapping gives (r, c, gamma) at ``alpha0`` (``inf``: gamma = 1, c = 1).
    Returns ``{"upper": (eta*, U*), "lower": (eta*, L*)}``.

    For sigma = sigma_star = erf the upper bound vanishes at a finite learning rate: with
    alpha0 = oo, mu0(kappa) = erf(r kappa / sqrt(3)) is proportional to the target when
    r = eta mu1^2 = sqrt(3).

    >>> opt = optimal_learning_rate_bounds("erf", "erf")
    >>> eta, U = opt["upper"]
    >>> round(eta, 4), U < 1e-12
    (4.081, True)
    >>> import math; round(math.sqrt(3) * 3 * math.pi / 4, 4)   # sqrt(3) / mu1^2
    4.081
    """
    from scipy.optimize import minimize_scalar

    def at(eta):
        mp = srf_mapping(student, teacher, eta, alpha0)
        return bounds(student, teacher, mp.r, mp.c, mp.gamma, nodes=135)

    grid = np.linspace(0.05, eta_max, 40)
    out = {}
    for key in ("upper", "lower"):
        vals = [getattr(at(e), key) for e in grid]
        i = int(np.argmin(vals))
        lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
        res = minimize_scalar(lambda e: getattr(at(e), key), bounds=(lo, hi), method="bounded",
                              options={"xatol": 1e-6})
        out[key] = (float(res.x), float(res.fun))
    return out
