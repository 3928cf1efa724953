"""Beyond the proportional regime: the dimension-free deterministic equivalent of random-feature
ridge regression (docs/theory.md (o)).

* ``formulas`` -- the equivalent written once in SymPy (and its p -> oo kernel limit);
* ``spectra`` -- kernel spectra: an array of eigenvalues (with multiplicities) or a power law
  summed exactly to a head and by an Euler--Maclaurin tail with its error reported;
* ``equivalent`` -- the fixed point (nu1, nu2) and bias, variance, test error on grids of
  (n, p, lam);
* ``scaling`` -- the excess-risk exponents under source and capacity conditions, derived by SymPy;
* ``sphere`` -- the kernel spectrum of random features sigma(<w, x>) on the sphere (Gegenbauer).
"""
