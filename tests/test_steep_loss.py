"""A steep user loss, ``(y - yhat)**64`` (issue 31, item 10): its proximal step converges where
``V l'(omega)`` is astronomically large (before: "the proximal step did not converge in 300
safeguarded Newton steps"), without numpy overflow warnings, to the root of its own
stationarity equation checked in mpmath."""
import warnings

import mpmath
import numpy as np

from srfsym.theory.channels.losses import loss


def test_prox_of_a_steep_loss_solves_its_stationarity_equation():
    lo = loss("(y-yhat)**64")
    y = np.array([0.5, -0.3, 1.0, 0.0, 2.0])
    for V in (1e-3, 1.0, 1e4):
        for omega in (-10.0, 3.0, 100.0):
            with warnings.catch_warnings():
                warnings.simplefilter("error")          # no overflow warning may leak
                P, f, g = lo.prox(y, np.full(5, omega), np.full(5, V))
            with mpmath.workdps(50):
                for yi, Pi in zip(y, P):
                    # the channel loss is half the loss: P - omega + V (1/2) d/dP (y - P)^64 = 0
                    G = lambda x: x - omega - V * 32 * (mpmath.mpf(yi) - x) ** 63  # noqa: E731
                    root = mpmath.findroot(G, mpmath.mpf(Pi))
                    assert abs(root - Pi) <= 1e-12 * (1 + abs(root)), (V, omega, yi, Pi, root)
            assert np.all(np.isfinite(f)) and np.all((g >= 0) & (g <= 1 / V + 1e-12))
