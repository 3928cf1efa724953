"""The pieces of the feature spectrum's bulk support (docs/theory.md (j.8)): a support with a gap
is reported piece by piece, and the right edge is where the last piece ends."""
import numpy as np
import pytest

from srfsym.theory.feature.spectrum import feature_spectrum


def test_two_clusters_give_two_pieces_of_half_the_mass_each():
    D = np.r_[np.full(50, 1.0), np.full(50, 40.0)]
    fs = feature_spectrum("tanh", r=0.0, c=1.0, spectrum=D, p_over_n=0.05)
    pieces = fs.support_pieces
    assert len(pieces) == 2 and pieces[0][1] < pieces[1][0]
    masses = []
    for a, b in pieces:         # the density's own mass on each piece (trapezoid, 400 points)
        x = np.linspace(a, b, 400)
        rho = fs.density(x, eps=1e-4)
        masses.append(float(np.sum((rho[1:] + rho[:-1]) * np.diff(x)) / 2))
    assert abs(masses[0] - 0.5) < 0.02 and abs(masses[1] - 0.5) < 0.02
    assert fs.right_edge == pieces[-1][1]
    assert fs.density(np.array([0.5 * (pieces[0][1] + pieces[1][0])]))[0] < 1e-6


@pytest.mark.slow
def test_a_step_whose_bulk_has_a_far_piece():
    """tanh/sin at alpha0 = 0.01, eta = 3 on the exact law of the step's bulk (issue 32 item 2):
    the support is not [0, 0.774] (whose normalised variance could not exceed ~1.1, against the
    law's 56.5) but that piece and a far one reaching beyond 40; the pieces' masses add up to 1
    and their first two moments are the bulk mean and variance of the closed forms (an
    independent check: contour integrals of s(z) against docs/theory.md (j.6)).  These are the
    pieces of the law with its default 64 residual nodes: at so small a batch they move with the
    node count (docs/theory.md (j.8), support_resolution).  About 100 s
    on 2 loaded cores (the scan: some 60 solves of s(z) on the exact law)."""
    from srfsym.theory.spectral.exact_bulk import exact_bulk_spectrum
    bulk = exact_bulk_spectrum("tanh", "sin", 0.01, 3.0, 1.0)
    fs = feature_spectrum("tanh", "sin", alpha0=0.01, eta=3.0, spectrum=bulk)
    pieces = fs.support_pieces
    assert len(pieces) >= 2 and pieces[0][0] == 0.0
    assert abs(pieces[0][1] / 0.774 - 1) < 2e-3            # the old "right edge" ends piece 1
    assert pieces[1][0] > 5.0 and fs.right_edge > 40.0
    (mass, m1, m2), err = fs.piece_moments(order=2, nodes=16)
    assert err < 2e-2                   # the far piece's mass: 16 -> 32 nodes
    assert abs(mass.sum() - 1) < 1e-4 and 0.9 < mass[0] < 0.999
    assert abs(m1.sum() / fs.bulk_mean - 1) < 1e-3
    assert abs(m2.sum() / m1.sum()**2 - 1 - fs.bulk_normalised_variance) < 1e-2 * 56.5


def test_the_figure_shades_every_piece_and_marks_the_outlier():
    """`spectrum --plot`: one shaded interval per piece (a far piece puts the x axis on a log
    scale), and the giant outlier drawn as a marker with its value in the legend."""
    import types
    from srfsym.cli.spectrum import _plot
    D = np.r_[np.full(50, 1.0), np.full(50, 40.0)]
    fs = feature_spectrum("tanh", r=1.0, c=1.0, spectrum=D, p_over_n=0.05)
    args = types.SimpleNamespace(teacher=None, alpha0=None, eta=None, bulk="isotropic")
    ax = _plot(args, fs, None, None, None).axes[0]
    spans = [p.get_x() for p in ax.patches]                 # axvspan rectangles
    assert len(spans) == 2 and ax.get_xscale() == "log"
    assert np.allclose(sorted(spans), [a for a, _ in fs.support_pieces])
    labels = ax.get_legend_handles_labels()[1]
    assert any(f"{fs.outlier_per_p:.3g}" in t and "giant outlier" in t for t in labels), labels
    assert any("masses of its pieces" in t for t in labels)


def test_network_share_of_each_piece_leaves_the_outliers_out():
    """`spectrum --simulate`'s line: the network's bulk eigenvalues counted per piece and in the
    gaps, the K giant outliers (1 for the uniform readout) left out, mean and s.e. over seeds."""
    from types import SimpleNamespace
    import numpy as np
    from srfsym.cli.spectrum import network_pieces, _pieces_details
    fs = SimpleNamespace(support_pieces=[(0.0, 1.0), (4.0, 6.0)], K=1, has_outlier=True)
    sim = SimpleNamespace(eigenvalues=[np.array([0.1, 0.5, 2.0, 5.0, 300.0]),      # 2.0 in the gap
                                       np.array([-1e-15, 0.3, 0.9, 4.5, 250.0])])  # round-off < 0
    mean, sem = network_pieces(fs, sim)
    np.testing.assert_allclose(mean, [0.625, 0.25, 0.125])
    np.testing.assert_allclose(sem, [0.125, 0.0, 0.125])
    fs2 = SimpleNamespace(support_pieces=[(0.0, 1.0), (4.0, 6.0)], K=2, has_outlier=True)
    mean2, _ = network_pieces(fs2, sim)          # a vocabulary: its K = 2 outliers left out
    np.testing.assert_allclose(mean2, [(2 / 3 + 1) / 2, 0.0, (1 / 3) / 2])
    det = _pieces_details(fs, SimpleNamespace(eigenvalues=sim.eigenvalues[:1]))
    assert det["gap_fraction"] == 0.25 and det["gap_fraction_sem"] is None


def test_pieces_that_move_with_the_residual_nodes_are_flagged(monkeypatch):
    """The exact law's pieces are recomputed with twice the residual law's nodes; pieces that
    move (tanh/sin, alpha0 0.02: [0, 1.575], [5.436, 9.567], ... at 64 nodes, [0, 1.001],
    [3.16, 5.939], ... at 128) give the warning, pieces that stay give none.  The scans are
    stubbed by node count (the real ones take minutes); the refined law is real."""
    from srfsym.cli.spectrum import support_resolution_line
    from srfsym.theory.feature.spectrum import FeatureSpectrum, feature_spectrum
    from srfsym.theory.spectral.exact_bulk import ExactBulk
    seen = []

    def stub(moving):
        def pieces(self):
            n = self.bulk.e.size
            seen.append(n)
            if n == 64 or not moving:
                return [(0.0, 1.575), (5.436, 9.567), (12.53, 30.59)]
            return [(0.0, 1.001), (3.16, 5.939), (7.603, 30.68)]
        return property(pieces)

    for moving in (True, False):
        monkeypatch.setattr(FeatureSpectrum, "support_pieces", stub(moving))
        monkeypatch.setattr(FeatureSpectrum, "piece_moments",
                            lambda self, order=2, nodes=24: ([np.ones(3) / 3], 0.0))
        bulk = ExactBulk("tanh", "sin", 0.02, 3.0)
        fs = feature_spectrum("tanh", "sin", alpha0=0.02, eta=3.0, spectrum=bulk)
        agree, nodes, finer = fs.support_resolution()
        assert nodes == 128 and agree is (not moving)
        line = support_resolution_line(fs)
        assert (line is not None) is moving
        if moving:
            assert "[3.16, 5.939]" in line and "128 nodes" in line
    assert seen.count(64) >= 2 and seen.count(128) >= 2
