"""Hostile input (issue #14): each case gives a right value or a clear error, never a hang,
a traceback, a wrong "exact" or digits that are not there.  References are independent
mpmath quadratures of the mathematics, written out here."""
import json
import time

import mpmath
import pytest

from srfsym.activations import ActivationError, activation
from srfsym.cli import main
from srfsym.hermite import hermite_constants

INF = mpmath.inf


def phi(z):
    return mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)


def gauss(f, points=(-INF, INF), dps=40):
    """E f(z), z ~ N(0, 1), by mpmath quadrature split at ``points``."""
    with mpmath.workdps(dps):
        return mpmath.quad(lambda z: f(z) * phi(z), list(points))


def close(text, ref, tol=1e-22):
    """The decimal string ``text`` is within ``tol`` of ``ref`` (compared at 40 digits)."""
    with mpmath.workdps(40):
        return abs(mpmath.mpf(text) - ref) < tol


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def assert_clean_error(code, out, err, *words):
    """Exit 2, nothing on stdout, one line ``srfsym: error: ...`` naming the problem."""
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("srfsym: error: "), err
    for w in words:
        assert w in lines[0], (w, lines[0])


# ---------------------------------------------------------------------------------------
# distributions handled exactly


def test_dirac_times_its_zero_set_cancels():
    """Max(x**2-1, 0): sigma' = 2x 1{|x|>1}, no Dirac mass, E sigma'^2 = 3.2050078276..."""
    hc = hermite_constants("Max(x**2-1,0)")
    with mpmath.workdps(40):
        ref = 2 * mpmath.quad(lambda z: 4 * z * z * phi(z), [1, INF])
    assert hc.checkmu1_sq.is_exact and not hc.checkmu1_sq.is_infinite
    assert close(hc.checkmu1_sq.decimal(25), ref)
    assert not activation("Max(x**3-x,0)").has_dirac_derivative


def test_irrational_kinks():
    """x*sign(x**2-2): kinks at +-sqrt(2); mu1 = E[z^2 sign(z^2-2)]; sigma jumps there."""
    hc = hermite_constants("x*sign(x**2-2)")
    with mpmath.workdps(40):
        s2 = mpmath.sqrt(2)
        ref = 2 * mpmath.quad(lambda z: z * z * phi(z), [s2, INF]) \
            - mpmath.quad(lambda z: z * z * phi(z), [-s2, s2])
    assert close(hc.mu1.decimal(25), ref)
    assert hc.checkmu1_sq.is_infinite          # sigma jumps from -sqrt 2 to sqrt 2


def test_hard_tanh():
    """Max(Min(x,1),-1): sigma' = 1{|x|<1} (no Dirac mass), checkmu1_sq = p - p^2."""
    act = activation("Max(Min(x,1),-1)")
    assert act.kinks == (-1, 1) and not act.has_dirac_derivative
    hc = hermite_constants(act)
    with mpmath.workdps(40):
        p = mpmath.erf(1 / mpmath.sqrt(2))
        e2 = gauss(lambda z: z * z, (-1, 1)) + 2 * mpmath.quad(phi, [1, INF])
        check = p - p * p
    assert close(hc.checkmu1_sq.decimal(25), check)
    assert close(hc.mu2.decimal(25), e2)


def test_periodic_kink_argument_refused_with_reason():
    for text in ("Max(sin(x),0)", "sign(sin(x))"):
        with pytest.raises(ActivationError, match="not a polynomial.*infinitely many"):
            hermite_constants(text)


# ---------------------------------------------------------------------------------------
# deep expressions


def test_long_sum_and_many_minus_signs():
    assert activation("+".join(["x"] * 999)).expr == 999 * activation("x").expr
    assert activation("-" * 1900 + "x").expr == activation("x").expr
    assert activation("-" * 1901 + "x").expr == -activation("x").expr


def test_deep_nesting_is_a_clear_error():
    with pytest.raises(ActivationError, match="nested"):
        activation("tanh(" * 150 + "x" + ")" * 150)
    with pytest.raises(ActivationError):
        activation("(" * 1000 + "x" + ")" * 1000)


def test_unknown_name_lists_builtins():
    with pytest.raises(ActivationError, match="built-in activations: .*relu"):
        activation("nosuchname")
