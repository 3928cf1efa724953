"""The spectrum of the learned features (srfsym.theory.feature.spectrum, docs/theory.md (j)).

Held against: the ridge fixed point (the same system at lambda = -(n/p) z), the co-resolvent
identity evaluated independently, a 25-digit mpmath evaluation, exact trace identities by
mpmath quadrature, and the eigenvalues of finite networks (mean of 4 seeds, d = 1000).
"""
from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from srfsym import cget_coefficients
from srfsym.theory.feature.spectrum import FeatureSpectrum, feature_spectrum
from srfsym.theory.fixed_point import solve_srf
from srfsym.simulation.simulate import srf_first_layer
from srfsym.simulation.spectrum_simulation import DEFAULT_Z, empirical_stieltjes, simulate_feature_spectrum

CASES = [("tanh", 1.134, 1.019, 1.0, 1.0), ("erf", 2.0, 1.2, 1.5, 0.5),
         ("tanh", 0.9, 1.077, 0.5, 0.5), ("relu", 0.8, 0.9, 2.0, 1.0)]


@pytest.mark.parametrize("student,r,c,beta,nu", CASES)
def test_stieltjes_is_the_ridge_fixed_point_at_negative_lambda(student, r, c, beta, nu):
    # docs/theory.md (j.3): s(z) = (n/p) V2 at lambda = -(n/p) z, alpha = n/d = beta/nu;
    # the fixed point solves the full ridge system (teacher sin, gamma 0.9) independently
    fs = feature_spectrum(student, r=r, c=c, beta=beta, p_over_n=nu)
    for x in (0.3, 1.7):
        res = solve_srf(student, "sin", r, c, 0.9, lam=x / nu, alpha=beta / nu, beta=beta,
                        tol=1e-13)
        s = fs.stieltjes(-x)
        assert abs(s.imag) < 1e-15
        assert s.real == pytest.approx(res.state.V2 / nu, rel=1e-10)


@pytest.mark.parametrize("student,r,c,beta,nu", CASES[:3])
def test_co_resolvent_equals_the_per_sample_diagonal(student, r, c, beta, nu):
    # s_K(z) = nu s - (1 - nu)/z = -E_kappa 1/(z (1 + delta(kappa))), with delta from (g1, g2)
    # and the cGET coefficients on an independent Gauss-Legendre rule in kappa
    fs = feature_spectrum(student, r=r, c=c, beta=beta, p_over_n=nu)
    t, w = np.polynomial.legendre.leggauss(400)
    k, w = 10 * t, 10 * w * np.exp(-50 * t * t) / math.sqrt(2 * math.pi)
    _, mu1, mus2 = cget_coefficients(student).numpy()(k, r, c)
    for z in (0.2 + 0.05j, 1.0 + 0.3j, 3.0 + 0.01j):
        v = fs.stieltjes_value(z)
        delta = nu * (mu1 ** 2 * v.g1 + mus2 * v.s)
        rhs = -np.sum(w / (z * (1 + delta)))
        assert abs(fs.co_resolvent(z) - rhs) < 1e-10 * abs(rhs)


def test_strong_spike_small_imaginary_part_against_mpmath():
    # a steep spike (r = 2) close to the axis (Im z = 0.01); sin has closed-form cGET
    # coefficients, so the mpmath side is fast
    fs = feature_spectrum("sin", r=2.0, c=1.1, beta=1.0, p_over_n=1.0, tol=1e-10)
    z = 0.3 + 0.01j
    v = fs.stieltjes_value(z)
    ref = fs.stieltjes_mpmath(z, dps=20)
    assert abs(v.s - complex(ref)) <= 1e-8 * abs(ref)
    assert v.node_error <= 1e-10


def test_tanh_eta_8_node_ladder_meets_its_target():
    # tanh/sin at alpha0 = 20, eta = 8 (r = 3.02): the ladder's own estimate and a fixed
    # 6000-node evaluation agree with the target 1e-9
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=8, tol=1e-9)
    fine = feature_spectrum("tanh", "sin", alpha0=20, eta=8)
    P = fine._problem(6000)
    for z in (0.1 + 0.01j, 1.0 + 0.01j):
        v = fs.stieltjes_value(z, warm_start=False)
        V, _ = fine._solve(P, z, (fs.nu * fs.c * (-1 / z), fs.nu * (-1 / z)))
        assert v.node_error <= 1e-9
        assert abs(v.s - V[1] / fs.nu) <= 1e-9 * abs(v.s)


@pytest.mark.parametrize("student,r,c", [("tanh", 1.134, 1.019), ("erf", 2.0, 0.7),
                                         ("sin", 0.5, 1.3)])
def test_trace_identity(student, r, c):
    # (1/p) tr X -> E sigma(r kappa + sqrt(c) xi)^2 = E mu0^2 (outlier) + E t (bulk mean)
    fs = feature_spectrum(student, r=r, c=c)
    f = {"tanh": mpmath.tanh, "erf": mpmath.erf, "sin": mpmath.sin}[student]
    s = math.sqrt(r * r + c)
    with mpmath.workdps(30):
        ref = mpmath.quad(lambda u: f(s * u) ** 2 * mpmath.exp(-u * u / 2),
                          [-mpmath.inf, 0, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)
    assert fs.outlier_per_p + fs.bulk_mean == pytest.approx(float(ref), rel=1e-12)


def test_conjugate_symmetry_and_bad_input():
    fs = feature_spectrum("tanh", r=1.0, c=1.0)
    z = 0.7 + 0.2j
    assert abs(fs.stieltjes(z.conjugate()) - fs.stieltjes(z).conjugate()) < 1e-14
    for bad, needle in ((0, "non-negative real axis"), (1.5, "non-negative real axis"),
                        (complex("nan"), "finite"), ("x", "complex number")):
        with pytest.raises(ValueError, match=needle):
            fs.stieltjes(bad)
    for kwargs, needle in ((dict(p_over_n=0), "p/n"), (dict(beta=float("inf")), "beta"),
                           (dict(c=-1.0), "bulk variance"), (dict(spectrum="foo"), "spectrum"),
                           (dict(tol=0.5), "tol")):
        args = dict(student="tanh", r=1.0, c=1.0) | kwargs
        with pytest.raises(ValueError, match=needle):
            FeatureSpectrum(**args)
    with pytest.raises(ValueError, match="either r and c"):
        feature_spectrum("tanh", "sin", r=1.0, c=1.0, alpha0=2, eta=1)


# --------------------------------------------------------------------------------------
# against finite networks (docs/theory.md (j.7))

@pytest.fixture(scope="module")
def networks():
    return {"init": simulate_feature_spectrum("tanh", "sin", 0, 0, d=1000, seeds=4),
            "tanh/tanh": simulate_feature_spectrum("tanh", "tanh", 2, 2, d=1000, seeds=4)}


@pytest.mark.parametrize("case", ["init", "tanh/tanh"])
def test_network_stieltjes_within_one_percent(networks, case):
    sim = networks[case]
    assert sim.max_relative_error() <= 0.01
    # the comparison has power: the same spectra against the theory at p/n = 0.8 fail
    wrong = FeatureSpectrum("tanh", sim.theory.r, sim.theory.c, 1.0, 0.8)
    th = np.array([wrong.stieltjes(z) for z in sim.z])
    assert np.max(np.abs(sim.stieltjes_mean - th) / np.abs(th)) > 0.03


def test_network_outlier_and_bulk_moments(networks):
    sim = networks["tanh/tanh"]
    # top eigenvalue ~ 200 = p M2hat + Delta from the realised spike, within the O(1)
    # random term 2 sqrt(nu E[mu0^2 t]) + W-part (about 1 here)
    assert np.all(sim.top > 150)
    assert np.max(np.abs(sim.top - sim.top_predicted)) < 3.0
    bulk = [lam[:-1] for lam in sim.eigenvalues]
    m1 = np.mean([b.mean() for b in bulk])
    m2 = np.mean([(b ** 2).mean() for b in bulk])
    assert m1 == pytest.approx(sim.theory.bulk_mean, rel=0.01)
    assert m2 / m1 ** 2 - 1 == pytest.approx(sim.theory.bulk_normalised_variance, rel=0.02)
    edge = np.mean([b[-1] for b in bulk])
    assert edge == pytest.approx(sim.theory.right_edge, rel=0.03)
    init = networks["init"]
    assert init.top_predicted.size == 0 and "no giant outlier" in init.notes[0]


def test_finite_d_variant_tracks_one_sample():
    # the sRF model at d = 600: the theory on that sample's bulk eigenvalues (W Pi W^T)
    d, r, c = 600, 1.2, 1.1
    Wb, W, vhat = srf_first_layer(r, c, 1.0, d, seed=3)
    Pi = np.eye(d) - np.outer(vhat, vhat)
    D = np.linalg.eigvalsh(Wb @ Pi @ Wb.T)
    X = np.random.default_rng(7).standard_normal((d, d))
    Phi = np.tanh(X @ W.T)
    lam = np.linalg.eigvalsh(Phi.T @ Phi / d)
    emp = empirical_stieltjes(lam, DEFAULT_Z)
    th = np.array([feature_spectrum("tanh", r=r, c=c, spectrum=D).stieltjes(z)
                   for z in DEFAULT_Z])
    assert np.max(np.abs(emp - th) / np.abs(th)) < 0.02


# --------------------------------------------------------------------------------------
# command line

def run(capsys, *argv):
    from srfsym.cli import main
    code = main(list(argv))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def test_cli_spectrum_json(capsys):
    import json
    code, out, _ = run(capsys, "spectrum", "--student", "tanh", "--teacher", "sin", "--alpha0",
                       "20", "--eta", "3", "--z", "0.6+0.1j", "--z=-0.5+0.01j", "--json")
    payload = json.loads(out)
    data = payload["details"]["spectrum"]
    assert code == 0
    for key in ("outlier_per_p", "outlier_correction", "bulk_mean",
                "bulk_normalised_variance", "right_edge"):
        assert isinstance(data[key], float), key
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=3)
    rows = payload["rows"]
    assert [[p["z_real"], p["z_imag"]] for p in rows] == [[0.6, 0.1], [-0.5, 0.01]]
    s = fs.stieltjes(0.6 + 0.1j)
    assert [rows[0]["s_real"], rows[0]["s_imag"]] == [s.real, s.imag]
    assert data["outlier_per_p"] == fs.outlier_per_p
    # the support piece by piece with its mass (one piece here: the whole law)
    assert data["support_pieces"] == [[0.0, data["right_edge"]]]
    assert abs(data["piece_masses"][0] - 1) < 1e-8 and data["piece_masses_error"] < 1e-8


def test_cli_spectrum_plot_with_simulation(capsys, tmp_path):
    png = tmp_path / "s.png"
    code, out, _ = run(capsys, "spectrum", "--student", "tanh", "--teacher", "tanh", "--alpha0",
                       "2", "--eta", "2", "--simulate", "--d", "300", "--seeds", "2",
                       "--plot", str(png))
    assert code == 0 and png.stat().st_size > 10_000
    assert "max relative error" in out and "top eigenvalue" in out


@pytest.mark.parametrize("argv,needle", [
    (["--r", "1", "--c", "1", "--z", "1"], "non-negative real axis"),
    (["--r", "1", "--c", "1", "--z", "0"], "non-negative real axis"),
    (["--r", "1", "--c", "1", "--z", "1+j+"], "cannot read z"),
    (["--r", "1", "--c", "1", "--p-over-n", "0"], "p/n"),
    (["--r", "1", "--c", "1", "--beta", "nan"], "beta"),
    (["--r", "1"], "either --r and --c"),
    (["--teacher", "sin", "--alpha0", "2"], "give --teacher, --alpha0 and --eta"),
])
def test_cli_spectrum_bad_input(capsys, argv, needle):
    code, _, err = run(capsys, "spectrum", "--student", "tanh", *argv)
    assert code == 2 and needle in err and "Traceback" not in err
