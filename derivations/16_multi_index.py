"""Multi-index targets after one giant step (docs/theory.md (n)).

Target ``y = g(<theta_1, x>, ..., <theta_k, x>)``, theta_j orthonormal.  This script asserts:

1. the one-step map: the single-index mapping of docs/theory.md (c) with ``mu1_star -> |c1|``
   gives the alignment vector ``gamma = c1/|s|``, ``|s|^2 = |c1|^2 + E(g - mu0)^2/alpha0``; at
   k = 1 it is the single-index mapping itself (symbolic identities);
2. the conditional decomposition: with ``kappa = <v, x>``, ``z = B u``,
   ``u_1 = |gamma| kappa + rho xi_1``, ``u_j = xi_j``, the teacher functions of ``z1 + z1*z2``
   are ``h = gamma kappa``, ``h1 = (rho, gamma kappa)``, ``h2 = 2 (gamma^2 kappa^2 + rho^2)``
   (exact Gaussian moments, SymPy), and the tensor Gauss-Hermite evaluator reproduces them;
3. the vector h1 and the order parameter: the student's bulk output is ``mu1(kappa) b . x_perp``
   with one vector b, so the overlap psi is a vector, eps(kappa) has ``-2 mu1 psi . h1`` and
   psi^ = (alpha/sqrt beta) E[mu1 h1 w]; the variance part (V1, V2) does not involve the labels,
   so psi^ points along the fixed ``e = E[mu1 w h1]/|.|`` and the problem is the single-index one
   with ``h1_e = e . h1``: asserted numerically by solving with h1 = |h1| and with h1_e (the same
   V1, V2 to 1e-12) and by the reduction of a rotated single-index target to the single-index
   test error (1e-10) and of k = 1 (1e-12);
4. the second step's signal along a direction orthogonal to the spike, ``E_kappa[mu1 h1_j]``:
   for ``z1 + z1*z2``, ``gamma E[kappa mu1(kappa)] = gamma r E[sigma''(r kappa + sqrt(c) xi)]``
   (Stein): zero for tanh (sigma'' odd), ``gamma r / sqrt(2 pi (c + r^2))`` for relu;
5. a readout vocabulary (docs/theory.md (n.7)): the overlap is a K x k matrix; at fixed (V1, V2)
   the error is a constant plus a sum over the columns of h1 of one-column forms (asserted
   numerically), one letter is the uniform result (1e-12);
6. label noise and a bias with the square loss (n.8): e is the ridge's (asserted to 1e-10).
"""
from functools import partial

import numpy as np
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step
from srfsym.step.mapping import ALPHA0, MU1_STAR, mapping_expressions
from srfsym.step.multi_index import C1, multi_index_mapping, multi_index_mapping_expressions
from srfsym.step.target_structure import second_step_signal
from srfsym.symbolic.multi_teacher import teacher_arrays
from srfsym.symbolic.targets import multi_index_target

TITLE = "Multi-index targets: alignment vector, vector teacher functions, the reduced channel"
_step = partial(print_step)
KAP, GAM = sp.Symbol("kappa", real=True), sp.Symbol("gamma", positive=True)
XI1, XI2 = sp.symbols("xi1 xi2", real=True)


def _gauss(poly, variables):
    """``E p(xi)`` for a polynomial in independent standard Gaussians, from the moments."""
    p = sp.Poly(sp.expand(poly), *variables)
    mom = lambda m: sp.factorial2(m - 1) if m % 2 == 0 else 0   # noqa: E731
    return sp.expand(sum(c * sp.Mul(*[mom(m) for m in ms]) for ms, c in p.terms()))


def _mapping(n):
    e1 = mapping_expressions()
    ek = multi_index_mapping_expressions(1)
    for key in ("spike_strength", "bulk_variance"):
        assert is_zero(ek[key].subs(C1[0], MU1_STAR) - e1[key])
    assert is_zero(ek["alignment_vector"][0].subs(C1[0], MU1_STAR) - e1["alignment"])
    _step(n, "k = 1: r, c and gamma_1 are the single-index mapping of (c) with c1_1 = mu1_star "
             "[asserted]")
    e2 = multi_index_mapping_expressions(2)
    norm_s = sp.sqrt(C1[0]**2 + C1[1]**2 + (sp.Symbol("mu0", real=True)**2
                                             - 2 * sp.Symbol("mu0", real=True)
                                             * sp.Symbol("mu0_star", real=True)
                                             + sp.Symbol("mu2_star", real=True)) / ALPHA0)
    for j in range(2):
        assert is_zero(e2["alignment_vector"][j] - C1[j] / norm_s)
    _step(n, "k = 2: alignment vector gamma_j = c1_j / |s|, |s|^2 = |c1|^2 + E(g - mu0)^2/alpha0 "
             "[asserted]", sp.Tuple(*e2["alignment_vector"]))
    m = multi_index_mapping("tanh", "z1 + z1*z2", 2, 4)
    assert is_zero(m.alignment_vector[0].expr - sp.sqrt(sp.Rational(2, 3)))
    _step(n, "z1 + z1*z2, alpha0 = 4: c1 = (1, 0), E g^2 = 2, gamma = (sqrt(2/3), 0) exactly "
             "[asserted]", sp.Tuple(*[g.expr for g in m.alignment_vector]))


def _teacher(n):
    rho = sp.sqrt(1 - GAM**2)
    z1, z2 = GAM * KAP + rho * XI1, XI2
    g = z1 + z1 * z2
    h = _gauss(g, (XI1, XI2))
    h1 = (_gauss(g * XI1, (XI1, XI2)), _gauss(g * XI2, (XI1, XI2)))
    h2 = _gauss(g**2, (XI1, XI2))
    assert is_zero(h - GAM * KAP) and is_zero(h1[0] - rho) and is_zero(h1[1] - GAM * KAP)
    assert is_zero(h2 - 2 * (GAM**2 * KAP**2 + rho**2))
    _step(n, "z1 + z1*z2 given kappa (gamma along e1): h, h1 = (h1_1, h1_2), h2 [asserted]",
          sp.Tuple(h, sp.Tuple(*h1), sp.factor(h2)))
    kap = np.array([-1.3, 0.2, 2.1])
    gv = 0.7
    hn, h1n, h2n, err = teacher_arrays(multi_index_target("z1 + z1*z2"), (gv, 0.0), kap)
    f = sp.lambdify((KAP, GAM), [h, h1[0], h1[1], h2], "numpy")
    ref = [np.broadcast_to(np.asarray(v, float), kap.shape) for v in f(kap, gv)]
    for a, b in ((hn, ref[0]), (h1n[:, 0], ref[1]), (h1n[:, 1], ref[2]), (h2n, ref[3])):
        assert np.max(np.abs(a - b)) < 1e-12
    _step(n, f"the tensor Gauss-Hermite evaluator at gamma = {gv}: the same to 1e-12 "
             f"(its own error estimate {err:.1e}) [asserted]")


def _channel(n):
    from dataclasses import replace
    from srfsym.theory.channels.kappa_quadrature import channel_data
    from srfsym.theory.fixed_point import solve_srf
    from srfsym.theory.multi_index import solve_multi_index_srf
    from srfsym.theory.square_solve import _solve_at, make_spectrum
    r, c, gv, lam, alpha = 1.2, 1.3, (0.6, 0.3), 0.1, 1.5
    tg = multi_index_target("tanh(z1 + z2/2) + sin(z2)/2")
    ch = channel_data("tanh", "x", r, c, 0.0, nodes=120)
    h, h1v, h2, _err = teacher_arrays(tg, gv, np.asarray(ch.kappa))
    spec = make_spectrum("mp", beta=1.0, c=c)
    args = ("tanh", None, r, c, float(np.linalg.norm(gv)), lam, alpha, 1.0, spec, 120, 1e-12,
            "structured", None, None, 20000)
    a = _solve_at(*args, channel=replace(ch, h=h, h1=np.linalg.norm(h1v, axis=1), h2=h2))
    b = _solve_at(*args, channel=replace(ch, h=h, h1=h1v[:, 0], h2=h2))
    assert abs(a.state.V1 - b.state.V1) < 1e-12 and abs(a.state.V2 - b.state.V2) < 1e-12
    _step(n, f"(V1, V2) do not depend on the teacher functions: {a.state.V1:.12f}, "
             f"{a.state.V2:.12f} for two different h1 [asserted]")
    res = solve_multi_index_srf("tanh", tg, r, c, gv, lam, alpha)
    _step(n, f"tanh(z1 + z2/2) + sin(z2)/2, r = {r}, c = {c}, gamma = {gv}: the bulk learns the "
             f"linear part along e = {np.round(res.learned_direction, 6).tolist()}; test error "
             f"{res.test_error:.10f}")
    ref = solve_srf("tanh", "tanh", r, c, 0.7, lam, alpha, nodes=120).test_error
    s = 0.7 / np.sqrt(2)
    rot = solve_multi_index_srf("tanh", "tanh((z1 + z2)/sqrt(2))", r, c, (s, s), lam, alpha)
    k1 = solve_multi_index_srf("tanh", "tanh", r, c, (0.7,), lam, alpha)
    assert abs(rot.test_error - ref) < 1e-10 and abs(k1.test_error - ref) < 1e-12
    _step(n, f"tanh((z1 + z2)/sqrt 2) at |gamma| = 0.7 and the k = 1 path: {ref:.12f} as the "
             "single-index theory (1e-10, 1e-12) [asserted]")


def _second_step(n):
    relu = second_step_signal("relu", "z1 + z1*z2", 2, 4)
    tanh = second_step_signal("tanh", "z1 + z1*z2", 2, 4)
    r, c, g = relu["spike_strength"], relu["bulk_variance"], relu["alignment_vector"][0]
    stein = g * r / np.sqrt(2 * np.pi * (c + r * r))
    assert abs(abs(relu["signal"][1]) - stein) < 1e-10 and abs(tanh["signal"][1]) < 1e-12
    _step(n, f"second-step signal along z2 of z1 + z1*z2: relu {abs(relu['signal'][1]):.10f} = "
             f"gamma r / sqrt(2 pi (c + r^2)) (Stein), tanh {abs(tanh['signal'][1]):.1e} "
             "(sigma'' odd) [asserted]")


def _vocabulary(n):
    from dataclasses import replace
    from srfsym.step.vocabulary import vocabulary
    from srfsym.theory.fixed_point import solve
    from srfsym.theory.fixed_point_groups import _solve_at
    from srfsym.theory.multi_index import solve_multi_index_groups, solve_multi_index_srf
    r, c, gv, lam, alpha = 1.1, 1.2, np.array([0.5, 0.4]), 0.1, 1.5
    tg, voc = multi_index_target("tanh(z1 + z2/2) + sin(z2)/2"), vocabulary([1, 3])

    def error(columns):    # the K-group channel with the chosen columns of h1 (zero: none)
        def data(gch):
            h, h1v, h2, _ = teacher_arrays(tg, gv, np.asarray(gch.kappa))
            h1 = h1v[:, columns] if columns else np.zeros((len(h), 1))
            return replace(gch, groups=(replace(gch.groups[0], h=h, h2=h2),)
                           + tuple(gch.groups[1:])), h1
        return _solve_at("tanh", "x", r, c, float(np.linalg.norm(gv)), lam, alpha, 1.0, voc,
                         120, 1e-12, None, 20000, teacher_data=data).test_error
    e0, both = error([]), error([0, 1])
    split = e0 + (error([0]) - e0) + (error([1]) - e0)
    assert abs(both - split) < 1e-10
    _step(n, f"vocabulary {{1, 3}}: the k = 2 error {both:.12f} is the constant {e0:.6f} plus "
             "the two one-column parts (1e-10) [asserted]")
    one = solve_multi_index_groups("tanh", tg, r, c, gv, lam, alpha, vocabulary=[1])
    uni = solve_multi_index_srf("tanh", tg, r, c, gv, lam, alpha)
    assert abs(one.test_error - uni.test_error) < 1e-12
    _step(n, f"one letter: {one.test_error:.12f}, the uniform multi-index result (1e-12) "
             "[asserted]")
    plain = solve("tanh", "z1 + z1*z2", 4, 2, lam, alpha)
    noisy = solve("tanh", "z1 + z1*z2", 4, 2, lam, alpha, noise=0.4, bias=True)
    assert np.allclose(noisy.learned_direction, plain.learned_direction, atol=1e-10)
    _step(n, f"noise 0.4 and a bias: e = {np.round(noisy.learned_direction, 6).tolist()} as the "
             f"ridge's (1e-10); test error {plain.test_error:.6f} -> {noisy.test_error:.6f} "
             "[asserted]")


def main():
    print(TITLE)
    print("=" * len(TITLE))
    n = [0]
    _mapping(n)
    _teacher(n)
    _channel(n)
    _second_step(n)
    _vocabulary(n)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
