"""The spike and teacher direction sums of the exact bulk for any student (docs/theory.md (g.5),
srfsym.theory.spectral.exact_bulk_directions) against the odd closed forms, the realised row covariance
and the realised network."""
import numpy as np
import pytest

from srfsym.theory.spectral.exact_bulk import ExactBulk
from srfsym.theory.spectral.exact_bulk_directions import pencil_direction_forms
from srfsym.theory.spectral.step_bulk import step_bulk_spectrum

YS = np.array([0.5, 2.0, 1.0 + 0.5j, 0.3 - 0.2j])


@pytest.mark.parametrize("student,alpha0,eta,beta", [("tanh", 0.5, 5.0, 2.0), ("erf", 2.0, 3.0, 1.0)])
def test_pencil_is_the_odd_closed_form(student, alpha0, eta, beta):
    # two derivations of the same forms (a = 0): Woodbury on I + b S2 with the teacher column
    # split off, and the 2d pencil (measured agreement ~1e-14)
    bulk = ExactBulk(student, "sin", alpha0, eta, beta)
    for closed, pencil in zip(bulk.direction_forms(YS), pencil_direction_forms(bulk, YS)):
        assert np.max(np.abs(closed / pencil - 1)) < 1e-11


def test_pencil_against_the_realised_covariance():
    # relu (a = eta mu_2 != 0): the law given one batch against x^T (I + y d Sigma)^{-1} x'
    # with d Sigma = (I + a S1)^2 + b S2 built from that batch (d = 800; measured 0.3-1.2 %
    # on q_vv, q_zz at d = 1000; q_vz is small and fluctuates by O(d^-1/2))
    d, a0, eta = 800, 1.0, 3.0
    rng = np.random.default_rng(3)
    ref = ExactBulk("relu", "sin", a0, eta, 1.0)
    n0 = int(a0 * d)
    X = rng.standard_normal((n0, d))
    e = np.sin(X[:, 0]) - ref.offset
    T = np.eye(d) + ref.a * X.T @ (e[:, None] * X) / n0
    dS = T @ T + ref.b * X.T @ ((e**2)[:, None] * X) / n0
    s = X.T @ e / n0
    v = s / np.linalg.norm(s)
    z = np.eye(d)[0] - v[0] * v
    z /= np.linalg.norm(z)
    cond = ExactBulk("relu", "sin", a0, eta, 1.0, residuals=e, projections=X[:, 0])
    qvv, qvz, qzz = cond.direction_forms(YS)
    for k, y in enumerate(YS):
        R = np.linalg.solve(np.eye(d) + y * dS, np.stack([v, z], 1))
        assert abs(v @ R[:, 0] / qvv[k] - 1) < 0.03
        assert abs(z @ R[:, 1] / qzz[k] - 1) < 0.03
        assert abs(v @ R[:, 1] - qvz[k]) < 0.1 * abs(qvv[k])


def test_relu_direction_sums_against_the_network():
    # F, H sums of the exact law against the realised first layer (step back end, d = 1000):
    # F is a quadratic form along one direction, O(d^-1/2) from layer to layer (measured
    # -1 % to +2 % at d = 1000 over three layers, +-8 % at d = 2000); the isotropic rule
    # F -> c <1/S> is 45 % lower here
    ex = ExactBulk("relu", "sin", 1.0, 3.0, 1.0)
    m = ex.moments(0.4, 1.3)
    net = step_bulk_spectrum("relu", "sin", 1.0, 3.0, 1000, 1.0, seed=1).moments(0.4, 1.3)
    assert abs(net.F / m.F - 1) < 0.05 and abs(net.H / m.H - 1) < 0.02
    assert abs(net.DF2 / m.DF2 - 1) < 0.05 and abs(net.DH2 / m.DH2 - 1) < 0.05
    assert m.F > 1.5 * ex.bulk_moments()[0] * m.inv
