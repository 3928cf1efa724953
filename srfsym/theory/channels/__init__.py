"""The channel side of the fixed point: kappa-quadrature of the conditional coefficients,
the square loss in closed form, convex losses through their proximal step (uniform readout
and K letters), and the label laws."""
