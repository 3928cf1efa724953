"""The exact bulk refuses a bulk variance out of the coefficients' range with the isotropic bulk's
message, before its own work (before: "did not converge at tau = array([...]) (last residual
nan)" after minutes)."""
import pytest

from srfsym import solve


@pytest.mark.parametrize("eta,vocabulary", [(3.0, [1, 1000]), (3000.0, None)])
def test_exact_bulk_refuses_a_huge_bulk_variance_clearly(eta, vocabulary):
    with pytest.raises(ValueError, match=r"bulk variance c = 189733 is above 10000"):
        solve("tanh", "sin", 2.0, eta, 0.1, 1.0, bulk="exact", vocabulary=vocabulary)
    with pytest.raises(ValueError, match=r"bulk variance c = 189733 is above 10000"):
        solve("tanh", "sin", 2.0, eta, 0.1, 1.0, vocabulary=vocabulary)   # the isotropic bulk
