"""The pieces of the feature spectrum's bulk support (docs/theory.md (j.8)): a support with a gap
is reported piece by piece, and the right edge is where the last piece ends."""
import numpy as np

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
