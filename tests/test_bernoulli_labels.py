"""Bernoulli (tanh-shaped) labels in the convex-loss channel (docs/theory.md (m.6)):
labels +-1 with P(y = 1 | h) = (1 + tanh(h + sqrt(noise) xi))/2, checked against an
independent quadrature of the channel's expectations and observables."""
import math

import numpy as np
import pytest
from scipy.special import ndtr

from srfsym.theory.channels.kappa_quadrature import channel_data
from srfsym.theory.channels.convex import ConvexChannel
from srfsym.theory.convex_fixed_point import solve_convex_srf

STATE = (0.9, 0.7, 1.3, 0.8, 0.6, 0.35, 0.4)     # q1, q2, V1, V2, theta, psi, m
B0 = 0.15


def _logistic_prox(y, omega, V):
    """Own proximal step of the channel loss l = log(1 + e^{-y x})/2, solved for
    f = (P - omega)/V by bisection of f + l'(y, omega + V f) = 0 on [-1/2, 1/2] (|l'| <= 1/2;
    80 halvings; in f, not P, so that a tiny V loses no digits)."""
    lo, hi = np.full(np.shape(omega), -0.5), np.full(np.shape(omega), 0.5)
    for _ in range(80):
        mid = (lo + hi) / 2
        F = mid - 0.5 * y / (1 + np.exp(y * (omega + V * mid)))
        lo, hi = np.where(F < 0, mid, lo), np.where(F < 0, hi, mid)
    f = (lo + hi) / 2
    P = omega + V * f
    s = 1 / (1 + np.exp(y * P))                 # sigmoid(-y P)
    lpp = 0.5 * s * (1 - s)                     # l''(y, P)
    return P, f, lpp / (1 + V * lpp)


def _independent(C, j, noise):
    """At kappa node j: E f, E f^2, E g, E[z f] and the test classification error by a
    tensor Gauss-Hermite rule in (z, xi, xi0) -- the prediction is omega = b + mu1 psi z +
    s xi (s^2 = Q - mu1^2 psi^2), the label law is tanh evaluated at the teacher's field
    gamma kappa + rho z + sqrt(noise) xi0 (no integral over the cavity field as in the
    channel)."""
    q1, q2, V1, V2, theta, psi, m = STATE
    k, mu0, mu1, mus2 = C.k[j], C.mu0[j], C.mu1[j], C.mus2[j]
    b = B0 + mu0 * m + mu1 * k * theta
    Q, V = mu1 ** 2 * q1 + mus2 * q2, mu1 ** 2 * V1 + mus2 * V2
    s = math.sqrt(Q - mu1 ** 2 * psi ** 2)
    x, w = np.polynomial.hermite_e.hermegauss(90)
    w = w / math.sqrt(2 * math.pi)
    x0, w0 = np.polynomial.hermite_e.hermegauss(40 if noise else 1)
    w0 = w0 / w0.sum()
    z, xi, xi0 = np.meshgrid(x, x, x0, indexing="ij")
    W = w[:, None, None] * w[None, :, None] * w0[None, None, :]
    h = C.gamma * k + C.rho * z + math.sqrt(noise) * xi0
    p1 = (1 + np.tanh(h)) / 2
    omega = b + mu1 * psi * z + s * xi
    out = dict.fromkeys(("Ef", "Ef2", "Eg", "Ezf"), 0.0)
    for y, py in ((1.0, p1), (-1.0, 1 - p1)):
        P, f, g = _logistic_prox(y, omega, V)
        out["Ef"] += np.sum(W * py * f)
        out["Ef2"] += np.sum(W * py * f * f)
        out["Eg"] += np.sum(W * py * g)
        out["Ezf"] += np.sum(W * py * z * f)
    # classification error: given (z, xi0), P(omega < 0) is closed form in xi
    mean = b + mu1 * psi * z[:, :1, :]
    p1z = p1[:, :1, :]
    wz = (w[:, None] * w0[None, :])[:, None, :]
    out["cl"] = np.sum(wz * (p1z * ndtr(-mean / s) + (1 - p1z) * ndtr(mean / s)))
    # label moments h = E[y | kappa], h1 = E[y z | kappa]
    out["h"] = np.sum(W * (2 * p1 - 1))
    out["h1"] = np.sum(W * (2 * p1 - 1) * z)
    return out


@pytest.mark.parametrize("noise", [0.0, 0.4])
def test_bernoulli_tanh_channel_against_an_independent_quadrature(noise):
    ch = channel_data("tanh", "tanh", 1.2, 1.1, 0.8, nodes=40)
    C = ConvexChannel(ch, "logistic", alpha=2.0, beta=1.0, teacher="tanh", noise=noise,
                      label_rule="bernoulli")
    pt = C.point(*STATE, B0)
    mom = C.moments(pt)
    cl = C._test_cl(pt)
    for j in (3, 17, 30):
        ref = _independent(C, j, noise)
        for key in ("Ef", "Ef2", "Eg", "Ezf"):
            assert abs(mom[key][j] - ref[key]) < 1e-9 * max(1.0, abs(ref[key])), key
        assert abs(cl[j] - ref["cl"]) < 1e-9
        assert abs(C.h[j] - ref["h"]) < 1e-10 and abs(C.h1[j] - ref["h1"]) < 1e-10


def test_bernoulli_square_loss_closed_form_equals_the_label_integral():
    """The square loss sees only h, h1 (and E y^2 = 1): its closed-form channel on the Bernoulli
    label moments equals the quadrature over the label law given the cavity field."""
    kw = dict(noise=0.2, nodes=60, tol=1e-12, label_rule="bernoulli")
    a = solve_convex_srf("tanh", "tanh", 1.0, 1.1, 0.8, 0.1, 2.0, 1.0, **kw)
    b = solve_convex_srf("tanh", "tanh", 1.0, 1.1, 0.8, 0.1, 2.0, 1.0, channel="quadrature",
                         **kw)
    assert a.channel == "closed" and b.channel == "quadrature"
    for x, y in zip([a.test_error, a.train_error, a.classification_error, *a.state],
                    [b.test_error, b.train_error, b.classification_error, *b.state]):
        assert abs(x - y) < 1e-9


def test_bernoulli_labels_of_the_sign_teacher_are_the_sign_labels():
    kw = dict(loss="logistic", noise=0.1, nodes=60)
    a = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.1, 2.0, **kw)
    b = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.1, 2.0, label_rule="bernoulli", **kw)
    assert a.classification_error == b.classification_error and b.label_rule == "bernoulli"


def test_bernoulli_bad_input():
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        solve_convex_srf("tanh", "sin(x) + x", 1.0, 1.1, 0.8, 0.1, 2.0, loss="logistic",
                         label_rule="bernoulli")
    with pytest.raises(ValueError, match="label_rule"):
        solve_convex_srf("tanh", "tanh", 1.0, 1.1, 0.8, 0.1, 2.0, loss="logistic",
                         label_rule="probit")


def test_teacher_smoothing_rule_against_closed_forms_and_mpmath():
    """The trapezoidal rule whose step srfsym chooses per teacher (docs/theory.md (m.6)):
    for erf, E erf(nu + delta t) = erf(nu / sqrt(1 + 2 delta^2)) and
    E[t erf(nu + delta t)] = delta E erf' in closed form; for tanh, 30-digit mpmath quadrature."""
    import mpmath

    from srfsym.symbolic.activations import activation
    from srfsym.theory.channels.label_law import TeacherSmoothing
    from scipy.special import erf
    nu = np.linspace(-9.0, 9.0, 37) + 0.013
    for delta in (0.0, 0.35, 0.9, 1.3):
        S0, S1 = TeacherSmoothing(activation("erf"), 1.3)(nu, np.full_like(nu, delta))
        a = 1 + 2 * delta ** 2
        assert np.max(np.abs(S0 - erf(nu / math.sqrt(a)))) < 1e-13
        ref1 = delta * 2 / math.sqrt(math.pi) * np.exp(-nu ** 2 / a) / math.sqrt(a)
        assert np.max(np.abs(S1 - ref1)) < 1e-13
    law = TeacherSmoothing(activation("tanh"), 1.2)
    for x, d in ((0.3, 1.2), (-2.1, 0.7), (4.0, 0.05)):
        s0, s1 = law(np.array([x]), np.array([d]))
        with mpmath.workdps(30):
            line = [-mpmath.inf, 0, mpmath.inf]
            r0 = mpmath.quad(lambda t: mpmath.tanh(x + d * t) * mpmath.npdf(t), line)
            r1 = mpmath.quad(lambda t: t * mpmath.tanh(x + d * t) * mpmath.npdf(t), line)
        assert abs(s0[0] - float(r0)) < 1e-13 and abs(s1[0] - float(r1)) < 1e-13
