"""The feature spectrum stays on the physical branch: a density is never negative, a cold
start agrees with a warm scan, and a realised first layer's eigenvalues give the right edge
(docs/theory.md (j.3)).  Each check failed before the continuation from far above the axis:
cold 0.003 against warm 5.34, density -8e-4, right edge 0.81 against 1.84."""
import math

import numpy as np
import pytest

from srfsym.simulation.simulate import network_first_layer
from srfsym.step.mapping import srf_mapping
from srfsym.theory.feature.spectrum import feature_spectrum
from srfsym.theory.spectral.eigenvalues import EigenvalueSpectrum


def _density_by_scan(fs, x0, eps=1e-4):
    """Im s / pi at x0 reached by a warm scan from the right (the path density() takes)."""
    x = np.linspace(x0, 3.0, 40)
    return float(fs.density(x, eps=eps)[0])


def test_cold_start_agrees_with_warm_scan_near_the_hard_edge():
    # untrained tanh, beta = 2, p = n: the cold start used to land on another solution
    fs = feature_spectrum("tanh", r=0.0, c=1.0, beta=2.0, p_over_n=1.0)
    cold = fs.stieltjes_value(0.03 + 1e-4j, warm_start=False, tol=1e-8).s.imag / math.pi
    warm = _density_by_scan(fs, 0.03)
    assert cold > 1.0
    assert abs(cold - warm) < 1e-6 * warm


@pytest.mark.parametrize("student", ["tanh", "erf"])
def test_density_is_never_negative_in_the_gap_above_the_atom(student):
    # p = 2n: half the mass is an atom at 0; the warm scan used to cross to a branch with
    # Im s < 0 between the atom and the bulk
    fs = feature_spectrum(student, r=0.0, c=1.0, beta=0.5, p_over_n=2.0)
    x = np.linspace(0.03, 3.0, 40)
    rho = fs.density(x)
    assert np.all(rho >= 0)
    cold = fs.stieltjes_value(0.03 + 1e-4j, warm_start=False, tol=1e-8).s.imag / math.pi
    # at x >> eps the Lorentzian tail of the atom: (1 - 1/nu) eps / (pi x^2) = 0.0177
    assert abs(rho[0] - cold) < 1e-6 * cold
    assert 0.5 * 1e-4 / (math.pi * 0.03**2) < cold < 0.03


def test_realised_first_layer_eigenvalues_and_teacher_projections():
    d = 300
    W0, W1 = network_first_layer("tanh", "sin", 20.0, 3.0, d=d, seed=1)
    vhat = np.linalg.svd(W1 - W0)[2][0]
    Pi = np.eye(d) - np.outer(vhat, vhat)
    D, U = np.linalg.eigh(W1 @ Pi @ W1.T)
    zeta = np.random.default_rng(0).standard_normal(d)
    zeta -= (zeta @ vhat) * vhat
    H = (U.T @ (W1 @ (math.sqrt(d) * zeta / np.linalg.norm(zeta)))) ** 2
    m = srf_mapping("tanh", "sin", 3.0, 20.0)
    bulk = EigenvalueSpectrum(D, teacher=H)     # teacher projections; F -> mean(D)
    fs = feature_spectrum("tanh", r=m.r, c=m.c, spectrum=bulk)
    mp = feature_spectrum("tanh", r=m.r, c=m.c)
    x = np.linspace(0.05, 2.2, 30)
    rho = fs.density(x)
    assert np.all(rho >= 0)
    assert np.max(np.abs(rho - mp.density(x))) < 0.05 * np.max(rho)
    # the edge of the realised bulk is within a few per cent of the d -> infinity edge
    assert abs(fs.right_edge / mp.right_edge - 1) < 0.05
    # the ridge prior reads the same array: the finite-d sums are close to the MP ones
    mom, ref = bulk.moments(0.5, 1.0), mp.bulk
    ref = ref.moments(0.5, 1.0)
    assert abs(mom.H / ref.H - 1) < 0.05 and abs(mom.DH2 / ref.DH2 - 1) < 0.05


def test_density_near_the_hard_edge_is_branch_consistent():
    # the strongly trained bulk of notebook 07 near x = 0 (the fresh-environment failure
    # was a node-count ladder that hopped between solutions)
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=40)
    x = np.array([0.0071, 0.02, 0.05])
    rho = fs.density(x)
    assert np.all(rho > 0)
    cold = fs.stieltjes_value(0.0071 + 1e-4j, warm_start=False, tol=1e-6).s.imag / math.pi
    assert abs(rho[0] - cold) < 1e-5 * cold


def test_node_ladder_stays_on_the_physical_branch_at_the_hard_edge():
    # notebook 07's failing point (eta = 20, z = 0.0071 + 1e-4 i): rules of 225-3800 nodes
    # carried the warm start to a non-physical solution, so two rungs never agreed
    fs = feature_spectrum("tanh", "sin", alpha0=20, eta=20)
    z = 0.007094 + 1e-4j
    v = fs.stieltjes_value(z, warm_start=False, tol=1e-6)
    fine, _ = fs._descend(z, 12600)                 # a much finer trapezoid rule
    s_fine = fs._s_g1(fine)[0]
    assert abs(v.s - s_fine) < 1e-6 * abs(s_fine)
    assert v.s.imag > 0 and (z * v.s).imag > 0
