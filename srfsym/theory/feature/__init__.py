"""The spectrum of the learned features (docs/theory.md (j), (k.5)): the deterministic
equivalent (class), its Stieltjes solver, the bulk density and the outliers."""
