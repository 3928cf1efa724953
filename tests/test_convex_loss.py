"""Convex readout losses (docs/theory.md (m)): the square loss through the generic
channel against Result 3.3, plain random features against an independent Gaussian
covariate model, published-style reference points, proximal identities, bad input."""
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from srfsym.theory.channels.kappa_quadrature import channel_data
from srfsym.theory.convex_fixed_point import NoUniqueSolution, solve_convex_srf
from srfsym.theory.state import ConvergenceError
from srfsym.theory.fixed_point import solve, solve_srf
from srfsym.theory.channels.losses import LossError, loss

sys.path.insert(0, str(Path(__file__).parent))
from gcm_rf_independent import solve_gcm  # noqa: E402

# (student, teacher, r, c, gamma, lam, alpha, beta): beta != 1 and gamma < 1 included
SQUARE_POINTS = [
    ("tanh", "sin", 1.0, 1.1, 0.8, 0.1, 2.0, 1.0),
    ("erf", "sign", 1.5, 1.2, 0.9, 0.05, 3.0, 1.0),
    ("tanh", "sin", 2.0, 1.3, 0.7, 0.2, 1.5, 2.0),
    ("sin", "tanh", 0.5, 1.0, 0.95, 1.0, 0.7, 0.5),
    ("relu", "tanh", 1.0, 1.0, 0.6, 0.1, 2.0, 0.5),
]


@pytest.mark.parametrize("point", SQUARE_POINTS, ids=lambda p: f"{p[0]}-{p[1]}-b{p[7]}")
def test_square_loss_through_the_generic_channel_is_result_3_3(point):
    """The generic path (prox of the square loss, Gaussian quadrature over the labels and
    the prediction) reproduces srfsym's ridge fixed point to 1e-10."""
    st, te, r, c, g, lam, alpha, beta = point
    ref = solve_srf(st, te, r, c, g, lam, alpha, beta, nodes=108, tol=1e-13)
    gen = solve_convex_srf(st, te, r, c, g, lam, alpha, beta, nodes=108, tol=1e-12,
                           channel="quadrature")
    assert gen.channel == "quadrature"
    assert abs(gen.test_error - ref.test_error) < 1e-10
    assert abs(gen.train_error - ref.train_error) < 1e-10
    assert abs(gen.train_loss - ref.train_error) < 1e-10   # square: loss = squared residual
    for a, b in zip(gen.state, ref.state):
        assert abs(a - b) < 1e-10 * max(1.0, abs(b))
    for a, b in zip(gen.hats, ref.hats):
        assert abs(a - b) < 1e-10 * max(1.0, abs(b))


def test_square_loss_closed_and_quadrature_channels_agree_with_noise_and_bias():
    """Label noise and a trained bias: the closed-form square channel against the generic
    quadrature (real labels, noise merged into one Gaussian; +-1 labels, probit flips)."""
    for te, noise in (("tanh", 0.3), ("sign", 0.2)):
        a = solve_convex_srf("tanh", te, 1.0, 1.1, 0.8, 0.1, 2.0, 1.5, noise=noise, bias=True,
                             nodes=80, tol=1e-12)
        b = solve_convex_srf("tanh", te, 1.0, 1.1, 0.8, 0.1, 2.0, 1.5, noise=noise, bias=True,
                             nodes=80, tol=1e-12, channel="quadrature")
        for x, y in zip([a.test_error, a.train_error, a.bias, *a.state],
                        [b.test_error, b.train_error, b.bias, *b.state]):
            assert abs(x - y) < 1e-10


@pytest.mark.parametrize("student, c, lam_h, alpha, beta, gamma", [
    ("tanh", 1.0, 0.1, 2.0, 1.0, 0.0),
    ("tanh", 1.0, 0.3, 3.0, 2.0, 0.7),
    ("erf", 1.2, 0.05, 1.0, 0.5, 0.0),
])
def test_plain_random_features_logistic_equals_gaussian_covariate_model(student, c, lam_h,
                                                                       alpha, beta, gamma):
    """r = 0: the kappa-mixture collapses to the plain-RF Gaussian covariate model
    (independent solver in tests/gcm_rf_independent.py, penalty lam_h/2 = lambda)."""
    gcm = solve_gcm(student, c, lam_h, alpha, beta, tol=1e-13)
    res = solve_convex_srf(student, "sign", 0.0, c, gamma, lam_h / 2, alpha, beta,
                           loss="logistic", tol=1e-12)
    ch = channel_data(student, "sign", 0.0, c, gamma, nodes=res.nodes)
    mu1, mus2 = float(ch.mu1[0]), float(ch.mustar2[0])
    s, rho = res.state, math.sqrt(1 - gamma ** 2)
    V = mu1 ** 2 * s.V1 + mus2 * s.V2
    Q = mu1 ** 2 * (s.q1 + s.theta ** 2) + mus2 * s.q2
    M = mu1 * (gamma * s.theta + rho * s.psi)
    assert abs(res.classification_error - gcm["class_error"]) < 1e-8
    assert abs(res.train_loss - gcm["train_loss"]) < 1e-8
    assert abs(V / 2 - gcm["V"]) < 1e-8          # the GCM's V is for the loss, not loss/2
    assert abs(Q - gcm["Q"]) < 1e-8 and abs(M - gcm["M"]) < 1e-8


@pytest.mark.parametrize("name, lossname, lam, alpha, beta, noise, expected", [
    # (classification error, training loss, q2, m) at four printed decimals; lam is
    # srfsym's (sum loss + lam ||a||^2), half the lam_h of the (loss + lam_h/2) convention
    ("L1", "logistic", 0.05, 2.0, 1.0, 0.0, (0.1905, 0.2601, 2.5772, 3.5888)),
    ("L1 probit 0.25", "logistic", 0.05, 2.0, 1.0, 0.25, (0.2434, 0.3272, 2.4392, 2.8416)),
    ("H1", "hinge", 0.05, 2.0, 1.0, 0.0, (0.1968, 0.1396, 3.3524, 2.1941)),
    ("hinge beta 2", "hinge", 0.05, 2.0, 2.0, 0.0, (0.1756, 0.0746, 1.9968, 1.9661)),
])
def test_reference_points(name, lossname, lam, alpha, beta, noise, expected):
    """Reference values of an independent implementation of the same equations, after the
    step eta = 2, alpha0 = 2 (tanh student, sign teacher: r, c, gamma = 1.2915, 1.1950,
    0.7484 to four decimals)."""
    res = solve("tanh", "sign", 2, 2, lam, alpha, beta, loss=lossname, noise=noise)
    got = (res.classification_error, res.train_loss, res.state.q2, res.state.m)
    for g, e in zip(got, expected):
        assert abs(g - e) <= 0.5e-4 * max(1.0, 10 ** math.floor(math.log10(abs(e))))


def test_reference_point_with_trained_bias_and_unbalanced_labels():
    """Logistic readout with a trained bias, labels sign(<theta*, x> + 0.5), beta = 0.5
    (r, c, gamma = 1, 1.1, 0.8): reference values of an independent implementation."""
    res = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, 0.5, loss="logistic",
                           bias=True, threshold=0.5)
    got = (res.classification_error, res.train_loss, res.state.q2, res.state.m, res.bias)
    for g, e in zip(got, (0.1636, 0.2372, 3.2731, 5.3238, 1.7923)):
        assert abs(g - e) <= 0.5e-4 * max(1.0, 10 ** math.floor(math.log10(abs(e))))
    assert f"bias = {res.bias:.6g}" in str(res)
    # balanced labels, odd student: the bias is 0 by symmetry; its round-off is not printed
    sym = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, 0.5, loss="logistic",
                           bias=True, nodes=60)
    assert abs(sym.bias) < 1e-10 and "bias = 0 (|b| < 1e-10" in str(sym)


def test_user_loss_equals_builtin_logistic():
    """The generic prox (generated derivatives, safeguarded Newton) against the logistic
    special form, through the whole fixed point, with a trained bias."""
    a = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0, loss="logistic",
                         bias=True, nodes=80, tol=1e-12)
    b = solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.05, 2.0,
                         loss="log(1 + exp(-y*yhat))", bias=True, nodes=80, tol=1e-12)
    assert b.loss != a.loss
    for x, y in zip([a.classification_error, a.train_loss, a.bias, *a.state],
                    [b.classification_error, b.train_loss, b.bias, *b.state]):
        assert abs(x - y) < 1e-10


@pytest.mark.parametrize("name", ["square", "logistic", "hinge", "sqrt(1 + (y - yhat)**2) - 1",
                                  "exp(-y*yhat)"])
def test_prox_identities(name):
    """P minimises (x - omega)^2/(2V) + loss/2; f = (P - omega)/V; g = -df/domega (central
    finite differences of f, away from the hinge's kinks)."""
    lo = loss(name)
    rng = np.random.default_rng(3)
    y = rng.choice([-1.0, 1.0], 400) if lo.margin or name == "hinge" else rng.normal(size=400)
    om, V = 2.5 * rng.normal(size=400), rng.uniform(0.05, 4.0, 400)
    P, f, g = lo.prox(y, om, V)
    obj = lambda x: (x - om) ** 2 / (2 * V) + lo.value(y, x) / 2   # noqa: E731
    for dx in (1e-4, -1e-4):
        assert np.all(obj(P + dx) >= obj(P) - 1e-13)
    assert np.allclose(f, (P - om) / V, atol=1e-9)
    h = 1e-6
    fd = -(lo.prox(y, om + h, V)[1] - lo.prox(y, om - h, V)[1]) / (2 * h)
    smooth = np.ones_like(om, bool)
    for k in lo.kinks(y, V):
        smooth &= np.abs(om - k) > 1e-3
    assert np.allclose(fd[smooth], g[smooth], atol=1e-6)


def test_square_default_is_the_ridge_solver():
    """loss='square' without noise or bias is today's structured solver (same object type
    and the same numbers); the generic square channel is opt-in."""
    a = solve("tanh", "sin", 2, 2, 0.1, 2.0, loss="square")
    b = solve("tanh", "sin", 2, 2, 0.1, 2.0)
    assert type(a) is type(b) and a.test_error == b.test_error and a.method == "structured"


# --- bad input ------------------------------------------------------------------------

def test_linear_loss_refused_with_its_reason():
    # was: "m grows without bound: the labels are separable along the constant feature"
    for text in ("yhat", "y*yhat", "2*yhat - y"):
        with pytest.raises(LossError, match="linear in yhat.*no minimum"):
            loss(text)


def test_non_convex_loss_refused():
    with pytest.raises(LossError, match="not convex in yhat"):
        loss("(y - yhat)**2 - 3*yhat**2*exp(-yhat**2)")
    with pytest.raises(LossError, match="not twice differentiable"):
        loss("abs(y - yhat)")
    with pytest.raises(LossError, match="unknown function"):
        loss("__import__('os')")


def test_classification_loss_needs_pm1_labels():
    with pytest.raises(LossError, match="labels \\+-1"):
        solve_convex_srf("tanh", "tanh", 1.0, 1.1, 0.8, 0.1, 2.0, loss="logistic")
    with pytest.raises(LossError, match="labels \\+-1"):
        solve_convex_srf("tanh", "sin", 1.0, 1.1, 0.8, 0.1, 2.0, loss="exp(-y*yhat)")


def test_hinge_at_lambda_zero_in_the_separable_phase():
    with pytest.raises(NoUniqueSolution, match="separable"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.0, 0.8, 1.0, loss="hinge")
    with pytest.raises(NoUniqueSolution, match="not unique"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.0, 1.5, 1.0, loss="hinge")


def test_negative_noise_refused():
    with pytest.raises(ValueError, match="noise .* >= 0"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.1, 2.0, loss="logistic", noise=-0.1)


def test_bias_with_a_loss_that_does_not_allow_it():
    with pytest.raises(LossError, match="bias"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.1, 2.0, loss="log(1 + exp(yhat))",
                         bias=True)


def test_bias_must_be_a_bool():
    # bias="False" is a true string: it would train a bias
    with pytest.raises(ValueError, match="bias must be True or False"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 0.1, 2.0, loss="logistic", bias="False")


def test_tiny_lambda_on_separable_data_names_lambda():
    # alpha = beta = 1: separable; at lambda = 1e-12 the norm passes what the iteration follows
    with pytest.raises(ConvergenceError, match="lambda = 1e-12.*separable.*larger lambda"):
        solve_convex_srf("tanh", "sign", 1.0, 1.1, 0.8, 1e-12, 1.0, loss="logistic", nodes=60)


def test_unpenalised_m_diverges_when_labels_are_separable_along_the_constant():
    """gamma = 1, sign teacher, odd student: y = sign(mu0(kappa)), no finite saddle point."""
    with pytest.raises(NoUniqueSolution, match="constant"):
        solve_convex_srf("tanh", "sign", 1.2, 1.1, 1.0, 0.05, 2.0, loss="logistic", nodes=60)


# --- command line ---------------------------------------------------------------------

def test_cli_error_with_loss_noise_bias(capsys):
    import json
    from srfsym.cli import main
    code = main(["error", "--student", "tanh", "--teacher", "sign", "--alpha0", "2", "--eta", "2",
                 "--lam", "0.05", "--alpha", "2", "--loss", "logistic", "--noise", "0.25",
                 "--json"])
    row = json.loads(capsys.readouterr().out)["rows"][0]
    api = solve("tanh", "sign", 2, 2, 0.05, 2.0, loss="logistic", noise=0.25)
    assert code == 0 and row["loss"] == "logistic" and row["noise"] == 0.25
    assert abs(row["classification_error"] - api.classification_error) < 1e-12
    code = main(["error", "--student", "tanh", "--teacher", "sin", "--alpha0", "2", "--eta", "2",
                 "--lam", "0.1", "--alpha", "2", "--bias", "--noise", "0.1", "--json"])
    row = json.loads(capsys.readouterr().out)["rows"][0]
    assert code == 0 and row["output_bias"] is not None and row["loss"] == "square"


@pytest.mark.parametrize("extra, message", [
    (["--teacher", "tanh", "--loss", "hinge"], "labels +-1"),
    (["--teacher", "sign", "--loss", "yhat**3"], "not convex"),
    (["--teacher", "sign", "--loss", "logistic", "--noise", "-0.5"], "variance"),
])
def test_cli_bad_loss_input(capsys, extra, message):
    from srfsym.cli import main
    code = main(["error", "--student", "tanh", "--alpha0", "2", "--eta", "2", "--lam", "0.05",
                 "--alpha", "2", *extra])
    err = capsys.readouterr().err
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("name, noise", [("logistic", 0.25), ("hinge", 0.0), ("square", 0.1)])
def test_training_classification_error_against_an_independent_integral(name, noise):
    """The training classification error P(y P < 0) as the half-line integral of the label
    law at omega = V l'(y, 0) equals an independent computation: the sign change of the
    proximal point located by brentq on the prox itself, the label law written here from
    its definition (probit flips), scipy's adaptive quad over u."""
    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.stats import norm

    from srfsym.theory.channels.convex import ConvexChannel
    from srfsym.theory.state import State
    ch = channel_data("tanh", "sign", 1.0, 1.1, 0.8, nodes=24)
    C = ConvexChannel(ch, name, alpha=2.0, beta=1.0, teacher="sign", noise=noise)
    s = State(0.6, 0.9, 1.3, 1.1, 0.4, 0.3, 0.7)
    pt = C.point(*s)
    got = C._train_cl(pt)
    lo, rho = loss(name), math.sqrt(1 - 0.8 ** 2)
    inner = np.flatnonzero(pt.Q > 1e-2)                  # (omega = b in the far tails)
    for i in inner[::3]:
        b, sq, V, vr, k = pt.b[i], math.sqrt(pt.Q[i]), pt.V[i], pt.varrho[i], C.k[i]
        delta = math.sqrt(rho ** 2 * (1 - vr ** 2) + noise)
        p_up = lambda u: norm.cdf((0.8 * k + rho * vr * u) / delta)  # noqa: E731
        total = 0.0
        for y in (1.0, -1.0):
            P = lambda u: float(lo.prox(np.array(y), np.array(b + sq * u), np.array(V))[0])  # noqa: E731,E501
            u0 = brentq(P, -40, 40, xtol=1e-14)          # P increases with u
            py = p_up if y > 0 else (lambda u: 1 - p_up(u))
            lims = (-np.inf, u0) if y > 0 else (u0, np.inf)
            total += quad(lambda u: norm.pdf(u) * py(u), *lims, epsabs=1e-13)[0]
        assert abs(got[i] - total) < 1e-11
