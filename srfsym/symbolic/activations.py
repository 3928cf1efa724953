"""Activations: a registry of named activations and a safe parser for user expressions.

An :class:`Activation` holds one SymPy expression in the real variable ``x`` and
everything the rest of the chain needs from it: its distributional derivative,
its parity, the locations of its kinks and jumps, and generated numpy / mpmath
evaluators.

User text is **never** given to ``sympify`` or ``parse_expr`` (both call
``eval``).  :func:`parse_activation` walks Python's ``ast`` of the text and
accepts only numbers, the variable ``x``, arithmetic operators and a whitelist
of function names, building the SymPy expression node by node.

Examples
--------
>>> from srfsym.symbolic.activations import activation
>>> act = activation("tanh")
>>> act.expr
tanh(x)
>>> act.parity
'odd'
>>> activation("x**3 - 3*x").parity
'odd'
>>> activation("Max(x, 0)").derivative
Heaviside(x)
"""
from __future__ import annotations

import ast
import difflib
import math
import re
from dataclasses import dataclass, field
from functools import cached_property

import sympy as sp

from ..core.precision import workdps
from .expressions import X, ActivationError, lambdify_mpmath, lambdify_numpy  # noqa: F401
from .probes import _PROBES, _check_real_line, _numeric_parity, _provably_nonzero  # noqa: F401

__all__ = [
    "X", "Activation", "ActivationError", "activation", "parse_activation", "parse_expression",
    "REGISTRY", "registry_names",
]




def _relu(u):
    return sp.Max(u, 0)


def _softplus(u):
    return sp.log(1 + sp.exp(u))


def _sigmoid(u):
    return 1 / (1 + sp.exp(-u))


#: Function names accepted in user expressions, and the SymPy constructor they map to.
_FUNCTIONS = {
    "tanh": sp.tanh, "sinh": sp.sinh, "cosh": sp.cosh,
    "sin": sp.sin, "cos": sp.cos, "exp": sp.exp, "log": sp.log,
    "erf": sp.erf, "erfc": sp.erfc, "sqrt": sp.sqrt, "atan": sp.atan, "arctan": sp.atan,
    "abs": sp.Abs, "Abs": sp.Abs, "sign": sp.sign, "Heaviside": sp.Heaviside,
    "heaviside": sp.Heaviside, "Max": sp.Max, "max": sp.Max, "Min": sp.Min, "min": sp.Min,
    "relu": _relu, "softplus": _softplus, "sigmoid": _sigmoid,
}
_CONSTANTS = {"pi": sp.pi, "E": sp.E}
_MAX_LENGTH = 2000
_MAX_POWER = 64
_MAX_DIGITS = 300


def _number(value) -> sp.Expr:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActivationError(f"unsupported literal {value!r}: only real numbers are allowed")
    if isinstance(value, int):
        return sp.Integer(value)
    if not math.isfinite(value):
        raise ActivationError(f"numeric literal {value!r} is not a finite number")
    # exact decimal value of what the user typed (0.1 -> 1/10), never a binary float
    return sp.Rational(repr(value))


#: Deepest nesting of calls, powers and parentheses accepted in an expression.
_MAX_DEPTH = 100


def _build(node: ast.AST, depth: int = 0, names=None, what: str = "activation") -> sp.Expr:
    """SymPy expression of an ``ast`` node; ``names`` maps the allowed variable names to
    their symbols (default: the activation's one variable ``x``); ``what`` names the
    expression in error messages."""
    if names is None:
        names = {"x": X}
    if depth > _MAX_DEPTH:
        raise ActivationError(f"{what} expression nested more than {_MAX_DEPTH} levels deep")
    if isinstance(node, ast.Expression):
        return _build(node.body, depth, names, what)
    if isinstance(node, ast.Constant):
        return _number(node.value)
    if isinstance(node, ast.Name):
        if node.id in names:
            return names[node.id]
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        if list(names) != ["x"]:
            raise ActivationError(
                f"unknown name {node.id!r} in the {what} expression: the variables are "
                f"{', '.join(map(repr, names))}; "
                f"constants: {sorted(_CONSTANTS)}")
        target = (f" ({node.id} names a direction of a multi-index target, docs/theory.md (n), "
                  f"which this computation does not take: it expects an activation in x)"
                  if re.fullmatch(r"z[1-9][0-9]*", node.id) else _did_you_mean(node.id,
                                                                                registry_names()))
        raise ActivationError(
            f"unknown name {node.id!r}{target}: the variable is 'x'; constants: "
            f"{sorted(_CONSTANTS)}; built-in activations: {', '.join(registry_names())}")
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
        negative = False
        while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            negative ^= isinstance(node.op, ast.USub)     # '- - - x': no recursion per sign
            node = node.operand
        operand = _build(node, depth + 1, names, what)
        return -operand if negative else operand
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        terms = []                      # a left-nested chain a + b - c + ...: flattened
        while isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
            terms.append((node.op, node.right))
            node = node.left
        out = [_build(node, depth + 1, names, what)]
        for op, right in reversed(terms):
            term = _build(right, depth + 1, names, what)
            out.append(term if isinstance(op, ast.Add) else -term)
        return sp.Add(*out)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
        factors = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mult, ast.Div)):
            factors.append((node.op, node.right))
            node = node.left
        out = [_build(node, depth + 1, names, what)]
        for op, right in reversed(factors):
            factor = _build(right, depth + 1, names, what)
            if isinstance(op, ast.Div):
                if factor == 0:
                    raise ActivationError(f"division by zero in the {what} expression")
                factor = 1 / factor
            out.append(factor)
        return sp.Mul(*out)
    if isinstance(node, ast.BinOp):
        left = _build(node.left, depth + 1, names, what)
        right = _build(node.right, depth + 1, names, what)
        op = node.op
        if isinstance(op, ast.Pow):
            if right.is_number and abs(right) > _MAX_POWER:
                raise ActivationError(f"exponent {right} too large (limit {_MAX_POWER})")
            if left.is_number and right.is_number and left != 0:
                # constants are folded as they are parsed: bound the size of the result
                digits = abs(float(right)) * abs(math.log10(abs(float(sp.N(left, 15)))) + 1)
                if digits > _MAX_DIGITS:
                    raise ActivationError(
                        f"constant {left}**{right} too large (more than {_MAX_DIGITS} digits)")
            return left ** right
        raise ActivationError(f"operator {type(op).__name__} is not allowed "
                              "(allowed: + - * / **)")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCTIONS:
            name = node.func.id if isinstance(node.func, ast.Name) else ast.dump(node.func)
            raise ActivationError(
                f"unknown function {name!r}{_did_you_mean(name, _FUNCTIONS)}; allowed functions: "
                f"{sorted(set(_FUNCTIONS))}")
        if node.keywords:
            raise ActivationError(f"keyword arguments are not allowed in {what} expressions")
        args = [_build(a, depth + 1, names, what) for a in node.args]
        try:
            return _FUNCTIONS[node.func.id](*args)
        except (TypeError, ValueError) as exc:
            raise ActivationError(f"bad call {node.func.id}(...): {exc}") from None
    raise ActivationError(
        f"syntax element {type(node).__name__} is not allowed in the {what} expression")


def parse_activation(text: str) -> sp.Expr:
    """Parse untrusted text into a SymPy expression in ``x``, without ``eval``.

    Only numbers, the variable ``x``, the constants ``pi`` and ``E``, the operators
    ``+ - * / **`` and whitelisted function names are accepted.

    >>> parse_activation("tanh(2*x) + 0.1*x**3")
    x**3/10 + tanh(2*x)
    >>> parse_activation("__import__('os')")
    Traceback (most recent call last):
    ...
    srfsym.symbolic.expressions.ActivationError: unknown function '__import__'; allowed functions: [...]
    """
    expr = parse_expression(text, {"x": X}, what="activation")
    _check_real_line(expr, text)
    return expr


def _did_you_mean(name: str, known) -> str:
    """`` (did you mean 'tanh'?)`` for a near miss of one of ``known``, else ``''``.

    >>> _did_you_mean("tahn", ["tanh", "erf"]), _did_you_mean("foo", ["tanh", "erf"])
    (" (did you mean 'tanh'?)", '')
    """
    close = difflib.get_close_matches(name, sorted(set(known)), n=1, cutoff=0.7)
    return f" (did you mean {close[0]!r}?)" if close else ""


def parse_expression(text: str, names: dict, what: str = "expression") -> sp.Expr:
    """Parse untrusted text into a SymPy expression in the variables ``names`` (a dict
    name -> SymPy symbol), without ``eval``: the same whitelist as :func:`parse_activation`
    (numbers, ``pi``, ``E``, ``+ - * / **``, whitelisted functions), with other variable
    names.  ``what`` names the expression in error messages.

    >>> import sympy as sp
    >>> y, t = sp.symbols("y yhat", real=True)
    >>> parse_expression("log(1 + exp(-y*yhat))", {"y": y, "yhat": t}, "loss")
    log(1 + exp(-y*yhat))
    """
    if not isinstance(text, str):
        raise ActivationError(f"an {what} expression must be a string, got {type(text).__name__}")
    if len(text) > _MAX_LENGTH:
        raise ActivationError(f"{what} expression longer than {_MAX_LENGTH} characters")
    if not text.strip():
        raise ActivationError(f"empty {what} expression")
    try:
        tree = ast.parse(text.strip().replace("^", "**"), mode="eval")
    except SyntaxError as exc:
        raise ActivationError(f"cannot parse {what} {text!r}: {exc.msg}") from None
    except (RecursionError, MemoryError):
        raise ActivationError(f"{what} expression nested too deeply to parse") from None
    try:
        expr = _build(tree, 0, dict(names), what)
    except RecursionError:
        raise ActivationError(f"{what} expression nested too deeply "
                              f"(limit {_MAX_DEPTH} levels)") from None
    if not isinstance(expr, sp.Expr):
        raise ActivationError(f"{text!r} is not a real-valued expression")
    allowed = set(names.values())
    if expr.free_symbols - allowed:
        raise ActivationError(f"unexpected symbols {expr.free_symbols - allowed}")
    if expr.has(sp.I, sp.zoo, sp.oo, sp.S.NegativeInfinity, sp.nan):
        raise ActivationError(f"{text!r} is not a finite real function of "
                              f"{', '.join(names)}")
    for power in expr.atoms(sp.Pow):   # SymPy folds (x**64)**64 into x**4096
        if (power.base.free_symbols & allowed and power.exp.is_number
                and abs(power.exp) > _MAX_POWER):
            raise ActivationError(f"power {power} too large (exponent limit {_MAX_POWER})")
    return expr


# Functions whose kinks / jumps sit where their (first) argument vanishes.
_KINKED = (sp.Abs, sp.sign, sp.Heaviside, sp.Max, sp.Min)


@dataclass(frozen=True)
class Activation:
    """An activation function sigma(x), given symbolically.

    Parameters
    ----------
    name : str
        Registry name or the user's text.
    expr : sympy.Expr
        The expression in :data:`X`.
    known_closed_form : bool or None
        ``False`` for registry entries known to have no Gaussian closed form
        (tanh, softplus): the expectation engine then goes straight to numerics
        instead of trying ``sympy.integrate``.  ``None`` means "try".

    Examples
    --------
    >>> act = activation("sign")
    >>> act.derivative
    2*DiracDelta(x)
    >>> act.kinks
    (0,)
    >>> float(act.numpy(0.3))
    1.0
    """

    name: str
    expr: sp.Expr
    known_closed_form: bool | None = None
    description: str = ""
    _cache: dict = field(default_factory=dict, compare=False, hash=False, repr=False)

    @cached_property
    def derivative(self) -> sp.Expr:
        """Distributional derivative sigma'(x) (``2*DiracDelta(x)`` for sign)."""
        if _nested_kinks(self.expr):
            return _piecewise_derivative(self.expr, self.kinks)
        expr = self.expr.rewrite(sp.Heaviside) if self.expr.has(sp.Max, sp.Min) else self.expr
        d = sp.diff(expr, X)
        if d.has(sp.DiracDelta):
            d = _collapse_dirac(sp.expand(d))
        if d.has(sp.Heaviside, sp.DiracDelta):
            from ..core.budget import simplify_limited
            d = simplify_limited(d)
        return d

    @cached_property
    def parity(self) -> str:
        """``'odd'``, ``'even'`` or ``'neither'``, decided symbolically."""
        flipped = self.expr.subs(X, -X)
        if _is_zero(flipped + self.expr):
            return "odd"
        if _is_zero(flipped - self.expr):
            return "even"
        # SymPy cannot always simplify piecewise forms (hard-tanh Max(Min(x, 1), -1)):
        # sigma(x) +- sigma(-x) at 40 digits on the probe points decides then, but never against
        # a symbolic proof that it is not zero (x + 1e-40*x**2 is not odd)
        numeric = _numeric_parity(self.expr)
        if numeric != "neither" and _provably_nonzero(
                flipped + self.expr if numeric == "odd" else flipped - self.expr):
            return "neither"
        return numeric

    @property
    def is_odd(self) -> bool:
        return self.parity == "odd"

    @cached_property
    def kinks(self) -> tuple:
        """Real points where sigma or sigma' is not smooth (sorted)."""
        return _kinks_of(self.expr)

    @property
    def has_dirac_derivative(self) -> bool:
        """True when sigma' has a Dirac mass (a jump of sigma), so E[sigma'^2] is infinite."""
        return self.derivative.has(sp.DiracDelta)

    @cached_property
    def numpy(self):
        """Vectorised numpy/scipy evaluator of sigma."""
        return lambdify_numpy(X, self.expr)

    @cached_property
    def numpy_derivative(self):
        """Vectorised evaluator of sigma' away from Dirac masses (those are dropped)."""
        d = self.derivative.replace(sp.DiracDelta, lambda *args: sp.S.Zero)
        return lambdify_numpy(X, d)

    @cached_property
    def mpmath(self):
        """mpmath evaluator of sigma (works at the caller's ``mp.dps``)."""
        return lambdify_mpmath(X, self.expr)

    def latex(self) -> str:
        return sp.latex(self.expr)

    def __str__(self):
        return f"{self.name}: sigma(x) = {self.expr}"


def _collapse_dirac(expr: sp.Expr) -> sp.Expr:
    """``g(x) DiracDelta(u(x))`` with a polynomial ``u`` of simple real roots ``x_i`` ->
    ``sum_i g(x_i) DiracDelta(x - x_i) / |u'(x_i)|`` (so ``(x**2-1)*DiracDelta(x**2-1)``
    and ``x*DiracDelta(x)`` vanish)."""
    out = sp.S.Zero
    for term in sp.Add.make_args(expr):
        deltas = [f for f in sp.Mul.make_args(term) if isinstance(f, sp.DiracDelta)]
        if len(deltas) == 1 and len(deltas[0].args) == 1:
            u = deltas[0].args[0]
            try:
                roots = sorted(_real_roots(u), key=lambda r: float(r))
            except ActivationError:
                roots = None
            du = sp.diff(u, X)
            if roots is not None and all(du.subs(X, r) != 0 for r in roots):
                rest = term / deltas[0]
                from ..core.budget import simplify_limited
                term = sp.Add(*[simplify_limited(rest.subs(X, r) / sp.Abs(du.subs(X, r)))
                                * sp.DiracDelta(X - r) for r in roots])
        out += term
    return out


def _nested_kinks(expr) -> bool:
    """True when a kinked function sits inside another one (hard-tanh ``Max(Min(x, 1), -1)``)."""
    return any(isinstance(n, _KINKED) and any(a.has(*_KINKED) for a in n.args)
               for n in sp.preorder_traversal(expr))


def _piecewise_derivative(expr, kinks):
    """sigma' assembled piece by piece between the kinks: the derivative of each smooth piece
    on its interval, plus a Dirac mass of the size of the jump at each kink."""
    edges = [sp.S.NegativeInfinity, *kinks, sp.oo]
    pieces = [resolve_branches(expr, piece_point(lo, hi)) for lo, hi in zip(edges[:-1], edges[1:])]
    out = sp.S.Zero
    for (lo, hi), p in zip(zip(edges[:-1], edges[1:]), pieces):
        indicator = ((sp.S.One if lo is sp.S.NegativeInfinity else sp.Heaviside(X - lo))
                     * (sp.S.One if hi is sp.oo else sp.Heaviside(hi - X)))
        out += indicator * sp.diff(p, X)
    for x0, left, right in zip(kinks, pieces[:-1], pieces[1:]):
        jump = sp.simplify(right.subs(X, x0) - left.subs(X, x0))
        if jump != 0:
            out += jump * sp.DiracDelta(X - x0)
    return out


def _is_zero(expr: sp.Expr):
    """True / False when decided (symbolically within the simplification time limit, or
    numerically at 60 digits at 24 points when SymPy cannot tell in time)."""
    from ..core.budget import LimitReached, limited, SIMPLIFY_SECONDS
    try:
        expr = limited(lambda: sp.expand(expr), SIMPLIFY_SECONDS)
        if expr == 0:
            return True
        return limited(lambda: sp.simplify(expr), SIMPLIFY_SECONDS) == 0
    except LimitReached:
        pass
    except Exception:  # noqa: BLE001 - sympy cannot tell: decide numerically
        pass
    return _is_zero_numeric(expr)


def _is_zero_numeric(expr) -> bool:
    import mpmath
    f = lambdify_mpmath(X, expr)
    with workdps(60):
        for x0 in _PROBES[1::2]:
            try:
                v = f(mpmath.mpf(x0) + mpmath.mpf(1) / 7)
            except (ZeroDivisionError, ValueError, OverflowError):
                return False
            if abs(v) > mpmath.mpf(10) ** -45:
                return False
    return True


def _kinks_of(expr: sp.Expr) -> tuple:
    points = set()
    for node in sp.preorder_traversal(expr):
        if isinstance(node, (sp.Max, sp.Min)):
            args = node.args
            for i in range(len(args)):
                for j in range(i + 1, len(args)):
                    points |= _kink_roots(args[i] - args[j], node)
        elif isinstance(node, _KINKED):
            points |= _kink_roots(node.args[0], node)
    return tuple(sorted(points, key=lambda p: float(p)))


def _kink_roots(arg: sp.Expr, node) -> set:
    """Real roots of the argument ``arg`` of a kinked function; a piecewise-polynomial
    ``arg`` (e.g. ``Min(x, 1) + 1`` inside hard-tanh) is solved piece by piece."""
    if not arg.has(*_KINKED):
        return _real_roots(arg, node)
    inner = _kinks_of(arg)
    edges = [sp.S.NegativeInfinity, *inner, sp.oo]
    roots = set()
    for lo, hi in zip(edges[:-1], edges[1:]):
        piece = resolve_branches(arg, piece_point(lo, hi))
        if sp.expand(piece) == 0:
            continue                     # arg vanishes on the whole piece: no kink inside
        for r in _real_roots(piece, node):
            if (lo is sp.S.NegativeInfinity or r > lo) and (hi is sp.oo or r < hi):
                roots.add(r)
    return roots | {p for p in inner if resolve_branches(arg, p) == 0}


def piece_point(lo, hi):
    """A point inside the piece (lo, hi) of the real line (ends may be infinite)."""
    if lo is sp.S.NegativeInfinity:
        return sp.S.Zero if hi is sp.oo else hi - 1
    return lo + 1 if hi is sp.oo else (lo + hi) / 2


def branch_value(node, xt):
    """Value of a kinked function ``node`` on the branch containing the point x = xt."""
    if isinstance(node, (sp.Max, sp.Min)):
        vals = [(arg.subs(X, xt), arg) for arg in node.args]
        pick = max if isinstance(node, sp.Max) else min
        return pick(vals, key=lambda v: float(v[0]))[1]
    u = node.args[0]
    sgn = sp.sign(u.subs(X, xt))
    if isinstance(node, sp.Abs):
        return sgn * u
    if isinstance(node, sp.sign):
        return sgn
    if isinstance(node, sp.Heaviside):
        return sp.S.One if sgn > 0 else (sp.S.Zero if sgn < 0 else sp.S.Half)
    raise ActivationError(f"no branch rule for {node}")


def resolve_branches(expr, xt):
    """``expr`` with every kinked function replaced by its branch at x = xt (innermost first)."""
    while expr.has(*_KINKED):
        expr = expr.replace(
            lambda e: isinstance(e, _KINKED) and not any(a.has(*_KINKED) for a in e.args),
            lambda e: branch_value(e, xt))
    return expr


def _real_roots(arg: sp.Expr, node=None) -> set:
    if not arg.has(X):
        return set()
    try:
        poly = sp.Poly(arg, X)
    except sp.PolynomialError:
        where = f" of {node}" if node is not None else ""
        periodic = arg.has(sp.sin, sp.cos)
        raise ActivationError(
            f"cannot locate the kinks{where}: they sit at the real roots of {arg}, which is "
            "not a polynomial in x" + (" (a periodic argument has infinitely many)"
                                       if periodic else "")
            + "; srfsym locates kinks and jumps of sign, Heaviside, Abs, Max and Min only for "
            "polynomial or piecewise-polynomial arguments (e.g. x*sign(x**2 - 2), "
            "Max(Min(x, 1), -1))") from None
    if poly.is_zero:
        return set()
    try:
        return {r for r in sp.real_roots(poly)}
    except (NotImplementedError, sp.polys.polyerrors.DomainError):
        pass                 # coefficients such as sqrt(2) (domain EX): closed-form roots
    roots = sp.roots(poly)
    if sum(roots.values()) != poly.degree():
        where = f" of {node}" if node is not None else ""
        raise ActivationError(
            f"cannot locate the kinks{where}: the real roots of {arg} have no closed form "
            f"over its coefficients ({poly.domain}); write the coefficients as integers or "
            "fractions (e.g. 1.4142 for sqrt(2))")
    return {r for r in roots if r.is_real is True or (
        r.is_real is None and abs(sp.im(sp.N(r, 50))) < sp.Float(10) ** -40)}


# --------------------------------------------------------------------------------------
# registry

def _entry(name, expr, description, known_closed_form=None):
    return Activation(name=name, expr=expr, known_closed_form=known_closed_form,
                      description=description)


REGISTRY = {
    "tanh": lambda: _entry("tanh", sp.tanh(X), "hyperbolic tangent", False),
    "erf": lambda: _entry("erf", sp.erf(X), "error function"),
    "sign": lambda: _entry("sign", sp.sign(X), "sign (jump at 0)"),
    "relu": lambda: _entry("relu", sp.Max(X, 0), "rectified linear unit"),
    "sin": lambda: _entry("sin", sp.sin(X), "sine"),
    "cos": lambda: _entry("cos", sp.cos(X), "cosine"),
    "linear": lambda: _entry("linear", X, "identity"),
    "he2": lambda: _entry("he2", X**2 - 1, "Hermite polynomial He2"),
    "he3": lambda: _entry("he3", X**3 - 3 * X, "Hermite polynomial He3"),
    "softplus": lambda: _entry("softplus", sp.log(1 + sp.exp(X)), "log(1 + e^x)", False),
    "gelu": lambda: _entry("gelu", X * (1 + sp.erf(X / sp.sqrt(2))) / 2,
                           "Gaussian error linear unit x Phi(x)"),
    "sigmoid": lambda: _entry("sigmoid", 1 / (1 + sp.exp(-X)), "logistic 1/(1 + e^-x)", False),
}


def registry_names() -> list:
    """Names of the built-in activations.

    >>> registry_names()[:3]
    ['tanh', 'erf', 'sign']
    """
    return list(REGISTRY)


_ACTIVATION_CACHE: dict = {}


def activation(spec) -> Activation:
    """Return the :class:`Activation` named ``spec`` or parsed from the expression ``spec``.

    ``spec`` may be a registry name (``"tanh"``, ``"relu"``, ``"He3"``), a user
    expression in ``x`` (``"x**3 - 3*x"``, ``"tanh(2*x)"``, ``"Max(x, 0)"``), or an
    :class:`Activation` (returned unchanged).

    >>> activation("He3").expr
    x**3 - 3*x
    >>> activation("relu").parity
    'neither'
    """
    if isinstance(spec, Activation):
        return spec
    if not isinstance(spec, str):
        raise ActivationError(f"activation must be a name or an expression string, got {spec!r}")
    key = spec.strip()
    if key.lower() in REGISTRY:
        key = key.lower()
    if key not in _ACTIVATION_CACHE:
        if key in REGISTRY:
            _ACTIVATION_CACHE[key] = REGISTRY[key]()
        else:
            _ACTIVATION_CACHE[key] = Activation(name=key, expr=parse_activation(key))
    return _ACTIVATION_CACHE[key]
