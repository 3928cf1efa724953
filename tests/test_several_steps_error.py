"""The test error after T steps (docs/theory.md (p.4)) and the bulk inside the subspace."""
import warnings

import mpmath
import numpy as np
import pytest

from srfsym.step.mapping import srf_mapping
from srfsym.step.several_steps import several_steps
from srfsym.theory.fixed_point import solve_srf
from srfsym.theory.several_steps_error import several_steps_error


@pytest.mark.parametrize("student,teacher", [("erf", "sin"), ("relu", "x**3 - x")])
def test_one_step_vector_kappa_is_the_one_step_fixed_point(student, teacher):
    # the target direction and the spike's noise direction are conditioned on (theta per
    # direction) instead of psi/h1: the same number within the rules' node error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = srf_mapping(student, teacher, 1, 2)
        want = solve_srf(student, teacher, m.r, m.c, m.gamma, 0.1, 1.5).test_error
    got = several_steps_error(student, teacher, 1, 2, 1, 0.1, 1.5)
    assert abs(got.test_error - want) < max(5 * got.node_error, 1e-7) * max(1, abs(want))


def test_steps_lower_the_error_with_a_second_direction():
    kw = dict(lam=0.1, alpha=1.0, vocabulary=[1, -1])
    errs = [several_steps_error("relu", "z1 + z1*z2", 1, 2, T, **kw).test_error
            for T in (1, 2)]
    assert errs[1] < errs[0] - 0.2


def test_bulk_inside_the_subspace_after_one_step():
    # relu on g = z1 + z1^2 - 1: the neuron's own theta1 component is rescaled by
    # J = 1 + eta E[sigma''] E[(g - mu0) z1^2] and gains eta^2 E[(g - mu0)^2 z1^2] checkmu1^2
    # / alpha0 (1-D quadratures here, the map's tensor rule there)
    mpmath.mp.dps = 30
    mu0, dd = 1 / mpmath.sqrt(2 * mpmath.pi), 1 / mpmath.sqrt(2 * mpmath.pi)
    phi = lambda z: mpmath.exp(-z * z / 2) / mpmath.sqrt(2 * mpmath.pi)    # noqa: E731
    E = lambda f: mpmath.quad(lambda z: phi(z) * f(z), [-mpmath.inf, mpmath.inf])  # noqa: E731
    g = lambda z: z + z * z - 1                                            # noqa: E731
    J = 1 + dd * E(lambda z: (g(z) - mu0) * z * z)
    C = J**2 + E(lambda z: (g(z) - mu0)**2 * z * z) * mpmath.mpf(1) / 4 / 2
    st = several_steps("relu", "z1 + z1**2 - 1", 1, 2, 1).states[1]
    assert abs(st.bulk_in_subspace[0][0, 0] - float(C)) < 1e-9
    assert abs(st.bulk_in_subspace[0][1, 1] - st.bulk_variances[0]) < 1e-9   # noise direction
