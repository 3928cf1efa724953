r"""Excess-risk exponents of random-feature ridge regression under source and capacity
conditions, derived by SymPy from the deterministic equivalent (docs/theory.md (o.3)).

Model: ``Lam_k = k^-a`` (``a > 1``), ``theta_k^2 = k^-(2 a r + 1)`` (``r > 0``), ``p = n^q``, and a
per-sample penalty ``lam/n = n^-l`` (srfsym's sum-loss ``lam = n^(1-l)``).  Everything is a
power of ``n``; ``x`` is the exponent of the effective regularisation, ``nu2 = n^-x``.

1. Each spectral sum ``sum_k g(k)`` is ``n^(order)``: below the knee ``k_* = nu^(-1/a)`` the
   summand is ``g(k)|_{nu=0} ~ k^c_head``, above it ``g ~ nu^-j k^c_tail``; the order (in units of
   ``log k_* = (x/a) log n``) is ``Max(0, c_head + 1)`` vs ``j a + c_tail + 1``, read off the
   summands of :mod:`.formulas` by SymPy.
2. ``x`` from the dominant balance of ``n = T1(nu2) + lam/nu1``: ``lam/nu1 ~ n`` (ridge-limited,
   ``x = l``), ``T1 ~ n`` (sample-limited, ``x = a``) or ``T1 ~ p`` (feature-limited,
   ``x = a q``), each with the conditions that the other terms are not larger.
3. The three terms of the risk, ``nu2^2 S_theta`` (the kernel's bias), ``nu2^2 chi S_lam_theta``
   (the finite-``p`` bias) and ``noise Upsilon`` (variance), with ``1 - Upsilon ~ 1`` (off the
   interpolation peak), ``p - T2 ~ p``, ``1 - nu1/nu2 = T1/p`` and ``nu1/nu2 <= 1``: the rate is
   the smallest of the three decay exponents.

>>> g = gamma_expression(noisy=True)
>>> float(g.subs({A: 2, R: sp.Rational(1, 2), Q: 2, L: sp.Rational(2, 3)}))   # 2ar/(2ar+1)
0.6666666666666666
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import sympy as sp

from .formulas import BIAS, CHI, EIG, N, NOISE, NU, P, SUMMANDS, SUMS, TH2, UPSILON, VARIANCE

__all__ = ["A", "R", "Q", "L", "X", "sum_orders", "effective_exponent", "term_rates",
           "gamma_expression", "regions", "optimum"]

A, R, Q, L, X = sp.symbols("a r q l x", positive=True)
_K = sp.Symbol("k", positive=True)
_B = 2 * A * R + 1


def _power_of_k(expr):
    """The exponent c of a monomial c0 k^c (SymPy)."""
    return sp.simplify(sp.expand_log(sp.log(sp.powsimp(expr, force=True)), force=True)
                       .diff(_K) * _K)


@lru_cache(maxsize=None)
def sum_orders() -> dict:
    """Exponent of ``n`` of each spectral sum at ``nu2 = n^-x`` (step 1 of the module doc).

    >>> sum_orders()["T1"]
    x/a
    """
    out = {}
    for name, g in SUMMANDS.items():
        law = g.subs({EIG: _K**-A, TH2: _K**-_B})
        head = _power_of_k(law.subs(NU, 0))
        j = sp.degree(sp.denom(sp.together(g)).subs(EIG, 0), NU)     # (Lam + nu)^j
        tail = _power_of_k(sp.limit(law * NU**j, NU, sp.oo))          # g ~ nu^-j k^c_tail
        # the tail beyond the knee: nu^-j k_*^(c_tail + 1) = k_*^(j a + c_tail + 1), which is
        # k_*^(c_head + 1): never above the head's Max(0, c_head + 1)
        assert sp.simplify(j * A + tail - head) == 0, name
        out[name] = sp.simplify(sp.Max(0, head + 1) * X / A)
    return out


@lru_cache(maxsize=None)
def effective_exponent():
    """``x`` (``nu2 = n^-x``) as a Piecewise over the three balances, and its simplified form.

    >>> effective_exponent()[1]
    Min(a, l, a*q)
    """
    t1 = sum_orders()["T1"]
    ridge = 1 - L + X                       # lam/nu1 with nu1 ~ nu2 (A, B) or smaller (C)
    cases = []
    for name, balance, conds in (
            ("ridge", sp.Eq(ridge, 1), lambda x: [t1.subs(X, x) <= 1, t1.subs(X, x) <= Q]),
            ("samples", sp.Eq(t1, 1), lambda x: [ridge.subs(X, x) <= 1, t1.subs(X, x) <= Q]),
            ("features", sp.Eq(t1, Q), lambda x: [ridge.subs(X, x) <= 1, t1.subs(X, x) <= 1])):
        x = sp.solve(balance, X)[0]
        cases.append((name, x, sp.And(*conds(x))))
    piecewise = sp.Piecewise(*[(x, c) for _, x, c in cases])
    simple = sp.Min(L, A, A * Q)
    for pt in itertools.product((sp.Rational(3, 2), 3), (sp.Rational(1, 3), 1, 2),
                                (sp.Rational(1, 2), 2, 4)):
        sub = dict(zip((A, Q, L), pt))
        assert piecewise.subs(sub) == simple.subs(sub), sub
    return piecewise, simple, cases


def _order(expr, table):
    """Exponent of ``n`` of a positive expression built from quantities of known exponent."""
    if expr in table:
        return table[expr]
    if expr.is_number:
        return sp.S.Zero
    if expr.is_Mul:
        return sp.Add(*[_order(f, table) for f in expr.args])
    if expr.is_Pow:
        return expr.exp * _order(expr.base, table)
    if expr.is_Add:
        return sp.Max(*[_order(t, table) for t in expr.args])
    raise ValueError(f"no order for {expr}")


@lru_cache(maxsize=None)
def term_rates() -> dict:
    """Decay exponents (``term ~ n^-rate``) of the risk's three terms, as functions of ``x``.

    ``Upsilon n (p - T2) = (T1 - T2)^2 + T2 (p - T2)`` (checked by SymPy) writes the variance as a
    sum of positive terms; ``T1 - T2`` is the sum of ``Lam nu/(Lam + nu)^2``.

    >>> term_rates()["variance"]
    (a - x)/a
    """
    so = dict(sum_orders())
    diff = sp.Symbol("T1_minus_T2", positive=True)
    law = (EIG * NU / (EIG + NU)**2).subs({EIG: _K**-A})
    assert sp.simplify(SUMMANDS["T1"] - SUMMANDS["T2"] - EIG * NU / (EIG + NU)**2) == 0
    so_diff = sp.Max(0, _power_of_k(law.subs(NU, 0) / NU) + 1) * X / A
    table = {N: sp.S.One, P: Q, NU: -X, NOISE: sp.S.Zero, diff: so_diff,
             **{SUMS[k]: v for k, v in so.items()}}
    t1, t2 = SUMS["T1"], SUMS["T2"]
    assert sp.simplify(UPSILON * N * (P - t2) - ((t1 - t2)**2 + t2 * (P - t2))) == 0
    assert sp.simplify(BIAS * (1 - UPSILON) - NU**2 * (SUMS["S_theta"]
                                                        + CHI * SUMS["S_lam_theta"])) == 0
    assert sp.simplify(VARIANCE * (1 - UPSILON) - NOISE * UPSILON) == 0
    p_minus_t2 = P                               # T2 <= T1 <= p, p - T2 ~ p off the peak
    terms = {"kernel bias": NU**2 * SUMS["S_theta"],
             "feature bias": NU**2 * SUMS["T3"] / p_minus_t2 * SUMS["S_lam_theta"],
             "variance": NOISE * (diff**2 + t2 * p_minus_t2) / (N * p_minus_t2)}
    rates = {}
    for name, expr in terms.items():
        rate = -_order(expr, table)
        if name == "variance":       # x/a <= q in every regime: Max(2x/a, x/a + q) = x/a + q
            rate = sp.simplify(rate.subs(sp.Max(2 * X / A, X / A + Q), X / A + Q))
        rates[name] = sp.simplify(rate)
    return rates


def _rate_forms():
    """The three rates with ``x`` the effective exponent (simplified)."""
    x = effective_exponent()[1]
    return {k: v.subs(X, x) for k, v in term_rates().items()}


@lru_cache(maxsize=None)
def gamma_expression(noisy: bool = True):
    """The excess-risk exponent ``gamma(a, r, q, l)`` (risk ~ n^-gamma) as a SymPy ``Min``.

    >>> gamma_expression(noisy=False).subs({A: 2, R: 1, Q: 3, L: 3})     # 2 a min(r, 1)
    4
    """
    rates = _rate_forms()
    names = ("kernel bias", "feature bias") + (("variance",) if noisy else ())
    return sp.Min(*[rates[k] for k in names])


def _numbers(a, r):
    a, r = sp.nsimplify(a), sp.nsimplify(r)
    if not (a.is_number and r.is_number and a > 1 and r > 0):
        raise ValueError(f"need a > 1 (capacity) and r > 0 (source), got a = {a}, r = {r}")
    return a, r


def regions(a, r, noisy: bool = True) -> list:
    """The regions of the ``(l, q)`` plane at given ``(a, r)``: which balance sets ``nu2``
    (``ridge``, ``samples``, ``features``), which term dominates the risk, the region's
    conditions and its ``gamma`` (linear in ``l, q``); empty regions are dropped.

    >>> rows = [(g["regime"], g["dominant"], g["gamma"]) for g in regions(2, 1, noisy=False)]
    >>> rows[0]
    ('ridge', 'kernel bias', 2*l)
    >>> rows[1]
    ('ridge', 'feature bias', l/2 + q)
    """
    a, r = _numbers(a, r)
    names = ("kernel bias", "feature bias") + (("variance",) if noisy else ())
    rates = {k: v.subs({A: a, R: r}) for k, v in term_rates().items() if k in names}
    out = []
    for regime, x, cond in effective_exponent()[2]:
        x, cond = x.subs({A: a}), cond.subs({A: a})
        for dom in names:
            g = sp.expand(rates[dom].subs(X, x))
            conds = [cond] + [sp.expand(rates[o].subs(X, x)) >= g for o in names if o != dom]
            region = sp.And(*conds, L > 0, Q > 0)
            if region is sp.false or not _nonempty(region):
                continue
            out.append({"regime": regime, "dominant": dom, "x": x, "gamma": g,
                        "conditions": region})
    return out


def _nonempty(region) -> bool:
    """Whether a region of linear conditions has interior points (an LP on a box)."""
    from scipy.optimize import linprog
    rows, rhs = [], []
    for c in sp.And(region).args if isinstance(region, sp.And) else [region]:
        lhs = c.lhs - c.rhs if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)) else \
            c.rhs - c.lhs                     # as  expr >= 0
        lhs = sp.expand(lhs)
        # expr >= t  ->  -(c_l l + c_q q + t) <= const
        rows.append([-float(lhs.coeff(L)), -float(lhs.coeff(Q)), 1.0])
        rhs.append(float(lhs.subs({L: 0, Q: 0})))
    res = linprog([0, 0, -1], A_ub=rows, b_ub=rhs, bounds=[(0, 50), (0, 50), (None, 1)],
                  method="highs")
    return bool(res.status == 0 and -res.fun > 1e-9)


def optimum(a, r, noisy: bool = True, q_max=10, l_max=None) -> dict:
    """The best rate over ``(l, q)`` in the box ``0 < l <= l_max`` (default ``a + 1``), ``0 < q <=
    q_max``, the kernel's rate (``p = oo``), and the smallest ``q`` (with its ``l``) that reaches
    the kernel's rate: exact rationals, by enumerating the vertices of the arrangement of the
    regions' boundary lines (the maximum of a piecewise-linear function is at one of them).

    >>> o = optimum(2, sp.Rational(1, 2), noisy=True)
    >>> o["kernel_rate"], o["q_min"]
    (2/3, 1/3)
    """
    a, r = _numbers(a, r)
    l_max = a + 1 if l_max is None else sp.nsimplify(l_max)
    g = gamma_expression(noisy).subs({A: a, R: r})
    lines = {L, Q, L - l_max, Q - q_max, L - a, L - a * Q, Q - 1}
    for reg in regions(a, r, noisy):
        for c in sp.And(reg["conditions"]).args:
            lines.add(sp.expand(c.lhs - c.rhs))
    pts = set()
    for e1, e2 in itertools.combinations(lines, 2):
        sol = sp.solve([e1, e2], [L, Q], dict=True)
        if sol and L in sol[0] and Q in sol[0]:
            lv, qv = sol[0][L], sol[0][Q]
            if lv.is_number and qv.is_number and 0 <= lv <= l_max and 0 <= qv <= q_max:
                pts.add((lv, qv))
    vals = {pt: g.subs({L: pt[0], Q: pt[1]}) for pt in pts if pt[0] > 0 and pt[1] > 0}
    best = max(vals.values())
    kernel = sp.Max(*[v for (lv, qv), v in vals.items() if qv == q_max])
    reach = sorted((qv, lv) for (lv, qv), v in vals.items() if v == kernel)
    arg = sorted((qv, lv) for (lv, qv), v in vals.items() if v == best)
    return {"best_rate": best, "best_at": {"l": arg[0][1], "q": arg[0][0]},
            "kernel_rate": kernel, "q_min": reach[0][0], "l_at_q_min": reach[0][1]}
