"""Steps 3-5 and 7, numeric theory: the channel data on a kappa rule, the spectral side (Marchenko-Pastur, sampled spectra), the fixed point of Result 3.3 and its grid solve, the bounds, and the spectrum of the learned features.

Where things live:

* ``interfaces`` -- the two contracts of the fixed-point engine: ``Channel`` (loss side) and ``SpectralSide`` (prior side);
* ``state`` -- order parameters, conjugates, ``ConvergenceError``; ``result`` -- ``FixedPointResult``;
* ``channel`` -- the kappa rule and the cGET coefficients of one point (per group for a vocabulary);
* ``square_channel`` -- the square-loss channel, uniform and K groups (a new loss is a new channel);
* ``spectral/`` -- spectral back ends: ``marchenko_pastur``, ``sample`` (Sherman-Morrison), ``eigenvalues`` (an array with projections), ``block_wishart`` (K groups), ``moments`` (shared symbols);
* ``engine`` -- the sweep (channel + prior) written once, the Newton driver, the affine completion, the generic iteration;
* ``fixed_point`` -- public entry points ``solve``, ``solve_srf``, ``learning_curve``, ``optimal_lambda``; ``fixed_point_groups`` -- the K-group solve; ``grid`` -- the engine on arrays of points;
* ``bounds`` -- upper/lower bounds; ``feature_spectrum`` with ``feature_solve`` (s(z) on the physical branch), ``feature_density`` and ``feature_outliers``;
* ``spectrum`` -- the back ends' public names in one place (as before the split).
"""
