"""The limit eta -> 0 of an odd student (docs/theory.md (f), *the limit eta -> 0*): every eta > 0
gives the r -> 0+ branch continuously (no refusal band), eta = 0 exactly is plain random features."""
import numpy as np
import pytest

from srfsym import solve
from srfsym.theory.fixed_point import solve_srf

ARGS = ("tanh", "sin", 2.0)


def test_tiny_steps_are_continuous():
    # before: eta = 1e-10 ... 1e-6 stopped with "fixed point not verified", eta = 1e-12 gave the
    # eta = 0 answer (0.31227) and eta = 1e-5 the branch (0.17634)
    errs = [solve(*ARGS, eta, 0.1, 1.0).test_error for eta in (1e-12, 1e-10, 1e-8, 1e-6, 1e-5)]
    direct = solve(*ARGS, 1e-3, 0.1, 1.0).test_error       # r = 4.6e-4: solved as it is
    assert np.all(np.abs(np.array(errs) - direct) < 1e-7)
    plain = solve(*ARGS, 0.0, 0.1, 1.0)
    assert plain.state.m == 0 and plain.test_error - direct > 0.1   # the jump at eta = 0


def test_branch_extrapolation_against_direct_solves():
    # the extrapolation in r^2 from 1e-4, 2e-4 against direct solves at r = 5e-4 and 1e-3
    # extrapolated the same way by hand (an independent pair of solves)
    f = lambda r: solve_srf("tanh", "sin", r, 1.0, 0.8, 0.1, 1.0)
    a, b = f(5e-4), f(1e-3)
    by_hand = a.test_error - (b.test_error - a.test_error) * (5e-4**2 - 1e-9**2) / (1e-3**2 - 5e-4**2)
    tiny = f(1e-9)
    assert abs(tiny.test_error - by_hand) < 1e-9
    assert tiny.state.m == pytest.approx(a.state.m * 5e-4 / 1e-9, rel=1e-3)
    assert any("r -> 0+ branch" in n for n in tiny.notes)
