r"""Numbers that say how they were obtained.

A :class:`Value` is either ``exact`` (a SymPy closed form that was checked against
independent 30-digit quadrature) or ``numeric`` (quadrature, with the precision it
was computed at).  It can be printed at any precision and serialised for JSON with
its value as a decimal string.

>>> import sympy as sp
>>> v = Value("mu1", "exact", expr=sp.exp(-sp.Rational(1, 2)), how="closed form")
>>> v.decimal(20)
'0.60653065971263342360'
>>> float(v)  # doctest: +ELLIPSIS
0.6065306597126...
>>> v                     # in a REPL: the number and how it was obtained
Value(mu1 = exp(-1/2) = 0.6065306597 [exact])
>>> print(v._repr_latex_())   # in Jupyter
$\mu_1 = e^{- \frac{1}{2}} \approx 0.6065306597 \quad (\text{exact})$
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import mpmath
import sympy as sp

from .precision import workdps

__all__ = ["Value", "check_dps", "MAX_SOLVER_DPS", "UncertainValueError", "MIN_GOOD_DIGITS",
           "below_error", "shown_with_error"]


class UncertainValueError(ValueError):
    """A numeric value whose error estimate leaves too few trustworthy digits."""


#: Fewest significant digits a numeric value may have before it is refused.
MIN_GOOD_DIGITS = 3


def check_dps(dps, maximum: int = 1000) -> int:
    """A working precision in decimal digits: an integer from 5 to ``maximum``.

    The fixed point and the bounds use ``maximum = 300`` (:data:`MAX_SOLVER_DPS`): their
    node counts grow with ``dps`` and higher precision takes minutes to hours.

    >>> check_dps(30)
    30
    >>> check_dps(0)
    Traceback (most recent call last):
    ...
    ValueError: dps (decimal digits) must be an integer from 5 to 1000, got 0
    """
    if isinstance(dps, bool) or not isinstance(dps, int) or not 5 <= dps <= maximum:
        raise ValueError(f"dps (decimal digits) must be an integer from 5 to {maximum}, "
                         f"got {dps!r}")
    return dps


#: Largest ``dps`` accepted by the fixed-point solver and the bounds.
MAX_SOLVER_DPS = 300


def below_error(x, err) -> bool:
    """True when ``x`` is not larger than its own error bound ``err`` (``None``: no bound):
    it is zero to every digit the computation can vouch for.

    >>> below_error(1.2e-37, 2.1e-37), below_error(0.06, 2.1e-37), below_error(1e-40, None)
    (True, False, False)
    """
    if err is None:
        return False
    x, err = mpmath.mpf(x), mpmath.mpf(err)
    return bool(mpmath.isfinite(x) and mpmath.isfinite(err) and abs(x) <= err)


def _rounded_up(err) -> str:
    """``err`` with two significant digits, rounded up (a bound stays a bound)."""
    err = mpmath.mpf(err)
    if err <= 0:
        return "0"
    with workdps(30):
        e = int(mpmath.floor(mpmath.log10(err))) - 1
        return mpmath.nstr(mpmath.ceil(err / mpmath.mpf(10) ** e) * mpmath.mpf(10) ** e, 2)


def shown_with_error(x, err=None, digits: int = 10) -> str:
    """``x`` with ``digits`` significant digits, or ``"0 (|x| < e)"`` when it is below its own
    error bound ``err`` (round-off printed as digits would be noise, never a value).

    >>> shown_with_error(1.2215e-37, 2.05e-37, 30)
    '0 (|x| < 2.1e-37)'
    >>> shown_with_error(0.06445291721025133, 2.05e-37, 6)
    '0.0644529'
    """
    if below_error(x, err):
        return f"0 (|x| < {_rounded_up(err)})"
    return mpmath.nstr(mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x, digits)

#: LaTeX of the names used for Values (others are shown as text)
LATEX_NAMES = {"mu0": r"\mu_0", "mu1": r"\mu_1", "second_moment": r"\mathbb{E}\,\sigma^2",
               "mustar2": r"\mu_\star^2", "checkmu1_sq": r"\check\mu_1^2",
               "spike_strength": "r", "bulk_variance": "c", "alignment": r"\gamma",
               "E[sigma'^2]": r"\mathbb{E}\,\sigma'^2"}

#: significant digits shown by ``repr`` and ``_repr_latex_``
SHOWN_DIGITS = 10


@dataclass(frozen=True)
class Value:
    """A scalar with its provenance.

    Parameters
    ----------
    name : str
        What it is (``"mu1"``, ``"spike_strength"``...).
    method : str
        ``"exact"`` or ``"numeric"``.
    expr : sympy.Expr, optional
        The closed form (exact values), possibly ``oo``.
    how : str
        Rule or quadrature used.
    compute : callable, optional
        ``compute(dps) -> mpf`` for numeric values.
    """

    name: str
    method: str
    expr: sp.Expr | None = None
    how: str = ""
    compute: Callable[[int], object] | None = None
    _memo: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @property
    def is_exact(self) -> bool:
        return self.method == "exact"

    @property
    def is_infinite(self) -> bool:
        return self.expr is not None and self.expr.is_infinite is True

    def mpmath(self, dps: int = 30):
        """The value as an mpmath number with ``dps`` correct digits (target)."""
        check_dps(dps)
        if dps not in self._memo:
            self._memo[dps] = self._evaluate(dps)
            self._require_certain(dps)      # no use of a number without a digit to trust
        return self._memo[dps]

    def _require_certain(self, dps):
        val, err = self._memo[dps], self._memo.get(("error", dps))
        if err is None or mpmath.isinf(val) or self.good_digits(dps) >= MIN_GOOD_DIGITS:
            return
        if abs(val) <= err and err <= mpmath.mpf(10) ** -dps:
            return                   # zero to every requested (absolute) digit
        del self._memo[dps]
        raise UncertainValueError(
            f"{self.name} = {mpmath.nstr(val, 6)} +- {mpmath.nstr(err, 2)} ({self.how}): "
            f"fewer than {MIN_GOOD_DIGITS} significant digits can be trusted (two "
            "independent evaluations disagree; the integrand may oscillate too fast to be "
            "resolved by quadrature)")

    def _evaluate(self, dps):
        with workdps(dps + 10):
            if self.expr is not None:
                if self.expr.is_infinite:
                    return mpmath.inf
                val = mpmath.mpf(str(sp.N(self.expr, dps + 10)))
            else:
                val = self.compute(dps)
                if isinstance(val, tuple):   # (value, error estimate of two evaluations)
                    val, err = val
                    self._memo[("error", dps)] = mpmath.mpf(err)
        with workdps(dps):
            return +val

    def abs_error(self, dps: int = 30):
        """Error estimate of :meth:`mpmath` at ``dps`` (``None`` if the computation gave none:
        closed forms, and numeric values without a second evaluation)."""
        self.mpmath(dps)
        return self._memo.get(("error", dps))

    def good_digits(self, dps: int = 30) -> int:
        """Significant digits (at most ``dps``) that the error estimate guarantees."""
        val, err = self.mpmath(dps), self.abs_error(dps)
        if err is None or err == 0 or mpmath.isinf(val):
            return dps
        if val == 0 or abs(val) <= err:
            return 0
        with workdps(20):
            return int(max(0, min(dps, mpmath.floor(mpmath.log10(abs(val) / err)))))

    def __float__(self) -> float:
        if self.expr is not None:
            return float("inf") if self.expr.is_infinite else float(sp.N(self.expr, 20))
        return float(self.mpmath(17))

    def decimal(self, dps: int = 30) -> str:
        """Decimal string with ``dps`` significant digits (``'inf'`` when infinite); a numeric
        value with an error estimate keeps only the digits the estimate guarantees, and is
        refused (:class:`UncertainValueError`) when fewer than :data:`MIN_GOOD_DIGITS` remain."""
        val = self.mpmath(dps)
        if mpmath.isinf(val):
            return "inf"
        digits = self.good_digits(dps)
        if digits < MIN_GOOD_DIGITS:          # (mpmath() refused the others)
            return "0"          # zero to every printed (absolute) digit
        return mpmath.nstr(val, digits, strip_zeros=False) if val != 0 else "0"

    def latex(self) -> str:
        return sp.latex(self.expr) if self.expr is not None else r"\text{(numeric)}"

    def to_dict(self, dps: int = 30) -> dict:
        out = {"name": self.name, "value": self.decimal(dps), "method": self.method,
               "how": self.how}
        if self.method == "numeric":
            out["digits"] = self.good_digits(dps)
            if self.abs_error(dps) is not None:
                out["abs_error"] = mpmath.nstr(self.abs_error(dps), 3)
        if self.expr is not None:
            out["closed_form"] = str(self.expr)
            out["latex"] = sp.latex(self.expr)
        return out

    def __str__(self):
        closed = f" = {self.expr}" if self.expr is not None else ""
        return f"{self.name}{closed} = {self.decimal(16)}  [{self.method}]"

    def _shown(self) -> str:
        return self.decimal(SHOWN_DIGITS) if self.method == "exact" or self.compute else "?"

    def _short_expr(self) -> str | None:
        if self.expr is None or self.expr.is_Number:
            return None
        text = str(self.expr)
        return text if len(text) <= 60 else None

    def __repr__(self):
        closed = self._short_expr()
        return (f"Value({self.name}{'' if closed is None else ' = ' + closed} = {self._shown()} "
                f"[{self.method}])")

    def _repr_latex_(self) -> str:
        name = LATEX_NAMES.get(self.name)
        if name is None:
            name = (rf"\mu_{{{self.name[3:]}}}" if self.name.startswith("mu_")
                    else rf"\text{{{self.name}}}")
        body = name
        if self.expr is not None and not self.expr.is_Number:
            body += f" = {sp.latex(self.expr)}"
        shown = r"\infty" if self.is_infinite else self._shown()
        body += (rf" = {shown}" if self.expr is not None and self.expr.is_Number
                 else rf" \approx {shown}")
        how = self.method + ("" if self.method == "exact" else f", {self.how}")
        return rf"${body} \quad (\text{{{how}}})$"
