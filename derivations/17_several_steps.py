"""Several giant steps: the T-step map's rules, their T = 1 reduction to the one-step mapping,
the Stein identities behind them, and the parity of what a step can reach (docs/theory.md (p)).

1. The rules of one step (:func:`srfsym.step.several_steps.step_rule_expressions`) with the
   step-1 expectations substituted (u = 0, b ~ N(0, 1)) give |m|^2 = r^2, the alignment gamma
   and the bulk variance c of :func:`srfsym.step.mapping.mapping_expressions`, mu0 corrections
   included (asserted symbolically); with a letter omega and an odd student the group formulas
   of (k.1); with a non-odd student the letter-dependent formulas srfsym derives here.
2. Stein in ``z_j`` and in ``b``, checked by 30-digit quadrature at a step-2 state of relu:
   ``E[(g - f) S1(u) z2] = E[dg/dz2 sigma'(b + u)]`` and ``E[F b]/c = E[(g - f) S2(u)]``.
3. The second direction of relu with {+1, -1} on ``z1 + z1 z2`` after step 2 against the closed
   form ``eta m1 / sqrt(2 pi (c + |m|^2))``; tanh gives an exact zero by parity.
"""
from functools import partial

import mpmath
import numpy as np
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step
from srfsym.step.directions import parity_zero
from srfsym.step.mapping import (ALPHA0, CHECKMU1_SQ, ETA, MU0, MU0_STAR, MU1, MU1_STAR,
                                 MU2_STAR, MU_HE2, mapping_expressions)
from srfsym.step.several_steps import (C_OLD, E_GRAD_J, E_SHARED, E_SQ, E_STEIN, L_J, M_J, OMEGA,
                                       several_steps, step_rule_expressions)
from srfsym.step.step_target import Z
from srfsym.step.vocabulary import group_parameter_expressions

TITLE = "Several giant steps: the T-step map, its T = 1 reduction, Stein and parity"
_step = partial(print_step)
E_OMEGA = sp.Symbol("E_omega", real=True)        # E omega over the letters
SIG1SQ = sp.Symbol("E_sigma1sq", positive=True)  # E sigma'(z)^2


def step_one(n):
    rules = step_rule_expressions()
    _step(n, "one step for a letter omega: spike, noise coordinate and bulk variance",
          sp.Matrix([rules["spike"], rules["noise"], rules["bulk_variance"]]))
    # step 1: u = 0, c = 1, e = g - mu0 E omega; S1 = mu1, S1sq = E sigma'^2, S2 = mu_He2
    Ee2 = MU2_STAR - 2 * MU0 * E_OMEGA * MU0_STAR + (MU0 * E_OMEGA)**2      # E e^2
    sub = {M_J: 0, C_OLD: 1, E_GRAD_J: MU1 * MU1_STAR, E_STEIN: (MU0_STAR - MU0 * E_OMEGA) * MU_HE2,
           E_SQ: Ee2 * SIG1SQ, E_SHARED: MU1**2 * Ee2, L_J: MU1 * sp.sqrt(Ee2 / ALPHA0)}
    along = rules["spike"].subs(sub)
    noise = rules["noise"].subs(sub)
    c1 = rules["bulk_variance"].subs(sub).subs(SIG1SQ, CHECKMU1_SQ + MU1**2)
    _step(n, "step 1, letter omega (residual g - mu0 E omega): spike along theta, noise "
             "coordinate, bulk variance", sp.Matrix([along, noise, c1]))
    uni = mapping_expressions()
    e1 = {E_OMEGA: 1, OMEGA: 1}
    assert is_zero((along**2 + noise**2).subs(e1) - uni["spike_strength"]**2)
    assert is_zero((along / sp.sqrt(along**2 + noise**2)).subs(e1).subs(MU1, 1)
                   - uni["alignment"].subs(MU1, 1))
    assert is_zero(c1.subs(e1) - uni["bulk_variance"])
    _step(n, "uniform readout (omega = 1): |m|^2 = r^2, m_theta/|m| = gamma, c = c of the "
             "one-step mapping, mu0 corrections included [asserted]")
    odd = {MU0: 0, MU_HE2: 0}
    grp = group_parameter_expressions()
    r_u, c_u = uni["spike_strength"].subs(odd), uni["bulk_variance"].subs(odd)
    r_sym, c_sym = grp["symbols"][1], grp["symbols"][2]
    assert is_zero((along**2 + noise**2).subs(odd)
                   - grp["spike_strength"].subs({r_sym: r_u, grp["symbols"][0]: OMEGA})**2)
    assert is_zero(c1.subs(odd) - grp["bulk_variance"].subs({c_sym: c_u,
                                                             grp["symbols"][0]: OMEGA}))
    _step(n, "odd student with letters: |m_omega| = |omega| r, c_omega = 1 + omega^2 (c - 1) "
             "(k.1) [asserted]")
    _step(n, "non-odd student with letters: the bulk rescaling depends on the letter",
          sp.factor(c1 - c1.subs(MU_HE2, 0)))


def _relu_state():
    """The step-1 state of relu, {+1, -1}, g = z1 + z1 z2, eta = 1, alpha0 = 2 (exact)."""
    m1, noise = mpmath.mpf(1) / 2, mpmath.sqrt(mpmath.mpf(1) / 4 * 2 / 2)
    c = 1 + mpmath.mpf(2) * (mpmath.mpf(1) / 2 - mpmath.mpf(1) / 4) / 2
    return m1, noise, c


def stein_checks(n):
    m1, nz, c = _relu_state()
    v = c + m1**2 + nz**2
    mpmath.mp.dps = 30
    phi = lambda t: mpmath.exp(-t * t / 2) / mpmath.sqrt(2 * mpmath.pi)   # noqa: E731
    Phi = lambda t: mpmath.ncdf(t)                                         # noqa: E731
    # f_1 for relu with {+1, -1} and equal c: (S0(u) - S0(-u))/2 = u/2 (relu(x) - relu(-x) = x)
    # letter +1: u = m1 z1 + nz n; S1(u) = Phi(u / sqrt c)
    lhs = mpmath.quad(lambda z1, w: phi(z1) * phi(w) * Phi((m1 * z1 + nz * w) / mpmath.sqrt(c))
                      * z1, [-12, 0, 12], [-12, 0, 12])          # E[dg/dz2 S1(u)] = E[z1 S1(u)]
    rhs = m1 / mpmath.sqrt(2 * mpmath.pi * v)
    assert abs(lhs - rhs) < mpmath.mpf(10)**-20
    _step(n, f"Stein twice: E[z1 Phi(u/sqrt c)] = m1 E[sigma''(b + u)] = m1/sqrt(2 pi (c + |m|^2))"
             f" = {mpmath.nstr(rhs, 20)} (30-digit quadrature) [asserted]")
    # Stein in b: E[e sigma'(b+u) b]/c = E[e S2(u)] with S2 = phi(u/sqrt c)/sqrt c; e = g - u/2
    sb = mpmath.quad(lambda z1, w: phi(z1) * phi(w) * (z1 - (m1 * z1 + nz * w) / 2)
                     * phi((m1 * z1 + nz * w) / mpmath.sqrt(c)) / mpmath.sqrt(c),
                     [-12, 0, 12], [-12, 0, 12])
    _step(n, f"row rescaling at step 2: E[e S2(u)] = {mpmath.nstr(sb, 12)} (zero: e S2 odd "
             "under zeta -> -zeta once z2 is averaged), so the bulk is not rescaled")
    assert abs(sb) < mpmath.mpf(10)**-20
    st = several_steps("relu", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1]).states[2]
    got = st.target_components[:, 1]
    assert np.allclose(got, float(rhs), rtol=1e-9, atol=0)
    _step(n, f"the T-step map's theta2 components after step 2: {got.tolist()} (both letters "
             f"the same sign; theta1: {st.target_components[:, 0].tolist()}) [asserted to 1e-9]")


def parity(n):
    g = Z[0] + Z[0] * Z[1]
    why = parity_zero("tanh", g, 1, [0], Z[:2])
    assert why is not None and "even" in why
    _step(n, f"tanh, z1 + z1 z2, theta2: {why}")
    assert parity_zero("relu", g, 1, [0], Z[:2]) is None
    g3 = g + Z[0] * Z[1] * Z[2]
    why3 = parity_zero("relu", g3, 2, [0, 1], Z[:3])
    assert why3 is not None
    _step(n, f"relu, z1 + z1 z2 + z1 z2 z3, theta3 once theta1, theta2 are reached: {why3}")
    st = several_steps("tanh", "z1 + z1*z2", 1, 2, steps=2, vocabulary=[1, -1]).states[2]
    assert np.max(np.abs(st.target_components[:, 1])) < 1e-12
    _step(n, f"the tanh map's theta2 components after step 2: {st.target_components[:, 1]} "
             "(quadrature zero, as the parity says) [asserted]")


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    step_one(n)
    stein_checks(n)
    parity(n)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
