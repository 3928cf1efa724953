"""The time limit (``--time-limit``, :func:`srfsym.core.budget.time_budget`) holds in the exact
and realised bulks' computations (issue 32, item 5): a budget of a second or two stops them
within 2 s of the limit (one step), where they used to run for minutes (the feature spectrum's
support on the exact law with five letters, 18-38 s; the realised bulk at p = 100 d, whose
p x p eigendecomposition alone took 80 s)."""
import time

import pytest

from srfsym.core.budget import BudgetExceeded, time_budget


def _within(limit, body):
    """Run ``body`` under ``time_budget(limit)``: its answer, or the budget's refusal; either
    way within the limit plus 2 s."""
    t0 = time.monotonic()
    try:
        with time_budget(limit):
            out = body()
    except BudgetExceeded as exc:
        out = exc
        assert "time limit" in str(exc)
    elapsed = time.monotonic() - t0
    assert elapsed < limit + 2.0, elapsed
    return out


@pytest.mark.timeout(120)
def test_the_feature_spectrum_on_the_exact_law_with_five_letters_keeps_the_limit():
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.exact_bulk_groups import ExactGroupBulk

    def body():
        bulk = ExactGroupBulk("tanh", "sin", 0.5, 5.0, vocabulary=[1, 2, 3, 4, 5])
        fs = feature_spectrum("tanh", "sin", alpha0=0.5, eta=5.0, spectrum=bulk,
                              vocabulary=[1, 2, 3, 4, 5])
        return fs.support_pieces
    assert isinstance(_within(1.5, body), BudgetExceeded)       # it needs far more than 1.5 s


@pytest.mark.timeout(120)
def test_the_support_scan_of_a_far_piece_keeps_the_limit():
    from srfsym.theory.feature.spectrum import feature_spectrum
    from srfsym.theory.spectral.exact_bulk import ExactBulk

    def body():
        bulk = ExactBulk("tanh", "sin", 0.01, 3.0, 1.0)
        return feature_spectrum("tanh", "sin", alpha0=0.01, eta=3.0,
                                spectrum=bulk).support_pieces
    assert isinstance(_within(2.0, body), BudgetExceeded)


@pytest.mark.timeout(120)
def test_the_realised_bulk_with_many_more_neurons_than_inputs_keeps_the_limit():
    """p = 100 d: the bulk's eigenvalues from the p x d layer's singular values (an answer in a
    few seconds, or the refusal at the limit; the p x p eigendecomposition could not be
    interrupted)."""
    from srfsym.theory.fixed_point import solve
    out = _within(3.0, lambda: solve("tanh", "sin", 2.0, 3.0, 0.1, 1.0, beta=100.0,
                                     bulk="step", d=100, seed=0))
    if not isinstance(out, BudgetExceeded):
        assert 0.0 < out.test_error < 1.0
