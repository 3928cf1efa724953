"""An independent implementation of the ridge fixed point, for testing srfsym against.

Written from the theory (docs/theory.md (b)-(g)) without reading or importing srfsym's
gaussian / cget / channel / spectrum / fixed_point modules, and with nothing shared with
them: only numpy and scipy (and mpmath in the tests that check the quadratures here).

* Activations are plain numpy functions written here, each with its own derivative.
* Inner Gaussian expectations E_xi f(a + s xi): a closed form derived here for relu (and the
  linear activation); for the smooth activations (tanh, sin, erf) a high-order
  Gauss-Hermite rule of its own (``hermegauss``), applied to sigma, sigma' and sigma^2 directly.
* The outer expectation over kappa ~ N(0, 1): another Gauss-Hermite rule (many nodes).
* The deterministic Marchenko-Pastur sums of (g): composite Gauss-Legendre quadrature of the MP
  density after x = a + (b - a) sin^2 t (which removes the square-root edges), plus the atom at 0 when
  beta > 1. (No closed-form Stieltjes transform; the tests compare this quadrature with the
  textbook closed form separately.)
* The sRF mapping (c) from Hermite constants (b) computed here, including the y - mu0
  corrections for non-odd students.
* Plain damped iteration of all equations (damping 0.5; 0.1, then 0.02 only if it diverges),
  no Newton, no acceleration; it stops when the
  largest change of the seven order parameters (relative above 1) in one undamped update is below ``tol``.

General width ratio beta = p/d: alpha/beta on the V-hat and q-hat conjugates, alpha/sqrt(beta)
on theta-hat and psi-hat, theta = sqrt(beta) c theta-hat E[1/S], psi = sqrt(beta) psi-hat
E[rho/S] (theta and psi normalised by sqrt(p d)); derived in the notes at the end of this file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from numpy.polynomial.hermite_e import hermegauss
from numpy.polynomial.legendre import leggauss
from scipy.special import erf, ndtr

SQRT2PI = math.sqrt(2.0 * math.pi)


@lru_cache(maxsize=None)
def gauss_hermite_rule(n):
    """Nodes and weights of E f(z), z ~ N(0, 1) (weights sum to 1)."""
    x, w = hermegauss(n)
    if not np.all(np.isfinite(w)):  # numpy's rule overflows above ~350 nodes
        raise ValueError(f"hermegauss({n}) has non-finite weights; use fewer nodes")
    return x, w / SQRT2PI


# --------------------------------------------------------------------------------------------
# Activations: value and derivative (numpy), parity; inner expectations E_xi f(a + s xi)
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Smooth:
    """A smooth activation, inner expectations by Gauss-Hermite with ``n_inner`` nodes."""
    name: str
    f: object
    df: object
    d2f: object
    odd: bool

    def moments(self, a, s, n_inner=300):
        """(E sigma(a + s xi), E sigma'(a + s xi), E sigma(a + s xi)^2) for an array a."""
        x, w = gauss_hermite_rule(n_inner)
        u = np.asarray(a, dtype=float)[..., None] + s * x
        fu = self.f(u)
        return fu @ w, self.df(u) @ w, (fu * fu) @ w

    def mean_dsq(self, n_inner=300):
        """E sigma'(z)^2."""
        x, w = gauss_hermite_rule(n_inner)
        return (self.df(x) ** 2) @ w

    def mean_he2(self, n_inner=300):
        """E[sigma(z) (z^2 - 1)] = E sigma''(z)."""
        x, w = gauss_hermite_rule(n_inner)
        return self.d2f(x) @ w


class _Relu:
    """relu(u) = max(u, 0); closed forms derived with t = a/s:
    E relu = a Phi(t) + s phi(t),  E relu' = Phi(t),  E relu^2 = (a^2 + s^2) Phi(t) + a s phi(t)."""
    name = "relu"
    odd = False

    def moments(self, a, s, n_inner=None):
        a = np.asarray(a, dtype=float)
        if s == 0.0:
            pos = (a > 0).astype(float)
            return a * pos, pos, a * a * pos
        t = a / s
        Phi, phi = ndtr(t), np.exp(-0.5 * t * t) / SQRT2PI
        return a * Phi + s * phi, Phi, (a * a + s * s) * Phi + a * s * phi

    def mean_dsq(self, n_inner=None):
        return 0.5  # E 1{z > 0}

    def mean_he2(self, n_inner=None):
        # E[z^3; z > 0] - E[z; z > 0] = 2 phi(0) - phi(0)
        return 1.0 / SQRT2PI


class _Linear:
    """sigma(u) = u: E = a, E sigma' = 1, E sigma^2 = a^2 + s^2."""
    name = "linear"
    odd = True

    def moments(self, a, s, n_inner=None):
        a = np.asarray(a, dtype=float)
        return a.copy(), np.ones_like(a), a * a + s * s

    def mean_dsq(self, n_inner=None):
        return 1.0

    def mean_he2(self, n_inner=None):
        return 0.0


def _sech2(u):
    return 1.0 / np.cosh(u) ** 2


ACTIVATIONS = {
    "tanh": _Smooth("tanh", np.tanh, _sech2, lambda u: -2.0 * np.tanh(u) * _sech2(u), True),
    "sin": _Smooth("sin", np.sin, np.cos, lambda u: -np.sin(u), True),
    "erf": _Smooth("erf", erf, lambda u: 2.0 / math.sqrt(math.pi) * np.exp(-u * u),
                   lambda u: -4.0 / math.sqrt(math.pi) * u * np.exp(-u * u), True),
    "relu": _Relu(),
    "linear": _Linear(),
}


# --------------------------------------------------------------------------------------------
# (b) Hermite constants and (c) the sRF mapping
# --------------------------------------------------------------------------------------------

def hermite_constants(name, n_inner=300):
    """mu0, mu1, E sigma^2, check-mu1^2, E[sigma He2] of one activation (z ~ N(0, 1))."""
    act = ACTIVATIONS[name]
    m0, m1, m2 = (float(v[0]) for v in act.moments(np.zeros(1), 1.0, n_inner))
    return dict(mu0=m0, mu1=m1, m2=m2, check_mu1_sq=act.mean_dsq(n_inner) - m1 * m1,
                he2=act.mean_he2(n_inner))


def srf_parameters(student, teacher, eta, alpha0, mu0_correction=True):
    """(r, c, gamma) after one giant step; r = 0, c = 1, gamma = 0 without a step."""
    if alpha0 == 0 or eta == 0:
        return 0.0, 1.0, 0.0
    s, t = hermite_constants(student), hermite_constants(teacher)
    mu1_star, mu0_star = t["mu1"], t["mu0"]
    mu0 = s["mu0"] if mu0_correction else 0.0
    resid2 = t["m2"] - 2.0 * mu0 * mu0_star + mu0 * mu0  # E (sigma_star - mu0)^2
    norm = math.sqrt(mu1_star ** 2 + resid2 / alpha0)
    r = eta * s["mu1"] * norm
    gamma = mu1_star / norm
    scale = 1.0 + eta * (mu0_star - mu0) * s["he2"] if mu0_correction else 1.0
    c = scale ** 2 + eta ** 2 / alpha0 * resid2 * s["check_mu1_sq"]
    return r, c, gamma


# --------------------------------------------------------------------------------------------
# (g) Marchenko-Pastur quadrature
# --------------------------------------------------------------------------------------------

@lru_cache(maxsize=None)
def mp_rule(beta, per_panel=40):
    """Points x and weights of E g(x), x ~ MP_beta (mean 1), atom (1 - 1/beta)_+ at 0 included.

    x = lo + (hi - lo) sin^2 t, t in (0, pi/2), removes the square-root edges; composite
    Gauss-Legendre in t, panels graded geometrically towards t = 0, where g = 1/(x + s) with
    small s has its pole when lo = 0 (beta = 1)."""
    lo, hi = (1.0 - math.sqrt(beta)) ** 2, (1.0 + math.sqrt(beta)) ** 2
    edges = np.concatenate([[0.0], np.geomspace(1e-6, 0.25, 20),
                            np.linspace(0.25, 0.5 * math.pi, 9)[1:]])
    u, wu = leggauss(per_panel)
    half = 0.5 * np.diff(edges)
    t = (edges[:-1, None] + half[:, None] * (u + 1.0)).ravel()
    wt = (half[:, None] * wu).ravel()
    st, ct = np.sin(t), np.cos(t)
    x = lo + (hi - lo) * st * st
    # density sqrt((hi-x)(x-lo)) / (2 pi beta x) dx with dx = 2 (hi-lo) sin t cos t dt;
    # for beta = 1 (lo = 0) the 1/x is cancelled by hand: x = 4 sin^2 t
    if beta == 1.0:
        w = wt * 4.0 * ct * ct / math.pi
    else:
        w = wt * (hi - lo) ** 2 * st * st * ct * ct / (math.pi * beta * x)
    if beta > 1.0:
        x = np.concatenate([[0.0], x])
        w = np.concatenate([[1.0 - 1.0 / beta], w])
    return x, w


def mp_stieltjes(s, beta):
    """Textbook closed form E 1/(x + s), x ~ MP_beta, s > 0 (positive root of
    beta s m^2 + (s + 1 - beta) m - 1 = 0), in the rationalised stable form."""
    B = s + 1.0 - beta
    return 2.0 / (math.sqrt(B * B + 4.0 * beta * s) + B) if B >= 0 else \
        (math.sqrt(B * B + 4.0 * beta * s) - B) / (2.0 * beta * s)


# --------------------------------------------------------------------------------------------
# (f) + (g): the fixed point by plain damped iteration
# --------------------------------------------------------------------------------------------

@dataclass
class Result:
    test_error: float
    train_error: float
    state: dict
    sweeps: int
    last_change: float
    damping: float


def solve(student, teacher, r, c, gamma, lam, alpha, beta=1.0, *, n_kappa=240, n_inner=300,
          mp_panel=40, tol=1e-13, dampings=(0.5, 0.1, 0.02), max_sweeps=50000):
    """Ridge fixed point of the sRF model (f) with deterministic MP sums (g)."""
    kap, wk = gauss_hermite_rule(n_kappa)
    st, te = ACTIVATIONS[student], ACTIVATIONS[teacher]
    mu0, mu1, m2 = st.moments(r * kap, math.sqrt(c), n_inner)
    mus2 = m2 - mu0 * mu0 - c * mu1 * mu1
    rho = math.sqrt(max(0.0, 1.0 - gamma * gamma))
    h, dh, h2 = te.moments(gamma * kap, rho, n_inner)
    h1 = rho * dh
    no_mean = float(np.max(np.abs(mu0))) < 1e-13  # odd student without spike: mu0(kappa) = 0
    if no_mean:
        mu0 = np.zeros_like(mu0)
    x, wx = mp_rule(beta, mp_panel)
    varrho = c * x
    E = lambda f: float(f @ wk)
    Er = lambda f: float(f @ wx)
    a_b, a_sb = alpha / beta, alpha / math.sqrt(beta)
    sb = math.sqrt(beta)

    names = ("q1", "q2", "V1", "V2", "theta", "psi", "m")
    start = np.array([0.1, 0.2, 3.0, 3.0, 0.5, 0.5, 0.0 if no_mean else 1.5])

    def conditional(state):
        q1, q2, V1, V2, th, ps, m = state
        w = 1.0 / (1.0 + mu1 * mu1 * V1 + mus2 * V2)
        b = mu0 * m + mu1 * kap * th
        eps = h2 - 2.0 * b * h - 2.0 * mu1 * ps * h1 + b * b + mu1 * mu1 * q1 + mus2 * q2
        return w, b, eps

    def update(state):
        """One undamped sweep: all conjugates and m from the old state, then the overlaps."""
        th = state[4]
        w, b, eps = conditional(state)
        Vh1, Vh2 = a_b * E(mu1 * mu1 * w), a_b * E(mus2 * w)
        qh1, qh2 = a_b * E(mu1 * mu1 * eps * w * w), a_b * E(mus2 * eps * w * w)
        thh = a_sb * E(kap * mu1 * (h - b) * w)
        psh = a_sb * E(mu1 * h1 * w)
        m_new = 0.0 if no_mean else E(mu0 * (h - mu1 * kap * th) * w) / E(mu0 * mu0 * w)
        S = lam + Vh2 + Vh1 * varrho
        inv = 1.0 / S
        V1n, V2n = Er(varrho * inv), Er(inv)
        num = qh1 * varrho + qh2 + c * thh * thh + psh * psh * varrho
        return np.array([Er(varrho * num * inv * inv), Er(num * inv * inv), V1n, V2n,
                         sb * c * thh * V2n, sb * psh * V1n, m_new])

    failures = []
    for damp in dampings:  # plain damped iteration; a smaller damping only if it diverges
        try:
            cur, sweep, change = _iterate(update, start, damp, tol, max_sweeps)
            break
        except (FloatingPointError, RuntimeError) as exc:
            failures.append(f"damping {damp}: {exc}")
    else:
        raise RuntimeError("; ".join(failures))
    w, b, eps = conditional(cur)
    return Result(test_error=E(eps), train_error=E(eps * w * w),
                  state=dict(zip(names, (float(v) for v in cur))), sweeps=sweep,
                  last_change=change, damping=damp)


def _iterate(update, start, damping, tol, max_sweeps):
    """x <- (1 - damping) x + damping update(x) until the largest change of update(x) - x
    (relative above 1) is below tol."""
    cur = np.array(start, dtype=float)
    with np.errstate(all="ignore"):
        for sweep in range(1, max_sweeps + 1):
            new = update(cur)
            if not np.all(np.isfinite(new)):
                raise FloatingPointError(f"diverged at sweep {sweep}")
            change = float(np.max(np.abs(new - cur) / np.maximum(1.0, np.abs(cur))))
            if change > 1e8:
                raise FloatingPointError(f"diverged at sweep {sweep} (change {change:.1e})")
            cur = (1.0 - damping) * cur + damping * new
            if change < tol:
                return cur, sweep, change
    raise RuntimeError(f"no convergence in {max_sweeps} sweeps (last change {change:.2e})")


def solve_step(student, teacher, alpha0, eta, lam, alpha, beta=1.0, **kw):
    """Mapping (c) then the fixed point: the analogue of ``srfsym.solve``."""
    r, c, gamma = srf_parameters(student, teacher, eta, alpha0)
    return solve(student, teacher, r, c, gamma, lam, alpha, beta, **kw)


# Notes on the beta factors (derivation, p/d = beta, n/d = alpha).
# The ridge stationarity lambda a = p^{-1/2} sum_i phi_i (y_i - lambda_i) with n samples gives
# conjugates (n/p) E[...] = (alpha/beta) E[...] for the covariance-like terms (V-hat, q-hat).
# The mean term kappa mu1(kappa) W v_hat = kappa mu1 W v / sqrt(d) contributes
# (n / sqrt(p d)) E[kappa mu1 (h - b) w] W v = (alpha/sqrt(beta)) E[...] W v (theta-hat), and
# likewise psi-hat along W zeta. With a = R (theta-hat W v + psi-hat W zeta + noise),
# R = (lambda + V1-hat Omega + V2-hat)^{-1}, (Wv)^T R (Wv) ~ c tr R = c p E[1/S] and
# (W zeta)^T R (W zeta) ~ tr(Omega R) = p E[rho/S]; dividing by sqrt(p d) gives the sqrt(beta).
# q1 = a^T Omega a / p and q2 = |a|^2 / p carry no beta factor.
# Train error: mean squared training residual, y_i - yhat_i = (y_i - omega_i) / (1 + V(kappa_i)),
# i.e. E_kappa[eps(kappa) / (1 + V(kappa))^2].
