"""srfsym's normalisation against DPC+24's (Dandi et al. arXiv:2410.18938, as their setting is
stated in the talk slides): the converted ridge penalty gives the same readout, the converted
learning rate the same spike strength (docs/theory.md, *Correspondence with DPC+24*)."""
import math

import mpmath
import numpy as np
import pytest
from scipy.optimize import minimize

from srfsym.simulation.readout import ridge_readout
from srfsym.step.conventions import from_dpc24, readout_scale, to_dpc24
from srfsym.step.mapping import srf_mapping


def test_converted_ridge_penalty_gives_the_same_readout():
    rng = np.random.default_rng(3)
    n, p, d = 60, 40, 30
    phi = np.tanh(rng.standard_normal((n, d)) @ rng.standard_normal((d, p)) / math.sqrt(d))
    y = np.sin(rng.standard_normal(n))
    lam, alpha, beta = 0.3, n / d, p / d
    a = ridge_readout(phi, y, lam)                       # srfsym: sum loss, <a, phi>/sqrt(p)
    lam_d = to_dpc24(lam=lam, alpha=alpha, beta=beta)["lam"]
    assert lam_d == pytest.approx(lam * p / (2 * n), rel=1e-15)

    def objective(b):                                    # DPC+24: (1/2n) sum + lam_D |b|^2
        res = y - phi @ b
        return res @ res / (2 * n) + lam_d * b @ b, -phi.T @ res / n + 2 * lam_d * b
    b = minimize(objective, np.zeros(p), jac=True, method="L-BFGS-B",
                 options={"gtol": 1e-13, "ftol": 1e-15, "maxiter": 10000}).x
    assert np.allclose(b, a * readout_scale(p), rtol=0, atol=1e-7)
    # a wrong conversion (e.g. without the 1/2 of their loss) moves the readout visibly
    b_wrong = minimize(lambda v: objective(v)[0] + lam_d * v @ v, np.zeros(p),
                       method="L-BFGS-B").x
    assert np.max(np.abs(b_wrong - a * readout_scale(p))) > 1e-3


@pytest.mark.parametrize("eta, alpha0, beta", [(3.0, 20.0, 1.0), (2.0, 4.0, 0.5)])
def test_converted_learning_rate_gives_the_same_spike(eta, alpha0, beta):
    """DPC+24's r = eta_D (p/d) mu1 sqrt(mu1*^2 + mu2*/alpha0), with their constants from
    40-digit quadrature; srfsym's r from its own mapping at eta = from_dpc24(eta_D)."""
    eta_d = to_dpc24(eta=eta, beta=beta)["eta"]
    with mpmath.workdps(40):
        gauss = lambda f: mpmath.quad(lambda z: f(z) * mpmath.npdf(z), [-mpmath.inf, 0,  # noqa: E731
                                                                         mpmath.inf])
        mu1 = gauss(lambda z: z * mpmath.tanh(z))
        mu1_star = gauss(lambda z: z * mpmath.sin(z))
        mu2_star = gauss(lambda z: mpmath.sin(z) ** 2)
        r_dpc = eta_d * beta * mu1 * mpmath.sqrt(mu1_star ** 2 + mu2_star / alpha0)
    m = srf_mapping("tanh", "sin", from_dpc24(eta=eta_d, beta=beta)["eta"], alpha0)
    assert m.r == pytest.approx(float(r_dpc), rel=1e-12)


def test_round_trip_and_refusals():
    there = to_dpc24(eta=2.5, lam=0.07, alpha=3.0, beta=1.5)
    back = from_dpc24(eta=there["eta"], lam=there["lam"], alpha=3.0, beta=1.5)
    assert back == pytest.approx({"eta": 2.5, "lam": 0.07}, rel=1e-15)
    with pytest.raises(ValueError, match="give alpha"):
        to_dpc24(lam=0.1)
    with pytest.raises(ValueError, match="beta must be a positive"):
        to_dpc24(eta=1.0, beta=0.0)
