"""Multi-index targets (docs/theory.md (n)): the one-step map, the test error, its reductions to
the single-index theory, the Hermite structure, and the network within its error bar."""
import math

import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.step.multi_index import multi_index_mapping
from srfsym.step.mapping import srf_mapping
from srfsym.step.target_structure import second_step_signal, target_structure
from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.theory.multi_index import solve_multi_index, solve_multi_index_srf

R, C, LAM = 0.8, 1.3, 0.1


@pytest.mark.parametrize("student, teacher, gamma", [("tanh", "tanh", 0.7), ("relu", "sin", 0.5),
                                                     ("erf", "x**3 - 3*x", -0.6)])
def test_k1_reproduces_the_single_index_fixed_point(student, teacher, gamma):
    for alpha in (0.5, 2.0):
        ref = solve_srf(student, teacher, R, C, gamma, LAM, alpha, nodes=120).test_error
        got = solve_multi_index_srf(student, teacher, R, C, (gamma,), LAM, alpha,
                                    nodes=120).test_error
        assert abs(got - ref) < 1e-12 * max(1.0, ref)


@pytest.mark.parametrize("target, gvec", [
    ("tanh((z1 + z2)/sqrt(2))", (0.7 / math.sqrt(2), 0.7 / math.sqrt(2))),
    ("tanh(z1) + 0*z2", (0.7, 0.0)),
    ("tanh((3*z1 - 4*z3)/5)", (0.42, 0.0, -0.56))])
def test_a_target_of_one_direction_gives_the_single_index_numbers(target, gvec):
    for alpha in (0.5, 2.0):
        ref = solve_srf("tanh", "tanh", R, C, 0.7, LAM, alpha, nodes=120).test_error
        got = solve_multi_index_srf("tanh", target, R, C, gvec, LAM, alpha, nodes=120)
        assert abs(got.test_error - ref) < 1e-10


def test_rotated_target_through_solve_matches_the_mapping_and_error():
    single = solve("tanh", "tanh", 4, 2, LAM, 1.0, nodes=120)
    multi = solve("tanh", "tanh((z1 - z2)/sqrt(2))", 4, 2, LAM, 1.0, nodes=120)
    assert abs(multi.mapping.r - single.mapping.r) < 1e-12
    assert abs(multi.mapping.gamma - single.mapping.gamma) < 1e-12
    assert abs(multi.test_error - single.test_error) < 1e-10


def test_mapping_exact_alignment_vector_and_against_the_single_index_formula():
    m = multi_index_mapping("tanh", "z1 + z1*z2", eta=2, alpha0=4)
    # c1 = (1, 0), E g^2 = 2: gamma = 1/sqrt(1 + 2/4) (independent arithmetic)
    assert sp.simplify(m.alignment_vector[0].expr - sp.sqrt(sp.Rational(2, 3))) == 0
    assert m.alignment_vector[1].expr == 0
    # the same r and c as a single-index teacher with mu1_star = 1, E y^2 = 2: 2 He_3/sqrt(6)...
    # here sqrt(2)*He_1-free check: x + (x**2 - 1) has mu1_star = 1, E y^2 = 3: compare instead
    # z1 + z1*z2 with the single-index teacher x*sqrt(2) (mu1_star = sqrt 2, E y^2 = 2) scaled
    single = srf_mapping("tanh", "x + (x**2 - 1)/sqrt(2)", 2, 4)    # mu1* = 1, E y^2 = 2
    assert abs(m.spike_strength - single.spike_strength) < 1e-13
    assert abs(m.bulk_variance - single.bulk_variance) < 1e-13


def test_no_first_order_part_means_nothing_is_learned():
    m = multi_index_mapping("tanh", "z1*z2", eta=1, alpha0=2)
    assert all(g.expr == 0 for g in m.alignment_vector) and m.spike_strength > 0
    assert any("c1 = 0" in n for n in m.notes)


def test_hermite_tensors_against_independent_quadrature():
    st = target_structure("tanh(2*z1) + (z2**2 - 1)/sqrt(2) + z1*z2", order=3)
    with mpmath.workdps(40):
        cuts = [-mpmath.inf, -6, -3, -1, 0, 1, 3, 6, mpmath.inf]
        c30 = mpmath.quad(lambda u: mpmath.tanh(2 * u) * (u**3 - 3 * u) * mpmath.npdf(u), cuts)
        assert abs(st.tensors[(3, 0)].mpmath(30) - c30) < mpmath.mpf(10) ** -28
    assert st.tensors[(0, 2)].expr == sp.sqrt(2) and st.tensors[(1, 1)].expr == 1
    assert st.tensors[(2, 1)].expr == 0 and st.tensors[(0, 3)].expr == 0
    assert st.information_exponent == 1 and st.leap == 1      # z2 via z1*z2 after z1


@pytest.mark.parametrize("target, info, leap, stairs", [
    ("z1*z2*z3", 3, 3, ((1, 2, 3),)),
    ("z1 + z1*z2 + z1*z2*z3", 1, 1, ((1,), (2,), (3,))),
    ("z1 + z2**2 - 1", 1, 2, ((1, 2),)),
    ("z1**3 - 3*z1", 3, 3, ((1,),))])
def test_information_exponent_leap_and_staircase(target, info, leap, stairs):
    st = target_structure(target, order=3)
    assert (st.information_exponent, st.leap, st.staircase) == (info, leap, stairs)


def test_second_step_reaches_z2_with_relu_not_with_tanh():
    relu = second_step_signal("relu", "z1 + z1*z2", eta=2, alpha0=4)
    tanh = second_step_signal("tanh", "z1 + z1*z2", eta=2, alpha0=4)
    # Stein: the signal along z2 is E[mu1(kappa) h1_2(kappa)], h1_2 = gamma kappa; for relu
    # mu1(kappa) = Phi(r kappa / sqrt c), so it is gamma r / sqrt(2 pi (c + r^2))
    r, c, g = relu["spike_strength"], relu["bulk_variance"], relu["alignment_vector"][0]
    assert abs(abs(relu["signal"][1]) - g * r / math.sqrt(2 * math.pi * (c + r * r))) < 1e-10
    assert relu["new_direction"] == pytest.approx([0.0, 1.0], abs=1e-12)
    assert tanh["new_norm"] < 1e-12 and not any(tanh["new_direction"])


def test_solve_refuses_what_the_multi_index_theory_does_not_cover():
    with pytest.raises(ValueError, match="dps"):
        solve("tanh", "z1 + z1*z2", 4, 2, LAM, 1.0, dps=30)
    with pytest.raises(ValueError, match="bulk = 'step'"):
        solve("tanh", "z1 + z1*z2", 4, 2, LAM, 1.0, bulk="step", d=100)


def test_network_within_its_error_bar():
    from srfsym.simulation.simulate import simulate
    target, alphas = "z1 + z1*z2", [1.0, 2.0]
    sim = simulate("tanh", target, 4.0, 2.0, LAM, alphas, d=400, seeds=6, n_test=3000,
                   workers=1, seed=11)
    for j, a in enumerate(alphas):
        th = solve_multi_index("tanh", target, 4.0, 2.0, LAM, a).test_error
        kernel = solve_multi_index("tanh", target, 0, 0, LAM, a).test_error
        e = sim.test_error_per_seed[:, j]
        se = e.std(ddof=1) / np.sqrt(len(e))
        assert abs(e.mean() - th) < 3 * se + 0.01 * th, (a, e.mean(), se, th)
        assert kernel - th > 5 * se           # the step helps, beyond the error bar


def test_paths_without_the_multi_index_theory_refuse_naming_why():
    from srfsym.simulation.simulate import simulate
    with pytest.raises(ValueError, match="scalar gamma"):
        solve_srf("tanh", "z1*z2", 1.0, 1.0, 0.5, LAM, 1.0)
    with pytest.raises(ValueError, match="model='network'"):
        simulate("tanh", "z1*z2", 2, 1, LAM, [1.0], d=50, seeds=2, model="srf")
    with pytest.raises(ValueError, match="Bernoulli labels are not implemented"):
        simulate("tanh", "z1*z2", 2, 1, LAM, [1.0], d=50, seeds=2, loss="logistic",
                 label_rule="bernoulli")
    with pytest.raises(ValueError, match="needs labels"):
        simulate("tanh", "z1*z2", 2, 1, LAM, [1.0], d=50, seeds=2, loss="logistic")


def test_a_target_with_no_linear_part_learns_no_direction():
    """z1*z2 with gamma = 0 (c1 = 0: the step learns nothing): h1 = 0, so the learned direction
    is zero (not round-off noise) and the error equals that of the single-index teacher with the
    same conditional data h = 0, h1 = 0, E g^2 = 1: (x^2 - 1)/sqrt(2)."""
    import numpy as np
    from srfsym.theory.fixed_point import solve_srf
    from srfsym.theory.multi_index import solve_multi_index_srf
    res = solve_multi_index_srf("tanh", "z1*z2", 0.8, 1.1, (0.0, 0.0), 0.1, 1.0)
    assert res.learned_direction == (0.0, 0.0)
    assert "no linear part" in res.notes[-1]
    one = solve_srf("tanh", "(x**2 - 1)/sqrt(2)", 0.8, 1.1, 0.0, 0.1, 1.0)
    assert abs(res.test_error - one.test_error) < 1e-9 * one.test_error
    assert np.isfinite(res.test_error)
