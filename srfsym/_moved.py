"""Old module paths of srfsym, kept importable after the move into sub-packages.

srfsym's modules live in sub-packages named after the step of the derivation they implement
(``symbolic``, ``step``, ``theory``, ``simulation``, ``sweep``, ``cli``, with ``core`` underneath;
``theory`` has ``channels``, ``spectral`` and ``feature`` inside).
Code written against the earlier flat layout (``from srfsym.fixed_point import solve``) keeps
working: importing an old path returns the module at its new place (the same module object, so
monkeypatching either name patches both).

>>> import srfsym.fixed_point, srfsym.theory.fixed_point
>>> srfsym.fixed_point is srfsym.theory.fixed_point
True
"""
from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys

OLD_TO_NEW = {
    "srfsym.values": "srfsym.core.values",
    "srfsym.budget": "srfsym.core.budget",
    "srfsym.checks": "srfsym.core.checks",
    "srfsym.derive_tools": "srfsym.core.derive_tools",
    "srfsym.activations": "srfsym.symbolic.activations",
    "srfsym.special": "srfsym.symbolic.special",
    "srfsym.tidy": "srfsym.symbolic.tidy",
    "srfsym.quadrature": "srfsym.symbolic.quadrature",
    "srfsym.gaussian": "srfsym.symbolic.gaussian",
    "srfsym.gaussian_formulas": "srfsym.symbolic.gaussian_formulas",
    "srfsym.hermite": "srfsym.symbolic.hermite",
    "srfsym.cget": "srfsym.symbolic.cget",
    "srfsym.mapping": "srfsym.step.mapping",
    "srfsym.vocabulary": "srfsym.step.vocabulary",
    "srfsym.channel": "srfsym.theory.channels.kappa_quadrature",
    "srfsym.spectrum": "srfsym.theory.spectrum",
    "srfsym.fixed_point": "srfsym.theory.fixed_point",
    "srfsym.fixed_point_groups": "srfsym.theory.fixed_point_groups",
    "srfsym.grid": "srfsym.theory.grid",
    "srfsym.bounds": "srfsym.theory.bounds",
    "srfsym.feature_spectrum": "srfsym.theory.feature.spectrum",
    "srfsym.simulate": "srfsym.simulation.simulate",
    "srfsym.spectrum_simulation": "srfsym.simulation.spectrum_simulation",
    "srfsym.sweep_plot": "srfsym.sweep.plot",
    # theory/ grouped into channels/, spectral/ (the bulk back ends) and feature/
    "srfsym.theory.channel": "srfsym.theory.channels.kappa_quadrature",
    "srfsym.theory.square_channel": "srfsym.theory.channels.square",
    "srfsym.theory.convex_channel": "srfsym.theory.channels.convex",
    "srfsym.theory.losses": "srfsym.theory.channels.losses",
    "srfsym.theory.label_law": "srfsym.theory.channels.label_law",
    "srfsym.theory.step_bulk": "srfsym.theory.spectral.step_bulk",
    "srfsym.theory.step_bulk_groups": "srfsym.theory.spectral.step_bulk_groups",
    "srfsym.theory.exact_bulk": "srfsym.theory.spectral.exact_bulk",
    "srfsym.theory.exact_bulk_directions": "srfsym.theory.spectral.exact_bulk_directions",
    "srfsym.theory.exact_bulk_moments": "srfsym.theory.spectral.exact_bulk_moments",
    "srfsym.theory.exact_bulk_resolvent": "srfsym.theory.spectral.exact_bulk_resolvent",
    "srfsym.theory.feature_spectrum": "srfsym.theory.feature.spectrum",
    "srfsym.theory.feature_solve": "srfsym.theory.feature.solve",
    "srfsym.theory.feature_density": "srfsym.theory.feature.density",
    "srfsym.theory.feature_outliers": "srfsym.theory.feature.outliers",
}


class _AliasLoader(importlib.abc.Loader):
    def __init__(self, target):
        self.target = target

    def create_module(self, spec):
        return importlib.import_module(self.target)

    def exec_module(self, module):
        pass


class _MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Resolve an old flat module path (``srfsym.mapping``) to its module in a sub-package."""

    def find_spec(self, fullname, path=None, target=None):
        new = OLD_TO_NEW.get(fullname)
        if new is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _AliasLoader(new))


def install():
    """Register the finder once (idempotent)."""
    if not any(isinstance(f, _MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.append(_MovedModuleFinder())
