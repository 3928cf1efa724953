"""Multi-index targets: parsing, E g, E g^2 and c1 against independent quadrature."""
import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.symbolic.expressions import ActivationError
from srfsym.symbolic.targets import is_multi_index, multi_index_target


def _gauss2(poly):
    """E poly(z1, z2) from the moments E z^n = (n-1)!! term by term (independent of the
    engine's rule table)."""
    z1, z2 = sp.symbols("z1 z2", real=True)
    moment = lambda n: 0 if n % 2 else sp.factorial2(n - 1)
    p = sp.Poly(sp.expand(poly(z1, z2)), z1, z2)
    return sum(c * moment(i) * moment(j) for (i, j), c in p.terms())


def test_polynomial_target_exact_against_2d_quadrature():
    t = multi_index_target("z1 + z1*z2 + z2**3/3")
    assert t.k == 2
    assert all(v.is_exact for v in (t.mean, t.second_moment, *t.first_order))
    g = lambda a, b: a + a * b + b**3 / 3
    assert sp.simplify(t.second_moment.expr - _gauss2(lambda a, b: g(a, b) ** 2)) == 0
    assert sp.simplify(t.first_order[1].expr - _gauss2(lambda a, b: g(a, b) * b)) == 0
    assert t.first_order[1].expr == 1 and t.second_moment.expr == sp.Rational(11, 3)


def test_separable_target_numeric_parts_certified():
    t = multi_index_target("tanh(2*z1) + (z2**2 - 1)/sqrt(2)")
    with mpmath.workdps(40):
        cuts = [-mpmath.inf, -6, -3, -1, 0, 1, 3, 6, mpmath.inf]
        et2 = mpmath.quad(lambda u: mpmath.tanh(2 * u) ** 2 * mpmath.npdf(u), cuts)
        ez = mpmath.quad(lambda u: u * mpmath.tanh(2 * u) * mpmath.npdf(u), cuts)
        assert abs(t.second_moment.mpmath(30) - (et2 + 1)) < mpmath.mpf(10) ** -29
        assert abs(t.first_order[0].mpmath(30) - ez) < mpmath.mpf(10) ** -29
    assert t.first_order[1].is_exact and t.first_order[1].expr == 0
    assert t.mean.is_exact and t.mean.expr == 0


def test_non_separable_target_numeric_with_error():
    t = multi_index_target("tanh(z1 + z2/2) + sin(z2)/2")
    # Stein: E[z1 tanh(z1 + z2/2)] = E sech^2(u), u ~ N(0, 5/4)
    with mpmath.workdps(30):
        s = mpmath.sqrt(mpmath.mpf(5) / 4)
        ref = mpmath.quad(lambda u: mpmath.sech(s * u) ** 2 * mpmath.npdf(u),
                          [-mpmath.inf, 0, mpmath.inf])
    c1 = t.first_order[0]
    assert c1.method == "numeric"
    assert abs(c1.mpmath(20) - ref) < 1e-10
    assert c1.abs_error(20) < 1e-8


def test_numpy_evaluator_and_k():
    t = multi_index_target("tanh(z1) + 0*z2")
    assert t.k == 2 and t.expr == sp.tanh(t.variables[0])
    Z = np.random.default_rng(0).standard_normal((5, 2))
    assert np.allclose(t.numpy(Z), np.tanh(Z[:, 0]))
    with pytest.raises(ValueError, match=r"shape \(n, 2\)"):
        t.numpy(Z[:, :1])
    assert multi_index_target("x**2").k == 1
    assert is_multi_index("z2") and not is_multi_index("tanh")


@pytest.mark.parametrize("text, match", [
    ("z1 + y", "unknown name"), ("__import__('os')", "unknown function"),
    ("z7", "at most 4"), ("", "empty")])
def test_bad_targets_refused(text, match):
    with pytest.raises(ActivationError, match=match):
        multi_index_target(text)
