"""The fixed point's kappa-node ladder: converged at large spike strength r, never silent.

At large r the student's coefficients mu0(kappa), mu1(kappa) become steps; the fixed point's
kappa rule is then cut at the transitions (as the bounds' rule is).  The reference for the
lambda -> oo limit is the bounds' upper bound U (docs/theory.md: the lambda -> oo limit of
the fixed point equals U at every gamma), computed by the projections, not by the fixed point.
"""
import pytest
import sympy

from srfsym.theory import fixed_point_groups, solvers
from srfsym.theory.bounds import bounds
from srfsym.theory.fixed_point import ConvergenceError, solve, solve_srf

POINT = ("tanh", "sin", 30.0, 1.0, 1.0)     # student, teacher, r, c, gamma


def test_large_lambda_approaches_the_upper_bound_at_large_r():
    upper = bounds(*POINT).upper
    res = solve_srf(*POINT, lam=1e8, alpha=2.0)
    assert not res.notes
    assert abs(res.test_error - upper) < 1e-9


def test_large_r_converges_in_the_nodes():
    res = solve_srf(*POINT, lam=0.1, alpha=2.0)
    assert not res.notes and res.node_error < 1e-11
    # two explicit node counts (the chosen one and twice it) agree
    other = solve_srf(*POINT, lam=0.1, alpha=2.0, nodes=2 * res.nodes)
    assert abs(other.test_error - res.test_error) < 1e-9


def test_a_short_ladder_refuses_rather_than_returns_contradicted_digits(monkeypatch):
    # the plain Gauss-Hermite ladder of small r, stopped early: its last change is ~1e-2
    monkeypatch.setattr(solvers, "node_rule", lambda student, rs, cs, ladder: ((), (48, 72)))
    with pytest.raises(ConvergenceError, match=r"did not converge.*nodes=") as exc:
        solve_srf(*POINT, lam=0.1, alpha=2.0)
    assert exc.value.residual > 1e-6


def test_groups_short_ladder_refuses(monkeypatch):
    monkeypatch.setattr(fixed_point_groups, "node_rule",
                        lambda student, rs, cs, ladder: ((), (48, 72)))
    with pytest.raises(ConvergenceError, match="solve_srf_groups"):
        fixed_point_groups.solve_srf_groups(*POINT, 0.1, 2.0, vocabulary=[1, 2])


def test_the_answer_does_not_depend_on_what_was_solved_before():
    # same (r, c, gamma); the first point's ladder stops at 48 nodes, the second's at 243
    def run(order):
        return {lam: solve("tanh", "sin", 1.0, 2.0, lam, alpha).test_error
                for lam, alpha in order}
    points = [(1.0, 4.0), (1e-4, 0.5)]
    first, second = run(points), run(points[::-1])
    assert first == second


@pytest.mark.parametrize("name", ["lam", "alpha"])
def test_a_symbol_is_refused_naming_the_parameter(name):
    kwargs = {"lam": 0.1, "alpha": 2.0, name: sympy.Symbol("e")}
    with pytest.raises(ValueError, match="lambda" if name == "lam" else "alpha"):
        solve_srf("tanh", "sin", 1.0, 1.0, 1.0, **kwargs)
    with pytest.raises(ValueError, match="lambda" if name == "lam" else "alpha"):
        solve("tanh", "sin", 1.0, 2.0, **kwargs)


def test_two_counts_giving_the_same_rule_are_not_a_convergence():
    """relu at r = 1.9: the rule is cut at the student's kink (6 pieces, at least 16 nodes
    each), so 48 and 72 nodes are the same 96-node rule; their agreement proves nothing (it
    used to stop there, 2.9e-7 off).  Reference: a 1500-node rule."""
    args = ("relu", "sin", 1.9, 1.0, 0.8, 1e-3, 0.7)
    res = solve_srf(*args)
    assert abs(res.test_error - solve_srf(*args, nodes=1500).test_error) < 1e-10


def test_a_certified_count_is_reused_for_the_same_point_with_the_same_answer(monkeypatch):
    """``nodes="auto"`` climbs once per point; the same point again is one solve at the count
    the climb certified, from its (V1, V2), with the same numbers, node error and notes (no
    history: the count is the one a new climb finds, the numbers those of a solve at it)."""
    monkeypatch.setattr(solvers, "_CERTIFIED", {})
    first = solve("tanh", "sin", 20, 3, 0.1, 1.0)
    assert len(solvers._CERTIFIED) == 1

    def no_climb(*args, **kwargs):
        raise AssertionError("climbed again")
    monkeypatch.setattr(solvers, "climb_nodes", no_climb)
    again = solve("tanh", "sin", 20, 3, 0.1, 1.0)
    assert (again.test_error, again.state, again.nodes, again.node_error, again.notes) == (
        first.test_error, first.state, first.nodes, first.node_error, first.notes)
    # the one solve starts Newton at the certified (V1, V2): no step, the same numbers as a
    # solve at that count from the usual start (no history)
    assert again.iterations == 1 < first.iterations
    assert solve("tanh", "sin", 20, 3, 0.1, 1.0, nodes=first.nodes).state == again.state
    with pytest.raises(AssertionError, match="climbed again"):   # another point climbs
        solve("tanh", "sin", 20, 3, 0.1, 1.5)


def test_the_exact_bulk_of_a_non_odd_student_reuses_its_count(monkeypatch):
    """The exact bulk climbs its count on the isotropic bulk at the same (r, c, gamma); the same
    point again takes that certified count from the cache, warm-started, with the same answer
    (the isotropic rung's solver used to refuse the warm start: TypeError on the second call)."""
    monkeypatch.setattr(solvers, "_CERTIFIED", {})
    args = ("relu", "relu", 2.0, 0.5, 0.05, 2.0)
    first = solve(*args, bulk="exact")
    assert len(solvers._CERTIFIED) == 1
    again = solve(*args, bulk="exact")
    assert again.nodes == first.nodes
    assert abs(again.test_error - first.test_error) < 1e-12
