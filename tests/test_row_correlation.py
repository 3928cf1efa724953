"""The rows' bulk correlation of a trained first layer (docs/theory.md (j.9)): measured on the
network against the exact law's effective dimension d (E l)^2 / E l^2, on sphere rows against
1/d, and the Gaussian-equivalence warning where the simulate and spectrum commands print it."""
import numpy as np
import pytest

from srfsym.simulation.first_layer import as_seed_sequence, network_first_layer, seed_children
from srfsym.simulation.result import (bulk_row_correlation, empirical_srf_parameters,
                                      gaussian_equivalence_warning)
from srfsym.symbolic.activations import activation
from srfsym.theory.spectral.exact_bulk import ExactBulk
from cli_run import run_cli


def test_sphere_rows_have_correlation_one_over_d():
    """Rows uniform on a sphere of R^d: E <u, u'>^2 = 1/d exactly (and a spike direction
    removed first leaves 1/(d - 1))."""
    d, vals, vals_v = 150, [], []
    rng = np.random.default_rng(3)
    v = np.zeros(d)
    v[0] = 1.0
    for _ in range(20):
        W = rng.standard_normal((300, d))
        vals.append(bulk_row_correlation(W)["rho2"])
        vals_v.append(bulk_row_correlation(W + 5.0 * v, v)["rho2"])
    for got, want in ((vals, 1 / d), (vals_v, 1 / (d - 1))):
        got = np.array(got)
        sem = got.std(ddof=1) / np.sqrt(got.size)
        assert abs(got.mean() - want) < 3 * sem, (got.mean(), want, sem)


@pytest.mark.parametrize("student,teacher,alpha0,eta,d", [
    ("tanh", "sin", 0.5, 3.0, 300),     # d_eff = 186: nearly isotropic
    ("relu", "sin", 0.5, 2.0, 300),     # a non-odd student (a != 0)
    ("tanh", "sign", 0.05, 2.0, 400),   # d_eff = 24: far from isotropic
    ("tanh", "sin", 0.02, 3.0, 400),    # d_eff = 5.3
])
def test_network_rows_match_the_exact_laws_effective_dimension(student, teacher, alpha0, eta, d):
    """Mean squared correlation of two bulk rows on 8 trained first layers against
    1 / d_eff = E l^2 / (d (E l)^2) from the exact law's closed-form moments, within 6 %
    (the finite-n0 bias measured: up to 3.3 %; a missing beta or mean would be off by
    factors)."""
    st, te = activation(student), activation(teacher)
    rho2 = []
    for ss in seed_children(as_seed_sequence(1), 8):
        W0, W1 = network_first_layer(st, te, alpha0, eta, d, beta=1.0, seed=ss)
        vhat = empirical_srf_parameters(W0, W1, n_singular=1)["vhat"]
        rho2.append(bulk_row_correlation(W1, vhat)["rho2"])
    theory = 1.0 / ExactBulk(student, teacher, alpha0, eta).effective_dimension(d)
    assert abs(np.mean(rho2) / theory - 1) < 0.06, (np.mean(rho2), theory)


def test_warning_threshold():
    assert gaussian_equivalence_warning([0.02], p=1000, d=1000) is None        # p rho^4 = 0.4
    msg = gaussian_equivalence_warning([0.04], p=1000, d=1000)                 # 1.6
    assert "effective dimension 1/rho2 = 25" in msg and "p/d_eff^2 = 1.6" in msg


def test_simulate_warns_where_the_rows_are_correlated():
    """alpha0 = 0.02, eta 3 at d = 200 (n0 = 4): d_eff about 3, the warning is printed with
    the measured numbers; at alpha0 = 2 it is not."""
    small = run_cli("simulate", "--student", "tanh", "--teacher", "sin", "--alpha0", "0.02",
                    "--eta", "3", "--lam", "0.1", "--alpha", "1", "--d", "200", "--seeds", "2",
                    "--bulk", "exact", "-q")
    assert small.returncode == 0, small.stderr
    text = " ".join(small.stdout.split())
    assert "not yet Gaussian-equivalent" in text and "rows' bulk parts" in text
    big = run_cli("simulate", "--student", "tanh", "--teacher", "sin", "--alpha0", "2",
                  "--eta", "3", "--lam", "0.1", "--alpha", "1", "--d", "200", "--seeds", "2", "-q")
    assert big.returncode == 0, big.stderr
    assert "Gaussian-equivalent" not in big.stdout and "rows' bulk parts" in big.stdout


def test_bad_input_is_named():
    """One row, a row with no bulk part, a refinement factor below 2: named errors."""
    v = np.array([1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="at least two rows"):
        bulk_row_correlation(np.ones((1, 3)))
    with pytest.raises(ValueError, match="no bulk part"):
        bulk_row_correlation(np.array([[2.0, 0.0, 0.0], [0.0, 1.0, 0.0]]), v)
    with pytest.raises(ValueError, match="integer >= 2"):
        ExactBulk("tanh", "sin", 0.5, 3.0).refined(1.5)
    with pytest.raises(ValueError, match="positive integer"):
        ExactBulk("tanh", "sin", 0.5, 3.0).effective_dimension(0)
