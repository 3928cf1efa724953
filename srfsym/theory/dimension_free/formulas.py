r"""The dimension-free deterministic equivalent of random-feature ridge regression, written once
in SymPy (docs/theory.md (o)); every number comes from code generated from these expressions.

The spectral sums (``K`` the kernel eigenvalues ``Lam`` with multiplicities, ``theta2`` the
target's energy in each eigenspace):

* ``T1 = sum Lam/(Lam+nu)``, ``T2 = sum Lam^2/(Lam+nu)^2``, ``T3 = sum Lam/(Lam+nu)^2``,
* ``S_theta = sum theta2/(Lam+nu)^2``, ``S_lam_theta = sum Lam theta2/(Lam+nu)^2``.

The fixed point: ``nu1 = nu2 (1 - T1(nu2)/p)`` and ``n - T1(nu2) - lam/nu1 = 0`` (one equation in
``nu2``, increasing in ``nu2`` on the branch ``T1 < p``).

>>> kernel_limits()["upsilon"]             # p -> oo: kernel ridge regression
T2/n
"""
from __future__ import annotations

import sympy as sp

__all__ = ["N", "P", "LAM", "NU", "NOISE", "SUMS", "SUMMANDS", "NU1", "NU1_FROM_RIDGE",
           "RESIDUAL", "UPSILON",
           "CHI", "BIAS", "VARIANCE", "kernel_limits", "lambdified", "EIG", "TH2"]

N, P, LAM, NU, NOISE = sp.symbols("n p lam nu2 noise", positive=True)
EIG, TH2 = sp.symbols("Lam theta2", positive=True)
SUMS = {name: sp.Symbol(name, positive=True) for name in ("T1", "T2", "T3", "S_theta",
                                                           "S_lam_theta")}
#: the summand of each spectral sum, one eigenvalue ``Lam`` (target energy ``theta2``)
SUMMANDS = {"T1": EIG / (EIG + NU), "T2": EIG**2 / (EIG + NU)**2, "T3": EIG / (EIG + NU)**2,
            "S_theta": TH2 / (EIG + NU)**2, "S_lam_theta": EIG * TH2 / (EIG + NU)**2}
#: which sums carry the multiplicity of an eigenvalue (the target sums carry block energies)
WITH_MULTIPLICITY = ("T1", "T2", "T3")

_T1, _T2, _T3, _ST, _SLT = (SUMS[k] for k in ("T1", "T2", "T3", "S_theta", "S_lam_theta"))

NU1 = NU * (1 - _T1 / P)
RESIDUAL = N - _T1 - LAM / NU1
#: nu1 from the first equation alone (well conditioned when p < n, where 1 - T1/p is small)
NU1_FROM_RIDGE = sp.solve(sp.Eq(N - _T1 - LAM / sp.Symbol("nu1"), 0), sp.Symbol("nu1"))[0]
UPSILON = P / N * ((1 - NU1 / NU)**2 + (NU1 / NU)**2 * _T2 / (P - _T2))
CHI = _T3 / (P - _T2)
BIAS = NU**2 / (1 - UPSILON) * (_ST + CHI * _SLT)
VARIANCE = NOISE * UPSILON / (1 - UPSILON)



def kernel_limits() -> dict:
    """The ``p -> oo`` limits (kernel ridge regression), taken by SymPy from the expressions
    above (once; cached).

    >>> kernel_limits()["variance"]
    T2*noise/(-T2 + n)
    """
    if "kernel" not in _CACHE:
        _CACHE["kernel"] = {name: sp.simplify(sp.limit(expr, P, sp.oo))
                            for name, expr in (("nu1", NU1), ("nu1_from_ridge", NU1_FROM_RIDGE),
                                               ("residual", RESIDUAL), ("upsilon", UPSILON),
                                               ("bias", BIAS), ("variance", VARIANCE))}
    return _CACHE["kernel"]

_ARGS = (N, P, LAM, NU, NOISE, *SUMS.values())
_CACHE: dict = {}


def lambdified(name: str, module: str = "numpy", kernel: bool = False):
    """Generated evaluator of one expression, called as ``f(n, p, lam, nu2, noise, T1, T2, T3,
    S_theta, S_lam_theta)``; ``kernel=True`` gives its ``p -> oo`` limit (``p`` ignored).

    >>> f = lambdified("nu1")
    >>> float(f(10, 4, 0.1, 2.0, 0, 1.0, 0, 0, 0, 0))   # nu2 (1 - T1/p)
    1.5
    """
    key = (name, module, kernel)
    if key not in _CACHE:
        exprs = {"nu1": NU1, "nu1_from_ridge": NU1_FROM_RIDGE, "residual": RESIDUAL,
                 "upsilon": UPSILON, "bias": BIAS,
                 "variance": VARIANCE}
        if name not in exprs:
            raise ValueError(f"unknown expression {name!r}; one of {sorted(exprs)}")
        expr = kernel_limits()[name] if kernel else exprs[name]
        _CACHE[key] = sp.lambdify(_ARGS, expr, modules=[module], cse=True)
    return _CACHE[key]


def summand(name: str, module: str = "numpy"):
    """Generated evaluator ``f(Lam, theta2, nu2)`` of one spectral summand.

    >>> float(summand("T1")(1.0, 0.0, 3.0))
    0.25
    """
    key = ("summand", name, module)
    if key not in _CACHE:
        _CACHE[key] = sp.lambdify((EIG, TH2, NU), SUMMANDS[name], modules=[module], cse=True)
    return _CACHE[key]
