"""Tests of srfsym.theory.spectrum: MP closed forms, back-end agreement, Sherman--Morrison sums.

Reference values come from independent computations: mpmath quadrature of the
Marchenko--Pastur density typed here from its definition, known MP moments
(E x = 1, E x^2 = 1 + beta, E 1/x = 1/(1 - beta), E 1/x^2 = 1/(1 - beta)^3 for beta < 1),
and explicit eigen-decompositions of Omega.
"""
import math
import pathlib
import runpy

import mpmath
import numpy as np
import pytest
from scipy import integrate

from srfsym.theory.spectrum import MarchenkoPastur, SampledSpectrum, SpectralMoments

FIELDS = SpectralMoments._fields
ROOT = pathlib.Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------------------
# independent reference: quadrature of the MP density

def mp_expectation(g, beta, c, dps):
    """E g(varrho), varrho ~ c MP_beta (mean c, atom (1 - 1/beta)_+ at 0), by quadrature."""
    with mpmath.workdps(dps + 10):
        beta, c = mpmath.mpf(beta), mpmath.mpf(c)
        lo = c * (1 - mpmath.sqrt(beta))**2
        hi = c * (1 + mpmath.sqrt(beta))**2

        def f(th):                       # x = lo + (hi - lo) sin^2 th
            s2 = mpmath.sin(th)**2
            x = lo + (hi - lo) * s2
            dens_dx = (hi - lo)**2 * s2 * (1 - s2) / (mpmath.pi * beta * c * x)
            return dens_dx * g(x)
        val = mpmath.quad(f, [0, mpmath.pi / 4, mpmath.pi / 2])
        if beta > 1:
            val += (1 - 1 / beta) * g(mpmath.mpf(0))
        return val


def reference_moments(beta, c, lam, v, dps=30):
    """All eleven moments from quadrature, with F -> c and H -> varrho (docs/theory.md (g))."""
    with mpmath.workdps(dps + 10):
        lam, v, cc = mpmath.mpf(lam), mpmath.mpf(v), mpmath.mpf(c)
        S = lambda x: lam + v * x                                     # noqa: E731
        e = {
            "inv": mp_expectation(lambda x: 1 / S(x), beta, c, dps),
            "rho": mp_expectation(lambda x: x / S(x), beta, c, dps),
            "inv2": mp_expectation(lambda x: 1 / S(x)**2, beta, c, dps),
            "rho2": mp_expectation(lambda x: x / S(x)**2, beta, c, dps),
            "rhosq2": mp_expectation(lambda x: x * x / S(x)**2, beta, c, dps),
        }
        return {"inv": e["inv"], "rho": e["rho"], "F": cc * e["inv"], "H": e["rho"],
                "inv2": e["inv2"], "rho2": e["rho2"], "rhosq2": e["rhosq2"],
                "F2": cc * e["inv2"], "DF2": cc * e["rho2"], "H2": e["rho2"], "DH2": e["rhosq2"]}


QUAD_POINTS = [  # (c, lambda', Vhat_1)
    ("1.3", "0.65", "1.7"),
    ("1", "0.5", "0"),
    ("0.8", "0.02", "6"),
]


@pytest.mark.parametrize("beta", ["0.5", "1", "2"])
def test_mp_closed_forms_match_quadrature_25_digits(beta):
    for c, lam, v in QUAD_POINTS:
        ref = reference_moments(beta, c, lam, v, dps=30)
        got = MarchenkoPastur(beta, c).moments_mpmath(lam, v, dps=30)    # exact decimal strings
        with mpmath.workdps(30):
            for f in FIELDS:
                err = abs(getattr(got, f) / ref[f] - 1)
                assert err < mpmath.mpf(10)**-25, (beta, c, lam, v, f, err)


def test_mp_known_moments_at_v1hat_zero():
    # S = lambda': E varrho^k / lambda'^j with E x = 1, E x^2 = 1 + beta (MP_beta, mean 1)
    for beta in (0.3, 1.0, 2.5):
        for c in (0.7, 1.9):
            lam = 0.37
            m = MarchenkoPastur(beta, c).moments(lam, 0.0)
            exact = dict(inv=1 / lam, rho=c / lam, F=c / lam, H=c / lam, inv2=lam**-2,
                         rho2=c / lam**2, rhosq2=c * c * (1 + beta) / lam**2, F2=c / lam**2,
                         DF2=c * c / lam**2, H2=c / lam**2, DH2=c * c * (1 + beta) / lam**2)
            for f in FIELDS:
                assert getattr(m, f) == pytest.approx(exact[f], rel=1e-14), (beta, c, f)
            # continuity at Vhat_1 -> 0 and no NaN for tiny Vhat_1
            tiny = MarchenkoPastur(beta, c).moments(lam, 1e-300)
            assert all(math.isfinite(x) for x in tiny)
            assert tiny.inv == pytest.approx(1 / lam, rel=1e-14)


def test_mp_ridgeless_beta_below_one():
    # lambda' = 0, beta < 1: E 1/x = 1/(1 - beta), E 1/x^2 = 1/(1 - beta)^3
    beta, c, v = 0.4, 1.3, 2.0
    g = v * c
    m = MarchenkoPastur(beta, c).moments(0.0, v)
    assert m.inv == pytest.approx(1 / (g * (1 - beta)), rel=1e-13)
    assert m.inv2 == pytest.approx(1 / (g**2 * (1 - beta)**3), rel=1e-13)
    assert m.rho == pytest.approx(1 / v, rel=1e-13)                # E varrho/(v varrho)
    assert m.rho2 == pytest.approx(1 / (v * g * (1 - beta)), rel=1e-13)
    assert m.rhosq2 == pytest.approx(1 / v**2, rel=1e-13)


def test_mp_float_and_mpmath_back_ends_agree():
    seen = set()
    for beta in (0.05, 0.5, 0.999, 1.0, 1.001, 2.0, 20.0):
        for c in (0.4, 1.3):
            mp = MarchenkoPastur(beta, c)
            for lam in (1e-6, 1e-2, 0.65, 30.0):
                for v in (0.0, 1e-9, 0.3, 1.7, 1e3):
                    seen.add(mp._regime(lam, v))
                    a = mp.moments(lam, v)
                    b = mp.moments_mpmath(lam, v, dps=40)
                    for f, x, y in zip(FIELDS, a, b):
                        assert isinstance(x, float)
                        assert abs(x / float(y) - 1) < 1e-12, (beta, c, lam, v, f)
    assert seen == {"R0", "R1", "R2"}


def test_mp_identity_of_math_h_and_limits():
    # E varrho/S = c E(1/S) (1 - beta Vhat_1 E varrho/S), and D/S = (1 - lambda'/S)/Vhat_1
    for beta in (0.5, 1.0, 2.0):
        for c, lam, v in ((1.3, 0.65, 1.7), (0.6, 0.01, 12.0), (2.0, 3.0, 0.1)):
            m = MarchenkoPastur(beta, c).moments(lam, v)
            assert m.rho == pytest.approx(c * m.inv * (1 - beta * v * m.rho), rel=1e-13)
            assert m.rho == pytest.approx((1 - lam * m.inv) / v, rel=1e-10)
            assert m.rho2 == pytest.approx((m.inv - lam * m.inv2) / v, rel=1e-9)
            assert m.rhosq2 == pytest.approx((m.rho - lam * m.rho2) / v, rel=1e-9)
            # derivatives by finite differences
            h = 1e-6 * lam
            mp = MarchenkoPastur(beta, c)
            d_lam = (mp.moments(lam + h, v).inv - mp.moments(lam - h, v).inv) / (2 * h)
            assert -d_lam == pytest.approx(m.inv2, rel=1e-7)
            hv = 1e-6 * v
            d_v = (mp.moments(lam, v + hv).rho - mp.moments(lam, v - hv).rho) / (2 * hv)
            assert -d_v == pytest.approx(m.rhosq2, rel=1e-7)


def test_mp_density_and_support():
    for beta, c in ((0.5, 1.3), (1.0, 1.0), (2.0, 0.7)):
        mp = MarchenkoPastur(beta, c)
        lo, hi = mp.support()
        assert lo == pytest.approx(c * (1 - math.sqrt(beta))**2, abs=1e-15)
        assert hi == pytest.approx(c * (1 + math.sqrt(beta))**2, rel=1e-15)
        mass, _ = integrate.quad(mp.density, lo, hi, limit=200)
        mean, _ = integrate.quad(lambda x: x * mp.density(x), lo, hi, limit=200)
        assert mass == pytest.approx(1 - mp.atom, abs=1e-7)
        assert mean == pytest.approx(c, rel=1e-7)               # the atom sits at 0
        assert mp.density(np.array([lo - 0.1, hi + 0.1])).tolist() == [0.0, 0.0]
        assert mp.atom == pytest.approx(max(0.0, 1 - 1 / beta))


# --------------------------------------------------------------------------------------
# sampled spectrum

@pytest.fixture(scope="module")
def small_samples():
    return {(p, d): SampledSpectrum(d, beta=p / d, c=1.3, seed=20 + p)
            for p, d in ((300, 300), (450, 300), (200, 300))}


@pytest.mark.parametrize("pd", [(300, 300), (450, 300), (200, 300)])
def test_sherman_morrison_equals_direct_eigenbasis(small_samples, pd):
    s = small_samples[pd]
    assert (s.p, s.d) == pd
    # docs/theory.md (h): lambda = 0.05, Vhat_1 = 1.7, Vhat_2 = 0.6; plus Vhat_1 = 0 and another
    for lam, v in ((0.05 + 0.6, 1.7), (0.3, 0.0), (0.2, 0.8)):
        a, b = s.moments(lam, v), s.moments_direct(lam, v)
        for f, x, y in zip(FIELDS, a, b):
            assert abs(x / y - 1) < 1e-12, (pd, lam, v, f, x, y)


def test_sampled_definitions_and_e1(small_samples):
    s = small_samples[(300, 300)]
    # W rows have norm sqrt(c), |v| = |zeta| = sqrt(d), zeta orthogonal to v
    assert np.allclose(np.linalg.norm(s.W, axis=1), math.sqrt(1.3))
    assert np.linalg.norm(s.v) == pytest.approx(math.sqrt(300))
    assert np.linalg.norm(s.zeta) == pytest.approx(math.sqrt(300))
    assert abs(s.v @ s.zeta) < 1e-9
    # at Vhat_1 = 0: sums of D, F, H over p divided by lambda'
    D, F, H = s.omega_spectrum()
    m = s.moments(0.5, 0.0)
    assert m.rho == pytest.approx(D.sum() / (0.5 * s.p), rel=1e-12)
    assert m.F == pytest.approx(F.sum() / (0.5 * s.p), rel=1e-12)
    assert m.H == pytest.approx(H.sum() / (0.5 * s.p), rel=1e-12)
    # zeta = e1 (plain RF)
    e1 = SampledSpectrum(120, beta=1.0, c=1.0, seed=4, zeta="e1")
    assert e1.zeta[0] == pytest.approx(math.sqrt(120)) and not e1.zeta[1:].any()
    a, b = e1.moments(0.4, 1.1), e1.moments_direct(0.4, 1.1)
    for x, y in zip(a, b):
        assert abs(x / y - 1) < 1e-12
    # same seed, same sample
    again = SampledSpectrum(300, beta=1.0, c=1.3, seed=320)
    assert again.moments(0.3, 0.7) == s.moments(0.3, 0.7)


def test_sampled_mpmath_back_end(small_samples):
    s = small_samples[(200, 300)]
    a = s.moments(0.65, 1.7)
    b = s.moments_mpmath(0.65, 1.7, dps=30)
    for x, y in zip(a, b):
        assert abs(x / float(y) - 1) < 1e-12


@pytest.mark.parametrize("d,beta", [(1500, 0.5), (1000, 1.0), (750, 2.0)])
def test_sampled_close_to_marchenko_pastur(d, beta):
    c, lam, v = 1.3, 0.65, 1.7
    s = SampledSpectrum(d, beta=beta, c=c, seed=58)
    a = s.moments(lam, v)
    b = MarchenkoPastur(beta, c).moments(lam, v)
    for f in ("inv", "rho", "inv2", "rho2", "rhosq2"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), rel=0.02), f
    # chi^2_1 weights: F ~ c chi2, H ~ D chi2 fluctuate at O(p^{-1/2}); over seeds the
    # relative spread at p = 750 is ~6 % (F), 4 % (H), 8 % (F2): allow ~3-4 sigma
    for f in ("F", "H", "F2", "H2", "DF2", "DH2"):
        assert getattr(a, f) == pytest.approx(getattr(b, f), rel=0.25), f
    # the wrong "F ~ D" rule (docs/theory.md (g) 3.) differs from F ~ c by much more than that here
    assert abs(a.F / b.F - 1) < abs(b.rho / b.F - 1)


# --------------------------------------------------------------------------------------
# bad input

@pytest.mark.parametrize("kwargs,match", [
    (dict(beta=0.0), "beta must be positive"),
    (dict(beta=-1.0), "beta must be positive"),
    (dict(beta=float("nan")), "beta must be positive"),
    (dict(c=0.0), "c must be positive"),
    (dict(c="abc"), "c must be a real number"),
])
def test_mp_bad_parameters(kwargs, match):
    with pytest.raises(ValueError, match=match):
        MarchenkoPastur(**kwargs)


@pytest.mark.parametrize("beta,lam,v,match", [
    (0.5, 0.0, 0.0, "lam_prime must be > 0 when v1hat == 0"),
    (1.0, 0.0, 1.0, "needs beta < 1"),
    (2.0, 0.0, 1.0, "needs beta < 1"),
    (0.5, -0.1, 1.0, "lam_prime must be >= 0"),
    (0.5, float("inf"), 1.0, "lam_prime must be >= 0 and finite"),
    (0.5, 1.0, -0.5, "v1hat must be >= 0"),
    (0.5, 1.0, float("nan"), "v1hat must be >= 0"),
])
def test_mp_bad_arguments(beta, lam, v, match):
    mp = MarchenkoPastur(beta, 1.0)
    with pytest.raises(ValueError, match=match):
        mp.moments(lam, v)
    with pytest.raises(ValueError, match=match):
        mp.moments_mpmath(lam, v)


def test_sampled_bad_input():
    with pytest.raises(ValueError, match="d must be an integer"):
        SampledSpectrum(1)
    with pytest.raises(ValueError, match="d must be an integer"):
        SampledSpectrum(10.5)
    with pytest.raises(ValueError, match="beta must be positive"):
        SampledSpectrum(10, beta=-2)
    with pytest.raises(ValueError, match="p = round"):
        SampledSpectrum(10, beta=0.01)
    with pytest.raises(ValueError, match="zeta must be"):
        SampledSpectrum(10, zeta="e2")
    s = SampledSpectrum(10)
    with pytest.raises(ValueError, match="lam_prime must be > 0"):
        s.moments(0.0, 1.0)
    with pytest.raises(ValueError, match="v1hat must be >= 0"):
        s.moments(1.0, -1.0)
    with pytest.raises(ValueError, match="lam_prime must be > 0"):
        s.moments_direct(-1.0, 1.0)


# --------------------------------------------------------------------------------------
# derivation scripts

@pytest.mark.parametrize("script", ["06_marchenko_pastur.py", "07_sherman_morrison.py"])
def test_derivation_scripts_run(script, capsys):
    ns = runpy.run_path(str(ROOT / "derivations" / script), run_name="__main__")
    assert isinstance(ns["TITLE"], str) and ns["TITLE"]
    out = capsys.readouterr().out
    assert "Step 1." in out and "All identities asserted." in out
    assert "LaTeX:" in out
