"""Any convex readout loss: the Moreau envelope, the proximal identities, the square-loss
reduction and the channel potential (docs/theory.md (m)).

1. srfsym's objective ``sum loss + lambda ||a||^2`` has the minimiser of
   ``sum l + (lambda/2) ||a||^2`` with the channel loss ``l = loss/2``; for the square loss
   ``l = (y - x)^2/2`` and its Moreau envelope is ``(y - omega)^2 / (2 (1 + V))`` (SymPy);
2. for any smooth convex ``l`` (an undefined SymPy function) the proximal point
   ``P = omega - V l'(P)`` gives ``f := (P - omega)/V = -l'(P)``,
   ``dM/domega = -f``, ``dM/dV = -f^2/2`` and ``-df/domega = l''/(1 + V l'')`` (implicit
   differentiation, asserted symbolically);
3. with the square loss the four Gaussian expectations of the channel are
   ``E f = (h - b) w``, ``E f^2 = eps w^2``, ``E[z f] = (h1 - mu1 psi) w``, ``E(-df) = w``
   (moments of a linear function of the Gaussians, SymPy), so the convex-loss conjugates
   are those of Result 3.3 term by term (the psi-hat integrand ``mu1 h1 w``);
4. the logistic proximal step by its margin symmetry ``prox_y(omega) = y x*(y omega)`` equals
   the generic safeguarded Newton step on the generated derivatives (numerically);
5. finite differences: ``dM/domega = -f`` and ``dM/dV = -f^2/2`` for the logistic, hinge and a
   user loss; the conjugates equal the derivatives of the channel potential
   ``Psi = E_kappa E M_V(kappa)(y, omega)``: ``V1^ = (2 alpha/beta) dPsi/dq1``,
   ``q1^ = -(2 alpha/beta) dPsi/dV1`` (same for 2), ``theta^ = -(alpha/sqrt beta) dPsi/dtheta``,
   ``psi^ = -(alpha/sqrt beta) dPsi/dpsi`` at fixed q, at a state that is not a fixed point,
   with a trained bias and label noise: labels +-1 (logistic with probit noise, hinge) and real
   labels (a loss that is not a function of y - yhat, with the label noise integrated apart;
   pseudo-Huber, a function of y - yhat, with the noise merged into the prediction's Gaussian).
"""
from functools import partial
import math

import numpy as np
import sympy as sp

from srfsym.core.derive_tools import is_zero, print_step
from srfsym.theory.channels.kappa_quadrature import channel_data
from srfsym.theory.channels.convex import ConvexChannel
from srfsym.theory.channels.losses import loss

TITLE = "Convex readout losses: Moreau envelope, proximal identities, square-loss reduction"

y, x, om = sp.symbols("y x omega", real=True)
V = sp.Symbol("V", positive=True)
_step = partial(print_step, latex_names={om: r"\omega"})


def square_envelope(n):
    l = (y - x) ** 2 / 2
    P = sp.solve(sp.diff((x - om) ** 2 / (2 * V) + l, x), x)[0]
    M = sp.simplify(((P - om) ** 2 / (2 * V) + l).subs(x, P))
    _step(n, "square loss: proximal point and Moreau envelope", sp.Tuple(P, sp.factor(M)))
    assert is_zero(P - (om + V * y) / (1 + V))
    assert is_zero(M - (y - om) ** 2 / (2 * (1 + V)))
    f = (P - om) / V
    assert is_zero(f + sp.diff(l, x).subs(x, P)) and is_zero(sp.diff(M, om) + f)
    assert is_zero(sp.diff(M, V) + f ** 2 / 2) and is_zero(-sp.diff(f, om) - 1 / (1 + V))
    _step(n, "f = (y - omega)/(1 + V), -df/domega = 1/(1 + V) = w: the ridge channel")


def general_identities(n):
    l = sp.Function("l")
    p = sp.Symbol("p", real=True)
    Pf = sp.Function("P")(om, V)
    lp, lpp = (sp.diff(l(x), x, k).subs(x, Pf) for k in (1, 2))
    stationarity = Pf - om + V * lp
    dP_dom = sp.solve(sp.diff(stationarity, om), sp.diff(Pf, om))[0]
    dP_dV = sp.solve(sp.diff(stationarity, V), sp.diff(Pf, V))[0]
    _step(n, "implicit differentiation of P - omega + V l'(P) = 0", sp.Tuple(dP_dom, dP_dV))
    assert is_zero(dP_dom - 1 / (1 + V * lpp)) and is_zero(dP_dV + lp / (1 + V * lpp))
    f = (Pf - om) / V
    M = (Pf - om) ** 2 / (2 * V) + l(Pf)
    sub = {sp.Derivative(Pf, om): dP_dom, sp.Derivative(Pf, V): dP_dV}
    # on the stationarity line omega = P + V l'(P), written with a plain symbol p for P
    line = lambda e: sp.simplify(e.subs(sub).subs(Pf, p).subs(   # noqa: E731
        om, p + V * sp.diff(l(p), p)).doit())
    r0 = line(f + lp)
    r1 = line(sp.diff(M, om) + f)
    r2 = line(sp.diff(M, V) + f ** 2 / 2)
    r3 = line(-sp.diff(f, om) - lpp / (1 + V * lpp))
    _step(n, "f + l'(P), dM/domega + f, dM/dV + f^2/2, -df/domega - l''/(1 + V l'') on the "
          "stationarity line", sp.Tuple(r0, r1, r2, r3))
    assert r0 == 0 and r1 == 0 and r2 == 0 and r3 == 0


def square_reduction(n):
    h, h1, h2, b, mu1, psi, s, w = sp.symbols("h h1 h2 b mu1 psi s w", real=True)
    z, xi, Y = sp.symbols("z xi Y", real=True)
    omega = b + mu1 * psi * z + s * xi
    f = (Y - omega) * w
    moments = {Y ** 2: h2, Y * z: h1, Y: h, z ** 2: 1, z: 0}

    def E(expr):
        """Expectation of a polynomial in (Y, z, xi): xi independent N(0, 1), z N(0, 1),
        the label Y with E Y = h, E Y z = h1, E Y^2 = h2."""
        poly = sp.Poly(sp.expand(expr), Y, z, xi)
        total = 0
        for (a, bz, c), coef in poly.terms():
            xi_m = {0: 1, 1: 0, 2: 1}[c]
            mono = Y ** a * z ** bz
            total += coef * xi_m * (moments[mono] if mono != 1 else 1)
        return sp.expand(total)

    Q = mu1 ** 2 * psi ** 2 + s ** 2
    eps = h2 - 2 * b * h - 2 * mu1 * psi * h1 + b ** 2 + Q
    out = sp.Tuple(E(f), E(f ** 2), E(z * f))
    _step(n, "square loss, Gaussian expectations of f = (y - omega) w", out)
    assert is_zero(E(f) - (h - b) * w) and is_zero(E(f ** 2) - eps * w ** 2)
    assert is_zero(E(z * f) - (h1 - mu1 * psi) * w)
    psihat_integrand = mu1 * (E(z * f) + mu1 * psi * w)
    _step(n, "psi-hat integrand mu1 (E[z f] + mu1 psi E(-df)) = mu1 h1 w (Result 3.3)",
          sp.factor(psihat_integrand))
    assert is_zero(psihat_integrand - mu1 * h1 * w)


def logistic_symmetry(n):
    rng = np.random.default_rng(0)
    yy = rng.choice([-1.0, 1.0], 5000)
    ww, VV = 4 * rng.normal(size=5000), rng.uniform(0.01, 40.0, 5000)
    a = loss("logistic").prox(yy, ww, VV)
    b = loss("log(1 + exp(-y*yhat))").prox(yy, ww, VV)
    dev = max(float(np.max(np.abs(u - v) / (1 + np.abs(v)))) for u, v in zip(a, b))
    _step(n, f"logistic prox by y x*(y omega) vs generic Newton on the generated derivatives "
          f"(5000 points, V up to 40): max relative deviation {dev:.1e}")
    assert dev < 1e-13


def envelope_fd(n):
    rng = np.random.default_rng(1)
    for name in ("logistic", "hinge", "exp(-y*yhat)"):
        lo = loss(name)
        yy = rng.choice([-1.0, 1.0], 400)
        ww, VV = 2 * rng.normal(size=400), rng.uniform(0.1, 3.0, 400)
        keep = np.ones(400, bool)
        for k in lo.kinks(yy, VV):          # away from the hinge's kinks
            keep &= np.abs(ww - k) > 1e-3

        def M(o, v):
            P, _, _ = lo.prox(yy, o, v)
            return (P - o) ** 2 / (2 * v) + lo.value(yy, P) / 2

        _, f, _ = lo.prox(yy, ww, VV)
        e = 1e-6
        d_om = (M(ww + e, VV) - M(ww - e, VV)) / (2 * e)
        d_V = (M(ww, VV + e) - M(ww, VV - e)) / (2 * e)
        dev = max(np.max(np.abs(d_om + f)[keep]), np.max(np.abs(d_V + f * f / 2)[keep]))
        _step(n, f"{name}: |dM/domega + f|, |dM/dV + f^2/2| by central differences <= {dev:.1e}")
        assert dev < 1e-7


def potential_fd(n):
    alpha, beta = 2.0, 1.5
    for teacher, name, noise in (("sign", "logistic", 0.3), ("sign", "hinge", 0.0),
                                 ("tanh", "(y - yhat)**2 + yhat**4/10", 0.2),
                                 ("sin", "sqrt(1 + (y - yhat)**2) - 1", 0.2)):
        # the psi-hat form uses Stein's lemma in xi, exact only as the xi-rule converges:
        # the deviation is the quadrature error of that step (small rules keep this fast)
        ch = channel_data("tanh", teacher, 1.2, 1.1, 0.8, nodes=32 if teacher != "sign" else 80)
        C = ConvexChannel(ch, name, alpha=alpha, beta=beta, teacher=teacher, noise=noise,
                          bias=True, method="quadrature", nodes_u=24, nodes_z=8, nodes_xi=40,
                          nodes_xi0=8)
        s0 = dict(q1=1.3, q2=0.9, V1=1.1, V2=1.6, theta=0.2, psi=0.4, m=0.7, b0=-0.3)

        def Psi(**kw):
            st = {**s0, **kw}
            pt = C.point(*st.values())
            return float(np.dot(C.w, C.moments(pt, observables=True)["moreau"]))

        pt = C.point(*s0.values())
        hat = C.hats(C.moments(pt, observables=True), s0["psi"])
        e = 1e-5
        d = {k: (Psi(**{k: s0[k] + e}) - Psi(**{k: s0[k] - e})) / (2 * e)
             for k in ("q1", "q2", "V1", "V2", "theta", "psi")}
        a_b, a_sb = alpha / beta, alpha / math.sqrt(beta)
        fd = (-2 * a_b * d["V1"], -2 * a_b * d["V2"], 2 * a_b * d["q1"], 2 * a_b * d["q2"],
              -a_sb * d["theta"], -a_sb * d["psi"])
        dev = max(abs(a - b) for a, b in zip(hat, fd))
        _step(n, f"{name}, teacher {teacher} (noise {noise}, trained bias): conjugates against "
              f"finite differences "
              f"of Psi at a non-stationary state: max deviation {dev:.1e}")
        assert dev < 1e-7


def main():
    n = [0]
    print(TITLE)
    print("=" * len(TITLE))
    _step(n, "srfsym's objective sum loss + lambda ||a||^2 = 2 (sum loss/2 + (lambda/2) ||a||^2): "
          "the replica equations use the channel loss l = loss/2 with the ridge's lambda, so "
          "the spectral side is the ridge's unchanged")
    square_envelope(n)
    general_identities(n)
    square_reduction(n)
    logistic_symmetry(n)
    envelope_fd(n)
    potential_fd(n)
    print("\nAll identities asserted.")


if __name__ == "__main__":
    main()
