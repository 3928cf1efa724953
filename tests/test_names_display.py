"""One meaning per name, Values that show their number, symbols that substitute."""
import warnings

import mpmath
import pytest
import sympy as sp

import srfsym
from srfsym import symbols


def test_second_moment_and_hermite_coefficient_are_different_names():
    hc = srfsym.hermite_constants("relu")
    # E relu(z)^2 = 1/2 and E[relu(z) He_2(z)] = E[relu (z^2 - 1)] = 1/sqrt(2 pi), by quadrature
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)   # noqa: E731
    e2 = mpmath.quad(lambda z: z * z * phi(z), [0, mpmath.inf])
    he2 = mpmath.quad(lambda z: z * (z * z - 1) * phi(z), [0, mpmath.inf])
    assert abs(mpmath.mpf(hc.second_moment.decimal(25)) - e2) < 1e-22
    assert abs(mpmath.mpf(hc.mu_k(2).decimal(25)) - he2) < 1e-22
    assert abs(e2 - he2) > 0.1
    assert "second_moment" in hc.as_dict() and "mu2" not in hc.as_dict()


def test_old_name_still_works_and_warns():
    hc = srfsym.hermite_constants("erf")
    with pytest.warns(DeprecationWarning, match="second_moment"):
        old = hc.mu2
    assert old is hc.second_moment


def test_value_repr_shows_number_and_method():
    v = srfsym.hermite_constants("sin").mu1                  # exp(-1/2)
    assert repr(v) == "Value(mu1 = exp(-1/2) = 0.6065306597 [exact])"
    t = srfsym.hermite_constants("tanh").mu1                 # numeric
    assert repr(t) == "Value(mu1 = 0.6057055096 [numeric])"   # docs/theory.md (b) table
    assert "compute=" not in repr(t) and "<function" not in repr(t)


def test_value_latex():
    v = srfsym.srf_mapping("tanh", "sin", eta=3, alpha0=20).spike_strength_value
    latex = v._repr_latex_()
    assert latex.startswith("$r") and latex.endswith("$")
    assert "1.134055509" in latex and r"\text{" in latex
    inf = srfsym.hermite_constants("sign").checkmu1_sq._repr_latex_()
    assert r"\infty" in inf
    # the closed form shown is the one of the Value
    e = srfsym.hermite_constants("erf").mu1
    assert sp.latex(e.expr) in e._repr_latex_()


def test_symbols_substitute_where_plain_symbols_do_not():
    co = srfsym.cget_coefficients("sin")
    assert co.params == (symbols.kappa, symbols.r, symbols.c)
    plain = co.mu0.subs({sp.Symbol("c"): 1})
    assert plain == co.mu0                                    # the SymPy pitfall
    at = co.mu0.subs({symbols.c: 1, symbols.r: 1, symbols.kappa: sp.Rational(1, 2)})
    # E_xi sin(1/2 + xi) = e^{-1/2} sin(1/2), checked by quadrature
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)   # noqa: E731
    ref = mpmath.quad(lambda z: mpmath.sin(0.5 + z) * phi(z), [-mpmath.inf, mpmath.inf])
    assert abs(float(at) - float(ref)) < 1e-14
    assert symbols.subs(co.mu0, c=1, r=1, kappa=sp.Rational(1, 2)) == at
    with pytest.raises(ValueError, match="unknown parameter name 'C'"):
        symbols.subs(co.mu0, C=1)
    tf = srfsym.teacher_functions("sin")
    assert tf.params == (symbols.kappa, symbols.gamma)
