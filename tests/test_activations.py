"""Independent tests of the activation registry and the safe parser (srfsym.symbolic.activations).

Expected expressions, parities and derivatives are written out here from their definitions;
parities are also confirmed numerically by evaluating the expression at +-x.
"""
from __future__ import annotations

import builtins

import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.symbolic.activations import (X, Activation, ActivationError, activation, parse_activation,
                                registry_names)
from conftest import assert_mp_close




def same(a, b):
    return sp.simplify(sp.expand(a - b)) == 0


# --------------------------------------------------------------------------------------
# registry

REGISTRY_EXPECTED = {
    # name: (expression, parity, derivative)
    "tanh": (sp.tanh(X), "odd", 1 - sp.tanh(X)**2),
    "erf": (sp.erf(X), "odd", 2 * sp.exp(-X**2) / sp.sqrt(sp.pi)),
    "sign": (sp.sign(X), "odd", 2 * sp.DiracDelta(X)),
    "relu": (sp.Max(X, 0), "neither", sp.Heaviside(X)),
    "sin": (sp.sin(X), "odd", sp.cos(X)),
    "cos": (sp.cos(X), "even", -sp.sin(X)),
    "linear": (X, "odd", sp.S.One),
    "he2": (X**2 - 1, "even", 2 * X),
    "he3": (X**3 - 3 * X, "odd", 3 * X**2 - 3),
    "softplus": (sp.log(1 + sp.exp(X)), "neither", 1 / (1 + sp.exp(-X))),
    # GELU x Phi(x): sigma' = Phi(x) + x phi(x)
    "gelu": (X * (1 + sp.erf(X / sp.sqrt(2))) / 2, "neither",
             (1 + sp.erf(X / sp.sqrt(2))) / 2 + X * sp.exp(-X**2 / 2) / sp.sqrt(2 * sp.pi)),
    "sigmoid": (1 / (1 + sp.exp(-X)), "neither", sp.exp(-X) / (1 + sp.exp(-X))**2),
}


def test_registry_is_what_we_expect():
    assert set(registry_names()) == set(REGISTRY_EXPECTED)


@pytest.mark.parametrize("name", list(REGISTRY_EXPECTED))
def test_registry_entry(name):
    expr, parity, deriv = REGISTRY_EXPECTED[name]
    act = activation(name)
    assert isinstance(act, Activation)
    assert same(act.expr, expr), act.expr
    assert act.parity == parity
    assert act.is_odd == (parity == "odd")
    assert same(act.derivative, deriv), act.derivative
    # the name is case-insensitive and the object is returned unchanged
    assert activation(name.upper()).expr == act.expr
    assert activation(act) is act
    # numerical confirmation of the parity, independent of the symbolic decision
    pts = [sp.Rational(3, 10), sp.Rational(17, 10), sp.Rational(5, 2)]
    vals = [(float(expr.subs(X, t)), float(expr.subs(X, -t))) for t in pts]
    if parity == "odd":
        assert all(abs(p + m) < 1e-14 for p, m in vals)
    elif parity == "even":
        assert all(abs(p - m) < 1e-14 for p, m in vals)
    else:
        assert any(abs(p + m) > 1e-3 for p, m in vals) and any(abs(p - m) > 1e-3 for p, m in vals)


@pytest.mark.parametrize("name", list(REGISTRY_EXPECTED))
def test_registry_every_name_parses_as_an_expression_too(name):
    # every registry expression, printed and parsed back by the safe parser, is the same
    expr = REGISTRY_EXPECTED[name][0]
    assert same(parse_activation(str(expr)), expr)


def test_registry_evaluators():
    xs = np.array([-2.0, -0.5, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(activation("tanh").numpy(xs), np.tanh(xs), rtol=1e-15)
    np.testing.assert_allclose(activation("relu").numpy(xs), np.maximum(xs, 0), rtol=1e-15)
    np.testing.assert_array_equal(activation("sign").numpy(xs), np.sign(xs))
    np.testing.assert_allclose(activation("softplus").numpy(xs), np.log1p(np.exp(xs)), rtol=1e-14)
    with mpmath.workdps(40):
        x = mpmath.mpf("0.3")
        assert_mp_close(activation("erf").mpmath(x), mpmath.erf(x), 40)
        assert_mp_close(activation("softplus").mpmath(x), mpmath.log(1 + mpmath.exp(x)), 40)


def test_derivative_conventions():
    # relu' = Heaviside with Heaviside(0) = 1/2 (SymPy's convention) in every back end
    relu = activation("relu")
    assert relu.derivative == sp.Heaviside(X)
    assert sp.Heaviside(0) == sp.Rational(1, 2)
    np.testing.assert_array_equal(relu.numpy_derivative(np.array([-1.0, 0.0, 1.0])),
                                  [0.0, 0.5, 1.0])
    assert not relu.has_dirac_derivative
    # sign' = 2 delta: a jump, so E[sigma'^2] is infinite; the numpy derivative drops the mass
    sign = activation("sign")
    assert sign.derivative == 2 * sp.DiracDelta(X)
    assert sign.has_dirac_derivative
    np.testing.assert_array_equal(sign.numpy_derivative(np.array([-1.0, 0.5])), [0.0, 0.0])
    assert sign.kinks == (0,) and relu.kinks == (0,)
    assert activation("tanh").kinks == ()


# --------------------------------------------------------------------------------------
# user expressions

USER = {
    # text: (expression, parity, derivative, kinks)
    "x**3 - 3*x": (X**3 - 3 * X, "odd", 3 * X**2 - 3, ()),
    "tanh(2*x)": (sp.tanh(2 * X), "odd", 2 - 2 * sp.tanh(2 * X)**2, ()),
    "Max(x, 0)": (sp.Max(X, 0), "neither", sp.Heaviside(X), (0,)),
    "x/(1+abs(x))": (X / (1 + sp.Abs(X)), "odd", 1 / (1 + sp.Abs(X))**2, (0,)),
    "tanh(x) + 0.1*x**3": (sp.tanh(X) + sp.Rational(1, 10) * X**3, "odd",
                           1 - sp.tanh(X)**2 + sp.Rational(3, 10) * X**2, ()),
}


@pytest.mark.parametrize("text", list(USER))
def test_user_expression(text):
    expr, parity, deriv, kinks = USER[text]
    act = activation(text)
    assert same(act.expr, expr), act.expr
    assert not act.expr.has(sp.Float), "decimal literals must become exact rationals"
    assert act.parity == parity
    assert act.kinks == kinks
    # derivative: compare at points away from the kinks (Abs/sign forms differ symbolically)
    for t in (sp.Rational(-17, 10), sp.Rational(-1, 3), sp.Rational(2, 5), sp.Rational(9, 4)):
        assert abs(float((act.derivative - deriv).subs(X, t))) < 1e-14, (text, t)
    # numpy evaluator against a direct evaluation of the expected expression
    xs = [-1.7, -0.3, 0.4, 2.25]
    np.testing.assert_allclose(act.numpy(np.array(xs)), [float(expr.subs(X, t)) for t in xs],
                               rtol=1e-14)


def test_other_kinked_user_expressions():
    assert activation("Max(x, -1)").kinks == (-1,)
    h = activation("Heaviside(x-1)*x")
    assert h.kinks == (1,)
    assert h.has_dirac_derivative  # jump of height 1 at x = 1
    assert activation("abs(x)").parity == "even"
    assert same(activation("abs(x)").derivative, sp.sign(X))


# --------------------------------------------------------------------------------------
# the parser rejects what it must, with a message that names the problem

REJECT = [
    ("__import__('os')", "__import__"),
    ("__import__('os').system('true')", "Attribute"),
    ("x.real", "Attribute"),
    ("lambda x: x", "Lambda"),
    ("[x]", "List"),
    ("{x: 1}", "Dict"),
    ("{x}", "Set"),
    ("[x for x in range(3)]", "ListComp"),
    ("(t for t in (x,))", "GeneratorExp"),
    ("y", "unknown name 'y'"),
    ("x + t", "unknown name 't'"),
    ("eval(x)", "unknown function 'eval'"),
    ("open(x)", "unknown function 'open'"),
    ("exec('1')", "unknown function 'exec'"),
    ("getattr(x, 'real')", "unknown function 'getattr'"),
    ("Max(x, 0, key=abs)", "keyword"),
    ("'abc'", "literal"),
    ("\"x\" * 3", "literal"),
    ("exp(x**2", "cannot parse"),
    ("x +* 2", "cannot parse"),
    ("x**100000", "exponent"),
    ("x**(10**10)", "exponent"),
    ("2**2**2**2**2**2", "exponent"),
    ("x**-1000", "exponent"),
    ("", "empty"),
    ("   ", "empty"),
    ("x if x else 1", "IfExp"),
    ("x < 1", "Compare"),
    ("x % 2", "Mod"),
    ("1j * x", "literal"),
    ("True", "literal"),
    ("sqrt(-1)", "finite real"),
    ("x/0", "division by zero"),
    ("sin(x, x)", "bad call"),
    ("x" * 3000, "longer than"),
]


@pytest.mark.parametrize("text,fragment", REJECT, ids=[t[:30] for t, _ in REJECT])
def test_parser_rejects(text, fragment):
    with pytest.raises(ActivationError) as info:
        parse_activation(text)
    assert fragment in str(info.value), str(info.value)
    # activation() goes through the same parser
    with pytest.raises(ActivationError):
        activation(text)


@pytest.mark.parametrize("value", [3, 1.5, None, ["x"], b"x", sp.sin(X)])
def test_parser_rejects_non_strings(value):
    with pytest.raises(ActivationError) as info:
        parse_activation(value)
    assert "must be a string" in str(info.value)
    with pytest.raises(ActivationError):
        activation(value)


def test_activation_error_is_a_value_error():
    assert issubclass(ActivationError, ValueError)


def test_parser_rejects_overflowing_literal():
    with pytest.raises(ActivationError):
        parse_activation("1e309 * x")


def test_parser_rejects_nested_huge_powers():
    with pytest.raises(ActivationError):
        parse_activation("((9**64)**64)**64")


# --------------------------------------------------------------------------------------
# no eval anywhere on the parsing path

def test_parser_never_calls_eval(monkeypatch):
    def forbidden(*args, **kwargs):
        raise AssertionError("eval/parse_expr called on user text")

    import sympy.parsing.sympy_parser as sympy_parser
    monkeypatch.setattr(builtins, "eval", forbidden)
    monkeypatch.setattr(sympy_parser, "parse_expr", forbidden)
    texts = ["x**3 - 3*x", "tanh(2*x) + 0.1*x**3", "Max(x, 0)", "x/(1+abs(x))",
             "erf(x/sqrt(2)) * exp(-x**2/4)", "sigmoid(x) - 1/2"]
    for text in texts:
        expr = parse_activation(text)
        assert expr.free_symbols == {X}
    # parity / derivative / kinks of a fresh (uncached) user expression, still without eval
    act = activation("sinh(x)/(1 + x**2) + 0.25*x")
    assert act.parity == "odd"
    assert act.kinks == ()
    assert act.derivative.has(sp.cosh)
    # and the unsafe inputs still fail in the parser, not in eval
    with pytest.raises(ActivationError):
        parse_activation("__import__('os')")


@pytest.mark.parametrize("text, needle", [
    ("1/x", "not defined at x = 0"),
    ("1/(x - 0.3)", "singular"),
    ("log(x)", "complex"),
    ("sqrt(x)", "complex"),
    ("x**(1/3)", "complex"),
    ("Abs(x)**(-0.5)", "not defined"),
    ("Max()", "not a finite real function"),
    ("(x**64)**64", "too large"),
])
def test_functions_not_finite_and_real_on_the_line_are_refused(text, needle):
    with pytest.raises(ActivationError, match=needle):
        activation(text)


@pytest.mark.parametrize("text", ["sqrt(Abs(x))", "1/cosh(x)", "1/(1 + x**2)", "x*Heaviside(x - 1)"])
def test_functions_finite_and_real_on_the_line_are_accepted(text):
    act = activation(text)
    assert act.expr.has(X)
