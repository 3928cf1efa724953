r"""Conditional Gaussian-equivalence coefficients and teacher functions (docs/theory.md (d), (e)).

Conditionally on the spike coordinate kappa, the features of the sRF model are
equivalent to ``mu0(kappa) 1 + mu1(kappa) W x + mu_star(kappa) xi`` with, for
xi ~ N(0, 1),

.. math::
    \mu_0(\kappa) = E\,\sigma(r\kappa + \sqrt c\,\xi),\quad
    \mu_1(\kappa) = E[\xi\,\sigma(r\kappa+\sqrt c\,\xi)]/\sqrt c,\quad
    \mu_\star(\kappa)^2 = E\,\sigma^2 - \mu_0^2 - c\,\mu_1^2 .

The teacher functions are the same integrals at ``(a, s) = (gamma kappa, rho)``,
``rho = sqrt(1 - gamma^2)``: ``h = E sigma_star``, ``h1 = E[z sigma_star]``,
``h2 = E sigma_star^2``.

Both come as :class:`~srfsym.symbolic.gaussian.FormulaSet` objects: SymPy expressions
(``.mu0``, ``.mu1``, ``.mustar2``, or ``None`` with ``method == "numeric"``) and
generated evaluators ``.numpy()`` and ``.mpmath(dps)``.

>>> co = cget_coefficients("sign")
>>> co.mu0
erf(sqrt(2)*kappa*r/(2*sqrt(c)))
>>> co.method
'exact'
>>> mu0, mu1, mustar2 = co.numpy()(0.7, 0.9, 1.0)
>>> round(float(mu0), 12)   # erf(0.63/sqrt(2))
0.471305415769
"""
from __future__ import annotations

import warnings
from functools import cached_property, lru_cache

import mpmath
import numpy as np
import sympy as sp

from ..core.precision import workdps
from .activations import Activation, activation, lambdify_mpmath, lambdify_numpy
from .gaussian import FormulaSet, gaussian_expectation
from .hermite import mustar2_from_moments
from .quadrature import _mpf
from ..core.values import check_dps

__all__ = ["KAPPA", "R", "C", "GAMMA", "CGETCoefficients", "TeacherFunctions",
           "CheckedValues", "PrecisionWarning", "agreeing_digits",
           "cget_coefficients", "teacher_functions", "symmetric_expectations"]

#: Symbols of the conditional coefficients.
KAPPA = sp.Symbol("kappa", real=True)
R = sp.Symbol("r", nonnegative=True)
C = sp.Symbol("c", positive=True)
GAMMA = sp.Symbol("gamma", real=True)

_P0, _P1, _P2, _D1 = sp.symbols("E0 E1 E2 D1")

#: Largest bulk variance c for coefficients computed by quadrature: the rule needs about
#: 150 sqrt(c) nodes per point in double precision (the integrand varies on the scale
#: 1/sqrt(c) in z) and its high-precision twin is slower still.
MAX_BULK_VARIANCE_NUMERIC = 1e4


def _table(act: Activation):
    kcf = act.known_closed_form
    return {_P0: gaussian_expectation(act.expr, 0, known_closed_form=kcf),
            _P1: gaussian_expectation(act.expr, 1, known_closed_form=kcf),
            _P2: gaussian_expectation(act.expr**2, 0, known_closed_form=kcf)}


def _stein_table(act: Activation, table: dict):
    """For a numeric ``E[z sigma(a + s z)]`` of a sigma without jumps: the table with
    ``D1 = E sigma'(a + s z)`` in its place (Stein's lemma, ``E1 = s D1``), else ``None``.

    ``mu1 = E1 / s`` by quadrature loses ``log10(1/s)`` digits as ``s -> 0`` (the
    ``sigma(a) sum w_j z_j`` part cancels; at ``c = 1e-300`` tanh gave mu1 = 3e132);
    ``mu1 = D1`` has no division and tends to ``sigma'(a)``."""
    if table[_P1].is_exact or act.has_dirac_derivative:
        return None
    d1 = gaussian_expectation(act.derivative, 0, known_closed_form=act.known_closed_form)
    return {_P0: table[_P0], _D1: d1, _P2: table[_P2]}


def _is_identity(diff) -> bool:
    """``diff == 0`` for every real x, decided by SymPy (kinked forms also piece by piece)."""
    from .activations import _KINKED, _is_zero
    if _is_zero(diff):
        return True
    return diff.has(*_KINKED) and _is_zero(diff.rewrite(sp.Piecewise))


def _minus(term) -> str:
    """``"sigma(x) - term"`` as text (``+`` for a negative term)."""
    if term.could_extract_minus_sign():
        return f"sigma(x) + {-term}"
    return f"sigma(x) - {term}"


@lru_cache(maxsize=None)
def symmetric_expectations(act) -> dict:
    """What the symmetry of sigma fixes at ``a = 0``, for every ``s``: ``E sigma(s z)`` when
    sigma minus a constant is odd, and ``E[z sigma(s z)]``, ``E sigma'(s z)`` when sigma minus
    a multiple of x is even.  A dict ``{"E0"|"E1"|"D1": (value in the symbol s, reason)}``,
    each symmetry decided by SymPy (``sigma(x) + sigma(-x) - 2 sigma(0) == 0``,
    ``sigma(x) - sigma(-x) - 2 b x == 0``).

    >>> symmetric_expectations("tanh")["E0"]
    (0, 'parity: tanh is odd')
    >>> symmetric_expectations("softplus")["E1"]
    (s/2, 'symmetry: sigma(x) - x/2 is even')
    """
    from .activations import X
    from .gaussian import S
    from ..core.budget import simplify_limited
    act = activation(act)
    e = act.expr
    flipped = e.subs(X, -X)
    out = {}
    c0 = simplify_limited(e.subs(X, 0))
    if c0.is_real and c0.is_finite and _is_identity(e + flipped - 2 * c0):
        why = (f"parity: {act.name} is odd" if c0 == 0
               else f"symmetry: {_minus(c0)} is odd")
        out["E0"] = (c0, why)
    b = simplify_limited((e.subs(X, 1) - e.subs(X, -1)) / 2)
    if b.is_real and b.is_finite and _is_identity(e - flipped - 2 * b * X):
        why = (f"parity: {act.name} is even" if b == 0
               else f"symmetry: {_minus(b * X)} is even")
        out["E1"] = (b * S, why)
        out["D1"] = (b, why)
    return out


def _check_finite(params, values):
    for sym, v in zip(params, values):
        try:
            ok = bool(np.all(np.isfinite(np.asarray(v, dtype=float))))
        except (TypeError, ValueError):
            raise ValueError(f"{sym} must be a real number, got {v!r}") from None
        if not ok:
            raise ValueError(f"{sym} must be finite, got {v!r}")


class _Family:
    """Shared behaviour: expressions, method, evaluators, validation."""

    names: tuple = ()
    nonnegative: tuple = ()     # values that cannot be negative (second moments, variances)

    def __init__(self, act, templates, params, a_expr, s_expr, table=None):
        self.activation = act
        #: the SymPy symbols of the expressions, in the order the evaluators take them
        #: (see :mod:`srfsym.symbols`)
        self.params = params
        table = _table(act) if table is None else table
        self.set = FormulaSet(templates, params, table, a_expr, s_expr)
        self.s_expr = s_expr
        self._evaluators = {}

    @property
    def method(self) -> str:
        """``"exact"`` when every coefficient has a checked closed form, else ``"numeric"``."""
        return self.set.method

    def expressions(self) -> dict:
        """Closed forms (``None`` for numeric ones) keyed by name."""
        return {n: self.set[n].expr for n in self.names}

    def methods(self) -> dict:
        return {n: self.set[n].method for n in self.names}

    def how(self) -> dict:
        return {n: self.set[n].how for n in self.names}

    def _validate(self, *values):  # pragma: no cover - overridden
        pass

    @cached_property
    def by_symmetry(self) -> dict:
        """The values fixed exactly by the symmetry of sigma wherever ``a = 0`` (``a = r kappa``
        for the coefficients): ``{name: (SymPy expression in the params, reason)}``, e.g. mu0
        = 0 for an odd sigma and mu1 = 0 for an even one (see :func:`symmetric_expectations`).
        The evaluators return these values there, and :meth:`mpmath` lists them in
        ``CheckedValues.exact``; away from ``a = 0`` they do not apply.

        >>> cget_coefficients("cos").by_symmetry["mu1"]
        (0, 'parity: cos is even, so mu1 = 0 where kappa*r = 0')
        """
        sym = symmetric_expectations(self.activation)
        known = {ph: sym[key] for ph, key in ((_P0, "E0"), (_P1, "E1"), (_D1, "D1"))
                 if ph in self.set.table and key in sym}
        out = {}
        for name in self.names:
            template = self.set[name].template
            used = template.free_symbols & set(self.set.table)
            if used and used <= set(known):
                from .gaussian import S
                expr = sp.simplify(template.subs(
                    {ph: known[ph][0].subs(S, self.s_expr) for ph in used}))
                out[name] = (expr, "; ".join(sorted({known[ph][1] for ph in used}))
                             + f", so {name} = {expr} where {sp.sstr(self.set.a_expr)} = 0")
        return out

    def _symmetric_numpy(self, values, outs):
        """``outs`` with the values fixed by symmetry where ``a = 0``."""
        if "a_np" not in self._evaluators:
            self._evaluators["a_np"] = lambdify_numpy(self.params, self.set.a_expr)
        zero = np.asarray(self._evaluators["a_np"](*values), dtype=float) == 0
        if not np.any(zero) or not self.by_symmetry:
            return outs
        fixed = []
        for name, o in zip(self.names, outs):
            if name in self.by_symmetry:
                f = self._symmetric_evaluator(name, "np", lambdify_numpy)
                o = np.where(zero, np.asarray(f(*values), dtype=float), o)
            fixed.append(o)
        return tuple(fixed)

    def _symmetric_evaluator(self, name, kind, lambdify):
        """The generated evaluator of the value of ``name`` fixed by symmetry (made once)."""
        key = f"{kind}_{name}"
        if key not in self._evaluators:
            self._evaluators[key] = lambdify(self.params, self.by_symmetry[name][0])
        return self._evaluators[key]

    def _symmetric_at(self, values) -> dict:
        """``{index: (name, mpmath evaluator)}`` of the values fixed by symmetry at this
        point (empty unless ``a = 0`` there)."""
        if "a_mp" not in self._evaluators:
            self._evaluators["a_mp"] = lambdify_mpmath(self.params, self.set.a_expr)
        with workdps(30):
            a = self._evaluators["a_mp"](*(_mpf(v) for v in values))
        if a != 0:
            return {}
        out = {}
        for i, name in enumerate(self.names):
            if name in self.by_symmetry:
                out[i] = (name, self._symmetric_evaluator(name, "mp", lambdify_mpmath))
        return out

    def _finite_values(self, values, dps):
        """The closed forms at ``values`` (``dps`` digits); an infinite or complex value (the
        Gaussian expectation diverges there: an activation growing like exp(x^2/4) needs
        c < 1 for its second moment) is a :class:`DivergentExpectationError` naming the point.
        """
        from .gaussian import DivergentExpectationError
        point = ", ".join(f"{n} = {float(v):g}" for n, v in zip(self.params, values))
        name = getattr(getattr(self, "activation", None), "name", "the activation")
        why = (f"the Gaussian expectations of {name} diverge at {point}: the "
               "activation grows too fast for this variance (E[sigma(r kappa + sqrt(c) z)^2] "
               "needs sigma(x)^2 e^(-x^2/(2c)) integrable)")
        try:
            outs = self.set.mpmath(*values, dps=dps)
        except ZeroDivisionError:
            raise DivergentExpectationError(why + " (the closed form divides by zero there)") \
                from None
        if any(isinstance(o, mpmath.mpc) or not mpmath.isfinite(o) for o in outs):
            raise DivergentExpectationError(why + " (the closed form is infinite or complex "
                                            "there)")
        return outs

    def numpy(self):
        """Vectorised evaluator ``f(*params) -> tuple of arrays`` (generated, numpy/scipy)."""
        def evaluate(*values):
            _check_finite(self.params, values)
            self._validate(*values)
            return self._symmetric_numpy(values, self.set.numpy(*values))
        return evaluate

    def mpmath(self, dps: int = 30, *, verify: bool = True, max_dps: int | None = None):
        """High-precision evaluator ``f(*params) -> tuple of mpf`` at ``dps`` digits.

        With ``verify=True`` (default) every value is computed at two working precisions,
        raised until the two agree to ``dps`` significant digits (cancellation in the tails,
        e.g. mu_star^2 far out in kappa, costs digits).  The result is a
        :class:`CheckedValues` tuple whose ``good_digits`` says, per value, how many
        significant digits agree; if the precision cap ``max_dps`` (working digits, default
        ``dps + 800`` for closed forms and ``dps + 100`` for quadrature) is reached first,
        a :class:`PrecisionWarning` names the values with fewer good digits.
        ``verify=False`` evaluates once at ``dps + 10`` working digits (the absolute error
        is then about ``10^-dps`` times the size of the terms, not relative to the value).

        >>> f = cget_coefficients("relu").mpmath(30)
        >>> vals = f(10, 1, 1)              # mu_star^2 ~ 1.45e-25 is a difference of O(100) terms
        >>> vals.good_digits
        (30, 30, 30)
        >>> mpmath.nstr(vals[2], 12)
        '1.45292769571e-25'
        """
        check_dps(dps)
        if max_dps is not None:
            check_dps(max_dps, maximum=5000)

        def evaluate(*values):
            _check_finite(self.params, values)
            self._validate(*values)
            fixed = self._symmetric_at(values)

            def compute(d, outs=None):
                outs = list(self.set.mpmath(*values, dps=d) if outs is None else outs)
                with workdps(d):
                    for i, (_, f) in fixed.items():
                        outs[i] = +mpmath.mpf(f(*(_mpf(v) for v in values)))
                return tuple(outs)
            if not verify:
                return compute(dps)
            cap = max_dps or dps + (800 if self.method == "exact" else 100)
            out = _checked(lambda d: compute(d, self._finite_values(values, d)), dps, cap,
                           self.method == "exact", skip=fixed)
            out.exact = {name: self.by_symmetry[name][1] for name, _ in fixed.values()}
            # a negative variance at every precision is cancellation that no working
            # precision up to the cap resolved (erf(u) rounds to 1): no digit is good
            out.good_digits = tuple(0 if n in self.nonnegative and v < 0 else g
                                    for n, v, g in zip(self.names, out, out.good_digits))
            short = [f"{n} ({g} digits)" for n, g in zip(self.names, out.good_digits) if g < dps]
            if short:
                warnings.warn(f"only some of the requested {dps} digits are verified (two "
                              f"working precisions up to {out.working_dps} digits agree): "
                              + ", ".join(short), PrecisionWarning, stacklevel=2)
            return out
        return evaluate


class PrecisionWarning(UserWarning):
    """Fewer significant digits than requested could be verified."""


class CheckedValues(tuple):
    """A tuple of mpf values with ``good_digits`` (significant digits on which two working
    precisions agree, per value, at most the requested ``dps``), ``working_dps`` (the higher
    of the two working precisions), ``abs_error`` (their largest difference, per value) and
    ``exact`` (``{name: reason}`` of the values fixed exactly by the symmetry of sigma at this
    point, e.g. mu0 = 0 for an odd sigma at kappa = 0; their error is 0)."""

    good_digits: tuple
    working_dps: int
    abs_error: tuple
    exact: dict


def agreeing_digits(x, y, dps: int) -> int:
    """Significant decimal digits (0..dps) on which ``x`` and ``y`` agree, relative to ``y``.

    >>> agreeing_digits(mpmath.mpf("1.2345"), mpmath.mpf("1.2346"), 30)
    4
    >>> agreeing_digits(mpmath.mpf(0), mpmath.mpf(0), 30)
    30
    """
    with workdps(max(mpmath.mp.dps, dps) + 20):
        diff = abs(x - y)
        if diff == 0:
            return dps
        if y == 0:
            return 0
        return int(max(0, min(dps, mpmath.floor(-mpmath.log10(diff / abs(y))))))


def _checked(compute, dps, cap, exact, skip=()):
    """``compute(d)`` at two working precisions, raised until they agree to ``dps`` digits
    (or the higher reaches ``cap``): a :class:`CheckedValues`.  The values at the indices
    ``skip`` are exact (fixed by symmetry): their zeros need no confirmation and their error
    is 0."""
    low_dps = dps
    low = compute(low_dps)
    extra = 10
    while True:
        high_dps = min(low_dps + extra, cap)
        high = compute(high_dps)
        good = tuple(agreeing_digits(x, y, dps) for x, y in zip(low, high))
        # an exact 0 of a closed form at two precisions may be total cancellation (relu
        # mu1 = (1 + erf(-40/sqrt 2))/2 is 0 below ~350 digits): such zeros are confirmed
        # only at the precision cap.  Quadrature is too slow for that: a numeric 0 (odd
        # integrand by symmetry, or an integrand linear to the working precision) is kept
        # with abs_error 10^-working_dps (relative to the size of the terms)
        zeros = exact and any(x == 0 and y == 0 for i, (x, y) in enumerate(zip(low, high))
                              if i not in skip)
        if (min(good) >= dps and not zeros) or high_dps >= cap:
            if min(good) < dps and low_dps < cap - 10:
                # at the cap: compare with a close lower precision, so the digits reported
                # are those of the cap, not of the last (much lower) step
                low_dps = cap - 10
                low = compute(low_dps)
                good = tuple(agreeing_digits(x, y, dps) for x, y in zip(low, high))
            break
        extra = max(2 * extra, dps - min(good) + 10)
        low_dps, low = high_dps, high
    with workdps(high_dps + 10):
        errors = tuple(mpmath.mpf(0) if i in skip else abs(x - y) if y != 0
                       else mpmath.mpf(10) ** -high_dps for i, (x, y) in enumerate(zip(low, high)))
    with workdps(dps):
        out = CheckedValues(+v for v in high)
    out.good_digits, out.working_dps, out.exact = good, high_dps, {}
    with workdps(5):
        out.abs_error = tuple(+e for e in errors)
    return out


class CGETCoefficients(_Family):
    """mu0(kappa), mu1(kappa), mu_star(kappa)^2 of docs/theory.md (d) in the symbols kappa, r, c."""

    names = ("mu0", "mu1", "mustar2")

    nonnegative = ("mustar2",)

    def __init__(self, act):
        table = _table(act)
        stein = _stein_table(act, table)
        if stein is None:
            templates = {"mu0": _P0, "mu1": _P1 / sp.sqrt(C),
                         "mustar2": mustar2_from_moments(_P0, _P1, _P2)}
        else:   # numeric mu1 through Stein's lemma: no division by sqrt(c)
            table = stein
            templates = {"mu0": _P0, "mu1": _D1,
                         "mustar2": mustar2_from_moments(_P0, sp.sqrt(C) * _D1, _P2)}
        super().__init__(act, templates, (KAPPA, R, C), R * KAPPA, sp.sqrt(C), table)

    mu0 = property(lambda self: self.set["mu0"].expr, doc="mu0(kappa) (None if numeric)")
    mu1 = property(lambda self: self.set["mu1"].expr, doc="mu1(kappa) (None if numeric)")
    mustar2 = property(lambda self: self.set["mustar2"].expr,
                       doc="mu_star(kappa)^2 (None if numeric)")

    def _validate(self, kappa, r, c):
        c = np.asarray(c, dtype=float)
        if np.any(c <= 0):
            raise ValueError(f"bulk variance c must be positive, got {c}")
        if self.method == "numeric" and np.any(c > MAX_BULK_VARIANCE_NUMERIC):
            raise ValueError(
                f"bulk variance c = {float(np.max(c)):g} is above {MAX_BULK_VARIANCE_NUMERIC:g}, "
                f"the range of the quadrature for the coefficients of "
                f"{self.activation.name} (no closed form): its nodes grow like sqrt(c)")


class TeacherFunctions(_Family):
    """h(kappa), h1(kappa), h2(kappa) of docs/theory.md (e) in the symbols kappa, gamma."""

    names = ("h", "h1", "h2")
    nonnegative = ("h2",)

    def __init__(self, act):
        templates = {"h": _P0, "h1": _P1, "h2": _P2}
        super().__init__(act, templates, (KAPPA, GAMMA), GAMMA * KAPPA,
                         sp.sqrt(1 - GAMMA**2))

    h = property(lambda self: self.set["h"].expr, doc="h(kappa) (None if numeric)")
    h1 = property(lambda self: self.set["h1"].expr, doc="h1(kappa) (None if numeric)")
    h2 = property(lambda self: self.set["h2"].expr, doc="h2(kappa) (None if numeric)")

    def _validate(self, kappa, gamma):
        if np.any(np.abs(np.asarray(gamma, dtype=float)) > 1):
            raise ValueError(f"alignment gamma must lie in [-1, 1], got {gamma}")


@lru_cache(maxsize=None)
def _cget(act):
    return CGETCoefficients(act)


@lru_cache(maxsize=None)
def _teacher(act):
    return TeacherFunctions(act)


def cget_coefficients(act) -> CGETCoefficients:
    """Conditional Gaussian-equivalence coefficients of an activation (docs/theory.md (d)).

    >>> cget_coefficients("he3").mustar2
    6*c**2*(c + 3*kappa**2*r**2)
    >>> cget_coefficients("tanh").method
    'numeric'
    """
    return _cget(activation(act))


def teacher_functions(act) -> TeacherFunctions:
    """Teacher auxiliary functions h, h1, h2 of docs/theory.md (e).

    >>> teacher_functions("sin").h
    exp(gamma**2/2 - 1/2)*sin(gamma*kappa)
    """
    return _teacher(activation(act))
