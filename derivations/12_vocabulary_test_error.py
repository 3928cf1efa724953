"""Test error with a finite readout vocabulary: the K-group fixed point (docs/theory.md (k.7)).

Group ``j`` (letter ``omega_j``, weight ``pi_j``, bulk variance ``c_j``) has its own cGET
coefficients; the order parameters are K x K matrices ``V1, Q1`` and K-vectors
``V2, q2, m, theta, psi`` (:mod:`srfsym.theory.fixed_point_groups`).  This script states the steps
of (k.7.2)-(k.7.5) that are algebra and checks them, and checks the library against them:

1. the conditional test error: with ``yhat = b + s z + sqrt(Q - s^2) g`` the ``+-s^2`` cancel,
   ``eps = h2 - 2 b h - 2 s h1 + b^2 + Q``; for K = 2 the library's ``conditional_error``
   is this expression (lambdified) at random numbers;
2. the Woodbury (push-through) identity ``U (I + beta U^T Lambda U)^-1 U^T =
   B (I + beta Lambda B)^-1`` with ``B = U U^T`` (symbolic 2 x 2), which turns the
   per-column rank-K update into the boxed r-equation;
3. monotonicity: ``dT/dr_k = -beta pi_k T e_k e_k^T T`` (symbolic 2 x 2), so the r-map
   ``r_j -> 1/(lambda + V2hat_j + T_jj)`` is increasing and ``r_j <= 1/(lambda + V2hat_j)``;
4. K = 1: the r-equation is the Marchenko-Pastur quadratic of :mod:`srfsym.theory.spectrum`
   (``r = E 1/S``), and ``V1 = c r/(1 + beta c V1hat r) = E varrho/S``;
5. the second moments are derivatives of the first-order maps: for K = 1 the implicit
   derivatives of the quadratic's root are the spectral sums ``<D^2/S^2>, <D/S^2>,
   <1/S^2>`` of :class:`srfsym.theory.spectrum.MarchenkoPastur` (30 digits), and the library's
   analytic prior Jacobian equals them; for K = 2 the library's implicit Jacobian equals
   SymPy's implicit differentiation of the r-equations (evaluated at 30 digits);
6. the block-Wishart deterministic equivalent against finite random matrices
   (first-order traces, the Jacobian-based noise traces and the chi^2-weighted signal
   traces; K = 3, three seeds, beta in {0.5, 1, 2});
7. an independent end-to-end check of the K-group system at r = 0, gamma = 0 (plain random
   features whose groups differ by their bulk variances c_j and weights pi_j): the
   Gaussian-equivalence deterministic equivalent of ridge regression on finite matrices
   (the formula of ``derivations/08_width_ratio.py``), beta in {0.5, 1};
8. the special cases of (k.7.7): K = 1 equals the uniform solver, {+1, -1} equals the
   uniform readout for an odd student, two letters with identical groups (r = 0, c = 1)
   equal the uniform readout, at r = 0 the test error does not depend on gamma (the theta
   and psi parts of the equations agree), lambda -> infinity gives the upper bound U_K, and
   the test error stays above the lower bound L_K (the table of docs/theory.md (k.7.7)).
"""
from functools import partial
import math

import mpmath
import numpy as np
import sympy as sp

from srfsym.theory.bounds import bounds
from srfsym.theory.channels.kappa_quadrature import group_channel_data
from srfsym.core.derive_tools import is_zero, print_step
from srfsym.theory.fixed_point import State, solve_srf
from srfsym.theory.channels.square import GroupSquareLossChannel
from srfsym.theory.fixed_point_groups import _GroupProblem, solve_srf_groups
from srfsym.theory.spectral.block_wishart import BlockWishartPrior
from srfsym.step.mapping import srf_mapping
from srfsym.theory.spectrum import BETA, MarchenkoPastur, mp_stieltjes_quadratic
from srfsym.step.vocabulary import vocabulary

TITLE = "Test error with a readout vocabulary: the K-group ridge fixed point"

LAMP, VH1, R, CC = sp.symbols("lambda' Vhat1 r c", positive=True)
Y, Z, G = sp.symbols("y z g", real=True)
H, H1, H2, B_, S_, Q_ = sp.symbols("h h1 h2 b s Q", real=True)
LATEX_NAMES = {LAMP: r"\lambda'", VH1: r"\hat V_1", BETA: r"\beta"}
_step = partial(print_step, latex_names=LATEX_NAMES)

DPS = 30
STUDENT, TEACHER = "tanh", "sin"


# --------------------------------------------------------------------------------------------
# 1. conditional test error

def _gaussian_expectation(expr):
    """E over z, g ~ N(0, 1) independent and y with E[y|k] = h, E[y z|k] = h1, E[y^2|k] = h2
    (y, z jointly given kappa; g independent of both).  ``expr`` is a polynomial of degree
    <= 2 in (y, z, g)."""
    poly = sp.Poly(sp.expand(expr), Y, Z, G)
    moments = {(0, 0, 0): 1, (1, 0, 0): H, (0, 1, 0): 0, (0, 0, 1): 0, (2, 0, 0): H2,
               (0, 2, 0): 1, (0, 0, 2): 1, (1, 1, 0): H1, (1, 0, 1): 0, (0, 1, 1): 0}
    return sum(coef * moments[mon] for mon, coef in poly.terms())


def conditional_error(n):
    yhat = B_ + S_ * Z + sp.sqrt(Q_ - S_**2) * G
    eps = sp.expand(_gaussian_expectation((Y - yhat) ** 2))
    target = H2 - 2 * B_ * H - 2 * S_ * H1 + B_**2 + Q_
    assert is_zero(eps - target)
    _step(n, "Conditional error E_{z,g}(y - yhat)^2 with yhat = b + s z + sqrt(Q - s^2) g: the "
             "+-s^2 cancel   [asserted]", eps)
    # K = 2: b, s, Q in terms of the per-group order parameters
    K = 2
    mu0, mu1, mus2 = (sp.Matrix(sp.symbols(f"{x}_1:3", real=True)) for x in ("mu0", "mu1", "mus2"))
    m, th, ps, q2 = (sp.Matrix(sp.symbols(f"{x}_1:3", real=True)) for x in ("m", "theta", "psi", "q2"))
    Q1 = sp.Matrix(K, K, lambda i, j: sp.Symbol(f"Q1_{min(i, j) + 1}{max(i, j) + 1}", real=True))
    kap = sp.Symbol("kappa", real=True)
    b = (mu0.T * m)[0] + kap * (mu1.T * th)[0]
    s = (mu1.T * ps)[0]
    Q = (mu1.T * Q1 * mu1)[0] + (mus2.T * q2)[0]
    eps2 = target.subs({B_: b, S_: s, Q_: Q})
    _step(n, "K = 2: b = sum_j (mu0_j m_j + kappa mu1_j theta_j), s = sum_j mu1_j psi_j, "
             "Q = mu1^T Q1 mu1 + sum_j mu*_j^2 q2_j (docs/theory.md (k.7.2))", eps2)
    # the library's vectorised conditional error is this expression at random numbers
    rng = np.random.default_rng(5)
    nodes = 7
    vals = {x: rng.normal(size=nodes) for x in list(mu0) + list(mu1) + [kap, H, H1, H2]}
    vals.update({x: rng.uniform(0.1, 1, size=nodes) for x in mus2})
    par = {x: float(rng.normal()) for x in list(m) + list(th) + list(ps) + list(q2)}
    A = rng.normal(size=(K, K))
    Q1n = A @ A.T
    par.update({Q1[i, j]: Q1n[i, j] for i in range(K) for j in range(K)})
    f = sp.lambdify(list(vals) + list(par), eps2, modules="numpy")
    ref = f(*vals.values(), *par.values())

    class _Fake:           # just the arrays the equations read
        pass
    P = _Fake()
    P.mu0 = np.array([vals[x] for x in mu0])
    P.mu1 = np.array([vals[x] for x in mu1])
    P.mus2 = np.array([vals[x] for x in mus2])
    P.kappa, P.h, P.h1, P.h2 = (vals[x] for x in (kap, H, H1, H2))
    P.kmu1 = P.kappa * P.mu1
    st = State(Q1n, np.array([par[x] for x in q2]), None, None, np.array([par[x] for x in th]),
               np.array([par[x] for x in ps]), np.array([par[x] for x in m]))
    lib = _GroupProblem.conditional_error(_bind(P), st)
    assert np.max(np.abs(lib - ref)) < 1e-12 * (1 + np.max(np.abs(ref)))
    print(f"    library _GroupProblem.conditional_error vs this expression (random numbers, "
          f"{nodes} nodes): max difference {np.max(np.abs(lib - ref)):.1e}   [asserted]")


def _bind(P):
    """Give a plain namespace the methods of _GroupProblem it needs (mean_part, overlap_term)."""
    P.mean_part = lambda m, theta: _GroupProblem.mean_part(P, m, theta)
    P.overlap_term = lambda psi: GroupSquareLossChannel.overlap_term(P, psi)
    return P


# --------------------------------------------------------------------------------------------
# 2-3. Woodbury and monotonicity

def woodbury(n):
    K = 2
    U = sp.Matrix(K, K, lambda i, j: sp.Symbol(f"u_{i + 1}{j + 1}", real=True))
    lam = sp.diag(*sp.symbols("Lambda_1:3", positive=True))
    Bm = U * U.T
    lhs = U * (sp.eye(K) + BETA * U.T * lam * U).inv() * U.T
    rhs = Bm * (sp.eye(K) + BETA * lam * Bm).inv()
    assert all(sp.cancel(x) == 0 for x in (lhs - rhs))
    _step(n, "Woodbury / push-through: U (I + beta U^T Lambda U)^-1 U^T = B (I + beta Lambda B)^-1, "
             "B = U U^T = C^1/2 V1hat C^1/2   [asserted, symbolic 2 x 2]")
    print("    Each column of W0 enters the block matrix as a rank-K update Y_a Y_a^T; the "
          "leave-one-column-out Y_a^T R Y_a -> beta U^T Lambda U and this identity give the "
          "diagonal deterministic equivalent R ~ diag(r_j):")
    _step(n, "r_j = 1 / (lambda + V2hat_j + [B (I + beta Lambda B)^-1]_jj),  Lambda = diag(pi_j r_j); "
             "V2_j = pi_j r_j, V1 = C^1/2 (I + beta Lambda B)^-1 Lambda C^1/2")
    # monotonicity: dT/dr_k = -beta pi_k T e_k e_k^T T
    Bs = sp.Matrix(K, K, lambda i, j: sp.Symbol(f"B_{min(i, j) + 1}{max(i, j) + 1}", real=True))
    pis = sp.symbols("pi_1:3", positive=True)
    rs = sp.symbols("r_1:3", positive=True)
    L = sp.diag(*[p * r for p, r in zip(pis, rs)])
    T = Bs * (sp.eye(K) + BETA * L * Bs).inv()
    for k in range(K):
        ek = sp.zeros(K, 1)
        ek[k] = 1
        d = T.diff(rs[k]) + BETA * pis[k] * T * ek * ek.T * T
        assert all(sp.cancel(x) == 0 for x in d)
    assert all(sp.cancel(x) == 0 for x in (T - T.T))
    _step(n, "T = B (I + beta Lambda B)^-1 is symmetric and dT/dr_k = -beta pi_k T e_k e_k^T T, so "
             "dT_jj/dr_k = -beta pi_k T_jk^2 <= 0: the r-map is increasing, "
             "r_j <= 1/(lambda + V2hat_j), and iterating from that bound decreases monotonically "
             "to the solution   [asserted, symbolic 2 x 2]")


# --------------------------------------------------------------------------------------------
# 4-5. K = 1 and the second moments

def k_one(n):
    g = CC * VH1
    req = 1 / R - (LAMP + g / (1 + BETA * R * g))              # r-equation, K = 1, pi = 1
    num = sp.numer(sp.together(req))
    mp_quad = mp_stieltjes_quadratic(m=g * R, s=LAMP / g, beta=BETA)    # E 1/S = m(s)/g
    assert sp.expand(num + mp_quad) == 0 or sp.expand(num - mp_quad) == 0
    _step(n, "K = 1: the r-equation cleared of denominators is the MP quadratic of "
             "srfsym.theory.spectrum with m = c Vhat1 r, s = lambda'/(c Vhat1), i.e. r = E 1/S   [asserted]",
          sp.expand(-num))
    V1 = CC * R / (1 + BETA * g * R)
    diff = sp.numer(sp.together(V1 - (1 - LAMP * R) / VH1))
    assert sp.rem(sp.expand(diff), sp.expand(num), R) == 0
    _step(n, "V1 = c r / (1 + beta c Vhat1 r) equals E varrho/S = (1 - lambda' E 1/S)/Vhat1 on "
             "the quadratic (remainder of the division is 0)   [asserted]", V1)
    # implicit derivatives of the root: d r / d lambda', d r / d Vhat1, d V1 / d ...
    F = sp.expand(-num)
    dr_dl = -F.diff(LAMP) / F.diff(R)
    dr_dv = -F.diff(VH1) / F.diff(R)
    dV1_dl = V1.diff(LAMP) + V1.diff(R) * dr_dl
    dV1_dv = V1.diff(VH1) + V1.diff(R) * dr_dv
    _step(n, "Second moments = derivatives of the first-order maps (the trace of "
             "-d/dVhat (1/p) tr(X R) = (1/p) tr(X R dVhat R)): -dV2/dlambda' = <1/S^2>, "
             "-dV2/dVhat1 = -dV1/dlambda' = <D/S^2>, -dV1/dVhat1 = <D^2/S^2>; implicit "
             "differentiation of the root", dr_dl)
    with mpmath.workdps(DPS + 10):
        for beta, c, lp, v in (("0.5", "1.3", "0.05", "1.7"), ("1", "1", "0.3", "0.8"),
                               ("2", "2.5", "0.04", "4")):
            sub = {BETA: sp.Rational(beta), CC: sp.Rational(c), LAMP: sp.Rational(lp),
                   VH1: sp.Rational(v)}
            mom = MarchenkoPastur(beta=beta, c=c).moments_mpmath(lp, v, dps=DPS + 10)
            poly = sp.Poly(F.subs(sub), R)
            root = max(rt for rt in (mpmath.mpf(sp.re(x).evalf(DPS + 10)) for x in
                                     poly.nroots(n=DPS + 10)) if rt > 0)
            at = {**sub, R: sp.Float(str(root), DPS + 10)}
            pairs = ((root, mom.inv), (V1.subs(at), mom.rho), (-dr_dl.subs(at), mom.inv2),
                     (-dr_dv.subs(at), mom.rho2), (-dV1_dl.subs(at), mom.rho2),
                     (-dV1_dv.subs(at), mom.rhosq2))
            err = max(abs(mpmath.mpf(sp.Float(a, DPS + 10)) - b) / abs(b) for a, b in pairs)
            assert err < mpmath.mpf(10) ** (-DPS + 2), err
            # the library's analytic prior Jacobian (double precision)
            P = _problem_for_prior([float(c)], [1.0], float(beta), float(lp))
            pr = P.prior(np.array([[float(v)]]), np.array([0.0]))
            d1l, d2l = P.prior_derivative(pr, np.zeros((1, 1)), np.ones(1))
            d1v, d2v = P.prior_derivative(pr, np.ones((1, 1)), np.zeros(1))
            lib = ((pr.V2[0], mom.inv), (pr.V1[0, 0], mom.rho), (-d2l[0], mom.inv2),
                   (-d2v[0], mom.rho2), (-d1l[0, 0], mom.rho2), (-d1v[0, 0], mom.rhosq2))
            lerr = max(abs(a - float(b)) / abs(float(b)) for a, b in lib)
            assert lerr < 1e-13, lerr
            print(f"    beta = {beta}, c = {c}, lambda' = {lp}, Vhat1 = {v}: implicit derivatives vs "
                  f"MarchenkoPastur.moments_mpmath: {mpmath.nstr(err, 2)} (30 digits); library "
                  f"prior + implicit Jacobian vs them: {lerr:.1e}   [asserted]")


def _problem_for_prior(c, pi, beta, lam):
    """The library's block-Wishart prior side alone."""
    return BlockWishartPrior(c, pi, beta, lam)


def k_two_jacobian(n):
    """The library's implicit Jacobian for K = 2 vs SymPy's implicit differentiation."""
    K = 2
    rs = sp.symbols("r_1:3", positive=True)
    vh = sp.Matrix(K, K, lambda i, j: sp.Symbol(f"V1hat_{i + 1}{j + 1}", real=True))  # ordered
    v2 = sp.symbols("V2hat_1:3", positive=True)
    pis = (sp.Rational(3, 10), sp.Rational(7, 10))
    cs = (sp.Rational(11, 10), sp.Rational(19, 10))
    beta, lam = sp.Rational(3, 2), sp.Rational(1, 20)
    Ch = sp.diag(*[sp.sqrt(c) for c in cs])
    Bm = Ch * vh * Ch
    L = sp.diag(*[p * r for p, r in zip(pis, rs)])
    Mi = (sp.eye(K) + beta * L * Bm).inv(method="ADJ")
    T = Bm * Mi
    Phi = sp.Matrix([1 / rs[j] - lam - v2[j] - T[j, j] for j in range(K)])
    V1 = Ch * Mi * L * Ch
    V2 = sp.Matrix([p * r for p, r in zip(pis, rs)])
    params = list(vh) + list(v2)
    outs = sp.Matrix(list(V1) + list(V2))
    # implicit differentiation: d(out)/d(par) = out_par - out_r Phi_r^-1 Phi_par (symbolic
    # derivatives, evaluated in mpmath at 40 digits)
    parts = [Phi, Phi.jacobian(rs), Phi.jacobian(params), outs.jacobian(params),
             outs.jacobian(rs)]
    fns = [sp.lambdify(list(rs) + params, x, modules="mpmath") for x in parts]
    rng = np.random.default_rng(11)
    A = rng.normal(size=(K, K))
    V1hat = A @ A.T + 0.3 * np.eye(K)
    V2hat = rng.uniform(0.2, 1.0, size=K)
    P = _problem_for_prior([float(c) for c in cs], [float(p) for p in pis], float(beta),
                           float(lam))
    pr = P.prior(V1hat, V2hat)
    with mpmath.workdps(DPS + 10):
        pv = [mpmath.mpf(float(x)) for x in list(V1hat.ravel()) + list(V2hat)]
        sol = mpmath.findroot(lambda *r_: [x for x in fns[0](*r_, *pv)],
                              [mpmath.mpf(float(x)) for x in pr.r],
                              tol=mpmath.mpf(10) ** (-2 * DPS))
        sol = [sol[j] for j in range(K)]
        Jr, Jp, Op, Or = (mpmath.matrix(f(*sol, *pv)) for f in fns[1:])
        dout = Op - Or * mpmath.inverse(Jr) * Jp
        J_sym = np.array([[float(dout[i, j]) for j in range(dout.cols)]
                          for i in range(dout.rows)])
    cols = []
    for i, (j, l) in enumerate([(j, l) for j in range(K) for l in range(K)]):
        E = np.zeros((K, K))
        E[j, l] = 1.0
        d1, d2 = P.prior_derivative(pr, E, np.zeros(K))
        cols.append(np.concatenate([d1.ravel(), d2]))
    for j in range(K):
        d1, d2 = P.prior_derivative(pr, np.zeros((K, K)), np.eye(K)[j])
        cols.append(np.concatenate([d1.ravel(), d2]))
    J_lib = np.array(cols).T
    err = np.max(np.abs(J_lib - J_sym)) / np.max(np.abs(J_sym))
    rerr = max(abs(float(sol[j]) - pr.r[j]) / pr.r[j] for j in range(K))
    assert err < 1e-12 and rerr < 1e-13, (err, rerr)
    _step(n, f"K = 2 (pi = (0.3, 0.7), c = (1.1, 1.9), beta = 1.5, lambda = 0.05, random PSD "
             f"V1hat): r_j from the library's monotone iteration + Newton vs sympy.nsolve: "
             f"{rerr:.1e}; the library's implicit Jacobian d(V1, V2)/d(V1hat ordered entries, "
             f"V2hat) (6 x 6) vs SymPy's implicit differentiation: {err:.1e} (relative to the "
             f"largest entry)   [asserted]")


# --------------------------------------------------------------------------------------------
# 6. random matrices

def random_matrices(n):
    K = 3
    pi = np.array([0.5, 0.3, 0.2])
    c = np.array([1.0, 1.4, 2.2])
    lam = 0.05
    rng = np.random.default_rng(2024)
    A_ = rng.normal(size=(K, K))
    V1hat = A_ @ A_.T / K + 0.2 * np.eye(K)
    V2hat = np.array([0.3, 0.6, 0.9])
    A_ = rng.normal(size=(K, K))
    q1hat = A_ @ A_.T / K
    q2hat = np.array([0.2, 0.1, 0.4])
    d = 400
    _step(n, f"Block-Wishart traces against finite matrices: K = 3, pi = {pi.tolist()}, "
             f"c = {c.tolist()}, lambda = {lam}, random PSD V1hat, Q1hat; d = {d}, rows of group j "
             "uniform on the sphere of radius sqrt(c_j), A = W Pi W^T, v a random direction, "
             "zeta a random unit direction orthogonal to v; 3 seeds per beta")
    print("    beta  p    first-order  noise (-J[Q1hat,q2hat])  signal F, H   (max relative error "
          "over entries, mean over seeds)")
    for beta in (0.5, 1.0, 2.0):
        P = _problem_for_prior(c, pi, beta, lam)
        pr = P.prior(V1hat, V2hat)
        nV1, nV2 = P.prior_derivative(pr, q1hat, q2hat)
        theory_first = np.concatenate([pr.V1.ravel(), pr.V2])
        theory_noise = -np.concatenate([nV1.ravel(), nV2])
        theory_F = np.diag(c * pr.V2)
        theory_H = pr.V1
        errs = []
        for seed in range(3):
            errs.append(_one_matrix(d, beta, pi, c, lam, V1hat, V2hat, q1hat, q2hat, seed,
                                    theory_first, theory_noise, theory_F, theory_H))
        e1, e2, e3 = np.mean(errs, axis=0)
        p = int(round(beta * d))
        print(f"    {beta:<5g} {p:<4d} {e1:.1e}      {e2:.1e}                  {e3:.1e}")
        # traces over the bulk: O(1/p) corrections; the signal traces carry chi^2_1 weights of
        # relative size sqrt(2/p) per entry
        assert e1 < 10 / p and e2 < 10 / p, (e1, e2)
        assert e3 < 6 * math.sqrt(2 / p), e3
    print("    first-order and noise traces within 10/p, signal traces within 6 sqrt(2/p) "
          "(their chi^2_1 noise)   [asserted]")


def _one_matrix(d, beta, pi, c, lam, V1hat, V2hat, q1hat, q2hat, seed, t1, t2, tF, tH):
    K = len(pi)
    p = int(round(beta * d))
    rng = np.random.default_rng(100 + seed)
    sizes = np.floor(pi * p).astype(int)
    sizes[0] += p - sizes.sum()
    grp = np.repeat(np.arange(K), sizes)
    W = rng.normal(size=(p, d))
    W *= np.sqrt(c[grp])[:, None] / np.linalg.norm(W, axis=1)[:, None]
    v = rng.normal(size=d)
    v /= np.linalg.norm(v)
    zeta = rng.normal(size=d)
    zeta -= (zeta @ v) * v
    zeta *= math.sqrt(d) / np.linalg.norm(zeta)
    Wv = W @ v * math.sqrt(d)
    WPi = W - np.outer(W @ v, v)
    A = WPi @ WPi.T
    Vmat = V1hat[grp][:, grp] * A + np.diag(V2hat[grp])
    Qmat = q1hat[grp][:, grp] * A + np.diag(q2hat[grp])
    R = np.linalg.inv(lam * np.eye(p) + Vmat)
    ind = np.eye(K)[grp]                                   # p x K group indicators
    AR = A * R.T                                           # (A R)_kk' terms for the traces
    V1e = ind.T @ AR @ ind / p
    V2e = (np.diag(R) @ ind) / p
    RQR = R @ Qmat @ R
    N1 = ind.T @ (A * RQR.T) @ ind / p
    N2 = (np.diag(RQR) @ ind) / p
    F = (ind * Wv[:, None]).T @ R @ (ind * Wv[:, None]) / p
    Wz = WPi @ zeta
    Hm = (ind * Wz[:, None]).T @ R @ (ind * Wz[:, None]) / p
    first = np.concatenate([V1e.ravel(), V2e])
    noise = np.concatenate([N1.ravel(), N2])

    def rel(a, b):
        return float(np.max(np.abs(a - b)) / np.max(np.abs(b)))
    return rel(first, t1), rel(noise, t2), max(rel(F, tF), rel(Hm, tH))


# --------------------------------------------------------------------------------------------
# 7. end to end at r = 0: ridge deterministic equivalent on finite matrices

def _ridge_deterministic_equivalent():
    """``ridge_deterministic_equivalent`` of derivations/08_width_ratio.py (not re-typed)."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).resolve().parent / "08_width_ratio.py"
    spec = importlib.util.spec_from_file_location("_width_ratio", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.ridge_deterministic_equivalent


def end_to_end_plain_rf(n):
    from srfsym import hermite_constants
    ridge_de = _ridge_deterministic_equivalent()
    c, lam, alpha, d, seeds = 1.5, 0.1, 1.5, 800, 4
    ht = hermite_constants(TEACHER)
    mu1t, mu2t = float(ht.mu1), float(ht.second_moment)
    _step(n, f"r = 0, gamma = 0, c = {c} (group j: bulk variance 1 + omega_j^2 (c - 1)), lambda = "
             f"{lam}, alpha = {alpha}: the K-group theory against the Gaussian-equivalence "
             f"deterministic equivalent of ridge on features f = (mu1_j (W x)_k + mu*_j xi_k)/sqrt(p), "
             f"rows of W in group j uniform on the sphere of radius sqrt(c_j), y = {TEACHER}(x_1); "
             f"d = {d}, {seeds} seeds (mean +- standard error); the uniform readout is the control")
    print("    vocabulary   beta  theory      finite d (mean +- s.e.)   rel. gap   gap minus the "
          "control's (paired by seed)")
    control = {}
    for letters, weights in (((1.0,), (1.0,)), ((1, 2), (0.7, 0.3)), ((1, 3), (0.5, 0.5))):
        voc = vocabulary(letters, weights)
        g = group_channel_data(STUDENT, TEACHER, 0.0, c, 0.0, voc, nodes=48)
        mu1, mus2, cj = g.mu1[:, 0], g.mustar2[:, 0], np.array(g.group_c)
        for beta in (0.5, 1.0):
            theory = solve_srf_groups(STUDENT, TEACHER, 0.0, c, 0.0, lam, alpha, beta,
                                      vocabulary=voc, nodes=48).test_error
            p = int(beta * d)
            errs = []
            for seed in range(seeds):
                rng = np.random.default_rng(seed)
                sizes = np.floor(np.array(weights) * p).astype(int)
                sizes[0] += p - sizes.sum()
                grp = np.repeat(np.arange(len(letters)), sizes)
                W = rng.normal(size=(p, d))
                W *= np.sqrt(cj[grp])[:, None] / np.linalg.norm(W, axis=1)[:, None]
                D1 = mu1[grp]
                Sigma = (D1[:, None] * (W @ W.T) * D1[None, :] + np.diag(mus2[grp])) / p
                errs.append(ridge_de(Sigma, mu1t * D1 * W[:, 0] / math.sqrt(p), mu2t,
                                     alpha * d, lam)[0])
            ratio = np.asarray(errs) / theory - 1
            mean, se = float(np.mean(errs)), float(np.std(errs, ddof=1) / math.sqrt(seeds))
            if len(letters) == 1:
                control[beta] = ratio
                paired = "(control)"
            else:
                diff = ratio - control[beta]
                pm, pse = float(diff.mean()), float(diff.std(ddof=1) / math.sqrt(seeds))
                paired = f"{pm:+.3%} +- {pse:.3%}"
                assert abs(pm) < 3 * pse + 0.003, (letters, beta, pm, pse)
            print(f"    {str(list(letters)):<12} {beta:<5g} {theory:.6f}    {mean:.6f} +- {se:.6f}"
                  f"      {ratio.mean():+.2%}     {paired}")
            assert abs(mean - theory) < 3 * se + 0.01 * theory, (letters, beta)
    print("    every vocabulary within 3 standard errors + 1 % of its theory; the gap to the theory "
          "is the uniform control's (the finite-d fluctuation of the spectral sums) to 3 paired "
          "standard errors + 0.3 %   [asserted]")


# --------------------------------------------------------------------------------------------
# 8. special cases

def special_cases(n):
    mp = srf_mapping(STUDENT, TEACHER, 3.0, 20.0)
    r, c = mp.spike_strength, mp.bulk_variance
    nodes = 108
    # K = 1 through the general path
    worst = 0.0
    for beta, gamma, alpha, lam in ((1.0, 1.0, 1.3, 0.1), (0.5, 0.9, 0.4, 1e-3), (2.0, 0.8, 4.0, 3.0)):
        u = solve_srf(STUDENT, TEACHER, r, c, gamma, lam, alpha, beta, nodes=nodes)
        g = solve_srf_groups(STUDENT, TEACHER, r, c, gamma, lam, alpha, beta, vocabulary=[1],
                             nodes=nodes)
        worst = max(worst, abs(u.test_error - g.test_error) / u.test_error,
                    *(abs(a - float(np.ravel(g.order_parameters[k])[0])) / max(1, abs(a))
                      for k, a in u.order_parameters.items()))
    assert worst < 1e-12
    _step(n, f"K = 1 through the K-group equations = the uniform solver (MP closed forms), "
             f"3 points (beta, gamma, alpha, lambda varied): largest relative difference of the "
             f"test error and the order parameters {worst:.1e}   [asserted]")
    # {+1, -1}
    u = solve_srf(STUDENT, TEACHER, r, c, mp.alignment, 0.1, 1.3, nodes=nodes)
    s = solve_srf(STUDENT, TEACHER, r, c, mp.alignment, 0.1, 1.3, nodes=nodes,
                  vocabulary=vocabulary([1, -1], [0.3, 0.7]))
    d = abs(u.test_error - s.test_error)
    assert d < 1e-12 * u.test_error
    assert abs(s.state.m[0] + s.state.m[1]) < 1e-12
    _step(n, f"{{+1, -1}}, pi = (0.3, 0.7), odd student: mu0 rows opposite, the minimum-norm m "
             f"has m_2 = -m_1 = {s.state.m[1]:.6f} (uniform m = {u.state.m:.6f}); test error "
             f"{s.test_error:.12f} vs uniform {u.test_error:.12f}   [asserted to 1e-12]")
    # two letters, identical groups: r = 0, c = 1
    u = solve_srf(STUDENT, TEACHER, 0.0, 1.0, 0.0, 0.1, 1.3, nodes=nodes)
    s = solve_srf(STUDENT, TEACHER, 0.0, 1.0, 0.0, 0.1, 1.3, nodes=nodes,
                  vocabulary=vocabulary([1, 2], [0.4, 0.6]))
    assert abs(u.test_error - s.test_error) < 1e-12 * u.test_error
    _step(n, f"{{1, 2}} at r = 0, c = 1 (plain random features: both groups have the same "
             f"coefficients; the splitting check {{1, 1}}): test error {s.test_error:.12f} vs "
             f"uniform {u.test_error:.12f}; resolvents r_j = {s.groups['resolvent']}   "
             "[asserted to 1e-12]")
    # r = 0: rotation invariance links the theta path (F ~ c) and the psi path (H ~ D)
    voc = vocabulary([1, 3, 0.5], [0.2, 0.3, 0.5])
    spread = 0.0
    for beta in (0.5, 1.0, 2.0):
        errs = [solve_srf_groups(STUDENT, TEACHER, 0.0, 1.5, g, 0.1, 1.5, beta, vocabulary=voc,
                                 nodes=64).test_error for g in (0.0, 0.6, 1.0)]
        spread = max(spread, (max(errs) - min(errs)) / errs[0])
    assert spread < 1e-13
    _step(n, f"r = 0 (no spike): the test error cannot depend on gamma.  At gamma = 1 the teacher "
             f"enters through theta_j = sqrt(beta) c_j V2_j thetahat_j (signal traces F ~ c per "
             f"group), at gamma = 0 through psi = sqrt(beta) V1 psihat (H ~ D); vocabulary "
             f"{{1, 3, 0.5}}, pi = (0.2, 0.3, 0.5), gamma in {{0, 0.6, 1}}, beta in {{0.5, 1, 2}}: "
             f"largest relative spread {spread:.1e}   [asserted]")
    # lambda -> infinity and the lower bound: docs/theory.md (k.7.7)
    table = {(1,): (0.0202587, 0.01896, 0.00405), (1, 2): (0.0089544, 0.00894, 0.00049),
             (1, 3): (0.0115271, 0.01146, 0.00111), (1, 2, 3): (0.0053077, 0.00531, 0.00014)}
    _step(n, "lambda -> infinity: V, theta, psi, Q -> 0 and m solves Gamma0 m = u0, so eps_g -> U_K; "
             "for every lambda eps_g >= L_K.  tanh/sin, alpha0 = 20, eta = 3, gamma = 1 "
             "(table of docs/theory.md (k.7.7) in brackets)")
    print("    vocabulary   eps(lambda=1e6)   U_K               rel. diff   min over grid "
          "    L_K")
    for letters, (q_u, q_min, q_l) in table.items():
        b = bounds(STUDENT, TEACHER, r, c, 1.0, vocabulary=list(letters))
        big = solve_srf_groups(STUDENT, TEACHER, r, c, 1.0, 1e6, 0.5, vocabulary=list(letters))
        grid = [solve_srf_groups(STUDENT, TEACHER, r, c, 1.0, lam, a, vocabulary=list(letters),
                                 nodes=big.nodes).test_error
                for a in (0.5, 2, 8, 32) for lam in (1e-3, 1e-2, 1e-1, 1, 10, 100)]
        rel = abs(big.test_error - b.upper) / b.upper
        assert rel < 1e-6, rel
        assert min(grid) >= b.lower
        assert min(grid) >= q_min - 1e-5     # a coarser lambda grid than the table's
        assert abs(big.test_error - q_u) < 1e-7 and abs(b.lower - q_l) < 1e-5
        print(f"    {str(set(letters)):<12} {big.test_error:.7f} [{q_u}]  {b.upper:.10f}  "
              f"{rel:.1e}     {min(grid):.5f} [{q_min}]  {b.lower:.5f} [{q_l}]")
    print("    eps(1e6) = U_K to < 1e-6 relative, the grid minimum >= L_K; the values agree "
          "with the table (the grid here is coarser in lambda, so its minimum may sit "
          "slightly above the table's)   [asserted]")


def main():
    print(TITLE)
    print("=" * len(TITLE))
    n = [0]
    conditional_error(n)
    woodbury(n)
    k_one(n)
    k_two_jacobian(n)
    random_matrices(n)
    end_to_end_plain_rf(n)
    special_cases(n)
    print("\nAll identities asserted.")
    print("DONE")


if __name__ == "__main__":
    main()
