"""Step 6: the real finite-size network (and the sRF model) simulated beside the theory: test errors and feature spectra."""
