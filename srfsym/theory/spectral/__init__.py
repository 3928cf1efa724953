"""Spectral back ends of the fixed point (the prior side): Marchenko-Pastur closed forms,
a finite-d sample, an eigenvalue array, and the block-Wishart equation of K groups."""
