"""Formulas built from Gaussian expectations, with generated numpy / mpmath evaluators.

A :class:`GaussianFormula` (or several sharing one table, :class:`FormulaSet`) is a SymPy
template in parameters and placeholder symbols, each placeholder an
:class:`~srfsym.symbolic.gaussian.Expectation` at ``a = a_expr(params)``, ``s = s_expr(params)``;
closed forms are substituted once, the rest is filled by quadrature at evaluation time
(shared integrand evaluations, a verified high-precision trapezoidal fast path, and a verified
Chebyshev interpolant for large arrays).  Importable from :mod:`srfsym.symbolic.gaussian` as before.
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy as sp  # noqa: F401 - used by the doctests

from ..core.precision import workdps
from .activations import lambdify_mpmath, lambdify_numpy
from .gaussian_symbols import A, S
from .quadrature import (_BLOCK_VALUES, _mpf, _require_finite, _trapezoid_numpy,
                         expectation_numpy, trapezoid_mpmath)

__all__ = ["GaussianFormula", "FormulaSet"]

# ======================================================================================
# formulas built from Gaussian expectations, with generated numpy / mpmath evaluators


class GaussianFormula:
    """A formula in some parameters whose ingredients are Gaussian expectations.

    ``template`` is a SymPy expression in ``params`` and placeholder symbols; each
    placeholder stands for an :class:`Expectation` evaluated at ``a = a_expr(params)``,
    ``s = s_expr(params)``.  Placeholders with a checked closed form are substituted
    once; the others are filled by quadrature at evaluation time.  Both evaluators are
    generated from the same template (lambdify), so no formula is typed twice.

    Examples
    --------
    >>> from srfsym.symbolic.activations import X
    >>> from srfsym.symbolic.gaussian import gaussian_expectation
    >>> kap, r, c = sp.symbols("kappa r c", positive=True)
    >>> P0 = sp.Symbol("P0")
    >>> mu0 = GaussianFormula("mu0", P0, (kap, r, c), {P0: gaussian_expectation(sp.sin(X))},
    ...                       r * kap, sp.sqrt(c))
    >>> mu0.expr
    exp(-c/2)*sin(kappa*r)
    >>> round(float(mu0.numpy(0.5, 1.0, 1.0)), 12)
    0.290786288213
    """

    def __init__(self, name, template, params, table, a_expr, s_expr):
        self.name = name
        self.template = template
        self.params = tuple(params)
        self.table = dict(table)
        self.a_expr = a_expr
        self.s_expr = s_expr
        subs = {}
        self.numeric = {}
        for sym, exp_ in self.table.items():
            if exp_.is_exact:
                subs[sym] = exp_.expr.subs({A: a_expr, S: s_expr}, simultaneous=True)
            else:
                self.numeric[sym] = exp_
        body = template.subs(subs)
        self._body = body  # still contains the numeric placeholders
        self.method = "exact" if not self.numeric else "numeric"
        self.expr = _tidy_formula(body) if not self.numeric else None
        self._np = None
        self._mp = None

    @property
    def is_exact(self):
        return self.method == "exact"

    @property
    def conditions(self):
        out = []
        for exp_ in self.table.values():
            out += [c.subs({A: self.a_expr, S: self.s_expr}) for c in exp_.conditions]
        return tuple(out)

    @property
    def how(self):
        if self.is_exact:
            rules = sorted({e.rule for e in self.table.values()})
            return "closed form (rules: " + ", ".join(rules) + "; checked against 30-digit quadrature)"
        return "quadrature of " + ", ".join(
            f"E[z^{e.k} ({e.integrand})]" for e in self.numeric.values())

    def _inputs(self):
        return self.params + tuple(self.numeric)

    def numpy(self, *values):
        """Vectorised float evaluation at broadcastable parameter arrays."""
        if self._np is None:
            expr = self.expr if self.expr is not None else self._body
            self._np = (lambdify_numpy(self._inputs(), expr),
                        lambdify_numpy(self.params, self.a_expr),
                        lambdify_numpy(self.params, self.s_expr))
        f, fa, fs = self._np
        values = [np.asarray(v, dtype=float) for v in values]
        extra = []
        if self.numeric:
            a = np.asarray(fa(*values), dtype=float)
            s = np.asarray(fs(*values), dtype=float)
            extra = _numeric_placeholders(self.numeric, a, s)
        with np.errstate(invalid="ignore", divide="ignore"):
            out = f(*values, *extra)
        shape = np.broadcast(*values).shape if values else ()
        return np.broadcast_to(np.asarray(out, dtype=float), shape)

    def mpmath(self, *values, dps=30):
        """Evaluation with mpmath at ``dps`` significant digits (inputs as str or mpf)."""
        if self._mp is None:
            expr = self.expr if self.expr is not None else self._body
            self._mp = (lambdify_mpmath(self._inputs(), expr),
                        lambdify_mpmath(self.params, self.a_expr),
                        lambdify_mpmath(self.params, self.s_expr))
        f, fa, fs = self._mp
        with workdps(dps + 10):
            vals = [_mpf(v) for v in values]
            extra = []
            if self.numeric:
                a, s = fa(*vals), fs(*vals)
                extra = [e.mpmath(a, s, dps=dps + 5) for e in self.numeric.values()]
            out = f(*vals, *extra)
        with workdps(dps):
            return +out

    def __repr__(self):
        return f"GaussianFormula({self.name} = {self.expr if self.is_exact else self.template}, {self.method})"


def _numeric_placeholders(numeric, a, s):
    """Quadrature for each numeric placeholder, sharing integrand evaluations per integrand."""
    out = []
    for exp_ in numeric.values():
        exp_._check_conditions_numpy(a, s)
        out.append(expectation_numpy(exp_._f_numpy(), exp_.k, a, s, exp_.kinks))
    return out


def _tidy_formula(expr):
    from .tidy import tidy
    return tidy(expr)


class FormulaSet:
    """Several :class:`GaussianFormula` sharing one table of expectations.

    The generated evaluators compute each numeric expectation once per call (the
    integrand is evaluated once on the quadrature nodes and reused for its z-weighted
    and squared versions) and return all formulas together.

    >>> from srfsym.symbolic.activations import X
    >>> from srfsym.symbolic.gaussian import gaussian_expectation
    >>> kap = sp.Symbol("kappa", real=True)
    >>> P0, P1 = sp.symbols("P0 P1")
    >>> fs = FormulaSet({"m0": P0, "m1": P1}, (kap,), {P0: gaussian_expectation(sp.tanh(X)),
    ...                 P1: gaussian_expectation(sp.tanh(X), 1)}, kap, sp.S.One)
    >>> [round(abs(float(v)), 12) for v in fs.numpy(0.0)]
    [0.0, 0.605705509602]
    """

    def __init__(self, templates, params, table, a_expr, s_expr):
        self.formulas = {name: GaussianFormula(name, t, params, table, a_expr, s_expr)
                         for name, t in templates.items()}
        self.params = tuple(params)
        self.table = dict(table)
        self.a_expr, self.s_expr = a_expr, s_expr
        self.numeric = {}
        for f in self.formulas.values():
            self.numeric.update(f.numeric)
        bodies = [f.expr if f.expr is not None else f._body for f in self.formulas.values()]
        inputs = self.params + tuple(self.numeric)
        self._np = lambdify_numpy(inputs, bodies)
        self._fa = lambdify_numpy(self.params, a_expr)
        self._fs = lambdify_numpy(self.params, s_expr)
        self._mp_args = (inputs, bodies)
        self._mp = None
        # the templates with every expectation as a placeholder: used where s = 0 (a point
        # mass), at which closed forms that divide by s cannot be evaluated
        templates = [f.template for f in self.formulas.values()]
        self._all = self.params + tuple(self.table)
        self._np_template = lambdify_numpy(self._all, templates)
        self._mp_template = None

    def __getitem__(self, name):
        return self.formulas[name]

    @property
    def method(self):
        return "exact" if all(f.is_exact for f in self.formulas.values()) else "numeric"

    def numpy(self, *values):
        """All formulas at broadcastable float arrays, as a tuple in template order."""
        values = [np.asarray(v, dtype=float) for v in values]
        shape = np.broadcast(*values).shape if values else ()
        extra = []
        if self.numeric:
            a = np.broadcast_to(np.asarray(self._fa(*values), dtype=float), shape)
            s = np.broadcast_to(np.asarray(self._fs(*values), dtype=float), shape)
            extra = _numeric_values(self.numeric, a, s)
        with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
            outs = self._np(*values, *extra)
        outs = [np.array(np.broadcast_to(np.asarray(o, dtype=float), shape)) for o in outs]
        s = np.broadcast_to(np.asarray(self._fs(*values), dtype=float), shape)
        bad = s == 0
        for o in outs:
            bad = bad | ~np.isfinite(o)
        if np.any(bad):
            # s = 0 (a point mass: the closed forms divide by s) or a closed form that is not
            # finite in float64 far in the tails: every expectation by quadrature there
            a = np.broadcast_to(np.asarray(self._fa(*values), dtype=float), shape)[bad]
            sb = s[bad]
            point = []
            for e in self.table.values():
                e._check_conditions_numpy(a, sb)
                with np.errstate(all="ignore"):     # checked for finiteness below
                    point.append(expectation_numpy(e._f_numpy(), e.k, a, sb, e.kinks))
            with np.errstate(all="ignore"):
                direct = self._np_template(*[np.broadcast_to(v, shape)[bad] for v in values],
                                           *point)
            for o, dv in zip(outs, direct):
                o[bad] = dv
                _require_finite(o, "a coefficient")
        return tuple(outs)

    def mpmath(self, *values, dps=30):
        """All formulas with mpmath at ``dps`` digits (inputs as str or mpf)."""
        if self._mp is None:
            self._mp = lambdify_mpmath(*self._mp_args)
            self._mpa = lambdify_mpmath(self.params, self.a_expr)
            self._mps = lambdify_mpmath(self.params, self.s_expr)
        with workdps(dps + 10):
            vals = [_mpf(v) for v in values]
            extra = []
            a, s = self._mpa(*vals), self._mps(*vals)
            if s != 0 and self.numeric:
                extra = _trapezoid_shared(self, a, s, dps)
                if extra is not None:
                    outs = self._mp(*vals, *extra)
                    with workdps(dps):
                        return tuple(+o for o in outs)
                extra = []
            if s == 0:
                if self._mp_template is None:
                    self._mp_template = lambdify_mpmath(
                        self._all, [f.template for f in self.formulas.values()])
                point = [e.mpmath(a, s, dps=dps + 5) for e in self.table.values()]
                outs = self._mp_template(*vals, *point)
            else:
                if self.numeric:
                    extra = [e.mpmath(a, s, dps=dps + 5) for e in self.numeric.values()]
                outs = self._mp(*vals, *extra)
        with workdps(dps):
            return tuple(+o for o in outs)


def _shared_quadrature(numeric, a, s):
    """Numeric placeholders, evaluating each distinct smooth integrand once on the nodes
    (in blocks of rows: at most ``_BLOCK_VALUES`` integrand values held at a time)."""
    out = [None] * len(numeric)
    smooth = []
    for i, exp_ in enumerate(numeric.values()):
        exp_._check_conditions_numpy(a, s)
        if exp_.kinks:
            out[i] = expectation_numpy(exp_._f_numpy(), exp_.k, a, s, exp_.kinks)
        else:
            out[i] = np.empty(a.shape)
            smooth.append((i, exp_))
    if not smooth:
        return out
    z, w = _trapezoid_numpy(float(np.max(s)) if s.size else 1.0)
    flat_a, flat_s = a.reshape(-1, 1), s.reshape(-1, 1)
    block = max(1, _BLOCK_VALUES // z.size)
    for lo in range(0, flat_a.shape[0], block):
        rows = slice(lo, lo + block)
        cache = {}
        for i, exp_ in smooth:
            f = exp_.integrand
            base, power = f.as_base_exp()
            if f not in cache:
                if power == 2 and base in cache:
                    cache[f] = cache[base] ** 2
                else:
                    vals = np.asarray(exp_._f_numpy()(flat_a[rows] + flat_s[rows] * z),
                                      dtype=float)
                    cache[f] = np.broadcast_to(vals, (flat_a[rows].shape[0], z.size))
            weights = w * z**exp_.k if exp_.k else w
            out[i].reshape(-1)[rows] = cache[f] @ weights
    return out


# --------------------------------------------------------------------------------------
# verified fast path for high-precision quadrature of smooth integrands

def _trapezoid_shared(fset, a, s, dps):
    """All numeric placeholders of ``fset`` at (a, s) by one trapezoidal rule on R.

    For integrands analytic in a strip around R and dominated by the Gaussian, the
    trapezoidal rule converges like exp(-2 pi tau / h).  The step is fixed per (s, dps)
    by halving until two steps agree to 10^-(dps+3), and the rule is accepted only if it
    also matches adaptive ``mpmath.quad`` at that first point; otherwise ``None`` (the
    caller uses ``mpmath.quad``).  Integrand values are shared between placeholders
    (f, z f and f^2 use one evaluation of f per node).
    """
    exps = list(fset.numeric.values())
    if any(e.kinks for e in exps) or s > _MAX_TRAPEZOID_MP_SCALE:
        return None
    cache = fset.__dict__.setdefault("_trap", {})
    key = (dps, mpmath.nstr(s, 12))
    if key not in cache:
        cache[key] = _choose_trapezoid(exps, a, s, dps)
    rule = cache[key]
    if rule is None:
        return None
    return _trapezoid_eval(exps, a, s, rule, dps)


#: Above this scale the high-precision trapezoidal rule (about 40 dps s nodes) is not tried.
_MAX_TRAPEZOID_MP_SCALE = 1e4


def _trapezoid_eval(exps, a, s, rule, dps):
    z, w = rule
    with workdps(dps + 15):
        values = {}
        out = []
        for e in exps:
            f = e.integrand
            if f not in values:
                base, power = f.as_base_exp()
                if power == 2 and base in values:
                    values[f] = [v * v for v in values[base]]
                else:
                    fm = e._f_mpmath()
                    values[f] = [fm(a + s * zj) for zj in z]
            vals = values[f]
            if e.k:
                out.append(mpmath.fsum(wj * zj**e.k * v for wj, zj, v in zip(w, z, vals)))
            else:
                out.append(mpmath.fsum(wj * v for wj, v in zip(w, vals)))
    return out


def _choose_trapezoid(exps, a, s, dps):
    tol = mpmath.mpf(10) ** (-(dps + 3))
    with workdps(dps + 15):
        h = mpmath.pi**2 / (max(s, 1) * (dps + 15) * mpmath.log(10))
        prev = _trapezoid_eval(exps, a, s, trapezoid_mpmath(h, dps), dps)
        for _ in range(4):
            h /= 2
            rule = trapezoid_mpmath(h, dps)
            cur = _trapezoid_eval(exps, a, s, rule, dps)
            if all(abs(x - y) <= tol * max(1, abs(y)) for x, y in zip(cur, prev)):
                ref = [e.mpmath(a, s, dps=dps + 3) for e in exps]
                if all(abs(x - y) <= 10 * tol * max(1, abs(y)) for x, y in zip(cur, ref)):
                    return rule
                return None
            prev = cur
    return None


# --------------------------------------------------------------------------------------
# large inputs: verified piecewise-Chebyshev interpolation in a (at fixed s)

_INTERP_MIN_SIZE = 20_000
_CHEB_N = 17          # points per piece (degree 16)
_CHEB_HALF = 0.25     # half-width of a piece in a
_INTERP_TOL = 1e-13


def _numeric_values(numeric, a, s):
    """Numeric placeholders at (a, s): direct quadrature, or for large arrays at one s a
    piecewise Chebyshev interpolant in a (a Gaussian smoothing of f is entire in a), built
    from quadrature at 17 points per piece of width 0.5 and accepted only if it matches
    direct quadrature at 64 check points to 1e-13; otherwise direct quadrature."""
    if a.size < _INTERP_MIN_SIZE or np.ptp(s) != 0 or any(e.kinks for e in numeric.values()):
        return _shared_quadrature(numeric, a, s)
    s0 = float(s.flat[0])
    lo, hi = float(a.min()), float(a.max())
    span = (hi - lo) / (2 * _CHEB_HALF)
    if not span < a.size / _CHEB_N:       # more interpolation nodes than points (huge a)
        return _shared_quadrature(numeric, a, s)
    M = max(1, int(math.ceil(span)))
    mids = lo + _CHEB_HALF * (2 * np.arange(M) + 1)
    i = np.arange(_CHEB_N)
    t = np.cos(np.pi * (i + 0.5) / _CHEB_N)
    pts = (mids[:, None] + _CHEB_HALF * t[None, :]).ravel()
    vals = _shared_quadrature(numeric, pts, np.full_like(pts, s0))
    k = np.arange(_CHEB_N)
    dct = np.cos(np.pi * np.outer(k, i + 0.5) / _CHEB_N) * (2.0 / _CHEB_N)
    dct[0] /= 2
    coeffs = [v.reshape(M, _CHEB_N) @ dct.T for v in vals]          # (M, N) each
    flat = a.ravel()
    idx = np.clip(((flat - lo) / (2 * _CHEB_HALF)).astype(int), 0, M - 1)
    x = (flat - mids[idx]) / _CHEB_HALF
    out = [_clenshaw(C, idx, x).reshape(a.shape) for C in coeffs]
    check = np.linspace(lo, hi, 64) + (hi - lo) * 1e-3 * np.sin(np.arange(64))
    check = np.clip(check, lo, hi)
    direct = _shared_quadrature(numeric, check, np.full_like(check, s0))
    cidx = np.clip(((check - lo) / (2 * _CHEB_HALF)).astype(int), 0, M - 1)
    cx = (check - mids[cidx]) / _CHEB_HALF
    for C, d in zip(coeffs, direct):
        if np.max(np.abs(_clenshaw(C, cidx, cx) - d) / np.maximum(1, np.abs(d))) > _INTERP_TOL:
            return _shared_quadrature(numeric, a, s)
    return out


def _clenshaw(C, idx, x):
    G = C[idx]                      # one gather of the coefficient rows
    b1 = np.zeros_like(x)
    b2 = np.zeros_like(x)
    x2 = 2 * x
    for k in range(C.shape[1] - 1, 0, -1):
        b1, b2 = G[:, k] + x2 * b1 - b2, b1
    return G[:, 0] + x * b1 - b2
