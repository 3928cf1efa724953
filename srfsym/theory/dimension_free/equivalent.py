r"""The deterministic equivalent of random-feature ridge regression on grids of ``(n, p, lam)``
(docs/theory.md (o)).

Convention: sum loss ``sum_i (y_i - f(x_i))^2 + lam ||a||^2``, ``f = <a, phi(x)>/sqrt(p)`` --
srfsym's ``lam`` of (a) exactly.  ``nu2`` is the effective regularisation; for ``p -> oo`` it
solves ``lam = nu (n - T1(nu))`` (kernel ridge with the penalty ``lam`` on the sum loss).

The equation for ``nu2`` (``nu1`` eliminated), ``g(nu2) = n - T1(nu2) - lam/(nu2 (1 - T1/p))``,
is increasing on the branch ``T1(nu2) < p`` and runs from ``-oo`` to ``n``: one root for
``lam > 0``, found by bisection on ``log nu2`` (vectorised).  ``lam = 0`` is the ridgeless limit:
``T1(nu2) = min(n, p)`` (refused at ``n = p`` where the error diverges, and when the spectrum has
at most ``min(n, p)`` features).

>>> from srfsym.theory.dimension_free.spectra import PowerLawSpectrum
>>> spec = PowerLawSpectrum(1.5, 0.4).eigen(4000)     # Lam_k = k^-1.5, k <= 4000
>>> eq = deterministic_equivalent(spec, n=800, p=400, lam=1e-2, noise=0.05)
>>> round(float(eq.excess_risk), 5)
0.04862
"""
from __future__ import annotations

from dataclasses import dataclass

import mpmath
import numpy as np

from ...core.values import Value, check_dps
from .formulas import lambdified

__all__ = ["EquivalentResult", "deterministic_equivalent", "equivalent_values", "solve_nu"]

_NAMES = ("T1", "T2", "T3", "S_theta", "S_lam_theta")


def _check_inputs(n, p, lam, noise):
    n, p, lam = np.broadcast_arrays(np.asarray(n, float), np.asarray(p, float),
                                    np.asarray(lam, float))
    if np.any(~np.isfinite(n)) or np.any(n <= 0):
        bad = n[~(np.isfinite(n) & (n > 0))][:3]
        raise ValueError(f"n (samples) must be finite and > 0, got {bad}")
    if np.any(~(p > 0)):
        raise ValueError(f"p (features) must be > 0 (inf: the kernel limit), got {p[~(p > 0)][:3]}")
    if np.any(~np.isfinite(lam)) or np.any(lam < 0):
        raise ValueError(f"lam (ridge penalty, sum loss) must be finite and >= 0, got "
                         f"{lam[~(np.isfinite(lam) & (lam >= 0))][:3]}")
    if not (np.isfinite(noise) and noise >= 0):
        raise ValueError(f"noise (label-noise variance) must be finite and >= 0, got {noise}")
    return n, p, lam


def _residual(spec, n, p, lam, nu):
    """g(nu2) and the sums; -inf on the unphysical side T1 >= p."""
    s, _ = spec.sums(nu)
    kern = np.isinf(p)
    t1 = s["T1"]
    with np.errstate(divide="ignore", invalid="ignore"):
        nu1 = np.where(kern, nu, nu * (1 - t1 / np.where(kern, 1.0, p)))
        g = np.where(nu1 > 0, n - t1 - lam / nu1, -np.inf)
        ridgeless = lam == 0        # ridgeless: T1 = min(n, p)
        g = np.where(ridgeless, np.minimum(n, p) - t1, g)
    return g


def solve_nu(spec, n, p, lam, rtol: float = 1e-14):
    """``nu2`` on a grid (arrays broadcast), by bisection on ``log nu2``.

    >>> from srfsym.theory.dimension_free.spectra import EigenSpectrum
    >>> # one eigenvalue 1, kernel limit: 2.5 = nu (3 - 1/(1 + nu)) at nu = 1
    >>> round(float(solve_nu(EigenSpectrum([1.0], [1.0]), 3.0, np.inf, 2.5)), 12)
    1.0
    """
    n, p, lam = _check_inputs(n, p, lam, 0.0)
    ridgeless = lam == 0
    if np.any(ridgeless & (n == p)):
        raise ValueError("lam = 0 with n = p: the interpolation peak, the test error diverges; "
                         "take lam > 0")
    if np.any(ridgeless & (spec.size <= np.minimum(n, p))):
        raise ValueError(f"lam = 0 needs more features in the spectrum ({spec.size:g}) than "
                         "min(n, p): with fewer the ridgeless limit has nu2 = 0 (the model "
                         "interpolates nothing); take lam > 0")
    trace = float(spec.sums(np.array([1.0]))[0]["T1"][0]) * 2 + 1.0   # > sum Lam at nu=1 scale
    hi = np.maximum(lam / n, 1.0) * trace * (1 + 1 / np.minimum(n, p)) * 4
    for _ in range(200):
        bad = ~(_residual(spec, n, p, lam, hi) > 0)
        if not bad.any():
            break
        hi = np.where(bad, hi * 10, hi)
    else:
        raise ArithmeticError("no upper bracket for nu2 found (a spectrum with infinite trace?)")
    lo = hi * 1e-12
    for _ in range(400):
        bad = _residual(spec, n, p, lam, lo) > 0
        if not bad.any():
            break
        lo = np.where(bad, lo * 1e-12, lo)
        if np.any(lo < 1e-300):
            raise ArithmeticError("nu2 below 1e-300: the effective regularisation underflows "
                                  "double precision; use equivalent_values(..., dps=...)")
    a, b = np.log(lo), np.log(hi)
    for _ in range(200):
        m = 0.5 * (a + b)
        up = _residual(spec, n, p, lam, np.exp(m)) > 0
        a, b = np.where(up, a, m), np.where(up, m, b)
        if np.all(b - a < rtol):
            break
    return np.exp(0.5 * (a + b))


@dataclass(frozen=True)
class EquivalentResult:
    """Arrays over the grid: ``nu1, nu2, bias, variance, excess_risk`` (``= bias + variance``,
    E(f - f_star)^2) and ``test_error`` (``+ noise``); ``sums_error`` bounds the relative error
    of the spectral sums (power-law tails; 0 for finite spectra)."""
    n: np.ndarray
    p: np.ndarray
    lam: np.ndarray
    noise: float
    nu1: np.ndarray
    nu2: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    sums_error: np.ndarray

    @property
    def excess_risk(self):
        return self.bias + self.variance

    @property
    def how(self) -> str:
        """How the numbers were obtained (all ``numeric``, double precision)."""
        worst = float(np.max(self.sums_error)) if np.size(self.sums_error) else 0.0
        return ("numeric: nu2 by bisection on log nu2 to 1e-14 relative (double precision); "
                "spectral sums " + ("exact finite sums" if worst == 0 else
                                    f"with Euler-Maclaurin tails, relative error <= {worst:.1e}"))

    @property
    def test_error(self):
        return self.excess_risk + self.noise


def _observables(n, p, lam, nu, noise, s, module="numpy"):
    kern = np.isinf(p) if module == "numpy" else mpmath.isinf(p)
    args = (n, 1.0 if kern is True else np.where(kern, 1.0, p) if module == "numpy" else p,
            lam, nu, noise, *(s[k] for k in _NAMES))
    out = {}
    for name in ("nu1", "upsilon", "bias", "variance"):
        finite = lambdified(name, module)(*args)
        kernel = lambdified(name, module, kernel=True)(*args)
        out[name] = (np.where(kern, kernel, finite) if module == "numpy"
                     else (kernel if kern else finite))
    return out


def deterministic_equivalent(spec, n, p, lam, noise: float = 0.0) -> EquivalentResult:
    """The equivalent on a grid of ``(n, p, lam)`` (broadcast; ``p = inf`` is kernel ridge).

    >>> from srfsym.theory.dimension_free.spectra import EigenSpectrum
    >>> s = EigenSpectrum([1.0, 0.1], [1.0, 1.0])
    >>> eq = deterministic_equivalent(s, n=[5, 50], p=np.inf, lam=0.5)
    >>> eq.excess_risk.round(6).tolist()
    [0.426518, 0.009306]
    """
    n, p, lam = _check_inputs(n, p, lam, noise)
    nu = solve_nu(spec, n, p, lam)
    s, err = spec.sums(nu)
    o = _observables(n, p, lam, nu, noise, s)
    ups = o["upsilon"]
    if np.any(~np.isfinite(ups)) or np.any(ups >= 1) or np.any(ups < 0):
        raise ArithmeticError("the equivalent's Upsilon left [0, 1) (the interpolation peak "
                              "n = p at lam = 0, or a loss of precision); take lam > 0")
    rel = np.max([np.abs(err[k]) / np.maximum(np.abs(s[k]), 1e-300) for k in _NAMES], axis=0)
    args = (n, p, lam, nu, noise, *(s[k] for k in _NAMES))
    with np.errstate(divide="ignore", invalid="ignore"):
        nu1 = np.where(p < n, lambdified("nu1_from_ridge")(*args), o["nu1"])
    return EquivalentResult(n, p, lam, float(noise), nu1, nu, o["bias"], o["variance"], rel)


def equivalent_values(spec, n, p, lam, noise=0.0, dps: int = 30) -> dict:
    """One point at ``dps`` digits (mpmath): Values ``nu1, nu2, bias, variance, excess_risk,
    test_error`` (``numeric``; root found by mpmath's solver started from the double solution).

    >>> from srfsym.theory.dimension_free.spectra import EigenSpectrum
    >>> v = equivalent_values(EigenSpectrum([1.0], [1.0]), 3, np.inf, 2.5, dps=30)
    >>> v["nu2"].decimal(20)
    '1.0000000000000000000'
    """
    check_dps(dps, 200)
    start = float(solve_nu(spec, n, p, lam))
    with mpmath.workdps(dps + 15):
        n_, lam_, noise_ = mpmath.mpf(n), mpmath.mpf(lam), mpmath.mpf(noise)
        p_ = mpmath.inf if np.isinf(p) else mpmath.mpf(p)

        def g(t):
            nu = mpmath.exp(t)
            s, _ = spec.sums(nu, mp=True)
            nu1 = nu if p_ == mpmath.inf else nu * (1 - s["T1"] / p_)
            if lam_ == 0:
                return min(n_, p_) - s["T1"]
            return n_ - s["T1"] - lam_ / nu1

        t = mpmath.findroot(g, mpmath.log(start), tol=mpmath.mpf(10) ** (-2 * dps))
        nu = mpmath.exp(t)
        s, err = spec.sums(nu, mp=True)
        o = _observables(n_, p_, lam_, nu, noise_, s, module="mpmath")
        tail = max(err[k] / abs(s[k]) for k in _NAMES if s[k] != 0)
        vals = {"nu1": o["nu1"], "nu2": nu, "bias": o["bias"], "variance": o["variance"]}
        vals["excess_risk"] = vals["bias"] + vals["variance"]
        vals["test_error"] = vals["excess_risk"] + noise_
    how = (f"mpmath root of the nu2 equation at {dps + 15} digits"
           + (f"; power-law tail by Euler-Maclaurin, relative error estimate "
              f"{mpmath.nstr(tail, 2)}" if tail > 0 else ""))
    return {k: Value(k, "numeric", how=how,
                     compute=lambda d, x=x, e=tail: (x, abs(x) * e + mpmath.mpf(10) ** (-dps - 5)))
            for k, x in vals.items()}
