"""solve_grid with a convex loss (docs/theory.md (m)): every entry is the single-point
convex fixed point; the square loss without noise or bias stays the ridge grid."""
import numpy as np

from srfsym.step.mapping import srf_mapping
from srfsym.theory.convex_fixed_point import convex_grid, solve_convex_srf
from srfsym.theory.grid import solve_grid


def test_solve_grid_with_logistic_loss_equals_single_points():
    alphas, lams = [0.8, 2.0], [0.05, 0.5]
    g = solve_grid("tanh", "sign", 2, 2, alphas, lams, loss="logistic", bias=True, nodes=60)
    m = srf_mapping("tanh", "sign", 2, 2)
    assert g.converged.all() and g.loss == "logistic" and g.bias.shape == (2, 2)
    for i, a in enumerate(alphas):
        for j, lam in enumerate(lams):
            one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, lam, a, loss="logistic",
                                   bias=True, nodes=60, tol=1e-12)
            assert abs(g.classification_error[i, j] - one.classification_error) < 1e-9
            assert abs(g.test_error[i, j] - one.test_error) < 1e-9
            assert abs(g.state.q2[i, j] - one.state.q2) < 1e-9 * max(1, one.state.q2)


def test_convex_grid_warm_starts_do_not_change_the_answer():
    """The secant warm starts along alpha give the same fixed points as cold starts."""
    alphas = [0.6, 1.2, 1.8]
    g = convex_grid("tanh", "sign", 2, 2, alphas, [0.1], loss="hinge", nodes=60, nodes_u=12,
                    tol=1e-12)
    m = srf_mapping("tanh", "sign", 2, 2)
    for i, a in enumerate(alphas):
        one = solve_convex_srf("tanh", "sign", m.r, m.c, m.gamma, 0.1, a, loss="hinge",
                               nodes=60, nodes_u=12, tol=1e-12)
        assert abs(g["classification_error"][i, 0] - one.classification_error) < 1e-10
    assert not g["failures"] and np.all(np.diff(g["classification_error"][:, 0]) < 0)
