"""A finite readout vocabulary: per-group mapping, degeneracy of symmetric vocabularies,
bounds, K outliers and the block-Wishart spectrum (docs/theory.md (k.1)-(k.5)).

The readout before the step is ``a0_k = omega_k / sqrt(p)`` with letters ``omega_j`` and
weights ``pi_j``.  The script

1. derives the group mapping: the row update of neuron k is ``omega_k`` times the uniform
   one (for an odd student the output before the step is O(p^-1/2) whatever the letters),
   so group j has spike ``omega_j r`` and bulk variance ``1 + omega_j^2 (c - 1)``; asserts
   that this is the uniform mapping at learning rate ``omega_j eta`` and that it equals
   :func:`srfsym.step.vocabulary.group_parameter_expressions`;
2. shows, on the closed-form cGET coefficients of erf, that mu0 is odd and mu1, mu_star^2 are
   even in the spike: ``{+omega, -omega}`` spans what ``{omega}`` spans (the uniform readout);
3. the K outliers ``p eig(Pi^1/2 Gamma0 Pi^1/2)``: for ``{+1, -1}`` one outlier ``p E mu0^2``
   whatever the weights (SymPy), the other zero;
4. the block-Wishart equation with one letter is the Marchenko-Pastur quadratic of
   :mod:`srfsym.theory.spectrum` (the polynomial remainder is zero);
5. numbers: the bounds with a vocabulary (least squares on the groups' functions) against an
   independent least-squares fit on sampled kappa, and the symmetric vocabulary's bounds and
   spectrum equal to the uniform ones.
"""
from functools import partial

import numpy as np
import sympy as sp

from srfsym import bounds, cget_coefficients
from srfsym.theory.channels.kappa_quadrature import group_channel_data
from srfsym.core.derive_tools import is_zero, print_step
from srfsym.theory.feature.spectrum import feature_spectrum
from srfsym.step.mapping import ALPHA0, CHECKMU1_SQ, ETA, MU0, MU_HE2, MU1, MU1_STAR, MU2_STAR, \
    mapping_expressions
from srfsym.theory.spectrum import BETA, C, LAM_PRIME, V1HAT, mp_stieltjes_root
from srfsym.step.vocabulary import OMEGA, group_parameter_expressions, vocabulary

TITLE = "A finite readout vocabulary: mapping, degeneracy, outliers, block spectrum"

W = sp.Symbol("omega", positive=True)       # |omega|; the sign is carried by the spike
PI1 = sp.Symbol("pi_1", positive=True)
EM0 = sp.Symbol("E_mu0sq", positive=True)
R_, D_, Z_, CT = sp.symbols("R D z Ctilde")
LATEX_NAMES = {W: r"\omega", PI1: r"\pi_1", EM0: r"\mathbb E\mu_0^2", CT: r"\tilde C"}
_step = partial(print_step, latex_names=LATEX_NAMES)


def group_mapping(n):
    e = mapping_expressions(mu0_correction=True)
    odd = {MU0: 0, MU_HE2: 0}
    r, c = e["spike_strength"].subs(odd), e["bulk_variance"].subs(odd)
    _step(n, "Uniform mapping of an odd student (mu0 = E sigma'' = 0): r and c", sp.Tuple(r, c))
    # a letter omega multiplies the row update by omega: the learning rate becomes omega eta
    r_w, c_w = r.subs(ETA, W * ETA), c.subs(ETA, W * ETA)
    _step(n, "Row update times omega = the step at learning rate omega eta: r_omega, c_omega",
          sp.Tuple(r_w, c_w))
    g = group_parameter_expressions()
    om, r_sym, c_sym = g["symbols"]
    lib_r = g["spike_strength"].subs({om: W, r_sym: r, c_sym: c})
    lib_c = g["bulk_variance"].subs({om: W, r_sym: r, c_sym: c})
    assert is_zero(r_w - lib_r) and is_zero(c_w - lib_c)
    _step(n, "= srfsym.step.vocabulary.group_parameter_expressions: r_j = omega_j r, "
             "c_j = 1 + omega_j^2 (c - 1)  [asserted]", sp.Tuple(g["spike_strength"],
                                                                g["bulk_variance"]))
    # the alignment does not depend on eta: common to all groups
    gam = e["alignment"].subs(odd)
    assert gam.subs(ETA, W * ETA) == gam
    _step(n, "The alignment gamma does not involve eta: the same for every group [asserted]", gam)


def symmetric_degeneracy(n):
    co = cget_coefficients("erf")
    kappa, r, c = co.params
    e = co.expressions()
    flip = {r: -r}
    assert is_zero(e["mu0"].subs(flip) + e["mu0"])
    assert is_zero(e["mu1"].subs(flip) - e["mu1"])
    assert is_zero(e["mustar2"].subs(flip) - e["mustar2"])
    _step(n, "erf student: mu0(-r kappa; c) = -mu0(r kappa; c), mu1 and mu_star^2 even in r "
             "[asserted]: the groups +omega and -omega share the functional span and the bulk",
          e["mu0"])
    # numerically for tanh (no closed form): the library's coefficients
    f = cget_coefficients("tanh").numpy()
    k = np.linspace(-4, 4, 9)
    a, b = f(k, 1.3, 1.1), f(k, -1.3, 1.1)
    assert np.max(np.abs(a[0] + b[0])) < 1e-14 and np.max(np.abs(a[1] - b[1])) < 1e-14
    assert np.max(np.abs(a[2] - b[2])) < 1e-14
    _step(n, "tanh (numeric coefficients): the same parities to 1e-14 [asserted]")


def outliers(n):
    gamma0 = EM0 * sp.Matrix([[1, -1], [-1, 1]])
    root = sp.diag(sp.sqrt(PI1), sp.sqrt(1 - PI1))
    M = root * gamma0 * root
    ev = sorted(M.eigenvals().keys(), key=lambda v: sp.count_ops(v))
    _step(n, "{+1, -1}: Gamma0 = E mu0^2 [[1, -1], [-1, 1]]; eigenvalues of "
             "Pi^1/2 Gamma0 Pi^1/2", sp.Tuple(*ev))
    assert set(sp.simplify(v) for v in ev) == {0, EM0}
    _step(n, "One giant outlier p E mu0^2 whatever the weights, the other zero [asserted]")


def block_equation(n):
    block = sp.expand(sp.numer(sp.together(R_ * (D_ - Z_ + CT / (1 + BETA * R_ * CT)) - 1)))
    _step(n, "Block-Wishart equation for K = 1 (pi = 1), denominators cleared", block)
    lib = mp_stieltjes_root()["quadratic"]
    mt = mp_stieltjes_root()["mt"]
    mapped = sp.expand(lib.subs({LAM_PRIME: D_ - Z_, V1HAT: CT / C}).subs(mt, R_))
    assert sp.expand(mapped - block) == 0
    _step(n, "= the library's Marchenko-Pastur quadratic with lambda' = D - z, "
             "Vhat_1 c = Ctilde, mt = R [asserted]", mapped)


def numbers(n):
    r, c = 1.13406, 1.018973          # tanh/sin at alpha0 = 20, eta = 3
    b1, b2 = bounds("tanh", "sin", r, c), bounds("tanh", "sin", r, c, vocabulary=[1, 2])
    _step(n, f"bounds at (r, c) = ({r}, {c}), gamma = 1: uniform U = {b1.upper:.5f}, "
             f"L = {b1.lower:.5f}; {{1, 2}} U = {b2.upper:.5f}, L = {b2.lower:.5f}")
    # independent check of U_K: least squares of g(kappa) on the group functions, sampled
    rng = np.random.default_rng(0)
    kap = rng.standard_normal(400_000)
    f = cget_coefficients("tanh").numpy()
    F = np.stack([f(kap, r * w, 1 + w * w * (c - 1))[0] for w in (1.0, 2.0)], axis=1)
    y = np.sin(kap)
    coef, *_ = np.linalg.lstsq(F, y, rcond=None)
    u_mc = float(np.mean((y - F @ coef) ** 2))
    assert abs(u_mc - b2.upper) < 5e-4, (u_mc, b2.upper)
    _step(n, f"Monte-Carlo least squares on 4e5 kappa samples: U_K = {u_mc:.5f} "
             f"(library {b2.upper:.5f}) [asserted to 5e-4]")
    bs = bounds("tanh", "sin", r, c, vocabulary=vocabulary([1, -1], [0.3, 0.7]))
    assert abs(bs.upper - b1.upper) < 1e-12 and abs(bs.lower - b1.lower) < 1e-10
    g = group_channel_data("tanh", "sin", r, c, 1.0, [1, -1], nodes=80)
    gram = np.einsum("jn,kn,n->jk", g.mu0, g.mu0, g.weights)
    ev = np.linalg.eigvalsh(gram)
    assert ev[0] < 1e-14 * ev[1]
    _step(n, f"{{+1, -1}}: Gram of the mu0 block has eigenvalues {ev[0]:.1e}, {ev[1]:.5f} "
             "(rank one: the pseudo-inverse projection); bounds equal the uniform ones [asserted]")
    fs_u = feature_spectrum("tanh", r=r, c=c)
    fs_s = feature_spectrum("tanh", r=r, c=c, vocabulary=[1, -1])
    fs_2 = feature_spectrum("tanh", r=r, c=c, vocabulary=[1, 2])
    z = 1 + 0.1j
    assert abs(fs_u.stieltjes(z) - fs_s.stieltjes(z)) < 1e-12
    s2 = fs_2.stieltjes(z)
    _step(n, f"s(1 + 0.1i): uniform {fs_u.stieltjes(z):.6f} = {{+1, -1}} [asserted]; "
             f"{{1, 2}} {s2:.6f}; outliers/p of {{1, 2}}: "
             + ", ".join(f"{v:.5f}" for v in fs_2.outliers_per_p))


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    group_mapping(n)
    symmetric_degeneracy(n)
    outliers(n)
    block_equation(n)
    numbers(n)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
