"""The log-mapped contour rule of the step batch (docs/theory.md (g.5.2), "a tiny batch";
srfsym.theory.spectral.exact_bulk_batch): at alpha0 = 0.01 the ellipse in z needed 32768 nodes;
the rule on an ellipse in t = log(z + pole) against free-probability and Wick closed forms and
direct resolvent values, against the ellipse rule where both are cheap, its confocal rules, and
the K = 1 solve on it against the Stieltjes fixed point of the same law."""

import math

import numpy as np
import pytest

from srfsym import solve
from srfsym.theory.fixed_point import solve_srf
from srfsym.theory.spectral import exact_bulk_batch
from srfsym.theory.spectral.exact_bulk import ExactBulk, exact_bulk_spectrum
from srfsym.theory.spectral.exact_bulk_batch import (batch_alignment, batch_contour,
                                                     batch_contour_variant, batch_forms)
from srfsym.theory.state import ConvergenceError

A0 = 0.01


@pytest.fixture(scope="module")
def tiny():
    """tanh/sin at alpha0 = 0.01, eta 3: the law and its K = 1 rule (class pole -1/b)."""
    law = ExactBulk("tanh", "sin", A0, 3.0)
    return law, batch_contour(law.e, law.w, law.xi, A0, 1.0 / law.b)


def test_the_log_rule_integrates_the_batch_law(tiny):
    """Mass, E varsigma = E e^2, E varsigma^2 = E e^4/alpha0 + (E e^2)^2 (free cumulants),
    vhat^T S2 vhat (Wick) and resolvents at real and complex points right of -pole."""
    law, rule = tiny
    e, w, xi = law.e, law.w, law.xi
    assert rule.shift == pytest.approx(1.0 / law.b) and rule.nodes <= 512
    assert rule.radius > 1.3                    # the ellipse in z: 1.0096
    z = rule.z
    E2, E4 = w @ e**2, w @ e**4
    assert abs((rule.plain @ np.ones_like(z)).real - 1) < 1e-12
    assert abs((rule.plain @ z).real / E2 - 1) < 1e-12
    assert abs((rule.plain @ z**2).real / (E4 / A0 + E2**2) - 1) < 1e-12
    s1, s2, _ = batch_alignment(e, w, xi, A0)
    wick = (E4 / A0**2 + E2**2 / A0 + s1**2 * (w @ (e**2 * xi**2))
            + 2 * s1 * (w @ (e**3 * xi)) / A0) / s2
    assert abs((rule.vv @ z).real / wick - 1) < 1e-12
    for tau in (rule.pole, 1.5 * rule.pole, 0.3, 30.0, 0.02 + 0.05j):
        f = batch_forms(np.array([tau]), e, w, xi, A0)
        h = 1.0 / (z + tau)
        for wq, exact in ((rule.plain, f.m), (rule.vv, f.qvv), (rule.vz, f.qvz),
                          (rule.zz, f.qzz)):
            assert abs((wq @ h) / exact[0] - 1) < 1e-11, tau


def test_the_log_rule_is_the_ellipse_rule(monkeypatch):
    """Forced on a case the ellipse in z handles with few nodes (alpha0 = 0.5, pole 0.05), the
    log-mapped rule gives the same sums of holomorphic functions."""
    law = ExactBulk("tanh", "sin", 0.5, 3.0)
    e, w, xi = law.e, law.w, law.xi
    ellipse = batch_contour(e, w, xi, 0.5, 0.05)
    monkeypatch.setattr(exact_bulk_batch, "LOG_RULE_BELOW", 10.0)
    logged = batch_contour(e, w, xi, 0.5, 0.05)
    assert ellipse.shift is None and logged.shift == 0.05
    for h in (lambda z: np.exp(-z), lambda z: 1 / (1 + 3 * z), lambda z: np.sqrt(z + 0.06)):
        for k in ("plain", "vv", "vz", "zz"):
            a, b = getattr(ellipse, k) @ h(ellipse.z), getattr(logged, k) @ h(logged.z)
            assert abs(a - b) < 1e-11 * max(1.0, abs(a)), k


def test_the_log_rules_confocal_rules(tiny):
    """Its confocal rules inside the ellipse that touches Im t = pi integrate the check
    functions; a radius beyond it is refused."""
    law, rule = tiny
    args = (law.e, law.w, law.xi, A0)
    wide = rule.largest_radius()
    assert rule.radius == pytest.approx(math.sqrt(wide))
    for factor in (0.5, 1.5, math.log(1.7) / math.log(rule.radius)):
        var = batch_contour_variant(rule, *args, factor, nodes=128)
        assert var.error < 1e-12 and var.shift == rule.shift
        f = batch_forms(np.array([0.7]), *args)
        assert abs((var.plain @ (1 / (var.z + 0.7))) / f.m[0] - 1) < 1e-11
    with pytest.raises(ConvergenceError, match="no confocal ellipse"):
        batch_contour_variant(rule, *args, math.log(2.5) / math.log(rule.radius))
    # points on (-inf, -pole] lie at the touching radius or beyond
    assert np.all(rule.joukowski_radius(-rule.pole - np.geomspace(1e-6, 1e6, 25))
                  >= wide * (1 - 1e-12))


def test_the_solve_at_a_tiny_batch_is_the_fixed_point():
    """tanh/sin, alpha0 0.01, eta 3, lambda 0.1, alpha 1: the contour route (K = 1 on the
    log-mapped rule) against the Stieltjes fixed point of the same law (measured 4e-9, the
    fixed point's own precision)."""
    res = solve("tanh", "sin", A0, 3.0, 0.1, 1.0, bulk="exact")
    assert any("contour rule" in n for n in res.notes)
    ref = solve_srf("tanh", "sin", res.r, res.c, res.gamma, 0.1, 1.0, 1.0,
                    exact_bulk_spectrum("tanh", "sin", A0, 3.0), nodes=res.nodes)
    assert abs(res.test_error / ref.test_error - 1) < 1e-7
