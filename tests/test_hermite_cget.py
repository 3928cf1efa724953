"""Independent tests of the Hermite constants, cGET coefficients and teacher functions
(srfsym.symbolic.hermite, srfsym.symbolic.cget; docs/theory.md (b), (d), (e)).

References are the decimals of the docs/theory.md (b) table (independent mpmath results of the
spec) and direct ``mpmath.quad`` of the defining Gaussian integrals, with the integrands
typed here and the line cut at kinks and jumps.
"""
from __future__ import annotations

import mpmath
import numpy as np
import pytest
import sympy as sp

from srfsym.symbolic.activations import registry_names
from srfsym.symbolic.cget import C, GAMMA, KAPPA, R, cget_coefficients, teacher_functions
from srfsym.symbolic.hermite import hermite_constants
from conftest import assert_mp_close, hermite_he

mpf = mpmath.mpf


def gauss(f, a="0", s="1", k=0, kinks=(), dps=40):
    """E_xi[xi^k f(a + s xi)], xi ~ N(0, 1), by mpmath.quad cut at the kinks."""
    with mpmath.workdps(dps):
        a, s = mpf(a), mpf(s)
        if s == 0:
            raise ValueError("point mass: evaluate f directly")
        cuts = sorted((mpf(x0) - a) / s for x0 in kinks)
        val = mpmath.quad(lambda z: z**k * f(a + s * z) * mpmath.exp(-z * z / 2),
                          [-mpmath.inf, *cuts, mpmath.inf]) / mpmath.sqrt(2 * mpmath.pi)
    return val


# hand-typed activations: (sigma, kinks)
MP = {
    "tanh": (mpmath.tanh, ()),
    "sin": (mpmath.sin, ()),
    "cos": (mpmath.cos, ()),
    "erf": (mpmath.erf, ()),
    "relu": (lambda x: max(x, 0), (0,)),
    "sign": (lambda x: mpmath.sign(x), (0,)),
    "he2": (lambda x: x**2 - 1, ()),
    "he3": (lambda x: x**3 - 3 * x, ()),
    "linear": (lambda x: x, ()),
    "softplus": (lambda x: mpmath.log(1 + mpmath.exp(x)), ()),
}


def cget_reference(name, kappa, r, c, dps=40):
    """(mu0, mu1, mu_star^2)(kappa) from their definitions in docs/theory.md (d)."""
    f, kinks = MP[name]
    with mpmath.workdps(dps):
        a, s = mpf(r) * mpf(kappa), mpmath.sqrt(mpf(c))
        m0 = gauss(f, a, s, 0, kinks, dps)
        m1 = gauss(f, a, s, 1, kinks, dps) / s
        e2 = gauss(lambda x: f(x)**2, a, s, 0, kinks, dps)
        return m0, m1, e2 - m0**2 - mpf(c) * m1**2


# --------------------------------------------------------------------------------------
# docs/theory.md (b): the table, 30 digits

TABLE_B = {  # mu0, mu1, E sigma^2, mu_star^2, check-mu1^2  (None = infinite)
    "tanh": ("0", "0.605705509602158825583540227556", "0.394294490397841174416459772444",
             "0.0274153260354302571560236101086", "0.0975237380858573247115852987801"),
    "sin": ("0", "0.606530659712633423603799534991", "0.432332358381693654053000252514",
            "0.0644529172102513324574764823523", "0.199788200446864024351475977325"),
    "erf": ("0", "0.651470015870559895448512830451", "0.464559054397539978509532408118",
            "0.0401458728191524164591757057908", "0.144996853155354084731053438796"),
    "relu": ("0.398942280401432677939946059934", "0.5", "0.5",
             "0.0908450569081046642311162366275", "0.25"),
    "sign": ("0", "0.797884560802865355879892119869", "1", "0.36338022763241865692446494651",
             None),
    "he3": ("0", "0", "6", "6", "18"),
}
FIELDS = ("mu0", "mu1", "second_moment", "mustar2", "checkmu1_sq")


@pytest.mark.parametrize("name", list(TABLE_B))
def test_table_b(name):
    hc = hermite_constants(name)
    for field, ref in zip(FIELDS, TABLE_B[name]):
        v = getattr(hc, field)
        if ref is None:
            assert v.is_infinite and v.decimal(30) == "inf" and mpmath.isinf(v.mpmath(30))
            continue
        # the spec gives 30 significant digits: agree to 1e-27 relative
        with mpmath.workdps(40):
            assert_mp_close(v.mpmath(30), mpf(ref), 32, f"{name} {field}")
            assert_mp_close(mpf(v.decimal(30)), mpf(ref), 32, f"{name} {field} decimal")
        assert abs(float(v) - float(ref)) <= 1e-15 * max(1.0, abs(float(ref)))
    if name == "tanh":
        assert hc.mu1.method == "numeric" and hc.mustar2.method == "numeric"
        assert hc.mu0.is_exact and hc.mu0.expr == 0  # by parity
    else:
        assert all(getattr(hc, f).is_exact for f in FIELDS), name


def test_table_b_closed_forms():
    # the closed forms stated in docs/theory.md (b), checked at 50 digits
    cases = [
        (hermite_constants("sin").mu1.expr, sp.exp(-sp.Rational(1, 2))),
        (hermite_constants("sin").second_moment.expr, (1 - sp.exp(-2)) / 2),
        (hermite_constants("erf").mu1.expr, 2 / sp.sqrt(3 * sp.pi)),
        (hermite_constants("erf").second_moment.expr, 2 / sp.pi * sp.asin(sp.Rational(2, 3))),
        (hermite_constants("relu").mu0.expr, 1 / sp.sqrt(2 * sp.pi)),
        (hermite_constants("sign").mu1.expr, sp.sqrt(2 / sp.pi)),
        (hermite_constants("sign").mustar2.expr, 1 - 2 / sp.pi),
    ]
    for got, ref in cases:
        assert abs(sp.N(got - ref, 50)) < sp.Float(10) ** -45, (got, ref)
    assert hermite_constants("he3").second_moment.expr == 6
    assert hermite_constants("relu").checkmu1_sq.expr == sp.Rational(1, 4)


def test_table_b_against_own_quadrature():
    # the one numeric row (tanh) and check-mu1^2 = E sigma'^2 - mu1^2 from the definitions
    hc = hermite_constants("tanh")
    with mpmath.workdps(40):
        mu1 = gauss(lambda x: 1 - mpmath.tanh(x)**2)           # E sigma'
        mu1_stein = gauss(mpmath.tanh, k=1)                     # E z sigma
        e2 = gauss(lambda x: mpmath.tanh(x)**2)
        ed2 = gauss(lambda x: (1 - mpmath.tanh(x)**2)**2)
        assert_mp_close(mu1, mu1_stein, 38)
        assert_mp_close(hc.mu1.mpmath(30), mu1, 30, "tanh mu1")
        assert_mp_close(hc.mustar2.mpmath(30), e2 - mu1**2, 30, "tanh mustar2")
        assert_mp_close(hc.checkmu1_sq.mpmath(30), ed2 - mu1**2, 30, "tanh checkmu1")


@pytest.mark.parametrize("name,k", [("tanh", 3), ("tanh", 5), ("sin", 3), ("sin", 4),
                                    ("relu", 2), ("relu", 4), ("sign", 3), ("erf", 3),
                                    ("he3", 3), ("he3", 1)])
def test_mu_k(name, k):
    f, kinks = MP[name]
    v = hermite_constants(name).mu_k(k)
    with mpmath.workdps(40):
        ref = gauss(lambda x: f(x) * hermite_he(k, x), kinks=kinks)
    assert_mp_close(v.mpmath(30), ref, 30, f"mu_{k}({name})")
    if name == "he3":
        assert v.expr == (6 if k == 3 else 0)


def test_mu_k_rejects_negative_index():
    with pytest.raises(ValueError):
        hermite_constants("sin").mu_k(-1)


# --------------------------------------------------------------------------------------
# docs/theory.md (d): cGET coefficients

CGET_POINTS = (("0.7", "0", "1"), ("0.7", "0.9", "1"), ("-1.2", "1.4", "0.5"),
               ("2", "0.3", "2.2"))  # (kappa, r, c); the first has r = 0


@pytest.mark.parametrize("name", ["sign", "erf", "relu", "he3", "sin", "cos", "he2", "linear"])
def test_cget_closed_forms(name):
    co = cget_coefficients(name)
    assert co.method == "exact"
    assert all(e is not None for e in co.expressions().values())
    ev = co.mpmath(30)
    for kappa, r, c in CGET_POINTS:
        got = ev(kappa, r, c)
        ref = cget_reference(name, kappa, r, c)
        for g, f, what in zip(got, ref, ("mu0", "mu1", "mustar2")):
            assert_mp_close(g, f, 30, f"{name} {what} at (kappa, r, c) = ({kappa}, {r}, {c})")


def test_cget_closed_forms_symbolic():
    # docs/theory.md (d) closed forms written out here (a = r kappa, s = sqrt(c))
    a, s = R * KAPPA, sp.sqrt(C)
    he3 = cget_coefficients("he3")
    assert sp.expand(he3.mu0 - (a**3 + 3 * a * (C - 1))) == 0
    assert sp.expand(he3.mu1 - 3 * (a**2 + C - 1)) == 0
    assert sp.expand(he3.mustar2 - (18 * a**2 * C**2 + 6 * C**3)) == 0
    sin = cget_coefficients("sin")
    assert sp.simplify(sin.mu0 - sp.sin(a) * sp.exp(-C / 2)) == 0
    assert sp.simplify(sin.mu1 - sp.cos(a) * sp.exp(-C / 2)) == 0
    e2 = (1 - sp.cos(2 * a) * sp.exp(-2 * C)) / 2
    assert sp.simplify(sin.mustar2 - (e2 - sin.mu0**2 - C * sin.mu1**2)) == 0
    relu = cget_coefficients("relu")
    Phi = (1 + sp.erf(a / s / sp.sqrt(2))) / 2
    phi = sp.exp(-a**2 / (2 * C)) / sp.sqrt(2 * sp.pi)
    assert sp.simplify(relu.mu0 - (a * Phi + s * phi)) == 0
    assert sp.simplify(relu.mu1 - Phi) == 0


def test_slides_sign_example():
    # r = c = 1: erf(kappa/sqrt 2), sqrt(2/pi) e^{-kappa^2/2}, 1 - mu0^2 - mu1^2
    co = cget_coefficients("sign")
    at = {R: 1, C: 1}
    mu0 = sp.erf(KAPPA / sp.sqrt(2))
    mu1 = sp.sqrt(2 / sp.pi) * sp.exp(-KAPPA**2 / 2)
    assert sp.simplify(co.mu0.subs(at) - mu0) == 0
    assert sp.simplify(co.mu1.subs(at) - mu1) == 0
    assert sp.simplify(co.mustar2.subs(at) - (1 - mu0**2 - mu1**2)) == 0


def test_tanh_coefficients_to_25_digits():
    # what `srfsym coefficients tanh --r 0.9 --c 1 --kappa 0.7 --dps 30` prints
    co = cget_coefficients("tanh")
    assert co.method == "numeric" and co.mu0 is None
    got = co.mpmath(30)("0.7", "0.9", "1")
    assert len(got) == 3
    ref = cget_reference("tanh", "0.7", "0.9", "1", dps=45)
    for g, f, what in zip(got, ref, ("mu0", "mu1", "mustar2")):
        assert_mp_close(g, f, 30, f"tanh {what}")


@pytest.mark.parametrize("name", registry_names())
def test_numpy_against_mpmath_on_kappa_grid(name):
    co = cget_coefficients(name)
    kappa = np.linspace(-4.0, 4.0, 9)
    r, c = 0.9, 1.1
    got = co.numpy()(kappa, r, c)
    assert len(got) == 3 and all(np.shape(g) == kappa.shape for g in got)
    ev = co.mpmath(20)
    ref = np.array([[float(v) for v in ev(repr(float(k)), "0.9", "1.1")] for k in kappa]).T
    # atol: mu_star^2 = E sigma^2 - mu0^2 - c mu1^2 cancels, its error is ~ eps * mu0^2
    scale = max(1.0, float(np.max(np.abs(ref[0]))))**2
    for g, f, what in zip(got, ref, ("mu0", "mu1", "mustar2")):
        np.testing.assert_allclose(g, f, rtol=1e-12, atol=1e-14 * scale,
                                   err_msg=f"{name} {what}")
    # and the teacher functions of the same activation at gamma = 0.8
    te = teacher_functions(name)
    got = te.numpy()(kappa, 0.8)
    ev = te.mpmath(20)
    ref = np.array([[float(v) for v in ev(repr(float(k)), "0.8")] for k in kappa]).T
    scale = max(1.0, float(np.max(np.abs(ref))))
    for g, f, what in zip(got, ref, ("h", "h1", "h2")):
        np.testing.assert_allclose(g, f, rtol=1e-12, atol=1e-14 * scale,
                                   err_msg=f"{name} {what}")


@pytest.mark.parametrize("name", ["tanh", "softplus"])
def test_numpy_on_a_large_kappa_grid(name):
    # large arrays may take a different (interpolated) path: still agree with mpmath
    co = cget_coefficients(name)
    kappa = np.linspace(-5.0, 5.0, 30001)
    got = co.numpy()(kappa, 1.2, 1.3)
    ev = co.mpmath(20)
    for i in (0, 1234, 15000, 15001, 22222, 30000):
        ref = [float(v) for v in ev(repr(float(kappa[i])), "1.2", "1.3")]
        for g, f, what in zip(got, ref, ("mu0", "mu1", "mustar2")):
            # mu_star^2 = E sigma^2 - mu0^2 - c mu1^2 cancels: absolute error ~ eps * mu0^2
            atol = 1e-14 * max(1.0, ref[0]**2)
            assert abs(g[i] - f) <= 1e-12 * abs(f) + atol, (name, what, kappa[i], g[i], f)


def test_invalid_parameters():
    co = cget_coefficients("sign")
    for c in (0, -1.0):
        with pytest.raises(ValueError):
            co.numpy()(0.5, 1.0, c)
        with pytest.raises(ValueError):
            co.mpmath(30)("0.5", "1", str(c))
    with pytest.raises(ValueError):
        co.numpy()(0.5, 1.0, np.array([1.0, 0.0]))
    te = teacher_functions("sin")
    for g in (1.2, -1.5, 1.0000001):
        with pytest.raises(ValueError):
            te.numpy()(0.5, g)
        with pytest.raises(ValueError):
            te.mpmath(30)("0.5", repr(g))


# --------------------------------------------------------------------------------------
# docs/theory.md (e): teacher functions

@pytest.mark.parametrize("name", ["sin", "tanh", "relu", "sign", "erf", "he3", "cos", "he2",
                                  "linear"])
def test_teacher_functions(name):
    f, kinks = MP[name]
    te = teacher_functions(name)
    ev = te.mpmath(30)
    for gamma in ("0.8", "0.3"):
        for kappa in ("0.7", "-1.3"):
            with mpmath.workdps(40):
                rho = mpmath.sqrt(1 - mpf(gamma)**2)
                a = mpf(gamma) * mpf(kappa)
                ref = (gauss(f, a, rho, 0, kinks), gauss(f, a, rho, 1, kinks),
                       gauss(lambda x: f(x)**2, a, rho, 0, kinks))
            got = ev(kappa, gamma)
            for g, r_, what in zip(got, ref, ("h", "h1", "h2")):
                assert_mp_close(g, r_, 30, f"{name} {what} at gamma={gamma}, kappa={kappa}")
    # gamma = 1: a point mass, h = sigma(kappa), h1 = 0, h2 = sigma(kappa)^2
    for kappa in ("0.7", "-1.3"):
        with mpmath.workdps(40):
            s = f(mpf(kappa))
            s2 = s**2
        got = ev(kappa, "1")
        assert_mp_close(got[0], s, 30, f"{name} h at gamma = 1")
        assert_mp_close(got[1], 0, 30, f"{name} h1 at gamma = 1")
        assert_mp_close(got[2], s2, 30, f"{name} h2 at gamma = 1")
        h, h1, h2 = te.numpy()(float(kappa), 1.0)
        np.testing.assert_allclose([h, h1, h2], [float(s), 0.0, float(s)**2],
                                   rtol=1e-14, atol=1e-15)


def test_teacher_sin_closed_forms():
    # docs/theory.md (e): h = e^{-rho^2/2} sin(gamma kappa), h1 = rho e^{-rho^2/2} cos(gamma kappa)
    te = teacher_functions("sin")
    rho2 = 1 - GAMMA**2
    assert sp.simplify(te.h - sp.exp(-rho2 / 2) * sp.sin(GAMMA * KAPPA)) == 0
    h1 = sp.sqrt(rho2) * sp.exp(-rho2 / 2) * sp.cos(GAMMA * KAPPA)
    for g, k in ((sp.Rational(4, 5), sp.Rational(7, 10)), (sp.Rational(-3, 10), 2)):
        assert abs(sp.N((te.h1 - h1).subs({GAMMA: g, KAPPA: k}), 40)) < 1e-35
        h2 = (1 - sp.exp(-2 * rho2) * sp.cos(2 * GAMMA * KAPPA)) / 2
        assert abs(sp.N((te.h2 - h2).subs({GAMMA: g, KAPPA: k}), 40)) < 1e-35
