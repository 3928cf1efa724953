"""The contour rules of the exact law with a vocabulary when the integrand's poles crowd next to the
step batch's spectrum (docs/theory.md (g.5.2); issue 32, item 4): the feature spectrum's complex
arguments are summed on a wide ellipse (Joukowski radius 2 or 3) with the poles' residues added,
so a pole on the first rule's ellipse, where the confocal rules could not be built (as at the
letters {1, 10}, eta = 10, alpha0 = 0.25), no longer stops the computation."""
import numpy as np
import pytest

from srfsym.theory.spectral.exact_bulk_batch import batch_forms
from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk


@pytest.mark.parametrize("angle", [0.7, 2.5])
def test_a_pole_on_the_first_contour_is_summed_on_a_wide_one(angle):
    bulk = ExactGroupBulk("tanh", "sin", 2.0, 3.0, vocabulary=[2])          # K = 1
    P = bulk.group_prior(0.0, 1.0)
    P._variants[0] = P._variants[1] = False      # the rho^0.5, rho^1.5 rules could not be built
    rule = P.rule
    u = rule.radius * np.exp(1j * angle)                     # a point of the first ellipse
    root = rule.centre + rule.half * (u + 1 / u) / 2
    r = np.array([0.8 + 0.3j])
    a0 = P.beta * P.pi[0] * r[0]
    B = np.array([[-1.0 / (a0 * (1.0 + P.slope[0] * root))]])  # det(1 + H B) = 0 at the root
    assert abs(P._roots(r, B)[0][0] / root - 1) < 1e-12
    e_diag, V1 = P.expectations(r, B)
    # one pole, so a closed form: ell B/(1 + a0 ell B) = (1 - 1/(a0 B slope (varsigma - root)))/a0
    # and h/(1 + h B) = (1 - 1/(a0 B slope (varsigma - root)))/B, with m(root) = E 1/(varsigma - root)
    m = batch_forms(np.array([-root]), P.law_e, P.law_w, P.law_xi, P.alpha0).m[0]
    k = 1 - m / (a0 * B[0, 0] * P.slope[0])
    assert abs(e_diag[0] / (k / a0) - 1) < 1e-10
    assert abs(V1[0, 0] / (k / (B[0, 0] * P.beta)) - 1) < 1e-10
    assert P._variants[2] is not None                        # the wide rule served


def test_a_first_rule_that_cannot_be_built_names_the_letter(monkeypatch):
    """Where the batch's fixed point fails on the contour (erf/tanh, {1, 20}, eta = 10, alpha0 = 1:
    the pole of letter 20 sits at -1/(400 b), next to the spectrum that starts at 0), the refusal
    names the letter and its pole, not a bare "did not converge at tau = array(...)"."""
    import srfsym.theory.spectral.exact_bulk_groups as g
    from srfsym.theory.state import ConvergenceError

    calls = []

    def fails(*args, **kwargs):
        calls.append(1)
        raise ConvergenceError("the step batch's resolvent fixed point did not converge",
                               residual=float("nan"))
    monkeypatch.setattr(g, "batch_contour", fails)
    bulk = g.ExactGroupBulk("tanh", "sin", 2.0, 3.0, vocabulary=[1, 20])   # the rule is lazy
    for _ in range(2):                               # tried once, the failure kept
        with pytest.raises(ConvergenceError,
                           match=r"letter 20 puts the pole .*\(omega\^2 b = 175.5\)"):
            bulk.rule
    assert len(calls) == 1
    # the feature spectrum's complex arguments go on without it (the wide ellipses); the fixed
    # point, which needs it, refuses with the same message
    P = bulk.group_prior(0.0, 1.0)
    e_diag, V1 = P.expectations(np.array([0.8 + 0.3j, 0.5 + 0.2j]), 0.3 * np.eye(2) + 0j)
    assert np.all(np.isfinite(e_diag)) and np.all(np.isfinite(V1)) and len(calls) == 1
    with pytest.raises(ConvergenceError, match="letter 20 puts the pole"):
        bulk.group_prior(0.1, 1.0).prior(np.eye(2), np.zeros(2))


def test_the_first_rule_is_built_on_first_use_and_changes_no_value():
    """The feature spectrum's complex arguments are summed on the wide ellipses, which need
    only the first rule's ellipse: a bulk whose rule is never built gives the same Stieltjes
    values, to the last bit, as one whose rule was built with it (as every bulk was before the
    rule became lazy); the fixed point's sums then build it, the same rule."""
    from srfsym.theory.feature.spectrum import feature_spectrum
    step = ("tanh", "sin", 2.0, 3.0)
    lazy = ExactGroupBulk(*step, vocabulary=[1, 3])
    eager = ExactGroupBulk(*step, vocabulary=[1, 3])
    assert eager.rule.nodes >= 64 and eager._rule is not None
    assert lazy._rule is None and "not built yet" in repr(lazy)
    zs = (0.5 + 0.1j, 2.0 + 0.05j, -0.5 + 0j)
    values = {}
    for name, bulk in (("lazy", lazy), ("eager", eager)):
        fs = feature_spectrum("tanh", "sin", alpha0=2.0, eta=3.0, spectrum=bulk,
                              vocabulary=[1, 3])
        values[name] = [fs.stieltjes_value(z).s for z in zs]
    assert lazy._rule is None                       # the spectrum never needed it
    assert values["lazy"] == values["eager"]         # identical numbers
    assert all(abs(v) > 0.05 for v in values["lazy"])
    V1hat, V2hat = np.array([[1.0, 0.3], [0.3, 2.0]]), np.array([0.2, 0.3])
    got = lazy.group_prior(0.1, 1.0).prior(V1hat, V2hat)
    want = eager.group_prior(0.1, 1.0).prior(V1hat, V2hat)
    assert lazy._rule is not None and lazy.rule.nodes == eager.rule.nodes
    rule = lazy.rule                                # the ellipse the wide rules were built on
    assert tuple(lazy.ellipse) == (rule.centre, rule.half, rule.radius, rule.pole,
                                  rule.shift)
    assert np.array_equal(lazy.rule.z, eager.rule.z)
    for name in ("r", "V1", "V2", "F", "H", "X"):
        assert np.array_equal(getattr(got, name), getattr(want, name)), name
