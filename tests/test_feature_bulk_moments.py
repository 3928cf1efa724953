"""The bulk mean and normalised variance of the feature spectrum come from its spectral side: on
a given eigenvalue list the list's mean and variance (not c, not beta c^2), checked against the
first two moments of the density that the s(z) solver gives (``piece_moments``), and against
the Marchenko-Pastur closed forms when the list is a large MP sample."""
import numpy as np
import pytest

from srfsym.theory.feature.spectrum import feature_spectrum
from srfsym.theory.spectral.sample import SampledSpectrum


@pytest.mark.parametrize("scale", [1.0, 0.25])
def test_eigenvalue_list_moments_match_the_density(scale):
    """Two clusters with mean 2 scale (c = 1): the closed forms of (j.6) with the list's mean
    and variance equal the moments of the solved density to 1e-5 (they used c: at mean 2 the
    bulk mean was 0.284 instead of 0.532)."""
    D = scale * np.r_[np.full(50, 1.0), np.full(50, 3.0)]
    fs = feature_spectrum("tanh", r=1.0, c=1.0, spectrum=D, p_over_n=0.5)
    (mass, m1, m2), err = fs.piece_moments(order=2)
    M0, M1, M2 = mass.sum(), m1.sum(), m2.sum()
    assert err < 1e-3 and abs(M0 - 1) < 1e-5
    assert fs.bulk_mean == pytest.approx(M1 / M0, rel=1e-5)
    assert fs.bulk_normalised_variance == pytest.approx(M2 * M0 / M1**2 - 1, rel=1e-5)
    E_mu1sq, E_mustar2 = fs._moments[3], fs._moments[4]
    assert abs(fs.bulk_mean - (E_mu1sq * fs.c + E_mustar2)) > 0.05 * fs.bulk_mean  # not c


def test_large_mp_sample_matches_the_mp_closed_forms():
    """The eigenvalues of W Pi W^T at d = 1000, beta = 1.5 (rows of W Gaussian with
    E||w||^2 = c): bulk mean and normalised variance within 2/d and 5/d of the MP values
    (E mean(D) = c (1 - 1/d): Pi removes one direction); the sampled layer given as the
    spectral side reads the same eigenvalues."""
    d, beta, c = 1000, 1.5, 1.3
    sample = SampledSpectrum(d, beta=beta, c=c, seed=1)
    D = sample.omega_spectrum()[0]
    args = dict(r=1.2, c=c, beta=beta, p_over_n=0.7)
    on_list = feature_spectrum("tanh", spectrum=D, **args)
    mp = feature_spectrum("tanh", **args)
    assert abs(on_list.bulk_mean / mp.bulk_mean - 1) < 2 / d
    assert abs(on_list.bulk_normalised_variance / mp.bulk_normalised_variance - 1) < 5 / d
    on_sample = feature_spectrum("tanh", spectrum=sample, **args)
    assert on_sample.bulk_mean == on_list.bulk_mean
    assert on_sample.bulk_normalised_variance == on_list.bulk_normalised_variance


def test_support_edge_is_where_the_density_stops_not_its_smoothing_tail():
    """tanh at r = c = 1, beta = p/n = 0.5 (MP bulk): the support starts at 0.0119, where
    Im s(x + i eps) / pi stops being a density (it no longer shrinks with eps); the scan
    reported 0.00125 before, a Lorentzian tail of the steep left edge passing its threshold."""
    fs = feature_spectrum("tanh", r=1.0, c=1.0, beta=0.5, p_over_n=0.5)
    (a, b), = fs.support_pieces
    assert 0.0115 < a < 0.0125

    def value(x, eps):
        return fs.stieltjes_value(complex(x, eps), warm_start=False, tol=1e-8).s.imag / np.pi

    below, above = 0.98 * a, 1.02 * a
    assert value(below, 1e-6) / value(below, 1e-8) == pytest.approx(100, rel=0.01)   # a tail
    assert value(above, 1e-6) / value(above, 1e-8) == pytest.approx(1, abs=0.01)     # density
