"""srfsym — a symbolic-numeric workbench for the spiked Random Features (sRF) model.

A two-layer network whose first layer took one giant gradient step, then had its
readout fitted by ridge regression.  The package follows the derivation chain:

=======================  ==============================================================
``activation``           parse / look up an activation (safe ``ast`` parser, registry)
``hermite_constants``    mu0, mu1, E sigma^2, mu_star^2, check-mu1^2, mu_k (docs/theory.md (b))
``cget_coefficients``    mu0(kappa), mu1(kappa), mu_star(kappa)^2 (docs/theory.md (d))
``teacher_functions``    h, h1, h2 (docs/theory.md (e))
``srf_mapping``          (eta, alpha0) -> spike strength r, bulk variance c, alignment gamma
``solve``                the fixed point of Result 3.3: test/train error, order parameters
``learning_curve``       solve along a list of alpha
``solve_grid``           the fixed point on a whole (alpha, lambda) grid at once
``bounds``               upper / lower bounds at every gamma, kernel baseline, and
                         ``optimal_learning_rate_bounds`` over eta (docs/bounds.md)
``simulate``             the real finite-size network (or the sRF model) beside the theory
``feature_spectrum``     spectrum of the learned features: s(z), giant outlier(s), bulk
``vocabulary``           a finite readout vocabulary, a parameter of every step above
                         (docs/vocabulary.md)
``symbols``              the SymPy symbols of the expressions (kappa, r, c, gamma, eta, ...)
=======================  ==============================================================

The equations are stated, with their sources, in ``docs/theory.md``.

Every number carries how it was obtained: ``exact`` (a closed form checked against
30-digit quadrature) or ``numeric`` (quadrature, with its precision).
"""
from . import _moved
_moved.install()
from .symbolic.activations import Activation, ActivationError, activation, parse_activation
from .step.vocabulary import Vocabulary, vocabulary
from .symbolic.gaussian import DivergentExpectationError, gaussian_expectation, set_integrate_timeout
from .symbolic.hermite import hermite_constants
from .symbolic.cget import cget_coefficients, teacher_functions
from .step.mapping import mapping_along_eta, srf_mapping
from .theory.fixed_point import ConvergenceError, FixedPointResult, learning_curve, optimal_lambda, solve
from .theory.grid import GridResult, solve_grid
from .theory.bounds import (Bounds, OptimalBounds, bounds, optimal_learning_rate_bounds,
                     spike_projections)
from .simulation.simulate import SimulationResult, simulate
from .theory.feature.spectrum import FeatureSpectrum, feature_spectrum
from .core.values import Value
from . import symbols

from .core.version import __version__

__all__ = ["Activation", "ActivationError", "activation", "parse_activation",
           "DivergentExpectationError", "gaussian_expectation", "set_integrate_timeout",
           "hermite_constants", "cget_coefficients", "teacher_functions", "srf_mapping", "mapping_along_eta",
           "ConvergenceError", "FixedPointResult", "solve", "learning_curve", "optimal_lambda",
           "GridResult", "solve_grid",
           "Bounds", "OptimalBounds", "bounds", "optimal_learning_rate_bounds",
           "spike_projections", "SimulationResult", "simulate",
           "Value", "symbols", "__version__", "Vocabulary", "vocabulary", "FeatureSpectrum",
           "feature_spectrum"]
