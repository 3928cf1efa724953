"""Step 2: the giant gradient step of the first layer, (eta, alpha0) -> spike strength r, bulk variance c, alignment gamma (``mapping``), and a finite readout vocabulary's groups (``vocabulary``)."""
