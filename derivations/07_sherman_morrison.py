"""Sherman--Morrison reduction of the finite-d spectral sums (docs/theory.md (h)).

``Omega = W Pi W^T = W W^T - b b^T`` with ``b = W vhat``.  With ``X = W W^T`` (diagonalised
once, eigenvalues ``varrho_i``, eigenvectors ``e_i``), ``A = lambda' I + Vhat_1 X`` and
``M = lambda' I + Vhat_1 Omega = A - Vhat_1 b b^T``, all eleven sums of
:class:`srfsym.theory.spectrum.SpectralMoments` are traces or quadratic forms of ``M^{-1}`` and
``M^{-2}``, hence scalar functions of the sums

    SwSum(kind, a, k) = sum_i varrho_i^a w_i / (S^w_i)^k,   S^w_i = lambda' + Vhat_1 varrho_i,

with weights ``w_i`` = 1, ``b_i^2``, ``b_i z_i``, ``z_i^2`` (``b_i = e_i^T W vhat``,
``z_i = e_i^T W zeta``).  Steps:

1. Sherman--Morrison on explicit symbolic 3 x 3 matrices;
2. the two scalar rules (trace rule, quadratic-form rule) that :mod:`srfsym.theory.spectrum` applies;
3. the first-order sums (docs/theory.md (h)) and the second-order ones by differentiation in
   ``lambda'`` and ``Vhat_1`` (``M`` is linear in both, ``Omega`` fixed);
4. the explicit forms of docs/theory.md (h) (``F/S^2``, ``DF/S^2``, ``y = M^{-1} W zeta``) and
   ``tr M^{-2}`` agree with the derived ones (symbolic zero);
5. exact rational check of all eleven against ``M^{-1}`` computed by matrix inversion;
6. real random ``W``: the library's ``O(p)`` reduction equals the explicit ``Omega``
   eigenbasis sums to 1e-12;
7. ``t = s/(1 + Vhat_1 s)`` (exact) and its large-d limit (the MP identity of 06).
"""
from functools import partial
import random

import sympy as sp

from srfsym.core.derive_tools import print_step

from srfsym.theory.spectrum import (
    KIND_BB, KIND_BZ, KIND_ONE, KIND_ZZ, LAM_PRIME, V1HAT, MarchenkoPastur, SampledSpectrum,
    SpectralMoments, SwSum, sherman_morrison_expressions, spectrum_latex, sw_sums_in,
)

TITLE = "Sherman-Morrison reduction of the spectral sums to O(p) scalar sums"

FIELDS = SpectralMoments._fields


_step = partial(print_step, latex=spectrum_latex)


def _sw(kind, a, k):
    return SwSum(kind, a, k, LAM_PRIME, V1HAT)


def _exact_sums(rho, w, lam, v):
    """Replacement dict SwSum(kind, a, k) -> exact rational value."""
    def value(kind, a, k):
        return sum(r**a * x / (lam + v * r)**k for r, x in zip(rho, w[kind]))
    return value


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    lam, v = LAM_PRIME, V1HAT

    # 1. Sherman-Morrison on symbolic matrices ----------------------------------------------
    a = sp.symbols("a1:4", positive=True)
    bs = sp.Matrix(sp.symbols("b1:4", real=True))
    A = sp.diag(*a)
    Ainv = sp.diag(*[1 / x for x in a])
    t_sym = (bs.T * Ainv * bs)[0]
    M = A - v * bs * bs.T
    Minv = Ainv + v * Ainv * bs * bs.T * Ainv / (1 - v * t_sym)
    _step(n, "Sherman-Morrison: (A - Vhat_1 b b^T)^{-1} = A^{-1} + Vhat_1 A^{-1} b b^T A^{-1} / "
             "(1 - Vhat_1 t), t = b^T A^{-1} b   (3 x 3, symbolic entries)", Minv[0, 1])
    assert (M * Minv - sp.eye(3)).applyfunc(sp.simplify) == sp.zeros(3, 3)
    assert (Minv * bs - Ainv * bs / (1 - v * t_sym)).applyfunc(sp.simplify) == sp.zeros(3, 1)
    print("    M M^{-1} = I and M^{-1} b = A^{-1} b / (1 - Vhat_1 t)   [asserted, symbolic zero]")

    # 2. the scalar rules ------------------------------------------------------------------------
    t = _sw(KIND_BB, 0, 1)
    kk = v / (1 - v * t)
    _step(n, "In the eigenbasis of X = W W^T, A is diagonal (S^w_i = lambda' + Vhat_1 varrho_i). "
             "With kk = Vhat_1/(1 - Vhat_1 t), t = SwSum(bb,0,1):", kk)
    print("    trace rule:  tr(X^a M^{-1}) = SwSum(one,a,1) + kk SwSum(bb,a,2)")
    print("    form rule:   x^T M^{-1} y   = SwSum(xy,0,1) + kk SwSum(xb,0,1) SwSum(by,0,1)")
    print("    derivative rules: d/dlambda' SwSum(a,k) = -k SwSum(a,k+1), "
          "d/dVhat_1 SwSum(a,k) = -k SwSum(a+1,k+1)")
    assert sp.diff(_sw(KIND_ZZ, 1, 2), lam) == -2 * _sw(KIND_ZZ, 1, 3)
    assert sp.diff(_sw(KIND_ZZ, 1, 2), v) == -2 * _sw(KIND_ZZ, 2, 3)

    # 3. first and second order ----------------------------------------------------------------
    e = sherman_morrison_expressions()
    labels = {"inv": "sum 1/S = tr M^{-1}", "rho": "sum D/S = tr(X M^{-1}) - b^T M^{-1} b",
              "F": "sum F/S / d = b^T M^{-1} b", "H": "sum H/S = z^T M^{-1} z"}
    for f, text in labels.items():
        _step(n, text, e[f])
    for f, text in (("inv2", "sum 1/S^2 = -d/dlambda' sum 1/S"),
                    ("rho2", "sum D/S^2 = -d/dVhat_1 sum 1/S"),
                    ("rhosq2", "sum D^2/S^2 = -d/dVhat_1 sum D/S"),
                    ("F2", "sum F/S^2 / d = -d/dlambda' b^T M^{-1} b"),
                    ("DF2", "sum D F/S^2 / d = -d/dVhat_1 b^T M^{-1} b"),
                    ("H2", "sum H/S^2 = -d/dlambda' z^T M^{-1} z"),
                    ("DH2", "sum D H/S^2 = -d/dVhat_1 z^T M^{-1} z")):
        _step(n, text, sp.factor(sp.together(e[f])))
    keys = sw_sums_in(e.values())
    print(f"\n    {len(keys)} scalar sums are needed: {keys}")
    # consistency of the two derivatives for the rho2 entry: sum D/S^2 = -d/dlambda' sum D/S
    assert sp.simplify(e["rho2"] + sp.diff(e["rho"], lam)) == 0
    print("    also sum D/S^2 = -d/dlambda' sum D/S   [asserted, symbolic zero]")

    # 4. explicit forms of docs/theory.md (h) -----------------------------------------------------------
    t2, t3 = _sw(KIND_BB, 0, 2), _sw(KIND_BB, 1, 2)
    u = _sw(KIND_BZ, 0, 1)
    one_minus = 1 - v * t
    math_h = {
        "inv": _sw(KIND_ONE, 0, 1) + v * t2 / one_minus,
        "rho": _sw(KIND_ONE, 1, 1) + (v * t3 - t) / one_minus,
        "F": t / one_minus,
        "H": _sw(KIND_ZZ, 0, 1) + v * u**2 / one_minus,
        "F2": t2 / one_minus**2,
        "DF2": (t3 - t**2) / one_minus**2,
        # y = M^{-1} z = A^{-1} z + kk u A^{-1} b:  |y|^2 and y^T X y - (b^T y)^2
        "H2": _sw(KIND_ZZ, 0, 2) + 2 * kk * u * _sw(KIND_BZ, 0, 2) + kk**2 * u**2 * t2,
        "DH2": (_sw(KIND_ZZ, 1, 2) + 2 * kk * u * _sw(KIND_BZ, 1, 2) + kk**2 * u**2 * t3
                - (u / one_minus)**2),
        # tr M^{-2} = tr A^{-2} + 2 kk b^T A^{-3} b + kk^2 (b^T A^{-2} b)^2
        "inv2": _sw(KIND_ONE, 0, 2) + 2 * kk * _sw(KIND_BB, 0, 3) + kk**2 * t2**2,
    }
    _step(n, "docs/theory.md (h) forms and the y = M^{-1} W zeta forms, e.g. sum H/S^2 = |y|^2 =",
          math_h["H2"])
    for f, expr in math_h.items():
        assert sp.simplify(e[f] - expr) == 0, f
    print(f"    equal to the derived expressions for {sorted(math_h)}   [asserted, symbolic zero]")

    # 5. exact rational check against matrix inversion -------------------------------------------
    rng = random.Random(7)
    nn = 6
    rho = [sp.Rational(rng.randint(0, 40), rng.randint(1, 9)) for _ in range(nn)]
    rho[0] = sp.Integer(0)                       # a zero eigenvalue, as when p > d
    bvec = sp.Matrix([sp.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(nn)])
    zvec = sp.Matrix([sp.Rational(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(nn)])
    bvec[0] = zvec[0] = 0                        # W vhat and W zeta have no null component
    lam0, v0 = sp.Rational(3, 7), sp.Rational(5, 11)
    X = sp.diag(*rho)
    Om = X - bvec * bvec.T
    Mm = lam0 * sp.eye(nn) + v0 * Om
    Mi = Mm.inv()
    Mi2 = Mi * Mi
    direct = {
        "inv": Mi.trace(), "rho": (Om * Mi).trace(), "F": (bvec.T * Mi * bvec)[0],
        "H": (zvec.T * Mi * zvec)[0], "inv2": Mi2.trace(), "rho2": (Om * Mi2).trace(),
        "rhosq2": (Om * Om * Mi2).trace(), "F2": (bvec.T * Mi2 * bvec)[0],
        "DF2": (bvec.T * Mi * Om * Mi * bvec)[0], "H2": (zvec.T * Mi2 * zvec)[0],
        "DH2": (zvec.T * Mi * Om * Mi * zvec)[0],
    }
    weights = {"one": [1] * nn, "bb": [x * x for x in bvec],
               "bz": [x * y for x, y in zip(bvec, zvec)], "zz": [y * y for y in zvec]}
    value = _exact_sums(rho, weights, lam0, v0)
    rep = {_sw(sp.Symbol(kind), a_, k): value(kind, a_, k) for kind, a_, k in keys}
    _step(n, f"Exact rational instance (n = {nn}, lambda' = {lam0}, Vhat_1 = {v0}): the eleven "
             "sums from M^{-1} by inversion vs the scalar forms; e.g. tr(Omega^2 M^{-2}) =",
          direct["rhosq2"])
    for f in FIELDS:
        scalar = e[f].xreplace(rep).subs({lam: lam0, v: v0})
        assert scalar.is_Rational and scalar == direct[f], f
    print("    all eleven identical as exact rationals   [asserted]")

    # 6. real random W --------------------------------------------------------------------------
    _step(n, "Real random W (rows of norm sqrt(c)): O(p) reduction vs explicit eigh(Omega) sums, "
             "relative deviation")
    for d, beta, zeta in ((40, 1.0, "random"), (40, 1.5, "random"), (40, 0.5, "random"),
                          (30, 1.0, "e1")):
        s = SampledSpectrum(d, beta=beta, c=1.3, seed=11, zeta=zeta)
        for lam1, v1 in ((0.65, 1.7), (0.05, 0.0), (0.05, 2.0)):
            m_sm, m_dir = s.moments(lam1, v1), s.moments_direct(lam1, v1)
            err = max(abs(x / y - 1) for x, y in zip(m_sm, m_dir))
            assert err < 1e-12, (d, beta, zeta, lam1, v1, err)
        print(f"    p x d = {s.p} x {s.d}, zeta = {zeta}: max deviation {err:.1e} "
              f"(last of 3 points; all < 1e-12)")
    print("    (conditioning: for p >= d Omega has a zero eigenvalue; when Vhat_1 c >> lambda'"
          " both\n"
          "    evaluations of the D F and F sums lose ~2 log10(Vhat_1 c / lambda') digits alike)")

    # 7. consistency with (g) ---------------------------------------------------------------------
    s_sym = sp.Symbol("s", positive=True)
    _step(n, "A = M + Vhat_1 b b^T gives t = b^T A^{-1} b = s/(1 + Vhat_1 s), s = b^T M^{-1} b",
          s_sym / (1 + v * s_sym))
    assert sp.simplify(e["F"].subs(t, s_sym / (1 + v * s_sym)) - s_sym) == 0
    print("    b^T M^{-1} b = t/(1 - Vhat_1 t) inverts it   [asserted]")
    d, beta, c, lam1, v1 = 400, 1.0, 1.3, 0.3, 1.2
    s = SampledSpectrum(d, beta=beta, c=c, seed=3)
    mom = s.moments(lam1, v1)
    mp = MarchenkoPastur(beta, c).moments(lam1, v1)
    ratio_f = mom.F / (c * mom.inv)
    ratio_h = mom.H / mom.rho
    print(f"    large d (p = d = {d}, c = {c}, lambda' = {lam1}, Vhat_1 = {v1}): "
          f"<F/S>/(c<1/S>) = {ratio_f:.4f}, <H/S>/<D/S> = {ratio_h:.4f} (-> 1),")
    print(f"    <1/S> = {mom.inv:.5f} vs MP {mp.inv:.5f};  "
          f"<D/S> = {mom.rho:.5f} vs MP {mp.rho:.5f}")
    assert abs(ratio_f - 1) < 0.2 and abs(ratio_h - 1) < 0.2
    assert abs(mom.inv / mp.inv - 1) < 0.02 and abs(mom.rho / mp.rho - 1) < 0.02
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
