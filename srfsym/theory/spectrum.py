"""Spectral side of the fixed point: the sums over the spectrum of ``Omega = W Pi W^T``.

The back ends live in :mod:`srfsym.theory.spectral` (one module each); this module keeps
their public names importable from one place:

* :class:`MarchenkoPastur` -- the deterministic ``d -> infinity`` limit of docs/theory.md (g)
  (:mod:`srfsym.theory.spectral.marchenko_pastur`);
* :class:`SampledSpectrum` -- one finite-``d`` sample through Sherman--Morrison, docs/theory.md
  (h) (:mod:`srfsym.theory.spectral.sample`);
* :class:`EigenvalueSpectrum` -- a given eigenvalue array with optional spike and teacher
  projections (:mod:`srfsym.theory.spectral.eigenvalues`);
* :class:`BlockWishartPrior` -- the K-group block-Wishart equation of a readout vocabulary
  (:mod:`srfsym.theory.spectral.block_wishart`).

>>> mom = MarchenkoPastur(beta=1.0, c=1.0).moments(1.0, 0.0)   # Vhat_1 = 0: S = lambda'
>>> mom.inv, mom.rho, mom.rhosq2                               # 1, E x, E x^2 = 1 + beta
(1.0, 1.0, 2.0)
"""
from __future__ import annotations

from .spectral.block_wishart import (BlockWishartPrior, GroupPrior, block_wishart_map,  # noqa: F401
                                     block_wishart_parts)
from .spectral.eigenvalues import EigenvalueSpectrum
from .spectral.marchenko_pastur import (MarchenkoPastur, _mp_density_numpy,  # noqa: F401
                                        _mp_math_functions, _mp_mpmath_functions,
                                        _mp_numpy_functions, _mp_pair_functions, _select_root,
                                        mp_density_expression, mp_moment_expressions,
                                        mp_stieltjes_pair, mp_stieltjes_pair_expressions,
                                        mp_stieltjes_quadratic, mp_stieltjes_root)
from .spectral.moments import (BETA, C, LAM_PRIME, M_VAR, S_VAR, V1HAT, VARRHO,  # noqa: F401
                               SpectralMoments, _check_positive, _to_mpf, spectrum_latex)
from .spectral.sample import (KIND_BB, KIND_BZ, KIND_ONE, KIND_ZZ, SampledSpectrum,  # noqa: F401
                              SwSum, _eigh, _sm_generated, _sm_numpy, sherman_morrison_expressions,
                              sw_sums_in)

_FIELDS = SpectralMoments._fields

__all__ = [
    "SpectralMoments", "MarchenkoPastur", "SampledSpectrum",
    "LAM_PRIME", "V1HAT", "C", "BETA", "SwSum",
    "mp_stieltjes_quadratic", "mp_stieltjes_root", "mp_moment_expressions",
    "mp_density_expression", "mp_stieltjes_pair_expressions", "sherman_morrison_expressions",
    "sw_sums_in", "spectrum_latex", "EigenvalueSpectrum", "BlockWishartPrior",
    "KIND_ONE", "KIND_BB", "KIND_BZ", "KIND_ZZ",
]
